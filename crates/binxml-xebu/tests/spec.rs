//! docs/xebu.md is precise enough to implement: `tests/spec_decoder.py`, written from the
//! document alone, decodes what this crate's encoder writes (stream mode, forget mode, tiny
//! caches with constant eviction, sequence numbers) to the same events.

use std::borrow::Cow;
use std::path::Path;
use std::process::Command;

use binxml_core::{Event, QName, Typed};
use binxml_testkit::{corpus_xml_files, scratch_dir, workspace_root};
use binxml_xebu::notify::{NotifyOptions, messages};
use binxml_xebu::{XebuOptions, encode_stream};

fn h(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn hb(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn o(s: &Option<Cow<'_, str>>) -> String {
    s.as_deref().map_or("-".to_string(), h)
}

fn typed(t: &Typed<'_>, out: &mut Vec<String>) {
    out.push(match t {
        Typed::Int(i) => format!("int {i}"),
        Typed::Bool(b) => format!("bool {b}"),
        Typed::Float(f) => format!("float {:08x}", f.to_bits()),
        Typed::Double(f) => format!("double {:016x}", f.to_bits()),
        Typed::Base64(b) => format!("base64 {}", hb(b)),
        Typed::Hex(b) => format!("hex {}", hb(b)),
        Typed::Uuid(u) => format!("uuid {}", hb(u)),
        Typed::DateTime(s) => format!("datetime {}", h(s)),
        Typed::Number(s) => format!("number {}", h(s)),
        Typed::Null => "null".to_string(),
        Typed::List(items) => {
            out.push(format!("list {}", items.len()));
            for i in items {
                typed(i, out);
            }
            return;
        }
    });
}

fn dump(events: &[Event<'_>], out: &mut Vec<String>) {
    for ev in events {
        out.push(match ev {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => format!(
                "SD {} {} {}",
                o(version),
                o(encoding),
                standalone.map_or("-", |s| if s { "yes" } else { "no" })
            ),
            Event::EndDocument => "ED".into(),
            Event::StartElement(q) => {
                format!("SE {} {} {}", h(&q.prefix), h(&q.namespace), h(&q.local))
            }
            Event::EndElement => "EE".into(),
            Event::Namespace { prefix, uri } => format!("NS {} {}", h(prefix), h(uri)),
            Event::Attribute { name, value } => {
                format!(
                    "AT {} {} {} {}",
                    h(&name.prefix),
                    h(&name.namespace),
                    h(&name.local),
                    h(value)
                )
            }
            Event::Characters { text, cdata } => format!("TX {} {}", u8::from(*cdata), h(text)),
            Event::Typed(t) => {
                let mut parts = Vec::new();
                typed(t, &mut parts);
                format!("TY {}", parts.join(" | "))
            }
            Event::Comment(c) => format!("CM {}", h(c)),
            Event::ProcessingInstruction { target, data } => {
                format!("PI {} {}", h(target), h(data))
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => {
                format!("ER {} {} {}", h(name), o(public_id), o(system_id))
            }
            Event::DocType(d) => format!(
                "DT {} {} {} {}",
                h(&d.name),
                o(&d.public_id),
                o(&d.system_id),
                o(&d.internal_subset)
            ),
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                format!("NT {} {} {}", h(name), o(public_id), o(system_id))
            }
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => {
                format!(
                    "UE {} {} {} {}",
                    h(name),
                    o(public_id),
                    h(system_id),
                    h(notation)
                )
            }
            other => format!("{other:?}"),
        });
    }
}

fn typed_message() -> Vec<Event<'static>> {
    let mut v = vec![
        Event::StartDocument {
            version: Some("1.1".into()),
            encoding: Some("utf-8".into()),
            standalone: Some(false),
        },
        Event::DocType(binxml_core::DocType {
            name: "t".into(),
            public_id: Some("-//P".into()),
            system_id: Some("t.dtd".into()),
            internal_subset: None,
        }),
        Event::Notation {
            name: "n".into(),
            public_id: None,
            system_id: Some("n.exe".into()),
        },
        Event::UnparsedEntity {
            name: "u".into(),
            public_id: Some("-//U".into()),
            system_id: "u.bin".into(),
            notation: "n".into(),
        },
        Event::StartElement(QName::new("", "urn:t", "t")),
        Event::Namespace {
            prefix: "".into(),
            uri: "urn:t".into(),
        },
        Event::Namespace {
            prefix: "a".into(),
            uri: "urn:t".into(),
        },
        Event::Attribute {
            name: QName::new("a", "urn:t", "x"),
            value: "1".into(),
        },
        Event::Attribute {
            name: QName::new("xml", binxml_core::XML_NS, "lang"),
            value: "fi".into(),
        },
        Event::Characters {
            text: "<![CDATA[".into(),
            cdata: true,
        },
        Event::EntityReference {
            name: "ent".into(),
            public_id: None,
            system_id: Some("e.xml".into()),
        },
        Event::StartElement(QName::new("", "urn:t", "x")),
        Event::Attribute {
            name: QName::new("a", "urn:t", "x"),
            value: "1".into(),
        },
        Event::EndElement,
    ];
    for t in [
        Typed::Int(29),
        Typed::Int(-300),
        Typed::Int(i64::MIN),
        Typed::Int(i64::MAX),
        Typed::Bool(true),
        Typed::Float(-0.5),
        Typed::Double(6.02e23),
        Typed::Base64(Cow::Borrowed(b"xebu")),
        Typed::Hex(Cow::Borrowed(&[1, 2, 255])),
        Typed::Uuid([0xAB; 16]),
        Typed::DateTime("2005-11-20T10:00:00.050-03:30".into()),
        Typed::DateTime("-0100-01-01Z".into()),
        Typed::DateTime("10:00:00".into()),
        Typed::DateTime("2005-W47".into()),
        Typed::Number("-0.0e0".into()),
        Typed::Null,
        Typed::List(vec![
            Typed::Int(1),
            Typed::List(vec![Typed::Bool(false)]),
            Typed::Null,
        ]),
    ] {
        v.push(Event::StartElement(QName::new("a", "urn:t", "v")));
        v.push(Event::Typed(t));
        v.push(Event::EndElement);
    }
    v.extend([
        Event::Comment("c".into()),
        Event::ProcessingInstruction {
            target: "pi".into(),
            data: "".into(),
        },
        Event::EndElement,
        Event::EndDocument,
    ]);
    v
}

fn check(name: &str, msgs: &[Vec<Event<'static>>], opts: XebuOptions, dir: &Path) {
    let bytes = encode_stream(msgs.iter().map(Vec::as_slice), opts).unwrap();
    let path = dir.join(format!("{name}.xebu"));
    std::fs::write(&path, &bytes).unwrap();
    let script = workspace_root().join("crates/binxml-xebu/tests/spec_decoder.py");
    let out = Command::new(binxml_testkit::python())
        .arg(&script)
        .arg(&path)
        .output()
        .expect("run Python (binxml_testkit::python())");
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    let mut expected = Vec::new();
    for m in msgs {
        dump(m, &mut expected);
    }
    let got: Vec<&str> = got.lines().collect();
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "{name}: line {i}");
    }
    assert_eq!(got.len(), expected.len(), "{name}: number of events");
}

#[test]
fn independent_decoder_from_the_spec_agrees() {
    let dir = scratch_dir("xebu-spec");
    let mut msgs = messages(60, &NotifyOptions::default().with_indent(true));
    msgs.push(typed_message());
    msgs.push(typed_message());
    for path in corpus_xml_files() {
        if std::fs::metadata(&path).unwrap().len() > 60_000 {
            continue;
        }
        if let Ok(ev) = binxml_xml::decode(&std::fs::read(&path).unwrap()) {
            msgs.push(ev);
        }
    }
    assert!(msgs.len() > 80, "{}", msgs.len());
    check("stream", &msgs, XebuOptions::default(), &dir);
    check("forget", &msgs, XebuOptions::forget(), &dir);
    let tiny = XebuOptions::default()
        .with_cache_size(2)
        .unwrap()
        .with_max_cached_len(1 << 20)
        .with_sequence_numbers(true);
    check("tiny", &msgs, tiny, &dir);
}
