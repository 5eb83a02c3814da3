// Profiling aid: where the tree's time goes — XML decoding vs building from replayed events.
use binxml_core::Decoder;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).unwrap();
    let doc = binxml_xml::to_utf8(&raw).unwrap().into_owned();
    let n = 20;
    let mb = (doc.len() * n) as f64 / 1e6;
    let mode = args.get(2).map(String::as_str).unwrap_or("");
    if mode == "rox1" {
        std::hint::black_box(
            roxmltree::Document::parse_with_options(
                std::str::from_utf8(&doc).unwrap(),
                roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..Default::default()
                },
            )
            .unwrap()
            .descendants()
            .count(),
        );
        return;
    }
    if mode == "tree1" {
        let mut d = binxml_xml::XmlDecoder::new(&doc);
        std::hint::black_box(
            binxml_tree::Document::parse_sized(&mut d, doc.len())
                .unwrap()
                .len(),
        );
        return;
    }
    if mode == "dec1" {
        let mut d = binxml_xml::XmlDecoder::new(&doc);
        while let Some(e) = d.next_event().unwrap() {
            std::hint::black_box(e);
        }
        return;
    }
    let events = binxml_xml::parse_events(&doc).unwrap();
    if args.get(2).is_some_and(|a| a == "replay") {
        for _ in 0..n {
            let mut r = binxml_core::Replay::new(&events);
            std::hint::black_box(
                binxml_tree::Document::parse_sized(&mut r, doc.len())
                    .unwrap()
                    .len(),
            );
        }
        return;
    }
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut d = binxml_xml::XmlDecoder::new(&doc);
        while let Some(e) = d.next_event().unwrap() {
            std::hint::black_box(e);
        }
    }
    eprintln!("decode only {:.0} MB/s", mb / t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut r = binxml_core::Replay::new(&events);
        std::hint::black_box(
            binxml_tree::Document::parse_sized(&mut r, doc.len())
                .unwrap()
                .len(),
        );
    }
    eprintln!(
        "tree from replayed events {:.0} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut d = binxml_xml::XmlDecoder::new(&doc);
        std::hint::black_box(
            binxml_tree::Document::parse_sized(&mut d, doc.len())
                .unwrap()
                .len(),
        );
    }
    eprintln!("decode + tree {:.0} MB/s", mb / t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    for _ in 0..n {
        let mut d = binxml_xml::XmlDecoder::new(&doc);
        std::hint::black_box(
            binxml_tree::Document::parse_from(&mut d, doc.len())
                .unwrap()
                .len(),
        );
    }
    eprintln!(
        "decode + tree, monomorphized {:.0} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(
            roxmltree::Document::parse_with_options(
                std::str::from_utf8(&doc).unwrap(),
                roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..Default::default()
                },
            )
            .unwrap()
            .descendants()
            .count(),
        );
    }
    eprintln!("roxmltree {:.0} MB/s", mb / t.elapsed().as_secs_f64());
}
