use super::*;

use binxml_core::Typed;

fn sample() -> Vec<Event<'static>> {
    vec![
        Event::start_document(),
        Event::Comment("c".into()),
        Event::StartElement(QName::local("inv")),
        Event::Namespace {
            prefix: "".into(),
            uri: "".into(),
        },
        Event::Attribute {
            name: QName::local("Currency"),
            value: "EUR".into(),
        },
        Event::StartElement(QName::local("item")),
        Event::Attribute {
            name: QName::local("id"),
            value: "1".into(),
        },
        Event::text("ab"),
        Event::text("cd"),
        Event::EndElement,
        Event::StartElement(QName::local("item")),
        Event::Attribute {
            name: QName::local("id"),
            value: "2".into(),
        },
        Event::Typed(Typed::Int(5)),
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ]
}

#[test]
fn build_navigate_and_back() {
    let doc = Document::from_events(sample()).unwrap();
    let root = doc.root().unwrap();
    assert_eq!(root.local_name(), "inv");
    assert_eq!(root.attribute("Currency"), Some("EUR"));
    let items: Vec<_> = root.find_all("item").collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].text(), "abcd");
    assert_eq!(items[0].children().count(), 1, "adjacent text merges");
    assert_eq!(items[1].text(), "5");
    assert_eq!(items[1].parent().unwrap().id(), root.id());
    let mut back = doc.events();
    let events = binxml_core::collect_events(&mut back).unwrap();
    let mut expected = sample();
    expected.remove(8);
    expected[7] = Event::text("abcd");
    assert_eq!(events, expected);
}

#[test]
fn modify() {
    let mut doc = Document::from_events(sample()).unwrap();
    let root = doc.root().unwrap().id();
    let first = doc.node(root).child("item").unwrap().id();
    doc.set_text(first, "new");
    doc.set_attribute(first, QName::local("id"), "10");
    doc.set_attribute(first, QName::local("extra"), "x");
    let removed = doc.remove_child(root, 1).unwrap();
    assert_eq!(doc.node(removed).attribute("id"), Some("2"));
    let e = doc.create_element(QName::local("item"));
    doc.set_attribute(e, QName::local("id"), "3");
    doc.append_child(root, e);
    let t = doc.create(NodeKind::Text("z".into()));
    doc.insert_child(root, 0, t);
    let r = doc.node(root);
    let ids: Vec<_> = r.elements().map(|n| n.attribute("id").unwrap()).collect();
    assert_eq!(ids, ["10", "3"]);
    assert_eq!(r.child("item").unwrap().text(), "new");
    assert_eq!(r.child("item").unwrap().attribute("extra"), Some("x"));
    assert_eq!(r.children().next().unwrap().text(), "z");
    assert!(doc.remove_attribute(first, "", "extra"));
    assert_eq!(doc.node(first).attributes().len(), 1);
    let mut rec = binxml_core::Recorder::default();
    doc.write_to(&mut rec).unwrap();
    assert!(rec.finished);
    assert_eq!(
        rec.events
            .iter()
            .filter(|e| matches!(e, Event::StartElement(_)))
            .count(),
        3
    );
}

#[test]
fn rejects_broken_streams() {
    assert!(Document::from_events(vec![Event::start_document(), Event::EndElement]).is_err());
    assert!(
        Document::from_events(vec![
            Event::start_document(),
            Event::StartElement(QName::local("a"))
        ])
        .is_err()
    );
}

fn msg(events: Vec<Event<'static>>) -> String {
    Document::from_events(events).unwrap_err().to_string()
}

/// The builder's bookkeeping without flags: every rule of the old flags, one case each.
#[test]
fn stream_rules() {
    let start = || Event::StartElement(QName::local("a"));
    let attr = || Event::Attribute {
        name: QName::local("x"),
        value: "1".into(),
    };
    let ns = || Event::Namespace {
        prefix: "p".into(),
        uri: "u".into(),
    };
    let sd = Event::start_document;
    // Attributes and declarations only in the start tag: not after text, a child, a comment
    // or the child's end, not at the top level.
    for after in [
        Event::text("t"),
        Event::Comment("c".into()),
        Event::Typed(Typed::Int(1)),
    ] {
        let e = msg(vec![sd(), start(), after.clone(), attr()]);
        assert!(e.contains("Attribute outside a start tag"), "{e}");
        let e = msg(vec![sd(), start(), after, ns()]);
        assert!(e.contains("Namespace outside a start tag"), "{e}");
    }
    let e = msg(vec![sd(), start(), start(), Event::EndElement, attr()]);
    assert!(e.contains("Attribute outside a start tag"), "{e}");
    assert!(msg(vec![sd(), attr()]).contains("Attribute outside a start tag"));
    assert!(msg(vec![attr()]).contains("Attribute outside a start tag"));
    assert!(msg(vec![sd(), start(), Event::EndElement, ns()]).contains("Namespace outside"));
    // In the start tag, after other attributes and declarations: fine.
    let doc = Document::from_events(vec![
        sd(),
        start(),
        ns(),
        attr(),
        start(),
        ns(),
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ])
    .unwrap();
    let root = doc.root().unwrap();
    assert_eq!((root.namespaces().len(), root.attributes().len()), (1, 1));
    let child = root.elements().next().unwrap();
    assert_eq!((child.namespaces().len(), child.attributes().len()), (1, 0));
    // StartDocument first only.
    assert!(msg(vec![sd(), sd()]).contains("StartDocument twice"));
    assert!(msg(vec![Event::Comment("c".into()), sd()]).contains("StartDocument twice"));
    assert!(msg(vec![start(), Event::EndElement, sd()]).contains("StartDocument twice"));
    // Nothing after EndDocument (the same message for every kind of item).
    for after in [
        start(),
        Event::EndElement,
        attr(),
        ns(),
        Event::text("t"),
        Event::Comment("c".into()),
        sd(),
        Event::EndDocument,
    ] {
        let e = msg(vec![
            sd(),
            start(),
            Event::EndElement,
            Event::EndDocument,
            after,
        ]);
        assert!(e.contains("event after EndDocument"), "{e}");
    }
    assert!(msg(vec![sd(), start(), Event::EndDocument]).contains("EndDocument inside an element"));
    assert!(msg(vec![sd(), Event::EndElement]).contains("EndElement without StartElement"));
    assert!(msg(vec![sd(), start()]).contains("ended inside an element"));
    // A stream without StartDocument and EndDocument is accepted, as before.
    let doc = Document::from_events(vec![start(), Event::EndElement]).unwrap();
    assert_eq!(doc.root().unwrap().local_name(), "a");
    assert_eq!(doc.version(), None);
}

#[test]
fn text_merging() {
    let doc = Document::from_events(vec![
        Event::start_document(),
        Event::StartElement(QName::local("a")),
        Event::text("x"),
        Event::text("y"),
        Event::Characters {
            text: "c1".into(),
            cdata: true,
        },
        Event::Characters {
            text: "c2".into(),
            cdata: true,
        },
        Event::text("z"),
        Event::StartElement(QName::local("b")),
        Event::text("in b"),
        Event::EndElement,
        Event::text("after b"),
        Event::Comment("c".into()),
        Event::text("after comment"),
        Event::EndElement,
        Event::text("top"),
        Event::text("level"),
        Event::EndDocument,
    ])
    .unwrap();
    let kinds: Vec<NodeKind> = doc
        .root()
        .unwrap()
        .children()
        .map(|n| n.kind().clone())
        .collect();
    let expected = [
        NodeKind::Text("xy".into()),
        NodeKind::CData("c1".into()),
        NodeKind::CData("c2".into()),
        NodeKind::Text("z".into()),
    ];
    assert_eq!(kinds[..4], expected);
    let rest: Vec<String> = doc
        .root()
        .unwrap()
        .children()
        .skip(5)
        .map(|n| n.text().into_owned())
        .collect();
    assert_eq!(rest, ["after b", "c", "after comment"]);
    assert_eq!(doc.root().unwrap().child("b").unwrap().text(), "in b");
    assert_eq!(doc.document().children().last().unwrap().text(), "toplevel");
}

#[test]
fn declaration_and_rare_kinds() {
    let events = vec![
        Event::StartDocument {
            version: Some("1.0".into()),
            encoding: Some("UTF-8".into()),
            standalone: Some(true),
        },
        Event::DocType(DocType {
            name: "a".into(),
            public_id: None,
            system_id: Some("a.dtd".into()),
            internal_subset: None,
        }),
        Event::Notation {
            name: "n".into(),
            public_id: Some("p".into()),
            system_id: None,
        },
        Event::UnparsedEntity {
            name: "e".into(),
            public_id: None,
            system_id: "e.bin".into(),
            notation: "n".into(),
        },
        Event::ProcessingInstruction {
            target: "pi".into(),
            data: "d".into(),
        },
        Event::StartElement(QName::new("p", "urn:x", "a")),
        Event::EntityReference {
            name: "r".into(),
            public_id: None,
            system_id: Some("r.xml".into()),
        },
        Event::Typed(Typed::List(vec![Typed::Int(1), Typed::Bool(true)])),
        Event::EndElement,
        Event::EndDocument,
    ];
    let doc = Document::from_events(events.clone()).unwrap();
    assert_eq!(
        (doc.version(), doc.encoding(), doc.standalone()),
        (Some("1.0"), Some("UTF-8"), Some(true))
    );
    assert!(matches!(doc.document().kind(), NodeKind::Document));
    let kids: Vec<_> = doc.document().children().collect();
    assert!(
        matches!(kids[3].kind(), NodeKind::ProcessingInstruction(p) if p.target == "pi" && p.data == "d")
    );
    assert!(
        kids[3].attributes().is_empty()
            && kids[3].child_ids().is_empty()
            && kids[3].name().is_none()
    );
    assert_eq!(
        doc.root().unwrap().name().unwrap(),
        &QName::new("p", "urn:x", "a")
    );
    assert_eq!(
        binxml_core::collect_events(&mut doc.events()).unwrap(),
        events
    );
    let mut doc = doc;
    doc.set_declaration(None, None, None);
    assert_eq!(
        binxml_core::collect_events(&mut doc.events()).unwrap()[0],
        Event::start_document()
    );
}

#[test]
fn drop_frees_owned_nodes_once() {
    // Document's Drop skips the nodes that own nothing: owned and borrowed strings of every
    // kind side by side, a clone, and nodes replaced by set_text (under valgrind:
    // `--leak-check=full` finds nothing lost, and no invalid free).
    let s = String::from("borrowed");
    let events = vec![
        Event::start_document(),
        Event::Comment(Cow::Owned("owned comment".into())),
        Event::StartElement(QName::local("a")),
        Event::Characters {
            text: Cow::Owned("owned text".into()),
            cdata: false,
        },
        Event::StartElement(QName::local("b")),
        Event::Characters {
            text: Cow::Owned("owned cdata".into()),
            cdata: true,
        },
        Event::Characters {
            text: Cow::Borrowed(s.as_str()),
            cdata: true,
        },
        Event::EndElement,
        Event::StartElement(QName::local("c")),
        Event::Characters {
            text: Cow::Borrowed(s.as_str()),
            cdata: false,
        },
        Event::Characters {
            text: Cow::Owned(" merged".into()),
            cdata: false,
        },
        Event::EndElement,
        Event::Comment(Cow::Borrowed(s.as_str())),
        Event::Typed(Typed::List(vec![Typed::Int(1)])),
        Event::EndElement,
        Event::EndDocument,
    ];
    let doc = Document::from_events(events.clone()).unwrap();
    let mut copy = doc.clone();
    drop(doc);
    let root = copy.root().unwrap().id();
    copy.set_text(root, String::from("replaced"));
    assert_eq!(copy.root().unwrap().text(), "replaced");
    let again = Document::from_events(events).unwrap();
    let kids: Vec<_> = again.root().unwrap().children().collect();
    assert!(
        matches!(kids[2].children().next().unwrap().kind(), NodeKind::Text(t) if t == "borrowed merged")
    );
}

#[test]
fn names_are_shared_and_distinguished() {
    // Equal names share an entry, whether the strings are the same slice or equal copies;
    // names differing in any part (prefix, namespace, a byte the cache's slot does not
    // look at) do not.
    let owned = |p: &str, n: &str, l: &str| QName::new(p.to_string(), n.to_string(), l.to_string());
    let names = [
        QName::local("item"),
        owned("", "", "item"),
        owned("p", "", "item"),
        owned("", "urn:a", "item"),
        owned("", "", "itxm"),
        owned("", "", "iteem"),
        owned("", "", "a-rather-long-element-name-x"),
        owned("", "", "a-rather-long-element-name-y"),
        owned("", "", "a-rather-long-element-name-x"),
        owned("", "", "name1234"),
        owned("", "", "name1235"),
        owned("q", "urn:b", "i"),
        owned("q", "urn:b", "i"),
        owned("", "", ""),
    ];
    let mut events = vec![
        Event::start_document(),
        Event::StartElement(QName::local("root")),
    ];
    for round in 0..3 {
        for q in &names {
            events.push(Event::StartElement(q.clone()));
            events.push(Event::text(format!("{round}")));
            events.push(Event::EndElement);
        }
    }
    events.extend([Event::EndElement, Event::EndDocument]);
    let doc = Document::from_events(events.clone()).unwrap();
    let got: Vec<&QName> = doc
        .root()
        .unwrap()
        .elements()
        .map(|n| n.name().unwrap())
        .collect();
    let expected: Vec<&QName> = (0..3).flat_map(|_| names.iter()).collect();
    assert_eq!(got, expected);
    // Best effort (names with the same local name take turns in one slot of the cache),
    // and never more entries than elements.
    assert!(
        doc.names.len() < 3 * names.len(),
        "{} entries",
        doc.names.len()
    );
    assert_eq!(
        binxml_core::collect_events(&mut doc.events()).unwrap(),
        events
    );
    // A thousand elements of a few names (borrowed from different buffers): a few entries.
    let texts: Vec<String> = (0..1000)
        .map(|i| ["row", "cell", "x:cell"][i % 3].to_string())
        .collect();
    let mut events = vec![Event::StartElement(QName::local("root"))];
    for t in &texts {
        let (prefix, local) = t.split_once(':').unwrap_or(("", t));
        events.push(Event::StartElement(QName::new(
            prefix,
            if prefix.is_empty() { "" } else { "urn:x" },
            local,
        )));
        events.push(Event::EndElement);
    }
    events.push(Event::EndElement);
    let doc = Document::from_events(events).unwrap();
    assert_eq!(doc.root().unwrap().elements().count(), 1000);
    assert!(doc.names.len() <= 4, "{} entries", doc.names.len());
}

#[test]
fn same_str_is_string_equality() {
    let words = [
        "",
        "a",
        "b",
        "ab",
        "ba",
        "abc",
        "abd",
        "xbc",
        "abcd",
        "abce",
        "abcdefg",
        "abcdefh",
        "bbcdefg",
        "abcdefgh",
        "abcdefgi",
        "0123456789abcdef",
        "0123456789abcdeg",
        "1123456789abcdef",
        "0123456789abcdefg",
        "0123456789abcdefh",
        "0123456789Xbcdefg",
    ];
    for a in words {
        for b in words {
            let (a2, b2) = (a.to_string(), b.to_string());
            assert_eq!(same_str(&a2, &b2), a == b, "{a:?} {b:?}");
            assert_eq!(same_str(a, &b2), a == b, "{a:?} {b:?}");
        }
    }
}

#[test]
fn create_from_a_copied_kind_and_rename() {
    let mut doc = Document::from_events(sample()).unwrap();
    let root = doc.root().unwrap().id();
    let item = doc.node(root).child("item").unwrap().id();
    let copy = doc.create(doc.node(item).kind().clone());
    assert_eq!(doc.node(copy).local_name(), "item");
    assert!(doc.node(copy).attributes().is_empty() && doc.node(copy).child_ids().is_empty());
    doc.set_attribute(copy, QName::local("id"), "9");
    doc.append_child(root, copy);
    doc.set_name(copy, QName::local("renamed"));
    assert_eq!(
        doc.node(root).elements().last().unwrap().local_name(),
        "renamed"
    );
    assert_eq!(
        doc.node(item).local_name(),
        "item",
        "renaming one element leaves the others"
    );
    assert_eq!(doc.node(copy).attribute("id"), Some("9"));
    doc.set_text(copy, "t");
    assert_eq!(doc.node(copy).text(), "t");
    assert!(
        !doc.remove_attribute(doc.node(copy).child_ids()[0], "", "id"),
        "a text node has no attributes"
    );
}

#[test]
#[should_panic(expected = "has no children")]
fn text_nodes_take_no_children() {
    let mut doc = Document::from_events(sample()).unwrap();
    let t = doc.create(NodeKind::Text("x".into()));
    let u = doc.create(NodeKind::Text("y".into()));
    doc.append_child(t, u);
}

#[test]
fn capacity_is_bounded_by_the_input() {
    // A tiny input reserves little, a huge claimed length at most the caps.
    let b = Builder::with_capacity(10);
    assert!(b.doc.nodes.capacity() < 64 && b.doc.attributes.capacity() < 64);
    let b = Builder::with_capacity(usize::MAX);
    assert!(b.doc.nodes.capacity() * std::mem::size_of::<NodeData>() <= 170 << 20);
    assert!(b.doc.attributes.capacity() * std::mem::size_of::<Attr>() <= 100 << 20);
    assert!(b.doc.names.capacity() * std::mem::size_of::<QName>() <= 20 << 20);
}

#[test]
fn element_events_write_a_subtree_with_its_inherited_namespaces() {
    let doc = Document::from_events(vec![
        Event::start_document(),
        Event::StartElement(QName::new("p", "urn:p", "a")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:p".into(),
        },
        Event::Namespace {
            prefix: "q".into(),
            uri: "urn:q".into(),
        },
        Event::StartElement(QName::new("p", "urn:p", "b")),
        Event::Namespace {
            prefix: "q".into(),
            uri: "urn:q2".into(),
        },
        Event::text("t"),
        Event::EndElement,
        Event::text("tail"),
        Event::EndElement,
        Event::EndDocument,
    ])
    .unwrap();
    let b = doc.root().unwrap().elements().next().unwrap().id();
    let events = binxml_core::collect_events(&mut doc.element_events(b)).unwrap();
    assert_eq!(
        events,
        vec![
            Event::start_document(),
            Event::StartElement(QName::new("p", "urn:p", "b")),
            Event::Namespace {
                prefix: "q".into(),
                uri: "urn:q2".into(),
            },
            Event::Namespace {
                prefix: "p".into(),
                uri: "urn:p".into(),
            },
            Event::text("t"),
            Event::EndElement,
            Event::EndDocument,
        ]
    );
}

/// A decoder that hands every event over as transient (as EXI's does), each event's strings
/// copied into a buffer that is overwritten by the next, so that a sink keeping a borrowed
/// string would read the wrong text.
struct Transient(Vec<Event<'static>>);

impl<'a> Decoder<'a> for Transient {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        unreachable!("pushed only")
    }
    fn offset(&self) -> u64 {
        0
    }
    fn read_into<S: binxml_core::EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        for ev in std::mem::take(&mut self.0) {
            let scratch = ev.into_owned();
            sink.transient(&scratch)?;
            drop(scratch);
        }
        Ok(())
    }
}

#[test]
fn transient_strings_are_kept_in_the_arena() {
    let names = ["a", "b", "p:c"];
    let mut events = vec![
        Event::start_document(),
        Event::StartElement(QName::local("root")),
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:p".into(),
        },
    ];
    for i in 0..300 {
        let (prefix, local) = names[i % 3].split_once(':').unwrap_or(("", names[i % 3]));
        let ns = if prefix.is_empty() { "" } else { "urn:p" };
        events.push(Event::StartElement(QName::new(prefix, ns, local)));
        events.push(Event::Attribute {
            name: QName::new(prefix, ns, format!("at{}", i % 4)),
            value: format!("v{i}").into(),
        });
        events.push(Event::Attribute {
            name: QName::local("n"),
            value: "same".into(),
        });
        events.push(Event::text(format!("text {i}")));
        events.push(Event::text("+more"));
        events.push(Event::Comment(format!("c{i}").into()));
        events.push(Event::Characters {
            text: "cd".into(),
            cdata: true,
        });
        events.push(Event::EndElement);
    }
    events.extend([Event::EndElement, Event::EndDocument]);
    let strings = Strings::new();
    let doc = Document::parse_in(&mut Transient(events.clone()), 0, &strings).unwrap();
    // The same document as built from whole events (adjacent text merged).
    let whole = Document::from_events(events.clone()).unwrap();
    let expected = binxml_core::collect_events(&mut whole.events()).unwrap();
    assert_eq!(
        binxml_core::collect_events(&mut doc.events()).unwrap(),
        expected
    );
    // Names and values live in the arena (borrowed), attribute names once per name.
    let root = doc.root().unwrap();
    let first = root.elements().next().unwrap();
    let a = first.attributes().get(0).unwrap();
    assert!(matches!(a.value, Cow::Borrowed(_)) && matches!(a.name.local, Cow::Borrowed(_)));
    let n_ptrs: std::collections::HashSet<*const u8> = root
        .elements()
        .map(|e| e.attributes().get(1).unwrap().name.local.as_ptr())
        .collect();
    assert_eq!(n_ptrs.len(), 1, "one copy of the attribute name n");
    assert!(strings.allocated_bytes() > 0);
    // Without an arena (Document::parse), the same document.
    let owned = Document::parse(&mut Transient(events), 0).unwrap();
    assert_eq!(
        binxml_core::collect_events(&mut owned.events()).unwrap(),
        expected
    );
}
