//! JSON documents: the JSON codec writes only XML shaped by binxml's JSON mapping, so it cannot
//! take part in the XML corpus tables; here the corpus's JSON benchmark documents go through
//! every format instead (JSON decoder -> events -> each encoder), with sizes and decode speed.

use std::fmt::Write as _;
use std::time::Duration;

use binxml::{Decoder, Format};

use crate::corpus;
use crate::measure::{self, Config, Report, geomean, guarded, jn, js, row, time_docs};
use crate::sizes::{Comp, compress};

pub fn run(cfg: &Config, report: &mut Report) {
    let dir = measure::corpus().join("json/bench");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if cfg.smoke {
        files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        files.truncate(1);
    }
    if files.is_empty() {
        report.section("## JSON documents\n\nNot run: no JSON documents in the corpus.\n".into());
        return;
    }
    let docs: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect();
    let events: Vec<Result<Vec<binxml::Event<'_>>, String>> = docs
        .iter()
        .map(|(_, json)| {
            guarded(|| {
                let mut d =
                    binxml::AnyDecoder::new(Format::Json, json, &binxml::DecodeOptions::default())
                        .map_err(|e| e.to_string())?;
                binxml::core::collect_events(&mut d).map_err(|e| e.to_string())
            })
        })
        .collect();
    // enc[d][k]
    let enc: Vec<Vec<Result<Vec<u8>, String>>> = events
        .iter()
        .map(|events| {
            Format::ALL
                .iter()
                .map(|&f| {
                    let events = events.as_ref().map_err(|e| e.clone())?;
                    guarded(|| {
                        let b = corpus::encode(f, events)?;
                        {
                            let mut d =
                                binxml::AnyDecoder::new(f, &b, &binxml::DecodeOptions::default())
                                    .map_err(|e| e.to_string())?;
                            while d
                                .next_event()
                                .map_err(|e| format!("decode: {e}"))?
                                .is_some()
                            {}
                        }
                        Ok(b)
                    })
                })
                .collect()
        })
        .collect();
    let reps: Vec<u32> = docs
        .iter()
        .map(|d| {
            if cfg.smoke {
                1
            } else {
                (64 * 1024 / d.1.len().max(1)).clamp(1, 64) as u32
            }
        })
        .collect();
    let (passes, warmup) = if cfg.smoke {
        (1, Duration::ZERO)
    } else {
        (5, Duration::from_millis(100))
    };

    let mut md = String::from("## JSON documents\n\n");
    let _ = writeln!(
        md,
        "binxml's JSON codec writes only XML in binxml's JSON mapping (`docs/json-mapping.md`), so it has no row in the XML tables. Here the corpus's {} JSON benchmark documents ({:.1} MB) are decoded by the JSON decoder and written in every format. Sizes are geometric means of the ratio to the JSON document; decoding (bytes -> events) and encoding (the JSON decoder's events, in memory -> bytes) speeds are MB of JSON per second (same loop as the speed section).\n",
        docs.len(),
        docs.iter().map(|d| d.1.len()).sum::<usize>() as f64 / 1e6
    );
    md.push_str(&row(&[
        "format".into(),
        "docs".into(),
        "× JSON".into(),
        "+gzip".into(),
        "+zstd".into(),
        "decode MB/s".into(),
        "× json decode".into(),
        "encode MB/s".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 8]));
    let json_gz: Vec<f64> = docs
        .iter()
        .map(|d| compress(Comp::Gzip, &d.1).len() as f64 / d.1.len() as f64)
        .collect();
    let json_zs: Vec<f64> = docs
        .iter()
        .map(|d| compress(Comp::Zstd, &d.1).len() as f64 / d.1.len() as f64)
        .collect();
    let _ = writeln!(
        md,
        "| JSON (the document) | {} | 1.000 | {:.3} | {:.3} | - | - | - |",
        docs.len(),
        geomean(json_gz.iter().copied()).unwrap(),
        geomean(json_zs.iter().copied()).unwrap()
    );
    let mut base_secs: Option<Vec<Result<f64, String>>> = None;
    for (k, &f) in Format::ALL.iter().enumerate() {
        let ok: Vec<usize> = (0..docs.len()).filter(|&d| enc[d][k].is_ok()).collect();
        if ok.is_empty() {
            let e = enc[0][k].as_ref().err().cloned().unwrap_or_default();
            md.push_str(&row(&[
                f.name().into(),
                "0".into(),
                format!("fails: {}", e.chars().take(120).collect::<String>()),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ]));
            continue;
        }
        let b = |d: usize| enc[d][k].as_ref().unwrap();
        let ratio = geomean(
            ok.iter()
                .map(|&d| b(d).len() as f64 / docs[d].1.len() as f64),
        );
        let gz = geomean(
            ok.iter()
                .map(|&d| compress(Comp::Gzip, b(d)).len() as f64 / docs[d].1.len() as f64),
        );
        let zs = geomean(
            ok.iter()
                .map(|&d| compress(Comp::Zstd, b(d)).len() as f64 / docs[d].1.len() as f64),
        );
        let times = time_docs(docs.len(), &reps, passes, warmup, |d| {
            let bytes = enc[d][k].as_ref().map_err(|e| e.clone())?;
            let mut dec = binxml::AnyDecoder::new(f, bytes, &binxml::DecodeOptions::default())
                .map_err(|e| e.to_string())?;
            let mut n = 0;
            while dec.next_event().map_err(|e| e.to_string())?.is_some() {
                n += 1;
            }
            Ok(n)
        });
        let enc_times = time_docs(docs.len(), &reps, passes, warmup, |d| {
            corpus::encode(f, events[d].as_ref().map_err(|e| e.clone())?).map(|b| b.len())
        });
        let enc_secs: f64 = ok.iter().filter_map(|&d| enc_times[d].as_ref().ok()).sum();
        let secs: f64 = ok.iter().filter_map(|&d| times[d].as_ref().ok()).sum();
        let bytes: usize = ok.iter().map(|&d| docs[d].1.len()).sum();
        if f == Format::Json {
            base_secs = Some(times.clone());
        }
        let rel = base_secs.as_ref().map(|bt| {
            let both: Vec<usize> = ok
                .iter()
                .copied()
                .filter(|&d| bt[d].is_ok() && times[d].is_ok())
                .collect();
            both.iter().map(|&d| *bt[d].as_ref().unwrap()).sum::<f64>()
                / both
                    .iter()
                    .map(|&d| *times[d].as_ref().unwrap())
                    .sum::<f64>()
        });
        let fails = docs.len() - ok.len();
        md.push_str(&row(&[
            f.name().into(),
            if fails == 0 {
                ok.len().to_string()
            } else {
                format!("{} of {}", ok.len(), docs.len())
            },
            format!("{:.3}", ratio.unwrap()),
            format!("{:.3}", gz.unwrap()),
            format!("{:.3}", zs.unwrap()),
            format!("{:.1}", measure::mbps(bytes, secs)),
            rel.map_or("-".into(), |r| format!("{r:.2}")),
            format!("{:.1}", measure::mbps(bytes, enc_secs)),
        ]));
        report.raw_json(format!(
            "{{\"bench\":\"json\",\"subject\":{},\"docs\":{},\"ratio\":{},\"gzip\":{},\"zstd\":{},\"decode_mb_per_s\":{},\"encode_mb_per_s\":{}}}",
            js(f.name()),
            ok.len(),
            jn(ratio.unwrap()),
            jn(gz.unwrap()),
            jn(zs.unwrap()),
            jn(measure::mbps(bytes, secs)),
            jn(measure::mbps(bytes, enc_secs))
        ));
    }
    md.push('\n');
    report.section(md);
}
