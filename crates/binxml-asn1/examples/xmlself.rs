fn main() {
    let a: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&a[1]).unwrap();
    let utf8 = binxml_xml::to_utf8(&raw).unwrap();
    let events = binxml_xml::parse_events(&utf8).unwrap();
    std::fs::write(&a[2], binxml_xml::write_events(&events).unwrap()).unwrap();
}
