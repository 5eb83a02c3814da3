//! The XML writer never writes a document that an XML parser refuses: random event streams
//! (names, strings, namespaces and DOCTYPEs drawn with a few of everything XML cannot hold) go
//! through the writer; whatever it writes must be read by binxml, by Python's expat (with
//! namespaces) and, where the machine has it, by libxml2 (`binxml_testkit::XmlParsers`).
//! Refusing a stream is allowed, but many must be written. (The corpus documents, decoded from
//! every format, are covered by the facade's `tests/xml_writer_output.rs`.)

use std::cell::{Cell, RefCell};

use binxml_core::{DocType, Event, QName, XML_NS, XMLNS_NS};
use binxml_testkit::{XmlParsers, scratch_dir};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn pick<T: Clone + std::fmt::Debug + 'static>(items: &[T]) -> impl Strategy<Value = T> + use<T> {
    proptest::sample::select(items.to_vec())
}

// Each stream holds many names and strings: what XML cannot hold is drawn rarely, so that
// most streams can be written and the writer's output, not only its refusals, is tested.

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        40 => pick(&["a", "b", "x1", "_n", "a.b", "\u{e9}t\u{e9}", "a-\u{300}"]).prop_map(String::from),
        1 => "[a-c1:\u{e9}\u{d7}\u{b7} <>&-]{0,4}",
    ]
}

fn prefix() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => pick(&["", "p", "q"]).prop_map(String::from),
        1 => pick(&["xml", "xmlns", "1", "a:b"]).prop_map(String::from),
    ]
}

fn namespace() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => pick(&["", "urn:a", "urn:b"]).prop_map(String::from),
        1 => pick(&[XML_NS, XMLNS_NS, "u\u{1}"]).prop_map(String::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        40 => "[a<>&\\]\r\n\t \"'\u{e9}-]{0,8}",
        1 => "[x\u{0}\u{1}\u{fffe}\u{10000}]{0,3}",
        2 => pick(&["]]>", "--", "-", "?>", "&amp;", "\r\n"]).prop_map(String::from),
    ]
}

/// A prefix and a namespace: mostly the pairs a real document has, sometimes any two.
fn binding() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        20 => pick(&[("", ""), ("p", "urn:a"), ("q", "urn:b"), ("", "urn:a")])
            .prop_map(|(p, u)| (p.to_string(), u.to_string())),
        1 => (prefix(), namespace()),
    ]
}

fn qname() -> impl Strategy<Value = QName<'static>> {
    (binding(), name()).prop_map(|((p, n), l)| QName::new(p, n, l))
}

#[derive(Clone, Debug)]
enum Node {
    Element {
        name: QName<'static>,
        namespaces: Vec<(String, String)>,
        attributes: Vec<(QName<'static>, String)>,
        children: Vec<Node>,
    },
    Text(String, bool),
    Comment(String),
    Pi(String, String),
    Reference(String),
}

fn misc() -> impl Strategy<Value = Node> {
    prop_oneof![
        text().prop_map(Node::Comment),
        (name(), text()).prop_map(|(t, d)| Node::Pi(t, d)),
        pick(&[" ", "\n", "\r\n", "\t"]).prop_map(|s| Node::Text(s.into(), false)),
    ]
}

fn declarations() -> impl Strategy<Value = Vec<(String, String)>> {
    prop_oneof![
        3 => Just(Vec::new()),
        1 => prop::collection::vec(binding(), 1..3),
    ]
}

fn element_of(children: BoxedStrategy<Vec<Node>>) -> impl Strategy<Value = Node> {
    (
        qname(),
        declarations(),
        prop::collection::vec((qname(), text()), 0..4),
        children,
    )
        .prop_map(|(name, namespaces, attributes, children)| Node::Element {
            name,
            namespaces,
            attributes,
            children,
        })
}

/// Content: elements nested a few levels, text, comments, processing instructions, references.
fn content() -> impl Strategy<Value = Vec<Node>> {
    let leaf = prop_oneof![
        12 => (text(), any::<bool>()).prop_map(|(t, c)| Node::Text(t, c)),
        3 => misc(),
        1 => pick(&["e", "f", "lt", "u", "a:b", "1"]).prop_map(|s| Node::Reference(s.into())),
    ];
    let node = leaf.prop_recursive(3, 24, 4, |inner| {
        element_of(prop::collection::vec(inner, 0..4).boxed())
    });
    prop::collection::vec(node, 0..5)
}

fn doctype() -> impl Strategy<Value = Option<(DocType<'static>, Vec<Event<'static>>)>> {
    let subset = pick(&[
        None,
        None,
        None,
        Some(""),
        Some("<!ENTITY e 'x'>"),
        Some("<!ENTITY e '<b>&#60;'><!ENTITY u SYSTEM 'u.ent'>"),
        Some("<!ENTITY u SYSTEM 'u.ent#f'>"),
        Some("<!ELEMENT a ANY><!ATTLIST a d CDATA 'v'>"),
        Some("<!ELEMENT a (b|c,d)>"),
        Some("<!ENTITY % p ''>%p;"),
        Some("]><x/><!--"),
        Some("<!NOTATION n PUBLIC 'p'>"),
    ]);
    let ids = (
        prop_oneof![
            9 => pick(&[None, Some("-//A//B"), Some("x.dtd")]),
            1 => Just(Some("p{")),
        ],
        prop_oneof![
            9 => pick(&[None, Some("s.dtd"), Some("")]),
            1 => pick(&[Some("a'b\"c"), Some("s.dtd#f")]),
        ],
    );
    let notations = prop::collection::vec(
        (
            pick(&["n", "m", "1"]),
            pick(&[None, Some("-//N//N"), Some("\"")]),
        ),
        0..2,
    );
    let name = prop_oneof![9 => pick(&["", "a"]), 1 => Just("b c")];
    prop::option::of((name, ids, subset, notations)).prop_map(|d| {
        d.map(|(name, (public_id, system_id), subset, notations)| {
            let d = DocType {
                name: name.into(),
                public_id: public_id.map(Into::into),
                system_id: system_id.map(Into::into),
                internal_subset: subset.map(Into::into),
            };
            let notations = notations
                .into_iter()
                .map(|(n, p)| Event::Notation {
                    name: n.into(),
                    public_id: p.map(Into::into),
                    system_id: Some("n.bin".into()),
                })
                .collect();
            (d, notations)
        })
    })
}

fn document() -> impl Strategy<Value = Vec<Event<'static>>> {
    (
        prop_oneof![
            19 => pick(&[None, Some("1.0"), Some("1.1")]),
            1 => pick(&[Some("2.0"), Some("1.x")]),
        ],
        pick(&[None, Some(true), Some(false)]),
        prop::collection::vec(misc(), 0..2),
        doctype(),
        prop::collection::vec(misc(), 0..2),
        element_of(content().boxed()),
        prop::collection::vec(misc(), 0..2),
    )
        .prop_map(|(version, standalone, pre, doctype, mid, root, post)| {
            let mut ev = vec![Event::StartDocument {
                version: version.map(Into::into),
                encoding: None,
                standalone,
            }];
            for n in &pre {
                flatten(n, &mut ev);
            }
            if let Some((d, notations)) = doctype {
                ev.push(Event::DocType(d));
                ev.extend(notations);
            }
            for n in mid.iter().chain([&root]).chain(&post) {
                flatten(n, &mut ev);
            }
            ev.push(Event::EndDocument);
            ev
        })
}

fn flatten(n: &Node, ev: &mut Vec<Event<'static>>) {
    match n {
        Node::Element {
            name,
            namespaces,
            attributes,
            children,
        } => {
            ev.push(Event::StartElement(name.clone()));
            for (p, u) in namespaces {
                ev.push(Event::Namespace {
                    prefix: p.clone().into(),
                    uri: u.clone().into(),
                });
            }
            for (name, value) in attributes {
                ev.push(Event::Attribute {
                    name: name.clone(),
                    value: value.clone().into(),
                });
            }
            for c in children {
                flatten(c, ev);
            }
            ev.push(Event::EndElement);
        }
        Node::Text(t, cdata) => ev.push(Event::Characters {
            text: t.clone().into(),
            cdata: *cdata,
        }),
        Node::Comment(c) => ev.push(Event::Comment(c.clone().into())),
        Node::Pi(t, d) => ev.push(Event::ProcessingInstruction {
            target: t.clone().into(),
            data: d.clone().into(),
        }),
        Node::Reference(r) => ev.push(Event::EntityReference {
            name: r.clone().into(),
            public_id: None,
            system_id: None,
        }),
    }
}

#[test]
fn written_documents_are_read_by_binxml_expat_and_libxml2() {
    let dir = scratch_dir("xml-writer-output");
    let file = dir.join("doc.xml");
    let parsers = RefCell::new(XmlParsers::start());
    let (written, refused) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&document(), |events| {
            // The same events from a tape (the writer's other way in, which checks each
            // distinct name once): the same bytes, or refused too.
            let tape = binxml_core::Tape::from_events(&events);
            let mut w = binxml_xml::XmlWriter::new(Vec::new());
            let from_tape = binxml_core::Encoder::write_tape(&mut w, &tape)
                .and_then(|()| binxml_core::Encoder::finish(&mut w))
                .and_then(|()| w.into_inner());
            let Ok(xml) = binxml_xml::encode(&events) else {
                if let Ok(x) = from_tape {
                    return Err(TestCaseError::fail(format!(
                        "refused one by one, written from a tape: {:?}",
                        String::from_utf8_lossy(&x)
                    )));
                }
                refused.set(refused.get() + 1);
                return Ok(());
            };
            match from_tape {
                Ok(x) if x == xml => {}
                other => {
                    return Err(TestCaseError::fail(format!(
                        "from a tape {:?}, one by one {:?}",
                        other.map(|x| String::from_utf8_lossy(&x).into_owned()),
                        String::from_utf8_lossy(&xml)
                    )));
                }
            }
            written.set(written.get() + 1);
            let shown = String::from_utf8_lossy(&xml).into_owned();
            if let Err(e) = binxml_xml::decode(&xml) {
                return Err(TestCaseError::fail(format!(
                    "binxml refuses {shown:?}: {e}"
                )));
            }
            if let Err(answer) = parsers.borrow_mut().check_bytes(&xml, &file) {
                return Err(TestCaseError::fail(format!("{shown:?}: {answer}")));
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "writer_output: {} streams written and read back, {} refused",
        written.get(),
        refused.get()
    );
    // A writer that refused everything would pass the checks above: the streams are drawn so
    // that about half can be written.
    assert!(
        written.get() * 4 > written.get() + refused.get(),
        "too few streams written"
    );
}
