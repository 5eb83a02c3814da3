//! Every corpus XML document: XML -> tree -> events -> XML is C14N-equal (Python's oracle).

use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir};
use binxml_tree::Document;

#[test]
fn corpus_through_the_tree_is_c14n_equal() {
    let files = corpus_xml_files();
    let scratch = scratch_dir("tree-corpus");
    let mut oracle = C14nOracle::start();
    let mut failures = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let raw = std::fs::read(path).unwrap();
        let input = binxml_xml::to_utf8(&raw).unwrap();
        let mut dec = binxml_xml::XmlDecoder::new(&input);
        let doc = Document::parse(&mut dec, input.len()).unwrap();
        let mut w = binxml_xml::XmlWriter::new(Vec::new());
        doc.write_to(&mut w).unwrap();
        let out = w.into_inner().unwrap();
        if let Err(d) = oracle.compare_bytes(path, &out, &scratch.join(format!("{i}.xml"))) {
            failures.push(format!("{}: {d}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
