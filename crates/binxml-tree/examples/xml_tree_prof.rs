//! Profiling aid: one document into the tree `n` times:
//! `cargo run --release -p binxml-tree --example xml_tree_prof -- FILE [n] [xml|replay|pull]`.
//! `xml`: XML text by the direct path (`Document::parse_xml`); `replay`: the document's events,
//! parsed once beforehand, pushed into the builder (the builder's own cost, plus a slice walk); `pull`: the XML decoder's events one
//! by one (`Document::parse_from`, the generic path).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let xml = std::fs::read(&args[1]).unwrap();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    match args.get(3).map_or("xml", String::as_str) {
        "replay" => {
            let events = binxml_xml::parse_events(&xml).unwrap();
            for _ in 0..n {
                let mut r = binxml_core::Replay::new(&events);
                std::hint::black_box(
                    binxml_tree::Document::parse_push(&mut r, xml.len())
                        .unwrap()
                        .len(),
                );
            }
        }
        "pull" => {
            for _ in 0..n {
                let mut d = binxml_xml::XmlDecoder::new(&xml);
                std::hint::black_box(
                    binxml_tree::Document::parse_from(&mut d, xml.len())
                        .unwrap()
                        .len(),
                );
            }
        }
        _ => {
            for _ in 0..n {
                std::hint::black_box(binxml_tree::Document::parse_xml(&xml).unwrap().len());
            }
        }
    }
}
