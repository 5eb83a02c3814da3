//! The XML writer: events -> XML text (always UTF-8).
//!
//! It escapes correctly (`&`, `<`, `>` in text; `&`, `<`, `"` and white space characters in
//! attribute values, so that values survive attribute-value normalization), keeps comments,
//! processing instructions, CDATA sections (splitting `]]>`) and the document type declaration,
//! and repairs namespace bindings that a producer without prefixes left out (it declares a
//! prefix the first time a namespace is used without one in scope; a prefix on a name in no
//! namespace is dropped).
//!
//! It never writes a document that an XML parser would refuse: what XML cannot hold is refused
//! with an error instead (names that are not XML names, a DOCTYPE whose parts or internal subset
//! are not well-formed, an entity reference that nothing declares, a version other than 1.x,
//! duplicate attributes, a document without a root element, characters outside XML's range).

use binxml_core::Format;
use std::io::Write;

use binxml_core::{DocType, Encoder, Error, Event, QName, Result, StreamChecker, XML_NS, XMLNS_NS};

use crate::dtd::{Dtd, Entity};

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
    /// Open elements' qualified names as written, one after another in `names`; `stack` holds
    /// where each starts.
    names: Vec<u8>,
    stack: Vec<usize>,
    /// In-scope namespace bindings (prefix, uri) and per-element marks.
    ns: Vec<(String, String)>,
    ns_marks: Vec<usize>,
    tag_open: bool,
    /// A DOCTYPE waiting for the root element's name or for notation / unparsed-entity events,
    /// and where in `buf` it goes (comments and processing instructions may follow it before
    /// the root element gives it its name; `buf` is not flushed meanwhile).
    doctype: Option<(DocType<'static>, String, usize)>,
    /// The declarations of the DOCTYPE written and its internal subset, for the entity
    /// references that follow.
    dtd: Option<(Dtd, String)>,
    /// The XML declaration said standalone="yes".
    standalone: bool,
    /// The DOCTYPE written names an external subset.
    external_doctype: bool,
    root_written: bool,
    /// The current start tag's attributes by expanded name (namespace, local name), for the
    /// duplicate check: `attr_names` holds the strings, `attrs` their ranges.
    attr_names: String,
    attrs: Vec<(usize, usize, usize)>,
    generated: usize,
    /// Per open element: whether it has had character content (for indentation).
    had_text: Vec<bool>,
    /// The open start tag's name (prefix and namespace name), until its binding is checked
    /// (after its namespace events, so the declarations keep their order): `unbound` says
    /// whether one waits, the strings are reused from element to element.
    unbound: bool,
    unbound_prefix: String,
    unbound_ns: String,
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
            names: Vec::new(),
            stack: Vec::new(),
            ns: Vec::new(),
            ns_marks: Vec::new(),
            tag_open: false,
            doctype: None,
            dtd: None,
            standalone: false,
            external_doctype: false,
            root_written: false,
            attr_names: String::new(),
            attrs: Vec::new(),
            generated: 0,
            had_text: Vec::new(),
            unbound: false,
            unbound_prefix: String::new(),
            unbound_ns: String::new(),
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

    #[inline]
    fn settle_binding(&mut self) {
        if self.unbound {
            self.unbound = false;
            if self.ns.is_empty() && self.unbound_ns.is_empty() {
                return; // no namespace, none bound
            }
            let prefix = std::mem::take(&mut self.unbound_prefix);
            let ns = std::mem::take(&mut self.unbound_ns);
            self.bind_element(&prefix, &ns);
            self.unbound_prefix = prefix;
            self.unbound_ns = ns;
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
            .find(|(p, _)| same(p, prefix))
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

    /// Writes the pending DOCTYPE where its event came, named after the root element when its
    /// own name is empty (a Fast Infoset document carries none); refuses one an XML parser would.
    fn write_doctype(&mut self, root: Option<&str>) -> Result<()> {
        let Some((d, extra, at)) = self.doctype.take() else {
            return Ok(());
        };
        let name = if d.name.is_empty() {
            root.ok_or_else(|| {
                Error::unsupported(
                    FMT,
                    "a DOCTYPE without a name and no root element to name it",
                )
            })?
        } else {
            &d.name
        };
        if !crate::lexer::is_name(name) {
            return Err(Error::unsupported(
                FMT,
                format!("DOCTYPE name {name:?} is not an XML name"),
            ));
        }
        let mut out = b"<!DOCTYPE ".to_vec();
        out.extend_from_slice(name.as_bytes());
        // A public identifier needs a system identifier after it: without one, it is the best
        // system identifier there is (the Java Fast Infoset writer puts a system identifier in
        // the public identifier's place).
        let (public_id, system_id) = match (&d.public_id, &d.system_id) {
            (Some(p), None) => (None, Some(p)),
            (p, s) => (p.as_ref(), s.as_ref()),
        };
        if let Some(p) = public_id {
            if let Some(c) = p.chars().find(|&c| !crate::dtd::is_pubid_char(c)) {
                return Err(Error::unsupported(
                    FMT,
                    format!("public identifier {p:?} holds {c:?}, which XML does not allow there"),
                ));
            }
            out.extend_from_slice(b" PUBLIC ");
            quote(&mut out, p)?;
        } else if system_id.is_some() {
            out.extend_from_slice(b" SYSTEM");
        }
        if let Some(s) = system_id {
            out.push(b' ');
            quote(&mut out, s)?;
        }
        let subset = d.internal_subset.as_deref().unwrap_or_default().to_string() + &extra;
        let dtd = Dtd::parse(
            &subset,
            self.standalone,
            system_id.is_some(),
            // The bound the decoder applies by default to what its reader will expand.
            binxml_core::Limits::default().max_entity_expansion,
        )
        .map_err(|e| {
            Error::unsupported(
                FMT,
                format!(
                    "the DOCTYPE's internal subset is not well-formed: {}",
                    e.message
                ),
            )
        })?;
        xml_chars("the DOCTYPE's internal subset", &subset)?;
        // XML 1.0 section 4.2.2 calls a fragment identifier in a system identifier an error, and
        // libxml2 refuses the document.
        let fragment = system_id.is_some_and(|s| s.contains('#'))
            || dtd.entities.values().any(|e| match e {
                Entity::External { system_id, .. } | Entity::Unparsed { system_id, .. } => {
                    system_id.contains('#')
                }
                Entity::Internal(_) => false,
            });
        if fragment {
            return Err(Error::unsupported(
                FMT,
                "a system identifier with a fragment identifier ('#'), which XML does not allow",
            ));
        }
        if d.internal_subset.is_some() || !extra.is_empty() {
            out.extend_from_slice(b" [");
            out.extend_from_slice(subset.as_bytes());
            out.push(b']');
        }
        out.extend_from_slice(b">\n");
        self.buf.splice(at..at, out);
        self.dtd = Some((dtd, subset));
        self.external_doctype = system_id.is_some();
        Ok(())
    }

    fn indent(&mut self, depth: usize) {
        if let Some(n) = self.opts.indent {
            self.buf.push(b'\n');
            self.buf.extend(std::iter::repeat_n(b' ', n * depth));
        }
    }

    /// Opens the start tag of `prefix:local` (`local` without a prefix).
    fn start_element(&mut self, prefix: &str, local: &str) -> Result<()> {
        self.close_tag();
        if self.opts.indent.is_some()
            && !self.stack.is_empty()
            && !self.had_text.last().copied().unwrap_or(false)
        {
            self.indent(self.stack.len());
        }
        let at = self.names.len();
        if !prefix.is_empty() {
            self.names.extend_from_slice(prefix.as_bytes());
            self.names.push(b':');
        }
        self.names.extend_from_slice(local.as_bytes());
        if self.stack.is_empty() {
            let root = String::from_utf8_lossy(&self.names[at..]).into_owned();
            self.write_doctype(Some(&root))?;
            self.root_written = true;
        }
        self.ns_marks.push(self.ns.len());
        self.buf.push(b'<');
        self.buf.extend_from_slice(&self.names[at..]);
        self.stack.push(at);
        self.had_text.push(false);
        self.tag_open = true;
        self.attrs.clear();
        self.attr_names.clear();
        Ok(())
    }

    /// Refuses an attribute whose expanded name the start tag already has.
    fn check_duplicate(&mut self, ns: &str, local: &str) -> Result<()> {
        let names = &self.attr_names;
        if self
            .attrs
            .iter()
            .any(|&(a, b, c)| &names[b..c] == local && &names[a..b] == ns)
        {
            return Err(Error::invalid_events(
                FMT,
                format!("duplicate attribute {{{ns}}}{local}"),
            ));
        }
        let a = self.attr_names.len();
        self.attr_names.push_str(ns);
        let b = self.attr_names.len();
        self.attr_names.push_str(local);
        self.attrs.push((a, b, self.attr_names.len()));
        Ok(())
    }

    /// Refuses an entity reference that the document's parser could not resolve: an entity
    /// that the DOCTYPE does not declare, where it was all read (no external subset, no
    /// parameter-entity reference) or the document is standalone; an unparsed entity.
    fn check_reference(&self, name: &str) -> Result<()> {
        if !crate::lexer::is_ncname(name) {
            return Err(Error::unsupported(
                FMT,
                format!("entity name {name:?} is not an XML name"),
            ));
        }
        if matches!(name, "lt" | "gt" | "amp" | "apos" | "quot") {
            return Ok(());
        }
        let declared = self.dtd.as_ref().and_then(|(d, _)| d.entities.get(name));
        let unread = self.dtd.as_ref().is_some_and(|(d, _)| {
            d.skipped_declarations || d.parameter_references || self.external_doctype
        });
        match declared {
            Some(Entity::Unparsed { .. }) => Err(Error::unsupported(
                FMT,
                format!("a reference to the unparsed entity {name} cannot be written"),
            )),
            Some(Entity::Internal(_)) => {
                // Its replacement text must read as content: read as the decoder reads it.
                let subset = self.dtd.as_ref().map_or("", |(_, s)| s.as_str());
                let doc = format!("<!DOCTYPE r [{subset}]><r>&{name};</r>");
                crate::decode(doc.as_bytes()).map(drop).map_err(|e| {
                    Error::unsupported(
                        FMT,
                        format!("a reference to the entity {name}, whose replacement text is not well-formed: {}", e.message()),
                    )
                })
            }
            Some(_) => Ok(()),
            None if unread && !self.standalone => Ok(()),
            None => Err(Error::unsupported(
                FMT,
                format!("a reference to the entity {name}, which the DOCTYPE does not declare"),
            )),
        }
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
        self.bind_element(prefix, ns);
        None
    }

    /// Declares `prefix` as `ns` where an element's name needs it and it is not so bound.
    #[inline]
    fn bind_element(&mut self, prefix: &str, ns: &str) {
        if prefix == "xml" {
            return;
        }
        if !same(self.lookup(prefix).unwrap_or(""), ns) && (prefix.is_empty() || !ns.is_empty()) {
            self.declare(prefix, ns);
        }
    }

    /// `Event::StartElement`, checked against the stream's grammar.
    fn ev_start(&mut self, name: &QName<'_>) -> Result<()> {
        ncname("element name", &name.local)?;
        let ns: &str = &name.namespace;
        // The previous element's namespace name passed this check: elements in a row
        // mostly share one.
        if !same(ns, &self.unbound_ns) {
            xml_chars("a namespace name", ns)?;
        }
        // The prefix a name in its namespace can have: none in no namespace, `xml` in the
        // XML namespace, not `xml` or `xmlns` elsewhere (a fresh one is declared).
        let prefix: &str = if ns.is_empty() {
            ""
        } else if ns == XML_NS {
            "xml"
        } else if ns == XMLNS_NS {
            return Err(Error::unsupported(
                FMT,
                "an element in the xmlns namespace cannot be written",
            ));
        } else if matches!(&*name.prefix, "xml" | "xmlns") {
            ""
        } else {
            &name.prefix
        };
        if !prefix.is_empty() && !same(prefix, &self.unbound_prefix) {
            ncname("prefix", prefix)?;
        }
        self.start_element(prefix, &name.local)?;
        self.unbound = true;
        self.unbound_prefix.clear();
        self.unbound_prefix.push_str(prefix);
        self.unbound_ns.clear();
        self.unbound_ns.push_str(ns);
        Ok(())
    }

    /// `Event::Attribute`, checked against the stream's grammar.
    fn ev_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        ncname("attribute name", &name.local)?;
        let ns: &str = &name.namespace;
        if !ns.is_empty() && !same(ns, &self.unbound_ns) {
            xml_chars("a namespace name", ns)?;
        }
        if ns == XMLNS_NS || (ns.is_empty() && name.local == "xmlns") {
            return Err(Error::unsupported(
                FMT,
                "a namespace declaration as an attribute (it is a Namespace event)",
            ));
        }
        self.check_duplicate(ns, &name.local)?;
        // As for elements: no prefix in no namespace, `xml` for the XML namespace.
        let prefix: &str = if ns.is_empty() {
            ""
        } else if ns == XML_NS {
            "xml"
        } else if matches!(&*name.prefix, "xml" | "xmlns") {
            ""
        } else {
            &name.prefix
        };
        if !prefix.is_empty() {
            ncname("prefix", prefix)?;
        }
        self.settle_binding();
        let forced = if ns.is_empty() {
            None
        } else {
            self.ensure_binding(&QName::new(prefix, ns, &*name.local), true)
        };
        let at = self.buf.len();
        self.buf.push(b' ');
        let prefix = forced.as_deref().unwrap_or(prefix);
        if !prefix.is_empty() {
            self.buf.extend_from_slice(prefix.as_bytes());
            self.buf.push(b':');
        }
        self.buf.extend_from_slice(name.local.as_bytes());
        self.buf.extend_from_slice(b"=\"");
        if let Err(e) = escape_checked::<true>(&mut self.buf, "an attribute value", value) {
            self.buf.truncate(at);
            return Err(e);
        }
        self.buf.push(b'"');
        Ok(())
    }

    /// `Event::EndElement`, checked against the stream's grammar.
    fn ev_end(&mut self) {
        let at = self.stack.pop().unwrap_or(self.names.len());
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
            self.buf.extend_from_slice(&self.names[at..]);
            self.buf.push(b'>');
        }
        self.names.truncate(at);
        if let Some(mark) = self.ns_marks.pop() {
            self.ns.truncate(mark);
        }
    }

    /// `Event::Characters`, checked against the stream's grammar.
    fn ev_characters(&mut self, text: &str, cdata: bool) -> Result<()> {
        if self.stack.is_empty() && !self.opts.fragments {
            xml_chars("character data", text)?;
            // White space between top-level items (all there can be there): as it is,
            // since a character reference is not allowed outside the root element.
            self.buf.extend_from_slice(text.as_bytes());
            return Ok(());
        }
        self.close_tag();
        if let Some(t) = self.had_text.last_mut() {
            *t = true;
        }
        if cdata && !text.contains('\r') {
            xml_chars("character data", text)?;
            self.buf.extend_from_slice(b"<![CDATA[");
            self.buf
                .extend_from_slice(text.replace("]]>", "]]]]><![CDATA[>").as_bytes());
            self.buf.extend_from_slice(b"]]>");
        } else {
            let at = self.buf.len();
            if let Err(e) = escape_checked::<false>(&mut self.buf, "character data", text) {
                self.buf.truncate(at);
                return Err(e);
            }
        }
        Ok(())
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

/// A literal of the DOCTYPE, in the quotes it does not hold.
fn quote(buf: &mut Vec<u8>, s: &str) -> Result<()> {
    let q = if s.contains('"') { b'\'' } else { b'"' };
    if q == b'\'' && s.contains('\'') {
        return Err(Error::unsupported(
            FMT,
            format!("identifier {s:?} holds both quotes, which XML cannot write"),
        ));
    }
    xml_chars("an identifier of the DOCTYPE", s)?;
    buf.push(q);
    buf.extend_from_slice(s.as_bytes());
    buf.push(q);
    Ok(())
}

/// Refuses a name that is not an NCName (an XML name without a colon).
fn ncname(what: &str, s: &str) -> Result<()> {
    if crate::lexer::is_ncname(s) {
        Ok(())
    } else {
        Err(Error::unsupported(
            FMT,
            format!("{what} {s:?} is not an XML name"),
        ))
    }
}

/// Escapes character data: `&`, `<`, `>` (for `]]>`), and CR (which would otherwise be read back
/// as a line feed).
pub fn escape_text(buf: &mut Vec<u8>, s: &str) {
    let _ = escape::<false, false>(buf, s);
}

/// Escapes an attribute value for a `"`-quoted attribute; white space characters other than
/// space become character references so they survive normalization.
pub fn escape_attr(buf: &mut Vec<u8>, s: &str) {
    let _ = escape::<true, false>(buf, s);
}

/// [`escape_text`] or [`escape_attr`] (`ATTR`) that also refuses, as [`xml_chars`] does, what
/// XML 1.0 cannot hold: one pass over the string instead of two.
fn escape_checked<const ATTR: bool>(buf: &mut Vec<u8>, what: &str, s: &str) -> Result<()> {
    match escape::<ATTR, true>(buf, s) {
        Ok(()) => Ok(()),
        Err(i) => xml_chars(what, &s[i..]),
    }
}

/// Eight copies of a byte.
const fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// Whether a byte of `w` is below 0x20 or equal to one of the bytes that escaping or checking
/// looks at (`&`, `<`, `>` or `"`, and 0xEF, the lead byte of U+FFFE and U+FFFF). It may say yes
/// for a word that holds none of them only when another byte of it is one (the borrow of the
/// subtraction runs past a matching byte, never into a word without one).
#[inline(always)]
fn has_special<const ATTR: bool>(w: u64) -> bool {
    const LO: u64 = splat(0x01);
    const HI: u64 = splat(0x80);
    let zero = |x: u64| x.wrapping_sub(LO) & !x;
    let third = if ATTR { splat(b'"') } else { splat(b'>') };
    let below = w.wrapping_sub(splat(0x20)) & !w;
    (below
        | zero(w ^ splat(b'&'))
        | zero(w ^ splat(b'<'))
        | zero(w ^ third)
        | zero(w ^ splat(0xEF)))
        & HI
        != 0
}

/// Copies `s` into `buf` with the characters that must be escaped in text (or in an attribute
/// value: `ATTR`) replaced by references. The string is scanned eight bytes at a time: runs
/// without anything to escape or check are copied whole. With `CHECK`, stops at the first
/// character that XML 1.0 cannot hold and returns its byte position (what was written of `s`
/// stays in `buf`: the caller fails).
#[inline]
fn escape<const ATTR: bool, const CHECK: bool>(
    buf: &mut Vec<u8>,
    s: &str,
) -> std::result::Result<(), usize> {
    let b = s.as_bytes();
    let mut last = 0;
    let mut i = 0;
    loop {
        while let Some(w) = b.get(i..i + 8) {
            let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            if has_special::<ATTR>(w) {
                break;
            }
            i += 8;
        }
        let end = (i + 8).min(b.len());
        if i >= end {
            break;
        }
        while i < end {
            let c = b[i];
            let rep: &[u8] = match c {
                b'&' => b"&amp;",
                b'<' => b"&lt;",
                b'>' if !ATTR => b"&gt;",
                b'"' if ATTR => b"&quot;",
                b'\t' if ATTR => b"&#x9;",
                b'\n' if ATTR => b"&#xA;",
                b'\r' => b"&#xD;",
                b'\t' | b'\n' => {
                    i += 1;
                    continue;
                }
                0..0x20 if CHECK => return Err(i),
                0xEF if CHECK
                    && b.get(i + 1) == Some(&0xBF)
                    && matches!(b.get(i + 2), Some(0xBE | 0xBF)) =>
                {
                    return Err(i);
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            buf.extend_from_slice(&b[last..i]);
            buf.extend_from_slice(rep);
            i += 1;
            last = i;
        }
    }
    buf.extend_from_slice(&b[last..]);
    Ok(())
}

/// `a == b`, without comparing the bytes when both are the same slice (names and namespace
/// names handed to the writer again and again usually are).
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || std::ptr::eq(a.as_ptr(), b.as_ptr()) || a == b)
}

impl<W: Write> XmlWriter<W> {
    /// [`Encoder::write_event`]'s body, inlined where the event's kind is known (the tape's
    /// sink below), so that the dispatch and the event's construction fold away.
    #[inline(always)]
    fn event_inline(&mut self, event: &Event<'_>) -> Result<()> {
        self.checker.check(FMT, event)?;
        match event {
            Event::StartElement(name) => self.ev_start(name)?,
            Event::Attribute { name, value } => self.ev_attribute(name, value)?,
            Event::EndElement => self.ev_end(),
            Event::Characters { text, cdata } => self.ev_characters(text, *cdata)?,
            _ => return self.ev_other(event),
        }
        self.flush_full()
    }

    /// Writes out the buffer once it holds 64 KiB, but not while a DOCTYPE waits: that is
    /// inserted where its event came.
    #[inline(always)]
    fn flush_full(&mut self) -> Result<()> {
        if self.buf.len() >= 64 * 1024 && self.doctype.is_none() {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Every event but the hot ones of [`XmlWriter::event_inline`] (already checked).
    fn ev_other(&mut self, event: &Event<'_>) -> Result<()> {
        match event {
            Event::StartDocument {
                version,
                standalone,
                ..
            } => {
                if let Some(v) = version
                    && !v
                        .strip_prefix("1.")
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
                {
                    return Err(Error::unsupported(
                        FMT,
                        format!("XML version {v:?} (XML 1.x only)"),
                    ));
                }
                self.standalone = *standalone == Some(true);
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
                if !self.root_written && !self.opts.fragments {
                    return Err(Error::invalid_events(
                        FMT,
                        "a document without a root element",
                    ));
                }
                self.write_doctype(None)?;
                if self.opts.indent.is_some() {
                    self.buf.push(b'\n');
                }
            }
            Event::DocType(d) => {
                if self.doctype.is_some() || self.dtd.is_some() {
                    return Err(Error::invalid_events(FMT, "a second DOCTYPE"));
                }
                self.doctype = Some((d.clone().into_owned(), String::new(), self.buf.len()));
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                if let Some((d, extra, _)) = &mut self.doctype
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
                if let Some((d, extra, _)) = &mut self.doctype
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
            Event::Namespace { prefix, uri } => {
                if !prefix.is_empty() {
                    ncname("namespace prefix", prefix)?;
                }
                let reserved = match (&**prefix, &**uri) {
                    ("xml", XML_NS) => return Ok(()),
                    ("xmlns", _) | ("xml", _) => true,
                    (_, XML_NS | XMLNS_NS) => true,
                    (p, "") => !p.is_empty(),
                    _ => false,
                };
                if reserved {
                    return Err(Error::unsupported(
                        FMT,
                        format!(
                            "the namespace declaration of prefix {prefix:?} as {uri:?} is not allowed in XML"
                        ),
                    ));
                }
                xml_chars("a namespace name", uri)?;
                if self.unbound && self.unbound_prefix == **prefix && self.unbound_ns != **uri {
                    let u = &self.unbound_ns;
                    return Err(Error::invalid_events(
                        FMT,
                        format!(
                            "prefix {prefix:?} declared as {uri:?} on an element whose own name puts it in {u:?}"
                        ),
                    ));
                }
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
            Event::Typed(t) => {
                self.close_tag();
                if let Some(h) = self.had_text.last_mut() {
                    *h = true;
                }
                let s = t.lexical();
                xml_chars("a typed value", &s)?;
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
                self.buf.extend_from_slice(b"<!--");
                self.buf.extend_from_slice(c.as_bytes());
                self.buf.extend_from_slice(b"-->");
                if self.stack.is_empty() {
                    self.buf.push(b'\n');
                }
            }
            Event::ProcessingInstruction { target, data } => {
                xml_chars("a processing instruction", data)?;
                ncname("processing instruction target", target)?;
                if target.eq_ignore_ascii_case("xml") {
                    return Err(Error::unsupported(
                        FMT,
                        "a processing instruction named xml (reserved for the XML declaration)",
                    ));
                }
                if data.contains("?>") {
                    return Err(Error::unsupported(
                        FMT,
                        "processing-instruction data containing \"?>\" cannot be written as XML",
                    ));
                }
                self.close_tag();
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
                self.check_reference(name)?;
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
        self.flush_full()
    }
}

/// The sink a tape is replayed into: each kind of event goes straight to its own code.
struct TapeSink<'w, W: Write>(&'w mut XmlWriter<W>);

impl<'a, W: Write> binxml_core::EventSink<'a> for TapeSink<'_, W> {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.0.event_inline(&event)
    }
    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        self.0.event_inline(&Event::StartElement(name))
    }
    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: std::borrow::Cow<'a, str>) -> Result<()> {
        self.0.event_inline(&Event::Attribute { name, value })
    }
    #[inline]
    fn end_element(&mut self) -> Result<()> {
        self.0.event_inline(&Event::EndElement)
    }
    #[inline]
    fn text(&mut self, text: std::borrow::Cow<'a, str>) -> Result<()> {
        self.0
            .event_inline(&Event::Characters { text, cdata: false })
    }
}

impl<W: Write> Encoder for XmlWriter<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.event_inline(event)
    }

    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        tape.replay(&mut TapeSink(self))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The escaping of one character at a time, as the specification reads.
    fn reference(s: &str, attr: bool) -> std::result::Result<String, ()> {
        let mut o = String::new();
        for c in s.chars() {
            match c {
                '&' => o.push_str("&amp;"),
                '<' => o.push_str("&lt;"),
                '>' if !attr => o.push_str("&gt;"),
                '"' if attr => o.push_str("&quot;"),
                '\t' if attr => o.push_str("&#x9;"),
                '\n' if attr => o.push_str("&#xA;"),
                '\r' => o.push_str("&#xD;"),
                '\t' | '\n' => o.push(c),
                '\u{0}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => return Err(()),
                c => o.push(c),
            }
        }
        Ok(o)
    }

    /// Every special character at every position of strings around the 8-byte word size, with
    /// multi-byte neighbours, escapes as the reference does; what XML cannot hold is refused.
    #[test]
    fn word_at_a_time_escaping_matches_the_reference() {
        let specials = [
            "&", "<", ">", "\"", "\t", "\n", "\r", "\u{1}", "\u{1F}", "\u{FFFE}", "\u{FFFF}",
            "\u{FFFD}", "\u{EFFF}", "é", "𝄞", "'", " ",
        ];
        for len in 0..20 {
            for at in 0..=len {
                for sp in specials {
                    let s = format!("{}{sp}{}", "a".repeat(at), "b".repeat(len - at));
                    for attr in [false, true] {
                        let mut buf = Vec::new();
                        let got = if attr {
                            escape_checked::<true>(&mut buf, "x", &s)
                        } else {
                            escape_checked::<false>(&mut buf, "x", &s)
                        };
                        match reference(&s, attr) {
                            Ok(want) => {
                                assert!(got.is_ok(), "{s:?} refused");
                                assert_eq!(String::from_utf8(buf).unwrap(), want, "{s:?}");
                            }
                            Err(()) => assert!(got.is_err(), "{s:?} accepted"),
                        }
                        // Unchecked, the same string is escaped and the rest copied.
                        let mut buf = Vec::new();
                        if attr {
                            escape_attr(&mut buf, &s)
                        } else {
                            escape_text(&mut buf, &s)
                        }
                        let lenient: String = s
                            .chars()
                            .map(|c| match reference(&c.to_string(), attr) {
                                Ok(e) => e,
                                Err(()) => c.to_string(),
                            })
                            .collect();
                        assert_eq!(String::from_utf8(buf).unwrap(), lenient, "{s:?}");
                    }
                }
            }
        }
    }
}
