//! The internal DTD subset: what a non-validating processor must read from it, and its
//! well-formedness.
//!
//! General entity declarations (internal replacement text, external ids, unparsed entities),
//! attribute-list declarations (types and defaults) and notations are kept. Every declaration is
//! checked against its production, element declarations and their content models included (and
//! then dropped: a non-validating processor has no use for them), as are comments, processing
//! instructions, public identifiers, entity values and attribute defaults. Parameter entities
//! declared in the internal subset are expanded between declarations; inside a declaration a
//! reference to one is an error (WFC: PEs in Internal Subset). A reference to a parameter entity
//! that is not read (external, or undeclared where that is allowed) stops the processing of later
//! ENTITY and ATTLIST declarations unless the document is standalone, as XML 1.0 section 5.1
//! requires. Errors carry the offset of the declaration they are in. Nothing external is ever
//! fetched.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use binxml_core::hash::{FastState, bytes_eq};

use crate::names;

/// A general entity declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Entity {
    /// Internal entity: the replacement text (character references already replaced).
    Internal(String),
    /// External parsed entity: never fetched.
    External {
        /// The public identifier, if declared.
        public_id: Option<String>,
        /// The system identifier (as written, not resolved).
        system_id: String,
    },
    /// Unparsed entity (NDATA).
    Unparsed {
        /// The public identifier, if declared.
        public_id: Option<String>,
        /// The system identifier (as written, not resolved).
        system_id: String,
        /// The notation named after `NDATA`.
        notation: String,
    },
}

/// One attribute declared in an ATTLIST.
#[derive(Clone, Debug, PartialEq)]
pub struct AttDef {
    /// The attribute's qualified name as written.
    pub name: String,
    /// `true` for CDATA (no whitespace collapsing); other types are tokenized.
    pub cdata: bool,
    /// The default value (from a literal or #FIXED), `None` for #IMPLIED and #REQUIRED.
    pub default: Option<String>,
}

/// The attributes declared for one element, with what a start tag needs to know at once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttList {
    /// The declarations, in order.
    pub defs: Vec<AttDef>,
    /// Some declared attribute is not CDATA (its value is normalised as tokens).
    pub tokenized: bool,
    /// Some attribute other than a namespace declaration has a default.
    pub defaults: bool,
    /// Some namespace declaration (`xmlns`, `xmlns:p`) has a default.
    pub default_xmlns: bool,
    /// Bit `min(n, 63)` set for each length `n` of a tokenized attribute's name: most
    /// attributes of a declared element are told to be CDATA by their length alone, without
    /// a search of `defs` (an `ID` declared for every element, `id`, and the others).
    tokenized_lengths: u64,
}

impl AttList {
    /// Adds a declaration unless the attribute is declared already (the first wins).
    fn add(&mut self, d: AttDef) {
        if self.defs.iter().any(|x| x.name == d.name) {
            return;
        }
        self.tokenized |= !d.cdata;
        if !d.cdata {
            self.tokenized_lengths |= length_bit(&d.name);
        }
        if d.default.is_some() {
            if d.name == "xmlns" || d.name.starts_with("xmlns:") {
                self.default_xmlns = true;
            } else {
                self.defaults = true;
            }
        }
        self.defs.push(d);
    }

    /// Whether attribute `name`'s value is CDATA (an undeclared one is).
    #[inline]
    pub fn is_cdata(&self, name: &str) -> bool {
        self.tokenized_lengths & length_bit(name) == 0
            || self
                .defs
                .iter()
                .find(|x| bytes_eq(x.name.as_bytes(), name.as_bytes()))
                .is_none_or(|x| x.cdata)
    }
}

/// The bit of [`AttList::tokenized_lengths`] for a name.
#[inline(always)]
fn length_bit(name: &str) -> u64 {
    1 << name.len().min(63)
}

/// Element qualified name -> declared attributes: looked up once per start tag of a document
/// with attribute declarations, so built for that lookup. Open addressing over a seeded
/// [`FastState`] hash (colliding names cannot be prepared in advance), each name compared by
/// its stored hash first and then by [`bytes_eq`] (not libc's `memcmp`, which costs more than
/// the rest of the lookup on names this short).
#[derive(Clone, Debug, Default)]
pub struct AttLists {
    /// (hash, element name's range in `names`, its declarations), in order of first
    /// declaration.
    lists: Vec<(u64, std::ops::Range<usize>, Rc<AttList>)>,
    /// The element names, one after the other (one allocation for them all).
    names: String,
    /// Index + 1 into `lists`, 0 for an empty slot; a power of two, at most half full.
    slots: Vec<u32>,
    state: FastState,
    /// Some element has a defaulted attribute (a namespace declaration included).
    defaults: bool,
}

impl AttLists {
    fn hash(&self, name: &str) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = self.state.build_hasher();
        h.write(name.as_bytes());
        h.finish()
    }

    /// The slot of `name`: where it is, or the empty slot where it would go.
    #[inline(always)]
    fn slot(&self, h: u64, name: &str) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            match self.slots[i] {
                0 => return i,
                s => {
                    let (eh, en, _) = &self.lists[s as usize - 1];
                    if *eh == h && bytes_eq(&self.names.as_bytes()[en.clone()], name.as_bytes()) {
                        return i;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The declarations of element `name`, if any.
    #[inline(never)]
    pub fn get(&self, name: &str) -> Option<&Rc<AttList>> {
        if self.lists.is_empty() {
            return None;
        }
        let h = self.hash(name);
        match self.slots[self.slot(h, name)] {
            0 => None,
            s => Some(&self.lists[s as usize - 1].2),
        }
    }

    /// Index + 1 of the declarations of element `name`, 0 if it has none.
    fn index_of(&self, name: &str) -> u32 {
        if self.lists.is_empty() {
            return 0;
        }
        let h = self.hash(name);
        self.slots[self.slot(h, name)]
    }

    /// The declarations at index + 1 `list` (none for 0).
    #[inline]
    fn list(&self, list: u32) -> Option<&Rc<AttList>> {
        list.checked_sub(1).map(|k| &self.lists[k as usize].2)
    }

    /// No element has declarations.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Some element has a defaulted attribute: a start tag without attributes then still needs
    /// its element's declarations (without one, it needs none).
    #[inline]
    pub fn any_defaults(&self) -> bool {
        self.defaults
    }

    /// The declarations of element `name`, added empty if it has none yet.
    fn get_or_add(&mut self, name: &str) -> &mut Rc<AttList> {
        if (self.lists.len() + 1) * 2 > self.slots.len() {
            let n = (self.slots.len() * 2).max(64);
            self.slots = vec![0; n];
            for k in 0..self.lists.len() {
                let (h, r, _) = &self.lists[k];
                let i = self.slot(*h, &self.names[r.clone()]);
                self.slots[i] = k as u32 + 1;
            }
        }
        let h = self.hash(name);
        let i = self.slot(h, name);
        if self.slots[i] == 0 {
            let start = self.names.len();
            self.names.push_str(name);
            self.lists.push((h, start..self.names.len(), Rc::default()));
            self.slots[i] = self.lists.len() as u32;
        }
        let k = self.slots[i] as usize - 1;
        &mut self.lists[k].2
    }
}

/// Names longer than this are looked up in [`AttLists`] each time, not remembered.
const CACHED_NAME: usize = 24;

/// The cache's slots (a power of two).
const CACHE_SLOTS: usize = 64;

/// A name of at most [`CACHED_NAME`] octets as its length and three words that together hold
/// every octet: the first 8, the 8 from offset 8 (or the last 8 of a name of 16 or fewer) and
/// the last 8 (fewer for names under 8 octets), so that two names are equal exactly when their
/// keys are.
#[derive(Clone, Copy, Debug, Default)]
struct NameKey {
    len: u64,
    words: [u64; 3],
}

impl NameKey {
    #[inline(always)]
    fn of(b: &[u8]) -> NameKey {
        let n = b.len();
        let w8 = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 octets"));
        let w4 = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 octets")) as u64;
        let words = if n >= 8 {
            [w8(0), w8(8.min(n - 8)), w8(n - 8)]
        } else if n >= 4 {
            [w4(0), w4(n - 4), 0]
        } else if n > 0 {
            [b[0] as u64, b[n / 2] as u64, b[n - 1] as u64]
        } else {
            [0; 3]
        };
        NameKey {
            len: n as u64,
            words,
        }
    }

    /// Equality in scalar operations (a derived comparison reads the key back from memory
    /// as vectors, which stalls on the stores that just wrote it).
    #[inline(always)]
    fn same(&self, o: &NameKey) -> bool {
        ((self.len ^ o.len)
            | (self.words[0] ^ o.words[0])
            | (self.words[1] ^ o.words[1])
            | (self.words[2] ^ o.words[2]))
            == 0
    }
}

/// One remembered lookup: the element name's key and the index + 1 of its declarations in
/// [`AttLists`] (0: none). A slot never filled has length 0, which no element name has.
#[derive(Clone, Copy, Debug, Default)]
struct CacheSlot {
    key: NameKey,
    list: u32,
}

/// The element names of a document's start tags looked up in its [`AttLists`], remembered:
/// a document uses few element names, and a remembered one is found by one multiplication and
/// a comparison of three words instead of the table's seeded hash, probe and string
/// comparison. Direct-mapped by an unseeded hash: names that collide here only evict each
/// other (each is still found in the table), so no input makes a lookup cost more than the
/// table's.
#[derive(Clone, Debug, Default)]
pub struct AttListCache {
    /// Empty until the first lookup.
    slots: Vec<CacheSlot>,
}

impl AttListCache {
    /// The declarations of element `name` in `lists`, if any.
    #[inline(always)]
    pub fn get<'l>(&mut self, lists: &'l AttLists, name: &str) -> Option<&'l Rc<AttList>> {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > CACHED_NAME {
            return lists.get(name);
        }
        if self.slots.is_empty() {
            self.fill();
        }
        let key = NameKey::of(b);
        let [x, y, z] = key.words;
        let mix = (x ^ y.rotate_left(21) ^ z.rotate_left(43) ^ key.len)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut self.slots[(mix >> 58) as usize % CACHE_SLOTS];
        if slot.key.same(&key) {
            return lists.list(slot.list);
        }
        Self::miss(slot, key, lists, name)
    }

    /// A name not in its slot: looked up in the table, and put in the slot.
    #[cold]
    #[inline(never)]
    fn miss<'l>(
        slot: &mut CacheSlot,
        key: NameKey,
        lists: &'l AttLists,
        name: &str,
    ) -> Option<&'l Rc<AttList>> {
        let list = lists.index_of(name);
        *slot = CacheSlot { key, list };
        lists.list(list)
    }

    /// The slots, made on the first lookup.
    #[cold]
    #[inline(never)]
    fn fill(&mut self) {
        self.slots = vec![CacheSlot::default(); CACHE_SLOTS];
    }
}

/// What the internal DTD subset declares ([`Dtd::parse`]): general entities, attribute defaults
/// and notations.
#[derive(Clone, Debug, Default)]
pub struct Dtd {
    /// General entities by name (the first declaration of a name wins, as XML 1.0 says).
    pub entities: HashMap<String, Entity, FastState>,
    /// Element qualified name -> declared attributes (first declaration wins).
    pub attlists: AttLists,
    /// Notations, in declaration order: (name, public identifier, system identifier).
    pub notations: Vec<(String, Option<String>, Option<String>)>,
    /// True when an unread parameter entity reference stopped declaration processing.
    pub skipped_declarations: bool,
    /// True when the subset holds a parameter-entity reference: an undeclared general entity is
    /// then no longer a well-formedness error (WFC: Entity Declared).
    pub parameter_references: bool,
}

/// The parts of a `<!DOCTYPE ...>` declaration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DoctypeParts<'a> {
    pub name: &'a str,
    pub public_id: Option<&'a str>,
    pub system_id: Option<&'a str>,
    pub internal_subset: Option<&'a str>,
}

/// An error in the internal subset: what is wrong, and the byte offset (in the text given to
/// [`Dtd::parse`]) of the declaration or parameter-entity reference it is in.
#[derive(Clone, Debug, PartialEq)]
pub struct DtdError {
    /// The offset of the offending declaration.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for DtdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at offset {})", self.message, self.offset)
    }
}

/// Content models nested deeper than this are refused (the parser recurses on them).
const MAX_GROUP_DEPTH: usize = 128;

/// Parameter entities expanded inside each other deeper than this are refused.
const MAX_PE_DEPTH: usize = 16;

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }
    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
        self.pos > start
    }
    /// White space that the grammar requires here (`what` is formatted only on an error).
    fn req_ws(&mut self, what: impl std::fmt::Display) -> Result<(), String> {
        if self.skip_ws() {
            Ok(())
        } else {
            Err(format!("white space required {what}"))
        }
    }
    /// Whether the rest starts with `lit` (compared without libc's `memcmp`, slow to start on
    /// literals this short).
    fn at(&self, lit: &str) -> bool {
        self.rest()
            .as_bytes()
            .get(..lit.len())
            .is_some_and(|p| bytes_eq(p, lit.as_bytes()))
    }
    fn eat(&mut self, lit: &str) -> bool {
        if self.at(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, lit: &str, what: impl std::fmt::Display) -> Result<(), String> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(format!("expected '{lit}' {what}"))
        }
    }
    /// A `Name` ([5]).
    fn name(&mut self) -> Result<&'a str, String> {
        let r = self.rest();
        let n = names::name_len(r);
        if n == 0 {
            let shown: String = r.chars().take(12).collect();
            return Err(format!("expected a name, found {shown:?}"));
        }
        self.pos += n;
        Ok(&r[..n])
    }
    /// An `Nmtoken` ([7]).
    fn nmtoken(&mut self) -> Result<&'a str, String> {
        let r = self.rest();
        let n = names::name_chars_len(r);
        if n == 0 {
            return Err("expected a name token".into());
        }
        self.pos += n;
        Ok(&r[..n])
    }
    /// A keyword such as `EMPTY` or `#REQUIRED`: the literal, not followed by a name character.
    fn keyword(&mut self, lit: &str) -> bool {
        if self.at(lit)
            && !self.rest()[lit.len()..]
                .chars()
                .next()
                .is_some_and(names::is_name_char)
        {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn quoted(&mut self) -> Result<&'a str, String> {
        let r = self.rest();
        let q = match r.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => q as char,
            Some(_) => return Err("expected a quoted literal".into()),
            None => return Err("unexpected end of the declaration".into()),
        };
        let end = r[1..].find(q).ok_or("unterminated literal")?;
        self.pos += end + 2;
        Ok(&r[1..1 + end])
    }
}

/// Splits the content of a DOCTYPE declaration (what follows `<!DOCTYPE`: ` name PUBLIC "p" "s"
/// [subset]`), checking its syntax (the internal subset aside).
pub fn split_doctype(content: &str) -> Result<DoctypeParts<'_>, String> {
    let mut c = Cursor { s: content, pos: 0 };
    c.req_ws("after <!DOCTYPE")?;
    let name = c.name()?;
    let mut parts = DoctypeParts {
        name,
        ..Default::default()
    };
    let ws = c.skip_ws();
    if c.rest().starts_with("PUBLIC") || c.rest().starts_with("SYSTEM") {
        if !ws {
            return Err("white space required before the external identifier".into());
        }
        let (public_id, system_id) = external_id(&mut c, false)?;
        parts.public_id = public_id;
        parts.system_id = system_id;
        c.skip_ws();
    }
    if c.eat("[") {
        let start = c.pos;
        let end = content
            .rfind(']')
            .filter(|&e| e >= start)
            .ok_or("internal subset without ']'")?;
        parts.internal_subset = Some(&content[start..end]);
        c.pos = end + 1;
        c.skip_ws();
    }
    if !c.rest().is_empty() {
        let shown: String = c.rest().chars().take(20).collect();
        return Err(format!("unexpected text in the DOCTYPE: {shown:?}"));
    }
    Ok(parts)
}

/// `PUBLIC "p" "s"` or `SYSTEM "s"`; `PUBLIC "p"` alone where `public_only` (notations).
fn external_id<'a>(
    c: &mut Cursor<'a>,
    public_only: bool,
) -> Result<(Option<&'a str>, Option<&'a str>), String> {
    if c.keyword("PUBLIC") {
        c.req_ws("after PUBLIC")?;
        let p = c.quoted()?;
        if let Some(bad) = p.chars().find(|&ch| !is_pubid_char(ch)) {
            return Err(format!("{bad:?} is not allowed in a public identifier"));
        }
        let ws = c.skip_ws();
        if matches!(c.peek(), Some(b'"' | b'\'')) {
            if !ws {
                return Err("white space required before the system literal".into());
            }
            return Ok((Some(p), Some(c.quoted()?)));
        }
        if !public_only {
            return Err("public identifier without a system literal".into());
        }
        Ok((Some(p), None))
    } else if c.keyword("SYSTEM") {
        c.req_ws("after SYSTEM")?;
        Ok((None, Some(c.quoted()?)))
    } else {
        Err("expected PUBLIC or SYSTEM".into())
    }
}

/// `PubidChar` ([13]).
pub(crate) fn is_pubid_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || " \r\n-'()+,./:=?;!*#@$_%".contains(c)
}

pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// The character of a character reference's digits (`60`, `x3C`), if it is an XML character.
fn char_ref_value(num: &str) -> Option<char> {
    let code = match num.strip_prefix('x') {
        Some(h) if !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()) => {
            u32::from_str_radix(h, 16).ok()?
        }
        None if !num.is_empty() && num.bytes().all(|c| c.is_ascii_digit()) => {
            num.parse::<u32>().ok()?
        }
        _ => return None,
    };
    char::from_u32(code).filter(|&c| is_xml_char(c))
}

/// The reference at the start of `s` (just after its `&`): `Some(c)` for a character reference,
/// `None` for an entity reference `name;`; and the length of what follows the `&`.
fn reference(s: &str) -> Result<(Option<char>, usize), String> {
    let end = s
        .find(';')
        .ok_or("'&' not starting a reference (write &amp;)")?;
    let body = &s[..end];
    if let Some(num) = body.strip_prefix('#') {
        let c = char_ref_value(num).ok_or(format!("bad character reference &{body};"))?;
        Ok((Some(c), end + 1))
    } else if names::is_name(body) {
        Ok((None, end + 1))
    } else {
        Err("'&' not starting a reference (write &amp;)".into())
    }
}

/// The entity references (`&name;`) in `s`, after checking that every `&` starts a well-formed
/// reference.
fn entity_refs(s: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        let (ch, len) = reference(&rest[i + 1..])?;
        if ch.is_none() {
            out.push(&rest[i + 1..i + len]);
        }
        rest = &rest[i + 1 + len..];
    }
    Ok(out)
}

/// An internal entity's replacement text from its literal: character references replaced,
/// entity references kept (they are expanded where the entity is used). Parameter-entity
/// references may not occur inside declarations in the internal subset.
fn entity_value(lit: &str) -> Result<String, String> {
    if lit.contains('%') {
        return Err(
            "parameter-entity reference in an entity value (not allowed in the internal subset)"
                .into(),
        );
    }
    let mut out = String::with_capacity(lit.len());
    let mut rest = lit;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let (ch, len) = reference(&rest[i + 1..])?;
        match ch {
            Some(c) => out.push(c),
            None => out.push_str(&rest[i..i + 1 + len]),
        }
        rest = &rest[i + 1 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The state of one parse of an internal subset.
struct Parser {
    dtd: Dtd,
    /// Parameter entities: replacement text, or `None` for an external one (never read).
    pes: HashMap<String, Option<String>>,
    /// The parameter entities being expanded (a reference to one of them is recursive).
    pe_stack: Vec<String>,
    standalone: bool,
    /// The DOCTYPE names an external subset (never read).
    external: bool,
    used: usize,
    budget: usize,
    /// The definitions of the ATTLIST being read.
    defs: Vec<AttDef>,
}

impl Dtd {
    /// Reads an internal subset. `standalone`: the document's standalone declaration;
    /// `external`: the DOCTYPE names an external subset (never read); `budget` bounds the total
    /// bytes of parameter-entity expansion.
    pub fn parse(
        subset: &str,
        standalone: bool,
        external: bool,
        budget: usize,
    ) -> Result<Dtd, DtdError> {
        let mut p = Parser {
            dtd: Dtd::default(),
            pes: HashMap::new(),
            pe_stack: Vec::new(),
            standalone,
            external,
            used: 0,
            budget,
            defs: Vec::new(),
        };
        p.decls(subset, None)?;
        Ok(p.dtd)
    }
}

impl Parser {
    /// The declarations and parameter-entity references of `text`: the internal subset, or
    /// (`at`: the offset of the reference) a parameter entity's replacement text.
    fn decls(&mut self, text: &str, at: Option<usize>) -> Result<(), DtdError> {
        let mut c = Cursor { s: text, pos: 0 };
        loop {
            c.skip_ws();
            if c.rest().is_empty() {
                return Ok(());
            }
            let offset = at.unwrap_or(c.pos);
            let r = if c.eat("%") {
                self.pe_reference(&mut c, offset)
            } else {
                self.markup_decl(&mut c)
            };
            r.map_err(|e| match e {
                Nested(e) => e,
                Here(message) => DtdError { offset, message },
            })?;
        }
    }

    /// A parameter-entity reference between declarations: its replacement text is read as
    /// declarations.
    fn pe_reference(&mut self, c: &mut Cursor<'_>, offset: usize) -> Result<(), Failure> {
        let name = c.name()?;
        c.expect(
            ";",
            format_args!("after the parameter-entity reference %{name}"),
        )?;
        let had_refs = self.dtd.parameter_references;
        self.dtd.parameter_references = true;
        match self.pes.get(name).cloned() {
            Some(Some(text)) => {
                if self.pe_stack.iter().any(|n| n == name) {
                    return Err(Here(format!(
                        "recursive parameter-entity reference %{name};"
                    )));
                }
                if self.pe_stack.len() >= MAX_PE_DEPTH {
                    return Err(Here("parameter entities nested too deeply".into()));
                }
                self.used = self.used.saturating_add(text.len());
                if self.used > self.budget {
                    return Err(Here("parameter-entity expansion exceeds the limit".into()));
                }
                self.pe_stack.push(name.to_string());
                let r = self.decls(&text, Some(offset)).map_err(|mut e| {
                    e.message = format!("in %{name};: {}", e.message);
                    Nested(e)
                });
                self.pe_stack.pop();
                r
            }
            // An external parameter entity, never read: what it declares is unknown, so the
            // declarations after it are not processed (XML 1.0 section 5.1).
            Some(None) => {
                if !self.standalone {
                    self.dtd.skipped_declarations = true;
                }
                Ok(())
            }
            // Undeclared: a well-formedness error only where every declaration was read
            // (WFC: Entity Declared); otherwise as unread.
            None if self.standalone || (!self.external && !had_refs) => {
                Err(Here(format!("undeclared parameter entity %{name};")))
            }
            None => {
                self.dtd.skipped_declarations = true;
                Ok(())
            }
        }
    }

    fn markup_decl(&mut self, c: &mut Cursor<'_>) -> Result<(), Failure> {
        if c.eat("<!--") {
            let end = c.rest().find("--").ok_or("unterminated comment")?;
            c.pos += end;
            c.expect("-->", "('--' inside a comment)")?;
        } else if c.eat("<?") {
            let target = no_colon(c.name()?, "processing instruction target")?;
            if target.eq_ignore_ascii_case("xml") {
                return Err(Here(
                    "an XML declaration (or a processing instruction named xml) in the DTD".into(),
                ));
            }
            if !c.eat("?>") {
                c.req_ws(format_args!(
                    "after the processing instruction target {target:?}"
                ))?;
                let end = c
                    .rest()
                    .find("?>")
                    .ok_or("unterminated processing instruction")?;
                c.pos += end + 2;
            }
        } else if c.eat("<![") {
            return Err(Here(
                "conditional section in the internal subset (allowed only in the external subset)"
                    .into(),
            ));
        } else if c.keyword("<!ENTITY") {
            self.entity_decl(c)?;
        } else if c.keyword("<!ATTLIST") {
            self.attlist_decl(c)?;
        } else if c.keyword("<!ELEMENT") {
            element_decl(c)?;
        } else if c.keyword("<!NOTATION") {
            c.req_ws("after <!NOTATION")?;
            let name = no_colon(c.name()?, "notation")?;
            c.req_ws(format_args!("after the notation name {name}"))?;
            let (public_id, system_id) = external_id(c, true)?;
            c.skip_ws();
            c.expect(
                ">",
                format_args!("to close the declaration of notation {name}"),
            )?;
            self.dtd.notations.push((
                name,
                public_id.map(str::to_string),
                system_id.map(str::to_string),
            ));
        } else {
            let shown: String = c.rest().chars().take(20).collect();
            return Err(Here(format!(
                "unexpected text in the internal subset: {shown:?}"
            )));
        }
        Ok(())
    }

    fn entity_decl(&mut self, c: &mut Cursor<'_>) -> Result<(), String> {
        c.req_ws("after <!ENTITY")?;
        let pe = c.eat("%");
        if pe {
            c.req_ws("after '%' in a parameter-entity declaration")?;
        }
        // A colon is allowed here, unlike in notation names and PI targets: the XML suite's
        // namespace-aware tests declare entities with colons in their names (ibm05v05).
        let name = c.name()?.to_string();
        c.req_ws(format_args!("after the entity name {name}"))?;
        let decl = if matches!(c.peek(), Some(b'"' | b'\'')) {
            let value = entity_value(c.quoted()?)?;
            Entity::Internal(value)
        } else {
            let (public_id, system_id) = external_id(c, false)?;
            let (public_id, system_id) = (
                public_id.map(str::to_string),
                system_id.unwrap_or_default().to_string(),
            );
            let ws = c.skip_ws();
            if c.keyword("NDATA") {
                if pe {
                    return Err(format!("parameter entity %{name} declared with NDATA"));
                }
                if !ws {
                    return Err("white space required before NDATA".into());
                }
                c.req_ws("after NDATA")?;
                Entity::Unparsed {
                    public_id,
                    system_id,
                    notation: c.name()?.to_string(),
                }
            } else {
                Entity::External {
                    public_id,
                    system_id,
                }
            }
        };
        c.skip_ws();
        c.expect(
            ">",
            format_args!("to close the declaration of entity {name}"),
        )?;
        if self.dtd.skipped_declarations {
            return Ok(());
        }
        if pe {
            self.pes.entry(name).or_insert(match decl {
                Entity::Internal(t) => Some(t),
                _ => None,
            });
        } else {
            // The first declaration is binding.
            self.dtd.entities.entry(name).or_insert(decl);
        }
        Ok(())
    }

    fn attlist_decl(&mut self, c: &mut Cursor<'_>) -> Result<(), String> {
        c.req_ws("after <!ATTLIST")?;
        let element = c.name()?;
        // One list reused for every ATTLIST's definitions.
        let mut defs = std::mem::take(&mut self.defs);
        defs.clear();
        loop {
            let ws = c.skip_ws();
            if c.eat(">") {
                break;
            }
            if !ws {
                return Err("white space required before an attribute definition".into());
            }
            let attr = c.name()?.to_string();
            c.req_ws(format_args!("after the attribute name {attr}"))?;
            let cdata = if c.peek() == Some(b'(') {
                enumeration(c, false)?;
                false
            } else {
                let ty = c.name()?;
                match ty {
                    "CDATA" | "ID" | "IDREF" | "IDREFS" | "ENTITY" | "ENTITIES" | "NMTOKEN"
                    | "NMTOKENS" => {}
                    "NOTATION" => {
                        c.req_ws("after NOTATION")?;
                        enumeration(c, true)?;
                    }
                    _ => return Err(format!("unknown attribute type {ty:?}")),
                }
                ty == "CDATA"
            };
            c.req_ws(format_args!("before the default of attribute {attr}"))?;
            let default = if c.keyword("#REQUIRED") || c.keyword("#IMPLIED") {
                None
            } else {
                if c.keyword("#FIXED") {
                    c.req_ws("after #FIXED")?;
                } else if c.peek() == Some(b'#') {
                    return Err(format!("unknown default keyword in attribute {attr}"));
                }
                let value = c.quoted()?;
                // AttValue ([10]) excludes '<', as in a start tag.
                if value.contains('<') {
                    return Err(format!("'<' in the default value of attribute {attr}"));
                }
                // The entities it refers to must be declared before it (WFC: Entity Declared).
                self.check_default(value)?;
                Some(value.to_string())
            };
            defs.push(AttDef {
                name: attr,
                cdata,
                default,
            });
        }
        if !self.dtd.skipped_declarations {
            let list = Rc::make_mut(self.dtd.attlists.get_or_add(element));
            for d in defs.drain(..) {
                list.add(d);
            }
            let defaults = list.defaults || list.default_xmlns;
            self.dtd.attlists.defaults |= defaults;
        }
        self.defs = defs;
        Ok(())
    }

    /// The references of an attribute default value, checked as if the value were used: entities
    /// declared (before the default, where every declaration was read), internal, and without
    /// '<' in what they expand to. Each entity is checked once.
    fn check_default(&self, value: &str) -> Result<(), String> {
        let mut seen = HashSet::new();
        self.check_refs_in(value, &mut seen, 0)
    }

    fn check_refs_in<'s>(
        &'s self,
        text: &'s str,
        seen: &mut HashSet<&'s str>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_PE_DEPTH {
            return Err("entity references nested too deeply in an attribute default".into());
        }
        for name in entity_refs(text)? {
            if matches!(name, "lt" | "gt" | "amp" | "apos" | "quot") || !seen.insert(name) {
                continue;
            }
            match self.dtd.entities.get(name) {
                Some(Entity::Internal(t)) => {
                    if t.contains('<') {
                        return Err(format!(
                            "entity {name} in an attribute default expands to '<'"
                        ));
                    }
                    self.check_refs_in(t, seen, depth + 1)?;
                }
                Some(_) => {
                    return Err(format!(
                        "reference to the external entity {name} in an attribute default"
                    ));
                }
                None if self.standalone || (!self.external && !self.dtd.parameter_references) => {
                    return Err(format!("undeclared entity {name} in an attribute default"));
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// An error of a declaration, or one from a parameter entity's text (already placed).
enum Failure {
    Here(String),
    Nested(DtdError),
}
use Failure::{Here, Nested};

impl From<String> for Failure {
    fn from(m: String) -> Self {
        Here(m)
    }
}

impl From<&str> for Failure {
    fn from(m: &str) -> Self {
        Here(m.to_string())
    }
}

/// Notation names and PI targets have no colon in a namespace-aware document (Namespaces in XML
/// 1.0, section 7, which says the same of entity names).
fn no_colon(name: &str, what: &str) -> Result<String, String> {
    if name.contains(':') {
        return Err(format!("{what} name {name:?} contains a colon"));
    }
    Ok(name.to_string())
}

/// `(a|b|c)` of name tokens, or of names after NOTATION.
fn enumeration(c: &mut Cursor<'_>, names: bool) -> Result<(), String> {
    c.expect("(", "to open an enumeration")?;
    loop {
        c.skip_ws();
        if names {
            c.name()?;
        } else {
            c.nmtoken()?;
        }
        c.skip_ws();
        if c.eat(")") {
            return Ok(());
        }
        c.expect("|", "between the values of an enumeration")?;
    }
}

/// `<!ELEMENT name contentspec>` ([45]-[51]), checked and otherwise ignored (a non-validating
/// processor has no use for content models).
fn element_decl(c: &mut Cursor<'_>) -> Result<(), String> {
    c.req_ws("after <!ELEMENT")?;
    let name = c.name()?.to_string();
    c.req_ws(format_args!("after the element name {name}"))?;
    if c.keyword("EMPTY") || c.keyword("ANY") {
    } else if c.eat("(") {
        c.skip_ws();
        if c.eat("#PCDATA") {
            // Mixed ([51]): (#PCDATA) or (#PCDATA|a|b)*.
            let mut names = 0;
            loop {
                c.skip_ws();
                if c.eat(")") {
                    break;
                }
                c.expect("|", "in a mixed content model")?;
                c.skip_ws();
                c.name()?;
                names += 1;
            }
            if !c.eat("*") && names > 0 {
                return Err("a mixed content model with names must end in ')*'".into());
            }
        } else {
            group(c, 0)?;
            modifier(c);
        }
    } else {
        return Err(format!("bad content model of element {name}"));
    }
    c.skip_ws();
    c.expect(
        ">",
        format_args!("to close the declaration of element {name}"),
    )
}

/// A choice or sequence ([49], [50]) after its '(': content particles all separated by '|' or
/// all by ','.
fn group(c: &mut Cursor<'_>, depth: usize) -> Result<(), String> {
    if depth > MAX_GROUP_DEPTH {
        return Err("content model nested too deeply".into());
    }
    let mut sep = None;
    loop {
        c.skip_ws();
        if c.eat("(") {
            group(c, depth + 1)?;
        } else {
            c.name()?;
        }
        modifier(c);
        c.skip_ws();
        if c.eat(")") {
            return Ok(());
        }
        let s = match c.peek() {
            Some(s @ (b'|' | b',')) => s,
            _ => return Err("expected '|', ',' or ')' in a content model".into()),
        };
        if sep.is_some_and(|x| x != s) {
            return Err("'|' and ',' mixed in one content model group".into());
        }
        sep = Some(s);
        c.pos += 1;
    }
}

fn modifier(c: &mut Cursor<'_>) {
    if matches!(c.peek(), Some(b'?' | b'*' | b'+')) {
        c.pos += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doctype_parts() {
        let p =
            split_doctype(" html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x.dtd\"").unwrap();
        assert_eq!(p.name, "html");
        assert_eq!(p.public_id, Some("-//W3C//DTD XHTML 1.0 Strict//EN"));
        assert_eq!(p.system_id, Some("x.dtd"));
        let p = split_doctype(" a [ <!ENTITY x \"]\"> ]").unwrap();
        assert_eq!(p.internal_subset, Some(" <!ENTITY x \"]\"> "));
    }

    #[test]
    fn declarations() {
        let d = Dtd::parse(
            r#"<!ENTITY lt "&#38;#60;"> <!ENTITY % p "<!ENTITY q 'Q'>"> %p;
            <!ATTLIST a b CDATA "x" c (y|z) 'y' d CDATA #IMPLIED e ID #FIXED "f">
            <!-- c --> <?pi x?> <!ELEMENT a (#PCDATA|b)*> <!NOTATION gif SYSTEM "image/gif">
            <!ENTITY pic SYSTEM "p.gif" NDATA gif>"#,
            false,
            false,
            1000,
        )
        .unwrap();
        assert_eq!(d.entities["lt"], Entity::Internal("&#60;".into()));
        assert_eq!(d.entities["q"], Entity::Internal("Q".into()));
        let list = d.attlists.get("a").unwrap();
        assert!(list.tokenized && list.defaults && !list.default_xmlns);
        assert!(list.is_cdata("b") && !list.is_cdata("c") && list.is_cdata("undeclared"));
        let a = &list.defs;
        assert_eq!(a.len(), 4);
        assert_eq!(
            a[1],
            AttDef {
                name: "c".into(),
                cdata: false,
                default: Some("y".into())
            }
        );
        assert_eq!(a[2].default, None);
        let e = Dtd::parse("<!ATTLIST a b CDATA 'x<y'>", false, false, 1000).unwrap_err();
        assert!(
            e.message
                .contains("'<' in the default value of attribute b"),
            "{e}"
        );
        assert!(matches!(d.entities["pic"], Entity::Unparsed { .. }));
        assert_eq!(d.notations.len(), 1);
    }

    #[test]
    fn attlist_cache_finds_what_the_table_finds() {
        // Names of every length around the cache's limit, and names that differ from a
        // declared one in a single octet at each position (the cache's key must tell them
        // apart), looked up repeatedly through one cache.
        let base = "abcdefghijklmnopqrstuvwxyz0123456789";
        let mut subset = String::new();
        let mut declared = Vec::new();
        for n in 1..=base.len() {
            let name = format!("e{}", &base[..n - 1]);
            subset.push_str(&format!("<!ATTLIST {name} a{n} ID #IMPLIED>"));
            declared.push(name);
        }
        let d = Dtd::parse(&subset, false, false, 1000).unwrap();
        let mut probes = declared.clone();
        for name in &declared {
            for i in 1..name.len() {
                let mut other = name.clone().into_bytes();
                other[i] = b'_';
                probes.push(String::from_utf8(other).unwrap());
            }
            probes.push(format!("{name}_"));
        }
        let mut cache = AttListCache::default();
        for _ in 0..3 {
            for p in &probes {
                let got = cache.get(&d.attlists, p).map(|l| l.defs[0].name.clone());
                let want = declared
                    .iter()
                    .position(|x| x == p)
                    .map(|k| format!("a{}", k + 1));
                assert_eq!(got, want, "{p}");
            }
        }
    }

    #[test]
    fn unread_external_pe_stops_processing() {
        let d = Dtd::parse(
            r#"<!ENTITY % ext SYSTEM "x.ent"> %ext; <!ENTITY a "A">"#,
            false,
            false,
            1000,
        )
        .unwrap();
        assert!(d.entities.is_empty());
        assert!(d.skipped_declarations);
    }
}
