//! The validator on small schemas written for one rule each, and on the corpus's invoices.

use binxml_schema::{Invalid, LoadOptions, Schema, Validator};
use binxml_xml::XmlDecoder;

fn schema(body: &str) -> Schema {
    let xsd = format!(
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:t" targetNamespace="urn:t" elementFormDefault="qualified">{body}</xs:schema>"#
    );
    Schema::from_bytes_with(xsd.as_bytes(), "test.xsd", &LoadOptions::default()).unwrap()
}

fn errors(s: &Schema, xml: &str) -> Vec<Invalid> {
    Validator::validate(s, &mut XmlDecoder::new(xml.as_bytes())).unwrap()
}

fn valid(s: &Schema, xml: &str) {
    let e = errors(s, xml);
    assert!(e.is_empty(), "{xml}: {e:?}");
}

fn invalid(s: &Schema, xml: &str, what: &str) {
    let e = errors(s, xml);
    assert!(
        e.iter().any(|e| e.message.contains(what)),
        "{xml}: expected '{what}', got {e:?}"
    );
}

#[test]
fn sequences_choices_and_bounds() {
    let s = schema(
        r#"<xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element name="a" minOccurs="2" maxOccurs="3"/>
             <xs:choice><xs:element name="b"/><xs:element name="c" maxOccurs="unbounded"/></xs:choice>
             <xs:element name="d" minOccurs="0"/>
           </xs:sequence></xs:complexType></xs:element>"#,
    );
    valid(&s, r#"<r xmlns="urn:t"><a/><a/><b/></r>"#);
    valid(&s, r#"<r xmlns="urn:t"><a/><a/><a/><c/><c/><c/><d/></r>"#);
    invalid(&s, r#"<r xmlns="urn:t"><a/><b/></r>"#, "not allowed here");
    invalid(
        &s,
        r#"<r xmlns="urn:t"><a/><a/><a/><a/><b/></r>"#,
        "not allowed here",
    );
    invalid(&s, r#"<r xmlns="urn:t"><a/><a/></r>"#, "ends too early");
    invalid(
        &s,
        r#"<r xmlns="urn:t"><a/><a/><b/><c/></r>"#,
        "not allowed here",
    );
    invalid(
        &s,
        r#"<x xmlns="urn:t"/>"#,
        "not declared as a global element",
    );
}

#[test]
fn attributes_text_and_empty_content() {
    let s = schema(
        r#"<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="e" type="E"/></xs:sequence>
             <xs:attribute name="req" use="required"/><xs:attribute name="opt" fixed="x"/>
           </xs:complexType></xs:element>
           <xs:complexType name="E"><xs:attribute name="a"/></xs:complexType>"#,
    );
    valid(&s, r#"<r xmlns="urn:t" req="1"> <e a="2"/> </r>"#);
    invalid(
        &s,
        r#"<r xmlns="urn:t"><e/></r>"#,
        "required attribute req is missing",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" req="1" other="2"><e/></r>"#,
        "attribute other is not allowed",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" req="1" opt="y"><e/></r>"#,
        "differs from the fixed value",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" req="1">text<e/></r>"#,
        "element-only content",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" req="1"><e>x</e></r>"#,
        "empty content",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" req="1"><e><r/></e></r>"#,
        "empty content",
    );
}

#[test]
fn extension_all_groups_and_substitution() {
    let s = schema(
        r#"<xs:complexType name="Base"><xs:sequence><xs:element name="a"/></xs:sequence><xs:attribute name="x"/></xs:complexType>
           <xs:complexType name="Derived"><xs:complexContent><xs:extension base="Base">
             <xs:sequence><xs:element name="b"/></xs:sequence><xs:attribute name="y"/>
           </xs:extension></xs:complexContent></xs:complexType>
           <xs:element name="head" type="Base" abstract="true"/>
           <xs:element name="member" substitutionGroup="head"/>
           <xs:element name="other" type="Derived" substitutionGroup="head"/>
           <xs:element name="r"><xs:complexType><xs:sequence>
             <xs:element ref="head" maxOccurs="unbounded"/>
             <xs:element name="bag"><xs:complexType><xs:all><xs:element name="p"/><xs:element name="q" minOccurs="0"/></xs:all></xs:complexType></xs:element>
           </xs:sequence></xs:complexType></xs:element>"#,
    );
    valid(
        &s,
        r#"<r xmlns="urn:t"><member x="1"><a/></member><other y="2"><a/><b/></other><bag><q/><p/></bag></r>"#,
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t"><head><a/></head><bag><p/></bag></r>"#,
        "not allowed here",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t"><other><a/></other><bag><p/></bag></r>"#,
        "ends too early",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t"><member><a/></member><bag><q/></bag></r>"#,
        "required element",
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t"><member><a/></member><bag><p/><p/></bag></r>"#,
        "occurs 2 times",
    );
    // xsi:type to a derived type; to an unrelated type.
    valid(
        &s,
        r#"<r xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:t="urn:t"><member xsi:type="t:Derived"><a/><b/></member><bag><p/></bag></r>"#,
    );
    invalid(
        &s,
        r#"<r xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:t="urn:t"><member xsi:type="t:Nope"><a/></member><bag><p/></bag></r>"#,
        "not a declared type",
    );
}

#[test]
fn wildcards_and_nil() {
    let s = schema(
        r###"<xs:element name="known" type="xs:string"/>
           <xs:element name="r"><xs:complexType><xs:sequence>
             <xs:any namespace="##other" processContents="skip" minOccurs="0"/>
             <xs:any namespace="##targetNamespace" processContents="strict" minOccurs="0"/>
             <xs:element name="n" nillable="true" type="xs:string" minOccurs="0"/>
           </xs:sequence><xs:anyAttribute namespace="urn:o" processContents="lax"/></xs:complexType></xs:element>"###,
    );
    valid(
        &s,
        r###"<r xmlns="urn:t" xmlns:o="urn:o" o:x="1"><o:any><deep/></o:any><known>k</known></r>"###,
    );
    invalid(
        &s,
        r###"<r xmlns="urn:t"><unknown/></r>"###,
        "strict wildcard",
    );
    invalid(&s, r###"<r xmlns="urn:t" other="1"/>"###, "not allowed");
    valid(
        &s,
        r###"<r xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><n xsi:nil="true"/></r>"###,
    );
    invalid(
        &s,
        r###"<r xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><n xsi:nil="true">x</n></r>"###,
        "no content",
    );
}

#[test]
fn hostile_schemas_are_refused() {
    let big = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType><xs:sequence>
                   <xs:element name="a" maxOccurs="4000000000"/></xs:sequence></xs:complexType></xs:element></xs:schema>"#;
    let e =
        Schema::from_bytes_with(big.as_bytes(), "big.xsd", &LoadOptions::default()).unwrap_err();
    assert!(e.message().contains("states"), "{e}");
    let cyclic = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
                    <xs:group name="g"><xs:sequence><xs:group ref="g"/></xs:sequence></xs:group>
                    <xs:element name="r"><xs:complexType><xs:group ref="g"/></xs:complexType></xs:element></xs:schema>"#;
    let e = Schema::from_bytes_with(cyclic.as_bytes(), "cyclic.xsd", &LoadOptions::default())
        .unwrap_err();
    assert!(e.message().contains("contains itself"), "{e}");
    let derived = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
                    <xs:complexType name="a"><xs:complexContent><xs:extension base="b"/></xs:complexContent></xs:complexType>
                    <xs:complexType name="b"><xs:complexContent><xs:extension base="a"/></xs:complexContent></xs:complexType></xs:schema>"#;
    let e = Schema::from_bytes_with(derived.as_bytes(), "derived.xsd", &LoadOptions::default())
        .unwrap_err();
    assert!(e.message().contains("derived from itself"), "{e}");
    let remote = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="http://example.com/x.xsd"/></xs:schema>"#;
    let e = Schema::from_bytes_with(remote.as_bytes(), "remote.xsd", &LoadOptions::default())
        .unwrap_err();
    assert!(e.message().contains("never fetched"), "{e}");
    assert_eq!(e.line_col(), Some((1, 56)), "{e}");
}

#[test]
fn corpus_invoices_are_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/exi_w3c_testsuite/data/Invoice");
    if !dir.exists() {
        eprintln!("skipped: ../shared/corpus is absent");
        return;
    }
    let s = Schema::load(dir.join("sm-inv.xsd")).unwrap();
    for n in ["inv1.xml", "inv10.xml", "inv100.xml", "inv1000.xml"] {
        let xml = std::fs::read(dir.join(n)).unwrap();
        let e = Validator::validate(&s, &mut XmlDecoder::new(&xml)).unwrap();
        assert!(e.is_empty(), "{n}: {:?}", &e[..e.len().min(5)]);
    }
}
