//! XML -> Fast Infoset throughput by the three ways of feeding the encoder:
//! `cargo run --release -p binxml-fi --example fi_push_bench -- <file.xml>... [-n N]`.
//!
//! * replay: events collected once (strings borrowed from the XML), written with `write_event`
//!   (the encoder alone, what the bench times)
//! * pull: the XML decoder's `next_event` -> `write_event`, one `Event` per item
//! * push: the XML decoder's `read_into` the encoder (`EventSink`: parts, no `Event`s)
//! * push, counting sink: the XML decoder alone, for reference
//!
//! MB/s of XML; each figure is the best of 5 rounds of `n` runs.

use binxml_core::{CountingSink, Decoder, Encoder};
use binxml_fi::FiEncoder;
use binxml_xml::XmlDecoder;

fn best(n: usize, mb: f64, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / n as f64);
    }
    mb / best
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 20;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args[i + 1].parse().unwrap();
        args.drain(i..i + 2);
    }
    println!("file\treplay\tpull\tpush\tXML push alone (MB/s)");
    for path in &args {
        let input = std::fs::read(path).unwrap();
        let utf8 = binxml_xml::to_utf8(&input).unwrap().into_owned();
        let mb = input.len() as f64 / 1e6;
        let events = binxml_core::collect_events(&mut XmlDecoder::new(&utf8)).unwrap();
        let mut out = Vec::with_capacity(input.len());
        let replay = best(n, mb, || {
            out.clear();
            let mut e = FiEncoder::new(&mut out);
            for x in &events {
                e.write_event(x).unwrap();
            }
            e.finish().unwrap();
        });
        let want = out.clone();
        let pull = best(n, mb, || {
            out.clear();
            let mut e = FiEncoder::new(&mut out);
            let mut d = XmlDecoder::new(&utf8);
            while let Some(x) = d.next_event().unwrap() {
                e.write_event(&x).unwrap();
            }
            e.finish().unwrap();
        });
        assert!(out == want);
        let push = best(n, mb, || {
            out.clear();
            let mut e = FiEncoder::new(&mut out);
            Decoder::read_into(&mut XmlDecoder::new(&utf8), &mut e).unwrap();
            e.finish().unwrap();
        });
        assert!(out == want);
        let alone = best(n, mb, || {
            let mut s = CountingSink::default();
            Decoder::read_into(&mut XmlDecoder::new(&utf8), &mut s).unwrap();
            std::hint::black_box(s.events);
        });
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy();
        println!("{name}\t{replay:.0}\t{pull:.0}\t{push:.0}\t{alone:.0}");
    }
}
