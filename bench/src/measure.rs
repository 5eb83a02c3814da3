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
        Config { smoke: false, min_time: Duration::from_millis(60), samples: 5 }
    }
}

impl Config {
    pub fn smoke() -> Self {
        Config { smoke: true, min_time: Duration::ZERO, samples: 1 }
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

pub fn corpus() -> PathBuf {
    root().join("../shared/corpus")
}

/// Every corpus XML document (as the tests define it), or one tiny document in smoke mode.
pub fn xml_documents(cfg: &Config) -> Vec<(String, Vec<u8>)> {
    if cfg.smoke {
        return vec![("example/invoice.xml".into(), std::fs::read(root().join("examples/invoice.xml")).unwrap())];
    }
    let base = corpus();
    let mut files = Vec::new();
    walk(&base, &mut files);
    files.retain(|p| {
        let rel = p.strip_prefix(&base).unwrap();
        !rel.starts_with("json") && !matches!(p.extension().and_then(|e| e.to_str()), Some("tsf" | "tsv" | "md"))
    });
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
        if p.is_dir() { walk(&p, out) } else { out.push(p) }
    }
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
}

impl Report {
    pub fn new(_cfg: &Config) -> Self {
        Report { sections: Vec::new(), json: Vec::new(), machine: machine() }
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
        let host = hostname();
        let date = today();
        let stem = if smoke { format!("smoke-{host}") } else { format!("{date}-{host}") };
        let md_path = dir.join(format!("{stem}.md"));
        let mut md = String::new();
        let _ = writeln!(md, "# binxml benchmarks, {date}\n");
        let _ = writeln!(md, "Machine: {}\n", self.machine);
        let _ = writeln!(md, "Command: `scripts/bench` (release build). Times are medians of repeated runs after warm-up; ratios compare figures from this same run.\n");
        if smoke {
            let _ = writeln!(md, "**Smoke mode: one tiny document, one iteration. These figures mean nothing.**\n");
        }
        for s in &self.sections {
            md.push_str(s);
            md.push('\n');
        }
        std::fs::write(&md_path, md)?;
        std::fs::write(dir.join(format!("{stem}.json")), format!("[\n{}\n]\n", self.json.join(",\n")))?;
        Ok(md_path)
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_string()).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "host".into())
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
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().next().map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse::<u64>().unwrap_or(0)))
        .map(|kb| format!("{:.0} GiB", kb as f64 / 1048576.0))
        .unwrap_or_default();
    format!("{cpu}, {cores} cores, {mem} RAM, {} {}", std::env::consts::OS, std::env::consts::ARCH)
}

/// Formats a table row.
pub fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

pub fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}
