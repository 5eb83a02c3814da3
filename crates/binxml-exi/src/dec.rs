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
use std::collections::VecDeque;

use binxml_core::{Decoder, DocType, Error, Event, Format, Limits, QName, Result};

use crate::bits::BitReader;
use crate::grammar::{ElementGrammar, Layout, Prod, State, Undeclared, index_of};
use crate::header;
use crate::options::{Alignment, ExiOptions};
use crate::tables::{NONE, NameId, Tables, XSI_TYPE};

/// Values in a block up to which the whole block is one stream (EXI 1.0, 9.3).
const SMALL_BLOCK: usize = 100;

/// A value: read, or a slot of the block's channels (reordered layouts).
#[derive(Debug)]
enum Val {
    Text(String),
    Slot(usize),
}

/// One EXI event as read.
#[derive(Debug)]
enum Raw {
    Se {
        name: NameId,
        prefix: Option<String>,
    },
    Ee,
    At {
        name: NameId,
        prefix: Option<String>,
        value: Val,
    },
    /// `xsi:type` with a QName value (not lexical).
    XsiType {
        prefix: Option<String>,
        ty: NameId,
        ty_prefix: Option<String>,
    },
    Ns {
        uri: u32,
        prefix: String,
        local: bool,
    },
    Ch(Val),
    Cm(String),
    Pi(String, String),
    Dt([String; 4]),
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
    g: Vec<ElementGrammar>,
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

/// A start tag being gathered.
#[derive(Debug, Default)]
struct Tag {
    uri: String,
    local: String,
    prefix: Option<String>,
    ns: Vec<(String, String)>,
    attrs: Vec<(QName<'static>, String)>,
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
    g: Vec<ElementGrammar>,
    layout: Layout,
    frag: Vec<Prod>,
    top: Top,
    stack: Vec<Frame>,
    queue: VecDeque<Event<'static>>,
    tag: Option<Tag>,
    /// Namespace declarations in scope of the events emitted so far.
    scope: Vec<(String, String)>,
    /// Scope marks of the elements emitted and not yet ended.
    marks: Vec<usize>,
    /// Reordered layouts: the block's raw events, its channel values, and the channel of each
    /// slot.
    block: VecDeque<Raw>,
    slots: Vec<String>,
    slot_names: Vec<NameId>,
    /// Reordered layouts: where the next block starts in the input.
    next_block: usize,
    budget: usize,
    decoded: usize,
    event_offset: u64,
    event_bit: u64,
    /// Self-contained elements being read, innermost last.
    outer: Vec<Outer>,
    /// The next SE is a self-contained element's repetition of its own start.
    skip_se: bool,
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
            t: Tables::new(None, None, false),
            g: Vec::new(),
            frag: vec![Prod::Ee, Prod::SeAny],
            top: Top::Content,
            stack: Vec::new(),
            queue: VecDeque::new(),
            tag: None,
            scope: Vec::new(),
            marks: Vec::new(),
            block: VecDeque::new(),
            slots: Vec::new(),
            slot_names: Vec::new(),
            next_block: 0,
            budget,
            decoded: 0,
            event_offset: 0,
            event_bit: 0,
            outer: Vec::new(),
            skip_se: false,
            limits,
        }
    }

    /// The options of the stream (those of its header once the first event has been read).
    pub fn options(&self) -> &ExiOptions {
        &self.o
    }

    fn start(&mut self) -> Result<()> {
        let mut r = BitReader::new(self.input, false, 0);
        let (o, _cookie) = header::read(&mut r, &self.given)?;
        if o.alignment.is_aligned() {
            r.set_aligned(true);
        }
        self.layout = Layout::new(o.comments, o.pis, o.dtd, o.prefixes, o.self_contained);
        self.t = Self::fresh_tables(&o);
        self.next_block = r.pos();
        self.body = r;
        self.o = o;
        self.phase = Phase::Body;
        self.queue.push_back(Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        });
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
        Error::limit(Format::Exi, r.offset(), what).at_bit(r.bit_offset())
    }

    fn count(&mut self, r: &BitReader<'_>, n: usize) -> Result<()> {
        self.decoded += n;
        if self.decoded > self.budget {
            return Err(self.limit(
                r,
                format!(
                    "decoded text past {} octets for {} octets of input (limit: max_expansion_ratio)",
                    self.budget,
                    self.input.len()
                ),
            ));
        }
        Ok(())
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

    fn prefix(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Option<String>> {
        if self.o.prefixes {
            self.t.read_qname_prefix(r, name)
        } else {
            Ok(None)
        }
    }

    fn value(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Val> {
        if self.o.alignment.is_reordered() {
            self.slot_names.push(name);
            return Ok(Val::Slot(self.slot_names.len() - 1));
        }
        let s = self.t.read_value(r, name, self.limits.max_string_len)?;
        self.count(r, s.len())?;
        self.check_tables(r)?;
        Ok(Val::Text(s))
    }

    fn string(&mut self, r: &mut BitReader<'_>) -> Result<String> {
        let s = r.string(self.limits.max_string_len)?;
        self.count(r, s.len())?;
        Ok(s)
    }

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
        let grammar = match self.t.names[name as usize].grammar {
            NONE => {
                self.g.push(ElementGrammar::new());
                let gi = self.g.len() - 1;
                self.t.names[name as usize].grammar = gi as u32;
                gi
            }
            gi => gi as usize,
        };
        self.stack.push(Frame {
            name,
            grammar,
            state: State::StartTag,
        });
        Ok(())
    }

    /// An attribute's value: `xsi:type` is a QName unless lexical values are preserved.
    fn attribute(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<Raw> {
        let prefix = self.prefix(r, name)?;
        if name == XSI_TYPE {
            if self.o.lexical_values {
                let s = self.t.read_value(r, XSI_TYPE, self.limits.max_string_len)?;
                self.count(r, s.len())?;
                return Ok(Raw::At {
                    name,
                    prefix,
                    value: Val::Text(s),
                });
            }
            let ty = self.qname(r)?;
            let ty_prefix = self.prefix(r, ty)?;
            return Ok(Raw::XsiType {
                prefix,
                ty,
                ty_prefix,
            });
        }
        let value = self.value(r, name)?;
        Ok(Raw::At {
            name,
            prefix,
            value,
        })
    }

    /// Reads one event.
    fn step(&mut self, r: &mut BitReader<'_>) -> Result<Raw> {
        if self
            .outer
            .last()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            return self.step_fragment(r);
        }
        let Some(f) = self.stack.last() else {
            return self.step_top(r);
        };
        let (gi, state, name) = (f.grammar, f.state, f.name);
        let n1 = self.g[gi].prods(state).len();
        let c = r.code(n1 + 1)?;
        if c < n1 {
            let p = self.g[gi].prods(state)[index_of(c, n1)];
            return match p {
                Prod::Se(id) => {
                    self.stack.last_mut().expect("inside").state = State::Content;
                    let prefix = self.prefix(r, id)?;
                    self.push_element(r, id)?;
                    Ok(Raw::Se { name: id, prefix })
                }
                Prod::At(id) => self.attribute(r, id),
                Prod::Ch => {
                    self.stack.last_mut().expect("inside").state = State::Content;
                    Ok(Raw::Ch(self.value(r, name)?))
                }
                Prod::Ee | Prod::SeAny => {
                    self.stack.pop();
                    Ok(Raw::Ee)
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
                self.g[gi].learn(State::StartTag, Prod::Ee);
                self.stack.pop();
                Ok(Raw::Ee)
            }
            Undeclared::At => {
                let id = self.qname(r)?;
                self.g[gi].learn(State::StartTag, Prod::At(id));
                self.attribute(r, id)
            }
            Undeclared::Ns => {
                let uri = self.t.read_uri(r, self.limits.max_string_len)?;
                let prefix = self.t.read_ns_prefix(r, uri, self.limits.max_string_len)?;
                self.check_tables(r)?;
                let local = r.boolean()?;
                Ok(Raw::Ns { uri, prefix, local })
            }
            Undeclared::Sc => {
                if state != State::StartTag || self.g[gi].prods(state).len() != n1 {
                    return Err(r.error("SC after the start tag's first event"));
                }
                r.skip_to_octet();
                let fresh = Self::fresh_tables(&self.o);
                self.outer.push(Outer {
                    t: std::mem::replace(&mut self.t, fresh),
                    g: std::mem::take(&mut self.g),
                    frag: std::mem::replace(&mut self.frag, vec![Prod::Ee, Prod::SeAny]),
                    depth: self.stack.len(),
                });
                Ok(Raw::ScStart)
            }
            Undeclared::Se => {
                let id = self.qname(r)?;
                self.g[gi].learn(state, Prod::Se(id));
                self.stack.last_mut().expect("inside").state = State::Content;
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                Ok(Raw::Se { name: id, prefix })
            }
            Undeclared::Ch => {
                self.g[gi].learn(state, Prod::Ch);
                self.stack.last_mut().expect("inside").state = State::Content;
                Ok(Raw::Ch(self.value(r, name)?))
            }
            Undeclared::Er => {
                self.stack.last_mut().expect("inside").state = State::Content;
                Ok(Raw::Er(self.string(r)?))
            }
            Undeclared::Cm => {
                self.stack.last_mut().expect("inside").state = State::Content;
                Ok(Raw::Cm(self.string(r)?))
            }
            Undeclared::Pi => {
                self.stack.last_mut().expect("inside").state = State::Content;
                let target = self.string(r)?;
                let data = self.string(r)?;
                Ok(Raw::Pi(target, data))
            }
        }
    }

    /// Reads a CM or PI at the third level.
    fn step_third(&mut self, r: &mut BitReader<'_>) -> Result<Raw> {
        let third = self.layout.third();
        match third[r.code(third.len())?] {
            Undeclared::Cm => Ok(Raw::Cm(self.string(r)?)),
            _ => {
                let target = self.string(r)?;
                let data = self.string(r)?;
                Ok(Raw::Pi(target, data))
            }
        }
    }

    /// Reads one event of FragmentContent: the top level of a fragment, or of a
    /// self-contained element's content.
    fn step_fragment(&mut self, r: &mut BitReader<'_>) -> Result<Raw> {
        let misc = self.o.comments || self.o.pis;
        let n = self.frag.len();
        let c = r.code(n + usize::from(misc))?;
        if c == n {
            r.code(1)?;
            return self.step_third(r);
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
                    return Ok(Raw::ScEnd);
                }
                Ok(Raw::Ed)
            }
            Prod::Se(id) => {
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                Ok(Raw::Se { name: id, prefix })
            }
            _ => {
                let id = self.qname(r)?;
                self.frag.push(Prod::Se(id));
                let prefix = self.prefix(r, id)?;
                self.push_element(r, id)?;
                Ok(Raw::Se { name: id, prefix })
            }
        }
    }

    /// Reads one event outside any element.
    fn step_top(&mut self, r: &mut BitReader<'_>) -> Result<Raw> {
        let misc = self.o.comments || self.o.pis;
        if self.o.fragment {
            return self.step_fragment(r);
        }
        match self.top {
            Top::Content => {
                let n1 = 1 + usize::from(self.o.dtd || misc);
                if r.code(n1)? == 0 {
                    let id = self.qname(r)?;
                    self.top = Top::End;
                    let prefix = self.prefix(r, id)?;
                    self.push_element(r, id)?;
                    return Ok(Raw::Se { name: id, prefix });
                }
                let doc = self.layout.doc();
                let s = r.code(doc.len())?;
                if self.layout.is_group(doc, s) {
                    self.step_third(r)
                } else {
                    let mut parts: [String; 4] = Default::default();
                    for p in &mut parts {
                        *p = self.string(r)?;
                    }
                    Ok(Raw::Dt(parts))
                }
            }
            Top::End => {
                if r.code(1 + usize::from(misc))? == 0 {
                    return Ok(Raw::Ed);
                }
                r.code(1)?;
                self.step_third(r)
            }
        }
    }

    // ---- reordered layouts -------------------------------------------------------------

    /// Reads the next block: its structure, then its channels.
    fn load_block(&mut self) -> Result<()> {
        let compressed = self.o.alignment == Alignment::Compression;
        let start = self.next_block;
        let owned;
        let structure: &[u8] = if compressed {
            if start >= self.input.len() {
                &[]
            } else {
                let (data, used) = self.inflate(start)?;
                owned = data;
                self.next_block = start + used;
                &owned
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
        self.slots.clear();
        let block_size = self.o.block_size as usize;
        let mut raws = VecDeque::new();
        loop {
            self.event_offset = r.offset();
            self.event_bit = r.bit_offset();
            let raw = self.step(&mut r)?;
            let end = matches!(raw, Raw::Ed);
            raws.push_back(raw);
            if end || self.slot_names.len() == block_size {
                break;
            }
        }
        // The channels, in order of their first value in the block.
        let mut order: Vec<(NameId, Vec<usize>)> = Vec::new();
        let mut index: std::collections::HashMap<NameId, usize> = Default::default();
        for (slot, &name) in self.slot_names.iter().enumerate() {
            let i = *index.entry(name).or_insert_with(|| {
                order.push((name, Vec::new()));
                order.len() - 1
            });
            order[i].1.push(slot);
        }
        let mut slots = vec![String::new(); self.slot_names.len()];
        if self.slot_names.len() <= SMALL_BLOCK {
            self.read_channels(&mut r, &order, |_| true, &mut slots)?;
            if !compressed {
                self.next_block = start + r.pos();
            }
        } else {
            if !compressed {
                self.next_block = start + r.pos();
            }
            let small = order.iter().any(|(_, s)| s.len() <= SMALL_BLOCK);
            if small {
                self.channel_stream(&order, |n| n <= SMALL_BLOCK, &mut slots)?;
            }
            for (name, s) in &order {
                if s.len() > SMALL_BLOCK {
                    let one = [(*name, s.clone())];
                    self.channel_stream(&one, |_| true, &mut slots)?;
                }
            }
        }
        self.slots = slots;
        self.block = raws;
        Ok(())
    }

    /// Reads channels from their own stream (compressed: one DEFLATE stream).
    fn channel_stream(
        &mut self,
        order: &[(NameId, Vec<usize>)],
        pick: impl Fn(usize) -> bool,
        slots: &mut [String],
    ) -> Result<()> {
        let start = self.next_block;
        if self.o.alignment == Alignment::Compression {
            let (data, used) = self.inflate(start)?;
            self.next_block = start + used;
            let mut r = BitReader::new(&data, true, 0);
            r.stream = "a DEFLATE stream";
            self.read_channels(&mut r, order, &pick, slots)
        } else {
            let mut r = BitReader::new(
                &self.input[start.min(self.input.len())..],
                true,
                start as u64,
            );
            self.read_channels(&mut r, order, &pick, slots)?;
            self.next_block = start + r.pos();
            Ok(())
        }
    }

    fn read_channels(
        &mut self,
        r: &mut BitReader<'_>,
        order: &[(NameId, Vec<usize>)],
        pick: impl Fn(usize) -> bool,
        slots: &mut [String],
    ) -> Result<()> {
        for (name, s) in order {
            if !pick(s.len()) {
                continue;
            }
            for &slot in s {
                let v = self.t.read_value(r, *name, self.limits.max_string_len)?;
                self.count(r, v.len())?;
                self.check_tables(r)?;
                slots[slot] = v;
            }
        }
        Ok(())
    }

    /// Inflates the raw DEFLATE stream at `start`; returns the data and the octets used.
    fn inflate(&mut self, start: usize) -> Result<(Vec<u8>, usize)> {
        let input = &self.input[start.min(self.input.len())..];
        let mut z = flate2::Decompress::new(false);
        let mut out: Vec<u8> = Vec::with_capacity((input.len() * 4).min(1 << 20));
        loop {
            let room = self
                .budget
                .saturating_sub(self.decoded)
                .saturating_sub(out.len());
            if room == 0 {
                return Err(Error::limit(
                    Format::Exi,
                    start as u64,
                    format!(
                        "DEFLATE stream inflates past {} octets for {} octets of input \
                         (limit: max_expansion_ratio)",
                        self.budget,
                        self.input.len()
                    ),
                ));
            }
            if out.capacity() == out.len() {
                out.reserve((out.len()).clamp(4096, room));
            }
            let before_in = z.total_in();
            let before_out = z.total_out();
            let status = z
                .decompress_vec(
                    &input[z.total_in() as usize..],
                    &mut out,
                    flate2::FlushDecompress::None,
                )
                .map_err(|e| {
                    Error::malformed(
                        Format::Exi,
                        start as u64 + z.total_in(),
                        format!("corrupt DEFLATE stream: {e}"),
                    )
                })?;
            if status == flate2::Status::StreamEnd {
                // Inflated octets count against the budget as they are decoded further on.
                return Ok((out, z.total_in() as usize));
            }
            if z.total_in() == before_in
                && z.total_out() == before_out
                && out.len() < out.capacity()
            {
                return Err(Error::malformed(
                    Format::Exi,
                    start as u64 + z.total_in(),
                    "truncated DEFLATE stream",
                ));
            }
        }
    }

    // ---- events ------------------------------------------------------------------------

    fn take(&mut self, v: Val) -> String {
        match v {
            Val::Text(s) => s,
            Val::Slot(i) => std::mem::take(&mut self.slots[i]),
        }
    }

    /// The prefix for URI `uri` when prefixes are not preserved: the one in scope, else a new
    /// declaration on the open start tag.
    fn invent(&mut self, uri: u32) -> String {
        match uri {
            0 => return String::new(),
            1 => return "xml".to_string(),
            _ => {}
        }
        let u = &self.t.uris[uri as usize].uri;
        // A prefix bound to the URI and not rebound since (self-contained elements restart
        // the URI numbers, so `ns3` may name another URI inside one).
        for (i, (p, x)) in self.scope.iter().enumerate().rev() {
            if x == u && !self.scope[i + 1..].iter().any(|(q, _)| q == p) {
                return p.clone();
            }
        }
        let mut p = if uri == 2 {
            "xsi".to_string()
        } else {
            format!("ns{uri}")
        };
        if let Some(tag) = &self.tag {
            while tag.ns.iter().any(|(q, x)| *q == p && x != u) {
                p.push('_');
            }
        }
        let u = u.clone();
        self.scope.push((p.clone(), u.clone()));
        if let Some(tag) = &mut self.tag {
            tag.ns.push((p.clone(), u));
        }
        p
    }

    fn flush_tag(&mut self) {
        let Some(tag) = self.tag.take() else {
            return;
        };
        let prefix = tag.prefix.unwrap_or_default();
        self.queue.push_back(Event::StartElement(QName {
            prefix: Cow::Owned(prefix),
            namespace: Cow::Owned(tag.uri),
            local: Cow::Owned(tag.local),
        }));
        for (p, u) in tag.ns {
            self.queue.push_back(Event::Namespace {
                prefix: Cow::Owned(p),
                uri: Cow::Owned(u),
            });
        }
        for (name, value) in tag.attrs {
            self.queue.push_back(Event::Attribute {
                name,
                value: Cow::Owned(value),
            });
        }
    }

    fn emit(&mut self, raw: Raw) -> Result<()> {
        match raw {
            Raw::ScStart => self.skip_se = true,
            Raw::ScEnd => {}
            Raw::Se { prefix, .. } if self.skip_se => {
                // The self-contained element's start, repeated: its tag is still open.
                self.skip_se = false;
                if let (Some(p), Some(tag)) = (prefix, &mut self.tag) {
                    if self.o.prefixes && tag.prefix.is_none() {
                        tag.prefix = Some(p);
                    }
                }
            }
            Raw::Se { name, prefix } => {
                self.flush_tag();
                let n = &self.t.names[name as usize];
                let uri_id = n.uri;
                self.tag = Some(Tag {
                    uri: self.t.uris[uri_id as usize].uri.clone(),
                    local: n.local.clone(),
                    prefix: None,
                    ns: Vec::new(),
                    attrs: Vec::new(),
                });
                self.count(&self.body.clone(), n.local.len())?;
                let root = self.marks.is_empty();
                self.marks.push(self.scope.len());
                if self.o.prefixes {
                    if let Some(tag) = &mut self.tag {
                        tag.prefix = prefix;
                    }
                } else {
                    if root {
                        self.invent(2);
                    }
                    let p = self.invent(uri_id);
                    if let Some(tag) = &mut self.tag {
                        tag.prefix = Some(p);
                    }
                }
            }
            Raw::Ns { uri, prefix, local } => {
                let u = self.t.uris[uri as usize].uri.clone();
                if let Some(tag) = &mut self.tag {
                    if local {
                        tag.prefix = Some(prefix.clone());
                    }
                    // A self-contained element repeats its own declaration.
                    if !tag.ns.iter().any(|(p, x)| *p == prefix && *x == u) {
                        self.scope.push((prefix.clone(), u.clone()));
                        tag.ns.push((prefix, u));
                    }
                }
            }
            Raw::At {
                name,
                prefix,
                value,
            } => {
                let value = self.take(value);
                self.attr(name, prefix, value);
            }
            Raw::XsiType {
                prefix,
                ty,
                ty_prefix,
            } => {
                let ty_uri = self.t.names[ty as usize].uri;
                let p = match ty_prefix {
                    Some(p) if self.o.prefixes => p,
                    _ => self.invent(ty_uri),
                };
                let local = &self.t.names[ty as usize].local;
                let value = if p.is_empty() {
                    local.clone()
                } else {
                    format!("{p}:{local}")
                };
                self.attr(XSI_TYPE, prefix, value);
            }
            Raw::Ee => {
                self.flush_tag();
                if let Some(m) = self.marks.pop() {
                    self.scope.truncate(m);
                }
                self.queue.push_back(Event::EndElement);
            }
            Raw::Ch(v) => {
                self.flush_tag();
                let text = self.take(v);
                self.queue.push_back(Event::Characters {
                    text: Cow::Owned(text),
                    cdata: false,
                });
            }
            Raw::Cm(c) => {
                self.flush_tag();
                self.queue.push_back(Event::Comment(Cow::Owned(c)));
            }
            Raw::Pi(target, data) => {
                self.flush_tag();
                self.queue.push_back(Event::ProcessingInstruction {
                    target: Cow::Owned(target),
                    data: Cow::Owned(data),
                });
            }
            Raw::Dt([name, public, system, text]) => {
                let some = |s: String| (!s.is_empty()).then_some(Cow::Owned(s));
                self.queue.push_back(Event::DocType(DocType {
                    name: Cow::Owned(name),
                    public_id: some(public),
                    system_id: some(system),
                    internal_subset: some(text),
                }));
            }
            Raw::Er(name) => {
                self.flush_tag();
                self.queue.push_back(Event::EntityReference {
                    name: Cow::Owned(name),
                    public_id: None,
                    system_id: None,
                });
            }
            Raw::Ed => {
                self.flush_tag();
                self.queue.push_back(Event::EndDocument);
                self.phase = Phase::Done;
            }
        }
        Ok(())
    }

    fn attr(&mut self, name: NameId, prefix: Option<String>, value: String) {
        let uri_id = self.t.names[name as usize].uri;
        let p = match prefix {
            Some(p) if self.o.prefixes && (uri_id == 0 || !p.is_empty()) => p,
            _ => self.invent(uri_id),
        };
        let n = &self.t.names[name as usize];
        let q = QName {
            prefix: Cow::Owned(p),
            namespace: Cow::Owned(self.t.uris[uri_id as usize].uri.clone()),
            local: Cow::Owned(n.local.clone()),
        };
        if let Some(tag) = &mut self.tag {
            tag.attrs.push((q, value));
        }
    }

    fn advance(&mut self) -> Result<()> {
        if self.o.alignment.is_reordered() {
            if self.block.is_empty() {
                self.load_block()?;
            }
            if let Some(raw) = self.block.pop_front() {
                self.emit(raw)?;
            }
            return Ok(());
        }
        let mut r = self.body.clone();
        self.event_offset = r.offset();
        self.event_bit = r.bit_offset();
        let raw = self.step(&mut r);
        self.body = r;
        self.emit(raw?)
    }
}

impl<'a> Decoder<'a> for ExiDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                return Ok(Some(ev));
            }
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Header => self.start()?,
                Phase::Body => {
                    if let Err(e) = self.advance() {
                        self.phase = Phase::Done;
                        self.queue.clear();
                        return Err(e);
                    }
                }
            }
        }
    }

    fn offset(&self) -> u64 {
        self.event_offset
    }

    fn bit_offset(&self) -> Option<u64> {
        Some(self.event_bit)
    }
}
