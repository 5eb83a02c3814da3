//! binxml's canonical XML against libxml2's (lxml, `interop/sign/c14n_oracle.py`) on every
//! corpus document: the whole document in the four variants, and two element subtrees in the
//! two exclusive ones.

use std::path::Path;
use std::process::Command;

use binxml_core::Event;
use binxml_sign::c14n::{C14n, Method, Subset, canonicalize_subset};
use binxml_testkit::{LineOracle, corpus_xml_files, python, scratch_dir, workspace_root};

const MODES: [(&str, Method, bool); 4] = [
    ("c14n", Method::Inclusive, false),
    ("c14n-comments", Method::Inclusive, true),
    ("exc", Method::Exclusive, false),
    ("exc-comments", Method::Exclusive, true),
];

/// Documents above this size are left to the whole-document comparison of the other tests:
/// the oracle's Python tree would take most of the run.
const MAX_SIZE: u64 = 2_000_000;

fn oracle() -> LineOracle {
    let script = workspace_root().join("interop/sign/c14n_oracle.py");
    LineOracle::spawn(Command::new(python()).arg(script)).expect("start the C14N oracle")
}

/// The `StartElement` indices of the events, in document order.
fn element_starts(events: &[Event<'_>]) -> Vec<usize> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::StartElement(_)))
        .map(|(i, _)| i)
        .collect()
}

/// Whether an ancestor of the element at `start` has an `xml:*` attribute (what Canonical XML
/// 1.0 has the apex inherit and lxml's copied subtree loses).
fn inherits_xml_attrs(events: &[Event<'_>], start: usize) -> bool {
    let mut depth = 0usize;
    let mut stack: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < start {
        match &events[i] {
            Event::StartElement(_) => {
                depth += 1;
                let mut has = false;
                let mut j = i + 1;
                while let Some(Event::Namespace { .. } | Event::Attribute { .. }) = events.get(j) {
                    if let Event::Attribute { name, .. } = &events[j] {
                        has |= name.namespace == binxml_core::XML_NS;
                    }
                    j += 1;
                }
                stack.push(has);
            }
            Event::EndElement => {
                depth -= 1;
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    let _ = depth;
    stack.iter().any(|h| *h)
}

fn compare(
    oracle: &mut LineOracle,
    path: &Path,
    events: &[Event<'_>],
    element: Option<(usize, usize)>,
    out: &Path,
) -> Result<usize, String> {
    let mut checked = 0;
    for (mode, method, comments) in MODES {
        if element.is_some() && method == Method::Inclusive {
            // lxml canonicalizes a copy of the subtree, and the copy loses what Canonical XML
            // 1.0 has the apex inherit (xml:* attributes) and gains wrong xmlns="" on the
            // descendants of an apex whose default namespace is declared above it. The
            // inclusive subsets are checked against xmlsec1 instead (tests/xmlsec_interop.rs).
            continue;
        }
        let c14n = C14n {
            method,
            with_comments: comments,
            inclusive_prefixes: Vec::new(),
        };
        let subset = Subset {
            apex: element.map(|(_, start)| start),
            exclude: &[],
        };
        let ours = canonicalize_subset(events, &subset, &c14n)
            .map_err(|e| format!("{}: {mode}: {e}", path.display()))?;
        let which = element.map_or("-".to_string(), |(n, _)| n.to_string());
        let answer = oracle.ask(&[
            &path.display().to_string(),
            mode,
            &which,
            &out.display().to_string(),
        ]);
        if answer != "ok" {
            return Err(format!("{}: oracle: {answer}", path.display()));
        }
        let theirs = std::fs::read(out).unwrap();
        if ours != theirs {
            let at = ours
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(theirs.len()));
            let lo = at.saturating_sub(80);
            return Err(format!(
                "{} {mode} element {which}: differs at byte {at}:\n binxml: {:?}\n libxml2: {:?}",
                path.display(),
                String::from_utf8_lossy(&ours[lo..(at + 80).min(ours.len())]),
                String::from_utf8_lossy(&theirs[lo..(at + 80).min(theirs.len())]),
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

#[test]
fn canonical_forms_match_libxml2_on_the_corpus() {
    let mut oracle = oracle();
    let dir = scratch_dir("sign-c14n");
    let out = dir.join("oracle.c14n");
    let (mut docs, mut forms, mut skipped) = (0, 0, Vec::new());
    let mut failures = Vec::new();
    for path in corpus_xml_files() {
        if std::fs::metadata(&path).unwrap().len() > MAX_SIZE {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let Ok(events) = binxml_xml::decode(&bytes) else {
            // Not well-formed (the corpus keeps some broken documents on purpose).
            continue;
        };
        if events
            .iter()
            .any(|e| matches!(e, Event::EntityReference { .. }))
        {
            skipped.push(path.display().to_string());
            continue;
        }
        docs += 1;
        let starts = element_starts(&events);
        let mut picks = vec![None];
        for n in [1, starts.len() / 2] {
            if n > 0 && n < starts.len() && !inherits_xml_attrs(&events, starts[n]) {
                picks.push(Some((n, starts[n])));
            }
        }
        for pick in picks {
            match compare(&mut oracle, &path, &events, pick, &out) {
                Ok(n) => forms += n,
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!(
        "{docs} documents, {forms} canonical forms equal to libxml2's; skipped (unexpanded entities): {skipped:?}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(docs > 20, "only {docs} documents compared");
}
