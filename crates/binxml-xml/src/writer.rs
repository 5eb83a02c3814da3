//! The XML writer: events -> XML text (always UTF-8).
//!
//! It escapes correctly (`&`, `<`, `>` in text; `&`, `<`, `"` and white space characters in
//! attribute values, so that values survive attribute-value normalization), keeps comments,
//! processing instructions, CDATA sections (splitting `]]>`) and the document type declaration,
//! and repairs namespace bindings that a producer without prefixes left out (it declares a
//! prefix the first time a namespace is used without one in scope).

use binxml_core::Format;
use std::io::Write;

use binxml_core::{DocType, Encoder, Error, Event, QName, Result, StreamChecker, XML_NS};

const FMT: Format = Format::Xml;

/// Options of the XML writer.
///
/// Build them from [`XmlWriterOptions::default`] and the `with_...` setters; the fields can be
/// read and changed, and every value of each is valid. The struct is `#[non_exhaustive]`, so
/// new options can be added without breaking callers.
///
/// ```
/// use binxml_xml::XmlWriterOptions;
///
/// let opts = XmlWriterOptions::default().with_indent(Some(2));
/// assert_eq!(opts.indent, Some(2));
/// assert!(!opts.fragments);
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct XmlWriterOptions {
    /// Indent nested elements that have no text content with this many spaces (pretty print).
    /// `None` writes exactly the events.
    pub indent: Option<usize>,
    /// Allow several top-level elements and top-level text (for fragments, e.g. from JSON).
    pub fragments: bool,
}

impl XmlWriterOptions {
    /// Sets [`indent`](XmlWriterOptions::indent): indent nested elements by this many spaces
    /// (`None`: exactly the events).
    pub fn with_indent(mut self, indent: Option<usize>) -> Self {
        self.indent = indent;
        self
    }

    /// Sets [`fragments`](XmlWriterOptions::fragments): allow several top-level elements and
    /// top-level text.
    pub fn with_fragments(mut self, fragments: bool) -> Self {
        self.fragments = fragments;
        self
    }
}

/// Writes events as XML text (UTF-8) to a writer: the XML encoder. Output is buffered; call
/// [`Encoder::finish`] after `EndDocument`, then [`XmlWriter::into_inner`] to get the writer back.
pub struct XmlWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    opts: XmlWriterOptions,
    checker: StreamChecker,
    /// Open elements' qualified names as written.
    stack: Vec<String>,
    /// In-scope namespace bindings (prefix, uri) and per-element marks.
    ns: Vec<(String, String)>,
    ns_marks: Vec<usize>,
    tag_open: bool,
    /// A DOCTYPE waiting for the root element's name or for notation / unparsed-entity events.
    doctype: Option<(DocType<'static>, String)>,
    generated: usize,
    /// Per open element: whether it has had character content (for indentation).
    had_text: Vec<bool>,
    /// The open start tag's name, until its binding is checked (after its namespace events, so
    /// the declarations keep their order).
    unbound: Option<(String, String)>,
}

impl<W: Write> XmlWriter<W> {
    /// A writer of one document to `out`, with the default [`XmlWriterOptions`] (no indentation,
    /// one root element).
    pub fn new(out: W) -> Self {
        Self::with_options(out, XmlWriterOptions::default())
    }

    /// A writer to `out` with `opts`.
    pub fn with_options(out: W, opts: XmlWriterOptions) -> Self {
        XmlWriter {
            out,
            buf: Vec::with_capacity(64 * 1024),
            checker: StreamChecker::new(opts.fragments),
            opts,
            stack: Vec::new(),
            ns: Vec::new(),
            ns_marks: Vec::new(),
            tag_open: false,
            doctype: None,
            generated: 0,
            had_text: Vec::new(),
            unbound: None,
        }
    }

    /// Writes out what is still buffered and returns the writer. Errors: an I/O error of `out`.
    pub fn into_inner(mut self) -> Result<W> {
        self.flush_buf()?;
        Ok(self.out)
    }

    fn flush_buf(&mut self) -> Result<()> {
        self.out
            .write_all(&self.buf)
            .map_err(|e| Error::io(FMT, e))?;
        self.buf.clear();
        Ok(())
    }

    fn settle_binding(&mut self) {
        if let Some((prefix, ns)) = self.unbound.take() {
            let q = QName::new(prefix.as_str(), ns.as_str(), "");
            self.ensure_binding(&q, false);
        }
    }

    fn close_tag(&mut self) {
        self.settle_binding();
        if self.tag_open {
            self.buf.push(b'>');
            self.tag_open = false;
        }
    }

    fn lookup(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(XML_NS);
        }
        self.ns
            .iter()
            .rev()
            .find(|(p, _)| p == prefix)
            .map(|(_, u)| u.as_str())
    }

    fn declare(&mut self, prefix: &str, uri: &str) {
        self.buf.extend_from_slice(b" xmlns");
        if !prefix.is_empty() {
            self.buf.push(b':');
            self.buf.extend_from_slice(prefix.as_bytes());
        }
        self.buf.extend_from_slice(b"=\"");
        escape_attr(&mut self.buf, uri);
        self.buf.push(b'"');
        self.ns.push((prefix.to_string(), uri.to_string()));
    }

    fn write_doctype(&mut self, root: Option<&str>) {
        let Some((d, extra)) = self.doctype.take() else {
            return;
        };
        self.buf.extend_from_slice(b"<!DOCTYPE ");
        let name = if d.name.is_empty() {
            root.unwrap_or("root")
        } else {
            &d.name
        };
        self.buf.extend_from_slice(name.as_bytes());
        match (&d.public_id, &d.system_id) {
            (Some(p), Some(s)) => {
                self.buf.extend_from_slice(b" PUBLIC ");
                quote(&mut self.buf, p);
                self.buf.push(b' ');
                quote(&mut self.buf, s);
            }
            (Some(p), None) => {
                self.buf.extend_from_slice(b" PUBLIC ");
                quote(&mut self.buf, p);
            }
            (None, Some(s)) => {
                self.buf.extend_from_slice(b" SYSTEM ");
                quote(&mut self.buf, s);
            }
            (None, None) => {}
        }
        let subset = d
            .internal_subset
            .as_deref()
            .map(str::to_string)
            .unwrap_or_default()
            + &extra;
        if d.internal_subset.is_some() || !extra.is_empty() {
            self.buf.extend_from_slice(b" [");
            self.buf.extend_from_slice(subset.as_bytes());
            self.buf.push(b']');
        }
        self.buf.extend_from_slice(b">\n");
    }

    fn indent(&mut self, depth: usize) {
        if let Some(n) = self.opts.indent {
            self.buf.push(b'\n');
            self.buf.extend(std::iter::repeat_n(b' ', n * depth));
        }
    }

    fn start_element(&mut self, name: &QName<'_>) {
        self.close_tag();
        if self.opts.indent.is_some()
            && !self.stack.is_empty()
            && !self.had_text.last().copied().unwrap_or(false)
        {
            self.indent(self.stack.len());
        }
        self.write_doctype(Some(&name.qualified()));
        self.ns_marks.push(self.ns.len());
        self.buf.push(b'<');
        let qn = name.qualified().into_owned();
        self.buf.extend_from_slice(qn.as_bytes());
        self.stack.push(qn);
        self.had_text.push(false);
        self.tag_open = true;
    }

    /// Makes sure `name`'s prefix is bound to its namespace; returns the prefix to use.
    fn ensure_binding(&mut self, name: &QName<'_>, is_attr: bool) -> Option<String> {
        let ns = name.namespace.as_ref();
        let prefix = name.prefix.as_ref();
        if prefix == "xml" {
            return None;
        }
        if is_attr {
            if ns.is_empty() {
                return None;
            }
            if !prefix.is_empty() && self.lookup(prefix) == Some(ns) {
                return None;
            }
            // An attribute in a namespace needs a non-empty prefix bound to it.
            let existing = self
                .ns
                .iter()
                .rev()
                .find(|(p, u)| u == ns && !p.is_empty())
                .map(|(p, _)| p.clone());
            if let Some(p) = existing.filter(|p| self.lookup(p) == Some(ns)) {
                return Some(p);
            }
            let p = if !prefix.is_empty() && self.lookup(prefix).is_none() {
                prefix.to_string()
            } else {
                self.fresh_prefix()
            };
            self.declare(&p, ns);
            return Some(p);
        }
        if self.lookup(prefix).unwrap_or("") != ns && (prefix.is_empty() || !ns.is_empty()) {
            self.declare(prefix, ns);
        }
        None
    }

    fn fresh_prefix(&mut self) -> String {
        loop {
            let p = format!("ns{}", self.generated);
            self.generated += 1;
            if self.lookup(&p).is_none() {
                return p;
            }
        }
    }
}

/// Refuses text XML 1.0 cannot hold (control characters other than tab, line feed and carriage
/// return; U+FFFE, U+FFFF): writing it would give a document no XML parser reads.
fn xml_chars(what: &str, s: &str) -> Result<()> {
    match crate::reader::first_non_xml_char(s) {
        None => Ok(()),
        Some(i) => {
            let c = s[i..].chars().next().unwrap_or('\0');
            Err(Error::unsupported(
                FMT,
                format!(
                    "{what} holds U+{:04X}, which XML 1.0 cannot represent",
                    c as u32
                ),
            ))
        }
    }
}

fn quote(buf: &mut Vec<u8>, s: &str) {
    let q = if s.contains('"') { b'\'' } else { b'"' };
    buf.push(q);
    buf.extend_from_slice(s.as_bytes());
    buf.push(q);
}

/// Escapes character data: `&`, `<`, `>` (for `]]>`), and CR (which would otherwise be read back
/// as a line feed).
pub fn escape_text(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[last..i]);
        buf.extend_from_slice(rep);
        last = i + 1;
    }
    buf.extend_from_slice(&bytes[last..]);
}

/// Escapes an attribute value for a `"`-quoted attribute; white space characters other than
/// space become character references so they survive normalization.
pub fn escape_attr(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'"' => b"&quot;",
            b'\t' => b"&#x9;",
            b'\n' => b"&#xA;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[last..i]);
        buf.extend_from_slice(rep);
        last = i + 1;
    }
    buf.extend_from_slice(&bytes[last..]);
}

impl<W: Write> Encoder for XmlWriter<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.checker.check(FMT, event)?;
        match event {
            Event::StartDocument {
                version,
                standalone,
                ..
            } => {
                if version.is_some() || standalone.is_some() {
                    self.buf.extend_from_slice(b"<?xml version=\"");
                    self.buf
                        .extend_from_slice(version.as_deref().unwrap_or("1.0").as_bytes());
                    self.buf.extend_from_slice(b"\" encoding=\"UTF-8\"");
                    if let Some(s) = standalone {
                        self.buf.extend_from_slice(if *s {
                            b" standalone=\"yes\""
                        } else {
                            b" standalone=\"no\""
                        });
                    }
                    self.buf.extend_from_slice(b"?>\n");
                }
            }
            Event::EndDocument => {
                self.write_doctype(None);
                if self.opts.indent.is_some() {
                    self.buf.push(b'\n');
                }
            }
            Event::DocType(d) => {
                self.doctype = Some((d.clone().into_owned(), String::new()));
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                if let Some((d, extra)) = &mut self.doctype
                    && d.internal_subset.is_none()
                {
                    extra.push_str(&format!("<!NOTATION {name}"));
                    match (public_id, system_id) {
                        (Some(p), Some(s)) => extra.push_str(&format!(" PUBLIC \"{p}\" \"{s}\">")),
                        (Some(p), None) => extra.push_str(&format!(" PUBLIC \"{p}\">")),
                        (None, s) => {
                            extra.push_str(&format!(" SYSTEM \"{}\">", s.as_deref().unwrap_or("")))
                        }
                    }
                }
            }
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => {
                if let Some((d, extra)) = &mut self.doctype
                    && d.internal_subset.is_none()
                {
                    match public_id {
                        Some(p) => extra.push_str(&format!(
                            "<!ENTITY {name} PUBLIC \"{p}\" \"{system_id}\" NDATA {notation}>"
                        )),
                        None => extra.push_str(&format!(
                            "<!ENTITY {name} SYSTEM \"{system_id}\" NDATA {notation}>"
                        )),
                    }
                }
            }
            Event::StartElement(name) => {
                self.start_element(name);
                self.unbound = Some((name.prefix.to_string(), name.namespace.to_string()));
            }
            Event::Namespace { prefix, uri } => {
                let mark = *self.ns_marks.last().unwrap_or(&0);
                // Skip a declaration the element's own name already forced.
                if !self.ns[mark..].iter().any(|(p, u)| p == prefix && u == uri) {
                    if self.ns[mark..].iter().any(|(p, _)| p == prefix) {
                        return Err(Error::invalid_events(
                            FMT,
                            format!("prefix {prefix:?} declared twice on one element"),
                        ));
                    }
                    self.declare(prefix, uri);
                }
            }
            Event::Attribute { name, value } => {
                xml_chars("an attribute value", value)?;
                self.settle_binding();
                let forced = self.ensure_binding(&name.borrowed(), true);
                self.buf.push(b' ');
                if let Some(p) = forced {
                    self.buf.extend_from_slice(p.as_bytes());
                    self.buf.push(b':');
                    self.buf.extend_from_slice(name.local.as_bytes());
                } else {
                    self.buf.extend_from_slice(name.qualified().as_bytes());
                }
                self.buf.extend_from_slice(b"=\"");
                escape_attr(&mut self.buf, value);
                self.buf.push(b'"');
            }
            Event::EndElement => {
                let name = self.stack.pop().unwrap_or_default();
                let had_text = self.had_text.pop().unwrap_or(false);
                self.settle_binding();
                if self.tag_open {
                    self.buf.extend_from_slice(b"/>");
                    self.tag_open = false;
                } else {
                    if !had_text {
                        self.indent(self.stack.len());
                    }
                    self.buf.extend_from_slice(b"</");
                    self.buf.extend_from_slice(name.as_bytes());
                    self.buf.push(b'>');
                }
                if let Some(mark) = self.ns_marks.pop() {
                    self.ns.truncate(mark);
                }
            }
            Event::Characters { text, cdata } => {
                xml_chars("character data", text)?;
                self.close_tag();
                if let Some(t) = self.had_text.last_mut() {
                    *t = true;
                }
                if *cdata && !text.contains('\r') {
                    self.buf.extend_from_slice(b"<![CDATA[");
                    self.buf
                        .extend_from_slice(text.replace("]]>", "]]]]><![CDATA[>").as_bytes());
                    self.buf.extend_from_slice(b"]]>");
                } else {
                    escape_text(&mut self.buf, text);
                }
            }
            Event::Typed(t) => {
                self.close_tag();
                if let Some(h) = self.had_text.last_mut() {
                    *h = true;
                }
                let s = t.lexical();
                escape_text(&mut self.buf, &s);
            }
            Event::Comment(c) => {
                xml_chars("a comment", c)?;
                if c.contains("--") || c.ends_with('-') {
                    return Err(Error::unsupported(
                        FMT,
                        "a comment containing \"--\" or ending in \"-\" cannot be written as XML",
                    ));
                }
                self.close_tag();
                if self.stack.is_empty() {
                    self.write_doctype(None);
                }
                self.buf.extend_from_slice(b"<!--");
                self.buf.extend_from_slice(c.as_bytes());
                self.buf.extend_from_slice(b"-->");
                if self.stack.is_empty() {
                    self.buf.push(b'\n');
                }
            }
            Event::ProcessingInstruction { target, data } => {
                xml_chars("a processing instruction", data)?;
                if data.contains("?>") {
                    return Err(Error::unsupported(
                        FMT,
                        "processing-instruction data containing \"?>\" cannot be written as XML",
                    ));
                }
                self.close_tag();
                if self.stack.is_empty() {
                    self.write_doctype(None);
                }
                self.buf.extend_from_slice(b"<?");
                self.buf.extend_from_slice(target.as_bytes());
                if !data.is_empty() {
                    self.buf.push(b' ');
                    self.buf.extend_from_slice(data.as_bytes());
                }
                self.buf.extend_from_slice(b"?>");
                if self.stack.is_empty() {
                    self.buf.push(b'\n');
                }
            }
            Event::EntityReference { name, .. } => {
                self.close_tag();
                self.buf.push(b'&');
                self.buf.extend_from_slice(name.as_bytes());
                self.buf.push(b';');
            }
            _ => {
                return Err(Error::unsupported(
                    FMT,
                    "an event this encoder does not know",
                ));
            }
        }
        if self.buf.len() >= 64 * 1024 {
            self.flush_buf()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.flush_buf()?;
        self.out.flush().map_err(|e| Error::io(FMT, e))
    }
}

/// Writes the events to an XML byte vector.
pub fn encode(events: &[Event<'_>]) -> Result<Vec<u8>> {
    let mut w = XmlWriter::new(Vec::new());
    for e in events {
        w.write_event(e)?;
    }
    w.finish()?;
    w.into_inner()
}
