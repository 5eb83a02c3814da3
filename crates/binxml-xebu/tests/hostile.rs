//! Hostile input: errors with byte offsets, never panics.

use binxml_core::Format;
use binxml_core::{Decoder, ErrorKind, Event, Limits, QName};
use binxml_xebu::{XebuDecoder, XebuStreamDecoder, decode, decode_stream, encode};

fn err_at(bytes: &[u8]) -> (u64, String) {
    let e = decode(bytes).unwrap_err();
    assert_eq!(e.format(), Some(Format::Xebu));
    (e.offset().expect("an offset"), e.message().to_string())
}

#[test]
fn unknown_discriminators() {
    for d in [
        0x08u8, 0x09, 0x0D, 0x0E, 0x06, 0x0A, 0x0B, 0x6F, 0xFF, 0xEC, 0x23, 0xC3, 0x24,
    ] {
        let bytes = [0x01, 0x03, 0, 0, 0, 1, b'a', d, 0, 0, 0];
        let (off, msg) = err_at(&bytes);
        assert_eq!(off, 7, "0x{d:02X}: {msg}");
    }
    let (off, msg) = err_at(&[0x03]);
    assert_eq!(off, 0, "{msg}");
    let (off, _) = err_at(&[0x81]);
    assert_eq!(off, 0);
}

#[test]
fn undefined_tokens() {
    // element from name cache, token 7 never defined
    let (off, msg) = err_at(&[0x01, 0x83, 7]);
    assert_eq!(off, 2);
    assert!(msg.contains("undefined name token 7"), "{msg}");
    // namespace fetch
    let (off, msg) = err_at(&[0x01, 0x43, 9, 0, 0, 1, b'a']);
    assert_eq!(off, 2);
    assert!(msg.contains("undefined namespace token 9"), "{msg}");
    // attribute value fetch
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0xC5, 3]);
    assert_eq!(off, 8);
    assert!(msg.contains("undefined value token 3"), "{msg}");
    // content fetch
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0xC7, 200]);
    assert_eq!(off, 8);
    assert!(msg.contains("undefined content token 200"), "{msg}");
}

#[test]
fn lengths_past_the_end() {
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0x05, b'a']);
    assert_eq!(off, 3, "{msg}");
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0xC0, 0xFF, 0xFF, 0xFF, 0xFF, b'a']);
    assert_eq!(off, 3, "{msg}");
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0x80]);
    assert_eq!(off, 4, "{msg}");
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0xC1, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(off, 3, "{msg}");
    assert!(msg.contains("invalid length prefix"));
    // base64 longer than the input
    let (off, _) = err_at(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0x6C, 0x7F, 1, 2]);
    assert_eq!(off, 8);
    // a list claiming more items than bytes left
    let (off, _) = err_at(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0xCC, 0xC0, 0x10, 0, 0, 0]);
    assert_eq!(off, 8);
    // truncated anywhere
    let good = encode(&[
        Event::start_document(),
        Event::StartElement(QName::new("p", "urn:x", "a")),
        Event::text("hello"),
        Event::EndElement,
        Event::EndDocument,
    ])
    .unwrap();
    for n in 0..good.len() {
        let e = decode(&good[..n]).unwrap_err();
        assert!(e.offset().unwrap() <= n as u64, "{n}: {e}");
    }
}

#[test]
fn grammar_violations() {
    // attribute after text
    let bytes = [
        0x01, 0x03, 0, 0, 0, 1, b'a', 0x07, 1, b'x', 0x05, 1, 0, 1, 1, b'k', 0, 0x04, 0x00,
    ];
    let (off, msg) = err_at(&bytes);
    assert_eq!(off, 10, "{msg}");
    // end element at top level
    let (off, _) = err_at(&[0x01, 0x04]);
    assert_eq!(off, 1);
    // document start inside a message
    let (off, _) = err_at(&[0x01, 0x01]);
    assert_eq!(off, 1);
    // invalid UTF-8
    let (off, msg) = err_at(&[0x01, 0x03, 0, 0, 0, 2, b'a', 0xFF]);
    assert_eq!(off, 7, "{msg}");
    // trailing bytes
    let (off, _) = err_at(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0x04, 0x00, 0x99]);
    assert_eq!(off, 9);
    // empty input
    let (off, _) = err_at(&[]);
    assert_eq!(off, 0);
    // bad document start flags / declaration bits
    assert_eq!(err_at(&[0x81]).0, 0);
    assert_eq!(err_at(&[0x21, 0x88]).0, 1);
    assert_eq!(err_at(&[0x21, 0x11, 3, b'1', b'.', b'1']).0, 1);
    // a prefixed name whose namespace has no declaration in scope
    let (off, msg) = err_at(&[
        0x01, 0x03, 0, 5, b'u', b'r', b'n', b':', b'a', 0, 1, b'e', 0x04, 0x00,
    ]);
    assert_eq!(off, 1, "{msg}");
    assert!(msg.contains("no prefix in scope"), "{msg}");
    // namespace declarations followed by something else than their element
    let (off, msg) = err_at(&[
        0x01, 0x03, 0, 0, 0, 1, b'a', 0x02, 1, 1, b'u', 1, b'p', 0x04, 0x00,
    ]);
    assert_eq!(off, 13, "{msg}");
    // typed integer longer than 64 bits
    let mut b = vec![0x01, 0x03, 0, 0, 0, 1, b'a', 0x0C];
    b.extend([0xFF; 10]);
    b.push(0x01);
    assert_eq!(err_at(&b).0, 8);
}

#[test]
fn depth_and_expansion_limits() {
    let mut bytes = vec![0x01, 0x03, 0, 0, 0, 1, b'a'];
    for _ in 0..2000 {
        bytes.extend([0x83, 0]);
    }
    let e = decode(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert!(e.offset().is_some());

    // one 1000-byte text fetched over and over
    let mut bytes = vec![0x01, 0x03, 0, 0, 0, 1, b'a', 0x27, 0];
    bytes.extend([0x83, 0xE8]);
    bytes.extend(std::iter::repeat_n(b'x', 1000));
    for _ in 0..5000 {
        bytes.extend([0xC7, 0]);
    }
    let limits = Limits::default().with_max_expansion_ratio(10);
    let mut d = XebuDecoder::with_limits(&bytes, limits.clone());
    // 64 MiB minimum budget: 5 MB of text still fits; a tighter check through a custom budget:
    let mut n = 0;
    while let Ok(Some(_)) = d.next_event() {
        n += 1;
    }
    assert!(n > 0);
    let mut bytes2 = bytes.clone();
    for _ in 0..70_000 {
        bytes2.extend([0xC7, 0]);
    }
    let mut d = XebuDecoder::with_limits(&bytes2, limits);
    let e = loop {
        match d.next_event() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("expected a limit error"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

#[test]
fn failed_message_leaves_stream_state_untouched() {
    let mut d = XebuStreamDecoder::new();
    // message 1 defines name token 0 = a
    d.decode_message(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0x04, 0x00])
        .unwrap();
    // message 2 redefines it as b, then fails
    assert!(
        d.decode_message(&[0x01, 0x03, 0, 0, 0, 1, b'b', 0x09])
            .is_err()
    );
    // message 3 uses token 0: still a
    let evs = d.decode_message(&[0x01, 0x83, 0, 0x04, 0x00]).unwrap();
    assert_eq!(evs[1], Event::StartElement(QName::local("a")));
    // a message abandoned half-way by its reader also leaves nothing behind
    {
        let mut m = d.message(&[0x01, 0x03, 0, 0, 0, 1, b'c', 0x04, 0x00]);
        m.next_event().unwrap();
        m.next_event().unwrap();
    }
    let evs = d.decode_message(&[0x01, 0x83, 0, 0x04, 0x00]).unwrap();
    assert_eq!(evs[1], Event::StartElement(QName::local("a")));
}

/// A small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mutations_never_panic() {
    let mut events = vec![
        Event::start_document(),
        Event::StartElement(QName::new("p", "urn:x", "root")),
    ];
    events.push(Event::Namespace {
        prefix: "p".into(),
        uri: "urn:x".into(),
    });
    for i in 0..30 {
        events.push(Event::StartElement(QName::new(
            "",
            "urn:y",
            format!("e{}", i % 4),
        )));
        events.push(Event::Attribute {
            name: QName::local("k"),
            value: format!("{}", i % 3).into(),
        });
        events.push(Event::text(format!("t{}", i % 5)));
        events.push(Event::Typed(binxml_core::Typed::Int(i * 1000 - 7000)));
        events.push(Event::Typed(binxml_core::Typed::DateTime(
            "2020-01-02T03:04:05.6Z".into(),
        )));
        events.push(Event::EndElement);
    }
    events.push(Event::Typed(binxml_core::Typed::List(vec![
        binxml_core::Typed::Double(1.5),
        binxml_core::Typed::Base64(b"abc".to_vec().into()),
        binxml_core::Typed::Uuid([1; 16]),
    ])));
    events.push(Event::Characters {
        text: "cdata".into(),
        cdata: true,
    });
    events.push(Event::Comment("c".into()));
    events.push(Event::ProcessingInstruction {
        target: "t".into(),
        data: "d".into(),
    });
    events.push(Event::EntityReference {
        name: "e".into(),
        public_id: Some("p".into()),
        system_id: None,
    });
    events.push(Event::StartElement(QName::new("q", "urn:x", "inner")));
    events.push(Event::Namespace {
        prefix: "q".into(),
        uri: "urn:x".into(),
    });
    events.push(Event::Attribute {
        name: QName::new("q", "urn:x", "a"),
        value: "v".into(),
    });
    events.push(Event::EndElement);
    events.extend([Event::EndElement, Event::EndDocument]);
    let mut good = encode(&events).unwrap();
    // a second message in the same buffer, with a declaration
    let mut second = events.clone();
    second[0] = Event::StartDocument {
        version: Some("1.1".into()),
        encoding: Some("latin1".into()),
        standalone: Some(true),
    };
    good.extend(
        binxml_xebu::encode_with(
            &second,
            binxml_xebu::XebuOptions::default().with_sequence_numbers(true),
        )
        .unwrap(),
    );
    let iters: usize = std::env::var("XEBU_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let mut rng = Rng(0x9E3779B97F4A7C15);
    for _ in 0..iters {
        let mut b = good.clone();
        for _ in 0..(1 + rng.next() % 4) {
            let i = (rng.next() as usize) % b.len();
            b[i] = rng.next() as u8;
        }
        if rng.next().is_multiple_of(8) {
            b.truncate((rng.next() as usize) % b.len());
        }
        if let Err(e) = decode_stream(&b) {
            assert!(e.offset().is_some(), "{e}");
        }
    }
}

#[test]
fn stream_mutations_never_panic_and_state_stays_consistent() {
    use binxml_core::Typed;
    use binxml_xebu::{XebuEncoder, XebuOptions};
    // Messages of a stream, each sent as its own buffer; some are damaged on the way.
    let mk = |i: usize| {
        let mut v = vec![
            Event::start_document(),
            Event::StartElement(QName::new("p", "urn:x", "root")),
        ];
        v.push(Event::Namespace {
            prefix: "p".into(),
            uri: "urn:x".into(),
        });
        for k in 0..6 {
            v.push(Event::StartElement(QName::new(
                "p",
                "urn:x",
                format!("e{}", (i + k) % 9),
            )));
            v.push(Event::Attribute {
                name: QName::local("k"),
                value: format!("{}", (i * k) % 7).into(),
            });
            v.push(Event::text(format!("t{}", (i + 2 * k) % 11)));
            v.push(Event::Typed(Typed::Int((i * k) as i64)));
            v.push(Event::EndElement);
        }
        v.extend([Event::EndElement, Event::EndDocument]);
        v
    };
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for round in 0..40 {
        let opts = XebuOptions::default()
            .with_cache_size(1 + round % 16)
            .unwrap()
            .with_sequence_numbers(round.is_multiple_of(2));
        let mut e = XebuEncoder::with_options(Vec::new(), opts);
        let mut d = XebuStreamDecoder::new();
        let mut acked = e.checkpoint();
        for i in 0..60 {
            let m = mk(i + round);
            e.write_message(&m).unwrap();
            let bytes = std::mem::take(e.get_mut());
            let mut damaged = bytes.clone();
            let damage = rng.next().is_multiple_of(4);
            if damage {
                for _ in 0..(1 + rng.next() % 3) {
                    let k = (rng.next() as usize) % damaged.len();
                    damaged[k] = rng.next() as u8;
                }
            }
            let result = d.decode_message(&damaged);
            if damaged == bytes {
                assert_eq!(result.unwrap(), m, "round {round} message {i}");
                acked = e.checkpoint();
                continue;
            }
            // Damage that decodes without an error may have defined garbage in any slot (a real
            // transport's checksum would have dropped the message): reset. Damage that fails
            // leaves the decoder as it was after the last good message: rolling back to the
            // acknowledged point is enough.
            if result.is_ok() {
                e.reset().unwrap();
            } else {
                e.rollback_to(acked).unwrap();
            }
            e.write_message(&m).unwrap();
            let again = std::mem::take(e.get_mut());
            assert_eq!(
                d.decode_message(&again).unwrap(),
                m,
                "round {round} message {i}"
            );
            acked = e.checkpoint();
        }
    }
}

#[test]
fn trailing_bytes_do_not_commit_a_stream_message() {
    let mut d = XebuStreamDecoder::new();
    d.decode_message(&[0x01, 0x03, 0, 0, 0, 1, b'a', 0x04, 0x00])
        .unwrap();
    let e = d
        .decode_message(&[0x01, 0x03, 0, 0, 0, 1, b'b', 0x04, 0x00, 0x01])
        .unwrap_err();
    assert_eq!(e.offset(), Some(9));
    let evs = d.decode_message(&[0x01, 0x83, 0, 0x04, 0x00]).unwrap();
    assert_eq!(evs[1], Event::StartElement(QName::local("a")));
}
