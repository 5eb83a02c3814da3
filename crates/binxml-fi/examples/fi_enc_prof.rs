//! Profiling aid for the encoder: parses the given XML files (or, with none, every corpus
//! document) into events, then encodes each `FI_N` times (default 1) in `encode_all`, which
//! callgrind can isolate: `valgrind --tool=callgrind --toggle-collect='*encode_all*'
//! target/release/examples/fi_enc_prof [files]`. `FI_DYN=1`: through `Box<dyn Encoder>` over a
//! `Box<dyn Write>`, as the bench harness calls encoders. Events go in as one slice
//! (`write_events`); `FI_EACH=1` calls `write_event` per event; `FI_TAPE=1` records each
//! document on a `Tape` and replays it (`write_tape`, as the bench does now).

use binxml_core::{Encoder, Event};
use binxml_fi::FiEncoder;

#[inline(never)]
fn encode_all(
    docs: &[Vec<Event<'_>>],
    tapes: &[binxml_core::Tape<'_>],
    n: usize,
    out: &mut Vec<u8>,
) -> usize {
    let dyn_enc = std::env::var_os("FI_DYN").is_some();
    let each = std::env::var_os("FI_EACH").is_some();
    let mut total = 0;
    if !tapes.is_empty() {
        for _ in 0..n {
            for t in tapes {
                out.clear();
                let w: Box<dyn std::io::Write + '_> = Box::new(&mut *out);
                let mut e: Box<dyn Encoder + '_> =
                    std::hint::black_box(Box::new(FiEncoder::new(w)));
                e.write_tape(t).unwrap();
                e.finish().unwrap();
                drop(e);
                total += out.len();
            }
        }
        return total;
    }
    for _ in 0..n {
        for ev in docs {
            out.clear();
            if dyn_enc {
                // as the bench harness does: Box<dyn Encoder> over a Box<dyn Write>
                let w: Box<dyn std::io::Write + '_> = Box::new(&mut *out);
                let mut e: Box<dyn Encoder + '_> =
                    std::hint::black_box(Box::new(FiEncoder::new(w)));
                if each {
                    for x in ev {
                        e.write_event(x).unwrap();
                    }
                } else {
                    e.write_events(ev).unwrap();
                }
                e.finish().unwrap();
                drop(e);
                total += out.len();
                continue;
            }
            let mut e = FiEncoder::new(&mut *out);
            if each {
                for x in ev {
                    e.write_event(x).unwrap();
                }
            } else {
                e.write_events(ev).unwrap();
            }
            e.finish().unwrap();
            drop(e);
            total += out.len();
        }
    }
    total
}

fn main() {
    let mut files: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    if files.is_empty() {
        files = binxml_testkit::corpus_xml_files();
    }
    let n: usize = std::env::var("FI_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    // the documents as UTF-8, their events borrowing from them (as the bench holds them)
    let inputs: Vec<Vec<u8>> = files
        .iter()
        .filter_map(|p| {
            Some(
                binxml_xml::to_utf8(&std::fs::read(p).ok()?)
                    .ok()?
                    .into_owned(),
            )
        })
        .collect();
    let docs: Vec<Vec<Event<'_>>> = inputs
        .iter()
        .filter_map(|x| binxml_core::collect_events(&mut binxml_xml::XmlDecoder::new(x)).ok())
        .collect();
    let events: usize = docs.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(1 << 24);
    let t = std::time::Instant::now();
    let tapes: Vec<binxml_core::Tape<'_>> = if std::env::var_os("FI_TAPE").is_some() {
        docs.iter()
            .map(|d| binxml_core::Tape::from_events(d))
            .collect()
    } else {
        Vec::new()
    };
    let total = encode_all(&docs, &tapes, n, &mut out);
    let s = t.elapsed().as_secs_f64();
    let xml: usize = inputs.iter().map(Vec::len).sum();
    println!(
        "{} documents, {events} events, {total} FI bytes, {:.0} MB/s of XML",
        docs.len(),
        (xml * n) as f64 / 1e6 / s
    );
}
