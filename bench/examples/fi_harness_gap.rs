// Experiment behind the release profile (Cargo.toml): FI push decoding of one document, encoded
// through the facade (as bench/src/corpus.rs does) and through binxml_fi::encode_events, timed
// directly, through binxml::decode_into, and cold (64 MB swept between decodes) against warm.
// Usage: cargo run --release -p binxml-bench --example fi_harness_gap -- FILE.xml
use binxml_core::Decoder;
use std::time::Instant;
fn time(mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..20 {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / 20.0);
    }
    best * 1e3
}
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let raw = std::fs::read(&path).unwrap();
    let xml = binxml_xml::to_utf8(&raw).unwrap();
    let ev = binxml_xml::parse_events(&xml).unwrap();
    let a = binxml_fi::encode_events(&ev, binxml_fi::FiOptions::default()).unwrap();
    let mut b = Vec::new();
    {
        let mut enc = binxml::encoder(
            binxml::Format::Fi,
            Box::new(&mut b),
            &binxml::EncodeOptions::default(),
        )
        .unwrap();
        for e in &ev {
            enc.write_event(e).unwrap();
        }
        enc.finish().unwrap();
    }
    println!(
        "sizes: fi-crate {} facade {} equal {}",
        a.len(),
        b.len(),
        a == b
    );
    for (name, bytes) in [("fi-crate", &a), ("facade", &b)] {
        let mut sink = binxml_core::CountingSink::default();
        let t1 = time(|| {
            binxml_fi::FiDecoder::new(bytes)
                .read_into(&mut sink)
                .unwrap()
        });
        let t2 = time(|| {
            binxml::decode_into(
                binxml::Format::Fi,
                bytes,
                &binxml::DecodeOptions::default(),
                &mut sink,
            )
            .unwrap()
        });
        println!(
            "{name}: direct {t1:.3} ms, decode_into {t2:.3} ms, cold/warm median {:?}",
            cold(bytes)
        );
    }
}
// (appended) cold-cache timing: sweep 64 MB between single decodes.
#[allow(dead_code)]
pub fn cold(bytes: &[u8]) -> (f64, f64) {
    let mut sweep = vec![1u8; 64 << 20];
    let mut sink = binxml_core::CountingSink::default();
    let mut v = Vec::new();
    let mut w = Vec::new();
    for i in 0..15 {
        for j in (0..sweep.len()).step_by(64) {
            sweep[j] = sweep[j].wrapping_add(i as u8);
        }
        let t = Instant::now();
        binxml_fi::FiDecoder::new(bytes)
            .read_into(&mut sink)
            .unwrap();
        v.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        binxml_fi::FiDecoder::new(bytes)
            .read_into(&mut sink)
            .unwrap();
        w.push(t.elapsed().as_secs_f64() * 1e3);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    w.sort_by(|a, b| a.partial_cmp(b).unwrap());
    std::hint::black_box(&sweep);
    (v[7], w[7])
}
