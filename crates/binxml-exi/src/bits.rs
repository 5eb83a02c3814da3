//! The EXI bit stream: n-bit unsigned integers, unsigned integers in 7-bit groups, booleans and
//! strings of code points (EXI 1.0, section 7.1), bit-packed or byte-aligned.
//!
//! In bit-packed streams every item starts at the next bit; in byte-aligned streams (the
//! `byte-alignment`, `pre-compression` and `compression` alignments) an n-bit integer takes
//! ⌈n/8⌉ octets, least significant octet first, and a boolean one octet.

use binxml_core::{Error, Format, Result};

/// The high bit of each of the first `t` of fifteen octets (the low 120 bits of a `u128`, the
/// first octet the most significant), for `t` from 0 to 15.
const HIGH_BITS: [u128; 16] = {
    let mut m = [0u128; 16];
    let mut t = 1;
    while t < 16 {
        m[t] = m[t - 1] | (0x80 << (8 * (15 - t)));
        t += 1;
    }
    m
};

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
    /// Pending bits, right-aligned in the low `pending` bits (the bits above them are left
    /// over from earlier writes and mean nothing). Bit-packed only: fewer than 32 between
    /// calls, stored four octets at a time, so that most items store nothing.
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

    /// Room for `n` more octets.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.buf.reserve(n);
    }

    /// Switches between bit-packed and byte-aligned items (after the header's options, which
    /// are always bit-packed); pads to an octet boundary when switching to aligned.
    pub(crate) fn set_aligned(&mut self, aligned: bool) {
        if aligned {
            self.pad();
        }
        self.aligned = aligned;
    }

    /// Bits written so far.
    #[cfg(test)]
    pub(crate) fn bit_len(&self) -> u64 {
        self.buf.len() as u64 * 8 + self.pending as u64
    }

    /// Octets written so far, counting a partial octet.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.buf.len() + self.pending.div_ceil(8) as usize
    }

    /// `n` (at most 32) low bits of `v`, most significant first.
    #[inline]
    pub(crate) fn bits(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32 && self.pending < 32);
        // At most 31 + 32 bits pending: they fit the word.
        self.acc = (self.acc << n) | (v as u64 & ((1u64 << n) - 1));
        self.pending += n;
        if self.pending >= 32 {
            self.pending -= 32;
            let word = (self.acc >> self.pending) as u32;
            self.buf.extend_from_slice(&word.to_be_bytes());
        }
    }

    /// Stores the whole octets of the pending bits (fewer than 8 bits stay pending).
    #[inline]
    fn store_octets(&mut self) {
        while self.pending >= 8 {
            self.pending -= 8;
            self.buf.push((self.acc >> self.pending) as u8);
        }
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

    /// A one-octet unsigned integer `u` (below 128), then an n-bit unsigned integer `v` (a
    /// value-table hit): one store when bit-packed.
    #[inline]
    pub(crate) fn uint7_nbit(&mut self, u: u8, v: u32, n: u32) {
        debug_assert!(u < 0x80);
        if !self.aligned && n <= 24 {
            self.bits((u32::from(u) << n) | v, 8 + n);
        } else {
            self.octet(u);
            self.nbit(v, n);
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

    /// An unsigned integer of any size given as ASCII decimal digits (no sign; leading zeros
    /// allowed; empty is 0): 7-bit groups as [`uint`](Self::uint) writes them. Numbers of up to
    /// 19 digits take the `u64` path.
    pub(crate) fn uint_digits(&mut self, digits: &str) {
        let digits = digits.trim_start_matches('0');
        if digits.len() <= 19 {
            self.uint(digits.parse().unwrap_or(0));
            return;
        }
        let big = Big::from_decimal(digits);
        big.write_groups(self);
    }

    /// An unsigned integer of any size.
    pub(crate) fn uint_big(&mut self, v: &Big) {
        match v.to_u64() {
            Some(n) => self.uint(n),
            None => v.write_groups(self),
        }
    }

    /// The code points of `s`, each an unsigned integer (no length).
    pub(crate) fn chars(&mut self, s: &str) {
        if s.is_ascii() {
            self.store_octets();
            if self.pending == 0 {
                self.buf.extend_from_slice(s.as_bytes());
            } else {
                // Each octet completes the pending bits and leaves its own low bits pending.
                let p = self.pending;
                let mask = (1u64 << p) - 1;
                let mut acc = self.acc;
                self.buf.reserve(s.len());
                // Eight octets at a time: the pending bits, then the first 64 - p bits of the
                // eight; the last p bits stay pending.
                let mut eights = s.as_bytes().chunks_exact(8);
                for c in &mut eights {
                    let w = u64::from_be_bytes(c.try_into().unwrap_or([0; 8]));
                    self.buf
                        .extend_from_slice(&((acc << (64 - p)) | (w >> p)).to_be_bytes());
                    acc = w & mask;
                }
                for &b in eights.remainder() {
                    self.buf.push(((acc << (8 - p)) as u8) | (b >> p));
                    acc = b as u64 & mask;
                }
                self.acc = acc;
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
        if !self.pending.is_multiple_of(8) {
            let n = 8 - self.pending % 8;
            self.bits(0, n);
        }
        self.store_octets();
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

    /// Writes the whole octets written so far to `out` and drops them (the buffer keeps its
    /// capacity), leaving the pending bits.
    pub(crate) fn write_octets_to(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.store_octets();
        let r = out.write_all(&self.buf);
        self.buf.clear();
        r
    }

    /// Pads to an octet boundary, writes the stream to `out` and starts an empty bit-packed
    /// one (the buffer keeps its capacity).
    pub(crate) fn finish_to(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.pad();
        let r = self.write_octets_to(out);
        self.clear();
        r
    }

    /// An empty bit-packed stream (the buffer keeps its capacity).
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.acc = 0;
        self.pending = 0;
        self.aligned = false;
    }

    /// Takes the whole octets written so far, leaving the pending bits.
    pub(crate) fn take_octets(&mut self) -> Vec<u8> {
        self.store_octets();
        std::mem::take(&mut self.buf)
    }
}

/// A position of a [`BitReader`], kept where an error may have to point back at an item's
/// start (cheaper than a copy of the reader).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    at: u64,
}

/// Reads an EXI bit stream from a slice. Every read checks the input's end; errors carry the
/// byte and bit offset where the item began (counted from `base`, the slice's offset in the
/// whole input, or in the decompressed stream for compressed input).
#[derive(Clone, Debug)]
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Bits read so far: the next item starts at bit `at % 8` (most significant first) of
    /// octet `at / 8`. One counter rather than an octet and a bit: an n-bit read adds n to it.
    /// Never past the end of `data` but through [`seek`](Self::seek); a multiple of 8 in
    /// byte-aligned streams.
    at: u64,
    aligned: bool,
    /// The slice's offset in the whole input (or decompressed stream), in bits.
    base_bits: u64,
    /// What the offsets count (for error messages): "" for the input, else a description.
    pub(crate) stream: &'static str,
}

impl<'a> BitReader<'a> {
    /// A reader over `data`, whose first octet is at offset `base`.
    pub(crate) fn new(data: &'a [u8], aligned: bool, base: u64) -> Self {
        BitReader {
            data,
            at: 0,
            aligned,
            base_bits: base * 8,
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
        self.at = self.at.next_multiple_of(8);
    }

    /// The octet of the next item's first bit, within this reader's slice.
    #[inline(always)]
    fn octet_pos(&self) -> usize {
        (self.at >> 3) as usize
    }

    /// Bits of the octet at [`octet_pos`](Self::octet_pos) already read (bit-packed only).
    #[inline(always)]
    fn bit(&self) -> u32 {
        (self.at & 7) as u32
    }

    /// The offset in octets of the next item (of its first octet).
    pub(crate) fn offset(&self) -> u64 {
        (self.base_bits + self.at) >> 3
    }

    /// The offset in bits of the next item.
    #[inline(always)]
    pub(crate) fn bit_offset(&self) -> u64 {
        self.base_bits + self.at
    }

    /// Octets not yet read (a partly read octet counts as read).
    pub(crate) fn remaining(&self) -> usize {
        self.data
            .len()
            .saturating_sub(self.at.div_ceil(8).min(usize::MAX as u64) as usize)
    }

    /// The octets from the next octet boundary on.
    pub(crate) fn rest(&self) -> &'a [u8] {
        let start = self.at.div_ceil(8).min(self.data.len() as u64) as usize;
        &self.data[start..]
    }

    /// Moves the next octet to `pos` (relative to this reader's slice), bit 0.
    pub(crate) fn seek(&mut self, pos: usize) {
        self.at = pos as u64 * 8;
    }

    /// Position in octets within this reader's slice.
    pub(crate) fn pos(&self) -> usize {
        self.octet_pos()
    }

    /// The current position, for an error about an item that starts here.
    #[inline(always)]
    pub(crate) fn mark(&self) -> Mark {
        Mark { at: self.at }
    }

    /// Goes back to `m`.
    #[inline]
    pub(crate) fn reset(&mut self, m: Mark) {
        self.at = m.at;
    }

    /// A reader at `m`, for errors placed there.
    #[cold]
    fn at(&self, m: Mark) -> BitReader<'a> {
        BitReader {
            at: m.at,
            ..self.clone()
        }
    }

    /// A malformed-input error at `m`.
    #[cold]
    #[inline(never)]
    pub(crate) fn error_at(&self, m: Mark, message: impl Into<String>) -> Error {
        self.at(m).error(message)
    }

    /// A limit error at `m`.
    #[cold]
    #[inline(never)]
    pub(crate) fn limit_error_at(&self, m: Mark, message: impl Into<String>) -> Error {
        self.at(m).limit_error(message)
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
    #[inline(always)]
    pub(crate) fn bits(&mut self, n: u32) -> Result<u32> {
        if n == 0 {
            return Ok(0);
        }
        debug_assert!(n <= 32);
        let pos = self.octet_pos();
        if let Some(word) = self.data.get(pos..pos + 8) {
            // Eight octets hold the 32 bits and the up to 7 already consumed.
            let w = u64::from_be_bytes(word.try_into().unwrap_or([0; 8]));
            let v = (w << (self.at & 7)) >> (64 - n);
            self.at += u64::from(n);
            return Ok(v as u32);
        }
        self.bits_near_end(n)
    }

    /// [`bits`](Self::bits) within eight octets of the end of the input.
    #[cold]
    #[inline(never)]
    fn bits_near_end(&mut self, n: u32) -> Result<u32> {
        let (pos, total) = (self.octet_pos(), self.bit() + n);
        let octets = total.div_ceil(8) as usize;
        let Some(bytes) = self.data.get(pos..pos + octets) else {
            return Err(self.truncated("an event code or identifier"));
        };
        let mut acc: u64 = 0;
        for &b in bytes {
            acc = (acc << 8) | b as u64;
        }
        let drop = octets as u32 * 8 - total;
        let v = (acc >> drop) & ((1u64 << n) - 1);
        self.at += u64::from(n);
        Ok(v as u32)
    }

    /// One octet's worth of bits.
    #[inline(always)]
    fn octet(&mut self) -> Result<u8> {
        let (pos, bit) = (self.octet_pos(), self.bit());
        if bit == 0 {
            match self.data.get(pos) {
                Some(&b) => {
                    self.at += 8;
                    Ok(b)
                }
                None => Err(self.truncated("an unsigned integer")),
            }
        } else {
            match self.data.get(pos..pos + 2) {
                Some(&[a, b]) => {
                    self.at += 8;
                    Ok((((a as u16) << 8 | b as u16) >> (8 - bit)) as u8)
                }
                _ => Err(self.truncated("an unsigned integer")),
            }
        }
    }

    /// An n-bit unsigned integer.
    #[inline(always)]
    pub(crate) fn nbit(&mut self, n: u32) -> Result<u32> {
        if self.aligned {
            self.nbit_aligned(n)
        } else {
            self.bits(n)
        }
    }

    /// An n-bit unsigned integer in whole octets, least significant first.
    #[inline]
    fn nbit_aligned(&mut self, n: u32) -> Result<u32> {
        {
            let (pos, octets) = (self.octet_pos(), n.div_ceil(8) as usize);
            let Some(bytes) = self.data.get(pos..pos + octets) else {
                return Err(self.truncated("an n-bit integer"));
            };
            let mut v: u32 = 0;
            for (i, &b) in bytes.iter().enumerate() {
                v |= (b as u32) << (8 * i);
            }
            self.at += 8 * octets as u64;
            Ok(v)
        }
    }

    /// An event code part over `choices` choices, checked against them.
    #[inline(always)]
    pub(crate) fn code(&mut self, choices: usize) -> Result<usize> {
        let v = self.nbit(width(choices))? as usize;
        if v >= choices {
            return Err(self.code_error(v, choices));
        }
        Ok(v)
    }

    #[cold]
    #[inline(never)]
    fn code_error(&self, v: usize, choices: usize) -> Error {
        self.error(format!(
            "event code part {v} is past the grammar's {choices} choices"
        ))
    }

    /// A boolean.
    #[inline]
    pub(crate) fn boolean(&mut self) -> Result<bool> {
        if self.aligned {
            match self.data.get(self.octet_pos()) {
                Some(&b) => {
                    self.at += 8;
                    Ok(b & 1 == 1)
                }
                None => Err(self.truncated("a boolean")),
            }
        } else {
            Ok(self.bits(1)? == 1)
        }
    }

    /// An unsigned integer (at most 10 octets; a value past `u64` is an error).
    #[inline(always)]
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

    /// Bits not yet read (in byte-aligned streams, whole octets times 8).
    pub(crate) fn remaining_bits(&self) -> u64 {
        (self.data.len() as u64 * 8).saturating_sub(self.at)
    }

    /// Whether items are byte-aligned.
    pub(crate) fn is_aligned(&self) -> bool {
        self.aligned
    }

    /// An unsigned integer of any size (at most [`MAX_BIG_OCTETS`] octets).
    pub(crate) fn uint_big(&mut self) -> Result<Big> {
        let at = self.mark();
        let mut groups: Vec<u8> = Vec::new();
        loop {
            let b = self.octet()?;
            groups.push(b & 0x7F);
            if b < 0x80 {
                break;
            }
            if groups.len() >= MAX_BIG_OCTETS {
                return Err(self.limit_error_at(
                    at,
                    format!("unsigned integer of more than {MAX_BIG_OCTETS} octets"),
                ));
            }
        }
        Ok(Big::from_groups(&groups))
    }

    /// An unsigned integer of any size, appended to `out` as decimal digits.
    pub(crate) fn uint_digits(&mut self, out: &mut String) -> Result<()> {
        let at = self.mark();
        let first = self.octet()?;
        if first < 0x80 {
            push_u64(out, first as u64);
            return Ok(());
        }
        let mut groups: Vec<u8> = vec![first & 0x7F];
        loop {
            let b = self.octet()?;
            groups.push(b & 0x7F);
            if b < 0x80 {
                break;
            }
            if groups.len() >= MAX_BIG_OCTETS {
                return Err(self.limit_error_at(
                    at,
                    format!("unsigned integer of more than {MAX_BIG_OCTETS} octets"),
                ));
            }
        }
        Big::from_groups(&groups).write_decimal(out);
        Ok(())
    }

    /// An unsigned integer used as a length or count, bounded by `max`.
    #[inline]
    pub(crate) fn length(&mut self, max: usize, what: &str) -> Result<usize> {
        let at = self.mark();
        let v = self.uint()?;
        if v > max as u64 {
            return Err(self.limit_error_at(
                at,
                format!("{what} {v} is past the limit of {max} (limit: max_string_len)"),
            ));
        }
        Ok(v as usize)
    }

    /// The next fifteen octets' worth of bits as the low 120 bits of a `u128`, the first octet
    /// the most significant (sixteen octets hold them and the bits already consumed of the
    /// first; near the input's end, the octets left, zero-padded), with how many of them to
    /// take as characters: at most `left`, and only octets the input holds whole. `None` when
    /// that is none.
    #[inline(always)]
    fn window(&self, left: usize) -> Option<(u128, usize)> {
        let pos = self.octet_pos();
        let mut take = left.min(15);
        let word: [u8; 16] = match self.data.get(pos..pos + 16) {
            Some(w) => w.try_into().unwrap_or([0; 16]),
            None => {
                let tail = self.data.get(pos..).unwrap_or_default();
                let n = tail.len().min(16);
                take = take.min((n * 8).saturating_sub(self.bit() as usize) / 8);
                let mut w = [0u8; 16];
                w[..n].copy_from_slice(&tail[..n]);
                w
            }
        };
        if take == 0 {
            return None;
        }
        Some(((u128::from_be_bytes(word) << (self.at & 7)) >> 8, take))
    }

    /// `len` code points into `out`. The length is checked against the input left (every code
    /// point takes at least one octet) before anything is allocated.
    pub(crate) fn chars_into(&mut self, len: usize, out: &mut String) -> Result<()> {
        if len > self.remaining() + usize::from(self.bit() > 0) {
            return Err(self.error(format!(
                "string of {len} characters is longer than the {} octets left",
                self.remaining()
            )));
        }
        out.reserve(len);
        let mut left = len;
        if self.bit() == 0 {
            // Fast path: a run of octets below 0x80 is the string's ASCII characters as is.
            let pos = self.octet_pos().min(self.data.len());
            let end = self.data.len().min(pos + left);
            let avail = &self.data[pos..end];
            let ascii = match binxml_core::ascii::ascii_str(avail) {
                Some(all) => all,
                None => {
                    let run = avail.iter().position(|&b| b >= 0x80).unwrap_or(avail.len());
                    binxml_core::ascii::ascii_str(&avail[..run]).unwrap_or_default()
                }
            };
            out.push_str(ascii);
            self.at += 8 * ascii.len() as u64;
            left -= ascii.len();
        }
        while left > 0 {
            // Up to fifteen ASCII characters at a time at any bit offset (`window`). A rest of
            // the string that one read holds joins `out` at once; else they gather in `buf` and
            // join `out` as one string (one check for the batch, not one push per character),
            // a non-ASCII character ending the batch after the ASCII ones before it.
            if left <= 15
                && let Some((w, take)) = self.window(left)
                && take == left
                && w & HIGH_BITS[take] == 0
            {
                // The rest of the string in one read (most values): no gathering.
                if let Some(ascii) = binxml_core::ascii::ascii_str(&w.to_be_bytes()[1..1 + take]) {
                    out.push_str(ascii);
                }
                self.at += 8 * take as u64;
                break;
            }
            let mut buf = [0u8; 64];
            let mut k = 0;
            while left > 0
                && k + 15 <= buf.len()
                && let Some((w, take)) = self.window(left)
            {
                let ascii = match w & HIGH_BITS[take] {
                    0 => take,
                    // The characters before the first with its high bit set (the top octet of
                    // `w` is zero).
                    bad => (bad.leading_zeros() as usize - 8) / 8,
                };
                buf[k..k + 15].copy_from_slice(&w.to_be_bytes()[1..]);
                k += ascii;
                self.at += 8 * ascii as u64;
                left -= ascii;
                if ascii < take {
                    break;
                }
            }
            if k > 0 {
                if let Some(ascii) = binxml_core::ascii::ascii_str(&buf[..k]) {
                    out.push_str(ascii);
                }
                if left == 0 {
                    break;
                }
                if k + 15 > buf.len() {
                    continue;
                }
            }
            let at = self.mark();
            let first = self.octet()?;
            if first < 0x80 {
                out.push(first as char);
            } else {
                let cp = self.uint_rest(first)?;
                match u32::try_from(cp).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => {
                        return Err(
                            self.error_at(at, format!("{cp:#x} is not a Unicode scalar value"))
                        );
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

/// The most octets [`BitReader::uint_big`] reads for one unsigned integer: 1,024 groups of 7
/// bits, numbers of up to 2,157 decimal digits. (Arithmetic on them is quadratic in the size.)
pub(crate) const MAX_BIG_OCTETS: usize = 1024;

/// The most decimal digits [`BitWriter::uint_digits`] is given by the typed-value encoder;
/// longer integers are written as strings (about [`MAX_BIG_OCTETS`] octets).
pub(crate) const MAX_BIG_DIGITS: usize = 2157;

/// Appends the decimal digits of `v`.
pub(crate) fn push_u64(out: &mut String, mut v: u64) {
    // Without the formatting machinery: it is called for invented prefixes and typed values.
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

/// An unsigned integer of any size (EXI 7.1.6: unbounded), little-endian 32-bit limbs without
/// high zero limbs. Only what the typed values need: decimal digits in and out, 7-bit groups in
/// and out, plus and minus one.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Big(Vec<u32>);

impl Big {
    /// From ASCII decimal digits (the caller checked them).
    pub(crate) fn from_decimal(digits: &str) -> Big {
        let mut limbs: Vec<u32> = Vec::with_capacity(digits.len() / 9 + 1);
        let bytes = digits.as_bytes();
        let head = bytes.len() % 9;
        let mut chunks: Vec<&[u8]> = Vec::new();
        if head > 0 {
            chunks.push(&bytes[..head]);
        }
        chunks.extend(bytes[head..].chunks(9));
        for chunk in chunks {
            let mut mul: u64 = 1;
            let mut add: u64 = 0;
            for &b in chunk {
                mul *= 10;
                add = add * 10 + u64::from(b.wrapping_sub(b'0') % 10);
            }
            let mut carry = add;
            for l in limbs.iter_mut() {
                let v = u64::from(*l) * mul + carry;
                *l = v as u32;
                carry = v >> 32;
            }
            if carry > 0 {
                limbs.push(carry as u32);
            }
        }
        let mut b = Big(limbs);
        b.trim();
        b
    }

    /// From a `u64`.
    #[cfg(test)]
    pub(crate) fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    /// From 7-bit groups, least significant first.
    fn from_groups(groups: &[u8]) -> Big {
        let mut limbs = vec![0u32; (groups.len() * 7).div_ceil(32) + 1];
        for (i, &g) in groups.iter().enumerate() {
            let bit = i * 7;
            let v = u64::from(g) << (bit % 32);
            limbs[bit / 32] |= v as u32;
            if v >> 32 != 0 {
                limbs[bit / 32 + 1] |= (v >> 32) as u32;
            }
        }
        let mut b = Big(limbs);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// The value, when it fits in a `u64`.
    pub(crate) fn to_u64(&self) -> Option<u64> {
        match self.0.len() {
            0 => Some(0),
            1 => Some(u64::from(self.0[0])),
            2 => Some(u64::from(self.0[0]) | u64::from(self.0[1]) << 32),
            _ => None,
        }
    }

    /// Adds one.
    pub(crate) fn add_one(&mut self) {
        for l in self.0.iter_mut() {
            let (v, carry) = l.overflowing_add(1);
            *l = v;
            if !carry {
                return;
            }
        }
        self.0.push(1);
    }

    /// Subtracts one (zero stays zero).
    pub(crate) fn sub_one(&mut self) {
        for l in self.0.iter_mut() {
            let (v, borrow) = l.overflowing_sub(1);
            *l = v;
            if !borrow {
                break;
            }
        }
        self.trim();
    }

    /// The number of significant bits.
    fn bit_len(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() - 1) * 32 + (32 - top.leading_zeros() as usize),
        }
    }

    /// The 7-bit groups, least significant first, each with its continuation bit.
    fn write_groups(&self, w: &mut BitWriter) {
        let groups = self.bit_len().div_ceil(7).max(1);
        for i in 0..groups {
            let bit = i * 7;
            let mut v = u64::from(self.0.get(bit / 32).copied().unwrap_or(0));
            v |= u64::from(self.0.get(bit / 32 + 1).copied().unwrap_or(0)) << 32;
            let g = ((v >> (bit % 32)) & 0x7F) as u8;
            w.octet(if i + 1 < groups { g | 0x80 } else { g });
        }
    }

    /// Appends the decimal digits.
    pub(crate) fn write_decimal(&self, out: &mut String) {
        if let Some(v) = self.to_u64() {
            push_u64(out, v);
            return;
        }
        // Repeated division by 10^9: chunks of nine digits, least significant first.
        let mut limbs = self.0.clone();
        let mut chunks: Vec<u32> = Vec::new();
        while !limbs.is_empty() {
            let mut rem: u64 = 0;
            for l in limbs.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*l);
                *l = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            chunks.push(rem as u32);
            while limbs.last() == Some(&0) {
                limbs.pop();
            }
        }
        use std::fmt::Write;
        let mut first = true;
        for c in chunks.iter().rev() {
            if first {
                let _ = write!(out, "{c}");
                first = false;
            } else {
                let _ = write!(out, "{c:09}");
            }
        }
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
        // A string cut short at a bit offset: an error, whichever octet the input ends at.
        let mut w = BitWriter::new(false);
        w.bits(0, 3);
        w.chars("abcdefghijklmnopqrstuvwxyz");
        let bytes = w.finish();
        for cut in 0..bytes.len() {
            let mut r = BitReader::new(&bytes[..cut], false, 0);
            let _ = r.bits(3);
            assert!(r.chars_into(26, &mut String::new()).is_err(), "{cut}");
        }
        let mut r = BitReader::new(&bytes, false, 0);
        r.bits(3).unwrap();
        let mut s = String::new();
        r.chars_into(26, &mut s).unwrap();
        assert_eq!(s, "abcdefghijklmnopqrstuvwxyz");
        assert_eq!(width(1), 0);
        assert_eq!(width(2), 1);
        assert_eq!(width(3), 2);
        assert_eq!(width(4), 2);
        assert_eq!(width(5), 3);
    }

    #[test]
    fn big_unsigned_integers() {
        let cases = [
            "0",
            "1",
            "127",
            "128",
            "18446744073709551615",
            "18446744073709551616",
            "340282366920938463463374607431768211456",
            "123456789012345678901234567890123456789012345678901234567890",
        ];
        for offset in [0, 3] {
            for aligned in [false, true] {
                for c in cases {
                    let mut w = BitWriter::new(aligned);
                    w.bits(0, offset);
                    w.uint_digits(c);
                    w.uint_digits(&format!("000{c}"));
                    let bytes = w.finish();
                    let mut r = BitReader::new(&bytes, aligned, 0);
                    r.bits(offset).unwrap();
                    let mut out = String::new();
                    r.uint_digits(&mut out).unwrap();
                    assert_eq!(out, c);
                    let b = r.uint_big().unwrap();
                    let mut out = String::new();
                    b.write_decimal(&mut out);
                    assert_eq!(out, c);
                }
            }
        }
        // u64 values read the same through both readers, and the groups are uint's.
        for v in [0u64, 1, 127, 128, 300, u64::MAX / 3, u64::MAX] {
            let mut a = BitWriter::new(false);
            a.uint(v);
            let mut b = BitWriter::new(false);
            b.uint_digits(&v.to_string());
            let mut c = BitWriter::new(false);
            c.uint_big(&Big::from_u64(v));
            let a = a.finish();
            assert_eq!(a, b.finish());
            assert_eq!(a, c.finish());
        }
        let mut b = Big::from_decimal("18446744073709551616");
        b.sub_one();
        assert_eq!(b.to_u64(), Some(u64::MAX));
        b.add_one();
        assert_eq!(b, Big::from_decimal("18446744073709551616"));
        // Too many groups: a limit error, no panic.
        let mut r = BitReader::new(&[0xFF; 2000], false, 0);
        assert!(r.uint_digits(&mut String::new()).is_err());
        let mut r = BitReader::new(&[0xFF; 2000], false, 0);
        assert!(r.uint_big().is_err());
    }

    /// Strings written and read at every bit offset, through the word-at-a-time paths of both
    /// sides (ASCII runs of any length, broken by non-ASCII characters), checked bit by bit
    /// against one code point written at a time.
    #[test]
    fn chars_at_every_bit_offset() {
        let texts: Vec<String> = (0..40)
            .map(|n| (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect())
            .chain(["abcdefg\u{e9}hijklmnopq\u{1F600}rstuvwxyz0123456789".to_string()])
            .chain(["\u{7f}\u{80}abcdefghijklmnop\u{7ff}".to_string()])
            .chain((0..70).map(|n| {
                // A non-ASCII character at every place of the fifteen-character reads.
                let mut t: String = (0..70).map(|i| (b'A' + (i % 26) as u8) as char).collect();
                t.insert(n, '\u{20ac}');
                t
            }))
            .collect();
        for lead in 0..8u32 {
            for text in &texts {
                let mut w = BitWriter::new(false);
                w.bits(0x55, lead);
                w.chars(text);
                w.bits(0x3, 2);
                let mut naive = BitWriter::new(false);
                naive.bits(0x55, lead);
                for c in text.chars() {
                    naive.uint(c as u64);
                }
                naive.bits(0x3, 2);
                let bytes = w.finish();
                assert_eq!(bytes, naive.finish(), "{lead} bits, then {text:?}");
                let mut r = BitReader::new(&bytes, false, 0);
                assert_eq!(r.bits(lead).unwrap(), 0x55 & ((1 << lead) - 1));
                let mut out = String::from("x");
                r.chars_into(text.chars().count(), &mut out).unwrap();
                assert_eq!(&out[1..], text.as_str(), "{lead} bits, then {text:?}");
                assert_eq!(r.bits(2).unwrap(), 3);
            }
        }
    }
}
