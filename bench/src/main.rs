//! `binxml-bench`: runs binxml and its peers on the same documents in one run and writes
//! `bench/results/<date>-<host>.md` (tables, ratios to a baseline measured in the same run) and
//! the raw figures as JSON beside it.
//!
//! Methodology: every measurement is warmed up, then repeated until at least `min_time` has
//! passed, in `samples` batches; the median batch gives the time per iteration. Ratios compare
//! figures taken in the same run on the same machine. `BINXML_BENCH_SMOKE=1` runs one tiny
//! document once (CI uses it so the harness cannot rot; its figures mean nothing).

mod measure;
mod xmlread;

use std::path::PathBuf;

fn main() {
    let smoke = std::env::var_os("BINXML_BENCH_SMOKE").is_some();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out_dir = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| measure::root().join("bench/results"));
    let cfg = if smoke { measure::Config::smoke() } else { measure::Config::default() };
    let mut report = measure::Report::new(&cfg);
    xmlread::run(&cfg, &mut report);
    let path = report.write(&out_dir, smoke).expect("write the results");
    eprintln!("results: {}", path.display());
}
