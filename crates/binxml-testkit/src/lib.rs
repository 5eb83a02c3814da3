//! Test helpers shared by the codec crates' test suites (dev-dependency only).
//!
//! * [`corpus`]: the test corpus. `../shared/corpus` (47 MB of real documents written by others)
//!   when it is beside the repository, otherwise the small corpus kept in the repository
//!   (`tests/corpus/`, about 2 MB, made by `tests/corpus/generate.py` and by hand). The first
//!   call prints to stderr which one the tests use. `BINXML_CORPUS` forces a choice: `small`,
//!   `shared` (fail when it is missing), or the path of a corpus directory.
//! * [`corpus_xml_files`]: every XML document of the corpus (all files except `*.tsf`, `*.tsv`,
//!   `*.md`, `*.py` and `json/`); [`corpus_json_files`]: the JSON files under `json/<sub>`.
//! * [`shared_suite`]: a test suite kept in `../shared` (the W3C XML suite): skipped where there is
//!   no shared data, required in CI beside the shared corpus.
//! * [`shared_corpus_file`]: a fixture only the shared corpus has (the TSF paper's reference
//!   files, ...): `None`, with a "skipped" line on stderr, when the tests run on the small corpus.
//! * [`C14nOracle`]: compares XML documents through canonical XML computed by Python's
//!   `xml.etree.ElementTree.canonicalize`, an implementation independent of ours. One Python
//!   process serves a whole batch. [`python`] is the interpreter every test starts.
//! * [`XmlParsers`]: whether Python's expat and libxml2 read a file (`tests/xml_parsers.py`), for
//!   the tests of binxml's XML writer.
//! * [`ExiOracle`]: EXIficient 1.0.7, the EXI reference, driven by `interop/exi/ExiDriver.java`
//!   in one JVM (set up by `interop/exi/setup.sh`): encode XML to EXI and decode EXI to XML
//!   with a given option list, schema-less or with a schema (`schema=PATH`).
//! * [`exi_grammars`]: EXIficient's schema-informed grammars as a graph
//!   ([`ExiOracle::grammars`] dumps them with Grammars2JSON), and a canonical text of a graph
//!   that is equal for two graphs exactly when they behave the same.
//! * [`XsdOracle`]: PyPI xmlschema (`interop/xsd/validate.py`, set up by `interop/xsd/setup.sh`):
//!   whether an instance is valid against an XSD, and the first reason if not;
//!   [`schema_sets`] reads `tests/schemas/sets.tsv`, the schema/instance test sets.

#![forbid(unsafe_code)]

mod exi;
pub mod exi_grammars;
pub mod mutate;
mod xsd;

pub use exi::ExiOracle;
pub use xsd::{SchemaSetEntry, Verdict, XsdOracle, resolve_listed_path, schema_sets};

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The workspace root (the directory holding the top `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// Which corpus the tests run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorpusKind {
    /// `../shared/corpus` (or a directory `BINXML_CORPUS` names): the full corpus.
    Shared,
    /// `tests/corpus/` in the repository: small, made by the project.
    Small,
}

/// The corpus the tests use: its root directory and its kind.
#[derive(Clone, Debug)]
pub struct Corpus {
    /// The corpus's root directory (canonical path).
    pub root: PathBuf,
    /// Full or small.
    pub kind: CorpusKind,
}

/// Writes a line to the process's stderr directly: the test harness does not capture it, so it
/// shows even for tests that pass.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "binxml-testkit: {line}");
}

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// `../shared/corpus` relative to the workspace root (whether or not it exists).
pub fn shared_corpus_dir() -> PathBuf {
    workspace_root().join("../shared/corpus")
}

/// `tests/corpus/` in the repository.
pub fn small_corpus_dir() -> PathBuf {
    workspace_root().join("tests/corpus")
}

fn choose_corpus() -> Corpus {
    let shared = shared_corpus_dir();
    let small = small_corpus_dir();
    let small_corpus = |why: &str| {
        assert!(
            small.join("gen").is_dir(),
            "binxml-testkit: the small corpus is missing at {} ({why})",
            small.display()
        );
        note(&format!(
            "using the small in-repo corpus at {} ({why})",
            small.display()
        ));
        Corpus {
            root: small.clone(),
            kind: CorpusKind::Small,
        }
    };
    let choice = std::env::var("BINXML_CORPUS").unwrap_or_default();
    match choice.as_str() {
        "" | "auto" => {
            if shared.is_dir() {
                let root = shared.canonicalize().unwrap_or(shared);
                note(&format!("using the shared corpus at {}", root.display()));
                Corpus {
                    root,
                    kind: CorpusKind::Shared,
                }
            } else {
                small_corpus("../shared/corpus not found")
            }
        }
        "small" => small_corpus("BINXML_CORPUS=small"),
        "shared" => {
            assert!(
                shared.is_dir(),
                "binxml-testkit: BINXML_CORPUS=shared, but there is no corpus at {}",
                shared.display()
            );
            let root = shared.canonicalize().unwrap_or(shared);
            note(&format!(
                "using the shared corpus at {} (BINXML_CORPUS=shared)",
                root.display()
            ));
            Corpus {
                root,
                kind: CorpusKind::Shared,
            }
        }
        path => {
            let root = Path::new(path)
                .canonicalize()
                .unwrap_or_else(|e| panic!("binxml-testkit: BINXML_CORPUS={path}: {e}"));
            if small.canonicalize().is_ok_and(|s| s == root) {
                return small_corpus(&format!("BINXML_CORPUS={path}"));
            }
            assert!(
                root.is_dir(),
                "binxml-testkit: BINXML_CORPUS={path} is not a directory"
            );
            note(&format!(
                "using the corpus at {} (BINXML_CORPUS), as a full one",
                root.display()
            ));
            Corpus {
                root,
                kind: CorpusKind::Shared,
            }
        }
    }
}

/// The corpus the tests use, chosen once per process (see the crate's documentation).
pub fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(choose_corpus)
}

/// The corpus's root directory: `../shared/corpus` or `tests/corpus`.
pub fn corpus_dir() -> PathBuf {
    corpus().root.clone()
}

/// Whether the tests run on the shared (full) corpus or the small one.
pub fn corpus_kind() -> CorpusKind {
    corpus().kind
}

/// `shared` when the tests run on the shared corpus, `small` on the small one: for counts that
/// are facts about one corpus (the JSON conformance suite's 95 `y_` files, ...).
pub fn expected<T>(shared: T, small: T) -> T {
    match corpus_kind() {
        CorpusKind::Shared => shared,
        CorpusKind::Small => small,
    }
}

/// A test suite kept in `../shared` beside the corpus, by its path relative to `../shared`
/// (`conformance/xmlconf/xmlconf.xml`): `Some` when it is there. Where it is missing the test
/// is skipped, after a line on stderr saying so, on a clone with nothing beside it; but where
/// `../shared/corpus` is there and `CI=true`, or `BINXML_CORPUS=shared` asks for the shared data,
/// a missing suite fails the test, so that a suite that went missing cannot pass unseen.
pub fn shared_suite(rel: &str) -> Option<PathBuf> {
    let p = workspace_root().join("../shared").join(rel);
    if p.exists() {
        return Some(p);
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let required = std::env::var("BINXML_CORPUS").as_deref() == Ok("shared")
        || (ci() && shared_corpus_dir().is_dir());
    assert!(
        !required,
        "{test}: {} is missing, but the shared data is in use (CI=true beside ../shared/corpus, \
         or BINXML_CORPUS=shared)",
        p.display()
    );
    note(&format!(
        "{test}: SKIPPED: needs {} (not beside this clone)",
        p.display()
    ));
    None
}

/// A file or directory that only the shared corpus has, by its path relative to it
/// (`tsf_paper/future001.xml`). On the small corpus: `None`, after a line on stderr saying what
/// was skipped. On the shared corpus it is `Some` when it exists; a missing one fails the test
/// when `CI=true` and is skipped, with that line, otherwise.
pub fn shared_corpus_file(rel: &str) -> Option<PathBuf> {
    let c = corpus();
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    match c.kind {
        CorpusKind::Small => {
            note(&format!(
                "{test}: skipped: needs ../shared/corpus/{rel} (running on the small corpus)"
            ));
            None
        }
        CorpusKind::Shared => {
            let p = c.root.join(rel);
            if p.exists() {
                Some(p)
            } else if ci() {
                panic!(
                    "{test}: the fixture {} is missing from the shared corpus at {}",
                    rel,
                    c.root.display()
                );
            } else {
                note(&format!(
                    "{test}: skipped: needs {} (missing from the shared corpus)",
                    p.display()
                ));
                None
            }
        }
    }
}

/// The bytes of a corpus file, by its path relative to the corpus root; a missing file is a
/// panic that names it.
pub fn read_corpus_file(rel: &str) -> Vec<u8> {
    let p = corpus_dir().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| {
        panic!(
            "binxml-testkit: cannot read the corpus file {}: {e}",
            p.display()
        )
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("binxml-testkit: cannot read {}: {e}", dir.display()))
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
            Some("tsf" | "tsv" | "md" | "py")
        )
    });
    let min = expected(50, 60);
    assert!(
        all.len() > min,
        "expected the whole corpus at {} (more than {min} XML documents), found {} files",
        root.display(),
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

/// The Python interpreter the tests start (the C14N oracle, the ASN.1 oracle, value-for-value
/// JSON checks): `BINXML_PYTHON` when set (`scripts/test` sets it to its virtual environment's),
/// else that environment's `target/venv/bin/python3` when it exists, else `python3`.
pub fn python() -> OsString {
    if let Some(p) = std::env::var_os("BINXML_PYTHON").filter(|p| !p.is_empty()) {
        return p;
    }
    let venv = workspace_root().join("target/venv/bin/python3");
    if venv.is_file() {
        return venv.into_os_string();
    }
    OsString::from("python3")
}

/// A scratch directory under the workspace's `target/` for files a test hands to the oracle.
/// It is emptied first, so tests that run in parallel must each use their own `name`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// An oracle process driven line by line: each request is one line of tab-separated fields on
/// its standard input, each answer one line on its standard output. The C14N oracle, the ASN.1
/// oracle (`interop/asn1/oracle.py`) and the Java Fast Infoset and EXI drivers all speak this; the
/// process is killed when the driver is dropped.
pub struct LineOracle {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl LineOracle {
    /// Starts `cmd` with its standard input and output piped to the driver.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<LineOracle> {
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Ok(LineOracle {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends `fields` as one tab-separated line and returns the answer line without its line
    /// end (empty when the process has ended).
    pub fn ask(&mut self, fields: &[&str]) -> String {
        writeln!(self.stdin, "{}", fields.join("\t")).unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("oracle answer");
        line.truncate(line.trim_end().len());
        line
    }
}

impl Drop for LineOracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The C14N oracle: one `tests/c14n_compare.py` process (run by [`python`]).
pub struct C14nOracle(LineOracle);

impl C14nOracle {
    /// Starts the oracle's Python process ([`python`] running `tests/c14n_compare.py`).
    pub fn start() -> Self {
        let script = workspace_root().join("tests/c14n_compare.py");
        let python = python();
        let oracle = LineOracle::spawn(Command::new(&python).arg(script)).unwrap_or_else(|e| {
            panic!(
                "cannot start {} (the C14N oracle, tests/c14n_compare.py): {e}",
                python.to_string_lossy()
            )
        });
        C14nOracle(oracle)
    }

    /// `Ok(())` when `candidate` has the same canonical form as `original`, else the oracle's
    /// description of the first difference.
    pub fn compare(&mut self, original: &Path, candidate: &Path) -> Result<(), String> {
        let line = self.0.ask(&[
            &original.display().to_string(),
            &candidate.display().to_string(),
        ]);
        if line == "ok" { Ok(()) } else { Err(line) }
    }

    /// Like [`compare`](Self::compare), with the oracle's comparison flags (comma-separated;
    /// `no-dtd-comments`: comments inside the DOCTYPE's internal subset are not compared).
    pub fn compare_with(
        &mut self,
        original: &Path,
        candidate: &Path,
        flags: &str,
    ) -> Result<(), String> {
        let line = self.0.ask(&[
            &original.display().to_string(),
            &candidate.display().to_string(),
            flags,
        ]);
        if line == "ok" { Ok(()) } else { Err(line) }
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

/// The independent readers of XML that binxml writes: one `tests/xml_parsers.py` process (run
/// by [`python`]) that reads each file with Python's expat (namespace-aware) and, where the
/// machine has it, libxml2 (through ctypes). Neither reads anything external.
pub struct XmlParsers {
    oracle: LineOracle,
    libxml2: bool,
}

impl XmlParsers {
    /// Starts the Python process; says on stderr when libxml2 is missing (expat reads alone).
    pub fn start() -> Self {
        let script = workspace_root().join("tests/xml_parsers.py");
        let python = python();
        let mut oracle = LineOracle::spawn(Command::new(&python).arg(script)).unwrap_or_else(|e| {
            panic!(
                "cannot start {} (tests/xml_parsers.py): {e}",
                python.to_string_lossy()
            )
        });
        let answer = oracle.ask(&["parsers"]);
        assert!(
            answer.starts_with("libxml2 "),
            "tests/xml_parsers.py did not start: {answer:?}"
        );
        let libxml2 = answer == "libxml2 yes";
        if !libxml2 {
            note("no libxml2 here: XML output is read by expat only");
        }
        XmlParsers { oracle, libxml2 }
    }

    /// Whether libxml2 reads the files too.
    pub fn has_libxml2(&self) -> bool {
        self.libxml2
    }

    /// `Ok(())` when every parser reads the file, else which one refused it and why.
    pub fn check(&mut self, path: &Path) -> Result<(), String> {
        let line = self.oracle.ask(&[&path.display().to_string()]);
        if line == "ok" { Ok(()) } else { Err(line) }
    }

    /// Writes `xml` to the file `scratch`, then [`check`](Self::check)s it.
    pub fn check_bytes(&mut self, xml: &[u8], scratch: &Path) -> Result<(), String> {
        std::fs::write(scratch, xml).unwrap();
        self.check(scratch)
    }
}

/// Asserts that each pair of JSON texts `(name, a, b)` holds the same value, compared by
/// Python's `json` module (an independent parser); the texts go through files in the scratch
/// directory `scratch`.
pub fn python_json_equal(pairs: &[(String, Vec<u8>, Vec<u8>)], scratch: &str) {
    let dir = scratch_dir(scratch);
    let mut list = String::new();
    for (i, (name, a, b)) in pairs.iter().enumerate() {
        let pa = dir.join(format!("{i}.a.json"));
        let pb = dir.join(format!("{i}.b.json"));
        std::fs::write(&pa, a).unwrap();
        std::fs::write(&pb, b).unwrap();
        list.push_str(&format!("{}\t{}\t{}\n", name, pa.display(), pb.display()));
    }
    let script = r#"
import json, sys
bad = 0
for line in sys.stdin:
    name, a, b = line.rstrip("\n").split("\t")
    va = json.load(open(a, encoding="utf-8"))
    vb = json.load(open(b, encoding="utf-8"))
    if va != vb:
        print("DIFF", name); bad += 1
print("done", bad)
"#;
    let mut child = Command::new(python())
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start Python (binxml_testkit::python())");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.trim_end().ends_with("done 0"), "{out}");
}
