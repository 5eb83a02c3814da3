//! Times in-process verification of signed XML documents (parse, canonicalize, digest, check):
//! `cargo run --release -p binxml-sign --example verify_time -- CERT.pem SIGNED.xml...`.

use std::time::Instant;

use binxml_sign::dsig::{KeySource, VerifyOptions, verify_xml};
use binxml_sign::keys::Certificate;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cert, docs) = args
        .split_first()
        .expect("usage: verify_time CERT.pem SIGNED.xml...");
    let cert = Certificate::from_pem(&std::fs::read(cert).unwrap()).unwrap();
    let opts = VerifyOptions::default();
    for path in docs {
        let doc = std::fs::read(path).unwrap();
        let key = KeySource::Given(cert.public_key());
        verify_xml(&doc, key, &opts).unwrap();
        // Enough runs for about a second, at least 10.
        let start = Instant::now();
        let mut runs = 0u32;
        while runs < 10 || start.elapsed().as_secs_f64() < 1.0 {
            verify_xml(&doc, key, &opts).unwrap();
            runs += 1;
        }
        let each = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "{path}: {} bytes, {:.1} us per verification ({runs} runs)",
            doc.len(),
            each * 1e6
        );
    }
}
