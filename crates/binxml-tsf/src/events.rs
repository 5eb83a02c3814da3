//! Units to events: the XML and JSON vocabularies of TSF as binxml events. Shared by the
//! streaming decoder (units from the lexer) and the TAM (units from the tree).

use std::borrow::Cow;

use binxml_core::{DocType, Error, Event, Limits, QName, Result, Typed, XML_NS};

use crate::jsonmap::{Content, JsonType, ValueEvents, is_json_number};
use crate::lex::{FORMAT, Unit, UnitKind};

/// Where units come from.
pub(crate) trait Source<'a> {
    /// The next unit in document order. `json` gives `[` its JSON meaning (array).
    fn unit(&mut self, json: bool) -> Result<Unit<'a>>;
    /// Called after the last unit of the document: rejects trailing data.
    fn end(&mut self) -> Result<()>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    Root,
    Element,
    Object,
    Array,
}

struct Frame {
    kind: FrameKind,
    remaining: usize,
    ns_len: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Body,
    Done,
}

pub(crate) struct EventGen<'a, S> {
    pub src: S,
    stack: Vec<Frame>,
    /// The rest of the current JSON value's events.
    pend: Option<Pend<'a>>,
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    attrs: Vec<AttrItem<'a>>,
    /// Next index in `attrs` to emit (`usize::MAX`: none pending).
    attr_next: usize,
    attr_ns_pass: bool,
    peeked: Option<Unit<'a>>,
    state: State,
    json: bool,
    limits: Limits,
    last_off: u64,
    failed: bool,
}

struct AttrItem<'a> {
    name: Cow<'a, str>,
    value: &'a str,
    off: usize,
    /// 0: an attribute, 1: `xmlns`, 2: `xmlns:prefix`.
    ns: u8,
}

/// The end of a name from byte `from` (an `xmlns:` declaration's prefix), borrowed as the name is.
pub(crate) fn sub<'a>(c: &Cow<'a, str>, from: usize) -> Cow<'a, str> {
    match c {
        Cow::Borrowed(s) => Cow::Borrowed(&s[from..]),
        Cow::Owned(s) => Cow::Owned(s[from..].to_string()),
    }
}

/// A copy of `c`: a borrowed string without the call `Cow::clone` makes (the copy then comes
/// back through memory, which costs the batched pull a store-forwarding stall per name).
#[inline(always)]
pub(crate) fn cow_copy<'a>(c: &Cow<'a, str>) -> Cow<'a, str> {
    match c {
        Cow::Borrowed(s) => Cow::Borrowed(s),
        Cow::Owned(s) => Cow::Owned(s.clone()),
    }
}

/// A qualified name's prefix (empty without a colon) and local part, borrowed as the name is.
#[inline]
pub(crate) fn split_qname<'a>(c: &Cow<'a, str>) -> (Cow<'a, str>, Cow<'a, str>) {
    // Byte-wise: names are short, a search call costs more than the loop.
    match c.bytes().position(|b| b == b':') {
        None => (Cow::Borrowed(""), cow_copy(c)),
        Some(i) => match c {
            Cow::Borrowed(s) => (Cow::Borrowed(&s[..i]), Cow::Borrowed(&s[i + 1..])),
            Cow::Owned(s) => (
                Cow::Owned(s[..i].to_string()),
                Cow::Owned(s[i + 1..].to_string()),
            ),
        },
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Splits a processing instruction unit's data into target and data.
pub(crate) fn split_pi(v: &str) -> (&str, &str) {
    match v.bytes().position(is_ws) {
        None => (v, ""),
        Some(i) => (&v[..i], v[i..].trim_start_matches([' ', '\t', '\r', '\n'])),
    }
}

fn quoted(s: &str, at: usize) -> std::result::Result<(&str, usize), String> {
    let b = s.as_bytes();
    let q = match b.get(at) {
        Some(&q @ (b'"' | b'\'')) => q,
        _ => return Err("expected a quoted literal".into()),
    };
    match s[at + 1..].bytes().position(|c| c == q) {
        None => Err("unterminated literal".into()),
        Some(i) => Ok((&s[at + 1..at + 1 + i], at + 2 + i)),
    }
}

/// Parses a doctype unit's content (`name PUBLIC "p" "s" [subset]`).
pub(crate) fn parse_doctype(s: &str) -> std::result::Result<DocType<'_>, String> {
    let b = s.as_bytes();
    let skip = |mut p: usize| {
        while p < b.len() && is_ws(b[p]) {
            p += 1;
        }
        p
    };
    let mut p = skip(0);
    let ns = p;
    while p < b.len() && !is_ws(b[p]) && b[p] != b'[' {
        p += 1;
    }
    let name = &s[ns..p];
    if name.is_empty() {
        return Err("doctype without a name".into());
    }
    let mut dt = DocType {
        name: Cow::Borrowed(name),
        ..Default::default()
    };
    p = skip(p);
    if s[p..].starts_with("PUBLIC") {
        let (pubid, np) = quoted(s, skip(p + 6))?;
        dt.public_id = Some(Cow::Borrowed(pubid));
        p = skip(np);
        if matches!(b.get(p), Some(b'"' | b'\'')) {
            let (sys, np) = quoted(s, p)?;
            dt.system_id = Some(Cow::Borrowed(sys));
            p = skip(np);
        }
    } else if s[p..].starts_with("SYSTEM") {
        let (sys, np) = quoted(s, skip(p + 6))?;
        dt.system_id = Some(Cow::Borrowed(sys));
        p = skip(np);
    }
    if b.get(p) == Some(&b'[') {
        let Some(close) = s.rfind(']') else {
            return Err("internal subset without ']'".into());
        };
        if close < p {
            return Err("internal subset without ']'".into());
        }
        dt.internal_subset = Some(Cow::Borrowed(&s[p + 1..close]));
        p = skip(close + 1);
    }
    if p != b.len() {
        return Err(format!("unexpected text in the doctype at {p}"));
    }
    Ok(dt)
}

/// The doctype unit's content for a [`DocType`] (`root_name` when its name is empty).
pub(crate) fn doctype_text(d: &DocType<'_>, root_name: &str, out: &mut String) {
    fn lit(s: &str, out: &mut String) {
        let q = if s.contains('"') { '\'' } else { '"' };
        out.push(q);
        out.push_str(s);
        out.push(q);
    }
    out.push_str(if d.name.is_empty() {
        root_name
    } else {
        &d.name
    });
    match (&d.public_id, &d.system_id) {
        (Some(p), s) => {
            out.push_str(" PUBLIC ");
            lit(p, out);
            if let Some(s) = s {
                out.push(' ');
                lit(s, out);
            }
        }
        (None, Some(s)) => {
            out.push_str(" SYSTEM ");
            lit(s, out);
        }
        (None, None) => {}
    }
    if let Some(sub) = &d.internal_subset {
        out.push_str(" [");
        compact_subset(sub, out);
        out.push(']');
    }
}

/// Appends an internal subset without the white space between its declarations (not part of
/// the infoset; `intSubset ::= (markupdecl | DeclSep)*` needs none).
pub(crate) fn compact_subset(s: &str, out: &mut String) {
    #[derive(PartialEq)]
    enum St {
        Out,
        Decl(Option<u8>),
        Comment,
        Pi,
    }
    let b = s.as_bytes();
    let mut st = St::Out;
    let mut run_start = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match st {
            St::Out => {
                if is_ws(c) {
                    out.push_str(&s[run_start..i]);
                    while i < b.len() && is_ws(b[i]) {
                        i += 1;
                    }
                    run_start = i;
                    continue;
                }
                if b[i..].starts_with(b"<!--") {
                    st = St::Comment;
                    i += 4;
                    continue;
                } else if b[i..].starts_with(b"<?") {
                    st = St::Pi;
                } else if c == b'<' {
                    st = St::Decl(None);
                }
            }
            St::Decl(q) => match (q, c) {
                (None, b'"' | b'\'') => st = St::Decl(Some(c)),
                (Some(q), c) if c == q => st = St::Decl(None),
                (None, b'>') => st = St::Out,
                _ => {}
            },
            St::Comment => {
                if b[i..].starts_with(b"-->") {
                    st = St::Out;
                    i += 3;
                    continue;
                }
            }
            St::Pi => {
                if b[i..].starts_with(b"?>") {
                    st = St::Out;
                    i += 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&s[run_start..]);
}

/// The namespace name bound to `prefix` in `ns` (innermost binding last), the `xml` prefix's,
/// or none for the empty prefix. Errors: an undeclared prefix, at `off`.
#[inline]
pub(crate) fn lookup<'a>(
    ns: &[(Cow<'a, str>, Cow<'a, str>)],
    prefix: &str,
    off: usize,
) -> Result<Cow<'a, str>> {
    // Byte-wise: prefixes are short, a memcmp call per binding costs more than the loop.
    if let Some((_, uri)) = ns.iter().rev().find(|(p, _)| crate::encoder::eq(p, prefix)) {
        return Ok(cow_copy(uri));
    }
    if prefix.is_empty() {
        return Ok(Cow::Borrowed(""));
    }
    if prefix == "xml" {
        return Ok(Cow::Borrowed(XML_NS));
    }
    Err(Error::malformed(
        FORMAT,
        off as u64,
        format!("namespace prefix {prefix:?} is not declared"),
    ))
}

/// What an attribute name declares: 0 nothing (an attribute), 1 the default namespace
/// (`xmlns`), 2 a prefix (`xmlns:prefix`).
#[inline]
pub(crate) fn xmlns_kind(name: &str) -> u8 {
    let b = name.as_bytes();
    if b.len() >= 5 && b[..5] == *b"xmlns" {
        match b.get(5) {
            None => 1,
            Some(b':') => 2,
            Some(_) => 0,
        }
    } else {
        0
    }
}

/// The event of an XML-vocabulary unit other than an element (`None` for empty text, which
/// is no event); `at_root` when it is a top-level unit. Errors: a unit that cannot be there
/// or whose content is malformed, at the unit's offset. Not inlined: the items it builds are
/// rare beside elements and text, and the loops that call it stay small.
#[inline(never)]
pub(crate) fn xml_item<'a>(u: &Unit<'a>, at_root: bool) -> Result<Option<Event<'a>>> {
    let off = u.off;
    Ok(Some(match u.kind {
        UnitKind::Text | UnitKind::CData => {
            if u.value.is_empty() && u.kind == UnitKind::Text {
                return Ok(None);
            }
            Event::Characters {
                text: Cow::Borrowed(u.value),
                cdata: u.kind == UnitKind::CData,
            }
        }
        UnitKind::Comment => Event::Comment(Cow::Borrowed(u.value)),
        UnitKind::ProcessingInstruction => {
            let (target, data) = split_pi(u.value);
            if target.is_empty() {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    "processing instruction without a target",
                ));
            }
            Event::ProcessingInstruction {
                target: Cow::Borrowed(target),
                data: Cow::Borrowed(data),
            }
        }
        UnitKind::Doctype => {
            if !at_root {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    "doctype inside an element",
                ));
            }
            let dt = parse_doctype(u.value)
                .map_err(|m| Error::malformed(FORMAT, off as u64, format!("bad doctype: {m}")))?;
            Event::DocType(dt)
        }
        UnitKind::EntityRef => {
            if u.value.is_empty() {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    "entity reference without a name",
                ));
            }
            Event::EntityReference {
                name: Cow::Borrowed(u.value),
                public_id: None,
                system_id: None,
            }
        }
        UnitKind::Attributes | UnitKind::Attribute => {
            return Err(Error::malformed(
                FORMAT,
                off as u64,
                "an attribute list must be the first unit of an element",
            ));
        }
        // Elements are the callers' (an element is never handed here).
        UnitKind::Element => {
            return Err(Error::malformed(FORMAT, off as u64, "unexpected element"));
        }
        _ => {
            return Err(Error::malformed(
                FORMAT,
                off as u64,
                "a JSON unit in an XML document",
            ));
        }
    }))
}

impl<'a, S: Source<'a>> EventGen<'a, S> {
    pub fn new(src: S, limits: Limits) -> Self {
        EventGen {
            src,
            stack: Vec::new(),
            pend: None,
            ns: Vec::new(),
            attrs: Vec::new(),
            attr_next: usize::MAX,
            attr_ns_pass: false,
            peeked: None,
            state: State::Start,
            json: false,
            limits,
            last_off: 0,
            failed: false,
        }
    }

    pub fn offset(&self) -> u64 {
        self.last_off
    }

    /// `Limits::max_depth`.
    pub fn max_depth(&self) -> usize {
        self.limits.max_depth
    }

    /// Whether no event has been returned yet.
    pub fn at_start(&self) -> bool {
        self.state == State::Start && !self.failed
    }

    pub fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        let r = self.next_inner();
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    #[inline]
    fn next_inner(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if let Some(p) = &mut self.pend {
                if let Some(ev) = p.events.next() {
                    self.last_off = p.off as u64;
                    return Ok(Some(ev));
                }
                self.pend = None;
            }
            if self.attr_next != usize::MAX
                && let Some(ev) = self.attr_event()?
            {
                return Ok(Some(ev));
            }
            if self.state == State::Done || self.failed {
                return Ok(None);
            }
            if let Some(ev) = self.step()? {
                return Ok(Some(ev));
            }
        }
    }

    #[inline]
    fn ret(&mut self, off: usize, ev: Event<'a>) -> Result<Option<Event<'a>>> {
        self.last_off = off as u64;
        Ok(Some(ev))
    }

    fn depth_check(&self, off: usize) -> Result<()> {
        // The root frame does not count.
        if self.stack.len() > self.limits.max_depth {
            return Err(Error::limit(
                FORMAT,
                off as u64,
                format!("nesting deeper than {}", self.limits.max_depth),
            ));
        }
        Ok(())
    }

    /// The next Namespace (first pass over the attribute list) or Attribute (second pass) event
    /// of the element just started.
    fn attr_event(&mut self) -> Result<Option<Event<'a>>> {
        while self.attr_next < self.attrs.len() {
            let i = self.attr_next;
            self.attr_next += 1;
            let a = &self.attrs[i];
            let (off, value) = (a.off, a.value);
            if self.attr_ns_pass {
                match a.ns {
                    1 => {
                        return self.ret(
                            off,
                            Event::Namespace {
                                prefix: Cow::Borrowed(""),
                                uri: Cow::Borrowed(value),
                            },
                        );
                    }
                    2 => {
                        let prefix = sub(&a.name, 6);
                        return self.ret(
                            off,
                            Event::Namespace {
                                prefix,
                                uri: Cow::Borrowed(value),
                            },
                        );
                    }
                    _ => {}
                }
            } else if a.ns == 0 {
                let (prefix, local) = split_qname(&a.name);
                let namespace = if prefix.is_empty() {
                    Cow::Borrowed("")
                } else {
                    self.lookup(&prefix, off)?
                };
                return self.ret(
                    off,
                    Event::Attribute {
                        name: QName {
                            prefix,
                            namespace,
                            local,
                        },
                        value: Cow::Borrowed(value),
                    },
                );
            }
            if self.attr_next == self.attrs.len() && self.attr_ns_pass {
                self.attr_ns_pass = false;
                self.attr_next = 0;
            }
        }
        if self.attr_ns_pass {
            self.attr_ns_pass = false;
            self.attr_next = 0;
            return self.attr_event();
        }
        self.attr_next = usize::MAX;
        Ok(None)
    }

    fn step(&mut self) -> Result<Option<Event<'a>>> {
        match self.state {
            State::Start => {
                let u = self.src.unit(true)?;
                if u.kind == UnitKind::Attributes {
                    self.json = false;
                    self.stack.push(Frame {
                        kind: FrameKind::Root,
                        remaining: u.count,
                        ns_len: 0,
                    });
                } else {
                    self.json = matches!(
                        u.kind,
                        UnitKind::Object
                            | UnitKind::Array
                            | UnitKind::String
                            | UnitKind::Number
                            | UnitKind::Literal
                    );
                    self.stack.push(Frame {
                        kind: FrameKind::Root,
                        remaining: 1,
                        ns_len: 0,
                    });
                    self.peeked = Some(u);
                }
                self.state = State::Body;
                self.ret(0, Event::start_document())
            }
            State::Body => {
                let top = self.stack.last_mut().unwrap();
                if top.remaining == 0 {
                    let f = self.stack.pop().unwrap();
                    let off = self.last_off as usize;
                    return match f.kind {
                        FrameKind::Root => {
                            self.src.end()?;
                            self.state = State::Done;
                            self.ret(off, Event::EndDocument)
                        }
                        FrameKind::Element => {
                            self.ns.truncate(f.ns_len);
                            self.ret(off, Event::EndElement)
                        }
                        FrameKind::Object | FrameKind::Array => self.ret(off, Event::EndElement),
                    };
                }
                top.remaining -= 1;
                let parent = top.kind;
                let ctx_json = match parent {
                    FrameKind::Object | FrameKind::Array => true,
                    FrameKind::Root => self.json,
                    FrameKind::Element => false,
                };
                let u = match self.peeked.take() {
                    Some(u) => u,
                    None => self.src.unit(ctx_json)?,
                };
                if self.json {
                    self.json_unit(u, parent).map(Some)
                } else {
                    self.xml_unit(u, parent)
                }
            }
            State::Done => Ok(None),
        }
    }

    #[inline]
    fn xml_unit(&mut self, u: Unit<'a>, parent: FrameKind) -> Result<Option<Event<'a>>> {
        match u.kind {
            UnitKind::Element => return self.element(u),
            UnitKind::Text if !u.value.is_empty() => {
                return self.ret(
                    u.off,
                    Event::Characters {
                        text: Cow::Borrowed(u.value),
                        cdata: false,
                    },
                );
            }
            _ => {}
        }
        match xml_item(&u, parent == FrameKind::Root)? {
            Some(ev) => self.ret(u.off, ev),
            None => Ok(None),
        }
    }

    fn lookup(&self, prefix: &str, off: usize) -> Result<Cow<'a, str>> {
        lookup(&self.ns, prefix, off)
    }

    fn element(&mut self, u: Unit<'a>) -> Result<Option<Event<'a>>> {
        let off = u.off;
        self.depth_check(off)?;
        let name = u.name.get();
        if name.is_empty() {
            return Err(Error::malformed(
                FORMAT,
                off as u64,
                "element without a name",
            ));
        }
        let mut remaining = u.count;
        self.attrs.clear();
        let ns_len = self.ns.len();
        if remaining > 0 {
            let first = self.src.unit(false)?;
            if first.kind == UnitKind::Attributes {
                remaining -= 1;
                for _ in 0..first.count {
                    let a = self.src.unit(false)?;
                    if !matches!(a.kind, UnitKind::Text | UnitKind::Attribute) {
                        return Err(Error::malformed(
                            FORMAT,
                            a.off as u64,
                            "an attribute list holds a unit that is not an attribute",
                        ));
                    }
                    let an = a.name.get();
                    if an.is_empty() {
                        return Err(Error::malformed(
                            FORMAT,
                            a.off as u64,
                            "attribute without a name",
                        ));
                    }
                    let ns = xmlns_kind(&an);
                    if ns == 1 {
                        self.ns.push((Cow::Borrowed(""), Cow::Borrowed(a.value)));
                    } else if ns == 2 {
                        self.ns.push((sub(&an, 6), Cow::Borrowed(a.value)));
                    }
                    self.attrs.push(AttrItem {
                        name: an,
                        value: a.value,
                        off: a.off,
                        ns,
                    });
                }
            } else {
                self.peeked = Some(first);
            }
        }
        let (prefix, local) = split_qname(&name);
        let uri = self.lookup(&prefix, off)?;
        if !self.attrs.is_empty() {
            self.attr_next = 0;
            self.attr_ns_pass = ns_len != self.ns.len();
        }
        self.stack.push(Frame {
            kind: FrameKind::Element,
            remaining,
            ns_len,
        });
        self.ret(
            off,
            Event::StartElement(QName {
                prefix,
                namespace: uri,
                local,
            }),
        )
    }

    /// A JSON value's StartElement; the rest of its events wait in `self.pend`.
    fn begin(
        &mut self,
        off: usize,
        key: Option<Cow<'a, str>>,
        root: bool,
        ty: JsonType,
        content: Content<'a>,
    ) -> Event<'a> {
        let (start, events) = ValueEvents::begin(key, root, ty, content);
        self.pend = Some(Pend { events, off });
        self.last_off = off as u64;
        start
    }

    fn json_unit(&mut self, u: Unit<'a>, parent: FrameKind) -> Result<Event<'a>> {
        let off = u.off;
        let root = parent == FrameKind::Root;
        let key = if parent == FrameKind::Object {
            Some(u.name.get())
        } else {
            None
        };
        let (ty, content) = match u.kind {
            UnitKind::Object | UnitKind::Array => {
                self.depth_check(off)?;
                let obj = u.kind == UnitKind::Object;
                let ev = self.begin(
                    off,
                    key,
                    root,
                    if obj {
                        JsonType::Object
                    } else {
                        JsonType::Array
                    },
                    Content::Open,
                );
                self.stack.push(Frame {
                    kind: if obj {
                        FrameKind::Object
                    } else {
                        FrameKind::Array
                    },
                    remaining: u.count,
                    ns_len: 0,
                });
                return Ok(ev);
            }
            UnitKind::String => (JsonType::String, Content::Str(Cow::Borrowed(u.value))),
            UnitKind::Number => {
                if !is_json_number(u.value) {
                    return Err(Error::malformed(
                        FORMAT,
                        off as u64,
                        format!("{:?} is not a JSON number", u.value),
                    ));
                }
                (
                    JsonType::Number,
                    Content::Typed(Typed::Number(Cow::Borrowed(u.value))),
                )
            }
            UnitKind::Literal => match u.value {
                "true" => (JsonType::Boolean, Content::Typed(Typed::Bool(true))),
                "false" => (JsonType::Boolean, Content::Typed(Typed::Bool(false))),
                "null" => (JsonType::Null, Content::Typed(Typed::Null)),
                v => {
                    return Err(Error::malformed(
                        FORMAT,
                        off as u64,
                        format!("{v:?} is not true, false or null"),
                    ));
                }
            },
            _ => {
                return Err(Error::malformed(
                    FORMAT,
                    off as u64,
                    "an XML unit in a JSON document",
                ));
            }
        };
        Ok(self.begin(off, key, root, ty, content))
    }
}

/// The events of a JSON value after its StartElement, all at the value's offset.
struct Pend<'a> {
    events: ValueEvents<'a>,
    off: usize,
}

#[cfg(test)]
mod tests {
    #[test]
    fn compact() {
        let mut o = String::new();
        super::compact_subset(
            "\n  <!ENTITY a \"x  y\">\n <!-- c  c --> %pe;\n<?p  d?>\n<!ATTLIST e a CDATA 'q > r'>  ",
            &mut o,
        );
        assert_eq!(
            o,
            "<!ENTITY a \"x  y\"><!-- c  c -->%pe;<?p  d?><!ATTLIST e a CDATA 'q > r'>"
        );
    }
}
