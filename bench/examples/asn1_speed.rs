//! The ASN.1 paper's Table 4 (OSS Nokalva 2003, "binary representations of the XML
//! Information Set based on ASN.1"), timings in milliseconds, best of `RUNS` runs (default 15):
//! read XML into events, read UPER and APER into events, write XML and UPER from events, UPER
//! with bzip2 compression of the component-strings block both ways; and XML and UPER read into
//! the tree (`binxml-tree` by push decoding, what `binxml::parse_tree` does).
//!
//! `cargo run --release -p binxml-bench --example asn1_speed -- FILE...` (run by `scripts/bench`
//! on the paper's documents). For other operations or option sets, or over the whole corpus,
//! use the `profile` example.
use std::time::Instant;

use binxml::Format;
use binxml_asn1::{Compression, Options, Rule, decode, encode};

fn best<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..n {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    best
}

fn name(f: &str) -> String {
    std::path::Path::new(f)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string()
}

fn main() {
    let n: usize = std::env::var("RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    println!(
        "document\treadXML\treadUPER\treadAPER\twriteXML\twriteUPER\treadUPER/C\twriteUPER/C\tratio(readXML/readUPER)\ttreeXML\ttreeUPER\tratio(treeXML/treeUPER)"
    );
    for f in std::env::args().skip(1) {
        let raw = std::fs::read(&f).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap().into_owned();
        let events = binxml_xml::decode(&utf8).unwrap();
        let uper = encode(&events, Options::new(Rule::Uper)).unwrap();
        let aper = encode(&events, Options::new(Rule::Aper)).unwrap();
        let uperc = encode(
            &events,
            Options::new(Rule::Uper)
                .with_compression(Compression::Bzip2)
                .unwrap(),
        )
        .unwrap();
        let rx = best(n, || binxml_xml::decode(&utf8).unwrap().len());
        let ru = best(n, || decode(&uper, Rule::Uper).unwrap().len());
        let ra = best(n, || decode(&aper, Rule::Aper).unwrap().len());
        let wx = best(n, || binxml_xml::encode(&events).unwrap().len());
        let wu = best(n, || {
            encode(&events, Options::new(Rule::Uper)).unwrap().len()
        });
        let ruc = best(n, || decode(&uperc, Rule::Uper).unwrap().len());
        let wuc = best(n, || {
            encode(
                &events,
                Options::new(Rule::Uper)
                    .with_compression(Compression::Bzip2)
                    .unwrap(),
            )
            .unwrap()
            .len()
        });
        let tx = best(n, || binxml::parse_tree(Format::Xml, &utf8).unwrap().len());
        let tu = best(n, || {
            binxml::parse_tree(Format::Asn1Uper, &uper).unwrap().len()
        });
        println!(
            "{}\t{rx:.2}\t{ru:.2}\t{ra:.2}\t{wx:.2}\t{wu:.2}\t{ruc:.2}\t{wuc:.2}\t{:.2}\t{tx:.2}\t{tu:.2}\t{:.2}",
            name(&f),
            rx / ru,
            tx / tu
        );
    }
}
