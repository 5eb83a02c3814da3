//! The PER reader: abstract values, and the single fields the decoder's pass 1 reads.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use super::FRAG;
use crate::schema::{TYPES, Ty, TyId};
use crate::value::V;

pub struct PerReader<'a> {
    aligned: bool,
    data: &'a [u8],
    pos: usize,
    format: Format,
    depth: usize,
    max_depth: usize,
    max_string: usize,
}

impl<'a> PerReader<'a> {
    pub fn new(data: &'a [u8], aligned: bool, format: Format, limits: &Limits) -> Self {
        PerReader {
            aligned,
            data,
            pos: 0,
            format,
            depth: 0,
            // An element nests five values deep (Element, children CHOICE, SEQUENCE OF, CHOICE).
            max_depth: limits.max_depth.saturating_mul(5).saturating_add(16),
            max_string: limits.max_string_len,
        }
    }

    pub fn bit_pos(&self) -> usize {
        self.pos
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::malformed(self.format, 0, msg).at_bit(at as u64)
    }

    fn remaining(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    #[inline(always)]
    fn get(&mut self, n: u32) -> Result<u64> {
        debug_assert!(n <= 56);
        // a big-endian 64-bit window at the current byte: with eight bytes left, at least 57
        // bits are, so no further check
        let byte = self.pos >> 3;
        match self.data.get(byte..byte + 8) {
            Some(b) => {
                let w = u64::from_be_bytes(b.try_into().unwrap_or([0; 8]));
                let off = (self.pos & 7) as u32;
                self.pos += n as usize;
                // `>> 1 >> (63 - n)` is `>> (64 - n)` without overflow when n is 0
                Ok(((w << off) >> 1) >> (63 - n))
            }
            None => self.get_near_end(n),
        }
    }

    /// The next bits, left-aligned (at least 57 valid), without consuming them; `None` within
    /// eight bytes of the end.
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u64> {
        let byte = self.pos >> 3;
        let b: [u8; 8] = self.data.get(byte..byte + 8)?.try_into().ok()?;
        Some(u64::from_be_bytes(b) << (self.pos & 7))
    }

    /// Consumes `n` bits seen through [`Self::peek`].
    #[inline(always)]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    #[cold]
    #[inline(never)]
    fn get_near_end(&mut self, n: u32) -> Result<u64> {
        if n as usize > self.remaining() {
            return Err(self.err(
                self.pos,
                format!("truncated: {n} more bits needed, {} left", self.remaining()),
            ));
        }
        if n == 0 {
            return Ok(0);
        }
        let byte = self.pos / 8;
        let off = (self.pos % 8) as u32;
        // zero-filled past the end
        let mut buf = [0u8; 8];
        let avail = self.data.len() - byte;
        buf[..avail].copy_from_slice(&self.data[byte..]);
        let w = u64::from_be_bytes(buf);
        self.pos += n as usize;
        Ok((w << off) >> (64 - n))
    }

    fn align(&mut self) -> Result<()> {
        let r = self.pos % 8;
        if r != 0 {
            self.get(8 - r as u32)?;
        }
        Ok(())
    }

    fn get_bytes(&mut self, n: usize) -> Result<Cow<'a, [u8]>> {
        if n.saturating_mul(8) > self.remaining() {
            return Err(self.err(
                self.pos,
                format!("length {n} runs past the end of the input"),
            ));
        }
        if self.pos & 7 == 0 {
            let s = self.pos / 8;
            self.pos += n * 8;
            Ok(Cow::Borrowed(&self.data[s..s + n]))
        } else {
            // n <= remaining bits / 8, checked above
            let s = self.pos / 8;
            let off = (self.pos % 8) as u32;
            let d = &self.data[s..s + n + 1];
            let out: Vec<u8> = d
                .windows(2)
                .map(|w| (w[0] << off) | (w[1] >> (8 - off)))
                .collect();
            self.pos += n * 8;
            Ok(Cow::Owned(out))
        }
    }

    #[inline]
    fn constrained(&mut self, range: u64) -> Result<u64> {
        if range <= 1 {
            return Ok(0);
        }
        let at = self.pos;
        let v = if !self.aligned || range <= 255 {
            self.get(64 - (range - 1).leading_zeros())?
        } else if range == 256 {
            self.align()?;
            self.get(8)?
        } else {
            self.align()?;
            self.get(16)?
        };
        if v >= range {
            return Err(self.err(
                at,
                format!("constrained value {v} outside 0..{}", range - 1),
            ));
        }
        Ok(v)
    }

    /// A general length determinant: `(length, more_fragments_follow)`.
    fn length(&mut self) -> Result<(usize, bool)> {
        if self.aligned {
            self.align()?;
        }
        let at = self.pos;
        let b = self.get(8)?;
        if b & 0x80 == 0 {
            Ok((b as usize, false))
        } else if b & 0x40 == 0 {
            Ok((((b & 0x3f) << 8 | self.get(8)?) as usize, false))
        } else {
            let m = b & 0x3f;
            if !(1..=4).contains(&m) {
                return Err(self.err(at, format!("bad length fragment multiplier {m}")));
            }
            Ok((m as usize * FRAG, true))
        }
    }

    fn octets(&mut self) -> Result<Cow<'a, [u8]>> {
        let start = self.pos;
        let (n, more) = self.length()?;
        if n > self.max_string {
            return Err(Error::limit(
                self.format,
                0,
                format!("string of {n} bytes exceeds the limit"),
            )
            .at_bit(start as u64));
        }
        let first = self.get_bytes(n)?;
        if !more {
            return Ok(first);
        }
        let mut all = first.into_owned();
        loop {
            let (n, more) = self.length()?;
            if all.len() + n > self.max_string {
                return Err(
                    Error::limit(self.format, 0, "string exceeds the length limit")
                        .at_bit(start as u64),
                );
            }
            all.extend_from_slice(&self.get_bytes(n)?);
            if !more {
                return Ok(Cow::Owned(all));
            }
        }
    }

    fn unconstrained(&mut self) -> Result<u64> {
        let at = self.pos;
        let (n, more) = self.length()?;
        if more || n == 0 || n > 9 {
            return Err(self.err(
                at,
                format!("integer of {n} octets outside 0..2^64 (extension value)"),
            ));
        }
        // octet by octet (no copy of a bit-shifted field)
        let first = self.get(8)?;
        if first & 0x80 != 0 {
            return Err(self.err(at, "negative index (extension value)"));
        }
        if n == 9 && first != 0 {
            return Err(self.err(at, "index too large"));
        }
        let mut v = first;
        for _ in 1..n {
            v = (v << 8) | self.get(8)?;
        }
        Ok(v)
    }

    pub fn decode(&mut self, ty: TyId) -> Result<V<'a>> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error::limit(self.format, 0, "nesting too deep").at_bit(self.pos as u64));
        }
        let r = if ty == crate::schema::ELEMENT {
            crate::deep(|| self.decode_inner(ty))
        } else {
            self.decode_inner(ty)
        };
        self.depth -= 1;
        r
    }

    fn decode_inner(&mut self, ty: TyId) -> Result<V<'a>> {
        Ok(match &TYPES[ty] {
            Ty::Seq(fields) => {
                let mut present = [true; 10];
                for (i, (_, opt)) in fields.iter().enumerate() {
                    if *opt {
                        present[i] = self.get(1)? == 1;
                    }
                }
                let mut vals = Vec::with_capacity(fields.len());
                for (i, (fty, _)) in fields.iter().enumerate() {
                    vals.push(if present[i] {
                        Some(self.decode(*fty)?)
                    } else {
                        None
                    });
                }
                V::Seq(vals)
            }
            Ty::SeqOf(item, size) => {
                let mut items = Vec::new();
                // an extensible size constraint: the extension bit, then the root count
                let root = match *size {
                    Some(r) if self.get(1)? == 0 => Some(r),
                    _ => None,
                };
                if let Some((lb, ub)) = root {
                    let n = lb + self.constrained(ub - lb + 1)?;
                    for _ in 0..n {
                        items.push(self.decode(*item)?);
                    }
                    return Ok(V::List(items));
                }
                loop {
                    let (n, more) = self.length()?;
                    // every item of this module's SEQUENCE OF types takes at least one bit
                    if n > self.remaining() {
                        return Err(self.err(self.pos, format!("count {n} exceeds the bits left")));
                    }
                    // grow with the items actually decoded: nested lists that each claim a big
                    // count must not reserve memory for items that never come
                    items.reserve(n.min(256));
                    for _ in 0..n {
                        items.push(self.decode(*item)?);
                    }
                    if !more {
                        break;
                    }
                }
                V::List(items)
            }
            Ty::Choice(alts) => {
                let i = self.constrained(alts.len() as u64)? as usize;
                V::Choice(i as u8, Box::new(self.decode(alts[i])?))
            }
            Ty::Int(lo, hi) => {
                let at = self.pos as u64;
                if self.get(1)? == 0 {
                    V::Int(lo + self.constrained(hi - lo + 1)?, at)
                } else {
                    V::Int(self.unconstrained()?, at)
                }
            }
            Ty::Enum(n) => V::Enum(self.constrained(*n)?),
            Ty::Bool => V::Bool(self.get(1)? == 1),
            Ty::Null => V::Null,
            Ty::Utf8 => {
                let at = self.pos;
                match self.octets()? {
                    Cow::Borrowed(b) => V::Text(Cow::Borrowed(
                        std::str::from_utf8(b)
                            .map_err(|_| self.err(at, "invalid UTF-8 in UTF8String"))?,
                    )),
                    Cow::Owned(b) => V::Text(Cow::Owned(
                        String::from_utf8(b)
                            .map_err(|_| self.err(at, "invalid UTF-8 in UTF8String"))?,
                    )),
                }
            }
            Ty::Octets | Ty::RelOid => V::Bytes(self.octets()?),
        })
    }

    #[inline]
    pub(crate) fn bit(&mut self) -> Result<bool> {
        Ok(self.get(1)? == 1)
    }

    /// A CHOICE index among `n` alternatives.
    #[inline]
    pub(crate) fn choice(&mut self, n: u64) -> Result<u64> {
        self.constrained(n)
    }

    /// `INTEGER (lo..hi, ..., 0..MAX)`: the value and the bit offset where it starts.
    #[inline]
    pub(crate) fn int(&mut self, lo: u64, hi: u64) -> Result<(u64, u64)> {
        let at = self.pos as u64;
        if self.get(1)? == 0 {
            Ok((lo + self.constrained(hi - lo + 1)?, at))
        } else {
            Ok((self.unconstrained()?, at))
        }
    }

    pub(crate) fn utf8(&mut self) -> Result<Cow<'a, str>> {
        let at = self.pos;
        match self.octets()? {
            Cow::Borrowed(b) => {
                Ok(Cow::Borrowed(std::str::from_utf8(b).map_err(|_| {
                    self.err(at, "invalid UTF-8 in UTF8String")
                })?))
            }
            Cow::Owned(b) => {
                Ok(Cow::Owned(String::from_utf8(b).map_err(|_| {
                    self.err(at, "invalid UTF-8 in UTF8String")
                })?))
            }
        }
    }

    /// An OCTET STRING fragment by fragment (each borrowed from the input where it is
    /// octet-aligned), without joining them: `f(fragment)`.
    pub(crate) fn octet_fragments(
        &mut self,
        mut f: impl FnMut(&mut Self, Cow<'a, [u8]>) -> Result<()>,
    ) -> Result<()> {
        let start = self.pos;
        let mut total = 0usize;
        loop {
            let (n, more) = self.length()?;
            total = total.saturating_add(n);
            if total > self.max_string {
                return Err(
                    Error::limit(self.format, 0, "string exceeds the length limit")
                        .at_bit(start as u64),
                );
            }
            let b = self.get_bytes(n)?;
            f(self, b)?;
            if !more {
                return Ok(());
            }
        }
    }

    pub(crate) fn bytes(&mut self) -> Result<Cow<'a, [u8]>> {
        self.octets()
    }

    /// The first count of a SEQUENCE OF with `size` (see [`Ty::SeqOf`]): `(n, more fragments)`.
    pub(crate) fn count_first(&mut self, size: Option<(u64, u64)>) -> Result<(usize, bool)> {
        match size {
            Some((lb, ub)) if self.get(1)? == 0 => {
                Ok(((lb + self.constrained(ub - lb + 1)?) as usize, false))
            }
            _ => self.count_next(),
        }
    }

    /// The count of the next fragment.
    pub(crate) fn count_next(&mut self) -> Result<(usize, bool)> {
        let (n, more) = self.length()?;
        if n > self.remaining() {
            return Err(self.err(self.pos, format!("count {n} exceeds the bits left")));
        }
        Ok((n, more))
    }

    /// Skips a value of `ty` (checking it as `decode` does, UTF-8 aside) without building it.
    pub(crate) fn skip(&mut self, ty: TyId) -> Result<()> {
        // the most frequent leaves, without the generic dispatch
        match ty {
            crate::schema::STR_IDX => {
                return if self.get(1)? == 0 {
                    self.skip_inner(crate::schema::UTF8)
                } else {
                    self.int(0, 2047).map(|_| ())
                };
            }
            crate::schema::SMALL => return self.int(0, 15).map(|_| ()),
            crate::schema::BOOL => return self.get(1).map(|_| ()),
            _ => {}
        }
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error::limit(self.format, 0, "nesting too deep").at_bit(self.pos as u64));
        }
        // only Element nests without bound
        let r = if ty == crate::schema::ELEMENT {
            crate::deep(|| self.skip_inner(ty))
        } else {
            self.skip_inner(ty)
        };
        self.depth -= 1;
        r
    }

    fn skip_inner(&mut self, ty: TyId) -> Result<()> {
        match &TYPES[ty] {
            Ty::Seq(fields) => {
                let mut present = [true; 10];
                for (i, (_, opt)) in fields.iter().enumerate() {
                    if *opt {
                        present[i] = self.get(1)? == 1;
                    }
                }
                for (i, (fty, _)) in fields.iter().enumerate() {
                    if present[i] {
                        self.skip(*fty)?;
                    }
                }
            }
            Ty::SeqOf(item, size) => {
                let (mut n, mut more) = self.count_first(*size)?;
                loop {
                    for _ in 0..n {
                        self.skip(*item)?;
                    }
                    if !more {
                        break;
                    }
                    (n, more) = self.count_next()?;
                }
            }
            Ty::Choice(alts) => {
                let i = self.constrained(alts.len() as u64)? as usize;
                self.skip(alts[i])?;
            }
            Ty::Int(lo, hi) => {
                self.int(*lo, *hi)?;
            }
            Ty::Enum(n) => {
                self.constrained(*n)?;
            }
            Ty::Bool => {
                self.get(1)?;
            }
            Ty::Null => {}
            Ty::Utf8 | Ty::Octets | Ty::RelOid => loop {
                let (n, more) = self.length()?;
                if n.saturating_mul(8) > self.remaining() {
                    return Err(self.err(
                        self.pos,
                        format!("length {n} runs past the end of the input"),
                    ));
                }
                self.pos += n * 8;
                if !more {
                    break;
                }
            },
        }
        Ok(())
    }

    /// Checks that only zero padding follows the value.
    pub fn finish(&self) -> Result<()> {
        let end = self.pos.div_ceil(8).max(1);
        if end < self.data.len() {
            return Err(self.err(
                end * 8,
                format!("{} trailing bytes after the value", self.data.len() - end),
            ));
        }
        Ok(())
    }
}
