//! Interoperability with EXIficient 1.0.7 (Maven Central `com.siemens.ct.exi:exificient`),
//! driven by `interop/exi/ExiDriver.java` in one JVM per test. `interop/exi/setup.sh` fetches
//! it; without it the tests are skipped, unless `CI=true`, where they fail.
//!
//! On every corpus XML document:
//! * bytes: binxml's encoding equals EXIficient's, given the same options and EXIficient's
//!   whitespace policy, in every layout (compression too: binxml deflates with zlib, as the
//!   JDK does) with and without fidelity options and string-table bounds;
//! * binxml → EXIficient: EXIficient decodes binxml's encoding (whitespace kept) to the
//!   canonical XML of the original;
//! * EXIficient → binxml: binxml decodes EXIficient's encoding to the canonical XML that
//!   EXIficient's own decoding has.

use std::path::Path;

use binxml_core::Event;
use binxml_exi::{ExiOptions, Whitespace};
use binxml_testkit::{C14nOracle, ExiOracle, corpus_xml_files, scratch_dir};

/// Option sets of the byte comparison (the driver's syntax, which `ExiOptions::parse_text`
/// also reads).
const BYTE_MODES: &[&str] = &[
    "bitpacked",
    "bytealigned",
    "precompression",
    "compression",
    "prefixes,comments,pis",
    "bytealigned,prefixes,comments,pis",
    "lexical,prefixes",
    "valuemaxlength=8,capacity=64",
    "precompression,blocksize=100",
    "compression,blocksize=1000",
    "header,cookie,bytealigned,valuemaxlength=16",
];

/// Option sets of the two-way infoset comparison.
const INFOSET_MODES: &[&str] = &[
    "prefixes,comments,pis",
    "bytealigned,prefixes,comments,pis",
    "precompression,prefixes,comments,pis",
    "compression,prefixes,comments,pis",
];

fn options(mode: &str) -> ExiOptions {
    ExiOptions::default()
        .parse_text(mode)
        .unwrap_or_else(|e| panic!("{mode}: {e}"))
}

fn events(xml: &[u8]) -> Vec<Event<'static>> {
    let utf8 = binxml_xml::to_utf8(xml).expect("corpus XML decodes");
    binxml_xml::decode(&utf8).expect("corpus XML parses")
}

/// Per-document option sets: the first child of the root written self-contained; the
/// document as a fragment (documents without DOCTYPE, in UTF-8: EXIficient's fragment mode
/// reads the file wrapped in a root element).
fn document_modes(xml: &[u8], ev: &[Event<'_>]) -> Vec<String> {
    let mut modes = Vec::new();
    let mut depth = 0;
    // EXIficient resolves an xsi:type prefix inside a self-contained element without the
    // declarations of the elements around it (the value becomes the unresolved lexical
    // QName in no namespace); binxml resolves it, as the Recommendation says
    // (`xsi_type_in_self_contained_element` in tests/departures.rs).
    let xsi_type = ev.iter().any(|e| {
        matches!(e, Event::Attribute { name, .. }
            if name.local == "type" && name.namespace == "http://www.w3.org/2001/XMLSchema-instance")
    });
    for e in ev.iter().filter(|_| !xsi_type) {
        match e {
            Event::StartElement(q) => {
                depth += 1;
                if depth == 2 {
                    let n = if q.namespace.is_empty() {
                        q.local.to_string()
                    } else {
                        format!("{{{}}}{}", q.namespace, q.local)
                    };
                    for base in ["bitpacked", "bytealigned", "prefixes,comments,pis"] {
                        modes.push(format!("{base},selfcontained={n}"));
                    }
                    break;
                }
            }
            Event::EndElement => depth -= 1,
            _ => {}
        }
    }
    let utf8 = matches!(binxml_xml::to_utf8(xml), Ok(std::borrow::Cow::Borrowed(_)));
    if utf8 && !ev.iter().any(|e| matches!(e, Event::DocType(_))) {
        modes.push("fragment".to_string());
        modes.push("fragment,bytealigned,prefixes,comments,pis".to_string());
    }
    modes
}

fn name(p: &Path) -> String {
    let s = p.display().to_string();
    s.rsplit("corpus/").next().unwrap_or(&s).to_string()
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[test]
fn bytes_equal_exificient() {
    let Some(mut java) = ExiOracle::start_or_skip() else {
        return;
    };
    let scratch = scratch_dir("exi-bytes");
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in corpus_xml_files() {
        let xml = std::fs::read(&path).unwrap();
        let ev = events(&xml);
        let extra = document_modes(&xml, &ev);
        for mode in BYTE_MODES
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            // Lexical values without preserved prefixes is refused by EXIficient for a prefixed
            // xsi:type; with prefixes it is accepted.
            let theirs = match java.encode_bytes(&xml, &format!("{mode},schemalocation"), &scratch)
            {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{mode}]: EXIficient: {e}", name(&path)));
                    continue;
                }
            };
            let o = options(mode).with_whitespace(Whitespace::DropBetweenTags);
            let ours = match binxml_exi::encode_with(&ev, &o) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{mode}]: binxml: {e}", name(&path)));
                    continue;
                }
            };
            compared += 1;
            if ours != theirs {
                let at = first_difference(&ours, &theirs);
                failures.push(format!(
                    "{} [{mode}]: bytes differ at {at} ({} octets, EXIficient {})",
                    name(&path),
                    ours.len(),
                    theirs.len()
                ));
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(compared > 0);
    assert!(
        failures.is_empty(),
        "{} of {compared} comparisons failed",
        failures.len()
    );
}

#[test]
fn exificient_reads_binxml() {
    let Some(mut java) = ExiOracle::start_or_skip() else {
        return;
    };
    let mut c14n = C14nOracle::start();
    let scratch = scratch_dir("exi-to-java");
    let mut failures = Vec::new();
    for path in corpus_xml_files() {
        let xml = std::fs::read(&path).unwrap();
        let ev = events(&xml);
        for mode in INFOSET_MODES {
            let exi = binxml_exi::encode_with(&ev, &options(mode)).unwrap();
            let back = match java.decode_bytes(&exi, mode, &scratch) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{mode}]: EXIficient: {e}", name(&path)));
                    continue;
                }
            };
            // Without preserve.dtd the DOCTYPE, and the comments in it, are not in the stream.
            let candidate = scratch.join("back.xml");
            std::fs::write(&candidate, &back).unwrap();
            if let Err(d) = c14n.compare_with(&path, &candidate, "no-dtd-comments") {
                failures.push(format!("{} [{mode}]: {d}", name(&path)));
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

#[test]
fn binxml_reads_exificient() {
    let Some(mut java) = ExiOracle::start_or_skip() else {
        return;
    };
    let mut c14n = C14nOracle::start();
    let scratch = scratch_dir("exi-from-java");
    let mut failures = Vec::new();
    for path in corpus_xml_files() {
        let xml = std::fs::read(&path).unwrap();
        for mode in INFOSET_MODES
            .iter()
            .chain(["bitpacked", "compression"].iter())
        {
            let exi = match java.encode_bytes(&xml, &format!("{mode},schemalocation"), &scratch) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{mode}]: EXIficient: {e}", name(&path)));
                    continue;
                }
            };
            let theirs = java.decode_bytes(&exi, mode, &scratch).unwrap();
            let ours = match binxml_exi::decode_with(&exi, &options(mode))
                .and_then(|ev| binxml_xml::encode(&ev))
            {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{mode}]: binxml: {e}", name(&path)));
                    continue;
                }
            };
            let reference = scratch.join("theirs.xml");
            std::fs::write(&reference, &theirs).unwrap();
            if let Err(d) = c14n.compare_bytes(&reference, &ours, &scratch.join("ours.xml")) {
                failures.push(format!("{} [{mode}]: {d}", name(&path)));
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}
