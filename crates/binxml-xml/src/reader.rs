//! The XML pull decoder: quick-xml underneath, plus what quick-xml leaves to its user —
//! namespace resolution, the internal DTD subset (entities, attribute defaults), well-formedness
//! checks on the document as a whole, and bounded entity expansion.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::rc::Rc;

use binxml_core::{error::line_col, DocType, Error, Event, Limits, QName, Result, XML_NS, XMLNS_NS};
use quick_xml::events::attributes::Attributes;
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
    /// A quick-xml event read ahead (after text, to see whether more text follows).
    peeked: Option<(u64, QEvent<'a>)>,
    /// The start tag whose namespace and attribute events are being produced.
    tag: Option<TagState<'a>>,
    /// Namespaced attributes of the current tag, for the duplicate check.
    nsattrs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// Raw attribute names of the current tag, kept when the DTD declares defaults for it.
    seen_raw: Vec<Cow<'a, str>>,
}

/// A start tag of the document being turned into events one at a time.
struct TagState<'a> {
    attrs: Attributes<'a>,
    raw_name: &'a str,
    pos: u64,
    /// Namespace declarations still to produce: `ns[next..end]`.
    ns_next: usize,
    ns_end: usize,
    /// An empty-element tag: EndElement follows the attributes.
    empty: bool,
}

/// The offset of the first character that XML 1.0 does not allow anywhere (control characters
/// other than tab, line feed and carriage return; U+FFFE and U+FFFF).
pub(crate) fn first_non_xml_char(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    // Control characters other than tab, line feed and carriage return, 64 bytes at a time
    // (branch-free, so the compiler vectorizes it); the exact position only on a hit.
    let bad = |c: u8| (c < 0x20) & (c != b'\t') & (c != b'\n') & (c != b'\r');
    let mut chunks = b.chunks_exact(64);
    let mut base = 0;
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, &c| acc | bad(c)) {
            return chunk.iter().position(|&c| bad(c)).map(|k| base + k);
        }
        base += 64;
    }
    if let Some(k) = chunks.remainder().iter().position(|&c| bad(c)) {
        return Some(base + k);
    }
    // U+FFFE and U+FFFF.
    memchr::memmem::find_iter(b, b"\xEF\xBF").find(|&p| matches!(b.get(p + 2), Some(0xBE | 0xBF)))
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
    match raw.as_bytes().iter().position(|&b| b == b':') {
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
        let mut reader = Reader::from_str(text_input);
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
            peeked: None,
            tag: None,
            nsattrs: Vec::new(),
            seen_raw: Vec::new(),
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
    fn process<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(&mut self, ev: QEvent<'x>, pos: u64, src: &'x str, lift: &L) -> Result<()> {
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

    /// Opens an element: depth and root checks, namespace declarations (explicit, then
    /// defaulted from the DTD), and the element's resolved name. `tag` is the text between `<`
    /// and `>`; its name is the first `name_len` bytes.
    fn open_tag<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(&mut self, tag: &'x str, name_len: usize, pos: u64, lift: &L) -> Result<QName<'a>> {
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
        self.nsattrs.clear();
        self.seen_raw.clear();
        let raw_name = &tag[..name_len];
        let dtd = self.dtd.clone();
        let decls = if dtd.attlists.is_empty() { None } else { dtd.attlists.get(raw_name) };

        self.ns_marks.push(self.ns.len());
        let has_xmlns = memchr::memmem::find(tag.as_bytes(), b"xmlns").is_some()
            || decls.is_some_and(|d| d.iter().any(|a| a.name.starts_with("xmlns") && a.default.is_some()));
        if has_xmlns {
            let first_ns = self.ns.len();
            for attr in Attributes::new(tag, name_len).with_checks(true) {
                let attr = attr.map_err(|er| self.err(pos, er.to_string()))?;
                let key = attr.key.0;
                if key == "xmlns" || key.starts_with("xmlns:") {
                    let raw_val = match attr.value {
                        Cow::Borrowed(v) => v,
                        Cow::Owned(_) => return Err(self.err(pos, "internal: attribute value not borrowed")),
                    };
                    let value = lift(self.attr_value(pos, raw_val, true)?);
                    let prefix: Cow<'x, str> = Cow::Borrowed(if key == "xmlns" { "" } else { &key[6..] });
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
        Ok(QName { prefix: lift(Cow::Borrowed(prefix)), namespace, local: lift(Cow::Borrowed(local)) })
    }

    /// One explicit attribute of the open tag as an event (`None` for namespace declarations).
    fn tag_attr<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &mut self,
        attr: quick_xml::events::attributes::Attribute<'x>,
        raw_name: &str,
        pos: u64,
        lift: &L,
    ) -> Result<Option<Event<'a>>> {
        let key = attr.key.0;
        if key == "xmlns" || key.starts_with("xmlns:") {
            return Ok(None);
        }
        let raw_val = match attr.value {
            Cow::Borrowed(v) => v,
            Cow::Owned(_) => return Err(self.err(pos, "internal: attribute value not borrowed")),
        };
        let dtd = self.dtd.clone();
        let decl = if dtd.attlists.is_empty() {
            None
        } else {
            dtd.attlists.get(raw_name).map(|d| (d, d.iter().find(|a| a.name == key)))
        };
        let cdata = decl.and_then(|(_, a)| a).is_none_or(|a| a.cdata);
        let value = lift(self.attr_value(pos, raw_val, cdata)?);
        let key = lift(Cow::Borrowed(key));
        if decl.is_some() {
            self.seen_raw.push(key.clone());
        }
        let name = self.attr_name(pos, key)?;
        self.check_dup(pos, &name)?;
        Ok(Some(Event::Attribute { name, value }))
    }

    /// Attributes in no namespace have distinct raw names (quick-xml checks that), so only
    /// namespaced ones can collide by expanded name.
    fn check_dup(&mut self, pos: u64, name: &QName<'a>) -> Result<()> {
        if name.namespace.is_empty() {
            return Ok(());
        }
        if self.nsattrs.iter().any(|(ns, l)| *ns == name.namespace && *l == name.local) {
            return Err(self.err(pos, format!("duplicate attribute {}", name.qualified())));
        }
        self.nsattrs.push((name.namespace.clone(), name.local.clone()));
        Ok(())
    }

    /// Queues the attributes the DTD defaults and the tag did not give.
    fn tag_defaults(&mut self, raw_name: &str, pos: u64) -> Result<()> {
        let dtd = self.dtd.clone();
        let Some(decls) = (if dtd.attlists.is_empty() { None } else { dtd.attlists.get(raw_name) }) else { return Ok(()) };
        for a in decls {
            let Some(default) = &a.default else { continue };
            if a.name == "xmlns" || a.name.starts_with("xmlns:") || self.seen_raw.iter().any(|k| *k == a.name) {
                continue;
            }
            let value = self.attr_value(pos, default, a.cdata)?.into_owned();
            let name = self.attr_name(pos, Cow::Owned(a.name.clone()))?;
            self.check_dup(pos, &name)?;
            self.push(pos, Event::Attribute { name, value: Cow::Owned(value) });
        }
        Ok(())
    }

    /// An element start read from an entity's replacement text: all its events are queued.
    fn start_tag<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(&mut self, e: &BytesStart<'x>, pos: u64, src: &'x str, lift: &L) -> Result<()> {
        let tag: &'x str = rebase(src, e).ok_or_else(|| self.err(pos, "internal: tag outside its source"))?;
        let name_len = e.name().0.len();
        let first_ns = self.ns.len();
        let name = self.open_tag(tag, name_len, pos, lift)?;
        self.push(pos, Event::StartElement(name));
        for i in first_ns..self.ns.len() {
            let (p, u) = self.ns[i].clone();
            self.push(pos, Event::Namespace { prefix: p, uri: u });
        }
        for attr in Attributes::new(tag, name_len).with_checks(true) {
            let attr = attr.map_err(|er| self.err(pos, er.to_string()))?;
            if let Some(ev) = self.tag_attr(attr, &tag[..name_len], pos, lift)? {
                self.push(pos, ev);
            }
        }
        self.tag_defaults(&tag[..name_len], pos)
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
        // The common case: an unprefixed name borrowed from the input.
        if let Cow::Borrowed(k) = key {
            if !k.is_empty() && !k.as_bytes().contains(&b':') {
                return Ok(QName { prefix: Cow::Borrowed(""), namespace: Cow::Borrowed(""), local: Cow::Borrowed(k) });
            }
        }
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

    fn end_tag(&mut self, pos: u64) {
        self.close_element();
        self.push(pos, Event::EndElement);
    }

    fn close_element(&mut self) {
        self.depth -= 1;
        if let Some(mark) = self.ns_marks.pop() {
            self.ns.truncate(mark);
        }
        if self.depth == 0 {
            self.phase = Phase::Epilog;
        }
    }

    /// The next event of the open start tag, or `None` when it is done.
    fn next_in_tag(&mut self) -> Result<Option<Event<'a>>> {
        let Some(t) = self.tag.as_mut() else { return Ok(None) };
        let pos = t.pos;
        if t.ns_next < t.ns_end {
            let (p, u) = self.ns[t.ns_next].clone();
            t.ns_next += 1;
            return Ok(Some(Event::Namespace { prefix: p, uri: u }));
        }
        loop {
            let t = self.tag.as_mut().unwrap();
            let raw_name = t.raw_name;
            match t.attrs.next() {
                Some(attr) => {
                    let attr = attr.map_err(|er| self.err(pos, er.to_string()))?;
                    if let Some(ev) = self.tag_attr(attr, raw_name, pos, &|c| c)? {
                        return Ok(Some(ev));
                    }
                }
                None => {
                    let empty = t.empty;
                    self.tag = None;
                    self.tag_defaults(raw_name, pos)?;
                    if empty {
                        self.end_tag(pos);
                    }
                    return Ok(None);
                }
            }
        }
    }

    /// A start tag of the document: produces StartElement now, its namespace declarations and
    /// attributes on the following calls.
    fn lazy_open(&mut self, e: BytesStart<'a>, pos: u64, empty: bool) -> Result<Event<'a>> {
        let input = self.text_input;
        let tag: &'a str = rebase(input, &e).ok_or_else(|| self.err(pos, "internal: tag outside its source"))?;
        let name_len = e.name().0.len();
        let first_ns = self.ns.len();
        let name = self.open_tag(tag, name_len, pos, &|c| c)?;
        let mut attrs = Attributes::new(tag, name_len);
        attrs.with_checks(true);
        self.tag = Some(TagState { attrs, raw_name: &tag[..name_len], pos, ns_next: first_ns, ns_end: self.ns.len(), empty });
        self.last_offset = pos + self.base;
        Ok(Event::StartElement(name))
    }

    fn read(&mut self) -> Result<(u64, QEvent<'a>)> {
        if let Some(p) = self.peeked.take() {
            return Ok(p);
        }
        let pos = self.reader.buffer_position();
        let ev = self.reader.read_event().map_err(|e| self.qxml_err(e))?;
        Ok((pos, ev))
    }

    fn next(&mut self) -> Result<Option<Event<'a>>> {
        let input = self.text_input;
        loop {
            if let Some((pos, ev)) = self.pending.pop_front() {
                self.last_offset = pos + self.base;
                return Ok(Some(ev));
            }
            if self.tag.is_some() {
                if let Some(ev) = self.next_in_tag()? {
                    return Ok(Some(ev));
                }
                continue;
            }
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Start => {
                    self.start()?;
                    continue;
                }
                _ => {}
            }
            let (pos, ev) = self.read()?;
            match ev {
                QEvent::Start(e) => return self.lazy_open(e, pos, false).map(Some),
                QEvent::Empty(e) => return self.lazy_open(e, pos, true).map(Some),
                QEvent::End(_) => {
                    self.close_element();
                    self.last_offset = pos + self.base;
                    return Ok(Some(Event::EndElement));
                }
                QEvent::Text(_) | QEvent::GeneralRef(_) => {
                    self.process(ev, pos, input, &|c| c)?;
                    loop {
                        let (p2, next) = self.read()?;
                        if matches!(next, QEvent::Text(_) | QEvent::GeneralRef(_)) {
                            self.process(next, p2, input, &|c| c)?;
                        } else {
                            self.peeked = Some((p2, next));
                            break;
                        }
                    }
                    self.flush_text();
                }
                QEvent::Eof => {
                    self.flush_text();
                    if self.depth > 0 {
                        return Err(self.err(pos, format!("unexpected end of input: {} element(s) not closed", self.depth)));
                    }
                    if self.phase != Phase::Epilog {
                        return Err(self.err(pos, "no root element"));
                    }
                    self.phase = Phase::Done;
                    self.push(pos, Event::EndDocument);
                }
                other => self.process(other, pos, input, &|c| c)?,
            }
        }
    }
}

impl<'a> binxml_core::Decoder<'a> for XmlDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        let ev = self.next()?;
        // `Limits::max_string_len` for every string, also those borrowed from the input.
        if let Some(e) = &ev {
            if longest_string(e) > self.limits.max_string_len {
                return Err(self.limit_err(self.last_offset, format!("string longer than the limit of {} bytes", self.limits.max_string_len)));
            }
        }
        Ok(ev)
    }

    fn offset(&self) -> u64 {
        self.last_offset
    }
}

/// The length in bytes of the longest string an event carries.
fn longest_string(ev: &Event<'_>) -> usize {
    let q = |q: &QName<'_>| q.prefix.len().max(q.namespace.len()).max(q.local.len());
    let o = |s: &Option<Cow<'_, str>>| s.as_ref().map_or(0, |s| s.len());
    match ev {
        Event::StartElement(n) => q(n),
        Event::Attribute { name, value } => q(name).max(value.len()),
        Event::Namespace { prefix, uri } => prefix.len().max(uri.len()),
        Event::Characters { text, .. } | Event::Comment(text) => text.len(),
        Event::ProcessingInstruction { target, data } => target.len().max(data.len()),
        Event::DocType(d) => d.name.len().max(o(&d.public_id)).max(o(&d.system_id)).max(o(&d.internal_subset)),
        Event::EntityReference { name, public_id, system_id } => name.len().max(o(public_id)).max(o(system_id)),
        Event::Notation { name, public_id, system_id } => name.len().max(o(public_id)).max(o(system_id)),
        Event::UnparsedEntity { name, public_id, system_id, notation } => {
            name.len().max(o(public_id)).max(system_id.len()).max(notation.len())
        }
        _ => 0,
    }
}
