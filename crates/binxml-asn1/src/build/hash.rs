//! The builder's string interning: a fast seeded hasher, and the interner.

use std::collections::HashMap;

/// A fast hasher for the encoder's string tables: a word at a time, each folded into the state
/// by one 64x64 -> 128-bit multiplication (as `binxml-fi`'s), seeded per table from std's
/// `RandomState` so that colliding keys cannot be prepared in advance. SipHash (std's) is
/// needlessly slow for these short keys, hashed once per string written.
#[derive(Clone, Copy)]
pub(super) struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        FastState(std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1)
    }
}

impl std::hash::BuildHasher for FastState {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

pub(super) struct FastHasher(u64);

const HK: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let m = (a as u128).wrapping_mul(b as u128);
    (m as u64) ^ ((m >> 64) as u64)
}

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn write(&mut self, b: &[u8]) {
        // short strings as one word, longer ones a word at a time with the last word
        // overlapping the one before (no octet loop, no copy of the tail)
        let n = b.len();
        let mut h = self.0 ^ (n as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
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
            self.0 = fold(h ^ w, HK);
            return;
        }
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            h = fold(h ^ u64::from_le_bytes(w.try_into().expect("8 octets")), HK);
        }
        if !words.remainder().is_empty() {
            h = fold(
                h ^ u64::from_le_bytes(b[n - 8..].try_into().expect("8 octets")),
                HK,
            );
        }
        self.0 = h;
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = fold(self.0 ^ (i as u64 | 0x100), HK);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = fold(self.0 ^ i as u64, HK);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Default)]
pub(super) struct Interner {
    ids: HashMap<Box<str>, u32, FastState>,
    pub(super) strings: Vec<(Box<str>, u32)>,
}

impl Interner {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            self.strings[id as usize].1 += 1;
            return id;
        }
        let id = self.strings.len() as u32;
        self.ids.insert(s.into(), id);
        self.strings.push((s.into(), 1));
        id
    }

    /// Ids in table order (most frequent first, ties by first occurrence) and the inverse.
    pub(super) fn order(&self) -> (Vec<u32>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.strings.len() as u32).collect();
        order.sort_by(|&a, &b| {
            self.strings[b as usize]
                .1
                .cmp(&self.strings[a as usize].1)
                .then(a.cmp(&b))
        });
        let mut perm = vec![0u32; order.len()];
        for (pos, &id) in order.iter().enumerate() {
            perm[id as usize] = pos as u32;
        }
        (order, perm)
    }
}
