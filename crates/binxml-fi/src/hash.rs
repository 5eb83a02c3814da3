//! A small, fast, non-cryptographic hasher for the encoder's string tables (the keys are names
//! and short values; hash flooding is not a concern for an encoder fed by the application).

const K: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xBF58_476D_1CE4_E5B9;

/// One 64x64 -> 128-bit multiplication, both halves folded: every output bit depends on every
/// input bit (one `mul` instruction).
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let m = (a as u128).wrapping_mul(b as u128);
    (m as u64) ^ ((m >> 64) as u64)
}

/// A 64-bit hash of a byte string: strings of up to 8 octets (most names and values) as one
/// word and one multiplication, longer ones a word at a time with the last word overlapping
/// the one before (no octet tail).
#[inline(always)]
pub fn hash64(b: &[u8]) -> u64 {
    let n = b.len();
    if n <= 8 {
        let w = if n >= 4 {
            let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
            let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
            lo | (hi << 32)
        } else if n > 0 {
            (b[0] as u64) | ((b[n / 2] as u64) << 8) | ((b[n - 1] as u64) << 16)
        } else {
            0
        };
        return fold(w ^ ((n as u64) << 56), K);
    }
    let mut h = (n as u64).wrapping_mul(K2);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        h = fold(h ^ u64::from_le_bytes(w.try_into().unwrap()), K);
    }
    if !words.remainder().is_empty() {
        h = fold(h ^ u64::from_le_bytes(b[n - 8..].try_into().unwrap()), K);
    }
    h
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
/// whose start-up cost outweighs the comparison for strings this short.
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

/// A 32-bit hash of a byte string for the encoder's open-addressing tables.
#[inline(always)]
pub fn hash_bytes(b: &[u8]) -> u32 {
    hash64(b) as u32
}
