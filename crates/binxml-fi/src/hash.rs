//! A small, fast, non-cryptographic hasher for the encoder's string tables (the keys are names
//! and short values; hash flooding is not a concern for an encoder fed by the application).

use std::hash::Hasher;

#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    h: u64,
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl FastHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.h = (self.h.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n >= 8 {
            // whole words, then the last word overlapping the one before (no octet tail)
            let mut words = bytes.chunks_exact(8);
            for w in &mut words {
                self.add(u64::from_le_bytes(w.try_into().unwrap()));
            }
            if !words.remainder().is_empty() {
                self.add(u64::from_le_bytes(bytes[n - 8..].try_into().unwrap()));
            }
            return;
        }
        let b = bytes;
        if b.len() >= 4 {
            let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
            let hi = u32::from_le_bytes([
                b[b.len() - 4],
                b[b.len() - 3],
                b[b.len() - 2],
                b[b.len() - 1],
            ]) as u64;
            self.add(lo | (hi << 32));
        } else if !b.is_empty() {
            let v =
                (b[0] as u64) | ((b[b.len() / 2] as u64) << 8) | ((b[b.len() - 1] as u64) << 16);
            self.add(v);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // final avalanche so that the low bits used by the table depend on every input bit
        let mut x = self.h;
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 32;
        x
    }
}

/// Byte-string equality in plain scalar code. The libc `memcmp` this replaces uses wide vector
/// instructions whose start-up cost dominated the encoder's profile for these short strings.
/// Words at a time; the tail (and strings shorter than a word) by overlapping loads, no loop
/// over single octets.
#[inline(always)]
pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    #[inline(always)]
    fn w8(s: &[u8], i: usize) -> u64 {
        u64::from_ne_bytes(s[i..i + 8].try_into().unwrap())
    }
    #[inline(always)]
    fn w4(s: &[u8], i: usize) -> u32 {
        u32::from_ne_bytes(s[i..i + 4].try_into().unwrap())
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if w8(a, i) != w8(b, i) {
                return false;
            }
            i += 8;
        }
        // the last word, overlapping the one before
        i == n || w8(a, n - 8) == w8(b, n - 8)
    } else if n >= 4 {
        w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4)
    } else if n > 0 {
        a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]
    } else {
        true
    }
}

/// [`bytes_eq`] on strings.
#[inline(always)]
pub fn str_eq(a: &str, b: &str) -> bool {
    bytes_eq(a.as_bytes(), b.as_bytes())
}

/// A 32-bit hash of a byte string for the encoder's open-addressing tables.
#[inline]
pub fn hash_bytes(b: &[u8]) -> u32 {
    let mut h = FastHasher::default();
    h.write(b);
    h.write_usize(b.len());
    h.finish() as u32
}
