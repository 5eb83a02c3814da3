//! The schema-informed encoder's `write_tape` (which holds the pending text and the open start
//! tag's attributes borrowed from the tape) writes what `write_events` and `write_event` one
//! event at a time write: the same bytes, or the same error, for documents with attributes in
//! any order, xsi:type and xsi:nil, mixed and typed content, text split by comments and
//! processing instructions, CDATA, whitespace between tags, and events whose strings are owned.

use std::borrow::Cow;
use std::sync::Arc;

use binxml_core::{Encoder, Event, QName, Tape};
use binxml_exi::ExiOptions;
use binxml_exi::informed::{SchemaEncoder, SchemaGrammars};
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::scratch_dir;

const XSD: &str = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t"
    xmlns:t="urn:t" elementFormDefault="qualified">
  <xs:complexType name="base">
    <xs:sequence><xs:element name="v" type="xs:decimal" minOccurs="0"/></xs:sequence>
    <xs:attribute name="b" type="xs:int"/>
    <xs:attribute name="a" type="xs:string"/>
  </xs:complexType>
  <xs:complexType name="derived">
    <xs:complexContent><xs:extension base="t:base">
      <xs:sequence><xs:element name="w" type="xs:date" minOccurs="0"/></xs:sequence>
    </xs:extension></xs:complexContent>
  </xs:complexType>
  <xs:complexType name="mixed" mixed="true">
    <xs:sequence><xs:element name="i" type="xs:string" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
  </xs:complexType>
  <xs:element name="doc">
    <xs:complexType><xs:sequence>
      <xs:element name="item" type="t:base" nillable="true" maxOccurs="unbounded"/>
      <xs:element name="note" type="t:mixed" minOccurs="0"/>
      <xs:element name="n" type="xs:integer" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
    <xs:attribute name="z" type="xs:string"/>
    <xs:attribute name="c" type="xs:boolean"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"###;

const DOCS: &[&str] = &[
    r#"<t:doc xmlns:t="urn:t" z="last" c="true">
  <t:item b="2" a="x"><t:v> 1.50 </t:v></t:item>
  <t:item a="y" b="nope"/>
  <t:item xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="t:derived" b="3"><t:v>-0.0</t:v><t:w>2020-02-29</t:w></t:item>
  <t:item xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/>
  <t:note>one <!-- c --> two<?p d?> three<t:i>four</t:i>  <![CDATA[five]]> </t:note>
  <t:n>12<!-- split -->34</t:n>
  <t:n> 7 </t:n>
  <u:other xmlns:u="urn:u" u:q="1" p="2">text<u:deep/> </u:other>
</t:doc>"#,
    r#"<?xml version="1.0"?>
<!-- before -->
<t:doc xmlns:t="urn:t"><t:item><t:v>3</t:v></t:item>   <t:n>99999999999999999999999</t:n></t:doc>
<!-- after -->"#,
];

const MODES: &[&str] = &[
    "",
    "drop-whitespace",
    "strict",
    "comments,pis",
    "prefixes",
    "lexical,prefixes",
    "pre-compression",
    "compression",
    "byte-aligned",
    "value-max-length=2",
];

/// `test` names the scratch directory: the tests run in parallel, and each clears its own.
fn grammars(test: &str) -> Arc<SchemaGrammars> {
    let dir = scratch_dir(&format!("informed_tape-{test}"));
    let xsd = dir.join("t.xsd");
    std::fs::write(&xsd, XSD).unwrap();
    let s = Schema::load_with(&xsd, &LoadOptions::default()).unwrap();
    Arc::new(SchemaGrammars::new(Arc::new(s)).unwrap())
}

/// The events with every string owned (as a decoder that unescapes hands them on).
fn owned(events: &[Event<'_>]) -> Vec<Event<'static>> {
    let own = |s: &Cow<'_, str>| Cow::Owned(s.to_string());
    let q = |n: &QName<'_>| QName {
        prefix: own(&n.prefix),
        namespace: own(&n.namespace),
        local: own(&n.local),
    };
    events
        .iter()
        .map(|e| match e {
            Event::StartElement(n) => Event::StartElement(q(n)),
            Event::Attribute { name, value } => Event::Attribute {
                name: q(name),
                value: own(value),
            },
            Event::Characters { text, cdata } => Event::Characters {
                text: own(text),
                cdata: *cdata,
            },
            e => e.clone().into_owned(),
        })
        .collect()
}

fn run(
    g: &Arc<SchemaGrammars>,
    o: &ExiOptions,
    write: impl FnOnce(&mut SchemaEncoder<Vec<u8>>) -> binxml_core::Result<()>,
) -> Result<Vec<u8>, String> {
    let mut e =
        SchemaEncoder::new(Vec::new(), Arc::clone(g), o.clone()).map_err(|e| e.to_string())?;
    write(&mut e).map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())?;
    Ok(e.into_inner())
}

fn same_through_every_entry_point(g: &Arc<SchemaGrammars>, events: &[Event<'_>], what: &str) {
    let tape = Tape::from_events(events);
    for mode in MODES {
        let o = ExiOptions::default().parse_text(mode).unwrap();
        let by_events = run(g, &o, |e| e.write_events(events));
        let by_event = run(g, &o, |e| {
            events.iter().try_for_each(|ev| e.write_event(ev))
        });
        let by_tape = run(g, &o, |e| e.write_tape(&tape));
        assert_eq!(by_events, by_event, "{what} [{mode}]: write_event");
        assert_eq!(by_events, by_tape, "{what} [{mode}]: write_tape");
    }
}

#[test]
fn write_tape_writes_what_write_events_writes() {
    let g = grammars("writes");
    let mut written = 0;
    for (i, doc) in DOCS.iter().enumerate() {
        let events = binxml_xml::decode(doc.as_bytes()).unwrap();
        same_through_every_entry_point(&g, &events, &format!("doc {i}"));
        same_through_every_entry_point(&g, &owned(&events), &format!("doc {i}, owned"));
        // Tape halves: the first part written from a tape, the rest event by event (what the
        // sink holds handed to the encoder's own buffers at the end of `write_tape`).
        for cut in [3, events.len() / 2, events.len() - 2] {
            let tape = Tape::from_events(&events[..cut]);
            for mode in MODES {
                let o = ExiOptions::default().parse_text(mode).unwrap();
                let whole = run(&g, &o, |e| e.write_events(&events));
                let split = run(&g, &o, |e| {
                    e.write_tape(&tape)?;
                    events[cut..].iter().try_for_each(|ev| e.write_event(ev))
                });
                assert_eq!(whole, split, "doc {i} [{mode}] cut at {cut}");
                written += usize::from(whole.is_ok());
            }
        }
    }
    assert!(written > 0, "no document was written");
}

#[test]
fn write_tape_fails_as_write_events_fails() {
    let g = grammars("fails");
    let events = binxml_xml::decode(DOCS[1].as_bytes()).unwrap();
    let start = events
        .iter()
        .rposition(|e| matches!(e, Event::StartElement(_)))
        .unwrap();
    let attr = Event::Attribute {
        name: QName::local("late"),
        value: Cow::Borrowed("1"),
    };
    // An attribute after content; an end tag too many; a second root element.
    let mut late = events.clone();
    late.insert(start + 2, attr.clone());
    let mut unbalanced = events.clone();
    unbalanced.insert(start + 1, Event::EndElement);
    unbalanced.insert(start + 1, Event::EndElement);
    unbalanced.insert(start + 1, Event::EndElement);
    let mut second_root = events.clone();
    let end = second_root.len() - 1;
    second_root.insert(end, Event::StartElement(QName::local("again")));
    let mut text_out = events.clone();
    text_out.insert(1, Event::text("outside"));
    for (what, evs) in [
        ("late attribute", late),
        ("unbalanced", unbalanced),
        ("second root", second_root),
        ("text outside", text_out),
    ] {
        same_through_every_entry_point(&g, &evs, what);
        let o = ExiOptions::default();
        let r = run(&g, &o, |e| e.write_tape(&Tape::from_events(&evs)));
        assert!(r.is_err(), "{what}: written");
    }
}
