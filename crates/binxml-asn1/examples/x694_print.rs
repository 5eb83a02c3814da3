//! Prints the X.694 module of a schema (development aid; the CLI has `binxml schema asn1`).
fn main() {
    let path = std::env::args().nth(1).expect("an XSD path");
    let schema = binxml_schema::Schema::load(std::path::Path::new(&path)).expect("schema");
    let m = binxml_asn1::x694::map::map(&schema, &binxml_asn1::x694::Roots::Main).expect("map");
    print!(
        "{}",
        binxml_asn1::x694::print::print(&m, std::env::args().nth(2).is_some())
    );
}
