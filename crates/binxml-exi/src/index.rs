//! An open-addressing index of numbers by a 64-bit hash of what they stand for (the
//! encoder's name and value lookups). The strings stay where their table keeps them; the index
//! holds per slot only 32 bits of the hash and the number, in one word, and the caller compares
//! the string on a hash match (`binxml_core::hash::bytes_eq`). Linear probing, at most half
//! full; removal shifts the entries after the hole back, so a lookup never needs tombstones.

/// Slots a non-empty index starts with.
const FIRST: usize = 16;

/// Numbers by hash. A slot is `(hash as u32) << 32 | (number + 1)`, 0 when empty; the home
/// slot of a hash is its low bits, so the stored half is enough to place an entry again when
/// the index grows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    slots: Vec<u64>,
    len: usize,
}

impl Index {
    /// The number whose hash is `h` and for which `eq` holds, if any.
    #[inline(always)]
    pub(crate) fn find(&self, h: u64, mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = h as u32;
        let mask = self.slots.len() - 1;
        let mut i = tag as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return None;
            }
            if (s >> 32) as u32 == tag && eq(s as u32 - 1) {
                return Some(s as u32 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `n` (`u32::MAX` excluded) under hash `h` (the caller knows it is not there).
    pub(crate) fn insert(&mut self, h: u64, n: u32) {
        debug_assert!(n != u32::MAX);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.place(((h as u32 as u64) << 32) | (n as u64 + 1));
        self.len += 1;
    }

    fn place(&mut self, slot: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (slot >> 32) as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    #[cold]
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(FIRST);
        let old = std::mem::replace(&mut self.slots, vec![0; size]);
        for s in old.into_iter().filter(|&s| s != 0) {
            self.place(s);
        }
    }

    /// Room for `n` entries, made at once (for an index that is still empty).
    pub(crate) fn reserve(&mut self, n: usize) {
        let size = (n * 2).next_power_of_two().max(FIRST);
        if self.len == 0 && size > self.slots.len() {
            self.slots = vec![0; size];
        }
    }

    /// Empties the index, keeping its slots unless they are many, or many more than its
    /// entries needed.
    pub(crate) fn clear(&mut self) {
        // Zeroing costs the slots, not the entries: slots far more than the last stream's
        // entries needed (a reused table after a larger stream) are freed rather than zeroed,
        // and made again, as many as the next stream reserves.
        let wanted = (self.len * 4).next_power_of_two().max(FIRST);
        if self.slots.len() > 1 << 14 || self.slots.len() > 4 * wanted {
            self.slots = Vec::new();
        } else {
            self.slots.fill(0);
        }
        self.len = 0;
    }

    /// Removes number `n`, added under hash `h`, if it is there.
    pub(crate) fn remove(&mut self, h: u64, n: u32) {
        if self.slots.is_empty() {
            return;
        }
        let want = ((h as u32 as u64) << 32) | (n as u64 + 1);
        let mask = self.slots.len() - 1;
        let mut i = h as u32 as usize & mask;
        loop {
            match self.slots[i] {
                0 => return,
                s if s == want => break,
                _ => i = (i + 1) & mask,
            }
        }
        // Backward shift: an entry after the hole moves into it unless its home lies
        // (cyclically) after the hole, up to its own slot.
        let mut hole = i;
        let mut j = (i + 1) & mask;
        loop {
            let s = self.slots[j];
            if s == 0 {
                break;
            }
            let home = (s >> 32) as usize & mask;
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = 0;
        self.len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_remove_with_collisions() {
        let mut ix = Index::default();
        // Hashes that share their home slot (low bits), so that removal must shift.
        let h = |n: u32| (u64::from(n % 3) << 40) | u64::from(n % 3) | (u64::from(n) << 8);
        for n in 0..200 {
            ix.insert(h(n), n);
        }
        for n in 0..200 {
            assert_eq!(ix.find(h(n), |m| m == n), Some(n));
        }
        for n in (0..200).step_by(2) {
            ix.remove(h(n), n);
        }
        for n in 0..200 {
            let want = (n % 2 == 1).then_some(n);
            assert_eq!(ix.find(h(n), |m| m == n), want, "{n}");
        }
        assert_eq!(ix.len, 100);
        ix.remove(h(1), 7);
        assert_eq!(ix.len, 100);
    }
}
