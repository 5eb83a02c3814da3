//! Test helpers shared by the codec crates' test suites (dev-dependency only).
//!
//! * [`corpus_xml_files`]: every XML document of `../shared/corpus/` (all files except `*.tsf`,
//!   `*.tsv`, `*.md` and `json/`).
//! * [`C14nOracle`]: compares XML documents through canonical XML computed by Python's
//!   `xml.etree.ElementTree.canonicalize`, an implementation independent of ours. One Python
//!   process serves a whole batch.

pub mod mutate;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root (the directory holding the top `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// `../shared/corpus` relative to the workspace root.
pub fn corpus_dir() -> PathBuf {
    let p = workspace_root().join("../shared/corpus");
    assert!(
        p.is_dir(),
        "the shared corpus is missing at {}",
        p.display()
    );
    p
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every XML document of the corpus, sorted by path.
pub fn corpus_xml_files() -> Vec<PathBuf> {
    let root = corpus_dir();
    let mut all = Vec::new();
    walk(&root, &mut all);
    all.retain(|p| {
        let rel = p.strip_prefix(&root).unwrap();
        if rel.starts_with("json") {
            return false;
        }
        !matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("tsf" | "tsv" | "md")
        )
    });
    assert!(
        all.len() > 50,
        "expected the whole corpus, found {} files",
        all.len()
    );
    all
}

/// Every JSON file under `corpus/json/<sub>`.
pub fn corpus_json_files(sub: &str) -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&corpus_dir().join("json").join(sub), &mut all);
    all.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("json"));
    all
}

/// A scratch directory under the workspace's `target/` for files a test hands to the oracle.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The C14N oracle: one `python3 tests/c14n_compare.py` process.
pub struct C14nOracle {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl C14nOracle {
    pub fn start() -> Self {
        let script = workspace_root().join("tests/c14n_compare.py");
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start python3 (the C14N oracle)");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        C14nOracle {
            child,
            stdin,
            stdout,
        }
    }

    /// `Ok(())` when `candidate` has the same canonical form as `original`, else the oracle's
    /// description of the first difference.
    pub fn compare(&mut self, original: &Path, candidate: &Path) -> Result<(), String> {
        writeln!(
            self.stdin,
            "{}\t{}",
            original.display(),
            candidate.display()
        )
        .unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("oracle answer");
        let line = line.trim_end();
        if line == "ok" {
            Ok(())
        } else {
            Err(line.to_string())
        }
    }

    /// Writes `candidate` bytes to a scratch file and compares.
    pub fn compare_bytes(
        &mut self,
        original: &Path,
        candidate: &[u8],
        scratch: &Path,
    ) -> Result<(), String> {
        std::fs::write(scratch, candidate).unwrap();
        self.compare(original, scratch)
    }
}

impl Drop for C14nOracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
