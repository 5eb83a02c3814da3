//! Hostile schemas: each gives an error (or loads within bounds), never a panic, a hang, a
//! stack overflow or unbounded memory.

use std::time::Instant;

use binxml_schema::{LoadOptions, Schema, Validator};

const HEAD: &str = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">"#;

fn load(body: &str) -> Result<Schema, String> {
    let xsd = format!("{HEAD}{body}</xs:schema>");
    Schema::from_bytes_with(xsd.as_bytes(), "hostile.xsd", &LoadOptions::default())
        .map_err(|e| e.to_string())
}

#[test]
fn include_cycles_are_read_once() {
    let dir = binxml_testkit::scratch_dir("schema-include-cycle");
    std::fs::write(
        dir.join("a.xsd"),
        format!(r#"{HEAD}<xs:include schemaLocation="b.xsd"/><xs:element name="a" type="xs:string"/></xs:schema>"#),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.xsd"),
        format!(r#"{HEAD}<xs:include schemaLocation="a.xsd"/><xs:element name="b" type="xs:string"/></xs:schema>"#),
    )
    .unwrap();
    let s = Schema::load(dir.join("a.xsd")).unwrap();
    assert_eq!(s.documents().len(), 2);
    assert_eq!(s.global_elements().count(), 2);
}

#[test]
fn devices_and_huge_files_are_not_read() {
    let e = load(r#"<xs:include schemaLocation="/dev/zero"/>"#).unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
    let dir = binxml_testkit::scratch_dir("schema-huge");
    let big = dir.join("big.xsd");
    std::fs::write(&big, vec![b' '; 2048]).unwrap();
    let mut o = LoadOptions::default();
    o.max_document_bytes = 1024;
    let e = Schema::load_with(&big, &o).unwrap_err().to_string();
    assert!(e.contains("larger than 1024 bytes"), "{e}");
}

#[test]
fn long_derivation_chains_are_refused() {
    let mut body = String::new();
    for i in 0..5000 {
        body.push_str(&format!(
            r#"<xs:simpleType name="t{i}"><xs:restriction base="t{}"/></xs:simpleType>"#,
            i + 1
        ));
    }
    body.push_str(
        r#"<xs:simpleType name="t5000"><xs:restriction base="xs:string"/></xs:simpleType>"#,
    );
    let e = load(&body).unwrap_err();
    assert!(e.contains("derived through more than"), "{e}");
}

#[test]
fn deep_group_chains_are_refused() {
    // Each group nests a sequence 200 deep and refers to the next: expanded in place, the
    // particles would nest 10,000 deep.
    let mut body = String::new();
    for g in 0..50 {
        let mut inner = if g < 49 {
            format!(r#"<xs:group ref="g{}"/>"#, g + 1)
        } else {
            r#"<xs:element name="leaf"/>"#.to_string()
        };
        for _ in 0..200 {
            inner = format!("<xs:sequence>{inner}</xs:sequence>");
        }
        body.push_str(&format!(r#"<xs:group name="g{g}">{inner}</xs:group>"#));
    }
    body.push_str(r#"<xs:element name="r"><xs:complexType><xs:group ref="g0"/></xs:complexType></xs:element>"#);
    let e = load(&body).unwrap_err();
    assert!(e.contains("nested more than"), "{e}");
}

#[test]
fn a_hundred_thousand_enumerations_load_and_validate() {
    let mut body = String::from(r#"<xs:simpleType name="e"><xs:restriction base="xs:string">"#);
    for i in 0..100_000 {
        body.push_str(&format!(r#"<xs:enumeration value="v{i}"/>"#));
    }
    body.push_str(r#"</xs:restriction></xs:simpleType><xs:element name="r" type="e"/>"#);
    let t = Instant::now();
    let s = load(&body).unwrap();
    let xml = b"<r>v99999</r>";
    let errors = Validator::validate(&s, &mut binxml_xml::XmlDecoder::new(xml)).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let errors = Validator::validate(&s, &mut binxml_xml::XmlDecoder::new(b"<r>w</r>")).unwrap();
    assert_eq!(errors.len(), 1);
    assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
}

#[test]
fn garbage_never_panics() {
    for body in [
        r#"<xs:element name="a" type="xs:nope"/>"#,
        r#"<xs:element/>"#,
        r#"<xs:element name="a"><xs:complexType><xs:sequence minOccurs="x"/></xs:complexType></xs:element>"#,
        r#"<xs:element name="a" substitutionGroup="a"/>"#,
        r#"<xs:element name="a" substitutionGroup="b"/><xs:element name="b" substitutionGroup="a"/>"#,
        r#"<xs:simpleType name="l"><xs:list itemType="l"/></xs:simpleType>"#,
        r#"<xs:simpleType name="u"><xs:union memberTypes="u"/></xs:simpleType>"#,
        r#"<xs:complexType name="c"><xs:simpleContent><xs:extension base="c"/></xs:simpleContent></xs:complexType>"#,
        r#"<xs:attributeGroup name="g"><xs:attributeGroup ref="g"/></xs:attributeGroup><xs:complexType name="c"><xs:attributeGroup ref="g"/></xs:complexType>"#,
        r#"<xs:simpleType name="p"><xs:restriction base="xs:string"><xs:pattern value="(((("/></xs:restriction></xs:simpleType>"#,
        r#"<xs:simpleType name="m"><xs:restriction base="xs:int"><xs:minInclusive value="5"/><xs:maxInclusive value="1"/></xs:restriction></xs:simpleType>"#,
        r#"<xs:redefine schemaLocation="nowhere.xsd"/>"#,
        r#"<xs:import namespace="urn:x" schemaLocation="https://example.com/x.xsd"/>"#,
    ] {
        let _ = load(body);
    }
}
