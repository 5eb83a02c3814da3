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
            "decode (pull, next_event): {:.0} MB/s ({:.3} ms per document, {count} events)",
            mb / s,
            s * 1e3
        );
        let mut sink = binxml_core::CountingSink::default();
        let t = std::time::Instant::now();
        for _ in 0..n {
            FiDecoder::new(&fi).read_into(&mut sink).unwrap();
        }
        let s = t.elapsed().as_secs_f64() / n as f64;
        assert_eq!(
            sink.events as usize, count,
            "push and pull disagree on the event count"
        );
        println!(
            "decode (push, read_into a counting sink): {:.0} MB/s ({:.3} ms per document)",
            mb / s,
            s * 1e3
        );
        let mut dynd: Box<dyn Decoder<'_>> = Box::new(FiDecoder::new(&fi));
        drop(dynd.next_event());
        let t = std::time::Instant::now();
        let mut c2 = 0usize;
        for _ in 0..n {
            let mut d: Box<dyn Decoder<'_>> = Box::new(FiDecoder::new(&fi));
            while let Some(_e) = d.next_event().unwrap() {
                c2 += 1;
            }
        }
        let s = t.elapsed().as_secs_f64() / n as f64;
        assert_eq!(c2, count);
        println!(
            "decode (pull through Box<dyn Decoder>): {:.0} MB/s ({:.3} ms per document)",
            mb / s,
            s * 1e3
        );
        let t = std::time::Instant::now();
        for _ in 0..n / 10 {
            let mut d = FiDecoder::new(&fi);
            std::hint::black_box(
                binxml_tree::Document::parse_push(&mut d, fi.len())
                    .unwrap()
                    .len(),
            );
        }
        let s = t.elapsed().as_secs_f64() / (n / 10).max(1) as f64;
        println!("tree (push): {:.0} MB/s", mb / s);
        let t = std::time::Instant::now();
        for _ in 0..n / 10 {
            let mut d = FiDecoder::new(&fi);
            std::hint::black_box(
                binxml_tree::Document::parse_from(&mut d, fi.len())
                    .unwrap()
                    .len(),
            );
        }
        let s = t.elapsed().as_secs_f64() / (n / 10).max(1) as f64;
        println!("tree (pull): {:.0} MB/s", mb / s);
        let t = std::time::Instant::now();
        for _ in 0..n / 10 {
            std::hint::black_box(binxml_tree::Document::parse_xml(&xml).unwrap().len());
        }
        let s = t.elapsed().as_secs_f64() / (n / 10).max(1) as f64;
        println!("XML -> tree: {:.0} MB/s", mb / s);
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
