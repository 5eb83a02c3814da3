//! Every XML document of the corpus encoded from a `Tape` and event by event, with five option
//! sets: the two give the same bytes. The test prints a fingerprint of all those bytes
//! (`--nocapture`), to compare before and after a change that must not change the encoding
//! (interoperability with the Java reference and the size figures rest on the bytes).

use std::hash::Hasher;

use binxml_core::{Encoder, Event, Tape};
use binxml_fi::{FiEncoder, FiOptions};
use binxml_testkit::corpus_xml_files;

fn by_events(events: &[Event<'_>], opts: FiOptions) -> Vec<u8> {
    let mut e = FiEncoder::with_options(Vec::new(), opts);
    for ev in events {
        e.write_event(ev).unwrap();
    }
    e.finish().unwrap();
    e.into_inner()
}

fn by_tape(tape: &Tape<'_>, opts: FiOptions) -> Vec<u8> {
    let mut e = FiEncoder::with_options(Vec::new(), opts);
    e.write_tape(tape).unwrap();
    e.finish().unwrap();
    e.into_inner()
}

fn option_sets() -> [FiOptions; 5] {
    [
        FiOptions::default(),
        FiOptions::default().with_split_text(false),
        FiOptions::default()
            .with_utf16(true)
            .with_xml_declaration(true),
        FiOptions::default()
            .with_numeric_alphabet(true)
            .with_date_time_alphabet(true),
        FiOptions::default()
            .with_max_indexed_attribute_value(4)
            .with_max_indexed_chunk(0),
    ]
}

#[test]
fn tape_and_events_give_the_same_bytes() {
    let mut checked = 0;
    // SipHash with fixed keys: the same bytes give the same fingerprint from run to run
    let mut fingerprint = std::hash::DefaultHasher::new();
    let mut default_only = std::hash::DefaultHasher::new();
    for path in corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        let Ok(utf8) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let Ok(events) = binxml_xml::decode(&utf8) else {
            continue;
        };
        let tape = Tape::from_events(&events);
        for (k, opts) in option_sets().into_iter().enumerate() {
            let a = by_tape(&tape, opts.clone());
            let b = by_events(&events, opts);
            assert!(
                a == b,
                "{} option set {k}: write_tape differs",
                path.display()
            );
            fingerprint.write(&a);
            fingerprint.write_usize(a.len());
            if k == 0 {
                default_only.write(&a);
                default_only.write_usize(a.len());
            }
            checked += 1;
        }
    }
    assert!(checked > 250, "only {checked} encodings");
    eprintln!(
        "fi encodings: {checked}, fingerprint {:016x}, default options {:016x}",
        fingerprint.finish(),
        default_only.finish()
    );
}
