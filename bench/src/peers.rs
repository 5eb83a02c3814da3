//! The external peers: the C drivers (libexpat, libxml2) and the Java driver (the Fast Infoset
//! reference and EXIficient in one JVM), built by scripts/bench into bench/.peers/. Each times
//! its own loops with the harness's methodology and prints one line per document.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::measure::{self, Config};

/// Per-document results of one peer mode: median seconds per operation (and, for encoders, the
/// encoded size), or the error.
#[derive(Clone)]
pub struct ModeResult {
    pub times: Vec<Result<f64, String>>,
    pub sizes: Vec<Option<usize>>,
}

/// A peer mode's outcome: results, or why it did not run.
pub type Outcome = Result<ModeResult, String>;

pub struct Job<'a> {
    pub paths: &'a [PathBuf],
    pub reps: &'a [u32],
    pub passes: usize,
    pub warmup_ms: u64,
    /// More manifest fields per document, tab-separated (the schema-informed modes' schema and
    /// catalog); empty: none.
    pub extra: &'a [String],
}

fn status_reason(name: &str) -> Option<String> {
    let p = measure::peers_dir()
        .join("status")
        .join(format!("{name}.txt"));
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn write_manifest(job: &Job) -> PathBuf {
    let p = measure::peers_dir().join("work/manifest.tsv");
    let mut s = String::new();
    for (i, (path, r)) in job.paths.iter().zip(job.reps).enumerate() {
        s.push_str(&format!("{}\t{r}", path.display()));
        if let Some(x) = job.extra.get(i) {
            s.push('\t');
            s.push_str(x);
        }
        s.push('\n');
    }
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, s).unwrap();
    p
}

fn parse_output(out: &str, modes: &[&str], n: usize) -> Vec<Outcome> {
    let mut res: Vec<ModeResult> = modes
        .iter()
        .map(|_| ModeResult {
            times: vec![Err("no result from the driver".into()); n],
            sizes: vec![None; n],
        })
        .collect();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 4 {
            continue;
        }
        let Some(m) = modes.iter().position(|m| *m == f[1]) else {
            continue;
        };
        let Ok(i) = f[2].parse::<usize>() else {
            continue;
        };
        if i >= n {
            continue;
        }
        match f[0] {
            "ok" => {
                res[m].times[i] = f[3]
                    .parse::<f64>()
                    .map(|ns| ns / 1e9)
                    .map_err(|e| e.to_string());
                res[m].sizes[i] = f.get(4).and_then(|s| s.parse().ok());
            }
            _ => res[m].times[i] = Err(f[3..].join(" ")),
        }
    }
    res.into_iter().map(Ok).collect()
}

fn run(cmd: &mut Command, modes: &[&str], n: usize) -> Vec<Outcome> {
    match cmd.output() {
        Err(e) => modes
            .iter()
            .map(|_| Err(format!("cannot start: {e}")))
            .collect(),
        Ok(o) => {
            let out = String::from_utf8_lossy(&o.stdout);
            if let Some(info) = out.lines().find_map(|l| l.strip_prefix("info\t")) {
                let _ = std::fs::write(measure::peers_dir().join("work/java-info.txt"), info);
            }
            if !o.status.success() && out.trim().is_empty() {
                let err = String::from_utf8_lossy(&o.stderr);
                let msg = format!(
                    "driver failed ({}): {}",
                    o.status,
                    err.lines().last().unwrap_or("")
                );
                return modes.iter().map(|_| Err(msg.clone())).collect();
            }
            parse_output(&out, modes, n)
        }
    }
}

/// A C driver (`expat_peer` or `libxml2_peer`): each mode in its own process.
pub fn c_driver(cfg: &Config, name: &str, modes: &[&str], job: &Job) -> Vec<Outcome> {
    let bin = measure::peers_dir().join("bin").join(name);
    if !bin.exists() {
        let why =
            status_reason(name).unwrap_or_else(|| "not built (scripts/bench builds it)".into());
        return modes
            .iter()
            .map(|_| Err(format!("not available: {why}")))
            .collect();
    }
    let _ = cfg;
    let manifest = write_manifest(job);
    modes
        .iter()
        .map(|m| {
            let mut cmd = Command::new(&bin);
            cmd.arg("time")
                .arg(m)
                .arg(&manifest)
                .arg(job.passes.to_string())
                .arg(job.warmup_ms.to_string());
            run(&mut cmd, &[m], job.paths.len()).pop().unwrap()
        })
        .collect()
}

/// How the Java peers are timed where their figures are compared with binxml's document by
/// document (the speed section, the Fast Infoset comparison): as JMH would, each document warmed
/// alone for `doc_warmup_ms` of repeated runs, then `passes` timed runs of it, the median kept.
pub struct JavaTiming {
    pub doc_warmup_ms: u64,
    pub passes: usize,
}

impl JavaTiming {
    /// 2 s of warm-up and 20 timed runs a document in a full run; none in smoke mode.
    /// `BINXML_BENCH_JAVA_WARMUP_MS` and `BINXML_BENCH_JAVA_PASSES` change them (for a quick look:
    /// the results file says what was used).
    pub fn new(cfg: &Config) -> Self {
        let env = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        if cfg.smoke {
            return JavaTiming {
                doc_warmup_ms: 0,
                passes: 1,
            };
        }
        JavaTiming {
            doc_warmup_ms: env("BINXML_BENCH_JAVA_WARMUP_MS").unwrap_or(2000),
            passes: env("BINXML_BENCH_JAVA_PASSES").unwrap_or(20).max(1) as usize,
        }
    }

    /// The JVM argument that selects this timing in `BenchPeers.java`.
    pub fn jvm_arg(&self) -> String {
        format!("-Dbench.docWarmupMs={}", self.doc_warmup_ms)
    }

    /// A sentence for the results file.
    pub fn describe(&self) -> String {
        format!(
            "each document warmed alone for {} ms of repeated runs, then timed {} times (median), before the next document",
            self.doc_warmup_ms, self.passes
        )
    }
}

/// The Java driver: every mode in one JVM. Also returns the driver's description of the JVM.
pub fn java(cfg: &Config, modes: &[&str], job: &Job) -> (Vec<Outcome>, Option<String>) {
    java_with(cfg, modes, job, &[])
}

/// [`java`] with more arguments for the JVM (system properties such as `-Dbench.out=DIR`).
pub fn java_with(
    cfg: &Config,
    modes: &[&str],
    job: &Job,
    jvm_args: &[String],
) -> (Vec<Outcome>, Option<String>) {
    if cfg.smoke {
        return (
            modes
                .iter()
                .map(|_| Err("not run in smoke mode".into()))
                .collect(),
            None,
        );
    }
    let r = java_run(modes, job, jvm_args);
    let info = std::fs::read_to_string(measure::peers_dir().join("work/java-info.txt")).ok();
    (r, info)
}

fn java_run(modes: &[&str], job: &Job, jvm_args: &[String]) -> Vec<Outcome> {
    let dir = measure::peers_dir();
    let cp = match std::fs::read_to_string(dir.join("java.classpath")) {
        Ok(cp) => cp.trim().to_string(),
        Err(_) => {
            let why = status_reason("java").unwrap_or_else(|| {
                "not built (scripts/bench fetches the jars and compiles the driver)".into()
            });
            return modes
                .iter()
                .map(|_| Err(format!("not available: {why}")))
                .collect();
        }
    };
    let manifest = write_manifest(job);
    let mut cmd = Command::new("java");
    cmd.arg("-Xss16m")
        .args(jvm_args)
        .arg("-cp")
        .arg(&cp)
        .arg("BenchPeers")
        .arg(&manifest)
        .arg(job.passes.to_string())
        .arg(job.warmup_ms.to_string());
    cmd.args(modes);
    let _ = std::fs::remove_file(dir.join("work/java-info.txt"));
    run(&mut cmd, modes, job.paths.len())
}

/// Peak resident memory of one parse by a C driver: (HWM before, HWM after) in KiB.
pub fn c_mem(name: &str, mode: &str, file: &Path) -> Result<(u64, u64), String> {
    let bin = measure::peers_dir().join("bin").join(name);
    if !bin.exists() {
        return Err(format!(
            "not available: {}",
            status_reason(name).unwrap_or_else(|| "not built".into())
        ));
    }
    let o = Command::new(&bin)
        .arg("mem")
        .arg(mode)
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    parse_mem(&String::from_utf8_lossy(&o.stdout))
}

pub fn parse_mem(out: &str) -> Result<(u64, u64), String> {
    let line = out
        .lines()
        .find(|l| l.starts_with("ok\t") || l.starts_with("err"))
        .ok_or_else(|| format!("no answer: {out}"))?;
    let f: Vec<&str> = line.split('\t').collect();
    if f[0] != "ok" || f.len() < 3 {
        return Err(f[1..].join(" "));
    }
    Ok((
        f[1].parse().map_err(|_| "bad number")?,
        f[2].parse().map_err(|_| "bad number")?,
    ))
}
