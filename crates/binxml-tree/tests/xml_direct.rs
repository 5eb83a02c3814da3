//! `Document::parse` over the XML decoder (pushing into the builder) builds the same tree as the
//! pull path (`parse` over a `&mut dyn Decoder`, its events pulled one at a time), and fails with the same error, on
//! every corpus document, on documents exercising the decoder's slow paths, and on damaged
//! copies of small corpus documents.

use binxml_core::{Decoder, Event, Limits, Result, collect_events};
use binxml_testkit::mutate::{Rng, mutate};
use binxml_tree::Document;

fn events(doc: &Document<'_>) -> Vec<Event<'static>> {
    collect_events(&mut doc.events())
        .unwrap()
        .into_iter()
        .map(Event::into_owned)
        .collect()
}

/// Both paths on one input: equal trees, or equal errors.
fn same(input: &[u8], limits: &Limits) -> std::result::Result<(), String> {
    let mut pulled = binxml_xml::XmlDecoder::with_limits(input, limits.clone());
    let mut pulled: &mut dyn Decoder<'_> = &mut pulled;
    let generic: Result<Document<'_>> = Document::parse(&mut pulled, input.len());
    let direct = Document::parse(
        &mut binxml_xml::XmlDecoder::with_limits(input, limits.clone()),
        input.len(),
    );
    match (generic, direct) {
        (Ok(g), Ok(d)) => {
            let (g, d) = (events(&g), events(&d));
            if g != d {
                let at = g
                    .iter()
                    .zip(&d)
                    .position(|(a, b)| a != b)
                    .unwrap_or(g.len().min(d.len()));
                return Err(format!(
                    "trees differ at event {at}: {:?} vs {:?}",
                    g.get(at),
                    d.get(at)
                ));
            }
            Ok(())
        }
        (Err(g), Err(d)) => {
            if (g.kind(), &g.message(), g.offset(), g.line_col())
                != (d.kind(), &d.message(), d.offset(), d.line_col())
            {
                return Err(format!("errors differ: {g} vs {d}"));
            }
            Ok(())
        }
        (g, d) => Err(format!(
            "one path failed: generic {:?}, direct {:?}",
            g.err(),
            d.err()
        )),
    }
}

#[test]
fn corpus_direct_equals_generic() {
    let mut failures = Vec::new();
    for path in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        let input = binxml_xml::to_utf8(&raw).unwrap();
        if let Err(e) = same(&input, &Limits::default()) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn slow_paths_and_errors_direct_equals_generic() {
    let docs = [
        "<a xmlns='urn:a' xmlns:p='urn:p' p:x='1' y='2'><p:b/><c xmlns=''>t</c></a>",
        "<!DOCTYPE a [<!ENTITY e 'x<b y=\"1\"/>z'> <!ENTITY t 'T'> <!ATTLIST a d CDATA 'dv' xmlns:q CDATA #FIXED 'urn:q'> <!ATTLIST b k CDATA 'K'>]><a>&e;&t;<b/><q:c/>&amp;&#65;</a>",
        "<!DOCTYPE a SYSTEM 'a.dtd'><a>&ext;</a>",
        "<?xml version='1.0' standalone='yes'?><!--c--><?pi d?><a><![CDATA[x]]>y<!--k-->\r\nz</a><!--after-->",
        "<a>&#x1F600;&lt;&gt;</a>",
        "<a><b></a>",
        "<a>",
        "<a/><b/>",
        "<a x='1' x='2'/>",
        "<p:a/>",
        "<a>&undeclared;</a>",
        // A DOCTYPE keeps the direct path: defaults on empty and non-empty tags, declared
        // types that normalize, entities in attribute values and namespace names.
        "<!DOCTYPE a [<!ATTLIST b k CDATA 'K' t NMTOKEN #IMPLIED> <!ENTITY e 'E'>]><a><b/><b t=' x '>t</b><b k='&e;'/><c xmlns:p='urn:&e;' p:z='&e;'/></a>",
        "<!DOCTYPE a PUBLIC '-//x//y' 'a.dtd'><a x='1'><b/>t</a>",
        "<a b='&#0;'/>",
        "",
        "text",
    ];
    for doc in docs {
        same(doc.as_bytes(), &Limits::default()).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
    }
    // Limits: the direct path takes the checked path when strings could exceed the limit.
    let tight = Limits::default().with_max_string_len(8).with_max_depth(3);
    for doc in [
        "<a b='0123456789'/>",
        "<a>0123456789</a>",
        "<a><b><c><d/></c></b></a>",
        "<!DOCTYPE a [<!ENTITY e '01234'>]><a>&e;&e;</a>",
    ] {
        same(doc.as_bytes(), &tight).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
    }
    // Strings that references lengthen beyond the limit in an input within it: attribute
    // values and namespace names (the direct path stays on with a DOCTYPE).
    let limit = Limits::default().with_max_string_len(120);
    let dtd = "<!DOCTYPE a [<!ENTITY e '0123456789'><!ENTITY f '&e;&e;&e;&e;&e;'><!ENTITY g '&f;&f;&f;'>]>";
    for body in ["<a b='&g;'/>", "<a xmlns:p='urn:&g;'/>", "<a b='&f;'>x</a>"] {
        let doc = format!("{dtd}{body}");
        assert!(doc.len() <= 120);
        same(doc.as_bytes(), &limit).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
    }
}

#[test]
fn damaged_documents_direct_equals_generic() {
    let mut seeds = Vec::new();
    for path in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        if raw.len() < 16 * 1024 {
            seeds.push(
                binxml_xml::to_utf8(&raw)
                    .map(|c| c.into_owned())
                    .unwrap_or(raw),
            );
        }
    }
    assert!(!seeds.is_empty());
    let mut rng = Rng(0x5eed_0002);
    for i in 0..3000 {
        let input = mutate(&mut rng, &seeds);
        same(&input, &Limits::default()).unwrap_or_else(|e| panic!("mutant {i}: {e}"));
    }
}
