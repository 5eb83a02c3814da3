//! Experiment: push-decode the corpus's FI documents round robin (as the bench harness does),
//! median per document over passes; prints the slowest documents by time per XML byte.
use binxml_core::Decoder;
fn main() {
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
        docs.push((
            p.file_name().unwrap().to_string_lossy().into_owned(),
            xml.len(),
            fi,
        ));
    }
    let passes = 7;
    let mut t = vec![Vec::new(); docs.len()];
    let mut sink = binxml_core::CountingSink::default();
    for _ in 0..passes {
        for (i, (_, xlen, fi)) in docs.iter().enumerate() {
            let reps = (64 * 1024 / xlen.max(&1)).clamp(1, 64);
            let s = std::time::Instant::now();
            for _ in 0..reps {
                binxml_fi::FiDecoder::new(fi).read_into(&mut sink).unwrap();
            }
            t[i].push(s.elapsed().as_secs_f64() / reps as f64);
        }
    }
    let mut total = 0.0;
    let mut bytes = 0;
    for (i, v) in t.iter_mut().enumerate() {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        total += v[passes / 2];
        bytes += docs[i].1;
        if docs[i].0.contains("xmlrpc")
            || docs[i].0.contains("db1000")
            || docs[i].0.contains("exoplanet")
        {
            println!(
                "{}: median {:.3} ms, min {:.3} ms",
                docs[i].0,
                v[passes / 2] * 1e3,
                v[0] * 1e3
            );
        }
    }
    println!("total {:.0} MB/s", bytes as f64 / total / 1e6);
}
