//! The BER reader: abstract values, and the headers the decoder's pass 1 reads.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use super::{constructed, universal};
use crate::schema::{TYPES, Ty, TyId};
use crate::value::V;

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

    /// The header at the reader: identifier, length and where the contents end (checked
    /// against `limit` and the input).
    #[inline]
    pub(crate) fn header(&mut self, limit: Option<usize>) -> Result<Header> {
        // the usual form (a low tag number and a short definite length) without the checks
        // of the others
        let at = self.pos;
        if let (Some(&tag), Some(&l)) = (self.data.get(at), self.data.get(at + 1))
            && tag & 0x1f != 0x1f
            && l < 0x80
        {
            let e = at + 2 + l as usize;
            if e <= self.data.len() && limit.is_none_or(|lim| e <= lim) {
                self.pos = at + 2;
                return Ok(Header {
                    tag,
                    at,
                    end: Some(e),
                });
            }
        }
        self.header_slow(limit)
    }

    #[inline(never)]
    fn header_slow(&mut self, limit: Option<usize>) -> Result<Header> {
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
