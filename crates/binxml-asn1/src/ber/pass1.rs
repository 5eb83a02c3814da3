//! The BER decoder's pass 1: the octets, front to back, into a [`Rec`]; the tables.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use crate::emit::Emitter;
use crate::schema::*;
use crate::sentinel::NO_STR;
use crate::stream::{NameRef, Ns, Op, Rec, Str, Stream};
use crate::value::V;

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
pub(crate) fn open<'a>(
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
