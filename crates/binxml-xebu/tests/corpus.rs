//! Every corpus XML document through Xebu, in stream mode (all documents as the messages of one
//! stream, token state carried across them) and in forget mode (state reset per message): the
//! decoded events equal the parsed ones, and the XML written from them is C14N-equal to the
//! original (Python's C14N 2.0, the independent oracle).

use binxml_core::Event;
use binxml_core::{Decoder, Encoder};
use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir};
use binxml_xebu::{XebuDecoder, XebuEncoder, XebuOptions, XebuStreamDecoder};

fn encode_msg(e: &mut XebuEncoder<Vec<u8>>, events: &[Event<'_>]) -> Vec<u8> {
    for ev in events {
        e.write_event(ev).unwrap();
    }
    e.finish().unwrap();
    std::mem::take(e.get_mut())
}

#[test]
fn corpus_round_trips_stream_and_forget() {
    let files = corpus_xml_files();
    let scratch = scratch_dir("xebu-corpus");
    let mut oracle = C14nOracle::start();
    let mut stream_enc = XebuEncoder::new(Vec::new());
    let mut stream_dec = XebuStreamDecoder::new();
    // A third pass with tiny caches (constant eviction) over a single buffer holding the stream.
    let mut small_enc = XebuEncoder::with_options(
        Vec::new(),
        XebuOptions::default()
            .with_cache_size(3)
            .unwrap()
            .with_max_cached_len(1 << 20),
    );
    let mut small_stream = Vec::new();
    let mut small_expected = Vec::new();
    let mut forget_enc = XebuEncoder::with_options(Vec::new(), XebuOptions::forget());
    let (mut xml_total, mut stream_total, mut forget_total) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, path) in files.iter().enumerate() {
        let original = std::fs::read(path).unwrap();
        let events = match binxml_xml::decode(&original) {
            Ok(ev) => ev,
            // Documents the XML codec rejects are the XML codec's business (its own tests).
            Err(e) => {
                eprintln!("skip (XML parser): {}: {e}", path.display());
                continue;
            }
        };
        checked += 1;
        xml_total += original.len();

        // Stream mode, messages delivered one by one.
        let bytes = encode_msg(&mut stream_enc, &events);
        stream_total += bytes.len();
        let decoded = match stream_dec.decode_message(&bytes) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{}: stream decode: {e}", path.display()));
                continue;
            }
        };
        if decoded != events {
            failures.push(format!("{}: stream-mode events differ", path.display()));
            continue;
        }

        // Forget mode: each message decodes alone.
        let bytes = encode_msg(&mut forget_enc, &events);
        forget_total += bytes.len();
        match binxml_xebu::decode(&bytes) {
            Ok(d) if d == events => {}
            Ok(_) => failures.push(format!("{}: forget-mode events differ", path.display())),
            Err(e) => failures.push(format!("{}: forget decode: {e}", path.display())),
        }

        if original.len() < 400_000 {
            small_stream.extend(encode_msg(&mut small_enc, &events));
            small_expected.push(events.clone());
        }

        // The oracle: XML written from the decoded events against the original.
        let xml = binxml_xml::encode(&decoded).unwrap();
        let scratch_file = scratch.join(format!("{i}.xml"));
        if let Err(diff) = oracle.compare_bytes(path, &xml, &scratch_file) {
            failures.push(format!("{}: C14N differs: {diff}", path.display()));
        }
    }

    let mut d = XebuDecoder::new(&small_stream);
    for (k, expected) in small_expected.iter().enumerate() {
        let mut got = Vec::new();
        while let Some(ev) = d
            .next_event()
            .unwrap_or_else(|e| panic!("small-cache message {k}: {e}"))
        {
            got.push(ev);
        }
        assert!(&got == expected, "small-cache message {k} differs");
        let more = d.next_message();
        assert_eq!(more, k + 1 < small_expected.len());
    }

    eprintln!(
        "{checked} documents, XML {xml_total} B, Xebu stream {stream_total} B ({:.1}%), forget {forget_total} B ({:.1}%)",
        100.0 * stream_total as f64 / xml_total as f64,
        100.0 * forget_total as f64 / xml_total as f64
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 50, "only {checked} documents parsed");
}
