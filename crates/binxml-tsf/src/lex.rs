//! The TSF lexer: one lexical unit at a time (count or length, optional name, type character,
//! and for primitive units the data).

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Result};

pub(crate) const FORMAT: Format = Format::Tsf;

/// What a lexical unit is, its type character resolved in its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum UnitKind {
    /// `<`: an XML element (structured; its first unit may be the attribute list).
    Element = 0,
    /// `=`: an XML attribute list, or the root message at top level (structured).
    Attributes = 1,
    /// `{`: a JSON object (structured; its units are named).
    Object = 2,
    /// `[` in JSON context: a JSON array (structured).
    Array = 3,
    /// `[` inside an attribute list: an attribute (its name and value).
    Attribute = 4,
    /// `[` in XML content: character data.
    Text = 5,
    /// `]`: a CDATA section.
    CData = 6,
    /// `+`: a comment.
    Comment = 7,
    /// `?`: a processing instruction (target, space, data).
    ProcessingInstruction = 8,
    /// `!`: the document type declaration's content.
    Doctype = 9,
    /// `&`: an unexpanded entity reference (its name).
    EntityRef = 10,
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
        (self as u8) < 4
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
            2 => UnitKind::Object,
            3 => UnitKind::Array,
            4 => UnitKind::Attribute,
            5 => UnitKind::Text,
            6 => UnitKind::CData,
            7 => UnitKind::Comment,
            8 => UnitKind::ProcessingInstruction,
            9 => UnitKind::Doctype,
            10 => UnitKind::EntityRef,
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

const fn kind_table(json: bool) -> [Option<UnitKind>; 256] {
    let mut t = [None; 256];
    t[b'<' as usize] = Some(UnitKind::Element);
    t[b'=' as usize] = Some(UnitKind::Attributes);
    t[b'[' as usize] = Some(if json {
        UnitKind::Array
    } else {
        UnitKind::Text
    });
    t[b']' as usize] = Some(UnitKind::CData);
    t[b'!' as usize] = Some(UnitKind::Doctype);
    t[b'+' as usize] = Some(UnitKind::Comment);
    t[b'?' as usize] = Some(UnitKind::ProcessingInstruction);
    t[b'&' as usize] = Some(UnitKind::EntityRef);
    t[b'{' as usize] = Some(UnitKind::Object);
    t[b'\'' as usize] = Some(UnitKind::String);
    t[b'#' as usize] = Some(UnitKind::Number);
    t[b'~' as usize] = Some(UnitKind::Literal);
    t
}

/// Unit kind of each byte as a type character (`None` for name bytes), in XML context and in
/// JSON context (where `[` is an array).
pub(crate) static KIND_XML: [Option<UnitKind>; 256] = kind_table(false);
pub(crate) static KIND_JSON: [Option<UnitKind>; 256] = kind_table(true);

/// A unit's name as it appears in the input: `quoted` when it used the `"` form (the `"` itself
/// excluded from `raw`; `\` escapes still in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawName<'a> {
    /// The name's text as written.
    pub raw: &'a str,
    /// Whether the name used the `"` form.
    pub quoted: bool,
}

impl<'a> RawName<'a> {
    /// No name: empty and not quoted.
    pub const NONE: RawName<'static> = RawName {
        raw: "",
        quoted: false,
    };

    /// The name with the `\` escapes of the `"` form removed (borrowed unless there were
    /// escapes).
    #[inline]
    pub fn get(&self) -> Cow<'a, str> {
        if !self.quoted || memchr::memchr(b'\\', self.raw.as_bytes()).is_none() {
            Cow::Borrowed(self.raw)
        } else {
            unescape(self.raw)
        }
    }

    /// Whether there is no name at all (an empty `"` form is a name, the empty one).
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

#[cold]
#[inline(never)]
fn cold(msg: &'static str, at: usize) -> Error {
    Error::malformed(FORMAT, at as u64, msg)
}

#[cold]
#[inline(never)]
fn string_limit(n: usize, max: usize, off: usize) -> Error {
    Error::limit(
        FORMAT,
        off as u64,
        format!("a name or data of {n} bytes, longer than the limit of {max}"),
    )
}

#[cold]
#[inline(never)]
fn count_error(n: usize, left: usize, off: usize) -> Error {
    Error::malformed(
        FORMAT,
        off as u64,
        format!("count {n} larger than the units the remaining {left} bytes can hold"),
    )
}

#[cold]
#[inline(never)]
fn length_error(n: usize, left: usize, off: usize) -> Error {
    Error::malformed(
        FORMAT,
        off as u64,
        format!("length {n} past the end of input ({left} bytes left)"),
    )
}

/// A unit as offsets into the input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub kind: UnitKind,
    pub quoted: bool,
    pub name_start: usize,
    pub name_end: usize,
    /// Count (structured) or data length in bytes (primitive).
    pub n: usize,
    pub data_start: usize,
    /// The offset after the unit's header (structured) or data (primitive).
    pub end: usize,
    /// The unit's first digit.
    pub off: usize,
}

/// Reads units from a TSF buffer (already checked to be UTF-8).
#[derive(Clone)]
pub(crate) struct Lexer<'a> {
    pub input: &'a str,
    pub pos: usize,
    /// Primitive lengths count UTF-16 code units (the reference converter's files).
    pub utf16: bool,
    /// `Limits::max_string_len`: the longest name or data accepted.
    pub max_str: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8], utf16: bool) -> Result<Self> {
        let text = match std::str::from_utf8(input) {
            Ok(s) => s,
            Err(e) => {
                return Err(Error::malformed(
                    FORMAT,
                    e.valid_up_to() as u64,
                    "invalid UTF-8",
                ));
            }
        };
        Ok(Self::from_text(text, utf16))
    }

    /// A lexer over input already known to be UTF-8.
    pub fn from_text(input: &'a str, utf16: bool) -> Self {
        Lexer {
            input,
            pos: 0,
            utf16,
            max_str: usize::MAX,
        }
    }

    /// After the document's last unit at `pos`: only white space may follow (a text editor's or
    /// `echo`'s final newline).
    pub fn check_end(&self, pos: usize) -> Result<()> {
        match self.input.as_bytes()[pos..]
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            None => Ok(()),
            Some(i) => Err(Error::malformed(
                FORMAT,
                (pos + i) as u64,
                "data after the end of the document",
            )),
        }
    }

    /// Reads the number, name and type character of the next unit, and the data of a primitive
    /// unit. `json` selects the meaning of `[` (array, not text).
    #[inline(always)]
    pub fn unit(&mut self, json: bool) -> Result<Unit<'a>> {
        let r = self.raw(self.pos, json)?;
        self.pos = r.end;
        let s = self.input;
        // Boundaries: after ASCII digits / `"` / type characters, or checked by `raw`.
        Ok(Unit {
            kind: r.kind,
            name: RawName {
                raw: &s[r.name_start..r.name_end],
                quoted: r.quoted,
            },
            count: r.n,
            value: if r.kind.is_structured() {
                ""
            } else {
                &s[r.data_start..r.end]
            },
            off: r.off,
        })
    }

    /// Lexes the unit at `off` into offsets.
    #[inline(always)]
    pub fn raw(&self, off: usize, json: bool) -> Result<Raw> {
        let b = self.input.as_bytes();
        let table = if json { &KIND_JSON } else { &KIND_XML };
        let mut p = off;
        let mut n: u64 = match b.get(p) {
            Some(&d) if d.wrapping_sub(b'0') <= 9 => (d - b'0') as u64,
            Some(_) => return Err(cold("expected a count or length (a digit)", p)),
            None => return Err(cold("unexpected end of input: expected a unit", p)),
        };
        p += 1;
        while let Some(&d) = b.get(p) {
            let v = d.wrapping_sub(b'0');
            if v > 9 {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(v as u64);
            p += 1;
        }
        if p - off > 19 || n > b.len() as u64 {
            return Err(cold("count or length larger than the whole input", off));
        }
        // The name, up to the type character.
        let quoted = b.get(p) == Some(&b'"');
        let name_start = p + quoted as usize;
        let kind;
        if !quoted {
            let mut found = None;
            for (i, &c) in b[p..].iter().enumerate() {
                if let Some(k) = table[c as usize] {
                    found = Some((i, k));
                    break;
                }
            }
            match found {
                Some((i, k)) => {
                    p += i;
                    kind = k;
                }
                None => {
                    return Err(cold(
                        "missing type character (unit runs to the end of input)",
                        name_start,
                    ));
                }
            }
        } else {
            p += 1;
            loop {
                let Some(&c) = b.get(p) else {
                    return Err(cold(
                        "missing type character (unit runs to the end of input)",
                        name_start - 1,
                    ));
                };
                if c == b'\\' {
                    p += 2;
                    continue;
                }
                if let Some(t) = table[c as usize] {
                    kind = t;
                    break;
                }
                p += 1;
            }
        }
        let name_end = p;
        if name_end - name_start > self.max_str {
            return Err(string_limit(name_end - name_start, self.max_str, off));
        }
        p += 1;
        let n = n as usize;
        if kind.is_structured() {
            // Every unit takes at least two bytes.
            if n > (b.len() - p) / 2 {
                return Err(count_error(n, b.len() - p, off));
            }
            Ok(Raw {
                kind,
                quoted,
                name_start,
                name_end,
                n,
                data_start: p,
                end: p,
                off,
            })
        } else {
            if n > self.max_str {
                return Err(string_limit(n, self.max_str, off));
            }
            let end = if self.utf16 {
                self.utf16_end(p, n, off)?
            } else {
                p + n
            };
            if end > b.len() {
                return Err(length_error(n, b.len() - p, off));
            }
            // Not a UTF-8 continuation byte.
            if end < b.len() && (b[end] as i8) < -0x40 {
                return Err(cold("data ends inside a UTF-8 character", end));
            }
            Ok(Raw {
                kind,
                quoted,
                name_start,
                name_end,
                n,
                data_start: p,
                end,
                off,
            })
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
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    format!("length {units} (UTF-16 units) past the end of input"),
                ));
            };
            let (len, u) = match c {
                0..=0x7f => (1, 1),
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                _ => (4, 2),
            };
            if u > left {
                return Err(Error::malformed(
                    FORMAT,
                    p as u64,
                    "UTF-16 length ends inside a surrogate pair",
                ));
            }
            left -= u;
            p += len;
        }
        Ok(p)
    }
}
