//! Every XML document of the corpus: XML -> events -> Fast Infoset -> events -> XML has the same
//! canonical form as the original (C14N 2.0 via Python, independent of binxml), and the
//! streaming decoder gives the same events as the in-memory one.

use binxml_core::{Decoder, Encoder, Event};
use binxml_fi::{FiDecoder, FiEncoder, FiOptions, FiReadDecoder};
use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir};

fn encode(ev: &[Event<'_>], opts: FiOptions) -> binxml_core::Result<Vec<u8>> {
    let mut enc = FiEncoder::with_options(Vec::new(), opts);
    for e in ev {
        enc.write_event(e)?;
    }
    enc.finish()?;
    Ok(enc.into_inner())
}

#[test]
fn corpus_round_trips_c14n_equal() {
    let files = corpus_xml_files();
    let scratch = scratch_dir("fi-corpus");
    let mut oracle = C14nOracle::start();
    let mut failures = Vec::new();
    let (mut xml_total, mut fi_total) = (0usize, 0usize);
    for (i, path) in files.iter().enumerate() {
        let input = std::fs::read(path).unwrap();
        let ev = match binxml_xml::decode(&input) {
            Ok(ev) => ev,
            Err(e) => {
                failures.push(format!("{}: XML parse: {e}", path.display()));
                continue;
            }
        };
        let opts = match i % 3 {
            1 => FiOptions::default()
                .with_utf16(true)
                .with_xml_declaration(true),
            2 => FiOptions::default()
                .with_numeric_alphabet(true)
                .with_date_time_alphabet(true)
                .with_split_text(false)
                .with_max_indexed_attribute_value(64)
                .with_document_properties(true),
            _ => FiOptions::default(),
        };
        let fi = match encode(&ev, opts) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: encode: {e}", path.display()));
                continue;
            }
        };
        xml_total += input.len();
        fi_total += fi.len();
        let mut dec = FiDecoder::new(&fi);
        let mut back = Vec::new();
        loop {
            match dec.next_event() {
                Ok(Some(e)) => back.push(e),
                Ok(None) => break,
                Err(e) => {
                    failures.push(format!("{}: decode: {e}", path.display()));
                    break;
                }
            }
        }
        if i % 4 == 0 {
            let mut rd = FiReadDecoder::new(&fi[..]);
            let streamed = binxml_core::collect_events(&mut rd);
            if streamed.as_ref().map(|s| s != &back).unwrap_or(true) {
                failures.push(format!("{}: the streaming decoder differs", path.display()));
            }
        }
        let xml = match binxml_xml::encode(&back) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{}: write XML: {e}", path.display()));
                continue;
            }
        };
        let cand = scratch.join(format!("{i}.xml"));
        if let Err(d) = oracle.compare_bytes(path, &xml, &cand) {
            failures.push(format!("{}: {d}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} documents failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} corpus documents round-trip through fi C14N-equal ({xml_total} bytes of XML -> {fi_total} bytes of FI)",
        files.len()
    );
}

/// Every truncation of the encodings of a few small corpus documents is an error with a byte
/// offset (never a panic, never a silent success), with both decoders.
#[test]
fn corpus_truncations_are_errors() {
    let mut files: Vec<_> = corpus_xml_files()
        .into_iter()
        .map(|p| (std::fs::metadata(&p).unwrap().len(), p))
        .collect();
    files.sort();
    for (_, path) in files
        .iter()
        .filter(|(n, _)| (2_000..20_000).contains(n))
        .take(3)
    {
        let ev = binxml_xml::decode(&std::fs::read(path).unwrap()).unwrap();
        for opts in [
            FiOptions::default(),
            FiOptions::default()
                .with_utf16(true)
                .with_numeric_alphabet(true),
        ] {
            let fi = encode(&ev, opts).unwrap();
            for cut in 0..fi.len() {
                let slice = binxml_core::collect_events(&mut FiDecoder::new(&fi[..cut]));
                let e = slice.expect_err("a truncated document must not decode");
                assert!(e.offset().is_some(), "{}: cut {cut}: {e}", path.display());
                let read = binxml_core::collect_events(&mut FiReadDecoder::new(&fi[..cut]));
                assert!(
                    read.is_err(),
                    "{}: cut {cut}: the reader decoded a truncated document",
                    path.display()
                );
            }
        }
    }
}
