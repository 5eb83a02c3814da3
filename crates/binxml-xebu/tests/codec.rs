//! Round trips of hand-built event sequences, typed content, streams, forget mode, recovery.

use std::borrow::Cow;

use binxml_core::{Decoder, DocType, Encoder, Event, QName, Typed};
use binxml_xebu::{
    XebuDecoder, XebuEncoder, XebuOptions, XebuStreamDecoder, decode, decode_stream, encode,
    encode_stream, encode_with,
};

fn q(p: &'static str, ns: &'static str, l: &'static str) -> QName<'static> {
    QName::new(p, ns, l)
}

fn attr(name: QName<'static>, v: &'static str) -> Event<'static> {
    Event::Attribute {
        name,
        value: Cow::Borrowed(v),
    }
}

fn sample() -> Vec<Event<'static>> {
    vec![
        Event::StartDocument {
            version: Some("1.0".into()),
            encoding: Some("UTF-8".into()),
            standalone: Some(true),
        },
        Event::Comment(" prolog ".into()),
        Event::DocType(DocType {
            name: "r:root".into(),
            public_id: None,
            system_id: Some("root.dtd".into()),
            internal_subset: Some("<!ENTITY e 'x'>".into()),
        }),
        Event::Notation {
            name: "gif".into(),
            public_id: Some("-//GIF".into()),
            system_id: None,
        },
        Event::UnparsedEntity {
            name: "pic".into(),
            public_id: None,
            system_id: "pic.gif".into(),
            notation: "gif".into(),
        },
        Event::ProcessingInstruction {
            target: "pi".into(),
            data: "some data".into(),
        },
        Event::StartElement(q("r", "urn:root", "root")),
        Event::Namespace {
            prefix: "r".into(),
            uri: "urn:root".into(),
        },
        Event::Namespace {
            prefix: "".into(),
            uri: "urn:default".into(),
        },
        attr(q("", "", "id"), "1"),
        attr(q("r", "urn:root", "kind"), "x"),
        attr(q("xml", binxml_core::XML_NS, "lang"), "en"),
        Event::text("\n  "),
        Event::StartElement(q("", "urn:default", "item")),
        attr(q("", "", "id"), "1"),
        Event::text("hello é ✓"),
        Event::EndElement,
        Event::text("\n  "),
        Event::StartElement(q("", "urn:default", "item")),
        attr(q("", "", "id"), "2"),
        Event::Characters {
            text: "<cdata & stuff>".into(),
            cdata: true,
        },
        Event::EntityReference {
            name: "ext".into(),
            public_id: None,
            system_id: Some("ext.xml".into()),
        },
        Event::EndElement,
        Event::text("\n  "),
        Event::StartElement(q("", "urn:default", "empty")),
        Event::EndElement,
        Event::text("x".repeat(70_000)),
        Event::StartElement(q("r", "urn:root", "root")),
        Event::EndElement,
        Event::text("\n"),
        Event::EndElement,
        Event::Comment(" epilog ".into()),
        Event::EndDocument,
    ]
}

fn typed_doc() -> Vec<Event<'static>> {
    let mut v = vec![Event::start_document(), Event::StartElement(q("", "", "t"))];
    let values = vec![
        Typed::Int(0),
        Typed::Int(29),
        Typed::Int(127),
        Typed::Int(128),
        Typed::Int(16383),
        Typed::Int(16384),
        Typed::Int(u32::MAX as i64),
        Typed::Int(u32::MAX as i64 + 1),
        Typed::Int(i64::MAX),
        Typed::Int(-1),
        Typed::Int(-29),
        Typed::Int(i64::MIN),
        Typed::Bool(true),
        Typed::Bool(false),
        Typed::Float(1.5),
        Typed::Float(f32::INFINITY),
        Typed::Double(-2.25e300),
        Typed::Double(0.1),
        Typed::Base64(Cow::Owned((0..=255u8).collect())),
        Typed::Hex(Cow::Borrowed(&[0xde, 0xad, 0xbe, 0xef])),
        Typed::Uuid([7; 16]),
        Typed::DateTime("2005-11-20T12:34:56.789+02:00".into()),
        Typed::DateTime("2005-11-20".into()),
        Typed::DateTime("23:59:60Z".into()),
        Typed::DateTime("not a date".into()),
        Typed::Number("1.50e3".into()),
        Typed::Null,
        Typed::List(vec![
            Typed::Int(1),
            Typed::List(vec![Typed::Bool(true), Typed::Null]),
            Typed::Double(2.0),
        ]),
    ];
    for t in values {
        v.push(Event::StartElement(q("", "", "v")));
        v.push(Event::Typed(t));
        v.push(Event::EndElement);
    }
    v.push(Event::EndElement);
    v.push(Event::EndDocument);
    v
}

#[test]
fn full_infoset_round_trip() {
    let events = sample();
    let bytes = encode(&events).unwrap();
    assert_eq!(decode(&bytes).unwrap(), events);
    // The small-cache encoder evicts constantly and must still be right.
    let small = XebuOptions::default()
        .with_cache_size(2)
        .unwrap()
        .with_max_cached_len(100_000);
    let bytes2 = encode_with(&events, small).unwrap();
    assert_eq!(decode(&bytes2).unwrap(), events);
}

#[test]
fn typed_round_trip() {
    let events = typed_doc();
    let bytes = encode(&events).unwrap();
    let back = decode(&bytes).unwrap();
    assert_eq!(back, events);
}

#[test]
fn paper_example_int_is_two_bytes() {
    // <ns:age>29</ns:age> content as typed: discriminator 0x0C then 0x1D, as in the paper's Fig. 2.
    let mut events = vec![
        Event::start_document(),
        Event::StartElement(q("", "", "a")),
        Event::Typed(Typed::Int(29)),
    ];
    events.extend([Event::EndElement, Event::EndDocument]);
    let bytes = encode(&events).unwrap();
    assert!(bytes.windows(2).any(|w| w == [0x0C, 0x1D]), "{bytes:02X?}");
}

#[test]
fn layout_of_a_small_document() {
    let events = vec![
        Event::start_document(),
        Event::StartElement(q("p", "urn:a", "e")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        attr(q("", "", "k"), "v"),
        Event::text("t"),
        Event::StartElement(q("p", "urn:a", "e")),
        attr(q("", "", "k"), "v"),
        Event::text("t"),
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ];
    let bytes = encode(&events).unwrap();
    #[rustfmt::skip]
    let expected: Vec<u8> = vec![
        0x01,                                   // document start
        0x02, 0, 5, b'u', b'r', b'n', b':', b'a', 1, b'p', // namespace decl (before its element): ns token 0
        0x43, 0, 0, 1, b'e',                    // element: ns from cache, name token 0, prefix derived
        0x25, 1, 0, 1, 1, b'k', 0, 1, b'v',     // attribute: ns "" token 1, name token 1, value token 0
        0x27, 0, 1, b't',                       // text, content token 0
        0x83, 0,                                // element from name cache
        0xC5, 0,                                // attribute from value cache
        0xC7, 0,                                // text from content cache
        0x04, 0x04, 0x00,
    ];
    assert_eq!(bytes, expected);
    assert_eq!(decode(&bytes).unwrap(), events);
}

fn message(i: usize) -> Vec<Event<'static>> {
    let mut v = vec![
        Event::start_document(),
        Event::StartElement(q("s", "urn:soap", "Envelope")),
    ];
    v.push(Event::Namespace {
        prefix: "s".into(),
        uri: "urn:soap".into(),
    });
    v.push(Event::StartElement(q("", "urn:app", "n")));
    v.push(Event::Namespace {
        prefix: "".into(),
        uri: "urn:app".into(),
    });
    v.push(attr(
        q("", "", "kind"),
        if i.is_multiple_of(3) { "alarm" } else { "info" },
    ));
    // A fresh name in every message, so every message defines tokens.
    let local: &'static str = Box::leak(format!("field{i}").into_boxed_str());
    v.push(Event::StartElement(q("", "urn:app", local)));
    v.push(Event::text(format!("value {}", i % 5)));
    v.push(Event::EndElement);
    v.push(Event::StartElement(q("", "urn:app", "seq")));
    v.push(Event::Typed(Typed::Int(i as i64)));
    v.push(Event::EndElement);
    v.extend([Event::EndElement, Event::EndElement, Event::EndDocument]);
    v
}

#[test]
fn stream_and_forget_modes() {
    let msgs: Vec<_> = (0..50).map(message).collect();
    let stream = encode_stream(msgs.iter().map(Vec::as_slice), XebuOptions::default()).unwrap();
    let forget = encode_stream(msgs.iter().map(Vec::as_slice), XebuOptions::forget()).unwrap();
    assert!(
        stream.len() < forget.len(),
        "{} vs {}",
        stream.len(),
        forget.len()
    );
    assert_eq!(decode_stream(&stream).unwrap(), msgs);
    assert_eq!(decode_stream(&forget).unwrap(), msgs);

    // Forget-mode messages decode on their own, each by a fresh decoder.
    let mut e = XebuEncoder::with_options(Vec::new(), XebuOptions::forget());
    let mut starts = vec![0];
    for m in &msgs {
        for ev in m {
            e.write_event(ev).unwrap();
        }
        e.finish().unwrap();
        starts.push(e.get_ref().len());
    }
    let all = e.into_inner();
    for (i, w) in starts.windows(2).enumerate() {
        assert_eq!(decode(&all[w[0]..w[1]]).unwrap(), msgs[i]);
    }
}

/// Encodes one message into its own buffer.
fn encode_msg(e: &mut XebuEncoder<Vec<u8>>, m: &[Event<'_>]) -> Vec<u8> {
    for ev in m {
        e.write_event(ev).unwrap();
    }
    e.finish().unwrap();
    std::mem::take(e.get_mut())
}

#[test]
fn stream_decoder_over_separate_messages() {
    let msgs: Vec<_> = (0..20).map(message).collect();
    let mut e = XebuEncoder::new(Vec::new());
    let mut d = XebuStreamDecoder::new();
    for m in &msgs {
        let bytes = encode_msg(&mut e, m);
        assert_eq!(&d.decode_message(&bytes).unwrap(), m);
    }
}

#[test]
fn recovery_after_lost_message() {
    // 300 messages with 256-slot caches: slots get reassigned, so a lost message leaves the
    // decoder with stale tokens that later messages would misread.
    let msgs: Vec<_> = (0..300).map(message).collect();
    let mut e = XebuEncoder::new(Vec::new());
    let mut d = XebuStreamDecoder::new();
    let mut last_good = e.checkpoint();
    let mut lost = 0;
    let mut recovered = 0;
    let mut i = 0;
    while i < msgs.len() {
        let bytes = encode_msg(&mut e, &msgs[i]);
        if i % 37 == 5 {
            // The transport drops this message; the peer reports the loss (e.g. by a sequence
            // number gap or a missing acknowledgement) and the sender rolls back to the last
            // acknowledged point, then resends.
            lost += 1;
            e.rollback_to(last_good).unwrap();
            let again = encode_msg(&mut e, &msgs[i]);
            assert_eq!(
                d.decode_message(&again).unwrap(),
                msgs[i],
                "message {i} after rollback"
            );
            recovered += 1;
        } else {
            assert_eq!(d.decode_message(&bytes).unwrap(), msgs[i], "message {i}");
        }
        // The peer acknowledged message i.
        last_good = e.checkpoint();
        i += 1;
    }
    assert!(lost > 5 && recovered == lost);
}

#[test]
fn recovery_without_resend_after_damaged_state() {
    // The decoder misses several messages entirely and then fails on one that uses their
    // tokens; the sender rolls back to the last acknowledged message and the stream goes on
    // (the failed message is resent, no restart, no full reset).
    // From message 10 on, every message has an element first seen in message 10.
    let msgs: Vec<_> = (0..40)
        .map(|i| {
            let mut m = message(i);
            if i >= 10 {
                let at = m.len() - 3;
                m.splice(
                    at..at,
                    [
                        Event::StartElement(q("", "urn:app", "late")),
                        Event::EndElement,
                    ],
                );
            }
            m
        })
        .collect();
    let mut e = XebuEncoder::new(Vec::new());
    let mut d = XebuStreamDecoder::new();
    let mut acked = e.checkpoint();
    for (i, m) in msgs.iter().enumerate().take(10) {
        let b = encode_msg(&mut e, m);
        assert_eq!(&d.decode_message(&b).unwrap(), m, "{i}");
        acked = e.checkpoint();
    }
    assert_eq!(acked.messages(), 10);
    // Messages 10..13 are lost.
    for m in &msgs[10..13] {
        encode_msg(&mut e, m);
    }
    // Message 13 arrives and fails: it uses the token of `late`, defined in lost message 10.
    let b13 = encode_msg(&mut e, &msgs[13]);
    let err = d.decode_message(&b13).unwrap_err();
    assert!(err.message().contains("undefined name token"), "{err}");
    // Recovery: invalidate everything after the last acknowledged message.
    e.rollback_to(acked).unwrap();
    for (i, m) in msgs.iter().enumerate().skip(13) {
        let b = encode_msg(&mut e, m);
        assert_eq!(&d.decode_message(&b).unwrap(), m, "{i}");
    }
}

#[test]
fn sequence_numbers_detect_a_lost_message() {
    let msgs: Vec<_> = (0..5).map(message).collect();
    let opts = XebuOptions::default().with_sequence_numbers(true);
    let mut e = XebuEncoder::with_options(Vec::new(), opts);
    let mut d = XebuStreamDecoder::new();
    let b0 = encode_msg(&mut e, &msgs[0]);
    assert_eq!(d.decode_message(&b0).unwrap(), msgs[0]);
    let acked = e.checkpoint();
    let _lost = encode_msg(&mut e, &msgs[1]);
    let b2 = encode_msg(&mut e, &msgs[2]);
    let err = d.decode_message(&b2).unwrap_err();
    assert!(
        err.message().contains("message 2 where 1 was expected"),
        "{err}"
    );
    // The decoder's state is untouched by the failed message. The sender rolls back to the
    // acknowledged point and resends from there: no reset, no restart.
    e.rollback_to(acked).unwrap();
    for m in &msgs[1..] {
        let b = encode_msg(&mut e, m);
        assert!(b.len() < 200, "tokens before the checkpoint are still used");
        assert_eq!(&d.decode_message(&b).unwrap(), m);
    }
}

#[test]
fn reset_lets_a_fresh_decoder_join() {
    let msgs: Vec<_> = (0..6).map(message).collect();
    let mut e = XebuEncoder::new(Vec::new());
    for m in &msgs[..3] {
        encode_msg(&mut e, m);
    }
    e.reset().unwrap();
    let mut d = XebuStreamDecoder::new();
    for m in &msgs[3..] {
        let b = encode_msg(&mut e, m);
        assert_eq!(&d.decode_message(&b).unwrap(), m);
    }
    assert_eq!(e.messages_written(), 6);
}

#[test]
fn decoder_offsets_and_multi_message_buffer() {
    let msgs: Vec<_> = (0..3).map(message).collect();
    let bytes = encode_stream(msgs.iter().map(Vec::as_slice), XebuOptions::default()).unwrap();
    let mut d = XebuDecoder::new(&bytes);
    let mut n = 0;
    loop {
        while let Some(_ev) = d.next_event().unwrap() {
            n += 1;
        }
        if !d.next_message() {
            break;
        }
    }
    assert_eq!(n, msgs.iter().map(Vec::len).sum::<usize>());
    assert_eq!(d.messages_decoded(), 3);
    assert_eq!(d.position(), bytes.len());
}

#[test]
fn encoder_rejects_bad_streams() {
    let mut e = XebuEncoder::new(Vec::new());
    assert!(e.write_event(&Event::EndElement).is_err());
    let mut e = XebuEncoder::new(Vec::new());
    e.write_event(&Event::start_document()).unwrap();
    e.write_event(&Event::StartElement(q("", "", "a"))).unwrap();
    assert!(e.finish().is_err());
    assert!(e.rollback_to(e.checkpoint()).is_err());
}

#[test]
fn prefixes_derived_or_explicit() {
    let ns = |p: &'static str, u: &'static str| Event::Namespace {
        prefix: p.into(),
        uri: u.into(),
    };
    let events = vec![
        Event::start_document(),
        Event::StartElement(q("", "urn:a", "root")),
        ns("", "urn:a"),
        ns("a", "urn:a"),
        ns("b", "urn:b"),
        // derived: innermost declaration of urn:a is `a`, but the element says ``: explicit
        attr(q("a", "urn:a", "x"), "1"),
        attr(q("b", "urn:b", "x"), "1"),
        Event::StartElement(q("a", "urn:a", "root")),
        // derived `a` now; the same name fetched from the cache with another prefix
        attr(q("a", "urn:a", "x"), "1"),
        Event::EndElement,
        Event::StartElement(q("c", "urn:b", "inner")),
        ns("c", "urn:b"),
        attr(q("b", "urn:b", "x"), "1"), // `c` is innermost for urn:b: explicit `b`
        attr(q("c", "urn:b", "x"), "1"), // derived
        Event::StartElement(q("", "", "plain")),
        ns("", ""),
        Event::EndElement,
        // no declaration at all (events from a source without namespace declarations)
        Event::StartElement(q("z", "urn:z", "undeclared")),
        attr(q("z", "urn:z", "att"), "v"),
        attr(q("xml", binxml_core::XML_NS, "space"), "preserve"),
        Event::EndElement,
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ];
    for opts in [
        XebuOptions::default(),
        XebuOptions::default().with_cache_size(1).unwrap(),
    ] {
        let bytes = encode_with(&events, opts).unwrap();
        assert_eq!(decode(&bytes).unwrap(), events);
    }
}

#[test]
fn detection_and_message_ranges() {
    let msgs: Vec<_> = (0..4).map(message).collect();
    let bytes = encode_stream(msgs.iter().map(Vec::as_slice), XebuOptions::default()).unwrap();
    assert!(binxml_xebu::detect(&bytes));
    assert!(binxml_xebu::detect(&encode(&sample()).unwrap()));
    assert!(binxml_xebu::detect(&encode(&typed_doc()).unwrap()));
    assert!(!binxml_xebu::detect(b"<?xml version='1.0'?><a/>"));
    assert!(!binxml_xebu::detect(&[0xE0, 0, 0, 1]));
    assert!(!binxml_xebu::detect(b""));
    for text in [
        &b"12"[..],
        b"123",
        b"1.5",
        b"a=1",
        b"Apple",
        b"qwerty",
        b"!x",
        b"aaaa",
        b"1 2 3",
    ] {
        assert!(
            !binxml_xebu::detect(text),
            "{:?}",
            String::from_utf8_lossy(text)
        );
    }
    for n in 1..bytes.len().min(80) {
        assert!(binxml_xebu::detect(&bytes[..n]), "prefix of {n} bytes");
    }
    let ranges = binxml_xebu::message_ranges(&bytes).unwrap();
    assert_eq!(ranges.len(), 4);
    assert_eq!(ranges.last().unwrap().end, bytes.len());
    let mut d = XebuStreamDecoder::new();
    for (r, m) in ranges.iter().zip(&msgs) {
        assert_eq!(&d.decode_message(&bytes[r.clone()]).unwrap(), m);
    }
}

#[test]
fn rejected_typed_value_leaves_no_bytes() {
    let mut deep = Typed::Int(1);
    for _ in 0..40 {
        deep = Typed::List(vec![deep]);
    }
    let mut e = XebuEncoder::new(Vec::new());
    e.write_event(&Event::start_document()).unwrap();
    e.write_event(&Event::StartElement(q("", "", "a"))).unwrap();
    assert!(e.write_event(&Event::Typed(deep)).is_err());
    e.write_event(&Event::Typed(Typed::Int(5))).unwrap();
    e.write_event(&Event::EndElement).unwrap();
    e.write_event(&Event::EndDocument).unwrap();
    e.finish().unwrap();
    let bytes = e.into_inner();
    let back = decode(&bytes).unwrap();
    assert_eq!(back[2], Event::Typed(Typed::Int(5)));
}

#[test]
fn cache_size_is_checked_when_the_options_are_built() {
    for n in [0, 257, usize::MAX] {
        let e = XebuOptions::default().with_cache_size(n).unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::InvalidOptions, "{n}");
        assert_eq!(e.format(), Some(binxml_core::Format::Xebu));
    }
    for n in [1, 256] {
        let o = XebuOptions::default().with_cache_size(n).unwrap();
        assert_eq!(o.cache_size(), n);
    }
    assert_eq!(XebuOptions::default().cache_size(), 256);
}
