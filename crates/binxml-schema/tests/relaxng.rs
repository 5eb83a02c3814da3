//! The RELAX NG reader and validator: the verdicts of lxml (libxml2's RELAX NG validator, an
//! independent implementation) on the test documents of `tests/schemas/relaxng/cases.tsv`,
//! for the XML syntax and the compact syntax of the same schemas; the live oracle when lxml is
//! installed (`interop/xsd/setup.sh`); the features of the language one by one; hostile schemas.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use binxml_schema::LoadOptions;
use binxml_schema::relaxng::{RelaxNg, RngValidator};
use binxml_testkit::{python, workspace_root};
use binxml_xml::XmlDecoder;

fn cases() -> Vec<(PathBuf, PathBuf, bool)> {
    let root = workspace_root();
    let tsv = std::fs::read_to_string(root.join("tests/schemas/relaxng/cases.tsv")).unwrap();
    tsv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (root.join(f[0]), root.join(f[1]), f[2] == "valid")
        })
        .collect()
}

fn errors(schema: &RelaxNg, xml: &[u8]) -> Vec<String> {
    RngValidator::validate(schema, &mut XmlDecoder::new(xml))
        .unwrap()
        .into_iter()
        .map(|e| {
            let (l, c) = binxml_core::error::line_col(xml, e.offset as usize);
            format!("{l}:{c}: {}: {}", e.path, e.message)
        })
        .collect()
}

fn compact_of(rng: &Path) -> PathBuf {
    rng.with_extension("rnc")
}

#[test]
fn same_verdicts_as_lxml_in_both_syntaxes() {
    let mut schemas: HashMap<PathBuf, RelaxNg> = HashMap::new();
    let mut failures = Vec::new();
    let rows = cases();
    assert!(rows.len() >= 20);
    for (schema, instance, valid) in &rows {
        // Every schema in the XML syntax, and in the compact one where it exists (binxml's
        // own and DocBook's; the cupshelpers schema ships only as .rng).
        let compact = compact_of(schema);
        let paths = if compact.exists() {
            vec![schema.clone(), compact]
        } else {
            vec![schema.clone()]
        };
        for path in paths {
            let s = schemas
                .entry(path.clone())
                .or_insert_with(|| RelaxNg::load(&path).unwrap_or_else(|e| panic!("{e}")));
            let xml = std::fs::read(instance).unwrap();
            let errs = errors(s, &xml);
            if errs.is_empty() != *valid {
                failures.push(format!(
                    "{} with {}: lxml says {}, binxml {:?}",
                    instance.display(),
                    path.display(),
                    if *valid { "valid" } else { "invalid" },
                    errs
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// lxml itself, when installed: it still gives the recorded verdicts.
#[test]
fn live_lxml_oracle() {
    let py = python();
    let has_lxml = Command::new(&py)
        .args(["-c", "import lxml.etree"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_lxml {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "lxml is not installed (interop/xsd/setup.sh)"
        );
        eprintln!("relaxng: lxml not installed, live oracle skipped");
        return;
    }
    let root = workspace_root();
    let mut by_schema: HashMap<PathBuf, Vec<(PathBuf, bool)>> = HashMap::new();
    for (s, i, v) in cases() {
        by_schema.entry(s).or_default().push((i, v));
    }
    for (schema, instances) in by_schema {
        let out = Command::new(&py)
            .arg(root.join("tests/schemas/relaxng/oracle.py"))
            .arg(&schema)
            .args(instances.iter().map(|(i, _)| i))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        for ((instance, valid), line) in instances.iter().zip(text.lines()) {
            let verdict = line.rsplit('\t').next().unwrap();
            assert_eq!(verdict == "valid", *valid, "{}", instance.display());
        }
    }
}

fn compact(rnc: &str) -> RelaxNg {
    RelaxNg::from_bytes(rnc.as_bytes(), "t.rnc", true, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn xml_schema(rng: &str) -> RelaxNg {
    RelaxNg::from_bytes(rng.as_bytes(), "t.rng", false, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn ok(s: &RelaxNg, xml: &str) -> bool {
    errors(s, xml.as_bytes()).is_empty()
}

#[test]
fn errors_carry_line_column_and_path() {
    let s = compact("element a { element b { xsd:int }+ }");
    let e = errors(&s, b"<a>\n  <b>1</b>\n  <b>x</b>\n  <c/>\n</a>");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].starts_with("3:") && e[0].contains("/a/b") && e[0].contains("'x'"),
        "{e:?}"
    );
    assert!(
        e[1].starts_with("4:3: /a: element 'c' is not allowed here"),
        "{e:?}"
    );
}

#[test]
fn interleave_list_value_and_except() {
    let s = compact(
        r#"element r { (element a { empty } & element b { empty }+ & attribute k { list { xsd:int+ } }?),
           element v { "one" | xsd:int "2" }, element d { xsd:string - ("no" | "never") } }"#,
    );
    assert!(ok(
        &s,
        r#"<r k=" 1 2  3"><b/><a/><b/><v>one</v><d>yes</d></r>"#
    ));
    assert!(ok(&s, "<r><a/><b/><v> 02 </v><d>x</d></r>"));
    assert!(!ok(&s, "<r><b/><v>one</v><d>x</d></r>"), "a is missing");
    assert!(!ok(&s, r#"<r k="1 x"><a/><b/><v>one</v><d>x</d></r>"#));
    assert!(!ok(&s, "<r><a/><b/><v>three</v><d>x</d></r>"));
    assert!(!ok(&s, "<r><a/><b/><v>one</v><d>never</d></r>"));
}

#[test]
fn name_classes_and_mixed() {
    let s = compact(
        r#"namespace x = "urn:x"
           element * - x:* { attribute x:* { text }*, mixed { element x:* - x:no { empty }* } }"#,
    );
    assert!(ok(
        &s,
        r#"<any xmlns:x="urn:x" x:a="1">text <x:e/> more <x:f/></any>"#
    ));
    assert!(!ok(&s, r#"<x:any xmlns:x="urn:x"/>"#));
    assert!(!ok(&s, r#"<any xmlns:x="urn:x"><x:no/></any>"#));
    assert!(!ok(&s, r#"<any b="1"/>"#));
}

#[test]
fn grammars_combine_and_parent_refs() {
    let s = xml_schema(
        r#"<grammar xmlns="http://relaxng.org/ns/structure/1.0">
             <start><element name="r"><ref name="c"/><grammar><start><element name="in"><parentRef name="c"/></element></start></grammar></element></start>
             <define name="c"><element name="c"><empty/></element></define>
             <define name="c" combine="choice"><element name="d"><text/></element></define>
           </grammar>"#,
    );
    assert!(ok(&s, "<r><c/><in><d>x</d></in></r>"));
    assert!(!ok(&s, "<r><c/><in><e/></in></r>"));
    let recursive = compact("start = t  t = element t { t* }");
    assert!(ok(&recursive, "<t><t><t/></t><t/></t>"));
}

#[test]
fn include_overrides_and_external_refs_from_files() {
    let dir = binxml_testkit::scratch_dir("relaxng-include");
    std::fs::write(
        dir.join("base.rng"),
        r#"<grammar xmlns="http://relaxng.org/ns/structure/1.0">
             <start><element name="doc"><ref name="item"/><externalRef href="leaf.rnc"/></element></start>
             <define name="item"><element name="a"><empty/></element></define>
           </grammar>"#,
    )
    .unwrap();
    std::fs::write(dir.join("leaf.rnc"), "element leaf { text }").unwrap();
    std::fs::write(
        dir.join("main.rnc"),
        r#"include "base.rng" { item = element b { empty } }"#,
    )
    .unwrap();
    let s = RelaxNg::load(dir.join("main.rnc")).unwrap();
    assert!(ok(&s, "<doc><b/><leaf>x</leaf></doc>"));
    assert!(!ok(&s, "<doc><a/><leaf>x</leaf></doc>"));
    std::fs::write(
        dir.join("web.rnc"),
        r#"external "http://example.org/x.rnc""#,
    )
    .unwrap();
    let e = RelaxNg::load(dir.join("web.rnc")).unwrap_err();
    assert!(e.message().contains("not a local file"), "{e}");
}

#[test]
fn hostile_schemas_are_refused_or_bounded() {
    // A reference loop outside elements.
    let e = RelaxNg::from_bytes(
        b"start = a  a = b  b = a",
        "t.rnc",
        true,
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(e.message().contains("refers to itself"), "{e}");
    // Deep nesting.
    let deep = format!("{}empty{}", "element a { ".repeat(5000), " }".repeat(5000));
    assert!(RelaxNg::from_bytes(deep.as_bytes(), "t.rnc", true, &LoadOptions::default()).is_err());
    // A self-including file.
    let dir = binxml_testkit::scratch_dir("relaxng-hostile");
    std::fs::write(dir.join("loop.rnc"), r#"start = external "loop.rnc""#).unwrap();
    assert!(RelaxNg::load(dir.join("loop.rnc")).is_err());
    // Interleaves whose derivatives grow with the document stay within the pattern limit.
    let mut s = compact(
        "element r { (element a { empty }* & element b { empty }* & element c { empty }* & text)* }",
    );
    s.max_validation_patterns = 5_000;
    let mut doc = String::from("<r>");
    for i in 0..2000 {
        doc.push_str(["<a/>", "<b/>", "<c/>", "t"][i % 4]);
    }
    doc.push_str("</r>");
    let _ = errors(&s, doc.as_bytes());
}
