//! X.690 Basic Encoding Rules (definite lengths, primitive strings when encoding; the decoder
//! also accepts constructed strings and indefinite lengths), driven by the schema table.
//! Tags follow AUTOMATIC TAGS: component / alternative `i` is `[i]`, explicit around a CHOICE.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use crate::schema::{TYPES, Ty, TyId};
use crate::value::V;

/// Writes the encoding backwards (contents before their length and tag), reversed at the end.
pub struct BerWriter {
    rev: Vec<u8>,
    format: Format,
}

fn universal(ty: &Ty) -> u8 {
    match ty {
        Ty::Seq(_) | Ty::SeqOf(..) => 0x30,
        Ty::Int(..) => 0x02,
        Ty::Enum(_) => 0x0A,
        Ty::Bool => 0x01,
        Ty::Null => 0x05,
        Ty::Utf8 => 0x0C,
        Ty::Octets => 0x04,
        Ty::RelOid => 0x0D,
        Ty::Choice(_) => 0,
    }
}

fn constructed(ty: &Ty) -> bool {
    matches!(ty, Ty::Seq(_) | Ty::SeqOf(..))
}

impl BerWriter {
    pub fn new(format: Format) -> Self {
        BerWriter {
            rev: Vec::new(),
            format,
        }
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.rev.reverse();
        self.rev
    }

    fn header(&mut self, len: usize, tag: u8) {
        if len < 128 {
            self.rev.push(len as u8);
        } else {
            let mut n = 0;
            let mut l = len;
            while l > 0 {
                self.rev.push(l as u8);
                l >>= 8;
                n += 1;
            }
            self.rev.push(0x80 | n);
        }
        self.rev.push(tag);
    }

    fn mismatch(&self, ty: TyId) -> Error {
        Error::invalid_events(
            self.format,
            format!("internal: value does not fit ASN.1 type #{ty}"),
        )
    }

    /// Encodes `v` of type `ty`, with context tag `[ctx]` (None: the universal tag).
    pub fn encode(&mut self, ty: TyId, v: &V<'_>, ctx: Option<u8>) -> Result<()> {
        // only Element nests without bound: the stack is checked once per element
        if ty == crate::schema::ELEMENT {
            crate::deep(|| self.encode_inner(ty, v, ctx))
        } else {
            self.encode_inner(ty, v, ctx)
        }
    }

    fn encode_inner(&mut self, ty: TyId, v: &V<'_>, ctx: Option<u8>) -> Result<()> {
        let t = &TYPES[ty];
        let start = self.rev.len();
        match (t, v) {
            (Ty::Choice(alts), V::Choice(i, inner)) if (*i as usize) < alts.len() => {
                self.encode(alts[*i as usize], inner, Some(*i))?;
                if let Some(c) = ctx {
                    let len = self.rev.len() - start;
                    self.header(len, 0xA0 | c);
                }
                return Ok(());
            }
            (Ty::Seq(fields), V::Seq(vals)) if vals.len() == fields.len() => {
                for (i, ((fty, opt), val)) in fields.iter().zip(vals).enumerate().rev() {
                    match val {
                        Some(val) => self.encode(*fty, val, Some(i as u8))?,
                        None if *opt => {}
                        None => return Err(self.mismatch(ty)),
                    }
                }
            }
            (Ty::SeqOf(item, _), V::List(items)) => {
                for it in items.iter().rev() {
                    self.encode(*item, it, None)?;
                }
            }
            (Ty::Int(..), V::Int(x, _)) | (Ty::Enum(_), V::Enum(x)) => {
                let mut x = *x;
                loop {
                    self.rev.push(x as u8);
                    let high = x & 0x80;
                    x >>= 8;
                    if x == 0 && high == 0 {
                        break;
                    }
                }
            }
            (Ty::Bool, V::Bool(b)) => self.rev.push(if *b { 0xFF } else { 0 }),
            (Ty::Null, V::Null) => {}
            (Ty::Utf8, V::Text(s)) => self.rev.extend(s.as_bytes().iter().rev()),
            (Ty::Octets | Ty::RelOid, V::Bytes(b)) => self.rev.extend(b.iter().rev()),
            _ => return Err(self.mismatch(ty)),
        }
        let len = self.rev.len() - start;
        let tag = match ctx {
            Some(c) => 0x80 | if constructed(t) { 0x20 } else { 0 } | c,
            None => universal(t),
        };
        self.header(len, tag);
        Ok(())
    }
}

/// An element being written backwards by [`BerWriter::encode_flat`].
struct BerFrame {
    /// where the element's encoding ends (it is written backwards: its first octet written)
    el: usize,
    /// where its children list ends
    list: usize,
}

impl BerWriter {
    /// The contents octets of an INTEGER (backwards).
    fn int_contents(&mut self, mut x: u64) {
        loop {
            self.rev.push(x as u8);
            let high = x & 0x80;
            x >>= 8;
            if x == 0 && high == 0 {
                break;
            }
        }
    }

    /// A StringOrIndex of the flat builder with context tag `[ctx]` (explicit: a CHOICE).
    fn flat_str(
        &mut self,
        r: u32,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
        ctx: u8,
    ) -> Result<()> {
        use crate::sentinel::INLINE;
        let start = self.rev.len();
        let text: &str = if r & INLINE != 0 {
            flat.inline
                .get((r & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?
        } else {
            match refs.strings.get(r as usize) {
                Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => &refs.texts[r as usize],
                Some(&pos) => {
                    // component-string-index [1] LargeIndex
                    self.int_contents(pos as u64);
                    let len = self.rev.len() - start;
                    self.header(len, 0x81);
                    let len = self.rev.len() - start;
                    self.header(len, 0xA0 | ctx);
                    return Ok(());
                }
                None => return Err(self.mismatch(crate::schema::STR_IDX)),
            }
        };
        // [0] UTF8String
        self.rev.extend(text.as_bytes().iter().rev());
        let len = self.rev.len() - start;
        self.header(len, 0x80);
        let len = self.rev.len() - start;
        self.header(len, 0xA0 | ctx);
        Ok(())
    }

    /// An element (`attr` false) or attribute name of the flat builder with context tag
    /// `[ctx]` (explicit: a CHOICE): a common name (`[1] SmallIndex`) or a name written inline
    /// (`[0]` its SEQUENCE).
    fn flat_name(
        &mut self,
        id: u32,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
        ctx: u8,
        attr: bool,
    ) -> Result<()> {
        use crate::flat::FNs;
        use crate::sentinel::{INLINE, NO_STR};
        if id & INLINE != 0 {
            let ty = if attr {
                crate::schema::AT_NAME_SEQ
            } else {
                crate::schema::EL_NAME_SEQ
            };
            let n = *flat
                .names
                .get((id & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(ty))?;
            let start = self.rev.len();
            // [2] prefix, [1] local name, [0] namespace (explicit around its CHOICE)
            if n.prefix != NO_STR {
                self.flat_str(n.prefix, flat, refs, 2)?;
            }
            self.flat_str(n.local, flat, refs, 1)?;
            let ns = self.rev.len();
            match n.ns {
                FNs::None => {}
                FNs::Str(s) => self.flat_str(s, flat, refs, 0)?,
                // NULL alternatives [1] and [2]
                FNs::Same => self.header(0, 0x81),
                FNs::Prev if attr => self.header(0, 0x82),
                FNs::Prev => return Err(self.mismatch(ty)),
            }
            if !matches!(n.ns, FNs::None) {
                let len = self.rev.len() - ns;
                self.header(len, 0xA0);
            }
            // [0] the SEQUENCE alternative, and the explicit tag of the CHOICE
            let len = self.rev.len() - start;
            self.header(len, 0xA0);
            let len = self.rev.len() - start;
            self.header(len, 0xA0 | ctx);
            return Ok(());
        }
        let pos = *refs
            .names
            .get(id as usize)
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        let start = self.rev.len();
        self.int_contents(pos as u64);
        let len = self.rev.len() - start;
        self.header(len, 0x81);
        let len = self.rev.len() - start;
        self.header(len, 0xA0 | ctx);
        Ok(())
    }

    /// Writes `Document` whose children (and the elements in them) are `flat`'s operations
    /// (`doc`'s own `children` are not written; `doc` and `flat.values` are resolved): the same
    /// octets as [`BerWriter::encode`] of the whole value. Backwards, as every encoding here:
    /// the operations from the last.
    pub(crate) fn encode_flat(
        &mut self,
        doc: &V<'_>,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
    ) -> Result<()> {
        use crate::flat::FOp;
        use crate::schema::*;
        let (Ty::Seq(fields), V::Seq(vals)) = (&TYPES[DOCUMENT], doc) else {
            return Err(self.mismatch(DOCUMENT));
        };
        if vals.len() != fields.len() {
            return Err(self.mismatch(DOCUMENT));
        }
        let doc_start = self.rev.len();
        for (i, ((fty, opt), val)) in fields.iter().zip(vals).enumerate().skip(1).rev() {
            match val {
                Some(val) => self.encode(*fty, val, Some(i as u8))?,
                None if *opt => {}
                None => return Err(self.mismatch(DOCUMENT)),
            }
        }
        let children_start = self.rev.len();
        let mut stack: Vec<BerFrame> = Vec::new();
        let mut i = flat.ops.len();
        while i > 0 {
            i -= 1;
            match flat.ops[i] {
                FOp::End {
                    start,
                    scope,
                    n_scope,
                } => {
                    let Some(&FOp::Start {
                        attrs,
                        n_ns,
                        n_attrs,
                        ecc,
                        ..
                    }) = flat.ops.get(start as usize)
                    else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    let el = self.rev.len();
                    if flat.explicit_scopes {
                        // [4] in-scope-namespaces: [0] the list of (prefix [0], name [1])
                        let list = flat
                            .scope_list(scope, n_scope)
                            .ok_or_else(|| self.mismatch(NS_LIST))?;
                        for &(p, u) in list.iter().rev() {
                            let a = self.rev.len();
                            self.flat_str(u, flat, refs, 1)?;
                            if p != crate::sentinel::NO_STR {
                                self.flat_str(p, flat, refs, 0)?;
                            }
                            let len = self.rev.len() - a;
                            self.header(len, 0x30);
                        }
                        let len = self.rev.len() - el;
                        self.header(len, 0xA0);
                        let len = self.rev.len() - el;
                        self.header(len, 0xA4);
                    } else {
                        // [4] in-scope-namespaces: [1] same-as-parent-element NULL
                        self.header(0, 0x81);
                        self.header(2, 0xA4);
                    }
                    // [3] namespace-attributes, [2] attributes
                    let a0 = attrs as usize;
                    let ns = a0..a0 + n_ns as usize;
                    let at = ns.end..ns.end + n_attrs as usize;
                    for (range, tag) in [(ns, 0xA3), (at, 0xA2)] {
                        let Some(list) = flat.attrs.get(range) else {
                            return Err(self.mismatch(ATTRS));
                        };
                        if list.is_empty() {
                            continue;
                        }
                        let l0 = self.rev.len();
                        for &(name, value) in list.iter().rev() {
                            let a = self.rev.len();
                            self.flat_str(value, flat, refs, 1)?;
                            self.flat_name(name, flat, refs, 0, true)?;
                            let len = self.rev.len() - a;
                            self.header(len, 0x30);
                        }
                        let len = self.rev.len() - l0;
                        self.header(len, tag);
                    }
                    if ecc {
                        // [1] children: [0] element-content-characters, the next operation back
                        let Some(FOp::Text(t)) = i.checked_sub(1).map(|j| flat.ops[j]) else {
                            return Err(self.mismatch(ELEMENT));
                        };
                        i -= 1;
                        let c = self.rev.len();
                        self.flat_str(t, flat, refs, 0)?;
                        let len = self.rev.len() - c;
                        self.header(len, 0xA1);
                        if i != start as usize + 1 {
                            return Err(self.mismatch(ELEMENT));
                        }
                    }
                    stack.push(BerFrame {
                        el,
                        list: self.rev.len(),
                    });
                }
                FOp::Start { name, ecc, .. } => {
                    let Some(f) = stack.pop() else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    if !ecc {
                        // [1] children: [1] a list of children
                        let len = self.rev.len() - f.list;
                        self.header(len, 0xA1);
                        let len = self.rev.len() - f.list;
                        self.header(len, 0xA1);
                    }
                    self.flat_name(name, flat, refs, 0, false)?;
                    // [0] element (of a CHOICE of children)
                    let len = self.rev.len() - f.el;
                    self.header(len, 0xA0);
                }
                FOp::Text(t) => {
                    // [3] Characters: [0] a string, [1] element-content-whitespace FALSE
                    let c = self.rev.len();
                    self.rev.push(0);
                    self.header(1, 0x81);
                    let s = self.rev.len();
                    self.flat_str(t, flat, refs, 0)?;
                    let len = self.rev.len() - s;
                    self.header(len, 0xA0);
                    let len = self.rev.len() - c;
                    self.header(len, 0xA3);
                }
                FOp::Child(alt, v) => {
                    let v = flat
                        .values
                        .get(v as usize)
                        .ok_or_else(|| self.mismatch(EL_CHILD))?;
                    let alts = if stack.is_empty() {
                        DOC_CHILD
                    } else {
                        EL_CHILD
                    };
                    let Ty::Choice(alt_tys) = &TYPES[alts] else {
                        return Err(self.mismatch(alts));
                    };
                    let Some(&ty) = alt_tys.get(alt as usize) else {
                        return Err(self.mismatch(alts));
                    };
                    self.encode(ty, v, Some(alt))?;
                }
            }
        }
        if !stack.is_empty() {
            return Err(self.mismatch(ELEMENT));
        }
        // [0] children
        let len = self.rev.len() - children_start;
        self.header(len, 0xA0);
        let len = self.rev.len() - doc_start;
        self.header(len, 0x30);
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    /// the identifier octet (class, constructed bit, tag number below 31)
    pub(crate) tag: u8,
    /// offset of the identifier octet
    pub(crate) at: usize,
    /// end of the contents; `None` for the indefinite form (ends at an end-of-contents)
    pub(crate) end: Option<usize>,
}

pub struct BerReader<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
    depth: usize,
    max_depth: usize,
    max_string: usize,
}

impl<'a> BerReader<'a> {
    pub fn new(data: &'a [u8], format: Format, limits: &Limits) -> Self {
        BerReader {
            data,
            pos: 0,
            format,
            depth: 0,
            max_depth: limits.max_depth.saturating_mul(6).saturating_add(16),
            max_string: limits.max_string_len,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn data(&self) -> &'a [u8] {
        self.data
    }

    pub(crate) fn max_string(&self) -> usize {
        self.max_string
    }

    /// Moves past a value that a caller read from [`BerReader::data`] itself.
    pub(crate) fn set_pos(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    pub(crate) fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::malformed(self.format, at as u64, msg)
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.err(self.pos, "truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn peek_tag(&self, limit: Option<usize>) -> Option<u8> {
        if limit.is_some_and(|l| self.pos >= l) {
            return None;
        }
        match self.data.get(self.pos) {
            // end-of-contents of an enclosing indefinite form
            Some(0) if limit.is_none() => None,
            b => b.copied(),
        }
    }

    pub(crate) fn header(&mut self, limit: Option<usize>) -> Result<Header> {
        let at = self.pos;
        let tag = self.byte()?;
        if tag & 0x1f == 0x1f {
            return Err(self.err(at, "tag number above 30 (not in this module)"));
        }
        let l = self.byte()?;
        let end = if l < 0x80 {
            Some(l as usize)
        } else if l == 0x80 {
            if tag & 0x20 == 0 {
                return Err(self.err(at, "indefinite length on a primitive encoding"));
            }
            None
        } else {
            let n = (l & 0x7f) as usize;
            if n > 8 {
                return Err(self.err(at, "length of more than 8 octets"));
            }
            let mut len = 0usize;
            for _ in 0..n {
                len = len
                    .checked_shl(8)
                    .ok_or_else(|| self.err(at, "length overflow"))?
                    | self.byte()? as usize;
            }
            Some(len)
        };
        let end = match end {
            Some(len) => {
                let e = self.pos.checked_add(len).filter(|&e| e <= self.data.len());
                let e = e.ok_or_else(|| {
                    self.err(at, format!("length {len} runs past the end of the input"))
                })?;
                if limit.is_some_and(|l| e > l) {
                    return Err(self.err(
                        at,
                        format!("length {len} runs past the end of the enclosing value"),
                    ));
                }
                Some(e)
            }
            None => None,
        };
        Ok(Header { tag, at, end })
    }

    /// True when the contents of `h` are exhausted (consumes the end-of-contents octets).
    pub(crate) fn at_end(&mut self, h: &Header) -> Result<bool> {
        match h.end {
            Some(e) => Ok(self.pos >= e),
            None => {
                if self.data.get(self.pos..self.pos + 2) == Some(&[0, 0]) {
                    self.pos += 2;
                    Ok(true)
                } else if self.pos >= self.data.len() {
                    Err(self.err(self.pos, "truncated: missing end-of-contents"))
                } else {
                    Ok(false)
                }
            }
        }
    }

    /// Whether the next component of the SEQUENCE `h` is its component `i` (as the SEQUENCE
    /// decoder decides).
    pub(crate) fn next_is(&self, h: &Header, i: usize) -> bool {
        let next = if h.end.is_none() && self.data.get(self.pos..self.pos + 2) == Some(&[0, 0]) {
            None
        } else {
            self.peek_tag(h.end)
        };
        next.is_some_and(|tg| tg & 0xC0 == 0x80 && (tg & 0x1f) as usize == i)
    }

    pub(crate) fn expect_end(&mut self, h: &Header) -> Result<()> {
        if !self.at_end(h)? {
            return Err(self.err(
                self.pos,
                "unexpected data at the end of a constructed value",
            ));
        }
        Ok(())
    }

    fn limit_of(h: &Header) -> Option<usize> {
        h.end
    }

    pub fn decode(&mut self, ty: TyId, ctx: Option<u8>, limit: Option<usize>) -> Result<V<'a>> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error::limit(
                self.format,
                self.pos as u64,
                "nesting too deep",
            ));
        }
        // only Element nests without bound: the stack is checked once per element
        let r = if ty == crate::schema::ELEMENT {
            crate::deep(|| self.decode_inner(ty, ctx, limit))
        } else {
            self.decode_inner(ty, ctx, limit)
        };
        self.depth -= 1;
        r
    }

    fn decode_inner(&mut self, ty: TyId, ctx: Option<u8>, limit: Option<usize>) -> Result<V<'a>> {
        let t = &TYPES[ty];
        if let Ty::Choice(alts) = t {
            let outer = match ctx {
                Some(c) => {
                    let h = self.header(limit)?;
                    if h.tag != 0xA0 | c {
                        return Err(self.err(
                            h.at,
                            format!("expected tag [{c}] (explicit), found 0x{:02x}", h.tag),
                        ));
                    }
                    Some(h)
                }
                None => None,
            };
            let inner_limit = outer.as_ref().map_or(limit, Self::limit_of);
            let at = self.pos;
            let tag = self
                .peek_tag(inner_limit)
                .ok_or_else(|| self.err(at, "missing CHOICE alternative"))?;
            let i = (tag & 0x1f) as usize;
            if tag & 0xC0 != 0x80 || i >= alts.len() {
                return Err(self.err(
                    at,
                    format!("tag 0x{tag:02x} is no alternative of this CHOICE"),
                ));
            }
            let v = self.decode(alts[i], Some(i as u8), inner_limit)?;
            if let Some(h) = outer {
                self.expect_end(&h)?;
            }
            return Ok(V::Choice(i as u8, Box::new(v)));
        }
        let expect = match ctx {
            Some(c) => 0x80 | if constructed(t) { 0x20 } else { 0 } | c,
            None => universal(t),
        };
        let h = self.header(limit)?;
        let strings = matches!(t, Ty::Utf8 | Ty::Octets | Ty::RelOid);
        if h.tag != expect && !(strings && h.tag == expect | 0x20) {
            return Err(self.err(
                h.at,
                format!("expected tag 0x{expect:02x}, found 0x{:02x}", h.tag),
            ));
        }
        let lim = h.end;
        Ok(match t {
            Ty::Seq(fields) => {
                let mut vals = Vec::with_capacity(fields.len());
                for (i, (fty, opt)) in fields.iter().enumerate() {
                    let next = if h.end.is_none()
                        && self.data.get(self.pos..self.pos + 2) == Some(&[0, 0])
                    {
                        None
                    } else {
                        self.peek_tag(lim)
                    };
                    if next.is_some_and(|tg| tg & 0xC0 == 0x80 && (tg & 0x1f) as usize == i) {
                        vals.push(Some(self.decode(*fty, Some(i as u8), lim)?));
                    } else if *opt {
                        vals.push(None);
                    } else {
                        return Err(
                            self.err(self.pos, format!("missing component {i} of a SEQUENCE"))
                        );
                    }
                }
                self.expect_end(&h)?;
                V::Seq(vals)
            }
            Ty::SeqOf(item, _) => {
                let mut items = Vec::new();
                while !self.at_end(&h)? {
                    items.push(self.decode(*item, None, lim)?);
                }
                V::List(items)
            }
            Ty::Int(..) | Ty::Enum(_) => {
                let e = h.end.unwrap_or(self.pos);
                let b = &self.data[self.pos..e];
                if b.is_empty() || b[0] & 0x80 != 0 || b.len() > 9 || (b.len() == 9 && b[0] != 0) {
                    return Err(self.err(
                        h.at,
                        "integer outside 0..2^64 (negative, empty or too long)",
                    ));
                }
                self.pos = e;
                let x = b.iter().fold(0u64, |a, &x| (a << 8) | x as u64);
                match t {
                    Ty::Enum(n) if x >= *n => {
                        return Err(self.err(h.at, format!("enumeration value {x} unknown")));
                    }
                    Ty::Enum(_) => V::Enum(x),
                    _ => V::Int(x, h.at as u64 * 8),
                }
            }
            Ty::Bool => {
                if h.end != Some(self.pos + 1) {
                    return Err(self.err(h.at, "BOOLEAN of length other than 1"));
                }
                V::Bool(self.byte()? != 0)
            }
            Ty::Null => {
                if h.end != Some(self.pos) {
                    return Err(self.err(h.at, "NULL with contents"));
                }
                V::Null
            }
            Ty::Utf8 | Ty::Octets | Ty::RelOid => {
                let bytes = self.string_contents(&h, 0)?;
                if let Ty::Utf8 = t {
                    match bytes {
                        Cow::Borrowed(b) => V::Text(Cow::Borrowed(
                            std::str::from_utf8(b)
                                .map_err(|_| self.err(h.at, "invalid UTF-8 in UTF8String"))?,
                        )),
                        Cow::Owned(b) => V::Text(Cow::Owned(
                            String::from_utf8(b)
                                .map_err(|_| self.err(h.at, "invalid UTF-8 in UTF8String"))?,
                        )),
                    }
                } else {
                    V::Bytes(bytes)
                }
            }
            Ty::Choice(_) => unreachable!(),
        })
    }

    /// Contents of a string value, primitive or constructed (segments of the universal type).
    fn string_contents(&mut self, h: &Header, nest: usize) -> Result<Cow<'a, [u8]>> {
        if h.tag & 0x20 == 0 {
            let e = h.end.unwrap_or(self.pos);
            if e - self.pos > self.max_string {
                return Err(Error::limit(
                    self.format,
                    h.at as u64,
                    "string exceeds the length limit",
                ));
            }
            let b = &self.data[self.pos..e];
            self.pos = e;
            return Ok(Cow::Borrowed(b));
        }
        if nest > 16 {
            return Err(self.err(h.at, "constructed string nested too deep"));
        }
        let mut all = Vec::new();
        while !self.at_end(h)? {
            let seg = self.header(h.end)?;
            if seg.tag & 0xDF != 0x04 && seg.tag & 0xDF != 0x0C && seg.tag & 0xDF != 0x0D {
                return Err(self.err(seg.at, "bad segment of a constructed string"));
            }
            let part = self.string_contents(&seg, nest + 1)?;
            if all.len() + part.len() > self.max_string {
                return Err(Error::limit(
                    self.format,
                    h.at as u64,
                    "string exceeds the length limit",
                ));
            }
            all.extend_from_slice(&part);
        }
        Ok(Cow::Owned(all))
    }

    pub fn finish(&self) -> Result<()> {
        if self.pos != self.data.len() {
            return Err(self.err(
                self.pos,
                format!(
                    "{} trailing bytes after the value",
                    self.data.len() - self.pos
                ),
            ));
        }
        Ok(())
    }
}
