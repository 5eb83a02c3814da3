//! Replays a document's events into the encoder as the bench harness does (events borrowed
//! from the XML, `Box<dyn Encoder>` over a `Box<dyn Write>` into a fresh `Vec`), 15 times;
//! prints the median time, and the median with direct calls into a reused output buffer.
//! Uses only the API the encoder always had, so that it builds against older commits too
//! (`git worktree add`) for before/after comparisons on a loaded machine, run alternately.
//! `cargo run --release -p binxml-fi --example fi_replay_bench -- <file.xml>...`
use binxml_core::{Decoder, Encoder, Event};
use binxml_fi::FiEncoder;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for path in &args {
        let input = std::fs::read(path).unwrap();
        let utf8 = binxml_xml::to_utf8(&input).unwrap().into_owned();
        let mut d = binxml_xml::XmlDecoder::new(&utf8);
        let mut events: Vec<Event<'_>> = Vec::new();
        while let Some(e) = d.next_event().unwrap() {
            events.push(e);
        }
        let mut keep = Vec::new();
        let mut t2 = Vec::new();
        for _ in 0..15 {
            let t = std::time::Instant::now();
            keep.clear();
            let mut e = FiEncoder::new(&mut keep);
            for x in &events {
                e.write_event(x).unwrap();
            }
            e.finish().unwrap();
            t2.push(t.elapsed().as_secs_f64());
        }
        t2.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let direct = t2[7];
        let mut times = Vec::new();
        for _ in 0..15 {
            let t = std::time::Instant::now();
            let mut out = Vec::new();
            {
                let w: Box<dyn std::io::Write + '_> = Box::new(&mut out);
                let mut e: Box<dyn Encoder + '_> =
                    std::hint::black_box(Box::new(FiEncoder::new(w)));
                for x in &events {
                    e.write_event(x).unwrap();
                }
                e.finish().unwrap();
            }
            std::hint::black_box(out.len());
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy();
        let mb = input.len() as f64 / 1e6;
        println!(
            "{name}\t{:.2} ms\t{:.0} MB/s\t(direct: {:.2} ms, {:.0} MB/s)",
            times[7] * 1e3,
            mb / times[7],
            direct * 1e3,
            mb / direct
        );
    }
}
