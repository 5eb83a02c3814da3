//! Sizes: every corpus document in every format, each also compressed with gzip, bzip2, zstd
//! and xz, and seed 002's transmission-time model (64 and 256 kbit/s links).

use std::fmt::Write as _;
use std::io::{Read, Write};

use binxml::Format;

use crate::corpus::{self, Corpus, Doc, EXI_VARIANTS};
use crate::measure::{self, Config, Report, geomean, jn, js, row};
use crate::svg;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Comp {
    Gzip,
    Bzip2,
    Zstd,
    Xz,
}

pub const COMPS: [Comp; 4] = [Comp::Gzip, Comp::Bzip2, Comp::Zstd, Comp::Xz];

impl Comp {
    pub fn name(self) -> &'static str {
        match self {
            Comp::Gzip => "gzip",
            Comp::Bzip2 => "bzip2",
            Comp::Zstd => "zstd",
            Comp::Xz => "xz",
        }
    }
}

/// Compression levels: gzip 6, bzip2 9, zstd 3, xz 6 (each tool's default).
pub fn compress(c: Comp, data: &[u8]) -> Vec<u8> {
    match c {
        Comp::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Comp::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Comp::Zstd => zstd::bulk::compress(data, 3).unwrap(),
        Comp::Xz => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

pub fn decompress(c: Comp, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match c {
        Comp::Gzip => {
            flate2::read::GzDecoder::new(data)
                .read_to_end(&mut out)
                .unwrap();
        }
        Comp::Bzip2 => {
            bzip2::read::BzDecoder::new(data)
                .read_to_end(&mut out)
                .unwrap();
        }
        Comp::Zstd => out = zstd::stream::decode_all(data).unwrap(),
        Comp::Xz => {
            xz2::read::XzDecoder::new(data)
                .read_to_end(&mut out)
                .unwrap();
        }
    }
    out
}

/// Sizes of one variant of one document: raw, then per compressor.
#[derive(Clone, Copy, Default)]
struct Sizes {
    raw: usize,
    comp: [usize; 4],
}

fn sizes_of(data: &[u8]) -> Sizes {
    let mut comp = [0; 4];
    for (k, c) in COMPS.iter().enumerate() {
        comp[k] = compress(*c, data).len();
    }
    Sizes {
        raw: data.len(),
        comp,
    }
}

/// Compressed sizes are deterministic: they are kept between runs in
/// `bench/.peers/cache/compressed-sizes.tsv`, keyed by a hash of the content and its length,
/// so that a run compresses only what changed.
struct SizeCache {
    map: std::collections::HashMap<(u64, usize), [usize; 4]>,
    path: std::path::PathBuf,
}

fn content_key(data: &[u8]) -> (u64, usize) {
    // FNV-1a over the bytes, with the length: stable across builds and runs.
    let mut f: u64 = 0xcbf29ce484222325;
    for &b in data {
        f = (f ^ b as u64).wrapping_mul(0x100000001b3);
    }
    (f, data.len())
}

impl SizeCache {
    fn load() -> Self {
        let path = measure::peers_dir().join("cache/compressed-sizes.tsv");
        let mut map = std::collections::HashMap::new();
        if let Ok(text) = std::fs::read_to_string(&path) {
            for line in text.lines() {
                let v: Vec<u64> = line.split('\t').filter_map(|x| x.parse().ok()).collect();
                if v.len() == 6 {
                    map.insert(
                        (v[0], v[1] as usize),
                        [v[2] as usize, v[3] as usize, v[4] as usize, v[5] as usize],
                    );
                }
            }
        }
        SizeCache { map, path }
    }

    fn save(&self) {
        let mut s = String::new();
        for ((h, n), c) in &self.map {
            let _ = writeln!(s, "{h}\t{n}\t{}\t{}\t{}\t{}", c[0], c[1], c[2], c[3]);
        }
        let _ = std::fs::create_dir_all(self.path.parent().unwrap());
        let _ = std::fs::write(&self.path, s);
    }
}

/// Extra rows measured elsewhere (the Java peers' encodings): name and per-document size.
pub struct ExtraSizes {
    pub name: String,
    pub sizes: Vec<Option<usize>>,
    pub note: String,
    /// The row of the size table this one follows (a format's or an EXI variant's name), so
    /// that a peer sits beside binxml's codec of the same format.
    pub after: String,
}

/// Formats whose encoding failed on more than a tenth of the documents are left out of the
/// common document set (their figures cover the documents they could encode).
pub fn reliable(corpus: &Corpus) -> Vec<bool> {
    let n = corpus.docs.len().max(1);
    (0..Format::ALL.len())
        .map(|k| {
            !corpus::export_only(Format::ALL[k])
                && corpus.docs.iter().filter(|d| d.enc[k].is_err()).count() * 10 <= n
        })
        .collect()
}

fn sizes_failed(d: &Doc, k: usize) -> bool {
    let nf = Format::ALL.len();
    if k < nf {
        d.enc[k].is_err()
    } else {
        d.exi[k - nf].is_err()
    }
}

pub fn run(cfg: &Config, report: &mut Report, corpus: &Corpus, extra: &[ExtraSizes]) {
    let nf = Format::ALL.len();
    // The EXI variants beyond the defaults (`Format::Exi`'s own column).
    let nx = EXI_VARIANTS.len() - 1;
    let docs = &corpus.docs;
    // sizes[d][0] = the XML document, sizes[d][1 + k] = format k, sizes[d][1 + nf + j] = EXI
    // variant 1 + j.
    let mut sizes: Vec<Vec<Option<Sizes>>> = vec![Vec::new(); docs.len()];
    let threads = if cfg.smoke { 1 } else { 2 };
    let cache = std::sync::Mutex::new(SizeCache::load());
    let cached_before = cache.lock().unwrap().map.len();
    let sizes_of = |data: &[u8]| -> Sizes {
        let key = content_key(data);
        if let Some(c) = cache.lock().unwrap().map.get(&key) {
            return Sizes {
                raw: data.len(),
                comp: *c,
            };
        }
        let s = sizes_of(data);
        cache.lock().unwrap().map.insert(key, s.comp);
        s
    };
    let sizes_of = &sizes_of;
    std::thread::scope(|s| {
        let chunks: Vec<_> = sizes
            .chunks_mut(docs.len().div_ceil(threads).max(1))
            .enumerate()
            .collect();
        let per = docs.len().div_ceil(threads).max(1);
        for (c, chunk) in chunks {
            s.spawn(move || {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    let d = &docs[c * per + j];
                    let mut v = vec![Some(sizes_of(&d.xml))];
                    for k in 0..nf {
                        v.push(d.enc[k].as_ref().ok().map(|b| sizes_of(b)));
                    }
                    for x in &d.exi {
                        v.push(x.as_ref().ok().map(|b| sizes_of(b)));
                    }
                    *slot = v;
                }
            });
        }
    });
    let cache = cache.into_inner().unwrap();
    let newly = cache.map.len() - cached_before;
    if !cfg.smoke {
        cache.save();
    }
    // Columns 1..=nf + nx: the formats, then the EXI variants; their names, errors and whether
    // they encode nine documents in ten.
    let ncol = nf + nx;
    let col_name = |v: usize| -> &'static str {
        if v == 0 {
            "xml-original"
        } else if v <= nf {
            Format::ALL[v - 1].name()
        } else {
            EXI_VARIANTS[v - nf].name
        }
    };
    fn col_err(doc: &Doc, v: usize) -> &str {
        let nf = Format::ALL.len();
        let r = if v <= nf {
            &doc.enc[v - 1]
        } else {
            &doc.exi[v - nf - 1]
        };
        r.as_ref().err().map_or("", |e| e.as_str())
    }
    let mut ok_fmt = reliable(corpus);
    for j in 0..nx {
        let failed = docs.iter().filter(|d| d.exi[j].is_err()).count();
        ok_fmt.push(failed * 10 <= docs.len().max(1));
    }
    let common: Vec<usize> = (0..docs.len())
        .filter(|&d| (0..ncol).all(|k| !ok_fmt[k] || sizes[d][1 + k].is_some()))
        .collect();

    for (d, doc) in docs.iter().enumerate() {
        let mut j = format!(
            "{{\"bench\":\"size\",\"doc\":{},\"xml\":{}",
            js(&doc.name),
            sizes[d][0].unwrap().raw
        );
        for (v, s) in sizes[d].iter().enumerate() {
            let name = col_name(v);
            match s {
                Some(s) => {
                    let _ = write!(j, ",{}:{{\"raw\":{}", js(name), s.raw);
                    for (k, c) in COMPS.iter().enumerate() {
                        let _ = write!(j, ",\"{}\":{}", c.name(), s.comp[k]);
                    }
                    j.push('}');
                }
                None => {
                    let _ = write!(j, ",{}:{{\"error\":{}}}", js(name), js(col_err(doc, v)));
                }
            }
        }
        for e in extra {
            if let Some(s) = e.sizes.get(d).copied().flatten() {
                let _ = write!(j, ",{}:{{\"raw\":{s}}}", js(&e.name));
            }
        }
        j.push('}');
        report.raw_json(j);
    }

    let mut md = String::from("## Size\n\n");
    let _ = writeln!(
        md,
        "{} documents: the corpus's XML documents (those binxml-testkit's `corpus_xml_files` selects), as UTF-8. Every document is encoded in every binxml format from binxml's XML decoder's events and decoded back (a result whose element count differs from the XML's counts as a failure). Compressors at their tools' default levels: gzip 6, bzip2 9, zstd 3, xz 6 (compressed sizes are deterministic and kept between runs by content hash in `bench/.peers/cache/`; this run compressed {newly} new contents).\n",
        docs.len()
    );
    let _ = writeln!(
        md,
        "Ratios are geometric means over the {} documents every format encodes{}; `× XML` is the format's size over the XML document's, `+gzip` etc. the compressed format over the **uncompressed** XML, and the second table compares each compressed format with the XML compressed the same way.\n",
        common.len(),
        if ok_fmt.iter().all(|&b| b) {
            String::new()
        } else {
            " (formats marked † fail on more than a tenth of the documents; their figures cover only the documents they encode)".into()
        }
    );
    let gm = |d_set: &[usize], f: &dyn Fn(usize) -> Option<f64>| {
        geomean(d_set.iter().filter_map(|&d| f(d)))
    };
    let fmt_r = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
    md.push_str(&row(&[
        "format".into(),
        "docs".into(),
        "bytes (all docs)".into(),
        "× XML".into(),
        "+gzip".into(),
        "+bzip2".into(),
        "+zstd".into(),
        "+xz".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 8]));
    let mut chart_raw = Vec::new();
    let mut chart_gz = Vec::new();
    let mut chart_xz = Vec::new();
    let mut cats = Vec::new();
    // The rows in order: the XML, the formats, the EXI variants (bit-packed before compression),
    // each peer after the row it names in `after`.
    let mut order: Vec<Result<usize, usize>> = Vec::new();
    let mut cols: Vec<usize> = (0..=nf).collect();
    let mut vars: Vec<usize> = (nf + 1..=ncol).collect();
    vars.sort_by_key(|&v| EXI_VARIANTS[v - nf].compressed());
    cols.extend(vars);
    for v in cols {
        order.push(Ok(v));
        for (e, x) in extra.iter().enumerate() {
            if v > 0 && x.after == col_name(v) {
                order.push(Err(e));
            }
        }
    }
    for e in 0..extra.len() {
        if !order.contains(&Err(e)) {
            order.push(Err(e));
        }
    }
    for item in order {
        let v = match item {
            Ok(v) => v,
            Err(e) => {
                let e = &extra[e];
                let set: Vec<usize> = (0..docs.len())
                    .filter(|&d| e.sizes.get(d).copied().flatten().is_some())
                    .collect();
                let raw = gm(&set, &|d| {
                    e.sizes[d].map(|s| s as f64 / sizes[d][0].unwrap().raw as f64)
                });
                let total: usize = set.iter().filter_map(|&d| e.sizes[d]).sum();
                let mut cells = vec![
                    format!("{} (peer)", e.name),
                    format!("{}/{}", set.len(), docs.len()),
                    format!("{total}"),
                    fmt_r(raw),
                ];
                cells.extend((0..4).map(|_| "not measured".to_string()));
                md.push_str(&row(&cells));
                cats.push(format!("{} (peer)", e.name));
                chart_raw.push(raw);
                chart_gz.push(None);
                chart_xz.push(None);
                continue;
            }
        };
        let set: Vec<usize> = if v == 0 || ok_fmt[v - 1] {
            common.clone()
        } else {
            (0..docs.len()).filter(|&d| sizes[d][v].is_some()).collect()
        };
        let name = if v == 0 {
            "XML (the document)".to_string()
        } else if v > nf {
            format!("{}{}", col_name(v), if ok_fmt[v - 1] { "" } else { " †" })
        } else {
            let f = Format::ALL[v - 1];
            let mark = if corpus::export_only(f) {
                " (JsonML export) ‡"
            } else if !ok_fmt[v - 1] {
                " †"
            } else if f == Format::Xml {
                " (binxml's writer)"
            } else {
                ""
            };
            format!("{}{mark}", f.name())
        };
        let n_ok = (0..docs.len()).filter(|&d| sizes[d][v].is_some()).count();
        let total: usize = (0..docs.len())
            .filter_map(|d| sizes[d][v].map(|s| s.raw))
            .sum();
        let xml = |d: usize| sizes[d][0].unwrap().raw as f64;
        let raw = gm(&set, &|d| sizes[d][v].map(|s| s.raw as f64 / xml(d)));
        let comp: Vec<Option<f64>> = (0..4)
            .map(|k| gm(&set, &|d| sizes[d][v].map(|s| s.comp[k] as f64 / xml(d))))
            .collect();
        let mut cells = vec![
            name.clone(),
            format!("{n_ok}/{}", docs.len()),
            format!("{total}"),
            fmt_r(raw),
        ];
        cells.extend(comp.iter().map(|c| fmt_r(*c)));
        md.push_str(&row(&cells));
        report.raw_json(format!(
            "{{\"bench\":\"size-summary\",\"subject\":{},\"docs\":{n_ok},\"bytes\":{total},\"ratio\":{},\"gzip\":{},\"bzip2\":{},\"zstd\":{},\"xz\":{}}}",
            js(&name),
            jn(raw.unwrap_or(f64::NAN)),
            jn(comp[0].unwrap_or(f64::NAN)),
            jn(comp[1].unwrap_or(f64::NAN)),
            jn(comp[2].unwrap_or(f64::NAN)),
            jn(comp[3].unwrap_or(f64::NAN))
        ));
        cats.push(if v == 0 {
            "XML document".to_string()
        } else {
            name
        });
        chart_raw.push(raw);
        chart_gz.push(comp[0]);
        chart_xz.push(comp[3]);
    }
    {
        let pick = |k: usize| -> String {
            let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
            format!("{} {}", cats[k], f(chart_raw[k]))
        };
        let gz = |k: usize| -> String {
            format!(
                "{} {}",
                cats[k],
                chart_gz[k].map_or("-".into(), |v| format!("{v:.3}"))
            )
        };
        let all: Vec<usize> = (0..cats.len())
            .filter(|&k| chart_raw[k].is_some() && !cats[k].starts_with("xml ("))
            .collect();
        report.headlines.insert(0, format!(
            "Size, geometric mean of the ratio to the XML document over {} corpus documents: {}. With gzip (ratio to the uncompressed XML): {}.",
            common.len(),
            all.iter().skip(1).map(|&k| pick(k)).collect::<Vec<_>>().join(", "),
            all.iter().filter(|&&k| chart_gz[k].is_some()).map(|&k| gz(k)).collect::<Vec<_>>().join(", ")
        ));
    }
    md.push('\n');
    if Format::ALL.iter().any(|&f| corpus::export_only(f)) {
        let _ = writeln!(md, "‡ {}; sizes only.", corpus::EXPORT_NOTE);
    }
    for e in extra {
        if !e.note.is_empty() {
            let _ = writeln!(md, "- {}: {}", e.name, e.note);
        }
    }
    md.push('\n');
    let chart = svg::bars(
        "Size relative to the XML document (geometric mean)",
        "size / XML size; lower is smaller",
        &cats,
        &[
            ("raw".into(), chart_raw),
            ("+gzip".into(), chart_gz),
            ("+xz".into(), chart_xz),
        ],
        false,
        Some(1.0),
    );
    md.push_str(&report.svg("sizes", "sizes relative to XML", chart));

    // Compressed against compressed XML.
    md.push_str("Each format compressed, over the XML compressed the same way (geometric means; below 1: the format still wins after compression):\n\n");
    md.push_str(&row(&[
        "format".into(),
        "gzip".into(),
        "bzip2".into(),
        "zstd".into(),
        "xz".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 5]));
    for v in 1..=ncol {
        let set: Vec<usize> = if ok_fmt[v - 1] {
            common.clone()
        } else {
            (0..docs.len()).filter(|&d| sizes[d][v].is_some()).collect()
        };
        let mut cells = vec![col_name(v).to_string()];
        for k in 0..4 {
            cells.push(fmt_r(gm(&set, &|d| {
                sizes[d][v].map(|s| s.comp[k] as f64 / sizes[d][0].unwrap().comp[k] as f64)
            })));
        }
        md.push_str(&row(&cells));
    }
    md.push('\n');

    exi_sizes(&mut md, report, docs, &sizes, extra);

    // Failures: listed one by one for the reliable formats, summarized for the others.
    let mut failures: Vec<String> = Vec::new();
    for k in 0..ncol {
        let failed: Vec<(&str, &str)> = docs
            .iter()
            .filter(|d| sizes_failed(d, k))
            .map(|d| (d.name.as_str(), col_err(d, k + 1)))
            .collect();
        if failed.is_empty() {
            continue;
        }
        if ok_fmt[k] {
            for (doc, e) in failed {
                failures.push(format!(
                    "- `{doc}` in {}: {}",
                    col_name(k + 1),
                    e.chars().take(200).collect::<String>()
                ));
            }
        } else {
            let mut kinds: Vec<&str> = failed.iter().map(|f| f.1).collect();
            kinds.sort();
            kinds.dedup();
            failures.push(format!(
                "- {}: fails on {} of {} documents; the errors: {}",
                col_name(k + 1),
                failed.len(),
                docs.len(),
                kinds
                    .iter()
                    .take(4)
                    .map(|e| format!("\"{}\"", e.chars().take(160).collect::<String>()))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    if !failures.is_empty() {
        let _ = writeln!(
            md,
            "<details><summary>Failed encodings (codec or round-trip errors)</summary>\n"
        );
        for f in &failures {
            md.push_str(f);
            md.push('\n');
        }
        md.push_str("\n</details>\n\n");
    }

    // Per-document details.
    md.push_str("<details><summary>Every document: bytes, and the ratio to XML</summary>\n\n");
    let mut head = vec![
        "document".to_string(),
        "XML bytes".into(),
        "XML+gzip".into(),
    ];
    head.extend((1..=ncol).map(|v| col_name(v).to_string()));
    head.extend(extra.iter().map(|e| e.name.clone()));
    md.push_str(&row(&head));
    md.push_str(&row(&vec!["---".to_string(); head.len()]));
    for (d, doc) in docs.iter().enumerate() {
        let x = sizes[d][0].unwrap();
        let mut cells = vec![
            format!("`{}`", doc.name),
            x.raw.to_string(),
            format!("{} ({:.2})", x.comp[0], x.comp[0] as f64 / x.raw as f64),
        ];
        for v in 1..=ncol {
            cells.push(sizes[d][v].map_or("fails".into(), |s| {
                format!("{} ({:.2})", s.raw, s.raw as f64 / x.raw as f64)
            }));
        }
        for e in extra {
            cells.push(e.sizes.get(d).copied().flatten().map_or("-".into(), |s| {
                format!("{s} ({:.2})", s as f64 / x.raw as f64)
            }));
        }
        md.push_str(&row(&cells));
    }
    md.push_str("\nCompressed sizes of every document in every format are in the JSON file (`\"bench\":\"size\"`).\n\n</details>\n\n");
    report.section(md);

    transmission(cfg, report, docs, &sizes);
}

/// Seed 002's model: the time to produce, send and read a document over a 64 or 256 kbit/s
/// link: encode + bits / rate + decode (with compression: + compress + decompress).
fn transmission(cfg: &Config, report: &mut Report, docs: &[Doc], sizes: &[Vec<Option<Sizes>>]) {
    let picks: Vec<usize> = {
        let want = [
            "exi_w3c_testsuite/data/Invoice/inv1.xml",
            "exi_w3c_testsuite/data/Invoice/inv10.xml",
            "exi_w3c_testsuite/data/Invoice/inv100.xml",
        ];
        let p: Vec<usize> = want
            .iter()
            .filter_map(|w| docs.iter().position(|d| d.name == *w))
            .collect();
        if p.is_empty() {
            (0..docs.len().min(1)).collect()
        } else {
            p
        }
    };
    let rates = [64_000.0, 256_000.0];
    let tcfg = Config {
        smoke: cfg.smoke,
        min_time: cfg.min_time / 3,
        samples: cfg.samples,
    };
    let mut md = String::from("## Transmission time (seed 002's model)\n\n");
    md.push_str("Milliseconds to encode a document, send it over a 64 kbit/s / 256 kbit/s link (no packet loss, no protocol overhead) and decode it at the other end, as seed 002's tables 2 and 3 compute them; `+gzip` adds the compression and decompression times. XML is encoded by binxml's XML writer and read by its decoder. The documents are the invoices of increasing size (seed 002's simple, semi-complex and complex cases). The last column sends every corpus document (transmission only, seconds at 64 kbit/s).\n\n");
    let mut head = vec!["format".to_string()];
    for &p in &picks {
        head.push(format!(
            "`{}` ({} B)",
            docs[p].name.rsplit('/').next().unwrap_or(""),
            docs[p].xml.len()
        ));
    }
    head.push("all docs @64k (s)".into());
    md.push_str(&row(&head));
    md.push_str(&row(&vec!["---".to_string(); head.len()]));
    let mut chart_cats = Vec::new();
    let mut chart_vals = Vec::new();
    for k in 0..Format::ALL.len() {
        let f = Format::ALL[k];
        for gz in [false, true] {
            let name = format!(
                "{}{}{}",
                f.name(),
                if gz { "+gzip" } else { "" },
                if corpus::export_only(f) { " ‡" } else { "" }
            );
            let mut cells = vec![name.clone()];
            let mut last_64 = None;
            for &p in &picks {
                let d = &docs[p];
                let Ok(bytes) = d.encoded(f) else {
                    cells.push("fails".into());
                    continue;
                };
                let events = corpus::xml_events(&d.xml).unwrap();
                let t_enc = measure::time(&tcfg, || corpus::encode(f, &events).unwrap().len());
                let t_dec = measure::time(&tcfg, || {
                    use binxml::Decoder;
                    let mut dec =
                        binxml::AnyDecoder::new(f, bytes, &binxml::DecodeOptions::default())
                            .unwrap();
                    let mut n = 0;
                    while let Some(_e) = dec.next_event().unwrap() {
                        n += 1;
                    }
                    n
                });
                let (size, t_c, t_d) = if gz {
                    let z = compress(Comp::Gzip, bytes);
                    let tc = measure::time(&tcfg, || compress(Comp::Gzip, bytes).len());
                    let td = measure::time(&tcfg, || decompress(Comp::Gzip, &z).len());
                    (z.len(), tc, td)
                } else {
                    (bytes.len(), 0.0, 0.0)
                };
                let ms: Vec<f64> = rates
                    .iter()
                    .map(|r| (t_enc + t_c + t_d + t_dec) * 1e3 + size as f64 * 8.0 / r * 1e3)
                    .collect();
                last_64 = Some(ms[0]);
                cells.push(format!("{:.1} / {:.1}", ms[0], ms[1]));
                report.raw_json(format!(
                    "{{\"bench\":\"transmission\",\"subject\":{},\"doc\":{},\"bytes\":{size},\"encode_s\":{},\"decode_s\":{},\"compress_s\":{},\"decompress_s\":{},\"ms_64k\":{},\"ms_256k\":{}}}",
                    js(&name),
                    js(&d.name),
                    jn(t_enc),
                    jn(t_dec),
                    jn(t_c),
                    jn(t_d),
                    jn(ms[0]),
                    jn(ms[1])
                ));
            }
            let total: usize = sizes
                .iter()
                .filter_map(|s| s[1 + k].map(|s| if gz { s.comp[0] } else { s.raw }))
                .sum();
            let n_ok = sizes.iter().filter(|s| s[1 + k].is_some()).count();
            cells.push(format!(
                "{:.0}{}",
                total as f64 * 8.0 / 64_000.0,
                if n_ok < sizes.len() {
                    format!(" ({n_ok} docs)")
                } else {
                    String::new()
                }
            ));
            md.push_str(&row(&cells));
            chart_cats.push(name);
            chart_vals.push(last_64);
        }
    }
    let total_xml: usize = sizes.iter().map(|s| s[0].unwrap().raw).sum();
    let total_xml_gz: usize = sizes.iter().map(|s| s[0].unwrap().comp[0]).sum();
    let _ = writeln!(
        md,
        "\nThe XML documents themselves (not re-encoded): all docs @64k {:.0} s, gzipped {:.0} s.\n",
        total_xml as f64 * 8.0 / 64_000.0,
        total_xml_gz as f64 * 8.0 / 64_000.0
    );
    if let Some(&p) = picks.last() {
        let chart = svg::bars(
            &format!(
                "Encode + send at 64 kbit/s + decode: {}",
                docs[p].name.rsplit('/').next().unwrap_or("")
            ),
            "milliseconds; lower is faster",
            &chart_cats,
            &[("ms".into(), chart_vals)],
            false,
            None,
        );
        md.push_str(&report.svg("transmission", "transmission time at 64 kbit/s", chart));
    }
    report.section(md);
}

/// A row of the EXI size table: its name, the size of each document (`None` where there is
/// none), and EXIficient's row in the same layout (for binxml's rows).
type ExiRow<'e> = (String, Vec<Option<usize>>, Option<&'e ExtraSizes>);

/// EXI beside EXIficient and beside gzip: binxml's EXI variants, EXIficient's encodings in the
/// same modes (sizes the Java driver reported) and the XML compressed with gzip.
fn exi_sizes(
    md: &mut String,
    report: &mut Report,
    docs: &[Doc],
    sizes: &[Vec<Option<Sizes>>],
    extra: &[ExtraSizes],
) {
    let nf = Format::ALL.len();
    let Some(k) = Format::ALL.iter().position(|&f| f == Format::Exi) else {
        return;
    };
    // (name, per-document size, the EXIficient row of the same mode)
    let peer = |name: &str| extra.iter().find(|e| e.name == name);
    let col =
        |v: usize| -> Vec<Option<usize>> { sizes.iter().map(|s| s[v].map(|x| x.raw)).collect() };
    let mut rows: Vec<ExiRow<'_>> = Vec::new();
    for (v, var) in EXI_VARIANTS.iter().enumerate() {
        let c = if v == 0 { 1 + k } else { nf + v };
        let p = peer(if var.compressed() {
            "EXI compression (EXIficient)"
        } else {
            "EXI (EXIficient)"
        });
        rows.push((var.name.to_string(), col(c), p));
    }
    rows.sort_by_key(|r| r.0.contains("compression"));
    let at = rows
        .iter()
        .position(|r| r.0.contains("compression"))
        .unwrap_or(rows.len());
    if let Some(p) = peer("EXI (EXIficient)") {
        rows.insert(at, ("EXIficient (peer)".into(), p.sizes.clone(), None));
    }
    if let Some(p) = peer("EXI compression (EXIficient)") {
        rows.push((
            "EXIficient compression (peer)".into(),
            p.sizes.clone(),
            None,
        ));
    }
    let xml = |d: usize| sizes[d][0].unwrap().raw as f64;
    let gz = |d: usize| sizes[d][0].unwrap().comp[0];
    md.push_str("### EXI beside EXIficient and gzip\n\n");
    md.push_str("binxml's EXI encoder with EXI's default options (`exi`: bit-packed, whitespace kept, the infoset's text as it is) and with `Alignment::Compression`, each also with `Whitespace::DropBetweenTags` (what EXIficient does: then the bit-packed bytes are EXIficient's, except where EXIficient drops `xsi:schemaLocation`), beside EXIficient 1.0.7's own encodings of the speed documents (default options, and `CodingMode.COMPRESSION`) and the XML compressed with gzip (level 6). `× XML` and `× XML+gzip` are geometric means of the size over the XML's and over the gzipped XML's; `< XML+gzip` counts the documents where the encoding is smaller than the gzipped XML; the last columns compare each binxml row with EXIficient in the same layout, per document.\n\n");
    md.push_str(&row(&[
        "encoding".into(),
        "docs".into(),
        "bytes".into(),
        "× XML".into(),
        "× XML+gzip".into(),
        "< XML+gzip".into(),
        "× EXIficient (geo. mean)".into(),
        "same size / smaller / larger than EXIficient's".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 8]));
    {
        let set: Vec<usize> = (0..docs.len()).collect();
        let total: usize = set.iter().map(|&d| gz(d)).sum();
        md.push_str(&row(&[
            "XML+gzip".into(),
            format!("{}/{}", set.len(), docs.len()),
            total.to_string(),
            format!(
                "{:.3}",
                geomean(set.iter().map(|&d| gz(d) as f64 / xml(d))).unwrap_or(f64::NAN)
            ),
            "1".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ]));
    }
    let mut hl: Vec<String> = Vec::new();
    for (name, sz, p) in &rows {
        let set: Vec<usize> = (0..docs.len()).filter(|&d| sz[d].is_some()).collect();
        if set.is_empty() {
            continue;
        }
        let s = |d: usize| sz[d].unwrap();
        let total: usize = set.iter().map(|&d| s(d)).sum();
        let rx = geomean(set.iter().map(|&d| s(d) as f64 / xml(d))).unwrap();
        let rg = geomean(set.iter().map(|&d| s(d) as f64 / gz(d) as f64)).unwrap();
        let below = set.iter().filter(|&&d| s(d) < gz(d)).count();
        let (vs, counts) = match p {
            Some(p) => {
                let both: Vec<usize> = set
                    .iter()
                    .copied()
                    .filter(|&d| p.sizes.get(d).copied().flatten().is_some())
                    .collect();
                let t = |d: usize| p.sizes[d].unwrap();
                // EXIficient leaves out xsi:schemaLocation and xsi:noNamespaceSchemaLocation
                // (binxml keeps them): the documents that have one.
                let larger: Vec<usize> = both.iter().copied().filter(|&d| s(d) > t(d)).collect();
                let has = |x: &[u8], pat: &[u8]| x.windows(pat.len()).any(|w| w == pat);
                let located = larger
                    .iter()
                    .filter(|&&d| {
                        let x = &docs[d].xml;
                        has(x, b"http://www.w3.org/2001/XMLSchema-instance")
                            && (has(x, b":schemaLocation=")
                                || has(x, b":noNamespaceSchemaLocation="))
                    })
                    .count();
                (
                    geomean(both.iter().map(|&d| s(d) as f64 / t(d) as f64))
                        .map_or("-".into(), |g| format!("{g:.4}")),
                    format!(
                        "{} / {} / {} (of {}; {located} of the larger have an xsi:schemaLocation or xsi:noNamespaceSchemaLocation, which EXIficient drops)",
                        both.iter().filter(|&&d| s(d) == t(d)).count(),
                        both.iter().filter(|&&d| s(d) < t(d)).count(),
                        larger.len(),
                        both.len()
                    ),
                )
            }
            None => ("-".into(), "-".into()),
        };
        md.push_str(&row(&[
            name.clone(),
            format!("{}/{}", set.len(), docs.len()),
            total.to_string(),
            format!("{rx:.3}"),
            format!("{rg:.3}"),
            format!("{below}/{}", set.len()),
            vs,
            counts,
        ]));
        report.raw_json(format!(
            "{{\"bench\":\"exi-size\",\"subject\":{},\"docs\":{},\"bytes\":{total},\"ratio\":{},\"ratio_to_xml_gzip\":{},\"smaller_than_xml_gzip\":{below}}}",
            js(name),
            set.len(),
            jn(rx),
            jn(rg)
        ));
        hl.push(format!(
            "{name} {rx:.3} (smaller than the gzipped XML on {below}/{})",
            set.len()
        ));
    }
    md.push('\n');
    // The documents where gzip beats EXI compression.
    for (name, sz, p) in rows.iter().filter(|r| r.0.starts_with("exi compression")) {
        let lose: Vec<usize> = (0..docs.len())
            .filter(|&d| sz[d].is_some_and(|s| s >= gz(d)))
            .collect();
        if lose.is_empty() {
            continue;
        }
        let _ = writeln!(
            md,
            "<details><summary>{} documents where `{name}` is not smaller than the gzipped XML</summary>\n",
            lose.len()
        );
        md.push_str(&row(&[
            "document".into(),
            "XML".into(),
            "XML+gzip".into(),
            name.clone(),
            "EXIficient compression".into(),
        ]));
        md.push_str(&row(&vec!["---".to_string(); 5]));
        for d in lose {
            md.push_str(&row(&[
                format!("`{}`", docs[d].name),
                sizes[d][0].unwrap().raw.to_string(),
                gz(d).to_string(),
                sz[d].unwrap().to_string(),
                p.and_then(|p| p.sizes.get(d).copied().flatten())
                    .map_or("-".into(), |x| x.to_string()),
            ]));
        }
        md.push_str("\n</details>\n\n");
    }
    report.headlines.push(format!(
        "EXI sizes, geometric mean of the ratio to the XML: {}.",
        hl.join(", ")
    ));
}
