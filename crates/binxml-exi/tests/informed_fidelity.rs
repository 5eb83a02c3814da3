//! Schema-informed EXI with preserve.dtd (DT in DocContent, ER in element content) and
//! selfContained (SC in an element's first state, the element's content as a fragment) against
//! EXIficient 1.0.7: for every document and option set, binxml writes EXIficient's bytes,
//! EXIficient decodes binxml's stream to the original's canonical XML, and binxml decodes
//! EXIficient's stream to the canonical XML of EXIficient's own decoding.
//!
//! Entity references: EXIficient's parser (Xerces) expands internal entities unless the driver
//! option `entityrefs` keeps them as ER events, and reports a reference it cannot resolve (an
//! entity of the external subset, which is never read) as ER either way. binxml's XML decoder
//! expands internal entities and reports unresolvable references as ER. So `dtd` compares
//! documents whose references are partly internal (expanded by both) and partly external
//! (ER for both); `dtd,entityrefs` compares the events Xerces reports then: every reference
//! an ER, the DOCTYPE as declared.
//!
//! The DOCTYPE's text: EXIficient rebuilds it from the parser's declarations
//! (`<!ENTITY e "ent"> `, each followed by a space), binxml writes the internal subset as
//! written (docs/exi.md); the documents here write their subsets in EXIficient's form.

use std::path::Path;
use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Event};
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_exi::{ExiOptions, Whitespace};
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::{C14nOracle, ExiOracle, scratch_dir};

const XSD: &str = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:f"
    xmlns:f="urn:f" elementFormDefault="qualified">
  <xs:complexType name="itemType">
    <xs:simpleContent><xs:extension base="xs:string">
      <xs:attribute name="id" type="xs:int"/>
    </xs:extension></xs:simpleContent>
  </xs:complexType>
  <xs:complexType name="noteType" mixed="true">
    <xs:sequence><xs:element name="b" type="xs:string" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
  </xs:complexType>
  <xs:complexType name="groupType">
    <xs:sequence>
      <xs:element name="item" type="f:itemType" maxOccurs="unbounded"/>
      <xs:any namespace="##other" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
    <xs:attribute name="name" type="xs:string"/>
  </xs:complexType>
  <xs:element name="doc">
    <xs:complexType><xs:sequence>
      <xs:element name="title" type="xs:string"/>
      <xs:element name="note" type="f:noteType" minOccurs="0"/>
      <xs:element name="group" type="f:groupType" maxOccurs="unbounded"/>
      <xs:element name="count" type="xs:int"/>
    </xs:sequence></xs:complexType>
  </xs:element>
  <xs:element name="item" type="f:itemType"/>
</xs:schema>"###;

/// Documents: DOCTYPE (with an external subset, whose entities become ER), references in
/// typed, mixed and undeclared content, and elements to write self-contained (`group`, a local
/// element the fragment grammar finds by its name; `item`, also global; an undeclared `x:w`).
const DOCS: &[&str] = &[
    r#"<!DOCTYPE doc SYSTEM "doc.dtd" [<!ENTITY e "ent"> ]>
<doc xmlns="urn:f"><title>a&e;b&u;</title><note>x&u;y<b>z</b>&u;<b>&e;</b></note><group name="g"><item id="1">i&u;</item><item>&e;</item></group><count>3</count></doc>"#,
    r#"<!DOCTYPE doc PUBLIC "-//binxml//test" "doc.dtd">
<doc xmlns="urn:f"><title>&u;</title><group><item id="2">two</item><x:w xmlns:x="urn:x" a="1">&v;<x:in>&u;t</x:in></x:w></group><group name="n"><item>3</item></group><count>-1</count></doc>"#,
    r#"<!DOCTYPE doc SYSTEM "doc.dtd" [<!ENTITY e "ent"> <!ENTITY f "eff"> ]>
<!--c--><?pi d?><doc xmlns="urn:f"><title> &u; </title><group><item id="7">&e;&f;&u;</item><!--in--><item>z</item></group><count>1&u;</count></doc>"#,
    r#"<doc xmlns="urn:f"><title>t</title><group name="a"><item id="1">x</item><item id="2"><!--c-->y</item></group><group name="b" xml:space="preserve"><item> </item></group><count>2</count></doc>"#,
];

/// Option sets: EXIficient's driver syntax, which `ExiOptions::parse_text` also reads
/// (`entityrefs` is a parser option of the driver only).
const MODES: &[&str] = &[
    "bitpacked",
    "prefixes,comments,pis",
    "dtd",
    "dtd,bytealigned",
    "dtd,precompression",
    "dtd,compression",
    "dtd,prefixes,comments,pis",
    "dtd,prefixes,comments,pis,compression",
    "dtd,entityrefs",
    "dtd,entityrefs,bytealigned",
    "dtd,entityrefs,compression",
    "dtd,entityrefs,comments,pis,prefixes,bytealigned",
    "selfcontained",
    "selfcontained={urn:f}group",
    "selfcontained={urn:f}group,bytealigned",
    "selfcontained={urn:f}item|{urn:x}w",
    "selfcontained={urn:f}item|{urn:f}doc,bytealigned",
    "selfcontained={urn:f}group|{urn:x}in,prefixes,comments,pis",
    "selfcontained={urn:f}item,dtd,prefixes,comments,pis,bytealigned",
];

fn options(mode: &str) -> ExiOptions {
    let binxml_mode: Vec<&str> = mode.split(',').filter(|m| *m != "entityrefs").collect();
    ExiOptions::default()
        .parse_text(&binxml_mode.join(","))
        .unwrap_or_else(|e| panic!("{mode}: {e}"))
        .with_whitespace(Whitespace::DropBetweenTags)
}

/// The events EXIficient's parser hands its encoder: binxml's XML decoding, or with
/// `entityrefs` every general entity reference an ER (the document read with its internal
/// subset left out, so that no reference resolves, and the DOCTYPE put back as declared).
fn events(doc: &str, entityrefs: bool) -> Vec<Event<'static>> {
    let full = binxml_xml::decode(doc.as_bytes()).unwrap();
    let (Some(start), Some(end)) = (doc.find('['), doc.find("]>")) else {
        return full;
    };
    if !entityrefs {
        return full;
    }
    let bare = format!("{}>{}", doc[..start].trim_end(), &doc[end + 2..]);
    let doctype = full
        .iter()
        .find(|e| matches!(e, Event::DocType(_)))
        .cloned()
        .unwrap();
    binxml_xml::decode(bare.as_bytes())
        .unwrap()
        .into_iter()
        .map(|e| match e {
            Event::DocType(_) => doctype.clone(),
            e => e,
        })
        .collect()
}

fn encode(g: &Arc<SchemaGrammars>, ev: &[Event<'_>], o: &ExiOptions) -> Result<Vec<u8>, String> {
    let mut e =
        SchemaEncoder::new(Vec::new(), Arc::clone(g), o.clone()).map_err(|e| e.to_string())?;
    e.write_events(ev).map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())?;
    Ok(e.into_inner())
}

fn decode(g: &Arc<SchemaGrammars>, exi: &[u8], o: &ExiOptions) -> Result<Vec<u8>, String> {
    let mut d = SchemaDecoder::new(
        exi,
        Arc::clone(g),
        o.clone(),
        binxml_core::Limits::default(),
    );
    let mut ev = Vec::new();
    while let Some(e) = d.next_event().map_err(|e| e.to_string())? {
        ev.push(e.into_owned());
    }
    binxml_xml::encode(&ev).map_err(|e| e.to_string())
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

fn grammars(dir: &Path) -> (std::path::PathBuf, Arc<SchemaGrammars>) {
    let xsd = dir.join("fidelity.xsd");
    std::fs::write(&xsd, XSD).unwrap();
    let s = Schema::load_with(&xsd, &LoadOptions::default()).unwrap();
    (xsd, Arc::new(SchemaGrammars::new(Arc::new(s)).unwrap()))
}

#[test]
fn dtd_and_self_contained_as_exificient() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let mut c14n = C14nOracle::start();
    let scratch = scratch_dir("informed_fidelity");
    let (xsd, g) = grammars(&scratch);
    let mut report = Vec::new();
    let mut compared = 0;
    for (k, doc) in DOCS.iter().enumerate() {
        let src = scratch.join(format!("doc{k}.xml"));
        std::fs::write(&src, doc).unwrap();
        for mode in MODES {
            let theirs_options = format!("schema={},schemalocation,{mode}", xsd.display());
            let o = options(mode);
            let ev = events(doc, mode.contains("entityrefs"));
            let theirs = exi.encode_bytes(doc.as_bytes(), &theirs_options, &scratch);
            let mine = encode(&g, &ev, &o);
            let (t, m) = match (theirs, mine) {
                (Ok(t), Ok(m)) => (t, m),
                (t, m) => {
                    report.push(format!("doc{k} [{mode}]: EXIficient {t:?}, binxml {m:?}"));
                    continue;
                }
            };
            compared += 1;
            if t != m {
                report.push(format!(
                    "doc{k} [{mode}]: bytes differ at {} ({} against EXIficient's {})",
                    first_difference(&m, &t),
                    m.len(),
                    t.len()
                ));
                continue;
            }
            // binxml -> EXIficient: the original's infoset (external entities as references).
            match exi.decode_bytes(&m, &theirs_options, &scratch) {
                Ok(back) => {
                    let f = scratch.join("theirs.xml");
                    std::fs::write(&f, &back).unwrap();
                    // Comments and PIs are in the stream only when preserved.
                    let lossless = mode.contains("prefixes")
                        && (!doc.contains("<!--") || mode.contains("comments"))
                        && (!doc.contains("<?") || mode.contains("pis"))
                        && (!doc.contains('&') || mode.contains("dtd"));
                    if lossless && let Err(d) = c14n.compare_with(&src, &f, "skipped-entities") {
                        report.push(format!(
                            "doc{k} [{mode}]: EXIficient reads binxml's stream as another document: {d}"
                        ));
                    }
                    // EXIficient -> binxml: the same document as EXIficient's own decoding.
                    match decode(&g, &t, &o) {
                        Ok(ours) => {
                            let o_file = scratch.join("ours.xml");
                            std::fs::write(&o_file, &ours).unwrap();
                            if let Err(d) = c14n.compare_with(&f, &o_file, "skipped-entities") {
                                report.push(format!(
                                    "doc{k} [{mode}]: binxml decodes EXIficient's stream as another document: {d}"
                                ));
                            }
                        }
                        Err(e) => {
                            report.push(format!("doc{k} [{mode}]: binxml cannot decode: {e}"))
                        }
                    }
                }
                Err(e) => report.push(format!("doc{k} [{mode}]: EXIficient cannot decode: {e}")),
            }
        }
    }
    for r in &report {
        eprintln!("  {r}");
    }
    assert!(compared > 0);
    assert!(
        report.is_empty(),
        "{} of {} failed",
        report.len(),
        DOCS.len() * MODES.len()
    );
}

/// binxml's own round trip, every character kept (`Whitespace::Preserve`): with prefixes,
/// comments, PIs and the DOCTYPE preserved, each document decodes to its canonical XML, with
/// and without self-contained elements.
#[test]
fn round_trips_keep_the_document() {
    let mut c14n = C14nOracle::start();
    let scratch = scratch_dir("informed_fidelity_rt");
    let (_, g) = grammars(&scratch);
    let mut report = Vec::new();
    for (k, doc) in DOCS.iter().enumerate() {
        let src = scratch.join(format!("doc{k}.xml"));
        std::fs::write(&src, doc).unwrap();
        for mode in [
            "dtd,prefixes,comments,pis",
            "dtd,prefixes,comments,pis,compression",
            "dtd,prefixes,comments,pis,selfcontained={urn:f}group|{urn:f}item|{urn:x}w",
            "dtd,prefixes,comments,pis,bytealigned,selfcontained={urn:f}doc|{urn:x}in",
        ] {
            let o = ExiOptions::default().parse_text(mode).unwrap();
            let ev = events(doc, false);
            let back = encode(&g, &ev, &o).and_then(|exi| decode(&g, &exi, &o));
            match back {
                Ok(xml) => {
                    let f = scratch.join("back.xml");
                    std::fs::write(&f, &xml).unwrap();
                    if let Err(d) = c14n.compare_with(&src, &f, "skipped-entities") {
                        report.push(format!("doc{k} [{mode}]: {d}"));
                    }
                }
                Err(e) => report.push(format!("doc{k} [{mode}]: {e}")),
            }
        }
    }
    for r in &report {
        eprintln!("  {r}");
    }
    assert!(report.is_empty(), "{} failed", report.len());
}

/// With preserve.prefixes, a self-contained element's fragment has no NS event for a prefix
/// declared outside it: EXIficient's decoder then loses the name's namespace (the element
/// comes back unprefixed, in the default namespace around it); binxml's decoder resolves the
/// prefix through the enclosing declarations. The bytes are the same.
#[test]
fn prefix_declared_outside_a_self_contained_element() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let mut c14n = C14nOracle::start();
    let scratch = scratch_dir("informed_fidelity_sc_prefix");
    let (xsd, g) = grammars(&scratch);
    let doc = r#"<doc xmlns="urn:f" xmlns:x="urn:x"><title>t</title><group><item>i</item><x:w><x:in>v</x:in></x:w></group><count>1</count></doc>"#;
    let src = scratch.join("doc.xml");
    std::fs::write(&src, doc).unwrap();
    let mode = "selfcontained={urn:f}group,prefixes";
    let theirs_options = format!("schema={},schemalocation,{mode}", xsd.display());
    let o = options(mode);
    let theirs = exi
        .encode_bytes(doc.as_bytes(), &theirs_options, &scratch)
        .unwrap();
    let mine = encode(&g, &events(doc, false), &o).unwrap();
    assert_eq!(mine, theirs);
    let ours = scratch.join("ours.xml");
    std::fs::write(&ours, decode(&g, &mine, &o).unwrap()).unwrap();
    c14n.compare(&src, &ours).unwrap();
    let their_xml = scratch.join("theirs.xml");
    std::fs::write(
        &their_xml,
        exi.decode_bytes(&mine, &theirs_options, &scratch).unwrap(),
    )
    .unwrap();
    assert!(
        c14n.compare(&src, &their_xml).is_err(),
        "EXIficient's decoder now keeps the namespace: drop this departure from docs/exi.md"
    );
}
