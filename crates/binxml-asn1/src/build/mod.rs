//! Events -> an abstract value of `Document` (the encoder side of the mapping).

use binxml_core::Format;
use std::borrow::Cow;
use std::collections::HashMap;

use binxml_core::{Error, Result, XML_NS};

use crate::Options;
use crate::flat::Flat;
use crate::table;
use crate::value::V;

mod flat;
mod intern;
pub(crate) use intern::Texts;
mod layout;
mod tree;

use binxml_core::hash::{FastState, bytes_eq};
use intern::{Index, Interner};
pub(crate) use layout::align_block;
use layout::group_names;

type Val = V<'static>;

/// The parts of a common name's key in `Builder::name_keys`: (namespace, prefix, local name).
fn name_parts(key: &[u8]) -> (&str, &str, &str) {
    let n = u32::from_le_bytes(key[0..4].try_into().expect("4 octets")) as usize;
    let p = u32::from_le_bytes(key[4..8].try_into().expect("4 octets")) as usize;
    let text = std::str::from_utf8(&key[8..]).expect("keys are UTF-8 but for their lengths");
    (&text[..n], &text[n..n + p], &text[n + p..])
}

struct Frame {
    ns: String,
    name: Val,
    attrs: Vec<Val>,
    ns_attrs: Vec<Val>,
    children: Vec<Val>,
    prev_attr_ns: Option<String>,
    prev_nsattr_ns: Option<String>,
    in_scope: Vec<(String, String)>,
}

/// Sizes of the parts of the last encoding (for the paper's Table 2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Number of component strings.
    pub strings: usize,
    /// Bytes of the uncompressed component-strings block.
    pub strings_block: usize,
    /// Bytes of the component-strings block as carried (after compression).
    pub strings_carried: usize,
    /// Number of common names.
    pub names: usize,
}

/// An element's in-scope namespaces (prefix, name) while the builder runs; shared by the
/// elements that declare none, copied by the first declaration of one that does. `refs`: its
/// range in `Flat::scopes` once an element that uses it has ended.
struct ScopeList {
    entries: Vec<(Box<str>, Box<str>)>,
    refs: Option<(u32, u32)>,
}

struct FFrame {
    op: usize,
    children: u32,
    n_ns: u32,
    n_attrs: u32,
    /// where its namespace name starts in `Builder::fns` (no names table)
    ns_start: usize,
    /// its in-scope namespaces (`Builder::scope_lists`), and whether it declared some
    scope: u32,
    own_scope: bool,
}

pub struct Builder {
    opts: Options,
    format: Format,
    strings: Interner,
    /// common names by their keys: the lengths of namespace and prefix (4 octets each), then
    /// namespace, prefix and local name; the keys one after the other in `name_keys`, each
    /// ending at its entry of `name_key_ends`
    names: Index,
    name_keys: Vec<u8>,
    name_key_ends: Vec<usize>,
    name_key: Vec<u8>,
    /// uses of each common name
    name_counts: Vec<u32>,
    /// per common name: ids of its namespace and of its (namespace, prefix) pair (see
    /// `group_names`), numbered in `name_groups` (keyed by the namespace's id, 4 octets, and
    /// the prefix)
    name_group: Vec<(u32, u32)>,
    name_groups: HashMap<Box<[u8]>, (u32, u32), FastState>,
    name_namespaces: HashMap<Box<str>, u32, FastState>,
    stack: Vec<Frame>,
    doc_children: Vec<Val>,
    notations: Vec<Val>,
    unparsed: Vec<Val>,
    encoding: Option<String>,
    version: Option<String>,
    standalone: Option<bool>,
    text: String,
    /// an `xml:base` attribute was seen (elements then do not claim their parent's base URI)
    has_xml_base: bool,
    /// PER with both tables and scoped namespaces: elements as flat operations
    flat: Option<Flat>,
    fstack: Vec<FFrame>,
    /// flat mode without the names table: the open elements' namespace names, one after the
    /// other (see `FFrame::ns_start`)
    fns: String,
    /// flat mode without the names table: the namespace of the element's previous attribute
    prev_attr_ns: Option<String>,
    /// flat mode with explicit in-scope namespaces: the lists (0: a root's)
    scope_lists: Vec<ScopeList>,
    /// while the caller guarantees that the strings it hands over stay put and unchanged
    /// (a `Tape` replayed: its names are the same few strings again and again), common-name
    /// ids found by the addresses and lengths of their parts (see [`StableNames`])
    stable_names: Option<StableNames>,
}

/// A direct-mapped cache of common-name ids keyed by where the (namespace, local, prefix)
/// strings lie: equal addresses and lengths of memory that does not change are equal strings,
/// so a hit skips building, hashing and comparing the name's key. Only sound while every
/// string the builder is given outlives the cache unchanged (see [`Builder::begin_stable`]).
struct StableNames {
    slots: Box<[([u64; 4], u32)]>,
}

/// Slots of [`StableNames`] (a power of two; documents rarely have more distinct names).
const STABLE_SLOTS: usize = 256;

impl StableNames {
    /// The three addresses and the three lengths packed in one word (21 bits each); `None`
    /// for a part of 2 MiB or more, which goes the slow way.
    #[inline]
    fn key(ns: &str, local: &str, prefix: &str) -> Option<[u64; 4]> {
        const MAX: usize = 1 << 21;
        if ns.len() >= MAX || local.len() >= MAX || prefix.len() >= MAX {
            return None;
        }
        Some([
            ns.as_ptr() as u64,
            local.as_ptr() as u64,
            prefix.as_ptr() as u64,
            ns.len() as u64 | (local.len() as u64) << 21 | (prefix.len() as u64) << 42,
        ])
    }

    #[inline]
    fn slot(k: &[u64; 4]) -> usize {
        let x = k[1] ^ k[0].rotate_left(21) ^ k[2].rotate_left(42);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STABLE_SLOTS.trailing_zeros())) as usize
    }
}

impl Builder {
    pub fn new(opts: Options, format: Format) -> Self {
        Builder {
            opts,
            format,
            strings: Interner::default(),
            names: Index::default(),
            name_keys: Vec::new(),
            name_key_ends: Vec::new(),
            name_key: Vec::new(),
            name_counts: Vec::new(),
            name_group: Vec::new(),
            name_groups: HashMap::default(),
            name_namespaces: HashMap::default(),
            stack: Vec::new(),
            doc_children: Vec::new(),
            notations: Vec::new(),
            unparsed: Vec::new(),
            encoding: None,
            version: None,
            standalone: None,
            text: String::new(),
            has_xml_base: false,
            flat: None,
            fstack: Vec::new(),
            fns: String::new(),
            prev_attr_ns: None,
            scope_lists: Vec::new(),
            stable_names: None,
        }
    }

    /// Until [`Builder::end_stable`], the caller promises that every string handed to the
    /// builder stays at its address, unchanged (a `Tape` borrowed for the whole replay), so
    /// names are found by the addresses of their parts; `events` (the number about to come)
    /// sizes the flat operations.
    pub(crate) fn begin_stable(&mut self, events: usize) {
        if let Some(flat) = &mut self.flat {
            flat.ops.reserve(events);
        }
        if self.opts.names_table {
            self.stable_names = Some(StableNames {
                // an address of 0 is no string's (a `&str` is never null): empty slots
                slots: vec![([0; 4], 0); STABLE_SLOTS].into_boxed_slice(),
            });
        }
    }

    /// The end of [`Builder::begin_stable`]'s promise: the addresses are forgotten.
    pub(crate) fn end_stable(&mut self) {
        self.stable_names = None;
    }

    /// A builder for the encoders: the elements are recorded as flat operations (no abstract
    /// value per element), which only `PerWriter::encode_flat` and `BerWriter::encode_flat`
    /// can write; strings, names and in-scope namespaces are interned in the order of the
    /// generic path ([`Builder::new`]), so both give the same tables.
    pub fn new_flat(opts: Options, format: Format) -> Self {
        let mut b = Builder::new(opts, format);
        b.flat = Some(Flat {
            ops: Vec::new(),
            attrs: Vec::new(),
            inline: Vec::new(),
            names: Vec::new(),
            explicit_scopes: !opts.scoped_namespaces,
            scopes: Vec::new(),
            values: Vec::new(),
            doc_items: 0,
            common: None,
        });
        if !opts.scoped_namespaces {
            // a root's in-scope namespaces
            b.scope_lists.push(ScopeList {
                entries: vec![("xml".into(), XML_NS.into())],
                refs: None,
            });
        }
        b
    }

    /// A StringOrIndex / URIOrIndex / NCNameOrIndex.
    fn s(&mut self, text: &str) -> Val {
        // the empty string is always smaller inline (UPER: 9 bits, against a 13-bit index and a
        // terminator in the table)
        if self.opts.strings_table
            && !text.is_empty()
            && let Some(id) = self.strings.intern_text(text)
        {
            V::StrRef(id)
        } else {
            V::choice(0, V::Text(Cow::Owned(text.to_owned())))
        }
    }

    fn name_ref(&mut self, ns: &str, local: &str, prefix: &str) -> Val {
        V::choice(1, V::NameRef(self.name_id(ns, local, prefix)))
    }

    /// The common-name id of a name, counting one more use.
    fn name_id(&mut self, ns: &str, local: &str, prefix: &str) -> u32 {
        if let Some(cache) = &self.stable_names
            && let Some(k) = StableNames::key(ns, local, prefix)
        {
            let slot = StableNames::slot(&k);
            let (key, id) = cache.slots[slot];
            if key == k {
                self.name_counts[id as usize] += 1;
                return id;
            }
            let id = self.name_id_by_key(ns, local, prefix);
            if let Some(cache) = &mut self.stable_names {
                cache.slots[slot] = (k, id);
            }
            return id;
        }
        self.name_id_by_key(ns, local, prefix)
    }

    /// [`Builder::name_id`] by the name's key.
    fn name_id_by_key(&mut self, ns: &str, local: &str, prefix: &str) -> u32 {
        // looked up by one key in a reused buffer (no allocation but for a new name): the
        // lengths of namespace and prefix, then the three parts (the lengths keep it unique)
        let key = &mut self.name_key;
        key.clear();
        key.extend_from_slice(&(ns.len() as u32).to_le_bytes());
        key.extend_from_slice(&(prefix.len() as u32).to_le_bytes());
        key.extend_from_slice(ns.as_bytes());
        key.extend_from_slice(prefix.as_bytes());
        key.extend_from_slice(local.as_bytes());
        let h = self.names.hash(key);
        let (keys, ends) = (&self.name_keys, &self.name_key_ends);
        let (id, new) = self.names.find_or_add(h, |id| {
            let i = id as usize;
            let start = if i == 0 { 0 } else { ends[i - 1] };
            bytes_eq(&keys[start..ends[i]], key)
        });
        if new {
            self.name_keys.extend_from_slice(key);
            self.name_key_ends.push(self.name_keys.len());
            self.name_counts.push(0);
            // a new name only: looked up by its strings (allocating for a new one only)
            let ns_id = match self.name_namespaces.get(ns) {
                Some(&i) => i,
                None => {
                    let next = self.name_namespaces.len() as u32;
                    self.name_namespaces.insert(ns.into(), next);
                    next
                }
            };
            let key = &mut self.name_key;
            key.clear();
            key.extend_from_slice(&ns_id.to_le_bytes());
            key.extend_from_slice(prefix.as_bytes());
            let group = match self.name_groups.get(&key[..]) {
                Some(&g) => g,
                None => {
                    let g = (ns_id, self.name_groups.len() as u32);
                    self.name_groups.insert(key[..].into(), g);
                    g
                }
            };
            self.name_group.push(group);
        }
        self.name_counts[id as usize] += 1;
        id
    }

    fn element_name(&mut self, ns: &str, local: &str, prefix: &str, parent_ns: &str) -> Val {
        if self.opts.names_table {
            return self.name_ref(ns, local, prefix);
        }
        let nsv = if ns.is_empty() {
            None
        } else if ns == parent_ns {
            Some(V::choice(1, V::Null))
        } else {
            Some(V::choice(0, self.s(ns)))
        };
        let local = self.s(local);
        let prefix = if prefix.is_empty() {
            None
        } else {
            Some(self.s(prefix))
        };
        V::choice(0, V::Seq(vec![nsv, Some(local), prefix]))
    }

    fn attribute(
        &mut self,
        ns: &str,
        local: &str,
        prefix: &str,
        value: &str,
        owner_ns: &str,
        prev: Option<&str>,
    ) -> Val {
        let name = if self.opts.names_table {
            self.name_ref(ns, local, prefix)
        } else {
            let nsv = if ns.is_empty() {
                None
            } else if ns == owner_ns {
                Some(V::choice(1, V::Null))
            } else if prev == Some(ns) {
                Some(V::choice(2, V::Null))
            } else {
                Some(V::choice(0, self.s(ns)))
            };
            let local = self.s(local);
            let prefix = if prefix.is_empty() {
                None
            } else {
                Some(self.s(prefix))
            };
            V::choice(0, V::Seq(vec![nsv, Some(local), prefix]))
        };
        let value = self.s(value);
        V::Seq(vec![Some(name), Some(value), None, None, None])
    }

    fn unsupported(&self, m: &str) -> Error {
        Error::unsupported(self.format, m.to_string())
    }
}

impl Builder {
    /// The finished abstract value of `Document`, with its tables, and the sizes of its parts.
    pub fn finish(self) -> Result<(Val, Stats)> {
        let (mut doc, stats, refs) = self.finish_refs()?;
        if !refs.strings.is_empty() || !refs.names.is_empty() {
            let texts: Vec<&str> = refs.texts.iter().collect();
            doc.resolve(&refs.strings, &texts, &refs.names);
        }
        Ok((doc, stats))
    }

    /// The value with its table references unresolved ([`V::StrRef`], [`V::NameRef`]), and how
    /// they resolve: what the PER writer encodes directly.
    pub(crate) fn finish_refs(self) -> Result<(Val, Stats, crate::value::Refs)> {
        let format = self.format;
        let (mut doc, stats, refs, flat, align) = self.finish_parts()?;
        if flat.is_some() {
            return Err(Error::invalid_events(
                format,
                "internal: a flat builder's value is incomplete",
            ));
        }
        if align {
            align_block(&mut doc, &refs);
        }
        Ok((doc, stats, refs))
    }

    /// The value (in flat mode without its elements and document-level items: `Flat` has
    /// them), the sizes of its parts, how the table references resolve, and whether the
    /// component-strings block is to be aligned (UPER, see `Options::align_strings`).
    pub(crate) fn finish_parts(
        mut self,
    ) -> Result<(Val, Stats, crate::value::Refs, Option<Flat>, bool)> {
        if self.flat.is_some() {
            self.flush_text_flat()?;
        } else {
            self.flush_text()?;
        }
        if !self.stack.is_empty() || !self.fstack.is_empty() {
            return Err(Error::invalid_events(
                self.format,
                "document ended inside an element",
            ));
        }
        let mut stats = Stats::default();
        // common names, most frequent first
        let mut name_perm = vec![];
        let mut common = vec![];
        // PER's flat writer takes the entries without an abstract value each (BER resolves
        // the value's strings first)
        let mut fcommon = (self.flat.is_some() && self.opts.rule != crate::Rule::Ber)
            .then(Vec::<crate::flat::FCommon>::new);
        if self.opts.names_table {
            let mut order = intern::order_by_count(&self.name_counts);
            group_names(&mut order, &self.name_group);
            name_perm = vec![0u32; order.len()];
            let keys = std::mem::take(&mut self.name_keys);
            let ends = std::mem::take(&mut self.name_key_ends);
            // (namespace, prefix) of the previous entry
            let mut prev: Option<(&str, &str)> = None;
            if let Some(fc) = &mut fcommon {
                fc.reserve(order.len());
            } else {
                common.reserve(order.len());
            }
            for (pos, &id) in order.iter().enumerate() {
                name_perm[id as usize] = pos as u32;
                let i = id as usize;
                let start = if i == 0 { 0 } else { ends[i - 1] };
                let (k_ns, k_prefix, k_local) = name_parts(&keys[start..ends[i]]);
                if let Some(fc) = &mut fcommon {
                    use crate::flat::{FCommon, FNs};
                    // the strings interned in the order of the values' below
                    let ns = if k_ns.is_empty() {
                        FNs::None
                    } else if prev.is_some_and(|p| bytes_eq(p.0.as_bytes(), k_ns.as_bytes())) {
                        FNs::Same
                    } else {
                        FNs::Str(self.sref(k_ns))
                    };
                    let local = self.sref(k_local);
                    let prefix = if k_prefix.is_empty() {
                        FNs::None
                    } else if prev.is_some_and(|p| bytes_eq(p.1.as_bytes(), k_prefix.as_bytes())) {
                        FNs::Same
                    } else {
                        FNs::Str(self.sref(k_prefix))
                    };
                    fc.push(FCommon { ns, local, prefix });
                    prev = Some((k_ns, k_prefix));
                    continue;
                }
                let ns = if k_ns.is_empty() {
                    None
                } else if prev.is_some_and(|p| bytes_eq(p.0.as_bytes(), k_ns.as_bytes())) {
                    Some(V::choice(1, V::Null))
                } else {
                    Some(V::choice(0, self.s(k_ns)))
                };
                let local = self.s(k_local);
                let prefix = if k_prefix.is_empty() {
                    None
                } else if prev.is_some_and(|p| bytes_eq(p.1.as_bytes(), k_prefix.as_bytes())) {
                    Some(V::choice(1, V::Null))
                } else {
                    Some(V::choice(0, self.s(k_prefix)))
                };
                common.push(V::Seq(vec![ns, Some(local), prefix]));
                prev = Some((k_ns, k_prefix));
            }
            stats.names = order.len();
        }
        let ces = self.s(self.encoding.clone().as_deref().unwrap_or(""));
        let version = self.version.clone().map(|v| self.s(&v));
        let mut cs = vec![];
        let mut str_perm = vec![];
        if self.opts.strings_table {
            let (mut order, mut perm) = self.strings.order();
            if self.opts.inline_singletons {
                // Per string, in frequency order: its UPER cost in the table (bytes and terminator
                // once, an index per use: 12 bits in LargeIndex's root, 25 or more past it)
                // against inline (a length determinant and the bytes per use); the cheaper wins.
                let mut kept = Vec::with_capacity(order.len());
                for &id in &order {
                    let (l, c, p) = (
                        self.strings.text(id).len() as u64,
                        u64::from(self.strings.count(id)),
                        kept.len() as u64,
                    );
                    let index = match p {
                        0..2048 => 12,
                        2048..32768 => 25,
                        32768..8388608 => 33,
                        _ => 41,
                    };
                    let table_cost = 8 + 8 * l + c * index; // bytes and zero terminator once
                    let inline_cost = c * (if l < 128 { 8 } else { 16 } + 8 * l);
                    if inline_cost < table_cost {
                        perm[id as usize] = crate::sentinel::NOT_IN_TABLE;
                    } else {
                        perm[id as usize] = p as u32;
                        kept.push(id);
                    }
                }
                order = kept;
            }
            str_perm = perm;
            let block = table::build_block(order.iter().map(|&id| self.strings.text(id)));
            stats.strings = order.len();
            stats.strings_block = block.len();
            if !order.is_empty() {
                let c = self.opts.compression;
                let carried = table::compress(self.format, c, block)?;
                stats.strings_carried = carried.len();
                cs.push(V::Seq(vec![
                    Some(V::text(c.uri())),
                    Some(V::Bytes(Cow::Owned(carried))),
                ]));
            }
        }
        let doc = V::Seq(vec![
            Some(V::List(std::mem::take(&mut self.doc_children))),
            Some(V::List(self.notations)),
            Some(V::List(self.unparsed)),
            None,
            Some(ces),
            self.standalone.map(V::Bool),
            version,
            Some(V::Bool(true)),
            Some(V::List(cs)),
            Some(V::List(common)),
        ]);
        let refs = crate::value::Refs {
            strings: str_perm,
            texts: std::mem::take(&mut self.strings).into_texts(),
            names: name_perm,
        };
        if let Some(flat) = &mut self.flat {
            flat.common = fcommon;
        }
        let align = self.opts.rule == crate::Rule::Uper
            && self.opts.align_strings
            && self.opts.compression == table::Compression::None
            && stats.strings > 0
            && !self.has_xml_base;
        Ok((doc, stats, refs, self.flat.take(), align))
    }
}
