//! Table 4 style timings (milliseconds, best of N runs): read XML into events, read PER into
//! events, write XML from events, write PER from events, without and with bzip2 compression of
//! the component-strings block.
//! `cargo run --release -p binxml-asn1 --example asn1_speed -- FILE...`
use std::time::Instant;

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

fn main() {
    let n = 15;
    println!(
        "document\treadXML\treadUPER\treadAPER\twriteXML\twriteUPER\treadUPER/C\twriteUPER/C\tratio(readXML/readUPER)"
    );
    for f in std::env::args().skip(1) {
        let raw = std::fs::read(&f).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap().into_owned();
        let events = binxml_xml::parse_events(&utf8).unwrap();
        let uper = encode(&events, Options::new(Rule::Uper)).unwrap();
        let aper = encode(&events, Options::new(Rule::Aper)).unwrap();
        let uperc = encode(
            &events,
            Options::new(Rule::Uper).with_compression(Compression::Bzip2),
        )
        .unwrap();
        if std::env::var("ONLY_DECODE").is_ok() {
            let t = best(300, || decode(&uper, Rule::Uper).unwrap().len());
            eprintln!("decode UPER best {t:.3} ms");
            continue;
        }
        let rx = best(n, || binxml_xml::parse_events(&utf8).unwrap().len());
        let ru = best(n, || decode(&uper, Rule::Uper).unwrap().len());
        let ra = best(n, || decode(&aper, Rule::Aper).unwrap().len());
        let wx = best(n, || binxml_xml::write_events(&events).unwrap().len());
        let wu = best(n, || {
            encode(&events, Options::new(Rule::Uper)).unwrap().len()
        });
        let ruc = best(n, || decode(&uperc, Rule::Uper).unwrap().len());
        let wuc = best(n, || {
            encode(
                &events,
                Options::new(Rule::Uper).with_compression(Compression::Bzip2),
            )
            .unwrap()
            .len()
        });
        if std::env::var("SPLIT").is_ok() {
            let dv = best(n, || {
                binxml_asn1::decode_value(Rule::Uper, &uper, &Default::default()).unwrap()
            });
            let dvd = best(n, || {
                drop(binxml_asn1::decode_value(Rule::Uper, &uper, &Default::default()).unwrap())
            });
            eprintln!("decode_value {dv:.2} (with drop {dvd:.2})");
        }
        let name = std::path::Path::new(&f)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        println!(
            "{name}\t{rx:.2}\t{ru:.2}\t{ra:.2}\t{wx:.2}\t{wu:.2}\t{ruc:.2}\t{wuc:.2}\t{:.2}",
            rx / ru
        );
    }
}
