//! Token tables: the decoder's four 256-slot tables (with an undo journal so a failed message
//! leaves the state of the last good message) and the encoder's LRU caches (with the definition
//! sequence numbers that checkpoints and rollback use).

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};

use binxml_core::QName;
use binxml_core::hash::{FastState, bytes_eq};

pub const SLOTS: usize = 256;

type Slots<T> = Vec<Option<T>>;

/// Tables grow on demand: a slot past the end is empty.
fn empty<T>() -> Slots<T> {
    Vec::new()
}

fn put<T>(v: &mut Slots<T>, i: u8, x: T) -> Option<T> {
    let i = i as usize;
    if v.len() <= i {
        v.resize_with(i + 1, || None);
    }
    v[i].replace(x)
}

enum Undo<'l> {
    Ns(u8, Option<Cow<'l, str>>),
    Name(u8, Option<QName<'l>>),
    Value(u8, Option<(QName<'l>, Cow<'l, str>)>),
    Content(u8, Option<Cow<'l, str>>),
    Cleared(Box<DecoderTables<'l>>),
}

/// Table numbers in [`DecoderTables::touched`].
const NS: usize = 0;
const NAME: usize = 1;
const VALUE: usize = 2;
const CONTENT: usize = 3;

/// The decoder's token state. `'l` is the lifetime of the strings it holds: the input buffer for
/// a decoder over one buffer, `'static` for a [`crate::XebuStreamDecoder`] over many.
///
/// The undo journal keeps, per slot, only the value it had at the last commit (its first
/// change since): rolling back needs nothing else, and the journal stays within 4 × 256
/// entries (and one `Cleared`) however many definitions a message makes. A large document is
/// one message, so a journal of every change would grow with the document.
pub struct DecoderTables<'l> {
    pub(crate) ns: Slots<Cow<'l, str>>,
    pub(crate) name: Slots<QName<'l>>,
    pub(crate) value: Slots<(QName<'l>, Cow<'l, str>)>,
    pub(crate) content: Slots<Cow<'l, str>>,
    undo: Vec<Undo<'l>>,
    /// One bit per slot of each table: changed since the last commit (journaled).
    touched: [[u64; SLOTS / 64]; 4],
}

impl Default for DecoderTables<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'l> DecoderTables<'l> {
    pub fn new() -> Self {
        DecoderTables {
            ns: empty(),
            name: empty(),
            value: empty(),
            content: empty(),
            undo: Vec::new(),
            touched: [[0; SLOTS / 64]; 4],
        }
    }

    /// Whether slot `i` of `table` changes for the first time since the last commit (and
    /// marks it changed).
    #[inline]
    fn first_change(&mut self, table: usize, i: u8) -> bool {
        let (w, b) = (i as usize / 64, 1u64 << (i % 64));
        let first = self.touched[table][w] & b == 0;
        self.touched[table][w] |= b;
        first
    }

    pub fn set_ns(&mut self, i: u8, v: Cow<'l, str>) {
        let old = put(&mut self.ns, i, v);
        if self.first_change(NS, i) {
            self.undo.push(Undo::Ns(i, old));
        }
    }
    pub fn set_name(&mut self, i: u8, v: QName<'l>) {
        let old = put(&mut self.name, i, v);
        if self.first_change(NAME, i) {
            self.undo.push(Undo::Name(i, old));
        }
    }
    pub fn set_value(&mut self, i: u8, v: (QName<'l>, Cow<'l, str>)) {
        let old = put(&mut self.value, i, v);
        if self.first_change(VALUE, i) {
            self.undo.push(Undo::Value(i, old));
        }
    }
    pub fn set_content(&mut self, i: u8, v: Cow<'l, str>) {
        let old = put(&mut self.content, i, v);
        if self.first_change(CONTENT, i) {
            self.undo.push(Undo::Content(i, old));
        }
    }

    /// Empties every table (journaled: a rollback restores them). A slot changed after it
    /// keeps its first journal entry, from before: the rollback restores the tables as they
    /// were at the clear, then that entry the slot as it was at the last commit.
    pub fn clear(&mut self) {
        let old = DecoderTables {
            ns: std::mem::replace(&mut self.ns, empty()),
            name: std::mem::replace(&mut self.name, empty()),
            value: std::mem::replace(&mut self.value, empty()),
            content: std::mem::replace(&mut self.content, empty()),
            undo: Vec::new(),
            touched: [[0; SLOTS / 64]; 4],
        };
        self.undo.push(Undo::Cleared(Box::new(old)));
    }

    /// Makes the changes since the last commit permanent (end of a good message).
    pub fn commit(&mut self) {
        self.undo.clear();
        self.touched = [[0; SLOTS / 64]; 4];
    }

    /// Entries in the undo journal.
    #[cfg(test)]
    pub fn journal_len(&self) -> usize {
        self.undo.len()
    }

    /// Undoes the changes since the last commit.
    pub fn rollback(&mut self) {
        self.touched = [[0; SLOTS / 64]; 4];
        while let Some(u) = self.undo.pop() {
            // (A slot written in this message exists: tables only shrink by `clear`, which
            // is journaled after the first write of any slot it empties and before the writes
            // that follow it.)
            match u {
                Undo::Ns(i, v) => self.ns[i as usize] = v,
                Undo::Name(i, v) => self.name[i as usize] = v,
                Undo::Value(i, v) => self.value[i as usize] = v,
                Undo::Content(i, v) => self.content[i as usize] = v,
                Undo::Cleared(t) => {
                    let t = *t;
                    self.ns = t.ns;
                    self.name = t.name;
                    self.value = t.value;
                    self.content = t.content;
                }
            }
        }
    }

    /// Number of defined slots in each table (namespace, name, value, content).
    pub fn occupancy(&self) -> [usize; 4] {
        [
            self.ns.iter().filter(|s| s.is_some()).count(),
            self.name.iter().filter(|s| s.is_some()).count(),
            self.value.iter().filter(|s| s.is_some()).count(),
            self.content.iter().filter(|s| s.is_some()).count(),
        ]
    }
}

#[derive(Clone)]
struct Slot {
    /// The key (its buffer kept when the slot is freed, for the next key).
    key: Vec<u8>,
    live: bool,
    hash: u32,
    /// The encoder's definition sequence number when this slot was (re)defined.
    def_seq: u64,
    /// The neighbours in the recency list (`NIL` at its ends): `prev` more recently used.
    prev: u16,
    next: u16,
}

const NIL: u16 = u16::MAX;

/// Positions of the key index: twice the most slots, so that it is at most half full.
const INDEX: usize = 2 * SLOTS;

/// One encoder-side cache: key bytes -> token, least-recently-used replacement.
///
/// The used slots form a list from the most recently used (`head`) to the least (`tail`), so
/// that a use and an eviction cost the same whatever the size; a free slot is the lowest
/// token not in use (tokens are handed out in order). Keys are found through an
/// open-addressing index of tokens (linear probing, deletion by shifting back), hashed by
/// binxml-core's seeded [`FastState`]; a slot keeps its key's buffer for the next key, so a
/// definition allocates nothing once the slots are warm.
#[derive(Clone)]
pub struct EncoderCache {
    slots: Vec<Slot>,
    index: Vec<u16>,
    state: FastState,
    size: usize,
    used: usize,
    head: u16,
    tail: u16,
    /// One bit per token: set when its slot is free.
    free: [u64; SLOTS / 64],
}

impl EncoderCache {
    /// A cache of `size` slots (1..=256): tokens `0..size`.
    pub fn new(size: usize) -> Self {
        let size = size.clamp(1, SLOTS);
        let mut c = EncoderCache {
            slots: vec![
                Slot {
                    key: Vec::new(),
                    live: false,
                    hash: 0,
                    def_seq: 0,
                    prev: NIL,
                    next: NIL,
                };
                size
            ],
            index: vec![NIL; INDEX],
            state: FastState::default(),
            size,
            used: 0,
            head: NIL,
            tail: NIL,
            free: [0; SLOTS / 64],
        };
        c.free_all();
        c
    }

    fn free_all(&mut self) {
        self.free = [0; SLOTS / 64];
        for t in 0..self.size {
            self.free[t / 64] |= 1 << (t % 64);
        }
        self.head = NIL;
        self.tail = NIL;
    }

    #[inline]
    fn hash(&self, key: &[u8]) -> u32 {
        // The bytes alone (`hash_one` would hash a length first: one more step).
        let mut h = self.state.build_hasher();
        h.write(key);
        h.finish() as u32
    }

    /// The index position holding token `t` (live).
    fn position(&self, t: u16) -> usize {
        let mut i = self.slots[t as usize].hash as usize % INDEX;
        while self.index[i] != t {
            i = (i + 1) % INDEX;
        }
        i
    }

    /// Takes live token `t` out of the index, shifting back the entries after it that
    /// probed past its position.
    fn unindex(&mut self, t: u16) {
        let mut hole = self.position(t);
        let mut j = hole;
        loop {
            j = (j + 1) % INDEX;
            let u = self.index[j];
            if u == NIL {
                break;
            }
            let home = self.slots[u as usize].hash as usize % INDEX;
            // `u` may move into the hole when its home is not in (hole, j] (cyclically)
            let stays = if hole < j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.index[hole] = u;
                hole = j;
            }
        }
        self.index[hole] = NIL;
    }

    /// Takes slot `t` out of the recency list.
    fn unlink(&mut self, t: usize) {
        let (p, n) = (self.slots[t].prev, self.slots[t].next);
        match p {
            NIL => self.head = n,
            p => self.slots[p as usize].next = n,
        }
        match n {
            NIL => self.tail = p,
            n => self.slots[n as usize].prev = p,
        }
    }

    /// Puts slot `t` (not in the list) at its front.
    fn push_front(&mut self, t: usize) {
        self.slots[t].prev = NIL;
        self.slots[t].next = self.head;
        match self.head {
            NIL => self.tail = t as u16,
            h => self.slots[h as usize].prev = t as u16,
        }
        self.head = t as u16;
    }

    /// The token of `key`, marking it used.
    #[cfg(test)]
    pub fn lookup(&mut self, key: &[u8]) -> Option<u8> {
        self.find(key).ok()
    }

    /// The token of `key`, marking it used; else the key's hash, for [`EncoderCache::define_hashed`].
    #[inline]
    pub fn find(&mut self, key: &[u8]) -> std::result::Result<u8, u32> {
        let h = self.hash(key);
        let mut i = h as usize % INDEX;
        let t = loop {
            let t = self.index[i];
            if t == NIL {
                return Err(h);
            }
            let s = &self.slots[t as usize];
            if s.hash == h && bytes_eq(&s.key, key) {
                break t;
            }
            i = (i + 1) % INDEX;
        };
        if self.head != t {
            self.unlink(t as usize);
            self.push_front(t as usize);
        }
        Ok(t as u8)
    }

    /// Assigns a token to `key` (not present), evicting the least recently used entry when full.
    #[cfg(test)]
    pub fn define(&mut self, key: &[u8], seq: u64) -> u8 {
        let h = self.hash(key);
        self.define_hashed(key, h, seq)
    }

    /// [`EncoderCache::define`] for a key whose hash [`EncoderCache::find`] gave.
    pub fn define_hashed(&mut self, key: &[u8], h: u32, seq: u64) -> u8 {
        let t = if self.used < self.size {
            let w = self.free.iter().position(|&w| w != 0).expect("a free slot");
            let t = w * 64 + self.free[w].trailing_zeros() as usize;
            self.free[t / 64] &= !(1 << (t % 64));
            self.used += 1;
            t
        } else {
            let t = self.tail as usize;
            self.unlink(t);
            self.unindex(t as u16);
            t
        };
        let s = &mut self.slots[t];
        s.key.clear();
        s.key.extend_from_slice(key);
        s.live = true;
        s.hash = h;
        s.def_seq = seq;
        let mut i = h as usize % INDEX;
        while self.index[i] != NIL {
            i = (i + 1) % INDEX;
        }
        self.index[i] = t as u16;
        self.push_front(t);
        t as u8
    }

    /// Forgets the entries defined after sequence number `seq`.
    pub fn invalidate_after(&mut self, seq: u64) {
        for t in 0..self.slots.len() {
            if self.slots[t].live && self.slots[t].def_seq > seq {
                self.unindex(t as u16);
                self.slots[t].live = false;
                self.unlink(t);
                self.free[t / 64] |= 1 << (t % 64);
                self.used -= 1;
            }
        }
    }

    pub fn clear(&mut self) {
        self.index.fill(NIL);
        for s in &mut self.slots {
            s.live = false;
        }
        self.used = 0;
        self.free_all();
    }

    pub fn len(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replacement policy spelt out: the lowest free token, else the entry used longest
    /// ago (a clock per use).
    struct Naive {
        keys: Vec<Option<(Vec<u8>, u64, u64)>>,
        clock: u64,
    }

    impl Naive {
        fn lookup(&mut self, key: &[u8]) -> Option<u8> {
            self.clock += 1;
            let c = self.clock;
            let t = self
                .keys
                .iter()
                .position(|s| s.as_ref().is_some_and(|s| s.0 == key))?;
            self.keys[t].as_mut().expect("found").1 = c;
            Some(t as u8)
        }

        fn define(&mut self, key: &[u8], seq: u64) -> u8 {
            self.clock += 1;
            let t = match self.keys.iter().position(|s| s.is_none()) {
                Some(t) => t,
                None => (0..self.keys.len())
                    .min_by_key(|&t| self.keys[t].as_ref().expect("full").1)
                    .expect("slots"),
            };
            self.keys[t] = Some((key.to_vec(), self.clock, seq));
            t as u8
        }

        fn invalidate_after(&mut self, seq: u64) {
            for s in &mut self.keys {
                if s.as_ref().is_some_and(|s| s.2 > seq) {
                    *s = None;
                }
            }
        }
    }

    /// Rolling back restores the tables of the last commit, whatever the writes and clears
    /// since, and the journal stays within one entry per slot (and a clear).
    #[test]
    fn rollback_restores_the_commit_and_the_journal_is_bounded() {
        let snap = |t: &DecoderTables<'static>| {
            let trim = |v: &Slots<Cow<'static, str>>| {
                let mut v: Vec<_> = v.iter().map(|s| s.as_deref().map(str::to_owned)).collect();
                while v.last() == Some(&None) {
                    v.pop();
                }
                v
            };
            (trim(&t.ns), trim(&t.content))
        };
        let mut t = DecoderTables::new();
        let mut committed = snap(&t);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for step in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 1000 {
                0..=1 => {
                    t.rollback();
                    assert_eq!(snap(&t), committed, "step {step}");
                }
                2..=3 => {
                    t.commit();
                    committed = snap(&t);
                }
                4 => t.clear(),
                r => {
                    let v = Cow::Owned(format!("v{step}"));
                    if r % 2 == 0 {
                        t.set_ns((x >> 20) as u8, v);
                    } else {
                        t.set_content((x >> 20) as u8, v);
                    }
                }
            }
            // at most one clear between two commits here
            assert!(t.journal_len() <= 4 * SLOTS + 200, "step {step}");
        }
    }

    #[test]
    fn lru_cache_matches_the_policy() {
        for size in [1, 3, 64, 200] {
            let mut c = EncoderCache::new(size);
            let mut n = Naive {
                keys: vec![None; size],
                clock: 0,
            };
            let mut x: u64 = 0x2545_F491_4F6C_DD1D;
            for seq in 0..20_000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = format!("k{}", x % (size as u64 * 2 + 1));
                if x.is_multiple_of(97) {
                    c.invalidate_after(seq.saturating_sub(x % 50));
                    n.invalidate_after(seq.saturating_sub(x % 50));
                    assert_eq!(c.len(), n.keys.iter().filter(|s| s.is_some()).count());
                    continue;
                }
                if x.is_multiple_of(1013) {
                    c.clear();
                    n.keys.iter_mut().for_each(|s| *s = None);
                    continue;
                }
                let got = c.lookup(key.as_bytes());
                assert_eq!(got, n.lookup(key.as_bytes()), "size {size}, step {seq}");
                if got.is_none() {
                    assert_eq!(
                        c.define(key.as_bytes(), seq),
                        n.define(key.as_bytes(), seq),
                        "size {size}, step {seq}"
                    );
                }
            }
        }
    }
}
