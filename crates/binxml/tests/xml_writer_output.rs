//! binxml's XML writer never writes what a parser refuses, on real documents: every XML document
//! of the corpus is encoded into every format, decoded again and written as XML by binxml's
//! writer (the path of `binxml convert`), and the XML must be read by binxml, by Python's expat
//! and, where the machine has it, by libxml2 (`binxml_testkit::XmlParsers`). The JSON files of
//! the corpus go the same way from JSON, and the XML documents through their JSON export too.
//! Every XML document must come through every format; a JSON file binxml's JSON decoder refuses,
//! or one whose strings XML cannot hold (the writer refuses it, with an `Unsupported` error), is
//! counted, not written. Every character XML holds is tried as a JSON member name too, since the
//! JSON mapping makes element names of member names.
//!
//! The Java Fast Infoset reference's encodings of the corpus are checked the same way in
//! binxml-fi's `tests/interop_java.rs`, where its driver runs. Its DOCTYPE items, which name no
//! document element and carry a system identifier as a public one, are made here by hand and
//! sent through every format to the writer.

use std::path::Path;

use binxml::{
    AnyDecoder, AnyEncoder, DecodeOptions, Decoder, DocType, EncodeOptions, Encoder, ErrorKind,
    Event, Format, QName,
};
use binxml_testkit::{XmlParsers, corpus_dir, corpus_json_files, corpus_xml_files, scratch_dir};

/// Reads `xml` with binxml (every event pulled), then with expat and libxml2.
fn read_back(parsers: &mut XmlParsers, xml: &[u8], scratch: &Path) -> Result<(), String> {
    let mut dec = AnyDecoder::new(Format::Xml, xml, &DecodeOptions::default())
        .map_err(|e| format!("binxml: {e}"))?;
    while dec
        .next_event()
        .map_err(|e| format!("binxml: {e}"))?
        .is_some()
    {}
    parsers.check_bytes(xml, scratch)
}

/// The document `input` in format `from`, written as XML by binxml's writer.
fn to_xml(input: &[u8], from: Format, eopts: &EncodeOptions) -> binxml::Result<Vec<u8>> {
    let mut out = Vec::new();
    binxml::convert_with(
        input,
        from,
        &DecodeOptions::default(),
        Format::Xml,
        &mut out,
        eopts,
    )?;
    Ok(out)
}

#[test]
fn corpus_from_every_format_through_the_xml_writer() {
    let files = corpus_xml_files();
    let root = corpus_dir();
    let dir = scratch_dir("xml-writer-corpus");
    let scratch = dir.join("out.xml");
    let mut parsers = XmlParsers::start();
    let mut problems = Vec::new();
    let mut written = 0;
    let indented = EncodeOptions::default().with_indent(Some(2));
    for path in &files {
        let name = path.strip_prefix(&root).unwrap_or(path).display();
        let xml = std::fs::read(path).unwrap();
        // From XML itself (the writer's view of what the reader gives), plainly and indented.
        let mut outputs = vec![
            (
                "xml".to_string(),
                to_xml(&xml, Format::Xml, &EncodeOptions::default()),
            ),
            (
                "xml, indented".to_string(),
                to_xml(&xml, Format::Xml, &indented),
            ),
        ];
        for &f in Format::ALL.iter().filter(|&&f| f != Format::Xml) {
            let encoded = match binxml::convert(&xml, Some(Format::Xml), f) {
                Ok(b) => b,
                Err(e) => {
                    problems.push(format!("{name}: {} encoder: {e}", f.name()));
                    continue;
                }
            };
            outputs.push((
                f.name().to_string(),
                to_xml(&encoded, f, &EncodeOptions::default()),
            ));
        }
        for (via, out) in outputs {
            match out {
                Ok(out) => {
                    written += 1;
                    if let Err(e) = read_back(&mut parsers, &out, &scratch) {
                        problems.push(format!(
                            "{name} via {via}: the writer's output is refused: {e}"
                        ));
                    }
                }
                Err(e) => problems.push(format!("{name} via {via}: {e}")),
            }
        }
    }
    let formats = Format::ALL.len() + 1;
    eprintln!(
        "{} corpus documents x {formats} paths: {written} XML outputs read by binxml and expat{}",
        files.len(),
        if parsers.has_libxml2() {
            " and libxml2"
        } else {
            ""
        }
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(written, files.len() * formats);
}

#[test]
fn corpus_json_through_the_xml_writer() {
    let files: Vec<_> = ["bench", "conformance"]
        .iter()
        .flat_map(|sub| corpus_json_files(sub))
        .collect();
    assert!(!files.is_empty(), "no JSON files in the corpus");
    let dir = scratch_dir("xml-writer-json");
    let scratch = dir.join("out.xml");
    let mut parsers = XmlParsers::start();
    let mut problems = Vec::new();
    let (mut written, mut not_json, mut refused) = (0, 0, Vec::new());
    for path in &files {
        let json = std::fs::read(path).unwrap();
        // A file the JSON decoder refuses is no input for the writer (the conformance set holds
        // the n_ files that must be refused).
        let mut dec = AnyDecoder::new(Format::Json, &json, &DecodeOptions::default()).unwrap();
        if std::iter::from_fn(|| dec.next_event().transpose()).any(|e| e.is_err()) {
            not_json += 1;
            continue;
        }
        match to_xml(&json, Format::Json, &EncodeOptions::default()) {
            Ok(out) => {
                written += 1;
                if let Err(e) = read_back(&mut parsers, &out, &scratch) {
                    problems.push(format!("{}: {e}", path.display()));
                }
            }
            Err(e) if e.kind() == ErrorKind::Unsupported => {
                refused.push(format!("{}: {e}", path.file_name().unwrap().display()))
            }
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} JSON files: {written} written as XML and read back, {} refused by the writer, \
         {not_json} not read as JSON",
        files.len(),
        refused.len()
    );
    for r in &refused {
        eprintln!("  refused: {r}");
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(written > 0, "no JSON file written as XML");
}

/// The DOCTYPE a Fast Infoset document gives (no name; the Java reference writes a SYSTEM-only
/// DOCTYPE's identifier with the public-identifier flag), with a comment and a processing
/// instruction before the root element: from every format, the writer names the DOCTYPE after
/// the root element and writes the lone public identifier as the system identifier, never as
/// `PUBLIC "x.dtd"`, which no parser reads.
#[test]
fn fast_infoset_doctype_through_every_format() {
    let events = vec![
        Event::start_document(),
        Event::DocType(DocType {
            name: "".into(),
            public_id: Some("x.dtd".into()),
            system_id: None,
            internal_subset: None,
        }),
        Event::Comment(" before the root ".into()),
        Event::ProcessingInstruction {
            target: "pi".into(),
            data: "d".into(),
        },
        Event::StartElement(QName::local("svg")),
        Event::text("t"),
        Event::EndElement,
        Event::EndDocument,
    ];
    let dir = scratch_dir("xml-writer-doctype");
    let scratch = dir.join("out.xml");
    let mut parsers = XmlParsers::start();
    let mut kept = Vec::new();
    for &f in Format::ALL.iter().filter(|&&f| f != Format::Json) {
        let mut encoded = Vec::new();
        let mut enc = AnyEncoder::new(f, &mut encoded, &EncodeOptions::default());
        enc.write_events(&events).unwrap();
        enc.finish().unwrap();
        drop(enc);
        let xml = to_xml(&encoded, f, &EncodeOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        let text = String::from_utf8(xml.clone()).unwrap();
        if let Some(at) = text.find("<!DOCTYPE") {
            kept.push(f.name());
            assert!(
                text[at..].starts_with("<!DOCTYPE svg SYSTEM \"x.dtd\">"),
                "{}: {text}",
                f.name()
            );
        }
        read_back(&mut parsers, &xml, &scratch)
            .unwrap_or_else(|e| panic!("{}: {e}: {text}", f.name()));
    }
    // Every format but EXI, whose default fidelity options leave DTDs out.
    let want: Vec<_> = Format::ALL
        .iter()
        .filter(|&&f| f != Format::Json && f != Format::Exi)
        .map(|f| f.name())
        .collect();
    assert_eq!(kept, want, "the formats the DOCTYPE came through");
}

/// A JSON object whose member names are `c` and `a` followed by `c`, for each character given
/// (written as `\u` escapes).
fn json_with_names(chars: &[char]) -> Vec<u8> {
    let esc = |c: char| -> String {
        let mut units = [0u16; 2];
        c.encode_utf16(&mut units)
            .iter()
            .map(|u| format!("\\u{u:04x}"))
            .collect()
    };
    let members: Vec<String> = chars
        .iter()
        .flat_map(|&c| [format!("\"{}\":0", esc(c)), format!("\"a{}\":1", esc(c))])
        .collect();
    format!("{{{}}}", members.join(",")).into_bytes()
}

/// Every character XML can hold, as a JSON member name and after a letter in one: the names
/// the JSON mapping makes of them are read by binxml, expat and libxml2 (the mapping keeps a
/// character only where every edition's name rules allow it, and escapes the others).
#[test]
fn every_character_in_a_json_member_name() {
    let chars: Vec<char> = (0x20u32..0x10000)
        .chain([0x10000, 0x1F511, 0xEFFFF, 0x10FFFD])
        .filter_map(char::from_u32)
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    let dir = scratch_dir("xml-writer-json-names");
    let scratch = dir.join("out.xml");
    let mut parsers = XmlParsers::start();
    let mut refused = Vec::new();
    let check = |chars: &[char], parsers: &mut XmlParsers| -> Result<(), String> {
        let xml = to_xml(
            &json_with_names(chars),
            Format::Json,
            &EncodeOptions::default(),
        )
        .map_err(|e| e.to_string())?;
        read_back(parsers, &xml, &scratch)
    };
    for chunk in chars.chunks(2048) {
        if check(chunk, &mut parsers).is_err() {
            // Name the characters one by one.
            for &c in chunk {
                if let Err(e) = check(&[c], &mut parsers) {
                    refused.push(format!("U+{:04X}: {e}", c as u32));
                }
            }
        }
    }
    assert!(
        refused.is_empty(),
        "{} member names refused:\n{}",
        refused.len(),
        refused[..refused.len().min(20)].join("\n")
    );
}
