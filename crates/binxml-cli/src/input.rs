//! Reading an input: memory-mapped files (a document larger than memory is paged in by the
//! system, not read), standard input, and gzip, Zstandard or xz files decompressed on the way
//! in (recognised by their magic numbers), with a bound on what decompression may produce.

use std::io::Read;
use std::path::{Path, PathBuf};

use binxml::Format;

use crate::error::CliError;
use crate::output::Compression;

/// An input held in memory.
pub enum Input {
    /// A file, memory-mapped.
    Map(memmap2::Mmap),
    /// Standard input, a decompressed file, or a file that cannot be mapped.
    Buf(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Map(m) => m,
            Input::Buf(b) => b,
        }
    }
}

/// An input and what it is.
pub struct Source {
    /// The document's bytes (decompressed).
    pub data: Input,
    /// The name its format is guessed from when the bytes cannot tell: the path without a
    /// compression suffix (`a.uper.gz` -> `a.uper`).
    pub name: PathBuf,
    /// The compression it came in, if any.
    pub compression: Option<Compression>,
}

/// The path as messages show it.
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Reads `path` (`-`: standard input), decompressing it if it is compressed; decompressed
/// data larger than `max_decompressed` bytes is refused.
pub fn read(path: &Path, max_decompressed: u64) -> Result<Source, CliError> {
    let data = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::io("cannot read standard input", e))?;
        Input::Buf(buf)
    } else {
        map(path)?
    };
    let compression = sniff(&data);
    let mut name = path.to_path_buf();
    if Compression::from_path(path).is_some() {
        name.set_extension("");
    }
    let data = match compression {
        None => data,
        Some(c) => Input::Buf(decompress(c, &data, max_decompressed)?),
    };
    Ok(Source {
        data,
        name,
        compression,
    })
}

fn map(path: &Path) -> Result<Input, CliError> {
    let file = std::fs::File::open(path).map_err(|e| CliError::io("cannot open", e))?;
    let meta = file
        .metadata()
        .map_err(|e| CliError::io("cannot read", e))?;
    if meta.is_dir() {
        return Err(CliError::failure("is a directory"));
    }
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the map is read-only and lives no longer than this process's use of it; a
        // file truncated by another process while mapped can at worst fault this process,
        // which the command accepts as plain readers do.
        if let Ok(m) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Input::Map(m));
        }
    }
    // FIFOs, devices and what cannot be mapped are read.
    let mut buf = Vec::new();
    (&file)
        .read_to_end(&mut buf)
        .map_err(|e| CliError::io("cannot read", e))?;
    Ok(Input::Buf(buf))
}

/// The compression a stream's magic number names.
fn sniff(data: &[u8]) -> Option<Compression> {
    if data.starts_with(&[0x1F, 0x8B]) {
        Some(Compression::Gzip)
    } else if data.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        Some(Compression::Zstd)
    } else if data.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
        Some(Compression::Xz)
    } else {
        None
    }
}

fn decompress(c: Compression, data: &[u8], max: u64) -> Result<Vec<u8>, CliError> {
    let what = match c {
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
        Compression::Xz => "xz",
    };
    let reader: Box<dyn Read + '_> = match c {
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(data)),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(data)
                .map_err(|e| CliError::io(format!("{what}: cannot decompress"), e))?,
        ),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(data)),
    };
    let mut out = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| CliError::io(format!("{what}: cannot decompress"), e))?;
    if out.len() as u64 > max {
        return Err(CliError::failure(format!(
            "{what}: the decompressed input exceeds {max} bytes (raise --max-decompressed)"
        )));
    }
    Ok(out)
}

/// The input's format: `from` when given, else detected from the bytes and the file name.
pub fn format_of(from: Option<Format>, src: &Source) -> Result<Format, CliError> {
    match from {
        Some(f) => Ok(f),
        None => binxml::detect_named(&src.name, &src.data).ok_or_else(|| {
            CliError::failure("cannot detect the input format; name it with -f FORMAT")
        }),
    }
}
