//! The PER writer of abstract values.

mod flat;

use binxml_core::Format;

use binxml_core::{Error, Result};

use super::FRAG;
use crate::schema::{TYPES, Ty, TyId};
use crate::value::{Refs, V};

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
    #[inline]
    fn int(&mut self, x: u64, lo: u64, hi: u64) {
        if (lo..=hi).contains(&x) {
            let range = hi - lo + 1;
            if !self.aligned || range <= 255 {
                // the extension bit (0) and the value in one field
                let bits = 64 - (range - 1).leading_zeros();
                self.put(x - lo, bits + 1);
            } else {
                self.put(0, 1);
                self.constrained(x - lo, range);
            }
        } else {
            self.put(1, 1);
            self.unconstrained(x);
        }
    }

    /// A StringOrIndex's `component-string-index` alternative (1 of 2) with table position
    /// `pos` (`LargeIndex`, `INTEGER (0..2047, ..., 0..MAX)`): in UPER within the root, the
    /// choice bit, the extension bit and the 11 value bits in one field.
    #[inline(always)]
    fn str_index(&mut self, pos: u64) {
        if !self.aligned && pos < 2048 {
            self.put((1 << 12) | pos, 13);
        } else {
            self.constrained(1, 2);
            self.int(pos, 0, 2047);
        }
    }

    /// A name's `common-name-index` alternative (1 of 2) with table position `pos`
    /// (`SmallIndex`, `INTEGER (0..15, ..., 0..MAX)`): within the root, the choice bit, the
    /// extension bit and the 4 value bits in one field (aligned or not: the range is small).
    #[inline(always)]
    fn name_index(&mut self, pos: u64) {
        if pos < 16 {
            self.put((1 << 5) | pos, 6);
        } else {
            self.constrained(1, 2);
            self.int(pos, 0, 15);
        }
    }

    /// Appends the `n` low bits of `v` (`n` at most 32). Up to 31 bits stay pending in `acc`;
    /// 32 are written at once.
    #[inline]
    fn put(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 32);
        self.acc = (self.acc << n) | (v & ((1u64 << n) - 1));
        self.nacc += n;
        if self.nacc >= 32 {
            self.nacc -= 32;
            self.buf
                .extend_from_slice(&((self.acc >> self.nacc) as u32).to_be_bytes());
        }
    }

    /// Writes the pending whole octets, leaving fewer than 8 bits in `acc`.
    #[inline]
    fn flush_octets(&mut self) {
        while self.nacc >= 8 {
            self.nacc -= 8;
            self.buf.push((self.acc >> self.nacc) as u8);
        }
    }

    #[inline]
    fn align(&mut self) {
        let r = self.nacc % 8;
        if r > 0 {
            self.put(0, 8 - r);
        }
    }

    fn put_bytes(&mut self, b: &[u8]) {
        self.flush_octets();
        if self.nacc == 0 {
            self.buf.extend_from_slice(b);
            return;
        }
        // the `nacc` pending bits (the low bits of `acc`) stay pending: each octet written is
        // they followed by the high bits of the next input octet
        let k = self.nacc;
        let mask = (1u8 << k) - 1;
        let mut carry = self.acc as u8 & mask;
        self.buf.reserve(b.len());
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            // eight octets at once: the word shifted right by `k`, the carry above
            let x = u64::from_be_bytes(w.try_into().expect("8 octets"));
            let out = (u64::from(carry) << (64 - k)) | (x >> k);
            self.buf.extend_from_slice(&out.to_be_bytes());
            carry = x as u8 & mask;
        }
        for &x in words.remainder() {
            self.buf.push((carry << (8 - k)) | (x >> k));
            carry = x & mask;
        }
        self.acc = u64::from(carry);
    }

    /// Room for `n` more octets of output.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.buf.reserve(n);
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.buf.len() * 8 + self.nacc as usize
    }

    /// The complete encoding (X.691 10.1.3: at least one octet, zero padded).
    pub fn finish(mut self) -> Vec<u8> {
        self.align();
        self.flush_octets();
        if self.buf.is_empty() {
            self.buf.push(0);
        }
        self.buf
    }

    /// A constrained whole number `v` in `0..range`.
    #[inline]
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
        // the fewest octets of the two's complement that keep it non-negative (one more where
        // the top bit of the highest octet is set): 1 to 9
        let n = ((64 - v.leading_zeros()) / 8 + 1) as usize;
        if n <= 4 {
            // the usual case (a table index past the extensible root): the octets are the
            // value's low bits, one field
            self.length(n);
            self.put(v, 8 * n as u32);
            return;
        }
        let mut octets = [0u8; 9];
        octets[1..].copy_from_slice(&v.to_be_bytes());
        self.length(n);
        self.put_bytes(&octets[9 - n..]);
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
                        self.str_index(pos as u64);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits of `w` so far, one per entry.
    fn bits(w: PerWriter<'_>) -> Vec<u8> {
        let n = w.bit_len();
        let bytes = w.finish();
        (0..n).map(|i| (bytes[i / 8] >> (7 - i % 8)) & 1).collect()
    }

    #[test]
    fn octets_at_every_bit_offset() {
        let data = [0xA5u8, 0xFF, 0x00, 0x3C, 0x81];
        for lead in 0..9u32 {
            let mut w = PerWriter::new(false, Format::Asn1Uper);
            w.put(0x1B5, lead);
            w.put_bytes(&data);
            w.put(1, 1);
            let mut want: Vec<u8> = (0..lead).rev().map(|i| (0x1B5u64 >> i) as u8 & 1).collect();
            for b in data {
                want.extend((0..8).rev().map(|i| (b >> i) & 1));
            }
            want.push(1);
            assert_eq!(bits(w), want, "after {lead} bits");
        }
    }

    #[test]
    fn unconstrained_whole_numbers_in_the_fewest_octets() {
        for (v, octets) in [
            (0u64, vec![0u8]),
            (0x7F, vec![0x7F]),
            (0x80, vec![0x00, 0x80]),
            (2048, vec![0x08, 0x00]),
            (0xFFFF, vec![0x00, 0xFF, 0xFF]),
            (
                u64::MAX,
                vec![0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            ),
        ] {
            let mut w = PerWriter::new(false, Format::Asn1Uper);
            w.put(1, 3);
            w.unconstrained(v);
            let mut want = PerWriter::new(false, Format::Asn1Uper);
            want.put(1, 3);
            want.put(octets.len() as u64, 8);
            for b in &octets {
                want.put(u64::from(*b), 8);
            }
            assert_eq!(w.finish(), want.finish(), "{v}");
        }
    }
}
