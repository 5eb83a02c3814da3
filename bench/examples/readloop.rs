// Profiling aid: binxml's XML decoder (or tree) against raw quick-xml on one file, interleaved
// so that machine load affects both alike. Prints the time ratio.
use binxml_core::Decoder;
fn qx(doc: &[u8]) -> usize {
    let mut r = quick_xml::Reader::from_reader(doc);
    let mut n = 0;
    while !matches!(r.read_event().unwrap(), quick_xml::events::Event::Eof) {
        n += 1;
    }
    n
}
fn qx_full(doc: &[u8]) -> usize {
    // quick-xml doing comparable work: namespaces resolved, attributes iterated and unescaped,
    // text unescaped.
    let mut r = quick_xml::NsReader::from_reader(doc);
    let mut n = 0;
    loop {
        match r.read_resolved_event().unwrap() {
            (_, quick_xml::events::Event::Eof) => return n,
            (_, quick_xml::events::Event::Start(e)) | (_, quick_xml::events::Event::Empty(e)) => {
                for a in e.attributes() {
                    let a = a.unwrap();
                    let _ = r.resolver().resolve_attribute(a.key);
                    n += a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .len();
                }
                n += 1;
            }
            (_, quick_xml::events::Event::Text(t)) => n += t.xml10_content().len(),
            _ => n += 1,
        }
    }
}
fn ours(doc: &[u8], tree: bool) -> usize {
    let mut d = binxml_xml::XmlDecoder::new(doc);
    if tree {
        if std::env::var_os("GENERIC").is_some() {
            return binxml_tree::Document::parse_sized(&mut d, doc.len())
                .unwrap()
                .len();
        }
        return binxml_tree::Document::parse_xml(doc).unwrap().len();
    }
    let mut n = 0;
    while let Some(_e) = d.next_event().unwrap() {
        n += 1;
    }
    n
}
fn rox(doc: &[u8]) -> usize {
    let o = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(std::str::from_utf8(doc).unwrap(), o)
        .unwrap()
        .descendants()
        .count()
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).unwrap();
    let doc = binxml_xml::to_utf8(&raw).unwrap().into_owned();
    let n: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(50);
    let tree = args.get(3).is_some_and(|a| a == "t");
    if args.get(3).is_some_and(|a| a == "only") {
        for _ in 0..n {
            std::hint::black_box(ours(&doc, false));
        }
        return;
    }
    let (mut a, mut b) = (0.0, 0.0);
    for _ in 0..n {
        let t = std::time::Instant::now();
        std::hint::black_box(if tree { rox(&doc) } else { qx(&doc) });
        a += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        std::hint::black_box(ours(&doc, tree));
        b += t.elapsed().as_secs_f64();
    }
    let mut c = 0.0;
    if !tree {
        for _ in 0..n {
            let t = std::time::Instant::now();
            std::hint::black_box(qx_full(&doc));
            c += t.elapsed().as_secs_f64();
        }
    }
    let mb = (doc.len() * n) as f64 / 1e6;
    if !tree {
        eprintln!(
            "quick-xml with namespaces+attributes+unescape: {:.0} MB/s",
            mb / c
        );
    }
    eprintln!(
        "{}: {:.0} MB/s, binxml {}: {:.0} MB/s, ratio {:.2}",
        if tree { "roxmltree" } else { "quick-xml" },
        mb / a,
        if tree { "tree" } else { "events" },
        mb / b,
        b / a
    );
}
