//! XebuS: the omission automata of the Xebu paper (section 3), built from a RELAX NG schema.
//!
//! The encoding automaton (EOA) deletes the events that the schema makes certain: the start of
//! an element that is the only thing that can come, its end when nothing else can, an attribute
//! that is required with one fixed value (`xsi:type="xsd:int"`). The decoding automaton (DOA)
//! puts them back before the next event it reads (the paper's push list; what the paper's queue
//! list adds after an event, this DOA adds before the next one). Text that the schema types
//! (`xsd:int`, `xsd:boolean`, `xsd:dateTime`, `xsd:double`, ...) is written as typed content
//! when its text is the value's canonical form, so it comes back unchanged.
//!
//! The automata's states are the derivatives of the simplified grammar
//! (`binxml_schema::relaxng::Deriver`, memoized, built lazily, so only the states reachable
//! from the start exist, and kept across the messages of a stream). A state's *forced* event is
//! the one event the schema allows there (the paper's known entry and exit points; where
//! several events are possible, e.g. a choice or the end of a star, nothing is forced: its
//! unknown points, and the open subautomata of stars whose end is always written).
//!
//! The DOA, reading event `x` in state `s`, assumes the forced events of `s`, then of the state
//! after it, and so on, were deleted, as long as `x` is not allowed yet; it stops where `x` is
//! allowed. If no such chain exists, `x` is an unexpected event: the default transition passes
//! it through unchanged (an element the schema does not know is passed through with its whole
//! subtree). The EOA runs the same inference on what it is about to write and deletes events
//! only where the DOA will put them back; where it would not, it writes them. The one case no
//! choice of deletions can express, an unexpected event that the DOA would take for the
//! continuation of a deleted chain, is written after a one-byte marker (`0x06`) that turns the
//! inference off for that event. Both sides share this module's code, so they agree by
//! construction.

use std::borrow::Cow;
use std::sync::Arc;

use binxml_core::{Error, Event, QName, Result, Typed};
use binxml_schema::datatypes::{Builtin, NoNamespaces};
use binxml_schema::relaxng::derive::is_white;
use binxml_schema::relaxng::pattern::{Datatype, NOT_ALLOWED, NameClass, Node, P};
use binxml_schema::relaxng::{Deriver, RelaxNg};

use crate::FORMAT;

/// A RELAX NG schema for XebuS, shared by any number of encoders and decoders (cheap to
/// clone; two are equal when they are the same loaded schema).
#[derive(Clone, Debug)]
pub struct XebuSchema(Arc<RelaxNg>);

impl PartialEq for XebuSchema {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for XebuSchema {}

impl XebuSchema {
    /// A loaded schema (`binxml_schema::relaxng::RelaxNg::load` reads one from its files).
    pub fn new(schema: RelaxNg) -> XebuSchema {
        XebuSchema(Arc::new(schema))
    }

    /// The schema.
    pub fn relaxng(&self) -> &RelaxNg {
        &self.0
    }
}

/// Most patterns the automata of one encoder or decoder may build (memory bound).
const MAX_PATTERNS: usize = 2_000_000;
/// Longest chain of deleted events put back before one event.
const MAX_CHAIN: usize = 100_000;

/// Where the automaton is: the derivative of the grammar by what came so far.
#[derive(Clone, Debug)]
pub(crate) struct St {
    cur: P,
    /// In a start tag (attributes may come).
    attrs: bool,
    /// Depth inside an unexpected element (its subtree passes through).
    skip: usize,
    depth: usize,
    /// In-scope namespace declarations: prefix, namespace, depth.
    ns: Vec<(String, String, usize)>,
    /// Per open element: whether it declares namespaces (its end is then never deleted, as
    /// the scopes of the Xebu layer close there).
    declared: Vec<bool>,
}

impl St {
    fn at(cur: P) -> St {
        St {
            cur,
            attrs: false,
            skip: 0,
            depth: 0,
            ns: Vec::new(),
            declared: Vec::new(),
        }
    }
}

/// What a state forces, before the prefix is derived from the namespaces in scope.
enum Shape {
    Attribute(String, String, String),
    Start(String, String),
    End,
}

/// The automata of one encoder or decoder.
pub(crate) struct Automata {
    d: Deriver,
    start: P,
    pub st: St,
    /// The transitions found so far: what each state forces, what each pattern can match
    /// first (kept across messages).
    forced: std::collections::HashMap<(P, bool), Option<std::rc::Rc<Shape>>>,
    first: std::collections::HashMap<P, std::rc::Rc<binxml_schema::relaxng::First>>,
    /// The last text derivative: the EOA asks it twice (will the DOA infer anything, then the
    /// step itself).
    last_text: Option<(P, String, P)>,
}

fn limit() -> Error {
    Error::limit(FORMAT, 0, "the omission automata outgrew their limit")
}

fn single(nc: &NameClass) -> Option<(&str, &str)> {
    nc.single()
}

/// Whether two events are the same for the automata (names with their prefixes, values).
pub(crate) fn same(a: &Event<'_>, b: &Event<'_>) -> bool {
    match (a, b) {
        (Event::StartElement(x), Event::StartElement(y)) => x == y,
        (Event::EndElement, Event::EndElement) => true,
        (
            Event::Attribute {
                name: n1,
                value: v1,
            },
            Event::Attribute {
                name: n2,
                value: v2,
            },
        ) => n1 == n2 && v1 == v2,
        _ => false,
    }
}

impl Automata {
    pub fn new(schema: &XebuSchema) -> Self {
        let d = schema.0.deriver(MAX_PATTERNS);
        let start = schema.0.grammar().start;
        Automata {
            d,
            start,
            st: St::at(start),
            forced: std::collections::HashMap::new(),
            first: std::collections::HashMap::new(),
            last_text: None,
        }
    }

    fn text_deriv(&mut self, cur: P, text: &str) -> Result<P> {
        if let Some((p, t, r)) = &self.last_text
            && *p == cur
            && t == text
        {
            return Ok(*r);
        }
        let r = self.d.text(cur, text, &NoNamespaces).map_err(|_| limit())?;
        self.last_text = Some((cur, text.to_string(), r));
        Ok(r)
    }

    fn first(&mut self, p: P) -> std::rc::Rc<binxml_schema::relaxng::First> {
        if let Some(f) = self.first.get(&p) {
            return f.clone();
        }
        let f = std::rc::Rc::new(self.d.first(p));
        self.first.insert(p, f.clone());
        f
    }

    /// A new message: back to the start state (the memo tables stay).
    pub fn reset(&mut self) {
        self.st = St::at(self.start);
    }

    fn prefix_for(st: &St, ns: &str, attribute: bool) -> Option<String> {
        if ns == binxml_core::XML_NS {
            return Some("xml".into());
        }
        if ns.is_empty() {
            if attribute {
                return Some(String::new());
            }
            // The default namespace must not be bound elsewhere.
            let default = st.ns.iter().rev().find(|(p, _, _)| p.is_empty());
            return match default {
                Some((_, u, _)) if !u.is_empty() => None,
                _ => Some(String::new()),
            };
        }
        for (i, (p, u, _)) in st.ns.iter().enumerate().rev() {
            if u != ns || (attribute && p.is_empty()) {
                continue;
            }
            let shadowed = st.ns[i + 1..].iter().any(|(q, _, _)| q == p);
            if !shadowed {
                return Some(p.clone());
            }
        }
        None
    }

    /// The forced event of a state: the only one the schema allows there, when the DOA can
    /// put it back whole.
    fn forced(&mut self, st: &St) -> Result<Option<Event<'static>>> {
        if st.skip > 0 {
            return Ok(None);
        }
        let key = (st.cur, st.attrs);
        let shape = match self.forced.get(&key) {
            Some(s) => s.clone(),
            None => {
                let s = self.shape(st.cur, st.attrs)?.map(std::rc::Rc::new);
                self.forced.insert(key, s.clone());
                s
            }
        };
        let Some(shape) = shape else { return Ok(None) };
        Ok(match &*shape {
            Shape::Attribute(ns, local, value) => {
                Self::prefix_for(st, ns, true).map(|prefix| Event::Attribute {
                    name: QName::new(prefix, ns.clone(), local.clone()),
                    value: Cow::Owned(value.clone()),
                })
            }
            Shape::Start(ns, local) => Self::prefix_for(st, ns, false)
                .map(|prefix| Event::StartElement(QName::new(prefix, ns.clone(), local.clone()))),
            Shape::End => {
                (st.depth > 0 && st.declared.last() == Some(&false)).then_some(Event::EndElement)
            }
        })
    }

    fn shape(&mut self, mut cur: P, attrs: bool) -> Result<Option<Shape>> {
        if attrs {
            let f = self.first(cur);
            if !f.attributes.is_empty() {
                let closed = self.d.start_tag_close(cur).map_err(|_| limit())?;
                if closed != NOT_ALLOWED || f.attributes.len() != 1 {
                    return Ok(None);
                }
                let (nc, v) = f.attributes[0];
                let g = &self.d.g;
                let Some((ns, local)) = single(&g.name_classes[nc as usize]) else {
                    return Ok(None);
                };
                let Node::Value(vi) = self.d.arena.node(v) else {
                    return Ok(None);
                };
                let vp = &g.values[vi as usize];
                return Ok(match &g.datatypes[vp.datatype as usize] {
                    Datatype::String | Datatype::Token => Some(Shape::Attribute(
                        ns.to_string(),
                        local.to_string(),
                        vp.lexical.clone(),
                    )),
                    Datatype::Xsd(..) => None,
                });
            }
            cur = self.d.start_tag_close(cur).map_err(|_| limit())?;
            if cur == NOT_ALLOWED {
                return Ok(None);
            }
        }
        let f = self.first(cur);
        if f.text {
            return Ok(None);
        }
        let end = self.d.end_tag(cur).map_err(|_| limit())?;
        if f.elements.is_empty() {
            return Ok((end != NOT_ALLOWED).then_some(Shape::End));
        }
        if f.elements.len() != 1 || end != NOT_ALLOWED {
            return Ok(None);
        }
        let g = &self.d.g;
        Ok(single(&g.name_classes[f.elements[0] as usize])
            .map(|(ns, local)| Shape::Start(ns.to_string(), local.to_string())))
    }

    /// The state's pattern with the start tag closed, when in one (leniently: missing
    /// attributes are let go).
    fn content(&mut self, st: &mut St) -> Result<()> {
        if st.attrs {
            st.cur = self
                .d
                .start_tag_close_lenient(st.cur)
                .map_err(|_| limit())?;
            st.attrs = false;
        }
        Ok(())
    }

    /// Whether white-space-only text is not part of the data here (element-only content).
    fn neutral_text(&mut self, st: &St, text: &str) -> Result<bool> {
        if !is_white(text) {
            return Ok(false);
        }
        let mut cur = st.cur;
        if st.attrs {
            cur = self.d.start_tag_close_lenient(cur).map_err(|_| limit())?;
        }
        Ok(!self.first(cur).text)
    }

    /// Takes one event (written or deleted) into the state.
    pub fn apply(&mut self, ev: &Event<'_>) -> Result<()> {
        let mut st = std::mem::replace(
            &mut self.st,
            St {
                cur: NOT_ALLOWED,
                attrs: false,
                skip: 0,
                depth: 0,
                ns: Vec::new(),
                declared: Vec::new(),
            },
        );
        let r = self.apply_to(&mut st, ev);
        self.st = st;
        r
    }

    fn apply_to(&mut self, st: &mut St, ev: &Event<'_>) -> Result<()> {
        let lim = |_| limit();
        match ev {
            Event::StartDocument { .. } => {
                self.reset();
                *st = self.st.clone();
            }
            Event::Namespace { prefix, uri } => {
                st.ns.push((prefix.to_string(), uri.to_string(), st.depth));
                if let Some(d) = st.declared.last_mut() {
                    *d = true;
                }
            }
            Event::StartElement(q) => {
                st.depth += 1;
                st.declared.push(false);
                if st.skip > 0 {
                    st.skip += 1;
                    return Ok(());
                }
                self.content(st)?;
                let p = self
                    .d
                    .start_tag_open(st.cur, &q.namespace, &q.local)
                    .map_err(lim)?;
                if p == NOT_ALLOWED {
                    st.skip = 1;
                } else {
                    st.cur = p;
                    st.attrs = true;
                }
            }
            Event::Attribute { name, value } if st.skip == 0 && st.attrs => {
                let p = self
                    .d
                    .attribute(st.cur, &name.namespace, &name.local, value, &NoNamespaces)
                    .map_err(lim)?;
                if p != NOT_ALLOWED {
                    st.cur = p;
                }
            }
            Event::EndElement => {
                let depth = st.depth;
                st.depth = st.depth.saturating_sub(1);
                st.declared.pop();
                while st.ns.last().is_some_and(|n| n.2 >= depth) {
                    st.ns.pop();
                }
                if st.skip > 0 {
                    st.skip -= 1;
                    return Ok(());
                }
                self.content(st)?;
                let mut e = self.d.end_tag(st.cur).map_err(lim)?;
                if e == NOT_ALLOWED {
                    e = self.d.after_rest(st.cur).map_err(lim)?;
                }
                st.cur = e;
            }
            Event::Characters { text, .. } => self.text(st, text)?,
            Event::Typed(t) => self.text(st, &t.lexical())?,
            Event::Comment(_)
            | Event::ProcessingInstruction { .. }
            | Event::EntityReference { .. }
                if st.skip == 0 =>
            {
                self.content(st)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, st: &mut St, text: &str) -> Result<()> {
        if st.skip > 0 || self.neutral_text(st, text)? {
            return Ok(());
        }
        self.content(st)?;
        let p = self
            .d
            .text(st.cur, text, &NoNamespaces)
            .map_err(|_| limit())?;
        if p != NOT_ALLOWED {
            st.cur = p;
        }
        Ok(())
    }

    /// Whether the schema allows `x` in state `st` (strictly: no recovery).
    fn allowed(&mut self, st: &St, x: &Event<'_>) -> Result<bool> {
        let lim = |_| limit();
        let mut cur = st.cur;
        let close = |this: &mut Self, cur: P| -> Result<P> {
            if st.attrs {
                this.d.start_tag_close(cur).map_err(|_| limit())
            } else {
                Ok(cur)
            }
        };
        Ok(match x {
            Event::StartElement(q) => {
                cur = close(self, cur)?;
                cur != NOT_ALLOWED
                    && self
                        .d
                        .start_tag_open(cur, &q.namespace, &q.local)
                        .map_err(lim)?
                        != NOT_ALLOWED
            }
            Event::Attribute { name, value } => {
                st.attrs
                    && self
                        .d
                        .attribute(cur, &name.namespace, &name.local, value, &NoNamespaces)
                        .map_err(lim)?
                        != NOT_ALLOWED
            }
            Event::EndElement => {
                cur = close(self, cur)?;
                if cur == NOT_ALLOWED || st.depth == 0 {
                    return Ok(false);
                }
                if self.d.end_tag(cur).map_err(lim)? != NOT_ALLOWED {
                    return Ok(true);
                }
                let t = self.d.text(cur, "", &NoNamespaces).map_err(lim)?;
                t != NOT_ALLOWED && self.d.end_tag(t).map_err(lim)? != NOT_ALLOWED
            }
            Event::Characters { text, .. } => self.text_allowed(st, text)?,
            Event::Typed(t) => self.text_allowed(st, &t.lexical())?,
            Event::EndDocument => st.depth == 0,
            _ => true,
        })
    }

    fn text_allowed(&mut self, st: &St, text: &str) -> Result<bool> {
        let mut cur = st.cur;
        if st.attrs {
            cur = self.d.start_tag_close(cur).map_err(|_| limit())?;
            if cur == NOT_ALLOWED {
                return Ok(false);
            }
        }
        Ok(self.text_deriv(cur, text)? != NOT_ALLOWED)
    }

    /// How many forced events the DOA puts back before `x` in the current state.
    pub fn infer(&mut self, x: &Event<'_>) -> Result<usize> {
        if self.st.skip > 0 {
            return Ok(0);
        }
        match x {
            Event::StartElement(_)
            | Event::EndElement
            | Event::Attribute { .. }
            | Event::EndDocument => {}
            Event::Characters { text, .. } => {
                let st = std::mem::replace(&mut self.st, St::at(NOT_ALLOWED));
                let r = self.neutral_text(&st, text);
                self.st = st;
                if r? {
                    // Indentation follows an end tag: a forced element end is put back
                    // before white space, nothing else is.
                    let end = matches!(self.forced_now()?, Some(Event::EndElement));
                    return Ok(usize::from(end));
                }
            }
            Event::Typed(_) => {}
            _ => return Ok(0),
        }
        let st = std::mem::replace(&mut self.st, St::at(NOT_ALLOWED));
        let r = self.allowed(&st, x);
        self.st = st;
        if r? {
            return Ok(0);
        }
        let mut s = self.st.clone();
        for k in 1..=MAX_CHAIN {
            let Some(f) = self.forced(&s)? else {
                return Ok(0);
            };
            if same(&f, x) {
                return Ok(0);
            }
            self.apply_to(&mut s, &f)?;
            if s.skip > 0 {
                return Ok(0);
            }
            if self.allowed(&s, x)? {
                return Ok(k);
            }
        }
        Ok(0)
    }

    /// The forced event of the current state.
    pub fn forced_now(&mut self) -> Result<Option<Event<'static>>> {
        let st = std::mem::replace(&mut self.st, St::at(NOT_ALLOWED));
        let r = self.forced(&st);
        self.st = st;
        r
    }

    /// `text` as the typed value the schema gives it here, when that value's canonical form is
    /// exactly `text` (so it comes back unchanged).
    pub fn typed_for(&mut self, text: &str) -> Result<Option<Typed<'static>>> {
        if self.st.skip > 0 {
            return Ok(None);
        }
        let mut cur = self.st.cur;
        if self.st.attrs {
            cur = self.d.start_tag_close_lenient(cur).map_err(|_| limit())?;
        }
        let f = self.first(cur);
        if f.other_text || f.data.is_empty() {
            return Ok(None);
        }
        let g = &self.d.g;
        let kinds: Vec<Builtin> = f
            .data
            .iter()
            .filter_map(|&dt| g.datatypes[dt as usize].builtin())
            .collect();
        if kinds.len() != f.data.len() {
            return Ok(None);
        }
        let b = kinds[0];
        let same_kind = |k: &Builtin| {
            (k.is_integer() && b.is_integer()) || k.primitive() == b.primitive() && !b.is_integer()
        };
        if !kinds.iter().all(same_kind) {
            return Ok(None);
        }
        let t = if b.is_integer() {
            text.parse::<i64>().ok().map(Typed::Int)
        } else {
            match b.primitive() {
                Builtin::Boolean => match text {
                    "true" => Some(Typed::Bool(true)),
                    "false" => Some(Typed::Bool(false)),
                    _ => None,
                },
                Builtin::Double => text.parse::<f64>().ok().map(Typed::Double),
                Builtin::Float => text.parse::<f32>().ok().map(Typed::Float),
                Builtin::DateTime | Builtin::Date | Builtin::Time => {
                    Some(Typed::DateTime(Cow::Owned(text.to_string())))
                }
                _ => None,
            }
        };
        Ok(t.filter(|t| t.lexical() == text))
    }
}

/// The EOA's side of an encoder: the automata, the deleted events not yet confirmed, and the
/// state before them.
pub(crate) struct EncOmit {
    a: Automata,
    pending: Vec<Event<'static>>,
    before: Option<St>,
    checker: binxml_core::StreamChecker,
}

impl EncOmit {
    pub fn new(schema: &XebuSchema) -> Self {
        EncOmit {
            a: Automata::new(schema),
            pending: Vec::new(),
            before: None,
            checker: binxml_core::StreamChecker::new(true),
        }
    }
}

/// Encodes one event through the EOA.
pub(crate) fn encode_event<W: std::io::Write>(
    enc: &mut crate::XebuEncoder<W>,
    om: &mut EncOmit,
    ev: &Event<'_>,
) -> Result<()> {
    if matches!(ev, Event::StartDocument { .. }) {
        om.checker = binxml_core::StreamChecker::new(true);
    }
    om.checker.check(FORMAT, ev)?;
    if matches!(ev, Event::StartDocument { .. }) {
        om.pending.clear();
        om.before = None;
        om.a.reset();
        enc.write_plain(ev, false)?;
        return om.a.apply(ev);
    }
    let converted;
    let ev: &Event<'_> = match ev {
        Event::Characters { text, cdata: false } => match om.a.typed_for(text)? {
            Some(t) => {
                converted = Event::Typed(t);
                &converted
            }
            None => ev,
        },
        _ => ev,
    };
    if let Some(f) = om.a.forced_now()?
        && same(&f, ev)
    {
        if om.pending.is_empty() {
            om.before = Some(om.a.st.clone());
        }
        om.pending.push(f);
        return om.a.apply(ev);
    }
    if !om.pending.is_empty() {
        let before = om.before.take().unwrap_or_else(|| om.a.st.clone());
        let now = std::mem::replace(&mut om.a.st, before);
        let k = om.a.infer(ev)?;
        if k == om.pending.len() {
            // The DOA puts the deleted events back before this one.
            om.a.st = now;
            om.pending.clear();
            enc.write_plain(ev, false)?;
            return om.a.apply(ev);
        }
        // It would not: the deleted events are written after all.
        for f in std::mem::take(&mut om.pending) {
            if om.a.infer(&f)? != 0 {
                enc.write_marker();
            }
            enc.write_plain(&f, false)?;
            om.a.apply(&f)?;
        }
    }
    if om.a.infer(ev)? != 0 {
        enc.write_marker();
    }
    enc.write_plain(ev, false)?;
    om.a.apply(ev)
}

/// The DOA's side of a decoder: the automata and the events put back, to be returned.
pub(crate) struct DecOmit<'a> {
    a: Automata,
    ready: std::collections::VecDeque<(Event<'a>, u64)>,
    checker: binxml_core::StreamChecker,
}

impl DecOmit<'_> {
    pub fn new(schema: &XebuSchema) -> Self {
        DecOmit {
            a: Automata::new(schema),
            ready: std::collections::VecDeque::new(),
            checker: binxml_core::StreamChecker::new(true),
        }
    }
}

/// Decodes the next event through the DOA.
pub(crate) fn decode_event<'a>(
    dec: &mut crate::XebuDecoder<'a>,
    om: &mut DecOmit<'a>,
) -> Result<Option<Event<'a>>> {
    if om.ready.is_empty() {
        let Some(x) = dec.next_plain()? else {
            return Ok(None);
        };
        let at = dec.last_offset();
        if matches!(x, Event::StartDocument { .. }) {
            om.a.reset();
            om.checker = binxml_core::StreamChecker::new(true);
        }
        if dec.message_omits() {
            let marked = dec.take_marked();
            let k = if marked { 0 } else { om.a.infer(&x)? };
            for _ in 0..k {
                let Some(f) = om.a.forced_now()? else {
                    return Err(Error::malformed(
                        FORMAT,
                        at,
                        "the omission automata lost their way",
                    ));
                };
                om.a.apply(&f)?;
                om.ready.push_back((f, at));
            }
        }
        om.a.apply(&x)?;
        om.ready.push_back((x, at));
    }
    let Some((ev, at)) = om.ready.pop_front() else {
        return Ok(None);
    };
    om.checker
        .check(FORMAT, &ev)
        .map_err(|e| Error::malformed(FORMAT, at, e.message().to_string()))?;
    if om.checker.depth() > dec.limits().max_depth {
        return Err(Error::limit(
            FORMAT,
            at,
            "element nesting exceeds the depth limit",
        ));
    }
    Ok(Some(ev))
}
