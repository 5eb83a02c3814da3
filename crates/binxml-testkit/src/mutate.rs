//! Deterministic damage for hostile-input tests: bit flips, truncations, splices from other
//! seeds, duplicated chunks, overwritten bytes and huge big-endian numbers.

/// xorshift64*: deterministic, so a failure reproduces from its index.
pub struct Rng(
    /// The state (the seed, at first; not zero).
    pub u64,
);

impl Rng {
    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One damaged copy of a randomly chosen seed (`seeds` must not be empty).
pub fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let base = &seeds[rng.below(seeds.len())];
    let mut v = base.clone();
    if v.is_empty() {
        return v;
    }
    match rng.below(6) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let n = rng.below(v.len());
            v.truncate(n);
        }
        2 => {
            // Splice in a piece of another seed.
            let other = &seeds[rng.below(seeds.len())];
            let a = rng.below(v.len());
            let b = (a + rng.below(64)).min(v.len());
            let oa = rng.below(other.len().max(1));
            let ob = (oa + rng.below(64)).min(other.len());
            v.splice(a..b, other[oa..ob].iter().copied());
        }
        3 => {
            // Duplicate a chunk.
            let a = rng.below(v.len());
            let b = (a + 1 + rng.below(32)).min(v.len());
            let chunk = v[a..b].to_vec();
            let at = rng.below(v.len());
            v.splice(at..at, chunk);
        }
        4 => {
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(v.len());
                v[i] = [0x00, 0xFF, 0x7F, 0x80, 0xFE, 0x01, b'<', b'9'][rng.below(8)];
            }
        }
        _ => {
            // Overwrite four bytes with a large big-endian number (lengths, counts, indexes).
            let i = rng.below(v.len());
            for (k, b) in [0x7F, 0xFF, 0xFF, 0xF0].iter().enumerate() {
                if let Some(x) = v.get_mut(i + k) {
                    *x = *b;
                }
            }
        }
    }
    v
}
