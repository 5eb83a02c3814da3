//! The EXI oracle: EXIficient 1.0.7 (Maven Central `com.siemens.ct.exi:exificient`), schema-less
//! or schema-informed, driven by `interop/exi/ExiDriver.java` in one JVM that serves a whole batch of requests.
//!
//! `interop/exi/setup.sh` (run by `scripts/test`) fetches the jars into
//! `interop/.cache/exi-jars/` and compiles the driver into `interop/.cache/exi-classes/`; it
//! needs a JDK and Maven. [`ExiOracle::available`] says whether that was done;
//! [`ExiOracle::start`] panics, naming the script, when it was not.
//!
//! Every request takes an option list in the driver's syntax: comma-separated, `""` or `"-"`
//! for EXIficient's defaults (bit-packed, no fidelity options, no options in the header).
//! One alignment `bitpacked` | `bytealigned` | `precompression` | `compression`; the fidelity
//! flags `comments`, `pis`, `dtd`, `prefixes`, `lexical`, `selfcontained[=Q|Q...]`, `strict`;
//! `fragment`; `blocksize=N`, `valuemaxlength=N`, `capacity=N` (valuePartitionCapacity);
//! `header` (the options go into the EXI header), `cookie` (`$EXI`), `deflate=N` (the
//! compression level), `entityrefs` (with `dtd`: internal entities as ER events),
//! `schemalocation` (keep `xsi:schemaLocation`, which EXIficient drops by default).
//! Schema-informed: `schema=PATH` (the grammars of that XSD, built by EXIficient through Xerces
//! and kept for the life of the process), with `catalog=TSV` for web `schemaLocation`s (the
//! catalog [`XsdOracle`](crate::XsdOracle) reads; nothing is fetched from the network),
//! `xsdtypes` (built-in types only), `schemaid[=ID]` (the schemaId in the header options; needs
//! `header`; `=ID` replaces EXIficient's default id, the PATH string). With a schema, `strict`
//! refuses anything the schema does not declare. Decoding needs the same `schema=`. The comment
//! at the top of `ExiDriver.java` gives the EXIficient call behind each, and every behaviour of
//! EXIficient that matters for a byte-exact comparison (whitespace-only text dropped between
//! tags, invented `ns<N>` prefixes and an `xmlns:xsi` declaration on decoding, CDATA and
//! adjacent text merged into one CH, the DOCTYPE text rebuilt from declarations, ...).
//!
//! Decoding needs the options the stream was written with, unless its header carries them
//! (`header`): EXIficient then ignores the options given. Wrong options are not always
//! detected: they can decode to well-formed garbage.
//!
//! ```no_run
//! use binxml_testkit::ExiOracle;
//! use std::path::Path;
//!
//! let mut exi = ExiOracle::start();
//! exi.encode(Path::new("in.xml"), Path::new("out.exi"), "bytealigned,prefixes")?;
//! exi.decode(Path::new("out.exi"), Path::new("back.xml"), "bytealigned,prefixes")?;
//! # Ok::<(), String>(())
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{LineOracle, workspace_root};

/// The EXIficient driver process (see the module documentation).
pub struct ExiOracle(LineOracle);

/// `interop/.cache/exi-jars` and `interop/.cache/exi-classes` under the workspace root.
fn cache_dirs() -> (PathBuf, PathBuf) {
    let cache = workspace_root().join("interop/.cache");
    (cache.join("exi-jars"), cache.join("exi-classes"))
}

/// The driver's class path: the compiled driver, then every jar `setup.sh` fetched (sorted), or
/// what is missing.
fn classpath() -> Result<String, String> {
    let (jars, classes) = cache_dirs();
    if !classes.join("ExiDriver.class").is_file() {
        return Err(format!(
            "{} missing",
            classes.join("ExiDriver.class").display()
        ));
    }
    let mut list: Vec<PathBuf> = std::fs::read_dir(&jars)
        .map_err(|e| format!("{}: {e}", jars.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("jar"))
        .collect();
    list.sort();
    if !list
        .iter()
        .any(|p| p.file_name().and_then(|n| n.to_str()) == Some("exificient-1.0.7.jar"))
    {
        return Err(format!(
            "{} missing",
            jars.join("exificient-1.0.7.jar").display()
        ));
    }
    let mut cp = classes.display().to_string();
    for j in list {
        cp.push(':');
        cp.push_str(&j.display().to_string());
    }
    Ok(cp)
}

/// A path as one request field: the protocol separates fields with tabs and requests with line
/// ends, so a path holding either cannot be sent.
fn field(p: &Path) -> String {
    let s = p.display().to_string();
    assert!(
        !s.contains(['\t', '\n', '\r']),
        "ExiOracle: the path {s:?} holds a tab or a line end"
    );
    s
}

fn options(o: &str) -> &str {
    assert!(
        !o.contains(['\t', '\n', '\r']),
        "ExiOracle: the options {o:?} hold a tab or a line end"
    );
    if o.is_empty() { "-" } else { o }
}

impl ExiOracle {
    /// Whether `interop/exi/setup.sh` has fetched EXIficient and compiled the driver (it does not
    /// check that `java` runs).
    pub fn available() -> bool {
        classpath().is_ok()
    }

    /// Starts the driver (`java -cp ... ExiDriver`). Panics, naming `interop/exi/setup.sh`, when
    /// it was not set up or `java` cannot be started.
    pub fn start() -> Self {
        let cp = classpath().unwrap_or_else(|why| {
            panic!(
                "the EXI oracle (EXIficient 1.0.7) is not set up ({why}): run interop/exi/setup.sh"
            )
        });
        // UTF-8 as the default charset (the default from Java 18 on): Grammars2JSON writes its
        // JSON in it (the `grammars` request); the driver names UTF-8 everywhere else
        let oracle = LineOracle::spawn(Command::new("java").args([
            "-Xss8m",
            "-Dfile.encoding=UTF-8",
            "-cp",
            &cp,
            "ExiDriver",
        ]))
            .unwrap_or_else(|e| {
                panic!("cannot start java for the EXI oracle (interop/exi/ExiDriver.java; set it up with interop/exi/setup.sh): {e}")
            });
        ExiOracle(oracle)
    }

    /// [`ExiOracle::start`] when the oracle is set up; otherwise `None`, after a "skipped" line on
    /// stderr naming `interop/exi/setup.sh`, except when `CI=true`, where it panics (CI runs
    /// the setup scripts first, so the oracle must be there).
    pub fn start_or_skip() -> Option<Self> {
        if Self::available() || crate::ci() {
            return Some(Self::start());
        }
        crate::note(&format!(
            "{}: skipped: the EXI oracle is not set up (run interop/exi/setup.sh)",
            std::thread::current().name().unwrap_or("a test")
        ));
        None
    }

    /// Sends one request (tab-separated fields) and returns the text after `ok` (empty when
    /// there is none), or the driver's `err ...` line. For requests the typed methods do not
    /// cover: `["info"]`, `["options", "bytealigned,header"]`.
    pub fn request(&mut self, fields: &[&str]) -> Result<String, String> {
        let line = self.0.ask(fields);
        if line == "ok" {
            Ok(String::new())
        } else if let Some(rest) = line.strip_prefix("ok ") {
            Ok(rest.to_string())
        } else if line.is_empty() {
            Err("the EXI oracle process ended (see its stderr)".to_string())
        } else {
            Err(line)
        }
    }

    /// Encodes the XML document `xml` (parsed by Xerces through SAX, as EXIficient's own
    /// command line does) into the EXI stream `out` with `options`.
    pub fn encode(&mut self, xml: &Path, out: &Path, options: &str) -> Result<(), String> {
        self.request(&["encode", &field(xml), &field(out), self::options(options)])
            .map(drop)
    }

    /// Decodes the EXI stream `exi` into the XML document `out_xml` (UTF-8) with `options`
    /// (ignored by EXIficient when the stream's header carries its options).
    pub fn decode(&mut self, exi: &Path, out_xml: &Path, options: &str) -> Result<(), String> {
        self.request(&[
            "decode",
            &field(exi),
            &field(out_xml),
            self::options(options),
        ])
        .map(drop)
    }

    /// Decodes `exi` and writes the SAX events EXIficient's decoder reports to `out`, one a
    /// line (`SE {uri}local qname`, `AT {uri}local qname "value"`, `CH "text"`, `NS prefix
    /// uri`, `EE qname`, ...: the `Events` class of `ExiDriver.java`).
    pub fn events(&mut self, exi: &Path, out: &Path, options: &str) -> Result<(), String> {
        self.request(&["events", &field(exi), &field(out), self::options(options)])
            .map(drop)
    }

    /// Writes EXIficient's schema-informed grammars to `out` as JSON, with EXIficient's own
    /// dump (`Grammars2JSON`, exificient-grammars): the grammars of `schema=PATH` (with
    /// `catalog=TSV`) or of `xsdtypes`, built and cached as for [`ExiOracle::encode`]; no other
    /// option is accepted (the others act at run time, not in the grammars). Read it with
    /// [`parse_grammars2json`](crate::exi_grammars::parse_grammars2json).
    pub fn grammars(&mut self, out: &Path, options: &str) -> Result<(), String> {
        self.request(&["grammars", &field(out), self::options(options)])
            .map(drop)
    }

    /// Encodes `xml` (bytes) through files in `scratch` (a directory) and returns the EXI bytes.
    pub fn encode_bytes(
        &mut self,
        xml: &[u8],
        options: &str,
        scratch: &Path,
    ) -> Result<Vec<u8>, String> {
        let (input, output) = (
            scratch.join("exi-oracle.in.xml"),
            scratch.join("exi-oracle.out.exi"),
        );
        std::fs::write(&input, xml).map_err(|e| format!("{}: {e}", input.display()))?;
        self.encode(&input, &output, options)?;
        std::fs::read(&output).map_err(|e| format!("{}: {e}", output.display()))
    }

    /// Decodes `exi` (bytes) through files in `scratch` (a directory) and returns the XML bytes.
    pub fn decode_bytes(
        &mut self,
        exi: &[u8],
        options: &str,
        scratch: &Path,
    ) -> Result<Vec<u8>, String> {
        let (input, output) = (
            scratch.join("exi-oracle.in.exi"),
            scratch.join("exi-oracle.out.xml"),
        );
        std::fs::write(&input, exi).map_err(|e| format!("{}: {e}", input.display()))?;
        self.decode(&input, &output, options)?;
        std::fs::read(&output).map_err(|e| format!("{}: {e}", output.display()))
    }
}
