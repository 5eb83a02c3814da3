//! The PER decoder's pass 1: the bits, front to back, into a [`Rec`]; the tables.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Event, Limits, Result};

use super::PerReader;
use crate::emit::Emitter;
use crate::schema::*;
use crate::sentinel::NO_STR;
use crate::stream::{NameRef, Ns, Op, Rec, Str, Stream};
use crate::table;

struct Frame {
    op: usize,
    name: NameRef,
    p_attrs: bool,
    p_ns: bool,
    p_base: bool,
    left: usize,
    more: bool,
}

/// PER's pass 1: the bits, into a [`Rec`].
struct Pass1<'a> {
    r: PerReader<'a>,
    rec: Rec<'a>,
    /// APER (no bit-level fast paths for LargeIndex, an aligned two-octet field there)
    aligned: bool,
}

impl<'a> Pass1<'a> {
    /// Where the reader is (errors of the recorder).
    #[inline(always)]
    fn at(&self) -> u64 {
        self.r.bit_pos() as u64
    }

    /// A StringOrIndex (URIOrIndex, NCNameOrIndex).
    #[inline]
    fn str(&mut self) -> Result<Str> {
        // UPER fast path: `1` (component-string-index), `0` (root range), 11 bits
        if !self.aligned
            && let Some(w) = self.r.peek()
            && w >> 62 == 0b10
        {
            let i = (w >> 51) & 0x7FF;
            let at = self.at() + 1;
            self.r.advance(13);
            return Ok(self.rec.saw_str(i, at));
        }
        // APER fast path: `1`, `0`, the padding to the next octet, 16 bits below 2048 (else
        // the general path, which refuses a value outside the root range)
        if self.aligned
            && let Some(w) = self.r.peek()
            && w >> 62 == 0b10
        {
            let pad = (8 - (self.r.bit_pos() + 2) % 8) % 8;
            let i = (w << (2 + pad)) >> 48;
            if i < 2048 {
                let at = self.at() + 1;
                self.r.advance(2 + pad + 16);
                return Ok(self.rec.saw_str(i, at));
            }
        }
        if !self.r.bit()? {
            let s = self.r.utf8()?;
            self.rec.inline_str(s, self.at())
        } else {
            let (i, at) = self.r.int(0, 2047)?;
            self.rec.str_index(i, at)
        }
    }

    /// A SmallIndex naming a common name.
    fn common(&mut self) -> Result<NameRef> {
        let (i, at) = self.r.int(0, 15)?;
        self.rec.common(i, at)
    }

    /// An Element's start: its presence bits, name and children; returns its frame, or `None`
    /// when it is complete (element-content-characters).
    fn start_element(&mut self, depth: usize) -> Result<Option<Frame>> {
        self.rec.depth(depth, self.at())?;
        // fast path (UPER and APER alike): three presence bits, `1` (common-name-index),
        // `0` (root range), 4 bits
        if let Some(w) = self.r.peek()
            && (w >> 59) & 0b11 == 0b10
        {
            let (p_attrs, p_ns, p_base) = (w >> 63 == 1, (w >> 62) & 1 == 1, (w >> 61) & 1 == 1);
            let i = (w >> 55) & 0xF;
            let at = self.at() + 4;
            self.r.advance(9);
            let name = self.rec.saw_name(i, at);
            return self.element_body(name, p_attrs, p_ns, p_base);
        }
        let (p_attrs, p_ns, p_base) = (self.r.bit()?, self.r.bit()?, self.r.bit()?);
        let name = if !self.r.bit()? {
            let (p_nsn, p_prefix) = (self.r.bit()?, self.r.bit()?);
            let ns = if !p_nsn {
                Ns::None
            } else if !self.r.bit()? {
                Ns::Str(self.str()?)
            } else {
                self.rec.parent_ns_used = true;
                Ns::Same
            };
            let local = self.str()?;
            let prefix = if p_prefix { self.str()? } else { NO_STR };
            self.rec.inline_name(ns, local, prefix, self.at())?
        } else {
            self.common()?
        };
        self.element_body(name, p_attrs, p_ns, p_base)
    }

    /// An Element after its name: its children (or element-content-characters).
    #[inline]
    fn element_body(
        &mut self,
        name: NameRef,
        p_attrs: bool,
        p_ns: bool,
        p_base: bool,
    ) -> Result<Option<Frame>> {
        let op = self.rec.start(name);
        let mut f = Frame {
            op,
            name,
            p_attrs,
            p_ns,
            p_base,
            left: 0,
            more: false,
        };
        if !self.r.bit()? {
            let s = self.str()?;
            self.rec.push(Op::Text(s));
            self.end_element(&f)?;
            return Ok(None);
        }
        (f.left, f.more) = self.r.count_first(Some((0, 3)))?;
        Ok(Some(f))
    }

    /// The rest of an Element after its children: attributes, in-scope namespaces, base URI.
    fn end_element(&mut self, f: &Frame) -> Result<()> {
        let a0 = self.rec.attrs_mark(self.at())?;
        if f.p_attrs {
            self.attribute_list(false)?;
        }
        if f.p_ns {
            self.attribute_list(true)?;
        }
        // in-scope-namespaces: an explicit list is not read (namespace attributes say it all)
        if !self.r.bit()? {
            self.r.skip(NS_LIST)?;
        }
        if f.p_base {
            self.r.skip(IDX_OR_NULL)?;
        }
        self.rec.end(f.op, f.name, a0, self.at())
    }

    fn attribute_list(&mut self, ns_list: bool) -> Result<()> {
        let (mut n, mut more) = self.r.count_first(Some((1, 4)))?;
        let mut first = true;
        loop {
            for _ in 0..n {
                let (p_spec, p_type, p_refs) = (self.r.bit()?, self.r.bit()?, self.r.bit()?);
                let name = if !self.r.bit()? {
                    let (p_nsn, p_prefix) = (self.r.bit()?, self.r.bit()?);
                    let ns = if !p_nsn {
                        Ns::None
                    } else {
                        match self.r.choice(3)? {
                            0 => Ns::Str(self.str()?),
                            1 => Ns::Same,
                            _ => Ns::Prev,
                        }
                    };
                    let local = self.str()?;
                    let prefix = if p_prefix { self.str()? } else { NO_STR };
                    self.rec.inline_name(ns, local, prefix, self.at())?
                } else {
                    self.common()?
                };
                let value = self.str()?;
                if p_spec {
                    self.r.bit()?;
                }
                if p_type {
                    self.r.skip(AT_TYPE)?;
                }
                if p_refs {
                    self.r.skip(AT_REFS)?;
                }
                self.rec.attr(name, value, ns_list, first);
                first = false;
            }
            if !more {
                return Ok(());
            }
            (n, more) = self.r.count_next()?;
        }
    }

    /// A ProcessingInstruction (base URI and notation are not mapped).
    fn pi(&mut self) -> Result<()> {
        let p_notation = self.r.bit()?;
        let target = self.str()?;
        let content = self.str()?;
        self.r.skip(IDX_OR_NULL)?;
        if p_notation {
            self.r.skip(SMALL_OR_NULL)?;
        }
        self.rec.push(Op::Pi(target, content));
        Ok(())
    }

    fn value(&mut self, ty: TyId) -> Result<u32> {
        let v = self.r.decode(ty)?;
        self.rec.value(v, self.at())
    }

    /// A StringOrIndex of the common-names table, looked up at once (the strings are known).
    fn table_str(&mut self, e: &mut Emitter<'a>) -> Result<Cow<'a, str>> {
        if !self.r.bit()? {
            self.r.utf8()
        } else {
            let (i, at) = self.r.int(0, 2047)?;
            e.lookup(i, at)
        }
    }

    /// `Document.common-names` into the emitter's names.
    fn common_names(&mut self, e: &mut Emitter<'a>) -> Result<()> {
        let (mut n, mut more) = self.r.count_first(None)?;
        loop {
            if e.names.len().saturating_add(n) > e.limits.max_table_entries {
                return Err(Error::limit(self.rec.format, 0, "too many common names")
                    .at_bit(self.r.bit_pos() as u64));
            }
            e.names.reserve(n.min(1024));
            for _ in 0..n {
                let at = self.r.bit_pos() as u64;
                let (p_ns, p_prefix) = (self.r.bit()?, self.r.bit()?);
                let format = self.rec.format;
                let first = move || {
                    Error::malformed(format, 0, "same-as-previous-item in the first common name")
                        .at_bit(at)
                };
                let ns = if !p_ns {
                    Cow::Borrowed("")
                } else if !self.r.bit()? {
                    self.table_str(e)?
                } else {
                    let prev = e.names.last().map(|p| p.0.clone()).ok_or_else(first)?;
                    e.copy(&prev)?
                };
                let local = self.table_str(e)?;
                let prefix = if !p_prefix {
                    Cow::Borrowed("")
                } else if !self.r.bit()? {
                    self.table_str(e)?
                } else {
                    let prev = e.names.last().map(|p| p.2.clone()).ok_or_else(first)?;
                    e.copy(&prev)?
                };
                e.names.push((ns, local, prefix));
            }
            if !more {
                return Ok(());
            }
            (n, more) = self.r.count_next()?;
        }
    }

    /// `Document.children`, every element in it, front to back.
    fn children(&mut self) -> Result<()> {
        let mut stack: Vec<Frame> = Vec::new();
        let (mut left, mut more) = self.r.count_first(None)?;
        loop {
            self.rec.mark(self.r.bit_pos() as u64);
            let Some(top) = stack.last_mut() else {
                // document level
                if left == 0 {
                    if !more {
                        return Ok(());
                    }
                    (left, more) = self.r.count_next()?;
                    continue;
                }
                left -= 1;
                match self.r.choice(4)? {
                    0 => {
                        if let Some(f) = self.start_element(1)? {
                            stack.push(f);
                        }
                    }
                    1 => self.pi()?,
                    2 => {
                        let s = self.str()?;
                        self.rec.push(Op::Comment(s));
                    }
                    _ => {
                        self.rec.has_dtd = true;
                        let i = self.value(DTD)?;
                        self.rec.push(Op::Dtd(i));
                    }
                }
                continue;
            };
            if top.left == 0 {
                if top.more {
                    (top.left, top.more) = self.r.count_next()?;
                    continue;
                }
                let f = stack.pop().expect("a frame");
                self.end_element(&f)?;
                continue;
            }
            top.left -= 1;
            match self.r.choice(5)? {
                0 => {
                    let depth = stack.len() + 1;
                    if let Some(f) = self.start_element(depth)? {
                        stack.push(f);
                    }
                }
                1 => self.pi()?,
                2 => {
                    let i = self.value(UER)?;
                    self.rec.push(Op::Uer(i));
                }
                3 => {
                    if !self.r.bit()? {
                        let s = self.str()?;
                        self.rec.push(Op::Text(s));
                    } else {
                        let b = self.r.bytes()?;
                        let op = self.rec.base64(b, self.at())?;
                        self.rec.push(op);
                    }
                    self.r.bit()?; // element-content-whitespace
                }
                _ => {
                    let s = self.str()?;
                    self.rec.push(Op::Comment(s));
                }
            }
        }
    }
}

/// Splits an uncompressed component-strings block that arrives in fragments into its strings:
/// those inside one borrowed fragment are borrowed, the few that straddle fragments are joined.
struct Splitter<'a> {
    format: Format,
    carry: Vec<u8>,
    /// bytes of the block seen so far (for error offsets within the block)
    seen: usize,
    max_string: usize,
    max_entries: usize,
    out: Vec<Cow<'a, str>>,
}

impl<'a> Splitter<'a> {
    fn bad(&self, at: usize) -> Error {
        Error::malformed(
            self.format,
            0,
            format!("invalid UTF-8 at block offset {at}"),
        )
    }

    fn push(&mut self, s: Cow<'a, str>) -> Result<()> {
        if s.len() > self.max_string {
            return Err(Error::limit(
                self.format,
                0,
                "component string exceeds the length limit",
            ));
        }
        if self.out.len() >= self.max_entries {
            return Err(Error::limit(self.format, 0, "too many component strings"));
        }
        self.out.push(s);
        Ok(())
    }

    fn fragment(&mut self, frag: Cow<'a, [u8]>) -> Result<()> {
        let base = self.seen;
        self.seen += frag.len();
        // room for a string every 16 octets (the table's strings are short): fewer regrowths
        // of a list of thousands
        let room = (frag.len() / 16).min(self.max_entries).min(1 << 20);
        self.out.reserve(room);
        let mut rest: &[u8] = &frag;
        let mut off = 0;
        if !self.carry.is_empty() {
            // the end of a string that began in an earlier fragment
            match rest.iter().position(|&b| b == 0) {
                Some(z) => {
                    self.carry.extend_from_slice(&rest[..z]);
                    let at = base + z - self.carry.len();
                    let s = String::from_utf8(std::mem::take(&mut self.carry))
                        .map_err(|_| self.bad(at))?;
                    self.push(Cow::Owned(s))?;
                    rest = &rest[z + 1..];
                    off = z + 1;
                }
                None => {
                    self.carry.extend_from_slice(rest);
                    if self.carry.len() > self.max_string {
                        return Err(Error::limit(
                            self.format,
                            0,
                            "component string exceeds the length limit",
                        ));
                    }
                    return Ok(());
                }
            }
        }
        // whole strings, then the start of one that goes on in the next fragment
        let whole = rest.iter().rposition(|&b| b == 0).map_or(0, |z| z + 1);
        let tail = &rest[whole..];
        self.carry.extend_from_slice(tail);
        if whole == 0 {
            return Ok(());
        }
        match frag {
            Cow::Borrowed(b) => {
                let body = &b[off..off + whole - 1];
                let text = std::str::from_utf8(body)
                    .map_err(|e| self.bad(base + off + e.valid_up_to()))?;
                table::split_zeros(text, |s| self.push(Cow::Borrowed(s)))?;
            }
            Cow::Owned(ref b) => {
                let body = &b[off..off + whole - 1];
                let text = std::str::from_utf8(body)
                    .map_err(|e| self.bad(base + off + e.valid_up_to()))?;
                table::split_zeros(text, |s| self.push(Cow::Owned(s.to_owned())))?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<Cow<'a, str>>> {
        if !self.carry.is_empty() {
            return Err(Error::malformed(
                self.format,
                0,
                "component-strings block does not end with a zero byte",
            ));
        }
        Ok(self.out)
    }
}

/// Reads the whole input (pass 1) and the tables.
pub(crate) fn open<'a>(
    input: &'a [u8],
    aligned: bool,
    format: Format,
    limits: &Limits,
    positions: bool,
) -> Result<Stream<'a>> {
    // tabled encodings hold an operation per 3-8 bytes; what a bigger document needs beyond
    // 64 MiB of operations grows as they come
    let mut p = Pass1 {
        r: PerReader::new(input, aligned, format, limits),
        rec: Rec::new(
            format,
            true,
            limits,
            (input.len() / 6).min(1 << 22) + 4,
            positions,
        ),
        aligned,
    };
    let (p_base, p_standalone, p_version) = (p.r.bit()?, p.r.bit()?, p.r.bit()?);
    p.children()?;
    let notations = p.r.decode(NOTATIONS)?;
    let unparsed = p.r.decode(UNPARSEDS)?;
    if p_base {
        p.r.skip(STR_IDX)?;
    }
    let ces = p.r.decode(STR_IDX)?;
    let standalone = if p_standalone { Some(p.r.bit()?) } else { None };
    let version = if p_version {
        Some(p.r.decode(STR_IDX)?)
    } else {
        None
    };
    p.r.bit()?; // all-declarations-processed
    let mut e = Emitter::new(format, false, limits.clone(), input.len());
    // component-strings
    let mut split = Splitter {
        format,
        carry: Vec::new(),
        seen: 0,
        max_string: limits.max_string_len,
        max_entries: limits.max_table_entries,
        out: Vec::new(),
    };
    let (mut n, mut more) = p.r.count_first(None)?;
    loop {
        for _ in 0..n {
            let at = p.r.bit_pos() as u64;
            let uri = p.r.utf8()?;
            if table::is_uncompressed(&uri) {
                p.r.octet_fragments(|r, frag| {
                    e.charge(frag.len())
                        .and_then(|_| split.fragment(frag))
                        .map_err(|err| err.at_bit(r.bit_pos() as u64))
                })?;
            } else {
                let block = p.r.bytes()?;
                let room = e.budget.saturating_sub(e.used);
                let raw = table::decompress(format, &uri, &block, room, 0)
                    .map_err(|err| err.at_bit(at))?;
                e.charge(raw.len())?;
                split
                    .fragment(Cow::Owned(raw))
                    .map_err(|err| err.at_bit(at))?;
            }
            if !split.carry.is_empty() {
                return Err(Error::malformed(
                    format,
                    0,
                    "component-strings block does not end with a zero byte",
                )
                .at_bit(at));
            }
        }
        if !more {
            break;
        }
        (n, more) = p.r.count_next()?;
    }
    e.strings = split.finish()?;
    p.common_names(&mut e)?;
    p.r.finish()?;
    p.rec.into_stream(
        e,
        Some(ces),
        standalone,
        version,
        Some(notations),
        Some(unparsed),
    )
}

/// Decodes a whole PER document into events.
pub(crate) fn decode<'a>(
    input: &'a [u8],
    aligned: bool,
    format: Format,
    limits: &Limits,
) -> Result<Vec<Event<'a>>> {
    let mut s = open(input, aligned, format, limits, false)?;
    let mut out = Vec::with_capacity(s.ops_len() + 8);
    while let Some(ev) = s.next_event()? {
        out.push(ev);
    }
    Ok(out)
}
