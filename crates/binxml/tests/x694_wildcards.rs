//! The facade gives its X.694 encoders and decoders the XML codec's `XmlFragments`: an
//! instance whose wildcards match an element and attributes converts to unaligned PER,
//! aligned PER and BER and back through `convert_with`, with an `X694` made without one (which
//! on its own refuses the element). The oracle checks (asn1tools, Canonical XML) are in
//! `crates/binxml-asn1/tests/x694.rs`.

use std::sync::Arc;

use binxml::asn1::x694::{Roots, X694};
use binxml::schema::model::Name;
use binxml::schema::{LoadOptions, Schema};
use binxml::{DecodeOptions, EncodeOptions, Format};

const XSD: &str = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:element name="root">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="a" type="xs:string"/>
        <xs:any namespace="##other" processContents="skip" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:anyAttribute namespace="##other" processContents="skip"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"###;

#[test]
fn wildcard_content_through_the_facade() {
    let schema = Schema::from_bytes_with(XSD.as_bytes(), "t.xsd", &LoadOptions::default()).unwrap();
    let x = Arc::new(
        X694::with_roots(Arc::new(schema), &Roots::Named(Name::new("urn:t", "root"))).unwrap(),
    );
    assert!(x.fragments().is_none());
    let xml = r#"<root xmlns="urn:t" xmlns:o="urn:o" o:z="1 &amp; 2"><a>1</a><o:c o:k="v">x<o:d/></o:c><p:e xmlns:p="urn:p">y</p:e></root>"#;
    let events: Vec<binxml::Event<'static>> = binxml::xml::decode(xml.as_bytes()).unwrap();
    assert!(x.encode_events(&events, Format::Asn1XsdUper).is_err());
    let eopts = EncodeOptions::default().with_x694(Some(x.clone()));
    let dopts = DecodeOptions::default().with_x694(Some(x.clone()));
    for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
        let mut bytes = Vec::new();
        binxml::convert_with(
            xml.as_bytes(),
            Format::Xml,
            &DecodeOptions::default(),
            format,
            &mut bytes,
            &eopts,
        )
        .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        let mut back = Vec::new();
        binxml::convert_with(
            &bytes,
            format,
            &dopts,
            Format::Xml,
            &mut back,
            &EncodeOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        let back = String::from_utf8(back).unwrap();
        // The module's prefix for urn:t, the elements' text with the declarations they use,
        // the attribute with its namespace's own prefix (the module has none for urn:o).
        assert_eq!(
            back,
            r#"<ns1:root xmlns:ns1="urn:t" xmlns:w1="urn:o" w1:z="1 &amp; 2"><ns1:a>1</ns1:a><o:c xmlns:o="urn:o" o:k="v">x<o:d/></o:c><p:e xmlns:p="urn:p">y</p:e></ns1:root>"#,
            "{format:?}"
        );
    }
}
