//! Every XML document of the corpus: XML -> events -> XML has the same canonical form (C14N 2.0
//! with comments, computed by Python's ElementTree, independent of binxml).

use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir};

#[test]
fn corpus_round_trips_c14n_equal() {
    let files = corpus_xml_files();
    let scratch = scratch_dir("xml-corpus");
    let mut oracle = C14nOracle::start();
    let mut failures = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let input = std::fs::read(path).unwrap();
        let out = match binxml_xml::decode(&input).and_then(|ev| binxml_xml::encode(&ev)) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let cand = scratch.join(format!("{i}.xml"));
        if let Err(d) = oracle.compare_bytes(path, &out, &cand) {
            failures.push(format!("{}: {d}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} documents differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} corpus documents round-trip C14N-equal", files.len());
}
