//! The JSON codec on its own: compact JSON round-trips to itself, events follow the mapping
//! (`docs/json-mapping.md`), strings without escapes are borrowed, broken event streams are
//! rejected, errors carry byte offsets, the conformance suite's documents parse or are rejected
//! as they must, and the benchmark documents keep every value (compared by Python's `json`).

use std::borrow::Cow;

use binxml_core::{Decoder, Encoder, ErrorKind, Event, QName, Typed};
use binxml_json::{JSON_NS, JsonDecoder, JsonEncoder, decode, encode};

fn roundtrip(input: &str) -> String {
    let events = decode(input.as_bytes()).unwrap_or_else(|e| panic!("{input}: {e}"));
    String::from_utf8(encode(&events).unwrap()).unwrap()
}

#[test]
fn compact_roundtrip_is_identity() {
    for s in [
        r#"{"a":1,"b":[true,false,null],"c":{"d":"e"},"a":-0.5e+10}"#,
        r#"[]"#,
        r#"{}"#,
        r#""""#,
        r#"12345678901234567890123456789e-999"#,
        r#"{"":"","a b":"x","64th":{"\"q\\":"\u0001\n"}}"#,
        r#"[[[[]]],{},[{}],"é\ud83d\ude00"]"#,
    ] {
        let out = roundtrip(s);
        let expect = s.replace(r"\ud83d\ude00", "\u{1F600}");
        assert_eq!(out, expect);
    }
}

#[test]
fn events_follow_the_mapping() {
    let ev = decode(br#"{"n":1.50,"a b":[true]}"#).unwrap();
    let want: Vec<Event<'static>> = vec![
        Event::start_document(),
        Event::StartElement(QName::new("", JSON_NS, "json")),
        Event::Namespace {
            prefix: "".into(),
            uri: JSON_NS.into(),
        },
        Event::Attribute {
            name: QName::local("t"),
            value: "object".into(),
        },
        Event::StartElement(QName::new("", JSON_NS, "n")),
        Event::Attribute {
            name: QName::local("t"),
            value: "number".into(),
        },
        Event::Typed(Typed::Number("1.50".into())),
        Event::EndElement,
        Event::StartElement(QName::new("", JSON_NS, "au0020b")),
        Event::Attribute {
            name: QName::local("t"),
            value: "array".into(),
        },
        Event::Attribute {
            name: QName::local("key"),
            value: "a b".into(),
        },
        Event::StartElement(QName::new("", JSON_NS, "item")),
        Event::Attribute {
            name: QName::local("t"),
            value: "boolean".into(),
        },
        Event::Typed(Typed::Bool(true)),
        Event::EndElement,
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ];
    assert_eq!(ev, want);
}

#[test]
fn strings_without_escapes_are_borrowed() {
    let input = br#"{"k":"value"}"#;
    let mut d = JsonDecoder::new(input);
    let mut borrowed = 0;
    while let Some(ev) = d.next_event().unwrap() {
        match ev {
            Event::Characters {
                text: Cow::Borrowed(_),
                ..
            } => borrowed += 1,
            Event::StartElement(q) if matches!(q.local, Cow::Borrowed("k")) => borrowed += 1,
            _ => {}
        }
    }
    assert_eq!(borrowed, 2);
}

#[test]
fn xml_like_events_without_typed_content() {
    // As the XML reader would give them back: text only, whitespace between elements.
    let ev: Vec<Event<'static>> = vec![
        Event::start_document(),
        Event::StartElement(QName::new("", JSON_NS, "json")),
        Event::Namespace {
            prefix: "".into(),
            uri: JSON_NS.into(),
        },
        Event::Attribute {
            name: QName::local("t"),
            value: "object".into(),
        },
        Event::text("\n  "),
        Event::StartElement(QName::new("", JSON_NS, "n")),
        Event::Attribute {
            name: QName::local("t"),
            value: "number".into(),
        },
        Event::text(" 12 "),
        Event::EndElement,
        Event::StartElement(QName::new("", JSON_NS, "s")),
        Event::text("a\"b"),
        Event::EndElement,
        Event::StartElement(QName::new("", JSON_NS, "z")),
        Event::Attribute {
            name: QName::local("t"),
            value: "null".into(),
        },
        Event::EndElement,
        Event::text("\n"),
        Event::EndElement,
        Event::EndDocument,
    ];
    assert_eq!(
        String::from_utf8(encode(&ev).unwrap()).unwrap(),
        r#"{"n":12,"s":"a\"b","z":null}"#
    );
}

#[test]
fn bad_events_are_rejected() {
    let ev: Vec<Event<'static>> = vec![
        Event::start_document(),
        Event::StartElement(QName::new("", JSON_NS, "x")),
        Event::Attribute {
            name: QName::local("t"),
            value: "number".into(),
        },
        Event::text("12a"),
        Event::EndElement,
        Event::EndDocument,
    ];
    let e = encode(&ev).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidEvents);
}

#[test]
fn errors_have_offsets() {
    let cases: &[(&str, u64)] = &[
        ("[1,]", 3),
        ("{\"a\" 1}", 5),
        ("[01]", 2),
        ("\"abc", 0),
        ("[1] x", 4),
        ("", 0),
        ("{\"a\":\"\\ud800\"}", 6),
    ];
    for &(s, off) in cases {
        let e = decode(s.as_bytes()).unwrap_err();
        assert_eq!(e.offset(), Some(off), "{s}: {e}");
        assert!(e.line_col().is_some());
    }
    let deep = "[".repeat(100_000);
    let e = decode(deep.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(e.offset(), Some(1024));
}

#[test]
fn conformance_suite() {
    let files = binxml_testkit::corpus_json_files("conformance");
    assert!(files.len() > binxml_testkit::expected(300, 100));
    let (mut y, mut n) = (0, 0);
    for f in files {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let data = std::fs::read(&f).unwrap();
        let r = decode(&data);
        if name.starts_with("y_") {
            y += 1;
            let ev = r.unwrap_or_else(|e| panic!("{name} must parse: {e}"));
            // And writes back to JSON that parses again to the same events.
            let out = encode(&ev).unwrap();
            let again = decode(&out).unwrap_or_else(|e| panic!("{name} rewritten: {e}"));
            assert_eq!(ev, again, "{name}");
        } else if name.starts_with("n_") {
            n += 1;
            let e = match r {
                Ok(_) => panic!("{name} must be rejected"),
                Err(e) => e,
            };
            assert!(e.offset().is_some(), "{name}: {e}");
            assert!(e.offset().unwrap() <= data.len() as u64, "{name}: {e}");
            assert!(!e.message().is_empty());
        } else {
            // Implementation-defined: either way, never a panic.
            let _ = r;
        }
    }
    assert_eq!((y, n), binxml_testkit::expected((95, 188), (48, 64)));
}

#[test]
fn bench_files_roundtrip_value_for_value() {
    let mut pairs = Vec::new();
    for f in binxml_testkit::corpus_json_files("bench") {
        let data = std::fs::read(&f).unwrap();
        let mut dec = JsonDecoder::new(&data);
        let mut enc = JsonEncoder::new(Vec::new());
        binxml_core::transcode(&mut dec, &mut enc)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let out = enc.into_inner();
        // Compact output of the compact rewrite is a fixed point.
        let again = encode(&decode(&out).unwrap()).unwrap();
        assert_eq!(out, again, "{}", f.display());
        pairs.push((f.display().to_string(), data, out));
    }
    assert_eq!(pairs.len(), 9);
    binxml_testkit::python_json_equal(&pairs, "binxml-json-values");
}

#[test]
fn pretty_output_parses_back() {
    let s = br#"{"a":[1,{"b":null}],"c":{}}"#;
    let ev = decode(s).unwrap();
    let mut enc = JsonEncoder::new(Vec::new()).pretty(true);
    for e in &ev {
        enc.write_event(e).unwrap();
    }
    enc.finish().unwrap();
    let out = enc.into_inner();
    assert!(out.contains(&b'\n'));
    assert_eq!(decode(&out).unwrap(), ev);
}
