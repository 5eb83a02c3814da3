//! `binxml validate`: one schema, loaded once, checked against each input's events.

use std::io::Write;
use std::path::{Path, PathBuf};

use binxml::schema::{Schema, Validator};
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
    let schema = crate::args::load_schema(schema_path, locations, &dopts.limits)?;
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

/// The errors of one document, each as `LINE:COLUMN: PATH: message` (XML) or
/// `byte N: PATH: message`.
fn check(
    path: &Path,
    schema: &Schema,
    from: Option<Format>,
    dopts: &DecodeOptions,
    max_decompressed: u64,
) -> Result<Vec<String>, CliError> {
    let src = input::read(path, max_decompressed)?;
    let from = input::format_of(from, &src)?;
    let fail = |e: binxml::Error| CliError::failure(e.to_string());
    let mut dec = binxml::AnyDecoder::new(from, &src.data, dopts).map_err(fail)?;
    let mut v = Validator::new(schema);
    while let Some(ev) = dec.next_event().map_err(fail)? {
        v.event(&ev, dec.offset());
    }
    Ok(v.finish()
        .into_iter()
        .map(|mut e| {
            if from == Format::Xml {
                e.line_col = Some(binxml::core::error::line_col(&src.data, e.offset as usize));
            }
            format!(" {e}")
        })
        .collect())
}
