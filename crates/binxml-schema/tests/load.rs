//! Loading real schemas.

use binxml_schema::Schema;

#[test]
fn corpus_schemas_load() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    for p in [
        "exi_w3c_testsuite/data/Invoice/sm-inv.xsd",
        "exi_exificient/XMLSchema.xsd",
    ] {
        let path = root.join(p);
        if !path.exists() {
            continue;
        }
        match Schema::load(&path) {
            Ok(s) => eprintln!(
                "{p}: {} elements ({} global), {} types",
                s.element_count(),
                s.global_elements().count(),
                s.type_count()
            ),
            Err(e) => panic!("{e}"),
        }
    }
}
