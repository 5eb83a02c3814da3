//! Bit writer and reader for the X.694 PER codec, with the X.691 building blocks in the
//! unaligned and the aligned variant: constrained whole numbers, length determinants with
//! fragmentation, integers, octet alignment.
//! The writer can patch bits already written (a SEQUENCE's presence bitmap is known only after
//! its components) and append another writer (a SEQUENCE OF's count precedes its items).

use binxml_core::{Error, Format, Result};

/// 16K: the fragment unit of X.691 11.9.3.8.
pub const FRAG: usize = 16384;

/// Bits of a constrained whole number in `0..range` (X.691 11.5.6, unaligned: the fewest).
pub fn range_bits(range: u128) -> u32 {
    if range <= 1 {
        0
    } else {
        128 - (range - 1).leading_zeros()
    }
}

/// An append-only bit buffer, most significant bit first.
#[derive(Default)]
pub struct BitWriter {
    buf: Vec<u8>,
    bits: usize,
    aligned: bool,
}

impl BitWriter {
    /// An empty writer; `aligned` for the ALIGNED variant of PER.
    pub fn new(aligned: bool) -> Self {
        BitWriter {
            aligned,
            ..BitWriter::default()
        }
    }

    /// A writer for a part that will be appended at a bit position `phase` (mod 8) of the
    /// whole: it starts with that many padding bits, so that its alignment is the whole's
    /// (append it from bit `phase`).
    pub fn with_phase(aligned: bool, phase: usize) -> Self {
        let mut w = BitWriter::new(aligned);
        w.put(0, (phase % 8) as u32);
        w
    }

    /// Whether this is the ALIGNED variant.
    pub fn aligned(&self) -> bool {
        self.aligned
    }

    /// Pads to an octet boundary in the ALIGNED variant.
    pub fn align(&mut self) {
        if self.aligned && !self.bits.is_multiple_of(8) {
            self.put(0, 8 - (self.bits % 8) as u32);
        }
    }

    /// Bits written.
    pub fn len(&self) -> usize {
        self.bits
    }

    /// Writes the low `n` bits of `v` (`n` at most 64).
    pub fn put(&mut self, v: u64, mut n: u32) {
        while n > 0 {
            let used = (self.bits % 8) as u32;
            if used == 0 {
                self.buf.push(0);
            }
            let free = 8 - used;
            let take = free.min(n);
            let chunk = ((v >> (n - take)) & ((1u64 << take) - 1)) as u8;
            *self.buf.last_mut().expect("pushed") |= chunk << (free - take);
            self.bits += take as usize;
            n -= take;
        }
    }

    /// Writes the low `n` bits of a 128-bit value.
    pub fn put_wide(&mut self, v: u128, n: u32) {
        if n > 64 {
            self.put((v >> 64) as u64, n - 64);
            self.put(v as u64, 64);
        } else {
            self.put(v as u64, n);
        }
    }

    /// Sets bit `pos` (already written as 0) to `b`.
    pub fn patch(&mut self, pos: usize, b: bool) {
        if b {
            self.buf[pos / 8] |= 0x80 >> (pos % 8);
        }
    }

    /// Writes whole octets.
    pub fn octets(&mut self, b: &[u8]) {
        if self.bits.is_multiple_of(8) {
            self.buf.extend_from_slice(b);
            self.bits += b.len() * 8;
        } else {
            for &x in b {
                self.put(x as u64, 8);
            }
        }
    }

    /// Appends bits `from..to` of `other`.
    pub fn append(&mut self, other: &BitWriter, from: usize, to: usize) {
        let mut i = from;
        while i < to && !i.is_multiple_of(8) {
            self.put(other.bit(i) as u64, 1);
            i += 1;
        }
        let whole = (to - i) / 8;
        self.octets(&other.buf[i / 8..i / 8 + whole]);
        i += whole * 8;
        while i < to {
            self.put(other.bit(i) as u64, 1);
            i += 1;
        }
    }

    fn bit(&self, i: usize) -> bool {
        self.buf[i / 8] & (0x80 >> (i % 8)) != 0
    }

    /// The encoding: whole octets, zero padded, at least one (X.691 11.1.3).
    pub fn finish(mut self) -> Vec<u8> {
        if self.buf.is_empty() {
            self.buf.push(0);
        }
        self.buf
    }

    /// A constrained whole number `v` in `0..range` (X.691 11.5.7: in the ALIGNED variant, a
    /// range above 255 takes one or two aligned octets; ranges above 64K only occur for
    /// INTEGER, which [`BitWriter::integer`] writes).
    pub fn constrained(&mut self, v: u128, range: u128) {
        if !self.aligned || range <= 255 {
            self.put_wide(v, range_bits(range));
        } else if range == 256 {
            self.align();
            self.put(v as u64, 8);
        } else {
            self.align();
            self.put(v as u64, 16);
        }
    }

    /// Where the items of a count of `n` within `min..max` will start, relative to the
    /// current position (mod 8): what [`BitWriter::with_phase`] needs.
    pub fn phase_after_count(&self, min: u64, max: Option<u64>) -> usize {
        match max.filter(|&u| u < 65536) {
            Some(ub) => {
                let range = (ub - min + 1) as u128;
                if !self.aligned || range <= 255 {
                    (self.bits + range_bits(range) as usize) % 8
                } else {
                    0
                }
            }
            None if self.aligned => 0,
            None => self.bits % 8,
        }
    }

    /// A general length determinant for `n` below 16K (X.691 11.9.3.6, 11.9.3.7), aligned
    /// in the ALIGNED variant.
    fn short_length(&mut self, n: usize) {
        self.align();
        if n < 128 {
            self.put(n as u64, 8);
        } else {
            self.put(0x8000 | n as u64, 16);
        }
    }

    /// A count of `n` with size bounds `min..max` (X.691 11.9.4.1: a constrained whole number
    /// when the upper bound is below 64K), followed by the items, which `items(w, start, end)`
    /// writes; a general length is fragmented into 16K units (11.9.3.8).
    pub fn counted(
        &mut self,
        n: usize,
        min: u64,
        max: Option<u64>,
        mut items: impl FnMut(&mut Self, usize, usize) -> Result<()>,
    ) -> Result<()> {
        if let Some(ub) = max.filter(|&u| u < 65536) {
            self.constrained(
                (n as u64).saturating_sub(min) as u128,
                (ub - min + 1) as u128,
            );
            return items(self, 0, n);
        }
        let mut i = 0;
        loop {
            let rem = n - i;
            if rem >= FRAG {
                let m = (rem / FRAG).min(4);
                self.align();
                self.put(0xC0 | m as u64, 8);
                items(self, i, i + m * FRAG)?;
                i += m * FRAG;
            } else {
                self.short_length(rem);
                return items(self, i, n);
            }
        }
    }

    /// An INTEGER with bounds `lo..hi` (X.691 13).
    pub fn integer(&mut self, v: i128, lo: Option<i128>, hi: Option<i128>) {
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let range = (hi.wrapping_sub(lo) as u128).saturating_add(1);
                let x = v.wrapping_sub(lo) as u128;
                if self.aligned && range > 65536 {
                    // X.691 11.5.7.4: the octets of the value, their count first as a
                    // constrained whole number in 1..(octets of the range).
                    let max_octets = (range_bits(range).div_ceil(8)).max(1) as u128;
                    let n = ((128 - x.leading_zeros()).div_ceil(8)).max(1) as usize;
                    self.constrained(n as u128 - 1, max_octets);
                    self.align();
                    self.octets(&x.to_be_bytes()[16 - n..]);
                } else {
                    self.constrained(x, range);
                }
            }
            (Some(lo), None) => {
                let x = v.wrapping_sub(lo) as u128;
                let n = ((128 - x.leading_zeros()).div_ceil(8)).max(1) as usize;
                let bytes = x.to_be_bytes();
                self.short_length(n);
                self.octets(&bytes[16 - n..]);
            }
            _ => {
                let bytes = v.to_be_bytes();
                let mut skip = 0;
                while skip < 15
                    && ((bytes[skip] == 0 && bytes[skip + 1] & 0x80 == 0)
                        || (bytes[skip] == 0xFF && bytes[skip + 1] & 0x80 != 0))
                {
                    skip += 1;
                }
                self.short_length(16 - skip);
                self.octets(&bytes[skip..]);
            }
        }
    }
}

/// Reads bits, reporting the bit offset of what it could not read.
#[derive(Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
    aligned: bool,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `data`; `aligned` for the ALIGNED variant of PER.
    pub fn new(data: &'a [u8], format: Format, aligned: bool) -> Self {
        BitReader {
            data,
            pos: 0,
            format,
            aligned,
        }
    }

    /// Skips to the next octet boundary in the ALIGNED variant.
    #[inline]
    pub fn align(&mut self) -> Result<()> {
        if self.aligned && !self.pos.is_multiple_of(8) {
            let pad = 8 - (self.pos % 8) as u32;
            self.get(pad)?;
        }
        Ok(())
    }

    /// Whether this is the ALIGNED variant.
    #[inline]
    pub fn aligned(&self) -> bool {
        self.aligned
    }

    /// The bit offset of the next bit.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to bit offset `pos`, one this reader has been at (an `all` group's components
    /// are read again in document order).
    pub fn seek(&mut self, pos: usize) {
        debug_assert!(pos <= self.data.len() * 8);
        self.pos = pos;
    }

    /// The bit `k` bits after the next one, without reading it (none past the end).
    #[inline]
    pub fn peek_bit(&self, k: u32) -> Option<bool> {
        let p = self.pos + k as usize;
        let b = *self.data.get(p / 8)?;
        Some(b & (0x80 >> (p % 8)) != 0)
    }

    /// Bits left.
    #[inline]
    pub fn left(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    /// An error at the current bit offset.
    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::malformed(self.format, (self.pos / 8) as u64, msg).at_bit(self.pos as u64)
    }

    /// Reads `n` bits (at most 64).
    #[inline(always)]
    pub fn get(&mut self, n: u32) -> Result<u64> {
        let first = self.pos / 8;
        if n <= 56
            && let Some(w) = self.data.get(first..first + 8)
        {
            // The bits lie in the 8 octets from `first`: one big-endian word (`n` may be 0:
            // shifted by 1 and 63 - n, never by 64).
            let word = u64::from_be_bytes(w.try_into().expect("8"));
            let v = ((word << (self.pos % 8)) >> 1) >> (63 - n);
            self.pos += n as usize;
            return Ok(v);
        }
        self.get_slow(n)
    }

    /// [`BitReader::get`] near the end of the input or of more than 56 bits.
    #[inline(never)]
    fn get_slow(&mut self, n: u32) -> Result<u64> {
        if (n as usize) > self.left() {
            return Err(self.err(format!("{n} bits needed, {} left", self.left())));
        }
        if n == 0 {
            return Ok(0);
        }
        let mut v = 0u64;
        let mut n = n;
        while n > 0 {
            let used = (self.pos % 8) as u32;
            let avail = 8 - used;
            let take = avail.min(n);
            let byte = self.data[self.pos / 8] as u64;
            let chunk = (byte >> (avail - take)) & ((1u64 << take) - 1);
            v = (v << take) | chunk;
            self.pos += take as usize;
            n -= take;
        }
        Ok(v)
    }

    /// Reads `n` bits into a 128-bit value.
    #[inline]
    pub fn get_wide(&mut self, n: u32) -> Result<u128> {
        if n > 64 {
            let hi = self.get(n - 64)? as u128;
            Ok((hi << 64) | self.get(64)? as u128)
        } else {
            Ok(self.get(n)? as u128)
        }
    }

    /// Reads `n` octets (checked against the input first).
    pub fn octets(&mut self, n: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        Ok(self.octets_ref(n, &mut out)?.to_vec())
    }

    /// Reads `n` octets (checked against the input first) as a slice: of the input itself when
    /// they start on an octet boundary, else shifted into `scratch` (grown as needed; what it
    /// held before is overwritten, and it may keep octets past the `n` returned).
    #[inline]
    pub fn octets_ref<'b>(&mut self, n: usize, scratch: &'b mut Vec<u8>) -> Result<&'b [u8]>
    where
        'a: 'b,
    {
        if n.saturating_mul(8) > self.left() {
            return Err(self.err(format!("{n} octets announced, {} bits left", self.left())));
        }
        let start = self.pos / 8;
        let shift = (self.pos % 8) as u32;
        self.pos += n * 8;
        if shift == 0 {
            return Ok(&self.data[start..start + n]);
        }
        let words = n.div_ceil(8);
        if scratch.len() < words * 8 {
            scratch.resize(words * 8, 0);
        }
        if let Some(src) = self.data.get(start..start + words * 8 + 1) {
            // Eight octets at a time: each out of a big-endian word and the octet after it.
            for (k, out) in scratch[..words * 8].chunks_exact_mut(8).enumerate() {
                let w = u64::from_be_bytes(src[k * 8..k * 8 + 8].try_into().expect("8"));
                let next = src[k * 8 + 8] as u64;
                out.copy_from_slice(&((w << shift) | (next >> (8 - shift))).to_be_bytes());
            }
            return Ok(&scratch[..n]);
        }
        // Near the end of the input: octet by octet. With a shift, the last octet's low bits
        // lie in the octet after: it exists, as the check above counted the bits from `pos`.
        for (out, w) in scratch[..n]
            .iter_mut()
            .zip(self.data[start..=start + n].windows(2))
        {
            *out = (w[0] << shift) | (w[1] >> (8 - shift));
        }
        Ok(&scratch[..n])
    }

    /// Reads `n` octets (checked against the input first) into the start of `scratch`,
    /// followed by zero octets up to the next multiple of 16, whose count it returns
    /// (`scratch` grows as needed and may hold more). A string read this way is validated as
    /// UTF-8 whole blocks at a time, the zeros standing for ASCII (see `dec::read_utf8`).
    #[inline(always)]
    pub fn octets_padded(&mut self, n: usize, scratch: &mut Vec<u8>) -> Result<usize> {
        let start = self.pos / 8;
        let shift = (self.pos % 8) as u32;
        if n < 16
            && scratch.len() >= 16
            && let Some(src) = self.data.get(start..start + 17)
        {
            // A short string (most values): one 128-bit word and the octet after it, shifted,
            // the octets past the string cleared. The 17 octets from `start` hold its bits.
            self.pos += n * 8;
            let x = u128::from_be_bytes(src[..16].try_into().expect("16"));
            let v = ((x << shift) | (src[16] as u128 >> (8 - shift))) & !(u128::MAX >> (8 * n));
            scratch[..16].copy_from_slice(&v.to_be_bytes());
            return Ok(16);
        }
        if n < 32
            && scratch.len() >= 32
            && let Some(src) = self.data.get(start..start + 33)
        {
            // 16 to 31 octets (names, most longer values): two such words, the second's
            // octets past the string cleared.
            self.pos += n * 8;
            let x = u128::from_be_bytes(src[..16].try_into().expect("16"));
            let y = u128::from_be_bytes(src[16..32].try_into().expect("16"));
            let v = (x << shift) | (src[16] as u128 >> (8 - shift));
            let w =
                ((y << shift) | (src[32] as u128 >> (8 - shift))) & !(u128::MAX >> (8 * (n - 16)));
            scratch[..16].copy_from_slice(&v.to_be_bytes());
            scratch[16..32].copy_from_slice(&w.to_be_bytes());
            return Ok(32);
        }
        self.octets_padded_long(n, scratch)
    }

    /// [`BitReader::octets_padded`] of 16 octets or more, or near the end of the input.
    #[inline(never)]
    fn octets_padded_long(&mut self, n: usize, scratch: &mut Vec<u8>) -> Result<usize> {
        if n.saturating_mul(8) > self.left() {
            return Err(self.err(format!("{n} octets announced, {} bits left", self.left())));
        }
        let start = self.pos / 8;
        let shift = (self.pos % 8) as u32;
        self.pos += n * 8;
        let padded = n.next_multiple_of(16);
        if scratch.len() < padded {
            scratch.resize(padded, 0);
        }
        let out = &mut scratch[..padded];
        if let Some(src) = self.data.get(start..start + padded + 1) {
            // Sixteen octets at a time: each out of a big-endian 128-bit word and the octet
            // after it (shifted by 8 - shift: nothing when `shift` is 0); the octets of the
            // last past the string cleared.
            let blocks = padded / 16;
            let tail = !(u128::MAX.checked_shr(8 * (n % 16) as u32).unwrap_or(0));
            for (k, o) in out.chunks_exact_mut(16).enumerate() {
                let w = u128::from_be_bytes(src[k * 16..k * 16 + 16].try_into().expect("16"));
                let next = src[k * 16 + 16] as u128;
                let mut v = (w << shift) | (next >> (8 - shift));
                if k + 1 == blocks && !n.is_multiple_of(16) {
                    v &= tail;
                }
                o.copy_from_slice(&v.to_be_bytes());
            }
        } else {
            // Near the end of the input: octet by octet. With a shift, the last octet's low
            // bits lie in the octet after: it exists, as the check above counted the bits.
            for (i, o) in out[..n].iter_mut().enumerate() {
                let hi = (self.data[start + i] as u16) << 8;
                let lo = self.data.get(start + i + 1).copied().unwrap_or(0) as u16;
                *o = ((hi | lo) << shift >> 8) as u8;
            }
            out[n..].fill(0);
        }
        Ok(padded)
    }

    /// An index among `count` (a CHOICE's alternative, an enumeration's value, a count of
    /// items): [`BitReader::constrained`] for the ranges that take at most 8 bits (any range
    /// up to 2^56 in the unaligned variant), in machine words.
    #[inline(always)]
    pub fn index(&mut self, count: usize) -> Result<usize> {
        if count <= 255 || (!self.aligned && count as u64 <= 1 << 56) {
            let bits = if count <= 1 {
                0
            } else {
                usize::BITS - (count - 1).leading_zeros()
            };
            let v = self.get(bits)? as usize;
            if v >= count && count > 0 {
                return Err(self.out_of_range(v, count));
            }
            return Ok(v);
        }
        Ok(self.constrained(count as u128)? as usize)
    }

    #[cold]
    #[inline(never)]
    fn out_of_range(&self, v: usize, count: usize) -> Error {
        self.err(format!("value {v} out of its range 0..{}", count - 1))
    }

    /// A constrained whole number in `0..range`.
    #[inline]
    pub fn constrained(&mut self, range: u128) -> Result<u128> {
        if range <= 1 << 56 && (!self.aligned || range <= 255) {
            // The common case (a choice index, an enumeration, a count): one read of at most
            // 56 bits, in 64-bit arithmetic.
            let range = range as u64;
            let bits = if range <= 1 {
                0
            } else {
                64 - (range - 1).leading_zeros()
            };
            let v = self.get(bits)?;
            if v >= range && range > 0 {
                return Err(self.err(format!("value {v} out of its range 0..{}", range - 1)));
            }
            return Ok(v as u128);
        }
        self.constrained_wide(range)
    }

    /// [`BitReader::constrained`] of a range above 2^56 or, in the ALIGNED variant, above 255.
    #[inline(never)]
    fn constrained_wide(&mut self, range: u128) -> Result<u128> {
        let v = if !self.aligned || range <= 255 {
            self.get_wide(range_bits(range))?
        } else if range == 256 {
            self.align()?;
            self.get(8)? as u128
        } else {
            self.align()?;
            self.get(16)? as u128
        };
        if v >= range && range > 0 {
            return Err(self.err(format!("value {v} out of its range 0..{}", range - 1)));
        }
        Ok(v)
    }

    /// A general length determinant: the length, and whether a fragment follows.
    #[inline(always)]
    pub fn short_length(&mut self) -> Result<(usize, bool)> {
        self.align()?;
        let first = self.get(8)?;
        if first & 0x80 == 0 {
            Ok((first as usize, false))
        } else if first & 0x40 == 0 {
            Ok((((first & 0x3F) << 8 | self.get(8)?) as usize, false))
        } else {
            let m = (first & 0x3F) as usize;
            if !(1..=4).contains(&m) {
                return Err(self.err(format!("fragment multiplier {m} (must be 1 to 4)")));
            }
            Ok((m * FRAG, true))
        }
    }

    /// A count with size bounds `min..max`, then the items, which `items(r, n)` reads `n` at a
    /// time (once per fragment). Each item takes at least `min_item_bits` bits, which bounds a
    /// count by the input left.
    pub fn counted(
        &mut self,
        min: u64,
        max: Option<u64>,
        mut items: impl FnMut(&mut Self, usize) -> Result<()>,
    ) -> Result<usize> {
        if let Some(ub) = max.filter(|&u| u < 65536) {
            let n = self.constrained((ub - min + 1) as u128)? as usize + min as usize;
            items(self, n)?;
            return Ok(n);
        }
        let mut total = 0usize;
        loop {
            let (n, more) = self.short_length()?;
            items(self, n)?;
            total += n;
            if !more {
                break;
            }
        }
        if (total as u64) < min || max.is_some_and(|m| total as u64 > m) {
            return Err(self.err(format!("count {total} outside its size constraint")));
        }
        Ok(total)
    }

    /// An INTEGER with bounds `lo..hi`.
    pub fn integer(&mut self, lo: Option<i128>, hi: Option<i128>) -> Result<i128> {
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let range = (hi.wrapping_sub(lo) as u128).saturating_add(1);
                let v = if self.aligned && range > 65536 {
                    let max_octets = (range_bits(range).div_ceil(8)).max(1) as u128;
                    let n = self.constrained(max_octets)? as usize + 1;
                    self.align()?;
                    let x = self.octets_value(n)?;
                    if x >= range {
                        return Err(self.err(format!("value {x} out of its range")));
                    }
                    x
                } else {
                    self.constrained(range)?
                };
                Ok(lo.wrapping_add(v as i128))
            }
            (Some(lo), None) => {
                let (n, frag) = self.short_length()?;
                if frag || n == 0 || n > 16 {
                    return Err(self.err(format!("integer of {n} octets (1 to 16 supported)")));
                }
                let x = self.octets_value(n)?;
                if x > i128::MAX as u128 {
                    return Err(self.err("integer too large"));
                }
                lo.checked_add(x as i128)
                    .ok_or_else(|| self.err("integer too large"))
            }
            _ => {
                let (n, frag) = self.short_length()?;
                if frag || n == 0 || n > 16 {
                    return Err(self.err(format!("integer of {n} octets (1 to 16 supported)")));
                }
                // Two's complement in `n` octets: sign-extended from the top of the first.
                let shift = 128 - 8 * n as u32;
                Ok(((self.octets_value(n)? << shift) as i128) >> shift)
            }
        }
    }

    /// `n` octets (1 to 16) as a big-endian number, checked against the input first.
    fn octets_value(&mut self, n: usize) -> Result<u128> {
        if n.saturating_mul(8) > self.left() {
            return Err(self.err(format!("{n} octets announced, {} bits left", self.left())));
        }
        if n <= 7 {
            // Most numbers: one read of at most 56 bits.
            return Ok(self.get(8 * n as u32)? as u128);
        }
        let mut x = 0u128;
        for _ in 0..n {
            x = x << 8 | self.get(8)? as u128;
        }
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip() {
        let cases: &[(i128, Option<i128>, Option<i128>)] = &[
            (5, Some(0), Some(10)),
            (-128, Some(-128), Some(127)),
            (
                i64::MAX as i128,
                Some(i64::MIN as i128),
                Some(i64::MAX as i128),
            ),
            (300, Some(0), None),
            (-1, None, None),
            (128, None, None),
            (-129, None, Some(0)),
            (i128::MIN, None, None),
        ];
        let mut w = BitWriter::new(false);
        for &(v, lo, hi) in cases {
            w.integer(v, lo, hi);
        }
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, Format::Asn1Uper, false);
        for &(v, lo, hi) in cases {
            assert_eq!(r.integer(lo, hi).unwrap(), v);
        }
    }

    #[test]
    fn append_and_patch() {
        let mut a = BitWriter::new(false);
        a.put(0b101, 3);
        a.put(0, 1);
        a.patch(3, true);
        let mut b = BitWriter::new(false);
        b.put(0xABCD, 16);
        b.put(1, 1);
        a.append(&b, 0, 17);
        let bytes = a.finish();
        let mut r = BitReader::new(&bytes, Format::Asn1Uper, false);
        assert_eq!(r.get(4).unwrap(), 0b1011);
        assert_eq!(r.get(16).unwrap(), 0xABCD);
        assert_eq!(r.get(1).unwrap(), 1);
    }
}
