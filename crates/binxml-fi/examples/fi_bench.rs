//! Quick throughput check: `cargo run --release -p binxml-fi --example fi_bench -- <file.xml>
//! [decode|encode] [iterations]`. Prints MB/s of XML-equivalent (the XML file's size).

use binxml_core::{Decoder, Encoder};
use binxml_fi::{FiDecoder, FiEncoder, FiOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: fi_bench <file.xml> [decode|encode|both] [iterations]");
    let what = args.get(2).map(String::as_str).unwrap_or("both");
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let xml = std::fs::read(path).unwrap();
    let (ev, fi) = if path.ends_with(".fi") {
        // a Fast Infoset file: decode only (MB/s are then of the FI file's size)
        (Vec::new(), xml.clone())
    } else {
        let ev = binxml_xml::parse_events(&xml).unwrap();
        let fi = binxml_fi::encode_events(&ev, FiOptions::default()).unwrap();
        (ev, fi)
    };
    let mb = xml.len() as f64 / 1e6;
    if what != "encode" {
        let mut count = 0usize;
        let t = std::time::Instant::now();
        for _ in 0..n {
            let mut d = FiDecoder::new(&fi);
            while let Some(e) = d.next_event().unwrap() {
                count += 1;
                drop(e);
            }
        }
        let s = t.elapsed().as_secs_f64() / n as f64;
        println!(
            "decode: {:.0} MB/s ({:.3} ms per document, {count} events)",
            mb / s,
            s * 1e3
        );
    }
    if what != "decode" && !ev.is_empty() {
        let mut out = Vec::with_capacity(fi.len() * 2);
        let t = std::time::Instant::now();
        for _ in 0..n {
            out.clear();
            let mut e = FiEncoder::new(&mut out);
            for x in &ev {
                e.write_event(x).unwrap();
            }
            e.finish().unwrap();
        }
        let s = t.elapsed().as_secs_f64() / n as f64;
        println!(
            "encode: {:.0} MB/s ({:.3} ms per document, {} bytes)",
            mb / s,
            s * 1e3,
            out.len()
        );
        // the same events, borrowed from a decoded FI document (names shared, as a SAX
        // recording shares interned names)
        let borrowed = binxml_core::collect_events(&mut FiDecoder::new(&fi)).unwrap();
        let t = std::time::Instant::now();
        for _ in 0..n {
            out.clear();
            let mut e = FiEncoder::new(&mut out);
            for x in &borrowed {
                e.write_event(x).unwrap();
            }
            e.finish().unwrap();
        }
        let s = t.elapsed().as_secs_f64() / n as f64;
        println!(
            "encode (events borrowing shared strings): {:.0} MB/s ({:.3} ms per document)",
            mb / s,
            s * 1e3
        );
    }
}
