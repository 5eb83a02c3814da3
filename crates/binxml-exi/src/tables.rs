//! The EXI string table (EXI 1.0, section 7.3): URIs, prefixes and local names partitioned by
//! URI, and the value partitions (one global, one local per qualified name), with the
//! `valueMaxLength` and `valuePartitionCapacity` bounds.
//!
//! Qualified names are numbered in the order they enter the table ([`NameId`]); a name's local
//! value partition and its built-in element grammar hang off that number.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, OnceLock};

use binxml_core::hash::{FastState, bytes_eq};
use binxml_core::json_mapping::is_ncname;

use crate::bits::{BitReader, BitWriter, Mark, char_len, width};
use crate::index::Index;
use binxml_core::{Error, Result};

/// The XML namespace (URI 1 of every table).
pub(crate) const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
/// The XML Schema instance namespace (URI 2 of every table).
pub(crate) const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// ASCII octets by what they may be in an NCName: 1 a name start character, 2 a name
/// character (a start character is both).
const NAME_ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() || b == b'_' {
            3
        } else if b.is_ascii_digit() || b == b'-' || b == b'.' {
            2
        } else {
            0
        };
        c += 1;
    }
    t
};

/// Whether `s` is an NCName ([`is_ncname`]): ASCII names, most of them, by a table look-up an
/// octet rather than a range test a character.
#[inline]
fn ncname(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.is_ascii() {
        return is_ncname(s);
    }
    match b.split_first() {
        Some((&first, rest)) => {
            NAME_ASCII[first as usize] & 1 != 0
                && rest.iter().all(|&c| NAME_ASCII[c as usize] & 2 != 0)
        }
        None => false,
    }
}

/// Names whose memory a table keeps for the next stream at most ([`Tables::reset`]), and the
/// longest local name whose string is kept.
const KEEP_NAMES: usize = 1 << 12;
const KEEP_NAME_LEN: usize = 64;

/// The number of a qualified name in the table (its "QName context").
pub(crate) type NameId = u32;

/// `xml:space` (its number in a fresh table).
pub(crate) const XML_SPACE: NameId = 3;
/// `xsi:nil`.
pub(crate) const XSI_NIL: NameId = 4;
/// `xsi:type`.
pub(crate) const XSI_TYPE: NameId = 5;

/// No entry (an evicted local value, a name without grammar yet).
pub(crate) const NONE: u32 = u32::MAX;

/// The entries a string table starts with, shared by every stream that starts from them:
/// appendix D's fixed entries, and for a schema its pre-population (section 7.3.1). Built
/// once; a stream's own entries go after them, so that a fresh table costs no copy of a
/// schema's thousands of names.
#[derive(Debug)]
pub(crate) struct Base {
    uris: Vec<BaseUri>,
    by_uri: HashMap<String, u32, FastState>,
    names: Vec<BaseName>,
    /// The names by their hash ([`Base::name_hash`]).
    by_name: Index,
    /// The seed of every name hash of the tables that start from this base.
    seed: FastState,
}

#[derive(Debug)]
struct BaseUri {
    uri: String,
    prefixes: Vec<String>,
    /// Local-name id -> name number.
    locals: Vec<NameId>,
}

#[derive(Debug)]
struct BaseName {
    uri: u32,
    local_id: u32,
    local: String,
}

impl Base {
    /// Appendix D's entries, then `extra`: URIs in order, each with local names (a URI or
    /// name already present is not added twice).
    pub(crate) fn new(extra: &[(String, Vec<String>)]) -> Base {
        let mut b = Base {
            uris: Vec::new(),
            by_uri: HashMap::default(),
            names: Vec::new(),
            by_name: Index::default(),
            seed: FastState::default(),
        };
        let fixed: [(&str, &str, &[&str]); 3] = [
            ("", "", &[]),
            (XML_NS, "xml", &["base", "id", "lang", "space"]),
            (XSI_NS, "xsi", &["nil", "type"]),
        ];
        for (uri, prefix, locals) in fixed {
            let u = b.add_uri(uri);
            b.uris[u as usize].prefixes.push(prefix.to_string());
            for l in locals {
                b.add_local(u, l);
            }
        }
        for (uri, locals) in extra {
            let u = match b.by_uri.get(uri.as_str()) {
                Some(&u) => u,
                None => b.add_uri(uri),
            };
            for l in locals {
                if b.find_name(u, l, b.name_hash(u, l)).is_none() {
                    b.add_local(u, l);
                }
            }
        }
        debug_assert_eq!(b.names[XML_SPACE as usize].local, "space");
        debug_assert_eq!(b.names[XSI_TYPE as usize].local, "type");
        debug_assert_eq!(b.names[XSI_NIL as usize].local, "nil");
        b
    }

    fn add_uri(&mut self, uri: &str) -> u32 {
        let id = self.uris.len() as u32;
        self.by_uri.insert(uri.to_string(), id);
        self.uris.push(BaseUri {
            uri: uri.to_string(),
            prefixes: Vec::new(),
            locals: Vec::new(),
        });
        id
    }

    fn add_local(&mut self, uri: u32, local: &str) {
        let id = self.names.len() as NameId;
        let h = self.name_hash(uri, local);
        self.by_name.insert(h, id);
        let u = &mut self.uris[uri as usize];
        let local_id = u.locals.len() as u32;
        u.locals.push(id);
        self.names.push(BaseName {
            uri,
            local_id,
            local: local.to_string(),
        });
    }

    /// The hash of name `local` in URI `uri`, for [`Base::by_name`] and [`Tables::by_name`].
    #[inline(always)]
    fn name_hash(&self, uri: u32, local: &str) -> u64 {
        let mut h = self.seed.build_hasher();
        h.write(local.as_bytes());
        h.finish() ^ u64::from(uri).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The base's name `local` in URI `uri` (`h` its hash).
    #[inline]
    fn find_name(&self, uri: u32, local: &str, h: u64) -> Option<NameId> {
        self.by_name.find(h, |id| {
            let n = &self.names[id as usize];
            n.uri == uri && bytes_eq(n.local.as_bytes(), local.as_bytes())
        })
    }

    /// The number of every name, as `(uri, local, number)`.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&str, &str, NameId)> {
        self.names.iter().enumerate().map(|(i, n)| {
            (
                self.uris[n.uri as usize].uri.as_str(),
                n.local.as_str(),
                i as NameId,
            )
        })
    }
}

/// The schema-less streams' base: appendix D's entries only.
fn fixed_base() -> Arc<Base> {
    static FIXED: OnceLock<Arc<Base>> = OnceLock::new();
    Arc::clone(FIXED.get_or_init(|| Arc::new(Base::new(&[]))))
}

/// One URI partition as a stream sees it: its prefixes, and the local names this stream
/// added after the base's.
#[derive(Debug, Clone)]
pub(crate) struct Uri {
    /// The URI, for one the stream added (empty for the base's: see [`Tables::uri`]).
    uri: String,
    /// Prefixes the stream added, after the base's ([`Tables::prefix`]).
    prefixes: Vec<String>,
    /// Local names the stream added: local-name id - base count -> name number.
    locals: Vec<NameId>,
}

/// A qualified name the stream added.
#[derive(Debug, Clone)]
struct Name {
    uri: u32,
    local_id: u32,
    local: String,
}

/// What a stream learns about one name: its built-in element grammar and its local value
/// partition.
#[derive(Debug, Clone)]
struct NameState {
    /// The name (so that [`Tables::reset`] finds the slots to clear).
    name: NameId,
    /// Its built-in element grammar, [`NONE`] until it is first used as an element name.
    grammar: u32,
    /// The local value partition: local id -> global id ([`NONE`] once evicted).
    values: Locals,
}

/// A local value partition: most names of a stream have a few values, kept inline (one
/// allocation per name with values would be most of what adding a value costs).
#[derive(Debug, Clone)]
enum Locals {
    Few(u32, [u32; 3]),
    Many(Vec<u32>),
}

impl Locals {
    const EMPTY: Locals = Locals::Few(0, [0; 3]);

    #[inline]
    fn as_slice(&self) -> &[u32] {
        match self {
            Locals::Few(n, a) => &a[..*n as usize],
            Locals::Many(v) => v,
        }
    }

    #[inline]
    fn as_mut_slice(&mut self) -> &mut [u32] {
        match self {
            Locals::Few(n, a) => &mut a[..*n as usize],
            Locals::Many(v) => v,
        }
    }

    #[inline]
    fn push(&mut self, id: u32) {
        match self {
            Locals::Few(n, a) if (*n as usize) < a.len() => {
                a[*n as usize] = id;
                *n += 1;
            }
            Locals::Few(_, a) => {
                let mut v = Vec::with_capacity(8);
                v.extend_from_slice(a);
                v.push(id);
                *self = Locals::Many(v);
            }
            Locals::Many(v) => v.push(id),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Value {
    /// The text's span in [`Tables::arena`].
    start: u32,
    end: u32,
    name: NameId,
    local: u32,
}

/// The string table of one EXI stream (or self-contained element): a shared [`Base`], then
/// the stream's own entries.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    base: Arc<Base>,
    /// Every URI, the base's first.
    uris: Vec<Uri>,
    /// URIs the stream added (encoder only).
    by_uri: HashMap<String, u32, FastState>,
    /// Names the stream added (number - the base's count): the first `live`; those after them
    /// an earlier stream's, kept for their strings' memory.
    names: Vec<Name>,
    live: usize,
    /// Those names by their hash ([`Base::name_hash`]; encoder only).
    by_name: Index,
    /// Per name (the base's first): 0 until the stream learns something of it, else its
    /// index in `states` + 1 (zeroed memory for a schema's many names costs nothing).
    slots: Vec<u32>,
    states: Vec<NameState>,
    values: Vec<Value>,
    /// Every value's text, one after the other (one allocation for the stream's values).
    arena: String,
    /// The bytes of `arena` that evicted values left behind (reclaimed by compacting).
    dead: usize,
    /// Global ids by the value's hash (encoder only).
    by_value: Index,
    hasher: FastState,
    /// Last global id assigned under a bounded capacity (round robin).
    last_global: usize,
    max_len: Option<usize>,
    capacity: Option<usize>,
    /// Whether the lookup maps are kept (the encoder needs them, the decoder does not).
    encoding: bool,
}

impl Tables {
    /// The table at the start of a schema-less stream (EXI 1.0, appendix D).
    pub(crate) fn new(max_len: Option<usize>, capacity: Option<usize>, encoding: bool) -> Self {
        Self::with_base(fixed_base(), max_len, capacity, encoding)
    }

    /// The table at the start of a stream whose table starts with `base`.
    pub(crate) fn with_base(
        base: Arc<Base>,
        max_len: Option<usize>,
        capacity: Option<usize>,
        encoding: bool,
    ) -> Self {
        // Room for a few URIs of the stream's own.
        let mut uris = Vec::with_capacity(base.uris.len() + 4);
        uris.extend(base.uris.iter().map(|_| Uri {
            uri: String::new(),
            prefixes: Vec::new(),
            locals: Vec::new(),
        }));
        Tables {
            slots: vec![0; base.names.len()],
            base,
            uris,
            by_uri: HashMap::default(),
            names: Vec::new(),
            live: 0,
            by_name: Index::default(),
            states: Vec::new(),
            values: Vec::new(),
            arena: String::new(),
            dead: 0,
            by_value: Index::default(),
            hasher: FastState::default(),
            last_global: usize::MAX,
            max_len,
            capacity,
            encoding,
        }
    }

    /// The table as [`Tables::with_base`] makes it from the same base, for another stream,
    /// keeping the memory it has grown (a compiled schema's tables are reused across streams:
    /// `SchemaGrammars`).
    pub(crate) fn reset(&mut self, max_len: Option<usize>, capacity: Option<usize>) {
        let base_uris = self.base.uris.len();
        self.uris.truncate(base_uris);
        for u in &mut self.uris {
            u.prefixes.clear();
            u.locals.clear();
        }
        self.by_uri.clear();
        // The names' strings are kept (emptied) for the next stream's names, but for long ones
        // and past `KEEP_NAMES`.
        for n in &mut self.names[..self.live] {
            if n.local.capacity() > KEEP_NAME_LEN {
                n.local = String::new();
            }
        }
        self.names.truncate(KEEP_NAMES);
        self.live = 0;
        self.by_name.clear();
        for st in &self.states {
            if let Some(slot) = self.slots.get_mut(st.name as usize) {
                *slot = 0;
            }
        }
        self.slots.truncate(self.base.names.len());
        self.states.clear();
        self.values.clear();
        self.arena.clear();
        self.dead = 0;
        self.by_value.clear();
        self.last_global = usize::MAX;
        self.max_len = max_len;
        self.capacity = capacity;
    }

    /// The table at the start of a schema-less stream, as [`Tables::new`] makes it, for a
    /// decoder or encoder that goes on to another stream: this one [`reset`](Self::reset) when
    /// it is a schema-less stream's and [`reusable`](Self::reusable), else a new one.
    pub(crate) fn renew(&mut self, max_len: Option<usize>, capacity: Option<usize>) {
        let base = fixed_base();
        // (A husk, `Tables::husk`, has no URI partitions: it is made anew.)
        if self.uris.len() >= base.uris.len() && self.reusable(&base) {
            self.reset(max_len, capacity);
        } else {
            *self = Self::with_base(base, max_len, capacity, self.encoding);
        }
    }

    /// Whether the lookup maps are kept (an encoder's table).
    pub(crate) fn encoding(&self) -> bool {
        self.encoding
    }

    /// An empty table of no stream: what is left where a table was moved out (never read).
    pub(crate) fn husk() -> Self {
        Tables {
            base: fixed_base(),
            uris: Vec::new(),
            by_uri: HashMap::default(),
            names: Vec::new(),
            live: 0,
            by_name: Index::default(),
            slots: Vec::new(),
            states: Vec::new(),
            values: Vec::new(),
            arena: String::new(),
            dead: 0,
            by_value: Index::default(),
            hasher: FastState::default(),
            last_global: usize::MAX,
            max_len: None,
            capacity: None,
            encoding: false,
        }
    }

    /// Whether [`Tables::reset`] applies: a table of `base`, not grown past what is worth keeping for the next stream.
    pub(crate) fn reusable(&self, base: &Arc<Base>) -> bool {
        Arc::ptr_eq(&self.base, base)
            && self.arena.capacity() <= 1 << 20
            && self.values.capacity() <= 1 << 17
    }

    /// Room made at once for the values of a decoded stream of `input` octets (a literal takes
    /// at least an octet per character and two per value), rather than grown value by value;
    /// at most a megabyte's worth, past which the table grows as it needs.
    pub(crate) fn reserve_values(&mut self, input: usize) {
        let n = input.min(1 << 20);
        self.arena.reserve(n);
        self.values.reserve(n / 8);
    }

    /// Room made at once for the names of a decoded stream of `input` octets (a new local
    /// name takes at least two octets, its length and a character), rather than grown name
    /// by name; at most a thousand names' worth, past which the table grows as it needs.
    pub(crate) fn reserve_names(&mut self, input: usize) {
        self.reserve_name_room((input / 8).min(1 << 10));
    }

    /// Room for `n` names (and, encoding, their index).
    fn reserve_name_room(&mut self, n: usize) {
        self.names.reserve(n);
        self.slots.reserve(n);
        self.states.reserve(n);
        if self.encoding {
            self.by_name.reserve(n);
        }
    }

    /// Room made at once for a stream of `events` events written by the encoder (each may
    /// bring a name and a value), rather than grown entry by entry; at most a thousand
    /// names' and values' worth.
    pub(crate) fn reserve_events(&mut self, events: usize) {
        let n = (events / 4).min(1 << 10);
        self.reserve_name_room(n);
        self.values.reserve(n);
        self.arena.reserve(n * 8);
        if self.encoding {
            self.by_value.reserve(n);
        }
    }

    /// Total entries (for the table-size limit).
    pub(crate) fn entries(&self) -> usize {
        self.uris.len() + self.slots.len() + self.values.len()
    }

    /// URI `uri`.
    #[inline(always)]
    pub(crate) fn uri(&self, uri: u32) -> &str {
        match self.base.uris.get(uri as usize) {
            Some(b) => &b.uri,
            None => &self.uris[uri as usize].uri,
        }
    }

    /// The number of local names in URI `uri`.
    #[inline]
    pub(crate) fn local_count(&self, uri: u32) -> usize {
        self.base
            .uris
            .get(uri as usize)
            .map_or(0, |b| b.locals.len())
            + self.uris[uri as usize].locals.len()
    }

    /// The name of local-name id `id` in URI `uri`.
    #[inline]
    fn local_name(&self, uri: u32, id: usize) -> Option<NameId> {
        let base = self
            .base
            .uris
            .get(uri as usize)
            .map_or(&[][..], |b| &b.locals);
        match base.get(id) {
            Some(&n) => Some(n),
            None => self.uris[uri as usize].locals.get(id - base.len()).copied(),
        }
    }

    /// The local name of name `name`.
    #[inline(always)]
    pub(crate) fn local(&self, name: NameId) -> &str {
        match self.base.names.get(name as usize) {
            Some(n) => &n.local,
            None => &self.names[name as usize - self.base.names.len()].local,
        }
    }

    /// The URI and local name of name `name` (one look-up of the name for both).
    #[inline(always)]
    pub(crate) fn name_text(&self, name: NameId) -> (&str, &str) {
        let (uri, local) = match self.base.names.get(name as usize) {
            Some(n) => (n.uri, n.local.as_str()),
            None => {
                let n = &self.names[name as usize - self.base.names.len()];
                (n.uri, n.local.as_str())
            }
        };
        (self.uri(uri), local)
    }

    /// The URI number of name `name`.
    #[inline(always)]
    pub(crate) fn name_uri(&self, name: NameId) -> u32 {
        match self.base.names.get(name as usize) {
            Some(n) => n.uri,
            None => self.names[name as usize - self.base.names.len()].uri,
        }
    }

    /// The id of name `name` in its URI's local-name partition.
    #[inline]
    fn local_id(&self, name: NameId) -> u32 {
        match self.base.names.get(name as usize) {
            Some(n) => n.local_id,
            None => self.names[name as usize - self.base.names.len()].local_id,
        }
    }

    #[inline]
    fn state(&self, name: NameId) -> Option<&NameState> {
        match self.slots[name as usize] {
            0 => None,
            s => Some(&self.states[s as usize - 1]),
        }
    }

    fn state_mut(&mut self, name: NameId) -> &mut NameState {
        let slot = &mut self.slots[name as usize];
        if *slot == 0 {
            self.states.push(NameState {
                name,
                grammar: NONE,
                values: Locals::EMPTY,
            });
            *slot = self.states.len() as u32;
        }
        &mut self.states[*slot as usize - 1]
    }

    /// The built-in element grammar of name `name` ([`NONE`] while it has none).
    #[inline]
    pub(crate) fn grammar(&self, name: NameId) -> u32 {
        self.state(name).map_or(NONE, |s| s.grammar)
    }

    /// Gives name `name` its built-in element grammar.
    pub(crate) fn set_grammar(&mut self, name: NameId, grammar: u32) {
        self.state_mut(name).grammar = grammar;
    }

    /// The local value partition of name `name`.
    #[inline]
    fn local_values(&self, name: NameId) -> &[u32] {
        self.state(name).map_or(&[], |s| s.values.as_slice())
    }

    pub(crate) fn add_uri(&mut self, uri: String) -> u32 {
        let id = self.uris.len() as u32;
        if self.encoding {
            self.by_uri.insert(uri.clone(), id);
        }
        self.uris.push(Uri {
            uri,
            prefixes: Vec::new(),
            locals: Vec::new(),
        });
        id
    }

    pub(crate) fn add_local(&mut self, uri: u32, local: &str) -> NameId {
        let mut s = self.name_string();
        s.push_str(local);
        self.add_local_string(uri, s)
    }

    /// An empty string for the next name: the memory of an earlier stream's name, if one is
    /// kept.
    #[inline]
    fn name_string(&mut self) -> String {
        match self.names.get_mut(self.live) {
            Some(n) => {
                let mut s = std::mem::take(&mut n.local);
                s.clear();
                s
            }
            None => String::new(),
        }
    }

    /// Adds local name `local` to URI `uri`.
    fn add_local_string(&mut self, uri: u32, local: String) -> NameId {
        let id = self.slots.len() as NameId;
        let local_id = self.local_count(uri) as u32;
        let locals = &mut self.uris[uri as usize].locals;
        if locals.capacity() == 0 {
            // A URI with names usually has a few (one growth instead of three).
            locals.reserve(16);
        }
        locals.push(id);
        if self.encoding {
            let h = self.base.name_hash(uri, &local);
            self.by_name.insert(h, id);
        }
        let name = Name {
            uri,
            local_id,
            local,
        };
        match self.names.get_mut(self.live) {
            Some(n) => *n = name,
            None => self.names.push(name),
        }
        self.live += 1;
        self.slots.push(0);
        id
    }

    /// The number of a URI (encoder).
    #[inline]
    pub(crate) fn uri_id(&self, uri: &str) -> Option<u32> {
        // No namespace, the common case, without hashing (and without comparing an empty
        // string, which costs a call on some C libraries).
        if uri.is_empty() {
            return Some(0);
        }
        match self.base.by_uri.get(uri) {
            Some(&u) => Some(u),
            None => self.by_uri.get(uri).copied(),
        }
    }

    /// The number of a name (encoder).
    #[inline]
    pub(crate) fn name_id(&self, uri: u32, local: &str) -> Option<NameId> {
        let h = self.base.name_hash(uri, local);
        let first = self.base.names.len() as u32;
        let mine = self.by_name.find(h, |id| {
            let n = &self.names[(id - first) as usize];
            n.uri == uri && bytes_eq(n.local.as_bytes(), local.as_bytes())
        });
        if mine.is_some() {
            return mine;
        }
        // The base's names (a schema's, or appendix D's few, which no name in the empty
        // namespace is among).
        if self
            .base
            .uris
            .get(uri as usize)
            .is_some_and(|b| !b.locals.is_empty())
        {
            return self.base.find_name(uri, local, h);
        }
        None
    }

    /// Whether name `id` (any number) is `local` in namespace `ns` (encoder).
    #[inline]
    pub(crate) fn is_name(&self, id: NameId, ns: &str, local: &str) -> bool {
        if id as usize >= self.slots.len() || !bytes_eq(self.local(id).as_bytes(), local.as_bytes())
        {
            return false;
        }
        let u = self.name_uri(id);
        if ns.is_empty() {
            u == 0
        } else {
            bytes_eq(self.uri(u).as_bytes(), ns.as_bytes())
        }
    }

    /// Writes a URI (EXI 1.0, 7.1.7): a hit as its id + 1, a miss as 0 and the string.
    pub(crate) fn write_uri(&mut self, w: &mut BitWriter, uri: &str) -> u32 {
        let n = width(self.uris.len() + 1);
        match self.uri_id(uri) {
            Some(id) => {
                w.nbit(id + 1, n);
                id
            }
            None => {
                w.nbit(0, n);
                w.string(uri);
                self.add_uri(uri.to_string())
            }
        }
    }

    /// Writes a local name in URI `uri`: a hit as 0 and its local id, a miss as length + 1
    /// and the string.
    pub(crate) fn write_local(&mut self, w: &mut BitWriter, uri: u32, local: &str) -> NameId {
        match self.name_id(uri, local) {
            Some(id) => {
                w.uint(0);
                let n = width(self.local_count(uri));
                w.nbit(self.local_id(id), n);
                id
            }
            None => {
                w.uint(char_len(local) as u64 + 1);
                w.chars(local);
                self.add_local(uri, local)
            }
        }
    }

    /// Writes a qualified name's URI and local name.
    pub(crate) fn write_qname(&mut self, w: &mut BitWriter, uri: &str, local: &str) -> NameId {
        let u = self.write_uri(w, uri);
        self.write_local(w, u, local)
    }

    /// Writes URI `uri`, which the table holds, as [`write_uri`](Self::write_uri) would.
    #[inline]
    pub(crate) fn write_uri_hit(&self, w: &mut BitWriter, uri: u32) {
        w.nbit(uri + 1, width(self.uris.len() + 1));
    }

    /// Writes `local` in URI `uri`, a local name the table does not hold (the caller looked it
    /// up), as [`write_local`](Self::write_local) would, and adds it (encoder).
    pub(crate) fn write_new_local(&mut self, w: &mut BitWriter, uri: u32, local: &str) -> NameId {
        w.uint(char_len(local) as u64 + 1);
        w.chars(local);
        self.add_local(uri, local)
    }

    /// Writes the URI and local name of a name the table holds (both hits), as
    /// [`write_qname`](Self::write_qname) would.
    pub(crate) fn write_known_qname(&self, w: &mut BitWriter, name: NameId) {
        let u = self.name_uri(name);
        w.nbit(u + 1, width(self.uris.len() + 1));
        w.uint(0);
        w.nbit(self.local_id(name), width(self.local_count(u)));
    }

    /// The prefixes of URI `uri` that the base gives it (the stream's own follow them).
    #[inline(always)]
    fn base_prefixes(&self, uri: u32) -> &[String] {
        self.base
            .uris
            .get(uri as usize)
            .map_or(&[], |b| &b.prefixes)
    }

    /// The number of prefixes of URI `uri`.
    #[inline]
    fn prefix_count(&self, uri: u32) -> usize {
        self.base_prefixes(uri).len() + self.uris[uri as usize].prefixes.len()
    }

    /// The id of `prefix` in URI `uri`'s prefix partition.
    fn prefix_id(&self, uri: u32, prefix: &str) -> Option<usize> {
        let base = self.base_prefixes(uri);
        match base.iter().position(|x| x == prefix) {
            Some(i) => Some(i),
            None => self.uris[uri as usize]
                .prefixes
                .iter()
                .position(|x| x == prefix)
                .map(|i| base.len() + i),
        }
    }

    /// Writes the prefix of a qualified name in an SE or AT event (preserve.prefixes): its id
    /// in the URI's prefix partition in ⌈log2 m⌉ bits (nothing when the partition has at most
    /// one entry, or for the empty URI). An unknown prefix is written as 0: the NS event that
    /// follows with local-element-ns set names it.
    pub(crate) fn write_qname_prefix(&self, w: &mut BitWriter, name: NameId, prefix: &str) {
        let uri = self.name_uri(name);
        if uri == 0 {
            return;
        }
        let n = self.prefix_count(uri);
        if n > 1 {
            let id = self.prefix_id(uri, prefix).unwrap_or(0);
            w.nbit(id as u32, width(n));
        }
    }

    /// Writes the prefix of an NS event: a hit as id + 1, a miss as 0 and the string.
    pub(crate) fn write_ns_prefix(&mut self, w: &mut BitWriter, uri: u32, prefix: &str) {
        let n = width(self.prefix_count(uri) + 1);
        match self.prefix_id(uri, prefix) {
            Some(id) => w.nbit(id as u32 + 1, n),
            None => {
                w.nbit(0, n);
                w.string(prefix);
                self.uris[uri as usize].prefixes.push(prefix.to_string());
            }
        }
    }

    /// Reads a URI.
    pub(crate) fn read_uri(&mut self, r: &mut BitReader<'_>, max_len: usize) -> Result<u32> {
        let at = r.mark();
        let v = r.nbit(width(self.uris.len() + 1))? as usize;
        if v == 0 {
            let s = r.string(max_len)?;
            Ok(self.add_uri(s))
        } else if v <= self.uris.len() {
            Ok(v as u32 - 1)
        } else {
            Err(r.error_at(
                at,
                format!(
                    "URI id {} is past the {} URIs of the string table",
                    v - 1,
                    self.uris.len()
                ),
            ))
        }
    }

    /// Reads a local name in URI `uri`.
    pub(crate) fn read_local(
        &mut self,
        r: &mut BitReader<'_>,
        uri: u32,
        max_len: usize,
    ) -> Result<NameId> {
        let at = r.mark();
        let v = r.uint()?;
        if v == 0 {
            let count = self.local_count(uri);
            let id = r.nbit(width(count))? as usize;
            match self.local_name(uri, id) {
                Some(n) => Ok(n),
                None => Err(r.error_at(
                    at,
                    format!("local-name id {id} is past the {count} local names of URI {uri}"),
                )),
            }
        } else {
            if v - 1 > max_len as u64 {
                return Err(r.limit_error_at(
                    at,
                    format!(
                        "local name of {} characters is past the limit (max_string_len)",
                        v - 1
                    ),
                ));
            }
            let mut s = self.name_string();
            r.chars_into((v - 1) as usize, &mut s)?;
            if !ncname(&s) {
                return Err(r.error_at(at, format!("local name {s:?} is not an XML name")));
            }
            Ok(self.add_local_string(uri, s))
        }
    }

    /// Reads a qualified name.
    pub(crate) fn read_qname(&mut self, r: &mut BitReader<'_>, max_len: usize) -> Result<NameId> {
        let u = self.read_uri(r, max_len)?;
        self.read_local(r, u, max_len)
    }

    /// Reads the prefix of an SE or AT qualified name, as its id in the URI's prefix
    /// partition: `None` when it is left to a following NS event (the partition is empty).
    pub(crate) fn read_qname_prefix(
        &self,
        r: &mut BitReader<'_>,
        name: NameId,
    ) -> Result<Option<u32>> {
        let uri = self.name_uri(name);
        if uri == 0 {
            return Ok(Some(0));
        }
        let n = self.prefix_count(uri);
        match n {
            0 => Ok(None),
            1 => Ok(Some(0)),
            n => {
                let at = r.mark();
                let id = r.nbit(width(n))? as usize;
                if id < n {
                    Ok(Some(id as u32))
                } else {
                    Err(r.error_at(
                        at,
                        format!("prefix id {id} is past the {n} prefixes of URI {uri}"),
                    ))
                }
            }
        }
    }

    /// Prefix `id` of URI `uri`.
    #[inline(always)]
    pub(crate) fn prefix(&self, uri: u32, id: u32) -> &str {
        let base = self.base_prefixes(uri);
        match base.get(id as usize) {
            Some(p) => p,
            None => &self.uris[uri as usize].prefixes[id as usize - base.len()],
        }
    }

    /// Reads the prefix of an NS event; returns its id in the URI's prefix partition.
    pub(crate) fn read_ns_prefix(
        &mut self,
        r: &mut BitReader<'_>,
        uri: u32,
        max_len: usize,
    ) -> Result<u32> {
        let at = r.mark();
        let n = self.prefix_count(uri);
        let v = r.nbit(width(n + 1))? as usize;
        if v == 0 {
            let s = r.string(max_len)?;
            if !s.is_empty() && (!ncname(&s) || s == "xmlns") {
                return Err(r.error_at(at, format!("prefix {s:?} is not an XML prefix")));
            }
            self.uris[uri as usize].prefixes.push(s);
            Ok(n as u32)
        } else if v <= n {
            Ok(v as u32 - 1)
        } else {
            Err(r.error_at(
                at,
                format!("prefix id {} is past the {n} prefixes of URI {uri}", v - 1),
            ))
        }
    }

    /// Adds a value after a miss, if the bounds admit it (EXI 1.0, 7.3.3); `hash` is its
    /// hash when encoding.
    fn add_value(&mut self, name: NameId, text: &str, chars: usize, hash: u64) {
        if chars == 0 || self.max_len.is_some_and(|m| chars > m) || self.capacity == Some(0) {
            return;
        }
        let local = self.local_values(name).len() as u32;
        let global = match self.capacity {
            None => self.values.len(),
            Some(cap) => {
                self.last_global = self.last_global.wrapping_add(1);
                if self.last_global == cap {
                    self.last_global = 0;
                }
                self.last_global
            }
        };
        if global < self.values.len() {
            let old = self.values[global];
            self.state_mut(old.name).values.as_mut_slice()[old.local as usize] = NONE;
            if self.encoding {
                let h = self.hash_text(self.text_of(&old));
                self.by_value.remove(h, global as u32);
            }
            self.dead += (old.end - old.start) as usize;
            if self.dead > 4096 && self.dead > self.arena.len() / 2 {
                self.compact(global);
            }
        }
        // Offsets are u32: a stream's values past 4 GiB are left out of the table (the
        // decoder's limits stop such streams long before).
        let Ok(start) = u32::try_from(self.arena.len()) else {
            return;
        };
        let Ok(end) = u32::try_from(self.arena.len() + text.len()) else {
            return;
        };
        self.arena.push_str(text);
        let entry = Value {
            start,
            end,
            name,
            local,
        };
        if global < self.values.len() {
            self.values[global] = entry;
        } else {
            self.values.push(entry);
        }
        if self.encoding {
            self.by_value.insert(hash, global as u32);
        }
        self.state_mut(name).values.push(global as u32);
    }

    /// Rewrites the arena with the live values only (all but `skip`, which is being replaced).
    fn compact(&mut self, skip: usize) {
        let mut arena = String::with_capacity(self.arena.len() - self.dead);
        for (i, v) in self.values.iter_mut().enumerate() {
            if i == skip {
                *v = Value {
                    start: 0,
                    end: 0,
                    ..*v
                };
                continue;
            }
            let start = arena.len() as u32;
            arena.push_str(&self.arena[v.start as usize..v.end as usize]);
            v.end = arena.len() as u32;
            v.start = start;
        }
        self.arena = arena;
        self.dead = 0;
    }

    /// A value's hash (seeded per table), the key of `by_value`.
    #[inline]
    fn hash_text(&self, text: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(text.as_bytes());
        h.finish()
    }

    #[inline]
    fn text_of(&self, v: &Value) -> &str {
        &self.arena[v.start as usize..v.end as usize]
    }

    /// The global id of `text` if the table holds it (encoder only), with its hash.
    #[inline]
    fn find_value(&self, text: &str) -> (Option<u32>, u64) {
        if text.is_empty() {
            // The empty string is never in the table: no lookup.
            return (None, 0);
        }
        let h = self.hash_text(text);
        let hit = self.by_value.find(h, |g| {
            bytes_eq(
                self.text_of(&self.values[g as usize]).as_bytes(),
                text.as_bytes(),
            )
        });
        (hit, h)
    }

    /// Writes a hit on global value `g` for name `name`: 0 and its local id when the name's
    /// own partition holds it, else 1 and its global id.
    #[inline]
    fn write_hit(&self, w: &mut BitWriter, name: NameId, g: u32) {
        let v = &self.values[g as usize];
        if v.name == name {
            w.uint7_nbit(0, v.local, width(self.local_values(name).len()));
        } else {
            w.uint7_nbit(1, g, width(self.values.len()));
        }
    }

    /// Writes a value of name `name`: a local hit as 0 and its local id, a global hit as 1
    /// and its global id, a miss as length + 2 and the string.
    pub(crate) fn write_value(&mut self, w: &mut BitWriter, name: NameId, text: &str) {
        let (hit, h) = self.find_value(text);
        if let Some(g) = hit {
            self.write_hit(w, name, g);
            return;
        }
        let chars = char_len(text);
        w.uint(chars as u64 + 2);
        w.chars(text);
        self.add_value(name, text, chars, h);
    }

    /// Writes a value as [`write_value`](Self::write_value) does, its literal's characters
    /// by `literal` (a restricted character set, EXI 1.0 7.1.10.1).
    pub(crate) fn write_value_with(
        &mut self,
        w: &mut BitWriter,
        name: NameId,
        text: &str,
        literal: impl FnOnce(&mut BitWriter, &str),
    ) {
        let (hit, h) = self.find_value(text);
        if let Some(g) = hit {
            self.write_hit(w, name, g);
            return;
        }
        let chars = char_len(text);
        w.uint(chars as u64 + 2);
        literal(w, text);
        self.add_value(name, text, chars, h);
    }

    /// The length in octets of global value `id`.
    #[inline]
    pub(crate) fn value_len(&self, id: u32) -> usize {
        let v = &self.values[id as usize];
        (v.end - v.start) as usize
    }

    /// Whether every value added stays in the table, unchanged, for the rest of the stream
    /// (no `valuePartitionCapacity`: nothing is evicted or moved between entries).
    #[inline]
    pub(crate) fn keeps_values(&self) -> bool {
        self.capacity.is_none()
    }

    /// The text of global value `id`.
    #[inline]
    pub(crate) fn value(&self, id: u32) -> &str {
        self.text_of(&self.values[id as usize])
    }

    /// Reads a value of name `name`: a hit as its global id, a miss into `scratch` (and into
    /// the table, if the bounds admit it).
    #[inline(always)]
    pub(crate) fn read_value(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        max_len: usize,
        scratch: &mut String,
    ) -> Result<ValueRef> {
        let at = r.mark();
        match r.uint()? {
            n @ (0 | 1) => Ok(ValueRef::Global(self.read_hit(r, at, name, n)?)),
            n => self.read_miss(r, at, name, n - 2, max_len, scratch),
        }
    }

    /// The global id of a hit: in the local partition of `name` (`n` 0) or the global one (1).
    #[inline(always)]
    fn read_hit(&self, r: &mut BitReader<'_>, at: Mark, name: NameId, n: u64) -> Result<u32> {
        if n == 0 {
            let local = self.local_values(name);
            let id = r.nbit(width(local.len()))? as usize;
            return match local.get(id) {
                Some(&g) if g != NONE => Ok(g),
                _ => Err(self.bad_local(r, at, name, id)),
            };
        }
        let id = r.nbit(width(self.values.len()))? as usize;
        if id < self.values.len() {
            Ok(id as u32)
        } else {
            Err(r.error_at(
                at,
                format!(
                    "global value id {id} is past the {} values of the table",
                    self.values.len()
                ),
            ))
        }
    }

    /// [`read_value`](Self::read_value), the value's text appended to `out` (a miss read
    /// there, not copied from a scratch string).
    #[inline(always)]
    pub(crate) fn read_value_into(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        max_len: usize,
        out: &mut String,
    ) -> Result<()> {
        let at = r.mark();
        match r.uint()? {
            n @ (0 | 1) => {
                let g = self.read_hit(r, at, name, n)?;
                out.push_str(self.value(g));
                Ok(())
            }
            n => self.read_miss_into(r, at, name, n - 2, max_len, out),
        }
    }

    /// A value given as a literal of `len` characters (out of line: hits are the common case
    /// and stay small where they are inlined).
    #[inline(never)]
    fn read_miss(
        &mut self,
        r: &mut BitReader<'_>,
        at: Mark,
        name: NameId,
        len: u64,
        max_len: usize,
        scratch: &mut String,
    ) -> Result<ValueRef> {
        if len > max_len as u64 {
            return Err(r.limit_error_at(
                at,
                format!("value of {len} characters is past the limit (max_string_len)"),
            ));
        }
        if self.appends(len) {
            return Ok(ValueRef::Added(self.read_appended(r, name, len)?));
        }
        scratch.clear();
        self.read_miss_into(r, at, name, len, max_len, scratch)?;
        Ok(ValueRef::Scratch)
    }

    /// Whether a literal of `len` characters is decoded straight into the arena: an unbounded
    /// table appends every non-empty value (no copy from a scratch string, no eviction). The
    /// offsets must fit a u32 at four octets a character.
    #[inline(always)]
    fn appends(&self, len: u64) -> bool {
        self.capacity.is_none()
            && !self.encoding
            && len > 0
            && self.max_len.is_none_or(|m| len as usize <= m)
            && (self.arena.len() as u64).saturating_add(len.saturating_mul(4)) < u64::from(u32::MAX)
    }

    /// A literal of `len` characters decoded onto the arena's end and added to the table (when
    /// [`appends`](Self::appends)); its global id.
    #[inline(always)]
    fn read_appended(&mut self, r: &mut BitReader<'_>, name: NameId, len: u64) -> Result<u32> {
        let start = self.arena.len();
        if let Err(e) = r.chars_into(len as usize, &mut self.arena) {
            self.arena.truncate(start);
            return Err(e);
        }
        let global = self.values.len() as u32;
        let end = self.arena.len() as u32;
        // One look-up of the name's partition for its length and the new entry.
        let values = &mut self.state_mut(name).values;
        let local = values.as_slice().len() as u32;
        values.push(global);
        self.values.push(Value {
            start: start as u32,
            end,
            name,
            local,
        });
        Ok(global)
    }

    /// A literal of `len` characters appended to `out`, and added to the table.
    #[inline(never)]
    fn read_miss_into(
        &mut self,
        r: &mut BitReader<'_>,
        at: Mark,
        name: NameId,
        len: u64,
        max_len: usize,
        out: &mut String,
    ) -> Result<()> {
        if len > max_len as u64 {
            return Err(r.limit_error_at(
                at,
                format!("value of {len} characters is past the limit (max_string_len)"),
            ));
        }
        if self.appends(len) {
            let g = self.read_appended(r, name, len)?;
            out.push_str(self.value(g));
            return Ok(());
        }
        let a = out.len();
        r.chars_into(len as usize, out)?;
        self.add_value(name, &out[a..], len as usize, 0);
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn bad_local(&self, r: &BitReader<'_>, at: Mark, name: NameId, id: usize) -> Error {
        let local = self.local_values(name);
        if id < local.len() {
            r.error_at(
                at,
                format!("local value id {id} names a value evicted from the table"),
            )
        } else {
            r.error_at(
                at,
                format!(
                    "local value id {id} is past the {} values of this name",
                    local.len()
                ),
            )
        }
    }

    /// Reads a value into an owned string.
    pub(crate) fn read_value_string(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        max_len: usize,
    ) -> Result<String> {
        let mut s = String::new();
        Ok(match self.read_value(r, name, max_len, &mut s)? {
            ValueRef::Global(g) | ValueRef::Added(g) => self.value(g).to_string(),
            ValueRef::Scratch => s,
        })
    }
}

impl Tables {
    /// Reads a value as [`read_value_string`](Self::read_value_string) does, a literal's
    /// characters by `literal` (a restricted character set, EXI 1.0 7.1.10.1).
    pub(crate) fn read_value_string_with(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        max_len: usize,
        literal: impl FnOnce(&mut BitReader<'_>, usize, &mut String) -> Result<()>,
    ) -> Result<String> {
        let at = r.mark();
        let n = r.uint()?;
        if n < 2 {
            // A hit: read it as read_value does, from the same position.
            r.reset(at);
            return self.read_value_string(r, name, max_len);
        }
        let len = n - 2;
        if len > max_len as u64 {
            return Err(r.limit_error_at(
                at,
                format!("value of {len} characters is past the limit (max_string_len)"),
            ));
        }
        let mut s = String::new();
        literal(r, len as usize, &mut s)?;
        self.add_value(name, &s, len as usize, 0);
        Ok(s)
    }
}

/// Where a value read by [`Tables::read_value`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueRef {
    /// In the global partition (valid until the next value is added).
    Global(u32),
    /// A miss, added to the table as this global value (valid as [`ValueRef::Global`]).
    Added(u32),
    /// In the caller's scratch string (a miss the table's bounds left out, or replacing
    /// another value).
    Scratch,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_names_checked_as_is_ncname_does() {
        let mut names = vec![String::new()];
        for a in 0..128u8 {
            names.push((a as char).to_string());
            for b in 0..128u8 {
                names.push(format!("{}{}", a as char, b as char));
                names.push(format!("x{}{}y", a as char, b as char));
            }
        }
        names.extend(
            [
                "é",
                "aé",
                "a·b",
                "-a",
                "a:b",
                "T_MASTER_DAT.PART_ID9x99",
                "a\u{300}",
            ]
            .map(String::from),
        );
        for n in &names {
            assert_eq!(ncname(n), is_ncname(n), "{n:?}");
        }
    }

    #[test]
    fn values_hit_locally_then_globally() {
        let mut t = Tables::new(None, None, true);
        let a = t.add_local(0, "a");
        let b = t.add_local(0, "b");
        let mut w = BitWriter::new(false);
        t.write_value(&mut w, a, "x");
        t.write_value(&mut w, a, "x");
        t.write_value(&mut w, b, "x");
        t.write_value(&mut w, b, "");
        let bytes = w.finish();
        let mut d = Tables::new(None, None, false);
        d.add_local(0, "a");
        d.add_local(0, "b");
        let mut r = BitReader::new(&bytes, false, 0);
        assert_eq!(d.read_value_string(&mut r, a, 100).unwrap(), "x");
        assert_eq!(d.read_value_string(&mut r, a, 100).unwrap(), "x");
        assert_eq!(d.read_value_string(&mut r, b, 100).unwrap(), "x");
        assert_eq!(d.read_value_string(&mut r, b, 100).unwrap(), "");
    }

    #[test]
    fn capacity_evicts_round_robin() {
        let mut t = Tables::new(None, Some(2), true);
        let a = t.add_local(0, "a");
        let mut w = BitWriter::new(false);
        for v in ["p", "q", "r", "p", "r"] {
            t.write_value(&mut w, a, v);
        }
        // "p" was evicted by "r", so the second "p" is a miss that evicts "q".
        assert_eq!(t.values.len(), 2);
        assert_eq!(t.local_values(a), [NONE, NONE, 0, 1]);
        let bytes = w.finish();
        let mut d = Tables::new(None, Some(2), false);
        d.add_local(0, "a");
        let mut r = BitReader::new(&bytes, false, 0);
        for v in ["p", "q", "r", "p", "r"] {
            assert_eq!(d.read_value_string(&mut r, a, 100).unwrap(), v);
        }
    }
}
