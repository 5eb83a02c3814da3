//! The schema-informed EXI decoder: the inverse of [`SchemaEncoder`](super::SchemaEncoder),
//! reading events with the grammars of a schema, typed values, and the built-in grammars for
//! undeclared elements.
//!
//! With preserve.prefixes the stream carries the namespace declarations (NS events) and each
//! name's prefix. Without it the decoder invents prefixes as the schema-less decoder does,
//! `ns<uri id>` declared on the element that first needs one (`xsi` for the XML Schema
//! instance namespace), and writes `xsi:type` values with the prefix of the type's namespace.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use binxml_core::hash::bytes_eq;
use binxml_core::{Decoder, Event, Limits, QName, Result};
use binxml_schema::model::TypeId;

use super::TableLease;
use super::datatype::ExiType;
use super::grammar::{
    Fidelity, GrammarId, Kind, Order, Second, Terminal, has_second_level, second_level,
};
use super::{SchemaGrammars, values};
use crate::bits::{BitReader, Mark, width};
use crate::grammar::{Grammars as BuiltinGrammars, Layout, Prod, State, Undeclared, index_of};
use crate::header;
use crate::options::ExiOptions;
use crate::tables::{NONE, NameId, Tables, ValueRef};

#[derive(Clone, Copy, Debug)]
enum Cur {
    Informed {
        state: GrammarId,
        empty: GrammarId,
        nillable: bool,
        castable: bool,
    },
    Builtin {
        grammar: usize,
        state: State,
    },
}

struct Frame {
    cur: Cur,
    name: NameId,
    /// Scope entries this element declared start here.
    scope_mark: usize,
}

/// The namespace declarations in scope, (prefix, URI, the URI's number), innermost last:
/// entries past the end are kept, their strings reused, so that the declarations that come
/// and go with the elements (invented prefixes) allocate nothing.
#[derive(Default)]
struct Scope {
    entries: Vec<(String, String, u32)>,
    /// Per entry, how it was last written: `invented(uri, underscores)` for an invented
    /// prefix, 0 for one read from the stream. The same invented declaration comes back at
    /// the same depth element after element: its strings are then left as they are.
    made: Vec<u64>,
    len: usize,
}

/// The [`Scope::made`] key of prefix `ns<uri>` (or `xsi`) with `underscores` `_`s.
fn invented(uri: u32, underscores: usize) -> u64 {
    ((underscores as u64) << 32 | u64::from(uri)) + 1
}

impl Scope {
    /// Declares `prefix` followed by `underscores` `_`s for `uri` (number `n`); `made` as in
    /// [`Scope::made`].
    fn push(&mut self, prefix: &str, underscores: usize, uri: &str, n: u32, made: u64) {
        if self.len == self.entries.len() {
            self.entries.push(Default::default());
            self.made.push(0);
        }
        if made == 0 || self.made[self.len] != made {
            let e = &mut self.entries[self.len];
            e.0.clear();
            e.0.push_str(prefix);
            e.0.extend(std::iter::repeat_n('_', underscores));
            e.1.clear();
            e.1.push_str(uri);
            e.2 = n;
            self.made[self.len] = made;
        }
        self.len += 1;
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// The string table changed (a self-contained element's starts or ends): a URI's number
    /// may name another URI, so no entry past the end is reused as it is.
    fn forget(&mut self) {
        self.made.fill(0);
    }
}

impl std::ops::Deref for Scope {
    type Target = [(String, String, u32)];
    fn deref(&self) -> &Self::Target {
        &self.entries[..self.len]
    }
}

/// A stretch of [`SchemaDecoder::buf`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span(u32, u32);

/// A value: read (in `buf`), or, in the pre-compression layout, slot `n` of its block, read
/// when the block's value channels are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Span(Span),
    Slot(u32),
}

/// The prefix of a name: none, `xml`, that of scope entry `n`, an entry of a URI's prefix
/// partition (preserved prefixes), not yet known (an element whose NS event with
/// local-element-ns names it), or copied into `buf` (a queued event's).
#[derive(Clone, Copy, Debug)]
enum Pfx {
    None,
    Xml,
    Scope(usize),
    Table(u32, u32),
    Unset,
    Buf(Span),
}

/// An event read: names by number, strings in the string table, the scope or `buf`, so that
/// reading allocates nothing per event and push decoding hands the strings on borrowed. A
/// queued event's prefixes and declarations are copied into `buf` first ([`Queue`]): the
/// scope they point into changes before the event is handed on.
#[derive(Clone, Copy, Debug)]
enum Raw {
    StartDocument,
    EndDocument,
    Start {
        name: NameId,
        prefix: Pfx,
    },
    /// The declaration of scope entry `n` (as read; queued as a [`Raw::Namespace`]).
    Declared(usize),
    Namespace {
        prefix: Span,
        uri: Span,
    },
    Attribute {
        name: NameId,
        prefix: Pfx,
        value: Val,
    },
    Text(Val),
    End,
    Comment(Span),
    Pi(Span, Span),
    /// DT: name, public id, system id, text (preserve.dtd).
    DocType([Span; 4]),
    /// ER (preserve.dtd).
    Er(Span),
}

/// The start tag being read: its element, the declarations it needs, its attributes.
#[derive(Default)]
struct Tag {
    open: bool,
    /// Nothing but the element's name read yet: SC may come.
    fresh: bool,
    element: Option<(NameId, Pfx)>,
    attrs: Vec<(NameId, Pfx, Val)>,
}

/// Where the decoder's steps hand the events they read: straight to the consumer (push
/// decoding of the in-order layouts, [`Emit`]: the event is built where it is read and
/// borrows the decoder's strings), or into the queue ([`Queue`]: pull decoding, and the
/// pre-compression layout, whose values come after their block's structure).
trait Take {
    fn take(&mut self, d: &mut SchemaDecoder<'_>, raw: Raw) -> Result<()>;
}

/// Hands each event to a push consumer as it is read.
struct Emit<'f, F>(&'f mut F);

impl<F: FnMut(&Event<'_>) -> Result<()>> Take for Emit<'_, F> {
    #[inline(always)]
    fn take(&mut self, d: &mut SchemaDecoder<'_>, raw: Raw) -> Result<()> {
        // Every string is borrowed: nothing to drop (dropping a `Cow` still tests its kind).
        (self.0)(&ManuallyDrop::new(d.event_of(&raw)))
    }
}

/// Queues each event, its borrowed strings copied into `buf`.
struct Queue;

impl Take for Queue {
    fn take(&mut self, d: &mut SchemaDecoder<'_>, raw: Raw) -> Result<()> {
        let raw = d.settle(raw);
        d.queue.push_back(raw);
        Ok(())
    }
}

self_cell::self_cell!(
    /// A compression-layout body, inflated, and the decoder reading it (as pre-compression).
    struct Inflated {
        owner: Vec<u8>,
        #[not_covariant]
        dependent: BodyDecoder,
    }
);

/// The inflated body's decoder (taken out, to be kept for the next stream, when the decoder is
/// reset).
type BodyDecoder<'b> = Option<SchemaDecoder<'b>>;

/// Inflated bodies (the compression layout) up to this size are kept for the next stream's.
const KEEP_BODY: usize = 1 << 22;

/// Reads a schema-informed EXI stream.
pub struct SchemaDecoder<'a> {
    /// The compression layout: the inflated body's decoder, which this one hands on.
    inflated: Option<Box<Inflated>>,
    /// The compression layout, after a reset: the inflated body of the stream before (emptied)
    /// and the decoder that read it, for the next compressed stream.
    spare_body: Vec<u8>,
    spare_dec: Option<Box<SchemaDecoder<'static>>>,
    input: &'a [u8],
    r: BitReader<'a>,
    g: Arc<SchemaGrammars>,
    o: ExiOptions,
    /// The options the decoder was made with (`o` becomes the stream's), for the next stream.
    given: ExiOptions,
    limits: Limits,
    t: TableLease,
    builtin: BuiltinGrammars,
    layout: Layout,
    stack: Vec<Frame>,
    /// Namespace declarations in scope: (prefix, uri, the URI's number).
    scope: Scope,
    /// The prefix invented for each URI number (`ns<n>`, `xsi`), made once: a namespace used
    /// only below the root is declared again on every element that needs it.
    invented: Vec<String>,
    tag: Tag,
    queue: VecDeque<Raw>,
    /// The strings of the queued events and of the open tag (emptied when both are).
    buf: String,
    /// A value read as a miss.
    scratch: String,
    started: bool,
    root_done: bool,
    ended: bool,
    /// Pre-compression: values come after their block's structure.
    reordered: bool,
    /// The block's values still to read: (name, type), in event order.
    slots: Vec<(NameId, Option<TypeId>)>,
    /// The block holds `blockSize` values: its structure is complete.
    block_full: bool,
    /// Queued events whose values are in (pre-compression).
    ready: usize,
    /// Octets of namespace declarations read (preserve.prefixes).
    held: usize,
    /// The representations of the stream's datatype representation map, if it has one.
    reps: Option<Arc<super::Representations>>,
    /// The streams around the self-contained elements being read, innermost last.
    outer: Vec<Outer>,
    /// A DOCTYPE has been read.
    doctype: bool,
}

/// What a self-contained element's fragment sets aside (its string table and built-in
/// grammars start afresh), restored at the fragment's ED.
struct Outer {
    t: TableLease,
    builtin: BuiltinGrammars,
    /// The stack's depth with the element's outer frame on it.
    depth: usize,
    /// The fragment's element has started.
    started: bool,
}

/// Values in one block up to which its channels share one stream.
const SMALL_BLOCK: usize = 100;

impl<'a> SchemaDecoder<'a> {
    /// A decoder for `input`, with the grammars of a schema; `options` apply when the header
    /// carries none.
    pub fn new(
        input: &'a [u8],
        grammars: Arc<SchemaGrammars>,
        options: ExiOptions,
        limits: Limits,
    ) -> Self {
        // The stream's own table is made when its header (or body) is read, with the options
        // that decide its limits: this one, of appendix D's few entries, is never read.
        let t = TableLease::unpooled(Tables::new(None, None, false));
        SchemaDecoder {
            inflated: None,
            spare_body: Vec::new(),
            spare_dec: None,
            input,
            r: BitReader::new(input, false, 0),
            g: grammars,
            given: options.clone(),
            o: options,
            limits,
            t,
            builtin: BuiltinGrammars::default(),
            layout: Layout::new(false, false, false, false, false),
            stack: Vec::new(),
            scope: Scope::default(),
            invented: Vec::new(),
            tag: Tag::default(),
            queue: VecDeque::new(),
            buf: String::new(),
            scratch: String::new(),
            started: false,
            root_done: false,
            ended: false,
            reordered: false,
            slots: Vec::new(),
            block_full: false,
            ready: 0,
            held: 0,
            reps: None,
            outer: Vec::new(),
            doctype: false,
        }
    }

    /// Starts over on another stream, `input`, with the options and limits the decoder was made
    /// with, keeping the memory it has grown (the string table, the built-in grammars, the
    /// element stack, the scope, the buffers, a compressed stream's inflated body and its
    /// decoder) emptied rather than freed. The next stream reads exactly as with a new decoder,
    /// whatever state this one was left in (finished, abandoned part way, or failed); the
    /// limits count from zero again (the decoded-size budget is the new input's).
    pub fn reset(&mut self, input: &'a [u8]) {
        self.clear();
        self.input = input;
        self.r = BitReader::new(input, false, 0);
    }

    /// [`reset`](Self::reset) for an input that lives for another lifetime: the decoder, with
    /// its memory, moved on to `input` (keep a `SchemaDecoder<'static>` of `&[]` between
    /// messages and recycle it onto each).
    pub fn recycle<'b>(mut self, input: &'b [u8]) -> SchemaDecoder<'b> {
        self.clear();
        SchemaDecoder {
            inflated: self.inflated,
            spare_body: self.spare_body,
            spare_dec: self.spare_dec,
            input,
            r: BitReader::new(input, false, 0),
            g: self.g,
            o: self.o,
            given: self.given,
            limits: self.limits,
            t: self.t,
            builtin: self.builtin,
            layout: self.layout,
            stack: self.stack,
            scope: self.scope,
            invented: self.invented,
            tag: self.tag,
            queue: self.queue,
            buf: self.buf,
            scratch: self.scratch,
            started: self.started,
            root_done: self.root_done,
            ended: self.ended,
            reordered: self.reordered,
            slots: self.slots,
            block_full: self.block_full,
            ready: self.ready,
            held: self.held,
            reps: self.reps,
            outer: self.outer,
            doctype: self.doctype,
        }
    }

    /// The state of a new decoder, but for the input, keeping every buffer's memory.
    fn clear(&mut self) {
        if let Some(mut inflated) = self.inflated.take() {
            // The compressed stream's body and its decoder, emptied, for the next one.
            let dec =
                inflated.with_dependent_mut(|_, d| d.take().map(|d| Box::new(d.recycle(&[]))));
            let body = inflated.into_owner();
            if body.capacity() <= KEEP_BODY {
                self.spare_body = body;
            }
            if dec.is_some() {
                self.spare_dec = dec;
            }
        }
        // A self-contained element's fragment table is in use: the stream's own is the first
        // outer one (either is emptied when the next stream starts).
        if let Some(o) = self.outer.drain(..).next() {
            self.t = o.t;
            self.builtin = o.builtin;
        }
        self.o.clone_from(&self.given);
        self.builtin.clear();
        self.layout = Layout::new(false, false, false, false, false);
        self.stack.clear();
        // The next stream's URI numbers may name other URIs: no entry is reused as it is.
        self.scope.truncate(0);
        self.scope.forget();
        // `invented` is kept: the prefix invented for a URI number is the same in every stream.
        self.tag.open = false;
        self.tag.fresh = false;
        self.tag.element = None;
        self.tag.attrs.clear();
        self.queue.clear();
        self.buf.clear();
        self.scratch.clear();
        self.started = false;
        self.root_done = false;
        self.ended = false;
        self.reordered = false;
        self.slots.clear();
        self.block_full = false;
        self.ready = 0;
        self.held = 0;
        self.reps = None;
        self.doctype = false;
    }

    fn start(&mut self) -> Result<()> {
        let (o, _cookie, _present) = header::read(&mut self.r, &self.o)?;
        let compressed = o.alignment == crate::options::Alignment::Compression;
        self.reordered = o.alignment.is_reordered();
        self.reps = self
            .g
            .representations(&o.datatype_representations)?
            .map(Arc::new);
        if compressed {
            return self.start_inflated(o);
        }
        if o.alignment.is_aligned() {
            self.r.set_aligned(true);
        }
        self.g.renew_table(
            &mut self.t,
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
        );
        self.t.reserve_values(self.input.len());
        self.layout = Layout::new(o.comments, o.pis, o.dtd, o.prefixes, o.self_contained);
        self.o = o;
        self.queue.push_back(Raw::StartDocument);
        Ok(())
    }

    /// The compression layout: every DEFLATE stream of the body inflated (within the decoded
    /// size budget, `max_expansion_ratio` times the input), then read as pre-compression.
    fn start_inflated(&mut self, o: ExiOptions) -> Result<()> {
        self.r.set_aligned(true);
        let ratio = self.limits.max_expansion_ratio;
        let budget = if ratio == 0 {
            usize::MAX
        } else {
            self.input.len().saturating_mul(ratio).max(1 << 16)
        };
        let mut body = std::mem::take(&mut self.spare_body);
        body.clear();
        let mut pos = self.r.pos();
        while pos < self.input.len() {
            let room = budget.saturating_sub(body.len());
            let (data, used) = crate::deflate::inflate_stream(self.input, pos, room, budget)?;
            body.extend_from_slice(&data);
            pos += used.max(1);
        }
        let limits = self.limits.clone();
        let grammars = Arc::clone(&self.g);
        let inner_options = o.with_alignment(crate::options::Alignment::PreCompression);
        let reps = self.reps.clone();
        let kept = self.spare_dec.take();
        self.inflated = Some(Box::new(Inflated::new(body, |b| {
            let mut d = match kept {
                // The decoder of the stream before: the same grammars and limits.
                Some(k) => {
                    let mut d = k.recycle(b);
                    d.given.clone_from(&inner_options);
                    d.o.clone_from(&inner_options);
                    d
                }
                None => SchemaDecoder::new(b, grammars, inner_options.clone(), limits),
            };
            d.start_body(inner_options);
            d.reps = reps;
            Some(d)
        })));
        self.ended = false;
        Ok(())
    }

    /// Starts reading a body (no header) with options `o`.
    fn start_body(&mut self, o: ExiOptions) {
        self.started = true;
        self.reordered = o.alignment.is_reordered();
        if o.alignment.is_aligned() {
            self.r.set_aligned(true);
        }
        self.g.renew_table(
            &mut self.t,
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
        );
        self.t.reserve_values(self.input.len());
        self.layout = Layout::new(o.comments, o.pis, o.dtd, o.prefixes, o.self_contained);
        self.o = o;
        self.queue.push_back(Raw::StartDocument);
        self.ready = 1;
    }

    // ---- names and prefixes --------------------------------------------------------------

    /// A prefix for URI `uri` in scope or declared on the open tag.
    fn prefix_for(&mut self, uri: u32) -> Pfx {
        match uri {
            0 => return Pfx::None,
            1 => return Pfx::Xml,
            _ => {}
        }
        if let Some(i) = self.scope.iter().rposition(|e| e.2 == uri) {
            return Pfx::Scope(i);
        }
        self.invent(uri)
    }

    /// Appends `text` to `buf`.
    fn put(&mut self, text: &str) -> Span {
        let a = self.buf.len() as u32;
        self.buf.push_str(text);
        Span(a, self.buf.len() as u32)
    }

    fn pfx_span(&mut self, p: Pfx) -> Span {
        match p {
            Pfx::None | Pfx::Unset => Span::default(),
            Pfx::Buf(s) => s,
            Pfx::Table(uri, id) => {
                let a = self.buf.len() as u32;
                self.buf.push_str(self.t.prefix(uri, id));
                Span(a, self.buf.len() as u32)
            }
            Pfx::Xml => self.put("xml"),
            Pfx::Scope(i) => {
                let a = self.buf.len() as u32;
                self.buf.push_str(&self.scope[i].0);
                Span(a, self.buf.len() as u32)
            }
        }
    }

    fn open_element(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        cur: Cur,
        out: &mut impl Take,
    ) -> Result<()> {
        self.flush_tag(out)?;
        if self.stack.len() >= self.limits.max_depth {
            return Err(r.limit_error(format!(
                "elements nested more than {} deep",
                self.limits.max_depth
            )));
        }
        let mark = self.scope.len();
        let uri = self.t.name_uri(name);
        let prefix = if !self.o.prefixes {
            self.prefix_for(uri)
        } else {
            match self.t.read_qname_prefix(r, name)? {
                _ if uri == 0 => Pfx::None,
                Some(id) => Pfx::Table(uri, id),
                None => Pfx::Unset,
            }
        };
        self.tag.open = true;
        self.tag.fresh = true;
        self.tag.element = Some((name, prefix));
        self.tag.attrs.clear();
        self.stack.push(Frame {
            cur,
            name,
            scope_mark: mark,
        });
        Ok(())
    }

    /// The prefix of an attribute's name: read from the stream (preserved prefixes), else
    /// invented. An attribute in a namespace needs a prefix that is not empty.
    #[inline(always)]
    fn attr_prefix(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Pfx> {
        let uri = self.t.name_uri(name);
        if uri == 0 {
            // Most attributes (inlined; the rest out of line).
            return Ok(Pfx::None);
        }
        self.attr_prefix_ns(r, name, uri)
    }

    /// [`attr_prefix`](Self::attr_prefix) of a name in namespace `uri` (not the empty one).
    fn attr_prefix_ns(&mut self, r: &mut BitReader<'_>, name: NameId, uri: u32) -> Result<Pfx> {
        if !self.o.prefixes {
            return Ok(self.prefix_for(uri));
        }
        match self.t.read_qname_prefix(r, name)? {
            Some(id) if !self.t.prefix(uri, id).is_empty() => Ok(Pfx::Table(uri, id)),
            _ => Ok(self.invent(uri)),
        }
    }

    #[inline(always)]
    fn attribute(&mut self, name: NameId, prefix: Pfx, value: Val) {
        self.tag.fresh = false;
        self.tag.attrs.push((name, prefix, value));
    }

    /// A fresh prefix declared for `uri` on the open tag.
    fn invent(&mut self, uri: u32) -> Pfx {
        if uri == 1 {
            return Pfx::Xml;
        }
        let u = uri as usize;
        while self.invented.len() <= u {
            let n = self.invented.len();
            self.invented.push(if n == 2 {
                "xsi".to_string()
            } else {
                // `ns{n}` (without the formatting machinery: a stream invents several)
                let mut p = String::with_capacity(6);
                p.push_str("ns");
                let mut digits = [0u8; 20];
                let mut i = digits.len();
                let mut v = n;
                loop {
                    i -= 1;
                    digits[i] = b'0' + (v % 10) as u8;
                    v /= 10;
                    if v == 0 {
                        break;
                    }
                }
                p.extend(digits[i..].iter().map(|&d| char::from(d)));
                p
            });
        }
        // The invented prefix, with as many `_` as make it unlike those in scope.
        let base = self.invented[u].as_bytes();
        let mut k = 0;
        while self.scope.iter().any(|(q, _, _)| {
            let q = q.as_bytes();
            q.len() == base.len() + k
                && bytes_eq(&q[..base.len()], base)
                && q[base.len()..].iter().all(|&b| b == b'_')
        }) {
            k += 1;
        }
        let base = &self.invented[u];
        self.scope
            .push(base, k, self.t.uri(uri), uri, invented(uri, k));
        Pfx::Scope(self.scope.len() - 1)
    }

    /// An NS event (preserve.prefixes): a declaration on the open tag, and with
    /// local-element-ns the element's prefix.
    fn namespace(&mut self, r: &mut BitReader<'_>) -> Result<()> {
        let max = self.limits.max_string_len;
        let uri = self.t.read_uri(r, max)?;
        let id = self.t.read_ns_prefix(r, uri, max)?;
        let local = r.boolean()?;
        // A declaration repeats table entries for a few bits each, and is held until its
        // element ends: what it holds counts against the decoded-size budget.
        let p = self.t.prefix(uri, id);
        self.held += p.len() + self.t.uri(uri).len() + 64;
        if self.held > self.limits.decoded_budget(self.input.len()) {
            return Err(r.limit_error(format!(
                "namespace declarations past {} octets for {} octets of input \
                 (limit: max_expansion_ratio)",
                self.limits.decoded_budget(self.input.len()),
                self.input.len()
            )));
        }
        if (p == "xml") != (uri == 1) && !p.is_empty() {
            return Err(r.error(format!("prefix {p:?} declared for the wrong namespace")));
        }
        self.scope.push(p, 0, self.t.uri(uri), uri, 0);
        self.tag.fresh = false;
        if local && let Some((_, pfx)) = &mut self.tag.element {
            *pfx = Pfx::Scope(self.scope.len() - 1);
        }
        Ok(())
    }

    /// Hands the open start tag on.
    #[inline]
    fn flush_tag(&mut self, out: &mut impl Take) -> Result<()> {
        if !self.tag.open {
            return Ok(());
        }
        self.flush_open_tag(out)
    }

    /// Hands the open start tag on: the element, the declarations it makes, its attributes.
    fn flush_open_tag(&mut self, out: &mut impl Take) -> Result<()> {
        self.tag.open = false;
        let Some((name, p)) = self.tag.element.take() else {
            return Ok(());
        };
        let p = match p {
            // No NS event named the element's prefix: one in scope for its URI, else a new one.
            Pfx::Unset => self.prefix_for(self.t.name_uri(name)),
            p => p,
        };
        out.take(self, Raw::Start { name, prefix: p })?;
        let mark = self.stack.last().map_or(0, |f| f.scope_mark);
        for i in mark..self.scope.len() {
            out.take(self, Raw::Declared(i))?;
        }
        for i in 0..self.tag.attrs.len() {
            let (name, prefix, value) = self.tag.attrs[i];
            out.take(
                self,
                Raw::Attribute {
                    name,
                    prefix,
                    value,
                },
            )?;
        }
        self.tag.attrs.clear();
        Ok(())
    }

    fn text(&mut self, text: Val, out: &mut impl Take) -> Result<()> {
        self.flush_tag(out)?;
        if !matches!(text, Val::Span(Span(a, b)) if a == b) {
            out.take(self, Raw::Text(text))?;
        }
        Ok(())
    }

    fn close_element(&mut self, out: &mut impl Take) -> Result<()> {
        self.flush_tag(out)?;
        out.take(self, Raw::End)?;
        if let Some(f) = self.stack.pop() {
            self.scope.truncate(f.scope_mark);
        }
        Ok(())
    }

    /// `raw` made fit to queue: its prefixes and declarations copied into `buf`.
    fn settle(&mut self, raw: Raw) -> Raw {
        match raw {
            Raw::Start { name, prefix } => Raw::Start {
                name,
                prefix: Pfx::Buf(self.pfx_span(prefix)),
            },
            Raw::Attribute {
                name,
                prefix,
                value,
            } => Raw::Attribute {
                name,
                prefix: Pfx::Buf(self.pfx_span(prefix)),
                value,
            },
            Raw::Declared(i) => {
                let prefix = self.pfx_span(Pfx::Scope(i));
                let a = self.buf.len() as u32;
                self.buf.push_str(&self.scope[i].1);
                let uri = Span(a, self.buf.len() as u32);
                Raw::Namespace { prefix, uri }
            }
            raw => raw,
        }
    }

    /// The text of prefix `p`.
    #[inline]
    fn pfx_text(&self, p: Pfx) -> &str {
        match p {
            Pfx::None | Pfx::Unset => "",
            Pfx::Xml => "xml",
            Pfx::Scope(i) => &self.scope[i].0,
            Pfx::Table(uri, id) => self.t.prefix(uri, id),
            Pfx::Buf(s) => &self.buf[s.0 as usize..s.1 as usize],
        }
    }

    /// The event of `raw`, its strings borrowed from the table, the scope and `buf`.
    #[inline(always)]
    fn event_of<'s>(&'s self, raw: &'s Raw) -> Event<'s> {
        let b = |s: Span| Cow::Borrowed(&self.buf[s.0 as usize..s.1 as usize]);
        let v = |v: Val| match v {
            Val::Span(s) => b(s),
            // Every slot is filled before its event is handed on.
            Val::Slot(_) => Cow::Borrowed(""),
        };
        let q = |name: NameId, prefix: Pfx| QName {
            prefix: Cow::Borrowed(self.pfx_text(prefix)),
            namespace: Cow::Borrowed(self.t.uri(self.t.name_uri(name))),
            local: Cow::Borrowed(self.t.local(name)),
        };
        match *raw {
            Raw::StartDocument => Event::StartDocument {
                version: None,
                encoding: None,
                standalone: None,
            },
            Raw::EndDocument => Event::EndDocument,
            Raw::Start { name, prefix } => Event::StartElement(q(name, prefix)),
            Raw::Namespace { prefix, uri } => Event::Namespace {
                prefix: b(prefix),
                uri: b(uri),
            },
            Raw::Declared(i) => Event::Namespace {
                prefix: Cow::Borrowed(&self.scope[i].0),
                uri: Cow::Borrowed(&self.scope[i].1),
            },
            Raw::Attribute {
                name,
                prefix,
                value,
            } => Event::Attribute {
                name: q(name, prefix),
                value: v(value),
            },
            Raw::Text(t) => Event::Characters {
                text: v(t),
                cdata: false,
            },
            Raw::End => Event::EndElement,
            Raw::Comment(c) => Event::Comment(b(c)),
            Raw::Pi(t, d) => Event::ProcessingInstruction {
                target: b(t),
                data: b(d),
            },
            Raw::DocType(dt) => {
                let some = |s: Span| (s.0 != s.1).then(|| b(s));
                Event::DocType(binxml_core::DocType {
                    name: b(dt[0]),
                    public_id: some(dt[1]),
                    system_id: some(dt[2]),
                    internal_subset: some(dt[3]),
                })
            }
            Raw::Er(name) => Event::EntityReference {
                name: b(name),
                public_id: None,
                system_id: None,
            },
        }
    }

    // ---- grammars --------------------------------------------------------------------------

    #[inline(always)]
    fn element_cur(&self, g: &SchemaGrammars, e: binxml_schema::model::ElemId) -> Cur {
        let eg = g.element(e);
        Cur::Informed {
            state: eg.start,
            empty: eg.empty,
            nillable: eg.nillable,
            castable: eg.castable,
        }
    }

    fn builtin_cur(&mut self, name: NameId) -> Cur {
        let grammar = match self.t.grammar(name) {
            NONE => {
                let gi = self.builtin.add();
                self.t.set_grammar(name, gi as u32);
                gi
            }
            gi => gi as usize,
        };
        Cur::Builtin {
            grammar,
            state: State::StartTag,
        }
    }

    fn global_grammar(&mut self, g: &SchemaGrammars, name: NameId) -> Cur {
        if let Some(e) = g.global_element(name) {
            return self.element_cur(g, e);
        }
        self.builtin_cur(name)
    }

    fn name_of_elem(&self, g: &SchemaGrammars, e: binxml_schema::model::ElemId) -> Result<NameId> {
        Ok(g.elem_name(e))
    }

    #[inline(always)]
    fn set_state(&mut self, next: Option<GrammarId>) {
        if let (Some(n), Some(f)) = (next, self.stack.last_mut())
            && let Cur::Informed { state, .. } = &mut f.cur
        {
            *state = n;
        }
    }

    /// Whether [`Self::second_order`] has any item, without building it.
    fn has_second_level(&self, g: &SchemaGrammars, cur: Cur) -> bool {
        let Cur::Informed {
            state,
            nillable,
            castable,
            ..
        } = cur
        else {
            return false;
        };
        has_second_level(g.grammar(state), nillable, castable, Fidelity::of(&self.o))
    }

    fn second_order(&self, g: &SchemaGrammars, cur: Cur) -> Order {
        let Cur::Informed {
            state,
            nillable,
            castable,
            ..
        } = cur
        else {
            return Order::default();
        };
        second_level(g.grammar(state), nillable, castable, Fidelity::of(&self.o))
    }

    // ---- values ----------------------------------------------------------------------------

    /// A value of an attribute or element named `name`, typed by `ty` or untyped: read now,
    /// or, in the pre-compression layout, a placeholder filled when the block's value channels
    /// are read (EXI 1.0, section 9).
    #[inline(always)]
    fn value(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        name: NameId,
        ty: Option<TypeId>,
    ) -> Result<Val> {
        if self.reordered {
            let n = self.slots.len();
            self.slots.push((name, ty));
            if self.slots.len() as u32 == self.o.block_size {
                self.block_full = true;
            }
            return Ok(Val::Slot(n as u32));
        }
        Ok(Val::Span(self.read_value_now(r, g, name, ty)?))
    }

    /// Reads a value into `buf`.
    fn read_value_now(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        name: NameId,
        ty: Option<TypeId>,
    ) -> Result<Span> {
        let a = self.buf.len() as u32;
        let max = self.limits.max_string_len;
        match ty.map(|t| g.value_type_in(self.reps.as_deref(), t, self.o.lexical_values)) {
            None | Some(ExiType::String) => {
                self.t.read_value_into(r, name, max, &mut self.buf)?;
            }
            Some(dt @ ExiType::Restricted(_)) => {
                let v = self.t.read_value_string_with(r, name, max, |r, len, out| {
                    values::decode_string_literal(dt, len, r, out)
                })?;
                self.buf.push_str(&v);
            }
            Some(dt) => {
                let mut items = values::TableItems {
                    t: &mut self.t,
                    name,
                    max_len: max,
                };
                values::decode_with(dt, r, &mut self.buf, &mut items)?;
            }
        }
        Ok(Span(a, self.buf.len() as u32))
    }

    // ---- steps -----------------------------------------------------------------------------

    /// Reads the next event(s) and hands them to `out`.
    #[inline(always)]
    fn step(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        out: &mut impl Take,
    ) -> Result<()> {
        let Some(cur) = self.stack.last().map(|f| f.cur) else {
            return self.step_top(r, g, out);
        };
        if self
            .outer
            .last()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            return self.step_self_contained(r, g, out);
        }
        match cur {
            Cur::Informed { state, .. } => self.step_informed(r, g, cur, state, out),
            Cur::Builtin { grammar, state } => self.step_builtin(r, g, grammar, state, out),
        }
    }

    fn step_top(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        out: &mut impl Take,
    ) -> Result<()> {
        let misc = self.o.comments || self.o.pis;
        if self.o.fragment {
            return self.step_fragment(r, g, misc, false, out);
        }
        if self.root_done {
            // DocEnd: ED, or (preserved) a comment or PI.
            if misc && r.nbit(1)? == 1 {
                return self.read_misc(r, out);
            }
            self.ended = true;
            return out.take(self, Raw::EndDocument);
        }
        let n = g.document_elements().len() + 1;
        let more = self.o.dtd || misc;
        let i = r.nbit(width(n + usize::from(more)))? as usize;
        if more && i == n {
            // The second level: DT (preserve.dtd), then the CM/PI group.
            let dtd = usize::from(self.o.dtd);
            let j = r.nbit(width(dtd + usize::from(misc)))? as usize;
            if j < dtd {
                return self.doctype(r, out);
            }
            return self.read_misc(r, out);
        }
        self.root_done = true;
        if i + 1 < n {
            let e = g.document_elements()[i];
            let name = self.name_of_elem(g, e)?;
            let cur = self.element_cur(g, e);
            self.open_element(r, name, cur, out)
        } else if i + 1 == n {
            let name = self.t.read_qname(r, self.limits.max_string_len)?;
            let cur = self.global_grammar(g, name);
            self.open_element(r, name, cur, out)
        } else {
            Err(r.error(format!("event code {i} past DocContent's {n} productions")))
        }
    }

    /// DT: name, public id, system id and text, each a string (section 6.1).
    fn doctype(&mut self, r: &mut BitReader<'_>, out: &mut impl Take) -> Result<()> {
        if self.doctype {
            return Err(r.error("a second DOCTYPE"));
        }
        self.doctype = true;
        let max = self.limits.max_string_len;
        let name = r.string(max)?;
        let public = r.string(max)?;
        let system = r.string(max)?;
        let text = r.string(max)?;
        let dt = [
            self.put(&name),
            self.put(&public),
            self.put(&system),
            self.put(&text),
        ];
        out.take(self, Raw::DocType(dt))
    }

    /// SC (section 8.5.4.4.1, `SC Fragment`): the open element goes on as the only element
    /// of a fragment from the next octet boundary, with a fresh string table and built-in
    /// grammars; its start tag is read again there (the fragment's SE), so the one read so
    /// far is not handed on.
    fn start_self_contained(&mut self, r: &mut BitReader<'_>, at: Mark) -> Result<()> {
        if !self.tag.open || !self.tag.fresh {
            return Err(r.error_at(at, "SC after the start tag's first event"));
        }
        r.skip_to_octet();
        self.tag.open = false;
        self.tag.element = None;
        self.tag.attrs.clear();
        let mark = self.stack.last().map_or(0, |f| f.scope_mark);
        self.scope.truncate(mark);
        let fresh = self.g.string_table(
            self.o.value_max_length.map(|n| n as usize),
            self.o.value_partition_capacity.map(|n| n as usize),
            false,
        );
        self.scope.forget();
        self.outer.push(Outer {
            t: std::mem::replace(&mut self.t, fresh),
            builtin: std::mem::take(&mut self.builtin),
            depth: self.stack.len(),
            started: false,
        });
        Ok(())
    }

    /// FragmentContent of a self-contained element: its SE first, then ED (or preserved
    /// comments and PIs), after which the outer stream goes on.
    fn step_self_contained(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        out: &mut impl Take,
    ) -> Result<()> {
        let misc = self.o.comments || self.o.pis;
        let at = r.mark();
        let depth = self.stack.len();
        let started = self.outer.last().is_some_and(|o| o.started);
        self.step_fragment(r, g, misc, true, out)?;
        if self.ended {
            self.ended = false;
            if !started {
                return Err(r.error_at(
                    at,
                    "a self-contained element's fragment without its element",
                ));
            }
            r.skip_to_octet();
            let outer = self.outer.pop().expect("inside a self-contained element");
            self.t = outer.t;
            self.scope.forget();
            self.builtin = outer.builtin;
            // The element's outer frame: its end was the fragment element's EE.
            if let Some(f) = self.stack.pop() {
                self.scope.truncate(f.scope_mark);
            }
            return Ok(());
        }
        if self.stack.len() > depth {
            if started {
                return Err(r.error_at(
                    at,
                    "a second element in a self-contained element's fragment",
                ));
            }
            if let Some(o) = self.outer.last_mut() {
                o.started = true;
            }
        } else if !started {
            return Err(r.error_at(
                at,
                "a self-contained element's fragment does not start with the element",
            ));
        }
        Ok(())
    }

    /// FragmentContent (EXI 1.0 8.5.3): SE(F_0..F_n-1), SE(*), ED, then the CM/PI group.
    /// A self-contained element's fragment (`nested`) hands no ED on: the outer stream goes
    /// on after it.
    fn step_fragment(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        misc: bool,
        nested: bool,
        out: &mut impl Take,
    ) -> Result<()> {
        let frag = g.fragment_elements();
        let n = frag.len();
        let at = r.mark();
        let i = r.nbit(width(n + 2 + usize::from(misc)))? as usize;
        if i < n {
            let name = match frag[i].1 {
                Some(e) => g.elem_name(e),
                None => {
                    let (uri, local) = (&frag[i].0.ns, &frag[i].0.local);
                    self.t
                        .uri_id(uri)
                        .and_then(|u| self.t.name_id(u, local))
                        .ok_or_else(|| {
                            r.error_at(at, "a declared name is missing from the string table")
                        })?
                }
            };
            let cur = match frag[i].1 {
                Some(e) => self.element_cur(g, e),
                None => {
                    let eg = g
                        .element_fragment()
                        .ok_or_else(|| r.error_at(at, "no element fragment grammar"))?;
                    Cur::Informed {
                        state: eg.start,
                        empty: eg.empty,
                        nillable: eg.nillable,
                        castable: eg.castable,
                    }
                }
            };
            self.open_element(r, name, cur, out)
        } else if i == n {
            let name = self.t.read_qname(r, self.limits.max_string_len)?;
            let cur = self.global_grammar(g, name);
            self.open_element(r, name, cur, out)
        } else if i == n + 1 {
            self.ended = true;
            if nested {
                return Ok(());
            }
            out.take(self, Raw::EndDocument)
        } else if misc && i == n + 2 {
            self.read_misc(r, out)
        } else {
            Err(r.error_at(
                at,
                format!(
                    "event code {i} past FragmentContent's {} productions",
                    n + 2
                ),
            ))
        }
    }

    /// The third level: a comment or a processing instruction, as preserved.
    fn read_misc(&mut self, r: &mut BitReader<'_>, out: &mut impl Take) -> Result<()> {
        let mut third = Vec::new();
        if self.o.comments {
            third.push(Undeclared::Cm);
        }
        if self.o.pis {
            third.push(Undeclared::Pi);
        }
        let at = r.mark();
        let k = r.nbit(width(third.len()))? as usize;
        let max = self.limits.max_string_len;
        match third.get(k) {
            Some(Undeclared::Cm) => {
                let text = r.string(max)?;
                self.flush_tag(out)?;
                let c = self.put(&text);
                out.take(self, Raw::Comment(c))?;
            }
            Some(_) => {
                let target = r.string(max)?;
                let data = r.string(max)?;
                self.flush_tag(out)?;
                let (t, d) = (self.put(&target), self.put(&data));
                out.take(self, Raw::Pi(t, d))?;
            }
            None => {
                return Err(r.error_at(
                    at,
                    format!("third-level event code {k} past {}", third.len()),
                ));
            }
        }
        Ok(())
    }

    fn step_informed(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        cur: Cur,
        state: GrammarId,
        out: &mut impl Take,
    ) -> Result<()> {
        let st = g.grammar(state);
        let n1 = st.productions.len();
        let more = usize::from(self.has_second_level(g, cur));
        let at = r.mark();
        let i = r.nbit(width(n1 + more))? as usize;
        if i < n1 {
            let p = &st.productions[i];
            match &p.terminal {
                Terminal::At { type_def, .. } => {
                    let id = g.prod_name(state, i).ok_or_else(|| {
                        r.error_at(at, "a declared attribute is missing from the string table")
                    })?;
                    let pfx = self.attr_prefix(r, id)?;
                    let v = self.value(r, g, id, Some(*type_def))?;
                    self.attribute(id, pfx, v);
                    self.set_state(p.next);
                }
                Terminal::AtNs(uri) => {
                    let u = self.t.uri_id(uri).ok_or_else(|| {
                        r.error_at(at, "a wildcard URI is missing from the string table")
                    })?;
                    let id = self.t.read_local(r, u, self.limits.max_string_len)?;
                    let pfx = self.attr_prefix(r, id)?;
                    let v = self.undeclared_attribute_value(r, g, id)?;
                    self.attribute(id, pfx, v);
                    self.set_state(p.next);
                }
                Terminal::AtAny => {
                    let id = self.t.read_qname(r, self.limits.max_string_len)?;
                    let pfx = self.attr_prefix(r, id)?;
                    if id == crate::tables::XSI_TYPE {
                        self.xsi_type(r, g, pfx, at)?;
                        self.set_state(p.next);
                        return Ok(());
                    }
                    let v = self.undeclared_attribute_value(r, g, id)?;
                    self.attribute(id, pfx, v);
                    self.set_state(p.next);
                }
                Terminal::Se(e) => {
                    let name = self.name_of_elem(g, *e)?;
                    let c = self.element_cur(g, *e);
                    self.set_state(p.next);
                    self.open_element(r, name, c, out)?;
                }
                Terminal::SeRelaxed(_) => {
                    let name = g.prod_name(state, i).ok_or_else(|| {
                        r.error_at(at, "a declared name is missing from the string table")
                    })?;
                    let eg = g
                        .element_fragment()
                        .ok_or_else(|| r.error_at(at, "no element fragment grammar"))?;
                    self.set_state(p.next);
                    self.open_element(
                        r,
                        name,
                        Cur::Informed {
                            state: eg.start,
                            empty: eg.empty,
                            nillable: true,
                            castable: true,
                        },
                        out,
                    )?;
                }
                Terminal::SeNs(uri) => {
                    let u = self.t.uri_id(uri).ok_or_else(|| {
                        r.error_at(at, "a wildcard URI is missing from the string table")
                    })?;
                    let name = self.t.read_local(r, u, self.limits.max_string_len)?;
                    self.set_state(p.next);
                    let c = self.global_grammar(g, name);
                    self.open_element(r, name, c, out)?;
                }
                Terminal::SeAny => {
                    let name = self.t.read_qname(r, self.limits.max_string_len)?;
                    self.set_state(p.next);
                    let c = self.global_grammar(g, name);
                    self.open_element(r, name, c, out)?;
                }
                Terminal::Ee => self.close_element(out)?,
                Terminal::Ch(t) => {
                    let name = self.stack.last().expect("inside an element").name;
                    let v = self.value(r, g, name, Some(*t))?;
                    self.text(v, out)?;
                    self.set_state(p.next);
                }
                Terminal::ChMixed => {
                    let name = self.stack.last().expect("inside an element").name;
                    let v = self.value(r, g, name, None)?;
                    self.text(v, out)?;
                    self.set_state(p.next);
                }
            }
            return Ok(());
        }
        // Built only when the event is at the second level (most events are not).
        let order = self.second_order(g, cur);
        debug_assert_eq!(more == 1, !order.is_empty());
        if i > n1 || order.is_empty() {
            return Err(r.error_at(
                at,
                format!("event code {i} past the state's {} productions", n1 + more),
            ));
        }
        let j = r.nbit(width(order.len()))? as usize;
        let Some(&second) = order.get(j) else {
            return Err(r.error_at(
                at,
                format!("second-level event code {j} past {}", order.len()),
            ));
        };
        let content = match st.kind {
            Kind::Content => state,
            _ => st.content.unwrap_or(state),
        };
        match second {
            Second::Misc => {
                self.read_misc(r, out)?;
                self.set_state(Some(content));
            }
            Second::Er => {
                let name = r.string(self.limits.max_string_len)?;
                self.flush_tag(out)?;
                let name = self.put(&name);
                out.take(self, Raw::Er(name))?;
                self.set_state(Some(content));
            }
            Second::Sc => self.start_self_contained(r, at)?,
            Second::Ee => self.close_element(out)?,
            Second::XsiType => {
                let own = self.attr_prefix(r, crate::tables::XSI_TYPE)?;
                self.xsi_type(r, g, own, at)?;
            }
            Second::XsiNil => {
                let own = self.attr_prefix(r, crate::tables::XSI_NIL)?;
                let b = r.boolean()?;
                let value = Val::Span(self.put(if b { "true" } else { "false" }));
                self.attribute(crate::tables::XSI_NIL, own, value);
                if b && let Cur::Informed { empty, .. } = cur {
                    self.set_state(Some(empty));
                }
            }
            Second::AtAny => {
                let id = self.t.read_qname(r, self.limits.max_string_len)?;
                let pfx = self.attr_prefix(r, id)?;
                if id == crate::tables::XSI_TYPE {
                    return self.xsi_type(r, g, pfx, at);
                }
                let v = self.undeclared_attribute_value(r, g, id)?;
                self.attribute(id, pfx, v);
            }
            Second::Ns => self.namespace(r)?,
            Second::AtUntyped => {
                let declared: Vec<usize> = st
                    .productions
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| matches!(p.terminal, Terminal::At { .. }))
                    .map(|(i, _)| i)
                    .collect();
                let k = r.nbit(width(declared.len() + 1))? as usize;
                if k < declared.len() {
                    let p = &st.productions[declared[k]];
                    let id = g.prod_name(state, declared[k]).ok_or_else(|| {
                        r.error_at(at, "a declared attribute is missing from the string table")
                    })?;
                    let pfx = self.attr_prefix(r, id)?;
                    let v = self.value(r, g, id, None)?;
                    self.attribute(id, pfx, v);
                    self.set_state(p.next);
                } else if k == declared.len() {
                    let id = self.t.read_qname(r, self.limits.max_string_len)?;
                    let pfx = self.attr_prefix(r, id)?;
                    let v = self.value(r, g, id, None)?;
                    self.attribute(id, pfx, v);
                } else {
                    return Err(r.error_at(
                        at,
                        format!("third-level event code {k} past {}", declared.len() + 1),
                    ));
                }
            }
            Second::SeAny => {
                let name = self.t.read_qname(r, self.limits.max_string_len)?;
                self.set_state(Some(content));
                let c = self.global_grammar(g, name);
                self.open_element(r, name, c, out)?;
            }
            Second::Ch => {
                let name = self.stack.last().expect("inside an element").name;
                let v = self.value(r, g, name, None)?;
                self.text(v, out)?;
                self.set_state(Some(content));
            }
        }
        Ok(())
    }

    /// An xsi:type's value (its attribute's prefix `own` read): a QName (with its prefix when
    /// prefixes are preserved), or with lexical values a string resolved by the declarations
    /// in scope; a type the schema names switches the element to its grammar.
    fn xsi_type(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        own: Pfx,
        at: Mark,
    ) -> Result<()> {
        if self.o.lexical_values && !self.o.prefixes {
            return Err(r.error_at(
                at,
                "xsi:type with preserve.lexicalValues and without preserve.prefixes: \
                 its value's prefix cannot be resolved"
                    .to_string(),
            ));
        }
        let (uri_text, local_text, value) = if self.o.lexical_values {
            // A string (in the structure channel), resolved by the declarations in
            // scope.
            let max = self.limits.max_string_len;
            let a = self.buf.len() as u32;
            match self
                .t
                .read_value(r, crate::tables::XSI_TYPE, max, &mut self.scratch)?
            {
                ValueRef::Global(v) | ValueRef::Added(v) => self.buf.push_str(self.t.value(v)),
                ValueRef::Scratch => self.buf.push_str(&self.scratch),
            }
            let text = self.buf[a as usize..].trim();
            let (p, l) = text.split_once(':').unwrap_or(("", text));
            let uri = match self.scope.iter().rev().find(|e| e.0 == p) {
                Some(e) => e.1.clone(),
                None if p == "xml" => crate::tables::XML_NS.to_string(),
                None => String::new(),
            };
            (
                uri,
                l.to_string(),
                Val::Span(Span(a, self.buf.len() as u32)),
            )
        } else {
            let id = self.t.read_qname(r, self.limits.max_string_len)?;
            let uri = self.t.name_uri(id);
            let prefix = if self.o.prefixes && uri != 0 {
                match self.t.read_qname_prefix(r, id)? {
                    Some(p) => Pfx::Table(uri, p),
                    None => self.prefix_for(uri),
                }
            } else {
                self.prefix_for(uri)
            };
            let a = self.buf.len() as u32;
            let b = self.pfx_span(prefix);
            if b.0 != b.1 {
                self.buf.push(':');
            }
            self.buf.push_str(self.t.local(id));
            let value = Val::Span(Span(a, self.buf.len() as u32));
            let uri_text = self.t.uri(uri).to_string();
            (uri_text, self.t.local(id).to_string(), value)
        };
        self.attribute(crate::tables::XSI_TYPE, own, value);
        if let Some(t) = g.schema().global_type(&uri_text, &local_text) {
            let (start, empty) = (g.type_grammar(t), g.type_empty(t));
            if let Some(f) = self.stack.last_mut() {
                f.cur = Cur::Informed {
                    state: start,
                    empty,
                    nillable: false,
                    castable: false,
                };
            }
        }
        Ok(())
    }

    /// An attribute matched by AT(*) or AT(uri:*): typed by its global declaration if there
    /// is one, else a string.
    fn undeclared_attribute_value(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        id: NameId,
    ) -> Result<Val> {
        let uri = self.t.uri(self.t.name_uri(id));
        let ty = g.global_attribute_type(uri, self.t.local(id));
        self.value(r, g, id, ty)
    }

    fn step_builtin(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        grammar: usize,
        state: State,
        out: &mut impl Take,
    ) -> Result<()> {
        let n = self.builtin.prods(grammar, state).len();
        let at = r.mark();
        let code = r.nbit(width(n + 1))? as usize;
        if code < n {
            let p = self.builtin.prods(grammar, state)[index_of(code, n)];
            return self.builtin_prod(r, g, grammar, state, p, out);
        }
        if code > n {
            return Err(r.error_at(at, format!("event code {code} past {} productions", n + 1)));
        }
        let second = self.layout.second(state).to_vec();
        let s = r.nbit(width(second.len()))? as usize;
        if self.layout.is_group(&second, s) {
            self.read_misc(r, out)?;
            if let Some(f) = self.stack.last_mut() {
                f.cur = Cur::Builtin {
                    grammar,
                    state: State::Content,
                };
            }
            return Ok(());
        }
        let u = *second.get(s).ok_or_else(|| {
            r.error_at(
                at,
                format!("second-level event code {s} past {}", second.len()),
            )
        })?;
        let p = match u {
            Undeclared::Ee => Prod::Ee,
            Undeclared::At => {
                let id = self.t.read_qname(r, self.limits.max_string_len)?;
                Prod::At(id)
            }
            Undeclared::Se => {
                let id = self.t.read_qname(r, self.limits.max_string_len)?;
                Prod::Se(id)
            }
            Undeclared::Ch => Prod::Ch,
            Undeclared::Ns => return self.namespace(r),
            Undeclared::Sc if state == State::StartTag => {
                return self.start_self_contained(r, at);
            }
            Undeclared::Er => {
                let name = r.string(self.limits.max_string_len)?;
                self.flush_tag(out)?;
                let name = self.put(&name);
                out.take(self, Raw::Er(name))?;
                if let Some(f) = self.stack.last_mut() {
                    f.cur = Cur::Builtin {
                        grammar,
                        state: State::Content,
                    };
                }
                return Ok(());
            }
            other => {
                return Err(r.error_at(
                    at,
                    format!("{other:?} is not supported in schema-informed streams yet"),
                ));
            }
        };
        self.builtin.learn(grammar, state, p);
        self.builtin_prod(r, g, grammar, state, p, out)
    }

    fn builtin_prod(
        &mut self,
        r: &mut BitReader<'_>,
        g: &SchemaGrammars,
        grammar: usize,
        state: State,
        p: Prod,
        out: &mut impl Take,
    ) -> Result<()> {
        match p {
            Prod::Ee => self.close_element(out)?,
            Prod::At(id) => {
                let pfx = self.attr_prefix(r, id)?;
                if id == crate::tables::XSI_TYPE {
                    let at = r.mark();
                    return self.xsi_type(r, g, pfx, at);
                }
                let v = self.value(r, g, id, None)?;
                self.attribute(id, pfx, v);
            }
            Prod::Se(id) => {
                if let Some(f) = self.stack.last_mut() {
                    f.cur = Cur::Builtin {
                        grammar,
                        state: State::Content,
                    };
                }
                let c = self.global_grammar(g, id);
                self.open_element(r, id, c, out)?;
            }
            Prod::Ch => {
                let name = self.stack.last().expect("inside an element").name;
                let v = self.value(r, g, name, None)?;
                self.text(v, out)?;
                if let Some(f) = self.stack.last_mut() {
                    f.cur = Cur::Builtin {
                        grammar,
                        state: State::Content,
                    };
                }
            }
            Prod::SeAny => return Err(r.error("SE(*) in an element grammar")),
        }
        let _ = state;
        Ok(())
    }
}

impl SchemaDecoder<'_> {
    /// Reads the block's value channels (section 9.3's order: with at most 100 values, every
    /// channel in order of first value; else the channels of at most 100 values, then each
    /// larger one, each group in order of first value) and fills the placeholders.
    fn fill_block(&mut self, r: &mut BitReader<'_>, g: &SchemaGrammars) -> Result<()> {
        let slots = std::mem::take(&mut self.slots);
        self.block_full = false;
        if slots.is_empty() {
            return Ok(());
        }
        // The structure channel ends on an octet boundary.
        r.skip_to_octet();
        let mut channels: Vec<(NameId, Vec<usize>)> = Vec::new();
        let mut index: std::collections::HashMap<NameId, usize> = std::collections::HashMap::new();
        for (i, (name, _)) in slots.iter().enumerate() {
            match index.get(name) {
                Some(&c) => channels[c].1.push(i),
                None => {
                    index.insert(*name, channels.len());
                    channels.push((*name, vec![i]));
                }
            }
        }
        let order: Vec<usize> = if slots.len() <= SMALL_BLOCK {
            (0..channels.len()).collect()
        } else {
            let small = (0..channels.len()).filter(|&c| channels[c].1.len() <= SMALL_BLOCK);
            let large = (0..channels.len()).filter(|&c| channels[c].1.len() > SMALL_BLOCK);
            small.chain(large).collect()
        };
        let mut values = vec![Span::default(); slots.len()];
        for c in order {
            for &i in &channels[c].1 {
                let (name, ty) = slots[i];
                values[i] = self.read_value_now(r, g, name, ty)?;
            }
        }
        let fill = |v: &mut Val| {
            if let Val::Slot(n) = *v {
                *v = Val::Span(values[n as usize]);
            }
        };
        for raw in self.queue.iter_mut() {
            match raw {
                Raw::Attribute { value, .. } => fill(value),
                Raw::Text(text) => fill(text),
                _ => {}
            }
        }
        // Attributes of a start tag still open.
        for a in &mut self.tag.attrs {
            fill(&mut a.2);
        }
        self.queue
            .retain(|raw| !matches!(raw, Raw::Text(Val::Span(Span(a, b))) if a == b));
        Ok(())
    }

    /// Reads until an event is ready to hand on; `false` at the end of the stream.
    fn advance(&mut self, g: &SchemaGrammars) -> Result<bool> {
        loop {
            // In pre-compression a block's events wait for its values: `ready` counts the
            // queued events whose values are in.
            if (!self.reordered || self.ready > 0) && !self.queue.is_empty() {
                return Ok(true);
            }
            if self.queue.is_empty() && !self.tag.open {
                self.buf.clear();
            }
            if self.ended {
                return Ok(false);
            }
            if !self.started {
                self.started = true;
                if let Err(e) = self.start() {
                    // Nothing more is read from a stream whose header or body failed to
                    // start (its table and layout were never set up for it).
                    self.ended = true;
                    return Err(e);
                }
                if self.inflated.is_some() {
                    return Ok(false);
                }
                self.ready = self.queue.len();
                continue;
            }
            let mut r = self.r.clone();
            let res = self.step_queued(&mut r, g);
            self.r = r;
            res?;
        }
    }

    /// Reads the next event(s) into the queue, and in pre-compression a full block's values.
    fn step_queued(&mut self, r: &mut BitReader<'_>, g: &SchemaGrammars) -> Result<()> {
        self.step(r, g, &mut Queue)?;
        if self.reordered && (self.block_full || self.ended) {
            self.fill_block(r, g)?;
            self.ready = self.queue.len();
        }
        Ok(())
    }

    /// Hands every event on to `f`, borrowed for the call.
    fn drive<F>(&mut self, f: &mut F) -> Result<()>
    where
        F: FnMut(&Event<'_>) -> Result<()>,
    {
        // One count on the grammars for the whole stream, not one per event.
        let grammars = Arc::clone(&self.g);
        let g = &*grammars;
        loop {
            if let Some(inner) = &mut self.inflated {
                return inner.with_dependent_mut(|_, d| match d {
                    Some(d) => d.drive(f),
                    None => Ok(()),
                });
            }
            if self.started && !self.reordered && self.queue.is_empty() {
                // The in-order layouts: each event handed on where it is read.
                // The reader is held in a local for the whole loop (not read and written back
                // through `self` around every event), and put back for the offsets of an error.
                let mut out = Emit(f);
                let mut r = self.r.clone();
                let res = loop {
                    if self.ended {
                        break Ok(());
                    }
                    if !self.tag.open {
                        self.buf.clear();
                    }
                    if let Err(e) = self.step(&mut r, g, &mut out) {
                        break Err(e);
                    }
                };
                self.r = r;
                return res;
            }
            if !self.advance(g)? {
                if self.inflated.is_some() {
                    continue;
                }
                return Ok(());
            }
            while (!self.reordered || self.ready > 0)
                && let Some(raw) = self.queue.pop_front()
            {
                self.ready = self.ready.saturating_sub(1);
                f(&self.event_of(&raw))?;
            }
        }
    }
}

impl<'a> Decoder<'a> for SchemaDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(inner) = &mut self.inflated {
            return inner.with_dependent_mut(|_, d| match d {
                Some(d) => Ok(d.next_event()?.map(Event::into_owned)),
                None => Ok(None),
            });
        }
        let grammars = Arc::clone(&self.g);
        if !self.advance(&grammars)? {
            return match self.inflated {
                Some(_) => self.next_event(),
                None => Ok(None),
            };
        }
        let raw = self.queue.pop_front().expect("an event is ready");
        self.ready = self.ready.saturating_sub(1);
        Ok(Some(self.event_of(&raw).into_owned()))
    }

    fn read_into<S: binxml_core::EventSink<'a>>(&mut self, sink: &mut S) -> Result<()>
    where
        Self: Sized,
    {
        self.drive(&mut |ev: &Event<'_>| sink.transient(ev))
    }

    fn offset(&self) -> u64 {
        self.r.offset()
    }

    fn bit_offset(&self) -> Option<u64> {
        Some(self.r.bit_offset())
    }
}
