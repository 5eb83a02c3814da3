//! One conversion: a decoder piped into an encoder, writing to any `Write`.

use std::io::{self, Write};

use binxml::{DecodeOptions, EncodeOptions, Format};

use crate::error::CliError;

/// Converts one document in memory (`from` already known) to `to`, writing to `out`.
pub fn convert(
    data: &[u8],
    from: Format,
    to: Format,
    out: &mut dyn Write,
    dopts: &DecodeOptions,
    eopts: &EncodeOptions,
) -> Result<(), CliError> {
    let mut watched = Watched {
        inner: out,
        error: None,
    };
    let r = binxml::convert_with(data, from, dopts, to, &mut watched, eopts);
    match (r, watched.error) {
        // The library reports a failed write as its own error; the writer's own is the cause.
        (Err(_), Some(e)) => Err(CliError::from_write(e)),
        (Err(e), None) => Err(CliError::failure(e.to_string())),
        (Ok(_), _) => Ok(()),
    }
}

/// Remembers the first write error, so that a closed pipe or a full disk is told apart from a
/// malformed input whatever the encoder makes of the error.
struct Watched<'w> {
    inner: &'w mut dyn Write,
    error: Option<io::Error>,
}

impl Watched<'_> {
    fn keep<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r
            && self.error.is_none()
        {
            self.error = Some(match e.raw_os_error() {
                Some(code) => io::Error::from_raw_os_error(code),
                None => io::Error::new(e.kind(), e.to_string()),
            });
        }
        r
    }
}

impl Write for Watched<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.keep(r)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = self.inner.write_all(buf);
        self.keep(r)
    }
    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.keep(r)
    }
}
