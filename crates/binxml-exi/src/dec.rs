//! The decoder: an EXI stream in, events out.
//!
//! Decoding is two steps. [`ExiDecoder::step`] reads one EXI event against the grammars and
//! string table into a [`Raw`] event (names as table numbers; in the pre-compression and
//! compression layouts, values as slots of the block's channels, read once the block's
//! structure has been). [`ExiDecoder::emit`] turns raw events into binxml [`Event`]s: it holds
//! each start tag until its attributes and namespace declarations are all read (EXI allows
//! them in any order; the event model puts declarations first) and, unless prefixes are
//! preserved, invents prefixes the way EXIficient does (`ns<uri id>`, `xsi` declared on the root).

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::mem::ManuallyDrop;

use binxml_core::{
    Decoder, DocType, Error, Event, EventSink, Format, Limits, NameRef, NameTable, QName, Result,
};

use binxml_core::hash::FastState;

use crate::bits::BitReader;
use crate::grammar::{Grammars, Layout, Prod, State, Undeclared, index_of};
use crate::header;
use crate::options::{Alignment, ExiOptions};
use crate::tables::{NONE, NameId, Tables, ValueRef, XSI_TYPE};

/// The document's start (an EXI stream has no XML declaration).
const START_DOCUMENT: Event<'static> = Event::StartDocument {
    version: None,
    encoding: None,
    standalone: None,
};

/// Values in a block up to which the whole block is one stream (EXI 1.0, 9.3).
const SMALL_BLOCK: usize = 100;

/// The end of a value slot that holds a string-table id ([`ExiDecoder::slots`]).
const TABLE_SLOT: usize = usize::MAX;

/// What an attribute held on the open start tag costs beyond its strings.
const HELD_ATTR: usize = std::mem::size_of::<(NameId, Pfx, AttrText)>();
/// What a namespace declaration held in scope costs beyond its strings (which are copied
/// again when the start tag is handed on).
const HELD_DECL: usize = std::mem::size_of::<(String, String)>() + std::mem::size_of::<u32>();

/// A value as read: in the string table, in the decoder's scratch string, or a slot of the
/// block's channels (reordered layouts, read after the block's structure).
#[derive(Debug, Clone, Copy)]
enum Val {
    Global(u32),
    Scratch,
    Slot(usize),
    /// A range of the block's `slot_text`: a lexical `xsi:type` read in the structure of a
    /// reordered block, which reading the channels would overwrite in the scratch string.
    Held(usize, usize),
}

/// One EXI event as read.
#[derive(Debug)]
enum Raw {
    /// Prefixes are ids in their URI's prefix partition (preserved prefixes only).
    Se {
        name: NameId,
        prefix: Option<u32>,
    },
    Ee,
    At {
        name: NameId,
        prefix: Option<u32>,
        value: Val,
    },
    /// `xsi:type` with a QName value (not lexical).
    XsiType {
        prefix: Option<u32>,
        ty: NameId,
        ty_prefix: Option<u32>,
    },
    Ns {
        uri: u32,
        prefix: u32,
        local: bool,
    },
    Ch(Val),
    Cm(String),
    /// Boxed, as is DT's: the rare events keep `Raw` (moved once per event) small.
    Pi(Box<(String, String)>),
    Dt(Box<[String; 4]>),
    Er(String),
    Ed,
    /// SC: the element's content follows as a fragment with fresh state, starting with the
    /// element's SE again.
    ScStart,
    /// The end of a self-contained element's fragment (its EE came before).
    ScEnd,
}

/// The outer stream's state while a self-contained element is read.
#[derive(Debug)]
struct Outer {
    t: Tables,
    g: Grammars,
    frag: Vec<Prod>,
    /// The element stack's depth with the self-contained element's outer frame on it.
    depth: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    Content,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    Body,
    Done,
}

#[derive(Debug, Clone)]
struct Frame {
    name: NameId,
    grammar: usize,
    state: State,
}

/// Where a prefix's text is.
#[derive(Debug, Clone, Copy, Default)]
enum Pfx {
    /// None (yet): an element whose prefix a later NS event gives, or no prefix.
    #[default]
    Unset,
    Xml,
    /// A declaration in scope, by its index.
    Scope(usize),
    /// An entry of a URI's prefix partition.
    Table(u32, u32),
    /// [`Tag::owned_prefix`] (a self-contained element's prefix, from the outer table).
    Owned,
}

/// Where the value of an attribute held on the open start tag is.
#[derive(Debug, Clone, Copy)]
enum AttrText {
    /// A range of [`Tag::abuf`].
    Buf(usize, usize),
    /// A global value of a string table that keeps every value it is given (unbounded, so
    /// nothing is evicted before the tag is handed on): not copied.
    Table(u32),
}

/// The start tag being gathered (one, reused): attributes and namespace declarations may come
/// in any order in EXI, and are handed on declarations first.
#[derive(Debug, Default)]
struct Tag {
    open: bool,
    name: NameId,
    prefix: Pfx,
    owned_prefix: String,
    /// Name, prefix and value.
    attrs: Vec<(NameId, Pfx, AttrText)>,
    abuf: String,
}

impl Tag {
    /// No tag open, the buffers kept.
    fn clear(&mut self) {
        self.open = false;
        self.name = NameId::default();
        self.prefix = Pfx::Unset;
        self.owned_prefix.clear();
        self.attrs.clear();
        self.abuf.clear();
    }
}

/// The namespace declarations in scope, innermost last: prefix, URI, and the URI's id when
/// the decoder invented the declaration (`NONE` for one read from an NS event).
#[derive(Debug, Default)]
struct Scope {
    decls: Vec<(String, String, u32)>,
}

impl Scope {
    #[inline]
    fn len(&self) -> usize {
        self.decls.len()
    }

    /// Declaration `i`'s prefix.
    #[inline(always)]
    fn prefix(&self, i: usize) -> &str {
        &self.decls[i].0
    }

    /// Declaration `i`'s prefix and URI.
    #[inline(always)]
    fn get(&self, i: usize) -> (&str, &str) {
        let d = &self.decls[i];
        (&d.0, &d.1)
    }

    /// The URI id of declaration `i`, if it was invented.
    #[inline(always)]
    fn uri_id(&self, i: usize) -> Option<u32> {
        self.decls.get(i).map(|d| d.2)
    }

    /// The declarations from `from` on, as (prefix, URI).
    fn iter_from(&self, from: usize) -> impl Iterator<Item = (&str, &str)> {
        self.decls[from..]
            .iter()
            .map(|d| (d.0.as_str(), d.1.as_str()))
    }

    /// Adds a declaration.
    fn push(&mut self, prefix: String, uri_text: String, uri: u32) {
        self.decls.push((prefix, uri_text, uri));
    }

    /// Keeps the first `n` declarations.
    fn truncate(&mut self, n: usize) {
        self.decls.truncate(n);
    }
}

/// Where emitted events go: the pull queue (as owned events) or a push sink.
trait Out {
    fn put(&mut self, e: &Event<'_>) -> Result<()>;
    /// An element start whose name is `name` of the decoder's table (outside self-contained
    /// elements: the one table whose names keep their numbers for the whole document).
    #[inline]
    fn element(&mut self, prefix: &str, namespace: &str, local: &str, name: NameRef) -> Result<()> {
        let _ = name;
        self.put(&ManuallyDrop::new(Event::StartElement(QName::new(
            prefix, namespace, local,
        ))))
    }
    /// Character data not from a CDATA section.
    #[inline]
    fn text(&mut self, text: &str) -> Result<()> {
        self.put(&ManuallyDrop::new(Event::Characters {
            text: Cow::Borrowed(text),
            cdata: false,
        }))
    }
    /// An element's end.
    #[inline]
    fn end(&mut self) -> Result<()> {
        self.put(&Event::EndElement)
    }
    /// An attribute whose name is `name` of the decoder's table, as for [`Out::element`].
    #[inline]
    fn attribute(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
        value: &str,
    ) -> Result<()> {
        let _ = name;
        self.put(&ManuallyDrop::new(Event::Attribute {
            name: QName::new(prefix, namespace, local),
            value: Cow::Borrowed(value),
        }))
    }
    /// Whether the consumer wants a pause (a push sink's [`EventSink::full`]).
    fn full(&self) -> bool {
        false
    }
}

impl Out for VecDeque<Event<'static>> {
    #[inline]
    fn put(&mut self, e: &Event<'_>) -> Result<()> {
        self.push_back(e.borrow().into_owned());
        Ok(())
    }
}

/// Push decoding: events go to the sink as transient events (their strings live in the
/// decoder's tables).
struct Push<'s, S>(&'s mut S);

impl<'a, S: EventSink<'a>> Out for Push<'_, S> {
    #[inline(always)]
    fn put(&mut self, e: &Event<'_>) -> Result<()> {
        self.0.transient(e)
    }
    #[inline(always)]
    fn element(&mut self, prefix: &str, namespace: &str, local: &str, name: NameRef) -> Result<()> {
        self.0.transient_element(prefix, namespace, local, name)
    }
    #[inline(always)]
    fn text(&mut self, text: &str) -> Result<()> {
        self.0.transient_text(text)
    }
    /// The same as the transient `EndElement` for every sink (it has no strings to copy).
    #[inline(always)]
    fn end(&mut self) -> Result<()> {
        self.0.end_element()
    }
    #[inline(always)]
    fn attribute(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
        value: &str,
    ) -> Result<()> {
        self.0
            .transient_attribute(prefix, namespace, local, name, value)
    }
    #[inline(always)]
    fn full(&self) -> bool {
        self.0.full()
    }
}

/// Where [`ExiDecoder::step`] hands the event it has read: on to the emitter at once (the
/// in-order layouts; the raw event then never exists as a value), or into the block's queue
/// (reordered layouts, whose values are read after the block's structure).
trait Take<'a> {
    fn take(&mut self, d: &mut ExiDecoder<'a>, raw: Raw) -> Result<()>;
}

/// Emits each event as it is read.
struct Emit<'o, O>(&'o mut O);

impl<'a, O: Out> Take<'a> for Emit<'_, O> {
    #[inline(always)]
    fn take(&mut self, d: &mut ExiDecoder<'a>, raw: Raw) -> Result<()> {
        d.emit(raw, self.0)
    }
}

/// A reordered block's events, held until its channels have been read.
#[derive(Default)]
struct Held {
    raws: VecDeque<Raw>,
    /// The block's last event was ED.
    end: bool,
}

impl<'a> Take<'a> for Held {
    fn take(&mut self, _: &mut ExiDecoder<'a>, raw: Raw) -> Result<()> {
        self.end = matches!(raw, Raw::Ed);
        self.raws.push_back(raw);
        Ok(())
    }
}

/// Reads an EXI stream (schema-less) as events.
///
/// The options come from the stream's header when it has them, else from those given to
/// [`ExiDecoder::with_options`] (they must be those the stream was written with). A stream
/// that names a schema (`schemaId`) is refused: it needs schema-informed decoding.
pub struct ExiDecoder<'a> {
    input: &'a [u8],
    given: ExiOptions,
    limits: Limits,
    phase: Phase,
    o: ExiOptions,
    body: BitReader<'a>,
    t: Tables,
    g: Grammars,
    layout: Layout,
    frag: Vec<Prod>,
    top: Top,
    stack: Vec<Frame>,
    queue: VecDeque<Event<'static>>,
    /// The header has been read and the document's start is still to be handed on (before
    /// anything in `queue`).
    start_pending: bool,
    tag: Tag,
    /// A value read as a miss.
    scratch: String,
    /// Namespace declarations in scope of the events emitted so far.
    scope: Scope,
    /// URI id -> index of the scope entry last found for it (checked against the entry's URI
    /// id).
    invented: Vec<u32>,
    /// Scope marks of the elements emitted and not yet ended.
    marks: Vec<usize>,
    /// Reordered layouts: the block's raw events, its channel values, and the channel of each
    /// slot.
    block: VecDeque<Raw>,
    /// The block's values that are not in the string table for good, one after the other.
    slot_text: String,
    /// Each slot's value: a range of `slot_text`, or ([`TABLE_SLOT`] as end) a global value
    /// of a string table that keeps every value (its id as start): not copied.
    slots: Vec<(usize, usize)>,
    slot_names: Vec<NameId>,
    /// The block's channels in order of their first value: name and range in `chan_slots`.
    chan_order: Vec<(NameId, usize, usize)>,
    /// The block's slots grouped by channel.
    chan_slots: Vec<usize>,
    /// Per name, its channel in `chan_order` + 1 while a block is grouped (0 otherwise).
    chan_of: Vec<u32>,
    /// The compression layout's zlib state and buffers, kept from stream to stream: the
    /// block's structure and the channel stream being read.
    zin: crate::deflate::Inflater,
    zstructure: Vec<u8>,
    zchannels: Vec<u8>,
    /// Reordered layouts: where the next block starts in the input.
    next_block: usize,
    budget: usize,
    decoded: usize,
    /// Where the event being read starts, in bits (its octet is this over 8).
    event_bit: u64,
    /// Self-contained elements being read, innermost last.
    outer: Vec<Outer>,
    /// The stream's header has no options: the body is read with those given.
    options_given: bool,
    /// The next SE is a self-contained element's repetition of its own start.
    skip_se: bool,
    /// The (URI id, prefix id) pairs the open start tag's NS events declared and their scope
    /// entries (outside self-contained elements), so that a repeated declaration is found
    /// without a scan.
    tag_ns: HashMap<(u32, u32), usize, FastState>,
    /// The last event read was an SE: SC may follow.
    sc_allowed: bool,
    /// The alignment is pre-compression or compression (values read after a block's
    /// structure).
    reordered: bool,
    /// The number of `t` (outside self-contained elements) for a sink that keeps copies of
    /// names by their ids ([`EventSink::transient_element`]).
    names: NameTable,
}

impl<'a> ExiDecoder<'a> {
    /// A decoder for `input` with EXI's default options (used when the header has none) and
    /// default limits.
    pub fn new(input: &'a [u8]) -> Self {
        ExiDecoder::with_options(input, ExiOptions::default(), Limits::default())
    }

    /// A decoder for `input`; `options` apply when the header carries none.
    pub fn with_options(input: &'a [u8], options: ExiOptions, limits: Limits) -> Self {
        let budget = limits.decoded_budget(input.len());
        ExiDecoder {
            input,
            layout: Layout::new(false, false, false, false, false),
            o: options.clone(),
            given: options,
            phase: Phase::Header,
            body: BitReader::new(input, false, 0),
            // Made by `start` from the header's options.
            t: Tables::husk(),
            g: Grammars::default(),
            frag: Vec::new(),
            top: Top::Content,
            stack: Vec::new(),
            queue: VecDeque::new(),
            start_pending: false,
            tag: Tag::default(),
            scratch: String::new(),
            scope: Scope::default(),
            marks: Vec::new(),
            invented: Vec::new(),
            block: VecDeque::new(),
            slot_text: String::new(),
            slots: Vec::new(),
            slot_names: Vec::new(),
            chan_order: Vec::new(),
            chan_slots: Vec::new(),
            chan_of: Vec::new(),
            zin: Default::default(),
            zstructure: Vec::new(),
            zchannels: Vec::new(),
            next_block: 0,
            budget,
            decoded: 0,
            event_bit: 0,
            outer: Vec::new(),
            options_given: false,
            skip_se: false,
            tag_ns: HashMap::default(),
            sc_allowed: false,
            reordered: false,
            names: NameTable::new(),
            limits,
        }
    }

    /// The options of the stream (those of its header once the first event has been read).
    pub fn options(&self) -> &ExiOptions {
        &self.o
    }

    /// Starts over on another stream, `input`, with the options and limits this decoder was
    /// made with, keeping the memory it has grown: its string table, grammars and buffers are
    /// emptied, not freed (a table grown past a megabyte of values is made afresh). What it
    /// decodes is what a new decoder of `input` would: the same events, the same errors, the
    /// same limits (the expansion budget is `input`'s). The state of the stream before, even
    /// one that ended in an error, is gone.
    ///
    /// ```
    /// use binxml_core::Decoder;
    /// use binxml_exi::ExiDecoder;
    ///
    /// let a = binxml_exi::encode(&binxml_xml::decode(b"<a>1</a>")?)?;
    /// let b = binxml_exi::encode(&binxml_xml::decode(b"<b x='2'/>")?)?;
    /// let mut d = ExiDecoder::new(&a);
    /// let mut sink = binxml_core::CountingSink::default();
    /// d.read_into(&mut sink)?;
    /// d.reset(&b);
    /// d.read_into(&mut sink)?;
    /// assert_eq!(sink.events, 12); // each: SD, SE, the invented xsi declaration, CH or AT, EE, ED
    /// # Ok::<(), binxml_core::Error>(())
    /// ```
    pub fn reset(&mut self, input: &'a [u8]) {
        self.clear();
        self.input = input;
        self.body = BitReader::new(input, false, 0);
        self.budget = self.limits.decoded_budget(input.len());
    }

    /// [`reset`](Self::reset) for an input that lives for another lifetime: the decoder, with
    /// its memory, moved on to `input` (a buffer refilled for each message cannot be borrowed
    /// by one decoder for all of them; an `ExiDecoder<'static>` of no input, `&[]`, can be
    /// kept between messages and recycled onto each).
    ///
    /// ```
    /// use binxml_core::Decoder;
    /// use binxml_exi::ExiDecoder;
    ///
    /// let mut kept: ExiDecoder<'static> = ExiDecoder::new(&[]);
    /// for xml in [&b"<a>1</a>"[..], b"<b><c/></b>"] {
    ///     let message = binxml_exi::encode(&binxml_xml::decode(xml)?)?;
    ///     let mut d = kept.recycle(&message);
    ///     let mut sink = binxml_core::CountingSink::default();
    ///     d.read_into(&mut sink)?;
    ///     kept = d.recycle(&[]);
    /// }
    /// # Ok::<(), binxml_core::Error>(())
    /// ```
    pub fn recycle<'b>(mut self, input: &'b [u8]) -> ExiDecoder<'b> {
        self.clear();
        let budget = self.limits.decoded_budget(input.len());
        ExiDecoder {
            input,
            body: BitReader::new(input, false, 0),
            budget,
            given: self.given,
            limits: self.limits,
            phase: self.phase,
            o: self.o,
            t: self.t,
            g: self.g,
            layout: self.layout,
            frag: self.frag,
            top: self.top,
            stack: self.stack,
            queue: self.queue,
            start_pending: self.start_pending,
            tag: self.tag,
            scratch: self.scratch,
            scope: self.scope,
            invented: self.invented,
            marks: self.marks,
            block: self.block,
            slot_text: self.slot_text,
            slots: self.slots,
            slot_names: self.slot_names,
            chan_order: self.chan_order,
            chan_slots: self.chan_slots,
            chan_of: self.chan_of,
            zin: self.zin,
            zstructure: self.zstructure,
            zchannels: self.zchannels,
            next_block: self.next_block,
            decoded: self.decoded,
            event_bit: self.event_bit,
            outer: self.outer,
            options_given: self.options_given,
            skip_se: self.skip_se,
            tag_ns: self.tag_ns,
            sc_allowed: self.sc_allowed,
            reordered: self.reordered,
            names: self.names,
        }
    }

    /// The state of a decoder before its first event, but for the input (and the budget that
    /// goes with it), keeping every buffer's memory.
    fn clear(&mut self) {
        // A self-contained element's fragment table is in use: the stream's own is the
        // first outer one (either is emptied for the next stream).
        if let Some(o) = self.outer.drain(..).next() {
            self.t = o.t;
            self.g = o.g;
            self.frag = o.frag;
        }
        self.phase = Phase::Header;
        self.o.clone_from(&self.given);
        self.g.clear();
        self.frag.clear();
        self.top = Top::Content;
        self.stack.clear();
        self.queue.clear();
        self.start_pending = false;
        self.tag.clear();
        self.scratch.clear();
        self.scope.truncate(0);
        self.invented.clear();
        self.marks.clear();
        self.block.clear();
        self.slot_text.clear();
        self.slots.clear();
        self.slot_names.clear();
        self.chan_order.clear();
        self.chan_slots.clear();
        self.chan_of.clear();
        self.zstructure.clear();
        self.zchannels.clear();
        self.next_block = 0;
        self.decoded = 0;
        self.event_bit = 0;
        self.options_given = false;
        self.skip_se = false;
        self.tag_ns.clear();
        self.sc_allowed = false;
        self.reordered = false;
        // The numbers of the next stream's names mean other names.
        self.names = NameTable::new();
    }

    fn start(&mut self) -> Result<()> {
        let mut r = BitReader::new(self.input, false, 0);
        let at = r.clone();
        let (o, _cookie, present) = header::read(&mut r, &self.given)?;
        if let Some(id) = &o.schema_id {
            return Err(Error::unsupported(
                Format::Exi,
                format!(
                    "the stream is schema-informed (schemaId {id:?}): decoding it needs that XML \
                     Schema (binxml_exi::informed::SchemaDecoder)"
                ),
            )
            .at_bit(at.bit_offset()));
        }
        self.options_given = !present;
        if o.alignment.is_aligned() {
            r.set_aligned(true);
        }
        self.layout = Layout::new(o.comments, o.pis, o.dtd, o.prefixes, o.self_contained);
        self.t.renew(
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
        );
        self.t.reserve_values(r.remaining());
        self.t.reserve_names(r.remaining());
        // Room for a grammar per sixteen octets (an element name's first use takes at least
        // two), at most 256: grown past that as needed.
        self.g.reserve((r.remaining() / 16).min(1 << 8));
        if o.fragment {
            self.frag.extend([Prod::Ee, Prod::SeAny]);
        }
        self.next_block = r.pos();
        self.body = r;
        self.reordered = o.alignment.is_reordered();
        self.o = o;
        self.phase = Phase::Body;
        self.start_pending = true;
        Ok(())
    }

    fn fresh_tables(o: &ExiOptions) -> Tables {
        Tables::new(
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
            false,
        )
    }

    // ---- reading -----------------------------------------------------------------------

    fn limit(&self, r: &BitReader<'_>, what: String) -> Error {
        r.limit_error(what)
    }

    #[inline]
    fn count(&mut self, r: &BitReader<'_>, n: usize) -> Result<()> {
        self.decoded += n;
        if self.decoded > self.budget {
            return Err(self.over_budget(r));
        }
        Ok(())
    }

    /// [`count`](Self::count), an error placed at the event's start.
    #[inline]
    fn count_here(&mut self, n: usize) -> Result<()> {
        self.decoded += n;
        if self.decoded > self.budget {
            return Err(self.over_budget_at_event());
        }
        Ok(())
    }

    /// [`over_budget`](Self::over_budget) at the start of the event being read or handed on.
    #[cold]
    #[inline(never)]
    fn over_budget_at_event(&self) -> Error {
        let mut e = Error::limit(
            Format::Exi,
            self.event_bit >> 3,
            format!(
                "decoded text past {} octets for {} octets of input (limit: max_expansion_ratio)",
                self.budget,
                self.input.len()
            ),
        );
        if !self.o.alignment.is_reordered() {
            e = e.at_bit(self.event_bit);
        }
        e
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self, r: &BitReader<'_>) -> Error {
        self.limit(
            r,
            format!(
                "decoded text past {} octets for {} octets of input (limit: max_expansion_ratio)",
                self.budget,
                self.input.len()
            ),
        )
    }

    fn check_tables(&self, r: &BitReader<'_>) -> Result<()> {
        if self.t.entries() > self.limits.max_table_entries {
            return Err(self.limit(
                r,
                format!(
                    "string table past {} entries (limit: max_table_entries)",
                    self.limits.max_table_entries
                ),
            ));
        }
        Ok(())
    }

    fn qname(&mut self, r: &mut BitReader<'_>) -> Result<NameId> {
        let id = self.t.read_qname(r, self.limits.max_string_len)?;
        self.check_tables(r)?;
        Ok(id)
    }

    fn prefix(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Option<u32>> {
        if self.o.prefixes {
            self.t.read_qname_prefix(r, name)
        } else {
            Ok(None)
        }
    }

    #[inline(always)]
    fn value(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Val> {
        if self.reordered {
            self.slot_names.push(name);
            return Ok(Val::Slot(self.slot_names.len() - 1));
        }
        let v = self
            .t
            .read_value(r, name, self.limits.max_string_len, &mut self.scratch)?;
        Ok(match v {
            ValueRef::Global(g) => {
                self.count(r, self.t.value_len(g))?;
                Val::Global(g)
            }
            ValueRef::Added(g) => {
                // only a miss adds to the table
                self.count(r, self.t.value_len(g))?;
                self.check_tables(r)?;
                Val::Global(g)
            }
            ValueRef::Scratch => {
                self.count(r, self.scratch.len())?;
                self.check_tables(r)?;
                Val::Scratch
            }
        })
    }

    fn string(&mut self, r: &mut BitReader<'_>) -> Result<String> {
        let s = r.string(self.limits.max_string_len)?;
        self.count(r, s.len())?;
        Ok(s)
    }

    #[inline(always)]
    fn push_element(&mut self, r: &BitReader<'_>, name: NameId) -> Result<()> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.limit(
                r,
                format!(
                    "elements nested deeper than {} (limit: max_depth)",
                    self.limits.max_depth
                ),
            ));
        }
        let grammar = match self.t.grammar(name) {
            NONE => {
                let gi = self.g.add();
                self.t.set_grammar(name, gi as u32);
                gi
            }
            gi => gi as usize,
        };
        self.sc_allowed = true;
        self.stack.push(Frame {
            name,
            grammar,
            state: State::StartTag,
        });
        Ok(())
    }

    /// An attribute's value: `xsi:type` is a QName unless lexical values are preserved.
    #[inline(always)]
    fn attribute(
        &mut self,
        r: &mut BitReader<'_>,
        name: NameId,
        out: &mut impl Take<'a>,
    ) -> Result<()> {
        let prefix = self.prefix(r, name)?;
        if name == XSI_TYPE {
            if self.o.lexical_values {
                // In the structure channel, even in reordered layouts (as EXIficient writes it).
                let v = self.t.read_value(
                    r,
                    XSI_TYPE,
                    self.limits.max_string_len,
                    &mut self.scratch,
                )?;
                let value = match v {
                    ValueRef::Global(g) | ValueRef::Added(g) => Val::Global(g),
                    ValueRef::Scratch if self.reordered => {
                        let a = self.slot_text.len();
                        self.slot_text.push_str(&self.scratch);
                        Val::Held(a, self.slot_text.len())
                    }
                    ValueRef::Scratch => Val::Scratch,
                };
                return out.take(
                    self,
                    Raw::At {
                        name,
                        prefix,
                        value,
                    },
                );
            }
            let ty = self.qname(r)?;
            let ty_prefix = self.prefix(r, ty)?;
            return out.take(
                self,
                Raw::XsiType {
                    prefix,
                    ty,
                    ty_prefix,
                },
            );
        }
        let value = self.value(r, name)?;
        out.take(
            self,
            Raw::At {
                name,
                prefix,
                value,
            },
        )
    }

    /// Reads one event (inlined into the loops that call it: its prologue and epilogue would
    /// otherwise be paid per event).
    #[inline(always)]
    fn step(&mut self, r: &mut BitReader<'_>, out: &mut impl Take<'a>) -> Result<()> {
        // SC may only come right after its element's SE.
        let sc_allowed = std::mem::take(&mut self.sc_allowed);
        if self
            .outer
            .last()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            return self.step_fragment(r, out);
        }
        let Some(f) = self.stack.last() else {
            return self.step_top(r, out);
        };
        let (gi, state, name) = (f.grammar, f.state, f.name);
        // One lookup of the state's productions for both the code's width and the match.
        let prods = self.g.prods(gi, state);
        let n1 = prods.len();
        let c = r.code(n1 + 1)?;
        if c < n1 {
            let p = prods[index_of(c, n1)];
            return match p {
                Prod::Se(id) => {
                    self.stack.last_mut().expect("inside").state = State::Content;
                    let prefix = self.prefix(r, id)?;
                    self.push_element(r, id)?;
                    out.take(self, Raw::Se { name: id, prefix })
                }
                Prod::At(id) => self.attribute(r, id, out),
                Prod::Ch => {
                    self.stack.last_mut().expect("inside").state = State::Content;
                    {
                        let v = self.value(r, name)?;
                        out.take(self, Raw::Ch(v))
                    }
                }
                Prod::Ee | Prod::SeAny => {
                    self.stack.pop();
                    out.take(self, Raw::Ee)
                }
            };
        }
        let second = self.layout.second(state);
        let s = r.code(second.len())?;
        let u = if self.layout.is_group(second, s) {
            let third = self.layout.third();
            third[r.code(third.len())?]
        } else {
            second[s]
        };
        match u {
            Undeclared::Ee => {
                self.g.learn(gi, State::StartTag, Prod::Ee);
                self.stack.pop();
                out.take(self, Raw::Ee)
            }
            Undeclared::At => {
                let id = self.qname(r)?;
                self.g.learn(gi, State::StartTag, Prod::At(id));
                self.attribute(r, id, out)
            }
            Undeclared::Ns => {
                let uri = self.t.read_uri(r, self.limits.max_string_len)?;
                let prefix = self.t.read_ns_prefix(r, uri, self.limits.max_string_len)?;
                self.check_tables(r)?;
                let local = r.boolean()?;
                out.take(self, Raw::Ns { uri, prefix, local })
            }
            Undeclared::Sc => {
                // (An attribute or declaration before SC would be handed on with the outer
                // table's numbers while the fragment's table is in use.)
                if !sc_allowed || state != State::StartTag {
                    return Err(r.error("SC after the start tag's first event"));
                }
                r.skip_to_octet();
                // The open tag's prefix may be an entry of the outer table: keep its text
                // before the table changes (emitting ScStart comes after this switch).
                if let Pfx::Table(..) = self.tag.prefix {
                    self.tag.owned_prefix = self.pfx(self.tag.prefix).to_string();
                    self.tag.prefix = Pfx::Owned;
                }
                let fresh = Self::fresh_tables(&self.o);
                self.outer.push(Outer {
                    t: std::mem::replace(&mut self.t, fresh),
                    g: std::mem::take(&mut self.g),
                    frag: std::mem::replace(&mut self.frag, vec![Prod::Ee, Prod::SeAny]),
                    depth: self.stack.len(),
                });
                out.take(self, Raw::ScStart)
            }
            Undeclared::Se => {
                let id = self.qname(r)?;
                self.g.learn(gi, state, Prod::Se(id));
                self.stack.last_mut().expect("inside").state = State::Content;
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                out.take(self, Raw::Se { name: id, prefix })
            }
            Undeclared::Ch => {
                self.g.learn(gi, state, Prod::Ch);
                self.stack.last_mut().expect("inside").state = State::Content;
                {
                    let v = self.value(r, name)?;
                    out.take(self, Raw::Ch(v))
                }
            }
            Undeclared::Er => {
                self.stack.last_mut().expect("inside").state = State::Content;
                {
                    let v = self.string(r)?;
                    out.take(self, Raw::Er(v))
                }
            }
            Undeclared::Cm => {
                self.stack.last_mut().expect("inside").state = State::Content;
                {
                    let v = self.string(r)?;
                    out.take(self, Raw::Cm(v))
                }
            }
            Undeclared::Pi => {
                self.stack.last_mut().expect("inside").state = State::Content;
                let target = self.string(r)?;
                let data = self.string(r)?;
                out.take(self, Raw::Pi(Box::new((target, data))))
            }
        }
    }

    /// Reads a CM or PI at the third level.
    fn step_third(&mut self, r: &mut BitReader<'_>, out: &mut impl Take<'a>) -> Result<()> {
        let third = self.layout.third();
        match third[r.code(third.len())?] {
            Undeclared::Cm => {
                let v = self.string(r)?;
                out.take(self, Raw::Cm(v))
            }
            _ => {
                let target = self.string(r)?;
                let data = self.string(r)?;
                out.take(self, Raw::Pi(Box::new((target, data))))
            }
        }
    }

    /// Reads one event of FragmentContent: the top level of a fragment, or of a
    /// self-contained element's content.
    fn step_fragment(&mut self, r: &mut BitReader<'_>, out: &mut impl Take<'a>) -> Result<()> {
        let misc = self.o.comments || self.o.pis;
        let n = self.frag.len();
        let c = r.code(n + usize::from(misc))?;
        if c == n {
            r.code(1)?;
            return self.step_third(r, out);
        }
        match self.frag[index_of(c, n)] {
            Prod::Ee => {
                if self
                    .outer
                    .last()
                    .is_some_and(|o| o.depth == self.stack.len())
                {
                    r.skip_to_octet();
                    let o = self.outer.pop().expect("inside a self-contained element");
                    self.t = o.t;
                    self.g = o.g;
                    self.frag = o.frag;
                    self.stack.pop();
                    return out.take(self, Raw::ScEnd);
                }
                out.take(self, Raw::Ed)
            }
            Prod::Se(id) => {
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                out.take(self, Raw::Se { name: id, prefix })
            }
            _ => {
                let id = self.qname(r)?;
                self.frag.push(Prod::Se(id));
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                out.take(self, Raw::Se { name: id, prefix })
            }
        }
    }

    /// Reads one event outside any element.
    fn step_top(&mut self, r: &mut BitReader<'_>, out: &mut impl Take<'a>) -> Result<()> {
        let misc = self.o.comments || self.o.pis;
        if self.o.fragment {
            return self.step_fragment(r, out);
        }
        match self.top {
            Top::Content => {
                let n1 = 1 + usize::from(self.o.dtd || misc);
                if r.code(n1)? == 0 {
                    let id = self.qname(r)?;
                    self.top = Top::End;
                    let prefix = self.prefix(r, id)?;
                    self.push_element(r, id)?;
                    return out.take(self, Raw::Se { name: id, prefix });
                }
                let doc = self.layout.doc();
                let s = r.code(doc.len())?;
                if self.layout.is_group(doc, s) {
                    self.step_third(r, out)
                } else {
                    let mut parts: [String; 4] = Default::default();
                    for p in &mut parts {
                        *p = self.string(r)?;
                    }
                    out.take(self, Raw::Dt(Box::new(parts)))
                }
            }
            Top::End => {
                if r.code(1 + usize::from(misc))? == 0 {
                    return out.take(self, Raw::Ed);
                }
                r.code(1)?;
                self.step_third(r, out)
            }
        }
    }

    // ---- reordered layouts -------------------------------------------------------------

    /// Reads the next block: its structure, then its channels.
    fn load_block(&mut self) -> Result<()> {
        let compressed = self.o.alignment == Alignment::Compression;
        let start = self.next_block;
        let mut zstructure = std::mem::take(&mut self.zstructure);
        let structure: &[u8] = if compressed {
            if start >= self.input.len() {
                &[]
            } else {
                let used = self.inflate(start, &mut zstructure)?;
                self.next_block = start + used;
                &zstructure
            }
        } else {
            &self.input[start.min(self.input.len())..]
        };
        let base = if compressed { 0 } else { start as u64 };
        let mut r = BitReader::new(structure, true, base);
        if compressed {
            r.stream = "a DEFLATE stream";
        }
        self.slot_names.clear();
        self.slot_text.clear();
        let block_size = self.o.block_size as usize;
        // The last block's events are all taken: its deque is reused.
        let mut block = Held {
            raws: std::mem::take(&mut self.block),
            end: false,
        };
        block.raws.clear();
        // Room for the block's events at once spares the deque its copies as it doubles
        // (within half the budget): an inflated structure holds about two events an octet or
        // fewer; an uncompressed block's octets hold its values too.
        let most = self.budget / (2 * std::mem::size_of::<Raw>());
        let guess = if compressed {
            structure.len().saturating_mul(2)
        } else {
            structure.len() / 2
        };
        block.raws.reserve(guess.min(most));
        let mut held = if compressed { structure.len() } else { 0 };
        loop {
            self.event_bit = r.bit_offset();
            self.step(&mut r, &mut block)?;
            // The block's events are held until its values have been read: they and the
            // inflated structure stay within the budget (a few KB of DEFLATE can hold millions
            // of events). Twice an event's size: the deque doubles its capacity as it grows.
            held += 2 * std::mem::size_of::<Raw>();
            if held > self.budget {
                return Err(r.limit_error(format!(
                    "the structure of one block holds past {} octets of events for {} octets \
                     of input (limit: max_expansion_ratio)",
                    self.budget,
                    self.input.len()
                )));
            }
            if block.end || self.slot_names.len() == block_size {
                break;
            }
        }
        let mut order = std::mem::take(&mut self.chan_order);
        let mut flat = std::mem::take(&mut self.chan_slots);
        self.group_channels(&mut order, &mut flat);
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        slots.resize(self.slot_names.len(), (0, 0));
        let res = if self.slot_names.len() <= SMALL_BLOCK {
            let res = self.read_channels(&mut r, &order, &flat, |_| true, &mut slots);
            if !compressed {
                self.next_block = start + r.pos();
            }
            res
        } else {
            if !compressed {
                self.next_block = start + r.pos();
            }
            self.read_channel_streams(&order, &flat, &mut slots)
        };
        self.zstructure = zstructure;
        self.chan_order = order;
        self.chan_slots = flat;
        self.slots = slots;
        if res.is_err() {
            // Not one of the block's events comes out without its values.
            block.raws.clear();
        }
        self.block = block.raws;
        res
    }

    /// The channels of a block of more than [`SMALL_BLOCK`] values, each in its own stream
    /// but those of at most [`SMALL_BLOCK`] values, which share the first (EXI 1.0, 9.3).
    fn read_channel_streams(
        &mut self,
        order: &[(NameId, usize, usize)],
        flat: &[usize],
        slots: &mut [(usize, usize)],
    ) -> Result<()> {
        let small = order.iter().any(|&(_, a, b)| b - a <= SMALL_BLOCK);
        if small {
            self.channel_stream(order, flat, |n| n <= SMALL_BLOCK, slots)?;
        }
        for i in 0..order.len() {
            let (_, a, b) = order[i];
            if b - a > SMALL_BLOCK {
                self.channel_stream(&order[i..=i], flat, |_| true, slots)?;
            }
        }
        Ok(())
    }

    /// Groups the block's value slots by channel (the values' names): `order` gets each
    /// channel, in order of its first value, with its range in `flat`, which gets the slots.
    fn group_channels(&mut self, order: &mut Vec<(NameId, usize, usize)>, flat: &mut Vec<usize>) {
        order.clear();
        let chan = &mut self.chan_of;
        // Count each channel's values (in the range's end for now).
        for &name in &self.slot_names {
            let n = name as usize;
            if n >= chan.len() {
                chan.resize(n + 1, 0);
            }
            let c = chan[n] as usize;
            if c == 0 {
                order.push((name, 0, 1));
                chan[n] = order.len() as u32;
            } else {
                order[c - 1].2 += 1;
            }
        }
        // Ranges one after the other; each range's end is its fill point until the slots are in.
        let mut at = 0;
        for o in order.iter_mut() {
            let count = o.2;
            *o = (o.0, at, at);
            at += count;
        }
        flat.clear();
        flat.resize(self.slot_names.len(), 0);
        for (slot, &name) in self.slot_names.iter().enumerate() {
            let o = &mut order[chan[name as usize] as usize - 1];
            flat[o.2] = slot;
            o.2 += 1;
        }
        for o in order.iter() {
            chan[o.0 as usize] = 0;
        }
    }

    /// Reads channels from their own stream (compressed: one DEFLATE stream).
    fn channel_stream(
        &mut self,
        order: &[(NameId, usize, usize)],
        flat: &[usize],
        pick: impl Fn(usize) -> bool,
        slots: &mut [(usize, usize)],
    ) -> Result<()> {
        let start = self.next_block;
        if self.o.alignment == Alignment::Compression {
            let mut data = std::mem::take(&mut self.zchannels);
            let used = self.inflate(start, &mut data)?;
            self.next_block = start + used;
            let mut r = BitReader::new(&data, true, 0);
            r.stream = "a DEFLATE stream";
            let res = self.read_channels(&mut r, order, flat, &pick, slots);
            self.zchannels = data;
            res
        } else {
            let mut r = BitReader::new(
                &self.input[start.min(self.input.len())..],
                true,
                start as u64,
            );
            self.read_channels(&mut r, order, flat, &pick, slots)?;
            self.next_block = start + r.pos();
            Ok(())
        }
    }

    fn read_channels(
        &mut self,
        r: &mut BitReader<'_>,
        order: &[(NameId, usize, usize)],
        flat: &[usize],
        pick: impl Fn(usize) -> bool,
        slots: &mut [(usize, usize)],
    ) -> Result<()> {
        let keeps = self.t.keeps_values();
        for &(name, a, b) in order {
            if !pick(b - a) {
                continue;
            }
            for &slot in &flat[a..b] {
                let v =
                    self.t
                        .read_value(r, name, self.limits.max_string_len, &mut self.scratch)?;
                let len = match v {
                    // A table that keeps every value still has it when the block's events
                    // are handed on: the slot names it.
                    ValueRef::Global(g) | ValueRef::Added(g) if keeps => {
                        slots[slot] = (g as usize, TABLE_SLOT);
                        self.t.value_len(g)
                    }
                    v => {
                        let text = match v {
                            ValueRef::Global(g) | ValueRef::Added(g) => self.t.value(g),
                            ValueRef::Scratch => &self.scratch,
                        };
                        let start = self.slot_text.len();
                        self.slot_text.push_str(text);
                        slots[slot] = (start, self.slot_text.len());
                        text.len()
                    }
                };
                self.count(r, len)?;
                if !matches!(v, ValueRef::Global(_)) {
                    self.check_tables(r)?;
                }
            }
        }
        Ok(())
    }

    /// Inflates the raw DEFLATE stream at `start` into `out`; returns the octets used.
    fn inflate(&mut self, start: usize, out: &mut Vec<u8>) -> Result<usize> {
        let room = self.budget.saturating_sub(self.decoded);
        self.zin.inflate(self.input, start, room, self.budget, out)
    }

    // ---- events ------------------------------------------------------------------------

    /// The text of a value.
    #[inline(always)]
    fn val(&self, v: Val) -> &str {
        match v {
            Val::Global(g) => self.t.value(g),
            Val::Scratch => &self.scratch,
            Val::Slot(i) => self.slot(i),
            Val::Held(a, b) => &self.slot_text[a..b],
        }
    }

    /// The text of value slot `i` of the block.
    #[inline(always)]
    fn slot(&self, i: usize) -> &str {
        match self.slots[i] {
            (g, TABLE_SLOT) => self.t.value(g as u32),
            (a, b) => &self.slot_text[a..b],
        }
    }

    /// The text of a prefix.
    #[inline(always)]
    fn pfx(&self, p: Pfx) -> &str {
        match p {
            Pfx::Unset => "",
            Pfx::Xml => "xml",
            Pfx::Scope(i) => self.scope.prefix(i),
            Pfx::Table(u, i) => self.t.prefix(u, i),
            Pfx::Owned => &self.tag.owned_prefix,
        }
    }

    /// The prefix for URI `uri` when prefixes are not preserved: the one in scope, else a new
    /// declaration on the open start tag (`ns<uri id>`, `xsi` for the XML Schema instance
    /// namespace).
    #[inline(always)]
    fn invent(&mut self, uri: u32) -> Pfx {
        match uri {
            0 => return Pfx::Unset,
            1 => return Pfx::Xml,
            _ => {}
        }
        if self.outer.is_empty()
            && let Some(&i) = self.invented.get(uri as usize)
            && self.scope.uri_id(i as usize) == Some(uri)
        {
            return Pfx::Scope(i as usize);
        }
        self.invent_new(uri)
    }

    /// [`invent`](Self::invent) for a URI without a prefix found by its id.
    #[inline(never)]
    fn invent_new(&mut self, uri: u32) -> Pfx {
        let u = self.t.uri(uri);
        if u.is_empty() {
            // A second entry for no namespace (a stream may add "" as a miss): no prefix.
            return Pfx::Unset;
        }
        let mark = self.marks.last().copied().unwrap_or(0);
        // Without preserved prefixes and outside self-contained elements every declaration in
        // scope was invented, and `invented` finds the URI's: nothing to scan for (a scan per
        // new URI made a tag with many namespaces quadratic).
        let scan = self.o.prefixes || !self.outer.is_empty();
        // A prefix bound to the URI and not rebound since (self-contained elements restart
        // the URI numbers, so `ns3` may name another URI inside one).
        if scan {
            let found = (0..self.scope.len()).rev().find(|&i| {
                let (p, x) = self.scope.get(i);
                x == u
                    && (self.outer.is_empty() || !self.scope.iter_from(i + 1).any(|(q, _)| q == p))
            });
            if let Some(i) = found {
                self.remember(uri, i);
                return Pfx::Scope(i);
            }
        }
        // `xsi`, or `ns` and the URI's id (without the formatting machinery).
        let mut p = String::with_capacity(8);
        if uri == 2 {
            p.push_str("xsi");
        } else {
            p.push_str("ns");
            crate::bits::push_u64(&mut p, u64::from(uri));
        }
        while scan && self.scope.iter_from(mark).any(|(q, x)| q == p && x != u) {
            p.push('_');
        }
        self.scope.push(p, u.to_string(), uri);
        let i = self.scope.len() - 1;
        self.remember(uri, i);
        Pfx::Scope(i)
    }

    /// Notes that URI `uri` has the prefix of scope entry `i` (outside self-contained
    /// elements, where URI ids are those of the one table).
    fn remember(&mut self, uri: u32, i: usize) {
        if self.outer.is_empty() {
            let u = uri as usize;
            if self.invented.len() <= u {
                self.invented.resize(u + 1, u32::MAX);
            }
            self.invented[u] = i as u32;
        }
    }

    /// Hands the open start tag on, if one is open.
    #[inline(always)]
    fn flush_tag(&mut self, out: &mut impl Out) -> Result<()> {
        if !self.tag.open {
            return Ok(());
        }
        // Most tags, handed on here: no attributes, no declarations of their own, outside
        // self-contained elements (the rest by `flush_open_tag`, out of line).
        if self.tag.attrs.is_empty()
            && self.outer.is_empty()
            && self.marks.last().copied().unwrap_or(0) == self.scope.len()
        {
            self.tag.open = false;
            let n = self.tag.name;
            let (uri, local) = self.t.name_text(n);
            let id = NameRef {
                table: self.names,
                id: n,
            };
            return out.element(self.pfx(self.tag.prefix), uri, local, id);
        }
        self.flush_open_tag(out)
    }

    /// Hands the open start tag on: the element, its declarations, its attributes. The
    /// events borrow every string, so they are not dropped (nothing to free; dropping a
    /// `Cow` still tests which kind it is).
    fn flush_open_tag(&mut self, out: &mut impl Out) -> Result<()> {
        self.tag.open = false;
        let tag = &self.tag;
        let n = tag.name;
        // Inside a self-contained element the fragment's table numbers names afresh: no ids.
        let table = self.outer.is_empty().then_some(self.names);
        let prefix = self.pfx(tag.prefix);
        let (uri, local) = self.t.name_text(n);
        match table {
            Some(table) => out.element(prefix, uri, local, NameRef { table, id: n })?,
            None => out.put(&ManuallyDrop::new(Event::StartElement(QName::new(
                prefix, uri, local,
            ))))?,
        }
        let mark = self.marks.last().copied().unwrap_or(0);
        for (p, u) in self.scope.iter_from(mark) {
            out.put(&ManuallyDrop::new(Event::Namespace {
                prefix: Cow::Borrowed(p),
                uri: Cow::Borrowed(u),
            }))?;
        }
        for &(name, prefix, text) in &tag.attrs {
            let ((uri, local), prefix, value) = (
                self.t.name_text(name),
                self.pfx(prefix),
                match text {
                    AttrText::Buf(a, b) => &tag.abuf[a..b],
                    AttrText::Table(g) => self.t.value(g),
                },
            );
            match table {
                Some(table) => {
                    out.attribute(prefix, uri, local, NameRef { table, id: name }, value)?
                }
                None => out.put(&ManuallyDrop::new(Event::Attribute {
                    name: QName::new(prefix, uri, local),
                    value: Cow::Borrowed(value),
                }))?,
            }
        }
        Ok(())
    }

    /// An attribute is held on the open tag until the tag is complete, then handed on with
    /// its name's URI, local name and prefix: they and its entry count against the budget
    /// (its value counted when it was read).
    fn count_attribute(&mut self, name: NameId, p: Pfx) -> Result<()> {
        let (uri, local) = self.t.name_text(name);
        let len = HELD_ATTR + uri.len() + local.len();
        let len = len + self.pfx(p).len();
        self.count_here(len)
    }

    /// The prefix of an element or attribute name: preserved, or invented.
    #[inline]
    fn name_prefix(&mut self, name: NameId, prefix: Option<u32>, attribute: bool) -> Pfx {
        let uri = self.t.name_uri(name);
        if self.o.prefixes {
            if let Some(p) = prefix {
                // An attribute in a namespace needs a prefix: the empty one is no prefix.
                if uri == 0 || !attribute || !self.t.prefix(uri, p).is_empty() {
                    return Pfx::Table(uri, p);
                }
            } else if !attribute {
                // Left to an NS event with local-element-ns.
                return Pfx::Unset;
            }
        }
        self.invent(uri)
    }

    #[inline(always)]
    fn emit(&mut self, raw: Raw, out: &mut impl Out) -> Result<()> {
        if self.skip_se && !matches!(raw, Raw::Se { .. }) {
            // Anything else would hand on the open tag (its name from the outer table) while
            // the fragment's table is the one in use.
            return Err(Error::malformed(
                Format::Exi,
                self.event_bit >> 3,
                "a self-contained element's fragment does not start with the element's SE",
            )
            .at_bit(self.event_bit));
        }
        match raw {
            Raw::ScStart => {
                self.skip_se = true;
                // The outer table goes away until the element ends: keep its prefix's text.
                if let Pfx::Table(..) = self.tag.prefix {
                    let p = self.pfx(self.tag.prefix).to_string();
                    self.tag.owned_prefix = p;
                    self.tag.prefix = Pfx::Owned;
                }
            }
            Raw::ScEnd => {}
            Raw::Se { name, prefix } if self.skip_se => {
                // The self-contained element's start, repeated in its fragment: its tag is
                // still open; its name now lives in the fragment's table.
                self.skip_se = false;
                self.tag.name = name;
                if self.o.prefixes
                    && let (Some(p), Pfx::Unset) = (prefix, self.tag.prefix)
                {
                    self.tag.prefix = Pfx::Table(self.t.name_uri(name), p);
                }
            }
            Raw::Se { name, prefix } => {
                self.flush_tag(out)?;
                let root = self.marks.is_empty();
                self.marks.push(self.scope.len());
                if root && !self.o.prefixes {
                    self.invent(2);
                }
                let p = self.name_prefix(name, prefix, false);
                // The local name, URI and prefix an element start hands out count (a table
                // reference of a few bits repeats them).
                let (uri, local) = self.t.name_text(name);
                let n = local.len() + uri.len() + self.pfx(p).len();
                self.count_here(n)?;
                let tag = &mut self.tag;
                tag.open = true;
                tag.name = name;
                tag.prefix = p;
                tag.attrs.clear();
                if !self.tag_ns.is_empty() {
                    self.tag_ns.clear();
                }
                tag.abuf.clear();
            }
            Raw::Ns { uri, prefix, local } => {
                let mark = self.marks.last().copied().unwrap_or(0);
                let (p, u) = (self.t.prefix(uri, prefix), &self.t.uri(uri));
                // A self-contained element repeats its own declaration. Outside one, a
                // repeated declaration has the same ids: found by them, not by a scan of the
                // tag's declarations (quadratic in their number).
                let repeated = if self.outer.is_empty() {
                    self.tag_ns.get(&(uri, prefix)).copied()
                } else {
                    self.scope
                        .iter_from(mark)
                        .position(|(q, x)| q == p && x == *u)
                        .map(|i| mark + i)
                };
                let at = match repeated {
                    Some(i) => i,
                    None => {
                        // Held in scope until the element ends, and copied again when the tag
                        // is handed on: its strings and its entry count against the budget.
                        let n = HELD_DECL + 2 * (p.len() + u.len());
                        self.count_here(n)?;
                        self.scope.push(
                            self.t.prefix(uri, prefix).to_string(),
                            self.t.uri(uri).to_string(),
                            NONE,
                        );
                        let i = self.scope.len() - 1;
                        if self.outer.is_empty() {
                            self.tag_ns.insert((uri, prefix), i);
                        }
                        i
                    }
                };
                if local {
                    self.tag.prefix = Pfx::Scope(at);
                }
            }
            Raw::At {
                name,
                prefix,
                value,
            } => {
                let p = self.name_prefix(name, prefix, true);
                let held = match value {
                    Val::Global(g) if self.t.keeps_values() => AttrText::Table(g),
                    Val::Slot(i) if self.slots[i].1 == TABLE_SLOT => {
                        AttrText::Table(self.slots[i].0 as u32)
                    }
                    value => {
                        let a = self.tag.abuf.len();
                        let text = match value {
                            Val::Global(g) => self.t.value(g),
                            Val::Scratch => &self.scratch,
                            Val::Slot(i) => {
                                let (x, y) = self.slots[i];
                                &self.slot_text[x..y]
                            }
                            Val::Held(x, y) => &self.slot_text[x..y],
                        };
                        self.tag.abuf.push_str(text);
                        AttrText::Buf(a, self.tag.abuf.len())
                    }
                };
                self.tag.attrs.push((name, p, held));
                self.count_attribute(name, p)?;
            }
            Raw::XsiType {
                prefix,
                ty,
                ty_prefix,
            } => {
                let p = self.name_prefix(XSI_TYPE, prefix, true);
                let tp = self.name_prefix(ty, ty_prefix, true);
                let a = self.tag.abuf.len();
                let text = self.pfx(tp).to_string();
                let tag = &mut self.tag;
                if !text.is_empty() {
                    tag.abuf.push_str(&text);
                    tag.abuf.push(':');
                }
                tag.abuf.push_str(self.t.local(ty));
                let b = tag.abuf.len();
                tag.attrs.push((XSI_TYPE, p, AttrText::Buf(a, b)));
                // The value is names from the table: it counts too.
                self.count_here(b - a)?;
                self.count_attribute(XSI_TYPE, p)?;
            }
            Raw::Ee => {
                self.flush_tag(out)?;
                if let Some(m) = self.marks.pop() {
                    self.scope.truncate(m);
                }
                out.end()?;
            }
            Raw::Ch(v) => {
                self.flush_tag(out)?;
                out.text(self.val(v))?;
            }
            Raw::Cm(c) => {
                self.flush_tag(out)?;
                out.put(&Event::Comment(Cow::Owned(c)))?;
            }
            Raw::Pi(pi) => {
                let (target, data) = *pi;
                self.flush_tag(out)?;
                out.put(&Event::ProcessingInstruction {
                    target: Cow::Owned(target),
                    data: Cow::Owned(data),
                })?;
            }
            Raw::Dt(dt) => {
                let [name, public, system, text] = *dt;
                let some = |s: String| (!s.is_empty()).then_some(Cow::Owned(s));
                out.put(&Event::DocType(DocType {
                    name: Cow::Owned(name),
                    public_id: some(public),
                    system_id: some(system),
                    internal_subset: some(text),
                }))?;
            }
            Raw::Er(name) => {
                self.flush_tag(out)?;
                out.put(&Event::EntityReference {
                    name: Cow::Owned(name),
                    public_id: None,
                    system_id: None,
                })?;
            }
            Raw::Ed => {
                self.flush_tag(out)?;
                out.put(&Event::EndDocument)?;
                self.phase = Phase::Done;
            }
        }
        Ok(())
    }

    /// A malformed-body error of a stream whose header carries no options: the options it was
    /// decoded with may not be those it was written with; say so.
    fn hint(&self, e: Error) -> Error {
        if !self.options_given || e.kind() != binxml_core::ErrorKind::Malformed {
            return e;
        }
        let mut m = e.message().to_string();
        m.push_str(&format!(
            " (the header names no options; decoded with {}: give the stream's own if they \
             differ)",
            match self.o.to_text().as_str() {
                "" => "EXI's defaults".to_string(),
                t => t.to_string(),
            }
        ));
        let mut out = Error::malformed(Format::Exi, e.offset().unwrap_or(0), m);
        if let Some(b) = e.bit_offset() {
            out = out.at_bit(b);
        }
        out
    }

    /// Reads and emits the next event (reordered layouts: reads a block when none is left).
    fn advance(&mut self, out: &mut impl Out) -> Result<()> {
        if self.o.alignment.is_reordered() {
            if self.block.is_empty() {
                self.load_block()?;
            }
            if let Some(raw) = self.block.pop_front() {
                self.emit(raw, out)?;
            }
            return Ok(());
        }
        let mut r = self.body.clone();
        self.event_bit = r.bit_offset();
        let res = self.step(&mut r, &mut Emit(out));
        self.body = r;
        res
    }

    /// Emits events until the body ends or `out` is full, reading a block whenever the last
    /// one's events are all out (reordered layouts).
    fn run_reordered(&mut self, out: &mut impl Out) -> Result<()> {
        while self.phase == Phase::Body && !out.full() {
            if self.block.is_empty() {
                self.load_block()?;
            }
            while let Some(raw) = self.block.pop_front() {
                self.emit(raw, out)?;
                if out.full() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Reads and emits events until the body ends or `out` is full, the reader held in a
    /// local between events (in-order layouts).
    fn run(&mut self, out: &mut impl Out) -> Result<()> {
        let mut r = self.body.clone();
        let mut emit = Emit(out);
        let res = loop {
            if self.phase != Phase::Body || emit.0.full() {
                break Ok(());
            }
            self.event_bit = r.bit_offset();
            if let Err(e) = self.step(&mut r, &mut emit) {
                break Err(e);
            }
        };
        self.body = r;
        res
    }
}

impl<'a> Decoder<'a> for ExiDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if std::mem::take(&mut self.start_pending) {
                return Ok(Some(START_DOCUMENT));
            }
            if let Some(ev) = self.queue.pop_front() {
                return Ok(Some(ev));
            }
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Header => self.start()?,
                Phase::Body => {
                    let mut q = std::mem::take(&mut self.queue);
                    let r = self.advance(&mut q);
                    self.queue = q;
                    if let Err(e) = r {
                        self.phase = Phase::Done;
                        self.queue.clear();
                        return Err(self.hint(e));
                    }
                }
            }
        }
    }

    fn offset(&self) -> u64 {
        self.event_bit >> 3
    }

    fn bit_offset(&self) -> Option<u64> {
        Some(self.event_bit)
    }

    /// Push decoding: events go to the sink as [`EventSink::transient`] events, their strings
    /// borrowed from the decoder's string table for the call.
    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        loop {
            if std::mem::take(&mut self.start_pending) {
                sink.dispatch(START_DOCUMENT)?;
            }
            while let Some(ev) = self.queue.pop_front() {
                sink.dispatch(ev)?;
            }
            // between events, every state in `self`: a later call resumes here
            if sink.full() {
                return Ok(());
            }
            match self.phase {
                Phase::Done => return Ok(()),
                Phase::Header => self.start()?,
                Phase::Body => {
                    // The events of a body, without returning to this loop between them
                    // (the queue only fills before the body).
                    let mut out = Push(sink);
                    let res = if self.o.alignment.is_reordered() {
                        self.run_reordered(&mut out)
                    } else {
                        self.run(&mut out)
                    };
                    if let Err(e) = res {
                        self.phase = Phase::Done;
                        return Err(self.hint(e));
                    }
                }
            }
        }
    }

    /// Batched pull through the push loop: the strings of each event are copied out of the
    /// string table, as [`Decoder::next_event`] copies them.
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it, the strings of the string table
    /// copied into the batch's buffer (no allocation per string).
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }
}
