//! The encoder: events in, an EXI stream out (EXI 1.0, sections 6 to 9).

use std::borrow::Cow;
use std::io::Write;

use binxml_core::hash::bytes_eq;
use binxml_core::{Encoder, Error, Event, Format, QName, Result, StreamChecker};

use crate::bits::{BitWriter, width};
use crate::grammar::{Grammars, Layout, Prod, State, Undeclared, code_of};
use crate::header;
use crate::options::{Alignment, ExiOptions, Whitespace};
use crate::tables::{NONE, NameId, Tables, XML_NS, XML_SPACE, XSI_NIL, XSI_TYPE};

/// Octets of body gathered before they are handed to the writer (in-order layouts).
const FLUSH_AT: usize = 1 << 16;

/// Values in a block up to which the whole block is one stream (EXI 1.0, 9.3).
const SMALL_BLOCK: u32 = 100;

/// One open element.
#[derive(Debug, Clone)]
struct Frame {
    name: NameId,
    grammar: usize,
    state: State,
    /// Namespace declarations in scope before this element's.
    scope_mark: usize,
    /// `xml:space` in effect around this element.
    outer_space: bool,
}

/// An attribute of the open start tag, its strings in [`ExiEncoder::abuf`]: its name's number
/// when the table held the name as the attribute came (the table only grows until the tag is
/// written), else its namespace and local name; its prefix only with preserved prefixes.
#[derive(Debug, Clone, Copy)]
struct Attr {
    known: Option<NameId>,
    ns: (usize, usize),
    local: (usize, usize),
    prefix: (usize, usize),
    value: (usize, usize),
}

/// What follows pending text (for [`Whitespace::DropBetweenTags`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Se,
    Ee,
    Ed,
    Cm,
    Pi,
    Er,
}

/// Where the document is, outside any element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    Content,
    End,
}

/// The values of a block in pre-compression and compression layouts, one channel per name in
/// order of first use (EXI 1.0, 9.2).
#[derive(Debug, Default)]
struct Channels {
    /// Each channel's values as spans of `buf`.
    list: Vec<(NameId, Vec<(u32, u32)>)>,
    buf: String,
    /// Name -> index in `list` + 1 (0: none yet in this block).
    index: Vec<u32>,
    count: u32,
}

/// The outer stream's state while a self-contained element is written (EXI 1.0, 8.5.4.4.1:
/// its content is a fragment with a fresh string table and fresh grammars).
#[derive(Debug)]
struct Outer {
    t: Tables,
    g: Grammars,
    frag: Vec<Prod>,
    /// The element stack's depth with the self-contained element's outer frame on it.
    depth: usize,
    space: bool,
}

/// Writes events as EXI (schema-less) to `out`.
///
/// The stream is written as events arrive, except in the pre-compression and compression
/// layouts, which hold one block (at most `blockSize` values) before writing it. Options are
/// checked when the encoder is made ([`ExiEncoder::with_options`]).
pub struct ExiEncoder<W: Write> {
    out: W,
    o: ExiOptions,
    w: BitWriter,
    t: Tables,
    g: Grammars,
    layout: Layout,
    /// FragmentContent's productions (fragments only).
    frag: Vec<Prod>,
    top: Top,
    stack: Vec<Frame>,
    checker: StreamChecker,
    in_tag: bool,
    /// The prefix of the open start tag's element (local-element-ns).
    se_prefix: String,
    attrs: Vec<Attr>,
    /// Whether the open start tag has `xsi:type` or `xsi:nil` (written first).
    attrs_xsi: bool,
    abuf: String,
    text: String,
    /// Whether the last structural event was SE, AT or NS (text after it is simple content).
    after_start: bool,
    space: bool,
    /// Namespace declarations in scope, innermost last.
    scope: Vec<(String, String)>,
    chan: Channels,
    /// The compression layout's zlib state, made at the first stream.
    deflater: Option<crate::deflate::Deflater>,
    done: bool,
    /// The options' error, for [`with_options_deferred`](Self::with_options_deferred).
    invalid: Option<Error>,
    /// Self-contained elements being written, innermost last.
    outer: Vec<Outer>,
    /// Per name, the name met after it last time ([`NONE`]: none yet), for
    /// [`element_name`](Self::element_name).
    next_name: Vec<NameId>,
    /// The name [`element_name`](Self::element_name) found last ([`NONE`]: none).
    prev_name: NameId,
    /// The URI [`uri_id`](Self::uri_id) found last (0, the empty URI, at first and after
    /// the table changes).
    last_uri: u32,
    /// Names found by the addresses of their strings, for [`element_name`](Self::element_name)
    /// inside one [`Encoder::write_tape`] call (a tape holds each name once, so every use of a
    /// name has the same addresses); a slot counts when its generation is `names_gen`.
    by_addr: Vec<AddrName>,
    /// The generation of `by_addr`'s valid slots (never 0, the empty slots' generation once
    /// in use): a new one for every `write_tape` call, as a string freed after one call may be
    /// another at the same address in the next, and when the table of names changes.
    names_gen: u32,
    /// Inside `write_tape`: names may be found by address.
    addr_on: bool,
    /// Room was made for the stream ([`reserve_for`](Self::reserve_for)).
    reserved: bool,
}

/// A name's strings by address and length, and its number (see `ExiEncoder::by_addr`).
#[derive(Clone, Copy, Default)]
struct AddrName {
    local: usize,
    ns: usize,
    lens: u64,
    generation: u32,
    id: NameId,
}

/// Slots of `ExiEncoder::by_addr` at most (a power of two); a short tape gets fewer (they are
/// zeroed when made).
const ADDR_SLOTS: usize = 512;

impl<W: Write> ExiEncoder<W> {
    /// An encoder with EXI's default options (bit-packed, no fidelity options).
    pub fn new(out: W) -> Self {
        ExiEncoder::build(out, ExiOptions::default())
    }

    /// An encoder with `options`, checked first ([`ExiOptions::validate`]).
    pub fn with_options(out: W, options: ExiOptions) -> Result<Self> {
        Self::check(&options)?;
        Ok(ExiEncoder::build(out, options))
    }

    /// An encoder with `options`; if they are invalid, the first event written returns the
    /// error (for callers that cannot fail at construction, as `binxml::AnyEncoder`).
    pub fn with_options_deferred(out: W, options: ExiOptions) -> Self {
        let check = Self::check(&options);
        let mut e = ExiEncoder::build(
            out,
            if check.is_ok() {
                options
            } else {
                ExiOptions::default()
            },
        );
        e.invalid = check.err();
        e
    }

    fn check(options: &ExiOptions) -> Result<()> {
        options.validate()?;
        if options.canonical {
            return Err(Error::unsupported(
                Format::Exi,
                "Canonical EXI without a schema: its attributes would need sorting (Canonical                  EXI 4.4), which this encoder does not do (give an XML Schema)",
            ));
        }
        if !options.datatype_representations.is_empty() {
            return Err(Error::unsupported(
                Format::Exi,
                "datatypeRepresentationMap: it maps schema datatypes, and this encoder is \
                 schema-less (give an XML Schema)",
            ));
        }
        if options.schema_id.is_some() {
            return Err(Error::unsupported(
                Format::Exi,
                "schemaId: schema-informed encoding needs an XML Schema, and this encoder is \
                 schema-less",
            ));
        }
        Ok(())
    }

    fn fresh_tables(o: &ExiOptions) -> Tables {
        Tables::new(
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
            true,
        )
    }

    fn build(out: W, o: ExiOptions) -> Self {
        let layout = Layout::new(o.comments, o.pis, o.dtd, o.prefixes, o.self_contained);
        let t = Self::fresh_tables(&o);
        ExiEncoder {
            out,
            w: BitWriter::new(false),
            t,
            g: Grammars::default(),
            layout,
            // FragmentContent (fragments only; a self-contained element makes its own).
            frag: if o.fragment {
                vec![Prod::Ee, Prod::SeAny]
            } else {
                Vec::new()
            },
            top: Top::Content,
            stack: Vec::new(),
            checker: StreamChecker::new(o.fragment),
            in_tag: false,
            se_prefix: String::new(),
            attrs: Vec::new(),
            attrs_xsi: false,
            abuf: String::new(),
            text: String::new(),
            after_start: false,
            space: false,
            scope: Vec::new(),
            chan: Channels::default(),
            deflater: None,
            done: false,
            invalid: None,
            outer: Vec::new(),
            next_name: Vec::new(),
            prev_name: NONE,
            last_uri: 0,
            by_addr: Vec::new(),
            names_gen: 0,
            addr_on: false,
            reserved: false,
            o,
        }
    }

    /// The options the encoder writes with.
    pub fn options(&self) -> &ExiOptions {
        &self.o
    }

    /// The writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer, borrowed.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// The writer, borrowed mutably (to take or clear what was written between streams).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Starts another stream, written after what the writer holds, with the same options,
    /// keeping the memory the encoder has grown: its string table, grammars and buffers are
    /// emptied, not freed (a table grown past a megabyte of values is made afresh). The stream
    /// is what a new encoder would write for the same events; whatever state the stream before
    /// was left in (finished or not, or after an error) is gone.
    ///
    /// ```
    /// use binxml_core::Encoder;
    /// use binxml_exi::ExiEncoder;
    ///
    /// let mut e = ExiEncoder::new(Vec::new());
    /// for xml in [&b"<a>1</a>"[..], b"<b><c/></b>"] {
    ///     let events = binxml_xml::decode(xml)?;
    ///     e.reset();
    ///     e.get_mut().clear();
    ///     e.write_events(&events)?;
    ///     e.finish()?;
    ///     assert_eq!(e.get_ref(), &binxml_exi::encode(&events)?);
    /// }
    /// # Ok::<(), binxml_core::Error>(())
    /// ```
    pub fn reset(&mut self) {
        // Inside a self-contained element: the stream's own table is the first outer one.
        if let Some(o) = self.outer.drain(..).next() {
            self.t = o.t;
            self.g = o.g;
            self.frag = o.frag;
        }
        self.w.clear();
        self.t.renew(
            self.o.value_max_length.map(|n| n as usize),
            self.o.value_partition_capacity.map(|n| n as usize),
        );
        self.g.clear();
        self.frag.clear();
        if self.o.fragment {
            self.frag.extend([Prod::Ee, Prod::SeAny]);
        }
        self.top = Top::Content;
        self.stack.clear();
        self.checker = StreamChecker::new(self.o.fragment);
        self.in_tag = false;
        self.se_prefix.clear();
        self.attrs.clear();
        self.attrs_xsi = false;
        self.abuf.clear();
        self.text.clear();
        self.after_start = false;
        self.space = false;
        self.scope.clear();
        self.chan.list.clear();
        self.chan.buf.clear();
        self.chan.index.clear();
        self.chan.count = 0;
        self.done = false;
        self.addr_on = false;
        self.forget_names();
        self.reserved = false;
    }

    fn io(e: std::io::Error) -> Error {
        Error::io(Format::Exi, e)
    }

    // ---- event codes -------------------------------------------------------------------

    /// A second- (and third-) level code in the current element's state.
    fn code2(&mut self, u: Undeclared) -> Result<()> {
        let f = self.stack.last().expect("inside an element");
        let n1 = self.g.prods(f.grammar, f.state).len();
        let second = self.layout.second(f.state);
        let (s, t) = match self.layout.find(second, u) {
            Some(c) => c,
            None => {
                return Err(Error::invalid_events(
                    Format::Exi,
                    format!("{u:?} is not allowed here"),
                ));
            }
        };
        self.w.nbit(n1 as u32, width(n1 + 1));
        self.w.nbit(s, width(second.len()));
        if let Some(t) = t {
            self.w.nbit(t, width(self.layout.third().len()));
        }
        Ok(())
    }

    /// The first-level code of learned production `p` in the current element's state, if it
    /// has one.
    #[inline(always)]
    fn code1(&mut self, p: Prod) -> bool {
        let f = self.stack.last().expect("inside an element");
        match self.g.find(f.grammar, f.state, p) {
            Some(i) => {
                let n = self.g.prods(f.grammar, f.state).len();
                self.w.nbit(code_of(i, n), width(n + 1));
                true
            }
            None => false,
        }
    }

    /// The width of FragmentContent's first-level code: its productions, and one more for
    /// CM/PI when they are preserved.
    fn frag_width(&self) -> u32 {
        width(self.frag.len() + usize::from(self.o.comments || self.o.pis))
    }

    /// A CM or PI code outside any element.
    fn code_top(&mut self, u: Undeclared) {
        let t = self
            .layout
            .third()
            .iter()
            .position(|&x| x == u)
            .unwrap_or(0) as u32;
        let n3 = width(self.layout.third().len());
        if self.o.fragment {
            let n = self.frag.len();
            self.w.nbit(n as u32, width(n + 1));
        } else if self.top == Top::Content {
            let doc = self.layout.doc();
            self.w.nbit(1, 1);
            self.w.nbit((doc.len() - 1) as u32, width(doc.len()));
        } else {
            self.w.nbit(1, 1);
        }
        self.w.nbit(t, n3);
    }

    // ---- values ------------------------------------------------------------------------

    fn value(&mut self, name: NameId, text: &str) -> Result<()> {
        if !self.o.alignment.is_reordered() {
            self.t.write_value(&mut self.w, name, text);
            return Ok(());
        }
        let c = &mut self.chan;
        if c.index.len() <= name as usize {
            c.index.resize(name as usize + 1, 0);
        }
        let i = c.index[name as usize];
        let start = c.buf.len() as u32;
        c.buf.push_str(text);
        let span = (start, c.buf.len() as u32);
        if i == 0 {
            c.list.push((name, vec![span]));
            c.index[name as usize] = c.list.len() as u32;
        } else {
            c.list[i as usize - 1].1.push(span);
        }
        c.count += 1;
        if c.count == self.o.block_size {
            self.close_block()?;
        }
        Ok(())
    }

    /// Writes the block's structure and channels (reordered layouts).
    fn close_block(&mut self) -> Result<()> {
        let structure = self.w.take_octets();
        let channels = std::mem::take(&mut self.chan.list);
        for (name, _) in &channels {
            self.chan.index[*name as usize] = 0;
        }
        let count = std::mem::replace(&mut self.chan.count, 0);
        let buf = std::mem::take(&mut self.chan.buf);
        if structure.is_empty() && channels.is_empty() {
            return Ok(());
        }
        let t = &mut self.t;
        let write = |w: &mut BitWriter, t: &mut Tables, name: NameId, values: &[(u32, u32)]| {
            for &(a, b) in values {
                t.write_value(w, name, &buf[a as usize..b as usize]);
            }
        };
        let mut streams = Vec::new();
        if count <= SMALL_BLOCK {
            let mut s = BitWriter::new(true);
            s.raw(&structure);
            for (name, values) in &channels {
                write(&mut s, t, *name, values);
            }
            streams.push(s.finish());
        } else {
            streams.push(structure);
            let mut small = BitWriter::new(true);
            let mut any_small = false;
            for (name, values) in &channels {
                if values.len() as u32 <= SMALL_BLOCK {
                    any_small = true;
                    write(&mut small, t, *name, values);
                }
            }
            if any_small {
                streams.push(small.finish());
            }
            for (name, values) in &channels {
                if values.len() as u32 > SMALL_BLOCK {
                    let mut s = BitWriter::new(true);
                    write(&mut s, t, *name, values);
                    streams.push(s.finish());
                }
            }
        }
        for s in &streams {
            self.emit(s)?;
        }
        let mut buf = buf;
        buf.clear();
        self.chan.buf = buf;
        Ok(())
    }

    /// One stream of a block: compressed in compression mode.
    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        if self.o.alignment == Alignment::Compression {
            let level = self.o.deflate_level;
            let z = self
                .deflater
                .get_or_insert_with(|| crate::deflate::Deflater::new(level));
            self.out.write_all(z.deflate(bytes)).map_err(Self::io)
        } else {
            self.out.write_all(bytes).map_err(Self::io)
        }
    }

    #[inline]
    fn flush_some(&mut self) -> Result<()> {
        if self.w.len() >= FLUSH_AT && !self.o.alignment.is_reordered() {
            return self.flush_out();
        }
        Ok(())
    }

    #[inline(never)]
    fn flush_out(&mut self) -> Result<()> {
        self.w.write_octets_to(&mut self.out).map_err(Self::io)
    }

    // ---- structure ---------------------------------------------------------------------

    fn start_document(&mut self) -> Result<()> {
        header::write(&mut self.w, &self.o);
        if self.o.alignment.is_aligned() {
            self.w.set_aligned(true);
        }
        if self.o.alignment.is_reordered() {
            let head = self.w.take_octets();
            self.out.write_all(&head).map_err(Self::io)?;
        }
        // SD: one choice, no bits.
        Ok(())
    }

    #[inline(always)]
    fn start_element(&mut self, q: &QName<'_>) -> Result<()> {
        let known = self.element_name(q);
        let name = match self.stack.last() {
            None => {
                if self.o.fragment {
                    let n = self.frag.len();
                    let bits = self.frag_width();
                    let hit =
                        known.and_then(|id| self.frag.iter().rposition(|&p| p == Prod::Se(id)));
                    match hit {
                        Some(i) => {
                            self.w.nbit(code_of(i, n), bits);
                            known.unwrap_or(0)
                        }
                        None => {
                            let i = self
                                .frag
                                .iter()
                                .position(|&p| p == Prod::SeAny)
                                .unwrap_or(0);
                            self.w.nbit(code_of(i, n), bits);
                            let id = self.write_name(known, &q.namespace, &q.local);
                            self.frag.push(Prod::Se(id));
                            id
                        }
                    }
                } else {
                    // DocContent: SE(*) is code 0.
                    let n1 = 1 + usize::from(self.o.dtd || self.o.comments || self.o.pis);
                    self.w.nbit(0, width(n1));
                    self.top = Top::End;
                    self.write_name(known, &q.namespace, &q.local)
                }
            }
            Some(f) => {
                let (gi, state) = (f.grammar, f.state);
                let hit = known.filter(|&id| self.code1(Prod::Se(id)));
                let id = match hit {
                    Some(id) => id,
                    None => {
                        self.code2(Undeclared::Se)?;
                        let id = self.write_name(known, &q.namespace, &q.local);
                        self.g.learn(gi, state, Prod::Se(id));
                        id
                    }
                };
                self.stack.last_mut().expect("inside an element").state = State::Content;
                id
            }
        };
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, name, &q.prefix);
            self.se_prefix.clear();
            self.se_prefix.push_str(&q.prefix);
        }
        self.push_frame(name);
        self.after_start = true;
        self.in_tag = true;
        if self.o.self_contained && self.o.is_self_contained(&q.namespace, &q.local) {
            self.start_self_contained(q)?;
        }
        Ok(())
    }

    /// Writes an element or attribute name as `Tables::write_qname` would; `known`: its number
    /// if the table holds it, as just looked up (None: the table does not hold it, so that its
    /// local name is written as new without another look-up, and its URI found by
    /// [`uri_id`](Self::uri_id), which compares the last one first).
    #[inline]
    fn write_name(&mut self, known: Option<NameId>, ns: &str, local: &str) -> NameId {
        if let Some(id) = known {
            self.t.write_known_qname(&mut self.w, id);
            return id;
        }
        let u = match self.uri_id(ns) {
            Some(u) => {
                self.t.write_uri_hit(&mut self.w, u);
                u
            }
            None => self.t.write_uri(&mut self.w, ns),
        };
        self.t.write_new_local(&mut self.w, u, local)
    }

    /// The number of an element or attribute name, if the table has it. Inside `write_tape`
    /// a name met before is known by the addresses of its strings; otherwise, as documents
    /// repeat their sequences of names (a record's fields, in order), the name that followed
    /// the previous one last time is compared first; only when it is another is the name hashed.
    #[inline]
    fn element_name(&mut self, q: &QName<'_>) -> Option<NameId> {
        if !self.addr_on {
            return self.name_by_text(q);
        }
        let local = q.local.as_ptr() as usize;
        let ns = q.namespace.as_ptr() as usize;
        let lens = (q.local.len() as u64) << 32 | q.namespace.len() as u64;
        let slot = (local >> 3 ^ local >> 12) & (self.by_addr.len() - 1);
        let a = self.by_addr[slot];
        if a.generation == self.names_gen && a.local == local && a.ns == ns && a.lens == lens {
            self.prev_name = a.id;
            return Some(a.id);
        }
        let found = self.name_by_text(q);
        if let Some(id) = found {
            self.by_addr[slot] = AddrName {
                local,
                ns,
                lens,
                generation: self.names_gen,
                id,
            };
        }
        found
    }

    /// [`element_name`](Self::element_name) by the name's text.
    fn name_by_text(&mut self, q: &QName<'_>) -> Option<NameId> {
        let guess = self
            .next_name
            .get(self.prev_name as usize)
            .copied()
            .unwrap_or(NONE);
        if guess != NONE && self.t.is_name(guess, &q.namespace, &q.local) {
            self.prev_name = guess;
            return Some(guess);
        }
        let found = self
            .uri_id(&q.namespace)
            .and_then(|u| self.t.name_id(u, &q.local));
        if let Some(id) = found
            && self.prev_name != NONE
        {
            let prev = self.prev_name as usize;
            if self.next_name.len() <= prev {
                self.next_name.resize(prev + 1, NONE);
            }
            self.next_name[prev] = id;
        }
        self.prev_name = found.unwrap_or(NONE);
        found
    }

    /// The number of a URI, if the table has it: the one found last is compared first (a
    /// document's names mostly share one or two namespaces, whose names are long to hash).
    #[inline]
    fn uri_id(&mut self, ns: &str) -> Option<u32> {
        if ns.is_empty() {
            return Some(0);
        }
        if bytes_eq(self.t.uri(self.last_uri).as_bytes(), ns.as_bytes()) {
            return Some(self.last_uri);
        }
        let u = self.t.uri_id(ns)?;
        self.last_uri = u;
        Some(u)
    }

    /// Forgets the name and URI guesses (the string table changes).
    fn forget_names(&mut self) {
        self.next_name.clear();
        self.prev_name = NONE;
        self.last_uri = 0;
        if self.addr_on {
            self.next_names_gen(ADDR_SLOTS);
        }
    }

    /// A new generation of names by address: the slots of the one before stop counting.
    /// `events`: the length of the tape being written, which sizes the slots when there are
    /// none yet.
    fn next_names_gen(&mut self, events: usize) {
        let n = (events / 2).next_power_of_two().clamp(16, ADDR_SLOTS);
        if self.by_addr.len() < n {
            // (None yet, or a reused encoder's from a shorter tape. Slots left from before
            // are of an older generation.)
            self.by_addr.resize(n, AddrName::default());
        }
        self.names_gen = self.names_gen.wrapping_add(1);
        if self.names_gen == 0 {
            // After 2^32 generations: forget every slot rather than trust an old one.
            self.by_addr.fill(AddrName::default());
            self.names_gen = 1;
        }
    }

    /// Room for a stream of `events` events, made at once by the first call that knows how
    /// many there are (the string table, the grammars and the body's octets), rather than
    /// grown entry by entry.
    fn reserve_for(&mut self, events: usize) {
        if std::mem::replace(&mut self.reserved, true) {
            return;
        }
        self.t.reserve_events(events);
        self.g.reserve((events / 8).min(1 << 8));
        self.w.reserve((events * 4).min(FLUSH_AT));
    }

    /// Opens an element whose name is in the table (its grammar made if it has none).
    fn push_frame(&mut self, name: NameId) {
        let grammar = match self.t.grammar(name) {
            NONE => {
                let gi = self.g.add();
                self.t.set_grammar(name, gi as u32);
                gi
            }
            gi => gi as usize,
        };
        self.stack.push(Frame {
            name,
            grammar,
            state: State::StartTag,
            scope_mark: self.scope.len(),
            outer_space: self.space,
        });
    }

    /// SC, then the element again as the first event of a fragment with fresh tables and
    /// grammars, from the next octet boundary (as EXIficient writes it: with preserved prefixes
    /// an NS event for the element's own prefix follows).
    fn start_self_contained(&mut self, q: &QName<'_>) -> Result<()> {
        self.code2(Undeclared::Sc)?;
        self.forget_names();
        self.w.pad();
        let fresh = Self::fresh_tables(&self.o);
        self.outer.push(Outer {
            t: std::mem::replace(&mut self.t, fresh),
            g: std::mem::take(&mut self.g),
            frag: std::mem::replace(&mut self.frag, vec![Prod::Ee, Prod::SeAny]),
            depth: self.stack.len(),
            space: self.space,
        });
        self.space = false;
        // FragmentContent: SE(*) is code 0 of ED, SE(*) (and CM/PI).
        let bits = self.frag_width();
        self.w.nbit(0, bits);
        let id = self.t.write_qname(&mut self.w, &q.namespace, &q.local);
        self.frag.push(Prod::Se(id));
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, id, &q.prefix);
        }
        self.push_frame(id);
        if self.o.prefixes {
            self.code2(Undeclared::Ns)?;
            let u = self.t.write_uri(&mut self.w, &q.namespace);
            self.t.write_ns_prefix(&mut self.w, u, &q.prefix);
            self.w.boolean(true);
        }
        Ok(())
    }

    /// After the self-contained element's EE: ED of its fragment, padding, and the outer
    /// stream's state back.
    fn end_self_contained(&mut self) {
        let n = self.frag.len();
        let i = self.frag.iter().position(|&p| p == Prod::Ee).unwrap_or(0);
        let bits = self.frag_width();
        self.w.nbit(code_of(i, n), bits);
        self.w.pad();
        let outer = self.outer.pop().expect("inside a self-contained element");
        self.forget_names();
        self.t = outer.t;
        self.g = outer.g;
        self.frag = outer.frag;
        self.space = outer.space;
        let f = self.stack.pop().expect("the element's outer frame");
        self.scope.truncate(f.scope_mark);
        // EXIficient's outer encoder does not see the element's end: for its whitespace
        // policy the last event is still the element's start.
        self.after_start = true;
    }

    fn namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        if prefix == "xml" {
            // `xmlns:xml` only restates the predeclared binding; SAX parsers (and so
            // EXIficient) do not report it.
            return Ok(());
        }
        self.scope.push((prefix.to_string(), uri.to_string()));
        if self.o.prefixes {
            self.code2(Undeclared::Ns)?;
            let u = self.t.write_uri(&mut self.w, uri);
            self.t.write_ns_prefix(&mut self.w, u, prefix);
            self.w.boolean(prefix == self.se_prefix);
            self.after_start = true;
        }
        Ok(())
    }

    /// Writes the open start tag's attributes: `xsi:type`, then `xsi:nil`, then the others in
    /// document order (as EXIficient does).
    #[inline(always)]
    fn close_tag(&mut self) -> Result<()> {
        if !self.in_tag {
            return Ok(());
        }
        self.in_tag = false;
        if self.attrs.is_empty() {
            return Ok(());
        }
        self.write_attributes()
    }

    /// [`Self::close_tag`] of a tag with attributes.
    #[inline(never)]
    fn write_attributes(&mut self) -> Result<()> {
        let attrs = std::mem::take(&mut self.attrs);
        let abuf = std::mem::take(&mut self.abuf);
        let s = |r: (usize, usize)| &abuf[r.0..r.1];
        let xsi = std::mem::take(&mut self.attrs_xsi);
        let result = self.write_attrs(attrs.len(), xsi, |i| {
            let a = &attrs[i];
            (a.known, s(a.ns), s(a.local), s(a.prefix), s(a.value))
        });
        let mut attrs = attrs;
        attrs.clear();
        let mut abuf = abuf;
        abuf.clear();
        self.attrs = attrs;
        self.abuf = abuf;
        result
    }

    /// Writes the start tag's `n` attributes, each `get(i)` (its known name, namespace, local
    /// name, prefix and value): `xsi:type`, then `xsi:nil`, then the others in document order
    /// (as EXIficient does); `xsi` says whether the tag has either.
    #[inline(always)]
    fn write_attrs<'a>(
        &mut self,
        n: usize,
        xsi: bool,
        get: impl Fn(usize) -> (Option<NameId>, &'a str, &'a str, &'a str, &'a str),
    ) -> Result<()> {
        // `xsi:type` and `xsi:nil` are always in the table (appendix D).
        let rank = |known: Option<NameId>| match known {
            Some(XSI_TYPE) => 0,
            Some(XSI_NIL) => 1,
            _ => 2,
        };
        let ranks: &[u8] = if xsi { &[0, 1, 2] } else { &[2] };
        for &r in ranks {
            for i in 0..n {
                let (known, ns, local, prefix, value) = get(i);
                if rank(known) == r {
                    self.attribute(known, ns, local, prefix, value)?;
                }
            }
        }
        Ok(())
    }

    /// Writes the attributes [`LookAhead`] held for the open start tag (whose strings live as
    /// long as the tape), as [`Self::write_attributes`] writes the buffered ones.
    #[inline(never)]
    fn write_held(&mut self, held: &[Held<'_>], xsi: bool) -> Result<()> {
        let prefixes = self.o.prefixes;
        self.write_attrs(held.len(), xsi, |i| {
            let a = &held[i];
            let (ns, local) = match a.known {
                Some(_) => ("", ""),
                None => (&*a.name.namespace, &*a.name.local),
            };
            let prefix = if prefixes { &*a.name.prefix } else { "" };
            (a.known, ns, local, prefix, &*a.value)
        })
    }

    fn attribute(
        &mut self,
        known: Option<NameId>,
        ns: &str,
        local: &str,
        prefix: &str,
        value: &str,
    ) -> Result<()> {
        let known = match known {
            Some(id) => Some(id),
            // A name the tag's earlier attributes added.
            None => self.uri_id(ns).and_then(|u| self.t.name_id(u, local)),
        };
        let name = match known {
            Some(id) if self.code1(Prod::At(id)) => id,
            _ => {
                self.code2(Undeclared::At)?;
                let id = self.write_name(known, ns, local);
                let f = self.stack.last().expect("inside an element");
                self.g.learn(f.grammar, State::StartTag, Prod::At(id));
                id
            }
        };
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, name, prefix);
        }
        if name == XSI_TYPE {
            if self.o.lexical_values {
                // EXIficient writes the lexical xsi:type into the structure channel.
                self.t.write_value(&mut self.w, XSI_TYPE, value);
            } else {
                let (p, l) = match value.split_once(':') {
                    Some((p, l)) => (p, l),
                    None => ("", value),
                };
                let (uri, local) = match self.resolve(p) {
                    Some(u) => (u.to_string(), l),
                    None => (String::new(), value),
                };
                let id = self.t.write_qname(&mut self.w, &uri, local);
                if self.o.prefixes {
                    self.t.write_qname_prefix(&mut self.w, id, p);
                }
            }
        } else {
            self.value(name, value)?;
        }
        if name == XML_SPACE {
            match value {
                "preserve" => self.space = true,
                "default" => self.space = false,
                _ => {}
            }
        }
        self.after_start = true;
        Ok(())
    }

    /// The namespace a prefix is bound to in the open elements (`xml` is predeclared, the
    /// empty prefix without declaration is no namespace).
    fn resolve(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(XML_NS);
        }
        match self.scope.iter().rev().find(|(p, _)| p == prefix) {
            Some((_, u)) => Some(u),
            None if prefix.is_empty() => Some(""),
            None => None,
        }
    }

    /// Writes the text gathered since the last structural event, or drops it as the
    /// whitespace policy says.
    #[inline(always)]
    fn flush_text(&mut self, next: Next) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        self.flush_gathered(next)
    }

    #[inline(never)]
    fn flush_gathered(&mut self, next: Next) -> Result<()> {
        let text = std::mem::take(&mut self.text);
        let r = self.write_text(&text, next);
        let mut text = text;
        text.clear();
        self.text = text;
        r
    }

    /// Writes `text` (all the text since the last structural event; not empty), or drops it
    /// as the whitespace policy says.
    fn write_text(&mut self, text: &str, next: Next) -> Result<()> {
        if self.stack.is_empty() {
            if is_whitespace(text) {
                return Ok(());
            }
            return Err(Error::unsupported(
                Format::Exi,
                "character data outside elements cannot be written in EXI",
            ));
        }
        let keep = match self.o.whitespace {
            Whitespace::Preserve => true,
            Whitespace::DropBetweenTags => {
                self.o.lexical_values
                    || self.space
                    || (self.after_start && matches!(next, Next::Ee | Next::Cm | Next::Pi))
                    || !is_whitespace(text)
            }
        };
        if keep { self.characters(text) } else { Ok(()) }
    }

    /// Writes `ev`, knowing the event after it: text that a start or end tag follows is
    /// written from the event as it is, without gathering it first.
    #[inline(always)]
    fn write_event_before(&mut self, ev: &Event<'_>, next: Option<&Event<'_>>) -> Result<()> {
        if let Event::Characters { text, cdata } = ev {
            let next = match next {
                Some(Event::StartElement(_)) => Some(Next::Se),
                Some(Event::EndElement) => Some(Next::Ee),
                _ => None,
            };
            return self.write_text_before(text, *cdata, next);
        }
        self.write_event(ev)
    }

    /// [`Encoder::write_event`] of an element start, without the event.
    #[inline(always)]
    fn put_start(&mut self, q: &QName<'_>) -> Result<()> {
        if let Some(e) = &self.invalid {
            return Err(e.clone());
        }
        self.checker.start_element(Format::Exi)?;
        self.close_tag()?;
        self.flush_text(Next::Se)?;
        self.start_element(q)?;
        self.flush_some()
    }

    /// [`Encoder::write_event`] of an element end, without the event.
    #[inline(always)]
    fn put_end(&mut self) -> Result<()> {
        if let Some(e) = &self.invalid {
            return Err(e.clone());
        }
        self.checker.end_element(Format::Exi)?;
        self.close_tag()?;
        self.flush_text(Next::Ee)?;
        self.end_element()?;
        self.flush_some()
    }

    /// The checks of an attribute event, and its name's number if the table has the name.
    #[inline(always)]
    fn attribute_name(&mut self, name: &QName<'_>) -> Result<Option<NameId>> {
        if let Some(e) = &self.invalid {
            return Err(e.clone());
        }
        self.checker.attribute(Format::Exi)?;
        Ok(self.element_name(name))
    }

    /// [`Encoder::write_event`] of an attribute, without the event: kept with the element's
    /// others until its start tag is closed.
    #[inline(always)]
    fn put_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        let known = self.attribute_name(name)?;
        self.buffer_attribute(known, name, value);
        self.flush_some()
    }

    /// Keeps an attribute, its strings copied, until its start tag is closed.
    fn buffer_attribute(&mut self, known: Option<NameId>, name: &QName<'_>, value: &str) {
        if matches!(known, Some(XSI_TYPE | XSI_NIL)) {
            self.attrs_xsi = true;
        }
        let prefixes = self.o.prefixes;
        let mut push = |s: &str| {
            let a = self.abuf.len();
            self.abuf.push_str(s);
            (a, self.abuf.len())
        };
        let (ns, local) = match known {
            Some(_) => ((0, 0), (0, 0)),
            None => (push(&name.namespace), push(&name.local)),
        };
        let prefix = if prefixes { push(&name.prefix) } else { (0, 0) };
        let attr = Attr {
            known,
            ns,
            local,
            prefix,
            value: push(value),
        };
        self.attrs.push(attr);
    }

    /// [`ExiEncoder::write_event_before`] of a text whose next event is `next` (`Se`, `Ee`, or
    /// None for any other).
    #[inline(always)]
    fn write_text_before(&mut self, text: &str, cdata: bool, next: Option<Next>) -> Result<()> {
        if let Some(next) = next
            && self.text.is_empty()
            && !text.is_empty()
            && self.invalid.is_none()
        {
            self.checker.characters(Format::Exi, text, cdata)?;
            self.close_tag()?;
            self.write_text(text, next)?;
            return self.flush_some();
        }
        self.write_event(&Event::Characters {
            text: Cow::Borrowed(text),
            cdata,
        })
    }

    fn characters(&mut self, text: &str) -> Result<()> {
        if !self.code1(Prod::Ch) {
            self.code2(Undeclared::Ch)?;
            let f = self.stack.last().expect("inside an element");
            self.g.learn(f.grammar, f.state, Prod::Ch);
        }
        let f = self.stack.last_mut().expect("inside an element");
        f.state = State::Content;
        let name = f.name;
        self.value(name, text)
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        if !self.code1(Prod::Ee) {
            self.code2(Undeclared::Ee)?;
            let f = self.stack.last().expect("inside an element");
            self.g.learn(f.grammar, State::StartTag, Prod::Ee);
        }
        let f = self.stack.pop().expect("inside an element");
        self.scope.truncate(f.scope_mark);
        self.space = f.outer_space;
        self.after_start = false;
        if self
            .outer
            .last()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            self.end_self_contained();
        }
        Ok(())
    }

    /// CM, PI, DT and ER: the code, and the state moves to content inside an element.
    fn misc_code(&mut self, u: Undeclared) -> Result<()> {
        if self.stack.is_empty() {
            self.code_top(u);
            return Ok(());
        }
        self.code2(u)?;
        self.stack.last_mut().expect("inside an element").state = State::Content;
        Ok(())
    }

    fn end_document(&mut self) -> Result<()> {
        if self.o.fragment {
            let n = self.frag.len();
            let i = self.frag.iter().position(|&p| p == Prod::Ee).unwrap_or(0);
            let bits = self.frag_width();
            self.w.nbit(code_of(i, n), bits);
        } else {
            let n1 = 1 + usize::from(self.o.comments || self.o.pis);
            self.w.nbit(0, width(n1));
        }
        if self.o.alignment.is_reordered() {
            self.close_block()?;
        } else {
            self.w.finish_to(&mut self.out).map_err(Self::io)?;
        }
        self.done = true;
        Ok(())
    }
}

/// An attribute [`LookAhead`] holds until its start tag closes: the tape's strings, not copies.
struct Held<'s> {
    known: Option<NameId>,
    name: QName<'s>,
    value: Cow<'s, str>,
}

/// Replays a tape into the encoder with its text held back one event, so that text is written
/// knowing what follows it ([`ExiEncoder::write_event_before`]). The tape's common events come
/// through the sink's per-kind methods: only the held text is kept, not a whole event. A start
/// tag's attributes are held too, borrowing the tape's strings, and written when the next event
/// closes the tag, where [`ExiEncoder::put_attribute`] would copy them into the encoder.
struct LookAhead<'e, 's, W: Write> {
    e: &'e mut ExiEncoder<W>,
    /// Text not yet written, and whether it is CDATA.
    held: Option<(Cow<'s, str>, bool)>,
    /// The open start tag's attributes, unless the tape began inside a start tag whose
    /// attributes the encoder holds (`hold_attrs` false: they are added to those).
    attrs: Vec<Held<'s>>,
    /// Whether `attrs` has `xsi:type` or `xsi:nil`.
    attrs_xsi: bool,
    hold_attrs: bool,
}

impl<W: Write> LookAhead<'_, '_, W> {
    /// Writes the held text, if any, now that the next event is known (`Se`, `Ee` or neither).
    #[inline(always)]
    fn release(&mut self, next: Option<Next>) -> Result<()> {
        match self.held.take() {
            Some((text, cdata)) => self.e.write_text_before(&text, cdata, next),
            None => Ok(()),
        }
    }

    /// Writes the held attributes, before an event that closes their start tag.
    #[inline(always)]
    fn close_tag(&mut self) -> Result<()> {
        if self.attrs.is_empty() {
            return Ok(());
        }
        self.write_attrs()
    }

    #[inline(never)]
    fn write_attrs(&mut self) -> Result<()> {
        let xsi = std::mem::take(&mut self.attrs_xsi);
        let r = self.e.write_held(&self.attrs, xsi);
        self.attrs.clear();
        r
    }

    /// Hands the held attributes to the encoder as if they had come one by one (the tape
    /// ended inside their start tag).
    fn spill(&mut self) {
        for a in self.attrs.drain(..) {
            self.e.buffer_attribute(a.known, &a.name, &a.value);
        }
        self.attrs_xsi = false;
    }
}

impl<'s, W: Write> binxml_core::EventSink<'s> for LookAhead<'_, 's, W> {
    fn event(&mut self, ev: Event<'s>) -> Result<()> {
        if matches!(ev, Event::Attribute { .. } | Event::Namespace { .. }) {
            // Like their per-kind methods: neither closes the start tag.
            return match ev {
                Event::Attribute { name, value } => self.attribute(name, value),
                Event::Namespace { prefix, uri } => self.namespace(prefix, uri),
                _ => Ok(()),
            };
        }
        self.release(match ev {
            Event::StartElement(_) => Some(Next::Se),
            Event::EndElement => Some(Next::Ee),
            _ => None,
        })?;
        self.close_tag()?;
        match ev {
            Event::Characters { text, cdata } => {
                self.held = Some((text, cdata));
                Ok(())
            }
            ev => self.e.write_event(&ev),
        }
    }

    #[inline]
    fn start_element(&mut self, name: QName<'s>) -> Result<()> {
        self.release(Some(Next::Se))?;
        self.close_tag()?;
        self.e.put_start(&name)
    }

    #[inline]
    fn namespace(&mut self, prefix: Cow<'s, str>, uri: Cow<'s, str>) -> Result<()> {
        self.release(None)?;
        self.e.write_event(&Event::Namespace { prefix, uri })
    }

    #[inline]
    fn attribute(&mut self, name: QName<'s>, value: Cow<'s, str>) -> Result<()> {
        self.release(None)?;
        if !self.hold_attrs {
            return self.e.put_attribute(&name, &value);
        }
        let known = self.e.attribute_name(&name)?;
        if matches!(known, Some(XSI_TYPE | XSI_NIL)) {
            self.attrs_xsi = true;
        }
        self.attrs.push(Held { known, name, value });
        Ok(())
    }

    #[inline]
    fn end_element(&mut self) -> Result<()> {
        self.release(Some(Next::Ee))?;
        self.close_tag()?;
        self.e.put_end()
    }

    #[inline]
    fn text(&mut self, text: Cow<'s, str>) -> Result<()> {
        self.release(None)?;
        self.close_tag()?;
        self.held = Some((text, false));
        Ok(())
    }

    fn transient(&mut self, ev: &Event<'_>) -> Result<()> {
        if matches!(ev, Event::Attribute { .. } | Event::Namespace { .. }) {
            if let Event::Attribute { name, value } = ev {
                // Its strings do not outlive the call: it and the rest of the tape's
                // attributes go to the encoder's buffer, in order.
                self.release(None)?;
                self.spill();
                self.hold_attrs = false;
                return self.e.put_attribute(name, value);
            }
            self.release(None)?;
            return self.e.write_event(ev);
        }
        if let Some(h) = self.held.take() {
            let h = Event::Characters {
                text: h.0,
                cdata: h.1,
            };
            self.e.write_event_before(&h, Some(ev))?;
        }
        self.close_tag()?;
        self.e.write_event(ev)
    }
}

fn is_whitespace(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

impl<W: Write> Encoder for ExiEncoder<W> {
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        self.reserve_for(events.len());
        let mut r = Ok(());
        for (i, ev) in events.iter().enumerate() {
            r = self.write_event_before(ev, events.get(i + 1));
            if r.is_err() {
                break;
            }
        }
        r
    }

    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        self.reserve_for(tape.len());
        // The tape's strings live for the whole call: names may be known by their addresses.
        self.next_names_gen(tape.len());
        self.addr_on = true;
        let hold_attrs = self.attrs.is_empty();
        let mut sink = LookAhead {
            e: self,
            held: None,
            attrs: Vec::new(),
            attrs_xsi: false,
            hold_attrs,
        };
        let r = tape.replay(&mut sink).and_then(|()| {
            sink.spill();
            sink.release(None)
        });
        self.addr_on = false;
        r
    }

    fn write_event(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::StartElement(q) => return self.put_start(q),
            Event::EndElement => return self.put_end(),
            Event::Attribute { name, value } => return self.put_attribute(name, value),
            _ => {}
        }
        if let Some(e) = &self.invalid {
            return Err(e.clone());
        }
        match ev {
            Event::Characters { text, cdata } => {
                self.checker.characters(Format::Exi, text, *cdata)?
            }
            _ => self.checker.check(Format::Exi, ev)?,
        }
        match ev {
            Event::StartDocument { .. } => self.start_document()?,
            Event::EndDocument => {
                self.close_tag()?;
                self.flush_text(Next::Ed)?;
                self.end_document()?;
            }
            Event::DocType(dt) if self.o.dtd => {
                self.flush_text(Next::Pi)?;
                // DocContent: the escape, then DT at the second level.
                let doc_len = self.layout.doc().len();
                self.w.nbit(1, 1);
                self.w.nbit(0, width(doc_len));
                self.w.string(&dt.name);
                self.w.string(dt.public_id.as_deref().unwrap_or(""));
                self.w.string(dt.system_id.as_deref().unwrap_or(""));
                self.w.string(dt.internal_subset.as_deref().unwrap_or(""));
            }
            Event::Namespace { prefix, uri } => self.namespace(prefix, uri)?,
            Event::Characters { text, .. } => {
                self.close_tag()?;
                self.text.push_str(text);
            }
            Event::Typed(t) => {
                self.close_tag()?;
                t.write_lexical(&mut self.text);
            }
            Event::Comment(c) if self.o.comments => {
                self.close_tag()?;
                self.flush_text(Next::Cm)?;
                self.misc_code(Undeclared::Cm)?;
                self.w.string(c);
            }
            Event::ProcessingInstruction { target, data } if self.o.pis => {
                self.close_tag()?;
                self.flush_text(Next::Pi)?;
                self.misc_code(Undeclared::Pi)?;
                self.w.string(target);
                self.w.string(data);
            }
            Event::EntityReference { name, .. } if self.o.dtd => {
                self.close_tag()?;
                self.flush_text(Next::Er)?;
                if self.stack.is_empty() {
                    return Err(Error::invalid_events(
                        Format::Exi,
                        "an entity reference outside elements",
                    ));
                }
                self.misc_code(Undeclared::Er)?;
                self.w.string(name);
            }
            // Notations and unparsed entities are part of the DOCTYPE's internal subset, which
            // DT carries as text.
            _ => {}
        }
        self.flush_some()
    }

    fn finish(&mut self) -> Result<()> {
        if !self.done {
            return Err(Error::invalid_events(
                Format::Exi,
                "finish before EndDocument",
            ));
        }
        self.out.flush().map_err(Self::io)
    }
}
