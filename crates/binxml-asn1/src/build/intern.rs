//! The builder's string interning (hashed by binxml-core's seeded [`FastState`]).

use std::collections::HashMap;

use binxml_core::hash::FastState;

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
