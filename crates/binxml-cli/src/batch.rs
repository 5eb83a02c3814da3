//! Batch conversion into a directory: every output is planned before anything is written, so
//! that two inputs mapped to one output, or an output that would overwrite an input, stop the
//! command with their names instead of losing a file.

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use binxml::{DecodeOptions, EncodeOptions, Format};
use rayon::prelude::*;

use crate::error::CliError;
use crate::input::{self, display};
use crate::output::{self, Compression};

/// One planned conversion.
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// How outputs are named.
pub struct Naming {
    pub to: Format,
    /// Keep the source extension (`d.xml` -> `d.xml.fi`).
    pub keep_extension: bool,
    pub compression: Option<Compression>,
}

impl Naming {
    /// The output's path relative to the output directory, from the input's relative path.
    fn output_name(&self, rel: &Path) -> PathBuf {
        let mut out = rel.to_path_buf();
        if Compression::from_path(&out).is_some() {
            out.set_extension("");
        }
        if self.keep_extension {
            let mut name = out.into_os_string();
            name.push(".");
            name.push(self.to.extension());
            out = PathBuf::from(name);
        } else {
            out.set_extension(self.to.extension());
        }
        if let Some(c) = self.compression {
            let mut name = out.into_os_string();
            name.push(".");
            name.push(c.extension());
            out = PathBuf::from(name);
        }
        out
    }
}

/// Lists the files under `inputs` (directories walked in name order, symbolic links to
/// directories not followed, `skip` left out) with their paths relative to the input given.
fn collect(inputs: &[PathBuf], skip: Option<&Path>) -> Result<Vec<(PathBuf, PathBuf)>, CliError> {
    fn walk(
        root: &Path,
        dir: &Path,
        skip: Option<&Path>,
        out: &mut Vec<(PathBuf, PathBuf)>,
    ) -> Result<(), CliError> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| CliError::io(dir.display(), e))?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let meta = std::fs::symlink_metadata(&p).map_err(|e| CliError::io(p.display(), e))?;
            if meta.is_dir() {
                if skip.is_some_and(|s| p.canonicalize().is_ok_and(|c| c == s)) {
                    continue;
                }
                walk(root, &p, skip, out)?;
            } else {
                let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
                out.push((p, rel));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for input in inputs {
        if input == Path::new("-") {
            return Err(CliError::usage(
                "standard input (`-`) cannot be converted into --out-dir; use -o",
            ));
        }
        if input.is_dir() {
            walk(input, input, skip, &mut out)?;
        } else {
            let name = input
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| input.clone());
            out.push((input.clone(), name));
        }
    }
    Ok(out)
}

/// Plans the conversion of `inputs` into `out_dir`: refuses, naming them, two inputs that map
/// to one output and an output that is one of the inputs. The same file given twice is
/// converted once.
pub fn plan(inputs: &[PathBuf], out_dir: &Path, naming: &Naming) -> Result<Vec<Job>, CliError> {
    let out_canon = out_dir.canonicalize().ok();
    let files = collect(inputs, out_canon.as_deref())?;
    let mut seen = HashSet::new();
    let mut jobs = Vec::new();
    let mut canon_inputs = HashMap::new();
    for (input, rel) in files {
        let canon = input.canonicalize().unwrap_or_else(|_| input.clone());
        if !seen.insert(canon.clone()) {
            continue;
        }
        canon_inputs.insert(canon, input.clone());
        jobs.push(Job {
            output: out_dir.join(naming.output_name(&rel)),
            input,
        });
    }
    let mut problems = Vec::new();
    let mut by_output: HashMap<PathBuf, Vec<&Job>> = HashMap::new();
    for job in &jobs {
        by_output
            .entry(normalise(&job.output))
            .or_default()
            .push(job);
    }
    let mut collisions: Vec<_> = by_output.values().filter(|js| js.len() > 1).collect();
    collisions.sort_by(|a, b| a[0].output.cmp(&b[0].output));
    for js in collisions {
        let names: Vec<_> = js.iter().map(|j| j.input.display().to_string()).collect();
        let (last, rest) = names.split_last().expect("two inputs or more");
        problems.push(format!(
            "{} and {last} would be written to the same {}",
            rest.join(", "),
            js[0].output.display()
        ));
    }
    for job in &jobs {
        if let Ok(c) = job.output.canonicalize()
            && let Some(input) = canon_inputs.get(&c)
        {
            if problems
                .iter()
                .any(|p| p.starts_with(&format!("{} would be overwritten", input.display())))
            {
                continue;
            }
            problems.push(format!(
                "{} would be overwritten by the output of {}",
                input.display(),
                job.input.display()
            ));
        }
    }
    if !problems.is_empty() {
        let hint = if naming.keep_extension {
            "choose another --out-dir"
        } else {
            "choose another --out-dir, or add --keep-extension"
        };
        return Err(CliError::usage(format!(
            "nothing written: {}; {hint}",
            problems.join("; ")
        )));
    }
    Ok(jobs)
}

/// The path with `.` and `..` resolved lexically (the output directory may not exist yet).
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The options of a batch run.
pub struct Batch<'o> {
    pub from: Option<Format>,
    pub to: Format,
    pub dopts: &'o DecodeOptions,
    pub eopts: &'o EncodeOptions,
    pub compression: Option<Compression>,
    pub max_decompressed: u64,
}

/// Converts every job in parallel, with a progress bar on a terminal; one error line per
/// failure, then a summary that counts as converted only the outputs put in place. Returns the
/// exit status.
pub fn run(jobs: &[Job], b: &Batch<'_>) -> i32 {
    let total_in = AtomicU64::new(0);
    let total_out = AtomicU64::new(0);
    let converted = AtomicU64::new(0);
    let failures = Mutex::new(0usize);
    let started = Instant::now();
    let bar = indicatif::ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} files {per_sec} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    jobs.par_iter().for_each(|job| {
        let result = crate::guarded(|| {
            let src = input::read(&job.input, b.max_decompressed)?;
            let from = input::format_of(b.from, &src)?;
            if let Some(parent) = job.output.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| CliError::io(format!("cannot create {}", parent.display()), e))?;
            }
            output::write_to(&job.output, b.compression, |w| {
                crate::convert::convert(&src.data, from, b.to, w, b.dopts, b.eopts)
            })?;
            total_in.fetch_add(src.data.len() as u64, Ordering::Relaxed);
            total_out.fetch_add(
                std::fs::metadata(&job.output).map(|m| m.len()).unwrap_or(0),
                Ordering::Relaxed,
            );
            converted.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        if let Err(e) = result {
            if let Some(line) = e.about(&display(&job.input)).line() {
                bar.suspend(|| crate::eprintln_quiet(&line));
            }
            *failures.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let failed = *failures.lock().unwrap_or_else(|p| p.into_inner());
    let (i, o) = (
        total_in.load(Ordering::Relaxed),
        total_out.load(Ordering::Relaxed),
    );
    crate::eprintln_quiet(&format!(
        "binxml: converted {} of {} files to {} in {:.2} s ({:.1} MB -> {:.1} MB, {:.1}%){}",
        converted.load(Ordering::Relaxed),
        jobs.len(),
        b.to,
        started.elapsed().as_secs_f64(),
        i as f64 / 1e6,
        o as f64 / 1e6,
        if i > 0 {
            100.0 * o as f64 / i as f64
        } else {
            0.0
        },
        if failed > 0 {
            format!("; {failed} failed")
        } else {
            String::new()
        }
    ));
    if failed > 0 { 1 } else { 0 }
}
