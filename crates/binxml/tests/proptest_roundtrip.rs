//! Round-trip properties: random well-formed documents (elements, attributes, namespaces, text
//! with awkward characters, CDATA, comments, processing instructions) go through every format's
//! encoder and decoder and come back as the same events, up to what each format keeps (the XML
//! declaration's fields; the CDATA flag where the format drops it; adjacent text merged).
//! JSON, which carries only JSON-shaped events, round-trips random JSON values.
//!
//! The document model and the comparison are shared with the cargo-fuzz round-trip targets
//! (`fuzz/src/model.rs`). `PROPTEST_CASES` sets the number of documents (default 512 per format; about a second).

#[path = "../../../fuzz/src/model.rs"]
#[allow(dead_code)]
mod model;

use binxml::{Decoder, Format};
use model::{Doc, Element, NAMES, NAMESPACES, Node, PI_TARGETS};
use proptest::prelude::*;

/// Text: awkward pieces and arbitrary characters.
fn text() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        3 => prop::sample::select(vec![
            "<", "&", ">", "]]>", "\"", "'", "\r\n", "\r", "\n", "\t", " ", "\u{e9}", "\u{1F600}", "&amp;", "\u{85}",
            "\u{2028}", "\u{FEFF}", "a", "text", "--", "?>", "-", "<!--", "\u{FFFD}", "1.5",
        ])
        .prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(piece, 0..10)
        .prop_map(|v| v.concat())
        .boxed()
}

fn misc() -> impl Strategy<Value = Node> {
    prop_oneof![
        text().prop_map(Node::Comment),
        (0..PI_TARGETS.len(), text()).prop_map(|(t, d)| Node::Pi(t, d))
    ]
}

fn element() -> impl Strategy<Value = Element> {
    let attrs = prop::collection::vec((0..NAMES.len(), 0..NAMESPACES.len(), text()), 0..4).boxed();
    let leaf =
        (0..NAMES.len(), 0..NAMESPACES.len(), attrs.clone()).prop_map(|(name, ns, attrs)| {
            Element {
                name,
                ns,
                attrs,
                children: vec![],
            }
        });
    leaf.prop_recursive(6, 128, 8, move |inner| {
        let child = prop_oneof![
            3 => inner.prop_map(Node::Element),
            3 => text().prop_map(Node::Text),
            1 => text().prop_map(Node::CData),
            1 => misc(),
        ];
        (
            0..NAMES.len(),
            0..NAMESPACES.len(),
            attrs.clone(),
            prop::collection::vec(child, 1..8),
        )
            .prop_map(|(name, ns, attrs, children)| Element {
                name,
                ns,
                attrs,
                children,
            })
    })
}

fn document() -> impl Strategy<Value = Doc> {
    (
        prop::collection::vec(misc(), 0..3),
        element(),
        prop::collection::vec(misc(), 0..3),
    )
        .prop_map(|(prolog, root, epilog)| Doc {
            prolog,
            root,
            epilog,
        })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(512);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

macro_rules! format_property {
    ($name:ident, $format:expr) => {
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(d in document()) {
                if let Err(e) = model::check($format, &d) {
                    prop_assert!(false, "{}\nevents: {:?}", e, d.events());
                }
            }
        }
    };
}

format_property!(xml_round_trips, Format::Xml);
format_property!(fi_round_trips, Format::Fi);
format_property!(tsf_round_trips, Format::Tsf);
format_property!(xebu_round_trips, Format::Xebu);
format_property!(asn1_uper_round_trips, Format::Asn1Uper);
format_property!(asn1_aper_round_trips, Format::Asn1Aper);
format_property!(asn1_ber_round_trips, Format::Asn1Ber);

/// A JSON value as text.
fn json() -> impl Strategy<Value = String> {
    let string = text()
        .prop_map(|t| {
            let mut s = String::from("\"");
            for c in t.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                    c => s.push(c),
                }
            }
            s.push('"');
            s
        })
        .boxed();
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "null",
            "true",
            "false",
            "0",
            "-0",
            "1.50",
            "-12e+3",
            "1E400",
            "123456789012345678901234567890"
        ])
        .prop_map(str::to_string),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        string.clone(),
    ];
    leaf.prop_recursive(5, 40, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((string.clone(), inner), 0..5).prop_map(|v| {
                let members: Vec<String> = v.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

fn json_events(text: &str) -> Vec<binxml::Event<'static>> {
    let mut dec = binxml::AnyDecoder::new(
        Format::Json,
        text.as_bytes(),
        &binxml::DecodeOptions::default(),
    )
    .unwrap();
    let mut v = Vec::new();
    while let Some(ev) = dec
        .next_event()
        .unwrap_or_else(|e| panic!("valid JSON rejected: {e}: {text}"))
    {
        v.push(ev.into_owned());
    }
    v
}

proptest! {
    #![proptest_config(config())]
    /// JSON text -> events -> JSON -> the same events; and those events through every other
    /// format and back to JSON give the same JSON.
    #[test]
    fn json_round_trips(j in json()) {
        let events = json_events(&j);
        let (bytes, back) = model::round_trip(Format::Json, &events).unwrap().expect("JSON encodes its own events");
        prop_assert_eq!(model::normalize(&events, Format::Json), model::normalize(&back, Format::Json), "{} -> {}", j, String::from_utf8_lossy(&bytes));
        // XML text cannot hold U+0000 to U+001F (but tab, newline, return), docs/json-mapping.md.
        let xml_ok = model::xml_representable(&events);
        for &f in Format::ALL.iter().filter(|&&f| f != Format::Json && (xml_ok || f != Format::Xml)) {
            let Some((_, through)) = model::round_trip(f, &events).unwrap() else { continue };
            let again = model::round_trip(Format::Json, &through).unwrap().expect("JSON encodes");
            prop_assert_eq!(&again.0, &bytes, "{} through {}", j, f);
        }
    }
}

/// The generated documents are not trivial: on average dozens of events, with every kind of
/// node, attributes and namespace declarations.
#[test]
fn generated_documents_are_substantial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut events, mut kinds) = (0usize, std::collections::HashSet::new());
    for _ in 0..200 {
        let d = document().new_tree(&mut runner).unwrap().current();
        let ev = d.events();
        events += ev.len();
        kinds.extend(ev.iter().map(|e| e.kind()));
    }
    eprintln!(
        "{} events per document on average, kinds {kinds:?}",
        events / 200
    );
    assert!(events / 200 >= 20, "{} events per document", events / 200);
    for k in [
        "StartElement",
        "Attribute",
        "Namespace",
        "Characters",
        "Comment",
        "PI",
    ] {
        assert!(kinds.contains(k), "no {k} generated");
    }
}
