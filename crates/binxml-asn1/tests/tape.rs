//! `Encoder::write_tape` (where the builder finds names by the addresses of the tape's strings)
//! writes the same bytes as the events written one by one, on every corpus document, for the
//! three rules with the names table on and off. It prints a fingerprint of all those bytes
//! (`--nocapture`), to compare before and after a change that must not change the encoding.

use std::hash::Hasher;

use binxml_asn1::{Asn1Encoder, Options, Rule};
use binxml_core::{Encoder, Tape};
use binxml_testkit::corpus_xml_files;

fn by_events(events: &[binxml_core::Event<'_>], opts: Options) -> Vec<u8> {
    let mut e = Asn1Encoder::new(Vec::new(), opts);
    for ev in events {
        e.write_event(ev).unwrap();
    }
    e.finish().unwrap();
    e.into_inner()
}

fn by_tape(tape: &Tape<'_>, opts: Options) -> Vec<u8> {
    let mut e = Asn1Encoder::new(Vec::new(), opts);
    e.write_tape(tape).unwrap();
    e.finish().unwrap();
    e.into_inner()
}

#[test]
fn tape_and_events_give_the_same_bytes() {
    let mut checked = 0;
    // SipHash with fixed keys: the same bytes give the same fingerprint from run to run
    let mut fingerprint = std::hash::DefaultHasher::new();
    for path in corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap();
        let events = binxml_xml::decode(&utf8).unwrap();
        let tape = Tape::from_events(&events);
        for rule in Rule::ALL {
            for opts in [
                Options::new(rule),
                Options::plain(rule),
                Options::compact(rule),
            ] {
                let a = by_events(&events, opts);
                let b = by_tape(&tape, opts);
                assert!(a == b, "{} {opts:?}: write_tape differs", path.display());
                fingerprint.write(&a);
                fingerprint.write_usize(a.len());
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    eprintln!(
        "asn1 encodings: {checked}, fingerprint {:016x}",
        fingerprint.finish()
    );
}
