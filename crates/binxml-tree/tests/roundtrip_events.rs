//! The tree keeps every event: events -> tree -> events gives the input events back, with
//! adjacent plain text merged into one (the tree's one normalization), for every corpus
//! document, by every way of building (from events, push, the XML direct path). An oracle
//! independent of the builder's layout: the compact arena must not lose or reorder anything.

use std::borrow::Cow;

use binxml_core::{Event, collect_events};
use binxml_testkit::corpus_xml_files;
use binxml_tree::Document;

fn owned(ev: Vec<Event<'_>>) -> Vec<Event<'static>> {
    ev.into_iter().map(Event::into_owned).collect()
}

/// Adjacent non-CDATA character events merged into one.
fn merged(events: &[Event<'static>]) -> Vec<Event<'static>> {
    let mut out: Vec<Event<'static>> = Vec::with_capacity(events.len());
    for ev in events {
        if let (
            Event::Characters { text, cdata: false },
            Some(Event::Characters {
                text: prev,
                cdata: false,
            }),
        ) = (ev, out.last_mut())
        {
            let mut s = std::mem::take(prev).into_owned();
            s.push_str(text);
            *prev = Cow::Owned(s);
            continue;
        }
        out.push(ev.clone());
    }
    out
}

#[test]
fn corpus_events_survive_the_tree() {
    let files = corpus_xml_files();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let raw = std::fs::read(path).unwrap();
        let input = binxml_xml::to_utf8(&raw).unwrap();
        let events = binxml_xml::decode(&input).unwrap();
        let expected = merged(&events);
        let from_events = Document::from_events(events.clone()).unwrap();
        let got = owned(collect_events(&mut from_events.events()).unwrap());
        if got != expected {
            let i = got
                .iter()
                .zip(&expected)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(expected.len()));
            failures.push(format!(
                "{} (from_events): first difference at event {i}: {:?} vs {:?}",
                path.display(),
                got.get(i),
                expected.get(i)
            ));
            continue;
        }
        let direct =
            Document::parse(&mut binxml_xml::XmlDecoder::new(&input), input.len()).unwrap();
        let got_direct = owned(collect_events(&mut direct.events()).unwrap());
        if got_direct != expected {
            failures.push(format!(
                "{} (parse over the XML decoder) differs",
                path.display()
            ));
        }
        let pushed = Document::parse(&mut binxml_core::Replay::new(&events), input.len()).unwrap();
        if owned(collect_events(&mut pushed.events()).unwrap()) != expected {
            failures.push(format!("{} (parse over a replay) differs", path.display()));
        }
        // Navigation agrees with the events: element count, parents, names.
        let elements = expected
            .iter()
            .filter(|e| matches!(e, Event::StartElement(_)))
            .count();
        let root = direct.document();
        let mut seen = 0;
        for n in root.descendants() {
            if let Some(q) = n.name() {
                seen += 1;
                assert!(n.parent().is_some());
                assert!(!q.local.is_empty() || q.namespace.is_empty());
            }
            for c in n.children() {
                assert_eq!(c.parent().map(|p| p.id()), Some(n.id()));
            }
        }
        assert_eq!(seen, elements, "{}", path.display());
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
