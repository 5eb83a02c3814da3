//! The encoder's vocabulary tables: strings and names -> indexes.

use binxml_core::XML_NS;
use binxml_core::hash::{bytes_eq, hash_bytes, hash_pair};

use super::prim::{int_2nd, len_2nd, put};
use crate::vocab::Vocabulary;

pub(super) const MAX_TABLE: u32 = 1 << 20;

/// A string table: string -> index (1-based). The strings live in one arena and the index is
/// an open-addressing hash table whose slots hold the hash, the index and where the string
/// is: no allocation per entry, and a lookup reads the slot, then the string (no entry array
/// in between, one cache miss less in a large table).
#[derive(Default)]
pub(super) struct StrTable {
    arena: Vec<u8>,
    /// index 0 marks an empty slot
    slots: Vec<StrSlot>,
    /// entries so far (with duplicates, which take an index of their own)
    len: u32,
    /// the items (attributes, texts) whose strings go to this table written so far, and how
    /// many the document has (0: unknown): when the table grows, the entries the rest of the
    /// document will add at the rate so far are made room for at once (see `grow`)
    pub(super) seen: u32,
    expect: u32,
}

#[derive(Clone, Copy, Default)]
pub(super) struct StrSlot {
    hash: u32,
    idx: u32,
    off: u32,
    len: u32,
}

impl StrTable {
    #[inline(always)]
    pub(super) fn slot_of(&self, s: &[u8], h: u32) -> (usize, Option<u32>) {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let t = self.slots[i];
            if t.idx == 0 {
                return (i, None);
            }
            if t.hash == h
                && t.len as usize == s.len()
                && bytes_eq(&self.arena[t.off as usize..(t.off + t.len) as usize], s)
            {
                return (i, Some(t.idx));
            }
            i = (i + 1) & mask;
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, s: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.slot_of(s.as_bytes(), hash_bytes(s.as_bytes())).1
    }

    /// Doubles the slots, or more: once an eighth of the document's items (`expect`) are
    /// written, room for the entries the rest will add at the rate so far (up to 8 times the
    /// slots): a table that grows with the document is rebuilt a few times, not at every
    /// doubling. Rebuilding copies every slot at random places, the largest cost of a
    /// document whose values are mostly new.
    #[inline(never)]
    pub(super) fn grow(&mut self) {
        let mut cap = (self.slots.len() * 2).max(64);
        let (seen, expect) = (self.seen as u64, self.expect as u64);
        if expect > seen && seen * 8 >= expect {
            let projected = self.len as u64 * expect / seen.max(1);
            let want = ((projected + 1) * 2).next_power_of_two() as usize;
            cap = cap.max(want.min(self.slots.len() * 8));
        }
        self.rehash(cap);
    }

    /// The items whose strings go to this table the document has (see `grow`).
    pub(super) fn expect(&mut self, n: usize) {
        self.expect = n.min(u32::MAX as usize) as u32;
        self.seen = 0;
    }

    /// The slots rebuilt with `cap` of them (a power of two).
    fn rehash(&mut self, cap: usize) {
        // one slot more, `cap`, where the empty slots of the old table are copied: no branch
        // on whether a slot is empty (half of them are, at random: a mispredicted branch
        // every other slot); it stays empty, so the probe loop ends on it at once
        let mut slots = vec![StrSlot::default(); cap + 1];
        let mask = cap - 1;
        for t in &self.slots {
            let mut i = if t.idx != 0 {
                t.hash as usize & mask
            } else {
                cap
            };
            while slots[i].idx != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *t;
        }
        slots.truncate(cap);
        self.slots = slots;
    }

    /// Room for `n` more entries and `octets` more octets of strings without growing (the
    /// slots' rehashing and the arena's copies are then done once, not at every doubling).
    pub(super) fn reserve(&mut self, n: usize, octets: usize) {
        let want = ((self.len as usize + n + 1) * 2).next_power_of_two();
        if want > self.slots.len() {
            self.rehash(want);
        }
        // `put` stores up to 64 octets at a time
        self.arena.reserve(octets + 64);
    }

    /// The index of `s`, or `None` after adding it (when the table is not full).
    #[inline(always)]
    pub(super) fn find_or_add(&mut self, s: &str) -> Option<u32> {
        if (self.len as usize + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let b = s.as_bytes();
        let h = hash_bytes(b);
        let (slot, found) = self.slot_of(b, h);
        if found.is_some() {
            return found;
        }
        if self.len < MAX_TABLE {
            self.len += 1;
            self.slots[slot] = StrSlot {
                hash: h,
                idx: self.len,
                off: self.arena.len() as u32,
                len: b.len() as u32,
            };
            put(&mut self.arena, b);
        }
        None
    }

    /// Adds a string (a literal written with its add-to-table bit, or an identifying literal).
    /// A string already present keeps its first index; the table still counts the new entry.
    #[inline]
    pub(super) fn add(&mut self, s: &str) {
        if self.find_or_add(s).is_some() && self.len < MAX_TABLE {
            // a duplicate literal takes an index of its own on the decoder's side
            self.len += 1;
        }
    }

    pub(super) fn full(&self) -> bool {
        self.len >= MAX_TABLE
    }
}

/// Names recognised by the addresses of their strings: slot `e % SEEN_NAMES` holds entry `e`'s
/// name as last found, by the addresses of its local name, prefix and namespace name. Only
/// while `on`: within one call of `write_events` or `write_tape` every string the encoder is
/// handed is borrowed for the whole call, so two of them at the same address and of the same
/// length hold the same octets. Outside such a call a string handed to one `write_event` may be
/// freed and another put at its address: the slots are cleared when a call starts and unused
/// outside calls (a panic unwinding out of such a call leaves them on; the encoder's state is
/// then as undefined as after any panic inside it, in safe code: wrong output, never unsound
/// memory access). Otherwise a name's strings are compared octet by octet every time (36 octets
/// of namespace name for every element of a VOTable document); see docs/fastinfoset.md for
/// what this saved.
pub(super) struct SeenNames {
    pub(super) on: bool,
    /// lookups a slot answered (the name, or its namespace name), and namespace names compared
    pub(super) hits: u32,
    pub(super) misses: u32,
    pub(super) slots: [Seen; SEEN_NAMES],
}

#[derive(Clone, Copy, PartialEq, Default)]
pub(super) struct Seen {
    entry: u32,
    local: usize,
    prefix: usize,
    ns: usize,
}

pub(super) const SEEN_NAMES: usize = 64;

impl Default for SeenNames {
    fn default() -> Self {
        SeenNames {
            on: false,
            hits: 0,
            misses: 0,
            slots: [Seen::default(); SEEN_NAMES],
        }
    }
}

/// Per local name: the local-name index.
#[derive(Default)]
pub(super) struct NameEntry {
    pub(super) local: u32,
}

/// A name-surrogate table: (prefix, namespace, local) -> index, open addressing on a hash of
/// the local name and the prefix (the namespace name, long and nearly always the same for a
/// given prefix, is only compared). One probe per lookup however many prefixes a document
/// binds (some documents bind a thousand). The names live in one arena (local name and prefix
/// one after the other): no allocation per entry. A namespace name is kept there once for all
/// the entries that follow with the same one: documents with many names share a few long
/// namespace names, and storing each with every entry would make the arena, and the copies
/// as it grows, many times larger.
#[derive(Default)]
pub(super) struct QTable {
    /// (hash, entry number) — entry number 0 marks an empty slot
    slots: Vec<(u32, u32)>,
    pub(super) entries: Vec<QEntry>,
    arena: Vec<u8>,
    /// (offset, length) in `arena` of the namespace names added last, the newest first
    recent_ns: [(u32, u32); 4],
}

pub(super) struct QEntry {
    off: u32,
    local_len: u32,
    prefix_len: u32,
    ns_off: u32,
    ns_len: u32,
    idx: u32,
    /// the entry that followed this one last time (0: none yet)
    next: u32,
    /// (element names) the attribute-name entry of the element's first attribute last time
    pub(super) first_attribute: u32,
}

impl QTable {
    #[inline(always)]
    pub(super) fn hash(p: &str, l: &str) -> u32 {
        hash_pair(l.as_bytes(), p.as_bytes())
    }

    /// The slot of (p, n, l) with hash `h` and its entry number (1-based), or the empty slot
    /// where it would go and 0.
    #[inline(always)]
    pub(super) fn probe(&self, h: u32, p: &str, n: &str, l: &str) -> (usize, u32) {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (sh, e) = self.slots[i];
            if e == 0 {
                return (i, 0);
            }
            if sh == h && self.matches(e, p, n, l) {
                return (i, e);
            }
            i = (i + 1) & mask;
        }
    }

    /// True when entry `e` (1-based) is (p, n, l).
    #[inline(always)]
    pub(super) fn matches(&self, e: u32, p: &str, n: &str, l: &str) -> bool {
        let q = &self.entries[e as usize - 1];
        let o = q.off as usize;
        let (ll, pl, nl) = (
            q.local_len as usize,
            q.prefix_len as usize,
            q.ns_len as usize,
        );
        ll == l.len()
            && pl == p.len()
            && nl == n.len()
            && bytes_eq(&self.arena[o..o + ll], l.as_bytes())
            && bytes_eq(&self.arena[o + ll..o + ll + pl], p.as_bytes())
            && bytes_eq(
                &self.arena[q.ns_off as usize..q.ns_off as usize + nl],
                n.as_bytes(),
            )
    }

    /// [`QTable::matches`], where strings at the addresses `seen` holds for entry `e` (found
    /// equal to the entry's earlier in the same scope) are not compared again: the whole name
    /// when its three strings are where they were (events recorded on a `Tape` keep each name
    /// once), the namespace name alone otherwise (names borrowed from a document are
    /// everywhere in it; their namespace name is where its declaration is).
    #[inline(always)]
    pub(super) fn matches_seen(
        &self,
        e: u32,
        p: &str,
        n: &str,
        l: &str,
        seen: &mut SeenNames,
    ) -> bool {
        let q = &self.entries[e as usize - 1];
        let (ll, pl, nl) = (
            q.local_len as usize,
            q.prefix_len as usize,
            q.ns_len as usize,
        );
        if !(ll == l.len() && pl == p.len() && nl == n.len()) {
            return false;
        }
        let at = Seen {
            entry: e,
            local: l.as_ptr() as usize,
            prefix: p.as_ptr() as usize,
            ns: n.as_ptr() as usize,
        };
        let slot = &mut seen.slots[e as usize % SEEN_NAMES];
        let on = seen.on && slot.entry == e;
        if on && *slot == at {
            seen.hits += 1;
            return true;
        }
        let o = q.off as usize;
        if !(bytes_eq(&self.arena[o..o + ll], l.as_bytes())
            && (pl == 0 || bytes_eq(&self.arena[o + ll..o + ll + pl], p.as_bytes())))
        {
            return false;
        }
        if nl != 0 {
            if on && slot.ns == at.ns {
                seen.hits += 1;
            } else if !bytes_eq(
                &self.arena[q.ns_off as usize..q.ns_off as usize + nl],
                n.as_bytes(),
            ) {
                return false;
            } else if seen.on {
                seen.misses += 1;
                if seen.misses > 1024 && seen.misses > seen.hits {
                    // names at a new address every time (events owning their strings): stop
                    seen.on = false;
                }
            }
        }
        if seen.on {
            *slot = at;
        }
        true
    }

    /// The (index, entry number) of (p, n, l), trying first entry `pred` (0: none), the name
    /// that followed the previous one last time: documents repeat their sequences of names,
    /// and a hit costs one comparison, no hashing.
    /// On a miss: `Err` with the name's hash, for [`QTable::add_hashed`] (a name missed is
    /// added next, as a literal).
    #[inline(always)]
    pub(super) fn get_predicted(
        &self,
        pred: u32,
        p: &str,
        n: &str,
        l: &str,
        seen: &mut SeenNames,
    ) -> std::result::Result<(u32, u32), u32> {
        if pred != 0 && self.matches_seen(pred, p, n, l, seen) {
            return Ok((self.entries[pred as usize - 1].idx, pred));
        }
        let h = Self::hash(p, l);
        if self.slots.is_empty() {
            return Err(h);
        }
        match self.probe(h, p, n, l).1 {
            0 => Err(h),
            e => Ok((self.entries[e as usize - 1].idx, e)),
        }
    }

    /// The entry predicted to follow entry `prev` (0: none).
    #[inline(always)]
    pub(super) fn next_of(&self, prev: u32) -> u32 {
        if prev == 0 {
            0
        } else {
            self.entries[prev as usize - 1].next
        }
    }

    /// Entry `prev` is followed by entry `e` (0: a name not in the table).
    #[inline(always)]
    pub(super) fn learn(&mut self, prev: u32, e: u32) {
        if prev != 0 {
            self.entries[prev as usize - 1].next = e;
        }
    }

    /// The offset in the arena of namespace name `n`: one of the recent ones, or `n` added.
    #[inline(always)]
    pub(super) fn ns_offset(&mut self, n: &str) -> u32 {
        if n.is_empty() {
            return 0;
        }
        for k in 0..self.recent_ns.len() {
            let (o, len) = self.recent_ns[k];
            if len as usize == n.len()
                && bytes_eq(&self.arena[o as usize..(o + len) as usize], n.as_bytes())
            {
                // most recent first
                self.recent_ns[..=k].rotate_right(1);
                return o;
            }
        }
        let o = self.arena.len() as u32;
        put(&mut self.arena, n.as_bytes());
        self.recent_ns.rotate_right(1);
        self.recent_ns[0] = (o, n.len() as u32);
        o
    }

    /// Room for `n` more entries and `octets` more octets of names without growing.
    pub(super) fn reserve(&mut self, n: usize, octets: usize) {
        let want = ((self.entries.len() + n + 1) * 2).next_power_of_two();
        if want > self.slots.len() {
            self.rehash(want);
        }
        self.entries.reserve(n);
        self.arena.reserve(octets + 64);
    }

    /// The slots rebuilt with `cap` of them (a power of two).
    #[inline(never)]
    fn rehash(&mut self, cap: usize) {
        // an extra slot for the empty ones, as in `StrTable::rehash`
        let mut slots = vec![(0u32, 0u32); cap + 1];
        let mask = cap - 1;
        for &(h, e) in &self.slots {
            let mut i = if e != 0 { h as usize & mask } else { cap };
            while slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = (h, e);
        }
        slots.truncate(cap);
        self.slots = slots;
    }

    /// Adds (p, n, l) with index `idx` unless present (the first index of a name stays the
    /// one written); `h` is its hash (`QTable::hash(p, l)`), computed by the lookup that
    /// missed it.
    pub(super) fn add_hashed(&mut self, h: u32, p: &str, n: &str, l: &str, idx: u32) {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.rehash((self.slots.len() * 2).max(64));
        }
        let (slot, found) = self.probe(h, p, n, l);
        if found != 0 {
            return;
        }
        let off = self.arena.len() as u32;
        put(&mut self.arena, l.as_bytes());
        put(&mut self.arena, p.as_bytes());
        let ns_off = self.ns_offset(n);
        self.entries.push(QEntry {
            off,
            local_len: l.len() as u32,
            prefix_len: p.len() as u32,
            ns_off,
            ns_len: n.len() as u32,
            idx,
            next: 0,
            first_attribute: 0,
        });
        self.slots[slot] = (h, self.entries.len() as u32);
    }
}

/// The strings of a table found last by the literal qualified names, with their indexes
/// (an entry's index never changes), compared before the string is hashed and looked up:
/// documents that declare a new prefix for each block of elements (publish911.xml binds `a0`
/// to `a3645`) write a literal name for each element, most with the prefix and namespace
/// name of the one before.
#[derive(Default)]
pub(super) struct Recent {
    entries: [(String, u32); 2],
    /// the entry replaced next
    next: usize,
}

impl Recent {
    #[inline(always)]
    pub(super) fn get(&self, s: &str) -> Option<u32> {
        self.entries
            .iter()
            .find(|(t, i)| *i != 0 && bytes_eq(t.as_bytes(), s.as_bytes()))
            .map(|e| e.1)
    }

    pub(super) fn put(&mut self, s: &str, i: u32) {
        let e = &mut self.entries[self.next];
        e.0.clear();
        e.0.push_str(s);
        e.1 = i;
        self.next ^= 1;
    }
}

#[derive(Default)]
pub(super) struct Tables {
    pub(super) prefixes: StrTable,
    pub(super) namespaces: StrTable,
    /// prefixes and namespace names of literal qualified names found last
    pub(super) recent_prefixes: Recent,
    pub(super) recent_namespaces: Recent,
    /// local name -> key k, with `names[k - 1]` its entry
    pub(super) name_keys: StrTable,
    pub(super) names: Vec<NameEntry>,
    pub(super) elements: QTable,
    pub(super) attributes: QTable,
    pub(super) local_len: u32,
    pub(super) element_len: u32,
    pub(super) attribute_len: u32,
    pub(super) other_ncnames: StrTable,
    pub(super) other_uris: StrTable,
    pub(super) attr_values: StrTable,
    pub(super) chunks: StrTable,
    pub(super) other_strings: StrTable,
}

impl Tables {
    pub(super) fn new() -> Self {
        let mut t = Tables::default();
        t.prefixes.add("xml");
        t.namespaces.add(XML_NS);
        t
    }

    /// Room for the names of a document that uses `names` (distinct qualified names) and
    /// declares `ns_strings` distinct prefixes and namespace names: each may become an entry
    /// of the element and the attribute table, its local name one of the local-name table,
    /// its prefix and namespace name entries of theirs.
    pub(super) fn reserve_names<'n>(
        &mut self,
        names: impl Iterator<Item = (&'n str, &'n str, &'n str)>,
        ns_strings: usize,
    ) {
        let (mut n, mut octets) = (0usize, 0usize);
        for (p, _, l) in names {
            n += 1;
            octets += p.len() + l.len();
        }
        if n == 0 {
            return;
        }
        self.elements.reserve(n, octets);
        self.attributes.reserve(n, octets);
        self.name_keys.reserve(n, octets);
        self.names.reserve(n);
        self.prefixes.reserve(ns_strings.min(n), 0);
        self.namespaces.reserve(ns_strings.min(n), 0);
    }

    pub(super) fn load(&mut self, v: &Vocabulary) {
        let r = v.resolved();
        for s in &r.prefixes {
            self.prefixes.add(s);
        }
        for s in &r.namespaces {
            self.namespaces.add(s);
        }
        for s in &r.locals {
            self.add_local(s);
        }
        for s in &r.other_ncnames {
            self.other_ncnames.add(s);
        }
        for s in &r.other_uris {
            self.other_uris.add(s);
        }
        for s in &r.attr_values {
            self.attr_values.add(s);
        }
        for s in &r.chunks {
            self.chunks.add(s);
        }
        for s in &r.other_strings {
            self.other_strings.add(s);
        }
        for (p, n, l) in &r.elements {
            self.add_qname(false, p, n, l);
        }
        for (p, n, l) in &r.attributes {
            self.add_qname(true, p, n, l);
        }
    }

    #[inline(always)]
    pub(super) fn name(&self, local: &str) -> Option<&NameEntry> {
        self.name_keys
            .get(local)
            .map(|k| &self.names[k as usize - 1])
    }

    pub(super) fn add_local(&mut self, s: &str) -> bool {
        if self.local_len >= MAX_TABLE {
            return false;
        }
        self.local_len += 1;
        let len = self.local_len;
        if self.name_keys.find_or_add(s).is_none() {
            self.names.push(NameEntry { local: len });
        }
        true
    }

    pub(super) fn add_qname(&mut self, attr: bool, p: &str, n: &str, l: &str) {
        let known = self.name_keys.get(l).is_some();
        self.add_qname_hashed(attr, QTable::hash(p, l), known, p, n, l);
    }

    /// [`Tables::add_qname`] with the name's hash computed and `known`: whether the local
    /// name is in the local-name table.
    pub(super) fn add_qname_hashed(
        &mut self,
        attr: bool,
        h: u32,
        known: bool,
        p: &str,
        n: &str,
        l: &str,
    ) {
        let counter = if attr {
            &mut self.attribute_len
        } else {
            &mut self.element_len
        };
        if *counter >= MAX_TABLE {
            return;
        }
        *counter += 1;
        let idx = *counter;
        // a qualified name takes its index even when it cannot be found again (its local
        // name did not fit the local-name table)
        if known {
            let t = if attr {
                &mut self.attributes
            } else {
                &mut self.elements
            };
            t.add_hashed(h, p, n, l, idx);
        }
    }
}

/// Identifying string or index on the first bit (C.13).
#[inline(always)]
pub(super) fn ident(buf: &mut Vec<u8>, t: &mut StrTable, s: &str) {
    match t.find_or_add(s) {
        Some(i) => int_2nd(buf, 0x80, i),
        None => {
            len_2nd(buf, 0, s.len());
            put(buf, s.as_bytes());
        }
    }
}
