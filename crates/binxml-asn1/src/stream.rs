//! The PER decoder: one pass over the bits into a flat list of operations, then events pulled
//! from that list one at a time (no abstract value of the document, no vector of events).
//!
//! `Document`'s tables come after its children and an `Element`'s attributes after its
//! children, so nothing can be emitted before the whole input is read. Pass 1 reads the input
//! once, front to back, with an explicit stack (no recursion), and records
//! * an [`Op`] per start, end, text, comment, PI, entity reference and DTD, where an element's
//!   start is patched with its attributes' range once they have been read;
//! * strings as component-string indexes (checked against the table once it is known: the
//!   largest index and its bit offset are kept) or as inline strings (borrowed where the input
//!   has them on an octet boundary);
//! * the tables, split once; an uncompressed block on an octet boundary (always in APER; in
//!   UPER when the encoder aligned it, see `Options::align_strings`) is borrowed from the input,
//!   so every table string an event carries is a slice of the input.
//!
//! Memory is linear in the input: every operation, attribute and string costs input bits.
//! Rare items (entity references, the DTD, notations) go through the generic value decoder and
//! the [`Emitter`].

use binxml_core::Format;
use std::borrow::Cow;
use std::collections::VecDeque;

use binxml_core::{DocType, Error, Event, EventSink, Limits, QName, Result, Typed, XMLNS_NS};

use crate::emit::Emitter;
use crate::per::PerReader;
use crate::schema::*;
use crate::sentinel::{INLINE, NO_STR};
use crate::table;
use crate::value::V;

/// A string: a component-string index, or `INLINE | i` for `inline[i]`.
type Str = u32;
/// A name: a common-name index, or `INLINE | i` for `names[i]`.
type NameRef = u32;

#[derive(Clone, Copy)]
enum Ns {
    None,
    Str(Str),
    /// same-as-parent-element (elements) or same-as-owner-element (attributes)
    Same,
    /// same-as-previous-attribute
    Prev,
}

#[derive(Clone, Copy)]
struct InlineName {
    ns: Ns,
    local: Str,
    prefix: Str,
}

#[derive(Clone, Copy)]
struct AttrRec {
    name: NameRef,
    value: Str,
    /// from `namespace-attributes` (else `attributes`)
    ns_list: bool,
    /// the first of its list (same-as-previous-attribute has nothing to refer to)
    first: bool,
}

#[derive(Clone, Copy)]
enum Op {
    Start {
        name: NameRef,
        attrs: u32,
        attrs_end: u32,
    },
    End,
    Text(Str),
    Base64(u32),
    Comment(Str),
    Pi(Str, Str),
    /// an UnexpandedEntityReference in `values`
    Uer(u32),
    /// a document-level DocumentTypeDeclaration in `values`
    Dtd(u32),
}

struct Frame {
    op: usize,
    name: NameRef,
    p_attrs: bool,
    p_ns: bool,
    p_base: bool,
    left: usize,
    more: bool,
}

/// What pass 1 records, PER's and BER's alike: the operations, attributes, inline strings and
/// names, binary blocks and generic values, and the largest table indexes used (checked against
/// the tables once they have been read). Each rule's pass only reads its bits or octets and
/// hands the parts to this. Positions are bit offsets (BER: 8 x the octet offset); errors carry
/// them as bit offsets (PER) or octet offsets (BER).
struct Rec<'a> {
    format: Format,
    /// errors at bit offsets (PER), else at octet offsets (BER)
    bits: bool,
    ops: Vec<Op>,
    attrs: Vec<AttrRec>,
    inline: Vec<Cow<'a, str>>,
    names: Vec<InlineName>,
    bytes: Vec<Cow<'a, [u8]>>,
    values: Vec<V<'a>>,
    /// the largest component-string index used, and where
    max_str: Option<(u64, u64)>,
    /// the largest common-name index used, and where
    max_name: Option<(u64, u64)>,
    max_depth: usize,
    has_dtd: bool,
    /// an element name says same-as-parent-element (the decoder then keeps a stack of the
    /// open elements' namespaces)
    parent_ns_used: bool,
    /// where each operation's item starts (bits), when asked for (`binxml inspect`)
    positions: Option<Vec<u64>>,
    /// where the item being read starts
    mark: u64,
}

impl<'a> Rec<'a> {
    fn new(format: Format, bits: bool, limits: &Limits, ops: usize, positions: bool) -> Self {
        Rec {
            format,
            bits,
            ops: Vec::with_capacity(ops),
            attrs: Vec::new(),
            inline: Vec::new(),
            names: Vec::new(),
            bytes: Vec::new(),
            values: Vec::new(),
            max_str: None,
            max_name: None,
            max_depth: limits.max_depth,
            has_dtd: false,
            parent_ns_used: false,
            positions: positions.then(Vec::new),
            mark: 0,
        }
    }

    /// `e` placed at bit offset `at` (BER: at its octet).
    fn at(&self, e: Error, at: u64) -> Error {
        if self.bits {
            e.at_bit(at)
        } else {
            e.at(at / 8)
        }
    }

    #[cold]
    fn too_many(&self, what: &str, at: u64) -> Error {
        self.at(Error::limit(self.format, 0, format!("too many {what}")), at)
    }

    /// `n` as the index of a new item of a list (`what`, for the error at `at`).
    #[inline(always)]
    fn idx(&self, n: usize, what: &str, at: u64) -> Result<u32> {
        if n >= INLINE as usize {
            return Err(self.too_many(what, at));
        }
        Ok(n as u32)
    }

    /// An element at nesting `depth` (1: a root) starts at `at`.
    #[inline]
    fn depth(&self, depth: usize, at: u64) -> Result<()> {
        if depth > self.max_depth {
            return Err(self.at(Error::limit(self.format, 0, "elements nested too deep"), at));
        }
        Ok(())
    }

    /// A component-string index below `INLINE`, read at `at`.
    #[inline(always)]
    fn saw_str(&mut self, i: u64, at: u64) -> Str {
        if self.max_str.is_none_or(|(m, _)| i > m) {
            self.max_str = Some((i, at));
        }
        i as Str
    }

    /// A common-name index below `INLINE`, read at `at`.
    #[inline(always)]
    fn saw_name(&mut self, i: u64, at: u64) -> NameRef {
        if self.max_name.is_none_or(|(m, _)| i > m) {
            self.max_name = Some((i, at));
        }
        i as NameRef
    }

    /// Index `i` (a `what`, read at `at`) fits a [`Str`] or [`NameRef`]; whether its table
    /// holds it is checked at the end.
    #[inline(always)]
    fn fits(&self, i: u64, at: u64, what: &str) -> Result<()> {
        if i >= INLINE as u64 {
            let e = Error::malformed(self.format, 0, format!("{what} {i} outside any table"));
            return Err(self.at(e, at));
        }
        Ok(())
    }

    /// A component-string index read at `at`.
    #[inline]
    fn str_index(&mut self, i: u64, at: u64) -> Result<Str> {
        self.fits(i, at, "component-string-index")?;
        Ok(self.saw_str(i, at))
    }

    /// A common-name index read at `at`.
    #[inline]
    fn common(&mut self, i: u64, at: u64) -> Result<NameRef> {
        self.fits(i, at, "common-name-index")?;
        Ok(self.saw_name(i, at))
    }

    /// The largest index `max` used (a `what`) is in its table of `len` entries.
    fn in_table(&self, max: Option<(u64, u64)>, len: usize, what: &str) -> Result<()> {
        match max {
            Some((i, at)) if i as usize >= len => {
                let msg = format!("{what} {i} outside the table of {len}");
                Err(self.at(Error::malformed(self.format, 0, msg), at))
            }
            _ => Ok(()),
        }
    }

    /// A string written inline (`at`: where the reader is, for the error).
    #[inline(always)]
    fn inline_str(&mut self, s: Cow<'a, str>, at: u64) -> Result<Str> {
        let i = self.idx(self.inline.len(), "inline strings", at)?;
        self.inline.push(s);
        Ok(INLINE | i)
    }

    #[inline]
    fn inline_name(&mut self, ns: Ns, local: Str, prefix: Str, at: u64) -> Result<NameRef> {
        let i = self.idx(self.names.len(), "inline names", at)?;
        self.names.push(InlineName { ns, local, prefix });
        Ok(INLINE | i)
    }

    /// A generic value (entity reference, DTD), its index.
    fn value(&mut self, v: V<'a>, at: u64) -> Result<u32> {
        let i = self.idx(self.values.len(), "values", at)?;
        self.values.push(v);
        Ok(i)
    }

    /// Characters' binary block, its operation.
    fn base64(&mut self, b: Cow<'a, [u8]>, at: u64) -> Result<Op> {
        let i = self.idx(self.bytes.len(), "binary blocks", at)?;
        self.bytes.push(b);
        Ok(Op::Base64(i))
    }

    #[inline]
    fn push(&mut self, op: Op) {
        self.ops.push(op);
        self.position();
    }

    /// Notes that the item read next starts at bit `at`.
    #[inline(always)]
    fn mark(&mut self, at: u64) {
        self.mark = at;
    }

    /// Records the mark as the position of the operation just pushed.
    #[inline(always)]
    fn position(&mut self) {
        if let Some(p) = &mut self.positions {
            p.push(self.mark);
        }
    }

    /// An element's start (its attributes' range patched by [`Rec::end`]): its operation.
    #[inline(always)]
    fn start(&mut self, name: NameRef) -> usize {
        let op = self.ops.len();
        self.ops.push(Op::Start {
            name,
            attrs: 0,
            attrs_end: 0,
        });
        self.position();
        op
    }

    /// Where an element's attributes will start (before they are read).
    #[inline(always)]
    fn attrs_mark(&self, at: u64) -> Result<u32> {
        self.idx(self.attrs.len(), "attributes", at)
    }

    #[inline(always)]
    fn attr(&mut self, name: NameRef, value: Str, ns_list: bool, first: bool) {
        self.attrs.push(AttrRec {
            name,
            value,
            ns_list,
            first,
        });
    }

    /// The end of the element whose start is operation `op`, its attributes from `a0` (see
    /// [`Rec::attrs_mark`]) to the last one read.
    #[inline(always)]
    fn end(&mut self, op: usize, name: NameRef, a0: u32, at: u64) -> Result<()> {
        let a1 = self.idx(self.attrs.len(), "attributes", at)?;
        self.ops[op] = Op::Start {
            name,
            attrs: a0,
            attrs_end: a1,
        };
        self.ops.push(Op::End);
        self.position();
        Ok(())
    }

    /// The decoder: the largest indexes checked against the tables (in `e`), the document's
    /// start and declarations queued.
    fn into_stream(
        self,
        mut e: Emitter<'a>,
        ces: Option<V<'a>>,
        standalone: Option<bool>,
        version: Option<V<'a>>,
        notations: Option<V<'a>>,
        unparsed: Option<V<'a>>,
    ) -> Result<Stream<'a>> {
        self.in_table(self.max_str, e.strings.len(), "component-string-index")?;
        self.in_table(self.max_name, e.names.len(), "common-name-index")?;
        e.start(ces, standalone, version)?;
        let mut decls = e.decls(notations, unparsed)?;
        if !self.has_dtd && !decls.is_empty() {
            e.out.push(Event::DocType(DocType::default()));
            e.out.append(&mut decls);
        }
        let pending: VecDeque<Event<'a>> = std::mem::take(&mut e.out).into();
        let xmlns_name = e.names.iter().map(|n| n.0 == XMLNS_NS).collect();
        Ok(Stream {
            e,
            ops: self.ops,
            positions: self.positions.unwrap_or_default(),
            last_position: 0,
            next: 0,
            attrs: self.attrs,
            inline: self.inline,
            names: self.names,
            bytes: self.bytes,
            values: self.values,
            pending,
            ns_stack: Vec::new(),
            track_ns: self.parent_ns_used,
            decls,
            nss: Vec::new(),
            ats: Vec::new(),
            attr_cur: None,
            xmlns_name,
            ended: false,
        })
    }
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
        if !self.aligned {
            if let Some(w) = self.r.peek() {
                if w >> 62 == 0b10 {
                    let i = (w >> 51) & 0x7FF;
                    let at = self.at() + 1;
                    self.r.advance(13);
                    return Ok(self.rec.saw_str(i, at));
                }
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
        if let Some(w) = self.r.peek() {
            if (w >> 59) & 0b11 == 0b10 {
                let (p_attrs, p_ns, p_base) =
                    (w >> 63 == 1, (w >> 62) & 1 == 1, (w >> 61) & 1 == 1);
                let i = (w >> 55) & 0xF;
                let at = self.at() + 4;
                self.r.advance(9);
                let name = self.rec.saw_name(i, at);
                return self.element_body(name, p_attrs, p_ns, p_base);
            }
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

/// Calls `f` with each piece of `text` between zero octets (as `text.split('\0')`), finding
/// the zeros 8 octets at a time: the table's strings are short, a search call per string cost
/// more than the search.
#[inline]
fn split_zeros<'a>(text: &'a str, mut f: impl FnMut(&'a str) -> Result<()>) -> Result<()> {
    const LO: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let b = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 octets"));
        // the top bit of each zero octet (no carry crosses octets)
        let mut z = !(((w & LO) + LO) | w | LO);
        while z != 0 {
            let at = i + (z.trailing_zeros() / 8) as usize;
            // a zero octet is a character boundary
            f(&text[start..at])?;
            start = at + 1;
            z &= z - 1;
        }
        i += 8;
    }
    while i < b.len() {
        if b[i] == 0 {
            f(&text[start..i])?;
            start = i + 1;
        }
        i += 1;
    }
    f(&text[start..])
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
                split_zeros(text, |s| self.push(Cow::Borrowed(s)))?;
            }
            Cow::Owned(ref b) => {
                let body = &b[off..off + whole - 1];
                let text = std::str::from_utf8(body)
                    .map_err(|e| self.bad(base + off + e.valid_up_to()))?;
                split_zeros(text, |s| self.push(Cow::Owned(s.to_owned())))?;
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

/// The decoder's state after pass 1: operations, and events pulled from them.
pub(crate) struct Stream<'a> {
    e: Emitter<'a>,
    ops: Vec<Op>,
    /// each operation's bit position (empty unless asked for)
    positions: Vec<u64>,
    /// the position of the operation the last event came from
    last_position: u64,
    next: usize,
    attrs: Vec<AttrRec>,
    inline: Vec<Cow<'a, str>>,
    names: Vec<InlineName>,
    bytes: Vec<Cow<'a, [u8]>>,
    values: Vec<V<'a>>,
    pending: VecDeque<Event<'a>>,
    /// namespace name of each open element (kept only when an element name refers to it)
    ns_stack: Vec<Cow<'a, str>>,
    track_ns: bool,
    decls: Vec<Event<'a>>,
    nss: Vec<Event<'a>>,
    ats: Vec<Event<'a>>,
    /// the attributes of the element just started, handed out one per call (all common names)
    attr_cur: Option<AttrCursor>,
    /// per common name: its namespace is `xmlns`'s (a namespace declaration)
    xmlns_name: Vec<bool>,
    ended: bool,
}

/// Namespace events come first (from `namespace-attributes`, then from `attributes`), then
/// attribute events (in the same list order): four phases over the element's attributes.
#[derive(Clone, Copy)]
struct AttrCursor {
    start: u32,
    i: u32,
    end: u32,
    phase: u8,
}

/// Whether an attribute (from `namespace-attributes` or not, a namespace declaration or not)
/// is handed out in `phase` (see [`AttrCursor`]).
#[inline(always)]
fn in_phase(phase: u8, ns_list: bool, is_ns: bool) -> bool {
    match phase {
        0 => ns_list && is_ns,
        1 => !ns_list && is_ns,
        2 => ns_list && !is_ns,
        _ => !ns_list && !is_ns,
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

impl<'a> Stream<'a> {
    /// How many operations pass 1 recorded (about the number of events).
    pub(crate) fn ops_len(&self) -> usize {
        self.ops.len()
    }

    #[inline(always)]
    fn s(&mut self, s: Str) -> Result<Cow<'a, str>> {
        if s & INLINE != 0 {
            // every inline string is used once
            Ok(std::mem::take(&mut self.inline[(s & !INLINE) as usize]))
        } else {
            // checked against the table after pass 1
            let v = self.e.strings[s as usize].clone();
            self.e.charge(v.len())?;
            Ok(v)
        }
    }

    fn opt_s(&mut self, s: Str) -> Result<Cow<'a, str>> {
        if s == NO_STR {
            Ok(Cow::Borrowed(""))
        } else {
            self.s(s)
        }
    }

    /// (namespace, local, prefix); `same` is the parent's (owner's) namespace, `prev` the
    /// previous attribute's.
    #[inline(always)]
    fn name(
        &mut self,
        n: NameRef,
        same: Option<&Cow<'a, str>>,
        prev: Option<&Cow<'a, str>>,
    ) -> Result<(Cow<'a, str>, Cow<'a, str>, Cow<'a, str>)> {
        if n & INLINE == 0 {
            let name = self.e.names[n as usize].clone();
            self.e.charge(name.0.len() + name.1.len() + name.2.len())?;
            return Ok(name);
        }
        self.inline_name(n, same, prev)
    }

    /// [`Stream::name`] of a name written inline.
    #[inline(never)]
    fn inline_name(
        &mut self,
        n: NameRef,
        same: Option<&Cow<'a, str>>,
        prev: Option<&Cow<'a, str>>,
    ) -> Result<(Cow<'a, str>, Cow<'a, str>, Cow<'a, str>)> {
        let rec = self.names[(n & !INLINE) as usize];
        let ns = match rec.ns {
            Ns::None => Cow::Borrowed(""),
            Ns::Str(s) => self.s(s)?,
            Ns::Same => match same {
                Some(x) => self.e.copy(x)?,
                None => Cow::Borrowed(""),
            },
            Ns::Prev => match prev {
                Some(p) => self.e.copy(p)?,
                None => {
                    return Err(Error::malformed(
                        self.e.format(),
                        0,
                        "same-as-previous-attribute on the first attribute",
                    ));
                }
            },
        };
        let local = self.s(rec.local)?;
        let prefix = self.opt_s(rec.prefix)?;
        Ok((ns, local, prefix))
    }

    /// The namespace and attribute events of an element, into `pending`.
    fn attributes(&mut self, a0: u32, a1: u32, owner: &Cow<'a, str>) -> Result<()> {
        for pass_ns in [true, false] {
            let mut prev: Option<Cow<'a, str>> = None;
            for i in a0..a1 {
                let a = self.attrs[i as usize];
                if a.ns_list != pass_ns {
                    continue;
                }
                if a.first {
                    prev = None;
                }
                let (ns, local, prefix) = self.name(a.name, Some(owner), prev.as_ref())?;
                let value = self.s(a.value)?;
                if ns == XMLNS_NS {
                    if prefix == "xmlns" {
                        self.nss.push(Event::Namespace {
                            prefix: local,
                            uri: value,
                        });
                    } else if prefix.is_empty() && local == "xmlns" {
                        self.nss.push(Event::Namespace {
                            prefix: Cow::Borrowed(""),
                            uri: value,
                        });
                    } else {
                        return Err(Error::malformed(
                            self.e.format(),
                            0,
                            format!("bad namespace attribute {prefix}:{local}"),
                        ));
                    }
                } else {
                    self.ats.push(Event::Attribute {
                        name: QName {
                            prefix,
                            namespace: ns.clone(),
                            local,
                        },
                        value,
                    });
                }
                prev = Some(ns);
            }
        }
        self.pending.extend(self.nss.drain(..));
        self.pending.extend(self.ats.drain(..));
        Ok(())
    }

    /// The next namespace or attribute event of the element just started, if any.
    #[inline]
    fn next_attr(&mut self) -> Result<Option<Event<'a>>> {
        while let Some(c) = &mut self.attr_cur {
            if c.i == c.end {
                if c.phase == 3 {
                    self.attr_cur = None;
                    return Ok(None);
                }
                c.phase += 1;
                c.i = c.start;
                continue;
            }
            let a = self.attrs[c.i as usize];
            c.i += 1;
            let is_ns = self.xmlns_name[a.name as usize];
            if !in_phase(c.phase, a.ns_list, is_ns) {
                continue;
            }
            let (ns, local, prefix) = self.name(a.name, None, None)?;
            let value = self.s(a.value)?;
            if !is_ns {
                return Ok(Some(Event::Attribute {
                    name: QName {
                        prefix,
                        namespace: ns,
                        local,
                    },
                    value,
                }));
            }
            if prefix == "xmlns" {
                return Ok(Some(Event::Namespace {
                    prefix: local,
                    uri: value,
                }));
            }
            if prefix.is_empty() && local == "xmlns" {
                return Ok(Some(Event::Namespace {
                    prefix: Cow::Borrowed(""),
                    uri: value,
                }));
            }
            return Err(Error::malformed(
                self.e.format(),
                0,
                format!("bad namespace attribute {prefix}:{local}"),
            ));
        }
        Ok(None)
    }

    /// Events of a rare item that the generic emitter maps, into `pending`.
    fn via_emitter(&mut self, op: Op) -> Result<()> {
        match op {
            Op::Uer(i) => {
                let v = std::mem::replace(&mut self.values[i as usize], V::Null);
                self.e.uer(v)?;
            }
            Op::Dtd(i) => {
                let v = std::mem::replace(&mut self.values[i as usize], V::Null);
                let mut decls = std::mem::take(&mut self.decls);
                self.e.dtd(v, &mut decls)?;
                self.decls = decls;
            }
            _ => {}
        }
        self.pending.extend(self.e.out.drain(..));
        Ok(())
    }

    /// Where the item of the event returned last starts: bits (PER) or 8 x octets (BER); 0
    /// unless positions were asked for.
    pub(crate) fn position(&self) -> u64 {
        self.last_position
    }

    #[inline]
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if self.attr_cur.is_some() {
                if let Some(ev) = self.next_attr()? {
                    return Ok(Some(ev));
                }
            }
            if let Some(ev) = self.pending.pop_front() {
                return Ok(Some(ev));
            }
            let Some(&op) = self.ops.get(self.next) else {
                if self.ended {
                    return Ok(None);
                }
                self.ended = true;
                return Ok(Some(Event::EndDocument));
            };
            if let Some(&p) = self.positions.get(self.next) {
                self.last_position = p;
            }
            self.next += 1;
            return Ok(Some(match op {
                Op::Start {
                    name,
                    attrs,
                    attrs_end,
                } => {
                    let parent = if self.track_ns {
                        self.ns_stack.last().cloned()
                    } else {
                        None
                    };
                    let (namespace, local, prefix) = self.name(name, parent.as_ref(), None)?;
                    if attrs != attrs_end {
                        let all_common = self.attrs[attrs as usize..attrs_end as usize]
                            .iter()
                            .all(|a| a.name & INLINE == 0);
                        if all_common {
                            // handed out one per call, in the order `attributes` gives
                            self.attr_cur = Some(AttrCursor {
                                start: attrs,
                                i: attrs,
                                end: attrs_end,
                                phase: 0,
                            });
                        } else {
                            self.attributes(attrs, attrs_end, &namespace)?;
                        }
                    }
                    if self.track_ns {
                        self.ns_stack.push(namespace.clone());
                    }
                    Event::StartElement(QName {
                        prefix,
                        namespace,
                        local,
                    })
                }
                Op::End => {
                    if self.track_ns {
                        self.ns_stack.pop();
                    }
                    Event::EndElement
                }
                Op::Text(s) => Event::Characters {
                    text: self.s(s)?,
                    cdata: false,
                },
                Op::Base64(i) => {
                    Event::Typed(Typed::Base64(std::mem::take(&mut self.bytes[i as usize])))
                }
                Op::Comment(s) => Event::Comment(self.s(s)?),
                Op::Pi(t, d) => Event::ProcessingInstruction {
                    target: self.s(t)?,
                    data: self.s(d)?,
                },
                Op::Uer(_) | Op::Dtd(_) => {
                    self.via_emitter(op)?;
                    continue;
                }
            }));
        }
    }
}

impl<'a> Stream<'a> {
    /// Push decoding: everything [`Stream::next_event`] would still return, handed to `sink`
    /// in the same order with the same errors at the same points; element starts and ends,
    /// namespaces, attributes and text go to it as their parts, without an [`Event`]. `count`
    /// is increased by the number of events handed over.
    pub(crate) fn push<S: EventSink<'a>>(&mut self, sink: &mut S, count: &mut u64) -> Result<()> {
        // what a pull left half done, and the document's start and declarations
        while self.attr_cur.is_some() || !self.pending.is_empty() {
            match self.next_event()? {
                Some(ev) => {
                    *count += 1;
                    sink.dispatch(ev)?;
                }
                None => return Ok(()),
            }
        }
        while let Some(&op) = self.ops.get(self.next) {
            self.next += 1;
            *count += 1;
            match op {
                Op::Start {
                    name,
                    attrs,
                    attrs_end,
                } => {
                    let parent = if self.track_ns {
                        self.ns_stack.last().cloned()
                    } else {
                        None
                    };
                    let (namespace, local, prefix) = self.name(name, parent.as_ref(), None)?;
                    if attrs == attrs_end {
                        if self.track_ns {
                            self.ns_stack.push(namespace.clone());
                        }
                        sink.start_element(QName {
                            prefix,
                            namespace,
                            local,
                        })?;
                        continue;
                    }
                    let all_common = self.attrs[attrs as usize..attrs_end as usize]
                        .iter()
                        .all(|a| a.name & INLINE == 0);
                    if !all_common {
                        // the same order of work (and of errors) as `next_event`
                        self.attributes(attrs, attrs_end, &namespace)?;
                    }
                    if self.track_ns {
                        self.ns_stack.push(namespace.clone());
                    }
                    sink.start_element(QName {
                        prefix,
                        namespace,
                        local,
                    })?;
                    if all_common {
                        self.push_common_attrs(attrs, attrs_end, sink, count)?;
                    } else {
                        while let Some(ev) = self.pending.pop_front() {
                            *count += 1;
                            sink.dispatch(ev)?;
                        }
                    }
                }
                Op::End => {
                    if self.track_ns {
                        self.ns_stack.pop();
                    }
                    sink.end_element()?;
                }
                Op::Text(s) => {
                    let text = self.s(s)?;
                    sink.text(text)?;
                }
                Op::Base64(i) => sink.event(Event::Typed(Typed::Base64(std::mem::take(
                    &mut self.bytes[i as usize],
                ))))?,
                Op::Comment(s) => {
                    let c = self.s(s)?;
                    sink.event(Event::Comment(c))?;
                }
                Op::Pi(t, d) => {
                    let target = self.s(t)?;
                    let data = self.s(d)?;
                    sink.event(Event::ProcessingInstruction { target, data })?;
                }
                Op::Uer(_) | Op::Dtd(_) => {
                    *count -= 1;
                    self.via_emitter(op)?;
                    while let Some(ev) = self.pending.pop_front() {
                        *count += 1;
                        sink.dispatch(ev)?;
                    }
                }
            }
        }
        if !self.ended {
            self.ended = true;
            *count += 1;
            sink.event(Event::EndDocument)?;
        }
        Ok(())
    }

    /// The namespace and attribute events of an element whose attribute names are all common
    /// names, in the order of [`Stream::next_attr`]: namespace declarations (from
    /// `namespace-attributes`, then from `attributes`), then attributes.
    #[inline]
    fn push_common_attrs<S: EventSink<'a>>(
        &mut self,
        a0: u32,
        a1: u32,
        sink: &mut S,
        count: &mut u64,
    ) -> Result<()> {
        for phase in 0..4u8 {
            for i in a0..a1 {
                let a = self.attrs[i as usize];
                let is_ns = self.xmlns_name[a.name as usize];
                if !in_phase(phase, a.ns_list, is_ns) {
                    continue;
                }
                let (ns, local, prefix) = self.name(a.name, None, None)?;
                let value = self.s(a.value)?;
                *count += 1;
                if !is_ns {
                    sink.attribute(
                        QName {
                            prefix,
                            namespace: ns,
                            local,
                        },
                        value,
                    )?;
                } else if prefix == "xmlns" {
                    sink.namespace(local, value)?;
                } else if prefix.is_empty() && local == "xmlns" {
                    sink.namespace(Cow::Borrowed(""), value)?;
                } else {
                    return Err(Error::malformed(
                        self.e.format(),
                        0,
                        format!("bad namespace attribute {prefix}:{local}"),
                    ));
                }
            }
        }
        Ok(())
    }
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

/// An element whose children BER pass 1 is reading.
struct BerEl {
    el: crate::ber::Header,
    /// `Element.children`'s explicit tag
    wrap: crate::ber::Header,
    /// the list of children
    list: crate::ber::Header,
    op: usize,
    name: NameRef,
}

/// BER pass 1: the elements read front to back with an explicit stack into the same operations
/// as PER's pass 1 (a [`Rec`]); their names, strings, attribute lists and rare children in
/// unusual forms, and everything outside `Document.children`, through the generic value decoder
/// (small values).
struct BerPass<'a> {
    r: crate::ber::BerReader<'a>,
    rec: Rec<'a>,
}

impl<'a> BerPass<'a> {
    /// Where the reader is, as a bit offset (errors of the recorder).
    #[inline(always)]
    fn at(&self) -> u64 {
        self.r.pos() as u64 * 8
    }

    fn shape(&self) -> Error {
        Error::malformed(
            self.rec.format,
            self.r.pos() as u64,
            "internal: value shape",
        )
    }

    /// A decoded StringOrIndex.
    fn str(&mut self, v: V<'a>) -> Result<Str> {
        let V::Choice(alt, b) = v else {
            return Err(self.shape());
        };
        match (alt, *b) {
            (0, V::Text(t)) => self.rec.inline_str(t, self.at()),
            (1, V::Int(i, pos)) => self.rec.str_index(i, pos),
            _ => Err(self.shape()),
        }
    }

    /// A decoded element or attribute name CHOICE.
    fn name(&mut self, v: V<'a>, attr: bool) -> Result<NameRef> {
        let V::Choice(alt, b) = v else {
            return Err(self.shape());
        };
        match (alt, *b) {
            (1, V::Int(i, pos)) => self.rec.common(i, pos),
            (0, V::Seq(mut f)) if f.len() == 3 => {
                let ns = match f[0].take() {
                    None => Ns::None,
                    Some(V::Choice(0, x)) => Ns::Str(self.str(*x)?),
                    Some(V::Choice(1, _)) => {
                        if !attr {
                            self.rec.parent_ns_used = true;
                        }
                        Ns::Same
                    }
                    Some(V::Choice(2, _)) if attr => Ns::Prev,
                    _ => return Err(self.shape()),
                };
                let local = self.str(f[1].take().ok_or_else(|| self.shape())?)?;
                let prefix = match f[2].take() {
                    Some(p) => self.str(p)?,
                    None => NO_STR,
                };
                self.rec.inline_name(ns, local, prefix, self.at())
            }
            _ => Err(self.shape()),
        }
    }

    fn value(&mut self, v: V<'a>) -> Result<u32> {
        self.rec.value(v, self.at())
    }

    /// A child other than an element: alternative `alt` of `Document.children` (`doc`) or of
    /// `Element.children`'s items.
    fn rare(&mut self, doc: bool, alt: usize, lim: Option<usize>) -> Result<()> {
        const DOC: [TyId; 4] = [ELEMENT, PI, COMMENT, DTD];
        const EL: [TyId; 5] = [ELEMENT, PI, UER, CHARACTERS, COMMENT];
        let ty = if doc { DOC[alt] } else { EL[alt] };
        let v = self.r.decode(ty, Some(alt as u8), lim)?;
        let op = match (doc, alt) {
            (_, 1) => {
                let V::Seq(mut f) = v else {
                    return Err(self.shape());
                };
                let (Some(t), Some(d)) = (
                    f.get_mut(0).and_then(Option::take),
                    f.get_mut(1).and_then(Option::take),
                ) else {
                    return Err(self.shape());
                };
                Op::Pi(self.str(t)?, self.str(d)?)
            }
            (true, 2) | (false, 4) => {
                let V::Seq(mut f) = v else {
                    return Err(self.shape());
                };
                let c = f
                    .get_mut(0)
                    .and_then(Option::take)
                    .ok_or_else(|| self.shape())?;
                Op::Comment(self.str(c)?)
            }
            (true, _) => {
                self.rec.has_dtd = true;
                Op::Dtd(self.value(v)?)
            }
            (false, 2) => Op::Uer(self.value(v)?),
            (false, _) => {
                let V::Seq(mut f) = v else {
                    return Err(self.shape());
                };
                match f.get_mut(0).and_then(Option::take) {
                    Some(V::Choice(0, s)) => Op::Text(self.str(*s)?),
                    Some(V::Choice(1, b)) => {
                        let V::Bytes(b) = *b else {
                            return Err(self.shape());
                        };
                        self.rec.base64(b, self.at())?
                    }
                    _ => return Err(self.shape()),
                }
            }
        };
        self.rec.push(op);
        Ok(())
    }

    fn expect_tag(&self, h: &crate::ber::Header, expect: u8) -> Result<()> {
        if h.tag != expect {
            return Err(self.r.err(
                h.at,
                format!("expected tag 0x{expect:02x}, found 0x{:02x}", h.tag),
            ));
        }
        Ok(())
    }

    fn missing(&self, i: usize) -> Error {
        self.r
            .err(self.r.pos(), format!("missing component {i} of a SEQUENCE"))
    }

    /// An element's start: its name and the start of its children; `None` when it is
    /// complete (element-content-characters).
    fn element(&mut self, depth: usize, lim: Option<usize>) -> Result<Option<BerEl>> {
        self.rec.depth(depth, self.at())?;
        let el = self.r.header(lim)?;
        self.expect_tag(&el, 0xA0)?;
        if !self.r.next_is(&el, 0) {
            return Err(self.missing(0));
        }
        let name = match self.fast_common(self.r.pos(), self.lim(el.end)) {
            Some((i, pos, after)) => {
                self.r.set_pos(after);
                self.rec.common(i, pos)?
            }
            None => {
                let v = self.r.decode(EL_NAME, Some(0), el.end)?;
                self.name(v, false)?
            }
        };
        let op = self.rec.start(name);
        if !self.r.next_is(&el, 1) {
            return Err(self.missing(1));
        }
        let wrap = self.r.header(el.end)?;
        if wrap.tag != 0xA1 {
            return Err(self.r.err(
                wrap.at,
                format!("expected tag [1] (explicit), found 0x{:02x}", wrap.tag),
            ));
        }
        let at = self.r.pos();
        let tag = self
            .r
            .peek_tag(wrap.end)
            .ok_or_else(|| self.r.err(at, "missing CHOICE alternative"))?;
        if tag & 0xC0 != 0x80 || (tag & 0x1f) >= 2 {
            return Err(self.r.err(
                at,
                format!("tag 0x{tag:02x} is no alternative of this CHOICE"),
            ));
        }
        if tag & 0x1f == 0 {
            let s = match self.fast_str(self.r.pos(), 0, self.lim(wrap.end)) {
                Some((f, after)) => {
                    self.r.set_pos(after);
                    self.take_str(f)?
                }
                None => {
                    let v = self.r.decode(STR_IDX, Some(0), wrap.end)?;
                    self.str(v)?
                }
            };
            self.rec.push(Op::Text(s));
            self.r.expect_end(&wrap)?;
            self.element_end(&el, op, name)?;
            return Ok(None);
        }
        let list = self.r.header(wrap.end)?;
        self.expect_tag(&list, 0xA1)?;
        Ok(Some(BerEl {
            el,
            wrap,
            list,
            op,
            name,
        }))
    }

    /// The rest of an element after its children.
    fn element_end(&mut self, el: &crate::ber::Header, op: usize, name: NameRef) -> Result<()> {
        let a0 = self.rec.attrs_mark(self.at())?;
        for (i, ns_list) in [(2, false), (3, true)] {
            if !self.r.next_is(el, i) {
                continue;
            }
            if self.fast_attrs(i as u8, el.end, ns_list)? {
                continue;
            }
            let V::List(items) = self.r.decode(ATTRS, Some(i as u8), el.end)? else {
                return Err(self.shape());
            };
            let mut first = true;
            for a in items {
                let V::Seq(mut f) = a else {
                    return Err(self.shape());
                };
                let (Some(n), Some(v)) = (
                    f.get_mut(0).and_then(Option::take),
                    f.get_mut(1).and_then(Option::take),
                ) else {
                    return Err(self.shape());
                };
                let name = self.name(n, true)?;
                let value = self.str(v)?;
                self.rec.attr(name, value, ns_list, first);
                first = false;
            }
        }
        if !self.r.next_is(el, 4) {
            return Err(self.missing(4));
        }
        // same-as-parent-element (the usual value) read from the octets
        let at = self.r.pos();
        if self.r.data().get(at..at + 4) == Some(&[0xA4, 0x02, 0x81, 0x00])
            && el.end.is_none_or(|e| at + 4 <= e)
        {
            self.r.set_pos(at + 4);
        } else {
            self.r.decode(INSCOPE, Some(4), el.end)?;
        }
        if self.r.next_is(el, 5) {
            self.r.decode(IDX_OR_NULL, Some(5), el.end)?;
        }
        self.r.expect_end(el)?;
        self.rec.end(op, name, a0, self.at())
    }

    /// `Document.children` (list header `doc`), every element in it.
    fn children(&mut self, doc: crate::ber::Header) -> Result<()> {
        let mut stack: Vec<BerEl> = Vec::new();
        loop {
            self.rec.mark(self.at());
            let list = stack.last().map_or(doc, |f| f.list);
            if self.r.at_end(&list)? {
                let Some(f) = stack.pop() else {
                    return Ok(());
                };
                self.r.expect_end(&f.wrap)?;
                self.element_end(&f.el, f.op, f.name)?;
                continue;
            }
            let at = self.r.pos();
            let tag = self
                .r
                .peek_tag(list.end)
                .ok_or_else(|| self.r.err(at, "missing CHOICE alternative"))?;
            let alt = (tag & 0x1f) as usize;
            let alts = if stack.is_empty() { 4 } else { 5 };
            if tag & 0xC0 != 0x80 || alt >= alts {
                return Err(self.r.err(
                    at,
                    format!("tag 0x{tag:02x} is no alternative of this CHOICE"),
                ));
            }
            if alt == 0 {
                if let Some(f) = self.element(stack.len() + 1, list.end)? {
                    stack.push(f);
                }
            } else {
                // characters in their usual form straight from the octets, else generic
                let fast = alt == 3 && !stack.is_empty() && self.fast_chars(list.end)?;
                if !fast {
                    self.rare(stack.is_empty(), alt, list.end)?;
                }
            }
        }
    }
}

/// A definite-length TLV at `i` (tag number below 31, length of at most two octets) whose
/// contents end by `end`: (tag, contents start, contents end). `None` for every other form.
#[inline]
fn tlv(d: &[u8], i: usize, end: usize) -> Option<(u8, usize, usize)> {
    let tag = *d.get(i)?;
    if tag & 0x1f == 0x1f {
        return None;
    }
    let l = *d.get(i + 1)? as usize;
    let (len, cs) = if l < 0x80 {
        (l, i + 2)
    } else if l == 0x81 {
        (*d.get(i + 2)? as usize, i + 3)
    } else if l == 0x82 {
        (
            (*d.get(i + 2)? as usize) << 8 | *d.get(i + 3)? as usize,
            i + 4,
        )
    } else {
        return None;
    };
    let ce = cs.checked_add(len)?;
    if ce > end {
        return None;
    }
    Some((tag, cs, ce))
}

/// A StringOrIndex read from the octets (see [`BerPass::fast_str`]).
#[derive(Clone, Copy)]
enum FastStr<'a> {
    Inline(&'a str),
    /// an index and the bit offset of its INTEGER
    Index(u64, u64),
}

/// A small INTEGER's contents (what the generic decoder accepts, up to 8 octets).
#[inline]
fn small_int(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 8 || b[0] & 0x80 != 0 {
        return None;
    }
    Some(b.iter().fold(0u64, |a, &x| (a << 8) | x as u64))
}

impl<'a> BerPass<'a> {
    /// A StringOrIndex with context tag `[ctx]` at `i` in its usual form (explicit tag around a
    /// primitive `[0] UTF8String` or `[1] LargeIndex`, definite lengths), read from the octets:
    /// the string and where it ends. `None` for any other form, which the generic decoder reads
    /// (with its errors).
    #[inline]
    fn fast_str(&self, i: usize, ctx: u8, end: usize) -> Option<(FastStr<'a>, usize)> {
        let d = self.r.data();
        let (t, cs, ce) = tlv(d, i, end)?;
        if t != 0xA0 | ctx {
            return None;
        }
        let (t2, cs2, ce2) = tlv(d, cs, ce)?;
        if ce2 != ce {
            return None;
        }
        match t2 {
            0x80 if ce2 - cs2 <= self.r.max_string() => {
                Some((FastStr::Inline(std::str::from_utf8(&d[cs2..ce2]).ok()?), ce))
            }
            0x81 => Some((FastStr::Index(small_int(&d[cs2..ce2])?, cs as u64 * 8), ce)),
            _ => None,
        }
    }

    /// A common-name index with context tag `[0]` at `i` (explicit tag around `[1]
    /// SmallIndex`): the index, the bit offset of its INTEGER and where it ends.
    #[inline]
    fn fast_common(&self, i: usize, end: usize) -> Option<(u64, u64, usize)> {
        let d = self.r.data();
        let (t, cs, ce) = tlv(d, i, end)?;
        if t != 0xA0 {
            return None;
        }
        let (t2, cs2, ce2) = tlv(d, cs, ce)?;
        if t2 != 0x81 || ce2 != ce {
            return None;
        }
        Some((small_int(&d[cs2..ce2])?, cs as u64 * 8, ce))
    }

    fn take_str(&mut self, f: FastStr<'a>) -> Result<Str> {
        match f {
            FastStr::Inline(s) => self.rec.inline_str(Cow::Borrowed(s), self.at()),
            FastStr::Index(i, pos) => self.rec.str_index(i, pos),
        }
    }

    fn lim(&self, lim: Option<usize>) -> usize {
        lim.unwrap_or(usize::MAX).min(self.r.data().len())
    }

    /// A list of attributes (`[ctx]`, of common names and usual strings only) read from the
    /// octets; false (nothing read) for any other form.
    fn fast_attrs(&mut self, ctx: u8, lim: Option<usize>, ns_list: bool) -> Result<bool> {
        let d = self.r.data();
        let Some((t, cs, ce)) = tlv(d, self.r.pos(), self.lim(lim)) else {
            return Ok(false);
        };
        if t != 0xA0 | ctx || cs == ce {
            return Ok(false);
        }
        let mut found: Vec<(u64, u64, FastStr<'a>)> = Vec::new();
        let mut i = cs;
        while i < ce {
            let Some((t, acs, ace)) = tlv(d, i, ce) else {
                return Ok(false);
            };
            if t != 0x30 {
                return Ok(false);
            }
            let Some((n, npos, after)) = self.fast_common(acs, ace) else {
                return Ok(false);
            };
            let Some((v, after)) = self.fast_str(after, 1, ace) else {
                return Ok(false);
            };
            if after != ace {
                return Ok(false);
            }
            found.push((n, npos, v));
            i = ace;
        }
        let mut first = true;
        for (n, npos, v) in found {
            let name = self.rec.common(n, npos)?;
            let value = self.take_str(v)?;
            self.rec.attr(name, value, ns_list, first);
            first = false;
        }
        self.r.set_pos(ce);
        Ok(true)
    }

    /// `Characters` with a usual string (`[3]`, `[0]` explicit around the string, `[1]` FALSE
    /// or TRUE) read from the octets; false (nothing read) for any other form.
    fn fast_chars(&mut self, lim: Option<usize>) -> Result<bool> {
        let d = self.r.data();
        let Some((t, cs, ce)) = tlv(d, self.r.pos(), self.lim(lim)) else {
            return Ok(false);
        };
        if t != 0xA3 {
            return Ok(false);
        }
        let Some((t, wcs, wce)) = tlv(d, cs, ce) else {
            return Ok(false);
        };
        if t != 0xA0 {
            return Ok(false);
        }
        let Some((s, after)) = self.fast_str(wcs, 0, wce) else {
            return Ok(false);
        };
        if after != wce || d.get(wce..wce + 2) != Some(&[0x81, 0x01]) || wce + 3 != ce {
            return Ok(false);
        }
        let s = self.take_str(s)?;
        self.rec.push(Op::Text(s));
        self.r.set_pos(ce);
        Ok(true)
    }
}

/// BER: reads the whole input (pass 1 over the elements, the rest as generic values) and the
/// tables; then events as for PER.
pub(crate) fn open_ber<'a>(
    input: &'a [u8],
    format: Format,
    limits: &Limits,
    positions: bool,
) -> Result<Stream<'a>> {
    let mut p = BerPass {
        r: crate::ber::BerReader::new(input, format, limits),
        rec: Rec::new(
            format,
            false,
            limits,
            (input.len() / 16).min(1 << 22) + 4,
            positions,
        ),
    };
    let doc = p.r.header(None)?;
    p.expect_tag(&doc, 0x30)?;
    if !p.r.next_is(&doc, 0) {
        return Err(p.missing(0));
    }
    let list = p.r.header(doc.end)?;
    p.expect_tag(&list, 0xA0)?;
    p.children(list)?;
    let crate::schema::Ty::Seq(fields) = &crate::schema::TYPES[DOCUMENT] else {
        return Err(p.shape());
    };
    let mut f: Vec<Option<V<'a>>> = vec![None];
    for (i, (fty, opt)) in fields.iter().enumerate().skip(1) {
        if p.r.next_is(&doc, i) {
            f.push(Some(p.r.decode(*fty, Some(i as u8), doc.end)?));
        } else if *opt {
            f.push(None);
        } else {
            return Err(p.missing(i));
        }
    }
    p.r.expect_end(&doc)?;
    p.r.finish()?;
    let mut e = Emitter::new(format, true, limits.clone(), input.len());
    e.tables(f[8].take(), f[9].take())?;
    let standalone = match f[5] {
        Some(V::Bool(b)) => Some(b),
        _ => None,
    };
    p.rec.into_stream(
        e,
        f[4].take(),
        standalone,
        f[6].take(),
        f[1].take(),
        f[2].take(),
    )
}
