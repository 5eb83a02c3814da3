//! Throughput over many documents, MB of XML (the document's UTF-8 size) per second, from the
//! sums of per-document best-of-5 times: every event of binxml-xml, UPER and APER pulled and
//! dropped; XML, UPER and BER read into the tree (`binxml-tree`, push decoding as
//! `binxml::parse_tree`); XML, UPER and BER written from events.
//! `cargo run --release -p binxml-asn1 --example asn1_throughput -- FILE...`
//! (`PERDOC=1`: per document, XML time / UPER time, UPER ms, sizes, UPER write ms.)
use binxml_asn1::{Asn1Decoder, Options, Rule, encode};
use binxml_core::{Decoder, Limits};
use std::time::Instant;
fn best<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut b = f64::MAX;
    for _ in 0..n {
        let t = Instant::now();
        std::hint::black_box(f());
        b = b.min(t.elapsed().as_secs_f64());
    }
    b
}
fn drain<'a>(mut d: impl Decoder<'a>) -> usize {
    let mut k = 0;
    while let Some(e) = d.next_event().unwrap() {
        std::hint::black_box(&e);
        k += 1;
    }
    k
}
fn main() {
    let mut files: Vec<_> = std::env::args().skip(1).collect();
    files.sort();
    let (mut bytes, mut t) = (0usize, [0f64; 9]);
    for f in &files {
        let raw = std::fs::read(f).unwrap();
        let Ok(utf8) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let utf8 = utf8.into_owned();
        let Ok(events) = binxml_xml::parse_events(&utf8) else {
            continue;
        };
        let Ok(uper) = encode(&events, Options::new(Rule::Uper)) else {
            continue;
        };
        let aper = encode(&events, Options::new(Rule::Aper)).unwrap();
        bytes += utf8.len();
        let n = 5;
        let a = best(n, || {
            drain(binxml_xml::XmlDecoder::with_limits(
                &utf8,
                Limits::default(),
            ))
        });
        let b = best(n, || drain(Asn1Decoder::new(&uper, Rule::Uper)));
        let w = best(2, || {
            encode(&events, Options::new(Rule::Uper)).unwrap().len()
        });
        if std::env::var("PERDOC").is_ok() {
            println!(
                "{:.2}\t{:.2}\t{}\t{}\t{:.1}ms write\t{}",
                a / b,
                b * 1000.0,
                utf8.len(),
                uper.len(),
                w * 1000.0,
                f
            );
        }
        t[0] += a;
        t[1] += b;
        t[2] += best(n, || drain(Asn1Decoder::new(&aper, Rule::Aper)));
        t[3] += best(n, || {
            // as binxml::parse_tree: push decoding, the facade's size hint
            let mut d = binxml_xml::XmlDecoder::with_limits(&utf8, Limits::default());
            binxml_tree::Document::parse_push(&mut d, utf8.len())
                .unwrap()
                .len()
        });
        t[4] += best(n, || {
            let mut d = Asn1Decoder::new(&uper, Rule::Uper);
            binxml_tree::Document::parse_push(&mut d, uper.len() * 3)
                .unwrap()
                .len()
        });
        t[5] += best(n, || binxml_xml::write_events(&events).unwrap().len());
        t[6] += best(n, || {
            encode(&events, Options::new(Rule::Uper)).unwrap().len()
        });
        let ber = encode(&events, Options::new(Rule::Ber)).unwrap();
        t[7] += best(n, || {
            encode(&events, Options::new(Rule::Ber)).unwrap().len()
        });
        t[8] += best(n, || {
            let mut d = Asn1Decoder::new(&ber, Rule::Ber);
            binxml_tree::Document::parse_push(&mut d, ber.len() * 3)
                .unwrap()
                .len()
        });
    }
    let mb = bytes as f64 / 1e6;
    println!("{} docs, {:.1} MB of XML", files.len(), mb);
    for (i, name) in [
        "xml events",
        "uper events",
        "aper events",
        "xml tree",
        "uper tree",
        "xml write",
        "uper write",
        "ber write",
        "ber tree",
    ]
    .iter()
    .enumerate()
    {
        println!("{name}\t{:.0} MB/s", mb / t[i]);
    }
}
