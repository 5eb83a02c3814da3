//! The validator against xmlschema's verdicts on the test sets of `tests/schemas`: every real
//! instance listed in `sets.tsv` and every deliberately broken one in `<set>/broken/`, with
//! the verdicts xmlschema gave when the lists were made (binxml-testkit's
//! `tests/schema_oracles.rs` checks those verdicts against the live oracle).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use binxml_schema::{LoadOptions, Schema, Validator};
use binxml_testkit::{resolve_listed_path, schema_sets, workspace_root};
use binxml_xml::XmlDecoder;

/// LoadOptions with a set's catalog (`URL<TAB>file relative to the catalog`).
fn options(catalog: Option<&Path>) -> LoadOptions {
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
    o
}

struct Loaded {
    schemas: HashMap<PathBuf, Schema>,
}

impl Loaded {
    fn get(&mut self, schema: &Path, catalog: Option<&Path>) -> &Schema {
        self.schemas.entry(schema.to_path_buf()).or_insert_with(|| {
            Schema::load_with(schema, &options(catalog))
                .unwrap_or_else(|e| panic!("{}: {e}", schema.display()))
        })
    }
}

fn verdict(schema: &Schema, instance: &Path) -> Result<(), String> {
    let xml = std::fs::read(instance).unwrap();
    let errors =
        Validator::validate(schema, &mut XmlDecoder::new(&xml)).map_err(|e| e.to_string())?;
    match errors.first() {
        None => Ok(()),
        Some(e) => {
            let (l, c) = binxml_core::error::line_col(&xml, e.offset as usize);
            Err(format!("{l}:{c}: {}: {}", e.path, e.message))
        }
    }
}

/// Instances where binxml follows the Recommendation and xmlschema does not, with the reason.
const DEPARTURES: &[(&str, &str)] = &[(
    "tests/schemas/xmlschema/xml.xsd",
    "xmlschema refuses xml:id on an XHTML <div> inside xs:documentation (a lax wildcard); \
     binxml knows the XML namespace's attributes (xml:id among them, xml.xsd 2009) and a lax \
     wildcard skips what it has no declaration for anyway (Part 1, 3.10.4 and 3.4.4)",
)];

/// Whether xmlschema's reason (`line N: /a:x/b[2]: ...`) and binxml's (`L:C: /x/b/c: ...`)
/// name the same element: binxml's path, prefixes and positions aside, starts with
/// xmlschema's.
fn same_place(theirs: &str, ours: &str) -> bool {
    let path = |s: &str| -> Vec<String> {
        s.split('/')
            .skip(1)
            .map(|seg| {
                let seg = seg.split('[').next().unwrap_or(seg);
                seg.rsplit(':').next().unwrap_or(seg).to_string()
            })
            .collect()
    };
    let theirs = theirs.split(": ").nth(1).unwrap_or("");
    let ours = ours.split(": ").nth(1).unwrap_or("");
    let (t, o) = (path(theirs), path(ours));
    !t.is_empty() && o.starts_with(&t)
}

#[test]
fn validator_agrees_with_xmlschema() {
    let mut loaded = Loaded {
        schemas: HashMap::new(),
    };
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for row in schema_sets() {
        let (Some(schema), Some(instance)) = (&row.schema, &row.instance) else {
            continue;
        };
        let s = loaded.get(schema, row.catalog.as_deref());
        let ours = verdict(s, instance);
        checked += 1;
        if ours.is_ok() != row.expected_valid && !DEPARTURES.iter().any(|(f, _)| row.listed == *f) {
            disagreements.push(format!(
                "{}: xmlschema says {}, binxml says {:?}",
                row.listed,
                if row.expected_valid {
                    "valid"
                } else {
                    "invalid"
                },
                ours
            ));
        }
    }
    // The broken instances: each set's broken/expected.tsv (file, source, kind, schema,
    // catalog, xmlschema's reason).
    let root = workspace_root();
    for dir in std::fs::read_dir(root.join("tests/schemas")).unwrap() {
        let expected = dir.unwrap().path().join("broken/expected.tsv");
        let Ok(text) = std::fs::read_to_string(&expected) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let (Some(file), Some(schema)) = (resolve_listed_path(f[0]), resolve_listed_path(f[3]))
            else {
                continue;
            };
            let catalog = resolve_listed_path(f[4]);
            let s = loaded.get(&schema, catalog.as_deref());
            checked += 1;
            match verdict(s, &file) {
                Ok(()) => disagreements.push(format!(
                    "{}: xmlschema says invalid ({}), binxml says valid",
                    f[0], f[5]
                )),
                Err(ours) => {
                    // Both point at the same element: xmlschema names the element whose
                    // content or attribute is wrong, binxml the same one or the child at fault.
                    if !same_place(f[5], &ours) {
                        disagreements
                            .push(format!("{}: xmlschema {} | binxml {}", f[0], f[5], ours));
                    }
                }
            }
        }
    }
    eprintln!(
        "{checked} instances checked, {} disagreements",
        disagreements.len()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
