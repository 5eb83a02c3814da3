//! The one error type every codec returns.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is not a valid encoding of the format.
    Malformed,
    /// The input exceeds one of the configured [`Limits`](crate::Limits).
    Limit,
    /// The input uses a feature this implementation does not support, or the events cannot be
    /// represented in the output format.
    Unsupported,
    /// The event stream given to an encoder breaks the grammar of [`Event`](crate::Event)s.
    InvalidEvents,
    /// Reading or writing failed.
    Io,
}

/// An error with the format that raised it and, for decoders, the byte offset in the input where
/// it was found (and line and column for text formats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The format's registry name (`xml`, `fi`, ...).
    pub format: &'static str,
    pub message: String,
    /// Byte offset in the input.
    pub offset: Option<u64>,
    /// Bit offset within the byte at `offset`, for bit-packed formats.
    pub bit: Option<u8>,
    /// One-based line and column, for text formats.
    pub line_col: Option<(u64, u64)>,
}

impl Error {
    pub fn new(kind: ErrorKind, format: &'static str, message: impl Into<String>) -> Self {
        Error {
            kind,
            format,
            message: message.into(),
            offset: None,
            bit: None,
            line_col: None,
        }
    }

    /// A malformed-input error at byte `offset`.
    pub fn malformed(format: &'static str, offset: u64, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, format, message).at(offset)
    }

    /// A limit-exceeded error at byte `offset`.
    pub fn limit(format: &'static str, offset: u64, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Limit, format, message).at(offset)
    }

    pub fn unsupported(format: &'static str, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Unsupported, format, message)
    }

    pub fn invalid_events(format: &'static str, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidEvents, format, message)
    }

    pub fn io(format: &'static str, err: std::io::Error) -> Self {
        Error::new(ErrorKind::Io, format, err.to_string())
    }

    pub fn at(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    pub fn at_bit(mut self, bit_offset: u64) -> Self {
        self.offset = Some(bit_offset / 8);
        self.bit = Some((bit_offset % 8) as u8);
        self
    }

    pub fn with_line_col(mut self, line: u64, column: u64) -> Self {
        self.line_col = Some((line, column));
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.format, self.message)?;
        if let Some(off) = self.offset {
            write!(f, " at byte {off}")?;
            if let Some(bit) = self.bit {
                write!(f, " bit {bit}")?;
            }
        }
        if let Some((line, col)) = self.line_col {
            write!(f, " (line {line}, column {col})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Computes 1-based line and column (in characters) of byte `offset` in `input`.
pub fn line_col(input: &[u8], offset: usize) -> (u64, u64) {
    let offset = offset.min(input.len());
    let before = &input[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count() as u64
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let e = Error::malformed("fi", 17, "index 9 past the end of the local-name table");
        assert_eq!(
            e.to_string(),
            "fi: index 9 past the end of the local-name table at byte 17"
        );
        let e = Error::malformed("xml", 5, "bad").with_line_col(2, 3);
        assert_eq!(e.to_string(), "xml: bad at byte 5 (line 2, column 3)");
        assert_eq!(
            Error::malformed("asn1-uper", 0, "x").at_bit(19).to_string(),
            "asn1-uper: x at byte 2 bit 3"
        );
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
    }
}
