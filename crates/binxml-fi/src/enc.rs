//! The Fast Infoset encoder.

use std::io::Write;
use std::sync::Arc;

use std::borrow::Cow;

use binxml_core::{Encoder, Error, Event, EventSink, QName, Result, Typed, XML_NS, XMLNS_NS};

use crate::FORMAT;
use crate::algo;

use crate::vocab::Vocabulary;
use binxml_core::hash::{bytes_eq, hash_bytes, hash_pair};

/// Encoder policies.
#[derive(Clone, Debug)]
pub struct FiOptions {
    /// Attribute values shorter than this many characters (UTF-16 code units, as the Java
    /// reference counts) are added to the attribute-value table and written by index when they
    /// repeat. Default 32, like the reference. 0 indexes none.
    pub max_indexed_attribute_value: usize,
    /// The same for character chunks; also used for comments and PI data (other strings), as the
    /// reference does. Default 32.
    pub max_indexed_chunk: usize,
    /// Write attribute values, character chunks, comments and PI data in UTF-16BE instead of
    /// UTF-8 (names are always UTF-8).
    pub utf16: bool,
    /// Write character chunks made only of `0123456789-+.E ` with the built-in numeric restricted
    /// alphabet (4 bits a character) when that is shorter. Off by default (the reference never
    /// does it on its own).
    pub numeric_alphabet: bool,
    /// Write chunks that look like xs:date / xs:dateTime values with the built-in date-and-time
    /// alphabet. Off by default.
    pub date_time_alphabet: bool,
    /// An external vocabulary, referenced by this URI; the decoder must be given the same
    /// vocabulary under the same URI.
    pub external_vocabulary: Option<(String, Arc<Vocabulary>)>,
    /// A vocabulary written into the document's header (X.891 initial vocabulary: every table
    /// listed in full), after the external vocabulary's tables when both are given. The decoder
    /// needs nothing to read it.
    pub initial_vocabulary: Option<Arc<Vocabulary>>,
    /// Start the document with `<?xml encoding='finf'?>` (or the form with the version and
    /// standalone of the `StartDocument` event, when it has them).
    pub xml_declaration: bool,
    /// Write the `StartDocument`'s version, encoding and standalone into the document's
    /// optional header fields (the reference never writes them). Off by default.
    pub document_properties: bool,
    /// Split character data into several chunks so that short repeated pieces become indexes:
    /// `<`, `&` and `>` (which in text mostly come from references) alone, and indentation (a
    /// run of white space with a line break, at least 4 characters) apart from the content
    /// around it. The reference gets a similar effect from the way SAX parsers split text; this
    /// keeps the output no larger than the reference's. On by default.
    pub split_text: bool,
}

impl Default for FiOptions {
    fn default() -> Self {
        FiOptions {
            max_indexed_attribute_value: 32,
            max_indexed_chunk: 32,
            utf16: false,
            numeric_alphabet: false,
            date_time_alphabet: false,
            external_vocabulary: None,
            initial_vocabulary: None,
            xml_declaration: false,
            document_properties: false,
            split_text: true,
        }
    }
}

const MAX_TABLE: u32 = 1 << 20;

/// A string table: string -> index (1-based). The strings live in one arena and the index is
/// an open-addressing hash table whose slots hold the hash, the index and where the string
/// is: no allocation per entry, and a lookup reads the slot, then the string (no entry array
/// in between, one cache miss less in a large table).
#[derive(Default)]
struct StrTable {
    arena: Vec<u8>,
    /// index 0 marks an empty slot
    slots: Vec<StrSlot>,
    /// entries so far (with duplicates, which take an index of their own)
    len: u32,
}

#[derive(Clone, Copy, Default)]
struct StrSlot {
    hash: u32,
    idx: u32,
    off: u32,
    len: u32,
}

impl StrTable {
    #[inline(always)]
    fn slot_of(&self, s: &[u8], h: u32) -> (usize, Option<u32>) {
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
    fn get(&self, s: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.slot_of(s.as_bytes(), hash_bytes(s.as_bytes())).1
    }

    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(64);
        let mut slots = vec![StrSlot::default(); cap];
        let mask = cap - 1;
        for t in &self.slots {
            if t.idx != 0 {
                let mut i = t.hash as usize & mask;
                while slots[i].idx != 0 {
                    i = (i + 1) & mask;
                }
                slots[i] = *t;
            }
        }
        self.slots = slots;
    }

    /// The index of `s`, or `None` after adding it (when the table is not full).
    #[inline(always)]
    fn find_or_add(&mut self, s: &str) -> Option<u32> {
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
    fn add(&mut self, s: &str) {
        if self.find_or_add(s).is_some() && self.len < MAX_TABLE {
            // a duplicate literal takes an index of its own on the decoder's side
            self.len += 1;
        }
    }

    fn full(&self) -> bool {
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
struct SeenNames {
    on: bool,
    /// lookups a slot answered (the name, or its namespace name), and namespace names compared
    hits: u32,
    misses: u32,
    slots: [Seen; SEEN_NAMES],
}

#[derive(Clone, Copy, PartialEq, Default)]
struct Seen {
    entry: u32,
    local: usize,
    prefix: usize,
    ns: usize,
}

const SEEN_NAMES: usize = 64;

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
struct NameEntry {
    local: u32,
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
struct QTable {
    /// (hash, entry number) — entry number 0 marks an empty slot
    slots: Vec<(u32, u32)>,
    entries: Vec<QEntry>,
    arena: Vec<u8>,
    /// (offset, length) in `arena` of the namespace names added last, the newest first
    recent_ns: [(u32, u32); 4],
}

struct QEntry {
    off: u32,
    local_len: u32,
    prefix_len: u32,
    ns_off: u32,
    ns_len: u32,
    idx: u32,
    /// the entry that followed this one last time (0: none yet)
    next: u32,
    /// (element names) the attribute-name entry of the element's first attribute last time
    first_attribute: u32,
}

impl QTable {
    #[inline(always)]
    fn hash(p: &str, l: &str) -> u32 {
        hash_pair(l.as_bytes(), p.as_bytes())
    }

    /// The slot of (p, n, l) with hash `h` and its entry number (1-based), or the empty slot
    /// where it would go and 0.
    #[inline(always)]
    fn probe(&self, h: u32, p: &str, n: &str, l: &str) -> (usize, u32) {
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
    fn matches(&self, e: u32, p: &str, n: &str, l: &str) -> bool {
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
    fn matches_seen(&self, e: u32, p: &str, n: &str, l: &str, seen: &mut SeenNames) -> bool {
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
    fn get_predicted(
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
    fn next_of(&self, prev: u32) -> u32 {
        if prev == 0 {
            0
        } else {
            self.entries[prev as usize - 1].next
        }
    }

    /// Entry `prev` is followed by entry `e` (0: a name not in the table).
    #[inline(always)]
    fn learn(&mut self, prev: u32, e: u32) {
        if prev != 0 {
            self.entries[prev as usize - 1].next = e;
        }
    }

    /// The offset in the arena of namespace name `n`: one of the recent ones, or `n` added.
    #[inline(always)]
    fn ns_offset(&mut self, n: &str) -> u32 {
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

    /// Adds (p, n, l) with index `idx` unless present (the first index of a name stays the
    /// one written); `h` is its hash (`QTable::hash(p, l)`), computed by the lookup that
    /// missed it.
    fn add_hashed(&mut self, h: u32, p: &str, n: &str, l: &str, idx: u32) {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(64);
            let mut slots = vec![(0u32, 0u32); cap];
            for &(h, e) in &self.slots {
                if e != 0 {
                    let mut i = h as usize & (cap - 1);
                    while slots[i].1 != 0 {
                        i = (i + 1) & (cap - 1);
                    }
                    slots[i] = (h, e);
                }
            }
            self.slots = slots;
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

#[derive(Default)]
struct Tables {
    prefixes: StrTable,
    namespaces: StrTable,
    /// local name -> key k, with `names[k - 1]` its entry
    name_keys: StrTable,
    names: Vec<NameEntry>,
    elements: QTable,
    attributes: QTable,
    local_len: u32,
    element_len: u32,
    attribute_len: u32,
    other_ncnames: StrTable,
    other_uris: StrTable,
    attr_values: StrTable,
    chunks: StrTable,
    other_strings: StrTable,
}

impl Tables {
    fn new() -> Self {
        let mut t = Tables::default();
        t.prefixes.add("xml");
        t.namespaces.add(XML_NS);
        t
    }

    fn load(&mut self, v: &Vocabulary) {
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
    fn name(&self, local: &str) -> Option<&NameEntry> {
        self.name_keys
            .get(local)
            .map(|k| &self.names[k as usize - 1])
    }

    fn add_local(&mut self, s: &str) -> bool {
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

    fn add_qname(&mut self, attr: bool, p: &str, n: &str, l: &str) {
        let known = self.name_keys.get(l).is_some();
        self.add_qname_hashed(attr, QTable::hash(p, l), known, p, n, l);
    }

    /// [`Tables::add_qname`] with the name's hash computed and `known`: whether the local
    /// name is in the local-name table.
    fn add_qname_hashed(&mut self, attr: bool, h: u32, known: bool, p: &str, n: &str, l: &str) {
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

/// Where the deferred start tag's name is.
enum PendingName {
    None,
    Index(u32),
    Literal,
}

#[derive(PartialEq, Clone, Copy)]
enum Phase {
    /// before StartDocument
    Start,
    /// after StartDocument, buffering the prolog until the first element
    Prolog,
    Body,
    Done,
}

/// Writes a Fast Infoset document. Call [`Encoder::finish`] after `EndDocument`, then
/// [`FiEncoder::into_inner`] to get the writer back.
pub struct FiEncoder<W: Write> {
    out: W,
    buf: Vec<u8>,
    opts: FiOptions,
    t: Tables,
    phase: Phase,
    /// element depth (the stream grammar's checks, folded into the encoder's state: see
    /// `write_event`)
    depth: u32,
    /// an attribute came after the current start tag (namespace declarations must precede
    /// attributes)
    seen_attr: bool,
    prolog: Vec<Event<'static>>,
    start_doc: Option<Event<'static>>,
    /// pending terminator nibbles (0, 1 or 2)
    terms: u8,
    in_start_tag: bool,
    attrs_started: bool,
    ns_buf: Vec<u8>,
    name: PendingName,
    lit_prefix: String,
    lit_ns: String,
    lit_local: String,
    /// the hash of the literal name (`QTable::hash`), found missing from the table
    lit_hash: u32,
    scratch: Vec<u8>,
    text: String,
    /// by depth: the white space last written there, when all its chunks were indexes
    memo: Vec<[TextMemo; 2]>,
    /// entry number of the last element name found in the table (0: none), whose successor
    /// is tried first
    last_element: u32,
    /// the same for the last attribute name of the current start tag
    last_attribute: u32,
    /// literal chunks written so far (a text all of whose chunks were indexes leaves it alone)
    literal_chunks: u32,
    /// namespace names of element and attribute names recognised by their address, during a
    /// call of `write_events` or `write_tape`
    seen_elements: SeenNames,
    seen_attributes: SeenNames,
    /// during a call of `write_events` or `write_tape` (see [`SeenNames`] for why strings may
    /// then be recognised by their address)
    in_scope: bool,
    /// ((address, length), index): the namespace name of a literal qualified name written
    /// last by index in this scope, at the address the event gave it (so that a literal name
    /// repeated on many elements does not hash and compare its namespace name each time)
    ns_memo: ((usize, usize), u32),
    /// the address and length of the pending literal element name's namespace name in its event
    lit_ns_at: (usize, usize),
}

/// White-space text and the octets it was written as (`out_len` 0: none).
#[derive(Default)]
struct TextMemo {
    text: Vec<u8>,
    out: [u8; 16],
    out_len: u8,
}

const MEMO_DEPTHS: usize = 64;

const FLUSH_AT: usize = 1 << 16;

impl<W: Write> FiEncoder<W> {
    /// An encoder writing to `out` with the default [`FiOptions`]. Output is buffered (64 KiB), so
    /// `out` needs no buffering of its own.
    pub fn new(out: W) -> Self {
        Self::with_options(out, FiOptions::default())
    }

    /// An encoder writing to `out` with `opts`; the vocabularies `opts` names are loaded into the
    /// tables now.
    pub fn with_options(out: W, opts: FiOptions) -> Self {
        let mut t = Tables::new();
        if let Some((_, v)) = &opts.external_vocabulary {
            t.load(v);
        }
        if let Some(v) = &opts.initial_vocabulary {
            t.load(v);
        }
        FiEncoder {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            opts,
            t,
            phase: Phase::Start,
            depth: 0,
            seen_attr: false,
            prolog: Vec::new(),
            start_doc: None,
            terms: 0,
            in_start_tag: false,
            attrs_started: false,
            ns_buf: Vec::new(),
            name: PendingName::None,
            // room for `put`'s stores of up to 64 octets
            lit_prefix: String::with_capacity(128),
            lit_ns: String::with_capacity(128),
            lit_local: String::with_capacity(128),
            lit_hash: 0,
            scratch: Vec::new(),
            text: String::new(),
            memo: Vec::new(),
            literal_chunks: 0,
            last_element: 0,
            last_attribute: 0,
            seen_elements: SeenNames::default(),
            seen_attributes: SeenNames::default(),
            in_scope: false,
            ns_memo: ((0, 0), 0),
            lit_ns_at: (0, 0),
        }
    }

    /// Runs `f` as one call in which strings may be recognised by their address (see
    /// [`SeenNames`]).
    #[inline(always)]
    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        for s in [&mut self.seen_elements, &mut self.seen_attributes] {
            *s = SeenNames {
                on: true,
                ..SeenNames::default()
            };
        }
        self.in_scope = true;
        // (0, 0) is no string's: an empty namespace name is not looked up
        self.ns_memo = ((0, 0), 0);
        let r = f(self);
        self.in_scope = false;
        self.seen_elements.on = false;
        self.seen_attributes.on = false;
        r
    }

    /// The writer, after [`Encoder::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer. It holds the whole document only after [`Encoder::finish`]: before, part of
    /// the output may still be in the encoder's buffer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Writes the buffer through when it holds `FLUSH_AT` octets or more.
    #[inline(always)]
    fn flush_full(&mut self) -> Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    #[inline(never)]
    fn flush_buf(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.out
                .write_all(&self.buf)
                .map_err(|e| Error::io(FORMAT, e))?;
            self.buf.clear();
        }
        Ok(())
    }

    // ---- terminators ----

    #[inline(always)]
    fn terminate(&mut self) {
        if self.terms == 2 {
            self.buf.push(0xFF);
            self.terms = 1;
        } else {
            self.terms += 1;
        }
    }

    #[inline(always)]
    fn flush_terms(&mut self) {
        match self.terms {
            0 => {}
            1 => self.buf.push(0xF0),
            _ => self.buf.push(0xFF),
        }
        self.terms = 0;
    }

    // ---- header ----

    fn write_header(&mut self) -> Result<()> {
        let (version, encoding, standalone) = match &self.start_doc {
            Some(Event::StartDocument {
                version,
                encoding,
                standalone,
            }) => (version.clone(), encoding.clone(), *standalone),
            _ => (None, None, None),
        };
        if self.opts.xml_declaration {
            let v = match version.as_deref() {
                Some("1.0") => " version='1.0'",
                Some("1.1") => " version='1.1'",
                _ => "",
            };
            let s = match standalone {
                Some(true) => " standalone='yes'",
                Some(false) => " standalone='no'",
                None => "",
            };
            self.buf
                .extend_from_slice(format!("<?xml{v} encoding='finf'{s}?>").as_bytes());
        }
        self.buf.extend_from_slice(&crate::MAGIC);
        let notations: Vec<Event<'static>> = self
            .prolog
            .iter()
            .filter(|e| matches!(e, Event::Notation { .. }))
            .cloned()
            .collect();
        let entities: Vec<Event<'static>> = self
            .prolog
            .iter()
            .filter(|e| matches!(e, Event::UnparsedEntity { .. }))
            .cloned()
            .collect();
        let props = self.opts.document_properties;
        let mut flags = 0u8;
        if self.opts.external_vocabulary.is_some() || self.opts.initial_vocabulary.is_some() {
            flags |= 0x20;
        }
        if !notations.is_empty() {
            flags |= 0x10;
        }
        if !entities.is_empty() {
            flags |= 0x08;
        }
        let encoding = encoding.filter(|e| props && !e.is_empty());
        if encoding.is_some() {
            flags |= 0x04;
        }
        let standalone = standalone.filter(|_| props);
        if standalone.is_some() {
            flags |= 0x02;
        }
        let version = version.filter(|v| props && !v.is_empty());
        if version.is_some() {
            flags |= 0x01;
        }
        self.buf.push(flags);
        if flags & 0x20 != 0 {
            self.write_initial_vocabulary();
        }
        for n in &notations {
            if let Event::Notation {
                name,
                public_id,
                system_id,
            } = n
            {
                let sys = system_id.as_deref().filter(|s| !s.is_empty());
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC0 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
            }
        }
        if !notations.is_empty() {
            self.buf.push(0xF0);
        }
        for u in &entities {
            if let Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } = u
            {
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf.push(0xD0 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                ident(&mut self.buf, &mut self.t.other_uris, system_id);
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
                ident(&mut self.buf, &mut self.t.other_ncnames, notation);
            }
        }
        if !entities.is_empty() {
            self.buf.push(0xF0);
        }
        if let Some(e) = encoding {
            len_2nd(&mut self.buf, 0, e.len());
            self.buf.extend_from_slice(e.as_bytes());
        }
        if let Some(s) = standalone {
            self.buf.push(s as u8);
        }
        if let Some(v) = version {
            self.nistring_first(&v, Table::OtherStrings, self.opts.max_indexed_chunk);
        }
        let prolog = std::mem::take(&mut self.prolog);
        for e in &prolog {
            self.body_event(e)?;
        }
        Ok(())
    }

    /// The initial-vocabulary component (C.2.5): 3 padding bits and 13 presence bits, the
    /// external vocabulary's URI, then each non-empty table of the inline vocabulary.
    fn write_initial_vocabulary(&mut self) {
        let ext = self.opts.external_vocabulary.clone();
        let init = self.opts.initial_vocabulary.clone();
        let empty = Vocabulary::default();
        let r = init.as_deref().unwrap_or(&empty).resolved();
        let has = |v: &Vec<&str>| !v.is_empty();
        let mut b1 = 0u8;
        let mut b2 = 0u8;
        if ext.is_some() {
            b1 |= 0x10;
        }
        for (bit, on) in [
            (0x08, has(&r.alphabets)),
            (0x04, has(&r.algorithms)),
            (0x02, has(&r.prefixes)),
            (0x01, has(&r.namespaces)),
        ] {
            if on {
                b1 |= bit;
            }
        }
        for (bit, on) in [
            (0x80, has(&r.locals)),
            (0x40, has(&r.other_ncnames)),
            (0x20, has(&r.other_uris)),
            (0x10, has(&r.attr_values)),
            (0x08, has(&r.chunks)),
            (0x04, has(&r.other_strings)),
            (0x02, !r.elements.is_empty()),
            (0x01, !r.attributes.is_empty()),
        ] {
            if on {
                b2 |= bit;
            }
        }
        self.buf.extend_from_slice(&[b1, b2]);
        if let Some((uri, _)) = &ext {
            len_2nd(&mut self.buf, 0, uri.len());
            self.buf.extend_from_slice(uri.as_bytes());
        }
        for list in [
            &r.alphabets,
            &r.algorithms,
            &r.prefixes,
            &r.namespaces,
            &r.locals,
            &r.other_ncnames,
            &r.other_uris,
        ] {
            if !list.is_empty() {
                seq_len(&mut self.buf, list.len());
                for s in list.iter() {
                    len_2nd(&mut self.buf, 0, s.len());
                    self.buf.extend_from_slice(s.as_bytes());
                }
            }
        }
        for list in [&r.attr_values, &r.chunks, &r.other_strings] {
            if !list.is_empty() {
                seq_len(&mut self.buf, list.len());
                for s in list.iter() {
                    // EncodedCharacterString on the 3rd bit: padding '00', UTF-8, length
                    len_5th(&mut self.buf, 0, s.len());
                    self.buf.extend_from_slice(s.as_bytes());
                }
            }
        }
        for names in [&r.elements, &r.attributes] {
            if !names.is_empty() {
                seq_len(&mut self.buf, names.len());
                for &(p, n, l) in names.iter() {
                    self.buf
                        .push(((!p.is_empty()) as u8) << 1 | (!n.is_empty()) as u8);
                    if !p.is_empty() {
                        int_2nd(&mut self.buf, 0, self.t.prefixes.get(p).unwrap_or(1));
                    }
                    if !n.is_empty() {
                        int_2nd(&mut self.buf, 0, self.t.namespaces.get(n).unwrap_or(1));
                    }
                    int_2nd(&mut self.buf, 0, self.t.name(l).map_or(1, |e| e.local));
                }
            }
        }
    }

    // ---- strings ----

    /// Non-identifying string on the first bit (C.14): index, or literal with add-to-table bit.
    #[inline(always)]
    fn nistring_first(&mut self, s: &str, table: Table, max_chars: usize) {
        if s.is_empty() {
            self.buf.push(0xFF);
            return;
        }
        let tab = match table {
            Table::AttrValues => &mut self.t.attr_values,
            Table::OtherStrings => &mut self.t.other_strings,
        };
        let add = short_enough(s, max_chars) && !tab.full();
        if add && let Some(i) = tab.find_or_add(s) {
            int_2nd(&mut self.buf, 0x80, i);
            return;
        }
        let addbit = if add { 0x40 } else { 0 };
        if self.opts.utf16 {
            self.nistring_utf16(s, addbit);
        } else {
            len_5th(&mut self.buf, addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    #[inline(never)]
    fn nistring_utf16(&mut self, s: &str, addbit: u8) {
        self.scratch.clear();
        for u in s.encode_utf16() {
            self.scratch.extend_from_slice(&u.to_be_bytes());
        }
        len_5th(&mut self.buf, addbit | 0x10, self.scratch.len());
        self.buf.extend_from_slice(&self.scratch);
    }

    #[inline(always)]
    fn chunk(&mut self, s: &str) {
        let max = self.opts.max_indexed_chunk;
        let add = short_enough(s, max) && !self.t.chunks.full();
        if add && let Some(i) = self.t.chunks.find_or_add(s) {
            int_4th(&mut self.buf, 0xA0, i);
            return;
        }
        self.literal_chunks = self.literal_chunks.wrapping_add(1);
        let addbit = if add { 0x10 } else { 0 };
        if self.opts.utf16 || self.opts.numeric_alphabet || self.opts.date_time_alphabet {
            self.chunk_literal_other(s, addbit);
        } else {
            len_7th(&mut self.buf, 0x80 | addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    /// A literal chunk in a restricted alphabet or in UTF-16.
    #[inline(never)]
    fn chunk_literal_other(&mut self, s: &str, addbit: u8) {
        if (self.opts.numeric_alphabet || self.opts.date_time_alphabet) && s.len() > 2 {
            for (on, wire, alphabet) in [
                (self.opts.numeric_alphabet, 0u8, algo::NUMERIC),
                (self.opts.date_time_alphabet, 1u8, algo::DATE_TIME),
            ] {
                if !on {
                    continue;
                }
                let chars: Vec<char> = alphabet.chars().collect();
                self.scratch.clear();
                if algo::alphabet_encode(&chars, s, &mut self.scratch) {
                    self.buf.push(0x80 | addbit | 0x08 | (wire >> 6));
                    len_7th(&mut self.buf, (wire & 0x3F) << 2, self.scratch.len());
                    self.buf.extend_from_slice(&self.scratch);
                    return;
                }
            }
        }
        if self.opts.utf16 {
            self.scratch.clear();
            for u in s.encode_utf16() {
                self.scratch.extend_from_slice(&u.to_be_bytes());
            }
            len_7th(&mut self.buf, 0x80 | addbit | 0x04, self.scratch.len());
            self.buf.extend_from_slice(&self.scratch);
        } else {
            len_7th(&mut self.buf, 0x80 | addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    /// Multi-line content: chunks of two lines each (a line: its leading line breaks and the
    /// characters up to the next line break), where such a pair is short enough to be indexed;
    /// the runs of longer pairs between them stay one chunk.
    fn chunk_lines(&mut self, s: &str, max: usize) {
        let b = s.as_bytes();
        let nl = |c: u8| c == b'\n' || c == b'\r';
        let line_end = |mut i: usize| {
            while i < b.len() && nl(b[i]) {
                i += 1;
            }
            next_line_break(b, i)
        };
        let mut start = 0; // start of the pending (long) run
        let mut i = 0;
        while i < b.len() {
            let end = line_end(line_end(i));
            if short_enough(&s[i..end], max) {
                if start < i {
                    self.chunk(&s[start..i]);
                }
                self.chunk(&s[i..end]);
                start = end;
            }
            i = end;
        }
        if start < b.len() {
            self.chunk(&s[start..]);
        }
    }

    fn algorithm_chunk(&mut self, wire: u8, data_from_scratch: bool, data: &[u8]) {
        self.buf.push(0x80 | 0x0C | (wire >> 6));
        let d: &[u8] = if data_from_scratch {
            &self.scratch
        } else {
            data
        };
        len_7th(&mut self.buf, (wire & 0x3F) << 2, d.len());
        self.buf.extend_from_slice(d);
    }

    // ---- elements ----

    #[inline(always)]
    fn start_element(&mut self, q: &binxml_core::QName<'_>) -> Result<()> {
        if !q.prefix.is_empty() && q.namespace.is_empty() {
            return Err(Error::invalid_events(
                FORMAT,
                format!("element {q} has a prefix but no namespace name"),
            ));
        }
        self.flush_terms();
        self.in_start_tag = true;
        self.attrs_started = false;
        self.ns_buf.clear();
        self.name = PendingName::Literal;
        let prev = self.last_element;
        let pred = self.t.elements.next_of(prev);
        let found = self.t.elements.get_predicted(
            pred,
            &q.prefix,
            &q.namespace,
            &q.local,
            &mut self.seen_elements,
        );
        let e = found.map_or(0, |f| f.1);
        if e != pred {
            self.t.elements.learn(prev, e);
        }
        self.last_element = e;
        self.last_attribute = 0;
        match found {
            Ok((i, _)) => self.name = PendingName::Index(i),
            Err(h) => {
                self.lit_hash = h;
                self.lit_ns_at = (q.namespace.as_ptr() as usize, q.namespace.len());
                for (to, from) in [
                    (&mut self.lit_prefix, &q.prefix),
                    (&mut self.lit_ns, &q.namespace),
                    (&mut self.lit_local, &q.local),
                ] {
                    // SAFETY: the String is cleared and receives the octets of a `str`,
                    // which are UTF-8.
                    let v = unsafe { to.as_mut_vec() };
                    v.clear();
                    put(v, from.as_bytes());
                }
            }
        }
        Ok(())
    }

    /// Writes the element's identification octet, namespace attributes and name.
    #[inline(always)]
    fn element_head(&mut self, attrs: bool) {
        let a = if attrs { 0x40 } else { 0 };
        let first = if self.ns_buf.is_empty() {
            a
        } else {
            self.buf.push(0x38 | a);
            put(&mut self.buf, &self.ns_buf);
            self.buf.push(0xF0);
            0
        };
        match std::mem::replace(&mut self.name, PendingName::None) {
            PendingName::Index(i) => int_3rd(&mut self.buf, first, i),
            PendingName::Literal => self.literal_element_name(first),
            PendingName::None => {}
        }
    }

    #[inline(never)]
    fn literal_element_name(&mut self, first: u8) {
        let p = std::mem::take(&mut self.lit_prefix);
        let n = std::mem::take(&mut self.lit_ns);
        let l = std::mem::take(&mut self.lit_local);
        let pbit = if p.is_empty() { 0 } else { 2 };
        let nbit = if n.is_empty() { 0 } else { 1 };
        self.buf.push(first | 0x3C | pbit | nbit);
        let known = self.qname_parts(&p, &n, &l, self.lit_ns_at);
        self.t
            .add_qname_hashed(false, self.lit_hash, known, &p, &n, &l);
        self.lit_prefix = p;
        self.lit_ns = n;
        self.lit_local = l;
    }

    /// Prefix, namespace name and local name of a literal qualified name (C.18 / C.17);
    /// whether the local name is (now) in the local-name table.
    /// `n_at`: the address and length of the namespace name as the event gave it (see
    /// [`FiEncoder::ns_memo`]).
    fn qname_parts(&mut self, p: &str, n: &str, l: &str, n_at: (usize, usize)) -> bool {
        if !p.is_empty() {
            ident(&mut self.buf, &mut self.t.prefixes, p);
        }
        if !n.is_empty() {
            if self.in_scope && self.ns_memo.0 == n_at {
                int_2nd(&mut self.buf, 0x80, self.ns_memo.1);
            } else {
                match self.t.namespaces.find_or_add(n) {
                    Some(i) => {
                        int_2nd(&mut self.buf, 0x80, i);
                        if self.in_scope {
                            self.ns_memo = (n_at, i);
                        }
                    }
                    None => {
                        len_2nd(&mut self.buf, 0, n.len());
                        put(&mut self.buf, n.as_bytes());
                    }
                }
            }
        }
        match self.t.name(l) {
            Some(e) => {
                int_2nd(&mut self.buf, 0x80, e.local);
                true
            }
            None => {
                len_2nd(&mut self.buf, 0, l.len());
                put(&mut self.buf, l.as_bytes());
                self.t.add_local(l);
                self.t.name_keys.get(l).is_some()
            }
        }
    }

    #[inline(always)]
    fn close_start_tag(&mut self) {
        if self.in_start_tag {
            self.in_start_tag = false;
            if self.attrs_started {
                // end of the attributes
                self.terminate();
            } else {
                self.element_head(false);
            }
        }
    }

    #[inline(always)]
    fn attribute(&mut self, name: &binxml_core::QName<'_>, value: &str) -> Result<()> {
        if !self.attrs_started {
            self.attrs_started = true;
            self.element_head(true);
        }
        if !name.prefix.is_empty() && name.namespace.is_empty() {
            return Err(Error::invalid_events(
                FORMAT,
                format!("attribute {name} has a prefix but no namespace name"),
            ));
        }
        // the first attribute is predicted by the element's name (its `first_attribute`),
        // the others by the attribute before
        let prev = self.last_attribute;
        let pred = if prev != 0 {
            self.t.attributes.next_of(prev)
        } else if self.last_element != 0 {
            self.t.elements.entries[self.last_element as usize - 1].first_attribute
        } else {
            0
        };
        let found = self.t.attributes.get_predicted(
            pred,
            &name.prefix,
            &name.namespace,
            &name.local,
            &mut self.seen_attributes,
        );
        let e = found.map_or(0, |f| f.1);
        if e != pred {
            if prev != 0 {
                self.t.attributes.learn(prev, e);
            } else if self.last_element != 0 {
                self.t.elements.entries[self.last_element as usize - 1].first_attribute = e;
            }
        }
        self.last_attribute = e;
        match found {
            Ok((i, _)) => int_2nd(&mut self.buf, 0, i),
            Err(h) => {
                let pbit = if name.prefix.is_empty() { 0 } else { 2 };
                let nbit = if name.namespace.is_empty() { 0 } else { 1 };
                self.buf.push(0x78 | pbit | nbit);
                let n_at = (name.namespace.as_ptr() as usize, name.namespace.len());
                let known = self.qname_parts(&name.prefix, &name.namespace, &name.local, n_at);
                self.t
                    .add_qname_hashed(true, h, known, &name.prefix, &name.namespace, &name.local);
            }
        }
        self.nistring_first(
            value,
            Table::AttrValues,
            self.opts.max_indexed_attribute_value,
        );
        Ok(())
    }

    fn namespace(&mut self, prefix: &str, uri: &str) {
        let pbit = if prefix.is_empty() { 0 } else { 2 };
        let nbit = if uri.is_empty() { 0 } else { 1 };
        self.ns_buf.push(0xCC | pbit | nbit);
        if !prefix.is_empty() {
            ident(&mut self.ns_buf, &mut self.t.prefixes, prefix);
        }
        if !uri.is_empty() {
            ident(&mut self.ns_buf, &mut self.t.namespaces, uri);
        }
    }

    fn typed(&mut self, t: &Typed<'_>) {
        self.scratch.clear();
        if let Some(wire) = algo::encode_builtin(t, &mut self.scratch) {
            self.algorithm_chunk(wire, true, &[]);
            return;
        }
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        t.write_lexical(&mut text);
        if !text.is_empty() {
            let date_time = matches!(t, Typed::DateTime(_));
            let numeric = matches!(t, Typed::Number(_));
            let wire = if numeric {
                Some(0u8)
            } else if date_time {
                Some(1u8)
            } else {
                None
            };
            let mut done = false;
            if let Some(w) = wire {
                let alphabet: Vec<char> = algo::builtin_alphabet(w).unwrap().chars().collect();
                self.scratch.clear();
                if algo::alphabet_encode(&alphabet, &text, &mut self.scratch) {
                    self.buf.push(0x80 | 0x08 | (w >> 6));
                    len_7th(&mut self.buf, (w & 0x3F) << 2, self.scratch.len());
                    self.buf.extend_from_slice(&self.scratch);
                    done = true;
                }
            }
            if !done {
                self.chunk(&text);
            }
        }
        self.text = text;
    }

    /// Character data in an element (after the start tag is closed).
    #[inline(always)]
    fn characters(&mut self, text: &str, cdata: bool) {
        if text.is_empty() {
            return;
        }
        self.flush_terms();
        if cdata {
            self.algorithm_chunk(algo::CDATA, false, text.as_bytes());
            return;
        }
        let b = text.as_bytes();
        let d = self.depth as usize;
        let space = matches!(b[0], b' ' | b'\t' | b'\r' | b'\n');
        if space && let Some(pair) = self.memo.get(d) {
            for m in pair {
                if m.out_len != 0
                    && m.text.len() == b.len()
                    && bytes_eq(&m.text, b)
                    && !self.t.chunks.full()
                {
                    // white space written lately at this depth: the same indexes again
                    let out = m.out;
                    let n = m.out_len as usize;
                    put(&mut self.buf, &out[..n]);
                    return;
                }
            }
        }
        let pos = self.buf.len();
        let literals = self.literal_chunks;
        if self.opts.split_text {
            if is_short_indent(b, self.opts.max_indexed_chunk) {
                // what split_piece makes of it: one piece, the whole
                self.chunk(text);
            } else if has_split_octet(b) {
                self.split_chunks(text);
            } else {
                self.chunk(text);
            }
        } else {
            self.chunk(text);
        }
        if space && self.literal_chunks == literals && b.len() <= 64 && self.buf.len() - pos <= 16 {
            self.memo_text(d, b, pos);
        }
    }

    /// Remembers white space whose chunks were all written by index (the same text at this
    /// depth will be the same octets as long as the table is not full: entries never change).
    #[inline(never)]
    fn memo_text(&mut self, d: usize, b: &[u8], pos: usize) {
        if d >= MEMO_DEPTHS || !b.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')) {
            return;
        }
        if self.memo.len() <= d {
            self.memo.resize_with(d + 1, Default::default);
        }
        // two texts a depth (the white space after a start tag and after an end tag differ),
        // the older one replaced
        let pair = &mut self.memo[d];
        pair.swap(0, 1);
        let m = &mut pair[0];
        m.text.clear();
        m.text.extend_from_slice(b);
        let out = &self.buf[pos..];
        m.out[..out.len()].copy_from_slice(out);
        m.out_len = out.len() as u8;
    }

    /// Text split into pieces for indexing (`split_text`).
    #[inline(never)]
    fn split_chunks(&mut self, text: &str) {
        let mut rest: &str = text;
        let max = self.opts.max_indexed_chunk;
        while !rest.is_empty() {
            let (n, content) = split_piece(rest.as_bytes(), max);
            let (piece, tail) = rest.split_at(n);
            if content && piece.len() > 2 && has_line_break(piece.as_bytes()) {
                self.chunk_lines(piece, max);
            } else {
                self.chunk(piece);
            }
            rest = tail;
        }
    }

    // ---- the hot events of the body, with the stream grammar's checks ----

    #[inline(always)]
    fn ev_start_element(&mut self, q: &binxml_core::QName<'_>) -> Result<()> {
        if self.depth == 0 {
            return Err(bad_stream("a second root element"));
        }
        if q.local.is_empty() {
            return Err(empty_name("StartElement"));
        }
        self.depth += 1;
        self.seen_attr = false;
        self.close_start_tag();
        self.start_element(q)
    }

    #[inline(always)]
    fn ev_attribute(&mut self, name: &binxml_core::QName<'_>, value: &str) -> Result<()> {
        if !self.in_start_tag {
            return Err(bad_stream("Attribute outside a start tag"));
        }
        self.seen_attr = true;
        if name.local.is_empty() {
            return Err(empty_name("Attribute"));
        }
        if name.namespace.as_ref() != XMLNS_NS {
            self.attribute(name, value)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn ev_end_element(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(bad_stream("EndElement without StartElement"));
        }
        self.depth -= 1;
        self.close_start_tag();
        self.terminate();
        Ok(())
    }

    #[inline(always)]
    fn ev_characters(&mut self, text: &str, cdata: bool) -> Result<()> {
        if self.depth == 0 {
            // white space between top-level items has no place in the infoset
            if !is_xml_space(text) {
                return Err(bad_stream("character data outside the root element"));
            }
            return Ok(());
        }
        self.close_start_tag();
        self.characters(text, cdata);
        Ok(())
    }

    #[inline(always)]
    fn ev_namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        if !self.in_start_tag || self.seen_attr {
            return Err(bad_stream(
                "Namespace must follow StartElement, before its attributes",
            ));
        }
        // the xml prefix is always bound: its declaration says nothing (SAX parsers do not
        // report it either)
        if !(prefix == "xml" && uri == XML_NS) {
            self.namespace(prefix, uri)
        }
        Ok(())
    }

    /// Every other event of the body (the root element seen, `EndDocument` not yet).
    #[inline(never)]
    fn ev_other(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::StartDocument { .. } => return Err(bad_stream("StartDocument twice")),
            Event::EndDocument => {
                if self.depth != 0 {
                    return Err(bad_stream("EndDocument inside an element"));
                }
                self.body_event(ev)?;
                self.phase = Phase::Done;
                return Ok(());
            }
            Event::Typed(_) | Event::EntityReference { .. } if self.depth == 0 => {
                return Err(bad_stream("character data outside the root element"));
            }
            Event::DocType(_) | Event::Notation { .. } | Event::UnparsedEntity { .. } => {
                return Err(bad_stream(
                    "document type declaration after the root element started",
                ));
            }
            _ => {}
        }
        required_names(ev)?;
        self.body_event(ev)
    }

    /// Events before the root element and after the end: the checks of the stream grammar
    /// (no element seen yet, depth 0), the prolog kept until the header is written.
    #[inline(never)]
    fn write_event_slow(&mut self, ev: &Event<'_>) -> Result<()> {
        match self.phase {
            Phase::Done => return Err(bad_stream("event after EndDocument")),
            Phase::Start => {
                if !matches!(ev, Event::StartDocument { .. }) {
                    return Err(bad_stream("the first event must be StartDocument"));
                }
                self.start_doc = Some(ev.clone().into_owned());
                self.phase = Phase::Prolog;
                return Ok(());
            }
            Phase::Prolog | Phase::Body => {}
        }
        match ev {
            Event::StartDocument { .. } => return Err(bad_stream("StartDocument twice")),
            Event::EndElement => return Err(bad_stream("EndElement without StartElement")),
            Event::Namespace { .. } => {
                return Err(bad_stream(
                    "Namespace must follow StartElement, before its attributes",
                ));
            }
            Event::Attribute { .. } => return Err(bad_stream("Attribute outside a start tag")),
            Event::Characters { text, .. } if !is_xml_space(text) => {
                return Err(bad_stream("character data outside the root element"));
            }
            Event::Typed(_) | Event::EntityReference { .. } => {
                return Err(bad_stream("character data outside the root element"));
            }
            _ => {}
        }
        required_names(ev)?;
        match ev {
            Event::Comment(_)
            | Event::ProcessingInstruction { .. }
            | Event::DocType(_)
            | Event::Notation { .. }
            | Event::UnparsedEntity { .. } => {
                self.prolog.push(ev.clone().into_owned());
                return Ok(());
            }
            Event::Characters { .. } => return Ok(()),
            _ => {}
        }
        // the root element or the end of a document without one
        self.phase = Phase::Body;
        self.write_header()?;
        if let Event::StartElement(q) = ev {
            self.depth = 1;
            self.seen_attr = false;
            self.close_start_tag();
            self.start_element(q)?;
        } else {
            self.body_event(ev)?;
            self.phase = Phase::Done;
        }
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// One event of the body (after the header), without the stream grammar's checks.
    fn body_event(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::StartElement(q) => {
                self.close_start_tag();
                self.start_element(q)?;
            }
            Event::Namespace { prefix, uri } => {
                // the xml prefix is always bound: its declaration says nothing (SAX parsers do
                // not report it either)
                if !(prefix == "xml" && uri == XML_NS) {
                    self.namespace(prefix, uri)
                }
            }
            Event::Attribute { name, value } => {
                if name.namespace.as_ref() != XMLNS_NS {
                    self.attribute(name, value)?;
                }
            }
            Event::EndElement => {
                self.close_start_tag();
                self.terminate();
            }
            Event::Characters { text, cdata } => {
                self.close_start_tag();
                self.characters(text, *cdata);
            }
            Event::Typed(t) => {
                self.close_start_tag();
                self.flush_terms();
                self.typed(t);
            }
            Event::Comment(c) => {
                self.close_start_tag();
                self.flush_terms();
                self.buf.push(0xE2);
                self.nistring_first(c, Table::OtherStrings, self.opts.max_indexed_chunk);
            }
            Event::ProcessingInstruction { target, data } => {
                if target.is_empty() {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "processing instruction without a target",
                    ));
                }
                self.close_start_tag();
                self.flush_terms();
                self.buf.push(0xE1);
                ident(&mut self.buf, &mut self.t.other_ncnames, target);
                self.nistring_first(data, Table::OtherStrings, self.opts.max_indexed_chunk);
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => {
                self.close_start_tag();
                self.flush_terms();
                let sys = system_id.as_deref().filter(|s| !s.is_empty());
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC8 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
            }
            Event::DocType(d) => {
                self.flush_terms();
                let sys = d.system_id.as_deref().filter(|s| !s.is_empty());
                let publ = d.public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC4 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
                // The item's children are the internal subset's processing instructions; its
                // comments (which XML processors report in document order) follow the item as
                // comments of the document. Declarations have no place in the item.
                let mut comments = Vec::new();
                if let Some(subset) = d.internal_subset.as_deref() {
                    for item in subset_items(subset) {
                        match item {
                            SubsetItem::Pi(target, data) => {
                                self.buf.push(0xE1);
                                ident(&mut self.buf, &mut self.t.other_ncnames, target);
                                self.nistring_first(
                                    data,
                                    Table::OtherStrings,
                                    self.opts.max_indexed_chunk,
                                );
                            }
                            SubsetItem::Comment(c) => comments.push(c),
                        }
                    }
                }
                self.terminate();
                for c in comments {
                    self.flush_terms();
                    self.buf.push(0xE2);
                    self.nistring_first(c, Table::OtherStrings, self.opts.max_indexed_chunk);
                }
            }
            Event::Notation { .. } | Event::UnparsedEntity { .. } => {}
            Event::EndDocument => {
                self.close_start_tag();
                self.terminate();
                self.flush_terms();
            }
            Event::StartDocument { .. } => {}
            _ => {
                return Err(Error::unsupported(
                    FORMAT,
                    "an event this encoder does not know",
                ));
            }
        }
        Ok(())
    }
}

/// Names that Fast Infoset writes as non-empty strings must not be empty.
#[inline]
fn required_names(ev: &Event<'_>) -> Result<()> {
    let missing = match ev {
        Event::StartElement(q) => q.local.is_empty(),
        Event::Attribute { name, .. } => name.local.is_empty(),
        Event::EntityReference { name, .. } | Event::Notation { name, .. } => name.is_empty(),
        Event::UnparsedEntity {
            name,
            system_id,
            notation,
            ..
        } => name.is_empty() || system_id.is_empty() || notation.is_empty(),
        Event::ProcessingInstruction { target, .. } => target.is_empty(),
        _ => false,
    };
    if missing {
        return Err(empty_name(ev.kind()));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn empty_name(kind: &str) -> Error {
    Error::invalid_events(FORMAT, format!("{kind} with an empty name"))
}

#[cold]
#[inline(never)]
fn bad_stream(m: &'static str) -> Error {
    Error::invalid_events(FORMAT, m)
}

/// True when character data is only XML white space (allowed between top-level items).
#[inline]
fn is_xml_space(s: &str) -> bool {
    s.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

enum SubsetItem<'s> {
    Pi(&'s str, &'s str),
    Comment(&'s str),
}

/// The comments and processing instructions of a DTD internal subset, in order (declarations,
/// with their quoted literals, and parameter-entity references are skipped).
fn subset_items(s: &str) -> Vec<SubsetItem<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            let Some(end) = s[i + 4..].find("-->") else {
                break;
            };
            out.push(SubsetItem::Comment(&s[i + 4..i + 4 + end]));
            i += 4 + end + 3;
        } else if b[i..].starts_with(b"<?") {
            let Some(end) = s[i + 2..].find("?>") else {
                break;
            };
            let body = &s[i + 2..i + 2 + end];
            let t_end = body.find([' ', '\t', '\r', '\n']).unwrap_or(body.len());
            let (target, data) = body.split_at(t_end);
            if !target.is_empty() {
                out.push(SubsetItem::Pi(
                    target,
                    data.trim_start_matches([' ', '\t', '\r', '\n']),
                ));
            }
            i += 2 + end + 2;
        } else if b[i..].starts_with(b"<!") {
            // a markup declaration: up to its '>' outside quoted literals
            i += 2;
            let mut quote = 0u8;
            while i < b.len() {
                let c = b[i];
                i += 1;
                if quote != 0 {
                    if c == quote {
                        quote = 0;
                    }
                } else if c == b'"' || c == b'\'' {
                    quote = c;
                } else if c == b'>' {
                    break;
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Table {
    AttrValues,
    OtherStrings,
}

/// Octets of `w` equal to `t`: their high bits set (SWAR).
#[inline(always)]
fn octets_eq(w: u64, t: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (ONES * t as u64);
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The octets of 16 at `b[i..]` that are a line break, `<`, `&` or `>` (with `marks`: all
/// five) or a line break (without), as a bit mask (bit k: octet i + k). SSE2, which every
/// x86_64 processor has: a handful of instructions for 16 octets.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mask16(b: &[u8], i: usize, marks: bool) -> u32 {
    use core::arch::x86_64::*;
    let block = &b[i..i + 16];
    // SAFETY: `block` holds 16 octets (the slice above is bounds-checked); SSE2 is part of
    // the x86_64 baseline.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr() as *const __m128i);
        let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let mut m = _mm_or_si128(eq(b'\n'), eq(b'\r'));
        if marks {
            // `<` and `>` differ in one bit only: one comparison finds both
            let lt_gt =
                _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(2)), _mm_set1_epi8(b'>' as i8));
            m = _mm_or_si128(m, _mm_or_si128(lt_gt, eq(b'&')));
        }
        _mm_movemask_epi8(m) as u32
    }
}

/// The SWAR mask of a word: octets that are a line break (and with `marks` `<`, `&`, `>`)
/// have their high bit set; octets above a flagged one may be flagged too (borrows), the
/// lowest flagged octet is always a true match.
#[inline(always)]
fn mask8(w: u64, marks: bool) -> u64 {
    let m = octets_eq(w, b'\n') | octets_eq(w, b'\r');
    if marks {
        m | octets_eq(w, b'<') | octets_eq(w, b'&') | octets_eq(w, b'>')
    } else {
        m
    }
}

/// True when `b` holds a line break (and with `marks` `<`, `&` or `>`): 16 octets at a time,
/// the last block overlapping the one before; shorter strings as one or two words, never an
/// octet loop.
#[inline(always)]
fn has_octet(b: &[u8], marks: bool) -> bool {
    let n = b.len();
    #[cfg(target_arch = "x86_64")]
    if n >= 16 {
        let mut i = 0;
        while i + 16 <= n {
            if mask16(b, i, marks) != 0 {
                return true;
            }
            i += 16;
        }
        return i < n && mask16(b, n - 16, marks) != 0;
    }
    let w = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if mask8(w(i), marks) != 0 {
                return true;
            }
            i += 8;
        }
        return i < n && mask8(w(n - 8), marks) != 0;
    }
    let x = if n >= 4 {
        let lo = u32::from_le_bytes(b[..4].try_into().unwrap()) as u64;
        let hi = u32::from_le_bytes(b[n - 4..].try_into().unwrap()) as u64;
        lo | hi << 32
    } else if n > 0 {
        // the other octets are zero, which is none of the five
        b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16
    } else {
        0
    };
    mask8(x, marks) != 0
}

/// True when text may split into several chunks: it holds a line break, `<`, `&` or `>`
/// (without them it is one chunk).
#[inline(always)]
fn has_split_octet(b: &[u8]) -> bool {
    has_octet(b, true)
}

/// Position of the first octet at or after `i` that is a line break (with `marks`: or `<`,
/// `&`, `>`), `b.len()` if none. 16 octets at a time, then 8, then single octets.
#[inline(always)]
fn next_octet(b: &[u8], mut i: usize, marks: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= b.len() {
        let m = mask16(b, i, marks);
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
        i += 16;
    }
    while i + 8 <= b.len() {
        let m = mask8(u64::from_le_bytes(b[i..i + 8].try_into().unwrap()), marks);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len()
        && !(b[i] == b'\n' || b[i] == b'\r' || marks && matches!(b[i], b'<' | b'&' | b'>'))
    {
        i += 1;
    }
    i
}

/// Position of the first line break, `<`, `&` or `>` at or after `i` (`b.len()` if none).
#[inline]
fn next_split_octet(b: &[u8], i: usize) -> usize {
    next_octet(b, i, true)
}

/// Position of the first line break at or after `i` (`b.len()` if none).
#[inline]
fn next_line_break(b: &[u8], i: usize) -> usize {
    next_octet(b, i, false)
}

/// True when `b` holds a line break.
#[inline]
fn has_line_break(b: &[u8]) -> bool {
    has_octet(b, false)
}

/// Length of the first chunk of `b` when text is split for indexing: `<`, `&` and `>` (which in
/// text mostly come from references) alone; a run of white space holding a line break and at
/// least 3 characters long (indentation; inside text it starts at the line break) alone; other
/// content up to the next of these.
#[inline]
/// The second value is false for the markup and indentation pieces, true for content.
fn split_piece(b: &[u8], max: usize) -> (usize, bool) {
    /// length of the white-space run at `i`, if it holds a line break and is long enough
    /// (and short enough to be indexed)
    #[inline]
    fn indent_at(b: &[u8], i: usize, max: usize) -> usize {
        let mut j = i;
        let mut nl = false;
        while j < b.len() {
            let c = b[j];
            if c == b' ' || c == b'\t' {
                j += 1;
            } else if c == b'\n' || c == b'\r' {
                // a second line break after indentation starts the next piece
                if nl && j - i >= 3 && !(b[j - 1] == b'\n' || b[j - 1] == b'\r') {
                    break;
                }
                nl = true;
                j += 1;
            } else {
                break;
            }
            if j - i >= max {
                // too long to be indexed: not indentation
                return 0;
            }
        }
        if nl && j - i >= 3 && j - i < max {
            j - i
        } else {
            0
        }
    }
    if matches!(b[0], b'<' | b'&' | b'>') {
        return (1, false);
    }
    let n = indent_at(b, 0, max);
    if n > 0 {
        return (n, false);
    }
    let mut i = 0;
    while i < b.len() {
        i = next_split_octet(b, i);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        if matches!(c, b'<' | b'&' | b'>') {
            break;
        }
        // indentation starts at a line break (white space before it ends the line)
        if (c == b'\n' || c == b'\r')
            && i > 0
            && !(b[i - 1] == b'\n' || b[i - 1] == b'\r')
            && indent_at(b, i, max) > 0
        {
            break;
        }
        i += 1;
    }
    (i.max(1), true)
}

/// True for the commonest text of all, the white space between elements: line breaks then
/// spaces and tabs (`[\r\n]+[ \t]*`), shorter than `max` (or than 3). [`split_piece`] keeps
/// such text whole (indentation when 3 to `max - 1` long, content too short to split when
/// shorter), so the encoder writes it as one chunk without splitting it.
#[inline(always)]
fn is_short_indent(b: &[u8], max: usize) -> bool {
    let n = b.len();
    if n == 0 || n >= max.max(3) || !(b[0] == b'\n' || b[0] == b'\r') {
        return false;
    }
    let mut i = 1;
    while i < n && (b[i] == b'\n' || b[i] == b'\r') {
        i += 1;
    }
    while i + 8 <= n && u64::from_ne_bytes(b[i..i + 8].try_into().unwrap()) == SPACES {
        i += 8;
    }
    while i < n && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i == n
}

const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);

/// True when `s` has fewer than `max` UTF-16 code units. The common answers (fewer octets
/// than `max`: yes) inline, the counting out of line.
#[inline(always)]
fn short_enough(s: &str, max: usize) -> bool {
    s.len() < max || short_enough_counted(s, max)
}

#[inline(never)]
fn short_enough_counted(s: &str, max: usize) -> bool {
    if s.len() >= max.saturating_mul(3) {
        return false;
    }
    if s.is_ascii() {
        // one UTF-16 code unit an octet
        return false;
    }
    s.encode_utf16().count() < max
}

// ---- primitive encodings (Annex C) ----

/// Appends `s` to `buf`. Strings of up to 64 octets (most names, values and chunks) are
/// copied by overlapping loads and stores, not by a call to `memcpy`, whose fixed cost per
/// call dominates for strings this short (and `extend_from_slice` is itself a call).
#[inline(always)]
fn put(buf: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    let len = buf.len();
    if n <= 64 && buf.capacity() - len >= 64 {
        // SAFETY: the 64 octets after `len` are allocated (capacity checked), the stores
        // write within `len..len + n` (n <= 64), the loads read within `s`; the first `n` of
        // those octets are initialized before `set_len`.
        unsafe {
            let d = buf.as_mut_ptr().add(len);
            let p = s.as_ptr();
            if n >= 16 {
                let mut i = 0;
                while i + 16 < n {
                    (d.add(i) as *mut u128)
                        .write_unaligned((p.add(i) as *const u128).read_unaligned());
                    i += 16;
                }
                // the last 16 octets, overlapping the block before
                (d.add(n - 16) as *mut u128)
                    .write_unaligned((p.add(n - 16) as *const u128).read_unaligned());
            } else if n >= 8 {
                let a = (p as *const u64).read_unaligned();
                let b = (p.add(n - 8) as *const u64).read_unaligned();
                (d as *mut u64).write_unaligned(a);
                (d.add(n - 8) as *mut u64).write_unaligned(b);
            } else if n >= 4 {
                let a = (p as *const u32).read_unaligned();
                let b = (p.add(n - 4) as *const u32).read_unaligned();
                (d as *mut u32).write_unaligned(a);
                (d.add(n - 4) as *mut u32).write_unaligned(b);
            } else if n > 0 {
                *d = *p;
                *d.add(n / 2) = *p.add(n / 2);
                *d.add(n - 1) = *p.add(n - 1);
            }
            buf.set_len(len + n);
        }
    } else {
        put_long(buf, s);
    }
}

#[inline(never)]
fn put_long(buf: &mut Vec<u8>, s: &[u8]) {
    buf.extend_from_slice(s);
}

/// Appends a few octets (an integer's or a length's encoding) with one store where the
/// buffer has room, not `extend_from_slice` (which the compiler left as a call).
#[inline(always)]
fn put_arr<const N: usize>(buf: &mut Vec<u8>, a: [u8; N]) {
    let len = buf.len();
    if buf.capacity() - len >= N {
        // SAFETY: N octets after `len` are allocated (capacity checked) and written before
        // `set_len`.
        unsafe {
            (buf.as_mut_ptr().add(len) as *mut [u8; N]).write_unaligned(a);
            buf.set_len(len + N);
        }
    } else {
        buf.extend_from_slice(&a);
    }
}

/// Identifying string or index on the first bit (C.13).
#[inline(always)]
fn ident(buf: &mut Vec<u8>, t: &mut StrTable, s: &str) {
    match t.find_or_add(s) {
        Some(i) => int_2nd(buf, 0x80, i),
        None => {
            len_2nd(buf, 0, s.len());
            put(buf, s.as_bytes());
        }
    }
}

/// Number of items of a sequence (C.21), 1..2^20.
fn seq_len(buf: &mut Vec<u8>, n: usize) {
    if n <= 128 {
        buf.push((n - 1) as u8);
    } else {
        let m = n - 129;
        put_arr(
            buf,
            [0x80 | (m >> 16) as u8 & 0x0F, (m >> 8) as u8, m as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 2nd bit (C.25 / C.26); `first` holds the first bit.
#[inline(always)]
pub(crate) fn int_2nd(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 64 {
        buf.push(first | i as u8);
    } else if i < 8256 {
        let j = i - 64;
        put_arr(buf, [first | 0x40 | (j >> 8) as u8, j as u8]);
    } else {
        let j = i - 8256;
        put_arr(
            buf,
            [first | 0x60 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 3rd bit (C.27).
#[inline(always)]
pub(crate) fn int_3rd(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 32 {
        buf.push(first | i as u8);
    } else if i < 2080 {
        let j = i - 32;
        put_arr(buf, [first | 0x20 | (j >> 8) as u8, j as u8]);
    } else if i < 526_368 {
        let j = i - 2080;
        put_arr(
            buf,
            [first | 0x28 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    } else {
        let j = i - 526_368;
        put_arr(
            buf,
            [first | 0x30, (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Integer 1..2^20 starting on the 4th bit (C.28).
#[inline(always)]
pub(crate) fn int_4th(buf: &mut Vec<u8>, first: u8, v: u32) {
    let i = v - 1;
    if i < 16 {
        buf.push(first | i as u8);
    } else if i < 1040 {
        let j = i - 16;
        put_arr(buf, [first | 0x10 | (j >> 8) as u8, j as u8]);
    } else if i < 263_184 {
        let j = i - 1040;
        put_arr(
            buf,
            [first | 0x14 | (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    } else {
        let j = i - 263_184;
        put_arr(
            buf,
            [first | 0x18, (j >> 16) as u8, (j >> 8) as u8, j as u8],
        );
    }
}

/// Length of a non-empty octet string starting on the 2nd bit (C.22).
#[inline(always)]
pub(crate) fn len_2nd(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 64 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 320 {
        put_arr(buf, [first | 0x40, (len - 65) as u8]);
    } else {
        buf.push(first | 0x60);
        put_arr(buf, ((len - 321) as u32).to_be_bytes());
    }
}

/// Length of a non-empty octet string starting on the 5th bit (C.23).
#[inline(always)]
pub(crate) fn len_5th(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 8 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 264 {
        put_arr(buf, [first | 0x08, (len - 9) as u8]);
    } else {
        buf.push(first | 0x0C);
        put_arr(buf, ((len - 265) as u32).to_be_bytes());
    }
}

/// Length of a non-empty octet string starting on the 7th bit (C.24).
#[inline(always)]
pub(crate) fn len_7th(buf: &mut Vec<u8>, first: u8, len: usize) {
    if len <= 2 {
        buf.push(first | (len - 1) as u8);
    } else if len <= 258 {
        put_arr(buf, [first | 0x02, (len - 3) as u8]);
    } else {
        buf.push(first | 0x03);
        put_arr(buf, ((len - 259) as u32).to_be_bytes());
    }
}

/// Asks the processor to load the event at `p` (two cache lines: an event spans two) while
/// another is encoded. [`Encoder::write_events`] calls it for the event [`PREFETCH_EVENTS`]
/// places ahead in its slice, which hides the cache misses of reading `Event`s (104 octets
/// each, more octets than the XML on event-dense documents). A prefetch is a hint: it never
/// faults and reads nothing into the program, whatever the address (past the slice's end it
/// is wasted).
#[inline(always)]
fn prefetch(p: *const Event<'_>) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = p as *const i8;
        // SAFETY: `_mm_prefetch` only needs SSE (always there on x86_64) and does not
        // dereference its address (no fault, no read visible to the program).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(std::mem::size_of::<Event<'_>>() - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// How many events ahead [`Encoder::write_events`] prefetches (about 2 KB).
const PREFETCH_EVENTS: usize = 20;

impl<W: Write> Encoder for FiEncoder<W> {
    /// The stream grammar of `binxml_core::StreamChecker` (and non-empty names) is checked here,
    /// folded into the encoder's own state: in the body (after the header, the root element
    /// seen) the hot events cost a test or two each, everything else goes the out-of-line way.
    #[inline]
    fn write_event(&mut self, ev: &Event<'_>) -> Result<()> {
        self.event_inline(ev)
    }

    /// [`Encoder::write_event`] on each event, with the event `PREFETCH_EVENTS` places
    /// ahead prefetched. The event's code is inlined into the loop: a call per event (its
    /// register saves and restores) is a noticeable share of an event's cost.
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        self.scoped(|e| {
            for (i, ev) in events.iter().enumerate() {
                prefetch(events.as_ptr().wrapping_add(i + PREFETCH_EVENTS));
                e.event_inline(ev)?;
            }
            Ok(())
        })
    }

    /// The tape replayed into the encoder's push interface (its [`EventSink`] methods).
    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        self.scoped(|e| tape.replay(e))
    }

    fn finish(&mut self) -> Result<()> {
        if self.phase != Phase::Done {
            return Err(Error::invalid_events(FORMAT, "finish before EndDocument"));
        }
        self.flush_buf()?;
        self.out.flush().map_err(|e| Error::io(FORMAT, e))
    }
}

impl<W: Write> FiEncoder<W> {
    /// [`Encoder::write_event`]'s body: in the body (after the header, the root element seen)
    /// the hot events cost a test or two each, everything else goes the out-of-line way.
    #[inline(always)]
    fn event_inline(&mut self, ev: &Event<'_>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(ev);
        }
        match ev {
            Event::StartElement(q) => self.ev_start_element(q)?,
            Event::Attribute { name, value } => self.ev_attribute(name, value)?,
            Event::EndElement => self.ev_end_element()?,
            Event::Characters { text, cdata } => self.ev_characters(text, *cdata)?,
            Event::Namespace { prefix, uri } => self.ev_namespace(prefix, uri)?,
            _ => self.ev_other(ev)?,
        }
        self.flush_full()
    }
}

/// Push encoding: a push decoder ([`binxml_core::Decoder::read_into`]) hands the hot items to
/// the encoder as their parts, without an [`Event`] per item. The same checks and the same
/// bytes as [`Encoder::write_event`] with the events the parts make up; call
/// [`Encoder::finish`] after the decoder returns.
impl<'a, W: Write> EventSink<'a> for FiEncoder<W> {
    #[inline(always)]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.write_event(&event)
    }

    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::StartElement(name));
        }
        self.ev_start_element(&name)?;
        self.flush_full()
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Namespace { prefix, uri });
        }
        self.ev_namespace(&prefix, &uri)?;
        self.flush_full()
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Attribute { name, value });
        }
        self.ev_attribute(&name, &value)?;
        self.flush_full()
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::EndElement);
        }
        self.ev_end_element()?;
        self.flush_full()
    }

    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Characters { text, cdata: false });
        }
        self.ev_characters(&text, false)?;
        self.flush_full()
    }
}

#[cfg(test)]
pub(crate) fn split_piece_for_tests(b: &[u8]) -> usize {
    split_piece(b, 32).0
}

#[cfg(test)]
mod split_tests {
    use super::*;

    /// Every string of up to 9 octets over line breaks, spaces, tabs and one letter, and every
    /// indexing limit up to 12: where `is_short_indent` says yes, `split_piece` takes the
    /// whole string as its first piece.
    #[test]
    fn short_indent_is_one_piece() {
        let alphabet = [b'\n', b'\r', b' ', b'\t', b'a'];
        let mut yes = 0;
        for len in 1..=9u32 {
            for code in 0..5usize.pow(len) {
                let mut c = code;
                let b: Vec<u8> = (0..len)
                    .map(|_| {
                        let x = alphabet[c % 5];
                        c /= 5;
                        x
                    })
                    .collect();
                for max in 0..=12 {
                    if is_short_indent(&b, max) {
                        yes += 1;
                        assert_eq!(split_piece(&b, max).0, b.len(), "{b:?} max {max}");
                    }
                }
            }
        }
        assert!(yes > 1000);
    }

    /// The block scans (16 octets with SSE2, words, single octets) against a plain octet loop,
    /// on pseudo-random strings of every length up to 70 over an alphabet rich in the octets
    /// they look for (and octets 0x3E | 2 confusable ones), from every start position.
    #[test]
    fn scans_match_octet_loops() {
        let alphabet = b"ab \t\n\r<>&=?:<>\xff";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for len in 0..=70usize {
            for _ in 0..60 {
                // every position is a plain letter except a few picked ones, so that the
                // first match is anywhere (or nowhere)
                let mut b = vec![b'x'; len];
                let specials = (seed >> 60) as usize % 4;
                for _ in 0..specials {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if len > 0 {
                        b[(seed >> 33) as usize % len] =
                            alphabet[(seed >> 20) as usize % alphabet.len()];
                    }
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let split = |c: u8| matches!(c, b'\n' | b'\r' | b'<' | b'&' | b'>');
                let nl = |c: u8| c == b'\n' || c == b'\r';
                assert_eq!(has_split_octet(&b), b.iter().any(|&c| split(c)), "{b:?}");
                assert_eq!(has_line_break(&b), b.iter().any(|&c| nl(c)), "{b:?}");
                for i in 0..=len {
                    let want = (i..len).find(|&k| split(b[k])).unwrap_or(len);
                    assert_eq!(next_split_octet(&b, i), want, "{b:?} from {i}");
                    let want = (i..len).find(|&k| nl(b[k])).unwrap_or(len);
                    assert_eq!(next_line_break(&b, i), want, "{b:?} from {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000);
    }
}
