//! The TSF encoder.
//!
//! TSF puts each structured unit's count, and each primitive unit's length, before its content.
//! The encoder writes everything else to one body buffer as the events come and records, for
//! each number not known yet (element and attribute counts, the length of text that comes in
//! several events), where it goes; `finish` writes the body with the numbers spliced in (one
//! pass, one copy). No tree is built.

use std::borrow::Cow;
use std::io::Write;

use binxml_core::{
    DocType, Encoder, Error, Event, EventSink, QName, Result, StreamChecker, Typed, XML_NS,
};

use crate::events::doctype_text;
use crate::jsonmap::{JSON_NS, JsonType, KEY_ATTR, TYPE_ATTR};
use crate::lex::{FORMAT, TYPE_CHAR};

/// A number to splice into the body at `pos` (or, when `n` is [`DOCTYPE`], the doctype unit
/// whose name was only known at the root element).
struct Insert {
    pos: usize,
    n: usize,
}

const DOCTYPE: usize = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpenKind {
    Element,
    Object,
    Array,
    /// A JSON string: its data starts at this body offset.
    String(usize),
    /// A JSON number, boolean or null: its text is collected in `scalar`.
    Scalar(JsonType),
}

struct Open {
    /// Index in `ins` of the count (or length) of this unit.
    ins: usize,
    kind: OpenKind,
    ns_len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Unknown,
    Xml,
    Json,
}

/// The text unit being written. Its length is written before its data when the run starts (most
/// runs are one event); a second event of the run moves the length to an [`Insert`].
struct TextRun {
    /// Index in `ins` of the length, or [`WRITTEN`] while the length is in the body at `num`.
    ins: usize,
    /// Body offset of the written length.
    num: usize,
    /// Body offset of the data.
    start: usize,
    cdata: bool,
}

const WRITTEN: usize = usize::MAX;

/// Encoder options.
///
/// Build them from [`TsfEncoderOptions::default`] (or [`TsfEncoderOptions::reference`]) and the
/// `with_...` setters; the fields can be read and changed, and every value of each is valid. The
/// struct is `#[non_exhaustive]`, so new options can be added without breaking callers.
///
/// ```
/// use binxml_tsf::TsfEncoderOptions;
///
/// let opts = TsfEncoderOptions::default().with_sort_attributes(true);
/// assert!(opts.sort_attributes && !opts.utf16_lengths);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TsfEncoderOptions {
    /// Write primitive lengths as UTF-16 code units, as the paper's reference converter did
    /// (read such files back with [`crate::TsfOptions::utf16_lengths`]).
    pub utf16_lengths: bool,
    /// Write each element's attributes (namespace declarations included) sorted by name, as the
    /// reference converter did.
    pub sort_attributes: bool,
}

impl TsfEncoderOptions {
    /// The reference converter's dialect: UTF-16 lengths, attributes sorted by name.
    pub fn reference() -> Self {
        TsfEncoderOptions::default()
            .with_utf16_lengths(true)
            .with_sort_attributes(true)
    }

    /// Sets [`utf16_lengths`](TsfEncoderOptions::utf16_lengths): primitive lengths as UTF-16 code
    /// units.
    pub fn with_utf16_lengths(mut self, utf16_lengths: bool) -> Self {
        self.utf16_lengths = utf16_lengths;
        self
    }

    /// Sets [`sort_attributes`](TsfEncoderOptions::sort_attributes): each element's attributes
    /// sorted by name.
    pub fn with_sort_attributes(mut self, sort_attributes: bool) -> Self {
        self.sort_attributes = sort_attributes;
        self
    }
}

/// Writes events as TSF: XML documents in TSF's XML vocabulary, events in the JSON mapping (root
/// element in [`crate::JSON_NS`]) in its JSON vocabulary. Lengths are UTF-8 byte counts.
pub struct TsfEncoder<W: Write> {
    out: Option<W>,
    body: Vec<u8>,
    ins: Vec<Insert>,
    stack: Vec<Open>,
    checker: StreamChecker,
    mode: Mode,
    root_items: usize,
    root_implied: bool,
    // XML
    in_start_tag: bool,
    attrs_ins: Option<usize>,
    elem_prefix: String,
    /// The open start tag's namespace, unless `elem_bound`.
    elem_ns: String,
    /// The open start tag's prefix is bound to its namespace (checked at the element's start;
    /// a declaration in the start tag makes it false and fills `elem_ns`).
    elem_bound: bool,
    ns: Vec<(String, String)>,
    text: Option<TextRun>,
    /// A nameless doctype waiting for the root element's name.
    doctype: Option<DocType<'static>>,
    doctype_bytes: Vec<u8>,
    gen_prefix: usize,
    opts: TsfEncoderOptions,
    /// Attributes held back for sorting.
    sorted: Vec<(String, String)>,
    // JSON
    jpending: Option<Option<JsonType>>,
    jname: String,
    scalar_name: String,
    scalar: String,
    lexical: String,
    /// While `write_tape` runs: names (address, length) seen to need no quoting, by a hash of
    /// the address. A tape's names are the same strings at the same addresses for the whole
    /// call, so a name's check is a comparison after its first time.
    plain_names: Vec<(usize, usize)>,
    stable: bool,
}

const PLAIN_NAMES: usize = 256;

/// String equality without a `memcmp` call (short strings; the call dominates otherwise).
#[inline]
pub(crate) fn eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// [`eq`] eight octets at a time, for namespace names (often a few dozen octets).
#[inline]
fn eq_long(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        if u64::from_ne_bytes(p.try_into().unwrap()) != u64::from_ne_bytes(q.try_into().unwrap()) {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

/// The number of UTF-16 code units of UTF-8 text.
fn utf16_len(data: &[u8]) -> usize {
    data.iter()
        .map(|&b| {
            if (b as i8) >= -0x40 {
                1 + (b >= 0xf0) as usize
            } else {
                0
            }
        })
        .sum()
}

#[inline]
fn push_num(buf: &mut Vec<u8>, n: usize) {
    if n < 10 {
        buf.push(b'0' + n as u8);
    } else if n < 100 {
        buf.reserve(2);
        buf.push(b'0' + (n / 10) as u8);
        buf.push(b'0' + (n % 10) as u8);
    } else {
        push_long_num(buf, n);
    }
}

fn push_long_num(buf: &mut Vec<u8>, mut n: usize) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// True when a name must use the `"` form: it is empty only where that matters, starts with a
/// digit or `"`, or holds a type character.
#[inline]
fn needs_quote(name: &str) -> bool {
    let b = name.as_bytes();
    match b.first() {
        None => false,
        Some(c) if c.is_ascii_digit() || *c == b'"' => true,
        _ => b.iter().any(|&c| TYPE_CHAR[c as usize]),
    }
}

#[inline]
fn push_name(buf: &mut Vec<u8>, name: &str) {
    if !needs_quote(name) {
        buf.extend_from_slice(name.as_bytes());
        return;
    }
    buf.push(b'"');
    for &c in name.as_bytes() {
        if TYPE_CHAR[c as usize] || c == b'\\' || c == b'"' {
            buf.push(b'\\');
        }
        buf.push(c);
    }
}

fn qualified_into(q: &QName<'_>, out: &mut String) {
    out.clear();
    if !q.prefix.is_empty() {
        out.push_str(&q.prefix);
        out.push(':');
    }
    out.push_str(&q.local);
}

impl<W: Write> TsfEncoder<W> {
    /// An encoder writing to `out` with the default [`TsfEncoderOptions`].
    pub fn new(out: W) -> Self {
        Self::with_options(out, TsfEncoderOptions::default())
    }

    /// An encoder writing to `out` with `opts`.
    pub fn with_options(out: W, opts: TsfEncoderOptions) -> Self {
        TsfEncoder {
            out: Some(out),
            body: Vec::with_capacity(1 << 16),
            ins: Vec::new(),
            stack: Vec::new(),
            checker: StreamChecker::new(true),
            mode: Mode::Unknown,
            root_items: 0,
            root_implied: false,
            in_start_tag: false,
            attrs_ins: None,
            elem_prefix: String::new(),
            elem_ns: String::new(),
            elem_bound: false,
            ns: Vec::new(),
            text: None,
            doctype: None,
            doctype_bytes: Vec::new(),
            gen_prefix: 0,
            opts,
            sorted: Vec::new(),
            jpending: None,
            jname: String::new(),
            scalar_name: String::new(),
            scalar: String::new(),
            lexical: String::new(),
            plain_names: Vec::new(),
            stable: false,
        }
    }

    /// The writer, after [`Encoder::finish`].
    pub fn into_inner(mut self) -> W {
        self.out.take().expect("writer")
    }

    /// Counts a new unit in the current container (the root message at top level).
    #[inline]
    fn add_unit(&mut self, slu: bool) {
        match self.stack.last() {
            None => {
                self.root_items += 1;
                self.root_implied = self.root_items == 1 && slu;
            }
            Some(o) => {
                self.ins[o.ins].n += 1;
            }
        }
    }

    #[inline]
    fn new_insert(&mut self) -> usize {
        self.ins.push(Insert {
            pos: self.body.len(),
            n: 0,
        });
        self.ins.len() - 1
    }

    #[inline]
    fn set_count(&mut self, idx: usize, v: usize) {
        self.ins[idx].n = v;
    }

    /// [`push_name`] for a name of the tape being written (see `plain_names`).
    #[inline]
    fn push_tape_name(&mut self, name: &str) {
        if self.stable {
            let key = (name.as_ptr() as usize, name.len());
            let slot = (key.0 ^ (key.0 >> 8)) % PLAIN_NAMES;
            if self.plain_names[slot] == key {
                self.body.extend_from_slice(name.as_bytes());
                return;
            }
            if !needs_quote(name) {
                self.plain_names[slot] = key;
                self.body.extend_from_slice(name.as_bytes());
                return;
            }
        }
        push_name(&mut self.body, name);
    }

    /// A primitive unit whose data is known: `{len}{name}{type}{data}`.
    fn plu(&mut self, name: &str, ty: u8, data: &[&[u8]]) {
        let len: usize = data.iter().map(|d| self.len_of(d)).sum();
        push_num(&mut self.body, len);
        push_name(&mut self.body, name);
        self.body.push(ty);
        for d in data {
            self.body.extend_from_slice(d);
        }
    }

    /// The length written for `data`: bytes, or UTF-16 units.
    #[inline]
    fn len_of(&self, data: &[u8]) -> usize {
        if self.opts.utf16_lengths {
            utf16_len(data)
        } else {
            data.len()
        }
    }

    // ----- XML -----

    fn lookup(&self, prefix: &str) -> Option<&str> {
        if let Some((_, u)) = self.ns.iter().rev().find(|(p, _)| eq(p, prefix)) {
            return Some(u);
        }
        match prefix {
            "" => Some(""),
            "xml" => Some(XML_NS),
            _ => None,
        }
    }

    fn open_attrs(&mut self) -> usize {
        if let Some(i) = self.attrs_ins {
            return i;
        }
        let elem = self.stack.last().unwrap().ins;
        self.ins[elem].n += 1;
        let i = self.new_insert();
        self.body.push(b'=');
        self.attrs_ins = Some(i);
        i
    }

    fn attr_unit(&mut self, name: &str, value: &str) {
        if self.opts.sort_attributes {
            self.sorted.push((name.to_string(), value.to_string()));
            return;
        }
        self.write_attr(name, value);
    }

    fn write_attr(&mut self, name: &str, value: &str) {
        let i = self.open_attrs();
        self.ins[i].n += 1;
        self.plu(name, b'[', &[value.as_bytes()]);
    }

    fn declare(&mut self, prefix: &str, uri: &str) {
        let name = if prefix.is_empty() {
            "xmlns".to_string()
        } else {
            format!("xmlns:{prefix}")
        };
        self.attr_unit(&name, uri);
        self.bind(prefix.to_string(), uri.to_string());
    }

    /// A namespace declaration in scope from here.
    fn bind(&mut self, prefix: String, uri: String) {
        if self.in_start_tag && self.elem_bound {
            // The element's namespace is its prefix's binding so far; keep it before the
            // declaration may change that binding.
            let mut ns = std::mem::take(&mut self.elem_ns);
            ns.clear();
            ns.push_str(self.lookup(&self.elem_prefix).unwrap_or_default());
            self.elem_ns = ns;
            self.elem_bound = false;
        }
        self.ns.push((prefix, uri));
    }

    /// Ends the start tag if one is open.
    #[inline(always)]
    fn end_start_tag(&mut self) -> Result<()> {
        if self.in_start_tag {
            self.close_start_tag()
        } else {
            Ok(())
        }
    }

    /// Ends the start tag: declares the element's namespace if the events did not.
    fn close_start_tag(&mut self) -> Result<()> {
        self.in_start_tag = false;
        if !self.elem_bound
            && !self
                .lookup(&self.elem_prefix)
                .is_some_and(|u| eq_long(u, &self.elem_ns))
        {
            let prefix = std::mem::take(&mut self.elem_prefix);
            let ns = std::mem::take(&mut self.elem_ns);
            if !prefix.is_empty() && ns.is_empty() {
                return Err(Error::invalid_events(
                    FORMAT,
                    format!("element prefix {prefix:?} without a namespace"),
                ));
            }
            self.declare(&prefix, &ns);
            self.elem_prefix = prefix;
            self.elem_ns = ns;
        }
        if !self.sorted.is_empty() {
            let mut sorted = std::mem::take(&mut self.sorted);
            sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            for (n, v) in &sorted {
                self.write_attr(n, v);
            }
            sorted.clear();
            self.sorted = sorted;
        }
        self.attrs_ins = None;
        Ok(())
    }

    #[inline]
    fn end_text(&mut self) {
        if let Some(t) = self.text.take()
            && t.ins != WRITTEN
        {
            let len = self.len_of(&self.body[t.start..]);
            self.set_count(t.ins, len);
        }
    }

    /// Before a content event (or the end tag).
    #[inline(always)]
    fn content(&mut self) -> Result<()> {
        self.end_start_tag()?;
        self.end_text();
        Ok(())
    }

    fn xml_text(&mut self, text: &str, cdata: bool) -> Result<()> {
        self.end_start_tag()?;
        if self.stack.is_empty()
            && !cdata
            && text
                .bytes()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            return Ok(()); // whitespace outside the root element is not kept
        }
        if let Some(t) = &self.text
            && t.cdata != cdata
        {
            self.end_text();
        }
        match &mut self.text {
            None => {
                if text.is_empty() && !cdata {
                    return Ok(());
                }
                self.add_unit(false);
                let num = self.body.len();
                let len = self.len_of(text.as_bytes());
                push_num(&mut self.body, len);
                self.body.push(if cdata { b']' } else { b'[' });
                self.text = Some(TextRun {
                    ins: WRITTEN,
                    num,
                    start: self.body.len(),
                    cdata,
                });
            }
            Some(t) => {
                if text.is_empty() {
                    return Ok(());
                }
                if t.ins == WRITTEN {
                    // The run goes on: its length is only known at its end. No insert was made
                    // since the run started, so this one keeps `ins` in body order.
                    let digits = t.start - 1 - t.num;
                    self.body.drain(t.num..t.num + digits);
                    t.start -= digits;
                    t.ins = self.ins.len();
                    self.ins.push(Insert { pos: t.num, n: 0 });
                }
            }
        }
        self.body.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn xml_start(&mut self, q: &QName<'_>) -> Result<()> {
        self.content()?;
        self.add_unit(true);
        let ins = self.new_insert();
        if q.prefix.is_empty() {
            if q.local.is_empty() {
                return Err(Error::invalid_events(FORMAT, "element without a name"));
            }
            self.push_tape_name(&q.local);
        } else {
            let mut qn = std::mem::take(&mut self.lexical);
            qualified_into(q, &mut qn);
            push_name(&mut self.body, &qn);
            self.lexical = qn;
        }
        self.body.push(b'<');
        if self.stack.is_empty()
            && let Some(dt) = self.doctype.take()
        {
            let mut qn = std::mem::take(&mut self.lexical);
            qualified_into(q, &mut qn);
            self.doctype_unit(&dt, &qn);
            self.lexical = qn;
        }
        self.stack.push(Open {
            ins,
            kind: OpenKind::Element,
            ns_len: self.ns.len(),
        });
        self.in_start_tag = true;
        self.attrs_ins = None;
        self.elem_prefix.clear();
        if !q.prefix.is_empty() {
            self.elem_prefix.push_str(&q.prefix);
        }
        self.elem_bound = self
            .lookup(&q.prefix)
            .is_some_and(|u| eq_long(u, &q.namespace));
        if !self.elem_bound {
            self.elem_ns.clear();
            self.elem_ns.push_str(&q.namespace);
        }
        Ok(())
    }

    fn xml_attribute(&mut self, name: &QName<'_>, value: &str) {
        if name.namespace.is_empty() && !self.opts.sort_attributes {
            // The common case: a name without a namespace, written as it comes.
            if name.prefix.is_empty() {
                let i = self.open_attrs();
                self.ins[i].n += 1;
                let len = self.len_of(value.as_bytes());
                push_num(&mut self.body, len);
                self.push_tape_name(&name.local);
                self.body.push(b'[');
                self.body.extend_from_slice(value.as_bytes());
            } else {
                let mut qn = std::mem::take(&mut self.lexical);
                qualified_into(name, &mut qn);
                self.write_attr(&qn, value);
                self.lexical = qn;
            }
            return;
        }
        let mut qn = std::mem::take(&mut self.lexical);
        let bound = name.namespace.is_empty()
            || (!name.prefix.is_empty()
                && self
                    .lookup(&name.prefix)
                    .is_some_and(|u| eq(u, &name.namespace)));
        if bound {
            qualified_into(name, &mut qn);
        } else {
            // Find or make a prefix for the attribute's namespace.
            let found = self
                .ns
                .iter()
                .rev()
                .find(|(p, u)| !p.is_empty() && *u == name.namespace)
                .map(|(p, _)| p.clone())
                .filter(|p| self.lookup(p) == Some(&*name.namespace));
            let p = match found {
                Some(p) => p,
                None => {
                    let p = if !name.prefix.is_empty() && self.lookup(&name.prefix).is_none() {
                        name.prefix.to_string()
                    } else {
                        loop {
                            self.gen_prefix += 1;
                            let p = format!("ns{}", self.gen_prefix);
                            if self.lookup(&p).is_none() {
                                break p;
                            }
                        }
                    };
                    self.declare(&p, &name.namespace);
                    p
                }
            };
            qn.clear();
            qn.push_str(&p);
            qn.push(':');
            qn.push_str(&name.local);
        }
        self.attr_unit(&qn, value);
        self.lexical = qn;
    }

    fn xml_end(&mut self) -> Result<()> {
        self.content()?;
        let o = self.stack.pop().unwrap();
        self.ns.truncate(o.ns_len);
        Ok(())
    }

    fn xml_event(&mut self, event: &Event<'_>) -> Result<()> {
        match event {
            Event::StartElement(q) => self.xml_start(q)?,
            Event::Namespace { prefix, uri } => {
                if prefix.is_empty() {
                    self.attr_unit("xmlns", uri);
                } else {
                    let name = format!("xmlns:{prefix}");
                    self.attr_unit(&name, uri);
                }
                self.bind(prefix.to_string(), uri.to_string());
            }
            Event::Attribute { name, value } => self.xml_attribute(name, value),
            Event::Characters { text, cdata } => self.xml_text(text, *cdata)?,
            Event::Typed(t) => {
                let mut s = std::mem::take(&mut self.lexical);
                s.clear();
                t.write_lexical(&mut s);
                self.xml_text(&s, false)?;
                self.lexical = s;
            }
            Event::Comment(c) => {
                self.content()?;
                self.add_unit(false);
                self.plu("", b'+', &[c.as_bytes()]);
            }
            Event::ProcessingInstruction { target, data } => {
                self.content()?;
                self.add_unit(false);
                if data.is_empty() {
                    self.plu("", b'?', &[target.as_bytes()]);
                } else {
                    self.plu("", b'?', &[target.as_bytes(), b" ", data.as_bytes()]);
                }
            }
            Event::EntityReference { name, .. } => {
                self.content()?;
                self.add_unit(false);
                self.plu("", b'&', &[name.as_bytes()]);
            }
            Event::DocType(d) => {
                self.content()?;
                self.add_unit(false);
                if d.name.is_empty() {
                    self.ins.push(Insert {
                        pos: self.body.len(),
                        n: DOCTYPE,
                    });
                    self.doctype = Some(d.clone().into_owned());
                } else {
                    let mut s = String::new();
                    doctype_text(d, "", &mut s);
                    self.plu("", b'!', &[s.as_bytes()]);
                }
            }
            Event::EndElement => self.xml_end()?,
            Event::EndDocument => self.content()?,
            Event::StartDocument { .. } | Event::Notation { .. } | Event::UnparsedEntity { .. } => {
            }
            _ => {
                return Err(Error::unsupported(
                    FORMAT,
                    "an event this encoder does not know",
                ));
            }
        }
        Ok(())
    }

    // ----- JSON -----

    fn json_open(&mut self, first: Option<&Event<'_>>) -> Result<()> {
        let Some(declared) = self.jpending.take() else {
            return Ok(());
        };
        let ty = match declared {
            Some(t) => t,
            None => JsonType::infer(first).ok_or_else(|| {
                Error::invalid_events(
                    FORMAT,
                    "a JSON element without a `t` attribute has element children",
                )
            })?,
        };
        let named = match self.stack.last() {
            None => {
                if self.root_items > 0 {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "more than one top-level JSON value",
                    ));
                }
                false
            }
            Some(o) => match o.kind {
                OpenKind::Object => true,
                OpenKind::Array => false,
                _ => {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "an element inside a JSON string, number, boolean or null",
                    ));
                }
            },
        };
        // A JSON value at top level never needs the root message.
        self.add_unit(true);
        let name = if named {
            std::mem::take(&mut self.jname)
        } else {
            String::new()
        };
        let kind = match ty {
            JsonType::Object | JsonType::Array | JsonType::String => {
                let ins = self.new_insert();
                push_name(&mut self.body, &name);
                let (c, k) = match ty {
                    JsonType::Object => (b'{', OpenKind::Object),
                    JsonType::Array => (b'[', OpenKind::Array),
                    _ => (b'\'', OpenKind::String(self.body.len() + 1)),
                };
                self.body.push(c);
                self.stack.push(Open {
                    ins,
                    kind: k,
                    ns_len: 0,
                });
                if named {
                    self.jname = name;
                }
                return Ok(());
            }
            t => OpenKind::Scalar(t),
        };
        self.scalar_name.clear();
        self.scalar_name.push_str(&name);
        if named {
            self.jname = name;
        }
        self.scalar.clear();
        self.stack.push(Open {
            ins: usize::MAX,
            kind,
            ns_len: 0,
        });
        Ok(())
    }

    fn json_text(&mut self, text: &str) -> Result<()> {
        match self.stack.last().map(|o| o.kind) {
            Some(OpenKind::String(_)) => self.body.extend_from_slice(text.as_bytes()),
            Some(OpenKind::Scalar(_)) => self.scalar.push_str(text),
            _ => {
                if !text
                    .bytes()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "text directly inside a JSON object or array",
                    ));
                }
            }
        }
        Ok(())
    }

    fn json_event(&mut self, event: &Event<'_>) -> Result<()> {
        match event {
            Event::StartElement(q) => {
                if self.jpending.is_some() {
                    self.json_open(Some(event))?;
                }
                if let Some(o) = self.stack.last() {
                    if !matches!(o.kind, OpenKind::Object | OpenKind::Array) {
                        return Err(Error::invalid_events(
                            FORMAT,
                            "an element inside a JSON string, number, boolean or null",
                        ));
                    }
                } else if self.root_items > 0 {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "more than one top-level JSON value",
                    ));
                }
                self.jname.clear();
                self.jname.push_str(&q.local);
                self.jpending = Some(None);
            }
            Event::Attribute { name, value } => {
                if let Some(p) = self.jpending.as_mut()
                    && name.namespace.is_empty()
                    && name.prefix.is_empty()
                {
                    if eq(&name.local, TYPE_ATTR) {
                        *p = Some(JsonType::from_attr(value).ok_or_else(|| {
                            Error::invalid_events(FORMAT, format!("unknown JSON type t={value:?}"))
                        })?);
                    } else if eq(&name.local, KEY_ATTR) {
                        self.jname.clear();
                        self.jname.push_str(value);
                    }
                }
            }
            Event::Characters { text, .. } => {
                if self.jpending.is_some() {
                    self.json_open(Some(event))?;
                }
                self.json_text(text)?;
            }
            Event::Typed(t) => {
                if self.jpending.is_some() {
                    self.json_open(Some(event))?;
                }
                if let Typed::Number(s) = t {
                    self.json_text(s)?;
                } else {
                    let mut s = std::mem::take(&mut self.lexical);
                    s.clear();
                    t.write_lexical(&mut s);
                    let r = self.json_text(&s);
                    self.lexical = s;
                    r?;
                }
            }
            Event::EndElement => {
                if self.jpending.is_some() {
                    self.json_open(None)?;
                }
                let o = self.stack.pop().unwrap();
                match o.kind {
                    OpenKind::String(start) => {
                        let len = self.len_of(&self.body[start..]);
                        self.set_count(o.ins, len);
                    }
                    OpenKind::Scalar(t) => {
                        let s = self.scalar.trim_matches([' ', '\t', '\r', '\n']);
                        if !t.accepts_scalar(s) {
                            return Err(Error::invalid_events(
                                FORMAT,
                                format!(
                                    "{s:?} is not a JSON {}",
                                    t.attr_value().unwrap_or("value")
                                ),
                            ));
                        }
                        let s = if s.is_empty() { "null" } else { s };
                        let (tc, data) = if t == JsonType::Number {
                            (b'#', s)
                        } else {
                            (b'~', s)
                        };
                        let name = std::mem::take(&mut self.scalar_name);
                        push_num(&mut self.body, data.len());
                        push_name(&mut self.body, &name);
                        self.body.push(tc);
                        self.body.extend_from_slice(data.as_bytes());
                        self.scalar_name = name;
                    }
                    _ => {}
                }
            }
            Event::EntityReference { .. } => {
                return Err(Error::unsupported(
                    FORMAT,
                    "entity reference in a JSON document",
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// The doctype unit of a nameless doctype, named after the root element.
    fn doctype_unit(&mut self, dt: &DocType<'_>, root_name: &str) {
        let mut s = String::new();
        doctype_text(dt, root_name, &mut s);
        let mut bytes = Vec::new();
        push_num(&mut bytes, self.len_of(s.as_bytes()));
        bytes.push(b'!');
        bytes.extend_from_slice(s.as_bytes());
        self.doctype_bytes = bytes;
    }

    /// Writes the body with the numbers spliced in, through a 64 KiB buffer.
    fn assemble(&mut self) -> std::io::Result<()> {
        let body = std::mem::take(&mut self.body);
        let w = self.out.as_mut().expect("finish called once");
        let mut out = Vec::with_capacity(1 << 16);
        if !(self.root_items == 1 && self.root_implied) {
            push_num(&mut out, self.root_items);
            out.push(b'=');
        }
        let mut last = 0;
        for i in &self.ins {
            // Most pieces are a name and a type character: copied as 16 octets (a fixed-size
            // copy, no call) and cut back, where the body has them.
            let len = i.pos - last;
            if len <= 16 && last + 16 <= body.len() {
                let chunk: &[u8; 16] = body[last..last + 16].try_into().unwrap();
                out.extend_from_slice(chunk);
                out.truncate(out.len() - (16 - len));
            } else {
                out.extend_from_slice(&body[last..i.pos]);
            }
            if i.n == DOCTYPE {
                out.extend_from_slice(&self.doctype_bytes);
            } else {
                push_num(&mut out, i.n);
            }
            last = i.pos;
            if out.len() >= 1 << 16 {
                w.write_all(&out)?;
                out.clear();
            }
        }
        out.extend_from_slice(&body[last..]);
        w.write_all(&out)?;
        w.flush()
    }
}

impl<W: Write> Encoder for TsfEncoder<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.checker.check(FORMAT, event)?;
        if self.mode == Mode::Unknown
            && let Event::StartElement(q) = event
        {
            if eq(&q.namespace, JSON_NS) {
                // JSON has no place for comments, PIs or a doctype before the value.
                self.mode = Mode::Json;
                self.body.clear();
                self.ins.clear();
                self.root_items = 0;
                self.doctype = None;
            } else {
                self.mode = Mode::Xml;
            }
        }
        match self.mode {
            Mode::Json => self.json_event(event),
            _ => self.xml_event(event),
        }
    }

    /// The tape replayed into the encoder's push interface: no [`Event`] is built for the
    /// elements, attributes and text inside the root element of an XML document.
    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        // At most one number to splice in per event.
        self.ins.reserve(tape.len());
        if self.plain_names.is_empty() {
            self.plain_names.resize(PLAIN_NAMES, (0, 0));
        } else {
            self.plain_names.fill((0, 0));
        }
        self.stable = true;
        let r = tape.replay(self);
        self.stable = false;
        r
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(dt) = self.doctype.take() {
            // A nameless doctype and no root element: keep it nameless.
            self.doctype_unit(&dt, "");
        }
        self.assemble().map_err(|e| Error::io(FORMAT, e))
    }
}

/// The push interface: inside the root element of an XML document each kind of event goes
/// straight to its writer, checked by the [`StreamChecker`]'s per-kind checks; everything else
/// goes through [`Encoder::write_event`].
impl<'a, W: Write> EventSink<'a> for TsfEncoder<W> {
    #[inline]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.write_event(&event)
    }

    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        if self.mode != Mode::Xml || self.stack.is_empty() {
            return self.write_event(&Event::StartElement(name));
        }
        self.checker.start_element(FORMAT)?;
        self.xml_start(&name)
    }

    #[inline]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.write_event(&Event::Namespace { prefix, uri })
    }

    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        if self.mode != Mode::Xml {
            return self.write_event(&Event::Attribute { name, value });
        }
        self.checker.attribute(FORMAT)?;
        self.xml_attribute(&name, &value);
        Ok(())
    }

    #[inline]
    fn end_element(&mut self) -> Result<()> {
        if self.mode != Mode::Xml {
            return self.write_event(&Event::EndElement);
        }
        self.checker.end_element(FORMAT)?;
        self.xml_end()
    }

    #[inline]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        if self.mode != Mode::Xml || self.stack.is_empty() {
            return self.write_event(&Event::Characters { text, cdata: false });
        }
        self.checker.characters(FORMAT, &text, false)?;
        self.xml_text(&text, false)
    }
}

/// Encodes a whole event stream as TSF.
pub fn encode(events: &[Event<'_>]) -> Result<Vec<u8>> {
    let mut enc = TsfEncoder::new(Vec::new());
    for ev in events {
        enc.write_event(ev)?;
    }
    enc.finish()?;
    Ok(enc.into_inner())
}
