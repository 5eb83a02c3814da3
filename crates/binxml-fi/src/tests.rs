use std::borrow::Cow;
use std::sync::Arc;

use super::*;
use binxml_core::{Decoder, DocType, ErrorKind, Event, QName, Typed};

fn doc(body: Vec<Event<'static>>) -> Vec<Event<'static>> {
    let mut v = vec![Event::start_document()];
    v.extend(body);
    v.push(Event::EndDocument);
    v
}

fn se(name: &str) -> Event<'static> {
    Event::StartElement(QName::local(name.to_string()))
}

fn attr(name: &str, value: &str) -> Event<'static> {
    Event::Attribute {
        name: QName::local(name.to_string()),
        value: Cow::Owned(value.to_string()),
    }
}

fn text(s: &str) -> Event<'static> {
    Event::text(s.to_string())
}

fn ee() -> Event<'static> {
    Event::EndElement
}

fn roundtrip(ev: &[Event<'_>], opts: FiOptions) -> Vec<u8> {
    let b = encode_with(ev, opts).unwrap();
    let back = decode(&b).unwrap();
    assert_eq!(
        back,
        ev.iter()
            .map(|e| e.clone().into_owned())
            .collect::<Vec<_>>(),
        "bytes {b:02X?}"
    );
    let mut rd = FiReadDecoder::new(&b[..]);
    let mut streamed = Vec::new();
    while let Some(e) = rd.next_event().unwrap() {
        streamed.push(e);
    }
    assert_eq!(streamed, back);
    b
}

#[test]
fn empty_element_bytes() {
    let ev = doc(vec![se("a"), ee()]);
    let b = roundtrip(&ev, FiOptions::default());
    assert_eq!(b, [0xE0, 0x00, 0x00, 0x01, 0x00, 0x3C, 0x00, 0x61, 0xFF]);
}

#[test]
fn notes_example_bytes() {
    // <r><i k="v">t</i><i k="v">t</i><i k="w">u</i></r>
    let ev = doc(vec![
        se("r"),
        se("i"),
        attr("k", "v"),
        text("t"),
        ee(),
        se("i"),
        attr("k", "v"),
        text("t"),
        ee(),
        se("i"),
        attr("k", "w"),
        text("u"),
        ee(),
        ee(),
    ]);
    let b = roundtrip(&ev, FiOptions::default());
    let expected: Vec<u8> = vec![
        0xE0, 0x00, 0x00, 0x01, 0x00, //
        0x3C, 0x00, 0x72, // r
        0x7C, 0x00, 0x69, 0x78, 0x00, 0x6B, 0x40, 0x76, 0xF0, 0x90, 0x74, 0xF0, //
        0x41, 0x00, 0x80, 0xF0, 0xA0, 0xF0, //
        0x41, 0x00, 0x40, 0x77, 0xF0, 0x90, 0x75, 0xFF, 0xF0,
    ];
    assert_eq!(b, expected);
}

#[test]
fn xml_declaration_and_attribute_only_element() {
    let ev = doc(vec![se("a"), attr("x", "1"), ee()]);
    let opts = FiOptions {
        xml_declaration: true,
        ..Default::default()
    };
    let b = encode_with(&ev, opts).unwrap();
    assert!(b.starts_with(b"<?xml encoding='finf'?>\xE0\x00\x00\x01"));
    assert!(detect(&b));
    // attribute terminator and element terminator share one octet, then the document's
    assert!(b.ends_with(&[0xFF, 0xF0]), "{b:02X?}");
    assert_eq!(decode(&b).unwrap(), ev);
}

#[test]
fn namespaces_prefixes_and_xml_attributes() {
    let ev = doc(vec![
        Event::StartElement(QName::new("p", "urn:a", "root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        Event::Namespace {
            prefix: "".into(),
            uri: "urn:d".into(),
        },
        Event::Attribute {
            name: QName::new("xml", binxml_core::XML_NS, "lang"),
            value: "en".into(),
        },
        Event::Attribute {
            name: QName::new("p", "urn:a", "at"),
            value: "".into(),
        },
        Event::StartElement(QName::new("", "urn:d", "child")),
        Event::Namespace {
            prefix: "".into(),
            uri: "".into(),
        },
        ee(),
        Event::StartElement(QName::new("p", "urn:a", "root")),
        ee(),
        ee(),
    ]);
    roundtrip(&ev, FiOptions::default());
}

#[test]
fn every_index_width() {
    // enough distinct names and values to need 1-, 2- and 3-octet indexes everywhere
    let n = 9000;
    let mut body = vec![se("root")];
    for i in 0..n {
        let name = format!("e{i}");
        body.push(se(&name));
        body.push(attr(&format!("a{i}"), &format!("v{i}")));
        body.push(text(&format!("t{i}")));
        body.push(ee());
    }
    for i in (0..n).step_by(7) {
        let name = format!("e{i}");
        body.push(se(&name));
        body.push(attr(&format!("a{i}"), &format!("v{i}")));
        body.push(text(&format!("t{i}")));
        body.push(Event::Comment(format!("c{}", i % 100).into()));
        body.push(Event::ProcessingInstruction {
            target: format!("pi{}", i % 3000).into(),
            data: "d".into(),
        });
        body.push(ee());
    }
    body.push(ee());
    roundtrip(&doc(body), FiOptions::default());
}

#[test]
fn every_length_width() {
    for len in [
        1usize, 2, 3, 8, 9, 64, 65, 258, 259, 264, 265, 320, 321, 70_000,
    ] {
        let s: String = "x".repeat(len);
        let ev = doc(vec![
            se(&s),
            attr(&format!("a{s}"), &s),
            text(&s),
            Event::Comment(s.clone().into()),
            Event::ProcessingInstruction {
                target: format!("t{s}").into(),
                data: s.clone().into(),
            },
            ee(),
        ]);
        roundtrip(&ev, FiOptions::default());
        roundtrip(
            &ev,
            FiOptions {
                utf16: true,
                ..Default::default()
            },
        );
    }
}

#[test]
fn utf16_and_non_ascii() {
    let ev = doc(vec![
        se("é"),
        attr("ü", "日本語 😀"),
        text("ŝtring ✓ 😀"),
        Event::Comment("ç".into()),
        ee(),
    ]);
    let b8 = roundtrip(&ev, FiOptions::default());
    let b16 = roundtrip(
        &ev,
        FiOptions {
            utf16: true,
            ..Default::default()
        },
    );
    assert_ne!(b8, b16);
}

#[test]
fn typed_values_through_algorithms() {
    let values = vec![
        Typed::Int(42),
        Typed::Int(-5_000_000_000),
        Typed::Bool(true),
        Typed::List(vec![
            Typed::Bool(true),
            Typed::Bool(false),
            Typed::Bool(true),
            Typed::Bool(true),
        ]),
        Typed::List((0..13).map(|i| Typed::Bool(i % 3 == 0)).collect()),
        Typed::Float(1.5),
        Typed::Double(-2.25e100),
        Typed::Base64(Cow::Owned(b"hello world".to_vec())),
        Typed::Hex(Cow::Owned(vec![0xde, 0xad, 0xbe, 0xef])),
        Typed::Uuid([7; 16]),
        Typed::List(vec![Typed::Int(1), Typed::Int(2), Typed::Int(-3)]),
        Typed::List(vec![Typed::Double(1.0), Typed::Double(2.0)]),
    ];
    let mut body = vec![se("r")];
    for v in &values {
        body.push(se("v"));
        body.push(Event::Typed(v.clone()));
        body.push(ee());
    }
    body.push(ee());
    let ev = doc(body);
    roundtrip(&ev, FiOptions::default());
}

#[test]
fn typed_text_uses_restricted_alphabets() {
    let ev = doc(vec![
        se("r"),
        Event::Typed(Typed::Number("-12.5E3".into())),
        se("d"),
        Event::Typed(Typed::DateTime("2024-01-31T12:00:00Z".into())),
        ee(),
        ee(),
    ]);
    let b = encode_with(&ev, FiOptions::default()).unwrap();
    let back = decode(&b).unwrap();
    assert_eq!(back[2], text("-12.5E3"));
    assert_eq!(back[4], text("2024-01-31T12:00:00Z"));
}

#[test]
fn numeric_alphabet_option() {
    let ev = doc(vec![
        se("r"),
        text("1234567890.5"),
        text("12"),
        text("abc"),
        ee(),
    ]);
    let plain = roundtrip(&ev, FiOptions::default());
    let packed = roundtrip(
        &ev,
        FiOptions {
            numeric_alphabet: true,
            ..Default::default()
        },
    );
    assert!(packed.len() < plain.len());
}

#[test]
fn alphabet_codec() {
    let num: Vec<char> = algo::NUMERIC.chars().collect();
    for s in ["1", "12", "123", "-1.5E 3", "0000000000"] {
        let mut out = Vec::new();
        assert!(algo::alphabet_encode(&num, s, &mut out));
        assert_eq!(algo::alphabet_decode(&num, &out).as_deref(), Some(s));
    }
    let abc: Vec<char> = "abcde".chars().collect(); // 3 bits a character
    for s in ["a", "abcde", "eeeeeeee", "abcdeabcdeab"] {
        let mut out = Vec::new();
        assert!(algo::alphabet_encode(&abc, s, &mut out));
        assert_eq!(
            algo::alphabet_decode(&abc, &out).as_deref(),
            Some(s),
            "{out:02X?}"
        );
    }
}

#[test]
fn cdata_is_algorithm_10() {
    let ev = doc(vec![
        se("r"),
        Event::Characters {
            text: "x<y".into(),
            cdata: true,
        },
        ee(),
    ]);
    let b = roundtrip(&ev, FiOptions::default());
    assert!(b.windows(3).any(|w| w == [0x8C, 0x26, 0x00]), "{b:02X?}");
}

#[test]
fn prolog_doctype_notations_entities() {
    let ev = vec![
        Event::StartDocument {
            version: Some("1.0".into()),
            encoding: Some("UTF-8".into()),
            standalone: Some(true),
        },
        Event::Comment("before".into()),
        Event::DocType(DocType {
            name: "".into(),
            public_id: Some("-//P//EN".into()),
            system_id: Some("s.dtd".into()),
            internal_subset: None,
        }),
        Event::Notation {
            name: "gif".into(),
            public_id: None,
            system_id: Some("image/gif".into()),
        },
        Event::UnparsedEntity {
            name: "pic".into(),
            public_id: None,
            system_id: "a.gif".into(),
            notation: "gif".into(),
        },
        Event::ProcessingInstruction {
            target: "pi".into(),
            data: "".into(),
        },
        se("r"),
        Event::EntityReference {
            name: "ext".into(),
            public_id: None,
            system_id: Some("e.xml".into()),
        },
        ee(),
        Event::Comment("after".into()),
        Event::EndDocument,
    ];
    let opts = FiOptions {
        document_properties: true,
        ..Default::default()
    };
    let b = roundtrip(&ev, opts);
    // the DOCTYPE item: system then public identifier (C4 | 02 | 01)
    assert!(b.contains(&0xC7));
    // without document properties the header carries no version/standalone/encoding
    let b2 = encode_with(&ev, FiOptions::default()).unwrap();
    assert_eq!(b2[4] & 0x07, 0);
}

#[test]
fn pi_bare_is_empty_string() {
    let ev = doc(vec![
        Event::ProcessingInstruction {
            target: "bare".into(),
            data: "".into(),
        },
        se("a"),
        ee(),
    ]);
    let b = roundtrip(&ev, FiOptions::default());
    assert_eq!(&b[5..12], &[0xE1, 0x03, b'b', b'a', b'r', b'e', 0xFF]);
}

#[test]
fn indexing_policy() {
    let long = "y".repeat(40);
    let ev = doc(vec![
        se("r"),
        attr("a", &long),
        se("r"),
        attr("a", &long),
        ee(),
        ee(),
    ]);
    let b = roundtrip(&ev, FiOptions::default());
    assert_eq!(b.windows(40).filter(|w| *w == long.as_bytes()).count(), 2);
    let b = roundtrip(
        &ev,
        FiOptions {
            max_indexed_attribute_value: 64,
            ..Default::default()
        },
    );
    assert_eq!(b.windows(40).filter(|w| *w == long.as_bytes()).count(), 1);
    let b = roundtrip(
        &doc(vec![se("r"), text("z"), text("z"), ee()]),
        FiOptions {
            max_indexed_chunk: 0,
            ..Default::default()
        },
    );
    assert_eq!(b.iter().filter(|&&x| x == b'z').count(), 2);
}

fn sample_vocab() -> Vocabulary {
    let mut vb = VocabularyBuilder::new();
    let sample = doc(vec![
        Event::StartElement(QName::new("p", "urn:a", "root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        attr("id", "1"),
        se("item"),
        text("hello"),
        ee(),
        ee(),
    ]);
    vb.add_events(sample.iter());
    vb.build()
}

#[test]
fn external_vocabulary() {
    let v = Arc::new(sample_vocab());
    let ev = doc(vec![
        Event::StartElement(QName::new("p", "urn:a", "root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        attr("id", "1"),
        se("item"),
        text("hello"),
        ee(),
        se("new"),
        ee(),
        ee(),
    ]);
    let opts = FiOptions {
        external_vocabulary: Some(("urn:voc".into(), v.clone())),
        ..Default::default()
    };
    let with = encode_with(&ev, opts).unwrap();
    let without = encode_with(&ev, FiOptions::default()).unwrap();
    assert!(
        with.len() < without.len(),
        "{} vs {}",
        with.len(),
        without.len()
    );
    assert_eq!(&with[4..8], &[0x20, 0x10, 0x00, 0x06]);
    // refused without the vocabulary
    let e = decode(&with).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("urn:voc"), "{e}");
    let mut vocabs = Vocabularies::new();
    vocabs.insert("urn:other".into(), (*v).clone());
    let mut d = FiDecoder::new(&with).with_vocabularies(&vocabs);
    assert!(binxml_core::collect_events(&mut d).is_err());
    vocabs.insert("urn:voc".into(), (*v).clone());
    let mut d = FiDecoder::new(&with).with_vocabularies(&vocabs);
    let back = binxml_core::collect_events(&mut d).unwrap();
    assert_eq!(back, ev);
    let mut d = FiReadDecoder::new(&with[..]).with_vocabularies(Arc::new(vocabs.clone()));
    let back2 = binxml_core::collect_events(&mut d).unwrap();
    assert_eq!(back2, ev);
    // the text form round-trips
    assert_eq!(Vocabulary::from_text(&v.to_text()).unwrap(), *v);
}

#[test]
fn initial_vocabulary_in_document() {
    // header with an inline initial vocabulary: prefixes ["p"], namespace names ["urn:a"],
    // local names ["x"], attribute values ["v"], element name surrogates [(p, urn:a, x)]
    let mut b = vec![0xE0, 0x00, 0x00, 0x01, 0x20];
    b.extend_from_slice(&[0x03, 0x90]); // prefixes, namespace names | local names, attribute values
    b.push(0x02); // 2nd octet also carries element-name surrogates
    b.truncate(b.len() - 1);
    b.pop();
    b.push(0x92); // local names 0x80, attribute values 0x10, element name surrogates 0x02
    b.extend_from_slice(&[0x00, 0x00, b'p']); // 1 prefix
    b.extend_from_slice(&[0x00, 0x04, b'u', b'r', b'n', b':', b'a']); // 1 namespace
    b.extend_from_slice(&[0x00, 0x00, b'x']); // 1 local name
    b.extend_from_slice(&[0x00, 0x00, b'v']); // 1 attribute value (C.14 literal, utf-8)
    b.extend_from_slice(&[0x00, 0x03, 0x01, 0x01, 0x00]); // 1 element surrogate: p=2, ns=2, local=1
    // body: <p:x xmlns:p="urn:a" a="v"/> using the vocabulary
    b.extend_from_slice(&[0x78, 0xCF, 0x81, 0x81, 0xF0, 0x00]); // ns decl by indexes, element index 1
    b.extend_from_slice(&[0x78, 0x00, 0x61, 0x80, 0xFF, 0xF0]);
    let ev = decode(&b).unwrap();
    assert_eq!(ev[1], Event::StartElement(QName::new("p", "urn:a", "x")));
    assert_eq!(
        ev[2],
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into()
        }
    );
    assert_eq!(ev[3], attr("a", "v"));
    assert_eq!(ev.len(), 6);
}

#[test]
fn borrows_utf8_literals() {
    let ev = doc(vec![
        se("root"),
        attr("a", "value"),
        text("some text"),
        ee(),
    ]);
    let b = encode_with(&ev, FiOptions::default()).unwrap();
    let mut d = FiDecoder::new(&b);
    let mut borrowed = 0;
    while let Some(e) = d.next_event().unwrap() {
        match e {
            Event::StartElement(q) => borrowed += matches!(q.local, Cow::Borrowed(_)) as u32,
            Event::Attribute { value, .. } => borrowed += matches!(value, Cow::Borrowed(_)) as u32,
            Event::Characters { text, .. } => borrowed += matches!(text, Cow::Borrowed(_)) as u32,
            _ => {}
        }
    }
    assert_eq!(borrowed, 3);
}

// ---- hostile input ----

fn decode_all(b: &[u8]) -> binxml_core::Result<usize> {
    let mut d = FiDecoder::new(b);
    let mut n = 0;
    while d.next_event()?.is_some() {
        n += 1;
    }
    let mut r = FiReadDecoder::new(b);
    let mut m = 0;
    while r.next_event()?.is_some() {
        m += 1;
    }
    assert_eq!(n, m);
    Ok(n)
}

#[test]
fn bad_magic() {
    for b in [
        &b""[..],
        b"\xE0",
        b"\xE0\x00\x00\x02\x00",
        b"<?xml version='1.0'?><a/>",
        b"PK\x03\x04",
        b"<?xml encoding='finf'",
    ] {
        let e = decode_all(b).unwrap_err();
        assert!(e.offset().is_some(), "{e}");
    }
}

#[test]
fn truncations_and_corruptions_never_panic() {
    let docs = [
        doc(vec![
            se("r"),
            attr("k", "v"),
            text("t"),
            se("i"),
            attr("k", "v"),
            text("t"),
            ee(),
            ee(),
        ]),
        doc(vec![
            Event::Comment("c".into()),
            Event::StartElement(QName::new("p", "urn:a", "root")),
            Event::Namespace {
                prefix: "p".into(),
                uri: "urn:a".into(),
            },
            Event::Typed(Typed::List(vec![Typed::Int(1), Typed::Int(2)])),
            Event::Characters {
                text: "cd".into(),
                cdata: true,
            },
            Event::ProcessingInstruction {
                target: "t".into(),
                data: "d".into(),
            },
            ee(),
        ]),
    ];
    for ev in &docs {
        for opts in [
            FiOptions::default(),
            FiOptions {
                utf16: true,
                numeric_alphabet: true,
                ..Default::default()
            },
        ] {
            let b = encode_with(ev, opts).unwrap();
            for cut in 0..b.len() {
                let e = decode_all(&b[..cut]).unwrap_err();
                assert!(e.offset().is_some(), "cut {cut}: {e}");
            }
            // flip every bit of every octet: errors or other documents, never a panic
            for i in 0..b.len() {
                for bit in 0..8 {
                    let mut c = b.clone();
                    c[i] ^= 1 << bit;
                    if let Err(e) = decode_all(&c) {
                        assert!(e.offset().is_some(), "{e}");
                    }
                }
            }
        }
    }
}

#[test]
fn index_past_table_end() {
    // element by index 5 with an empty table
    let b = [0xE0, 0x00, 0x00, 0x01, 0x00, 0x04, 0xF0];
    let e = decode_all(&b).unwrap_err();
    assert!(e.message().contains("element-name"), "{e}");
    assert_eq!(e.offset(), Some(5));
    // attribute value index 3
    let b = [
        0xE0, 0x00, 0x00, 0x01, 0x00, 0x7C, 0x00, 0x61, 0x78, 0x00, 0x62, 0x82, 0xFF, 0xF0,
    ];
    let e = decode_all(&b).unwrap_err();
    assert!(e.message().contains("attribute-value"), "{e}");
}

#[test]
fn huge_lengths() {
    // chunk with a 4-octet length of ~4 GB
    let b = [
        0xE0, 0x00, 0x00, 0x01, 0x00, 0x3C, 0x00, 0x61, 0x83, 0xFF, 0xFF, 0xFF, 0xF0, b'x',
    ];
    let e = decode_all(&b).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    // unknown encoding algorithm 33 (application-defined, no table)
    let b = [
        0xE0, 0x00, 0x00, 0x01, 0x00, 0x3C, 0x00, 0x61, 0x8C, 0x80, 0x41, 0xFF, 0xF0,
    ];
    let e = decode_all(&b).unwrap_err();
    assert!(e.message().contains("encoding algorithm"), "{e}");
}

#[test]
fn depth_limit() {
    let mut body = Vec::new();
    for _ in 0..2000 {
        body.push(se("a"));
    }
    for _ in 0..2000 {
        body.push(ee());
    }
    let b = encode_with(&doc(body), FiOptions::default()).unwrap();
    let e = decode_all(&b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
}

#[test]
fn encoder_rejects_bad_streams() {
    let mut enc = FiEncoder::new(Vec::new());
    use binxml_core::Encoder;
    assert!(enc.write_event(&se("a")).is_err());
    let mut enc = FiEncoder::new(Vec::new());
    enc.write_event(&Event::start_document()).unwrap();
    enc.write_event(&Event::StartElement(QName::new("p", "", "a")))
        .unwrap_err();
}

#[test]
fn internal_subset_comments_and_pis() {
    let ev = doc(vec![
        Event::DocType(DocType {
            name: "r".into(),
            public_id: None,
            system_id: None,
            internal_subset: Some("<!ENTITY é 'x<!--no-->'> <!-- yes --> <?pi data?>".into()),
        }),
        se("r"),
        ee(),
    ]);
    let b = encode_with(&ev, FiOptions::default()).unwrap();
    let back = decode(&b).unwrap();
    assert_eq!(
        back[1],
        Event::DocType(DocType {
            name: "".into(),
            public_id: None,
            system_id: None,
            internal_subset: Some("<?pi data?>".into())
        })
    );
    assert_eq!(back[2], Event::Comment(" yes ".into()));
}

#[test]
fn split_text_pieces() {
    fn split(s: &str) -> Vec<&str> {
        let mut v = Vec::new();
        let mut r = s;
        while !r.is_empty() {
            let n = enc_split_piece(r);
            v.push(&r[..n]);
            r = &r[n..];
        }
        v
    }
    assert_eq!(split(" \n  \n  "), [" \n  ", "\n  "]);
    assert_eq!(
        split("\n\t\t\n\t\t\n      "),
        ["\n\t\t", "\n\t\t", "\n      "]
    );
    assert_eq!(split("\n\n\n  x"), ["\n\n\n  ", "x"]);
    assert_eq!(split("x\ny\nz"), ["x\ny\nz"]);
    assert_eq!(split("\n\n  ab  \n cd"), ["\n\n  ", "ab  \n cd"]);
    // indentation inside text starts at the line break: trailing white space ends the line
    assert_eq!(split("ab  \n    cd"), ["ab  ", "\n    ", "cd"]);
    assert_eq!(split("aa&bb<cc>"), ["aa", "&", "bb", "<", "cc", ">"]);
    assert_eq!(
        split("\n\t\t\tinformation.\n\t\t\t"),
        ["\n\t\t\t", "information.", "\n\t\t\t"]
    );
    assert_eq!(split("a b\n"), ["a b\n"]);
}

#[test]
fn multi_line_text_in_line_pairs() {
    // content with line breaks: chunks of two lines where such a pair can be indexed, longer
    // runs kept whole
    let long = "x".repeat(40);
    let t = format!("\n.\n.\n.\n.\n.\n{long}\n{long}\nab\ncd");
    let ev = doc(vec![se("r"), text(&t), Event::EndElement]);
    let fi = crate::encode_with(&ev, FiOptions::default()).unwrap();
    let chunks: Vec<String> = crate::decode(&fi)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            Event::Characters { text, .. } => Some(text.into_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(
        chunks,
        [
            "\n.\n.",
            "\n.\n.",
            &format!("\n.\n{long}\n{long}\nab"),
            "\ncd"
        ]
    );
    assert_eq!(chunks.concat(), t);
}

fn enc_split_piece(s: &str) -> usize {
    crate::enc::split_piece_for_tests(s.as_bytes())
}

#[test]
fn random_mutations_never_panic() {
    // a small deterministic fuzz: overwrite, insert and delete octets of valid encodings
    let ev = doc(vec![
        Event::Comment("c".into()),
        Event::StartElement(QName::new("p", "urn:a", "root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        attr("a", "1"),
        Event::Typed(Typed::List(vec![Typed::Bool(true), Typed::Bool(false)])),
        Event::Typed(Typed::Double(1.5)),
        se("x"),
        text("hello\n    world & more"),
        ee(),
        se("x"),
        text("hello"),
        ee(),
        Event::EntityReference {
            name: "e".into(),
            public_id: None,
            system_id: Some("s".into()),
        },
        ee(),
    ]);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for opts in [
        FiOptions::default(),
        FiOptions {
            utf16: true,
            numeric_alphabet: true,
            ..Default::default()
        },
    ] {
        let b = encode_with(&ev, opts).unwrap();
        for _ in 0..3000 {
            let mut c = b.clone();
            for _ in 0..(1 + rnd() % 3) {
                let i = (rnd() as usize) % c.len();
                match rnd() % 3 {
                    0 => c[i] = rnd() as u8,
                    1 => c.insert(i, rnd() as u8),
                    _ => {
                        c.remove(i);
                    }
                }
                if c.is_empty() {
                    break;
                }
            }
            if let Err(e) = decode_all(&c) {
                assert!(
                    e.offset().is_some() || e.kind() == ErrorKind::Unsupported,
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn inline_initial_vocabulary() {
    let mut v = sample_vocab();
    // enough entries for a 3-octet sequence length
    v.local_names.extend((0..200).map(|i| format!("l{i}")));
    v.attribute_values.push("a long attribute value".into());
    v.other_strings.push("c".into());
    let v = Arc::new(v);
    let ev = doc(vec![
        Event::StartElement(QName::new("p", "urn:a", "root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:a".into(),
        },
        attr("id", "1"),
        Event::Comment("c".into()),
        se("item"),
        text("hello"),
        ee(),
        se("l150"),
        attr("x", "a long attribute value"),
        ee(),
        ee(),
    ]);
    let b = roundtrip(
        &ev,
        FiOptions {
            initial_vocabulary: Some(v.clone()),
            ..Default::default()
        },
    );
    assert_eq!(b[4], 0x20);
    // with an external vocabulary as well: both sets of tables, external first
    let ext = Arc::new(sample_vocab());
    let opts = FiOptions {
        initial_vocabulary: Some(v),
        external_vocabulary: Some(("urn:x".into(), ext.clone())),
        ..Default::default()
    };
    let b = encode_with(&ev, opts).unwrap();
    let mut vocabs = Vocabularies::new();
    vocabs.insert("urn:x".into(), (*ext).clone());
    let back =
        binxml_core::collect_events(&mut FiDecoder::new(&b).with_vocabularies(&vocabs)).unwrap();
    assert_eq!(back, ev);
}

#[test]
fn encoder_rejects_empty_names() {
    use binxml_core::Encoder;
    for bad in [
        Event::StartElement(QName::local("")),
        Event::ProcessingInstruction {
            target: "".into(),
            data: "x".into(),
        },
    ] {
        let mut enc = FiEncoder::new(Vec::new());
        enc.write_event(&Event::start_document()).unwrap();
        assert_eq!(
            enc.write_event(&bad).unwrap_err().kind(),
            ErrorKind::InvalidEvents
        );
    }
    let mut enc = FiEncoder::new(Vec::new());
    enc.write_event(&Event::start_document()).unwrap();
    enc.write_event(&se("a")).unwrap();
    let e = enc
        .write_event(&Event::Attribute {
            name: QName::local(""),
            value: "v".into(),
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidEvents);
}

/// Random valid event streams through every option combination come back unchanged.
#[test]
fn random_streams_round_trip() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n.max(1)
    };
    let texts = [
        "a",
        "hello world",
        "  x  ",
        "12.5",
        "-3E7 ",
        "2024-01-31T00:00:00Z",
        "日本語",
        "😀 emoji",
        "é",
        "\n  ",
        "a<b&c>d",
        "0123456789012345678901234567890123456789",
    ];
    let names = [
        ("", "", "a"),
        ("", "", "b"),
        ("p", "urn:p", "c"),
        ("", "urn:d", "d"),
        ("q", "urn:p", "a"),
        ("xml", binxml_core::XML_NS, "lang"),
    ];
    for round in 0..300 {
        let props = rnd(2) == 0;
        let opts = FiOptions {
            utf16: rnd(2) == 0,
            numeric_alphabet: rnd(2) == 0,
            date_time_alphabet: rnd(2) == 0,
            max_indexed_attribute_value: [0, 4, 32, 1000][rnd(4) as usize],
            max_indexed_chunk: [0, 4, 32, 1000][rnd(4) as usize],
            xml_declaration: rnd(2) == 0,
            document_properties: props,
            split_text: false,
            ..Default::default()
        };
        let mut ev: Vec<Event<'static>> = vec![if props {
            Event::StartDocument {
                version: Some("1.0".into()),
                encoding: Some("UTF-8".into()),
                standalone: Some(rnd(2) == 0),
            }
        } else {
            Event::start_document()
        }];
        if rnd(3) == 0 {
            ev.push(Event::Comment(
                texts[rnd(texts.len() as u64) as usize].into(),
            ));
        }
        if rnd(3) == 0 {
            ev.push(Event::DocType(DocType {
                name: "".into(),
                public_id: if rnd(2) == 0 {
                    Some("-//P".into())
                } else {
                    None
                },
                system_id: if rnd(2) == 0 {
                    Some("s.dtd".into())
                } else {
                    None
                },
                internal_subset: None,
            }));
            for k in 0..rnd(3) {
                ev.push(Event::Notation {
                    name: format!("n{k}").into(),
                    public_id: None,
                    system_id: Some("sys".into()),
                });
            }
            for k in 0..rnd(3) {
                ev.push(Event::UnparsedEntity {
                    name: format!("u{k}").into(),
                    public_id: if rnd(2) == 0 {
                        Some("pub".into())
                    } else {
                        None
                    },
                    system_id: "x.gif".into(),
                    notation: "n0".into(),
                });
            }
        }
        if rnd(3) == 0 {
            ev.push(Event::ProcessingInstruction {
                target: "pi".into(),
                data: texts[rnd(texts.len() as u64) as usize].into(),
            });
        }
        let mut depth = 0;
        let mut opened = 0;
        loop {
            let r = rnd(10);
            if depth == 0 && opened > 0 {
                break;
            }
            if (r < 3 && depth < 6) || depth == 0 {
                let (p, n, l) = names[rnd(5) as usize];
                ev.push(Event::StartElement(QName::new(p, n, l)));
                if rnd(3) == 0 {
                    ev.push(Event::Namespace {
                        prefix: "p".into(),
                        uri: "urn:p".into(),
                    });
                }
                let mut used = Vec::new();
                for _ in 0..rnd(4) {
                    let k = rnd(names.len() as u64) as usize;
                    if used.contains(&names[k]) {
                        continue;
                    }
                    used.push(names[k]);
                    let (p, n, l) = names[k];
                    ev.push(Event::Attribute {
                        name: QName::new(p, n, l),
                        value: texts[rnd(texts.len() as u64) as usize].into(),
                    });
                }
                depth += 1;
                opened += 1;
                continue;
            }
            match r {
                3 | 4 => ev.push(text(texts[rnd(texts.len() as u64) as usize])),
                5 => ev.push(Event::Typed(match rnd(8) {
                    0 => Typed::Int(rnd(1000) as i64 - 500),
                    1 => Typed::Int(-(1i64 << 40)),
                    2 => Typed::List(vec![
                        Typed::Bool(true),
                        Typed::Bool(rnd(2) == 0),
                        Typed::Bool(false),
                    ]),
                    3 => Typed::Float(1.25),
                    4 => Typed::Double(-0.5),
                    5 => Typed::Base64(Cow::Owned(vec![1, 2, 3, rnd(255) as u8])),
                    6 => Typed::Hex(Cow::Owned(vec![0xAB; 1 + rnd(5) as usize])),
                    _ => Typed::Uuid([rnd(255) as u8; 16]),
                })),
                6 => ev.push(Event::Characters {
                    text: texts[rnd(texts.len() as u64) as usize].into(),
                    cdata: true,
                }),
                7 => ev.push(Event::Comment(
                    texts[rnd(texts.len() as u64) as usize].into(),
                )),
                8 => ev.push(Event::EntityReference {
                    name: "ent".into(),
                    public_id: None,
                    system_id: if rnd(2) == 0 {
                        Some("e.xml".into())
                    } else {
                        None
                    },
                }),
                _ => {
                    ev.push(ee());
                    depth -= 1;
                }
            }
        }
        if rnd(2) == 0 {
            ev.push(Event::ProcessingInstruction {
                target: "end".into(),
                data: "".into(),
            });
        }
        ev.push(Event::EndDocument);
        let b = encode_with(&ev, opts.clone()).unwrap_or_else(|e| panic!("round {round}: {e}"));
        let back = decode(&b).unwrap_or_else(|e| panic!("round {round}: {e} {opts:?}"));
        // adjacent text events may come back as they went in (no splitting): compare directly
        assert_eq!(back, ev, "round {round} {opts:?}");
        let streamed = binxml_core::collect_events(&mut FiReadDecoder::new(&b[..])).unwrap();
        assert_eq!(streamed, ev, "round {round} (reader)");
    }
}

/// The text of the items `i` in a decoded document, chunks joined.
fn item_texts(ev: &[Event<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for e in ev {
        match e {
            Event::StartElement(q) if q.local == "i" => cur = Some(String::new()),
            Event::Characters { text, .. } => {
                if let Some(c) = cur.as_mut() {
                    c.push_str(text)
                }
            }
            Event::EndElement => {
                if let Some(c) = cur.take() {
                    out.push(c)
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn long_text_repeated_becomes_an_index() {
    // 40 characters: too long for the table by the length rule
    let t = "a sentence of forty characters, repeated";
    let items = |n: usize| {
        let mut body = vec![se("r")];
        for _ in 0..n {
            body.extend([se("i"), text(t), ee()]);
        }
        body.push(ee());
        doc(body)
    };
    let three = encode_with(&items(3), FiOptions::default()).unwrap();
    let ten = encode_with(&items(10), FiOptions::default()).unwrap();
    // the first two sightings are literals, the third is added, the rest are indexes: seven
    // more items cost a few octets each (element index, chunk index, end), not 40
    assert!(
        ten.len() - three.len() <= 7 * 4,
        "{} -> {}",
        three.len(),
        ten.len()
    );
    assert_eq!(item_texts(&decode(&ten).unwrap()), vec![t.to_string(); 10]);
    // without splitting each item is a literal, as the reference writes it
    let plain = encode_with(&items(10), FiOptions::default().with_split_text(false)).unwrap();
    assert!(plain.len() > ten.len() + 7 * 30);
}

#[test]
fn astral_characters_cut_long_text_into_indexable_pieces() {
    let parts = ["Launch window", "Telemetry check", "Weather hold"];
    let mut body = vec![se("r")];
    let mut expected = Vec::new();
    for k in 0..30 {
        // different whole texts, longer than the limit, made of repeated pieces
        let t = format!(
            "{} \u{1F680} {} \u{1F6F0} {}",
            parts[k % 3],
            parts[(k / 3) % 3],
            parts[(k / 9) % 3]
        );
        body.extend([se("i"), text(&t), ee()]);
        expected.push(t);
    }
    body.push(ee());
    let ev = doc(body);
    let split = encode_with(&ev, FiOptions::default()).unwrap();
    let plain = encode_with(&ev, FiOptions::default().with_split_text(false)).unwrap();
    assert_eq!(item_texts(&decode(&split).unwrap()), expected);
    // 30 texts of 45 octets as literals, against pieces that are indexes after their first use
    assert!(
        split.len() * 3 < plain.len(),
        "{} vs {}",
        split.len(),
        plain.len()
    );
}
