//! Fast Infoset against the Java reference, document by document (`--only fiperdoc`): every
//! corpus document of 100 KB or more, binxml's push decoding and encoding beside the reference's
//! SAX parser and serializer, each timed as JMH would (the document warmed alone, then timed
//! runs, the median kept), in three consecutive rounds so that the spread of each ratio shows.
//!
//! The speed section times the reference on every document too, but its ratios over the whole
//! corpus hide the large documents where the JIT's warm state matters most; this section
//! answers, per document, whether binxml reaches twice the reference.

use std::fmt::Write as _;
use std::time::Duration;

use binxml::{Decoder, Format};

use crate::corpus;
use crate::measure::{self, Config, Report, guarded};
use crate::peers::{self, JavaTiming, Job};

/// Documents at least this large (UTF-8 XML octets) are compared.
const MIN_SIZE: usize = 100 * 1000;
/// The ratio the issue asks of binxml over the reference.
const TARGET: f64 = 2.0;

/// One document's figures in one round: seconds per operation (binxml decode, encode; the
/// reference's decode, encode).
type Round = [Result<f64, String>; 4];

/// Times `f` on one document alone: repeated for `warm` (at least once), then `passes` timed
/// runs of `reps` calls each, in the thread's CPU time; the median seconds per call.
fn time_alone(
    warm: Duration,
    passes: usize,
    reps: u32,
    mut f: impl FnMut() -> Result<usize, String>,
) -> Result<f64, String> {
    let t0 = measure::thread_cpu_secs();
    loop {
        guarded(&mut f)?;
        if measure::thread_cpu_secs() - t0 >= warm.as_secs_f64() {
            break;
        }
    }
    let mut per = Vec::with_capacity(passes);
    for _ in 0..passes {
        let t = measure::thread_cpu_secs();
        for _ in 0..reps {
            std::hint::black_box(f()?);
        }
        per.push((measure::thread_cpu_secs() - t) / reps as f64);
    }
    Ok(measure::median(&mut per))
}

fn push_decode(bytes: &[u8]) -> Result<usize, String> {
    let mut sink = binxml::CountingSink::default();
    binxml::AnyDecoder::new(Format::Fi, bytes, &binxml::DecodeOptions::default())
        .and_then(|mut d| d.read_into(&mut sink))
        .map_err(|e| e.to_string())?;
    Ok(sink.events as usize)
}

pub fn run(cfg: &Config, report: &mut Report) {
    let all = measure::xml_documents(cfg);
    let docs: Vec<(String, Vec<u8>)> = all
        .into_iter()
        .filter(|(_, x)| cfg.smoke || x.len() >= MIN_SIZE)
        .collect();
    let n = docs.len();
    let jt = JavaTiming::new(cfg);
    let rounds = if cfg.smoke { 1 } else { 3 };
    // binxml needs no JIT: a short warm-up fills the caches and the branch predictors.
    let warm = Duration::from_millis(if cfg.smoke { 0 } else { 300 });
    // Each timed run covers about 500 KB of XML (at least one operation), on both sides.
    let reps: Vec<u32> = docs
        .iter()
        .map(|(_, x)| {
            if cfg.smoke {
                1
            } else {
                (500_000 / x.len().max(1)).clamp(1, 64) as u32
            }
        })
        .collect();
    let events: Vec<Result<Vec<binxml::Event<'_>>, String>> = docs
        .iter()
        .map(|(_, x)| guarded(|| corpus::xml_events(x)))
        .collect();
    let tapes: Vec<Option<binxml_core::Tape<'_>>> = events
        .iter()
        .map(|e| e.as_ref().ok().map(|e| binxml_core::Tape::from_events(e)))
        .collect();
    let fi: Vec<Result<Vec<u8>, String>> = events
        .iter()
        .map(|e| match e {
            Ok(e) => corpus::encode(Format::Fi, e),
            Err(e) => Err(e.clone()),
        })
        .collect();
    let doc_refs: Vec<corpus::Doc> = docs
        .iter()
        .map(|(name, xml)| corpus::Doc {
            name: name.clone(),
            xml: xml.clone(),
            enc: Vec::new(),
            elements: 0,
            exi: Vec::new(),
        })
        .collect();
    let paths = corpus::write_peer_docs(&doc_refs.iter().collect::<Vec<_>>());
    let mut results: Vec<Vec<Round>> = Vec::new();
    let mut java_info = None;
    for round in 0..rounds {
        eprintln!("fiperdoc: round {} of {rounds}, {n} documents", round + 1);
        let mut out: Vec<u8> = Vec::with_capacity(1 << 20);
        let mut ours: Vec<[Result<f64, String>; 2]> = Vec::new();
        for i in 0..n {
            let dec = match &fi[i] {
                Ok(b) => time_alone(warm, jt.passes, reps[i], || push_decode(b)),
                Err(e) => Err(e.clone()),
            };
            let enc = match &tapes[i] {
                Some(t) => time_alone(warm, jt.passes, reps[i], || {
                    out.clear();
                    corpus::encode_tape_into(Format::Fi, t, &mut out)
                }),
                None => Err("binxml cannot read the XML".into()),
            };
            ours.push([dec, enc]);
        }
        let job = Job {
            paths: &paths,
            reps: &reps,
            passes: jt.passes,
            warmup_ms: 0,
            extra: &[],
        };
        let (java, info) = peers::java_with(
            cfg,
            &["fi-decode", "fi-encode"],
            &job,
            &[jt.jvm_arg(), "-Dbench.cpuTime=true".into()],
        );
        java_info = java_info.or(info);
        let jt_of = |k: usize, i: usize| -> Result<f64, String> {
            match &java[k] {
                Ok(r) => r.times[i].clone(),
                Err(e) => Err(e.clone()),
            }
        };
        results.push(
            ours.into_iter()
                .enumerate()
                .map(|(i, [d, e])| [d, e, jt_of(0, i), jt_of(1, i)])
                .collect(),
        );
    }

    // ---- the report ----
    let mut md = String::from("## Fast Infoset against the reference, document by document\n\n");
    let _ = writeln!(
        md,
        "Every corpus document of {} KB or more ({n} documents): binxml's FI push decoding (`read_into` a counting sink, binxml's own encoding) and encoding (from a `Tape`) beside the Java reference's SAX parser (empty handler, the reference's own encoding) and serializer (recorded SAX events replayed). Each side is timed document by document: the reference as JMH would ({}), binxml likewise ({} ms of warm-up: no JIT to wait for); each timed run covers about 500 KB of XML; warm-up and timed runs are measured in the timing thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`; the reference's `ThreadMXBean.getCurrentThreadCpuTime`, the same clock), so that the time spent waiting for a core on this shared machine is not counted (the JVM's compiler and collector threads are not counted either: after the warm-up there is little left for them). Three consecutive rounds (each round: binxml, then a fresh JVM for the reference), so each ratio is shown as the median of the three and its spread (lowest-highest). **Ratio** = the reference's time / binxml's (above {TARGET}: the issue's target met).\n",
        MIN_SIZE / 1000,
        jt.describe(),
        warm.as_millis()
    );
    if let Some(info) = &java_info {
        let _ = writeln!(md, "JVM: {}.\n", info.trim());
    }
    let java_down = results
        .iter()
        .flatten()
        .all(|r| r[2].is_err() && r[3].is_err());
    if java_down {
        let why = results
            .first()
            .and_then(|r| r.first())
            .and_then(|r| r[2].as_ref().err().cloned())
            .unwrap_or_else(|| "no documents".into());
        let _ = writeln!(md, "The reference did not run: {why}.\n");
    }
    md.push_str("| document | KB | decode MB/s binxml | ref | ratio | spread | encode MB/s binxml | ref | ratio | spread |\n|---|---|---|---|---|---|---|---|---|---|\n");
    let mut below = [Vec::new(), Vec::new()];
    let mut ratios_all = [Vec::new(), Vec::new()];
    for i in 0..n {
        let size = docs[i].1.len();
        let mut cells = vec![docs[i].0.clone(), format!("{:.0}", size as f64 / 1000.0)];
        for (k, (ours_k, ref_k)) in [(0usize, 2usize), (1, 3)].into_iter().enumerate() {
            let mut ours_t: Vec<f64> = results
                .iter()
                .filter_map(|r| r[i][ours_k].as_ref().ok().copied())
                .collect();
            let mut ref_t: Vec<f64> = results
                .iter()
                .filter_map(|r| r[i][ref_k].as_ref().ok().copied())
                .collect();
            let mut ratios: Vec<f64> = results
                .iter()
                .filter_map(|r| match (&r[i][ours_k], &r[i][ref_k]) {
                    (Ok(o), Ok(j)) => Some(j / o),
                    _ => None,
                })
                .collect();
            let mb = |v: &mut Vec<f64>| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.0}", measure::mbps(size, measure::median(v)))
                }
            };
            cells.push(mb(&mut ours_t));
            cells.push(mb(&mut ref_t));
            if ratios.is_empty() {
                let why = results
                    .iter()
                    .find_map(|r| {
                        r[i][ours_k]
                            .as_ref()
                            .err()
                            .or(r[i][ref_k].as_ref().err())
                            .cloned()
                    })
                    .unwrap_or_default();
                cells.push(format!(
                    "n/a ({})",
                    why.chars().take(60).collect::<String>()
                ));
                cells.push("-".into());
                continue;
            }
            let med = measure::median(&mut ratios);
            let lo = ratios.iter().copied().fold(f64::MAX, f64::min);
            let hi = ratios.iter().copied().fold(0.0, f64::max);
            ratios_all[k].push(med);
            if lo < TARGET {
                below[k].push(format!("{} ({lo:.2})", docs[i].0));
            }
            cells.push(format!("{med:.2}"));
            cells.push(format!("{lo:.2}-{hi:.2}"));
            report.raw(
                "fiperdoc",
                ["fi-decode", "fi-encode"][k],
                &docs[i].0,
                "ratio_median",
                med,
            );
            report.raw(
                "fiperdoc",
                ["fi-decode", "fi-encode"][k],
                &docs[i].0,
                "ratio_low",
                lo,
            );
        }
        md.push_str(&measure::row(&cells));
    }
    md.push('\n');
    for (k, what) in ["push decoding", "encoding"].iter().enumerate() {
        let g = measure::geomean(ratios_all[k].iter().copied());
        let _ = writeln!(
            md,
            "- FI {what}: {} of {} documents at {TARGET}x the reference or more in all {rounds} rounds; geometric mean of the per-document ratios {}{}.",
            ratios_all[k].len() - below[k].len(),
            ratios_all[k].len(),
            g.map(|g| format!("{g:.2}")).unwrap_or_else(|| "-".into()),
            if below[k].is_empty() {
                String::new()
            } else {
                format!(
                    "; below {TARGET} in some round (lowest ratio): {}",
                    below[k].join(", ")
                )
            }
        );
    }
    md.push('\n');
    if !java_down && !ratios_all[0].is_empty() {
        report.headlines.push(format!(
            "FI against the reference, per document of 100 KB or more (JMH-style, 3 rounds): push decoding {}/{} documents at 2x or more, encoding {}/{}.",
            ratios_all[0].len() - below[0].len(),
            ratios_all[0].len(),
            ratios_all[1].len() - below[1].len(),
            ratios_all[1].len()
        ));
    }
    report.section(md);
}
