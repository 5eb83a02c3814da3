//! XebuS: the omission automata of `schemas/notify.rnc` (and `.rng`). Every round trip is
//! compared with the original by the C14N oracle: the notification messages (stream and forget
//! mode, typed and text integers, indented and not), messages that deviate from the schema, the
//! corpus documents under a schema that says nothing about them, and a stream decoded with
//! another schema (an error or other events, never a panic).

use std::path::PathBuf;

use binxml_core::{Decoder, Encoder, Event, Limits};
use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir, workspace_root};
use binxml_xebu::notify::{NotifyOptions, messages};
use binxml_xebu::{XebuDecoder, XebuEncoder, XebuOptions, XebuSchema};

fn schema(name: &str) -> XebuSchema {
    let path = workspace_root()
        .join("crates/binxml-xebu/schemas")
        .join(name);
    XebuSchema::new(binxml_schema::relaxng::RelaxNg::load(path).unwrap())
}

fn encode(msgs: &[Vec<Event<'_>>], opts: XebuOptions, s: &XebuSchema) -> Vec<u8> {
    let mut e = XebuEncoder::with_schema(Vec::new(), opts, s);
    for m in msgs {
        e.write_message(m).unwrap();
    }
    e.finish().unwrap();
    e.into_inner()
}

fn decode(bytes: &[u8], s: &XebuSchema) -> binxml_core::Result<Vec<Vec<Event<'static>>>> {
    let mut d = XebuDecoder::with_schema(bytes, Limits::default(), s);
    let mut out = Vec::new();
    loop {
        let mut m = Vec::new();
        while let Some(ev) = d.next_event()? {
            m.push(ev.into_owned());
        }
        out.push(m);
        if !d.next_message() {
            return Ok(out);
        }
    }
}

fn xml(events: &[Event<'_>]) -> Vec<u8> {
    binxml_xml::encode(events).unwrap()
}

/// Compares each decoded message with its original through the C14N oracle.
fn same_infosets(name: &str, original: &[Vec<u8>], decoded: &[Vec<Event<'_>>]) {
    assert_eq!(original.len(), decoded.len(), "{name}: message count");
    let dir = scratch_dir(&format!("xebus-{name}"));
    let mut oracle = C14nOracle::start();
    for (i, (o, d)) in original.iter().zip(decoded).enumerate() {
        let a = dir.join(format!("{i}-a.xml"));
        let b = dir.join(format!("{i}-b.xml"));
        std::fs::write(&a, o).unwrap();
        std::fs::write(&b, xml(d)).unwrap();
        oracle
            .compare(&a, &b)
            .unwrap_or_else(|e| panic!("{name} message {i}: {e}"));
    }
}

#[test]
fn notifications_round_trip_and_shrink() {
    for file in ["notify.rnc", "notify.rng"] {
        let s = schema(file);
        for (typed, indent) in [(true, false), (false, false), (true, true)] {
            let msgs = messages(
                40,
                &NotifyOptions::default()
                    .with_typed(typed)
                    .with_indent(indent),
            );
            let original: Vec<Vec<u8>> = msgs.iter().map(|m| xml(m)).collect();
            let xml_size: usize = original.iter().map(Vec::len).sum();
            for opts in [XebuOptions::default(), XebuOptions::forget()] {
                let plain =
                    binxml_xebu::encode_stream(msgs.iter().map(|m| m.as_slice()), opts.clone())
                        .unwrap();
                let bytes = encode(&msgs, opts.clone(), &s);
                if !indent {
                    assert!(
                        bytes.len() * 100 < plain.len() * 75,
                        "{file}: XebuS {} bytes, Xebu {} bytes",
                        bytes.len(),
                        plain.len()
                    );
                }
                eprintln!(
                    "{file} typed={typed} indent={indent} forget={}: XML {xml_size}, Xebu {}, XebuS {}",
                    opts.forget,
                    plain.len(),
                    bytes.len()
                );
                assert!(bytes.len() < plain.len());
                if !opts.forget && !indent {
                    // The paper's XebuS: 16.3% of the XML.
                    assert!(bytes.len() * 1000 < xml_size * 163);
                }
                let back = decode(&bytes, &s).unwrap();
                same_infosets(
                    &format!("notify-{typed}-{indent}-{}", opts.forget),
                    &original,
                    &back,
                );
                // Without the schema the stream is refused, not misread.
                let e = binxml_xebu::decode_stream(&bytes).unwrap_err();
                assert!(e.message().contains("schema"), "{e}");
            }
        }
    }
}

#[test]
fn deviating_messages_round_trip() {
    let s = schema("notify.rnc");
    let dir = workspace_root().join("tests/schemas/relaxng/notify");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    let originals: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let msgs: Vec<Vec<Event<'_>>> = originals
        .iter()
        .map(|x| binxml_xml::decode(x).unwrap())
        .collect();
    for opts in [XebuOptions::default(), XebuOptions::forget()] {
        let bytes = encode(&msgs, opts, &s);
        let back = decode(&bytes, &s).unwrap();
        same_infosets("deviating", &originals, &back);
    }
}

#[test]
fn corpus_documents_pass_through_a_schema_about_something_else() {
    let s = schema("notify.rnc");
    let files = corpus_xml_files();
    assert!(!files.is_empty());
    let mut originals = Vec::new();
    let mut msgs = Vec::new();
    for f in &files {
        let x = std::fs::read(f).unwrap();
        let Ok(ev) = binxml_xml::decode(&x) else {
            continue;
        };
        msgs.push(ev.into_iter().map(Event::into_owned).collect::<Vec<_>>());
        originals.push(x);
    }
    let bytes = encode(&msgs, XebuOptions::default(), &s);
    let back = decode(&bytes, &s).unwrap();
    same_infosets("corpus", &originals, &back);
}

#[test]
fn another_schema_gives_an_error_or_other_events_never_a_panic() {
    let s = schema("notify.rnc");
    let msgs = messages(5, &NotifyOptions::default());
    let bytes = encode(&msgs, XebuOptions::default(), &s);
    let others = [
        "start = element Envelope { anything }  anything = (element * { anything } | attribute * { text } | text)*",
        "element x { empty }",
        "start = a  a = element a { a? }",
        "default namespace = \"http://schemas.xmlsoap.org/soap/envelope/\"
         element Envelope { element Header { empty }, element Body { text } }",
    ];
    for o in others {
        let other = XebuSchema::new(
            binxml_schema::relaxng::RelaxNg::from_bytes(
                o.as_bytes(),
                "o.rnc",
                true,
                &Default::default(),
            )
            .unwrap(),
        );
        let _ = decode(&bytes, &other);
    }
    // Damaged streams: every truncation and a sample of byte flips.
    for cut in 0..bytes.len().min(600) {
        let _ = decode(&bytes[..cut], &s);
    }
    let mut flipped = bytes.clone();
    for i in (0..bytes.len()).step_by(7) {
        flipped[i] ^= 0x5A;
        let _ = decode(&flipped, &s);
        flipped[i] ^= 0x5A;
    }
}

#[test]
fn recursive_and_large_schemas_stay_bounded() {
    let load = |rnc: &str| {
        XebuSchema::new(
            binxml_schema::relaxng::RelaxNg::from_bytes(
                rnc.as_bytes(),
                "t.rnc",
                true,
                &Default::default(),
            )
            .unwrap(),
        )
    };
    // A recursive schema and a document 3,000 levels deep: every level's start is forced.
    let s = load("start = a  a = element a { element b { xsd:int }, a? }");
    let depth = 3000;
    let mut doc = String::new();
    for i in 0..depth {
        doc.push_str(&format!("<a><b>{i}</b>"));
    }
    doc.push_str(&"</a>".repeat(depth));
    let mut x = binxml_xml::XmlDecoder::with_limits(
        doc.as_bytes(),
        Limits::default().with_max_depth(10_000),
    );
    let events: Vec<Event<'_>> = std::iter::from_fn(|| x.next_event().transpose())
        .collect::<Result<_, _>>()
        .unwrap();
    let bytes = encode(std::slice::from_ref(&events), XebuOptions::default(), &s);
    let plain = binxml_xebu::encode(&events).unwrap();
    assert!(
        bytes.len() < plain.len() / 2,
        "{} vs {}",
        bytes.len(),
        plain.len()
    );
    let mut d = XebuDecoder::with_schema(&bytes, Limits::default().with_max_depth(10_000), &s);
    let mut back = Vec::new();
    while let Some(ev) = d.next_event().unwrap() {
        back.push(ev);
    }
    assert_eq!(xml(&back), xml(&events));
    // The decoder's depth limit holds for the events it puts back.
    let mut d = XebuDecoder::with_schema(&bytes, Limits::default().with_max_depth(100), &s);
    let e = std::iter::from_fn(|| d.next_event().transpose())
        .find_map(Result::err)
        .unwrap();
    assert!(e.message().contains("depth"), "{e}");
    // A choice of 3,000 element names.
    let names: Vec<String> = (0..3000)
        .map(|i| format!("element e{i} {{ xsd:int }}"))
        .collect();
    let s = load(&format!("element r {{ ({})* }}", names.join(" | ")));
    let doc = format!(
        "<r>{}</r>",
        (0..3000)
            .map(|i| format!("<e{i}>{i}</e{i}>"))
            .collect::<String>()
    );
    let events = binxml_xml::decode(doc.as_bytes()).unwrap();
    let bytes = encode(std::slice::from_ref(&events), XebuOptions::default(), &s);
    let back = decode(&bytes, &s).unwrap();
    assert_eq!(xml(&back[0]), xml(&events));
}
