//! Profiling aid: push-decode every corpus XML document's FI encoding (default options) into a
//! counting sink, `n` times; prints MB/s of XML. `fi_push_corpus [n]`.
use binxml_core::Decoder;
fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let mut docs = Vec::new();
    for p in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let Ok(ev) = binxml_xml::parse_events(&xml) else {
            continue;
        };
        let fi = binxml_fi::encode_events(&ev, binxml_fi::FiOptions::default()).unwrap();
        docs.push((xml.len(), fi));
    }
    let bytes: usize = docs.iter().map(|d| d.0).sum();
    let t = std::time::Instant::now();
    let mut sink = binxml_core::CountingSink::default();
    for _ in 0..n {
        decode_all(&docs, &mut sink);
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} docs, {:.0} MB/s of XML, {} events, {} bytes",
        docs.len(),
        (bytes * n) as f64 / 1e6 / s,
        sink.events,
        sink.bytes
    );
}

#[inline(never)]
fn decode_all(docs: &[(usize, Vec<u8>)], sink: &mut binxml_core::CountingSink) {
    for (_, fi) in docs {
        binxml_fi::FiDecoder::new(fi).read_into(sink).unwrap();
    }
}
