//! The encoder rejects exactly the event streams that break the stream grammar
//! (`binxml_core::StreamChecker`) or give an empty name, at the same event, with
//! `ErrorKind::InvalidEvents`: random streams, valid and broken, checked against the checker.

use binxml_core::Format;
use binxml_core::{Encoder, ErrorKind, Event, EventSink, QName, StreamChecker, XMLNS_NS};
use binxml_fi::{FiEncoder, FiOptions};

/// The first event the grammar (or the empty-name rule) rejects.
fn first_bad(ev: &[Event<'_>]) -> Option<usize> {
    let mut c = StreamChecker::new(false);
    for (i, e) in ev.iter().enumerate() {
        if c.check(Format::Fi, e).is_err() {
            return Some(i);
        }
        let empty = match e {
            Event::StartElement(q) => q.local.is_empty(),
            Event::Attribute { name, .. } => name.local.is_empty(),
            Event::EntityReference { name, .. } => name.is_empty(),
            Event::ProcessingInstruction { target, .. } => target.is_empty(),
            _ => false,
        };
        if empty {
            return Some(i);
        }
    }
    None
}

#[test]
fn encoder_rejects_what_the_checker_rejects() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let names = ["a", "b", "", "long-element-name", "c", "a", "b", "d"];
    let texts = ["", " \n ", "x", "\n    ", "12 & 3 < 4", "text\nmore text"];
    let (mut bad_seen, mut good_seen) = (0, 0);
    for round in 0..40_000 {
        let mut ev: Vec<Event<'static>> = Vec::new();
        let len = 1 + rnd(14) as usize;
        // mostly plausible streams: start with StartDocument, a root, balanced ends
        let plausible = round % 4 != 0;
        let mut depth = 0;
        if plausible {
            ev.push(Event::start_document());
        }
        for _ in 0..len {
            let k = rnd(if plausible { 16 } else { 18 });
            let name = names[rnd(names.len() as u64) as usize];
            let e = match k {
                0..=3 => {
                    depth += 1;
                    if rnd(3) == 0 {
                        Event::StartElement(QName::new("p", "urn:p", name))
                    } else {
                        Event::StartElement(QName::local(name))
                    }
                }
                4..=6 => {
                    if plausible && depth == 0 && rnd(4) != 0 {
                        continue;
                    }
                    depth -= (depth > 0) as i32;
                    Event::EndElement
                }
                7 | 8 => Event::Attribute {
                    name: match rnd(4) {
                        0 => QName::new("xmlns", XMLNS_NS, "q"),
                        1 => QName::new("p", "urn:p", name),
                        _ => QName::local(name),
                    },
                    value: texts[rnd(texts.len() as u64) as usize].into(),
                },
                9 => Event::Namespace {
                    prefix: ["", "p", "xml"][rnd(3) as usize].into(),
                    uri: ["urn:p", "", binxml_core::XML_NS][rnd(3) as usize].into(),
                },
                10..=12 => Event::Characters {
                    text: texts[rnd(texts.len() as u64) as usize].into(),
                    cdata: rnd(5) == 0,
                },
                13 => Event::Comment("c".into()),
                14 => Event::ProcessingInstruction {
                    target: name.into(),
                    data: "d".into(),
                },
                15 => Event::EntityReference {
                    name: name.into(),
                    public_id: None,
                    system_id: None,
                },
                16 => Event::start_document(),
                _ => Event::EndDocument,
            };
            ev.push(e);
        }
        if plausible {
            for _ in 0..depth {
                if rnd(8) != 0 {
                    ev.push(Event::EndElement);
                }
            }
            if rnd(8) != 0 {
                ev.push(Event::EndDocument);
            }
            if rnd(10) == 0 {
                ev.push(Event::Comment("after".into()));
            }
        }
        let expect = first_bad(&ev);
        let opts = if round % 2 == 0 {
            FiOptions::default()
        } else {
            FiOptions::default().with_utf16(true).with_split_text(false)
        };
        let mut enc = FiEncoder::with_options(Vec::new(), opts.clone());
        let mut got = None;
        for (i, e) in ev.iter().enumerate() {
            if let Err(err) = enc.write_event(e) {
                assert_eq!(err.kind(), ErrorKind::InvalidEvents, "{err} in {ev:?}");
                got = Some(i);
                break;
            }
        }
        assert_eq!(got, expect, "stream {ev:?}");
        // the same stream pushed as parts (EventSink): the same errors, the same bytes
        let mut push = FiEncoder::with_options(Vec::new(), opts);
        let mut got_push = None;
        for (i, e) in ev.iter().enumerate() {
            if let Err(err) = push.dispatch(e.clone()) {
                assert_eq!(err.kind(), ErrorKind::InvalidEvents, "{err} in {ev:?}");
                got_push = Some(i);
                break;
            }
        }
        assert_eq!(got_push, expect, "pushed stream {ev:?}");
        if expect.is_some() {
            bad_seen += 1;
        } else {
            good_seen += 1;
            let ended = matches!(ev.last(), Some(Event::EndDocument));
            assert_eq!(enc.finish().is_ok(), ended, "finish on {ev:?}");
            assert_eq!(push.finish().is_ok(), ended, "finish on pushed {ev:?}");
            assert_eq!(
                enc.into_inner(),
                push.into_inner(),
                "pushed bytes on {ev:?}"
            );
        }
    }
    assert!(
        bad_seen > 5_000 && good_seen > 3_000,
        "{bad_seen} broken, {good_seen} valid"
    );
}

/// Every corpus document: the XML decoder pushing into the encoder (`read_into`, parts) gives
/// the bytes of the events collected and written one by one.
#[test]
fn push_encoding_equals_event_encoding() {
    for path in binxml_testkit::corpus_xml_files() {
        let input = std::fs::read(&path).unwrap();
        let Ok(ev) = binxml_xml::decode(&input) else {
            continue;
        };
        let want = binxml_fi::encode_with(&ev, FiOptions::default()).unwrap();
        let mut enc = FiEncoder::new(Vec::new());
        let utf8 = binxml_xml::to_utf8(&input).unwrap();
        let mut dec = binxml_xml::XmlDecoder::new(&utf8);
        binxml_core::Decoder::read_into(&mut dec, &mut enc).unwrap();
        enc.finish().unwrap();
        assert!(enc.into_inner() == want, "{}", path.display());
    }
}

/// `write_events` (a slice, with prefetching) writes the bytes of `write_event` called on each
/// event, and fails on a broken stream where the event loop fails.
#[test]
fn slice_encoding_equals_event_encoding() {
    let one_by_one = |ev: &[Event<'_>]| -> (Vec<u8>, Option<String>) {
        let mut enc = FiEncoder::new(Vec::new());
        let err = ev
            .iter()
            .try_for_each(|e| enc.write_event(e))
            .and_then(|_| enc.finish())
            .err();
        (enc.into_inner(), err.map(|e| e.to_string()))
    };
    let sliced = |ev: &[Event<'_>]| -> (Vec<u8>, Option<String>) {
        let mut enc = FiEncoder::new(Vec::new());
        let err = enc.write_events(ev).and_then(|_| enc.finish()).err();
        (enc.into_inner(), err.map(|e| e.to_string()))
    };
    let mut n = 0;
    for path in binxml_testkit::corpus_xml_files() {
        let input = std::fs::read(&path).unwrap();
        let Ok(ev) = binxml_xml::decode(&input) else {
            continue;
        };
        let want = one_by_one(&ev);
        assert!(want.1.is_none(), "{}", path.display());
        assert!(sliced(&ev) == want, "{}", path.display());
        // broken: an end tag dropped in the middle
        if ev.len() > 8 {
            let mut broken = ev.clone();
            let k = broken
                .iter()
                .rposition(|e| matches!(e, Event::EndElement))
                .unwrap();
            broken.remove(k);
            let (bytes, err) = sliced(&broken);
            let (want_bytes, want_err) = one_by_one(&broken);
            assert!(
                want_err.is_some() && err == want_err && bytes == want_bytes,
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n > 50, "only {n} documents");
}

/// The events as the bench and applications hold them (strings borrowed from the document),
/// written one by one, as one slice and from a `Tape`: the same bytes. The slice and the tape
/// let the encoder recognise namespace names by their address; one by one it compares them.
#[test]
fn borrowed_slice_and_tape_encode_like_events_one_by_one() {
    let one_by_one = |ev: &[Event<'_>]| -> Vec<u8> {
        let mut enc = FiEncoder::new(Vec::new());
        ev.iter().try_for_each(|e| enc.write_event(e)).unwrap();
        enc.finish().unwrap();
        enc.into_inner()
    };
    let sliced = |ev: &[Event<'_>]| -> Vec<u8> {
        let mut enc = FiEncoder::new(Vec::new());
        enc.write_events(ev).unwrap();
        enc.finish().unwrap();
        enc.into_inner()
    };
    let taped = |ev: &[Event<'_>]| -> Vec<u8> {
        let tape = binxml_core::Tape::from_events(ev);
        let mut enc = FiEncoder::new(Vec::new());
        enc.write_tape(&tape).unwrap();
        enc.finish().unwrap();
        enc.into_inner()
    };
    let mut n = 0;
    for path in binxml_testkit::corpus_xml_files() {
        let input = std::fs::read(&path).unwrap();
        let Ok(utf8) = binxml_xml::to_utf8(&input) else {
            continue;
        };
        let mut d = binxml_xml::XmlDecoder::new(&utf8);
        let Ok(ev) = binxml_core::collect_events(&mut d) else {
            continue;
        };
        let want = one_by_one(&ev);
        assert!(sliced(&ev) == want, "slice: {}", path.display());
        assert!(taped(&ev) == want, "tape: {}", path.display());
        n += 1;
    }
    assert!(n > 50, "only {n} documents");
}

/// Namespace names that start at the same address but differ in length (slices of one
/// string), names in a namespace that differs by one octet, and the same name at many
/// addresses: address recognition never takes one namespace name for another.
#[test]
fn namespace_names_at_one_address_are_told_apart() {
    use std::borrow::Cow::Borrowed as B;
    let all = String::from("urn:example:ns-longer");
    let short = &all[..14]; // "urn:example:ns"
    let other = String::from("urn:example:nt");
    let copies: Vec<String> = (0..100).map(|_| short.to_string()).collect();
    let mut fixed = vec![
        Event::start_document(),
        Event::StartElement(QName::local("root")),
    ];
    for i in 0..3000usize {
        let ns: &str = match i % 5 {
            0 => short,
            1 => &all,
            2 => &other,
            3 => &copies[i % 100],
            _ => &all[..14],
        };
        fixed.push(Event::StartElement(QName {
            prefix: B(""),
            namespace: B(ns),
            local: B("e"),
        }));
        fixed.push(Event::Namespace {
            prefix: B(""),
            uri: B(ns),
        });
        fixed.push(Event::Namespace {
            prefix: B("p"),
            uri: B(ns),
        });
        fixed.push(Event::Attribute {
            name: QName {
                prefix: B("p"),
                namespace: B(ns),
                local: B("a"),
            },
            value: B("v"),
        });
        fixed.push(Event::EndElement);
    }
    fixed.push(Event::EndElement);
    fixed.push(Event::EndDocument);
    let mut a = FiEncoder::new(Vec::new());
    fixed.iter().try_for_each(|e| a.write_event(e)).unwrap();
    a.finish().unwrap();
    let mut b = FiEncoder::new(Vec::new());
    b.write_events(&fixed).unwrap();
    b.finish().unwrap();
    let mut c = FiEncoder::new(Vec::new());
    c.write_tape(&binxml_core::Tape::from_events(&fixed))
        .unwrap();
    c.finish().unwrap();
    let (a, b, c) = (a.into_inner(), b.into_inner(), c.into_inner());
    assert!(a == b && a == c);
    // and the namespace names come back as written
    let back = binxml_fi::decode(&b).unwrap();
    let got: Vec<String> = back
        .iter()
        .filter_map(|e| match e {
            Event::StartElement(q) if q.local == "e" => Some(q.namespace.to_string()),
            _ => None,
        })
        .collect();
    let want: Vec<String> = fixed
        .iter()
        .filter_map(|e| match e {
            Event::StartElement(q) if q.local == "e" => Some(q.namespace.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(got, want);
}
