// Instruction counts of FI push decoding over the corpus (each FI document decoded once into a
// CountingSink by the #[inline(never)] decode_once): run under
// `valgrind --tool=callgrind --toggle-collect='*decode_once*'`; with an argument N it decodes the
// corpus N times and prints the time per pass.
use binxml_core::Decoder;
#[inline(never)]
fn decode_once(fi: &[u8]) -> u64 {
    let mut sink = binxml_core::CountingSink::default();
    binxml_fi::FiDecoder::new(fi).read_into(&mut sink).unwrap();
    sink.events + sink.bytes
}
fn main() {
    let mut docs = Vec::new();
    for p in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else { continue };
        let Ok(ev) = binxml_xml::parse_events(&xml) else { continue };
        docs.push(binxml_fi::encode_events(&ev, binxml_fi::FiOptions::default()).unwrap());
    }
    let mut n = 0;
    let reps: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1);
    let t = std::time::Instant::now();
    for _ in 0..reps { for d in &docs { n += decode_once(d); } }
    eprintln!("{n} {:.3} ms per pass", t.elapsed().as_secs_f64() * 1e3 / reps as f64);
}
