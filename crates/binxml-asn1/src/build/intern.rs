//! The builder's string interning: every distinct string once in one growing buffer, found
//! again through an open-addressing index of ids (hashed by binxml-core's seeded
//! [`FastState`], so colliding strings cannot be prepared in advance). A document has as many
//! distinct strings as it has distinct values; one allocation each would dominate encoding.

use std::hash::{BuildHasher, Hasher};

use binxml_core::hash::{FastState, bytes_eq};

/// Strings one after the other in one buffer, each found by its id.
#[derive(Default)]
pub(crate) struct Texts {
    text: String,
    /// Where each string ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
}

impl Texts {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// The octets of string `id`: what the index compares (no UTF-8 boundary checks).
    #[inline]
    fn bytes(&self, id: usize) -> &[u8] {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text.as_bytes()[start..self.ends[id]]
    }

    /// The octets of all the strings together.
    pub(crate) fn byte_len(&self) -> usize {
        self.text.len()
    }

    /// The strings in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for Texts {
    type Output = str;

    fn index(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }
}

/// An empty slot of the index.
const EMPTY: u64 = u64::MAX;

/// Ids found by the hash of their key (linear probing; a power of two in size, at most half
/// full). The keys live with the caller, who says whether an id's key is the one sought. A
/// slot holds an id and its hash (high half), so that a probe reads one word and growing the
/// index hashes nothing again.
pub(super) struct Index {
    slots: Vec<u64>,
    len: u32,
    state: FastState,
}

impl Default for Index {
    fn default() -> Self {
        Index {
            slots: vec![EMPTY; 64],
            len: 0,
            state: FastState::default(),
        }
    }
}

impl Index {
    /// The hash of a key: the octets alone, without the length prefix that `hash_one` would
    /// fold in first (the hasher's `write` mixes the length in already), so a key of up to
    /// eight octets costs one multiplication.
    #[inline]
    pub(super) fn hash(&self, key: &[u8]) -> u32 {
        let mut h = self.state.build_hasher();
        h.write(key);
        h.finish() as u32
    }

    /// The id whose key has hash `h` and passes `is`, else the slot where a new one goes.
    #[inline]
    pub(super) fn find(&self, h: u32, is: impl Fn(u32) -> bool) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let e = self.slots[i];
            if e == EMPTY {
                return Err(i);
            }
            if (e >> 32) as u32 == h && is(e as u32) {
                return Ok(e as u32);
            }
            i = (i + 1) & mask;
        }
    }

    /// Records the next id, of hash `h`, in `slot` (from [`Index::find`]), and returns it.
    #[inline]
    pub(super) fn insert(&mut self, slot: usize, h: u32) -> u32 {
        let id = self.len;
        self.slots[slot] = (u64::from(h) << 32) | u64::from(id);
        self.len += 1;
        if self.len as usize * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    /// The id whose key has hash `h` and passes `is`, else a new id (the next one) recorded
    /// for it: `(id, new)`.
    #[inline]
    pub(super) fn find_or_add(&mut self, h: u32, is: impl Fn(u32) -> bool) -> (u32, bool) {
        match self.find(h, is) {
            Ok(id) => (id, false),
            Err(slot) => (self.insert(slot, h), true),
        }
    }

    fn grow(&mut self) {
        let mut slots = vec![EMPTY; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for &e in self.slots.iter().filter(|&&e| e != EMPTY) {
            let mut i = (e >> 32) as usize & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = e;
        }
        self.slots = slots;
    }
}

#[derive(Default)]
pub(super) struct Interner {
    texts: Texts,
    /// Uses of each string.
    counts: Vec<u32>,
    index: Index,
}

impl Interner {
    /// The id of `s`, counting one more use.
    #[cfg(test)]
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        self.intern_text(s).expect("no U+0000")
    }

    /// The id of `s`, counting one more use; `None` (nothing recorded) for a string that
    /// holds U+0000, which the table cannot carry (looked for only in a string not yet
    /// there: one found was checked when it was added).
    #[inline]
    pub(super) fn intern_text(&mut self, s: &str) -> Option<u32> {
        let h = self.index.hash(s.as_bytes());
        let texts = &self.texts;
        match self
            .index
            .find(h, |id| bytes_eq(texts.bytes(id as usize), s.as_bytes()))
        {
            Ok(id) => {
                self.counts[id as usize] += 1;
                Some(id)
            }
            Err(_) if s.as_bytes().contains(&0) => None,
            Err(slot) => {
                let id = self.index.insert(slot, h);
                self.texts.push(s);
                self.counts.push(1);
                Some(id)
            }
        }
    }

    /// One more use of string `id`.
    pub(super) fn count_again(&mut self, id: u32) {
        self.counts[id as usize] += 1;
    }

    /// The text of string `id`.
    pub(super) fn text(&self, id: u32) -> &str {
        &self.texts[id as usize]
    }

    /// The uses of string `id`.
    pub(super) fn count(&self, id: u32) -> u32 {
        self.counts[id as usize]
    }

    /// The strings, in id order.
    pub(super) fn into_texts(self) -> Texts {
        self.texts
    }

    /// Ids in table order (most frequent first, ties by first occurrence) and the inverse.
    pub(super) fn order(&self) -> (Vec<u32>, Vec<u32>) {
        let order = order_by_count(&self.counts);
        let mut perm = vec![0u32; order.len()];
        for (pos, &id) in order.iter().enumerate() {
            perm[id as usize] = pos as u32;
        }
        (order, perm)
    }
}

/// The ids `0..counts.len()`, most frequent first, ties by id. Most counts are small: a
/// counting sort (stable, linear) when the largest count is not above the number of ids, else
/// an unstable sort of one integer key per id (the count's complement above the id).
pub(super) fn order_by_count(counts: &[u32]) -> Vec<u32> {
    let max = counts.iter().copied().max().unwrap_or(0) as usize;
    if max <= counts.len() {
        // starts[c]: where the ids used c times begin, the largest count first
        let mut starts = vec![0usize; max + 2];
        for &c in counts {
            starts[max - c as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut order = vec![0u32; counts.len()];
        for (id, &c) in counts.iter().enumerate() {
            let slot = &mut starts[max - c as usize];
            order[*slot] = id as u32;
            *slot += 1;
        }
        return order;
    }
    let mut keys: Vec<u64> = counts
        .iter()
        .enumerate()
        .map(|(id, &c)| (u64::from(u32::MAX - c) << 32) | id as u64)
        .collect();
    keys.sort_unstable();
    keys.iter().map(|&k| k as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_counts_and_orders() {
        let mut t = Interner::default();
        let words: Vec<String> = (0..1000).map(|i| format!("w{}", i % 300)).collect();
        let ids: Vec<u32> = words.iter().map(|w| t.intern(w)).collect();
        for (w, &id) in words.iter().zip(&ids) {
            assert_eq!(t.text(id), w);
        }
        let w0 = t.intern("w0");
        assert_eq!(t.count(w0), 5);
        let (order, perm) = t.order();
        // w0..w99 were used 4 times (w0 5 with the lookup above), the rest 3: most frequent first, then by id
        assert_eq!(order[0], ids[0]);
        assert_eq!(order[1], ids[1]);
        assert_eq!(order[100], ids[100]);
        for (pos, &id) in order.iter().enumerate() {
            assert_eq!(perm[id as usize], pos as u32);
        }
        let texts = t.into_texts();
        assert_eq!(texts.iter().count(), 300);
        assert_eq!(&texts[299], "w299");
        assert_eq!(texts.iter().next(), Some("w0"));
    }

    #[test]
    fn both_sorts_give_the_stable_order_by_count() {
        let counts = [3, 1, 3, 7, 1, 2];
        assert_eq!(order_by_count(&counts), [3, 0, 2, 5, 1, 4]);
        // a count above the number of ids takes the other path
        let counts = [3, 1, 3, 70, 1, 2];
        assert_eq!(order_by_count(&counts), [3, 0, 2, 5, 1, 4]);
        assert!(order_by_count(&[]).is_empty());
    }
}
