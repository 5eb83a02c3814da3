//! Incremental decoding: XML read from any [`std::io::Read`] through a bounded buffer.
//!
//! The buffer holds a window of the document: the part of the token being read and what has
//! been read after it. [`XmlDecoder`] runs over the window as over a whole document, in its
//! partial mode: a token that runs into the end of the window (or an error that more input
//! could turn into a token, such as an unterminated comment) stops it between tokens, with
//! nothing borrowed from the window left in its state. The events of the window are copied
//! out, the bytes read are dropped, more are read, and the decoder goes on over the new window.
//! Tokens are read again only when a window ended inside them, and the window grows by at
//! least the unread part each time, so a long token is read a few times at most.
//!
//! The events, the errors and their byte offsets, lines and columns are those of
//! [`XmlDecoder`] over the whole document, with two exceptions: input that is not UTF-8 (or
//! holds a character XML does not allow) is reported when the decoder reaches its window,
//! after the events before it, rather than before the first event; and a single token longer
//! than [`Limits::max_string_len`] (plus [`SLACK`]) is refused with a limit error rather than
//! buffered. Documents in another encoding than UTF-8 are read whole and transcoded
//! ([`crate::to_utf8`]).

use std::collections::VecDeque;
use std::io::Read;

use binxml_core::{Decoder, Error, Event, Format, Limits, Result, error::line_col};

use crate::reader::XmlDecoder;

/// What a window is read ahead by, unless told otherwise ([`XmlReadDecoder::with_chunk_size`]).
pub const DEFAULT_CHUNK: usize = 256 << 10;

/// How far past [`Limits::max_string_len`] one token may reach (its markup around the string).
pub const SLACK: usize = 1 << 20;

/// A pull decoder of XML text read from `R` as it goes: the memory it holds is a window of
/// the document (about the chunk size, or the longest token) and the events of one window.
///
/// ```
/// use binxml_core::{Decoder, Event};
/// let doc = "<a x='1'><b>text</b></a>";
/// let mut dec = binxml_xml::XmlReadDecoder::new(doc.as_bytes()).with_chunk_size(3);
/// let mut n = 0;
/// while let Some(ev) = dec.next_event()? {
///     n += matches!(ev, Event::StartElement(_)) as usize;
/// }
/// assert_eq!(n, 2);
/// # Ok::<(), binxml_core::Error>(())
/// ```
pub struct XmlReadDecoder<R> {
    reader: R,
    /// The window: bytes of the document from `base` on, not yet read as tokens.
    buf: Vec<u8>,
    base: u64,
    /// Line and column of `buf[0]`.
    line_at: (u64, u64),
    /// The reader is exhausted: `buf` holds the rest of the document.
    eof: bool,
    /// The decoder between windows; `None` once the document or an error ended it.
    dec: Option<XmlDecoder<'static>>,
    /// Events of the windows read, with their offsets.
    queue: VecDeque<(u64, Event<'static>)>,
    last_offset: u64,
    chunk: usize,
    limits: Limits,
    started: bool,
    /// The error that ended the document, returned after the events before it.
    failed: Option<Error>,
}

impl<R: Read> XmlReadDecoder<R> {
    /// A decoder of the XML document `reader` gives, with the default [`Limits`].
    pub fn new(reader: R) -> Self {
        Self::with_limits(reader, Limits::default())
    }

    /// A decoder that refuses documents beyond `limits`, as [`XmlDecoder::with_limits`] does.
    pub fn with_limits(reader: R, limits: Limits) -> Self {
        XmlReadDecoder {
            reader,
            buf: Vec::new(),
            base: 0,
            line_at: (1, 1),
            eof: false,
            dec: Some(XmlDecoder::with_limits(&[], limits.clone()).detach()),
            queue: VecDeque::new(),
            last_offset: 0,
            chunk: DEFAULT_CHUNK,
            limits,
            started: false,
            failed: None,
        }
    }

    /// Reads ahead by at least `n` bytes (at least 1) at a time instead of [`DEFAULT_CHUNK`].
    pub fn with_chunk_size(mut self, n: usize) -> Self {
        self.chunk = n.max(1);
        self
    }

    /// Reads until the window holds `want` bytes or the reader is exhausted.
    fn read_to(&mut self, want: usize) -> Result<()> {
        while self.buf.len() < want && !self.eof {
            let have = self.buf.len();
            self.buf.resize(want, 0);
            match self.reader.read(&mut self.buf[have..]) {
                Ok(0) => {
                    self.buf.truncate(have);
                    self.eof = true;
                }
                Ok(n) => self.buf.truncate(have + n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => self.buf.truncate(have),
                Err(e) => {
                    self.buf.truncate(have);
                    return Err(Error::io(Format::Xml, e));
                }
            }
        }
        Ok(())
    }

    /// The first read: a document in another encoding is read whole and transcoded; a UTF-8
    /// byte-order mark is skipped.
    fn begin(&mut self) -> Result<()> {
        self.started = true;
        // Enough to tell the encoding: four bytes, and the XML declaration up to its '>' (the
        // encoding is looked for in its first 512 bytes).
        loop {
            let b = &self.buf;
            let body = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
            let known = b.len() >= 1024
                || (b.len() >= 4 && memchr::memchr(b'>', b).is_some())
                || (body.len() >= 5 && !body.starts_with(b"<?xml"));
            if known || self.eof {
                break;
            }
            let want = self.buf.len() + self.chunk;
            self.read_to(want)?;
        }
        if !crate::is_utf8_document(&self.buf) {
            self.reader
                .read_to_end(&mut self.buf)
                .map_err(|e| Error::io(Format::Xml, e))?;
            self.eof = true;
            self.buf = crate::to_utf8(&self.buf)?.into_owned();
        }
        if self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3);
            self.base = 3;
        }
        Ok(())
    }

    /// Decodes the current window into the queue, then drops what it read and reads more.
    fn fill(&mut self) -> Result<()> {
        if !self.started {
            self.begin()?;
        }
        while self.queue.is_empty() {
            if self.failed.is_some() {
                return Ok(());
            }
            let Some(prev) = self.dec.take() else {
                return Ok(());
            };
            let mut dec = XmlDecoder::attach(prev, &self.buf, self.base, self.line_at, !self.eof);
            let mut ended = false;
            loop {
                match dec.next_event() {
                    Ok(Some(ev)) => self.queue.push_back((dec.offset(), ev.into_owned())),
                    Ok(None) => {
                        ended = true;
                        break;
                    }
                    Err(_) if dec.needs_more() => break,
                    Err(e) => {
                        self.failed = Some(e);
                        return Ok(());
                    }
                }
            }
            if ended {
                return Ok(());
            }
            let used = dec.consumed();
            let state = dec.detach();
            let (l, c) = line_col(&self.buf, used);
            self.line_at = match (l, self.line_at) {
                (1, (l0, c0)) => (l0, c0 + c - 1),
                (l, (l0, _)) => (l0 + l - 1, c),
            };
            self.buf.drain(..used);
            self.base += used as u64;
            if self.buf.len() > self.limits.max_string_len.saturating_add(SLACK) {
                return Err(Error::limit(
                    Format::Xml,
                    self.base,
                    format!(
                        "a token longer than the string-length limit of {} bytes",
                        self.limits.max_string_len
                    ),
                ));
            }
            self.dec = Some(state);
            // At least a chunk more, and at least as much again as the unread part: a token
            // that spans windows is read again a logarithmic number of times.
            let want = self.buf.len() + self.chunk.max(self.buf.len());
            self.read_to(want)?;
        }
        Ok(())
    }
}

impl<R: Read> Decoder<'static> for XmlReadDecoder<R> {
    fn next_event(&mut self) -> Result<Option<Event<'static>>> {
        if self.queue.is_empty()
            && let Err(e) = self.fill()
        {
            self.dec = None;
            self.failed = Some(e);
        }
        match self.queue.pop_front() {
            Some((at, ev)) => {
                self.last_offset = at;
                Ok(Some(ev))
            }
            None => match self.failed.take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }

    fn offset(&self) -> u64 {
        self.last_offset
    }
}
