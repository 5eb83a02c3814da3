//! Token tables: the decoder's four 256-slot tables (with an undo journal so a failed message
//! leaves the state of the last good message) and the encoder's LRU caches (with the definition
//! sequence numbers that checkpoints and rollback use).

use std::borrow::Cow;
use std::collections::HashMap;

use binxml_core::QName;
use binxml_core::hash::FastState;

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

/// The decoder's token state. `'l` is the lifetime of the strings it holds: the input buffer for
/// a decoder over one buffer, `'static` for a [`crate::XebuStreamDecoder`] over many.
pub struct DecoderTables<'l> {
    pub(crate) ns: Slots<Cow<'l, str>>,
    pub(crate) name: Slots<QName<'l>>,
    pub(crate) value: Slots<(QName<'l>, Cow<'l, str>)>,
    pub(crate) content: Slots<Cow<'l, str>>,
    undo: Vec<Undo<'l>>,
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
        }
    }

    pub fn set_ns(&mut self, i: u8, v: Cow<'l, str>) {
        let old = put(&mut self.ns, i, v);
        self.undo.push(Undo::Ns(i, old));
    }
    pub fn set_name(&mut self, i: u8, v: QName<'l>) {
        let old = put(&mut self.name, i, v);
        self.undo.push(Undo::Name(i, old));
    }
    pub fn set_value(&mut self, i: u8, v: (QName<'l>, Cow<'l, str>)) {
        let old = put(&mut self.value, i, v);
        self.undo.push(Undo::Value(i, old));
    }
    pub fn set_content(&mut self, i: u8, v: Cow<'l, str>) {
        let old = put(&mut self.content, i, v);
        self.undo.push(Undo::Content(i, old));
    }

    /// Empties every table (journaled: a rollback restores them).
    pub fn clear(&mut self) {
        let old = DecoderTables {
            ns: std::mem::replace(&mut self.ns, empty()),
            name: std::mem::replace(&mut self.name, empty()),
            value: std::mem::replace(&mut self.value, empty()),
            content: std::mem::replace(&mut self.content, empty()),
            undo: Vec::new(),
        };
        self.undo.push(Undo::Cleared(Box::new(old)));
    }

    /// Makes the changes since the last commit permanent (end of a good message).
    pub fn commit(&mut self) {
        self.undo.clear();
    }

    /// Undoes the changes since the last commit.
    pub fn rollback(&mut self) {
        while let Some(u) = self.undo.pop() {
            // (A slot written in this message exists: tables only shrink by `clear`, which
            // is journaled before the writes that follow it.)
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
    key: Option<Box<[u8]>>,
    last_used: u64,
    /// The encoder's definition sequence number when this slot was (re)defined.
    def_seq: u64,
}

/// One encoder-side cache: key bytes -> token, least-recently-used replacement.
#[derive(Clone)]
pub struct EncoderCache {
    map: HashMap<Box<[u8]>, u8, FastState>,
    slots: Vec<Slot>,
    size: usize,
    used: usize,
    clock: u64,
}

impl EncoderCache {
    /// A cache of `size` slots (1..=256): tokens `0..size`.
    pub fn new(size: usize) -> Self {
        let size = size.clamp(1, SLOTS);
        EncoderCache {
            map: HashMap::default(),
            slots: vec![
                Slot {
                    key: None,
                    last_used: 0,
                    def_seq: 0
                };
                size
            ],
            size,
            used: 0,
            clock: 0,
        }
    }

    /// The token of `key`, marking it used.
    #[inline]
    pub fn lookup(&mut self, key: &[u8]) -> Option<u8> {
        let t = *self.map.get(key)?;
        self.clock += 1;
        self.slots[t as usize].last_used = self.clock;
        Some(t)
    }

    /// Assigns a token to `key` (not present), evicting the least recently used entry when full.
    pub fn define(&mut self, key: &[u8], seq: u64) -> u8 {
        let t = if self.used < self.size {
            let t = self
                .slots
                .iter()
                .position(|s| s.key.is_none())
                .expect("a free slot");
            self.used += 1;
            t
        } else {
            let (t, _) = self
                .slots
                .iter()
                .enumerate()
                .min_by_key(|(_, s)| s.last_used)
                .expect("slots");
            let old = self.slots[t].key.take().expect("a full slot");
            self.map.remove(&old);
            t
        };
        self.clock += 1;
        let boxed: Box<[u8]> = key.into();
        self.map.insert(boxed.clone(), t as u8);
        self.slots[t] = Slot {
            key: Some(boxed),
            last_used: self.clock,
            def_seq: seq,
        };
        t as u8
    }

    /// Forgets the entries defined after sequence number `seq`.
    pub fn invalidate_after(&mut self, seq: u64) {
        for s in &mut self.slots {
            if s.def_seq > seq
                && let Some(k) = s.key.take()
            {
                self.map.remove(&k);
                self.used -= 1;
            }
        }
    }

    pub fn clear(&mut self) {
        self.map.clear();
        for s in &mut self.slots {
            s.key = None;
        }
        self.used = 0;
    }

    pub fn len(&self) -> usize {
        self.used
    }
}
