//! JSON -> events -> XML text -> events -> JSON (the section 3.2 export and back).

use binxml_core::transcode;
use binxml_json::{JsonDecoder, decode, encode};
use binxml_xml::XmlWriter;

fn json_to_xml(json: &[u8]) -> Vec<u8> {
    let mut w = XmlWriter::new(Vec::new());
    transcode(&mut JsonDecoder::new(json), &mut w).unwrap();
    w.into_inner().unwrap()
}

fn xml_to_json(xml: &[u8]) -> Vec<u8> {
    encode(&binxml_xml::decode(xml).unwrap()).unwrap()
}

#[test]
fn documented_example() {
    let json = br#"{"name": "Bob", "64th": 1, "a b": [true, null], "": {}}"#;
    let xml = String::from_utf8(json_to_xml(json)).unwrap();
    assert_eq!(
        xml,
        r#"<json xmlns="urn:binxml:json" t="object"><name>Bob</name><u00364th t="number" key="64th">1</u00364th><au0020b t="array" key="a b"><item t="boolean">true</item><item t="null">null</item></au0020b><_ t="object" key=""/></json>"#
    );
    assert_eq!(
        xml_to_json(xml.as_bytes()),
        br#"{"name":"Bob","64th":1,"a b":[true,null],"":{}}"#
    );
}

#[test]
fn bench_files_through_xml_value_for_value() {
    for f in binxml_testkit::corpus_json_files("bench") {
        let data = std::fs::read(&f).unwrap();
        let direct = encode(&decode(&data).unwrap()).unwrap();
        let via_xml = xml_to_json(&json_to_xml(&data));
        // The same JSON text as the direct rewrite, which the other test compares value for value
        // with Python's json module.
        assert_eq!(
            String::from_utf8(via_xml).unwrap(),
            String::from_utf8(direct).unwrap(),
            "{}",
            f.display()
        );
    }
}

#[test]
fn conformance_y_files_through_xml() {
    // Those whose strings XML 1.0 can hold.
    let mut n = 0;
    for f in binxml_testkit::corpus_json_files("conformance") {
        let name = f.file_name().unwrap().to_str().unwrap();
        if !name.starts_with("y_") {
            continue;
        }
        let data = std::fs::read(&f).unwrap();
        let events = decode(&data).unwrap();
        let has_ctrl = events.iter().any(|e| match e {
            binxml_core::Event::Characters { text, .. } => text.chars().any(not_xml),
            binxml_core::Event::Attribute { value, .. } => value.chars().any(not_xml),
            _ => false,
        });
        if has_ctrl {
            continue;
        }
        let direct = encode(&events).unwrap();
        assert_eq!(xml_to_json(&json_to_xml(&data)), direct, "{name}");
        n += 1;
    }
    assert!(n > binxml_testkit::expected(80, 40), "{n}");
}

fn not_xml(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[test]
fn white_space_and_line_ends_survive_xml() {
    let json =
        br#"{"a":"a\r\nb","b":"\t","c":"  x  ","d":" ","e":"\r","f":["",{},[]],"g":"<&>\"'"}"#;
    let back = xml_to_json(&json_to_xml(json));
    assert_eq!(
        String::from_utf8(back).unwrap(),
        String::from_utf8(json.to_vec()).unwrap()
    );
}

#[test]
fn other_xml_is_written_as_jsonml() {
    let xml = br#"<?xml version="1.0"?><!-- c --><p:doc xmlns:p="urn:p" a="1"><t>x &amp; y</t><e/><?pi d?>tail</p:doc>"#;
    let ev = binxml_xml::decode(xml).unwrap();
    let json = String::from_utf8(encode(&ev).unwrap()).unwrap();
    assert_eq!(
        json,
        r#"["p:doc",{"xmlns:p":"urn:p","a":"1"},["t","x & y"],["e"],"tail"]"#
    );
    // It is JSON.
    decode(json.as_bytes()).unwrap();
    // Or, on request, an error.
    let mut enc = binxml_json::JsonEncoder::new(Vec::new()).xml_as_jsonml(false);
    let r = ev
        .iter()
        .try_for_each(|e| binxml_core::Encoder::write_event(&mut enc, e));
    assert_eq!(r.unwrap_err().kind(), binxml_core::ErrorKind::InvalidEvents);
}

#[test]
fn corpus_xml_as_jsonml_is_json() {
    for f in binxml_testkit::corpus_xml_files().iter().step_by(7) {
        let xml = std::fs::read(f).unwrap();
        let ev = binxml_xml::decode(&xml).unwrap();
        let json = encode(&ev).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        decode(&json).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}
