//! The TSF lexer: one lexical unit at a time (count or length, optional name, type character,
//! and for primitive units the data).

use std::borrow::Cow;

use binxml_core::{Error, Result};

pub(crate) const FORMAT: &str = "tsf";

/// What a lexical unit is, its type character resolved in its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum UnitKind {
    /// `<`: an XML element (structured; its first unit may be the attribute list).
    Element = 0,
    /// `=`: an XML attribute list, or the root message at top level (structured).
    Attributes = 1,
    /// `[` inside an attribute list: an attribute (its name and value).
    Attribute = 2,
    /// `[` in XML content: character data.
    Text = 3,
    /// `]`: a CDATA section.
    CData = 4,
    /// `+`: a comment.
    Comment = 5,
    /// `?`: a processing instruction (target, space, data).
    ProcessingInstruction = 6,
    /// `!`: the document type declaration's content.
    Doctype = 7,
    /// `&`: an unexpanded entity reference (its name).
    EntityRef = 8,
    /// `{`: a JSON object (structured; its units are named).
    Object = 9,
    /// `[` in JSON context: a JSON array (structured).
    Array = 10,
    /// `'`: a JSON string.
    String = 11,
    /// `#`: a JSON number (its exact text).
    Number = 12,
    /// `~`: a JSON literal: `true`, `false` or `null`.
    Literal = 13,
}

impl UnitKind {
    /// True for the structured kinds (a count of contained units, no data).
    #[inline]
    pub fn is_structured(self) -> bool {
        matches!(self, UnitKind::Element | UnitKind::Attributes | UnitKind::Object | UnitKind::Array)
    }

    /// The type character written for the kind.
    pub fn type_char(self) -> u8 {
        match self {
            UnitKind::Element => b'<',
            UnitKind::Attributes => b'=',
            UnitKind::Attribute | UnitKind::Text | UnitKind::Array => b'[',
            UnitKind::CData => b']',
            UnitKind::Comment => b'+',
            UnitKind::ProcessingInstruction => b'?',
            UnitKind::Doctype => b'!',
            UnitKind::EntityRef => b'&',
            UnitKind::Object => b'{',
            UnitKind::String => b'\'',
            UnitKind::Number => b'#',
            UnitKind::Literal => b'~',
        }
    }

    pub(crate) fn from_u8(v: u8) -> UnitKind {
        match v {
            0 => UnitKind::Element,
            1 => UnitKind::Attributes,
            2 => UnitKind::Attribute,
            3 => UnitKind::Text,
            4 => UnitKind::CData,
            5 => UnitKind::Comment,
            6 => UnitKind::ProcessingInstruction,
            7 => UnitKind::Doctype,
            8 => UnitKind::EntityRef,
            9 => UnitKind::Object,
            10 => UnitKind::Array,
            11 => UnitKind::String,
            12 => UnitKind::Number,
            _ => UnitKind::Literal,
        }
    }
}

/// Bytes that end a name: the type characters of the XML and JSON vocabularies.
pub(crate) static TYPE_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let chars = b"<=[]!+?&{'#~";
    let mut i = 0;
    while i < chars.len() {
        t[chars[i] as usize] = true;
        i += 1;
    }
    t
};

/// Kind of a type character in XML (`json == false`) or JSON context; `None` if unknown.
#[inline]
pub(crate) fn kind_of(c: u8, json: bool) -> Option<UnitKind> {
    Some(match c {
        b'<' => UnitKind::Element,
        b'=' => UnitKind::Attributes,
        b'[' => {
            if json {
                UnitKind::Array
            } else {
                UnitKind::Text
            }
        }
        b']' => UnitKind::CData,
        b'!' => UnitKind::Doctype,
        b'+' => UnitKind::Comment,
        b'?' => UnitKind::ProcessingInstruction,
        b'&' => UnitKind::EntityRef,
        b'{' => UnitKind::Object,
        b'\'' => UnitKind::String,
        b'#' => UnitKind::Number,
        b'~' => UnitKind::Literal,
        _ => return None,
    })
}

/// A unit's name as it appears in the input: `quoted` when it used the `"` form (the `"` itself
/// excluded from `raw`; `\` escapes still in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawName<'a> {
    pub raw: &'a str,
    pub quoted: bool,
}

impl<'a> RawName<'a> {
    pub const NONE: RawName<'static> = RawName { raw: "", quoted: false };

    /// The name with the `\` escapes of the `"` form removed (borrowed unless there were
    /// escapes).
    #[inline]
    pub fn get(&self) -> Cow<'a, str> {
        if !self.quoted || !self.raw.as_bytes().contains(&b'\\') {
            Cow::Borrowed(self.raw)
        } else {
            unescape(self.raw)
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty() && !self.quoted
    }
}

fn unescape(raw: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One lexical unit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unit<'a> {
    pub kind: UnitKind,
    pub name: RawName<'a>,
    /// Structured units: the count of contained units.
    pub count: usize,
    /// Primitive units: the data.
    pub value: &'a str,
    /// Byte offset of the unit's first digit.
    pub off: usize,
}

/// Reads units from a TSF buffer (already checked to be UTF-8).
#[derive(Clone)]
pub(crate) struct Lexer<'a> {
    pub input: &'a str,
    pub pos: usize,
    /// Primitive lengths count UTF-16 code units (the reference converter's files).
    pub utf16: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8], utf16: bool) -> Result<Self> {
        let input = match std::str::from_utf8(input) {
            Ok(s) => s,
            Err(e) => return Err(Error::malformed(FORMAT, e.valid_up_to() as u64, "invalid UTF-8")),
        };
        Ok(Lexer { input, pos: 0, utf16 })
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// Reads the number, name and type character of the next unit, and the data of a primitive
    /// unit. `json` selects the meaning of `[` (array, not text).
    #[inline]
    pub fn unit(&mut self, json: bool) -> Result<Unit<'a>> {
        let b = self.input.as_bytes();
        let off = self.pos;
        let mut p = off;
        // The number.
        let mut n: u64 = match b.get(p) {
            Some(&d @ b'0'..=b'9') => (d - b'0') as u64,
            Some(_) => return Err(Error::malformed(FORMAT, p as u64, "expected a count or length (a digit)")),
            None => return Err(Error::malformed(FORMAT, p as u64, "unexpected end of input: expected a unit")),
        };
        p += 1;
        while let Some(&d @ b'0'..=b'9') = b.get(p) {
            n = match n.checked_mul(10).and_then(|n| n.checked_add((d - b'0') as u64)) {
                Some(n) if n <= b.len() as u64 => n,
                _ => {
                    return Err(Error::malformed(
                        FORMAT,
                        off as u64,
                        "count or length larger than the whole input",
                    ));
                }
            };
            p += 1;
        }
        // The name, up to the type character.
        let name_start = p;
        let quoted = b.get(p) == Some(&b'"');
        if quoted {
            p += 1;
            loop {
                match b.get(p) {
                    Some(b'\\') => p += 2,
                    Some(&c) if TYPE_CHAR[c as usize] => break,
                    Some(_) => p += 1,
                    None => break,
                }
            }
        } else {
            while let Some(&c) = b.get(p) {
                if TYPE_CHAR[c as usize] {
                    break;
                }
                p += 1;
            }
        }
        let Some(&tc) = b.get(p) else {
            return Err(Error::malformed(FORMAT, name_start as u64, "missing type character (unit runs to the end of input)"));
        };
        let name = RawName { raw: &self.input[name_start + quoted as usize..p], quoted };
        let kind = kind_of(tc, json).expect("TYPE_CHAR and kind_of agree");
        p += 1;
        let n = n as usize;
        if kind.is_structured() {
            // Every unit takes at least two bytes.
            if n > (b.len() - p) / 2 {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    format!("count {n} larger than the units the remaining {} bytes can hold", b.len() - p),
                ));
            }
            self.pos = p;
            Ok(Unit { kind, name, count: n, value: "", off })
        } else {
            let end = if self.utf16 { self.utf16_end(p, n, off)? } else { p + n };
            if end > b.len() {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    format!("length {n} past the end of input ({} bytes left)", b.len() - p),
                ));
            }
            if !self.input.is_char_boundary(end) {
                return Err(Error::malformed(FORMAT, end as u64, "data ends inside a UTF-8 character"));
            }
            self.pos = end;
            Ok(Unit { kind, name, count: 0, value: &self.input[p..end], off })
        }
    }

    /// The end of `units` UTF-16 code units of text starting at `start`.
    fn utf16_end(&self, start: usize, units: usize, off: usize) -> Result<usize> {
        let b = self.input.as_bytes();
        // Fast path: all ASCII.
        let fast = start.saturating_add(units).min(b.len());
        if b[start..fast].is_ascii() {
            return Ok(start + units);
        }
        let mut p = start;
        let mut left = units;
        while left > 0 {
            let Some(&c) = b.get(p) else {
                return Err(Error::malformed(FORMAT, off as u64, format!("length {units} (UTF-16 units) past the end of input")));
            };
            let (len, u) = match c {
                0..=0x7f => (1, 1),
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                _ => (4, 2),
            };
            if u > left {
                return Err(Error::malformed(FORMAT, p as u64, "UTF-16 length ends inside a surrogate pair"));
            }
            left -= u;
            p += len;
        }
        Ok(p)
    }
}
