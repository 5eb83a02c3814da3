//! The datatypes module against an independent oracle: every case of
//! `datatypes_oracle.tsv` (verdicts of Python's xmlschema, written by `datatypes_oracle.py`,
//! with the spec's verdict where xmlschema contradicts it) is rebuilt here as a chain of
//! restrictions and the value validated; the verdicts must agree, all of them.

use binxml_schema::datatypes::{Builtin, FacetKind, FacetSpec, Facets, NamespaceResolver};

/// Undoes the TSV escapes of the generator.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('s') => out.push(' '),
            Some('\\') => out.push('\\'),
            other => panic!("bad escape {other:?} in {s:?}"),
        }
    }
    out
}

/// The verdict of this crate on one case.
fn verdict(t: &str, steps: &str, value: &str, ns: &dyn NamespaceResolver) -> &'static str {
    let base = match t.strip_prefix("list:") {
        Some(item) => Facets::list(Builtin::from_local_name(item).expect("item type")),
        None => Facets::builtin(Builtin::from_local_name(t).expect("type")),
    };
    let mut facets = base;
    if !steps.is_empty() {
        for step in steps.split(" >> ") {
            let specs: Vec<(FacetKind, String, bool)> = step
                .split(" ; ")
                .map(|f| {
                    let (name, value) = f.split_once('=').expect("name=value");
                    let fixed = name.starts_with('!');
                    let kind = FacetKind::from_local_name(name.trim_start_matches('!'))
                        .expect("facet name");
                    (kind, value.to_string(), fixed)
                })
                .collect();
            let specs: Vec<FacetSpec<'_>> = specs
                .iter()
                .map(|(kind, value, fixed)| FacetSpec {
                    kind: *kind,
                    value,
                    fixed: *fixed,
                    ns,
                })
                .collect();
            match facets.restrict(&specs) {
                Ok(f) => facets = f,
                Err(_) => return "schema-error",
            }
        }
    }
    match facets.validate(value, ns) {
        Ok(_) => "valid",
        Err(_) => "invalid",
    }
}

#[test]
fn agrees_with_xmlschema() {
    let tsv = include_str!("datatypes_oracle.tsv");
    let ns: &[(&str, &str)] = &[("p", "urn:p")];
    let mut cases = 0;
    let mut by_spec = 0;
    let mut disagreements = Vec::new();
    for line in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let cols: Vec<String> = line.split('\t').map(unescape).collect();
        let [t, steps, value, expected, note] = &cols[..] else {
            panic!("bad line {line:?}");
        };
        cases += 1;
        if !note.is_empty() {
            by_spec += 1;
        }
        let got = verdict(t, steps, value, &ns);
        if got != expected {
            disagreements.push(format!(
                "{t} [{steps}] {value:?}: expected {expected}, got {got}"
            ));
        }
    }
    println!("{cases} cases, {by_spec} decided by the spec against xmlschema");
    assert!(cases > 700, "the table is incomplete: {cases} cases");
    assert!(
        disagreements.is_empty(),
        "{} of {cases} cases disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
