// Profiling aid for a loaded machine: runs one reader N times on one file, to be counted with
// callgrind (instruction counts are stable where wall-clock times are not). Modes: qx (raw
// quick-xml events), events (binxml's
// decoder), tree (binxml tree, dyn decoder), treeg (binxml tree, monomorphized), treex (binxml
// tree, XML pushed straight into the builder), rox (roxmltree).
use binxml_core::Decoder;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).unwrap();
    let doc = binxml_xml::to_utf8(&raw).unwrap().into_owned();
    let mode = args[2].as_str();
    let n: usize = args.get(3).map_or(1, |s| s.parse().unwrap());
    for _ in 0..n {
        let r = match mode {
            "qx" => {
                let mut r = quick_xml::Reader::from_reader(&doc[..]);
                let mut n = 0;
                while !matches!(r.read_event().unwrap(), quick_xml::events::Event::Eof) {
                    n += 1;
                }
                n
            }
            "events" => {
                let mut d = binxml_xml::XmlDecoder::new(&doc);
                let mut n = 0;
                while let Some(e) = d.next_event().unwrap() {
                    std::hint::black_box(&e);
                    n += 1;
                }
                n
            }
            "tree" => {
                let mut d = binxml_xml::XmlDecoder::new(&doc);
                binxml_tree::Document::parse_sized(&mut d, doc.len())
                    .unwrap()
                    .len()
            }
            "treeg" => {
                let mut d = binxml_xml::XmlDecoder::new(&doc);
                binxml_tree::Document::parse_from(&mut d, doc.len())
                    .unwrap()
                    .len()
            }
            "treex" => binxml_tree::Document::parse_xml(&doc).unwrap().len(),
            "rox" => {
                let o = roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..Default::default()
                };
                roxmltree::Document::parse_with_options(std::str::from_utf8(&doc).unwrap(), o)
                    .unwrap()
                    .descendants()
                    .count()
            }
            _ => panic!("mode"),
        };
        std::hint::black_box(r);
    }
}
