//! The schema-informed EXI decoder: the inverse of [`SchemaEncoder`](super::SchemaEncoder),
//! reading events with the grammars of a schema, typed values, and the built-in grammars for
//! undeclared elements.
//!
//! Prefixes are not in the stream (preserve.prefixes is not supported yet): the decoder
//! invents them as the schema-less decoder does, `ns<uri id>` declared on the element that
//! first needs one (`xsi` for the XML Schema instance namespace), and writes `xsi:type`
//! values with the prefix of the type's namespace.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

use binxml_core::{Decoder, Error, Event, Format, Limits, QName, Result};
use binxml_schema::model::TypeId;

use super::datatype::ExiType;
use super::grammar::{GrammarId, Kind, Terminal};
use super::{SchemaGrammars, values};
use crate::bits::{BitReader, width};
use crate::grammar::{ElementGrammar as BuiltinGrammar, Layout, Prod, State, Undeclared, index_of};
use crate::header;
use crate::options::ExiOptions;
use crate::tables::{NONE, NameId, Tables};

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

/// The start tag being read: its element, the declarations it needs, its attributes.
#[derive(Default)]
struct Tag {
    open: bool,
    element: Option<(String, String, String)>,
    attrs: Vec<(String, String, String, String)>,
}

self_cell::self_cell!(
    /// A compression-layout body, inflated, and the decoder reading it (as pre-compression).
    struct Inflated {
        owner: Vec<u8>,
        #[not_covariant]
        dependent: BodyDecoder,
    }
);

type BodyDecoder<'b> = SchemaDecoder<'b>;

/// Reads a schema-informed EXI stream.
pub struct SchemaDecoder<'a> {
    /// The compression layout: the inflated body's decoder, which this one hands on.
    inflated: Option<Box<Inflated>>,
    input: &'a [u8],
    r: BitReader<'a>,
    g: Arc<SchemaGrammars>,
    o: ExiOptions,
    limits: Limits,
    t: Tables,
    builtin: Vec<BuiltinGrammar>,
    layout: Layout,
    stack: Vec<Frame>,
    /// Namespace declarations in scope: (prefix, uri).
    scope: Vec<(String, String)>,
    tag: Tag,
    queue: VecDeque<Event<'static>>,
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
}

/// Marks a value to be filled from its block's channels (U+0001 cannot occur in XML 1.0 text).
const SLOT: char = '\u{1}';

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
        let t = grammars.string_table(None, None, false);
        SchemaDecoder {
            inflated: None,
            input,
            r: BitReader::new(input, false, 0),
            g: grammars,
            o: options,
            limits,
            t,
            builtin: Vec::new(),
            layout: Layout::new(false, false, false, false, false),
            stack: Vec::new(),
            scope: Vec::new(),
            tag: Tag::default(),
            queue: VecDeque::new(),
            started: false,
            root_done: false,
            ended: false,
            reordered: false,
            slots: Vec::new(),
            block_full: false,
            ready: 0,
        }
    }

    fn unsupported(what: &str) -> Error {
        Error::unsupported(
            Format::Exi,
            format!("schema-informed EXI does not support {what} yet"),
        )
    }

    fn start(&mut self) -> Result<()> {
        let (o, _cookie, _present) = header::read(&mut self.r, &self.o)?;
        let compressed = o.alignment == crate::options::Alignment::Compression;
        self.reordered = o.alignment.is_reordered();
        if o.dtd || o.prefixes || o.lexical_values || o.self_contained || o.fragment {
            return Err(Self::unsupported(
                "preserve options, self-contained elements or fragments",
            ));
        }
        if compressed {
            return self.start_inflated(o);
        }
        if o.alignment.is_aligned() {
            self.r.set_aligned(true);
        }
        self.t = self.g.string_table(
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
            false,
        );
        self.layout = Layout::new(o.comments, o.pis, false, false, false);
        self.o = o;
        self.queue.push_back(Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        });
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
        let mut body = Vec::new();
        let mut pos = self.r.pos();
        while pos < self.input.len() {
            let room = budget.saturating_sub(body.len());
            let (data, used) = crate::deflate::inflate_stream(self.input, pos, room, budget)?;
            body.extend_from_slice(&data);
            pos += used.max(1);
        }
        let g = Arc::clone(&self.g);
        let limits = self.limits.clone();
        let inner_options = o.with_alignment(crate::options::Alignment::PreCompression);
        self.inflated = Some(Box::new(Inflated::new(body, |b| {
            let mut d = SchemaDecoder::new(b, g, inner_options.clone(), limits);
            d.start_body(inner_options);
            d
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
        self.t = self.g.string_table(
            o.value_max_length.map(|n| n as usize),
            o.value_partition_capacity.map(|n| n as usize),
            false,
        );
        self.layout = Layout::new(o.comments, o.pis, false, false, false);
        self.o = o;
        self.queue.push_back(Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        });
        self.ready = 1;
    }

    fn max_len(&self) -> usize {
        self.limits.max_string_len
    }

    // ---- names and prefixes --------------------------------------------------------------

    /// A prefix for `uri` in scope or declared on the open tag (`""` for no namespace).
    fn prefix_for(&mut self, uri: &str, uri_id: Option<u32>) -> String {
        if uri.is_empty() {
            return String::new();
        }
        if uri == crate::tables::XML_NS {
            return "xml".into();
        }
        if let Some((p, _)) = self.scope.iter().rev().find(|(_, u)| u == uri) {
            return p.clone();
        }
        let mut p = if uri == crate::tables::XSI_NS {
            "xsi".to_string()
        } else {
            format!("ns{}", uri_id.unwrap_or(self.t.uris.len() as u32))
        };
        while self.scope.iter().any(|(q, _)| *q == p) {
            p.push('_');
        }
        self.scope.push((p.clone(), uri.to_string()));
        p
    }

    fn name_parts(&self, name: NameId) -> (String, String, u32) {
        let n = &self.t.names[name as usize];
        (
            self.t.uris[n.uri as usize].uri.clone(),
            n.local.clone(),
            n.uri,
        )
    }

    fn open_element(&mut self, name: NameId, cur: Cur) -> Result<()> {
        self.flush_tag();
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.r.limit_error(format!(
                "elements nested more than {} deep",
                self.limits.max_depth
            )));
        }
        let mark = self.scope.len();
        let (uri, local, uri_id) = self.name_parts(name);
        let prefix = self.prefix_for(&uri, Some(uri_id));
        self.tag = Tag {
            open: true,
            element: Some((prefix, uri, local)),
            attrs: Vec::new(),
        };
        self.stack.push(Frame {
            cur,
            name,
            scope_mark: mark,
        });
        Ok(())
    }

    fn attribute(&mut self, name: NameId, value: String) {
        let (uri, local, uri_id) = self.name_parts(name);
        let prefix = self.prefix_for(&uri, Some(uri_id));
        self.tag.attrs.push((prefix, uri, local, value));
    }

    /// Hands the open start tag on.
    fn flush_tag(&mut self) {
        if !self.tag.open {
            return;
        }
        self.tag.open = false;
        let Some((prefix, ns, local)) = self.tag.element.take() else {
            return;
        };
        self.queue.push_back(Event::StartElement(QName {
            prefix: Cow::Owned(prefix),
            namespace: Cow::Owned(ns),
            local: Cow::Owned(local),
        }));
        let mark = self.stack.last().map_or(0, |f| f.scope_mark);
        for (p, u) in &self.scope[mark..] {
            self.queue.push_back(Event::Namespace {
                prefix: Cow::Owned(p.clone()),
                uri: Cow::Owned(u.clone()),
            });
        }
        for (p, u, l, v) in std::mem::take(&mut self.tag.attrs) {
            self.queue.push_back(Event::Attribute {
                name: QName {
                    prefix: Cow::Owned(p),
                    namespace: Cow::Owned(u),
                    local: Cow::Owned(l),
                },
                value: Cow::Owned(v),
            });
        }
    }

    fn text(&mut self, text: String) {
        self.flush_tag();
        if !text.is_empty() {
            self.queue.push_back(Event::Characters {
                text: Cow::Owned(text),
                cdata: false,
            });
        }
    }

    fn close_element(&mut self) {
        self.flush_tag();
        if let Some(f) = self.stack.pop() {
            self.scope.truncate(f.scope_mark);
        }
        self.queue.push_back(Event::EndElement);
    }

    // ---- grammars --------------------------------------------------------------------------

    fn element_cur(&self, e: binxml_schema::model::ElemId) -> Cur {
        let eg = self.g.element(e);
        Cur::Informed {
            state: eg.start,
            empty: eg.empty,
            nillable: eg.nillable,
            castable: eg.castable,
        }
    }

    fn builtin_cur(&mut self, name: NameId) -> Cur {
        let grammar = match self.t.names[name as usize].grammar {
            NONE => {
                self.builtin.push(BuiltinGrammar::new());
                let gi = self.builtin.len() - 1;
                self.t.names[name as usize].grammar = gi as u32;
                gi
            }
            gi => gi as usize,
        };
        Cur::Builtin {
            grammar,
            state: State::StartTag,
        }
    }

    fn global_grammar(&mut self, name: NameId) -> Cur {
        let (uri, local, _) = self.name_parts(name);
        if let Some(e) = self.g.schema().global_element(&uri, &local) {
            return self.element_cur(e);
        }
        self.builtin_cur(name)
    }

    fn name_of_elem(&self, e: binxml_schema::model::ElemId) -> Result<NameId> {
        Ok(self.g.elem_name(e))
    }

    fn set_state(&mut self, next: Option<GrammarId>) {
        if let (Some(n), Some(f)) = (next, self.stack.last_mut())
            && let Cur::Informed { state, .. } = &mut f.cur
        {
            *state = n;
        }
    }

    fn second_order(&self, cur: Cur) -> Vec<Second> {
        let Cur::Informed {
            state,
            nillable,
            castable,
            ..
        } = cur
        else {
            return Vec::new();
        };
        let st = self.g.grammar(state);
        let has_ee = st.productions.iter().any(|p| p.terminal == Terminal::Ee);
        if self.o.strict {
            let mut v = Vec::new();
            if st.kind == Kind::FirstStartTag {
                if castable {
                    v.push(Second::XsiType);
                }
                if nillable {
                    v.push(Second::XsiNil);
                }
            }
            return v;
        }
        let mut v = Vec::new();
        if !has_ee {
            v.push(Second::Ee);
        }
        match st.kind {
            Kind::FirstStartTag => v.extend([
                Second::XsiType,
                Second::XsiNil,
                Second::AtAny,
                Second::AtUntyped,
                Second::SeAny,
                Second::Ch,
            ]),
            Kind::StartTag => {
                v.extend([Second::AtAny, Second::AtUntyped, Second::SeAny, Second::Ch])
            }
            Kind::Content => v.extend([Second::SeAny, Second::Ch]),
        }
        if self.o.comments || self.o.pis {
            v.push(Second::Misc);
        }
        v
    }

    // ---- values ----------------------------------------------------------------------------

    /// A value of an attribute or element named `name`, typed by `ty` or untyped: read now,
    /// or, in the pre-compression layout, a placeholder filled when the block's value channels
    /// are read (EXI 1.0, section 9).
    fn value(&mut self, name: NameId, ty: Option<TypeId>) -> Result<String> {
        if self.reordered {
            let n = self.slots.len();
            self.slots.push((name, ty));
            if self.slots.len() as u32 == self.o.block_size {
                self.block_full = true;
            }
            return Ok(format!("{SLOT}{n}{SLOT}"));
        }
        self.read_value_now(name, ty)
    }

    fn read_value_now(&mut self, name: NameId, ty: Option<TypeId>) -> Result<String> {
        let g = Arc::clone(&self.g);
        match ty {
            None => self
                .t
                .read_value_string(&mut self.r, name, self.limits.max_string_len),
            Some(t) => self.typed(name, g.datatype(t)),
        }
    }

    fn typed(&mut self, name: NameId, dt: &ExiType) -> Result<String> {
        match dt {
            ExiType::String => {
                self.t
                    .read_value_string(&mut self.r, name, self.limits.max_string_len)
            }
            ExiType::Restricted(_) => {
                let max = self.max_len();
                let dt = dt.clone();
                self.t
                    .read_value_string_with(&mut self.r, name, max, |r, len, out| {
                        values::decode_string_literal(&dt, len, r, out)
                    })
            }
            _ => {
                let mut s = String::new();
                let mut items = values::TableItems {
                    t: &mut self.t,
                    name,
                    max_len: self.limits.max_string_len,
                };
                values::decode_with(dt, &mut self.r, &mut s, &mut items)?;
                Ok(s)
            }
        }
    }

    // ---- steps -----------------------------------------------------------------------------

    /// Reads the next event(s) into the queue.
    fn step(&mut self) -> Result<()> {
        let Some(cur) = self.stack.last().map(|f| f.cur) else {
            return self.step_top();
        };
        match cur {
            Cur::Informed { state, .. } => self.step_informed(cur, state),
            Cur::Builtin { grammar, state } => self.step_builtin(grammar, state),
        }
    }

    fn step_top(&mut self) -> Result<()> {
        let misc = self.o.comments || self.o.pis;
        if self.root_done {
            // DocEnd: ED, or (preserved) a comment or PI.
            if misc && self.r.nbit(1)? == 1 {
                return self.read_misc();
            }
            self.ended = true;
            self.queue.push_back(Event::EndDocument);
            return Ok(());
        }
        let n = self.g.document_elements().len() + 1;
        let i = self.r.nbit(width(n + usize::from(misc)))? as usize;
        if misc && i == n {
            return self.read_misc();
        }
        self.root_done = true;
        if i + 1 < n {
            let e = self.g.document_elements()[i];
            let name = self.name_of_elem(e)?;
            let cur = self.element_cur(e);
            self.open_element(name, cur)
        } else if i + 1 == n {
            let name = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
            let cur = self.global_grammar(name);
            self.open_element(name, cur)
        } else {
            Err(self
                .r
                .error(format!("event code {i} past DocContent's {n} productions")))
        }
    }

    /// The third level: a comment or a processing instruction, as preserved.
    fn read_misc(&mut self) -> Result<()> {
        let mut third = Vec::new();
        if self.o.comments {
            third.push(Second::Cm);
        }
        if self.o.pis {
            third.push(Second::Pi);
        }
        let at = self.r.clone();
        let k = self.r.nbit(width(third.len()))? as usize;
        let max = self.limits.max_string_len;
        match third.get(k) {
            Some(Second::Cm) => {
                let text = self.r.string(max)?;
                self.flush_tag();
                self.queue.push_back(Event::Comment(Cow::Owned(text)));
            }
            Some(_) => {
                let target = self.r.string(max)?;
                let data = self.r.string(max)?;
                self.flush_tag();
                self.queue.push_back(Event::ProcessingInstruction {
                    target: Cow::Owned(target),
                    data: Cow::Owned(data),
                });
            }
            None => {
                return Err(at.error(format!("third-level event code {k} past {}", third.len())));
            }
        }
        Ok(())
    }

    fn step_informed(&mut self, cur: Cur, state: GrammarId) -> Result<()> {
        let g = Arc::clone(&self.g);
        let st = g.grammar(state);
        let n1 = st.productions.len();
        let order = self.second_order(cur);
        let more = usize::from(!order.is_empty());
        let at = self.r.clone();
        let i = self.r.nbit(width(n1 + more))? as usize;
        if i < n1 {
            let p = &st.productions[i];
            match &p.terminal {
                Terminal::At { name, type_def } => {
                    let id = self.g.name_id(name).ok_or_else(|| {
                        at.error("a declared attribute is missing from the string table")
                    })?;
                    let v = self.value(id, Some(*type_def))?;
                    self.attribute(id, v);
                    self.set_state(p.next);
                }
                Terminal::AtNs(uri) => {
                    let u = self
                        .t
                        .uris
                        .iter()
                        .position(|x| x.uri == *uri)
                        .ok_or_else(|| {
                            at.error("a wildcard URI is missing from the string table")
                        })?;
                    let id =
                        self.t
                            .read_local(&mut self.r, u as u32, self.limits.max_string_len)?;
                    let v = self.undeclared_attribute_value(id)?;
                    self.attribute(id, v);
                    self.set_state(p.next);
                }
                Terminal::AtAny => {
                    let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                    let v = self.undeclared_attribute_value(id)?;
                    self.attribute(id, v);
                    self.set_state(p.next);
                }
                Terminal::Se(e) => {
                    let name = self.name_of_elem(*e)?;
                    let c = self.element_cur(*e);
                    self.set_state(p.next);
                    self.open_element(name, c)?;
                }
                Terminal::SeRelaxed(n) => {
                    let name = self.g.name_id(n).ok_or_else(|| {
                        at.error("a declared name is missing from the string table")
                    })?;
                    let eg = g
                        .element_fragment()
                        .ok_or_else(|| at.error("no element fragment grammar"))?;
                    self.set_state(p.next);
                    self.open_element(
                        name,
                        Cur::Informed {
                            state: eg.start,
                            empty: eg.empty,
                            nillable: true,
                            castable: true,
                        },
                    )?;
                }
                Terminal::SeNs(uri) => {
                    let u = self
                        .t
                        .uris
                        .iter()
                        .position(|x| x.uri == *uri)
                        .ok_or_else(|| {
                            at.error("a wildcard URI is missing from the string table")
                        })?;
                    let name =
                        self.t
                            .read_local(&mut self.r, u as u32, self.limits.max_string_len)?;
                    self.set_state(p.next);
                    let c = self.global_grammar(name);
                    self.open_element(name, c)?;
                }
                Terminal::SeAny => {
                    let name = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                    self.set_state(p.next);
                    let c = self.global_grammar(name);
                    self.open_element(name, c)?;
                }
                Terminal::Ee => self.close_element(),
                Terminal::Ch(t) => {
                    let name = self.stack.last().expect("inside an element").name;
                    let v = self.value(name, Some(*t))?;
                    self.text(v);
                    self.set_state(p.next);
                }
                Terminal::ChMixed => {
                    let name = self.stack.last().expect("inside an element").name;
                    let v = self.value(name, None)?;
                    self.text(v);
                    self.set_state(p.next);
                }
            }
            return Ok(());
        }
        if i > n1 || order.is_empty() {
            return Err(at.error(format!(
                "event code {i} past the state's {} productions",
                n1 + more
            )));
        }
        let j = self.r.nbit(width(order.len()))? as usize;
        let Some(&second) = order.get(j) else {
            return Err(at.error(format!("second-level event code {j} past {}", order.len())));
        };
        let content = match st.kind {
            Kind::Content => state,
            _ => st.content.unwrap_or(state),
        };
        match second {
            Second::Misc => {
                self.read_misc()?;
                self.set_state(Some(content));
            }
            Second::Cm | Second::Pi => unreachable!("third-level entries"),
            Second::Ee => self.close_element(),
            Second::XsiType => {
                let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                let (uri, local, uri_id) = self.name_parts(id);
                let prefix = self.prefix_for(&uri, Some(uri_id));
                let value = if prefix.is_empty() {
                    local.clone()
                } else {
                    format!("{prefix}:{local}")
                };
                let xsi = self
                    .t
                    .name_id_any(2, "type")
                    .expect("xsi:type is in every table");
                self.attribute(xsi, value);
                if let Some(t) = g.schema().global_type(&uri, &local) {
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
            }
            Second::XsiNil => {
                let b = self.r.boolean()?;
                let xsi = self
                    .t
                    .name_id_any(2, "nil")
                    .expect("xsi:nil is in every table");
                self.attribute(xsi, if b { "true" } else { "false" }.to_string());
                if b && let Cur::Informed { empty, .. } = cur {
                    self.set_state(Some(empty));
                }
            }
            Second::AtAny => {
                let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                let v = self.undeclared_attribute_value(id)?;
                self.attribute(id, v);
            }
            Second::AtUntyped => {
                let declared: Vec<usize> = st
                    .productions
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| matches!(p.terminal, Terminal::At { .. }))
                    .map(|(i, _)| i)
                    .collect();
                let k = self.r.nbit(width(declared.len() + 1))? as usize;
                if k < declared.len() {
                    let p = &st.productions[declared[k]];
                    let Terminal::At { name, .. } = &p.terminal else {
                        unreachable!()
                    };
                    let id = self.g.name_id(name).ok_or_else(|| {
                        at.error("a declared attribute is missing from the string table")
                    })?;
                    let v = self.value(id, None)?;
                    self.attribute(id, v);
                    self.set_state(p.next);
                } else if k == declared.len() {
                    let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                    let v = self.value(id, None)?;
                    self.attribute(id, v);
                } else {
                    return Err(at.error(format!(
                        "third-level event code {k} past {}",
                        declared.len() + 1
                    )));
                }
            }
            Second::SeAny => {
                let name = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                self.set_state(Some(content));
                let c = self.global_grammar(name);
                self.open_element(name, c)?;
            }
            Second::Ch => {
                let name = self.stack.last().expect("inside an element").name;
                let v = self.value(name, None)?;
                self.text(v);
                self.set_state(Some(content));
            }
        }
        Ok(())
    }

    /// An attribute matched by AT(*) or AT(uri:*): typed by its global declaration if there
    /// is one, else a string.
    fn undeclared_attribute_value(&mut self, id: NameId) -> Result<String> {
        let (uri, local, _) = self.name_parts(id);
        let g = Arc::clone(&self.g);
        match g.schema().global_attribute(&uri, &local) {
            Some(a) => self.value(id, Some(g.schema().attribute(a).type_def)),
            None => self.value(id, None),
        }
    }

    fn step_builtin(&mut self, grammar: usize, state: State) -> Result<()> {
        let n = self.builtin[grammar].prods(state).len();
        let at = self.r.clone();
        let code = self.r.nbit(width(n + 1))? as usize;
        if code < n {
            let p = self.builtin[grammar].prods(state)[index_of(code, n)];
            return self.builtin_prod(grammar, state, p, false);
        }
        if code > n {
            return Err(at.error(format!("event code {code} past {} productions", n + 1)));
        }
        let second = self.layout.second(state).to_vec();
        let s = self.r.nbit(width(second.len()))? as usize;
        if self.layout.is_group(&second, s) {
            self.read_misc()?;
            if let Some(f) = self.stack.last_mut() {
                f.cur = Cur::Builtin {
                    grammar,
                    state: State::Content,
                };
            }
            return Ok(());
        }
        let u = *second.get(s).ok_or_else(|| {
            at.error(format!("second-level event code {s} past {}", second.len()))
        })?;
        let p = match u {
            Undeclared::Ee => Prod::Ee,
            Undeclared::At => {
                let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                Prod::At(id)
            }
            Undeclared::Se => {
                let id = self.t.read_qname(&mut self.r, self.limits.max_string_len)?;
                Prod::Se(id)
            }
            Undeclared::Ch => Prod::Ch,
            other => {
                return Err(at.error(format!(
                    "{other:?} is not supported in schema-informed streams yet"
                )));
            }
        };
        self.builtin[grammar].learn(state, p);
        self.builtin_prod(grammar, state, p, true)
    }

    fn builtin_prod(
        &mut self,
        grammar: usize,
        state: State,
        p: Prod,
        _learned: bool,
    ) -> Result<()> {
        match p {
            Prod::Ee => self.close_element(),
            Prod::At(id) => {
                let v = self.value(id, None)?;
                self.attribute(id, v);
            }
            Prod::Se(id) => {
                if let Some(f) = self.stack.last_mut() {
                    f.cur = Cur::Builtin {
                        grammar,
                        state: State::Content,
                    };
                }
                let c = self.global_grammar(id);
                self.open_element(id, c)?;
            }
            Prod::Ch => {
                let name = self.stack.last().expect("inside an element").name;
                let v = self.value(name, None)?;
                self.text(v);
                if let Some(f) = self.stack.last_mut() {
                    f.cur = Cur::Builtin {
                        grammar,
                        state: State::Content,
                    };
                }
            }
            Prod::SeAny => return Err(self.r.error("SE(*) in an element grammar")),
        }
        let _ = state;
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Second {
    Ee,
    XsiType,
    XsiNil,
    AtAny,
    AtUntyped,
    SeAny,
    Ch,
    /// The CM/PI group (its third level: `Cm`, `Pi`).
    Misc,
    Cm,
    Pi,
}

impl SchemaDecoder<'_> {
    /// Reads the block's value channels (section 9.3's order: with at most 100 values, every
    /// channel in order of first value; else the channels of at most 100 values, then each
    /// larger one, each group in order of first value) and fills the placeholders.
    fn fill_block(&mut self) -> Result<()> {
        let slots = std::mem::take(&mut self.slots);
        self.block_full = false;
        if slots.is_empty() {
            return Ok(());
        }
        // The structure channel ends on an octet boundary.
        self.r.skip_to_octet();
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
        let mut values = vec![String::new(); slots.len()];
        for c in order {
            for &i in &channels[c].1 {
                let (name, ty) = slots[i];
                values[i] = self.read_value_now(name, ty)?;
            }
        }
        let fill = |s: &mut Cow<'static, str>| {
            if !s.contains(SLOT) {
                return;
            }
            let mut out = String::new();
            let mut rest: &str = s;
            while let Some(a) = rest.find(SLOT) {
                out.push_str(&rest[..a]);
                let after = &rest[a + SLOT.len_utf8()..];
                let Some(b) = after.find(SLOT) else {
                    out.push_str(&rest[a..]);
                    rest = "";
                    break;
                };
                match after[..b].parse::<usize>().ok().and_then(|i| values.get(i)) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[a..a + SLOT.len_utf8() + b + SLOT.len_utf8()]),
                }
                rest = &after[b + SLOT.len_utf8()..];
            }
            out.push_str(rest);
            *s = Cow::Owned(out);
        };
        for ev in self.queue.iter_mut() {
            match ev {
                Event::Attribute { value, .. } => fill(value),
                Event::Characters { text, .. } => fill(text),
                _ => {}
            }
        }
        // Attributes of a start tag still open.
        for a in &mut self.tag.attrs {
            let mut v: Cow<'static, str> = Cow::Owned(std::mem::take(&mut a.3));
            fill(&mut v);
            a.3 = v.into_owned();
        }
        self.queue
            .retain(|ev| !matches!(ev, Event::Characters { text, .. } if text.is_empty()));
        Ok(())
    }
}

impl<'a> Decoder<'a> for SchemaDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(inner) = &mut self.inflated {
            return inner.with_dependent_mut(|_, d| Ok(d.next_event()?.map(Event::into_owned)));
        }
        loop {
            // In pre-compression a block's events wait for its values: `ready` counts the
            // queued events whose values are in.
            if (!self.reordered || self.ready > 0)
                && let Some(ev) = self.queue.pop_front()
            {
                self.ready = self.ready.saturating_sub(1);
                return Ok(Some(ev));
            }
            if self.ended {
                return Ok(None);
            }
            if !self.started {
                self.started = true;
                self.start()?;
                if self.inflated.is_some() {
                    return self.next_event();
                }
                self.ready = self.queue.len();
                continue;
            }
            self.step()?;
            if self.reordered && (self.block_full || self.ended) {
                self.fill_block()?;
                self.ready = self.queue.len();
            }
        }
    }

    fn offset(&self) -> u64 {
        self.r.offset()
    }

    fn bit_offset(&self) -> Option<u64> {
        Some(self.r.bit_offset())
    }
}
