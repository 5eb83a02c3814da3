//! Unaligned PER to events, guided by the mapped module. The input is hostile: every count is
//! checked against the bits left, element nesting against the depth limit, and the events
//! produced against a budget proportional to the input (a type whose values take no bits
//! cannot make a short input expand without bound).

use std::borrow::Cow;
use std::mem::ManuallyDrop;

use binxml_core::{
    CountingSink, Error, Event, EventSink, Format, Limits, QName, Result, XmlFragments,
};
use binxml_schema::model::NamespaceConstraint;

use super::bits::BitReader;
use super::map::{Comp, Kind, Module, Role, TyId, XML_NS, is_content};
use super::plan::{
    self, ANY_ATTR, DERIVATIONS, Jumps, NIL, OPTIONAL, ORDER, Op, OpKind, Plan, SEQUENCE,
};
use super::simple;

struct Dec<'a, 'm, 's, S> {
    r: BitReader<'a>,
    p: &'m Plan,
    o: Emit<'m, 's, S>,
    /// The text of the simple value being handed over (reused from value to value).
    buf: String,
    /// The octets of a string that does not start on an octet boundary (reused).
    bytes: Vec<u8>,
}

/// The character data of an open element of mixed content.
struct Mixed {
    /// The element's depth.
    depth: usize,
    /// Where its strings start in the arena.
    arena_from: usize,
    /// Where its strings start in the list of strings.
    segs_from: usize,
    /// Its next string not written yet.
    next: usize,
}

/// What a decoding works with: the module, the limits, and what reads element wildcards'
/// content (XML text), when given.
pub struct Ctx<'m> {
    /// The mapped module.
    pub m: &'m Module,
    /// The decoder's limits.
    pub limits: &'m Limits,
    /// Parses an element wildcard's XML text.
    pub fragments: Option<&'m dyn XmlFragments>,
}

/// The events of a decoded document, shared by the PER and BER decoders: element nesting is
/// bounded by the depth limit, and the events by a budget proportional to the input (a type
/// whose values take no input cannot make a short input expand without bound). `at` is the
/// bit offset an error reports.
pub(super) struct Emit<'m, 's, S> {
    pub(super) m: &'m Module,
    out: &'s mut S,
    format: Format,
    events: usize,
    pub(super) depth: usize,
    max_depth: usize,
    budget: usize,
    /// `budget`, or 0 while a start tag is held: the one bound [`Emit::push`] checks.
    limit: usize,
    /// The character data of the open elements of mixed content: each one's depth and its
    /// strings not yet written, last first (one goes before each child element, the rest
    /// before the end tag).
    embedded: Vec<Mixed>,
    /// The strings of `embedded`, one after the other (a mixed element's are dropped at its end).
    arena: String,
    /// Where each string of `arena` lies.
    segs: Vec<(usize, usize)>,
    limits: &'m Limits,
    fragments: Option<&'m dyn XmlFragments>,
    /// The start tag of an element whose type has an attribute wildcard, held (owned) until
    /// the wildcard's attributes are read: their namespaces may need declarations, which come
    /// before the attributes.
    held: Option<Vec<Event<'static>>>,
    /// The value of an `xsi:type` attribute (reused).
    value: String,
}

impl<'m, 's, 'e, S: EventSink<'e>> Emit<'m, 's, S> {
    pub(super) fn new(ctx: &Ctx<'m>, out: &'s mut S, format: Format, input: usize) -> Self {
        Emit {
            m: ctx.m,
            out,
            format,
            events: 0,
            depth: 0,
            max_depth: ctx.limits.max_depth,
            budget: input.saturating_mul(128).saturating_add(4096),
            limit: input.saturating_mul(128).saturating_add(4096),
            embedded: Vec::new(),
            arena: String::new(),
            segs: Vec::new(),
            limits: ctx.limits,
            fragments: ctx.fragments,
            held: None,
            value: String::new(),
        }
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::malformed(self.format, (at / 8) as u64, msg).at_bit(at as u64)
    }

    /// An emitter into `out` at this one's depth and within its budget, for a value read
    /// only to be passed over (an `all` group's components, before they are read in document
    /// order); [`Emit::absorb`] counts its events into this one's.
    pub(super) fn sub<'t, T>(&self, out: &'t mut T) -> Emit<'m, 't, T> {
        Emit {
            m: self.m,
            out,
            format: self.format,
            events: self.events,
            depth: self.depth,
            max_depth: self.max_depth,
            budget: self.budget,
            limit: self.budget,
            embedded: Vec::new(),
            arena: String::new(),
            segs: Vec::new(),
            limits: self.limits,
            fragments: self.fragments,
            held: None,
            value: String::new(),
        }
    }

    /// Takes over the event count of an emitter made by [`Emit::sub`].
    pub(super) fn absorb<T>(&mut self, sub: &Emit<'_, '_, T>) {
        self.events = sub.events;
    }

    /// Hands an event over. Its strings live only for the call (the names are the module's,
    /// the values the decoder's scratch buffers or the input): a sink that keeps them copies
    /// them ([`EventSink::transient`]), one that only reads them (a counter, an encoder) does not.
    #[inline(always)]
    pub(super) fn push(&mut self, ev: &Event<'_>, at: usize) -> Result<()> {
        if self.events >= self.limit {
            return self.push_rare(ev, at);
        }
        self.events += 1;
        self.out.transient(ev)
    }

    /// [`Emit::push`] over budget or into a held start tag.
    #[cold]
    #[inline(never)]
    fn push_rare(&mut self, ev: &Event<'_>, at: usize) -> Result<()> {
        if self.events >= self.budget {
            return Err(self.err(at, "more events than this input can hold"));
        }
        self.events += 1;
        match &mut self.held {
            Some(h) => {
                h.push(ev.clone().into_owned());
                Ok(())
            }
            None => self.out.transient(ev),
        }
    }

    /// Hands over the start tag held for an attribute wildcard (see [`Emit::start`]).
    #[inline(always)]
    pub(super) fn release(&mut self) -> Result<()> {
        if self.held.is_some() {
            return self.release_held();
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn release_held(&mut self) -> Result<()> {
        self.limit = self.budget;
        if let Some(h) = self.held.take() {
            for ev in &h {
                self.out.transient(ev)?;
            }
        }
        Ok(())
    }

    /// An element's start: the root declares every namespace of the module; `xsi_type`, the
    /// alternative of a `T-derivations` CHOICE when it is not the declared type. With `hold`
    /// (its type has an attribute wildcard), the start tag is held until [`Emit::release`].
    #[inline(always)]
    pub(super) fn start(
        &mut self,
        q: &QName<'_>,
        root: bool,
        xsi_type: Option<&QName<'static>>,
        hold: bool,
        at: usize,
    ) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.too_deep(at));
        }
        // The parent's start tag, held for an attribute wildcard that turned out absent.
        self.release()?;
        if !self.embedded.is_empty() {
            self.text_before_child(at)?;
        }
        self.depth += 1;
        if hold {
            self.held = Some(Vec::new());
            self.limit = 0;
        }
        // Its strings are borrowed: nothing to free afterwards (no drop to run per event).
        self.push(&ManuallyDrop::new(Event::StartElement(q.borrowed())), at)?;
        if root || xsi_type.is_some() {
            self.start_rest(root, xsi_type, at)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, at: usize) -> Error {
        self.err(
            at,
            format!("elements nested deeper than {}", self.max_depth),
        )
    }

    /// In mixed content, the parent's next string of character data, which comes before the
    /// child element that starts.
    #[inline(never)]
    fn text_before_child(&mut self, at: usize) -> Result<()> {
        let seg = match self.embedded.last_mut() {
            Some(mx) if mx.depth == self.depth && mx.next < self.segs.len() => {
                mx.next += 1;
                Some(mx.next - 1)
            }
            _ => None,
        };
        if let Some(i) = seg {
            self.embedded_text(i, at)?;
        }
        Ok(())
    }

    /// The root's namespace declarations and an `xsi:type` attribute, after the start tag.
    #[inline(never)]
    fn start_rest(
        &mut self,
        root: bool,
        xsi_type: Option<&QName<'static>>,
        at: usize,
    ) -> Result<()> {
        let m = self.m;
        if root {
            for (i, n) in m.namespaces.iter().enumerate() {
                if n == XML_NS {
                    continue;
                }
                self.push(
                    &Event::Namespace {
                        prefix: Cow::Borrowed(&m.prefixes[i]),
                        uri: Cow::Borrowed(n),
                    },
                    at,
                )?;
            }
        }
        if let Some(q) = xsi_type {
            // The type's name as written: `prefix:local` (the module's prefix), in a string
            // reused from element to element.
            let mut value = std::mem::take(&mut self.value);
            value.clear();
            if !q.prefix.is_empty() {
                value.push_str(&q.prefix);
                value.push(':');
            }
            value.push_str(&q.local);
            let r = self.push(
                &ManuallyDrop::new(Event::Attribute {
                    name: m.names.xsi_type.borrowed(),
                    value: Cow::Borrowed(&value),
                }),
                at,
            );
            self.value = value;
            r?;
        }
        Ok(())
    }

    pub(super) fn end(&mut self, at: usize) -> Result<()> {
        self.release()?;
        if !self.embedded.is_empty() {
            self.text_before_end(at)?;
        }
        self.push(&Event::EndElement, at)?;
        self.depth -= 1;
        Ok(())
    }

    /// In mixed content, the strings of character data after the last child element.
    #[inline(never)]
    fn text_before_end(&mut self, at: usize) -> Result<()> {
        if self
            .embedded
            .last()
            .is_some_and(|mx| mx.depth == self.depth)
        {
            let mx = self.embedded.pop().expect("checked");
            for i in mx.next..self.segs.len() {
                self.embedded_text(i, at)?;
            }
            self.arena.truncate(mx.arena_from);
            self.segs.truncate(mx.segs_from);
        }
        Ok(())
    }

    pub(super) fn attribute(&mut self, q: &QName<'_>, value: &str, at: usize) -> Result<()> {
        self.push(
            &ManuallyDrop::new(Event::Attribute {
                name: q.borrowed(),
                value: Cow::Borrowed(value),
            }),
            at,
        )
    }

    /// The character data of the current element's mixed content (`embed-values`) starts:
    /// [`Emit::embed_push`] adds its strings, written around its child elements as they come.
    pub(super) fn embed_begin(&mut self) {
        self.embedded.push(Mixed {
            depth: self.depth,
            arena_from: self.arena.len(),
            segs_from: self.segs.len(),
            next: self.segs.len(),
        });
    }

    /// The next string of the character data begun by [`Emit::embed_begin`].
    pub(super) fn embed_push(&mut self, s: &str) {
        let from = self.arena.len();
        self.arena.push_str(s);
        self.segs.push((from, self.arena.len()));
    }

    /// Writes string `i` of the arena as character content.
    fn embedded_text(&mut self, i: usize, at: usize) -> Result<()> {
        let (a, b) = self.segs[i];
        let arena = std::mem::take(&mut self.arena);
        let r = self.text(&arena[a..b], at);
        self.arena = arena;
        r
    }

    /// `xsi:nil="true"`: a nillable element's content is absent.
    pub(super) fn nil(&mut self, at: usize) -> Result<()> {
        let m = self.m;
        self.push(
            &ManuallyDrop::new(Event::Attribute {
                name: m.names.xsi_nil.borrowed(),
                value: Cow::Borrowed("true"),
            }),
            at,
        )
    }

    /// An element an element wildcard matched, from its XML text: its events, checked against
    /// the wildcard's namespaces, the depth limit and the event budget.
    pub(super) fn wildcard(
        &mut self,
        text: &str,
        allowed: &NamespaceConstraint,
        at: usize,
    ) -> Result<()> {
        let Some(f) = self.fragments else {
            return Err(self.err(
                at,
                "an element wildcard's content (XML text) needs an XML reader, which this decoder was not given (not covered without one)",
            ));
        };
        self.release()?;
        // In mixed content, the parent's next string of character data comes before the child.
        let seg = match self.embedded.last_mut() {
            Some(mx) if mx.depth == self.depth && mx.next < self.segs.len() => {
                mx.next += 1;
                Some(mx.next - 1)
            }
            _ => None,
        };
        if let Some(i) = seg {
            self.embedded_text(i, at)?;
        }
        let base = self.depth;
        let mut limits = self.limits.clone();
        limits.max_depth = self.max_depth.saturating_sub(base);
        let r = f.read_element(text, &limits, &mut |ev| {
            match ev {
                Event::StartElement(q) => {
                    if self.depth == base && !allowed.allows(&q.namespace) {
                        return Err(self.err(
                            at,
                            format!(
                                "element {{{}}}{} is not in a namespace the wildcard allows",
                                q.namespace, q.local
                            ),
                        ));
                    }
                    if self.depth >= self.max_depth {
                        return Err(self.err(
                            at,
                            format!("elements nested deeper than {}", self.max_depth),
                        ));
                    }
                    self.depth += 1;
                }
                Event::EndElement => self.depth -= 1,
                _ => {}
            }
            self.push(ev, at)
        });
        self.depth = base;
        r.map_err(|e| {
            if e.bit_offset().is_some() {
                e
            } else {
                self.err(at, format!("an element wildcard's XML text: {e}"))
            }
        })
    }

    /// An attribute an attribute wildcard matched, from its string (`wild.rs`): added to the
    /// held start tag, with a declaration of its namespace when the module has none for it.
    pub(super) fn any_attribute(
        &mut self,
        s: &str,
        allowed: &NamespaceConstraint,
        at: usize,
    ) -> Result<()> {
        let (ns, local, value) = super::wild::parse_attribute(s).map_err(|e| self.err(at, e))?;
        if !allowed.allows(ns) || !super::wild::attribute_namespace_ok(ns) {
            return Err(self.err(
                at,
                format!("attribute {{{ns}}}{local} is not in a namespace the wildcard allows"),
            ));
        }
        let Some(held) = self.held.as_mut() else {
            return Err(self.err(at, "internal: attribute wildcard without a held start tag"));
        };
        let ends = held
            .iter()
            .skip(1)
            .take_while(|e| matches!(e, Event::Namespace { .. }))
            .count()
            + 1;
        let prefix = if ns.is_empty() {
            String::new()
        } else if super::wild::is_xml(ns) {
            "xml".to_owned()
        } else if let Ok(i) = self.m.namespaces.binary_search_by(|x| x.as_str().cmp(ns)) {
            self.m.prefixes[i].clone()
        } else if let Some(Event::Namespace { prefix, .. }) = held[1..ends]
            .iter()
            .find(|e| matches!(e, Event::Namespace { uri, .. } if uri == ns))
        {
            prefix.to_string()
        } else {
            // A prefix of its own: `w1`, `w2`, ... (the module's are `ns1`, `ns2`, ...).
            let own = held[1..ends]
                .iter()
                .filter(|e| matches!(e, Event::Namespace { prefix, .. } if prefix.starts_with('w')))
                .count();
            let p = format!("w{}", own + 1);
            held.insert(
                ends,
                Event::Namespace {
                    prefix: Cow::Owned(p.clone()),
                    uri: Cow::Owned(ns.to_owned()),
                },
            );
            p
        };
        if held.iter().any(|e| matches!(e, Event::Attribute { name, .. } if name.namespace == ns && name.local == local)) {
            return Err(self.err(at, format!("attribute {{{ns}}}{local} given twice")));
        }
        let ev = Event::Attribute {
            name: QName::new(prefix, ns.to_owned(), local.to_owned()),
            value: Cow::Owned(value.into_owned()),
        };
        self.push(&ev, at)
    }

    /// Character content (none when empty).
    pub(super) fn text(&mut self, s: &str, at: usize) -> Result<()> {
        if s.is_empty() {
            return Ok(());
        }
        self.release()?;
        self.push(
            &ManuallyDrop::new(Event::Characters {
                text: Cow::Borrowed(s),
                cdata: false,
            }),
            at,
        )
    }
}

/// Collects events into a list.
pub(super) struct Collect(pub(super) Vec<Event<'static>>);

impl EventSink<'static> for Collect {
    fn event(&mut self, event: Event<'static>) -> Result<()> {
        self.0.push(event);
        Ok(())
    }
}

/// Decodes a whole PER encoding into `sink`, event by event (an error can come after some
/// events were handed over).
pub fn decode_into<'e, S: EventSink<'e>>(
    ctx: &Ctx<'_>,
    p: &Plan,
    root: usize,
    data: &[u8],
    format: Format,
    sink: &mut S,
) -> Result<()> {
    let m = ctx.m;
    let mut d = Dec {
        r: BitReader::new(data, format, format == Format::Asn1XsdAper),
        p,
        o: Emit::new(ctx, sink, format, data.len()),
        // Sized for most values, so that they seldom grow.
        buf: String::with_capacity(64),
        bytes: vec![0; 256],
    };
    d.push(&Event::StartDocument {
        version: None,
        encoding: None,
        standalone: None,
    })?;
    let ty = m.roots[root].1;
    let name = match m.names.roots.get(root) {
        Some(q) => Cow::Borrowed(q),
        None => Cow::Owned(m.qname(&m.roots[root].0)),
    };
    d.element(ty, &name, true)?;
    d.push(&Event::EndDocument)?;
    // X.691 11.1.3: the padding of the last octet is zero bits, and nothing follows.
    if d.r.left() >= 8 && !(d.r.pos() == 0 && data.len() == 1) {
        return Err(d.r.err(format!("{} bits after the value", d.r.left())));
    }
    Ok(())
}

impl<'e, S: EventSink<'e>> Dec<'_, '_, '_, S> {
    fn push(&mut self, ev: &Event<'_>) -> Result<()> {
        self.o.push(ev, self.r.pos())
    }

    fn element(&mut self, ty: TyId, q: &QName<'_>, root: bool) -> Result<()> {
        let p = self.p;
        let mut id = p.resolved[ty];
        let mut flags = p.elem[id];
        let mut xsi_type = None;
        if flags & DERIVATIONS != 0 {
            let Kind::Derivations { declared, alts } = &self.o.m.types[id].kind else {
                return Err(self.r.err("internal: derivations without alternatives"));
            };
            if alts.is_empty() {
                return Err(self
                    .r
                    .err("an element of an abstract type with no concrete derivation"));
            }
            let i = self.r.index(alts.len())?;
            if Some(i) != *declared
                && let Role::Type(_) = &alts[i].role
            {
                xsi_type = Some(&alts[i].qname);
            }
            id = p.resolved[alts[i].ty];
            flags = p.elem[id];
        }
        // An attribute wildcard's attributes may need namespace declarations, which come before
        // the attributes: the start tag is held when its presence bit (the reader is at the
        // SEQUENCE's presence bits) says they are there.
        let hold = flags & ANY_ATTR != 0
            && p.any_attr_bit[id].is_none_or(|b| self.r.peek_bit(b).unwrap_or(true));
        self.o.start(q, root, xsi_type, hold, self.r.pos())?;
        let check = self.o.depth.is_multiple_of(16);
        let mut content = || {
            if flags & SEQUENCE != 0 {
                self.sequence(id)
            } else {
                self.text(id)
            }
        };
        // The stack is checked every 16 levels of elements, with a red zone that holds 16
        // levels' frames many times over (the check costs a call per element otherwise).
        if check {
            stacker::maybe_grow(256 * 1024, 2 * 1024 * 1024, content)?;
        } else {
            content()?;
        }
        self.o.end(self.r.pos())
    }

    fn text(&mut self, id: TyId) -> Result<()> {
        let s = read_simple(
            self.o.m,
            self.p,
            id,
            &mut self.r,
            &mut self.buf,
            &mut self.bytes,
        )?;
        self.o.text(s, self.r.pos())
    }

    /// The components of SEQUENCE type `id`: the presence bits first, read against the
    /// plan's flags (a component is looked at only when it is there).
    #[inline(always)]
    fn sequence(&mut self, id: TyId) -> Result<()> {
        let p = self.p;
        let j = &p.jumps[id];
        if j.on {
            return self.jump_sequence(j, &p.ops[id], id);
        }
        self.sequence_rare(id)
    }

    /// [`Dec::sequence`] of an `all` group or of more than 64 OPTIONAL components.
    #[inline(never)]
    fn sequence_rare(&mut self, id: TyId) -> Result<()> {
        let p = self.p;
        let Kind::Sequence(comps) = &self.o.m.types[id].kind else {
            return Err(self.r.err("internal: not a SEQUENCE"));
        };
        let (optional, flags) = &p.seqs[id];
        let optional = *optional;
        if flags.first().is_some_and(|f| f & ORDER != 0) {
            return self.all_group(optional, flags, comps);
        }
        self.long_sequence(optional, flags, comps)
    }

    /// A SEQUENCE of at most 64 OPTIONAL components and no `order` component: from present
    /// (or nil) component to the next, with the mandatory ones between read in passing, so
    /// that the absent components of a long SEQUENCE are never looked at.
    fn jump_sequence(&mut self, j: &Jumps, ops: &[Op], id: TyId) -> Result<()> {
        // The presence bits, first one highest.
        let mask = match j.bits {
            0 => 0,
            n @ 1..=56 => self.r.get(n)? << (64 - n),
            n => (self.r.get_wide(n)? as u64) << (64 - n),
        };
        let mut todo = mask | j.nil;
        let mut fixed = j.mandatory.iter();
        let mut next_fixed = fixed.next();
        while todo != 0 {
            let bit = todo.leading_zeros();
            let k = j.optional[bit as usize];
            while let Some(&f) = next_fixed.filter(|&&f| f < k) {
                self.op(&ops[f as usize], id, f as usize)?;
                next_fixed = fixed.next();
            }
            let one = 1u64 << (63 - bit);
            if mask & one != 0 {
                self.op(&ops[k as usize], id, k as usize)?;
            } else {
                self.o.nil(self.r.pos())?;
            }
            todo &= !one;
        }
        while let Some(&f) = next_fixed {
            self.op(&ops[f as usize], id, f as usize)?;
            next_fixed = fixed.next();
        }
        Ok(())
    }

    /// Reads component (or alternative, or item) `k` of type `id` by its step `op`: the
    /// common roles and kinds straight from the step, the others from the component.
    #[inline(always)]
    fn op(&mut self, op: &Op, id: TyId, k: usize) -> Result<()> {
        match op.kind {
            OpKind::AttrUtf8 => {
                let s = read_utf8(&mut self.r, &mut self.bytes)?;
                self.o.attribute(&op.name, s, self.r.pos())
            }
            OpKind::AttrCount => {
                let s = self.count(op)?;
                let s: &str = match s {
                    Some(d) => d,
                    None => &self.buf,
                };
                self.o.attribute(&op.name, s, self.r.pos())
            }
            OpKind::TextUtf8 => {
                let s = read_utf8(&mut self.r, &mut self.bytes)?;
                self.o.text(s, self.r.pos())
            }
            OpKind::Elem => self.element(op.ty, &op.name, false),
            OpKind::Seq => self.sequence(op.ty),
            OpKind::Choice => self.choice(op.ty),
            OpKind::List => self.list(op.ty, op.min, op.max),
            _ => self.op_rare(op, id, k),
        }
    }

    /// [`Dec::op`] of the steps that are rarer: out of line.
    #[inline(never)]
    fn op_rare(&mut self, op: &Op, id: TyId, k: usize) -> Result<()> {
        match op.kind {
            OpKind::AttrSimple => {
                let s = read_simple(
                    self.o.m,
                    self.p,
                    op.ty,
                    &mut self.r,
                    &mut self.buf,
                    &mut self.bytes,
                )?;
                self.o.attribute(&op.name, s, self.r.pos())
            }
            OpKind::TextCount => {
                let s = self.count(op)?;
                let s: &str = match s {
                    Some(d) => d,
                    None => &self.buf,
                };
                self.o.text(s, self.r.pos())
            }
            OpKind::TextSimple => self.text(op.ty),
            _ => {
                let c = match &self.o.m.types[id].kind {
                    Kind::Sequence(comps) | Kind::Choice(comps) => &comps[k],
                    Kind::SeqOf { item, .. } => &**item,
                    _ => return Err(self.r.err("internal: a step of a simple type")),
                };
                self.value(c)
            }
        }
    }

    /// A semi-constrained INTEGER of [`OpKind::AttrCount`] or [`OpKind::TextCount`]: its text,
    /// a string of the program's for one digit, else in `buf`. A value of at most 7 octets
    /// (all of them, in practice) is read in one word; any other goes the generic way, from
    /// where it starts (with the same errors).
    #[inline(always)]
    fn count(&mut self, op: &Op) -> Result<Option<&'static str>> {
        let save = self.r.clone();
        if let Ok((n @ 1..=7, false)) = self.r.short_length()
            && n * 8 <= self.r.left()
        {
            let x = self.r.get(8 * n as u32)?;
            // `x` is below 2^56 and `lo` within 2^62: no overflow.
            let v = op.lo + x as i64;
            if let Some(d) = DIGITS.get(v as usize) {
                return Ok(Some(d));
            }
            self.buf.clear();
            push_integer(&mut self.buf, v as i128);
            return Ok(None);
        }
        self.r = save;
        self.count_slow(op)
    }

    #[inline(never)]
    fn count_slow(&mut self, op: &Op) -> Result<Option<&'static str>> {
        read_simple(
            self.o.m,
            self.p,
            op.ty,
            &mut self.r,
            &mut self.buf,
            &mut self.bytes,
        )?;
        Ok(None)
    }

    /// A SEQUENCE that holds an `all` group: its components are in the module's order, its
    /// `order` component (the first) says in which order the document has the elements. The
    /// content components are passed over once to find where each starts, then read in
    /// document order; both passes count against the event budget.
    fn all_group(&mut self, optional: usize, flags: &[u8], comps: &[Comp]) -> Result<()> {
        if optional > self.r.left() {
            return Err(self.r.err(format!(
                "{optional} presence bits needed, {} left",
                self.r.left()
            )));
        }
        let mut present = Vec::with_capacity(optional);
        for _ in 0..optional {
            present.push(self.r.get(1)? == 1);
        }
        let content: Vec<&Comp> = comps.iter().filter(|c| is_content(&c.role)).collect();
        let k = content.len();
        let mut order = Vec::new();
        self.r.counted(0, None, |r, n| {
            if order.len() + n > k {
                return Err(r.err(format!("an order of more than {k} elements")));
            }
            for _ in 0..n {
                order.push(r.index(k)?);
            }
            Ok(())
        })?;
        let mut starts = vec![None; k];
        let (mut bit, mut next) = (0, 0);
        for (c, &f) in comps.iter().zip(flags.iter()).skip(1) {
            let there = if f & OPTIONAL != 0 {
                bit += 1;
                present[bit - 1]
            } else {
                true
            };
            if is_content(&c.role) {
                if there {
                    starts[next] = Some(self.r.pos());
                    self.pass_over(c)?;
                }
                next += 1;
            } else if there {
                self.value(c)?;
            } else if f & NIL != 0 {
                self.o.nil(self.r.pos())?;
            }
        }
        let end = self.r.pos();
        if order.len() != starts.iter().filter(|s| s.is_some()).count() {
            return Err(self.r.err(format!(
                "the order names {} elements, {} are present",
                order.len(),
                starts.iter().filter(|s| s.is_some()).count()
            )));
        }
        for &j in &order {
            let Some(at) = starts[j].take() else {
                return Err(self.r.err(format!(
                    "the order names {} twice or absent",
                    content[j].ident
                )));
            };
            self.r.seek(at);
            self.value(content[j])?;
        }
        self.r.seek(end);
        Ok(())
    }

    /// Reads a component's value without handing its events over.
    fn pass_over(&mut self, c: &Comp) -> Result<()> {
        let mut sink = CountingSink::default();
        let mut sub = Dec {
            r: self.r.clone(),
            p: self.p,
            o: self.o.sub(&mut sink),
            buf: String::new(),
            bytes: Vec::new(),
        };
        sub.value(c)?;
        self.r = sub.r.clone();
        self.o.absorb(&sub.o);
        Ok(())
    }

    /// A SEQUENCE of more than 64 OPTIONAL components (the presence bits in a list).
    fn long_sequence(&mut self, optional: usize, flags: &[u8], comps: &[Comp]) -> Result<()> {
        if optional > self.r.left() {
            return Err(self.r.err(format!(
                "{optional} presence bits needed, {} left",
                self.r.left()
            )));
        }
        let mut present = Vec::with_capacity(optional);
        for _ in 0..optional {
            present.push(self.r.get(1)? == 1);
        }
        let mut bit = 0;
        for (k, &f) in flags.iter().enumerate() {
            if f & OPTIONAL != 0 {
                bit += 1;
                if !present[bit - 1] {
                    if f & NIL != 0 {
                        self.o.nil(self.r.pos())?;
                    }
                    continue;
                }
            }
            self.value(&comps[k])?;
        }
        Ok(())
    }

    /// Reads a component from the component itself (the paths that do not have its step at
    /// hand: an `all` group's, a SEQUENCE of more than 64 OPTIONAL components).
    fn value(&mut self, c: &Comp) -> Result<()> {
        let m = self.o.m;
        match &c.role {
            Role::Attr(_) => {
                let s = read_simple(
                    m,
                    self.p,
                    self.p.resolved[c.ty],
                    &mut self.r,
                    &mut self.buf,
                    &mut self.bytes,
                )?;
                self.o.attribute(&c.qname, s, self.r.pos())
            }
            Role::Text => self.text(self.p.resolved[c.ty]),
            Role::Elem(_) => self.element(c.ty, &c.qname, false),
            Role::Group => self.group(c.ty),
            _ => self.value_rare(c),
        }
    }

    /// [`Dec::value`] of the roles that are not in every document: kept out of its frame.
    #[inline(never)]
    fn value_rare(&mut self, c: &Comp) -> Result<()> {
        let m = self.o.m;
        match &c.role {
            Role::Attr(_) | Role::Text | Role::Elem(_) | Role::Group => self.value(c),
            Role::Nil => match &m.types[self.p.resolved[c.ty]].kind {
                Kind::Sequence(_) => self.sequence(self.p.resolved[c.ty]),
                _ => self.text(self.p.resolved[c.ty]),
            },
            Role::Embed => {
                self.o.embed_begin();
                let (o, bytes) = (&mut self.o, &mut self.bytes);
                self.r.counted(0, None, |r, n| {
                    for _ in 0..n {
                        let s = read_utf8(r, bytes)?;
                        o.embed_push(s);
                    }
                    Ok(())
                })?;
                Ok(())
            }
            Role::Type(_) | Role::Order => Err(self
                .r
                .err("internal: a type alternative or an order as content")),
            Role::Wildcard(allowed) => {
                let at = self.r.pos();
                let s = read_utf8(&mut self.r, &mut self.bytes)?;
                self.o.wildcard(s, allowed, at)
            }
            Role::AnyAttr(allowed) => {
                let (o, bytes) = (&mut self.o, &mut self.bytes);
                self.r.counted(0, None, |r, n| {
                    for _ in 0..n {
                        let at = r.pos();
                        let s = read_utf8(r, bytes)?;
                        o.any_attribute(s, allowed, at)?;
                    }
                    Ok(())
                })?;
                self.o.release()
            }
        }
    }

    /// The alternative of CHOICE type `id` (resolved).
    fn choice(&mut self, id: TyId) -> Result<()> {
        let ops = &self.p.ops[id];
        if ops.is_empty() {
            return Err(self.r.err("a CHOICE without alternatives has no value"));
        }
        let i = self.r.index(ops.len())?;
        self.op(&ops[i], id, i)
    }

    fn group(&mut self, ty: TyId) -> Result<()> {
        let p = self.p;
        let id = p.resolved[ty];
        match &self.o.m.types[id].kind {
            Kind::Sequence(_) => self.sequence(id),
            Kind::Choice(_) => self.choice(id),
            Kind::SeqOf { min, max, .. } => self.list(id, *min, *max),
            _ => Err(self.r.err("internal: a simple type as a group")),
        }
    }

    /// The items of SEQUENCE OF type `id` (resolved), of size bounds `min` and `max`.
    fn list(&mut self, id: TyId, min: u64, max: Option<u64>) -> Result<()> {
        let item = &self.p.ops[id][0];
        if let Some(ub) = max.filter(|&u| u < 65536) {
            let n = self.r.index((ub - min + 1) as usize)? as u64 + min;
            for _ in 0..n {
                self.op(item, id, 0)?;
            }
            return Ok(());
        }
        let mut total = 0u64;
        loop {
            let (n, more) = self.r.short_length()?;
            for _ in 0..n {
                self.op(item, id, 0)?;
            }
            total += n as u64;
            if !more {
                break;
            }
        }
        if total < min || max.is_some_and(|mx| total > mx) {
            return Err(self
                .r
                .err(format!("{total} items outside the size constraint")));
        }
        Ok(())
    }
}

/// The text of the numbers 0 to 9 (most counts: minOccurs, maxOccurs).
const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/// Reads a simple value of type `id` (resolved) and gives its text: the module's own string
/// for a boolean or an enumeration, the input itself for a UTF8String that starts on an octet
/// boundary, else `bytes` or `buf` (both reused from value to value, so that decoding
/// allocates nothing once they have grown).
fn read_simple<'b, 'a: 'b>(
    m: &'b Module,
    p: &Plan,
    id: TyId,
    r: &mut BitReader<'a>,
    buf: &'b mut String,
    bytes: &'b mut Vec<u8>,
) -> Result<&'b str> {
    let kind = &m.types[id].kind;
    match kind {
        Kind::Boolean => Ok(if r.get(1)? == 1 { "true" } else { "false" }),
        Kind::Enumerated(items) => {
            let i = r.index(items.len())?;
            Ok(&items[i].1)
        }
        Kind::Integer { lo, hi } => {
            let at = r.pos();
            let v = r.integer(*lo, *hi)?;
            if lo.is_some_and(|l| v < l) || hi.is_some_and(|h| v > h) {
                return Err(r.err(format!("integer {v} outside its range (at bit {at})")));
            }
            buf.clear();
            push_integer(buf, v);
            Ok(buf)
        }
        Kind::Utf8 { .. } => read_utf8(r, bytes),
        Kind::Octets { hex, min, max } => {
            read_octets(m, kind, (*hex, *min, *max), r, buf, bytes)?;
            Ok(buf)
        }
        Kind::Visible { .. } if p.visible[id].is_some() => {
            let codes = &p.visible[id].as_ref().expect("checked")[r.aligned() as usize];
            read_visible(r, codes, bytes)
        }
        _ => {
            buf.clear();
            simple::decode(m, kind, r, buf)?;
            Ok(buf)
        }
    }
}

/// Reads an OCTET STRING of type `kind` (`hex`, `min`, `max` its fields) and writes its text
/// (hexBinary or base64Binary) into `buf`: the octets are encoded where they lie (in the
/// input, or shifted into `bytes`), not gathered first; only a fragmented value (16K octets
/// or more) goes through [`simple::decode`].
fn read_octets(
    m: &Module,
    kind: &Kind,
    (hex, min, max): (bool, u64, Option<u64>),
    r: &mut BitReader<'_>,
    buf: &mut String,
    bytes: &mut Vec<u8>,
) -> Result<()> {
    buf.clear();
    let start = r.clone();
    let (n, bounded) = match max.filter(|&u| u < 65536) {
        Some(ub) => (
            r.constrained((ub - min + 1) as u128)? as usize + min as usize,
            true,
        ),
        None => match r.short_length()? {
            (n, false) => (n, false),
            (_, true) => {
                *r = start;
                return simple::decode(m, kind, r, buf);
            }
        },
    };
    // X.691 17.6-17.8: aligned octets, but for a fixed size of at most two.
    if !(max == Some(min) && min <= 2) {
        r.align()?;
    }
    let o = r.octets_ref(n, bytes)?;
    if !bounded && ((n as u64) < min || max.is_some_and(|mx| n as u64 > mx)) {
        return Err(r.err(format!("count {n} outside its size constraint")));
    }
    simple::octets_text(hex, o, buf);
    Ok(())
}

/// Reads a UTF8String (unconstrained length) into `bytes`, or gives the input itself for a
/// long one that starts on an octet boundary.
/// The short ones (most values) take a path inlined into the caller, the others
/// [`read_utf8_long`].
#[inline(always)]
fn read_utf8<'b, 'a: 'b>(r: &mut BitReader<'a>, bytes: &'b mut Vec<u8>) -> Result<&'b str> {
    let (n, more) = r.short_length()?;
    if !more && (n < 256 || !r.pos().is_multiple_of(8)) {
        let padded = r.octets_padded(n, bytes)?;
        return match padded_str(&bytes[..padded], n) {
            Some(s) => Ok(s),
            None => Err(not_utf8(r)),
        };
    }
    read_utf8_long(r, bytes, n, more)
}

#[cold]
#[inline(never)]
fn not_utf8(r: &BitReader<'_>) -> Error {
    r.err("UTF8String is not UTF-8")
}

/// [`read_utf8`] of a string of 256 octets or more on an octet boundary (given as the input
/// itself), or fragmented (gathered in `bytes`): `n`, its length read, and `more`, whether a
/// fragment follows.
#[inline(never)]
fn read_utf8_long<'b, 'a: 'b>(
    r: &mut BitReader<'a>,
    bytes: &'b mut Vec<u8>,
    n: usize,
    more: bool,
) -> Result<&'b str> {
    let b: &[u8] = if more {
        // Fragmented (16K octets or more): gathered in `bytes`.
        let mut all = Vec::new();
        let (mut n, mut more) = (n, more);
        loop {
            all.extend_from_slice(r.octets_ref(n, bytes)?);
            if !more {
                break;
            }
            (n, more) = r.short_length()?;
        }
        *bytes = all;
        bytes
    } else {
        r.octets_ref(n, bytes)?
    };
    std::str::from_utf8(b).map_err(|_| r.err("UTF8String is not UTF-8"))
}

/// The first `n` octets of `padded` (followed by zeros up to a multiple of 16) as a string,
/// when they are UTF-8. The zeros are ASCII, so the whole is UTF-8 exactly when the `n`
/// octets are (and `n` is then a character boundary); the whole is validated in 16-octet
/// blocks, where the `n` octets alone would often be validated octet by octet. Most strings
/// of a document are ASCII: their blocks pass one test of the high bits, a word at a time.
#[inline(always)]
fn padded_str(padded: &[u8], n: usize) -> Option<&str> {
    if let Some(s) = binxml_core::ascii::ascii_str(padded) {
        return s.get(..n);
    }
    std::str::from_utf8(padded).ok()?.get(..n)
}

/// Reads a VisibleString whose permitted alphabet is ASCII, its characters decoded by `codes`
/// into `bytes`.
fn read_visible<'b>(
    r: &mut BitReader<'_>,
    codes: &plan::Visible,
    bytes: &'b mut Vec<u8>,
) -> Result<&'b str> {
    let (n, more) = r.short_length()?;
    if more {
        // Fragmented (16K characters or more): gathered fragment by fragment.
        let (mut n, mut more, mut all) = (n, more, Vec::new());
        loop {
            let from = all.len();
            all.resize(from + n.min(r.left()), 0);
            visible_chars(r, codes, n, &mut all[from..])?;
            if !more {
                break;
            }
            (n, more) = r.short_length()?;
        }
        let len = all.len();
        all.resize(len.next_multiple_of(16), 0);
        *bytes = all;
        return padded_str(bytes, len).ok_or_else(|| r.err("internal: a VisibleString not ASCII"));
    }
    let padded = n.next_multiple_of(16);
    if bytes.len() < padded && n.saturating_mul(codes.bits as usize) <= r.left() {
        bytes.resize(padded, 0);
    }
    let Some(out) = bytes.get_mut(..padded) else {
        return Err(r.err(format!("{n} characters announced, {} bits left", r.left())));
    };
    // The padding: the last 16-octet block cleared, then the characters written over it.
    if padded > 0 {
        out[padded - 16..].copy_from_slice(&[0; 16]);
    }
    visible_chars(r, codes, n, &mut out[..n])?;
    padded_str(out, n).ok_or_else(|| r.err("internal: a VisibleString not ASCII"))
}

/// Reads `n` characters of a VisibleString into `out` (`n` long when the input holds them).
fn visible_chars(
    r: &mut BitReader<'_>,
    codes: &plan::Visible,
    n: usize,
    out: &mut [u8],
) -> Result<()> {
    let bits = codes.bits;
    if n.saturating_mul(bits as usize) > r.left() || out.len() != n {
        return Err(r.err(format!("{n} characters announced, {} bits left", r.left())));
    }
    let mask = (1u64 << bits) - 1;
    // As many characters as fit in 56 bits are read at once (a number or a date in a few
    // reads, not one per character).
    // The characters are ASCII and `INVALID` is not: one test of their high bits per read.
    let mut high = 0;
    for chunk in out.chunks_mut(codes.per_read as usize) {
        let k = chunk.len() as u32;
        let word = r.get(k * bits)?;
        for (j, o) in chunk.iter_mut().enumerate() {
            let c = codes.table[((word >> ((k - 1 - j as u32) * bits)) & mask) as u8 as usize];
            high |= c;
            *o = c;
        }
        if high & 0x80 != 0 {
            return Err(r.err("character outside the permitted alphabet"));
        }
    }
    Ok(())
}

/// Appends the decimal text of `v` (what `write!` gives, without the formatting machinery).
fn push_integer(buf: &mut String, v: i128) {
    let mut digits = [0u8; 40];
    let mut i = digits.len();
    let mut u = v.unsigned_abs();
    if let Ok(mut x) = u64::try_from(u) {
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
    } else {
        while u > 0 {
            i -= 1;
            digits[i] = b'0' + (u % 10) as u8;
            u /= 10;
        }
    }
    if v < 0 {
        buf.push('-');
    }
    for &d in &digits[i..] {
        buf.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x694::bits::BitWriter;

    fn empty_module() -> Module {
        Module {
            name: "M".into(),
            types: Vec::new(),
            assignments: Vec::new(),
            roots: Vec::new(),
            namespaces: Vec::new(),
            prefixes: Vec::new(),
            any_attr: Vec::new(),
            names: Default::default(),
        }
    }

    /// UTF8Strings on and off octet boundaries, short and fragmented (16K octets and more),
    /// read back as written, in both variants of PER.
    #[test]
    fn utf8_strings_at_every_phase() {
        let m = empty_module();
        let long: String = "grüße 0123456789 ".repeat(3000);
        for aligned in [false, true] {
            for (phase, more) in (0..8u32).flat_map(|p| [(p, false), (p, true)]) {
                // With `more`, input follows the string (short strings are then shifted a word
                // at a time), without, it ends right after it.
                for text in [
                    "",
                    "a",
                    "1234567",
                    "12345678",
                    "Ω and more",
                    "12345678901234",
                    "0123456789abcdefghijklmnopqrstu",
                    "0123456789abcdefghijklmnopqrstuv",
                    long.as_str(),
                ] {
                    let mut w = BitWriter::new(aligned);
                    w.put(0x55, phase);
                    simple::encode(&m, &simple::EMBEDDED, text, &mut w).unwrap();
                    w.put(1, 1);
                    if more {
                        w.put(u64::MAX, 64);
                    }
                    let bytes = w.finish();
                    let mut r = BitReader::new(&bytes, Format::Asn1XsdUper, aligned);
                    r.get(phase).unwrap();
                    let mut scratch = Vec::new();
                    let got = read_utf8(&mut r, &mut scratch).unwrap();
                    assert_eq!(got, text, "aligned {aligned}, phase {phase}");
                    assert_eq!(r.get(1).unwrap(), 1);
                }
            }
        }
    }

    /// A string whose octets are not UTF-8, or run past the input, is an error.
    #[test]
    fn utf8_refusals() {
        for (bytes, want) in [
            (vec![0x01u8, 0xFF], "not UTF-8"),
            // The first octet of "é" alone: the zero padding after it must not make it whole.
            (vec![0x01u8, 0xC3], "not UTF-8"),
            (
                vec![0x02u8, b'a', 0xC3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "not UTF-8",
            ),
            (vec![0x05u8, b'a'], "octets announced"),
        ] {
            // On an octet boundary, and shifted by 3 bits.
            let mut shifted = BitWriter::new(false);
            shifted.put(0, 3);
            for &b in &bytes {
                shifted.put(b as u64, 8);
            }
            let shifted = shifted.finish();
            for (input, skip) in [(&bytes, 0), (&shifted, 3)] {
                let mut r = BitReader::new(input, Format::Asn1XsdUper, false);
                r.get(skip).unwrap();
                let mut scratch = Vec::new();
                let e = read_utf8(&mut r, &mut scratch).unwrap_err();
                assert!(e.to_string().contains(want), "{e}");
                assert!(e.bit_offset().is_some());
            }
        }
    }

    /// VisibleStrings of an ASCII alphabet (the plan's table) read back as written, at every
    /// bit phase and in both variants, and a code outside the alphabet refused.
    #[test]
    fn visible_strings() {
        let mut alphabet: Vec<char> = "0123456789+-.:TZ".chars().collect();
        alphabet.sort();
        let mut m = empty_module();
        m.types.push(super::super::map::Ty {
            name: None,
            kind: Kind::Visible {
                alphabet: alphabet.clone(),
            },
        });
        let p = Plan::new(&m);
        assert!(p.visible[0].is_some());
        let long = "2001-12-17T09:30:47Z".repeat(20);
        for aligned in [false, true] {
            for phase in 0..8u32 {
                for text in ["", "1", "-12.5", "2001-12-17T09:30:47Z", long.as_str()] {
                    let mut w = BitWriter::new(aligned);
                    w.put(0x55, phase);
                    simple::encode(&m, &m.types[0].kind, text, &mut w).unwrap();
                    w.put(1, 1);
                    let bytes = w.finish();
                    let mut r = BitReader::new(&bytes, Format::Asn1XsdUper, aligned);
                    r.get(phase).unwrap();
                    let (mut buf, mut scratch) = (String::new(), Vec::new());
                    let got = read_simple(&m, &p, 0, &mut r, &mut buf, &mut scratch).unwrap();
                    assert_eq!(got, text, "aligned {aligned}, phase {phase}");
                    assert_eq!(r.get(1).unwrap(), 1);
                }
            }
        }
        // Ten characters take 4 bits each: codes 10 to 15 stand for none.
        m.types[0].kind = Kind::Visible {
            alphabet: "0123456789".chars().collect(),
        };
        let p = Plan::new(&m);
        let mut w = BitWriter::new(false);
        w.put(3, 8);
        w.put(0x12F, 12);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, Format::Asn1XsdUper, false);
        let (mut buf, mut scratch) = (String::new(), Vec::new());
        let e = read_simple(&m, &p, 0, &mut r, &mut buf, &mut scratch).unwrap_err();
        assert!(
            e.to_string().contains("outside the permitted alphabet"),
            "{e}"
        );
        assert!(e.bit_offset().is_some());
    }

    /// OCTET STRINGs (hexBinary and base64Binary; fixed, bounded and unbounded sizes,
    /// fragmented from 16K octets) read in place give the text and the end position that the
    /// generic path (`simple::decode`, the octets gathered first) gives, at every bit phase
    /// and in both variants; cut short, both refuse with a bit offset.
    #[test]
    fn octet_strings_in_place() {
        let data: Vec<u8> = (0..40_000u32).map(|i| (i * 131 + i / 5) as u8).collect();
        let mut m = empty_module();
        for hex in [false, true] {
            for (min, max, lens) in [
                (
                    0,
                    None,
                    &[0usize, 1, 2, 3, 4, 47, 48, 49, 300, 16_384, 20_000][..],
                ),
                (0, Some(100), &[0, 1, 5, 100][..]),
                (2, Some(2), &[2][..]),
                (3, Some(3), &[3][..]),
                (1, Some(70_000), &[1, 17, 16_385][..]),
            ] {
                m.types = vec![super::super::map::Ty {
                    name: None,
                    kind: Kind::Octets { hex, min, max },
                }];
                let p = Plan::new(&m);
                for &n in lens {
                    let mut text = String::new();
                    simple::octets_text(hex, &data[..n], &mut text);
                    for aligned in [false, true] {
                        for phase in [0u32, 3, 7] {
                            let mut w = BitWriter::new(aligned);
                            w.put(0x55, phase);
                            simple::encode(&m, &m.types[0].kind, &text, &mut w).unwrap();
                            w.put(1, 1);
                            let bytes = w.finish();
                            let fmt = Format::Asn1XsdUper;
                            let mut r = BitReader::new(&bytes, fmt, aligned);
                            r.get(phase).unwrap();
                            let mut generic = r.clone();
                            let (mut buf, mut scratch) = (String::new(), Vec::new());
                            let got = read_simple(&m, &p, 0, &mut r, &mut buf, &mut scratch)
                                .unwrap()
                                .to_owned();
                            let mut want = String::new();
                            simple::decode(&m, &m.types[0].kind, &mut generic, &mut want).unwrap();
                            assert_eq!(got, want, "hex {hex}, {n} octets, phase {phase}");
                            assert_eq!(got, text);
                            assert_eq!(r.pos(), generic.pos());
                            assert_eq!(r.get(1).unwrap(), 1);
                            // Cut inside the octets: refused with a bit offset.
                            if n > 4 {
                                let cut = &bytes[..bytes.len() / 2];
                                let mut r = BitReader::new(cut, fmt, aligned);
                                r.get(phase).unwrap();
                                let e = read_simple(&m, &p, 0, &mut r, &mut buf, &mut scratch)
                                    .unwrap_err();
                                assert!(e.bit_offset().is_some(), "{e}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Integers written as `write!` writes them, at the ends of the ranges.
    #[test]
    fn integer_text() {
        for v in [
            0,
            -1,
            9,
            10,
            -10,
            i64::MAX as i128,
            i64::MIN as i128,
            u64::MAX as i128,
            u64::MAX as i128 + 1,
            -(u64::MAX as i128) - 1,
            i128::MAX,
            i128::MIN,
        ] {
            let mut s = String::from("x");
            push_integer(&mut s, v);
            assert_eq!(s, format!("x{v}"));
        }
    }
}
