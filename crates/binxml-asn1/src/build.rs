//! Events -> an abstract value of `Document` (the encoder side of the mapping).

use binxml_core::Format;
use std::borrow::Cow;
use std::collections::HashMap;

use binxml_core::{Error, Event, QName, Result, Typed, XML_NS, XMLNS_NS};

use crate::Options;
use crate::flat::{FName, FNs, FOp, Flat};
use crate::sentinel::{INLINE, INTERNAL_SUBSET_TARGET, NO_STR};
use crate::table;
use crate::value::V;

type Val = V<'static>;

/// A fast hasher for the encoder's string tables: a word at a time, each folded into the state
/// by one 64x64 -> 128-bit multiplication (as `binxml-fi`'s), seeded per table from std's
/// `RandomState` so that colliding keys cannot be prepared in advance. SipHash (std's) is
/// needlessly slow for these short keys, hashed once per string written.
#[derive(Clone, Copy)]
struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        FastState(std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1)
    }
}

impl std::hash::BuildHasher for FastState {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

struct FastHasher(u64);

const HK: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let m = (a as u128).wrapping_mul(b as u128);
    (m as u64) ^ ((m >> 64) as u64)
}

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn write(&mut self, b: &[u8]) {
        // short strings as one word, longer ones a word at a time with the last word
        // overlapping the one before (no octet loop, no copy of the tail)
        let n = b.len();
        let mut h = self.0 ^ (n as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        if n <= 8 {
            let w = if n >= 4 {
                let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
                let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
                lo | (hi << 32)
            } else if n > 0 {
                (b[0] as u64) | ((b[n / 2] as u64) << 8) | ((b[n - 1] as u64) << 16)
            } else {
                0
            };
            self.0 = fold(h ^ w, HK);
            return;
        }
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            h = fold(h ^ u64::from_le_bytes(w.try_into().expect("8 octets")), HK);
        }
        if !words.remainder().is_empty() {
            h = fold(
                h ^ u64::from_le_bytes(b[n - 8..].try_into().expect("8 octets")),
                HK,
            );
        }
        self.0 = h;
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = fold(self.0 ^ (i as u64 | 0x100), HK);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = fold(self.0 ^ i as u64, HK);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32, FastState>,
    strings: Vec<(Box<str>, u32)>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
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
    fn order(&self) -> (Vec<u32>, Vec<u32>) {
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

#[derive(Clone, PartialEq, Eq, Hash)]
struct NameKey {
    ns: Box<str>,
    local: Box<str>,
    prefix: Box<str>,
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

/// Makes the uncompressed component-strings block of `doc`'s UPER encoding start on an octet
/// boundary: everything after `Document.children` up to the block is octets except the small
/// fields, so the misalignment is known from their sizes; each element that gets
/// `base-URI` `same-as-parent-element` (true without `xml:base`) adds one bit.
pub(crate) fn align_block(doc: &mut Val, refs: &crate::value::Refs) {
    use crate::per::uper_bits;
    use crate::schema::*;
    let V::Seq(f) = doc else { return };
    let tys = [
        DOC_CHILDREN,
        NOTATIONS,
        UNPARSEDS,
        STR_IDX,
        STR_IDX,
        BOOL,
        STR_IDX,
        BOOL,
    ];
    // the presence bits of base-URI, standalone and version, then the components before the
    // component-strings (whose count, URI and block length are whole octets)
    let mut bits = 3;
    for (ty, v) in tys.iter().zip(f.iter()) {
        if let Some(v) = v {
            bits += uper_bits(*ty, v, refs);
        }
    }
    let mut need = ((8 - bits % 8) % 8) as u32;
    if need == 0 {
        return;
    }
    let Some(V::List(children)) = &mut f[0] else {
        return;
    };
    for c in children.iter_mut() {
        if let V::Choice(0, root) = c {
            mark_base(root, &mut need);
        }
    }
}

/// Gives `el` and the elements under it `base-URI` `same-as-parent-element` (for a root: the
/// document's, absent), `need` of them, in document order.
fn mark_base(el: &mut Val, need: &mut u32) {
    crate::deep(|| {
        if *need == 0 {
            return;
        }
        let V::Seq(f) = el else { return };
        if f.len() == 6 && f[5].is_none() {
            f[5] = Some(V::choice(1, V::Null));
            *need -= 1;
        }
        if let Some(V::Choice(1, list)) = &mut f[1] {
            if let V::List(items) = &mut **list {
                for it in items.iter_mut() {
                    if *need == 0 {
                        return;
                    }
                    if let V::Choice(0, child) = it {
                        mark_base(child, need);
                    }
                }
            }
        }
    })
}

/// The cost class of common-name position `p` in PER: the root range (`0..16`), else the number
/// of octets of its unconstrained encoding.
fn name_band(p: usize) -> u32 {
    if p < 16 {
        0
    } else {
        (64 - (p as u64).leading_zeros()) / 8 + 1
    }
}

/// Reorders the common names (already most frequent first) within each cost class, so that
/// names with the same namespace and prefix are adjacent and their entries can say
/// `same-as-previous-item`: every name keeps the index size it had.
fn group_names(order: &mut [u32], list: &[(NameKey, u32)]) {
    let mut start = 0;
    while start < order.len() {
        let band = name_band(start);
        let mut end = start + 1;
        while end < order.len() && name_band(end) == band {
            end += 1;
        }
        let slice = &mut order[start..end];
        let mut first_ns: HashMap<&str, usize> = HashMap::new();
        let mut first_pair: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, &id) in slice.iter().enumerate() {
            let k = &list[id as usize].0;
            first_ns.entry(&k.ns).or_insert(i);
            first_pair.entry((&k.ns, &k.prefix)).or_insert(i);
        }
        let keys: HashMap<u32, (usize, usize, usize)> = slice
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let k = &list[id as usize].0;
                (id, (first_ns[&*k.ns], first_pair[&(&*k.ns, &*k.prefix)], i))
            })
            .collect();
        slice.sort_by_key(|id| keys[id]);
        start = end;
    }
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
    /// common names by the lengths of namespace and prefix (4 octets each), then namespace,
    /// prefix and local name
    names: HashMap<Box<[u8]>, u32, FastState>,
    name_key: Vec<u8>,
    name_list: Vec<(NameKey, u32)>,
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
}

impl Builder {
    pub fn new(opts: Options, format: Format) -> Self {
        Builder {
            opts,
            format,
            strings: Interner::default(),
            names: HashMap::default(),
            name_key: Vec::new(),
            name_list: Vec::new(),
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
        }
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
        if self.opts.strings_table && !text.is_empty() && !text.contains('\0') {
            V::StrRef(self.strings.intern(text))
        } else {
            V::choice(0, V::Text(Cow::Owned(text.to_owned())))
        }
    }

    /// A string of [`Flat`] (as [`Builder::s`] decides).
    fn sref(&mut self, text: &str) -> u32 {
        if self.opts.strings_table && !text.is_empty() && !text.contains('\0') {
            self.strings.intern(text)
        } else {
            let flat = self.flat.as_mut().expect("flat mode");
            let i = flat.inline.len() as u32;
            flat.inline.push(text.into());
            INLINE | i
        }
    }

    /// A name of [`Flat`] written inline (as [`Builder::element_name`] and
    /// [`Builder::attribute`] decide): `same` when its namespace is the parent's (owner's),
    /// `prev` when it is the previous attribute's.
    fn flat_inline_name(
        &mut self,
        ns: &str,
        local: &str,
        prefix: &str,
        same: bool,
        prev: bool,
    ) -> u32 {
        let ns = if ns.is_empty() {
            FNs::None
        } else if same {
            FNs::Same
        } else if prev {
            FNs::Prev
        } else {
            FNs::Str(self.sref(ns))
        };
        let local = self.sref(local);
        let prefix = if prefix.is_empty() {
            NO_STR
        } else {
            self.sref(prefix)
        };
        let flat = self.flat.as_mut().expect("flat mode");
        let i = flat.names.len() as u32;
        flat.names.push(FName { ns, local, prefix });
        INLINE | i
    }

    /// The in-scope namespaces of an ending element (list `list`) as a range of
    /// `Flat::scopes`, their strings interned as [`Builder::event`] does at `EndElement`.
    fn flat_scope(&mut self, list: u32, own: bool) -> (u32, u32) {
        let l = list as usize;
        if let Some((s, n)) = self.scope_lists[l].refs {
            // the same strings again: one more use each
            if self.opts.strings_table {
                let flat = self.flat.as_ref().expect("flat mode");
                for &(p, u) in &flat.scopes[s as usize..(s + n) as usize] {
                    for r in [p, u] {
                        if r != NO_STR && r & INLINE == 0 {
                            self.strings.strings[r as usize].1 += 1;
                        }
                    }
                }
            }
            return (s, n);
        }
        let entries = std::mem::take(&mut self.scope_lists[l].entries);
        let start = self.flat.as_ref().expect("flat mode").scopes.len() as u32;
        for (p, u) in &entries {
            let p = if p.is_empty() { NO_STR } else { self.sref(p) };
            let u = self.sref(u);
            self.flat.as_mut().expect("flat mode").scopes.push((p, u));
        }
        let refs = (start, entries.len() as u32);
        let sl = &mut self.scope_lists[l];
        sl.refs = Some(refs);
        // a list of the element's own is used by no later element
        if !own {
            sl.entries = entries;
        }
        refs
    }

    fn name_ref(&mut self, ns: &str, local: &str, prefix: &str) -> Val {
        V::choice(1, V::NameRef(self.name_id(ns, local, prefix)))
    }

    /// The common-name id of a name, counting one more use.
    fn name_id(&mut self, ns: &str, local: &str, prefix: &str) -> u32 {
        // looked up by one key in a reused buffer (no allocation but for a new name): the
        // lengths of namespace and prefix, then the three parts (the lengths keep it unique)
        let key = &mut self.name_key;
        key.clear();
        key.extend_from_slice(&(ns.len() as u32).to_le_bytes());
        key.extend_from_slice(&(prefix.len() as u32).to_le_bytes());
        key.extend_from_slice(ns.as_bytes());
        key.extend_from_slice(prefix.as_bytes());
        key.extend_from_slice(local.as_bytes());
        let id = match self.names.get(key.as_slice()) {
            Some(&id) => id,
            None => {
                let id = self.name_list.len() as u32;
                self.names.insert(key.as_slice().into(), id);
                self.name_list.push((
                    NameKey {
                        ns: ns.into(),
                        local: local.into(),
                        prefix: prefix.into(),
                    },
                    0,
                ));
                id
            }
        };
        self.name_list[id as usize].1 += 1;
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

    fn push_child(&mut self, child: Val, el_alt: u8, doc_alt: Option<u8>) -> Result<()> {
        match self.stack.last_mut() {
            Some(f) => {
                f.children.push(V::choice(el_alt, child));
                Ok(())
            }
            None => match doc_alt {
                Some(a) => {
                    self.doc_children.push(V::choice(a, child));
                    Ok(())
                }
                None => Err(self.unsupported("this item cannot be a child of the document")),
            },
        }
    }

    fn flush_text(&mut self) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.text);
        if self.stack.is_empty() {
            if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                return Ok(());
            }
            return Err(self.unsupported("character data outside an element"));
        }
        let v = self.s(&text);
        self.text = text;
        self.text.clear();
        self.push_child(
            V::Seq(vec![Some(V::choice(0, v)), Some(V::Bool(false))]),
            3,
            None,
        )
    }

    pub fn event(&mut self, ev: &Event<'_>) -> Result<()> {
        if self.flat.is_some() {
            return self.event_flat(ev);
        }
        match ev {
            Event::Characters { text, .. } => {
                self.text.push_str(text);
                return Ok(());
            }
            Event::Typed(Typed::Base64(b)) if !self.stack.is_empty() => {
                self.flush_text()?;
                let v = V::Seq(vec![
                    Some(V::choice(1, V::Bytes(Cow::Owned(b.to_vec())))),
                    Some(V::Bool(false)),
                ]);
                return self.push_child(v, 3, None);
            }
            Event::Typed(t) => {
                t.write_lexical(&mut self.text);
                return Ok(());
            }
            _ => self.flush_text()?,
        }
        match ev {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => {
                self.version = version.as_ref().map(|s| s.to_string());
                self.encoding = encoding.as_ref().map(|s| s.to_string());
                self.standalone = *standalone;
            }
            Event::EndDocument | Event::Characters { .. } | Event::Typed(_) => {}
            Event::DocType(d) => {
                let sys = d.system_id.as_ref().map(|s| self.s(s));
                let public = d.public_id.as_ref().map(|s| self.s(s));
                let mut pis = vec![];
                if let Some(subset) = &d.internal_subset {
                    // binxml convention: the internal subset's text travels as a DTD processing
                    // instruction with the reserved target `xml-internal-subset`
                    let t = self.s(INTERNAL_SUBSET_TARGET);
                    let c = self.s(subset);
                    pis.push(V::Seq(vec![
                        Some(t),
                        Some(c),
                        Some(V::choice(1, V::Null)),
                        None,
                    ]));
                }
                self.doc_children
                    .push(V::choice(3, V::Seq(vec![sys, public, Some(V::List(pis))])));
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                let name = self.s(name);
                let sys = system_id.as_ref().map(|s| self.s(s));
                let public = public_id.as_ref().map(|s| self.s(s));
                self.notations
                    .push(V::Seq(vec![Some(name), sys, public, None]));
            }
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => {
                let name = self.s(name);
                let sys = Some(self.s(system_id));
                let public = public_id.as_ref().map(|s| self.s(s));
                let notation = self.s(notation);
                self.unparsed.push(V::Seq(vec![
                    Some(name),
                    sys,
                    public,
                    None,
                    Some(notation),
                    None,
                ]));
            }
            Event::StartElement(q) => {
                // namespace names and in-scope namespaces are kept only where the value needs
                // them (no names table; explicit in-scope namespaces)
                let parent_ns = match self.stack.last() {
                    Some(f) if !self.opts.names_table => f.ns.clone(),
                    _ => String::new(),
                };
                let in_scope = match self.stack.last() {
                    _ if self.opts.scoped_namespaces => Vec::new(),
                    Some(f) => f.in_scope.clone(),
                    None => vec![("xml".to_string(), XML_NS.to_string())],
                };
                let name = self.element_name(&q.namespace, &q.local, &q.prefix, &parent_ns);
                self.stack.push(Frame {
                    ns: if self.opts.names_table {
                        String::new()
                    } else {
                        q.namespace.to_string()
                    },
                    name,
                    attrs: vec![],
                    ns_attrs: vec![],
                    children: vec![],
                    prev_attr_ns: None,
                    prev_nsattr_ns: None,
                    in_scope,
                });
            }
            Event::Namespace { prefix, uri } => {
                let Some(f) = self.stack.last() else {
                    return Err(self.unsupported("namespace outside an element"));
                };
                let prev = f.prev_nsattr_ns.clone();
                let (local, p) = if prefix.is_empty() {
                    ("xmlns", "")
                } else {
                    (&prefix[..], "xmlns")
                };
                let a = self.attribute(XMLNS_NS, local, p, uri, "", prev.as_deref());
                let f = self.stack.last_mut().unwrap();
                f.ns_attrs.push(a);
                if !self.opts.names_table {
                    f.prev_nsattr_ns = Some(XMLNS_NS.to_string());
                }
                if !self.opts.scoped_namespaces {
                    f.in_scope.retain(|(p, _)| p != &prefix[..]);
                    if !uri.is_empty() {
                        f.in_scope.push((prefix.to_string(), uri.to_string()));
                    }
                }
            }
            Event::Attribute { name, value } => {
                let Some(f) = self.stack.last() else {
                    return Err(self.unsupported("attribute outside an element"));
                };
                let (owner, prev) = (f.ns.clone(), f.prev_attr_ns.clone());
                if name.namespace == XML_NS && name.local == "base" {
                    self.has_xml_base = true;
                }
                let a = self.attribute(
                    &name.namespace,
                    &name.local,
                    &name.prefix,
                    value,
                    &owner,
                    prev.as_deref(),
                );
                let f = self.stack.last_mut().unwrap();
                f.attrs.push(a);
                if !self.opts.names_table {
                    f.prev_attr_ns = Some(name.namespace.to_string());
                }
            }
            Event::EndElement => {
                let Some(f) = self.stack.pop() else {
                    return Err(self.unsupported("unbalanced EndElement"));
                };
                let children = if self.opts.element_content_characters
                    && f.children.len() == 1
                    && matches!(&f.children[0], V::Choice(3, c) if matches!(&**c, V::Seq(s) if matches!(&s[0], Some(V::Choice(0, _)))))
                {
                    let Some(V::Choice(3, c)) = f.children.into_iter().next() else {
                        unreachable!()
                    };
                    let V::Seq(mut s) = *c else { unreachable!() };
                    let Some(V::Choice(0, v)) = s[0].take() else {
                        unreachable!()
                    };
                    V::choice(0, *v)
                } else {
                    V::choice(1, V::List(f.children))
                };
                let in_scope = if self.opts.scoped_namespaces {
                    V::choice(1, V::Null)
                } else {
                    let mut list = Vec::with_capacity(f.in_scope.len());
                    for (p, u) in &f.in_scope {
                        let p = if p.is_empty() { None } else { Some(self.s(p)) };
                        let u = self.s(u);
                        list.push(V::Seq(vec![p, Some(u)]));
                    }
                    V::choice(0, V::List(list))
                };
                let attrs = if f.attrs.is_empty() {
                    None
                } else {
                    Some(V::List(f.attrs))
                };
                let ns_attrs = if f.ns_attrs.is_empty() {
                    None
                } else {
                    Some(V::List(f.ns_attrs))
                };
                let el = V::Seq(vec![
                    Some(f.name),
                    Some(children),
                    attrs,
                    ns_attrs,
                    Some(in_scope),
                    None,
                ]);
                self.push_child(el, 0, Some(0))?;
            }
            Event::Comment(c) => {
                let v = V::Seq(vec![Some(self.s(c))]);
                self.push_child(v, 4, Some(2))?;
            }
            Event::ProcessingInstruction { target, data } => {
                let t = self.s(target);
                let d = self.s(data);
                let v = V::Seq(vec![Some(t), Some(d), Some(V::choice(1, V::Null)), None]);
                self.push_child(v, 1, Some(1))?;
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => {
                let name = self.s(name);
                let sys = system_id.as_ref().map(|s| V::choice(0, self.s(s)));
                let public = public_id.as_ref().map(|s| V::choice(0, self.s(s)));
                self.push_child(V::Seq(vec![Some(name), sys, public, None]), 2, None)?;
            }
            _ => return Err(self.unsupported("an event this encoder does not know")),
        }
        Ok(())
    }

    /// [`Builder::flush_text`] in flat mode.
    fn flush_text_flat(&mut self) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        if self.fstack.is_empty() {
            let text = std::mem::take(&mut self.text);
            if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                return Ok(());
            }
            return Err(self.unsupported("character data outside an element"));
        }
        let text = std::mem::take(&mut self.text);
        let r = self.sref(&text);
        self.text = text;
        self.text.clear();
        self.fstack.last_mut().expect("a frame").children += 1;
        self.flat
            .as_mut()
            .expect("flat mode")
            .ops
            .push(FOp::Text(r));
        Ok(())
    }

    /// [`Builder::push_child`] in flat mode.
    fn flat_child(&mut self, v: Val, el_alt: u8, doc_alt: Option<u8>) -> Result<()> {
        let alt = match self.fstack.last_mut() {
            Some(f) => {
                f.children += 1;
                el_alt
            }
            None => match doc_alt {
                Some(a) => a,
                None => return Err(self.unsupported("this item cannot be a child of the document")),
            },
        };
        let flat = self.flat.as_mut().expect("flat mode");
        if self.fstack.is_empty() {
            flat.doc_items += 1;
        }
        let i = flat.values.len() as u32;
        flat.values.push(v);
        flat.ops.push(FOp::Child(alt, i));
        Ok(())
    }

    /// A `StartElement` in flat mode (pending text already recorded).
    fn flat_start(&mut self, q: &QName<'_>) -> Result<()> {
        let ns_start = self.fns.len();
        let name = if self.opts.names_table {
            self.name_id(&q.namespace, &q.local, &q.prefix)
        } else {
            // the parent's namespace name is the last in `fns`
            let parent = self.fstack.last().map_or(ns_start, |p| p.ns_start);
            let same = q.namespace == self.fns[parent..];
            self.fns.push_str(&q.namespace);
            self.prev_attr_ns = None;
            self.flat_inline_name(&q.namespace, &q.local, &q.prefix, same, false)
        };
        let scope = self.fstack.last().map_or(0, |p| p.scope);
        let flat = self.flat.as_mut().expect("flat mode");
        let op = flat.ops.len();
        flat.ops.push(FOp::Start {
            name,
            attrs: flat.attrs.len() as u32,
            n_ns: 0,
            n_attrs: 0,
            children: 0,
            ecc: false,
        });
        self.fstack.push(FFrame {
            op,
            children: 0,
            n_ns: 0,
            n_attrs: 0,
            ns_start,
            scope,
            own_scope: false,
        });
        Ok(())
    }

    /// A `Namespace` in flat mode.
    fn flat_namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        match self.fstack.last() {
            None => return Err(self.unsupported("namespace outside an element")),
            Some(f) if f.children > 0 || f.n_attrs > 0 => {
                return Err(Error::invalid_events(
                    self.format,
                    "Namespace must follow StartElement, before its attributes",
                ));
            }
            _ => {}
        }
        let (local, p) = if prefix.is_empty() {
            ("xmlns", "")
        } else {
            (&prefix[..], "xmlns")
        };
        let name = if self.opts.names_table {
            self.name_id(XMLNS_NS, local, p)
        } else {
            // owner: none (`""`); previous: `xmlns`'s namespace after the first
            let prev = self.fstack.last().is_some_and(|f| f.n_ns > 0);
            self.flat_inline_name(XMLNS_NS, local, p, false, prev)
        };
        let value = self.sref(uri);
        self.flat
            .as_mut()
            .expect("flat mode")
            .attrs
            .push((name, value));
        let f = self.fstack.last_mut().expect("a frame");
        f.n_ns += 1;
        if !self.opts.scoped_namespaces {
            if !f.own_scope {
                let entries = self.scope_lists[f.scope as usize].entries.clone();
                f.scope = self.scope_lists.len() as u32;
                f.own_scope = true;
                self.scope_lists.push(ScopeList {
                    entries,
                    refs: None,
                });
            }
            let list = &mut self.scope_lists[f.scope as usize].entries;
            list.retain(|(p, _)| **p != *prefix);
            if !uri.is_empty() {
                list.push((prefix[..].into(), uri[..].into()));
            }
        }
        Ok(())
    }

    /// An `Attribute` in flat mode.
    fn flat_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        match self.fstack.last() {
            None => return Err(self.unsupported("attribute outside an element")),
            Some(f) if f.children > 0 => {
                return Err(Error::invalid_events(
                    self.format,
                    "Attribute outside a start tag",
                ));
            }
            _ => {}
        }
        if name.namespace == XML_NS && name.local == "base" {
            self.has_xml_base = true;
        }
        let n = if self.opts.names_table {
            self.name_id(&name.namespace, &name.local, &name.prefix)
        } else {
            let f = self.fstack.last().expect("a frame");
            let same = name.namespace == self.fns[f.ns_start..];
            let prev = self.prev_attr_ns.as_deref() == Some(&name.namespace[..]);
            let n = self.flat_inline_name(&name.namespace, &name.local, &name.prefix, same, prev);
            let p = self.prev_attr_ns.get_or_insert_with(String::new);
            p.clear();
            p.push_str(&name.namespace);
            n
        };
        let v = self.sref(value);
        self.flat.as_mut().expect("flat mode").attrs.push((n, v));
        self.fstack.last_mut().expect("a frame").n_attrs += 1;
        Ok(())
    }

    /// An `EndElement` in flat mode (pending text already recorded).
    fn flat_end(&mut self) -> Result<()> {
        let Some(f) = self.fstack.pop() else {
            return Err(self.unsupported("unbalanced EndElement"));
        };
        if !self.opts.names_table {
            self.fns.truncate(f.ns_start);
        }
        let (scope, n_scope) = if self.opts.scoped_namespaces {
            (0, 0)
        } else {
            self.flat_scope(f.scope, f.own_scope)
        };
        let flat = self.flat.as_mut().expect("flat mode");
        let ecc = self.opts.element_content_characters
            && f.children == 1
            && matches!(flat.ops.last(), Some(FOp::Text(_)));
        if let FOp::Start {
            n_ns,
            n_attrs,
            children,
            ecc: e,
            ..
        } = &mut flat.ops[f.op]
        {
            (*n_ns, *n_attrs, *children, *e) = (f.n_ns, f.n_attrs, f.children, ecc);
        }
        flat.ops.push(FOp::End {
            start: f.op as u32,
            scope,
            n_scope,
        });
        match self.fstack.last_mut() {
            Some(p) => p.children += 1,
            None => flat.doc_items += 1,
        }
        Ok(())
    }

    /// [`Builder::event`] in flat mode: the same strings and names interned in the same order.
    fn event_flat(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::Characters { text, .. } => {
                self.text.push_str(text);
                return Ok(());
            }
            Event::Typed(Typed::Base64(b)) if !self.fstack.is_empty() => {
                self.flush_text_flat()?;
                let v = V::Seq(vec![
                    Some(V::choice(1, V::Bytes(Cow::Owned(b.to_vec())))),
                    Some(V::Bool(false)),
                ]);
                return self.flat_child(v, 3, None);
            }
            Event::Typed(t) => {
                t.write_lexical(&mut self.text);
                return Ok(());
            }
            _ => self.flush_text_flat()?,
        }
        match ev {
            Event::StartElement(q) => self.flat_start(q)?,
            Event::Namespace { prefix, uri } => self.flat_namespace(prefix, uri)?,
            Event::Attribute { name, value } => self.flat_attribute(name, value)?,
            Event::EndElement => self.flat_end()?,
            Event::Comment(c) => {
                let v = V::Seq(vec![Some(self.s(c))]);
                self.flat_child(v, 4, Some(2))?;
            }
            Event::ProcessingInstruction { target, data } => {
                let t = self.s(target);
                let d = self.s(data);
                let v = V::Seq(vec![Some(t), Some(d), Some(V::choice(1, V::Null)), None]);
                self.flat_child(v, 1, Some(1))?;
            }
            Event::EntityReference { .. } => {
                if self.fstack.is_empty() {
                    return Err(self.unsupported("this item cannot be a child of the document"));
                }
                // the value as the generic path builds it
                self.flat_generic(ev, 2)?;
            }
            Event::DocType(_) => {
                if !self.fstack.is_empty() {
                    return Err(Error::invalid_events(
                        self.format,
                        "DocType inside an element",
                    ));
                }
                self.flat_generic(ev, 3)?;
            }
            Event::StartDocument { .. }
            | Event::Notation { .. }
            | Event::UnparsedEntity { .. }
            | Event::EndDocument
            | Event::Characters { .. }
            | Event::Typed(_) => {
                // not about elements: the generic path (which holds no elements in flat mode)
                let flat = self.flat.take();
                let r = self.event(ev);
                self.flat = flat;
                r?;
            }
            _ => return Err(self.unsupported("an event this encoder does not know")),
        }
        Ok(())
    }

    /// An entity reference (in an element) or a DOCTYPE (at document level) built by the
    /// generic path, moved into the flat operations as child alternative `alt`.
    fn flat_generic(&mut self, ev: &Event<'_>, alt: u8) -> Result<()> {
        let flat = self.flat.take();
        let saved = std::mem::take(&mut self.doc_children);
        // the generic path pushes an entity reference to its innermost element: give it one
        let pushed_frame = matches!(ev, Event::EntityReference { .. });
        if pushed_frame {
            self.stack.push(Frame {
                ns: String::new(),
                name: V::Null,
                attrs: vec![],
                ns_attrs: vec![],
                children: vec![],
                prev_attr_ns: None,
                prev_nsattr_ns: None,
                in_scope: vec![],
            });
        }
        let r = self.event(ev);
        let v = if pushed_frame {
            self.stack.pop().and_then(|f| f.children.into_iter().next())
        } else {
            self.doc_children.pop()
        };
        self.doc_children = saved;
        self.flat = flat;
        r?;
        let Some(V::Choice(_, v)) = v else {
            return Err(Error::invalid_events(self.format, "internal: flat child"));
        };
        self.flat_child(*v, alt, Some(alt))
    }

    /// The finished abstract value of `Document`, with its tables, and the sizes of its parts.
    pub fn finish(self) -> Result<(Val, Stats)> {
        let (mut doc, stats, refs) = self.finish_refs()?;
        if !refs.strings.is_empty() || !refs.names.is_empty() {
            let texts: Vec<&str> = refs.texts.iter().map(|s| &**s).collect();
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
        if self.opts.names_table {
            let mut order: Vec<u32> = (0..self.name_list.len() as u32).collect();
            order.sort_by(|&a, &b| {
                self.name_list[b as usize]
                    .1
                    .cmp(&self.name_list[a as usize].1)
                    .then(a.cmp(&b))
            });
            group_names(&mut order, &self.name_list);
            name_perm = vec![0u32; order.len()];
            let list = std::mem::take(&mut self.name_list);
            let mut prev: Option<&NameKey> = None;
            for (pos, &id) in order.iter().enumerate() {
                name_perm[id as usize] = pos as u32;
                let k = &list[id as usize].0;
                let ns = if k.ns.is_empty() {
                    None
                } else if prev.is_some_and(|p| p.ns == k.ns) {
                    Some(V::choice(1, V::Null))
                } else {
                    Some(V::choice(0, self.s(&k.ns)))
                };
                let local = self.s(&k.local);
                let prefix = if k.prefix.is_empty() {
                    None
                } else if prev.is_some_and(|p| p.prefix == k.prefix) {
                    Some(V::choice(1, V::Null))
                } else {
                    Some(V::choice(0, self.s(&k.prefix)))
                };
                common.push(V::Seq(vec![ns, Some(local), prefix]));
                prev = Some(k);
            }
            stats.names = common.len();
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
                    let (s, c) = &self.strings.strings[id as usize];
                    let (l, c, p) = (s.len() as u64, *c as u64, kept.len() as u64);
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
            let block = table::build_block(
                order
                    .iter()
                    .map(|&id| &*self.strings.strings[id as usize].0),
            );
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
            texts: std::mem::take(&mut self.strings.strings)
                .into_iter()
                .map(|(s, _)| s)
                .collect(),
            names: name_perm,
        };
        let align = self.opts.rule == crate::Rule::Uper
            && self.opts.align_strings
            && self.opts.compression == table::Compression::None
            && stats.strings > 0
            && !self.has_xml_base;
        Ok((doc, stats, refs, self.flat.take(), align))
    }
}
