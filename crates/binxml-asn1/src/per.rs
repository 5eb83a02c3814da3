//! X.691 Packed Encoding Rules, aligned and unaligned, driven by the schema table.

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Error, Limits, Result};

use crate::schema::{TYPES, Ty, TyId};
use crate::value::{Refs, V};

const FRAG: usize = 16384;

pub struct PerWriter<'r> {
    aligned: bool,
    buf: Vec<u8>,
    acc: u64,
    nacc: u32,
    format: Format,
    refs: Option<&'r Refs>,
}

impl PerWriter<'static> {
    pub fn new(aligned: bool, format: Format) -> Self {
        PerWriter {
            aligned,
            buf: Vec::new(),
            acc: 0,
            nacc: 0,
            format,
            refs: None,
        }
    }
}

impl<'r> PerWriter<'r> {
    /// A writer that resolves table references by `refs` as it goes.
    pub(crate) fn with_refs(aligned: bool, format: Format, refs: &'r Refs) -> Self {
        PerWriter {
            aligned,
            buf: Vec::with_capacity(1024),
            acc: 0,
            nacc: 0,
            format,
            refs: Some(refs),
        }
    }

    /// `INTEGER (lo..hi, ..., 0..MAX)`.
    fn int(&mut self, x: u64, lo: u64, hi: u64) {
        if (lo..=hi).contains(&x) {
            self.put(0, 1);
            self.constrained(x - lo, hi - lo + 1);
        } else {
            self.put(1, 1);
            self.unconstrained(x);
        }
    }

    #[inline]
    fn put(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 32);
        if n == 0 {
            return;
        }
        self.acc = (self.acc << n) | (v & ((1u64 << n) - 1));
        self.nacc += n;
        while self.nacc >= 8 {
            self.nacc -= 8;
            self.buf.push((self.acc >> self.nacc) as u8);
        }
    }

    #[inline]
    fn align(&mut self) {
        if self.nacc > 0 {
            self.put(0, 8 - self.nacc);
        }
    }

    fn put_bytes(&mut self, b: &[u8]) {
        if self.nacc == 0 {
            self.buf.extend_from_slice(b);
        } else {
            for &x in b {
                self.put(x as u64, 8);
            }
        }
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.buf.len() * 8 + self.nacc as usize
    }

    /// The complete encoding (X.691 10.1.3: at least one octet, zero padded).
    pub fn finish(mut self) -> Vec<u8> {
        self.align();
        if self.buf.is_empty() {
            self.buf.push(0);
        }
        self.buf
    }

    /// A constrained whole number `v` in `0..range`.
    fn constrained(&mut self, v: u64, range: u64) {
        if range <= 1 {
            return;
        }
        if !self.aligned || range <= 255 {
            let bits = 64 - (range - 1).leading_zeros();
            self.put(v, bits);
        } else if range == 256 {
            self.align();
            self.put(v, 8);
        } else {
            // ranges up to 64K: a two-octet aligned field (the module has no larger range)
            debug_assert!(range <= 65536);
            self.align();
            self.put(v, 16);
        }
    }

    /// A general (unconstrained) length determinant for a length below 16K.
    fn length(&mut self, n: usize) {
        if self.aligned {
            self.align();
        }
        if n < 128 {
            self.put(n as u64, 8);
        } else {
            self.put(0x8000 | n as u64, 16);
        }
    }

    /// Writes `n` items with general length determinants, fragmenting at 16K (X.691 10.9.3.8).
    fn fragmented(
        &mut self,
        n: usize,
        mut items: impl FnMut(&mut Self, usize, usize) -> Result<()>,
    ) -> Result<()> {
        let mut i = 0;
        loop {
            let rem = n - i;
            if rem >= FRAG {
                let m = (rem / FRAG).min(4);
                if self.aligned {
                    self.align();
                }
                self.put(0xC0 | m as u64, 8);
                items(self, i, i + m * FRAG)?;
                i += m * FRAG;
            } else {
                self.length(rem);
                return items(self, i, n);
            }
        }
    }

    fn octets(&mut self, b: &[u8]) -> Result<()> {
        self.fragmented(b.len(), |w, s, e| {
            w.put_bytes(&b[s..e]);
            Ok(())
        })
    }

    /// An unconstrained whole number (used for values outside an extensible INTEGER's root).
    fn unconstrained(&mut self, v: u64) {
        let bytes = v.to_be_bytes();
        let mut skip = bytes.iter().take_while(|&&b| b == 0).count().min(7);
        let mut out = vec![];
        if bytes[skip] & 0x80 != 0 {
            // keep the value non-negative in two's complement
            if skip > 0 {
                skip -= 1;
            } else {
                out.push(0);
            }
        }
        out.extend_from_slice(&bytes[skip..]);
        self.length(out.len());
        self.put_bytes(&out);
    }

    fn mismatch(&self, ty: TyId) -> Error {
        Error::invalid_events(
            self.format,
            format!("internal: value does not fit ASN.1 type #{ty}"),
        )
    }

    pub fn encode(&mut self, ty: TyId, v: &V<'_>) -> Result<()> {
        // only Element nests without bound
        if ty == crate::schema::ELEMENT {
            crate::deep(|| self.encode_inner(ty, v))
        } else {
            self.encode_inner(ty, v)
        }
    }

    fn encode_inner(&mut self, ty: TyId, v: &V<'_>) -> Result<()> {
        match (&TYPES[ty], v) {
            (Ty::Seq(fields), V::Seq(vals)) if vals.len() == fields.len() => {
                for ((_, opt), val) in fields.iter().zip(vals) {
                    if *opt {
                        self.put(val.is_some() as u64, 1);
                    } else if val.is_none() {
                        return Err(self.mismatch(ty));
                    }
                }
                for ((fty, _), val) in fields.iter().zip(vals) {
                    if let Some(val) = val {
                        self.encode(*fty, val)?;
                    }
                }
                Ok(())
            }
            (Ty::SeqOf(item, size), V::List(items)) => {
                let n = items.len() as u64;
                if let Some((lb, ub)) = *size {
                    if (lb..=ub).contains(&n) {
                        self.put(0, 1);
                        self.constrained(n - lb, ub - lb + 1);
                        for it in items {
                            self.encode(*item, it)?;
                        }
                        return Ok(());
                    }
                    self.put(1, 1);
                }
                self.fragmented(items.len(), |w, s, e| {
                    for it in &items[s..e] {
                        w.encode(*item, it)?;
                    }
                    Ok(())
                })
            }
            (Ty::Choice(alts), V::Choice(i, inner)) if (*i as usize) < alts.len() => {
                self.constrained(*i as u64, alts.len() as u64);
                self.encode(alts[*i as usize], inner)
            }
            (Ty::Int(lo, hi), V::Int(x, _)) => {
                self.int(*x, *lo, *hi);
                Ok(())
            }
            // a StringOrIndex by reference: its table position, or the text inline
            (Ty::Choice(_), V::StrRef(id)) if ty == crate::schema::STR_IDX => {
                let refs = self.refs.ok_or_else(|| self.mismatch(ty))?;
                let id = *id as usize;
                match refs.strings.get(id) {
                    Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => {
                        self.constrained(0, 2);
                        self.octets(refs.texts[id].as_bytes())
                    }
                    Some(&pos) => {
                        self.constrained(1, 2);
                        self.int(pos as u64, 0, 2047);
                        Ok(())
                    }
                    None => Err(self.mismatch(ty)),
                }
            }
            (Ty::Int(lo, hi), V::NameRef(id)) => {
                let refs = self.refs.ok_or_else(|| self.mismatch(ty))?;
                let pos = *refs
                    .names
                    .get(*id as usize)
                    .ok_or_else(|| self.mismatch(ty))?;
                self.int(pos as u64, *lo, *hi);
                Ok(())
            }
            (Ty::Enum(n), V::Enum(x)) if x < n => {
                self.constrained(*x, *n);
                Ok(())
            }
            (Ty::Bool, V::Bool(b)) => {
                self.put(*b as u64, 1);
                Ok(())
            }
            (Ty::Null, V::Null) => Ok(()),
            (Ty::Utf8, V::Text(s)) => self.octets(s.as_bytes()),
            (Ty::Octets | Ty::RelOid, V::Bytes(b)) => self.octets(b),
            _ => Err(self.mismatch(ty)),
        }
    }
}

/// The length in bits of `v`'s UPER encoding (as [`PerWriter`] would write it, without writing;
/// values that do not fit `ty` count as nothing).
pub(crate) fn uper_bits(ty: TyId, v: &V<'_>, refs: &Refs) -> u64 {
    if ty == crate::schema::ELEMENT {
        crate::deep(|| uper_bits_inner(ty, v, refs))
    } else {
        uper_bits_inner(ty, v, refs)
    }
}

fn int_bits(x: u64, lo: u64, hi: u64) -> u64 {
    if (lo..=hi).contains(&x) {
        1 + constrained_bits(hi - lo + 1)
    } else {
        // octets of the non-negative two's complement form, and their length
        let octets = (64 - x.leading_zeros() as u64) / 8 + 1;
        1 + 8 + 8 * octets
    }
}

fn length_bits(n: u64) -> u64 {
    // general length determinants with 16K fragments: a header octet per fragment
    let frags = n / FRAG as u64;
    let headers = frags.div_ceil(4);
    let rest = n - (n / FRAG as u64) * FRAG as u64;
    headers * 8 + if rest < 128 { 8 } else { 16 }
}

fn constrained_bits(range: u64) -> u64 {
    if range <= 1 {
        0
    } else {
        64 - (range - 1).leading_zeros() as u64
    }
}

fn uper_bits_inner(ty: TyId, v: &V<'_>, refs: &Refs) -> u64 {
    match (&TYPES[ty], v) {
        (Ty::Seq(fields), V::Seq(vals)) => {
            let mut n = 0;
            for ((fty, opt), val) in fields.iter().zip(vals) {
                n += *opt as u64;
                if let Some(val) = val {
                    n += uper_bits(*fty, val, refs);
                }
            }
            n
        }
        (Ty::SeqOf(item, size), V::List(items)) => {
            let c = items.len() as u64;
            let head = match *size {
                Some((lb, ub)) if (lb..=ub).contains(&c) => 1 + constrained_bits(ub - lb + 1),
                Some(_) => 1 + length_bits(c),
                None => length_bits(c),
            };
            head + items
                .iter()
                .map(|it| uper_bits(*item, it, refs))
                .sum::<u64>()
        }
        (Ty::Choice(alts), V::Choice(i, inner)) if (*i as usize) < alts.len() => {
            constrained_bits(alts.len() as u64) + uper_bits(alts[*i as usize], inner, refs)
        }
        (Ty::Int(lo, hi), V::Int(x, _)) => int_bits(*x, *lo, *hi),
        (Ty::Choice(_), V::StrRef(id)) => match refs.strings.get(*id as usize) {
            Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => {
                let n = refs.texts[*id as usize].len() as u64;
                1 + length_bits(n) + 8 * n
            }
            Some(&pos) => 1 + int_bits(pos as u64, 0, 2047),
            None => 0,
        },
        (Ty::Int(lo, hi), V::NameRef(id)) => refs
            .names
            .get(*id as usize)
            .map_or(0, |&pos| int_bits(pos as u64, *lo, *hi)),
        (Ty::Enum(n), V::Enum(_)) => constrained_bits(*n),
        (Ty::Bool, V::Bool(_)) => 1,
        (Ty::Utf8, V::Text(s)) => length_bits(s.len() as u64) + 8 * s.len() as u64,
        (Ty::Octets | Ty::RelOid, V::Bytes(b)) => length_bits(b.len() as u64) + 8 * b.len() as u64,
        _ => 0,
    }
}

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

/// Where a list's items stand in its 16K fragments (X.691 10.9.3.8), for lists written one
/// item at a time.
struct Frags {
    /// items left in the current fragment
    left: usize,
    /// items after the current fragment
    after: usize,
    /// the current fragment is the last (its length below 16K)
    last: bool,
}

/// An element being written by [`PerWriter::encode_flat`].
struct FlatFrame {
    attrs: u32,
    n_ns: u32,
    n_attrs: u32,
    items: Frags,
}

impl<'r> PerWriter<'r> {
    /// The next fragment's header: what [`PerWriter::fragmented`] writes before its items.
    fn next_frag(&mut self, f: &mut Frags) {
        let rem = f.after;
        if rem >= FRAG {
            let m = (rem / FRAG).min(4);
            if self.aligned {
                self.align();
            }
            self.put(0xC0 | m as u64, 8);
            f.left = m * FRAG;
            f.after = rem - m * FRAG;
        } else {
            self.length(rem);
            f.left = rem;
            f.after = 0;
            f.last = true;
        }
    }

    /// A `SEQUENCE OF` of `n` items: its count (by `size`, as [`PerWriter::encode_inner`]
    /// writes it) and the state for its items.
    fn list_head(&mut self, n: usize, size: Option<(u64, u64)>) -> Frags {
        if let Some((lb, ub)) = size {
            let c = n as u64;
            if (lb..=ub).contains(&c) {
                self.put(0, 1);
                self.constrained(c - lb, ub - lb + 1);
                return Frags {
                    left: n,
                    after: 0,
                    last: true,
                };
            }
            self.put(1, 1);
        }
        let mut f = Frags {
            left: 0,
            after: n,
            last: false,
        };
        self.next_frag(&mut f);
        f
    }

    /// Before an item of a list: a new fragment's header where one begins.
    #[inline]
    fn list_item(&mut self, f: &mut Frags) -> Result<()> {
        while f.left == 0 {
            if f.last {
                return Err(Error::invalid_events(
                    self.format,
                    "internal: more items than counted",
                ));
            }
            self.next_frag(f);
        }
        f.left -= 1;
        Ok(())
    }

    /// After a list's last item: the closing empty fragment where the count is a multiple of
    /// 16K.
    fn list_end(&mut self, f: &mut Frags) -> Result<()> {
        while !f.last {
            if f.left != 0 {
                break;
            }
            self.next_frag(f);
        }
        if f.left != 0 || f.after != 0 {
            return Err(Error::invalid_events(
                self.format,
                "internal: fewer items than counted",
            ));
        }
        Ok(())
    }

    /// A StringOrIndex of the flat builder (a component-string id or an inline string).
    #[inline]
    fn flat_str(&mut self, r: u32, flat: &crate::flat::Flat) -> Result<()> {
        use crate::sentinel::INLINE;
        if r & INLINE != 0 {
            let t = flat
                .inline
                .get((r & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?;
            self.constrained(0, 2);
            return self.octets(t.as_bytes());
        }
        let refs = self
            .refs
            .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?;
        match refs.strings.get(r as usize) {
            Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => {
                self.constrained(0, 2);
                self.octets(refs.texts[r as usize].as_bytes())
            }
            Some(&pos) => {
                self.constrained(1, 2);
                self.int(pos as u64, 0, 2047);
                Ok(())
            }
            None => Err(self.mismatch(crate::schema::STR_IDX)),
        }
    }

    /// An element (`attr` false) or attribute name of the flat builder: a common name or a
    /// name written inline.
    #[inline]
    fn flat_name(&mut self, id: u32, flat: &crate::flat::Flat, attr: bool) -> Result<()> {
        use crate::flat::FNs;
        use crate::schema::{AT_NAME_SEQ, EL_NAME_SEQ};
        use crate::sentinel::{INLINE, NO_STR};
        if id & INLINE != 0 {
            let ty = if attr { AT_NAME_SEQ } else { EL_NAME_SEQ };
            let n = *flat
                .names
                .get((id & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(ty))?;
            // alternative 0, the SEQUENCE: presence of the namespace and the prefix
            self.constrained(0, 2);
            let p_ns = !matches!(n.ns, FNs::None);
            self.put((p_ns as u64) << 1 | (n.prefix != NO_STR) as u64, 2);
            // the namespace's CHOICE: a string, same-as-parent / -owner, same-as-previous
            let alts = if attr { 3 } else { 2 };
            match n.ns {
                FNs::None => {}
                FNs::Str(s) => {
                    self.constrained(0, alts);
                    self.flat_str(s, flat)?;
                }
                FNs::Same => self.constrained(1, alts),
                FNs::Prev if attr => self.constrained(2, alts),
                FNs::Prev => return Err(self.mismatch(ty)),
            }
            self.flat_str(n.local, flat)?;
            if n.prefix != NO_STR {
                self.flat_str(n.prefix, flat)?;
            }
            return Ok(());
        }
        let refs = self
            .refs
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        let pos = *refs
            .names
            .get(id as usize)
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        // `CHOICE { ..., common-name-index SmallIndex }`: alternative 1
        self.constrained(1, 2);
        self.int(pos as u64, 0, 15);
        Ok(())
    }

    /// Writes `Document` whose children (and the elements in them) are `flat`'s operations
    /// (`doc`'s own `children` are not written): the same bits as [`PerWriter::encode`] of the
    /// whole value. `align`: give the first elements `base-URI` `same-as-parent-element` so
    /// that the component-strings block starts on an octet boundary (see `align_block`).
    pub(crate) fn encode_flat(
        &mut self,
        doc: &V<'_>,
        flat: &crate::flat::Flat,
        align: bool,
    ) -> Result<()> {
        use crate::flat::FOp;
        use crate::schema::*;
        let (Ty::Seq(fields), V::Seq(vals)) = (&TYPES[DOCUMENT], doc) else {
            return Err(self.mismatch(DOCUMENT));
        };
        if vals.len() != fields.len() {
            return Err(self.mismatch(DOCUMENT));
        }
        for ((_, opt), val) in fields.iter().zip(vals) {
            if *opt {
                self.put(val.is_some() as u64, 1);
            }
        }
        // the first elements' base-URI presence bit and where their base-URI goes
        let mut marks: Vec<(usize, usize)> = Vec::new();
        let mut open_marks: Vec<Option<usize>> = Vec::new();
        let mut doc_items = self.list_head(flat.doc_items, None);
        let mut stack: Vec<FlatFrame> = Vec::new();
        let mut i = 0;
        while i < flat.ops.len() {
            let op = flat.ops[i];
            i += 1;
            match op {
                FOp::Start {
                    name,
                    attrs,
                    n_ns,
                    n_attrs,
                    children,
                    ecc,
                } => {
                    match stack.last_mut() {
                        Some(p) => {
                            self.list_item(&mut p.items)?;
                            self.constrained(0, 5);
                        }
                        None => {
                            self.list_item(&mut doc_items)?;
                            self.constrained(0, 4);
                        }
                    }
                    let at = self.bit_len();
                    if align && marks.len() < 7 {
                        open_marks.push(Some(marks.len()));
                        marks.push((at + 2, 0));
                    } else {
                        open_marks.push(None);
                    }
                    self.put(((n_attrs > 0) as u64) << 2 | ((n_ns > 0) as u64) << 1, 3);
                    self.flat_name(name, flat, false)?;
                    let items = if ecc {
                        let Some(FOp::Text(t)) = flat.ops.get(i).copied() else {
                            return Err(self.mismatch(ELEMENT));
                        };
                        i += 1;
                        self.constrained(0, 2);
                        self.flat_str(t, flat)?;
                        Frags {
                            left: 0,
                            after: 0,
                            last: true,
                        }
                    } else {
                        self.constrained(1, 2);
                        self.list_head(children as usize, Some((0, 3)))
                    };
                    stack.push(FlatFrame {
                        attrs,
                        n_ns,
                        n_attrs,
                        items,
                    });
                }
                FOp::End { scope, n_scope, .. } => {
                    let Some(mut f) = stack.pop() else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    self.list_end(&mut f.items)?;
                    let a0 = f.attrs as usize;
                    let ns = a0..a0 + f.n_ns as usize;
                    let at = ns.end..ns.end + f.n_attrs as usize;
                    for range in [at, ns] {
                        let Some(list) = flat.attrs.get(range) else {
                            return Err(self.mismatch(ATTRS));
                        };
                        if list.is_empty() {
                            continue;
                        }
                        let mut fr = self.list_head(list.len(), Some((1, 4)));
                        for &(name, value) in list {
                            self.list_item(&mut fr)?;
                            // specified, attribute-type, references absent
                            self.put(0, 3);
                            self.flat_name(name, flat, true)?;
                            self.flat_str(value, flat)?;
                        }
                        self.list_end(&mut fr)?;
                    }
                    if flat.explicit_scopes {
                        // in-scope-namespaces: the list
                        let list = flat
                            .scope_list(scope, n_scope)
                            .ok_or_else(|| self.mismatch(NS_LIST))?;
                        self.constrained(0, 2);
                        let mut fr = self.list_head(list.len(), None);
                        for &(p, u) in list {
                            self.list_item(&mut fr)?;
                            self.put((p != crate::sentinel::NO_STR) as u64, 1);
                            if p != crate::sentinel::NO_STR {
                                self.flat_str(p, flat)?;
                            }
                            self.flat_str(u, flat)?;
                        }
                        self.list_end(&mut fr)?;
                    } else {
                        // in-scope-namespaces: same-as-parent-element
                        self.constrained(1, 2);
                    }
                    if let Some(Some(m)) = open_marks.pop() {
                        marks[m].1 = self.bit_len();
                    }
                }
                FOp::Text(t) => {
                    let Some(p) = stack.last_mut() else {
                        return Err(self.mismatch(DOC_CHILD));
                    };
                    self.list_item(&mut p.items)?;
                    self.constrained(3, 5);
                    // Characters: a string, element-content-whitespace FALSE
                    self.constrained(0, 2);
                    self.flat_str(t, flat)?;
                    self.put(0, 1);
                }
                FOp::Child(alt, v) => {
                    let v = flat
                        .values
                        .get(v as usize)
                        .ok_or_else(|| self.mismatch(EL_CHILD))?;
                    let (list, alts) = match stack.last_mut() {
                        Some(p) => (&mut p.items, EL_CHILD),
                        None => (&mut doc_items, DOC_CHILD),
                    };
                    let Ty::Choice(alt_tys) = &TYPES[alts] else {
                        return Err(self.mismatch(alts));
                    };
                    let Some(&ty) = alt_tys.get(alt as usize) else {
                        return Err(self.mismatch(alts));
                    };
                    self.list_item(list)?;
                    self.constrained(alt as u64, alt_tys.len() as u64);
                    self.encode(ty, v)?;
                }
            }
        }
        if !stack.is_empty() {
            return Err(self.mismatch(ELEMENT));
        }
        self.list_end(&mut doc_items)?;
        if align {
            // the bits before the block: these and the small fields up to the block
            let refs = self.refs.ok_or_else(|| self.mismatch(DOCUMENT))?;
            let mut bits = self.bit_len() as u64;
            for ((fty, _), val) in fields.iter().zip(vals).take(8).skip(1) {
                if let Some(val) = val {
                    bits += uper_bits(*fty, val, refs);
                }
            }
            let need = ((8 - bits % 8) % 8) as usize;
            marks.truncate(need);
            if !marks.is_empty() {
                self.insert_marks(&marks);
            }
        }
        for ((fty, _), val) in fields.iter().zip(vals).skip(1) {
            if let Some(val) = val {
                self.encode(*fty, val)?;
            }
        }
        Ok(())
    }

    /// Rewrites what was written so far with each mark's presence bit set and a `1` bit (the
    /// `same-as-parent-element` alternative) inserted at its position.
    fn insert_marks(&mut self, marks: &[(usize, usize)]) {
        let total = self.bit_len();
        let mut src = std::mem::take(&mut self.buf);
        if self.nacc > 0 {
            src.push((self.acc << (8 - self.nacc)) as u8);
        }
        self.acc = 0;
        self.nacc = 0;
        for &(p, _) in marks {
            src[p / 8] |= 0x80 >> (p % 8);
        }
        let mut ins: Vec<usize> = marks.iter().map(|m| m.1).collect();
        ins.sort_unstable();
        self.buf = Vec::with_capacity(src.len() + 1);
        let mut from = 0;
        for &p in &ins {
            self.copy_bits(&src, from, p);
            self.put(1, 1);
            from = p;
        }
        self.copy_bits(&src, from, total);
    }

    /// Appends bits `from..to` of `src`.
    fn copy_bits(&mut self, src: &[u8], mut from: usize, to: usize) {
        while from < to {
            if self.nacc == 0 && from.is_multiple_of(8) && to - from >= 8 {
                let n = (to - from) / 8;
                self.buf.extend_from_slice(&src[from / 8..from / 8 + n]);
                from += n * 8;
                continue;
            }
            let n = (to - from).min(32) as u32;
            let byte = from / 8;
            let mut w = [0u8; 8];
            let end = (byte + 8).min(src.len());
            w[..end - byte].copy_from_slice(&src[byte..end]);
            let v = (u64::from_be_bytes(w) << (from % 8)) >> (64 - n);
            self.put(v, n);
            from += n as usize;
        }
    }
}
