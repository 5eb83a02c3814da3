//! The EXI bit stream: n-bit unsigned integers, unsigned integers in 7-bit groups, booleans and
//! strings of code points (EXI 1.0, section 7.1), bit-packed or byte-aligned.
//!
//! In bit-packed streams every item starts at the next bit; in byte-aligned streams (the
//! `byte-alignment`, `pre-compression` and `compression` alignments) an n-bit integer takes
//! ⌈n/8⌉ octets, least significant octet first, and a boolean one octet.

use binxml_core::{Error, Format, Result};

/// Octets an unsigned integer may take: 10 groups of 7 bits hold any `u64`.
const MAX_UINT_OCTETS: usize = 10;

/// The number of bits an n-bit code over `n` choices takes: ⌈log2 n⌉, 0 for one choice.
#[inline]
pub(crate) fn width(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Length of a string in code points (EXI counts characters, not octets).
#[inline]
pub(crate) fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Writes an EXI bit stream into a vector.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    buf: Vec<u8>,
    /// Pending bits, right-aligned (bit-packed only; at most 7 between calls).
    acc: u64,
    /// Number of pending bits in `acc`.
    pending: u32,
    aligned: bool,
}

impl BitWriter {
    /// A writer; `aligned` selects byte-aligned items.
    pub(crate) fn new(aligned: bool) -> Self {
        BitWriter {
            buf: Vec::new(),
            acc: 0,
            pending: 0,
            aligned,
        }
    }

    /// Switches between bit-packed and byte-aligned items (after the header's options, which
    /// are always bit-packed); pads to an octet boundary when switching to aligned.
    pub(crate) fn set_aligned(&mut self, aligned: bool) {
        if aligned {
            self.pad();
        }
        self.aligned = aligned;
    }

    /// Whether items are byte-aligned.
    pub(crate) fn is_aligned(&self) -> bool {
        self.aligned
    }

    /// Bits written so far.
    #[cfg(test)]
    pub(crate) fn bit_len(&self) -> u64 {
        self.buf.len() as u64 * 8 + self.pending as u64
    }

    /// Octets written so far, counting a partial octet.
    pub(crate) fn len(&self) -> usize {
        self.buf.len() + usize::from(self.pending > 0)
    }

    /// `n` (at most 32) low bits of `v`, most significant first.
    #[inline]
    pub(crate) fn bits(&mut self, v: u32, n: u32) {
        if n == 0 {
            return;
        }
        debug_assert!(n <= 32);
        self.acc = (self.acc << n) | (v as u64 & ((1u64 << n) - 1));
        self.pending += n;
        while self.pending >= 8 {
            self.pending -= 8;
            self.buf.push((self.acc >> self.pending) as u8);
        }
        self.acc &= (1u64 << self.pending) - 1;
    }

    /// One octet.
    #[inline]
    pub(crate) fn octet(&mut self, b: u8) {
        if self.pending == 0 {
            self.buf.push(b);
        } else {
            self.bits(b as u32, 8);
        }
    }

    /// An n-bit unsigned integer (an event code part, a compact identifier).
    #[inline]
    pub(crate) fn nbit(&mut self, v: u32, n: u32) {
        if self.aligned {
            let mut v = v;
            for _ in 0..n.div_ceil(8) {
                self.buf.push(v as u8);
                v >>= 8;
            }
        } else {
            self.bits(v, n);
        }
    }

    /// A boolean.
    #[inline]
    pub(crate) fn boolean(&mut self, b: bool) {
        if self.aligned {
            self.buf.push(b as u8);
        } else {
            self.bits(b as u32, 1);
        }
    }

    /// An unsigned integer: 7-bit groups, least significant first, the high bit of each octet
    /// saying whether another follows.
    #[inline]
    pub(crate) fn uint(&mut self, mut v: u64) {
        if v < 0x80 {
            self.octet(v as u8);
            return;
        }
        loop {
            let low = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.octet(low);
                return;
            }
            self.octet(low | 0x80);
        }
    }

    /// The code points of `s`, each an unsigned integer (no length).
    pub(crate) fn chars(&mut self, s: &str) {
        if s.is_ascii() {
            if self.pending == 0 {
                self.buf.extend_from_slice(s.as_bytes());
            } else {
                for &b in s.as_bytes() {
                    self.bits(b as u32, 8);
                }
            }
        } else {
            for c in s.chars() {
                self.uint(c as u64);
            }
        }
    }

    /// A string: its length in code points, then its code points.
    pub(crate) fn string(&mut self, s: &str) {
        self.uint(char_len(s) as u64);
        self.chars(s);
    }

    /// Zero bits up to the next octet boundary.
    pub(crate) fn pad(&mut self) {
        if self.pending > 0 {
            let n = 8 - self.pending;
            self.bits(0, n);
        }
    }

    /// Raw octets (after [`pad`](Self::pad)).
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        debug_assert_eq!(self.pending, 0);
        self.buf.extend_from_slice(bytes);
    }

    /// The stream, padded to an octet boundary.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.pad();
        self.buf
    }

    /// Takes the whole octets written so far, leaving the pending bits.
    pub(crate) fn take_octets(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }
}

/// Reads an EXI bit stream from a slice. Every read checks the input's end; errors carry the
/// byte and bit offset where the item began (counted from `base`, the slice's offset in the
/// whole input, or in the decompressed stream for compressed input).
#[derive(Clone, Debug)]
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Next octet to read.
    pos: usize,
    /// Bits of `data[pos]` already consumed (bit-packed only).
    bit: u32,
    aligned: bool,
    base: u64,
    /// What the offsets count (for error messages): "" for the input, else a description.
    pub(crate) stream: &'static str,
}

impl<'a> BitReader<'a> {
    /// A reader over `data`, whose first octet is at offset `base`.
    pub(crate) fn new(data: &'a [u8], aligned: bool, base: u64) -> Self {
        BitReader {
            data,
            pos: 0,
            bit: 0,
            aligned,
            base,
            stream: "",
        }
    }

    /// Switches alignment; to aligned skips to the next octet boundary.
    pub(crate) fn set_aligned(&mut self, aligned: bool) {
        if aligned {
            self.skip_to_octet();
        }
        self.aligned = aligned;
    }

    /// Skips the bits left in the current octet.
    pub(crate) fn skip_to_octet(&mut self) {
        if self.bit > 0 {
            self.bit = 0;
            self.pos += 1;
        }
    }

    /// The offset in octets of the next item (of its first octet).
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The offset in bits of the next item.
    pub(crate) fn bit_offset(&self) -> u64 {
        (self.base + self.pos as u64) * 8 + self.bit as u64
    }

    /// Octets not yet read (a partly read octet counts as read).
    pub(crate) fn remaining(&self) -> usize {
        self.data
            .len()
            .saturating_sub(self.pos + usize::from(self.bit > 0))
    }

    /// The octets from the next octet boundary on.
    pub(crate) fn rest(&self) -> &'a [u8] {
        let start = self.pos + usize::from(self.bit > 0);
        &self.data[start.min(self.data.len())..]
    }

    /// Moves the next octet to `pos` (relative to this reader's slice), bit 0.
    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos;
        self.bit = 0;
    }

    /// Position in octets within this reader's slice.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// A malformed-input error at the current position.
    #[cold]
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::malformed(Format::Exi, self.offset(), self.placed(message.into()))
            .at_bit(self.bit_offset())
    }

    /// A limit error at the current position (a length past `Limits::max_string_len`).
    #[cold]
    pub(crate) fn limit_error(&self, message: impl Into<String>) -> Error {
        Error::limit(Format::Exi, self.offset(), self.placed(message.into()))
            .at_bit(self.bit_offset())
    }

    /// The message, saying what the offsets count when it is not the input.
    fn placed(&self, mut m: String) -> String {
        if !self.stream.is_empty() {
            m.push_str(" (offset in ");
            m.push_str(self.stream);
            m.push(')');
        }
        m
    }

    #[cold]
    fn truncated(&self, what: &str) -> Error {
        self.error(format!(
            "truncated stream: {what} runs past the end of the input"
        ))
    }

    /// `n` (at most 32) bits, most significant first.
    #[inline]
    pub(crate) fn bits(&mut self, n: u32) -> Result<u32> {
        if n == 0 {
            return Ok(0);
        }
        debug_assert!(n <= 32);
        let total = self.bit + n;
        if let Some(word) = self.data.get(self.pos..self.pos + 8) {
            // Eight octets hold the 32 bits and the up to 7 already consumed.
            let w = u64::from_be_bytes(word.try_into().unwrap_or([0; 8]));
            let v = (w << self.bit) >> (64 - n);
            self.pos += (total / 8) as usize;
            self.bit = total % 8;
            return Ok(v as u32);
        }
        let octets = total.div_ceil(8) as usize;
        if self.pos + octets > self.data.len() {
            return Err(self.truncated("an event code or identifier"));
        }
        let mut acc: u64 = 0;
        for i in 0..octets {
            acc = (acc << 8) | self.data[self.pos + i] as u64;
        }
        let drop = octets as u32 * 8 - total;
        let v = (acc >> drop) & ((1u64 << n) - 1);
        self.pos += (total / 8) as usize;
        self.bit = total % 8;
        Ok(v as u32)
    }

    /// One octet's worth of bits.
    #[inline]
    fn octet(&mut self) -> Result<u8> {
        if self.bit == 0 {
            match self.data.get(self.pos) {
                Some(&b) => {
                    self.pos += 1;
                    Ok(b)
                }
                None => Err(self.truncated("an unsigned integer")),
            }
        } else {
            match self.data.get(self.pos..self.pos + 2) {
                Some(&[a, b]) => {
                    self.pos += 1;
                    Ok((((a as u16) << 8 | b as u16) >> (8 - self.bit)) as u8)
                }
                _ => Err(self.truncated("an unsigned integer")),
            }
        }
    }

    /// An n-bit unsigned integer.
    #[inline]
    pub(crate) fn nbit(&mut self, n: u32) -> Result<u32> {
        if self.aligned {
            let octets = n.div_ceil(8) as usize;
            if self.pos + octets > self.data.len() {
                return Err(self.truncated("an n-bit integer"));
            }
            let mut v: u32 = 0;
            for i in 0..octets {
                v |= (self.data[self.pos + i] as u32) << (8 * i);
            }
            self.pos += octets;
            Ok(v)
        } else {
            self.bits(n)
        }
    }

    /// An event code part over `choices` choices, checked against them.
    #[inline]
    pub(crate) fn code(&mut self, choices: usize) -> Result<usize> {
        let v = self.nbit(width(choices))? as usize;
        if v >= choices {
            return Err(self.error(format!(
                "event code part {v} is past the grammar's {choices} choices"
            )));
        }
        Ok(v)
    }

    /// A boolean.
    #[inline]
    pub(crate) fn boolean(&mut self) -> Result<bool> {
        if self.aligned {
            match self.data.get(self.pos) {
                Some(&b) => {
                    self.pos += 1;
                    Ok(b & 1 == 1)
                }
                None => Err(self.truncated("a boolean")),
            }
        } else {
            Ok(self.bits(1)? == 1)
        }
    }

    /// An unsigned integer (at most 10 octets; a value past `u64` is an error).
    #[inline]
    pub(crate) fn uint(&mut self) -> Result<u64> {
        let first = self.octet()?;
        if first < 0x80 {
            return Ok(first as u64);
        }
        self.uint_rest(first)
    }

    /// The rest of an unsigned integer whose first octet (with its high bit set) was read.
    fn uint_rest(&mut self, first: u8) -> Result<u64> {
        let mut v = (first & 0x7F) as u64;
        let mut shift = 7;
        for _ in 1..MAX_UINT_OCTETS {
            let b = self.octet()?;
            let part = (b & 0x7F) as u64;
            if shift == 63 && part > 1 {
                break;
            }
            v |= part << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
        Err(self.error("unsigned integer does not fit in 64 bits"))
    }

    /// An unsigned integer used as a length or count, bounded by `max`.
    #[inline]
    pub(crate) fn length(&mut self, max: usize, what: &str) -> Result<usize> {
        let at = self.clone();
        let v = self.uint()?;
        if v > max as u64 {
            return Err(at.limit_error(format!(
                "{what} {v} is past the limit of {max} (limit: max_string_len)"
            )));
        }
        Ok(v as usize)
    }

    /// `len` code points into `out`. The length is checked against the input left (every code
    /// point takes at least one octet) before anything is allocated.
    pub(crate) fn chars_into(&mut self, len: usize, out: &mut String) -> Result<()> {
        if len > self.remaining() + usize::from(self.bit > 0) {
            return Err(self.error(format!(
                "string of {len} characters is longer than the {} octets left",
                self.remaining()
            )));
        }
        out.reserve(len);
        let mut left = len;
        if self.bit == 0 {
            // Fast path: a run of octets below 0x80 is the string's ASCII characters as is.
            let run = self.data[self.pos..]
                .iter()
                .take(left)
                .take_while(|&&b| b < 0x80)
                .count();
            out.extend(
                self.data[self.pos..self.pos + run]
                    .iter()
                    .map(|&b| b as char),
            );
            self.pos += run;
            left -= run;
        }
        while left > 0 {
            // Seven ASCII characters at a time at any bit offset: eight octets hold them and
            // the bits already consumed of the first.
            if left >= 7
                && let Some(word) = self.data.get(self.pos..self.pos + 8)
            {
                let w = (u64::from_be_bytes(word.try_into().unwrap_or([0; 8])) << self.bit) >> 8;
                if w & 0x0080_8080_8080_8080 == 0 {
                    for k in (0..7).rev() {
                        out.push(((w >> (8 * k)) & 0x7F) as u8 as char);
                    }
                    self.pos += 7;
                    left -= 7;
                    continue;
                }
            }
            let (pos, bit) = (self.pos, self.bit);
            let first = self.octet()?;
            if first < 0x80 {
                out.push(first as char);
            } else {
                let cp = self.uint_rest(first)?;
                match u32::try_from(cp).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => {
                        let mut at = self.clone();
                        at.pos = pos;
                        at.bit = bit;
                        return Err(at.error(format!("{cp:#x} is not a Unicode scalar value")));
                    }
                }
            }
            left -= 1;
        }
        Ok(())
    }

    /// A string of `len` code points.
    pub(crate) fn chars(&mut self, len: usize) -> Result<String> {
        let mut s = String::new();
        self.chars_into(len, &mut s)?;
        Ok(s)
    }

    /// A string: length, then code points; the length bounded by `max`.
    pub(crate) fn string(&mut self, max: usize) -> Result<String> {
        let len = self.length(max, "string length")?;
        self.chars(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_packed_round_trip() {
        let mut w = BitWriter::new(false);
        w.bits(1, 1);
        w.nbit(5, 3);
        w.uint(300);
        w.string("aé€😀");
        w.boolean(true);
        w.nbit(0x1234, 13);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, false, 0);
        assert_eq!(r.bits(1).unwrap(), 1);
        assert_eq!(r.nbit(3).unwrap(), 5);
        assert_eq!(r.uint().unwrap(), 300);
        assert_eq!(r.string(100).unwrap(), "aé€😀");
        assert!(r.boolean().unwrap());
        assert_eq!(r.nbit(13).unwrap(), 0x1234);
    }

    #[test]
    fn strings_at_every_bit_offset() {
        let texts = [
            "",
            "a",
            "abcdefg",
            "abcdefgh",
            "0123456789abcdef",
            "abcdefé",
            "aéb€cd😀efghijk",
        ];
        for offset in 0..8 {
            for t in texts {
                let mut w = BitWriter::new(false);
                w.bits(0, offset);
                w.string(t);
                w.string(t);
                let bytes = w.finish();
                let mut r = BitReader::new(&bytes, false, 0);
                r.bits(offset).unwrap();
                assert_eq!(r.string(100).unwrap(), t, "offset {offset}");
                assert_eq!(r.string(100).unwrap(), t, "offset {offset}, second");
            }
        }
    }

    #[test]
    fn byte_aligned_round_trip() {
        let mut w = BitWriter::new(true);
        w.nbit(5, 3);
        w.nbit(0x1234, 13);
        w.boolean(false);
        w.string("abc");
        let bytes = w.finish();
        assert_eq!(bytes, [5, 0x34, 0x12, 0, 3, b'a', b'b', b'c']);
        let mut r = BitReader::new(&bytes, true, 0);
        assert_eq!(r.nbit(3).unwrap(), 5);
        assert_eq!(r.nbit(13).unwrap(), 0x1234);
        assert!(!r.boolean().unwrap());
        assert_eq!(r.string(10).unwrap(), "abc");
    }

    #[test]
    fn hostile_lengths_and_values() {
        // A length far past the input fails before allocating.
        let mut r = BitReader::new(&[0xFF, 0xFF, 0xFF, 0x7F, 1], false, 0);
        assert!(r.string(usize::MAX).is_err());
        // Eleven continuation octets: no u64.
        let mut r = BitReader::new(&[0xFF; 11], false, 0);
        assert!(r.uint().is_err());
        // A surrogate code point.
        let mut r = BitReader::new(&[1, 0x80, 0xB0, 0x03], false, 0);
        let e = r.string(10).unwrap_err();
        assert!(e.message().contains("Unicode"), "{e}");
        assert_eq!(width(1), 0);
        assert_eq!(width(2), 1);
        assert_eq!(width(3), 2);
        assert_eq!(width(4), 2);
        assert_eq!(width(5), 3);
    }
}
