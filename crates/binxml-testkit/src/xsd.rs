//! The XML Schema oracle: PyPI `xmlschema` (pinned by `interop/xsd/setup.sh`, which installs it
//! into the project's `target/venv`), driven by `interop/xsd/validate.py` in one Python process
//! that serves a whole batch: it says whether an instance is valid against a schema, and if not
//! the first reason (line, path of the element, what is wrong). It is independent of
//! `binxml-schema`: the oracle the schema crate's validator is checked against.
//!
//! Nothing is fetched from the network. A schema whose `schemaLocation` points at the web loads
//! through a catalog: a TSV file of `URL<TAB>local path` lines (paths relative to the file),
//! the same file `ExiOracle`'s `catalog=` option reads (see `tests/schemas/README.md`).
//! Instances are checked against the schema given, never their own `xsi:schemaLocation`.
//!
//! The test sets (schemas with real instances, and deliberately broken instances with the
//! oracle's recorded verdicts) are listed in `tests/schemas/sets.tsv`; [`schema_sets`] reads it.
//!
//! ```no_run
//! use binxml_testkit::{Verdict, XsdOracle};
//! use std::path::Path;
//!
//! let mut xsd = XsdOracle::start();
//! let v = xsd.validate(Path::new("inv.xsd"), Path::new("inv1.xml"))?;
//! assert_eq!(v, Verdict::Valid);
//! # Ok::<(), String>(())
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{LineOracle, python, workspace_root};

/// What the oracle says about one instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Valid against the schema.
    Valid,
    /// Invalid (or not well-formed), with xmlschema's first reason: `line N: /path: reason`.
    Invalid(String),
}

impl Verdict {
    /// Whether the verdict is [`Verdict::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid)
    }
}

/// The `interop/xsd/validate.py` process (see the module documentation).
pub struct XsdOracle(LineOracle);

fn field(p: &Path) -> String {
    let s = p.display().to_string();
    assert!(
        !s.contains(['\t', '\n', '\r']),
        "XsdOracle: the path {s:?} holds a tab or a line end"
    );
    s
}

impl XsdOracle {
    /// Whether `interop/xsd/setup.sh` has installed xmlschema into the Python the tests run
    /// ([`python`]); this starts that Python once.
    pub fn available() -> bool {
        Command::new(python())
            .args(["-c", "import xmlschema, lxml"])
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Starts the oracle ([`python`] running `interop/xsd/validate.py`). Panics, naming
    /// `interop/xsd/setup.sh`, when xmlschema is not installed or Python cannot be started.
    pub fn start() -> Self {
        assert!(
            Self::available(),
            "the XML Schema oracle (PyPI xmlschema) is not installed in {}: run interop/xsd/setup.sh",
            python().to_string_lossy()
        );
        let script = workspace_root().join("interop/xsd/validate.py");
        let oracle = LineOracle::spawn(Command::new(python()).arg(script)).unwrap_or_else(|e| {
            panic!("cannot start the XML Schema oracle (interop/xsd/validate.py): {e}")
        });
        XsdOracle(oracle)
    }

    /// [`XsdOracle::start`] when the oracle is installed; otherwise `None`, after a "skipped"
    /// line on stderr, except when `CI=true`, where it panics (CI runs the setup scripts).
    pub fn start_or_skip() -> Option<Self> {
        if crate::ci() || Self::available() {
            return Some(Self::start());
        }
        crate::note(&format!(
            "{}: skipped: the XML Schema oracle is not installed (run interop/xsd/setup.sh)",
            std::thread::current().name().unwrap_or("a test")
        ));
        None
    }

    /// Validates `instance` against the schema `schema`. `Err` when the oracle could not
    /// decide: the schema does not load (or one of its imports cannot be found locally), a
    /// file is missing, or the process ended.
    pub fn validate(&mut self, schema: &Path, instance: &Path) -> Result<Verdict, String> {
        self.validate_with(schema, instance, None)
    }

    /// Like [`validate`](Self::validate), with a catalog (`URL<TAB>local path` lines) that
    /// maps the web addresses in the schema's `schemaLocation`s to local files.
    pub fn validate_with(
        &mut self,
        schema: &Path,
        instance: &Path,
        catalog: Option<&Path>,
    ) -> Result<Verdict, String> {
        let (s, i) = (field(schema), field(instance));
        let line = match catalog {
            Some(c) => self.0.ask(&[&s, &i, &field(c)]),
            None => self.0.ask(&[&s, &i]),
        };
        if line == "valid" {
            Ok(Verdict::Valid)
        } else if let Some(reason) = line.strip_prefix("invalid\t") {
            Ok(Verdict::Invalid(reason.to_string()))
        } else if line.is_empty() {
            Err("the XML Schema oracle process ended (see its stderr)".to_string())
        } else {
            Err(line)
        }
    }
}

/// One row of `tests/schemas/sets.tsv`: a schema and one real instance of it.
#[derive(Clone, Debug)]
pub struct SchemaSetEntry {
    /// The set's name (`invoice`, `ubl21`, `bbf-dm`, `xmlschema`, ...): `tests/schemas/<set>/`.
    pub set: String,
    /// The root schema, resolved (see [`resolve_listed_path`]); `None` when neither the shared
    /// corpus nor the repository has it.
    pub schema: Option<PathBuf>,
    /// The catalog for web `schemaLocation`s, if the set has one.
    pub catalog: Option<PathBuf>,
    /// The namespace of the instance's document element (`""` for none).
    pub namespace: String,
    /// The instance, resolved; `None` when it is only in the shared corpus and that is absent.
    pub instance: Option<PathBuf>,
    /// The instance as listed (for messages).
    pub listed: String,
    /// Whether xmlschema found it valid when the list was made (`expected` column).
    pub expected_valid: bool,
}

impl SchemaSetEntry {
    /// Both the schema and the instance are present on this machine.
    pub fn present(&self) -> bool {
        self.schema.is_some() && self.instance.is_some()
    }
}

/// A path as `sets.tsv` and the `expected.tsv` files list it: relative to the workspace root;
/// `A|B` means A when it exists, else B (a `../shared/corpus/...` file first, then the
/// repository's copy); `-` means none. `None` when no alternative exists.
pub fn resolve_listed_path(listed: &str) -> Option<PathBuf> {
    if listed == "-" || listed.is_empty() {
        return None;
    }
    let root = workspace_root();
    listed.split('|').map(|p| root.join(p)).find(|p| p.exists())
}

/// Every row of `tests/schemas/sets.tsv`, in order.
pub fn schema_sets() -> Vec<SchemaSetEntry> {
    let path = workspace_root().join("tests/schemas/sets.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("binxml-testkit: cannot read {}: {e}", path.display()));
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            f.len(),
            6,
            "{}:{}: expected 6 tab-separated fields",
            path.display(),
            n + 1
        );
        rows.push(SchemaSetEntry {
            set: f[0].to_string(),
            schema: resolve_listed_path(f[1]),
            catalog: resolve_listed_path(f[2]),
            namespace: f[3].to_string(),
            instance: resolve_listed_path(f[4]),
            listed: f[4].to_string(),
            expected_valid: match f[5] {
                "valid" => true,
                "invalid" => false,
                other => panic!(
                    "{}:{}: expected valid|invalid, not {other}",
                    path.display(),
                    n + 1
                ),
            },
        });
    }
    rows
}
