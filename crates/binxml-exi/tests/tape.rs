//! `write_tape` holds a start tag's attributes with the tape's strings until the tag closes;
//! it must give the bytes `write_events` gives, also when a tape begins or ends inside a start
//! tag (the rest of the document written event by event) and when `xsi:type` and `xsi:nil`
//! come after other attributes (they are written first).

use binxml_core::{Encoder, Event, QName, Tape};
use binxml_exi::{ExiEncoder, ExiOptions};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

fn attr<'a>(name: QName<'a>, value: &'a str) -> Event<'a> {
    Event::Attribute {
        name,
        value: value.into(),
    }
}

fn document() -> Vec<Event<'static>> {
    vec![
        Event::start_document(),
        Event::StartElement(QName::local("r")),
        Event::Namespace {
            prefix: "xsi".into(),
            uri: XSI.into(),
        },
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:p".into(),
        },
        attr(QName::local("a"), "1"),
        attr(QName::new("p", "urn:p", "b"), "two"),
        attr(QName::new("xsi", XSI, "nil"), "false"),
        attr(QName::new("xsi", XSI, "type"), "p:T"),
        Event::StartElement(QName::local("c")),
        attr(QName::local("a"), "1"),
        attr(QName::local("d"), "x"),
        Event::text("text"),
        Event::EndElement,
        Event::StartElement(QName::new("p", "urn:p", "e")),
        attr(QName::new("p", "urn:p", "b"), "two"),
        Event::EndElement,
        Event::text("  "),
        Event::EndElement,
        Event::EndDocument,
    ]
}

fn by_events(events: &[Event<'_>], o: &ExiOptions) -> Vec<u8> {
    let mut e = ExiEncoder::with_options(Vec::new(), o.clone()).unwrap();
    e.write_events(events).unwrap();
    e.finish().unwrap();
    e.into_inner()
}

/// Events `..from` one by one, `from..to` as a tape, the rest one by one.
fn by_tape(events: &[Event<'_>], from: usize, to: usize, o: &ExiOptions) -> Vec<u8> {
    let mut e = ExiEncoder::with_options(Vec::new(), o.clone()).unwrap();
    for ev in &events[..from] {
        e.write_event(ev).unwrap();
    }
    e.write_tape(&Tape::from_events(&events[from..to])).unwrap();
    for ev in &events[to..] {
        e.write_event(ev).unwrap();
    }
    e.finish().unwrap();
    e.into_inner()
}

#[test]
fn tapes_cut_anywhere_give_the_bytes_of_the_events() {
    let events = document();
    let mut checked = 0;
    for text in [
        "",
        "prefixes",
        "drop-whitespace",
        "byte-aligned",
        "compression",
    ] {
        let o = ExiOptions::default().parse_text(text).unwrap();
        let want = by_events(&events, &o);
        for from in 0..events.len() {
            for to in from..=events.len() {
                assert_eq!(
                    by_tape(&events, from, to, &o),
                    want,
                    "options {text:?}, tape of events {from}..{to}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500);
}
