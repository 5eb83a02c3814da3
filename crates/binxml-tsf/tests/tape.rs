//! `write_tape` writes what `write_events` writes: every corpus document (XML and the JSON bench
//! documents), in both dialects. Prints a fingerprint of the bytes (FNV-1a over every encoding)
//! to compare the encoder's output before and after a change.

use binxml_core::{Decoder, Encoder, Event, Tape, collect_events};
use binxml_testkit::corpus_xml_files;
use binxml_tsf::{TsfEncoder, TsfEncoderOptions};
use binxml_xml::{XmlDecoder, to_utf8};

fn by_events(events: &[Event<'_>], opts: &TsfEncoderOptions) -> Vec<u8> {
    let mut enc = TsfEncoder::with_options(Vec::new(), opts.clone());
    enc.write_events(events).unwrap();
    enc.finish().unwrap();
    enc.into_inner()
}

fn by_tape(tape: &Tape<'_>, opts: &TsfEncoderOptions) -> Vec<u8> {
    let mut enc = TsfEncoder::with_options(Vec::new(), opts.clone());
    enc.write_tape(tape).unwrap();
    enc.finish().unwrap();
    enc.into_inner()
}

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn check_all(docs: &[(String, Vec<Event<'_>>)]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325;
    for opts in [TsfEncoderOptions::default(), TsfEncoderOptions::reference()] {
        for (name, events) in docs {
            let a = by_events(events, &opts);
            let b = by_tape(&Tape::from_events(events), &opts);
            assert!(a == b, "{name} ({opts:?}): write_tape differs");
            h = fnv(h, &a);
        }
    }
    h
}

#[test]
fn write_tape_writes_what_write_events_writes_on_the_corpus() {
    let files = corpus_xml_files();
    let texts: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|f| {
            let xml = std::fs::read(f).unwrap();
            (f.display().to_string(), to_utf8(&xml).unwrap().into_owned())
        })
        .collect();
    let docs: Vec<(String, Vec<Event<'_>>)> = texts
        .iter()
        .map(|(n, t)| (n.clone(), collect_events(&mut XmlDecoder::new(t)).unwrap()))
        .collect();
    let h = check_all(&docs);
    println!("XML: {} documents, fingerprint {h:016x}", docs.len());

    let jsons: Vec<(String, Vec<u8>)> = binxml_testkit::corpus_json_files("bench")
        .iter()
        .map(|f| (f.display().to_string(), std::fs::read(f).unwrap()))
        .collect();
    let mut jdocs = Vec::new();
    for (n, data) in &jsons {
        let mut dec = binxml_json::JsonDecoder::new(data);
        let mut events = Vec::new();
        while let Some(ev) = dec.next_event().unwrap() {
            events.push(ev);
        }
        jdocs.push((n.clone(), events));
    }
    let h = check_all(&jdocs);
    println!("JSON: {} documents, fingerprint {h:016x}", jdocs.len());
}

/// A broken stream: `write_tape` fails where `write_events` fails, with the same error.
#[test]
fn write_tape_fails_as_write_events_fails() {
    use binxml_core::QName;
    use std::borrow::Cow;
    let el = |n: &'static str| Event::StartElement(QName::local(n));
    let attr = Event::Attribute {
        name: QName::local("a"),
        value: Cow::Borrowed("v"),
    };
    let text = Event::Characters {
        text: Cow::Borrowed("t"),
        cdata: false,
    };
    let cases: Vec<Vec<Event<'static>>> = vec![
        // an EndElement too many
        vec![el("r"), Event::EndElement, Event::EndElement],
        // an attribute after text
        vec![el("r"), text, attr.clone(), Event::EndElement],
        // an attribute after a child element
        vec![
            el("r"),
            el("c"),
            Event::EndElement,
            attr.clone(),
            Event::EndElement,
        ],
        // an element without a name inside the root
        vec![el("r"), el(""), Event::EndElement, Event::EndElement],
        // a namespace declaration after an attribute
        vec![
            el("r"),
            attr.clone(),
            Event::Namespace {
                prefix: Cow::Borrowed("p"),
                uri: Cow::Borrowed("urn:p"),
            },
            Event::EndElement,
        ],
    ];
    for body in cases {
        let mut events = vec![Event::start_document()];
        events.extend(body);
        events.push(Event::EndDocument);
        let mut a = TsfEncoder::new(Vec::new());
        let ea = a.write_events(&events).and_then(|_| a.finish());
        let mut b = TsfEncoder::new(Vec::new());
        let eb = b
            .write_tape(&Tape::from_events(&events))
            .and_then(|_| b.finish());
        let (ea, eb) = (ea.map_err(|e| e.to_string()), eb.map_err(|e| e.to_string()));
        assert!(ea.is_err(), "{events:?} should fail");
        assert_eq!(ea, eb, "{events:?}");
    }
}
