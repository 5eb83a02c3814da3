//! Memory: the peak resident memory of one decode of each of the largest documents, in a child
//! process per measurement (`binxml-bench mem SUBJECT MODE FILE`, or a C driver's `mem` mode),
//! read from VmHWM in /proc/self/status before and after the decode.

use std::path::Path;

use binxml::{Decoder, Format};

use crate::corpus::Corpus;
use crate::measure::{self, Config, Report, js, row};
use crate::peers;
use crate::svg;

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The child's side: decode once, print `ok`, the memory high-water mark before decoding and the
/// one after (KiB), separated by tabs.
pub fn child(args: &[String]) -> i32 {
    let [subject, mode, file] = args else {
        eprintln!("usage: binxml-bench mem SUBJECT events|tree FILE");
        return 2;
    };
    let Ok(input) = std::fs::read(file) else {
        println!("err\tcannot read {file}");
        return 1;
    };
    let before = vm_hwm_kb();
    let r: Result<usize, String> = match (subject.as_str(), mode.as_str()) {
        ("roxmltree", _) => crate::xmlread::roxmltree_parse(&input)
            .ok_or_else(|| "roxmltree cannot parse it".into()),
        ("quick-xml", _) => Ok(crate::xmlread::quick_xml_full(&input)),
        (name, mode) => match Format::from_name(name) {
            None => Err(format!("unknown subject {name}")),
            Some(f) => {
                if mode == "tree" {
                    binxml::parse_tree(f, &input).map(|d| {
                        let n = d.len();
                        // Measure while the tree is alive.
                        std::hint::black_box(&d);
                        n
                    })
                } else {
                    binxml::AnyDecoder::new(f, &input, &binxml::DecodeOptions::default()).and_then(
                        |mut d| {
                            let mut n = 0;
                            while let Some(_e) = d.next_event()? {
                                n += 1;
                            }
                            Ok(n)
                        },
                    )
                }
                .map_err(|e| e.to_string())
            }
        },
    };
    let after = vm_hwm_kb();
    match r {
        Ok(n) => {
            std::hint::black_box(n);
            println!("ok\t{before}\t{after}");
            0
        }
        Err(e) => {
            println!("err\t{e}");
            1
        }
    }
}

fn self_mem(subject: &str, mode: &str, file: &Path) -> Result<(u64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let o = std::process::Command::new(exe)
        .arg("mem")
        .arg(subject)
        .arg(mode)
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    peers::parse_mem(&String::from_utf8_lossy(&o.stdout))
}

/// A row of the memory table: the subject's label, and per document picked `Ok((before, after))`
/// or the error.
type Row = (String, Vec<Result<(u64, u64), String>>);

pub fn run(cfg: &Config, report: &mut Report, corpus: &Corpus) {
    let mut order: Vec<usize> = (0..corpus.docs.len())
        .filter(|&i| corpus.docs[i].elements > 0)
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(corpus.docs[i].xml.len()));
    let picks: Vec<usize> = order
        .into_iter()
        .take(if cfg.smoke { 1 } else { 3 })
        .collect();
    let dir = measure::peers_dir().join("work/mem");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    let mut rows: Vec<Row> = Vec::new();
    for mode in ["events", "tree"] {
        for &f in Format::ALL {
            if crate::corpus::export_only(f) {
                continue;
            }
            let mut cells = Vec::new();
            for &p in &picks {
                let d = &corpus.docs[p];
                cells.push(match d.encoded(f) {
                    Err(e) => Err(format!("fails: {}", e.chars().take(80).collect::<String>())),
                    Ok(bytes) => {
                        let file = dir.join(format!("{p}.{}", f.extension()));
                        std::fs::write(&file, bytes).unwrap();
                        self_mem(f.name(), mode, &file)
                    }
                });
            }
            rows.push((format!("binxml {} {mode}", f.name()), cells));
        }
    }
    let xml_file = |p: usize| {
        let file = dir.join(format!("{p}.peer.xml"));
        std::fs::write(&file, crate::corpus::utf8_declared(&corpus.docs[p].xml)).unwrap();
        file
    };
    rows.push((
        "quick-xml NsReader events".into(),
        picks
            .iter()
            .map(|&p| self_mem("quick-xml", "events", &xml_file(p)))
            .collect(),
    ));
    rows.push((
        "roxmltree tree".into(),
        picks
            .iter()
            .map(|&p| self_mem("roxmltree", "tree", &xml_file(p)))
            .collect(),
    ));
    rows.push((
        "libexpat empty handlers".into(),
        picks
            .iter()
            .map(|&p| peers::c_mem("expat_peer", "expat-empty", &xml_file(p)))
            .collect(),
    ));
    rows.push((
        "libexpat tree".into(),
        picks
            .iter()
            .map(|&p| peers::c_mem("expat_peer", "expat-tree", &xml_file(p)))
            .collect(),
    ));
    rows.push((
        "libxml2 SAX".into(),
        picks
            .iter()
            .map(|&p| peers::c_mem("libxml2_peer", "libxml2-sax", &xml_file(p)))
            .collect(),
    ));
    rows.push((
        "libxml2 tree".into(),
        picks
            .iter()
            .map(|&p| peers::c_mem("libxml2_peer", "libxml2-tree", &xml_file(p)))
            .collect(),
    ));

    let mut md = String::from("## Memory\n\n");
    md.push_str("Peak resident memory of one decode, each in a fresh child process: **peak** is the process's VmHWM after the decode, **+decode** its growth during the decode (VmHWM after minus VmHWM before, with the input already read into memory), in MB (10^6 bytes). Event decoders pull every event and drop it; tree builders keep the tree alive until the peak is read. The Java peers are not measured (a JVM's heap says little about the codec); JSON is left out (on XML it is a one-way JsonML export).\n\n");
    let mut head = vec!["subject".to_string()];
    for &p in &picks {
        head.push(format!(
            "`{}` ({:.1} MB) peak / +decode",
            corpus.docs[p].name,
            corpus.docs[p].xml.len() as f64 / 1e6
        ));
    }
    md.push_str(&row(&head));
    md.push_str(&row(&vec!["---".to_string(); head.len()]));
    let mut cats = Vec::new();
    let mut vals = Vec::new();
    for (label, cells) in &rows {
        let mut r = vec![label.clone()];
        for (k, c) in cells.iter().enumerate() {
            match c {
                Ok((b, a)) => {
                    r.push(format!(
                        "{:.1} / {:.1}",
                        *a as f64 * 1.024e-3,
                        a.saturating_sub(*b) as f64 * 1.024e-3
                    ));
                    report.raw_json(format!(
                        "{{\"bench\":\"memory\",\"subject\":{},\"doc\":{},\"hwm_before_kib\":{b},\"hwm_after_kib\":{a}}}",
                        js(label),
                        js(&corpus.docs[picks[k]].name)
                    ));
                }
                Err(e) => r.push(e.chars().take(100).collect()),
            }
        }
        md.push_str(&row(&r));
        cats.push(label.clone());
        vals.push(
            cells
                .first()
                .and_then(|c| c.as_ref().ok())
                .map(|(b, a)| a.saturating_sub(*b) as f64 * 1.024e-3)
                .filter(|v| *v > 0.0),
        );
    }
    md.push('\n');
    if let Some(&p) = picks.first() {
        let growth: Vec<String> = rows
            .iter()
            .filter(|(l, _)| {
                [
                    "binxml xml events",
                    "binxml fi events",
                    "binxml xml tree",
                    "binxml fi tree",
                    "roxmltree tree",
                    "libxml2 tree",
                    "libexpat tree",
                ]
                .contains(&l.as_str())
            })
            .filter_map(|(l, c)| {
                c.first()
                    .and_then(|c| c.as_ref().ok())
                    .map(|(b, a)| format!("{l} {:.1}", a.saturating_sub(*b) as f64 * 1.024e-3))
            })
            .collect();
        report.headlines.push(format!(
            "Memory growth (MB) during one decode of the largest document ({}, {:.1} MB): {}.",
            corpus.docs[p].name,
            corpus.docs[p].xml.len() as f64 / 1e6,
            growth.join(", ")
        ));
        md.push_str(&report.svg(
            "memory",
            "memory growth during decode",
            svg::bars(
                &format!("Memory growth during one decode of {}", corpus.docs[p].name),
                "MB (VmHWM after - before)",
                &cats,
                &[("MB".into(), vals)],
                false,
                None,
            ),
        ));
    }
    report.section(md);
}
