//! Timing, the corpus, and the report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct Config {
    pub smoke: bool,
    /// Minimum measured time per sample.
    pub min_time: Duration,
    pub samples: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            smoke: false,
            min_time: Duration::from_millis(60),
            samples: 5,
        }
    }
}

impl Config {
    pub fn smoke() -> Self {
        Config {
            smoke: true,
            min_time: Duration::ZERO,
            samples: 1,
        }
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

pub fn corpus() -> PathBuf {
    root().join("../shared/corpus")
}

/// Every corpus XML document (as the tests define it), or one tiny document in smoke mode.
pub fn xml_documents(cfg: &Config) -> Vec<(String, Vec<u8>)> {
    if cfg.smoke {
        return vec![(
            "example/invoice.xml".into(),
            std::fs::read(root().join("examples/invoice.xml")).unwrap(),
        )];
    }
    let base = corpus();
    let mut files = Vec::new();
    walk(&base, &mut files);
    files.retain(|p| {
        let rel = p.strip_prefix(&base).unwrap();
        !rel.starts_with("json")
            && !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("tsf" | "tsv" | "md")
            )
    });
    // BINXML_BENCH_DOCS=a,b keeps the documents whose path contains one of the substrings: for
    // a quick look at a few documents (the results then cover only those).
    if let Ok(pick) = std::env::var("BINXML_BENCH_DOCS") {
        let pick: Vec<&str> = pick.split(',').filter(|s| !s.is_empty()).collect();
        files.retain(|p| pick.iter().any(|k| p.to_string_lossy().contains(k)));
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let raw = std::fs::read(&p).unwrap();
            let utf8 = binxml_xml::to_utf8(&raw).unwrap().into_owned();
            (p.strip_prefix(&base).unwrap().display().to_string(), utf8)
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out)
        } else {
            out.push(p)
        }
    }
}

/// The calling thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`): on a machine shared
/// with other work, the time the thread ran, without the time it waited for a core.
pub fn thread_cpu_secs() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Times `f`: warm-up, then `samples` batches of at least `min_time`; returns the median
/// seconds per call.
pub fn time<R>(cfg: &Config, mut f: impl FnMut() -> R) -> f64 {
    std::hint::black_box(f());
    if cfg.smoke {
        let t = Instant::now();
        std::hint::black_box(f());
        return t.elapsed().as_secs_f64();
    }
    // Calibrate the batch size.
    let mut n = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(f());
        }
        if t.elapsed() >= cfg.min_time / 4 || n >= 1 << 20 {
            break;
        }
        n *= 2;
    }
    let n = n * 4;
    let mut per: Vec<f64> = (0..cfg.samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(f());
            }
            t.elapsed().as_secs_f64() / n as f64
        })
        .collect();
    per.sort_by(|a, b| a.total_cmp(b));
    per[per.len() / 2]
}

pub struct Report {
    pub sections: Vec<String>,
    pub json: Vec<String>,
    pub machine: String,
    /// SVG plots: (file name suffix, content); written beside the markdown file.
    pub svgs: Vec<(String, String)>,
    pub stem: String,
    pub started: std::time::Instant,
    pub load_start: String,
    /// One-line summaries shown at the top of the results file.
    pub headlines: Vec<String>,
}

impl Report {
    pub fn new(cfg: &Config) -> Self {
        let stem = if cfg.smoke {
            format!("smoke-{}", hostname())
        } else {
            format!("{}-{}", today(), hostname())
        };
        Report {
            sections: Vec::new(),
            json: Vec::new(),
            machine: machine(),
            svgs: Vec::new(),
            stem,
            started: std::time::Instant::now(),
            load_start: load_average(),
            headlines: Vec::new(),
        }
    }

    /// Adds an SVG plot and returns the markdown that shows it.
    pub fn svg(&mut self, name: &str, alt: &str, content: String) -> String {
        let file = format!("{}-{name}.svg", self.stem);
        self.svgs.push((file.clone(), content));
        format!("![{alt}]({file})\n\n")
    }

    /// A raw record (already JSON) for the JSON file.
    pub fn raw_json(&mut self, json: String) {
        self.json.push(json);
    }

    pub fn section(&mut self, md: String) {
        self.sections.push(md);
    }

    /// A raw figure for the JSON file.
    pub fn raw(&mut self, bench: &str, subject: &str, doc: &str, metric: &str, value: f64) {
        self.json.push(format!(
            "{{\"bench\":{bench:?},\"subject\":{subject:?},\"doc\":{doc:?},\"metric\":{metric:?},\"value\":{value}}}"
        ));
    }

    pub fn write(&self, dir: &Path, smoke: bool) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let date = today();
        let stem = &self.stem;
        let md_path = dir.join(format!("{stem}.md"));
        let mut md = String::new();
        let _ = writeln!(md, "# binxml benchmarks, {date}\n");
        let _ = writeln!(md, "Machine: {}\n", self.machine);
        let _ = writeln!(
            md,
            "Commit: {}. Load average (1, 5, 15 min) at the start: {}, at the end: {}. Whole run: {:.0} s.\n",
            commit(),
            self.load_start,
            load_average(),
            self.started.elapsed().as_secs_f64()
        );
        if smoke {
            let _ = writeln!(
                md,
                "Command: `BINXML_BENCH_SMOKE=1 scripts/bench` (debug build).\n"
            );
        } else {
            let _ = writeln!(
                md,
                "Command: `scripts/bench` (release build). Times are medians of repeated runs after warm-up; ratios compare figures from this same run.\n"
            );
        }
        if !self.headlines.is_empty() {
            md.push_str("## Headlines\n\n");
            for h in &self.headlines {
                let _ = writeln!(md, "- {h}");
            }
            md.push('\n');
        }
        if smoke {
            let _ = writeln!(
                md,
                "**Smoke mode: one tiny document, one iteration. These figures mean nothing.**\n"
            );
        }
        for s in &self.sections {
            md.push_str(s);
            md.push('\n');
        }
        std::fs::write(&md_path, md)?;
        for (file, content) in &self.svgs {
            std::fs::write(dir.join(file), content)?;
        }
        std::fs::write(
            dir.join(format!("{stem}.json")),
            format!("[\n{}\n]\n", self.json.join(",\n")),
        )?;
        Ok(md_path)
    }
}

pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|_| "unknown".into())
}

fn commit() -> String {
    let out = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root())
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    let head = out(&["rev-parse", "--short", "HEAD"]);
    let dirty = !out(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
    if head.is_empty() {
        "unknown".into()
    } else if dirty {
        format!("{head} (with uncommitted changes in the work tree)")
    } else {
        head
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "host".into())
}

fn today() -> String {
    std::process::Command::new("date")
        .arg("+%Y-%m-%d")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "today".into())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines().next().map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse::<u64>()
                    .unwrap_or(0)
            })
        })
        .map(|kb| format!("{:.0} GiB", kb as f64 / 1048576.0))
        .unwrap_or_default();
    format!(
        "{cpu}, {cores} cores, {mem} RAM, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// Formats a table row.
pub fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

pub fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

/// Geometric mean (of positive values); `None` for an empty list.
pub fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values {
        sum += v.ln();
        n += 1;
    }
    (n > 0).then(|| (sum / n as f64).exp())
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Where scripts/bench puts the peers it built (C drivers, Java classes and jars).
pub fn peers_dir() -> PathBuf {
    std::env::var_os("BINXML_BENCH_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("bench/.peers"))
}

/// A JSON string literal.
pub fn js(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number (null for non-finite values).
pub fn jn(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

/// Runs `f`, turning a panic into an error message.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(|s| s.as_str())
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

/// Times a function over a set of documents the way every peer driver does: warm-up (one pass,
/// then more until `warmup` has passed), then `passes` passes; in each pass document `i` is
/// processed `reps[i]` times in a row. Returns, per document, the median seconds per operation,
/// or the error of its first failure.
pub fn time_docs(
    n: usize,
    reps: &[u32],
    passes: usize,
    warmup: Duration,
    mut f: impl FnMut(usize) -> Result<usize, String>,
) -> Vec<Result<f64, String>> {
    let mut failed: Vec<Option<String>> = vec![None; n];
    let t0 = Instant::now();
    let mut first = true;
    let mut first_pass = Duration::ZERO;
    while first || t0.elapsed() < warmup {
        for i in 0..n {
            if failed[i].is_none()
                && let Err(e) = guarded(|| f(i))
            {
                failed[i] = Some(e);
            }
        }
        if first {
            first_pass = t0.elapsed();
        }
        first = false;
    }
    // Slow subjects (a pass over a second) get three passes: still a median, a shorter run.
    let passes = if first_pass > Duration::from_secs(1) {
        passes.min(3)
    } else {
        passes
    };
    let mut per = vec![Vec::with_capacity(passes); n];
    for _ in 0..passes {
        for i in 0..n {
            if failed[i].is_some() {
                continue;
            }
            let t = Instant::now();
            for _ in 0..reps[i] {
                let _ = std::hint::black_box(f(i));
            }
            per[i].push(t.elapsed().as_secs_f64() / reps[i] as f64);
        }
    }
    (0..n)
        .map(|i| match failed[i].take() {
            Some(e) => Err(e),
            None => Ok(median(&mut per[i])),
        })
        .collect()
}

/// A function timed by [`time_many`].
pub type DocFn<'a> = Box<dyn FnMut(usize) -> Result<usize, String> + 'a>;

/// [`time_docs`] for several subjects at once, interleaved: one warm-up pass of every subject,
/// then each pass runs every subject in turn, so that changes in the machine's load fall on all
/// of them alike. Passes: `passes`, or 3 when a warm-up round took over `budget / passes`.
pub fn time_many(
    n: usize,
    reps: &[u32],
    passes: usize,
    budget: Duration,
    subjects: &mut [DocFn<'_>],
) -> Vec<Vec<Result<f64, String>>> {
    let mut failed: Vec<Vec<Option<String>>> = vec![vec![None; n]; subjects.len()];
    let t0 = Instant::now();
    for (s, f) in subjects.iter_mut().enumerate() {
        for i in 0..n {
            if let Err(e) = guarded(|| f(i)) {
                failed[s][i] = Some(e);
            }
        }
    }
    let warm = t0.elapsed();
    let passes = if warm * passes as u32 > budget {
        passes.min(3)
    } else {
        passes
    };
    let mut per = vec![vec![Vec::with_capacity(passes); n]; subjects.len()];
    for _ in 0..passes {
        for (s, f) in subjects.iter_mut().enumerate() {
            for i in 0..n {
                if failed[s][i].is_some() {
                    continue;
                }
                let t = Instant::now();
                for _ in 0..reps[i] {
                    let _ = std::hint::black_box(f(i));
                }
                per[s][i].push(t.elapsed().as_secs_f64() / reps[i] as f64);
            }
        }
    }
    (0..subjects.len())
        .map(|s| {
            (0..n)
                .map(|i| match failed[s][i].take() {
                    Some(e) => Err(e),
                    None => Ok(median(&mut per[s][i])),
                })
                .collect()
        })
        .collect()
}

/// [`time_many`] timed as JMH times the Java peers (`JavaTiming`): subject by subject and
/// document by document, the document run alone until `warmup` has passed (at least once), then
/// its `passes` timed runs of `reps[i]` operations, before the next document. A document is
/// thus timed with its caches warm, as the Java peer's is.
pub fn time_many_alone(
    n: usize,
    reps: &[u32],
    passes: usize,
    warmup: Duration,
    subjects: &mut [DocFn<'_>],
) -> Vec<Vec<Result<f64, String>>> {
    subjects
        .iter_mut()
        .map(|f| {
            (0..n)
                .map(|i| {
                    let t0 = Instant::now();
                    loop {
                        guarded(|| f(i))?;
                        if t0.elapsed() >= warmup {
                            break;
                        }
                    }
                    let mut per: Vec<f64> = (0..passes)
                        .map(|_| {
                            let t = Instant::now();
                            for _ in 0..reps[i] {
                                let _ = std::hint::black_box(f(i));
                            }
                            t.elapsed().as_secs_f64() / reps[i] as f64
                        })
                        .collect();
                    Ok(median(&mut per))
                })
                .collect()
        })
        .collect()
}
