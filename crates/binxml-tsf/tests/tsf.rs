//! The TSF codec on its own: the examples of the TSF paper (Evans 2020), names, text, CDATA,
//! entity references and namespaces, the JSON vocabulary, navigation of the TAM tree, UTF-16
//! lengths, hostile input (never a panic) and decoder offsets.

use std::borrow::Cow;

use binxml_core::{Decoder, DocType, ErrorKind, Event, Limits, QName, Typed};
use binxml_tsf::{JSON_NS, Tam, TsfDecoder, TsfOptions, UnitKind, decode, decode_with, encode};

fn el(name: &str) -> Event<'static> {
    Event::StartElement(QName::local(name.to_string()))
}
fn end() -> Event<'static> {
    Event::EndElement
}
fn text(s: &str) -> Event<'static> {
    Event::text(s.to_string())
}
fn attr(n: &str, v: &str) -> Event<'static> {
    Event::Attribute {
        name: QName::local(n.to_string()),
        value: Cow::Owned(v.to_string()),
    }
}
fn pi(t: &str, d: &str) -> Event<'static> {
    Event::ProcessingInstruction {
        target: t.to_string().into(),
        data: d.to_string().into(),
    }
}
fn comment(s: &str) -> Event<'static> {
    Event::Comment(s.to_string().into())
}
fn doc(mut body: Vec<Event<'static>>) -> Vec<Event<'static>> {
    body.insert(0, Event::start_document());
    body.push(Event::EndDocument);
    body
}

fn tsf(events: &[Event<'_>]) -> String {
    String::from_utf8(encode(events).unwrap()).unwrap()
}

/// Encodes, checks the bytes, decodes (streaming and through TAM), checks the events.
fn check(events: Vec<Event<'static>>, expect: &str) {
    assert_eq!(tsf(&events), expect);
    assert_eq!(
        decode(expect.as_bytes()).unwrap(),
        events,
        "decoding {expect}"
    );
    let tam = Tam::parse(expect.as_bytes()).unwrap();
    let back: Vec<Event<'static>> = binxml_core::collect_events(&mut tam.events())
        .unwrap()
        .into_iter()
        .map(|e| e.into_owned())
        .collect();
    assert_eq!(back, events, "TAM events of {expect}");
}

#[test]
fn paper_empty_element() {
    check(doc(vec![el("project"), end()]), "0project<");
}

#[test]
fn paper_root_message() {
    check(
        doc(vec![
            pi("peri", "rset"),
            comment("Introduction"),
            el("project"),
            text("content"),
            end(),
            comment("Epilog"),
            pi("peri", "sset"),
        ]),
        "5=9?peri rset12+Introduction1project<7[content6+Epilog9?peri sset",
    );
}

#[test]
fn paper_figure5_doctype() {
    let dt = DocType {
        name: "doc".into(),
        internal_subset: Some("<!ELEMENT doc (#PCDATA)>\n".into()),
        ..Default::default()
    };
    let ev = doc(vec![
        comment(" comment "),
        Event::DocType(dt),
        el("doc"),
        end(),
    ]);
    assert_eq!(
        decode(b"3=9+ comment 31!doc [<!ELEMENT doc (#PCDATA)>\n]0doc<").unwrap(),
        ev
    );
    // The encoder drops the white space between the internal subset's declarations.
    let compact = DocType {
        name: "doc".into(),
        internal_subset: Some("<!ELEMENT doc (#PCDATA)>".into()),
        ..Default::default()
    };
    check(
        doc(vec![
            comment(" comment "),
            Event::DocType(compact),
            el("doc"),
            end(),
        ]),
        "3=9+ comment 30!doc [<!ELEMENT doc (#PCDATA)>]0doc<",
    );
    assert_eq!(
        tsf(&ev),
        "3=9+ comment 30!doc [<!ELEMENT doc (#PCDATA)>]0doc<"
    );
}

#[test]
fn paper_namespaces() {
    let ns = |l: &str| Event::StartElement(QName::new("ns", "urn:foo", l.to_string()));
    check(
        doc(vec![
            ns("personnel"),
            Event::Namespace {
                prefix: "ns".into(),
                uri: "urn:foo".into(),
            },
            ns("person"),
            attr("id", "Boss"),
            end(),
            ns("person"),
            attr("id", "worker"),
            end(),
            end(),
        ]),
        "3ns:personnel<1=7xmlns:ns[urn:foo1ns:person<1=4id[Boss1ns:person<1=6id[worker",
    );
}

#[test]
fn attributes_count_in_the_element() {
    check(
        doc(vec![
            el("a"),
            attr("x", "1"),
            attr("y", ""),
            el("b"),
            end(),
            text("t"),
            end(),
        ]),
        "3a<2=1x[10y[0b<1[t",
    );
}

#[test]
fn quoted_names() {
    // Names with type characters or a leading digit (not XML, but any event name).
    check(
        doc(vec![el("1a"), attr("x<y", "v"), end()]),
        "1\"1a<1=1\"x\\<y[v",
    );
}

#[test]
fn cdata_entity_refs_and_non_ascii() {
    check(
        doc(vec![
            el("r"),
            Event::Characters {
                text: "a<b".into(),
                cdata: true,
            },
            text("é€😀"),
            Event::EntityReference {
                name: "ent".into(),
                public_id: None,
                system_id: None,
            },
            end(),
        ]),
        "3r<3]a<b9[é€😀3&ent",
    );
}

#[test]
fn adjacent_text_is_merged_and_typed_is_text() {
    let ev = doc(vec![
        el("r"),
        text("ab"),
        text("cd"),
        Event::Typed(Typed::Int(42)),
        end(),
    ]);
    assert_eq!(tsf(&ev), "1r<6[abcd42");
}

#[test]
fn whitespace_outside_the_root_is_dropped() {
    let ev = doc(vec![text("\n"), el("r"), end(), text("\n")]);
    assert_eq!(tsf(&ev), "0r<");
}

#[test]
fn missing_namespace_declarations_are_added() {
    let ev = doc(vec![
        Event::StartElement(QName::new("p", "urn:p", "r")),
        Event::Attribute {
            name: QName::new("q", "urn:q", "a"),
            value: "v".into(),
        },
        Event::StartElement(QName::new("", "urn:d", "c")),
        end(),
        end(),
    ]);
    let out = tsf(&ev);
    assert_eq!(
        out,
        "2p:r<3=5xmlns:q[urn:q1q:a[v5xmlns:p[urn:p1c<1=5xmlns[urn:d"
    );
    let back = decode(out.as_bytes()).unwrap();
    assert_eq!(back[1], Event::StartElement(QName::new("p", "urn:p", "r")));
    assert!(back.contains(&Event::Attribute {
        name: QName::new("q", "urn:q", "a"),
        value: "v".into()
    }));
    assert!(back.contains(&Event::StartElement(QName::new("", "urn:d", "c"))));
}

fn json_events(s: &str) -> Vec<Event<'static>> {
    // Hand-built JSON mapping for {"a":[1,"x",true,null],"1 b":{}}
    let _ = s;
    let j = |l: &str| Event::StartElement(QName::new("", JSON_NS, l.to_string()));
    let t = |v: &str| attr("t", v);
    vec![
        Event::start_document(),
        j("json"),
        Event::Namespace {
            prefix: "".into(),
            uri: JSON_NS.into(),
        },
        t("object"),
        j("a"),
        t("array"),
        j("item"),
        t("number"),
        Event::Typed(Typed::Number("1".into())),
        end(),
        j("item"),
        text("x"),
        end(),
        j("item"),
        t("boolean"),
        Event::Typed(Typed::Bool(true)),
        end(),
        j("item"),
        t("null"),
        Event::Typed(Typed::Null),
        end(),
        end(),
        j("u0031u0020b"),
        t("object"),
        attr("key", "1 b"),
        end(),
        end(),
        Event::EndDocument,
    ]
}

#[test]
fn json_vocabulary() {
    check(json_events(""), "2{4a[1#11'x4~true4~null0\"1 b{");
}

#[test]
fn json_scalar_root_and_empty_document() {
    let j = Event::StartElement(QName::new("", JSON_NS, "json"));
    let ns = Event::Namespace {
        prefix: "".into(),
        uri: JSON_NS.into(),
    };
    check(doc(vec![j.clone(), ns.clone(), text("hi"), end()]), "2'hi");
    check(doc(vec![j, ns, attr("t", "array"), end()]), "0[");
    check(doc(vec![]), "0=");
    check(doc(vec![comment("c")]), "1=1+c");
}

#[test]
fn tam_navigation() {
    let input = b"2=3+top4root<2=1a[13b[two5[hello1child<1=1id[x0child<";
    let tam = Tam::parse(input).unwrap();
    assert_eq!(tam.items().len(), 2);
    let root = tam.root().unwrap();
    assert_eq!(root.kind(), UnitKind::Element);
    assert_eq!(root.name(), "root");
    assert_eq!(root.attribute("a"), Some("1"));
    assert_eq!(root.attribute("b"), Some("two"));
    assert_eq!(root.attributes().count(), 2);
    assert_eq!(root.text(), "hello");
    assert_eq!(root.children().count(), 3);
    assert_eq!(root.children_named("child").count(), 2);
    let c = root.child("child").unwrap();
    assert_eq!(c.attribute("id"), Some("x"));
    assert_eq!(c.parent().unwrap(), root);
    assert_eq!(root.parent(), None);
    assert_eq!(root.find("child").unwrap(), c);
    assert_eq!(root.find_all("child").count(), 2);
    assert_eq!(root.elements().count(), 2);
    // Local-name matching, as in binxml-tree.
    let tam2 = Tam::parse(b"2p:r<2=5xmlns:p[urn:x1p:a[10p:c<").unwrap();
    let r2 = tam2.root().unwrap();
    assert_eq!(r2.local_name(), "r");
    assert_eq!(r2.attribute("a"), Some("1"));
    assert_eq!(r2.attribute("p:a"), Some("1"));
    assert!(r2.child("c").is_some() && r2.child("p:c").is_some() && r2.child("q:c").is_none());
    assert_eq!(tam.len(), 2 + 4 + 2 + 1 + 1);
    // Names and values point into the input.
    let v = root.attribute("b").unwrap();
    let range = input.as_ptr_range();
    assert!(range.contains(&v.as_ptr()));
}

#[test]
fn tam_json_navigation() {
    let input = b"2{4a[1#11'x4~true4~null0\"1 b{";
    let tam = Tam::parse(input).unwrap();
    assert!(tam.is_json());
    let root = tam.root().unwrap();
    assert_eq!(root.kind(), UnitKind::Object);
    let a = root.child("a").unwrap();
    assert_eq!(a.kind(), UnitKind::Array);
    let vals: Vec<_> = a.children().map(|n| (n.kind(), n.value())).collect();
    assert_eq!(
        vals,
        vec![
            (UnitKind::Number, "1"),
            (UnitKind::String, "x"),
            (UnitKind::Literal, "true"),
            (UnitKind::Literal, "null")
        ]
    );
    assert_eq!(root.child("1 b").unwrap().kind(), UnitKind::Object);
}

#[test]
fn utf16_lengths_option() {
    // "é😀" is 3 UTF-16 units, 6 UTF-8 bytes.
    let input = "1r<3[é😀".as_bytes();
    let ev = decode_with(input, TsfOptions::reference()).unwrap();
    assert_eq!(ev[2], text("é😀"));
    assert!(decode(input).is_err());
    let tam = Tam::parse_with(input, TsfOptions::reference()).unwrap();
    assert_eq!(tam.root().unwrap().text(), "é😀");
    // A UTF-16 length ending inside a surrogate pair.
    assert!(decode_with("1r<2[é😀".as_bytes(), TsfOptions::reference()).is_err());
}

fn decode_err(input: &[u8]) -> binxml_core::Error {
    let e1 = decode(input).expect_err(&String::from_utf8_lossy(input));
    let e2 = Tam::parse(input).err().unwrap_or_else(|| {
        // The TAM may accept what only the event layer rejects (vocabulary rules).
        binxml_core::collect_events(&mut Tam::parse(input).unwrap().events())
            .map(|_| ())
            .unwrap_err()
    });
    assert!(
        e1.offset().is_some() && e2.offset().is_some(),
        "{e1} / {e2}"
    );
    e1
}

#[test]
fn hostile_input() {
    let cases: &[(&[u8], u64)] = &[
        (b"", 0),
        (b"5project<", 0),                   // count past the input
        (b"1r<99[abc", 3),                   // length past the input
        (b"1r<99999999999999999999999[", 3), // digit overflow
        (b"1r<184467440737095516160[", 3),   // overflow of u64
        (b"1r<3", 0),                        // count past the input
        (b"2=1+a3", 6),                      // missing type character
        (b"2=1+a3abc", 6),                   // name runs to the end
        (b"x", 0),                           // no digits
        (b"0r<junk", 3),                     // trailing data
        (b"0r<\n x", 5),                     // trailing data after white space
        (b"1r<1=1[v", 5),                    // attribute without a name (offset of the attribute)
        (b"2r<1[a1=1a[v", 6),                // attribute list not first
        (b"1r<2#12", 3),                     // JSON unit in XML
        (b"1{1a<", 2),                       // XML unit in JSON
        (b"1{1a#x", 2),                      // bad number
        (b"1{4a~nope", 2),                   // bad literal
        (b"1p:r<0[", 0),                     // undeclared prefix
        (b"1\"r\\", 1),                      // quoted name runs off the end
        (b"1r<2[\xc3\xa9", 3),               // fine in bytes...
    ];
    for &(input, off) in &cases[..cases.len() - 1] {
        let e = decode_err(input);
        assert_eq!(
            e.offset(),
            Some(off),
            "{:?}: {e}",
            String::from_utf8_lossy(input)
        );
    }
    // Data ending inside a UTF-8 character.
    let e = decode_err(b"1r<1[\xc3\xa9");
    assert_eq!(e.offset(), Some(6));
    // Invalid UTF-8.
    let e = decode_err(b"1r<2[\xff\xfe");
    assert_eq!(e.offset(), Some(5));
    // Depth.
    let mut deep = Vec::new();
    for _ in 0..2000 {
        deep.extend_from_slice(b"1a<");
    }
    deep.extend_from_slice(b"0a<");
    let e = decode_err(&deep);
    assert_eq!(e.kind(), ErrorKind::Limit);
    let mut jdeep = Vec::new();
    for _ in 0..5000 {
        jdeep.extend_from_slice(b"1[");
    }
    jdeep.extend_from_slice(b"0[");
    assert_eq!(decode_err(&jdeep).kind(), ErrorKind::Limit);
    // String length.
    let long = format!("1r<3000[{}", "x".repeat(3000));
    let small = TsfOptions::default().with_limits(Limits::default().with_max_string_len(1000));
    for r in [
        decode_with(long.as_bytes(), small.clone()).map(|_| ()),
        Tam::parse_with(long.as_bytes(), small.clone()).map(|_| ()),
    ] {
        let e = r.unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Limit, Some(3)));
    }
    let long_name = format!("0{}<", "n".repeat(3000));
    assert_eq!(
        decode_with(long_name.as_bytes(), small).unwrap_err().kind(),
        ErrorKind::Limit
    );
    assert!(decode(long.as_bytes()).is_ok());
    // Raised limits accept it.
    let opts = TsfOptions::default().with_limits(Limits::default().with_max_depth(10_000));
    assert!(decode_with(&deep, opts.clone()).is_ok());
    assert!(Tam::parse_with(&deep, opts).is_ok());
}

#[test]
fn hostile_input_fuzz_never_panics() {
    // Mutations of valid documents: every prefix, and byte flips.
    let seeds: &[&[u8]] = &[
        b"5=9?peri rset12+Introduction1project<7[content6+Epilog9?peri sset",
        b"3ns:personnel<1=7xmlns:ns[urn:foo1ns:person<1=4id[Boss1ns:person<1=6id[worker",
        b"2{4a[1#11'x4~true4~null0\"1 b{",
        b"3=9+ comment 31!doc [<!ELEMENT doc (#PCDATA)>\n]0doc<",
    ];
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for s in seeds {
        for cut in 0..s.len() {
            let _ = decode(&s[..cut]);
            let _ = Tam::parse(&s[..cut])
                .map(|t| binxml_core::collect_events(&mut t.events()).map(|_| ()));
        }
        for _ in 0..3000 {
            let mut m = s.to_vec();
            for _ in 0..1 + next() % 3 {
                let i = (next() as usize) % m.len();
                let alphabet = b"0123456789<=[]!+?&{'#~\"\\ax";
                m[i] = alphabet[(next() as usize) % alphabet.len()];
            }
            let _ = decode(&m);
            let _ = decode_with(&m, TsfOptions::reference());
            if let Ok(t) = Tam::parse(&m) {
                let _ = binxml_core::collect_events(&mut t.events());
                if let Some(r) = t.root() {
                    let _ = r.descendants().count();
                    let _ = r.text();
                }
            }
        }
    }
}

#[test]
fn trailing_white_space_is_allowed() {
    assert_eq!(
        decode(b"0project<\n").unwrap(),
        doc(vec![el("project"), end()])
    );
    assert_eq!(Tam::parse(b"0project<\r\n").unwrap().len(), 1);
}

#[test]
fn decoder_offsets() {
    let input = b"5=9?peri rset12+Introduction1project<7[content6+Epilog9?peri sset";
    let mut d = TsfDecoder::new(input);
    let mut offs = Vec::new();
    while let Some(ev) = d.next_event().unwrap() {
        offs.push((ev.kind(), d.offset()));
    }
    assert_eq!(offs[1], ("PI", 2));
    assert_eq!(offs[2], ("Comment", 13));
    assert_eq!(offs[3], ("StartElement", 28));
}

#[test]
fn nameless_doctype_takes_the_root_name() {
    let dt = DocType {
        name: "".into(),
        system_id: Some("a.dtd".into()),
        ..Default::default()
    };
    let ev = doc(vec![Event::DocType(dt), comment("c"), el("root"), end()]);
    let out = tsf(&ev);
    assert_eq!(out, "3=19!root SYSTEM \"a.dtd\"1+c0root<");
    let back = decode(out.as_bytes()).unwrap();
    assert_eq!(
        back[1],
        Event::DocType(DocType {
            name: "root".into(),
            system_id: Some("a.dtd".into()),
            ..Default::default()
        })
    );
    // No root element at all: it stays nameless.
    let ev = doc(vec![Event::DocType(DocType {
        name: "".into(),
        ..Default::default()
    })]);
    assert_eq!(tsf(&ev), "1=0!");
}
