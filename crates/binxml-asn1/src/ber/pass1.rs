//! The BER decoder's pass 1: the octets, front to back, into a [`Rec`]; the tables.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use crate::ber::Header;
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
    /// the attributes [`BerPass::fast_attrs`] found (kept between elements: no allocation per
    /// list)
    found: Vec<(u64, u64, FastStr<'a>)>,
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
    #[inline(always)]
    fn element_end(&mut self, el: &crate::ber::Header, op: usize, name: NameRef) -> Result<()> {
        // the usual end of an element without attributes: same-as-parent-element (an `[4]`
        // first means no `[2]` or `[3]` before it) and nothing after it
        let at = self.r.pos();
        if el.end == Some(at + 4)
            && self.r.data().get(at..at + 4) == Some(&[0xA4, 0x02, 0x81, 0x00])
        {
            self.r.set_pos(at + 4);
            self.rec.end_plain();
            return Ok(());
        }
        self.element_end_attrs(el, op, name)
    }

    /// [`BerPass::element_end`] of an element with attributes or another end.
    #[inline(never)]
    fn element_end_attrs(
        &mut self,
        el: &crate::ber::Header,
        op: usize,
        name: NameRef,
    ) -> Result<()> {
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
        // the usual end: same-as-parent-element and nothing after it
        let at = self.r.pos();
        if el.end == Some(at + 4)
            && self.r.data().get(at..at + 4) == Some(&[0xA4, 0x02, 0x81, 0x00])
        {
            self.r.set_pos(at + 4);
            return self.rec.end(op, name, a0, self.at());
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
        'list: loop {
            // the items of a definite-length list in their usual forms, straight from the
            // octets, until one that is not (or the list's end)
            if let Some(e) = stack.last().map_or(doc.end, |f| f.list.end) {
                let inside = !stack.is_empty();
                loop {
                    let pos = self.r.pos();
                    if pos >= e {
                        break;
                    }
                    self.rec.mark(pos as u64 * 8);
                    match self.r.data()[pos] {
                        0xA0 => {
                            let open = stack.len();
                            if !self.fast_element(pos, e, &mut stack)? {
                                break;
                            }
                            if stack.len() > open {
                                continue 'list;
                            }
                        }
                        0xA3 if inside => {
                            if !self.fast_chars(e)? {
                                break;
                            }
                        }
                        _ => break,
                    }
                }
            }
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
                let fast = alt == 3 && !stack.is_empty() && self.fast_chars(self.lim(list.end))?;
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

/// `Characters` at `p` with every length in the short form (`[3]`, `[0]` explicit around
/// a StringOrIndex of `[0]` explicit around a primitive `[0] UTF8String` (at most `max`
/// octets) or `[1]` LargeIndex, then `[1]` BOOLEAN) whose contents end by `end`, read with
/// one look at its 8 header octets: the string and where the item ends. `None` for every
/// other form.
#[inline(always)]
fn chars_short<'a>(d: &'a [u8], p: usize, end: usize, max: usize) -> Option<(FastStr<'a>, usize)> {
    let h: [u8; 8] = d.get(p..p + 8)?.try_into().ok()?;
    let l = h[1] as usize;
    // A3 l A0 l-5 A0 l-7 T l-9 (contents) 81 01 xx
    if h[0] != 0xA3
        || h[2] != 0xA0
        || h[4] != 0xA0
        || l >= 0x80
        || h[3] as usize + 5 != l
        || h[5] as usize + 7 != l
        || h[7] as usize + 9 != l
    {
        return None;
    }
    let ce = p + 2 + l;
    if ce > end {
        return None;
    }
    let b = d.get(p + 8..ce - 3)?;
    if d.get(ce - 3..ce - 1) != Some(&[0x81, 0x01]) {
        return None;
    }
    match h[6] {
        0x80 if b.len() <= max => Some((FastStr::Inline(std::str::from_utf8(b).ok()?), ce)),
        0x81 => Some((FastStr::Index(small_int(b)?, (p + 6) as u64 * 8), ce)),
        _ => None,
    }
}

/// A StringOrIndex read from the octets (see [`BerPass::fast_str`]).
#[derive(Clone, Copy)]
enum FastStr<'a> {
    Inline(&'a str),
    /// an index and the bit offset of its INTEGER
    Index(u64, u64),
}

/// A small INTEGER's contents (what the generic decoder accepts, up to 8 octets).
#[inline(always)]
fn small_int(b: &[u8]) -> Option<u64> {
    match *b {
        [x] if x < 0x80 => Some(x as u64),
        [x, y] if x < 0x80 => Some((x as u64) << 8 | y as u64),
        _ => small_int_long(b),
    }
}

/// [`small_int`] of other lengths.
#[inline(never)]
fn small_int_long(b: &[u8]) -> Option<u64> {
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
    #[inline(always)]
    fn fast_str(&self, i: usize, ctx: u8, end: usize) -> Option<(FastStr<'a>, usize)> {
        let d = self.r.data();
        // both lengths in the short form (every encoding is at least 4 octets long)
        let h = d.get(i..i + 4)?;
        if h[0] == 0xA0 | ctx && h[3] < 0x80 && h[1] as usize == h[3] as usize + 2 {
            let ce = i + 4 + h[3] as usize;
            let b = d.get(i + 4..ce).filter(|_| ce <= end)?;
            return match h[2] {
                0x80 if b.len() <= self.r.max_string() => {
                    Some((FastStr::Inline(std::str::from_utf8(b).ok()?), ce))
                }
                0x81 => Some((FastStr::Index(small_int(b)?, (i + 2) as u64 * 8), ce)),
                _ => None,
            };
        }
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
        // both lengths in the short form
        let h = d.get(i..i + 4)?;
        if h[0] == 0xA0 && h[2] == 0x81 && h[3] < 0x80 && h[1] as usize == h[3] as usize + 2 {
            let ce = i + 4 + h[3] as usize;
            let b = d.get(i + 4..ce).filter(|_| ce <= end)?;
            return Some((small_int(b)?, (i + 2) as u64 * 8, ce));
        }
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

    /// An element at `p` (in a list that ends at `e`) in its usual form: `[0]` with definite
    /// lengths, a common name, and children that are either element-content-characters in
    /// the usual form (the element then read to its end) or a list (the element pushed on
    /// `stack`, its children next). False, with nothing read, for any other form, which the
    /// generic path reads (with its errors).
    #[inline(always)]
    fn fast_element(&mut self, p: usize, e: usize, stack: &mut Vec<BerEl>) -> Result<bool> {
        let d = self.r.data();
        let Some((0xA0, cs, ce)) = tlv(d, p, e) else {
            return Ok(false);
        };
        // the name: `[0]` explicit around `[1]` SmallIndex, mostly of one octet
        let (idx, npos, after) = match d.get(cs..cs + 5) {
            Some(&[0xA0, 0x03, 0x81, 0x01, x]) if x < 0x80 && cs + 5 <= ce => {
                (x as u64, (cs + 2) as u64 * 8, cs + 5)
            }
            _ => match self.fast_common(cs, ce) {
                Some(n) => n,
                None => return Ok(false),
            },
        };
        let Some((0xA1, wcs, wce)) = tlv(d, after, ce) else {
            return Ok(false);
        };
        let el = Header {
            tag: 0xA0,
            at: p,
            end: Some(ce),
        };
        match d.get(wcs) {
            Some(0xA0) => {
                let Some((s, sce)) = self.fast_str(wcs, 0, wce) else {
                    return Ok(false);
                };
                if sce != wce {
                    return Ok(false);
                }
                self.rec.depth(stack.len() + 1, p as u64 * 8)?;
                let name = self.rec.common(idx, npos)?;
                let op = self.rec.start(name);
                self.r.set_pos(wce);
                let s = self.take_str(s)?;
                self.rec.push(Op::Text(s));
                self.element_end(&el, op, name)?;
            }
            Some(0xA1) => {
                let Some((_, lcs, lce)) = tlv(d, wcs, wce) else {
                    return Ok(false);
                };
                if lce != wce {
                    return Ok(false);
                }
                self.rec.depth(stack.len() + 1, p as u64 * 8)?;
                let name = self.rec.common(idx, npos)?;
                let op = self.rec.start(name);
                self.r.set_pos(lcs);
                stack.push(BerEl {
                    el,
                    wrap: Header {
                        tag: 0xA1,
                        at: after,
                        end: Some(wce),
                    },
                    list: Header {
                        tag: 0xA1,
                        at: wcs,
                        end: Some(lce),
                    },
                    op,
                    name,
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    #[inline(always)]
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
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let mut i = cs;
        while i < ce {
            let item = tlv(d, i, ce)
                .filter(|&(t, _, _)| t == 0x30)
                .and_then(|(_, acs, ace)| {
                    let (n, npos, after) = self.fast_common(acs, ace)?;
                    let (v, after) = self.fast_str(after, 1, ace)?;
                    (after == ace).then_some(((n, npos, v), ace))
                });
            let Some((a, ace)) = item else {
                self.found = found;
                return Ok(false);
            };
            found.push(a);
            i = ace;
        }
        let mut first = true;
        for &(n, npos, v) in &found {
            let name = self.rec.common(n, npos)?;
            let value = self.take_str(v)?;
            self.rec.attr(name, value, ns_list, first);
            first = false;
        }
        self.found = found;
        self.r.set_pos(ce);
        Ok(true)
    }

    /// `Characters` with a usual string (`[3]`, `[0]` explicit around the string, `[1]` FALSE
    /// or TRUE) read from the octets; false (nothing read) for any other form.
    #[inline(always)]
    fn fast_chars(&mut self, end: usize) -> Result<bool> {
        let d = self.r.data();
        let p = self.r.pos();
        if let Some((s, ce)) = chars_short(d, p, end, self.r.max_string()) {
            let s = self.take_str(s)?;
            self.rec.push(Op::Text(s));
            self.r.set_pos(ce);
            return Ok(true);
        }
        self.fast_chars_long(end)
    }

    /// [`BerPass::fast_chars`] of the other definite forms.
    #[inline(never)]
    fn fast_chars_long(&mut self, end: usize) -> Result<bool> {
        let d = self.r.data();
        let Some((t, cs, ce)) = tlv(d, self.r.pos(), end) else {
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

/// A part of a common name that may say same-as-previous-item (see
/// [`BerPass::fast_common_name`]).
#[derive(Clone, Copy)]
enum FastPart<'a> {
    Absent,
    Str(FastStr<'a>),
    Prev,
}

impl<'a> BerPass<'a> {
    /// An optional `[ctx]` CHOICE { `[0]` StringOrIndex, `[1]` same-as-previous-item NULL } at
    /// `i` in its usual form: the part and where it ends.
    #[inline]
    fn fast_part(&self, i: usize, ctx: u8, end: usize) -> Option<(FastPart<'a>, usize)> {
        let d = self.r.data();
        if i >= end || d[i] != 0xA0 | ctx {
            return Some((FastPart::Absent, i));
        }
        let (_, cs, ce) = tlv(d, i, end)?;
        if d.get(cs..ce) == Some(&[0x81, 0x00]) {
            return Some((FastPart::Prev, ce));
        }
        let (s, after) = self.fast_str(cs, 0, ce)?;
        (after == ce).then_some((FastPart::Str(s), ce))
    }

    /// An item of `Document.common-names` at `i` in its usual form (definite lengths, the
    /// usual strings): (namespace, local name, prefix) and where it ends. `None` for any other
    /// form.
    #[inline]
    fn fast_common_name(&self, i: usize, end: usize) -> Option<([FastPart<'a>; 3], usize)> {
        let d = self.r.data();
        let (t, cs, ce) = tlv(d, i, end)?;
        if t != 0x30 {
            return None;
        }
        let (ns, p) = self.fast_part(cs, 0, ce)?;
        let (local, p) = self.fast_str(p, 1, ce)?;
        let (prefix, p) = self.fast_part(p, 2, ce)?;
        (p == ce).then_some(([ns, FastPart::Str(local), prefix], ce))
    }

    /// `Document.common-names` (`[9]`) into `e`'s names; `e` holds the strings. Items in
    /// their usual form are read from the octets, others through the generic decoder.
    fn common_names(&mut self, e: &mut Emitter<'a>, lim: Option<usize>) -> Result<()> {
        let list = self.r.header(lim)?;
        self.expect_tag(&list, 0xA9)?;
        while !self.r.at_end(&list)? {
            let at = self.r.pos();
            if e.names.len() >= e.limits.max_table_entries {
                return Err(Error::limit(
                    self.rec.format,
                    at as u64,
                    "too many common names",
                ));
            }
            let Some((parts, ce)) = self.fast_common_name(at, self.lim(list.end)) else {
                let v = self.r.decode(CN_ITEM, None, list.end)?;
                e.tables(None, Some(V::List(vec![v])))?;
                continue;
            };
            let mut name = [Cow::Borrowed(""), Cow::Borrowed(""), Cow::Borrowed("")];
            for (k, part) in parts.into_iter().enumerate() {
                name[k] = match part {
                    FastPart::Absent => Cow::Borrowed(""),
                    FastPart::Str(FastStr::Inline(s)) => Cow::Borrowed(s),
                    FastPart::Str(FastStr::Index(i, pos)) => e.lookup(i, pos)?,
                    FastPart::Prev => {
                        let Some(prev) = e.names.last() else {
                            return Err(self
                                .r
                                .err(at, "same-as-previous-item in the first common name"));
                        };
                        let prev = if k == 0 { &prev.0 } else { &prev.2 };
                        e.copy(&prev.clone())?
                    }
                };
            }
            let [ns, local, prefix] = name;
            e.names.push((ns, local, prefix));
            self.r.set_pos(ce);
        }
        Ok(())
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
    // tabled BER holds an operation per 6-10 octets; what a bigger document needs beyond 64 MiB
    // of operations grows as they come
    let mut p = BerPass {
        r: crate::ber::BerReader::new(input, format, limits),
        rec: Rec::new(
            format,
            false,
            limits,
            (input.len() / 8).min(1 << 22) + 4,
            positions,
        ),
        found: Vec::new(),
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
    let mut e = Emitter::new(format, true, limits.clone(), input.len());
    let mut f: Vec<Option<V<'a>>> = vec![None];
    for (i, (fty, opt)) in fields.iter().enumerate().skip(1) {
        if i == 9 && p.r.next_is(&doc, i) {
            // common-names, read straight into the emitter (the strings first)
            e.tables(f[8].take(), None)?;
            p.common_names(&mut e, doc.end)?;
            f.push(None);
        } else if p.r.next_is(&doc, i) {
            f.push(Some(p.r.decode(*fty, Some(i as u8), doc.end)?));
        } else if *opt {
            f.push(None);
        } else {
            return Err(p.missing(i));
        }
    }
    p.r.expect_end(&doc)?;
    p.r.finish()?;
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
