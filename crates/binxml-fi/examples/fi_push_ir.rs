// Instruction counts of FI push decoding over the corpus (each FI document decoded once into a
// CountingSink by the #[inline(never)] decode_once): run under
// `valgrind --tool=callgrind --toggle-collect='*decode_once*'`; with an argument N it decodes the
// corpus N times and prints the time per pass. `FI_DOCS=a,b`: only the documents whose path holds
// one of these strings (or, when it names files, those files).
use binxml_core::Decoder;
#[inline(never)]
fn decode_once(fi: &[u8]) -> u64 {
    let mut sink = binxml_core::CountingSink::default();
    binxml_fi::FiDecoder::new(fi).read_into(&mut sink).unwrap();
    sink.events + sink.bytes
}
fn main() {
    let mut docs = Vec::new();
    let filter: Vec<String> = std::env::var("FI_DOCS")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let mut files = binxml_testkit::corpus_xml_files();
    if !filter.is_empty() {
        files.retain(|p| {
            filter
                .iter()
                .any(|f| p.to_string_lossy().contains(f.as_str()))
        });
        files.extend(
            filter
                .iter()
                .map(std::path::PathBuf::from)
                .filter(|p| p.is_file()),
        );
    }
    for p in files {
        let raw = std::fs::read(&p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let Ok(ev) = binxml_xml::parse_events(&xml) else {
            continue;
        };
        docs.push(binxml_fi::encode_events(&ev, binxml_fi::FiOptions::default()).unwrap());
    }
    let mut n = 0;
    let reps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1);
    let t = std::time::Instant::now();
    for _ in 0..reps {
        for d in &docs {
            n += decode_once(d);
        }
    }
    eprintln!(
        "{n} {:.3} ms per pass",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
}
