//! Events to unaligned PER: a recursive descent over the document's events, guided by the
//! mapped module. A SEQUENCE's presence bits are patched in once its components are
//! written; a SEQUENCE OF's items go to a scratch writer first, since its count comes before
//! them.

use binxml_core::{Error, Event, Format, Result, XmlFragments};

use super::bits::BitWriter;
use binxml_schema::model::Name;

use super::map::{Comp, Kind, Module, Role, TyId, XSI, is_content};
use super::simple;

pub struct Enc<'e> {
    pub(super) m: &'e Module,
    ev: &'e [Event<'static>],
    pos: usize,
    format: Format,
    /// The namespace declarations in scope: their events' positions.
    scopes: Vec<usize>,
    /// For each open element, whether its content is mixed (its character data is carried by
    /// `embed-values`, and the walk passes over it).
    mixed: Vec<bool>,
    /// Writes the XML text of the elements that element wildcards match.
    fragments: Option<&'e dyn XmlFragments>,
}

/// An element's start tag, consumed: the range of its namespace and attribute events, which
/// of the attributes a component took, and the namespace scope to restore at its end.
pub(super) struct Open {
    attrs: std::ops::Range<usize>,
    used: Vec<bool>,
    scope: usize,
}

/// An `all` group's elements as the document has them (see [`Enc::all_group`]).
pub(super) struct AllGroup {
    /// Where each content component's element starts.
    pub at: Vec<Option<usize>>,
    /// The content components' indexes in document order.
    pub order: Vec<usize>,
    /// Where the group ends.
    pub end: usize,
}

/// Encodes a whole document (its events) as a value of the root type `root`.
pub fn encode(
    m: &Module,
    root: usize,
    events: &[Event<'static>],
    format: Format,
    fragments: Option<&dyn XmlFragments>,
) -> Result<Vec<u8>> {
    let mut e = Enc::new(m, events, format, fragments);
    let mut w = BitWriter::new(format == Format::Asn1XsdAper);
    let ty = e.root(root)?;
    e.element(ty, &mut w)?;
    e.end()?;
    Ok(w.finish())
}

impl<'e> Enc<'e> {
    pub(super) fn new(
        m: &'e Module,
        ev: &'e [Event<'static>],
        format: Format,
        fragments: Option<&'e dyn XmlFragments>,
    ) -> Self {
        Enc {
            m,
            ev,
            pos: 0,
            format,
            scopes: Vec::new(),
            mixed: Vec::new(),
            fragments,
        }
    }

    /// The XML text of the element here, which an element wildcard matches, with the
    /// declarations in scope that its names use (`wild.rs`); the walk moves past it.
    pub(super) fn wildcard(&mut self) -> Result<String> {
        let Some(f) = self.fragments else {
            return Err(self.err(
                "an element wildcard's content (XML text) needs an XML writer, which this encoder was not given (not covered without one)",
            ));
        };
        if self.peek_start().is_none() {
            return Err(self.err("an element that the wildcard matches expected"));
        }
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(ev) = self.ev.get(self.pos) {
            self.pos += 1;
            match ev {
                Event::StartElement(_) => depth += 1,
                Event::EndElement => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if depth != 0 {
            return Err(self.err("the document ends inside an element"));
        }
        let ev = self.ev;
        let scope: Vec<(&str, &str)> = self
            .scopes
            .iter()
            .filter_map(|&i| match &ev[i] {
                Event::Namespace { prefix, uri } => Some((&**prefix, &**uri)),
                _ => None,
            })
            .collect();
        let events = super::wild::with_context(&ev[start..self.pos], &scope);
        let mut text = String::new();
        f.write_element(&events, &mut text)
            .map_err(|e| self.err(format!("an element wildcard's content: {e}")))?;
        Ok(text)
    }

    /// The strings of the attributes an attribute wildcard matches (`wild.rs`): every attribute
    /// of the element that no attribute component took, but the XML Schema instance ones,
    /// which the mapping carries itself; each is taken.
    pub(super) fn any_attributes(&self, o: Option<&mut Open>) -> Vec<String> {
        let Some(o) = o else { return Vec::new() };
        let mut out = Vec::new();
        for (k, i) in o.attrs.clone().enumerate() {
            if let Event::Attribute { name, value } = &self.ev[i]
                && !o.used[k]
                && name.namespace != XSI
            {
                o.used[k] = true;
                let mut s = String::new();
                super::wild::attribute_string(&name.namespace, &name.local, value, &mut s);
                out.push(s);
            }
        }
        out
    }

    /// Checks that the document's root element is root `root` of the module; its type.
    pub(super) fn root(&mut self, root: usize) -> Result<TyId> {
        let (name, ty) = &self.m.roots[root];
        match self.peek_start() {
            Some((ns, local)) if ns == name.ns && local == name.local => Ok(*ty),
            _ => Err(self.err(format!("the root element must be {name}"))),
        }
    }

    /// Checks that nothing but the end of the document follows the root element.
    pub(super) fn end(&mut self) -> Result<()> {
        self.skip();
        match self.ev.get(self.pos) {
            Some(Event::EndDocument) | None => Ok(()),
            _ => Err(self.err("content after the root element")),
        }
    }

    /// The number of events consumed.
    pub(super) fn at(&self) -> usize {
        self.pos
    }

    pub(super) fn err(&self, msg: impl Into<String>) -> Error {
        Error::invalid_events(self.format, format!("event {}: {}", self.pos, msg.into()))
    }

    /// Skips what the mapping does not carry: the prolog, comments, processing instructions
    /// and whitespace between elements (in mixed content, any character data, which
    /// `embed-values` took).
    fn skip(&mut self) {
        let mixed = self.mixed.last() == Some(&true);
        while let Some(ev) = self.ev.get(self.pos) {
            match ev {
                Event::StartDocument { .. }
                | Event::DocType(_)
                | Event::Notation { .. }
                | Event::UnparsedEntity { .. }
                | Event::Comment(_)
                | Event::ProcessingInstruction { .. } => {}
                Event::Characters { text, .. }
                    if mixed
                        || text
                            .bytes()
                            .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) => {}
                Event::Typed(_) if mixed => {}
                _ => return,
            }
            self.pos += 1;
        }
    }

    pub(super) fn peek_start(&mut self) -> Option<(&str, &str)> {
        self.skip();
        match self.ev.get(self.pos) {
            Some(Event::StartElement(q)) => Some((&q.namespace, &q.local)),
            _ => None,
        }
    }

    /// The namespace name and local name of a QName value, by the namespace declarations in
    /// scope.
    fn resolve_qname(&self, value: &str) -> Result<(String, String)> {
        let (prefix, local) = value.trim().split_once(':').unwrap_or(("", value.trim()));
        for &i in self.scopes.iter().rev() {
            if let Event::Namespace { prefix: p, uri } = &self.ev[i]
                && p == prefix
            {
                return Ok((uri.to_string(), local.to_owned()));
            }
        }
        if prefix.is_empty() {
            Ok((String::new(), local.to_owned()))
        } else {
            Err(self.err(format!("prefix {prefix:?} of {value:?} is not declared")))
        }
    }

    /// An `all` group's elements, from here: where the element of each content component of
    /// `comps` starts (by the component's index among the content components, `None` when
    /// absent), their indexes in document order (the value of `order`), and where the group
    /// ends. The walk stays where it was.
    pub(super) fn all_group(&mut self, comps: &[Comp]) -> Result<AllGroup> {
        let content: Vec<&Comp> = comps.iter().filter(|c| is_content(&c.role)).collect();
        if comps.iter().any(|c| c.role == Role::Embed)
            && let Some(m) = self.mixed.last_mut()
        {
            // Mixed content: the character data between the elements is embed-values'.
            *m = true;
        }
        let start = self.pos;
        let mut g = AllGroup {
            at: vec![None; content.len()],
            order: Vec::new(),
            end: 0,
        };
        loop {
            let m = self.m;
            let j = match self.peek_start() {
                Some((ns, local)) => content.iter().position(|c| m.starts_with(c, ns, local)),
                None => None,
            };
            let Some(j) = j else { break };
            if g.at[j].is_some() {
                return Err(self.err(format!(
                    "element {} occurs twice in an all group",
                    content[j].ident
                )));
            }
            g.at[j] = Some(self.pos);
            g.order.push(j);
            // Over the element and its subtree.
            let mut depth = 0usize;
            while let Some(ev) = self.ev.get(self.pos) {
                self.pos += 1;
                match ev {
                    Event::StartElement(_) => depth += 1,
                    Event::EndElement => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        g.end = self.pos;
        // Back to the start: the components before the elements (mixed content's strings)
        // read from here.
        self.pos = start;
        Ok(g)
    }

    /// Moves to event `pos` (an `all` group's elements are written in the module's order).
    pub(super) fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Whether the next element can start component `c`.
    pub(super) fn matches(&mut self, c: &Comp) -> bool {
        let m = self.m;
        match self.peek_start() {
            Some((ns, local)) => m.starts_with(c, ns, local),
            None => false,
        }
    }

    /// Consumes an element's start tag and its namespace and attribute events.
    pub(super) fn open(&mut self) -> Open {
        self.pos += 1;
        let first_attr = self.pos;
        while let Some(Event::Namespace { .. } | Event::Attribute { .. }) = self.ev.get(self.pos) {
            self.pos += 1;
        }
        let attrs = first_attr..self.pos;
        let scope = self.scopes.len();
        self.mixed.push(false);
        for i in attrs.clone() {
            if let Event::Namespace { .. } = &self.ev[i] {
                self.scopes.push(i);
            }
        }
        Open {
            used: vec![false; attrs.len()],
            attrs,
            scope,
        }
    }

    /// The alternative of a `T-derivations` CHOICE that the element's `xsi:type` names; the
    /// declared type's without one.
    pub(super) fn pick_type(
        &self,
        o: &mut Open,
        declared: Option<usize>,
        alts: &[Comp],
    ) -> Result<usize> {
        let mut pick = declared;
        for (k, i) in o.attrs.clone().enumerate() {
            if let Event::Attribute { name, value } = &self.ev[i]
                && name.namespace == XSI
                && name.local == "type"
            {
                o.used[k] = true;
                let (ns, local) = self.resolve_qname(value)?;
                pick = alts.iter().position(
                    |a| matches!(&a.role, Role::Type(n) if n.ns == ns && n.local == local),
                );
                if pick.is_none() {
                    return Err(self.err(format!(
                        "xsi:type {value:?} is not a type the mapping derives from the declared one"
                    )));
                }
            }
        }
        pick.ok_or_else(|| self.err("an element of an abstract type without xsi:type"))
    }

    /// The value of the element's attribute `name`, marked as taken.
    pub(super) fn attribute(&self, o: &mut Open, name: &Name) -> Option<&'e str> {
        let mut found = None;
        let ev = self.ev;
        for (k, i) in o.attrs.clone().enumerate() {
            if let Event::Attribute { name: q, value } = &ev[i]
                && q.namespace == name.ns
                && q.local == name.local
            {
                o.used[k] = true;
                found = Some(&**value);
            }
        }
        found
    }

    /// The character data of the open element's mixed content (the text before each child
    /// element and after the last), from here to its end tag; the walk passes over it from
    /// now on.
    pub(super) fn embedded(&mut self) -> Vec<String> {
        let mut segs = vec![String::new()];
        let mut depth = 0usize;
        for ev in &self.ev[self.pos..] {
            match ev {
                Event::StartElement(_) => depth += 1,
                Event::EndElement if depth == 0 => break,
                Event::EndElement => {
                    depth -= 1;
                    if depth == 0 {
                        segs.push(String::new());
                    }
                }
                Event::Characters { text, .. } if depth == 0 => {
                    segs.last_mut().expect("one").push_str(text)
                }
                Event::Typed(t) if depth == 0 => {
                    segs.last_mut().expect("one").push_str(&t.lexical())
                }
                _ => {}
            }
        }
        if let Some(m) = self.mixed.last_mut() {
            *m = true;
        }
        segs
    }

    /// Whether the element has `xsi:nil="true"` (the attribute, when there, is taken).
    pub(super) fn nil(&self, o: Option<&mut Open>) -> Result<bool> {
        let Some(o) = o else { return Ok(false) };
        let name = Name::new(XSI, "nil");
        match self.attribute(o, &name) {
            None => Ok(false),
            Some(v) => simple::boolean(v).map_err(|e| self.err(format!("xsi:nil: {e}"))),
        }
    }

    /// Ends an element: every attribute must have been taken by a component, and its end tag
    /// must follow.
    pub(super) fn close(&mut self, o: Open) -> Result<()> {
        for (i, u) in o.attrs.zip(o.used) {
            if let Event::Attribute { name, .. } = &self.ev[i] {
                if u {
                    continue;
                }
                if name.namespace == XSI
                    && (name.local == "schemaLocation" || name.local == "noNamespaceSchemaLocation")
                {
                    continue;
                }
                return Err(self.err(format!(
                    "attribute {{{}}}{} is not carried by the mapping (xsi:nil on an element that is not nillable or whose type has derivations and xsi:type on a type without derivations are not covered)",
                    name.namespace, name.local
                )));
            }
        }
        self.scopes.truncate(o.scope);
        self.skip();
        self.mixed.pop();
        match self.ev.get(self.pos) {
            Some(Event::EndElement) => {
                self.pos += 1;
                Ok(())
            }
            Some(Event::StartElement(q)) => Err(self.err(format!(
                "element {{{}}}{} is not where the mapped type expects it",
                q.namespace, q.local
            ))),
            _ => Err(self.err("character data in element-only content")),
        }
    }

    /// The alternative of a CHOICE that the next element starts (or one that may be empty).
    pub(super) fn choose(&mut self, alts: &[Comp]) -> Result<usize> {
        let m = self.m;
        match alts.iter().position(|a| self.matches(a)) {
            Some(i) => Ok(i),
            None => alts
                .iter()
                .position(|a| m.emptiable(a))
                .ok_or_else(|| self.err("no alternative of a choice matches")),
        }
    }

    /// Checks the next element against element component `name`.
    pub(super) fn expect(&mut self, name: &Name) -> Result<()> {
        match self.peek_start() {
            Some((ns, local)) if ns == name.ns && local == name.local => Ok(()),
            _ => Err(self.err(format!("element {name} expected"))),
        }
    }

    /// An element (at its start tag) with type `ty`.
    fn element(&mut self, ty: TyId, w: &mut BitWriter) -> Result<()> {
        let mut o = self.open();
        let mut kind = self.m.resolve(ty);
        if let Kind::Derivations { declared, alts } = kind {
            // xsi:type picks the alternative; without it, the declared type.
            let i = self.pick_type(&mut o, *declared, alts)?;
            w.constrained(i as u128, alts.len() as u128);
            kind = self.m.resolve(alts[i].ty);
        }
        match kind {
            Kind::Sequence(comps) => self.sequence(comps, Some(&mut o), w)?,
            kind => {
                let text = self.text()?;
                simple::encode(self.m, kind, &text, w).map_err(|e| self.err(e))?;
            }
        }
        self.close(o)
    }

    /// The character content of an element of simple type, up to its end tag.
    pub(super) fn text(&mut self) -> Result<String> {
        let mut s = String::new();
        while let Some(ev) = self.ev.get(self.pos) {
            match ev {
                Event::Characters { text, .. } => s.push_str(text),
                Event::Typed(t) => s.push_str(&t.lexical()),
                Event::Comment(_) | Event::ProcessingInstruction { .. } => {}
                Event::EndElement => return Ok(s),
                _ => return Err(self.err("an element in simple content")),
            }
            self.pos += 1;
        }
        Err(self.err("the document ends inside an element"))
    }

    /// A SEQUENCE: the presence bits, then the components (attributes from `attrs`).
    fn sequence(
        &mut self,
        comps: &[Comp],
        mut attrs: Option<&mut Open>,
        w: &mut BitWriter,
    ) -> Result<()> {
        let bitmap = w.len();
        let optional = comps.iter().filter(|c| c.optional).count();
        for _ in 0..optional {
            w.put(0, 1);
        }
        let mut bit = bitmap;
        // An `all` group: where each element is (by content component), and the next
        // content component's index.
        let mut all: Option<AllGroup> = None;
        let mut next = 0;
        for c in comps {
            if let Some(g) = &all
                && is_content(&c.role)
            {
                let at = g.at[next];
                next += 1;
                if c.optional {
                    w.patch(bit, at.is_some());
                    bit += 1;
                }
                match at {
                    Some(p) => {
                        self.seek(p);
                        self.value(c, w)?;
                    }
                    None if c.optional => {}
                    None => return Err(self.err(format!("element {} is missing", c.ident))),
                }
                continue;
            }
            match &c.role {
                Role::Order => {
                    let g = self.all_group(comps)?;
                    let k = g.at.len() as u128;
                    w.counted(g.order.len(), 0, None, |w, s, e| {
                        for &j in &g.order[s..e] {
                            w.constrained(j as u128, k);
                        }
                        Ok(())
                    })?;
                    all = Some(g);
                }
                Role::Attr(name) => {
                    let found = attrs.as_deref_mut().and_then(|o| self.attribute(o, name));
                    if c.optional {
                        w.patch(bit, found.is_some());
                        bit += 1;
                    }
                    match found {
                        Some(v) => simple::encode(self.m, self.m.resolve(c.ty), v, w)
                            .map_err(|e| self.err(format!("attribute {name}: {e}")))?,
                        None if c.optional => {}
                        None => return Err(self.err(format!("attribute {name} is missing"))),
                    }
                }
                Role::Text => {
                    let text = self.text()?;
                    simple::encode(self.m, self.m.resolve(c.ty), &text, w)
                        .map_err(|e| self.err(e))?;
                }
                Role::AnyAttr(_) => {
                    let segs = self.any_attributes(attrs.as_deref_mut());
                    w.patch(bit, !segs.is_empty());
                    bit += 1;
                    if segs.is_empty() {
                        continue;
                    }
                    w.counted(segs.len(), 0, None, |w, s, e| {
                        for seg in &segs[s..e] {
                            simple::encode(self.m, &simple::EMBEDDED, seg, w)
                                .map_err(|x| self.err(x))?;
                        }
                        Ok(())
                    })?;
                }
                Role::Embed => {
                    let segs = self.embedded();
                    w.counted(segs.len(), 0, None, |w, s, e| {
                        for seg in &segs[s..e] {
                            simple::encode(self.m, &simple::EMBEDDED, seg, w)
                                .map_err(|x| self.err(x))?;
                        }
                        Ok(())
                    })?;
                }
                Role::Nil => {
                    let nil = self.nil(attrs.as_deref_mut())?;
                    w.patch(bit, !nil);
                    bit += 1;
                    if !nil {
                        match self.m.resolve(c.ty) {
                            Kind::Sequence(comps) => self.sequence(comps, None, w)?,
                            kind => {
                                let text = self.text()?;
                                simple::encode(self.m, kind, &text, w).map_err(|e| self.err(e))?;
                            }
                        }
                    }
                }
                _ => {
                    if c.optional {
                        let present = self.matches(c);
                        w.patch(bit, present);
                        bit += 1;
                        if !present {
                            continue;
                        }
                    }
                    self.value(c, w)?;
                }
            }
        }
        if let Some(g) = all {
            self.seek(g.end);
        }
        Ok(())
    }

    /// The value of a content component (an element or a group).
    fn value(&mut self, c: &Comp, w: &mut BitWriter) -> Result<()> {
        match &c.role {
            Role::Elem(name) => {
                self.expect(name)?;
                self.element(c.ty, w)
            }
            Role::Group => self.group(c.ty, w),
            Role::Wildcard(_) => {
                let text = self.wildcard()?;
                simple::encode(self.m, &simple::EMBEDDED, &text, w).map_err(|e| self.err(e))
            }
            Role::Attr(_)
            | Role::AnyAttr(_)
            | Role::Text
            | Role::Type(_)
            | Role::Nil
            | Role::Embed
            | Role::Order => Err(self.err("internal: attribute in content")),
        }
    }

    fn group(&mut self, ty: TyId, w: &mut BitWriter) -> Result<()> {
        let m = self.m;
        match m.resolve(ty) {
            Kind::Sequence(comps) => self.sequence(comps, None, w),
            Kind::Choice(alts) => {
                let i = self.choose(alts)?;
                w.constrained(i as u128, alts.len() as u128);
                self.value(&alts[i], w)
            }
            Kind::SeqOf { item, min, max } => {
                // The items are written apart, at the alignment they will have after the count.
                let phase = w.phase_after_count(*min, *max) % 8;
                let mut sub = BitWriter::with_phase(w.aligned(), phase);
                let mut starts = Vec::new();
                while max.is_none_or(|mx| (starts.len() as u64) < mx) && self.matches(item) {
                    let before = self.at();
                    starts.push(sub.len());
                    self.value(item, &mut sub)?;
                    if self.at() == before {
                        break;
                    }
                }
                let n = starts.len();
                if w.aligned() && n >= super::bits::FRAG && max.is_none_or(|m| m >= 65536) {
                    return Err(self.err(format!(
                        "{n} items: fragmented counts are not supported in aligned PER"
                    )));
                }
                if (n as u64) < *min {
                    return Err(self.err(format!("{n} items where at least {min} are needed")));
                }
                starts.push(sub.len());
                w.counted(n, *min, *max, |w, s, e| {
                    w.append(&sub, starts[s], starts[e]);
                    Ok(())
                })
            }
            _ => Err(self.err("internal: a simple type as a group")),
        }
    }
}
