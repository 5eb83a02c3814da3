//! The Fast Infoset decoder, over a byte slice ([`FiDecoder`], borrowing strings from it) or a
//! reader ([`FiReadDecoder`], owned strings, memory bounded by the vocabulary).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;

use binxml_core::{
    Decoder, DocType, Error, Event, EventSink, Limits, QName, Result, Typed, XML_NS,
};

use crate::FORMAT;
use crate::algo;
use crate::vocab::Vocabularies;

// ---------------------------------------------------------------------------------------------
// Input sources

/// Where the decoder's octets come from.
pub(crate) trait Src<'a> {
    /// Offset of the next octet.
    fn pos(&self) -> u64;
    fn byte(&mut self) -> Result<u8>;
    /// `n` octets; errors (without allocating) when fewer are left.
    fn bytes(&mut self, n: usize) -> Result<Cow<'a, [u8]>>;
    /// Up to `n` octets from the current position, without consuming them.
    fn peek(&mut self, n: usize) -> Result<&[u8]>;
    fn skip(&mut self, n: usize);
    fn at_end(&mut self) -> Result<bool>;
}

/// True when the (short) slice is all ASCII; word at a time, no call.
#[inline(always)]
fn is_ascii_short(b: &[u8]) -> bool {
    let mut acc = 0u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        acc |= u64::from_ne_bytes(c.try_into().unwrap());
    }
    for &x in chunks.remainder() {
        acc |= x as u64;
    }
    acc & 0x8080_8080_8080_8080 == 0
}

#[cold]
#[inline(never)]
fn eof(pos: u64) -> Error {
    Error::malformed(FORMAT, pos, "unexpected end of input")
}

#[cold]
#[inline(never)]
fn past_end(pos: usize, n: usize, left: usize) -> Error {
    Error::malformed(
        FORMAT,
        pos as u64,
        format!("length {n} runs past the end of the input ({left} octets left)"),
    )
}

pub(crate) struct SliceSrc<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Src<'a> for SliceSrc<'a> {
    #[inline(always)]
    fn pos(&self) -> u64 {
        self.pos as u64
    }
    #[inline(always)]
    fn byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(eof(self.pos as u64)),
        }
    }
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Result<Cow<'a, [u8]>> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(Cow::Borrowed(s))
            }
            None => Err(past_end(self.pos, n, self.data.len() - self.pos)),
        }
    }
    fn peek(&mut self, n: usize) -> Result<&[u8]> {
        let end = (self.pos + n).min(self.data.len());
        Ok(&self.data[self.pos..end])
    }
    fn skip(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.pos >= self.data.len())
    }
}

pub(crate) struct ReadSrc<R: Read> {
    r: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    consumed: u64,
    eof: bool,
}

const READ_CHUNK: usize = 64 * 1024;

impl<R: Read> ReadSrc<R> {
    /// Makes at least `n` octets available if the input has them; returns how many are.
    fn fill(&mut self, n: usize) -> Result<usize> {
        while self.end - self.start < n && !self.eof {
            if self.start > 0 && (self.start == self.end || self.buf.len() - self.end < READ_CHUNK)
            {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.buf.len() - self.end < READ_CHUNK {
                self.buf.resize(self.end + READ_CHUNK, 0);
            }
            let got = loop {
                match self.r.read(&mut self.buf[self.end..]) {
                    Ok(g) => break g,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(FORMAT, e).at(self.consumed)),
                }
            };
            if got == 0 {
                self.eof = true;
            }
            self.end += got;
        }
        Ok(self.end - self.start)
    }
}

impl<R: Read> Src<'static> for ReadSrc<R> {
    fn pos(&self) -> u64 {
        self.consumed
    }
    #[inline]
    fn byte(&mut self) -> Result<u8> {
        if self.start == self.end && self.fill(1)? == 0 {
            return Err(eof(self.consumed));
        }
        let b = self.buf[self.start];
        self.start += 1;
        self.consumed += 1;
        Ok(b)
    }
    fn bytes(&mut self, n: usize) -> Result<Cow<'static, [u8]>> {
        // read in steps so that a huge claimed length costs no more memory than the input has
        let mut out = Vec::with_capacity(n.min(READ_CHUNK));
        while out.len() < n {
            let want = (n - out.len()).min(READ_CHUNK);
            let have = self.fill(want)?;
            if have == 0 {
                return Err(Error::malformed(
                    FORMAT,
                    self.consumed,
                    format!("length {n} runs past the end of the input"),
                ));
            }
            let take = have.min(want);
            out.extend_from_slice(&self.buf[self.start..self.start + take]);
            self.start += take;
            self.consumed += take as u64;
        }
        Ok(Cow::Owned(out))
    }
    fn peek(&mut self, n: usize) -> Result<&[u8]> {
        let have = self.fill(n)?;
        Ok(&self.buf[self.start..self.start + have.min(n)])
    }
    fn skip(&mut self, n: usize) {
        let k = n.min(self.end - self.start);
        self.start += k;
        self.consumed += k as u64;
    }
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.fill(1)? == 0)
    }
}

// ---------------------------------------------------------------------------------------------
// The decoder proper

/// A non-identifying string as decoded.
enum NiStr<'a> {
    Str(Cow<'a, str>),
    Typed(Typed<'a>),
    Cdata(Cow<'a, str>),
}

#[derive(PartialEq, Clone, Copy)]
enum Phase {
    Header,
    Body,
    Done,
}

#[derive(Clone, Copy)]
enum StrTab {
    Prefix,
    Namespace,
    Local,
    OtherNcname,
    OtherUri,
    AttrValue,
    Chunk,
    OtherString,
}

const TABLE_NAMES: [&str; 8] = [
    "prefix",
    "namespace-name",
    "local-name",
    "other-NCName",
    "other-URI",
    "attribute-value",
    "content-character-chunk",
    "other-string",
];

/// An entry of a name-surrogate table. Names whose parts are all borrowed (the common case)
/// are kept as plain slices, so that handing one out copies three slices and branches once.
enum NameSlot<'a> {
    Borrowed {
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
    },
    Owned(QName<'a>),
}

impl<'a> NameSlot<'a> {
    fn new(q: QName<'a>) -> Self {
        match q {
            QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            } => NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            },
            q => NameSlot::Owned(q),
        }
    }
}

struct Tables<'a> {
    strs: [Vec<Cow<'a, str>>; 8],
    elements: Vec<NameSlot<'a>>,
    attributes: Vec<NameSlot<'a>>,
    alphabets: Vec<Vec<char>>,
    algorithms: Vec<String>,
}

impl<'a> Tables<'a> {
    fn new() -> Self {
        let mut t = Tables {
            strs: Default::default(),
            elements: Vec::new(),
            attributes: Vec::new(),
            alphabets: Vec::new(),
            algorithms: Vec::new(),
        };
        t.strs[StrTab::Prefix as usize].push(Cow::Borrowed("xml"));
        t.strs[StrTab::Namespace as usize].push(Cow::Borrowed(XML_NS));
        t
    }
}

pub(crate) struct Core<'a, S: Src<'a>> {
    src: S,
    t: Tables<'a>,
    limits: Limits,
    /// bytes of strings taken from the tables by index, against `budget`
    expanded: usize,
    budget: usize,
    phase: Phase,
    depth: usize,
    /// pending terminators (the second half of a double terminator)
    terms: u8,
    in_attrs: bool,
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    ns_pos: usize,
    queue: VecDeque<Event<'a>>,
    decls: Vec<Event<'a>>,
    doctype_seen: bool,
    root_seen: bool,
    last: u64,
    shared_vocabs: Option<Arc<Vocabularies>>,
    borrowed_vocabs: Option<&'a Vocabularies>,
    alphabet_cache: [Vec<char>; 2],
    /// Something other than the next body item is due: queued events, namespace attributes,
    /// a pending terminator, the header, or the end. Kept by [`Core::refresh`].
    slow: bool,
}

impl<'a, S: Src<'a>> Core<'a, S> {
    #[inline]
    fn refresh(&mut self) {
        self.slow = !self.queue.is_empty()
            || self.ns_pos < self.ns.len()
            || self.terms > 0
            || self.phase != Phase::Body;
    }

    fn new(src: S, limits: Limits, budget: usize) -> Self {
        Core {
            src,
            t: Tables::new(),
            limits,
            expanded: 0,
            budget,
            phase: Phase::Header,
            depth: 0,
            terms: 0,
            in_attrs: false,
            ns: Vec::new(),
            ns_pos: 0,
            queue: VecDeque::new(),
            decls: Vec::new(),
            doctype_seen: false,
            root_seen: false,
            last: 0,
            shared_vocabs: None,
            borrowed_vocabs: None,
            alphabet_cache: [Vec::new(), Vec::new()],
            slow: true,
        }
    }

    #[cold]
    #[inline(never)]
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::malformed(FORMAT, self.src.pos().saturating_sub(1), msg)
    }

    #[cold]
    #[inline(never)]
    fn err_at(&self, at: u64, msg: impl Into<String>) -> Error {
        Error::malformed(FORMAT, at, msg)
    }

    // ---- integers and lengths ----

    /// Integer starting on the 2nd bit (C.25/C.26), first octet `b`.
    #[inline(always)]
    fn int_2nd(&mut self, b: u8) -> Result<u32> {
        if b & 0x40 == 0 {
            Ok((b & 0x3F) as u32 + 1)
        } else if b & 0x20 == 0 {
            Ok((((b & 0x1F) as u32) << 8 | self.src.byte()? as u32) + 65)
        } else if b & 0x10 == 0 {
            let b2 = self.src.byte()? as u32;
            let b3 = self.src.byte()? as u32;
            Ok((((b & 0x0F) as u32) << 16 | b2 << 8 | b3) + 8257)
        } else {
            Err(self.err(format!("bad integer octet {b:#04x}")))
        }
    }

    /// Integer starting on the 3rd bit (C.27); the caller has excluded the literal forms.
    #[inline(always)]
    fn int_3rd(&mut self, b: u8) -> Result<u32> {
        if b & 0x20 == 0 {
            return Ok((b & 0x1F) as u32 + 1);
        }
        match b & 0x38 {
            0x00 | 0x08 | 0x10 | 0x18 => Ok((b & 0x1F) as u32 + 1),
            0x20 => Ok((((b & 0x07) as u32) << 8 | self.src.byte()? as u32) + 33),
            0x28 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                Ok((((b & 0x07) as u32) << 16 | b2 << 8 | b3) + 2081)
            }
            0x30 if b & 0x04 == 0 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                let b4 = self.src.byte()? as u32;
                let v = ((b2 & 0x0F) << 16 | b3 << 8 | b4) + 526_369;
                if v > 1 << 20 {
                    return Err(self.err("index past 2^20"));
                }
                Ok(v)
            }
            _ => Err(self.err(format!("bad qualified-name octet {b:#04x}"))),
        }
    }

    /// Integer starting on the 4th bit (C.28).
    #[inline(always)]
    fn int_4th(&mut self, b: u8) -> Result<u32> {
        if b & 0x10 == 0 {
            return Ok((b & 0x0F) as u32 + 1);
        }
        match b & 0x1C {
            0x00 | 0x04 | 0x08 | 0x0C => Ok((b & 0x0F) as u32 + 1),
            0x10 => Ok((((b & 0x03) as u32) << 8 | self.src.byte()? as u32) + 17),
            0x14 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                Ok((((b & 0x03) as u32) << 16 | b2 << 8 | b3) + 1041)
            }
            0x18 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                let b4 = self.src.byte()? as u32;
                let v = ((b2 & 0x0F) << 16 | b3 << 8 | b4) + 263_185;
                if v > 1 << 20 {
                    return Err(self.err("index past 2^20"));
                }
                Ok(v)
            }
            _ => Err(self.err(format!("bad index octet {b:#04x}"))),
        }
    }

    fn u32_len(&mut self) -> Result<usize> {
        let mut v = 0u32;
        for _ in 0..4 {
            v = v << 8 | self.src.byte()? as u32;
        }
        Ok(v as usize)
    }

    /// Length starting on the 2nd bit (C.22).
    #[inline(always)]
    fn len_2nd(&mut self, b: u8) -> Result<usize> {
        if b & 0x40 == 0 {
            Ok((b & 0x3F) as usize + 1)
        } else if b & 0x7F == 0x40 {
            Ok(self.src.byte()? as usize + 65)
        } else if b & 0x7F == 0x60 {
            Ok(self.u32_len()? + 321)
        } else {
            Err(self.err(format!("bad length octet {b:#04x}")))
        }
    }

    /// Length starting on the 5th bit (C.23).
    #[inline(always)]
    fn len_5th(&mut self, b: u8) -> Result<usize> {
        if b & 0x08 == 0 {
            Ok((b & 0x07) as usize + 1)
        } else if b & 0x0F == 0x08 {
            Ok(self.src.byte()? as usize + 9)
        } else if b & 0x0F == 0x0C {
            Ok(self.u32_len()? + 265)
        } else {
            Err(self.err(format!("bad length octet {b:#04x}")))
        }
    }

    /// Length starting on the 7th bit (C.24).
    #[inline(always)]
    fn len_7th(&mut self, b: u8) -> Result<usize> {
        if b & 0x02 == 0 {
            Ok((b & 0x01) as usize + 1)
        } else if b & 0x01 == 0 {
            Ok(self.src.byte()? as usize + 3)
        } else {
            Ok(self.u32_len()? + 259)
        }
    }

    // ---- strings ----

    #[inline(always)]
    fn octets(&mut self, len: usize) -> Result<Cow<'a, [u8]>> {
        if len > self.limits.max_string_len {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                format!("string of {len} octets exceeds the limit"),
            ));
        }
        self.src.bytes(len)
    }

    #[inline(always)]
    fn utf8(&mut self, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        match self.octets(len)? {
            Cow::Borrowed(b) if b.len() <= 32 && is_ascii_short(b) => {
                // SAFETY: every octet is below 0x80, so the slice is ASCII and valid UTF-8.
                Ok(Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }))
            }
            Cow::Borrowed(b) => match std::str::from_utf8(b) {
                Ok(s) => Ok(Cow::Borrowed(s)),
                Err(e) => Err(self.err_at(at + e.valid_up_to() as u64, "invalid UTF-8")),
            },
            Cow::Owned(v) => match String::from_utf8(v) {
                Ok(s) => Ok(Cow::Owned(s)),
                Err(e) => {
                    Err(self.err_at(at + e.utf8_error().valid_up_to() as u64, "invalid UTF-8"))
                }
            },
        }
    }

    fn utf16(&mut self, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        let b = self.octets(len)?;
        if b.len() % 2 != 0 {
            return Err(self.err_at(at, "UTF-16 string of an odd number of octets"));
        }
        let units = b.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]));
        let mut s = String::with_capacity(b.len() / 2);
        for c in char::decode_utf16(units) {
            match c {
                Ok(c) => s.push(c),
                Err(_) => return Err(self.err_at(at, "unpaired surrogate in a UTF-16 string")),
            }
        }
        Ok(Cow::Owned(s))
    }

    #[inline(always)]
    fn table_get(&mut self, tab: StrTab, i: u32) -> Result<Cow<'a, str>> {
        let t = &self.t.strs[tab as usize];
        match t.get(i as usize - 1) {
            Some(s) => {
                let s = s.clone();
                self.charge(s.len())?;
                Ok(s)
            }
            None => Err(self.err(format!(
                "index {i} past the end of the {} table ({} entries)",
                TABLE_NAMES[tab as usize],
                t.len()
            ))),
        }
    }

    #[inline(always)]
    fn charge(&mut self, n: usize) -> Result<()> {
        self.expanded += n;
        if self.expanded > self.budget {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                "decoded data exceeds the expansion budget",
            ));
        }
        Ok(())
    }

    #[inline(always)]
    fn table_add(&mut self, tab: StrTab, s: Cow<'a, str>) -> Result<()> {
        let t = &mut self.t.strs[tab as usize];
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                format!("the {} table is full", TABLE_NAMES[tab as usize]),
            ));
        }
        t.push(s);
        Ok(())
    }

    /// Identifying string or index on the first bit (C.13).
    #[inline(always)]
    fn ident(&mut self, tab: StrTab) -> Result<Cow<'a, str>> {
        let b = self.src.byte()?;
        if b & 0x80 != 0 {
            let i = self.int_2nd(b)?;
            self.table_get(tab, i)
        } else {
            let len = self.len_2nd(b)?;
            let s = self.utf8(len)?;
            self.table_add(tab, s.clone())?;
            Ok(s)
        }
    }

    /// A non-empty octet string on the 2nd bit (C.22), first bit padding.
    fn octet_string_2nd(&mut self) -> Result<Cow<'a, str>> {
        let b = self.src.byte()?;
        if b & 0x80 != 0 {
            return Err(self.err("padding bit set"));
        }
        let len = self.len_2nd(b)?;
        self.utf8(len)
    }

    fn alphabet(&mut self, wire: u8) -> Result<&[char]> {
        if wire < 2 {
            let c = &mut self.alphabet_cache[wire as usize];
            if c.is_empty() {
                let a = if wire == 0 {
                    algo::NUMERIC
                } else {
                    algo::DATE_TIME
                };
                *c = a.chars().collect();
            }
            Ok(&self.alphabet_cache[wire as usize])
        } else if wire >= algo::APPLICATION_START {
            match self
                .t
                .alphabets
                .get((wire - algo::APPLICATION_START) as usize)
            {
                Some(a) => Ok(a),
                None => Err(self.err(format!(
                    "restricted alphabet {} is not in the vocabulary",
                    wire as u32 + 1
                ))),
            }
        } else {
            Err(self.err(format!(
                "restricted alphabet {} is reserved",
                wire as u32 + 1
            )))
        }
    }

    fn alphabet_string(&mut self, wire: u8, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        let data = self.octets(len)?;
        let a = self.alphabet(wire)?;
        match algo::alphabet_decode(a, &data) {
            Some(s) => Ok(Cow::Owned(s)),
            None => Err(self.err_at(at, "malformed restricted-alphabet string")),
        }
    }

    fn algorithm_data(&mut self, wire: u8, len: usize) -> Result<NiStr<'a>> {
        let at = self.src.pos();
        if wire == algo::CDATA {
            return Ok(NiStr::Cdata(self.utf8(len)?));
        }
        if wire > algo::CDATA {
            let what = if wire >= algo::APPLICATION_START {
                match self
                    .t
                    .algorithms
                    .get((wire - algo::APPLICATION_START) as usize)
                {
                    Some(uri) => format!(
                        "application encoding algorithm {} ({uri}) is not supported",
                        wire as u32 + 1
                    ),
                    None => format!(
                        "encoding algorithm {} is not in the vocabulary",
                        wire as u32 + 1
                    ),
                }
            } else {
                format!("encoding algorithm {} is reserved", wire as u32 + 1)
            };
            return Err(self.err_at(at, what));
        }
        let data = self.octets(len)?;
        match algo::decode_builtin(wire, data) {
            Ok(t) => Ok(NiStr::Typed(t)),
            Err(m) => Err(self.err_at(at, m)),
        }
    }

    /// Non-identifying string on the first bit (C.14).
    #[inline]
    fn nistring(&mut self, tab: StrTab) -> Result<NiStr<'a>> {
        let b = self.src.byte()?;
        self.nistring_b(b, tab)
    }

    /// [`Core::nistring`] after its first octet `b`.
    fn nistring_b(&mut self, b: u8, tab: StrTab) -> Result<NiStr<'a>> {
        if b & 0x80 != 0 {
            if b == 0xFF {
                return Ok(NiStr::Str(Cow::Borrowed("")));
            }
            let i = self.int_2nd(b)?;
            return Ok(NiStr::Str(self.table_get(tab, i)?));
        }
        let add = b & 0x40 != 0;
        let v = match (b >> 4) & 3 {
            0 => {
                let len = self.len_5th(b)?;
                NiStr::Str(self.utf8(len)?)
            }
            1 => {
                let len = self.len_5th(b)?;
                NiStr::Str(self.utf16(len)?)
            }
            k => {
                let b2 = self.src.byte()?;
                let wire = (b & 0x0F) << 4 | b2 >> 4;
                let len = self.len_5th(b2)?;
                if k == 2 {
                    NiStr::Str(self.alphabet_string(wire, len)?)
                } else {
                    self.algorithm_data(wire, len)?
                }
            }
        };
        if add {
            let s = match &v {
                NiStr::Str(s) | NiStr::Cdata(s) => s.clone(),
                NiStr::Typed(t) => Cow::Owned(t.lexical()),
            };
            self.table_add(tab, s)?;
        }
        Ok(v)
    }

    #[inline(always)]
    fn nistring_text(&mut self, tab: StrTab) -> Result<Cow<'a, str>> {
        Ok(match self.nistring(tab)? {
            NiStr::Str(s) | NiStr::Cdata(s) => s,
            NiStr::Typed(t) => Cow::Owned(t.lexical()),
        })
    }

    // ---- header ----

    fn header(&mut self) -> Result<Event<'a>> {
        let mut decl_version = None;
        let mut decl_standalone = None;
        let head = self.src.peek(4)?;
        if head.starts_with(b"<?xm") {
            let text = self.src.peek(80)?.to_vec();
            let Some(end) = text.windows(2).position(|w| w == b"?>") else {
                return Err(Error::malformed(FORMAT, 0, "unterminated XML declaration"));
            };
            let decl = std::str::from_utf8(&text[..end + 2])
                .map_err(|_| Error::malformed(FORMAT, 0, "bad XML declaration"))?;
            let attr = |name: &str| -> Option<String> {
                let i = decl.find(name)?;
                let rest = decl[i + name.len()..]
                    .trim_start()
                    .strip_prefix('=')?
                    .trim_start();
                let q = rest.chars().next()?;
                if q != '\'' && q != '"' {
                    return None;
                }
                let rest = &rest[1..];
                Some(rest[..rest.find(q)?].to_string())
            };
            if !decl.starts_with("<?xml ") || attr("encoding").as_deref() != Some("finf") {
                return Err(Error::malformed(
                    FORMAT,
                    0,
                    "not a Fast Infoset document: XML declaration without encoding='finf'",
                ));
            }
            decl_version = attr("version");
            decl_standalone = attr("standalone").map(|s| s == "yes");
            self.src.skip(end + 2);
        }
        let at = self.src.pos();
        let mut magic = [0u8; 4];
        for m in &mut magic {
            *m = self.src.byte().map_err(|_| {
                Error::malformed(FORMAT, at, "not a Fast Infoset document: too short")
            })?;
        }
        if magic[..2] != [0xE0, 0x00] {
            return Err(Error::malformed(
                FORMAT,
                at,
                "not a Fast Infoset document: bad identification octets",
            ));
        }
        if magic[2..] != [0x00, 0x01] {
            return Err(Error::malformed(
                FORMAT,
                at + 2,
                format!(
                    "unsupported Fast Infoset version {}",
                    u16::from_be_bytes([magic[2], magic[3]])
                ),
            ));
        }
        let flags = self.src.byte()?;
        if flags & 0x80 != 0 {
            return Err(self.err("padding bit set in the document header"));
        }
        if flags & 0x40 != 0 {
            // additional data: skipped
            let n = self.seq_len()?;
            for _ in 0..n {
                self.octet_string_2nd()?;
                let b = self.src.byte()?;
                let len = self.len_2nd(b & 0x7F)?;
                self.octets(len)?;
            }
        }
        if flags & 0x20 != 0 {
            self.initial_vocabulary()?;
        }
        if flags & 0x10 != 0 {
            loop {
                let b = self.src.byte()?;
                if b == 0xF0 {
                    break;
                }
                if b & 0xFC != 0xC0 {
                    return Err(self.err(format!("bad notation octet {b:#04x}")));
                }
                let name = self.ident(StrTab::OtherNcname)?;
                let system_id = if b & 2 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                let public_id = if b & 1 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                self.decls.push(Event::Notation {
                    name,
                    public_id,
                    system_id,
                });
            }
        }
        if flags & 0x08 != 0 {
            loop {
                let b = self.src.byte()?;
                if b == 0xF0 {
                    break;
                }
                if b & 0xFE != 0xD0 {
                    return Err(self.err(format!("bad unparsed-entity octet {b:#04x}")));
                }
                let name = self.ident(StrTab::OtherNcname)?;
                let system_id = self.ident(StrTab::OtherUri)?;
                let public_id = if b & 1 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                let notation = self.ident(StrTab::OtherNcname)?;
                self.decls.push(Event::UnparsedEntity {
                    name,
                    public_id,
                    system_id,
                    notation,
                });
            }
        }
        let encoding = if flags & 0x04 != 0 {
            Some(self.octet_string_2nd()?)
        } else {
            None
        };
        let standalone = if flags & 0x02 != 0 {
            match self.src.byte()? {
                0 => Some(false),
                1 => Some(true),
                b => return Err(self.err(format!("bad standalone octet {b:#04x}"))),
            }
        } else {
            decl_standalone
        };
        let version = if flags & 0x01 != 0 {
            Some(self.nistring_text(StrTab::OtherString)?)
        } else {
            decl_version.map(Cow::Owned)
        };
        Ok(Event::StartDocument {
            version,
            encoding,
            standalone,
        })
    }

    /// Number of items of a sequence (C.21).
    fn seq_len(&mut self) -> Result<usize> {
        let b = self.src.byte()?;
        if b & 0x80 == 0 {
            Ok(b as usize + 1)
        } else {
            let b2 = self.src.byte()? as usize;
            let b3 = self.src.byte()? as usize;
            let n = (((b & 0x0F) as usize) << 16 | b2 << 8 | b3) + 129;
            if n > 1 << 20 {
                return Err(self.err("sequence of more than 2^20 items"));
            }
            Ok(n)
        }
    }

    fn vocab_index(&mut self, b: u8) -> Result<u32> {
        if b & 0x80 != 0 {
            return Err(self.err("padding bit set"));
        }
        self.int_2nd(b)
    }

    fn initial_vocabulary(&mut self) -> Result<()> {
        let b1 = self.src.byte()?;
        let b2 = self.src.byte()?;
        if b1 & 0xE0 != 0 {
            return Err(self.err("padding bits set in the initial vocabulary"));
        }
        if b1 & 0x10 != 0 {
            let at = self.src.pos();
            let uri = self.octet_string_2nd()?;
            let found = if let Some(v) = self.borrowed_vocabs {
                match v.get(uri.as_ref()) {
                    Some(voc) => {
                        let r = voc.resolved();
                        self.load(&r, Cow::Borrowed);
                        true
                    }
                    None => false,
                }
            } else if let Some(v) = self.shared_vocabs.clone() {
                match v.get(uri.as_ref()) {
                    Some(voc) => {
                        let r = voc.resolved();
                        self.load(&r, |s| Cow::Owned(s.to_string()));
                        true
                    }
                    None => false,
                }
            } else {
                false
            };
            if !found {
                return Err(Error::unsupported(
                    FORMAT,
                    format!("the document uses the external vocabulary {uri:?}, which this decoder was not given"),
                )
                .at(at));
            }
        }
        if b1 & 0x08 != 0 {
            let n = self.seq_len()?;
            for _ in 0..n {
                let s = self.octet_string_2nd()?;
                let chars: Vec<char> = s.chars().collect();
                if chars.len() < 2 || chars.len() > 1 << 16 {
                    return Err(self.err("a restricted alphabet needs 2 to 65536 characters"));
                }
                self.t.alphabets.push(chars);
            }
        }
        if b1 & 0x04 != 0 {
            let n = self.seq_len()?;
            for _ in 0..n {
                let s = self.octet_string_2nd()?;
                self.t.algorithms.push(s.into_owned());
            }
        }
        for (flag_byte, flag, tab) in [
            (b1, 0x02, StrTab::Prefix),
            (b1, 0x01, StrTab::Namespace),
            (b2, 0x80, StrTab::Local),
            (b2, 0x40, StrTab::OtherNcname),
            (b2, 0x20, StrTab::OtherUri),
        ] {
            if flag_byte & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let s = self.octet_string_2nd()?;
                    self.table_add(tab, s)?;
                }
            }
        }
        for (flag, tab) in [
            (0x10, StrTab::AttrValue),
            (0x08, StrTab::Chunk),
            (0x04, StrTab::OtherString),
        ] {
            if b2 & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let b = self.src.byte()?;
                    if b & 0x80 != 0 {
                        return Err(self.err("an initial-vocabulary string must be a literal"));
                    }
                    let s = match (b >> 4) & 3 {
                        0 => {
                            let len = self.len_5th(b)?;
                            self.utf8(len)?
                        }
                        1 => {
                            let len = self.len_5th(b)?;
                            self.utf16(len)?
                        }
                        k => {
                            let b2 = self.src.byte()?;
                            let wire = (b & 0x0F) << 4 | b2 >> 4;
                            let len = self.len_5th(b2)?;
                            if k == 2 {
                                self.alphabet_string(wire, len)?
                            } else {
                                match self.algorithm_data(wire, len)? {
                                    NiStr::Str(s) | NiStr::Cdata(s) => s,
                                    NiStr::Typed(t) => Cow::Owned(t.lexical()),
                                }
                            }
                        }
                    };
                    self.table_add(tab, s)?;
                }
            }
        }
        for (flag, attr) in [(0x02, false), (0x01, true)] {
            if b2 & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let b = self.src.byte()?;
                    if b & 0xFC != 0 {
                        return Err(self.err("padding bits set in a name surrogate"));
                    }
                    let prefix = if b & 2 != 0 {
                        let x = self.src.byte()?;
                        let i = self.vocab_index(x)?;
                        self.table_get(StrTab::Prefix, i)?
                    } else {
                        Cow::Borrowed("")
                    };
                    let namespace = if b & 1 != 0 {
                        let x = self.src.byte()?;
                        let i = self.vocab_index(x)?;
                        self.table_get(StrTab::Namespace, i)?
                    } else {
                        Cow::Borrowed("")
                    };
                    if b & 2 != 0 && b & 1 == 0 {
                        return Err(
                            self.err("a name surrogate with a prefix needs a namespace name")
                        );
                    }
                    let x = self.src.byte()?;
                    let i = self.vocab_index(x)?;
                    let local = self.table_get(StrTab::Local, i)?;
                    let q = QName {
                        prefix,
                        namespace,
                        local,
                    };
                    self.name_add(attr, q)?;
                }
            }
        }
        Ok(())
    }

    fn load<'v>(&mut self, r: &crate::vocab::Resolved<'v>, conv: impl Fn(&'v str) -> Cow<'a, str>) {
        let lists: [(StrTab, &Vec<&'v str>); 8] = [
            (StrTab::Prefix, &r.prefixes),
            (StrTab::Namespace, &r.namespaces),
            (StrTab::Local, &r.locals),
            (StrTab::OtherNcname, &r.other_ncnames),
            (StrTab::OtherUri, &r.other_uris),
            (StrTab::AttrValue, &r.attr_values),
            (StrTab::Chunk, &r.chunks),
            (StrTab::OtherString, &r.other_strings),
        ];
        for (tab, list) in lists {
            for &s in list.iter() {
                self.t.strs[tab as usize].push(conv(s));
            }
        }
        for a in &r.alphabets {
            self.t.alphabets.push(a.chars().collect());
        }
        for a in &r.algorithms {
            self.t.algorithms.push(a.to_string());
        }
        for &(p, n, l) in &r.elements {
            self.t.elements.push(NameSlot::new(QName {
                prefix: conv(p),
                namespace: conv(n),
                local: conv(l),
            }));
        }
        for &(p, n, l) in &r.attributes {
            self.t.attributes.push(NameSlot::new(QName {
                prefix: conv(p),
                namespace: conv(n),
                local: conv(l),
            }));
        }
    }

    fn name_add(&mut self, attr: bool, q: QName<'a>) -> Result<()> {
        let t = if attr {
            &mut self.t.attributes
        } else {
            &mut self.t.elements
        };
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                "a name-surrogate table is full",
            ));
        }
        t.push(NameSlot::new(q));
        Ok(())
    }

    // ---- body ----

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Error {
        Error::limit(
            FORMAT,
            self.src.pos() - 1,
            format!("elements nested deeper than {}", self.limits.max_depth),
        )
    }

    /// A literal element or attribute name, added to its name-surrogate table. The usual name
    /// (all three parts borrowed) goes into the table as slices and comes back out of them:
    /// no `QName` clone, no second pass over its parts (documents that repeat a literal name
    /// on many elements pay this on each).
    #[inline(never)]
    fn literal_name(&mut self, attr: bool, pn: u8) -> Result<QName<'a>> {
        let q = self.literal_qname(pn)?;
        let t = if attr {
            &self.t.attributes
        } else {
            &self.t.elements
        };
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(self.table_full());
        }
        let (slot, q) = match q {
            QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            } => (
                NameSlot::Borrowed {
                    prefix,
                    namespace,
                    local,
                },
                QName {
                    prefix: Cow::Borrowed(prefix),
                    namespace: Cow::Borrowed(namespace),
                    local: Cow::Borrowed(local),
                },
            ),
            q => (NameSlot::Owned(q.clone()), q),
        };
        if attr {
            self.t.attributes.push(slot);
        } else {
            self.t.elements.push(slot);
        }
        Ok(q)
    }

    #[cold]
    #[inline(never)]
    fn table_full(&self) -> Error {
        Error::limit(FORMAT, self.src.pos(), "a name-surrogate table is full")
    }

    /// The namespace attributes of an element (after its `001110` octet), up to the
    /// terminator; returns the octet that starts the element's name.
    #[inline(never)]
    fn namespace_attributes(&mut self) -> Result<u8> {
        self.ns.clear();
        self.ns_pos = 0;
        loop {
            let c = self.src.byte()?;
            if c == 0xF0 {
                break;
            }
            if c & 0xFC != 0xCC {
                return Err(self.err(format!("bad namespace-attribute octet {c:#04x}")));
            }
            let prefix = if c & 2 != 0 {
                self.ident(StrTab::Prefix)?
            } else {
                Cow::Borrowed("")
            };
            let uri = if c & 1 != 0 {
                self.ident(StrTab::Namespace)?
            } else {
                Cow::Borrowed("")
            };
            self.ns.push((prefix, uri));
        }
        self.slow = !self.ns.is_empty();
        let nb = self.src.byte()?;
        if nb & 0xC0 != 0 {
            return Err(self.err("padding bits set before a qualified name"));
        }
        Ok(nb)
    }

    /// A literal qualified name (C.18 / C.17 after the `1111`/`11110` marker), `pn` = flags.
    #[inline(always)]
    fn literal_qname(&mut self, pn: u8) -> Result<QName<'a>> {
        let prefix = if pn & 2 != 0 {
            self.ident(StrTab::Prefix)?
        } else {
            Cow::Borrowed("")
        };
        let namespace = if pn & 1 != 0 {
            self.ident(StrTab::Namespace)?
        } else {
            Cow::Borrowed("")
        };
        if pn == 2 {
            return Err(self.err("a qualified name with a prefix needs a namespace name"));
        }
        let local = self.ident(StrTab::Local)?;
        Ok(QName {
            prefix,
            namespace,
            local,
        })
    }

    #[inline(always)]
    fn name_get(&mut self, attr: bool, i: u32) -> Result<QName<'a>> {
        let t = if attr {
            &self.t.attributes
        } else {
            &self.t.elements
        };
        match t.get(i as usize - 1) {
            Some(NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            }) => {
                let q = QName {
                    prefix: Cow::Borrowed(*prefix),
                    namespace: Cow::Borrowed(*namespace),
                    local: Cow::Borrowed(*local),
                };
                self.charge(local.len() + prefix.len())?;
                Ok(q)
            }
            Some(NameSlot::Owned(q)) => {
                let q = q.clone();
                self.charge(q.local.len() + q.prefix.len())?;
                Ok(q)
            }
            None => Err(self.err(format!(
                "index {i} past the end of the {} table ({} entries)",
                if attr {
                    "attribute-name"
                } else {
                    "element-name"
                },
                t.len()
            ))),
        }
    }

    #[inline(always)]
    fn element(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        Ok(Some(Event::StartElement(self.element_name(b)?)))
    }

    /// An element item's name (and its namespace attributes, queued), first octet `b`.
    #[inline(always)]
    fn element_name(&mut self, b: u8) -> Result<QName<'a>> {
        if self.depth >= self.limits.max_depth {
            return Err(self.too_deep());
        }
        let attrs = b & 0x40 != 0;
        let mut nb = b;
        if b & 0x3C == 0x38 {
            nb = self.namespace_attributes()?;
        }
        let q = if nb & 0x3C == 0x3C {
            self.literal_name(false, nb & 3)?
        } else {
            let i = self.int_3rd(nb)?;
            self.name_get(false, i)?
        };
        self.depth += 1;
        self.in_attrs = attrs;
        self.root_seen = true;
        Ok(q)
    }

    #[inline(always)]
    fn attribute(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        let (name, value) = self.attribute_parts(b)?;
        Ok(Some(Event::Attribute { name, value }))
    }

    /// An attribute's name and value, first octet `b`.
    #[inline(always)]
    fn attribute_parts(&mut self, b: u8) -> Result<(QName<'a>, Cow<'a, str>)> {
        let name = if b & 0x7C == 0x78 {
            self.literal_name(true, b & 3)?
        } else if b & 0x70 == 0x70 {
            return Err(self.err(format!("bad attribute octet {b:#04x}")));
        } else {
            let i = self.int_2nd(b)?;
            self.name_get(true, i)?
        };
        let b = self.src.byte()?;
        let value = if b & 0x80 != 0 && b != 0xFF {
            let i = self.int_2nd(b)?;
            self.table_get(StrTab::AttrValue, i)?
        } else if b & 0xB0 == 0 {
            // a UTF-8 literal
            let len = self.len_5th(b)?;
            let v = self.utf8(len)?;
            if b & 0x40 != 0 {
                self.table_add(StrTab::AttrValue, v.clone())?;
            }
            v
        } else {
            match self.nistring_b(b, StrTab::AttrValue)? {
                NiStr::Str(s) | NiStr::Cdata(s) => s,
                NiStr::Typed(t) => Cow::Owned(t.lexical()),
            }
        };
        Ok((name, value))
    }

    /// Whether a character-chunk item with first octet `b` is plain text: an index, or a
    /// UTF-8 literal ([`Core::chunk_plain`]).
    #[inline(always)]
    fn chunk_is_plain(b: u8) -> bool {
        b & 0x20 != 0 || b & 0x0C == 0
    }

    /// A character chunk by index or as a UTF-8 literal, first octet `b`.
    #[inline(always)]
    fn chunk_plain(&mut self, b: u8) -> Result<Cow<'a, str>> {
        if b & 0x20 != 0 {
            let i = self.int_4th(b)?;
            return self.table_get(StrTab::Chunk, i);
        }
        let len = self.len_7th(b)?;
        let text = self.utf8(len)?;
        if b & 0x10 != 0 {
            self.table_add(StrTab::Chunk, text.clone())?;
        }
        Ok(text)
    }

    #[inline(always)]
    fn chunk(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        if Self::chunk_is_plain(b) {
            return Ok(Some(Event::Characters {
                text: self.chunk_plain(b)?,
                cdata: false,
            }));
        }
        let add = b & 0x10 != 0;
        let v = match (b >> 2) & 3 {
            1 => {
                let len = self.len_7th(b)?;
                NiStr::Str(self.utf16(len)?)
            }
            k => {
                let b2 = self.src.byte()?;
                let wire = (b & 0x03) << 6 | b2 >> 2;
                let len = self.len_7th(b2)?;
                if k == 2 {
                    NiStr::Str(self.alphabet_string(wire, len)?)
                } else {
                    self.algorithm_data(wire, len)?
                }
            }
        };
        Ok(Some(match v {
            NiStr::Str(text) => {
                if add {
                    self.table_add(StrTab::Chunk, text.clone())?;
                }
                Event::Characters { text, cdata: false }
            }
            NiStr::Cdata(text) => {
                if add {
                    self.table_add(StrTab::Chunk, text.clone())?;
                }
                Event::Characters { text, cdata: true }
            }
            NiStr::Typed(t) => {
                if add {
                    self.table_add(StrTab::Chunk, Cow::Owned(t.lexical()))?;
                }
                Event::Typed(t)
            }
        }))
    }

    #[inline(always)]
    fn end_of_level(&mut self) -> Result<Option<Event<'a>>> {
        if self.depth > 0 {
            self.depth -= 1;
            Ok(Some(Event::EndElement))
        } else {
            self.end_of_document()
        }
    }

    #[inline(never)]
    fn end_of_document(&mut self) -> Result<Option<Event<'a>>> {
        {
            if self.terms > 0 {
                return Err(self.err("terminator after the end of the document"));
            }
            if !self.root_seen {
                return Err(self.err("document without a document element"));
            }
            self.phase = Phase::Done;
            self.slow = true;
            if !self.src.at_end()? {
                return Err(Error::malformed(
                    FORMAT,
                    self.src.pos(),
                    "data after the end of the document",
                ));
            }
            Ok(Some(Event::EndDocument))
        }
    }

    fn doctype(&mut self, b: u8) -> Result<Event<'a>> {
        if self.doctype_seen || self.root_seen {
            return Err(self.err("document type declaration in the wrong place"));
        }
        self.doctype_seen = true;
        let system_id = if b & 2 != 0 {
            Some(self.ident(StrTab::OtherUri)?)
        } else {
            None
        };
        let public_id = if b & 1 != 0 {
            Some(self.ident(StrTab::OtherUri)?)
        } else {
            None
        };
        // its children: processing instructions of the internal subset
        let mut subset = String::new();
        loop {
            let c = self.src.byte()?;
            match c {
                0xE1 => {
                    let target = self.ident(StrTab::OtherNcname)?;
                    let data = self.nistring_text(StrTab::OtherString)?;
                    subset.push_str("<?");
                    subset.push_str(&target);
                    if !data.is_empty() {
                        subset.push(' ');
                        subset.push_str(&data);
                    }
                    subset.push_str("?>");
                }
                0xF0 => break,
                0xFF => {
                    self.terms += 1;
                    break;
                }
                _ => {
                    return Err(
                        self.err(format!("bad octet {c:#04x} in a document type declaration"))
                    );
                }
            }
        }
        let dt = DocType {
            name: Cow::Borrowed(""),
            public_id,
            system_id,
            internal_subset: if subset.is_empty() {
                None
            } else {
                Some(Cow::Owned(subset))
            },
        };
        let decls = std::mem::take(&mut self.decls);
        self.queue.extend(decls);
        self.refresh();
        Ok(Event::DocType(dt))
    }

    #[inline(always)]
    fn next(&mut self) -> Result<Option<Event<'a>>> {
        if self.slow {
            return self.next_slow();
        }
        self.last = self.src.pos();
        self.body_item()
    }

    #[inline(never)]
    fn next_slow(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(e) = self.queue.pop_front() {
            self.refresh();
            return Ok(Some(e));
        }
        if self.ns_pos < self.ns.len() {
            let (p, u) = &self.ns[self.ns_pos];
            let e = Event::Namespace {
                prefix: p.clone(),
                uri: u.clone(),
            };
            self.ns_pos += 1;
            if self.ns_pos == self.ns.len() {
                self.ns.clear();
                self.ns_pos = 0;
            }
            self.refresh();
            return Ok(Some(e));
        }
        match self.phase {
            Phase::Done => return Ok(None),
            Phase::Header => {
                self.budget = self.budget.max(1);
                let e = self.header()?;
                self.phase = Phase::Body;
                self.refresh();
                return Ok(Some(e));
            }
            Phase::Body => {}
        }
        self.last = self.src.pos();
        if self.terms > 0 {
            self.terms -= 1;
            let r = self.end_of_level();
            self.refresh();
            return r;
        }
        self.refresh();
        self.body_item()
    }

    /// The next item of the body: no event is queued and no terminator pending.
    #[inline(always)]
    fn body_item(&mut self) -> Result<Option<Event<'a>>> {
        if self.in_attrs {
            let b = self.src.byte()?;
            if b & 0x80 == 0 {
                return self.attribute(b);
            }
            self.in_attrs = false;
            match b {
                0xF0 => {}
                0xFF => return self.end_of_level(),
                _ => return Err(self.err(format!("bad octet {b:#04x} in an attribute list"))),
            }
            self.last = self.src.pos();
        }
        let b = self.src.byte()?;
        self.item(b)
    }

    /// A body item (not an attribute) whose first octet `b` has been read.
    #[inline(always)]
    fn item(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        // tests in order of frequency (conditional branches, not a jump table)
        if b < 0x80 {
            if self.depth == 0 {
                if self.root_seen {
                    return Err(self.err("a second document element"));
                }
                if !self.decls.is_empty() {
                    return self.root_after_declarations(b);
                }
            }
            self.element(b)
        } else if b < 0xC0 {
            if self.depth == 0 {
                return Err(self.err("character data outside the document element"));
            }
            self.chunk(b)
        } else if b == 0xF0 {
            self.end_of_level()
        } else if b == 0xFF {
            self.terms += 1;
            self.slow = true;
            self.end_of_level()
        } else {
            self.rare_item(b)
        }
    }

    /// Push decoding ([`Decoder::read_into`]): element starts and ends, attributes and plain
    /// text go to the sink as their parts; everything else (and every state of the slow flag)
    /// goes through the pull path's functions and reaches the sink as an event. The same
    /// items in the same order as [`Core::next`].
    #[inline(always)]
    fn push<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<()> {
        loop {
            if self.slow {
                match self.next_slow()? {
                    Some(ev) => {
                        sink.dispatch(ev)?;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            if self.in_attrs {
                if !self.push_attributes(sink)? {
                    continue;
                }
            } else if self.depth > 0 {
                if self.push_content(sink)? {
                    return Ok(());
                }
                continue;
            }
            self.last = self.src.pos();
            let b = self.src.byte()?;
            match self.item(b)? {
                Some(ev) => sink.dispatch(ev)?,
                None => return Ok(()),
            }
        }
    }

    /// Push decoding inside an element, where almost all the work is: element starts (with
    /// their attributes), plain text and element ends go to the sink as parts without passing
    /// through [`Core::push`]'s state tests. Returns to it (`Ok(false)`) when the slow flag is
    /// set, the depth falls to 0 or an element's namespace attributes must come first;
    /// `Ok(true)` when the document ended. Requires `!slow`, `!in_attrs` and `depth > 0`.
    #[inline(always)]
    fn push_content<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<bool> {
        loop {
            self.last = self.src.pos();
            let b = self.src.byte()?;
            if b < 0x80 {
                let name = self.element_name(b)?;
                sink.start_element(name)?;
                if self.slow {
                    // namespace attributes are queued: they go before the attributes
                    return Ok(false);
                }
                if self.in_attrs && (!self.push_attributes(sink)? || self.depth == 0) {
                    return Ok(false);
                }
                continue;
            }
            if b < 0xC0 && Self::chunk_is_plain(b) {
                let text = self.chunk_plain(b)?;
                sink.text(text)?;
                continue;
            }
            if b == 0xF0 {
                self.depth -= 1;
                sink.end_element()?;
                if self.depth == 0 {
                    return Ok(false);
                }
                continue;
            }
            if b == 0xFF && self.depth >= 2 {
                // a double terminator ending two elements (the last child's end and its
                // parent's): both ends here, not through a pending terminator
                self.depth -= 2;
                sink.end_element()?;
                sink.end_element()?;
                if self.depth == 0 {
                    return Ok(false);
                }
                continue;
            }
            match self.item(b)? {
                Some(ev) => sink.dispatch(ev)?,
                None => return Ok(true),
            }
            if self.slow || self.in_attrs || self.depth == 0 {
                return Ok(false);
            }
        }
    }

    /// The attributes of the element just started, up to the terminator that ends them (which
    /// may also end the element). Returns `Ok(true)` with `in_attrs` cleared, or `Ok(false)` if
    /// the slow flag was set on the way.
    #[inline(always)]
    fn push_attributes<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<bool> {
        loop {
            self.last = self.src.pos();
            let b = self.src.byte()?;
            if b & 0x80 == 0 {
                let (name, value) = self.attribute_parts(b)?;
                sink.attribute(name, value)?;
                continue;
            }
            self.in_attrs = false;
            match b {
                0xF0 => return Ok(true),
                0xFF if self.depth > 0 => {
                    // ends the attributes and the element (an empty element with attributes)
                    self.depth -= 1;
                    sink.end_element()?;
                    return Ok(true);
                }
                0xFF => {
                    // not reached: attributes follow an element start, which raised the depth
                    if let Some(ev) = self.end_of_level()? {
                        sink.dispatch(ev)?;
                    }
                    return Ok(!self.slow);
                }
                _ => return Err(self.err(format!("bad octet {b:#04x} in an attribute list"))),
            }
        }
    }

    /// The document element when the header listed notations or unparsed entities and no
    /// DOCTYPE item came: a nameless `DocType` event carries them before the root.
    #[inline(never)]
    fn root_after_declarations(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        let decls = std::mem::take(&mut self.decls);
        let el = self.element(b)?;
        self.queue.extend(decls);
        self.queue.extend(el);
        self.slow = true;
        Ok(Some(Event::DocType(DocType::default())))
    }

    /// Processing instructions, comments, the DOCTYPE, entity references, and errors.
    #[inline(never)]
    fn rare_item(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        match b {
            0xE1 => {
                let target = self.ident(StrTab::OtherNcname)?;
                let data = self.nistring_text(StrTab::OtherString)?;
                Ok(Some(Event::ProcessingInstruction { target, data }))
            }
            0xE2 => Ok(Some(Event::Comment(
                self.nistring_text(StrTab::OtherString)?,
            ))),
            0xC4..=0xC7 if self.depth == 0 => self.doctype(b).map(Some),
            0xC8..=0xCB if self.depth > 0 => {
                let name = self.ident(StrTab::OtherNcname)?;
                let system_id = if b & 2 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                let public_id = if b & 1 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                Ok(Some(Event::EntityReference {
                    name,
                    public_id,
                    system_id,
                }))
            }
            _ => Err(self.err(format!("unexpected octet {b:#04x}"))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Public decoders

/// Decodes a Fast Infoset document held in memory. Strings written as UTF-8 literals (and
/// strings of a borrowed external vocabulary) are borrowed, not copied.
pub struct FiDecoder<'a> {
    core: Core<'a, SliceSrc<'a>>,
}

impl<'a> FiDecoder<'a> {
    /// A decoder of the document in `input`, with the default [`Limits`].
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A decoder of the document in `input` that refuses documents beyond `limits` (depth,
    /// string lengths, table entries, decoded bytes per input byte) with an error.
    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        let budget = limits.decoded_budget(input.len());
        let mut core = Core::new(
            SliceSrc {
                data: input,
                pos: 0,
            },
            limits,
            budget,
        );
        // room for the tables that grow with the document (bounded by the input's length)
        let hint = (input.len() / 16).min(1 << 16);
        core.t.strs[StrTab::Chunk as usize].reserve(hint);
        core.t.strs[StrTab::AttrValue as usize].reserve(hint / 2);
        FiDecoder { core }
    }

    /// The external vocabularies this decoder accepts, by URI. A document that references a
    /// vocabulary not in the map is refused.
    pub fn with_vocabularies(mut self, vocabularies: &'a Vocabularies) -> Self {
        self.core.borrowed_vocabs = Some(vocabularies);
        self
    }
}

impl<'a> Decoder<'a> for FiDecoder<'a> {
    #[inline]
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        self.core.next()
    }
    fn offset(&self) -> u64 {
        self.core.last
    }
    fn read_into<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<()> {
        self.core.push(sink)
    }
}

/// Decodes a Fast Infoset document from a reader, reading it in 64 KiB blocks: memory is
/// bounded by the vocabulary and the longest string, not by the document.
pub struct FiReadDecoder<R: Read> {
    core: Core<'static, ReadSrc<R>>,
}

impl<R: Read> FiReadDecoder<R> {
    /// A decoder of the document `reader` yields, with the default [`Limits`]. The reader needs no
    /// buffering of its own.
    pub fn new(reader: R) -> Self {
        Self::with_limits(reader, Limits::default())
    }

    /// A decoder of the document `reader` yields that refuses documents beyond `limits` (depth,
    /// string lengths, table entries, decoded bytes per input byte read so far) with an error.
    pub fn with_limits(reader: R, limits: Limits) -> Self {
        // the input length is unknown: the budget is the limits' floor unless unlimited
        let budget = if limits.max_expansion_ratio == 0 {
            usize::MAX
        } else {
            limits.decoded_budget(0)
        };
        let src = ReadSrc {
            r: reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            consumed: 0,
            eof: false,
        };
        let mut core = Core::new(src, limits, budget);
        core.budget = budget;
        FiReadDecoder { core }
    }

    /// The external vocabularies this decoder accepts, by URI. A document that references a
    /// vocabulary not in the map is refused. Their strings are copied into the events.
    pub fn with_vocabularies(mut self, vocabularies: Arc<Vocabularies>) -> Self {
        self.core.shared_vocabs = Some(vocabularies);
        self
    }
}

impl<R: Read> Decoder<'static> for FiReadDecoder<R> {
    fn next_event(&mut self) -> Result<Option<Event<'static>>> {
        let before = self.core.src.consumed;
        let r = self.core.next();
        // the expansion budget grows with the input read so far
        if self.core.limits.max_expansion_ratio != 0 {
            let read = self.core.src.consumed.max(before) as usize;
            self.core.budget = self.core.limits.decoded_budget(read);
        }
        r
    }
    fn offset(&self) -> u64 {
        self.core.last
    }
}
