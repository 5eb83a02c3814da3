//! `binxml xebu pack` and `binxml xebu unpack`: Xebu streams of several messages, written from
//! many documents (the token state, and XebuS's automata, carried from one to the next) and
//! read back into one document per message. A conversion of a stream reads one document and
//! refuses the input when more messages follow, so no message is ever dropped silently.

use std::path::{Path, PathBuf};

use binxml::{DecodeOptions, Decoder, EncodeOptions, Encoder, Format};

use crate::error::CliError;
use crate::input::{self, display};

/// Writes every input document as one message of a single Xebu stream to `output`.
pub fn pack(
    inputs: &[PathBuf],
    output: &Path,
    dopts: &DecodeOptions,
    xebu: binxml::xebu::XebuOptions,
    max_decompressed: u64,
) -> Result<(), CliError> {
    let mut stream = binxml::xebu::XebuEncoder::with_options(Vec::new(), xebu);
    for path in inputs {
        let src = input::read(path, max_decompressed)?;
        let from = input::format_of(None, &src)?;
        let fail = |e: binxml::Error| CliError::failure(format!("{}: {e}", display(path)));
        let mut d = binxml::AnyDecoder::new(from, &src.data, dopts).map_err(fail)?;
        while let Some(ev) = d.next_event().map_err(fail)? {
            stream.write_event(&ev).map_err(fail)?;
        }
    }
    stream
        .finish()
        .map_err(|e| CliError::failure(e.to_string()))?;
    let bytes = stream.into_inner();
    crate::output::write_to(output, None, |w| {
        w.write_all(&bytes).map_err(CliError::from_write)
    })
}

/// Writes each message of the stream `input` to `DIR/NAME-N.EXT` (N from 1), converted to `to`;
/// returns how many.
pub fn unpack(
    input_path: &Path,
    out_dir: &Path,
    to: Format,
    schema: Option<&binxml::xebu::XebuSchema>,
    limits: &binxml::core::Limits,
    eopts: &EncodeOptions,
    max_decompressed: u64,
) -> Result<usize, CliError> {
    let src = input::read(input_path, max_decompressed)?;
    let stem = input_path.file_stem().map_or_else(
        || "message".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    std::fs::create_dir_all(out_dir)
        .map_err(|e| CliError::io(format!("cannot create {}", out_dir.display()), e))?;
    let mut d = match schema {
        Some(s) => binxml::xebu::XebuDecoder::with_schema(&src.data, limits.clone(), s),
        None => binxml::xebu::XebuDecoder::with_limits(&src.data, limits.clone()),
    };
    let shown = display(input_path);
    let fail = |e: binxml::Error| CliError::failure(format!("{shown}: {e}"));
    let mut n = 0;
    loop {
        let mut events = Vec::new();
        while let Some(ev) = d.next_event().map_err(fail)? {
            events.push(ev);
        }
        n += 1;
        let path = out_dir.join(format!("{stem}-{n}.{}", to.extension()));
        crate::output::write_to(&path, None, |w| {
            let mut e = binxml::AnyEncoder::new(to, w, eopts);
            for ev in &events {
                e.write_event(ev).map_err(fail)?;
            }
            e.finish().map_err(fail)
        })?;
        if !d.next_message() {
            return Ok(n);
        }
    }
}
