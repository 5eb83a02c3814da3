//! X.694 against its independent oracle (`interop/asn1/x694_oracle.py`: PyPI asn1tools and
//! Python's ElementTree, installed by `interop/asn1/setup.sh`), over every valid instance of
//! `tests/schemas/sets.tsv`:
//!
//! * asn1tools compiles the module binxml prints for the schema (the part before the XER
//!   encoding control section, which PER ignores);
//! * asn1tools decodes binxml's UPER and APER encodings of each instance as the root element's
//!   type, re-encodes the value and gets the same bytes;
//! * binxml decodes its encoding back to the instance's infoset, with the mapping's
//!   normalisations (docs/x694.md), as ElementTree compares them;
//! * the oracle builds its own value of the instance (the script's mapping from the XML, guided
//!   by the module's types and the XER encoding instructions binxml prints), asn1tools encodes
//!   it, and binxml decodes that to the instance's infoset.
//!
//! Each set has an expected outcome: the sets whose instances use what the mapping does not
//! cover yet must be refused with the reason, so that covering more changes this test.
//! Without asn1tools the test fails when `CI=true` and is skipped otherwise.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use binxml_asn1::x694::{Roots, X694};
use binxml_core::{Event, Format};
use binxml_schema::model::Name;
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::{LineOracle, schema_sets, scratch_dir, workspace_root};

const F: Format = Format::Asn1XsdUper;

fn load(schema: &Path, catalog: Option<&Path>) -> Schema {
    let mut o = LoadOptions::default();
    if let Some(c) = catalog {
        let dir = c.parent().unwrap();
        for line in std::fs::read_to_string(c).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (url, file) = line.split_once('\t').unwrap();
            o = o.with_location(url, dir.join(file));
        }
    }
    Schema::load_with(schema, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// What each set's instances must give: `(None, _)` passes the oracle, `(Some(s), false)`:
/// refused by the encoder with an error containing `s`; `(Some(s), true)`: either.
fn expected(set: &str) -> (Option<&'static str>, bool) {
    match set {
        // UDDI v3: the one valid instance (signed; mixed dsig:Transform content). The schema
        // for schemas: annotations' mixed content with elements that match wildcards
        // (`xs:appinfo`, `xs:documentation`), attributes of other namespaces (`openAttrs`).
        "invoice" | "ubl21" | "bbf-dm" | "fpml4" | "uddi3" | "xmlschema" => (None, false),
        _ => (Some("?"), false),
    }
}

fn oracle() -> Option<LineOracle> {
    let ok = Command::new(binxml_testkit::python())
        .args(["-c", "import asn1tools"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("asn1tools is missing: run interop/asn1/setup.sh");
        }
        eprintln!("SKIP: asn1tools is missing (run interop/asn1/setup.sh)");
        return None;
    }
    Some(
        LineOracle::spawn(
            Command::new(binxml_testkit::python())
                .arg(workspace_root().join("interop/asn1/x694_oracle.py")),
        )
        .expect("start the oracle"),
    )
}

#[test]
fn instances_against_asn1tools() {
    let Some(mut py) = oracle() else { return };
    let answer = py.ask(&["selfcheck"]);
    assert_eq!(answer, "ok", "semi-constrained integers against pycrate");
    let scratch = scratch_dir("x694-oracle");
    let mut mapped: HashMap<String, Arc<X694>> = HashMap::new();
    let (mut passed, mut refused, mut failures) = (0, 0, Vec::new());
    for (n, row) in schema_sets().iter().enumerate() {
        if !row.present() || !row.expected_valid {
            continue;
        }
        let schema = row.schema.as_ref().unwrap();
        let instance = row.instance.as_ref().unwrap();
        let xml = std::fs::read(instance).unwrap();
        let events = binxml_xml::decode(&xml).unwrap();
        let root = events
            .iter()
            .find_map(|e| match e {
                Event::StartElement(q) => Some(Name::new(&*q.namespace, &*q.local)),
                _ => None,
            })
            .unwrap();
        let key = format!("{} {root}", schema.display());
        let x = mapped
            .entry(key.clone())
            .or_insert_with(|| {
                let schema = Arc::new(load(schema, row.catalog.as_deref()));
                let x = X694::with_roots(schema, &Roots::Named(root.clone()))
                    .unwrap()
                    .with_fragments(Arc::new(binxml::XmlText));
                let module = scratch.join(format!("{n}.asn"));
                std::fs::write(&module, x.text(true)).unwrap();
                let answer = py.ask(&["compile", &module.display().to_string()]);
                assert!(answer.starts_with("ok"), "{key}: asn1tools: {answer}");
                Arc::new(x)
            })
            .clone();
        x.validate(&events, F)
            .unwrap_or_else(|e| panic!("{}: {e}", row.listed));
        let events: Vec<Event<'static>> = events.into_iter().map(Event::into_owned).collect();
        let result = x.encode_events(&events, F);
        let (refusal, either) = expected(&row.set);
        match (refusal, result) {
            (_, Ok(_)) if refusal.is_none() || either => {
                let m = x.module();
                let root = m.types[m.roots[0].1].name.clone().unwrap();
                let mut ok = true;
                for (format, rule) in [
                    (F, "uper"),
                    (Format::Asn1XsdAper, "aper"),
                    (Format::Asn1XsdBer, "ber"),
                ] {
                    if let Err(e) = both_ways(
                        &mut py,
                        &x,
                        &events,
                        &root,
                        instance,
                        format,
                        rule,
                        &scratch.join(n.to_string()),
                    ) {
                        failures.push(format!("{} ({rule}): {e}", row.listed));
                        ok = false;
                        break;
                    }
                }
                if ok {
                    passed += 1;
                }
            }
            (Some(why), Err(e)) if e.to_string().contains(why) => refused += 1,
            (None, Err(e)) => failures.push(format!("{}: refused: {e}", row.listed)),
            (why, Ok(_)) => failures.push(format!(
                "{}: encoded, expected a refusal ({why:?}): update expected()",
                row.listed
            )),
            (Some(why), Err(e)) => failures.push(format!(
                "{}: refused for another reason than {why:?}: {e}",
                row.listed
            )),
        }
    }
    eprintln!("x694 oracle: {passed} passed, {refused} refused as expected");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(passed >= 2, "the invoice and UBL instances must be present");
}

/// One instance through the oracle in one encoding rule: asn1tools re-encodes binxml's bytes
/// identically, binxml decodes them to the instance, and binxml decodes asn1tools' encoding of
/// the script's own value to the instance.
#[allow(clippy::too_many_arguments)]
fn both_ways(
    py: &mut LineOracle,
    x: &X694,
    events: &[Event<'static>],
    root: &str,
    instance: &Path,
    format: Format,
    rule: &str,
    stem: &Path,
) -> Result<(), String> {
    let bytes = x.encode_events(events, format).map_err(|e| e.to_string())?;
    let ours = stem.with_extension(rule);
    std::fs::write(&ours, &bytes).unwrap();
    let answer = py.ask(&["check", rule, root, &ours.display().to_string()]);
    if answer != "ok" {
        return Err(format!("asn1tools: {answer}"));
    }
    let out = stem.with_extension("xml");
    let same = |py: &mut LineOracle, evs: &[Event<'static>], what: &str| {
        std::fs::write(&out, binxml_xml::encode(evs).unwrap()).unwrap();
        let answer = py.ask(&[
            "same",
            root,
            &instance.display().to_string(),
            &out.display().to_string(),
        ]);
        if answer == "ok" {
            Ok(())
        } else {
            Err(format!("{what}: infoset: {answer}"))
        }
    };
    let back = x
        .decode_events(&bytes, format, &Default::default())
        .map_err(|e| e.to_string())?;
    same(py, &back, "binxml's encoding")?;
    // The other direction: the oracle's own value of the instance decodes with binxml to the
    // instance.
    let theirs = stem.with_extension(format!("theirs.{rule}"));
    let answer = py.ask(&[
        "make",
        rule,
        root,
        &instance.display().to_string(),
        &theirs.display().to_string(),
    ]);
    if answer != "ok" {
        return Err(format!("asn1tools value: {answer}"));
    }
    let bytes = std::fs::read(&theirs).unwrap();
    let back = x
        .decode_events(&bytes, format, &Default::default())
        .map_err(|e| format!("asn1tools' encoding: {e}"))?;
    same(py, &back, "asn1tools' encoding")
}

/// A mapped schema and encodings of its instances, each with its rule.
type Mapped = (X694, Vec<(Format, Vec<u8>)>);

/// The mapped schema of the first present row of `set`, and the encodings of its instances
/// (up to 200 KB of XML) in both rules.
fn mapped_set(set: &str) -> Option<Mapped> {
    let row = schema_sets()
        .into_iter()
        .filter(|r| r.set == set)
        .find(|r| r.present())?;
    let schema = Arc::new(load(row.schema.as_ref()?, row.catalog.as_deref()));
    let x = X694::new(schema).unwrap();
    let mut encodings = Vec::new();
    for r in schema_sets() {
        if r.present() && r.schema == row.schema {
            let xml = std::fs::read(r.instance.unwrap()).unwrap();
            let events = binxml_xml::decode(&xml).unwrap();
            if xml.len() < 200_000 {
                for f in [F, Format::Asn1XsdAper, Format::Asn1XsdBer] {
                    encodings.push((f, x.encode_events(&events, f).unwrap()));
                }
            }
        }
    }
    Some((x, encodings))
}

fn invoice() -> Option<Mapped> {
    mapped_set("invoice").or_else(|| mapped_set("ubl21"))
}

/// Truncations, bit flips and random bytes: errors with bit offsets or other documents, never
/// a panic, and never more events than the input can account for. Over the invoice (or UBL)
/// module and FpML's (substitution groups, `xsi:type` derivations).
#[test]
fn hostile_input() {
    let mut any = false;
    for set in [invoice(), mapped_set("fpml4")].into_iter().flatten() {
        any = true;
        hostile(set);
    }
    assert!(any, "no schema set present");
}

fn hostile((x, encodings): Mapped) {
    let limits = binxml_core::Limits::default();
    let mut rng = binxml_testkit::mutate::Rng(694);
    let mut errors = 0;
    for (f, bytes) in &encodings {
        let f = *f;
        for cut in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
            let e = x
                .decode_events(&bytes[..cut], f, &limits)
                .expect_err("a truncated encoding");
            assert!(e.bit_offset().is_some(), "no bit offset: {e}");
            errors += 1;
        }
        for _ in 0..300 {
            let mut b = bytes.clone();
            let bit = rng.below(b.len() * 8);
            b[bit / 8] ^= 0x80 >> (bit % 8);
            match x.decode_events(&b, f, &limits) {
                Ok(evs) => assert!(evs.len() <= b.len() * 128 + 4096),
                Err(e) => {
                    assert!(e.bit_offset().is_some(), "no bit offset: {e}");
                    errors += 1;
                }
            }
        }
    }
    for n in 0..2000 {
        let len = n % 64;
        let b: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        for f in [F, Format::Asn1XsdAper, Format::Asn1XsdBer] {
            if let Err(e) = x.decode_events(&b, f, &limits) {
                assert!(e.bit_offset().is_some(), "no bit offset: {e}");
            }
        }
    }
    assert!(errors > 0);
}

/// A document that breaks the schema is refused with the validator's message, and the
/// encoder writes nothing.
#[test]
fn invalid_document_refused_before_output() {
    let Some((x, _)) = mapped_set("invoice") else {
        eprintln!("SKIP: no invoice schema");
        return;
    };
    let x = Arc::new(x);
    let xml = br#"<ns1:invoice xmlns:ns1="http://www.sun.com/schema/spidermarkexpress/sm-inv"><Header/></ns1:invoice>"#;
    let mut out = Vec::new();
    let mut enc = binxml_asn1::x694::X694Encoder::new(&mut out, x.clone(), F);
    use binxml_core::Encoder;
    for ev in binxml_xml::decode(xml).unwrap() {
        enc.write_event(&ev).unwrap();
    }
    let e = enc.finish().expect_err("invalid");
    assert!(
        e.to_string().contains("not valid against the schema"),
        "{e}"
    );
    assert!(e.to_string().contains("/invoice/Header"), "{e}");
    drop(enc);
    assert!(out.is_empty());
}

/// Degenerate schemas: an abstract head without members, an empty choice, recursion through
/// a global element. They map, and hostile bytes against them give errors, not panics.
#[test]
fn degenerate_schemas() {
    let xsd = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:d" xmlns="urn:d" elementFormDefault="qualified">
  <xs:element name="head" abstract="true" type="xs:string"/>
  <xs:element name="root"><xs:complexType><xs:sequence>
    <xs:element ref="head" minOccurs="0"/>
    <xs:choice minOccurs="0"/>
    <xs:element ref="root" minOccurs="0" maxOccurs="unbounded"/>
    <xs:element name="e" minOccurs="0" maxOccurs="unbounded"><xs:complexType/></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"#;
    let schema = Schema::from_bytes_with(xsd.as_bytes(), "d.xsd", &LoadOptions::default()).unwrap();
    let root = Roots::Named(Name::new("urn:d", "root"));
    let x = X694::with_roots(Arc::new(schema), &root).unwrap();
    assert!(x.text(true).contains("Root ::= SEQUENCE"));
    let limits = binxml_core::Limits::default();
    let mut rng = binxml_testkit::mutate::Rng(17);
    for n in 0..3000 {
        let b: Vec<u8> = (0..n % 40).map(|_| rng.below(256) as u8).collect();
        for f in [F, Format::Asn1XsdAper, Format::Asn1XsdBer] {
            match x.decode_events(&b, f, &limits) {
                Ok(evs) => assert!(evs.len() <= b.len() * 128 + 4096),
                Err(e) => assert!(e.bit_offset().is_some(), "no bit offset: {e}"),
            }
        }
    }
    // A document of the schema goes through.
    let xml = br#"<root xmlns="urn:d"><root><e/><e/></root><e/></root>"#;
    let events: Vec<Event<'static>> = binxml_xml::decode(xml).unwrap();
    x.validate(&events, F).unwrap();
    for f in [F, Format::Asn1XsdAper, Format::Asn1XsdBer] {
        let bytes = x.encode_events(&events, f).unwrap();
        let back = x.decode_events(&bytes, f, &limits).unwrap();
        let again = x.encode_events(&back, f).unwrap();
        assert_eq!(bytes, again);
    }
}

/// Maps `xsd` for its root element `urn:t` `root`, and puts each instance through the oracle
/// both ways in the three rules; asn1tools compiles the printed module first.
fn through_oracle(py: &mut LineOracle, name: &str, xsd: &str, root: &str, instances: &[&str]) {
    let scratch = scratch_dir(&format!("x694-{name}"));
    let schema = Schema::from_bytes_with(xsd.as_bytes(), "t.xsd", &LoadOptions::default()).unwrap();
    let x = X694::with_roots(Arc::new(schema), &Roots::Named(Name::new("urn:t", root)))
        .unwrap()
        .with_fragments(Arc::new(binxml::XmlText));
    let module = scratch.join("t.asn");
    std::fs::write(&module, x.text(true)).unwrap();
    let answer = py.ask(&["compile", &module.display().to_string()]);
    assert!(
        answer.starts_with("ok"),
        "asn1tools: {answer}\n{}",
        x.text(true)
    );
    let m = x.module();
    let root = m.types[m.roots[0].1].name.clone().unwrap();
    for (n, xml) in instances.iter().enumerate() {
        // Not `{n}.xml`: that is where `both_ways` writes the decoded document.
        let instance = scratch.join(format!("{n}.instance.xml"));
        std::fs::write(&instance, xml).unwrap();
        let events: Vec<Event<'static>> = binxml_xml::decode(xml.as_bytes()).unwrap();
        x.validate(&events, F)
            .unwrap_or_else(|e| panic!("instance {n}: {e}"));
        for (format, rule) in [
            (F, "uper"),
            (Format::Asn1XsdAper, "aper"),
            (Format::Asn1XsdBer, "ber"),
        ] {
            both_ways(
                py,
                &x,
                &events,
                &root,
                &instance,
                format,
                rule,
                &scratch.join(n.to_string()),
            )
            .unwrap_or_else(|e| panic!("{name} instance {n} ({rule}): {e}\n{}", x.text(true)));
        }
    }
}

/// Nillable elements (X.694's USE-NIL): local and global, of simple type, of simple content
/// with an attribute, and of element content with attributes, nil or not (`xsi:nil="false"`
/// and `"1"` included), each against asn1tools both ways.
#[test]
fn nillable_against_asn1tools() {
    let Some(mut py) = oracle() else { return };
    let xsd = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:complexType name="Item">
    <xs:sequence>
      <xs:element name="name" type="xs:string"/>
      <xs:element name="price" type="xs:decimal" nillable="true"/>
    </xs:sequence>
    <xs:attribute name="id" type="xs:int"/>
  </xs:complexType>
  <xs:complexType name="Note">
    <xs:simpleContent><xs:extension base="xs:string"><xs:attribute name="lang" type="xs:language"/></xs:extension></xs:simpleContent>
  </xs:complexType>
  <xs:element name="order">
    <xs:complexType><xs:sequence>
      <xs:element name="item" type="Item" nillable="true" maxOccurs="unbounded"/>
      <xs:element name="note" type="Note" nillable="true" minOccurs="0"/>
      <xs:element ref="count"/>
    </xs:sequence></xs:complexType>
  </xs:element>
  <xs:element name="count" type="xs:int" nillable="true"/>
</xs:schema>"#;
    let xsi = r#"xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;
    let instances = [
        format!(
            r#"<order {xsi}><item id="1"><name>a</name><price>2.50</price></item><note lang="en">hi</note><count>1</count></order>"#
        ),
        format!(
            r#"<order {xsi}><item id="3" xsi:nil="true"/><item><name>b</name><price xsi:nil="true"/></item><note lang="fr" xsi:nil="true"/><count xsi:nil="true"/></order>"#
        ),
        format!(
            r#"<order {xsi}><item xsi:nil="1"/><item xsi:nil="false"><name>c</name><price xsi:nil="false">7</price></item><count xsi:nil="false">0</count></order>"#
        ),
    ];
    let instances: Vec<&str> = instances.iter().map(String::as_str).collect();
    through_oracle(&mut py, "nil", xsd, "order", &instances);
}

/// A schema with `all` groups (see `all_groups_against_asn1tools`).
const ALL_XSD: &str = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:complexType name="Point">
    <xs:all minOccurs="0">
      <xs:element name="x" type="xs:int"/>
      <xs:element name="y" type="xs:int"/>
    </xs:all>
  </xs:complexType>
  <xs:element name="shape" type="xs:string"/>
  <xs:element name="circle" type="xs:string" substitutionGroup="shape"/>
  <xs:element name="rec">
    <xs:complexType>
      <xs:all>
        <xs:element name="a" type="xs:int"/>
        <xs:element name="b" type="xs:string" minOccurs="0"/>
        <xs:element name="p" type="Point" minOccurs="0"/>
        <xs:element ref="shape" minOccurs="0"/>
        <xs:element name="m" minOccurs="0">
          <xs:complexType mixed="true">
            <xs:all>
              <xs:element name="u" type="xs:string" minOccurs="0"/>
              <xs:element name="v" type="xs:boolean" minOccurs="0"/>
            </xs:all>
          </xs:complexType>
        </xs:element>
      </xs:all>
      <xs:attribute name="id" type="xs:string"/>
      <xs:attribute name="n" type="xs:int" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"#;

/// Instances of [`ALL_XSD`]: the elements in schema order and in others, white space and
/// mixed content between them.
const ALL_INSTANCES: [&str; 5] = [
    r#"<rec xmlns="urn:t" n="1"><a>1</a></rec>"#,
    r#"<rec xmlns="urn:t" n="2" id="z"><a>1</a><b>two</b><p><x>3</x><y>4</y></p><shape>s</shape></rec>"#,
    r#"<rec xmlns="urn:t" n="3"><p><y>4</y><x>3</x></p><b>two</b><circle>c</circle><a>-5</a></rec>"#,
    r#"<rec xmlns="urn:t" n="4"><m>one <v>true</v> two <u>x</u> three</m><p/><a>0</a></rec>"#,
    "<rec xmlns=\"urn:t\" n=\"5\">\n  <shape>s</shape>\n  <m><u>x</u>between<v>false</v></m>\n  <a>7</a>\n</rec>",
];

/// `all` groups (X.694's `order` component, USE-ORDER): the elements in any order, optional
/// ones absent, an `all` group that may be absent as a whole, one in mixed content, one with
/// an element of a substitution group, and attributes beside the group; against asn1tools
/// both ways.
#[test]
fn all_groups_against_asn1tools() {
    let Some(mut py) = oracle() else { return };
    through_oracle(&mut py, "all", ALL_XSD, "rec", &ALL_INSTANCES);
}

/// Hostile input against the `all` groups' module: the order names an element twice, one
/// that is absent, more than there are; never a panic, every error with its bit offset.
#[test]
fn hostile_all_groups() {
    let schema =
        Schema::from_bytes_with(ALL_XSD.as_bytes(), "t.xsd", &LoadOptions::default()).unwrap();
    let x = X694::with_roots(Arc::new(schema), &Roots::Named(Name::new("urn:t", "rec"))).unwrap();
    let mut encodings = Vec::new();
    for xml in ALL_INSTANCES {
        let events: Vec<Event<'static>> = binxml_xml::decode(xml.as_bytes()).unwrap();
        for f in [F, Format::Asn1XsdAper, Format::Asn1XsdBer] {
            encodings.push((f, x.encode_events(&events, f).unwrap()));
        }
    }
    hostile((x, encodings));
}

/// Mixed content (X.694's EMBED-VALUES): text before, between and after child elements,
/// white space included, nested mixed elements, an element of mixed content with no text or no
/// children, and a nillable one; against asn1tools both ways.
#[test]
fn mixed_content_against_asn1tools() {
    let Some(mut py) = oracle() else { return };
    let xsd = r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:element name="doc">
    <xs:complexType mixed="true">
      <xs:sequence>
        <xs:element name="b" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="i" minOccurs="0">
          <xs:complexType mixed="true">
            <xs:sequence><xs:element name="b" type="xs:string" minOccurs="0"/></xs:sequence>
            <xs:attribute name="k" type="xs:string"/>
          </xs:complexType>
        </xs:element>
        <xs:element name="n" minOccurs="0" nillable="true">
          <xs:complexType mixed="true">
            <xs:sequence><xs:element name="b" type="xs:string" minOccurs="0"/></xs:sequence>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="lang" type="xs:string"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"#;
    let xsi = r#"xmlns="urn:t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;
    let instances = [
        format!(
            r#"<doc {xsi} lang="en">Hello <b>bold</b> and <b>more</b>, <i k="1">nested <b>x</b> tail</i> end.</doc>"#
        ),
        format!(r#"<doc {xsi}/>"#),
        format!(r#"<doc {xsi}>only text &amp; an entity</doc>"#),
        format!("<doc {xsi}>\n  <b>a</b><b>b</b>\n  <i/>\n</doc>"),
        format!(r#"<doc {xsi}>x<n xsi:nil="true"/></doc>"#),
        format!(r#"<doc {xsi}><n>t<b>u</b>v</n>w</doc>"#),
    ];
    let instances: Vec<&str> = instances.iter().map(String::as_str).collect();
    through_oracle(&mut py, "mixed", xsd, "doc", &instances);
    // The comparison itself (the module of `doc` is still the oracle's): mixed content's
    // character data counts to the character, in place; prefixes, comments and processing
    // instructions do not.
    let dir = scratch_dir("x694-mixed-same");
    let ask = |py: &mut LineOracle, a: &str, b: &str| {
        let (fa, fb) = (dir.join("a.xml"), dir.join("b.xml"));
        std::fs::write(&fa, a).unwrap();
        std::fs::write(&fb, b).unwrap();
        py.ask(&[
            "same",
            "Doc",
            &fa.display().to_string(),
            &fb.display().to_string(),
        ])
    };
    let base = r#"<doc xmlns="urn:t">Hello <b>bold</b> and <b>more</b>, <i k="1">nested <b>x</b> tail</i> end.</doc>"#;
    for (other, equal) in [
        (
            r#"<t:doc xmlns:t="urn:t"><!-- c --><?pi x?>Hello <t:b>bold</t:b> and <t:b>more</t:b>, <t:i k="1">nested <t:b>x</t:b> tail</t:i> end.</t:doc>"#,
            true,
        ),
        // Text moved to another place between the same children.
        (
            r#"<doc xmlns="urn:t">Hello <b>bold</b><b>more</b> and , <i k="1">nested <b>x</b> tail</i> end.</doc>"#,
            false,
        ),
        // All of it before the end tag (what the decoder once did).
        (
            r#"<doc xmlns="urn:t"><b>bold</b><b>more</b><i k="1"><b>x</b>nested  tail</i>Hello  and ,  end.</doc>"#,
            false,
        ),
        // White space in mixed content.
        (
            r#"<doc xmlns="urn:t">Hello  <b>bold</b> and <b>more</b>, <i k="1">nested <b>x</b> tail</i> end.</doc>"#,
            false,
        ),
        (
            r#"<doc xmlns="urn:t">Hello <b>bold</b> and <b>more</b>,<i k="1">nested <b>x</b> tail</i> end.</doc>"#,
            false,
        ),
        // In an element of simple content.
        (
            r#"<doc xmlns="urn:t">Hello <b>bolder</b> and <b>more</b>, <i k="1">nested <b>x</b> tail</i> end.</doc>"#,
            false,
        ),
    ] {
        let answer = ask(&mut py, base, other);
        let want = if equal { "ok" } else { "DIFF" };
        assert!(answer.starts_with(want), "{other}: {answer}");
    }
}

/// Mixed content comes back in place, in the three encodings: each string of character data
/// before the child element it preceded, the last before the end tag, compared event by event
/// (the decoder once wrote all of an element's character data before its end tag).
#[test]
fn mixed_content_text_in_place() {
    let dir = scratch_dir("x694-mixed-in-place");
    let xsd = dir.join("m.xsd");
    std::fs::write(
        &xsd,
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:element name="doc">
    <xs:complexType mixed="true">
      <xs:sequence>
        <xs:element name="b" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="i" minOccurs="0">
          <xs:complexType mixed="true">
            <xs:sequence><xs:element name="b" type="xs:string" minOccurs="0"/></xs:sequence>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>"#,
    )
    .unwrap();
    let x = X694::new(Arc::new(load(&xsd, None))).unwrap();
    // The text and element events in order, names by local name.
    let shape = |evs: &[Event<'_>]| -> Vec<String> {
        evs.iter()
            .filter_map(|e| match e {
                Event::StartElement(q) => Some(format!("<{}>", q.local)),
                Event::EndElement => Some("</>".into()),
                Event::Characters { text, .. } => Some(text.to_string()),
                _ => None,
            })
            .collect()
    };
    for doc in [
        r#"<doc xmlns="urn:t">Hello <b>bold</b> and <b>more</b>, <i>nested <b>x</b> tail</i> end.</doc>"#,
        r#"<doc xmlns="urn:t"><b>a</b>between<b>b</b></doc>"#,
        r#"<doc xmlns="urn:t">only text</doc>"#,
    ] {
        let events = binxml_xml::decode(doc.as_bytes()).unwrap();
        for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
            let bytes = x.encode_events(&events, format).unwrap();
            let back = x
                .decode_events(&bytes, format, &binxml_core::Limits::default())
                .unwrap();
            assert_eq!(shape(&back), shape(&events), "{format:?}: {doc}");
        }
    }
}

/// The schema of the wildcard tests: element wildcards with different namespace constraints
/// (`##other`, a list with `##local`, `##any` repeated in mixed content) and attribute
/// wildcards (`##other`, `##any` beside a declared attribute).
const WILDCARDS_XSD: &str = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:element name="root">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="a" type="xs:string"/>
        <xs:any namespace="##other" processContents="lax" minOccurs="0"/>
        <xs:element name="b" type="xs:string" minOccurs="0"/>
        <xs:any namespace="##local urn:x" processContents="skip" minOccurs="0" maxOccurs="2"/>
        <xs:element name="ext" minOccurs="0">
          <xs:complexType mixed="true">
            <xs:sequence>
              <xs:any namespace="##any" processContents="skip" minOccurs="0" maxOccurs="unbounded"/>
            </xs:sequence>
            <xs:attribute name="id" type="xs:string"/>
            <xs:anyAttribute namespace="##any" processContents="skip"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:anyAttribute namespace="##other" processContents="skip"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"###;

/// Instances of [`WILDCARDS_XSD`] whose wildcards match elements and attributes: `##other`
/// with text, `##local` and `urn:x` elements, attributes only, nested children with
/// attributes, a comment and namespaces declared on the root (which the element's text must
/// declare itself), escapes in a wildcard attribute's value, and mixed content with `##any`
/// elements (one in the target namespace by the root's default namespace), `xml:lang`, an
/// unqualified and a qualified wildcard attribute beside a declared one.
const WILDCARD_INSTANCES: &[&str] = &[
    r#"<root xmlns="urn:t"><a>1</a><o:c xmlns:o="urn:o">x</o:c></root>"#,
    r#"<root xmlns="urn:t"><a>1</a><b>2</b><c xmlns=""/><x:d xmlns:x="urn:x"/></root>"#,
    r#"<root xmlns="urn:t" xmlns:o="urn:o" o:z="1"><a>1</a></root>"#,
    r#"<root xmlns="urn:t" xmlns:o="urn:o" xmlns:p="urn:p" o:z="a &amp; &quot;b&quot;&#9;c &lt; d" p:y=""><a>1</a><o:c o:k="v" p:k="w" plain="q">text <o:d><p:e>deep</p:e></o:d> tail<!--note--></o:c><b>2</b><x:d xmlns:x="urn:x"><x:e/></x:d><x:d xmlns:x="urn:x">two</x:d></root>"#,
    r#"<root xmlns="urn:t"><a>1</a><ext id="7" xml:lang="en" q="1" xmlns:s="urn:s" s:r="2">before <s:f>in</s:f> mid <g xmlns="urn:g"><h/></g> and <a>again</a> after</ext></root>"#,
    r#"<root xmlns="urn:t"><a>1</a><ext/></root>"#,
];

fn wildcards_x694(fragments: bool) -> Arc<X694> {
    let schema =
        Schema::from_bytes_with(WILDCARDS_XSD.as_bytes(), "t.xsd", &LoadOptions::default())
            .unwrap();
    let x = X694::with_roots(Arc::new(schema), &Roots::Named(Name::new("urn:t", "root"))).unwrap();
    Arc::new(if fragments {
        x.with_fragments(Arc::new(binxml::XmlText))
    } else {
        x
    })
}

/// Encodes `xml` with an X.694 encoder (validation first): the result and what was written.
fn encode_xml(x: &Arc<X694>, xml: &str) -> (Result<(), String>, Vec<u8>) {
    use binxml_core::Encoder;
    let mut out = Vec::new();
    let mut enc = binxml_asn1::x694::X694Encoder::new(&mut out, x.clone(), F);
    let mut r = Ok(());
    for ev in binxml_xml::decode(xml.as_bytes()).unwrap() {
        if let Err(e) = enc.write_event(&ev) {
            r = Err(e.to_string());
            break;
        }
    }
    if r.is_ok() {
        r = enc.finish().map(|_| ()).map_err(|e| e.to_string());
    }
    drop(enc);
    (r, out)
}

/// Element and attribute wildcards (X.694's ANY-ELEMENT `elem UTF8String` and ANY-ATTRIBUTES
/// `attr SEQUENCE OF UTF8String` components). The module compiles in asn1tools; instances
/// whose wildcards match nothing, and instances with matched elements and attributes, go both
/// ways through the oracle in the three rules (binxml's encoding decoded and re-encoded by
/// asn1tools to the same bytes, decoded by binxml to the instance's infoset; asn1tools'
/// encoding of the oracle's own value, whose wildcard strings are ElementTree's, decoded by
/// binxml to the instance's infoset). An instance whose wildcard content breaks the namespace
/// constraint is refused with the validator's error before any output; without an
/// XmlFragments, matched elements are refused and matched attributes are not.
#[test]
fn wildcards() {
    let x = wildcards_x694(true);
    let text = x.text(true);
    for want in [
        "ANY-ELEMENT Root.elem EXCEPT ABSENT \"urn:t\"",
        "ANY-ELEMENT Root.elem-list.elem FROM ABSENT \"urn:x\"",
        "ANY-ATTRIBUTES Root.ext.attr\n",
        "ANY-ATTRIBUTES Root.attr EXCEPT ABSENT \"urn:t\"",
        "attr SEQUENCE OF UTF8String",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    // Namespace constraints broken: a `urn:t` element where `##other` is wanted, a `urn:y`
    // element where `##local urn:x` is wanted, a `urn:t` attribute where `##other` is wanted.
    for bad in [
        r#"<root xmlns="urn:t"><a>1</a><t:c xmlns:t="urn:t"/></root>"#,
        r#"<root xmlns="urn:t"><a>1</a><b>2</b><y:c xmlns:y="urn:y"/></root>"#,
        r#"<root xmlns="urn:t" xmlns:t="urn:t" t:z="1"><a>1</a></root>"#,
    ] {
        let (r, out) = encode_xml(&x, bad);
        let e = r.expect_err(bad);
        assert!(e.contains("not valid against the schema"), "{bad}: {e}");
        assert!(out.is_empty(), "{bad}: output before the refusal");
    }
    // Without an XmlFragments: a matched element is refused with the reason, in the three
    // rules and on decoding; attributes need none.
    let bare = wildcards_x694(false);
    let (r, out) = encode_xml(&bare, WILDCARD_INSTANCES[0]);
    let e = r.expect_err("no XmlFragments");
    assert!(e.contains("needs an XML writer"), "{e}");
    assert!(out.is_empty());
    let events: Vec<Event<'static>> = binxml_xml::decode(WILDCARD_INSTANCES[0].as_bytes()).unwrap();
    for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
        assert!(bare.encode_events(&events, format).is_err());
        let bytes = x.encode_events(&events, format).unwrap();
        let e = bare
            .decode_events(&bytes, format, &Default::default())
            .unwrap_err();
        assert!(e.to_string().contains("needs an XML reader"), "{e}");
        assert!(e.bit_offset().is_some(), "{e}");
    }
    let (r, _) = encode_xml(&bare, WILDCARD_INSTANCES[2]);
    r.expect("attribute wildcards need no XmlFragments");
    // Sizes, for the record (docs/x694.md).
    let big = WILDCARD_INSTANCES[3];
    let events: Vec<Event<'static>> = binxml_xml::decode(big.as_bytes()).unwrap();
    for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
        let n = x.encode_events(&events, format).unwrap().len();
        eprintln!(
            "wildcard instance 3: XML {} bytes, {format:?} {n}",
            big.len()
        );
    }
    let Some(mut py) = oracle() else { return };
    let mut all = vec![
        r#"<root xmlns="urn:t"><a>1</a></root>"#,
        r#"<root xmlns="urn:t"><a>1</a><b>2</b></root>"#,
    ];
    all.extend_from_slice(WILDCARD_INSTANCES);
    through_oracle(&mut py, "wildcards", WILDCARDS_XSD, "root", &all);
}

/// Wildcard content as hostile input: strings that are not well-formed XML (or not one
/// element, or an element in a namespace the wildcard does not allow), attribute strings that
/// are not `[uri ]name="value"`, and every truncation and single bit flip of the encodings of
/// the wildcard instances, in the three rules: an error with a bit offset, never a panic.
#[test]
fn hostile_wildcards() {
    let x = wildcards_x694(true);
    let limits = binxml_core::Limits::default();
    // Same-length replacements inside the strings of instance 0 (element) and 2 (attribute),
    // in the rules that keep the octets as they are (aligned PER, BER).
    for (doc, from, to) in [
        (0, "x</o:c>", "x<?o:c>"),
        (0, "<o:c xmlns", "<o:c ymlns"),
        (0, "</o:c>", "</o:d>"),
        (0, "urn:o", "urn:t"),
        (0, "\">x</", "\"><</"),
        (2, "z=\"1\"", "z=\"<\""),
        (2, "z=\"1\"", "z= \"1"),
        (2, "urn:o z", "urn:t z"),
    ] {
        let events: Vec<Event<'static>> =
            binxml_xml::decode(WILDCARD_INSTANCES[doc].as_bytes()).unwrap();
        for format in [Format::Asn1XsdAper, Format::Asn1XsdBer] {
            let mut bytes = x.encode_events(&events, format).unwrap();
            let at = bytes
                .windows(from.len())
                .position(|w| w == from.as_bytes())
                .unwrap_or_else(|| panic!("{from} in {format:?}"));
            bytes[at..at + to.len()].copy_from_slice(to.as_bytes());
            let e = x
                .decode_events(&bytes, format, &limits)
                .expect_err(&format!("{from} -> {to} ({format:?})"));
            assert!(e.bit_offset().is_some(), "{from} -> {to}: {e}");
        }
    }
    // A nested element deeper than the limit.
    let deep = format!(
        r#"<root xmlns="urn:t"><a>1</a><o:c xmlns:o="urn:o">{}x{}</o:c></root>"#,
        "<o:c>".repeat(40),
        "</o:c>".repeat(40)
    );
    let events: Vec<Event<'static>> = binxml_xml::decode(deep.as_bytes()).unwrap();
    let bytes = x.encode_events(&events, Format::Asn1XsdUper).unwrap();
    let e = x
        .decode_events(
            &bytes,
            Format::Asn1XsdUper,
            &limits.clone().with_max_depth(20),
        )
        .unwrap_err();
    assert!(e.to_string().contains("deeper"), "{e}");
    for doc in WILDCARD_INSTANCES {
        let events: Vec<Event<'static>> = binxml_xml::decode(doc.as_bytes()).unwrap();
        for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
            let bytes = x.encode_events(&events, format).unwrap();
            for n in 0..bytes.len() {
                if let Err(e) = x.decode_events(&bytes[..n], format, &limits) {
                    assert!(e.bit_offset().is_some(), "{e}");
                }
            }
            for bit in 0..bytes.len() * 8 {
                let mut b = bytes.clone();
                b[bit / 8] ^= 0x80 >> (bit % 8);
                if let Err(e) = x.decode_events(&b, format, &limits) {
                    assert!(e.bit_offset().is_some(), "{e}");
                }
            }
        }
    }
}

/// UBL 2.1's extension point: the trivial Invoice example with a `UBLExtensions` whose
/// `ExtensionContent` (an `##other` lax wildcard) holds an element of another namespace with
/// attributes, children and a UBL `cbc:Note` (its prefix declared on the root only), both ways
/// through the oracle in the three rules.
#[test]
fn ubl_extensions_against_asn1tools() {
    let root = workspace_root();
    let xsd = root.join("tests/schemas/ubl21/xsdrt/maindoc/UBL-Invoice-2.1.xsd");
    let trivial = std::fs::read_to_string(
        root.join("tests/schemas/ubl21/instances/UBL-Invoice-2.1-Example-Trivial.xml"),
    )
    .unwrap();
    let cut = trivial.find("<cbc:ID>").unwrap();
    let xml = format!(
        r#"{}<ext:UBLExtensions xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2">
    <ext:UBLExtension>
      <ext:ExtensionContent>
        <my:Extra xmlns:my="urn:example:my" my:version="2" note="a &amp; b"><my:Line n="1">first</my:Line> <cbc:Note>kept</cbc:Note></my:Extra>
      </ext:ExtensionContent>
    </ext:UBLExtension>
  </ext:UBLExtensions>
  {}"#,
        &trivial[..cut],
        &trivial[cut..]
    );
    let schema = Arc::new(load(&xsd, None));
    let x = X694::new(schema)
        .unwrap()
        .with_fragments(Arc::new(binxml::XmlText));
    let events: Vec<Event<'static>> = binxml_xml::decode(xml.as_bytes()).unwrap();
    x.validate(&events, F).unwrap();
    for format in [Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer] {
        let bytes = x.encode_events(&events, format).unwrap();
        eprintln!(
            "UBL Invoice trivial with UBLExtensions: XML {} bytes, {format:?} {}",
            xml.len(),
            bytes.len()
        );
    }
    let Some(mut py) = oracle() else { return };
    let scratch = scratch_dir("x694-ubl-ext");
    let module = scratch.join("ubl.asn");
    std::fs::write(&module, x.text(true)).unwrap();
    let answer = py.ask(&["compile", &module.display().to_string()]);
    assert!(answer.starts_with("ok"), "asn1tools: {answer}");
    let instance = scratch.join("instance.xml");
    std::fs::write(&instance, &xml).unwrap();
    let m = x.module();
    let root_ty = m.types[m.roots[0].1].name.clone().unwrap();
    for (format, rule) in [
        (F, "uper"),
        (Format::Asn1XsdAper, "aper"),
        (Format::Asn1XsdBer, "ber"),
    ] {
        both_ways(
            &mut py,
            &x,
            &events,
            &root_ty,
            &instance,
            format,
            rule,
            &scratch.join("inv"),
        )
        .unwrap_or_else(|e| panic!("UBLExtensions ({rule}): {e}"));
    }
}
