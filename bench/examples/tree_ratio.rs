//! The tree targets of issues 3 and 5 in isolation: for XML, FI and the ASN.1 formats, push
//! decoding into a counting sink and building the tree (`binxml::parse_tree`), over the corpus's
//! XML documents, round robin as the bench harness runs them (each document repeated to about
//! 64 KB of XML, best of `PASSES` passes). Prints MB/s of XML and each format's tree speed over
//! XML's.
//!
//! `cargo run --release -p binxml-bench --example tree_ratio [SUBSTRING...]`
use std::path::{Path, PathBuf};
use std::time::Instant;

use binxml::Format;
use binxml_core::CountingSink;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let pick: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    walk(&base, &mut files);
    files.retain(|p| {
        let rel = p.strip_prefix(&base).unwrap();
        !rel.starts_with("json")
            && !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("tsf" | "tsv" | "md")
            )
            && (pick.is_empty()
                || pick
                    .iter()
                    .any(|k| p.to_string_lossy().contains(k.as_str())))
    });
    files.sort();
    let formats: Vec<Format> = std::env::var("FORMATS")
        .map(|s| {
            s.split(',')
                .map(|n| n.parse().expect("a format name"))
                .collect()
        })
        .unwrap_or_else(|_| vec![Format::Xml, Format::Fi, Format::Asn1Uper]);
    let passes: usize = std::env::var("PASSES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    // (xml length, reps, encodings by format)
    let mut docs: Vec<(usize, u32, Vec<Vec<u8>>)> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for p in &files {
        let raw = std::fs::read(p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let xml = xml.into_owned();
        let mut enc = Vec::new();
        for &f in &formats {
            match binxml::convert(&xml, Some(Format::Xml), f) {
                Ok(b) => enc.push(b),
                Err(_) => break,
            }
        }
        if enc.len() != formats.len() {
            continue;
        }
        let reps = (64 * 1024 / xml.len().max(1)).clamp(1, 64) as u32;
        docs.push((xml.len(), reps, enc));
        names.push(p.file_name().unwrap().to_string_lossy().into_owned());
    }
    let mb: f64 = docs.iter().map(|d| d.0 as f64).sum::<f64>() / 1e6;
    println!(
        "{} documents, {:.1} MB of XML, best of {passes} passes",
        docs.len(),
        mb
    );
    let opts = binxml::DecodeOptions::default();
    // subject k: (format index, tree?)
    let subjects: Vec<(usize, bool)> = (0..formats.len())
        .flat_map(|k| [(k, false), (k, true)])
        .collect();
    let mut best = vec![vec![f64::MAX; docs.len()]; subjects.len()];
    for _ in 0..passes {
        for (i, (_, reps, enc)) in docs.iter().enumerate() {
            for (s, &(k, tree)) in subjects.iter().enumerate() {
                let f = formats[k];
                let t = Instant::now();
                for _ in 0..*reps {
                    if tree {
                        std::hint::black_box(binxml::parse_tree(f, &enc[k]).unwrap().len());
                    } else {
                        let mut sink = CountingSink::default();
                        binxml::decode_into(f, &enc[k], &opts, &mut sink).unwrap();
                        std::hint::black_box(sink);
                    }
                }
                let per = t.elapsed().as_secs_f64() / *reps as f64;
                best[s][i] = best[s][i].min(per);
            }
        }
    }
    if std::env::var("VERBOSE").is_ok() {
        for (i, (len, _, _)) in docs.iter().enumerate() {
            let name = &names[i];
            print!("{:<40} {:>9}", &name[..name.len().min(40)], len);
            for s in 0..subjects.len() {
                print!(" {:>8.0}", *len as f64 / best[s][i] / 1e6);
            }
            println!(" {:>6.2}x", best[1][i] / best[3][i]);
        }
    }
    let total = |s: usize| best[s].iter().sum::<f64>();
    let xml_tree = total(1);
    println!(
        "{:<10} {:>10} {:>10} {:>14}",
        "format", "push MB/s", "tree MB/s", "tree vs XML's"
    );
    for (k, f) in formats.iter().enumerate() {
        let (p, t) = (total(2 * k), total(2 * k + 1));
        println!(
            "{:<10} {:>10.0} {:>10.0} {:>13.2}x",
            f.name(),
            mb / p,
            mb / t,
            xml_tree / t
        );
    }
}
