//! Schema-informed EXI beside EXIficient: the instances of the schema test sets
//! (`tests/schemas/sets.tsv`), each encoded and decoded with its set's schema by binxml and by
//! EXIficient 1.0.7 in the same run (bit-packed and compression), the bytes compared, the sizes
//! per set, and the time each takes to build its grammars from the schema.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binxml::exi::informed::{SchemaDecoder, SchemaGrammars};
use binxml::exi::{Alignment, ExiOptions, Whitespace};
use binxml::schema::{LoadOptions, Schema};
use binxml::{Decoder, Encoder, Format};

use crate::corpus;
use crate::measure::{self, Config, DocFn, Report, geomean, jn, js, row};
use crate::peers::{self, Job, Outcome};
use crate::sizes::{Comp, compress};

/// The EXIficient modes, in the order of [`LAYOUTS`] × (encode, decode).
const JAVA_MODES: [&str; 4] = [
    "exi-schema-encode",
    "exi-schema-decode",
    "exi-schema-encode-compression",
    "exi-schema-decode-compression",
];

/// EXIficient's warm-up before its grammar builds are timed. Under a loaded machine's share of
/// the CPU its JIT needs this long.
const JAVA_WARMUP_MS: u64 = 10_000;

/// The two layouts measured: EXI's default (bit-packed) and compression.
const LAYOUTS: [(&str, Alignment); 2] = [
    ("bit-packed", Alignment::BitPacked),
    ("compression", Alignment::Compression),
];

/// One schema (with its catalog) and its grammars, built once.
struct SchemaEntry {
    set: String,
    xsd: PathBuf,
    catalog: Option<PathBuf>,
    grammars: Result<Arc<SchemaGrammars>, String>,
}

/// One instance of a test set.
struct Inst {
    set: String,
    name: String,
    path: PathBuf,
    /// The document as UTF-8.
    xml: Vec<u8>,
    schema: usize,
    /// Whether xmlschema finds it valid (sets.tsv's `expected`).
    valid: bool,
}

/// Loads a schema, with a catalog (`URL<TAB>local path` lines, relative to the catalog) mapped
/// to local files, as the interop tests load it.
fn load_schema(xsd: &Path, catalog: Option<&Path>) -> Result<Schema, String> {
    let mut o = LoadOptions::default();
    if let Some(c) = catalog {
        let dir = c.parent().unwrap_or(Path::new("."));
        let text = std::fs::read_to_string(c).map_err(|e| format!("{}: {e}", c.display()))?;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (url, file) = line
                .split_once('\t')
                .ok_or_else(|| format!("{}: expected URL<TAB>path", c.display()))?;
            o = o.with_location(url, dir.join(file));
        }
    }
    Schema::load_with(xsd, &o).map_err(|e| e.to_string())
}

fn build(xsd: &Path, catalog: Option<&Path>) -> Result<Arc<SchemaGrammars>, String> {
    let schema = load_schema(xsd, catalog)?;
    SchemaGrammars::new(Arc::new(schema))
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

fn options(alignment: Alignment) -> ExiOptions {
    // EXIficient's whitespace policy: whitespace-only text between tags is dropped (so both
    // encode the same events and write the same bytes).
    ExiOptions::default()
        .with_alignment(alignment)
        .with_whitespace(Whitespace::DropBetweenTags)
}

fn short(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The instances: every row of `tests/schemas/sets.tsv` whose schema and instance are present
/// (in smoke mode one small instance whose files are in the repository).
fn instances(cfg: &Config) -> (Vec<SchemaEntry>, Vec<Inst>, Vec<String>) {
    let mut rows: Vec<_> = binxml_testkit::schema_sets()
        .into_iter()
        .filter(|r| r.present())
        .collect();
    if cfg.smoke {
        let in_repo = |r: &binxml_testkit::SchemaSetEntry| {
            !r.listed.starts_with("..") && !r.listed.contains('|') && r.set == "bbf-dm"
        };
        let size = |r: &binxml_testkit::SchemaSetEntry| {
            std::fs::metadata(r.instance.as_ref().unwrap()).map_or(u64::MAX, |m| m.len())
        };
        rows = rows
            .into_iter()
            .filter(|r| r.expected_valid && in_repo(r))
            .min_by_key(size)
            .into_iter()
            .collect();
    }
    let mut schemas: Vec<SchemaEntry> = Vec::new();
    let mut docs = Vec::new();
    let mut left = Vec::new();
    for r in rows {
        let (xsd, inst) = (r.schema.unwrap(), r.instance.unwrap());
        let k = match schemas
            .iter()
            .position(|s| s.xsd == xsd && s.catalog == r.catalog)
        {
            Some(k) => k,
            None => {
                schemas.push(SchemaEntry {
                    set: r.set.clone(),
                    grammars: measure::guarded(|| build(&xsd, r.catalog.as_deref())),
                    xsd,
                    catalog: r.catalog.clone(),
                });
                schemas.len() - 1
            }
        };
        if let Err(e) = &schemas[k].grammars {
            left.push(format!("`{}`: its schema does not load: {e}", r.listed));
            continue;
        }
        let raw = match std::fs::read(&inst) {
            Ok(b) => b,
            Err(e) => {
                left.push(format!("`{}`: {e}", r.listed));
                continue;
            }
        };
        let Ok(xml) = binxml::xml::to_utf8(&raw).map(|x| x.into_owned()) else {
            left.push(format!("`{}`: not in an encoding binxml reads", r.listed));
            continue;
        };
        let name = inst
            .strip_prefix(measure::root())
            .or_else(|_| inst.strip_prefix(measure::corpus()))
            .unwrap_or(&inst)
            .display()
            .to_string();
        docs.push(Inst {
            set: r.set,
            name,
            path: inst,
            xml,
            schema: k,
            valid: r.expected_valid,
        });
    }
    (schemas, docs, left)
}

/// binxml's encoding of a document's events, schema-informed.
fn encode(
    g: &Arc<SchemaGrammars>,
    a: Alignment,
    tape: &binxml_core::Tape<'_>,
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    let opts = binxml::EncodeOptions::default()
        .with_exi(options(a))
        .with_exi_schema(Some(Arc::clone(g)));
    out.clear();
    corpus::encode_tape_with(Format::Exi, &opts, tape, out)
}

/// Push decoding by the schema-informed decoder's own loop (`SchemaDecoder::read_into`), into
/// the same counting sink, by one decoder per schema and layout kept for every document
/// (`SchemaDecoder::recycle`: its string table and buffers kept, emptied), as the Java harness
/// keeps one EXIficient reader per schema.
fn push_reused(
    kept: &mut Option<SchemaDecoder<'static>>,
    g: &Arc<SchemaGrammars>,
    a: Alignment,
    bytes: &[u8],
) -> Result<usize, String> {
    let d = kept.take().unwrap_or_else(|| {
        let limits = binxml::DecodeOptions::default().limits;
        SchemaDecoder::new(&[], Arc::clone(g), options(a), limits)
    });
    let mut d = d.recycle(bytes);
    let mut sink = binxml::CountingSink::default();
    let r = d.read_into(&mut sink);
    *kept = Some(d.recycle(&[]));
    r.map_err(|e| e.to_string())?;
    std::hint::black_box(sink.bytes);
    Ok(sink.events as usize)
}

/// The events a schema-informed stream decodes to (owned, for comparison).
fn events_of(
    g: &Arc<SchemaGrammars>,
    a: Alignment,
    bytes: &[u8],
) -> Result<Vec<binxml::Event<'static>>, String> {
    let opts = binxml::DecodeOptions::default()
        .with_exi(options(a))
        .with_exi_schema(Some(Arc::clone(g)));
    let mut d = binxml::AnyDecoder::new(Format::Exi, bytes, &opts).map_err(|e| e.to_string())?;
    let mut v = Vec::new();
    while let Some(e) = d.next_event().map_err(|e| e.to_string())? {
        v.push(e.into_owned());
    }
    Ok(v)
}

/// Grammar build times of one schema: (first build, median of the later ones), seconds; the
/// load (Xerces-free: binxml's own XSD reader) and the grammars together.
fn grammar_times(cfg: &Config, s: &SchemaEntry) -> Result<(f64, f64), String> {
    let builds = if cfg.smoke { 1 } else { 5 };
    let mut t = Vec::new();
    for _ in 0..builds {
        let t0 = Instant::now();
        std::hint::black_box(build(&s.xsd, s.catalog.as_deref())?);
        t.push(t0.elapsed().as_secs_f64());
    }
    let first = t[0];
    let mut rest = if t.len() > 1 { t[1..].to_vec() } else { t };
    Ok((first, measure::median(&mut rest)))
}

/// Per-document ratios (EXIficient's time / binxml's) summarised.
struct Summary {
    docs: usize,
    ours_mbps: f64,
    theirs_mbps: f64,
    total: f64,
    median: f64,
    geomean: f64,
    min: (f64, usize),
    max: (f64, usize),
    at_least_5: usize,
}

fn summarise(
    docs: &[Inst],
    pick: &[usize],
    ours: &[Result<f64, String>],
    theirs: &[Result<f64, String>],
) -> Option<Summary> {
    let both: Vec<usize> = pick
        .iter()
        .copied()
        .filter(|&i| ours[i].is_ok() && theirs[i].is_ok())
        .collect();
    if both.is_empty() {
        return None;
    }
    let t = |v: &Result<f64, String>| *v.as_ref().unwrap();
    let (mut so, mut st, mut bytes) = (0.0, 0.0, 0usize);
    let mut ratios: Vec<(f64, usize)> = Vec::new();
    for &i in &both {
        so += t(&ours[i]);
        st += t(&theirs[i]);
        bytes += docs[i].xml.len();
        ratios.push((t(&theirs[i]) / t(&ours[i]), i));
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(Summary {
        docs: both.len(),
        ours_mbps: measure::mbps(bytes, so),
        theirs_mbps: measure::mbps(bytes, st),
        total: st / so,
        median: ratios[ratios.len() / 2].0,
        geomean: geomean(ratios.iter().map(|x| x.0)).unwrap(),
        min: ratios[0],
        max: ratios[ratios.len() - 1],
        at_least_5: ratios.iter().filter(|x| x.0 >= 5.0).count(),
    })
}

pub fn run(cfg: &Config, report: &mut Report) {
    let (schemas, docs, mut left) = instances(cfg);
    let n = docs.len();
    let mut md = String::from("## Schema-informed EXI beside EXIficient\n\n");
    if n == 0 {
        md.push_str("No schema test set is present (`tests/schemas/sets.tsv`).\n\n");
        report.section(md);
        return;
    }
    let grammars = |i: usize| schemas[docs[i].schema].grammars.as_ref().unwrap();

    // The events of each document, recorded once on a tape (as the speed section does).
    let events: Vec<Result<Vec<binxml::Event<'_>>, String>> = docs
        .iter()
        .map(|d| measure::guarded(|| corpus::xml_events(&d.xml)))
        .collect();
    let tapes: Vec<Option<binxml_core::Tape<'_>>> = events
        .iter()
        .map(|e| e.as_ref().ok().map(|e| binxml_core::Tape::from_events(e)))
        .collect();
    for (i, e) in events.iter().enumerate() {
        if let Err(e) = e {
            left.push(format!(
                "`{}`: binxml cannot read the XML: {e}",
                docs[i].name
            ));
        }
    }
    // binxml's streams, per layout.
    let ours: Vec<Vec<Result<Vec<u8>, String>>> = LAYOUTS
        .iter()
        .map(|&(_, a)| {
            (0..n)
                .map(|i| {
                    let tape = tapes[i].as_ref().ok_or("binxml cannot read the XML")?;
                    let mut out = Vec::new();
                    measure::guarded(|| encode(grammars(i), a, tape, &mut out))?;
                    Ok(out)
                })
                .collect()
        })
        .collect();

    // EXIficient, in one JVM: each mode warmed up over every document, then timed; its
    // encoders' streams written to a scratch directory for the comparison.
    let reps: Vec<u32> = docs
        .iter()
        .map(|d| {
            if cfg.smoke {
                1
            } else {
                (64 * 1024 / d.xml.len().max(1)).clamp(1, 64) as u32
            }
        })
        .collect();
    // EXIficient as JMH would time it: each document warmed alone, then timed (a mode-wide
    // warm-up over all documents left its JIT compiled for whichever documents came last).
    let jt = peers::JavaTiming::new(cfg);
    let passes = jt.passes;
    let paths: Vec<PathBuf> = docs.iter().map(|d| d.path.clone()).collect();
    let extra: Vec<String> = docs
        .iter()
        .map(|d| {
            let s = &schemas[d.schema];
            format!(
                "{}\t{}",
                s.xsd.display(),
                s.catalog
                    .as_ref()
                    .map_or("-".to_string(), |c| c.display().to_string())
            )
        })
        .collect();
    let dump = measure::peers_dir().join("work/schema-exi");
    let _ = std::fs::remove_dir_all(&dump);
    let _ = std::fs::create_dir_all(&dump);
    let job = Job {
        paths: &paths,
        reps: &reps,
        passes,
        warmup_ms: 0,
        extra: &extra,
    };
    let (java, java_info) = peers::java_with(
        cfg,
        &JAVA_MODES,
        &job,
        &[jt.jvm_arg(), format!("-Dbench.out={}", dump.display())],
    );
    let theirs_bytes: Vec<Vec<Option<Vec<u8>>>> = [0usize, 2]
        .iter()
        .map(|&m| {
            (0..n)
                .map(|i| std::fs::read(dump.join(format!("{}-{i}.exi", JAVA_MODES[m]))).ok())
                .collect()
        })
        .collect();

    // The same bytes, byte for byte in both layouts (binxml's DEFLATE is zlib's, as the JDK's
    // under EXIficient). Where compression streams differ, whether they decode to the same
    // events tells a DEFLATE difference from a channel difference.
    let mut same: Vec<Vec<Option<Result<(), String>>>> = vec![vec![None; n]; 2];
    for (l, &(_, a)) in LAYOUTS.iter().enumerate() {
        for i in 0..n {
            let (Ok(m), Some(t)) = (&ours[l][i], &theirs_bytes[l][i]) else {
                continue;
            };
            same[l][i] = Some(if m == t {
                Ok(())
            } else {
                let at = m.iter().zip(t).position(|(x, y)| x != y);
                let mut why = format!(
                    "differ at byte {} (binxml {} bytes, EXIficient {})",
                    at.unwrap_or(m.len().min(t.len())),
                    m.len(),
                    t.len()
                );
                if l == 1 {
                    why.push_str(
                        match (events_of(grammars(i), a, m), events_of(grammars(i), a, t)) {
                            (Ok(x), Ok(y)) if x == y => "; both decode to the same events",
                            (Ok(_), Ok(_)) => "; they decode to different events",
                            _ => "; one of them does not decode",
                        },
                    );
                }
                Err(why)
            });
        }
    }

    // binxml, timed the same way: encoders from the tapes, push decoders on EXIficient's
    // streams where there are any (the very bytes EXIficient decodes), else on binxml's.
    let inputs: Vec<Vec<Option<&[u8]>>> = (0..2)
        .map(|l| {
            (0..n)
                .map(|i| theirs_bytes[l][i].as_deref().or(ours[l][i].as_deref().ok()))
                .collect()
        })
        .collect();
    // One output buffer per encoder, cleared (its capacity kept) between documents.
    let (mut b0, mut b1) = (Vec::with_capacity(1 << 20), Vec::with_capacity(1 << 20));
    let (b0, b1) = (&mut b0, &mut b1);
    // One decoder per schema and layout, reused for every document of that schema.
    let mut kept: [Vec<Option<SchemaDecoder<'static>>>; 2] =
        std::array::from_fn(|_| schemas.iter().map(|_| None).collect());
    let [k0, k1] = &mut kept;
    let mut subjects: Vec<DocFn<'_>> = vec![
        Box::new(|i| {
            let tape = tapes[i].as_ref().ok_or("binxml cannot read the XML")?;
            encode(grammars(i), Alignment::BitPacked, tape, b0)
        }),
        Box::new(|i| {
            push_reused(
                &mut k0[docs[i].schema],
                grammars(i),
                Alignment::BitPacked,
                inputs[0][i].ok_or("no stream")?,
            )
        }),
        Box::new(|i| {
            let tape = tapes[i].as_ref().ok_or("binxml cannot read the XML")?;
            encode(grammars(i), Alignment::Compression, tape, b1)
        }),
        Box::new(|i| {
            push_reused(
                &mut k1[docs[i].schema],
                grammars(i),
                Alignment::Compression,
                inputs[1][i].ok_or("no stream")?,
            )
        }),
    ];
    // binxml timed as EXIficient is: each document alone, warmed, then its passes.
    let warm = if cfg.smoke {
        Duration::ZERO
    } else {
        Duration::from_millis(200)
    };
    let ours_t = measure::time_many_alone(n, &reps, passes, warm, &mut subjects);
    drop(subjects);
    if cfg.smoke {
        // CI's run: binxml must encode and decode its smoke instance in both layouts.
        for (k, t) in ours_t.iter().enumerate() {
            if let Some(Err(e)) = t.iter().find(|r| r.is_err()) {
                panic!("schema-informed EXI, {}: {e}", JAVA_MODES[k]);
            }
        }
    }

    // Grammar build times: binxml here; EXIficient in a fresh JVM of its own (its first build
    // there pays for loading Xerces and EXIficient).
    let ours_g: Vec<Result<(f64, f64), String>> =
        schemas.iter().map(|s| grammar_times(cfg, s)).collect();
    let gpaths: Vec<PathBuf> = schemas
        .iter()
        .map(|s| {
            docs.iter()
                .find(|d| schemas[d.schema].xsd == s.xsd)
                .map_or(s.xsd.clone(), |d| d.path.clone())
        })
        .collect();
    let gextra: Vec<String> = schemas
        .iter()
        .map(|s| {
            format!(
                "{}\t{}",
                s.xsd.display(),
                s.catalog
                    .as_ref()
                    .map_or("-".to_string(), |c| c.display().to_string())
            )
        })
        .collect();
    let gjob = Job {
        paths: &gpaths,
        reps: &vec![1; schemas.len()],
        passes: if cfg.smoke { 1 } else { 3 },
        warmup_ms: if cfg.smoke { 0 } else { JAVA_WARMUP_MS },
        extra: &gextra,
    };
    let (java_g, _) = peers::java(
        cfg,
        &["exi-schema-grammars-first", "exi-schema-grammars"],
        &gjob,
    );

    // ---- the report ----
    let _ = writeln!(
        md,
        "{n} instances of the schema test sets (`tests/schemas/sets.tsv`: {} schemas; {} of the instances are ones xmlschema finds invalid for faults EXI's grammars do not check, marked *), each encoded and decoded with its set's schema by binxml and by EXIficient 1.0.7 in the same run. Options: EXI's defaults, non-strict, with the schema; EXIficient keeps `xsi:schemaLocation` (`EncodingOptions.INCLUDE_XSI_SCHEMALOCATION`, as binxml does) and drops whitespace-only text between tags, binxml likewise (`Whitespace::DropBetweenTags`): the same events in both, and the same bytes. EXIficient runs in a warmed JVM (`bench/peers/java/BenchPeers.java`: its grammars built once per schema before timing; {}); binxml's grammars are built once per schema (`SchemaGrammars`, shared through `EncodeOptions`/`DecodeOptions::with_exi_schema`), each document timed alone as EXIficient's is (run for 0.2 s, then its {passes} timed runs), its encoders timed from the events on a tape, its decoders by push (`SchemaDecoder::read_into`, the schema-informed decoder's own loop, into a counting sink) on the stream EXIficient wrote (the bytes EXIficient decodes), by one decoder per schema and layout reused for every document (`SchemaDecoder::recycle`: its string table and buffers kept, emptied), as the Java harness reuses one EXIficient reader per schema; its encoders are made new for each document (as the Java harness makes a new `EXIResult` for each), through `AnyEncoder`. Each document repeated to about 64 KB of XML per timing; a document's time is the median of its passes. **Ratio** = EXIficient's time / binxml's on the same document (above 1: binxml is faster; issue 22's target is 5).\n",
        schemas.len(),
        docs.iter().filter(|d| !d.valid).count(),
        jt.describe()
    );
    if let Some(info) = &java_info {
        let _ = writeln!(md, "Java: {}.\n", info.trim());
    }
    let java_mode = |m: usize| -> Result<&[Result<f64, String>], String> {
        java[m]
            .as_ref()
            .map(|r| r.times.as_slice())
            .map_err(|e| e.clone())
    };
    // Per set, then all.
    let mut sets: Vec<String> = Vec::new();
    for d in &docs {
        if !sets.contains(&d.set) {
            sets.push(d.set.clone());
        }
    }
    md.push_str(&row(&[
        "layout".into(),
        "op".into(),
        "set".into(),
        "docs".into(),
        "binxml MB/s".into(),
        "EXIficient MB/s".into(),
        "total".into(),
        "median".into(),
        "geo. mean".into(),
        "min".into(),
        "max".into(),
        "docs ≥ 5x".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 12]));
    let mut headline = Vec::new();
    for (l, &(layout, _)) in LAYOUTS.iter().enumerate() {
        for (o, op) in ["encode", "decode"].iter().enumerate() {
            let k = 2 * l + o;
            let theirs = match java_mode(k) {
                Ok(t) => t,
                Err(e) => {
                    let mut cells =
                        vec![layout.to_string(), op.to_string(), "all".into(), "-".into()];
                    cells.push(format!(
                        "EXIficient: {}",
                        e.chars().take(100).collect::<String>()
                    ));
                    cells.extend(vec!["-".to_string(); 7]);
                    md.push_str(&row(&cells));
                    continue;
                }
            };
            let groups: Vec<(String, Vec<usize>)> = sets
                .iter()
                .map(|s| (s.clone(), (0..n).filter(|&i| &docs[i].set == s).collect()))
                .chain(std::iter::once(("**all**".to_string(), (0..n).collect())))
                .collect();
            for (set, pick) in groups {
                let Some(s) = summarise(&docs, &pick, &ours_t[k], theirs) else {
                    continue;
                };
                let all = set == "**all**";
                md.push_str(&row(&[
                    layout.into(),
                    op.to_string(),
                    set.clone(),
                    s.docs.to_string(),
                    format!("{:.1}", s.ours_mbps),
                    format!("{:.1}", s.theirs_mbps),
                    format!("{:.2}", s.total),
                    format!("{:.2}", s.median),
                    if all {
                        format!("**{:.2}**", s.geomean)
                    } else {
                        format!("{:.2}", s.geomean)
                    },
                    format!("{:.2} (`{}`)", s.min.0, short(&docs[s.min.1].name)),
                    format!("{:.2} (`{}`)", s.max.0, short(&docs[s.max.1].name)),
                    format!("{}/{}", s.at_least_5, s.docs),
                ]));
                report.raw_json(format!(
                    "{{\"bench\":\"exi-schema-vs-exificient\",\"layout\":{},\"op\":{},\"set\":{},\"docs\":{},\"mb_per_s\":{},\"exificient_mb_per_s\":{},\"total_ratio\":{},\"median\":{},\"geomean\":{},\"min\":{},\"max\":{},\"at_least_5\":{}}}",
                    js(layout),
                    js(op),
                    js(set.trim_matches('*')),
                    s.docs,
                    jn(s.ours_mbps),
                    jn(s.theirs_mbps),
                    jn(s.total),
                    jn(s.median),
                    jn(s.geomean),
                    jn(s.min.0),
                    jn(s.max.0),
                    s.at_least_5
                ));
                if all {
                    headline.push(format!(
                        "{layout} {op} {:.2}x (median {:.2}, {} of {} documents at 5x or more)",
                        s.geomean, s.median, s.at_least_5, s.docs
                    ));
                }
            }
        }
    }
    md.push('\n');
    if !headline.is_empty() {
        report.headlines.push(format!(
            "Schema-informed EXI over EXIficient (geometric mean of the per-document ratios, {n} instances of the schema test sets): {}",
            headline.join("; ")
        ));
    }

    // Per document.
    md.push_str("### Per document\n\nTimes in µs per document (binxml / EXIficient) and the ratio; **same**: binxml's stream is EXIficient's byte for byte (bit-packed / compression).\n\n");
    md.push_str(&row(&[
        "set".into(),
        "document".into(),
        "KB".into(),
        "encode bit-packed".into(),
        "decode bit-packed".into(),
        "encode compression".into(),
        "decode compression".into(),
        "same".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 8]));
    let mut differ = Vec::new();
    for i in 0..n {
        let mut cells = vec![
            docs[i].set.clone(),
            format!(
                "`{}`{}",
                short(&docs[i].name),
                if docs[i].valid { "" } else { " *" }
            ),
            format!("{:.1}", docs[i].xml.len() as f64 / 1024.0),
        ];
        let mut per_doc = Vec::new();
        for k in 0..4 {
            let o = ours_t[k][i].as_ref().ok();
            let t = java_mode(k).ok().and_then(|t| t[i].as_ref().ok());
            cells.push(match (o, t) {
                (Some(o), Some(t)) => format!("{:.0} / {:.0}: {:.2}", o * 1e6, t * 1e6, t / o),
                (Some(o), None) => format!("{:.0} / -", o * 1e6),
                (None, _) => format!(
                    "binxml: {}",
                    ours_t[k][i]
                        .as_ref()
                        .err()
                        .map_or("", |e| e.as_str())
                        .chars()
                        .take(60)
                        .collect::<String>()
                ),
            });
            per_doc.push(format!(
                "{{\"op\":{},\"binxml_s\":{},\"exificient_s\":{}}}",
                js(JAVA_MODES[k]),
                o.map_or("null".into(), |v| jn(*v)),
                t.map_or("null".into(), |v| jn(*v))
            ));
        }
        let mut verdict = |l: usize| match &same[l][i] {
            None => "-".to_string(),
            Some(Ok(())) => "yes".to_string(),
            Some(Err(e)) => {
                differ.push(format!("`{}` ({}): {e}", docs[i].name, LAYOUTS[l].0));
                "**no**".to_string()
            }
        };
        cells.push(format!("{} / {}", verdict(0), verdict(1)));
        md.push_str(&row(&cells));
        report.raw_json(format!(
            "{{\"bench\":\"exi-schema-doc\",\"set\":{},\"doc\":{},\"xml_bytes\":{},\"valid\":{},\"times\":[{}],\"same_bitpacked\":{},\"same_compression\":{}}}",
            js(&docs[i].set),
            js(&docs[i].name),
            docs[i].xml.len(),
            docs[i].valid,
            per_doc.join(","),
            same[0][i].as_ref().map_or("null", |r| if r.is_ok() { "true" } else { "false" }),
            same[1][i].as_ref().map_or("null", |r| if r.is_ok() { "true" } else { "false" }),
        ));
    }
    md.push('\n');
    let checked = |l: usize| same[l].iter().filter(|x| x.is_some()).count();
    let equal = |l: usize| same[l].iter().filter(|x| matches!(x, Some(Ok(())))).count();
    let _ = writeln!(
        md,
        "The same bytes as EXIficient's: bit-packed {} of {} documents, compression {} of {}.\n",
        equal(0),
        checked(0),
        equal(1),
        checked(1)
    );
    for d in &differ {
        let _ = writeln!(md, "- differs: {d}");
    }
    if !differ.is_empty() {
        md.push('\n');
    }
    report.headlines.push(format!(
        "Schema-informed EXI, binxml's bytes and EXIficient's: the same on {} of {} documents bit-packed, {} of {} compression.",
        equal(0),
        checked(0),
        equal(1),
        checked(1)
    ));

    // Sizes per set.
    sizes_table(&mut md, report, &docs, &events, &ours, &theirs_bytes, &sets);

    // Grammar build times.
    grammar_table(&mut md, report, &schemas, &ours_g, &java_g);

    if !left.is_empty() {
        md.push_str("Left out:\n\n");
        for l in &left {
            let _ = writeln!(md, "- {l}");
        }
        md.push('\n');
    }
    report.section(md);
}

#[allow(clippy::too_many_arguments)]
fn sizes_table(
    md: &mut String,
    report: &mut Report,
    docs: &[Inst],
    events: &[Result<Vec<binxml::Event<'_>>, String>],
    ours: &[Vec<Result<Vec<u8>, String>>],
    theirs: &[Vec<Option<Vec<u8>>>],
    sets: &[String],
) {
    let n = docs.len();
    // Schema-less EXI, EXIficient's options (whitespace dropped), for comparison.
    let schemaless: Vec<Option<usize>> = (0..n)
        .map(|i| {
            let ev = events[i].as_ref().ok()?;
            let opts = binxml::EncodeOptions::default().with_exi(options(Alignment::BitPacked));
            let mut out = Vec::new();
            let mut e = binxml::AnyEncoder::new(Format::Exi, &mut out, &opts);
            e.write_events(ev).ok()?;
            e.finish().ok()?;
            drop(e);
            Some(out.len())
        })
        .collect();
    let gz: Vec<usize> = docs
        .iter()
        .map(|d| compress(Comp::Gzip, &d.xml).len())
        .collect();
    // Columns: (name, per-document size).
    let cols: Vec<(&str, Vec<Option<usize>>)> = vec![
        ("XML", docs.iter().map(|d| Some(d.xml.len())).collect()),
        ("XML+gzip", gz.iter().map(|&g| Some(g)).collect()),
        ("exi (schema-less)", schemaless),
        (
            "exi+schema binxml",
            ours[0]
                .iter()
                .map(|r| r.as_ref().ok().map(Vec::len))
                .collect(),
        ),
        (
            "exi+schema EXIficient",
            theirs[0].iter().map(|r| r.as_ref().map(Vec::len)).collect(),
        ),
        (
            "exi+schema compression binxml",
            ours[1]
                .iter()
                .map(|r| r.as_ref().ok().map(Vec::len))
                .collect(),
        ),
        (
            "exi+schema compression EXIficient",
            theirs[1].iter().map(|r| r.as_ref().map(Vec::len)).collect(),
        ),
    ];
    md.push_str("### Sizes\n\nBytes per set (sum over its documents), and below each the geometric mean over the documents of the size / the XML's. Schema-less EXI: binxml, EXI's defaults with whitespace dropped as EXIficient drops it. Compression: both DEFLATE through zlib (binxml by flate2's zlib backend, EXIficient by the JDK's), so the streams are the same.\n\n");
    let mut head = vec!["set".to_string(), "docs".to_string()];
    head.extend(cols.iter().map(|c| c.0.to_string()));
    md.push_str(&row(&head));
    md.push_str(&row(&vec!["---".to_string(); head.len()]));
    let groups: Vec<(String, Vec<usize>)> = sets
        .iter()
        .map(|s| (s.clone(), (0..n).filter(|&i| &docs[i].set == s).collect()))
        .chain(std::iter::once(("**all**".to_string(), (0..n).collect())))
        .collect();
    for (set, pick) in groups {
        let mut cells = vec![set.clone(), pick.len().to_string()];
        let mut json = Vec::new();
        for (name, v) in &cols {
            let got: Vec<usize> = pick.iter().copied().filter(|&i| v[i].is_some()).collect();
            if got.len() < pick.len() {
                cells.push(format!("{} of {} docs", got.len(), pick.len()));
                continue;
            }
            let total: usize = got.iter().map(|&i| v[i].unwrap()).sum();
            let gm = geomean(
                got.iter()
                    .map(|&i| v[i].unwrap() as f64 / docs[i].xml.len() as f64),
            )
            .unwrap_or(f64::NAN);
            cells.push(format!("{total}<br>{gm:.3}"));
            json.push(format!(
                "{{\"subject\":{},\"bytes\":{total},\"ratio\":{}}}",
                js(name),
                jn(gm)
            ));
        }
        md.push_str(&row(&cells));
        report.raw_json(format!(
            "{{\"bench\":\"exi-schema-sizes\",\"set\":{},\"docs\":{},\"sizes\":[{}]}}",
            js(set.trim_matches('*')),
            pick.len(),
            json.join(",")
        ));
    }
    md.push('\n');
    if let Some(i) = docs
        .iter()
        .position(|d| d.name.ends_with("Invoice/inv100.xml"))
    {
        let s = |c: usize| cols[c].1[i].map_or("-".to_string(), |v| v.to_string());
        let _ = writeln!(
            md,
            "`inv100.xml` ({} bytes of XML): exi+schema binxml {} bytes, EXIficient {}; compression binxml {}, EXIficient {}; schema-less {}.\n",
            docs[i].xml.len(),
            s(3),
            s(4),
            s(5),
            s(6),
            s(2)
        );
        report.headlines.push(format!(
            "inv100.xml with sm-inv.xsd: exi+schema {} bytes (binxml), {} (EXIficient).",
            s(3),
            s(4)
        ));
    }
}

fn grammar_table(
    md: &mut String,
    report: &mut Report,
    schemas: &[SchemaEntry],
    ours: &[Result<(f64, f64), String>],
    java: &[Outcome],
) {
    md.push_str("### Building the grammars\n\nFrom the XSD files to EXI grammars, in ms: binxml reads the schema documents (`binxml::schema::Schema::load_with`) and builds the grammars (`SchemaGrammars::new`); EXIficient's `GrammarFactory.createGrammars` (Xerces reads the schema, EXIficient builds the grammars). *First*: binxml's first timed build (the section built the schema's grammars once before, for the instances; there is no JIT to warm, and the figure is the same as warm); EXIficient's first build of each schema in a fresh JVM, in the table's order (the first row's includes loading and compiling Xerces and EXIficient). *Warm*: the median of the later builds (binxml: 4; EXIficient: 3 passes over the schemas after warm-up passes for at least 10 s).\n\n");
    md.push_str(&row(&[
        "set".into(),
        "schema".into(),
        "binxml first".into(),
        "binxml warm".into(),
        "EXIficient first".into(),
        "EXIficient warm".into(),
        "EXIficient / binxml (warm)".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 7]));
    let jt = |m: usize, k: usize| -> Result<f64, String> {
        match &java[m] {
            Ok(r) => r.times[k].clone(),
            Err(e) => Err(e.clone()),
        }
    };
    let ms = |r: &Result<f64, String>| match r {
        Ok(v) => format!("{:.1}", v * 1e3),
        Err(e) => format!("({})", e.chars().take(60).collect::<String>()),
    };
    for (k, s) in schemas.iter().enumerate() {
        let (of, ow) = match &ours[k] {
            Ok((f, w)) => (Ok(*f), Ok(*w)),
            Err(e) => (Err(e.clone()), Err(e.clone())),
        };
        let (tf, tw) = (jt(0, k), jt(1, k));
        let ratio = match (&ow, &tw) {
            (Ok(o), Ok(t)) => format!("{:.1}", t / o),
            _ => "-".into(),
        };
        md.push_str(&row(&[
            s.set.clone(),
            format!("`{}`", short(&s.xsd.display().to_string())),
            ms(&of),
            ms(&ow),
            ms(&tf),
            ms(&tw),
            ratio,
        ]));
        let j = |r: &Result<f64, String>| r.as_ref().map_or("null".into(), |v| jn(*v));
        report.raw_json(format!(
            "{{\"bench\":\"exi-schema-grammars\",\"set\":{},\"schema\":{},\"binxml_first_s\":{},\"binxml_warm_s\":{},\"exificient_first_s\":{},\"exificient_warm_s\":{}}}",
            js(&s.set),
            js(&s.xsd.display().to_string()),
            j(&of),
            j(&ow),
            j(&tf),
            j(&tw)
        ));
        if s.xsd.ends_with("UBL-Invoice-2.1.xsd")
            && let Ok(w) = ow
        {
            report.headlines.push(format!(
                "UBL 2.1 Invoice grammars built in {:.0} ms by binxml (first build {}), {} ms by EXIficient (warm JVM).",
                w * 1e3,
                ms(&of),
                ms(&tw)
            ));
        }
    }
    md.push('\n');
}
