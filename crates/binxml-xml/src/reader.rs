//! The XML pull decoder: quick-xml underneath, plus what quick-xml leaves to its user —
//! namespace resolution, the internal DTD subset (entities, attribute defaults), well-formedness
//! checks on the document as a whole, and bounded entity expansion.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::rc::Rc;

use binxml_core::{error::line_col, DocType, Error, Event, Limits, QName, Result, XML_NS, XMLNS_NS};
use quick_xml::events::{BytesStart, Event as QEvent};
use quick_xml::Reader;

use crate::dtd::{split_doctype, Dtd, Entity};

const FMT: &str = "xml";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Before the first call: StartDocument not yet produced.
    Start,
    Prolog,
    Root,
    Epilog,
    Done,
}

/// A pull decoder of XML text. Strings borrow from the input unless escapes, entity expansion or
/// line-end normalization changed them.
///
/// The input must be UTF-8 (see [`crate::to_utf8`] for other encodings). External entities and
/// DTDs are never fetched: a reference to an external parsed entity becomes
/// [`Event::EntityReference`].
pub struct XmlDecoder<'a> {
    input: &'a [u8],
    /// `input` as text (empty when it is not valid UTF-8; the first call then fails).
    text_input: &'a str,
    /// Offset of `input` in the caller's buffer (a stripped byte-order mark).
    base: u64,
    reader: Reader<&'a [u8]>,
    limits: Limits,
    phase: Phase,
    pending: VecDeque<(u64, Event<'a>)>,
    /// Character data read but not yet emitted (adjacent text, references and CDATA merge).
    text: Option<(u64, Cow<'a, str>)>,
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    ns_marks: Vec<usize>,
    depth: usize,
    dtd: Rc<Dtd>,
    external_dtd: bool,
    standalone: bool,
    expanded: usize,
    entity_stack: Vec<String>,
    last_offset: u64,
    utf8_error: Option<(usize, &'static str)>,
}

/// The offset of the first character that XML 1.0 does not allow anywhere (control characters
/// other than tab, line feed and carriage return; U+FFFE and U+FFFF).
fn first_non_xml_char(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r') {
            return Some(i);
        }
        if c == 0xEF && b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn config(reader: &mut Reader<&[u8]>) {
    let c = reader.config_mut();
    c.check_end_names = true;
    c.check_comments = true;
    c.expand_empty_elements = false;
    c.trim_text(false);
    c.allow_dangling_amp = false;
    c.allow_unmatched_ends = false;
}

/// Re-slices `sub` (a slice pointing into `src`) with `src`'s lifetime.
fn rebase<'x>(src: &'x str, sub: &str) -> Option<&'x str> {
    let start = (sub.as_ptr() as usize).checked_sub(src.as_ptr() as usize)?;
    src.get(start..start + sub.len())
}

fn normalize_newlines<'x>(s: Cow<'x, str>) -> Cow<'x, str> {
    if s.contains('\r') {
        Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        s
    }
}

fn split_qname(raw: &str) -> (&str, &str) {
    match raw.find(':') {
        Some(i) => (&raw[..i], &raw[i + 1..]),
        None => ("", raw),
    }
}

impl<'a> XmlDecoder<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        let (input, base) = match input.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => (rest, 3),
            None => (input, 0),
        };
        let (text_input, utf8_error) = match std::str::from_utf8(input) {
            Ok(s) => match first_non_xml_char(s) {
                None => (s, None),
                Some(at) => ("", Some((at, "a character not allowed in XML"))),
            },
            Err(e) => ("", Some((e.valid_up_to(), "invalid UTF-8"))),
        };
        let mut reader = Reader::from_reader(text_input.as_bytes());
        config(&mut reader);
        XmlDecoder {
            input,
            text_input,
            base,
            reader,
            limits,
            phase: Phase::Start,
            pending: VecDeque::new(),
            text: None,
            ns: Vec::new(),
            ns_marks: Vec::new(),
            depth: 0,
            dtd: Rc::new(Dtd::default()),
            external_dtd: false,
            standalone: false,
            expanded: 0,
            entity_stack: Vec::new(),
            last_offset: base,
            utf8_error,
        }
    }

    fn err(&self, pos: u64, msg: impl Into<String>) -> Error {
        let (l, c) = line_col(self.input, pos as usize);
        Error::malformed(FMT, pos + self.base, msg).with_line_col(l, c)
    }

    fn limit_err(&self, pos: u64, msg: impl Into<String>) -> Error {
        let (l, c) = line_col(self.input, pos as usize);
        Error::limit(FMT, pos + self.base, msg).with_line_col(l, c)
    }

    fn qxml_err(&self, e: quick_xml::Error) -> Error {
        let pos = self.reader.error_position();
        self.err(pos, e.to_string())
    }

    fn push(&mut self, pos: u64, ev: Event<'a>) {
        self.pending.push_back((pos, ev));
    }

    fn flush_text(&mut self) {
        if let Some((pos, text)) = self.text.take() {
            self.pending.push_back((pos, Event::Characters { text, cdata: false }));
        }
    }

    fn add_text(&mut self, pos: u64, piece: Cow<'a, str>) -> Result<()> {
        if self.depth == 0 {
            if piece.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
                return Ok(());
            }
            return Err(self.err(pos, "character data outside the root element"));
        }
        match &mut self.text {
            None => self.text = Some((pos, piece)),
            Some((_, acc)) => {
                let s = acc.to_mut();
                if s.len() + piece.len() > self.limits.max_string_len {
                    return Err(self.limit_err(pos, "text longer than the string-length limit"));
                }
                s.push_str(&piece);
            }
        }
        Ok(())
    }

    fn lookup_ns(&self, prefix: &str) -> Option<Cow<'a, str>> {
        if prefix == "xml" {
            return Some(Cow::Borrowed(XML_NS));
        }
        self.ns.iter().rev().find(|(p, _)| p == prefix).map(|(_, u)| u.clone())
    }

    /// Reads the first event; produces StartDocument from the XML declaration when present.
    fn start(&mut self) -> Result<()> {
        if let Some((at, what)) = self.utf8_error {
            return Err(self.err(at as u64, what));
        }
        self.phase = Phase::Prolog;
        let pos = self.reader.buffer_position();
        let ev = self.reader.read_event().map_err(|e| self.qxml_err(e))?;
        if let QEvent::Decl(d) = &ev {
            let version = d.version().map_err(|e| self.err(pos, e.to_string()))?;
            let version = Cow::Owned(version.into_owned());
            let encoding = match d.encoding() {
                Some(Ok(e)) => Some(Cow::Owned(e.into_owned())),
                Some(Err(e)) => return Err(self.err(pos, e.to_string())),
                None => None,
            };
            let standalone = match d.standalone() {
                Some(Ok(s)) => match &*s {
                    "yes" => Some(true),
                    "no" => Some(false),
                    other => return Err(self.err(pos, format!("bad standalone value {other:?}"))),
                },
                Some(Err(e)) => return Err(self.err(pos, e.to_string())),
                None => None,
            };
            if version != "1.0" && version != "1.1" {
                return Err(self.err(pos, format!("unsupported XML version {version:?}")));
            }
            self.standalone = standalone == Some(true);
            self.push(pos, Event::StartDocument { version: Some(version), encoding, standalone });
            Ok(())
        } else {
            self.push(pos, Event::start_document());
            let input = self.text_input;
            self.process(ev, pos, input, &|c| c)
        }
    }

    /// Handles one quick-xml event read from `src` (the document, or an entity's replacement
    /// text), converting its strings with `lift`.
    fn process<'x>(
        &mut self,
        ev: QEvent<'x>,
        pos: u64,
        src: &'x str,
        lift: &dyn Fn(Cow<'x, str>) -> Cow<'a, str>,
    ) -> Result<()> {
        match ev {
            QEvent::Text(t) => {
                let piece = lift(t.xml10_content());
                self.add_text(pos, piece)?;
            }
            QEvent::GeneralRef(r) => {
                if r.is_char_ref() {
                    let c = r
                        .resolve_char_ref()
                        .map_err(|e| self.err(pos, e.to_string()))?
                        .filter(|&c| crate::dtd::is_xml_char(c))
                        .ok_or_else(|| self.err(pos, "character reference to a non-XML character"))?;
                    self.add_text(pos, Cow::Owned(c.to_string()))?;
                } else {
                    let name = r.to_string();
                    self.reference(pos, &name)?;
                }
            }
            QEvent::CData(c) => {
                if self.depth == 0 {
                    return Err(self.err(pos, "CDATA section outside the root element"));
                }
                self.flush_text();
                let text = lift(normalize_newlines(c.into_inner()));
                self.push(pos, Event::Characters { text, cdata: true });
            }
            QEvent::Start(e) => {
                self.flush_text();
                self.start_tag(&e, pos, src, lift)?;
            }
            QEvent::Empty(e) => {
                self.flush_text();
                self.start_tag(&e, pos, src, lift)?;
                self.end_tag(pos);
            }
            QEvent::End(_) => {
                self.flush_text();
                self.end_tag(pos);
            }
            QEvent::Comment(c) => {
                self.flush_text();
                let text = lift(normalize_newlines(c.into_inner()));
                self.push(pos, Event::Comment(text));
            }
            QEvent::PI(p) => {
                self.flush_text();
                let target = p.target().to_string();
                if target.eq_ignore_ascii_case("xml") {
                    return Err(self.err(pos, "the XML declaration is only allowed at the start of the document"));
                }
                if target.contains(':') {
                    return Err(self.err(pos, format!("processing instruction target {target:?} contains a colon")));
                }
                let data = normalize_newlines(Cow::Owned(p.content().trim_start_matches([' ', '\t', '\r', '\n']).to_string()));
                self.push(pos, Event::ProcessingInstruction { target: Cow::Owned(target), data: lift(data) });
            }
            QEvent::Decl(_) => {
                return Err(self.err(pos, "the XML declaration is only allowed at the start of the document"));
            }
            QEvent::DocType(d) => {
                if self.phase != Phase::Prolog || !self.entity_stack.is_empty() {
                    return Err(self.err(pos, "DOCTYPE after the root element started"));
                }
                self.doctype(pos, lift(d.into_inner()))?;
            }
            QEvent::Eof => {}
        }
        Ok(())
    }

    fn doctype(&mut self, pos: u64, content: Cow<'a, str>) -> Result<()> {
        if self.dtd.entities.len() + self.dtd.attlists.len() > 0 || self.external_dtd {
            return Err(self.err(pos, "a second DOCTYPE"));
        }
        let owned;
        let text: &str = match &content {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => {
                owned = s.clone();
                &owned
            }
        };
        let parts = split_doctype(text).map_err(|m| self.err(pos, m))?;
        let dtd = match parts.internal_subset {
            Some(subset) => Dtd::parse(subset, self.standalone, self.limits.max_entity_expansion)
                .map_err(|m| self.err(pos, format!("in the internal DTD subset: {m}")))?,
            None => Dtd::default(),
        };
        self.external_dtd = parts.system_id.is_some();
        // Borrow the parts from the input when the DOCTYPE text is borrowed.
        let conv = |s: &str| -> Cow<'a, str> {
            match &content {
                Cow::Borrowed(b) => {
                    let start = s.as_ptr() as usize - b.as_ptr() as usize;
                    Cow::Borrowed(&b[start..start + s.len()])
                }
                Cow::Owned(_) => Cow::Owned(s.to_string()),
            }
        };
        let doctype = DocType {
            name: conv(parts.name),
            public_id: parts.public_id.map(conv),
            system_id: parts.system_id.map(conv),
            internal_subset: parts.internal_subset.map(conv),
        };
        self.push(pos, Event::DocType(doctype));
        for (name, public_id, system_id) in &dtd.notations {
            self.pending.push_back((
                pos,
                Event::Notation {
                    name: Cow::Owned(name.clone()),
                    public_id: public_id.clone().map(Cow::Owned),
                    system_id: system_id.clone().map(Cow::Owned),
                },
            ));
        }
        let mut unparsed: Vec<_> = dtd
            .entities
            .iter()
            .filter_map(|(name, e)| match e {
                Entity::Unparsed { public_id, system_id, notation } => Some((name.clone(), public_id.clone(), system_id.clone(), notation.clone())),
                _ => None,
            })
            .collect();
        unparsed.sort();
        for (name, public_id, system_id, notation) in unparsed {
            self.pending.push_back((
                pos,
                Event::UnparsedEntity {
                    name: Cow::Owned(name),
                    public_id: public_id.map(Cow::Owned),
                    system_id: Cow::Owned(system_id),
                    notation: Cow::Owned(notation),
                },
            ));
        }
        self.dtd = Rc::new(dtd);
        Ok(())
    }

    /// A general entity reference in content.
    fn reference(&mut self, pos: u64, name: &str) -> Result<()> {
        if let Some(t) = quick_xml::escape::resolve_predefined_entity(name) {
            return self.add_text(pos, Cow::Borrowed(t));
        }
        if self.depth == 0 {
            return Err(self.err(pos, format!("entity reference &{name}; outside the root element")));
        }
        let dtd = self.dtd.clone();
        match dtd.entities.get(name) {
            Some(Entity::Internal(text)) => {
                if self.entity_stack.iter().any(|n| n == name) {
                    return Err(self.err(pos, format!("recursive entity reference &{name};")));
                }
                if self.entity_stack.len() >= self.limits.max_entity_depth {
                    return Err(self.limit_err(pos, format!("entity references nested deeper than {}", self.limits.max_entity_depth)));
                }
                self.expanded = self.expanded.saturating_add(text.len());
                if self.expanded > self.limits.max_entity_expansion {
                    return Err(self.limit_err(
                        pos,
                        format!("entity expansion exceeds the limit of {} bytes (at &{name};)", self.limits.max_entity_expansion),
                    ));
                }
                if !text.contains(['<', '&']) {
                    return self.add_text(pos, Cow::Owned(text.clone()));
                }
                self.entity_stack.push(name.to_string());
                let depth = self.depth;
                let mut reader = Reader::from_str(text);
                config(&mut reader);
                let owned = |c: Cow<'_, str>| -> Cow<'a, str> { Cow::Owned(c.into_owned()) };
                loop {
                    let ev = reader
                        .read_event()
                        .map_err(|e| self.err(pos, format!("in the replacement text of &{name};: {e}")))?;
                    if matches!(ev, QEvent::Eof) {
                        break;
                    }
                    if matches!(ev, QEvent::End(_)) && self.depth <= depth {
                        return Err(self.err(pos, format!("the replacement text of &{name}; closes an element it did not open")));
                    }
                    if matches!(ev, QEvent::DocType(_) | QEvent::Decl(_)) {
                        return Err(self.err(pos, format!("markup not allowed in the replacement text of &{name};")));
                    }
                    self.process(ev, pos, text, &owned)?;
                }
                if self.depth != depth {
                    return Err(self.err(pos, format!("the replacement text of &{name}; leaves an element open")));
                }
                self.entity_stack.pop();
                Ok(())
            }
            Some(Entity::External { public_id, system_id }) => {
                self.flush_text();
                self.push(
                    pos,
                    Event::EntityReference {
                        name: Cow::Owned(name.to_string()),
                        public_id: public_id.clone().map(Cow::Owned),
                        system_id: Some(Cow::Owned(system_id.clone())),
                    },
                );
                Ok(())
            }
            Some(Entity::Unparsed { .. }) => Err(self.err(pos, format!("reference to the unparsed entity &{name};"))),
            None => {
                if (self.external_dtd || self.dtd.skipped_declarations) && !self.standalone {
                    // Possibly declared in the external subset, which is never read.
                    self.flush_text();
                    self.push(pos, Event::EntityReference { name: Cow::Owned(name.to_string()), public_id: None, system_id: None });
                    Ok(())
                } else {
                    Err(self.err(pos, format!("undeclared entity &{name};")))
                }
            }
        }
    }

    /// Normalizes an attribute value (XML 1.0 section 3.3.3): references replaced, white space
    /// characters turned into spaces, and for non-CDATA declared types, spaces collapsed.
    fn attr_value<'x>(&mut self, pos: u64, raw: &'x str, cdata: bool) -> Result<Cow<'x, str>> {
        let needs = raw.bytes().any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r'));
        let value: Cow<'x, str> = if needs {
            let mut out = String::with_capacity(raw.len());
            self.normalize_into(pos, raw, &mut out, 0)?;
            Cow::Owned(out)
        } else {
            Cow::Borrowed(raw)
        };
        if cdata || !value.contains(' ') {
            return Ok(value);
        }
        let collapsed: Vec<&str> = value.split(' ').filter(|s| !s.is_empty()).collect();
        Ok(Cow::Owned(collapsed.join(" ")))
    }

    fn normalize_into(&mut self, pos: u64, raw: &str, out: &mut String, level: usize) -> Result<()> {
        let mut rest = raw;
        while let Some(i) = rest.find(['&', '\t', '\n', '\r', '<']) {
            out.push_str(&rest[..i]);
            let c = rest.as_bytes()[i];
            match c {
                b'<' => return Err(self.err(pos, "'<' in an attribute value")),
                b'\r' => {
                    out.push(' ');
                    rest = &rest[i + 1..];
                    if rest.starts_with('\n') && level == 0 {
                        rest = &rest[1..];
                    }
                }
                b'\t' | b'\n' => {
                    out.push(' ');
                    rest = &rest[i + 1..];
                }
                _ => {
                    let after = &rest[i + 1..];
                    let end = after.find(';').ok_or_else(|| self.err(pos, "'&' without ';' in an attribute value"))?;
                    let name = &after[..end];
                    rest = &after[end + 1..];
                    if let Some(num) = name.strip_prefix('#') {
                        let code = match num.strip_prefix('x') {
                            Some(h) => u32::from_str_radix(h, 16).ok(),
                            None => num.parse::<u32>().ok(),
                        };
                        let ch = code
                            .and_then(char::from_u32)
                            .filter(|&c| crate::dtd::is_xml_char(c))
                            .ok_or_else(|| self.err(pos, format!("bad character reference &{name};")))?;
                        out.push(ch);
                    } else if let Some(t) = quick_xml::escape::resolve_predefined_entity(name) {
                        out.push_str(t);
                    } else {
                        let dtd = self.dtd.clone();
                        match dtd.entities.get(name) {
                            Some(Entity::Internal(text)) => {
                                if level >= self.limits.max_entity_depth {
                                    return Err(self.limit_err(pos, "entity references in an attribute value nested too deeply"));
                                }
                                self.expanded = self.expanded.saturating_add(text.len());
                                if self.expanded > self.limits.max_entity_expansion {
                                    return Err(self.limit_err(pos, format!("entity expansion exceeds the limit of {} bytes", self.limits.max_entity_expansion)));
                                }
                                self.normalize_into(pos, text, out, level + 1)?;
                            }
                            Some(_) => return Err(self.err(pos, format!("reference to the external entity &{name}; in an attribute value"))),
                            None => return Err(self.err(pos, format!("undeclared entity &{name}; in an attribute value"))),
                        }
                    }
                    if out.len() > self.limits.max_string_len {
                        return Err(self.limit_err(pos, "attribute value longer than the string-length limit"));
                    }
                }
            }
        }
        out.push_str(rest);
        Ok(())
    }

    fn start_tag<'x>(
        &mut self,
        e: &BytesStart<'x>,
        pos: u64,
        src: &'x str,
        lift: &dyn Fn(Cow<'x, str>) -> Cow<'a, str>,
    ) -> Result<()> {
        if self.depth == 0 {
            match self.phase {
                Phase::Epilog => return Err(self.err(pos, "a second root element")),
                _ => self.phase = Phase::Root,
            }
        }
        if self.depth >= self.limits.max_depth {
            return Err(self.limit_err(pos, format!("elements nested deeper than {}", self.limits.max_depth)));
        }
        self.depth += 1;
        let tag: &'x str = rebase(src, e).ok_or_else(|| self.err(pos, "internal: tag outside its source"))?;
        let raw_name = &tag[..e.name().0.len()];
        let dtd = self.dtd.clone();
        let decls = if dtd.attlists.is_empty() { None } else { dtd.attlists.get(raw_name) };
        let is_cdata = |attr: &str| decls.and_then(|d| d.iter().find(|a| a.name == attr)).is_none_or(|a| a.cdata);

        // Pass 1: namespace declarations (explicit, then defaulted).
        self.ns_marks.push(self.ns.len());
        let has_xmlns = tag.contains("xmlns")
            || decls.is_some_and(|d| d.iter().any(|a| a.name.starts_with("xmlns") && a.default.is_some()));
        let first_ns = self.ns.len();
        if has_xmlns {
            for attr in e.attributes().with_checks(true) {
                let attr = attr.map_err(|er| self.err(pos, er.to_string()))?;
                let key = attr.key.0;
                if key == "xmlns" || key.starts_with("xmlns:") {
                    let raw_val = match rebase(src, &attr.value) {
                        Some(v) => v,
                        None => return Err(self.err(pos, "internal: attribute value outside its source")),
                    };
                    let value = lift(self.attr_value(pos, raw_val, true)?);
                    let prefix: Cow<'x, str> = Cow::Borrowed(if key == "xmlns" { "" } else { &rebase(src, attr.key.0).unwrap_or("xmlns:")[6..] });
                    self.declare_ns(pos, lift(prefix), value)?;
                }
            }
            if let Some(d) = decls {
                for a in d.iter().filter(|a| a.name == "xmlns" || a.name.starts_with("xmlns:")) {
                    let Some(default) = &a.default else { continue };
                    let prefix = if a.name == "xmlns" { "" } else { &a.name[6..] };
                    if self.ns[first_ns..].iter().any(|(p, _)| p == prefix) {
                        continue;
                    }
                    let value = self.attr_value(pos, default, true)?.into_owned();
                    self.declare_ns(pos, Cow::Owned(prefix.to_string()), Cow::Owned(value))?;
                }
            }
        }

        let (prefix, local) = split_qname(raw_name);
        let namespace = match self.lookup_ns(prefix) {
            Some(u) => u,
            None if prefix.is_empty() => Cow::Borrowed(""),
            None => return Err(self.err(pos, format!("undeclared namespace prefix {prefix:?} on element <{raw_name}>"))),
        };
        if local.is_empty() || local.contains(':') {
            return Err(self.err(pos, format!("element name {raw_name:?} is not a valid qualified name")));
        }
        let (pb, lb) = match raw_name.find(':') {
            Some(i) => (&raw_name[..i], &raw_name[i + 1..]),
            None => ("", raw_name),
        };
        let name = QName { prefix: lift(Cow::Borrowed(pb)), namespace, local: lift(Cow::Borrowed(lb)) };
        self.push(pos, Event::StartElement(name));
        for i in first_ns..self.ns.len() {
            let (p, u) = self.ns[i].clone();
            self.push(pos, Event::Namespace { prefix: p, uri: u });
        }

        // Pass 2: ordinary attributes, then defaults.
        let first_attr = self.pending.len();
        for attr in e.attributes().with_checks(true) {
            let attr = attr.map_err(|er| self.err(pos, er.to_string()))?;
            let key = rebase(src, attr.key.0).ok_or_else(|| self.err(pos, "internal: attribute outside its source"))?;
            if key == "xmlns" || key.starts_with("xmlns:") {
                continue;
            }
            let raw_val = match rebase(src, &attr.value) {
                Some(v) => v,
                None => return Err(self.err(pos, "internal: attribute value outside its source")),
            };
            let value = lift(self.attr_value(pos, raw_val, is_cdata(key))?);
            let qn = self.attr_name(pos, lift(Cow::Borrowed(key)))?;
            self.push_attr(pos, first_attr, qn, value)?;
        }
        if let Some(d) = decls {
            for a in d {
                let Some(default) = &a.default else { continue };
                if a.name == "xmlns" || a.name.starts_with("xmlns:") {
                    continue;
                }
                let present = self.pending.iter().skip(first_attr).any(|(_, ev)| {
                    matches!(ev, Event::Attribute { name, .. } if name.qualified() == a.name)
                });
                if present {
                    continue;
                }
                let value = self.attr_value(pos, default, a.cdata)?.into_owned();
                let qn = self.attr_name(pos, Cow::Owned(a.name.clone()))?;
                self.push_attr(pos, first_attr, qn, Cow::Owned(value))?;
            }
        }
        Ok(())
    }

    fn declare_ns(&mut self, pos: u64, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        if prefix == "xmlns" {
            return Err(self.err(pos, "the prefix xmlns must not be declared"));
        }
        if (prefix == "xml") != (uri == XML_NS) {
            return Err(self.err(pos, "the prefix xml is bound only to the XML namespace"));
        }
        if uri == XMLNS_NS {
            return Err(self.err(pos, "the xmlns namespace must not be declared"));
        }
        if !prefix.is_empty() && uri.is_empty() {
            return Err(self.err(pos, format!("prefix {prefix:?} bound to the empty namespace name")));
        }
        let mark = *self.ns_marks.last().unwrap_or(&0);
        if self.ns[mark..].iter().any(|(p, _)| *p == prefix) {
            return Err(self.err(pos, format!("namespace prefix {prefix:?} declared twice on one element")));
        }
        if self.ns.len() - mark >= self.limits.max_table_entries {
            return Err(self.limit_err(pos, "too many namespace declarations"));
        }
        self.ns.push((prefix, uri));
        Ok(())
    }

    fn attr_name(&self, pos: u64, key: Cow<'a, str>) -> Result<QName<'a>> {
        let (prefix, local) = match &key {
            Cow::Borrowed(k) => {
                let (p, l) = split_qname(k);
                (Cow::Borrowed(p), Cow::Borrowed(l))
            }
            Cow::Owned(k) => {
                let (p, l) = split_qname(k);
                (Cow::Owned(p.to_string()), Cow::Owned(l.to_string()))
            }
        };
        if local.is_empty() || local.contains(':') {
            return Err(self.err(pos, format!("attribute name {key:?} is not a valid qualified name")));
        }
        let namespace = if prefix.is_empty() {
            Cow::Borrowed("")
        } else {
            self.lookup_ns(&prefix)
                .ok_or_else(|| self.err(pos, format!("undeclared namespace prefix {prefix:?} on attribute {key:?}")))?
        };
        Ok(QName { prefix, namespace, local })
    }

    fn push_attr(&mut self, pos: u64, first_attr: usize, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        let dup = self.pending.iter().skip(first_attr).any(|(_, ev)| {
            matches!(ev, Event::Attribute { name: n, .. } if n.local == name.local && n.namespace == name.namespace)
        });
        if dup {
            return Err(self.err(pos, format!("duplicate attribute {}", name.qualified())));
        }
        self.push(pos, Event::Attribute { name, value });
        Ok(())
    }

    fn end_tag(&mut self, pos: u64) {
        self.depth -= 1;
        if let Some(mark) = self.ns_marks.pop() {
            self.ns.truncate(mark);
        }
        self.push(pos, Event::EndElement);
        if self.depth == 0 {
            self.phase = Phase::Epilog;
        }
    }

    fn fill(&mut self) -> Result<()> {
        let input = self.text_input;
        while self.pending.is_empty() {
            match self.phase {
                Phase::Done => return Ok(()),
                Phase::Start => {
                    self.start()?;
                    continue;
                }
                _ => {}
            }
            let pos = self.reader.buffer_position();
            let ev = self.reader.read_event().map_err(|e| self.qxml_err(e))?;
            if let QEvent::Eof = ev {
                self.flush_text();
                if self.depth > 0 {
                    return Err(self.err(pos, format!("unexpected end of input: {} element(s) not closed", self.depth)));
                }
                if self.phase != Phase::Epilog {
                    return Err(self.err(pos, "no root element"));
                }
                self.phase = Phase::Done;
                self.push(pos, Event::EndDocument);
                return Ok(());
            }
            self.process(ev, pos, input, &|c| c)?;
        }
        Ok(())
    }
}

impl<'a> binxml_core::Decoder<'a> for XmlDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if self.pending.is_empty() {
            self.fill()?;
        }
        Ok(self.pending.pop_front().map(|(pos, ev)| {
            self.last_offset = pos + self.base;
            ev
        }))
    }

    fn offset(&self) -> u64 {
        self.last_offset
    }
}
