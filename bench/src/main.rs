//! `binxml-bench`: runs binxml and its peers on the same documents in one run and writes
//! `bench/results/<date>-<host>.md` (tables, SVG plots, ratios to a baseline measured in the same
//! run) and the raw figures as JSON beside it.
//!
//! Sections: sizes (every format, compressed four ways, seed 002's transmission model), speed
//! (every format's encoder and decoder beside quick-xml, roxmltree, libexpat, libxml2, the Java
//! Fast Infoset reference and EXIficient), FI Mark (seed 004's document life cycle), Fast Infoset
//! against its reference document by document (JMH-style, three rounds), memory (peak
//! resident memory of decodes, in child processes), and XML reading against quick-xml and
//! roxmltree (issue 2's budget), and schema-informed EXI beside EXIficient on the schema test
//! sets (sizes, speed, grammar building).
//!
//! Methodology: every measurement is warmed up, then repeated; the median gives the time. Ratios
//! compare figures taken in the same run on the same machine. `BINXML_BENCH_SMOKE=1` runs one
//! tiny document once (CI uses it so the harness cannot rot; its figures mean nothing).
//!
//! Usage: `binxml-bench [--out DIR] [--only size,speed,json,fimark,fiperdoc,memory,xmlread,schema]`;
//! `binxml-bench mem SUBJECT MODE FILE` is the memory child.

// Benchmark code indexes parallel per-document vectors by position on purpose.
#![allow(clippy::needless_range_loop)]

mod corpus;
mod fimark;
mod fiperdoc;
mod json;
mod measure;
mod memory;
mod peers;
mod schema;
mod sizes;
mod speed;
mod svg;
mod xmlread;

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(|s| s.as_str()) == Some("mem") {
        std::process::exit(memory::child(&args[1..]));
    }
    let smoke = std::env::var_os("BINXML_BENCH_SMOKE").is_some();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let out_dir = value("--out")
        .map(PathBuf::from)
        .unwrap_or_else(|| measure::root().join("bench/results"));
    let only: Option<Vec<String>> =
        value("--only").map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let want = |s: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == s));
    let cfg = if smoke {
        measure::Config::smoke()
    } else {
        measure::Config::default()
    };
    let mut report = measure::Report::new(&cfg);
    // The corpus encoded in every format: only for the sections that use it.
    let corpus = if want("speed") || want("size") || want("memory") {
        let t = std::time::Instant::now();
        let corpus = corpus::load(&cfg);
        eprintln!(
            "corpus: {} documents encoded in every format ({:.1} s)",
            corpus.docs.len(),
            t.elapsed().as_secs_f64()
        );
        corpus
    } else {
        corpus::Corpus { docs: Vec::new() }
    };

    // Speed runs first (the Java peers' encoded sizes join the size table), but its section is
    // shown after the size sections.
    let mut extra = Vec::new();
    let mut speed_sections = Vec::new();
    if want("speed") {
        let t = std::time::Instant::now();
        extra = speed::run(&cfg, &mut report, &corpus);
        speed_sections = report.sections.split_off(0);
        eprintln!("speed: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("size") {
        let t = std::time::Instant::now();
        sizes::run(&cfg, &mut report, &corpus, &extra);
        eprintln!("size: {:.1} s", t.elapsed().as_secs_f64());
    }
    report.sections.extend(speed_sections);
    if want("json") {
        let t = std::time::Instant::now();
        json::run(&cfg, &mut report);
        eprintln!("json: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("fimark") {
        let t = std::time::Instant::now();
        fimark::run(&cfg, &mut report);
        eprintln!("fimark: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("fiperdoc") {
        let t = std::time::Instant::now();
        fiperdoc::run(&cfg, &mut report);
        eprintln!("fiperdoc: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("memory") {
        let t = std::time::Instant::now();
        memory::run(&cfg, &mut report, &corpus);
        eprintln!("memory: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("schema") {
        let t = std::time::Instant::now();
        schema::run(&cfg, &mut report);
        eprintln!("schema: {:.1} s", t.elapsed().as_secs_f64());
    }
    if want("xmlread") {
        let t = std::time::Instant::now();
        // Shorter samples than the default: this section times every document separately.
        let xcfg = if smoke {
            cfg
        } else {
            measure::Config {
                smoke: false,
                min_time: Duration::from_millis(20),
                samples: 3,
            }
        };
        xmlread::run(&xcfg, &mut report);
        eprintln!("xmlread: {:.1} s", t.elapsed().as_secs_f64());
    }
    report.section(
        "## Notes and gaps\n\n\
- The machine is a 2-core VM shared with other builds: absolute figures move with its load (noted at the top), ratios measured in the same run move much less; the 2-thread FI Mark figures compete with that load for the second core.\n\
- binxml's JSON codec is measured on JSON documents (JSON section); on XML it is a one-way JsonML export, so it has sizes only there.\n\
- EXIficient runs with its default options (schema-less, bit-packed, default fidelity: comments, processing instructions, DTDs and prefixes dropped, and whitespace-only text between tags and xsi:schemaLocation too), and again with `CodingMode.COMPRESSION`, which makes its output smaller and its work lighter than binxml's full-infoset formats; binxml's EXI rows are EXI's defaults with binxml's default whitespace policy (kept), and the EXI variants with `Whitespace::DropBetweenTags` give binxml EXIficient's events. The Java peers' encoded sizes cover the speed documents only and are not compressed.\n\
- Seed 002's signing and verification times are not modelled (binxml does not sign); its transmission model is (encode + size / link rate + decode, and with compression).\n\
- Memory is not measured for the Java peers (a JVM's heap says little about the codec).\n"
            .to_string(),
    );
    let path = report.write(&out_dir, smoke).expect("write the results");
    eprintln!("results: {}", path.display());
}
