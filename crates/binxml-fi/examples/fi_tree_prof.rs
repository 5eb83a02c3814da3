//! Profiling aid: FI -> tree by push decoding, one document, `n` times.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let xml = std::fs::read(&args[1]).unwrap();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let ev = binxml_xml::parse_events(&xml).unwrap();
    let fi = binxml_fi::encode_events(&ev, binxml_fi::FiOptions::default()).unwrap();
    drop(ev);
    for _ in 0..n {
        let mut d = binxml_fi::FiDecoder::new(&fi);
        std::hint::black_box(
            binxml_tree::Document::parse_push(&mut d, fi.len())
                .unwrap()
                .len(),
        );
    }
}
