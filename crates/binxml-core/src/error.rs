//! The one error type every codec returns.
//!
//! [`Error`] is one pointer wide (its payload is boxed), so the `Result<()>` every
//! [`EventSink`](crate::EventSink) call returns stays in a register on the hot paths.

use std::fmt;
use std::io;

use crate::Format;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not a valid encoding of the format.
    Malformed,
    /// The input exceeds one of the configured [`Limits`](crate::Limits).
    Limit,
    /// The input uses a feature this implementation does not support, or the events cannot be
    /// represented in the output format.
    Unsupported,
    /// The event stream given to an encoder (or to the tree) breaks the grammar of
    /// [`Event`](crate::Event)s.
    InvalidEvents,
    /// Reading or writing failed; [`std::error::Error::source`] is the [`io::Error`].
    Io,
    /// Options given to a codec are out of range or contradict each other; refused when the
    /// options are built (their `with_...` setters), before any input is read.
    InvalidOptions,
}

/// An error with the format that raised it and, for decoders, the position in the input where
/// it was found: a byte offset, a bit offset for bit-packed formats, line and column for text
/// formats.
///
/// Its `Display` is `format: message[ at byte N[ bit B]][ (line L, column C)]`, for example
/// `fi: index 9 past the end of the local-name table at byte 17`.
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    origin: Origin,
    message: String,
    offset: Option<u64>,
    /// Bit offset within the byte at `offset`, for bit-packed formats.
    bit: Option<u8>,
    line_col: Option<(u64, u64)>,
    source: Option<io::Error>,
}

/// What raised an error: a format's codec, or one of the two parts of binxml that belong to no
/// format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Format(Format),
    /// The document tree, given events that do not form a document.
    Tree,
    /// Format detection, which found no format.
    Detect,
}

impl Origin {
    fn name(self) -> &'static str {
        match self {
            Origin::Format(f) => f.name(),
            Origin::Tree => "tree",
            Origin::Detect => "detect",
        }
    }
}

impl Error {
    #[cold]
    #[inline(never)]
    fn build(kind: ErrorKind, origin: Origin, message: String) -> Self {
        Error(Box::new(Inner {
            kind,
            origin,
            message,
            offset: None,
            bit: None,
            line_col: None,
            source: None,
        }))
    }

    /// An error of `kind` raised by `format`, without a position (add one with [`Error::at`],
    /// [`Error::at_bit`], [`Error::with_line_col`]).
    #[cold]
    pub fn new(kind: ErrorKind, format: Format, message: impl Into<String>) -> Self {
        Error::build(kind, Origin::Format(format), message.into())
    }

    /// A malformed-input error at byte `offset`.
    #[cold]
    pub fn malformed(format: Format, offset: u64, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, format, message).at(offset)
    }

    /// A limit-exceeded error at byte `offset`.
    #[cold]
    pub fn limit(format: Format, offset: u64, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Limit, format, message).at(offset)
    }

    /// An input or an event stream the format cannot handle or represent.
    #[cold]
    pub fn unsupported(format: Format, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Unsupported, format, message)
    }

    /// An event stream that breaks the grammar of events, given to `format`'s encoder.
    #[cold]
    pub fn invalid_events(format: Format, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidEvents, format, message)
    }

    /// Options for `format`'s codec that are out of range or contradict each other (kind
    /// [`ErrorKind::InvalidOptions`]).
    #[cold]
    pub fn invalid_options(format: Format, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidOptions, format, message)
    }

    /// An event stream that breaks the grammar of events, given to the document tree, which is
    /// no format: [`Error::format`] is `None` and the message reads `tree: ...`.
    #[cold]
    pub fn tree(message: impl Into<String>) -> Self {
        Error::build(ErrorKind::InvalidEvents, Origin::Tree, message.into())
    }

    /// The format of a document could not be detected (kind [`ErrorKind::Unsupported`]):
    /// [`Error::format`] is `None` and the message reads `detect: ...`.
    #[cold]
    pub fn detect(message: impl Into<String>) -> Self {
        Error::build(ErrorKind::Unsupported, Origin::Detect, message.into())
    }

    /// Reading or writing failed: the message is `err`'s, and `err` is kept as the
    /// [`source`](std::error::Error::source).
    #[cold]
    pub fn io(format: Format, err: io::Error) -> Self {
        let mut e = Error::build(ErrorKind::Io, Origin::Format(format), err.to_string());
        e.0.source = Some(err);
        e
    }

    /// The same error at byte `offset`.
    pub fn at(mut self, offset: u64) -> Self {
        self.0.offset = Some(offset);
        self
    }

    /// The same error at bit `bit_offset` of the input (byte `bit_offset / 8`, bit
    /// `bit_offset % 8` within it).
    pub fn at_bit(mut self, bit_offset: u64) -> Self {
        self.0.offset = Some(bit_offset / 8);
        self.0.bit = Some((bit_offset % 8) as u8);
        self
    }

    /// The same error at one-based `line` and `column` (in characters), for text formats.
    pub fn with_line_col(mut self, line: u64, column: u64) -> Self {
        self.0.line_col = Some((line, column));
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The format that raised the error; `None` for the document tree ([`Error::tree`]) and
    /// format detection ([`Error::detect`]).
    pub fn format(&self) -> Option<Format> {
        match self.0.origin {
            Origin::Format(f) => Some(f),
            Origin::Tree | Origin::Detect => None,
        }
    }

    /// The message, without the format and the position.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The byte offset in the input where the error was found.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The bit offset in the input (counted from the first bit of the input) where the error
    /// was found, for errors placed with [`Error::at_bit`]; `None` for those placed to a byte.
    pub fn bit_offset(&self) -> Option<u64> {
        Some(self.0.offset? * 8 + u64::from(self.0.bit?))
    }

    /// One-based line and column (in characters) where the error was found, for text formats.
    pub fn line_col(&self) -> Option<(u64, u64)> {
        self.0.line_col
    }

    /// The I/O error, for errors of kind [`ErrorKind::Io`] made by [`Error::io`].
    pub fn io_error(&self) -> Option<&io::Error> {
        self.0.source.as_ref()
    }
}

/// A copy; the I/O error (which is not `Clone`) is copied as its kind and message.
impl Clone for Error {
    fn clone(&self) -> Self {
        let i = &*self.0;
        Error(Box::new(Inner {
            kind: i.kind,
            origin: i.origin,
            message: i.message.clone(),
            offset: i.offset,
            bit: i.bit,
            line_col: i.line_col,
            source: i
                .source
                .as_ref()
                .map(|e| io::Error::new(e.kind(), e.to_string())),
        }))
    }
}

/// Errors are equal when kind, format, message and position are (the I/O source is not
/// compared; its message is).
impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&*self.0, &*other.0);
        a.kind == b.kind
            && a.origin == b.origin
            && a.message == b.message
            && a.offset == b.offset
            && a.bit == b.bit
            && a.line_col == b.line_col
    }
}

impl Eq for Error {}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &*self.0;
        let mut d = f.debug_struct("Error");
        d.field("kind", &i.kind);
        match i.origin {
            Origin::Format(format) => d.field("format", &format),
            other => d.field("origin", &other),
        };
        d.field("message", &i.message);
        if let Some(offset) = i.offset {
            d.field("offset", &offset);
        }
        if let Some(bit) = i.bit {
            d.field("bit", &bit);
        }
        if let Some(line_col) = i.line_col {
            d.field("line_col", &line_col);
        }
        if let Some(source) = &i.source {
            d.field("source", source);
        }
        d.finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &*self.0;
        write!(f, "{}: {}", i.origin.name(), i.message)?;
        if let Some(off) = i.offset {
            write!(f, " at byte {off}")?;
            if let Some(bit) = i.bit {
                write!(f, " bit {bit}")?;
            }
        }
        if let Some((line, col)) = i.line_col {
            write!(f, " (line {line}, column {col})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A result whose error defaults to [`Error`].
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
        let e = Error::malformed(
            Format::Fi,
            17,
            "index 9 past the end of the local-name table",
        );
        assert_eq!(
            e.to_string(),
            "fi: index 9 past the end of the local-name table at byte 17"
        );
        let e = Error::malformed(Format::Xml, 5, "bad").with_line_col(2, 3);
        assert_eq!(e.to_string(), "xml: bad at byte 5 (line 2, column 3)");
        assert_eq!(
            Error::malformed(Format::Asn1Uper, 0, "x")
                .at_bit(19)
                .to_string(),
            "asn1-uper: x at byte 2 bit 3"
        );
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(Error::tree("y").to_string(), "tree: y");
        assert_eq!(Error::detect("z").to_string(), "detect: z");
    }

    #[test]
    fn accessors() {
        let e = Error::malformed(Format::Asn1Uper, 0, "x").at_bit(19);
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(e.format(), Some(Format::Asn1Uper));
        assert_eq!(e.message(), "x");
        assert_eq!(e.offset(), Some(2));
        assert_eq!(e.bit_offset(), Some(19));
        assert_eq!(e.line_col(), None);
        assert_eq!(Error::malformed(Format::Fi, 3, "y").bit_offset(), None);
        assert_eq!(e.clone(), e);
        assert_eq!(Error::tree("t").format(), None);
    }

    #[test]
    fn invalid_options() {
        let e = Error::invalid_options(Format::Xebu, "cache size 0 outside 1..=256");
        assert_eq!(e.kind(), ErrorKind::InvalidOptions);
        assert_eq!(e.format(), Some(Format::Xebu));
        assert_eq!(e.offset(), None);
        assert_eq!(e.to_string(), "xebu: cache size 0 outside 1..=256");
    }

    #[test]
    fn io_source() {
        use std::error::Error as _;
        let e = Error::io(
            Format::Fi,
            io::Error::new(io::ErrorKind::BrokenPipe, "gone"),
        );
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.to_string(), "fi: gone");
        let source = e.source().expect("the io::Error");
        assert_eq!(source.to_string(), "gone");
        assert_eq!(
            e.io_error().map(io::Error::kind),
            Some(io::ErrorKind::BrokenPipe)
        );
        let c = e.clone();
        assert_eq!(
            c.io_error().map(io::Error::kind),
            Some(io::ErrorKind::BrokenPipe)
        );
        assert_eq!(c, e);
    }

    #[test]
    fn one_word() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Result<()>>(),
            std::mem::size_of::<usize>()
        );
    }
}
