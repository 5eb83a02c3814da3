//! The JSON reader: strict RFC 8259 JSON over a byte slice, as events (see [`crate::mapping`]).

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Decoder, Error, Event, Limits, Result, Typed};

use crate::mapping::{Content, JsonType, ValueEvents};

const FORMAT: Format = Format::Json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    /// A value is expected (root, array item, or member value after `:`).
    Value,
    /// Right after `{`: a key or `}`.
    ObjectFirst,
    /// Right after `[`: a value or `]`.
    ArrayFirst,
    /// After a value: `,` or the container's close, or the end of input at top level.
    AfterValue,
    Done,
}

/// A strict JSON reader producing binxml events. Strings without escapes and number texts are
/// borrowed from the input.
pub struct JsonDecoder<'a> {
    input: &'a [u8],
    pos: usize,
    /// `true` for an object, `false` for an array, one per open container.
    stack: Vec<bool>,
    state: State,
    pend: Option<Pend<'a>>,
    /// The member name for the value about to be read.
    key: Option<Cow<'a, str>>,
    last_offset: u64,
    limits: Limits,
    failed: bool,
}

impl<'a> JsonDecoder<'a> {
    /// A decoder of the JSON text in `input`, with the default [`Limits`].
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A decoder of the JSON text in `input` that refuses input beyond `limits` (nesting depth,
    /// string length in bytes) with an error.
    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        JsonDecoder {
            input,
            pos: 0,
            stack: Vec::new(),
            state: State::Start,
            pend: None,
            key: None,
            last_offset: 0,
            limits,
            failed: false,
        }
    }

    fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        let (l, c) = binxml_core::error::line_col(self.input, offset);
        Error::malformed(FORMAT, offset as u64, msg).with_line_col(l, c)
    }

    fn describe(&self, offset: usize) -> String {
        match self.input.get(offset) {
            None => "the end of input".to_string(),
            Some(&b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(&b) => format!("byte 0x{b:02x}"),
        }
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.input.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Starts a value's element: returns its StartElement and leaves the rest of its events
    /// (the root's namespace, `t`, `key`, content, EndElement) in `self.pend`.
    fn begin(&mut self, off: usize, ty: JsonType, content: Content<'a>) -> Event<'a> {
        let root = self.stack.is_empty();
        let (start, events) = ValueEvents::begin(self.key.take(), root, ty, content);
        self.pend = Some(Pend {
            events,
            off,
            end: self.pos,
        });
        self.last_offset = off as u64;
        start
    }

    /// Reads one value at `self.pos` (whitespace skipped); returns its StartElement.
    fn value(&mut self) -> Result<Event<'a>> {
        self.skip_ws();
        let off = self.pos;
        let Some(&b) = self.input.get(off) else {
            return Err(self.err(off, "expected a value, found the end of input"));
        };
        let (ty, content) = match b {
            b'{' | b'[' => {
                if self.stack.len() >= self.limits.max_depth {
                    return Err(Error::limit(
                        FORMAT,
                        off as u64,
                        format!(
                            "nesting deeper than {} arrays and objects",
                            self.limits.max_depth
                        ),
                    ));
                }
                let obj = b == b'{';
                self.pos += 1;
                let ev = self.begin(
                    off,
                    if obj {
                        JsonType::Object
                    } else {
                        JsonType::Array
                    },
                    Content::Open,
                );
                self.stack.push(obj);
                self.state = if obj {
                    State::ObjectFirst
                } else {
                    State::ArrayFirst
                };
                return Ok(ev);
            }
            b'"' => (JsonType::String, Content::Str(self.string()?)),
            b'-' | b'0'..=b'9' => (
                JsonType::Number,
                Content::Typed(Typed::Number(Cow::Borrowed(self.number()?))),
            ),
            b't' | b'f' | b'n' => {
                let (lit, ty, t): (&[u8], _, _) = match b {
                    b't' => (b"true", JsonType::Boolean, Typed::Bool(true)),
                    b'f' => (b"false", JsonType::Boolean, Typed::Bool(false)),
                    _ => (b"null", JsonType::Null, Typed::Null),
                };
                if !self.input[off..].starts_with(lit) {
                    return Err(self.err(
                        off,
                        format!(
                            "invalid literal (expected `{}`)",
                            std::str::from_utf8(lit).unwrap()
                        ),
                    ));
                }
                self.pos += lit.len();
                (ty, Content::Typed(t))
            }
            _ => {
                return Err(self.err(
                    off,
                    format!("expected a value, found {}", self.describe(off)),
                ));
            }
        };
        self.state = State::AfterValue;
        Ok(self.begin(off, ty, content))
    }

    /// Reads a number; returns its exact text.
    fn number(&mut self) -> Result<&'a str> {
        let input = self.input;
        let start = self.pos;
        let mut p = start;
        if input.get(p) == Some(&b'-') {
            p += 1;
        }
        match input.get(p) {
            Some(b'0') => p += 1,
            Some(b'1'..=b'9') => {
                while matches!(input.get(p), Some(b'0'..=b'9')) {
                    p += 1;
                }
            }
            _ => {
                return Err(self.err(
                    p,
                    format!(
                        "invalid number: expected a digit, found {}",
                        self.describe(p)
                    ),
                ));
            }
        }
        if input.get(p) == Some(&b'.') {
            p += 1;
            if !matches!(input.get(p), Some(b'0'..=b'9')) {
                return Err(self.err(
                    p,
                    format!(
                        "invalid number: expected a digit after '.', found {}",
                        self.describe(p)
                    ),
                ));
            }
            while matches!(input.get(p), Some(b'0'..=b'9')) {
                p += 1;
            }
        }
        if matches!(input.get(p), Some(b'e' | b'E')) {
            p += 1;
            if matches!(input.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if !matches!(input.get(p), Some(b'0'..=b'9')) {
                return Err(self.err(
                    p,
                    format!(
                        "invalid number: expected an exponent digit, found {}",
                        self.describe(p)
                    ),
                ));
            }
            while matches!(input.get(p), Some(b'0'..=b'9')) {
                p += 1;
            }
        }
        if p - start > self.limits.max_string_len {
            return Err(Error::limit(
                FORMAT,
                start as u64,
                "number longer than the string limit",
            ));
        }
        self.pos = p;
        // ASCII only.
        Ok(std::str::from_utf8(&input[start..p]).unwrap())
    }

    /// Reads a string starting at the `"` at `self.pos`; borrowed when it has no escapes.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let input = self.input;
        let open = self.pos;
        let mut p = open + 1;
        let mut owned: Option<String> = None;
        loop {
            let Some(rel) = memchr::memchr2(b'"', b'\\', &input[p..]) else {
                return Err(self.err(open, "unterminated string"));
            };
            let seg_end = p + rel;
            let seg = &input[p..seg_end];
            if let Some(i) = seg.iter().position(|&b| b < 0x20) {
                return Err(self.err(
                    p + i,
                    format!("unescaped control character 0x{:02x} in a string", seg[i]),
                ));
            }
            let seg_str = match std::str::from_utf8(seg) {
                Ok(s) => s,
                Err(e) => return Err(self.err(p + e.valid_up_to(), "invalid UTF-8 in a string")),
            };
            if seg_end - open > self.limits.max_string_len {
                return Err(Error::limit(
                    FORMAT,
                    open as u64,
                    "string longer than the limit",
                ));
            }
            if input[seg_end] == b'"' {
                self.pos = seg_end + 1;
                return Ok(match owned {
                    None => Cow::Borrowed(seg_str),
                    Some(mut s) => {
                        s.push_str(seg_str);
                        Cow::Owned(s)
                    }
                });
            }
            // An escape.
            let s = owned.get_or_insert_with(String::new);
            s.push_str(seg_str);
            let esc = seg_end;
            let c = match input.get(esc + 1) {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    let hi = self.hex4(esc + 2)?;
                    let mut adv = 6;
                    let cp = if (0xD800..0xDC00).contains(&hi) {
                        if input.get(esc + 6) != Some(&b'\\') || input.get(esc + 7) != Some(&b'u') {
                            return Err(self.err(esc, "unpaired high surrogate in a \\u escape"));
                        }
                        let lo = self.hex4(esc + 8)?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return Err(self.err(
                                esc + 6,
                                "a high surrogate must be followed by a low surrogate",
                            ));
                        }
                        adv = 12;
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    } else if (0xDC00..0xE000).contains(&hi) {
                        return Err(self.err(esc, "unpaired low surrogate in a \\u escape"));
                    } else {
                        hi
                    };
                    s.push(char::from_u32(cp).unwrap());
                    p = esc + adv;
                    continue;
                }
                None => return Err(self.err(esc, "unterminated string")),
                Some(_) => {
                    return Err(
                        self.err(esc, format!("invalid escape \\{}", self.describe(esc + 1)))
                    );
                }
            };
            s.push(c);
            p = esc + 2;
        }
    }

    fn hex4(&self, at: usize) -> Result<u32> {
        let mut v = 0u32;
        for i in 0..4 {
            let d = match self.input.get(at + i) {
                Some(&b @ b'0'..=b'9') => b - b'0',
                Some(&b @ b'a'..=b'f') => b - b'a' + 10,
                Some(&b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.err(at + i, "invalid \\u escape: expected four hex digits")),
            };
            v = v * 16 + d as u32;
        }
        Ok(v)
    }

    /// Reads `"key" :` and sets the key for the next value.
    fn member_key(&mut self) -> Result<()> {
        self.skip_ws();
        if self.input.get(self.pos) != Some(&b'"') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected a member name string, found {}",
                    self.describe(self.pos)
                ),
            ));
        }
        let k = self.string()?;
        self.skip_ws();
        if self.input.get(self.pos) != Some(&b':') {
            return Err(self.err(
                self.pos,
                format!(
                    "expected ':' after a member name, found {}",
                    self.describe(self.pos)
                ),
            ));
        }
        self.pos += 1;
        self.key = Some(k);
        self.state = State::Value;
        Ok(())
    }

    fn close(&mut self) -> Event<'a> {
        self.stack.pop();
        self.last_offset = self.pos as u64;
        self.pos += 1;
        self.state = State::AfterValue;
        Event::EndElement
    }

    /// Advances the parser to its next event.
    fn step(&mut self) -> Result<Event<'a>> {
        Ok(match self.state {
            State::Start => {
                if self.input.starts_with(b"\xEF\xBB\xBF") {
                    self.pos = 3;
                }
                self.state = State::Value;
                self.last_offset = 0;
                Event::start_document()
            }
            State::Value => self.value()?,
            State::ObjectFirst => {
                self.skip_ws();
                if self.input.get(self.pos) == Some(&b'}') {
                    self.close()
                } else {
                    self.member_key()?;
                    self.value()?
                }
            }
            State::ArrayFirst => {
                self.skip_ws();
                if self.input.get(self.pos) == Some(&b']') {
                    self.close()
                } else {
                    self.value()?
                }
            }
            State::AfterValue => {
                self.skip_ws();
                let p = self.pos;
                match self.stack.last() {
                    None => {
                        if p != self.input.len() {
                            return Err(self.err(
                                p,
                                format!("unexpected {} after the JSON value", self.describe(p)),
                            ));
                        }
                        self.state = State::Done;
                        self.last_offset = p as u64;
                        Event::EndDocument
                    }
                    Some(&obj) => match self.input.get(p) {
                        Some(b',') => {
                            self.pos += 1;
                            if obj {
                                self.member_key()?;
                            }
                            self.value()?
                        }
                        Some(b'}') if obj => self.close(),
                        Some(b']') if !obj => self.close(),
                        _ => {
                            let want = if obj { "',' or '}'" } else { "',' or ']'" };
                            return Err(
                                self.err(p, format!("expected {want}, found {}", self.describe(p)))
                            );
                        }
                    },
                }
            }
            State::Done => unreachable!("step after the end"),
        })
    }
}

/// The events of a value after its StartElement, and their offsets: the value's start, and
/// for a scalar's EndElement the end of its text.
struct Pend<'a> {
    events: ValueEvents<'a>,
    off: usize,
    end: usize,
}

impl<'a> Decoder<'a> for JsonDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(p) = &mut self.pend {
            if let Some(ev) = p.events.next() {
                let off = if matches!(ev, Event::EndElement) {
                    p.end
                } else {
                    p.off
                };
                self.last_offset = off as u64;
                return Ok(Some(ev));
            }
            self.pend = None;
        }
        if self.state == State::Done || self.failed {
            return Ok(None);
        }
        match self.step() {
            Ok(ev) => Ok(Some(ev)),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    fn offset(&self) -> u64 {
        self.last_offset
    }
}

/// Reads a whole JSON document into events (owned).
pub fn decode(input: &[u8]) -> Result<Vec<Event<'static>>> {
    let mut d = JsonDecoder::new(input);
    let mut v = Vec::new();
    while let Some(ev) = d.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}
