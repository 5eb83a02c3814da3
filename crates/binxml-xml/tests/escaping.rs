//! The writer's escaping against an independent reader: every character that text or an
//! attribute value must escape (`<`, `&`, `>` after `]]`, `"`, tab, line feed and carriage return
//! in attribute values, a carriage return in text), at every position of strings around the
//! scanner's 8-octet word and beside multi-byte characters, is written so that the document
//! reads back as the same infoset. The oracle is canonical XML (Python's
//! `xml.etree.ElementTree.canonicalize`) of the written document against a reference document
//! that spells every character of the same strings as a character reference, which every XML
//! parser reads as that character wherever it stands; binxml's own reader must give the
//! strings back too. Characters XML 1.0 cannot hold are refused, wherever they stand.

use binxml_core::{Encoder, Event, QName};
use binxml_testkit::{C14nOracle, scratch_dir};
use binxml_xml::XmlWriter;
use std::borrow::Cow;

/// What must be escaped somewhere, what must not be, and multi-byte neighbours.
const SPECIALS: [&str; 16] = [
    "<", "&", ">", "]]>", "]]", "\"", "'", "\t", "\n", "\r", "\r\n", " ", "é", "\u{FFFD}", "𝄞",
    "&amp;",
];

/// Strings holding `sp` at every position of a run of 0 to 18 other characters.
fn strings() -> Vec<String> {
    let mut v = Vec::new();
    for sp in SPECIALS {
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 18] {
            for at in 0..=len {
                v.push(format!("{}{sp}{}", "a".repeat(at), "b".repeat(len - at)));
            }
        }
    }
    // several specials in one string, next to each other and apart
    v.push("<&>\"'\t\n\r]]>".into());
    v.push("x]]>y<z&w\"v\tu\nt\rs".repeat(3));
    v
}

/// Every character of `s` as a character reference.
fn references(s: &str) -> String {
    s.chars().map(|c| format!("&#x{:X};", c as u32)).collect()
}

fn events(strings: &[String]) -> Vec<Event<'_>> {
    let mut ev = vec![
        Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        },
        Event::StartElement(QName::local("r")),
    ];
    for s in strings {
        ev.push(Event::StartElement(QName::local("e")));
        ev.push(Event::Attribute {
            name: QName::local("v"),
            value: Cow::Borrowed(s),
        });
        ev.push(Event::Attribute {
            name: QName::new("p", "urn:p", "w"),
            value: Cow::Borrowed(s),
        });
        ev.push(Event::Characters {
            text: Cow::Borrowed(s),
            cdata: false,
        });
        ev.push(Event::EndElement);
    }
    ev.push(Event::EndElement);
    ev.push(Event::EndDocument);
    ev
}

/// The same document, every character of every string spelled as a reference.
fn reference_document(strings: &[String]) -> String {
    let mut doc = String::from("<r>");
    for s in strings {
        let r = references(s);
        doc.push_str(&format!(
            "<e xmlns:p=\"urn:p\" v=\"{r}\" p:w=\"{r}\">{r}</e>"
        ));
    }
    doc.push_str("</r>");
    doc
}

fn write(events: &[Event<'_>], tape: bool) -> binxml_core::Result<Vec<u8>> {
    let mut w = XmlWriter::new(Vec::new());
    if tape {
        w.write_tape(&binxml_core::Tape::from_events(events))?;
    } else {
        for e in events {
            w.write_event(e)?;
        }
    }
    w.finish()?;
    w.into_inner()
}

#[test]
fn special_characters_read_back_as_written() {
    let strings = strings();
    let events = events(&strings);
    let dir = scratch_dir("xml-escaping");
    let reference = dir.join("reference.xml");
    std::fs::write(&reference, reference_document(&strings)).unwrap();
    let mut oracle = C14nOracle::start();
    for tape in [false, true] {
        let xml = write(&events, tape).unwrap();
        // binxml's reader gives every string back, in text and in both attributes
        let back = binxml_xml::decode(&xml).unwrap();
        let mut values = Vec::new();
        let mut texts = Vec::new();
        for e in &back {
            match e {
                Event::Attribute { value, .. } => values.push(value.to_string()),
                Event::Characters { text, .. } => texts.push(text.to_string()),
                _ => {}
            }
        }
        let twice: Vec<String> = strings
            .iter()
            .flat_map(|s| [s.clone(), s.clone()])
            .collect();
        assert_eq!(values, twice, "attribute values (tape: {tape})");
        assert_eq!(texts, strings, "text (tape: {tape})");
        // and so does an independent reader
        oracle
            .compare_bytes(&reference, &xml, &dir.join("written.xml"))
            .unwrap_or_else(|d| panic!("tape: {tape}: {d}"));
    }
}

#[test]
fn what_xml_cannot_hold_is_refused_wherever_it_stands() {
    for bad in [
        "\u{0}", "\u{1}", "\u{8}", "\u{B}", "\u{C}", "\u{1F}", "\u{FFFE}", "\u{FFFF}",
    ] {
        for len in [0, 7, 8, 9, 16] {
            for at in 0..=len {
                let s = format!("{}{bad}{}", "a".repeat(at), "é".repeat(len - at));
                for attr in [false, true] {
                    let mut ev = vec![
                        Event::StartDocument {
                            version: None,
                            encoding: None,
                            standalone: None,
                        },
                        Event::StartElement(QName::local("e")),
                    ];
                    if attr {
                        ev.push(Event::Attribute {
                            name: QName::local("v"),
                            value: Cow::Borrowed(&s),
                        });
                    } else {
                        ev.push(Event::Characters {
                            text: Cow::Borrowed(&s),
                            cdata: false,
                        });
                    }
                    ev.push(Event::EndElement);
                    ev.push(Event::EndDocument);
                    for tape in [false, true] {
                        assert!(
                            write(&ev, tape).is_err(),
                            "{s:?} written (attribute: {attr}, tape: {tape})"
                        );
                    }
                }
            }
        }
    }
}
