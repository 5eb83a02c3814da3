//! The one hashing algorithm of binxml's encoders' string tables: a word at a time, each word
//! folded into the state by one 64x64 -> 128-bit multiplication (both halves folded, so every
//! output bit depends on every input bit). Strings of up to 8 octets (most names and values)
//! are one word and one multiplication; longer ones a word at a time with the last word
//! overlapping the one before (no octet tail, no copy).
//!
//! Two entry points: [`hash64`] (unseeded, for open-addressing tables that hash each string
//! once and keep the hash, as Fast Infoset's encoder does on its hot path), and [`FastState`],
//! a seeded [`BuildHasher`] for `std::collections::HashMap` (seeded per table from std's
//! `RandomState`, so colliding keys cannot be prepared in advance; SipHash, std's default, is
//! needlessly slow for these short keys).

use std::hash::BuildHasher;

const K: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xBF58_476D_1CE4_E5B9;

/// One 64x64 -> 128-bit multiplication, both halves folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let m = (a as u128).wrapping_mul(b as u128);
    (m as u64) ^ ((m >> 64) as u64)
}

/// A string of at most 8 octets as one word (lengths 4 to 8 by two overlapping 4-octet loads,
/// 1 to 3 by their first, middle and last octets).
#[inline(always)]
fn short_word(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
        lo | (hi << 32)
    } else if n > 0 {
        (b[0] as u64) | ((b[n / 2] as u64) << 8) | ((b[n - 1] as u64) << 16)
    } else {
        0
    }
}

/// Folds the words of a string longer than 8 octets into `h`, the last word overlapping the
/// one before.
#[inline(always)]
fn long_words(mut h: u64, b: &[u8]) -> u64 {
    let n = b.len();
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        h = fold(h ^ u64::from_le_bytes(w.try_into().expect("8 octets")), K);
    }
    if !words.remainder().is_empty() {
        h = fold(
            h ^ u64::from_le_bytes(b[n - 8..].try_into().expect("8 octets")),
            K,
        );
    }
    h
}

/// A 64-bit hash of a byte string (unseeded).
#[inline(always)]
pub fn hash64(b: &[u8]) -> u64 {
    let n = b.len();
    if n <= 8 {
        return fold(short_word(b) ^ ((n as u64) << 56), K);
    }
    long_words((n as u64).wrapping_mul(K2), b)
}

/// A 32-bit hash of a byte string, for open-addressing tables.
#[inline(always)]
pub fn hash_bytes(b: &[u8]) -> u32 {
    hash64(b) as u32
}

/// A 32-bit hash of a pair of strings (a local name and a prefix, usually empty).
#[inline(always)]
pub fn hash_pair(a: &[u8], b: &[u8]) -> u32 {
    let h = hash64(a);
    if b.is_empty() {
        h as u32
    } else {
        fold(h ^ hash64(b), K2) as u32
    }
}

/// Byte-string equality in plain scalar code: the libc `memcmp` uses wide vector instructions
/// whose start-up cost outweighs the comparison for strings this short. Words at a time; the
/// tail (and strings shorter than a word) by overlapping loads, no loop over single octets.
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

/// A seeded [`BuildHasher`] with the algorithm above, for `HashMap`s keyed by short strings.
#[derive(Clone, Copy)]
pub struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        FastState(std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1)
    }
}

impl std::fmt::Debug for FastState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The seed stays private: it is what keeps colliding keys from being prepared.
        f.write_str("FastState")
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

/// The [`std::hash::Hasher`] of [`FastState`].
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn write(&mut self, b: &[u8]) {
        let n = b.len();
        let h = self.0 ^ (n as u64).wrapping_mul(K2);
        self.0 = if n <= 8 {
            fold(h ^ short_word(b), K)
        } else {
            long_words(h, b)
        };
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = fold(self.0 ^ (i as u64 | 0x100), K);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = fold(self.0 ^ i as u64, K);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes() {
        assert_eq!(hash64(b""), fold(0, K));
        assert_ne!(hash64(b"ab"), hash64(b"ba"));
        assert_ne!(hash64(b"abcdefghi"), hash64(b"abcdefghj"));
        assert_eq!(hash_pair(b"x", b""), hash_bytes(b"x"));
        let s = FastState::default();
        assert_eq!(s.hash_one("name"), s.hash_one("name"));
        assert!(bytes_eq(b"abcdefghijk", b"abcdefghijk"));
        assert!(!bytes_eq(b"abcdefghijk", b"abcdefghijx"));
        assert!(!bytes_eq(b"abc", b"abd"));
    }
}
