//! `binxml validate`: one schema (XML Schema, or RELAX NG when its name ends in `.rng` or
//! `.rnc`), loaded once, checked against each input's events.

use std::io::Write;
use std::path::{Path, PathBuf};

use binxml::schema::relaxng::{RelaxNg, RngValidator};
use binxml::schema::{Invalid, Schema, Validator};
use binxml::{DecodeOptions, Decoder, Format};

use crate::error::CliError;
use crate::input::{self, display};

/// Validates every input; the exit status is 1 when one is invalid or cannot be read.
pub fn run(
    inputs: &[PathBuf],
    schema_path: &Path,
    locations: &[String],
    from: Option<Format>,
    dopts: &DecodeOptions,
    max_decompressed: u64,
) -> Result<i32, CliError> {
    let schema = if RelaxNg::is_relaxng_path(schema_path) {
        let options = binxml::schema::LoadOptions::default().with_limits(dopts.limits.clone());
        Loaded::RelaxNg(
            RelaxNg::load_with(schema_path, &options)
                .map_err(|e| CliError::failure(format!("schema {e}")))?,
        )
    } else {
        Loaded::Xsd(Box::new(crate::args::load_schema(
            schema_path,
            locations,
            &dopts.limits,
        )?))
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write_err = |e: std::io::Error| CliError::from_write(e).writing("standard output");
    let mut status = 0;
    for path in inputs {
        let shown = display(path);
        match check(path, &schema, from, dopts, max_decompressed) {
            Ok(lines) if lines.is_empty() => writeln!(out, "{shown}: valid").map_err(write_err)?,
            Ok(lines) => {
                status = 1;
                for l in &lines {
                    writeln!(out, "{shown}:{l}").map_err(write_err)?;
                }
                let n = lines.len();
                writeln!(
                    out,
                    "{shown}: invalid ({n} error{})",
                    if n == 1 { "" } else { "s" }
                )
                .map_err(write_err)?;
            }
            Err(e) => {
                out.flush().map_err(write_err)?;
                if let Some(line) = e.about(&shown).line() {
                    crate::eprintln_quiet(&line);
                }
                status = 1;
            }
        }
    }
    out.flush().map_err(write_err)?;
    Ok(status)
}

/// The schema of a run.
enum Loaded {
    Xsd(Box<Schema>),
    RelaxNg(RelaxNg),
}

/// The errors of one document, each as `LINE:COLUMN: PATH: message` (XML) or
/// `byte N: PATH: message`.
fn check(
    path: &Path,
    schema: &Loaded,
    from: Option<Format>,
    dopts: &DecodeOptions,
    max_decompressed: u64,
) -> Result<Vec<String>, CliError> {
    let src = input::read(path, max_decompressed)?;
    let from = input::format_of(from, &src)?;
    let fail = |e: binxml::Error| CliError::failure(e.to_string());
    let mut dec = binxml::AnyDecoder::new(from, &src.data, dopts).map_err(fail)?;
    let errors: Vec<Invalid> = match schema {
        Loaded::Xsd(schema) => {
            let mut v = Validator::new(schema);
            while let Some(ev) = dec.next_event().map_err(fail)? {
                v.event(&ev, dec.offset());
            }
            v.finish()
        }
        Loaded::RelaxNg(schema) => {
            let mut v = RngValidator::new(schema);
            while let Some(ev) = dec.next_event().map_err(fail)? {
                v.event(&ev, dec.offset());
            }
            v.finish()
        }
    };
    Ok(errors
        .into_iter()
        .map(|mut e| {
            if from == Format::Xml {
                e.line_col = Some(binxml::core::error::line_col(&src.data, e.offset as usize));
            }
            format!(" {e}")
        })
        .collect())
}
