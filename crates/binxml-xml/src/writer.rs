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

use binxml_core::hash::bytes_eq;
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
    /// one frame per open element.
    names: Vec<u8>,
    stack: Vec<Frame>,
    /// In-scope namespace bindings (prefix, uri); each frame says where its element's begin.
    ns: Vec<(String, String)>,
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
    /// The current start tag's attributes in a namespace by expanded name (namespace, local
    /// name), for the duplicate check: `attr_names` holds the strings, `attrs` their ranges.
    attr_names: String,
    attrs: Vec<(usize, usize, usize)>,
    /// The current start tag's attributes in no namespace: where their names are in `buf`
    /// (which is not written out while a start tag is open).
    plain_attrs: Vec<(usize, usize)>,
    generated: usize,
    /// The open start tag's own binding, until it is settled (after its namespace events, so
    /// that the declarations keep their order); `Pending::Declare` keeps the prefix and
    /// namespace name in the two strings (reused from element to element).
    pending: Pending,
    unbound_prefix: String,
    unbound_ns: String,
    /// The last namespace name checked for characters XML cannot hold (elements in a row
    /// mostly share one).
    last_ns: String,
    /// Strings already checked while a tape is written (see [`Known`]).
    known: Known,
}

/// An open element.
struct Frame {
    /// Where its qualified name starts in `names`.
    name_at: usize,
    /// Where its namespace bindings start in `ns`.
    ns_mark: usize,
    /// Whether it has had character content (for indentation).
    had_text: bool,
}

/// The binding of the open start tag's name, until its namespace events have come.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// Nothing to settle (no start tag open, or a name in the XML namespace).
    None,
    /// The name's prefix is bound to its namespace in scope, by `ns[i]`: nothing to declare.
    InScope(usize),
    /// No prefix, no namespace, and no default namespace in scope: nothing to declare.
    NoNamespace,
    /// The binding may need a declaration: prefix and namespace name in `unbound_prefix` and
    /// `unbound_ns`.
    Declare,
}

/// Names and namespace names already checked, by address and length: only while a tape is
/// written, whose strings neither move nor change during the call (a tape keeps each name
/// once, so a document's names are checked once, not once per element). Direct-mapped; a
/// collision only costs a check.
struct Known {
    on: bool,
    names: [(usize, usize); 256],
    nss: [(usize, usize); 8],
}

impl Known {
    fn new() -> Self {
        Known {
            on: false,
            names: [(0, 0); 256],
            nss: [(0, 0); 8],
        }
    }

    #[inline(always)]
    fn slot(s: &str, bits: u32) -> ((usize, usize), usize) {
        let p = s.as_ptr() as usize;
        let h = (p as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits);
        ((p, s.len()), h as usize)
    }

    /// Whether `s` is an NCName already checked.
    #[inline(always)]
    fn name(&self, s: &str) -> bool {
        let (k, i) = Self::slot(s, 8);
        self.on && self.names[i] == k
    }

    #[inline(always)]
    fn add_name(&mut self, s: &str) {
        let (k, i) = Self::slot(s, 8);
        self.names[i] = k;
    }

    /// Whether `s` is a namespace name already checked.
    #[inline(always)]
    fn ns(&self, s: &str) -> bool {
        let (k, i) = Self::slot(s, 3);
        self.on && self.nss[i] == k
    }

    #[inline(always)]
    fn add_ns(&mut self, s: &str) {
        let (k, i) = Self::slot(s, 3);
        self.nss[i] = k;
    }
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
            tag_open: false,
            doctype: None,
            dtd: None,
            standalone: false,
            external_doctype: false,
            root_written: false,
            attr_names: String::new(),
            attrs: Vec::new(),
            generated: 0,
            plain_attrs: Vec::new(),
            pending: Pending::None,
            unbound_prefix: String::new(),
            unbound_ns: String::new(),
            last_ns: String::new(),
            known: Known::new(),
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

    #[inline(always)]
    fn settle_binding(&mut self) {
        if self.pending == Pending::Declare {
            self.settle_declare();
        }
        self.pending = Pending::None;
    }

    fn settle_declare(&mut self) {
        let prefix = std::mem::take(&mut self.unbound_prefix);
        let ns = std::mem::take(&mut self.unbound_ns);
        self.bind_element(&prefix, &ns);
        self.unbound_prefix = prefix;
        self.unbound_ns = ns;
    }

    /// The open start tag's own prefix and namespace name while its binding is pending.
    fn pending_binding(&self) -> Option<(&str, &str)> {
        match self.pending {
            Pending::None => None,
            Pending::InScope(i) => Some((&self.ns[i].0, &self.ns[i].1)),
            Pending::NoNamespace => Some(("", "")),
            Pending::Declare => Some((&self.unbound_prefix, &self.unbound_ns)),
        }
    }

    /// The index in `ns` of the binding of `prefix` in scope.
    #[inline]
    fn lookup_index(&self, prefix: &str) -> Option<usize> {
        self.ns.iter().rposition(|(p, _)| same(p, prefix))
    }

    #[inline(always)]
    fn close_tag(&mut self) {
        self.settle_binding();
        if self.tag_open {
            self.buf.push(b'>');
            self.tag_open = false;
        }
    }

    fn lookup(&self, prefix: &str) -> Option<&str> {
        if eq(prefix, "xml") {
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
    #[inline(always)]
    fn start_element(&mut self, prefix: &str, local: &str) -> Result<()> {
        self.close_tag();
        if self.stack.is_empty() {
            self.start_root(prefix, local)?;
        } else if self.opts.indent.is_some() && self.stack.last().is_some_and(|f| !f.had_text) {
            self.indent(self.stack.len());
        }
        let at = self.names.len();
        self.buf.push(b'<');
        let name_at = self.buf.len();
        if !prefix.is_empty() {
            put(&mut self.buf, prefix.as_bytes());
            self.buf.push(b':');
        }
        put(&mut self.buf, local.as_bytes());
        put(&mut self.names, &self.buf[name_at..]);
        self.stack.push(Frame {
            name_at: at,
            ns_mark: self.ns.len(),
            had_text: false,
        });
        self.tag_open = true;
        self.attrs.clear();
        self.attr_names.clear();
        self.plain_attrs.clear();
        Ok(())
    }

    /// A top-level element: writes the DOCTYPE waiting for its name.
    #[cold]
    #[inline(never)]
    fn start_root(&mut self, prefix: &str, local: &str) -> Result<()> {
        if self.doctype.is_some() {
            let root = if prefix.is_empty() {
                local.to_string()
            } else {
                format!("{prefix}:{local}")
            };
            self.write_doctype(Some(&root))?;
        }
        self.root_written = true;
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
        if eq(prefix, "xml") {
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
        if eq(prefix, "xml") {
            return;
        }
        if !same(self.lookup(prefix).unwrap_or(""), ns) && (prefix.is_empty() || !ns.is_empty()) {
            self.declare(prefix, ns);
        }
    }

    /// `Event::StartElement`, checked against the stream's grammar.
    #[inline(always)]
    fn ev_start(&mut self, name: &QName<'_>) -> Result<()> {
        let local: &str = &name.local;
        if !self.known.name(local) {
            ncname("element name", local)?;
            self.known.add_name(local);
        }
        let ns: &str = &name.namespace;
        if !ns.is_empty() && !self.known.ns(ns) {
            self.check_ns(ns)?;
        }
        // The prefix a name in its namespace can have: none in no namespace, `xml` in the
        // XML namespace, not `xml` or `xmlns` elsewhere (a fresh one is declared).
        let prefix: &str = if ns.is_empty() {
            ""
        } else if eq(ns, XML_NS) {
            "xml"
        } else if eq(ns, XMLNS_NS) {
            return Err(Error::unsupported(
                FMT,
                "an element in the xmlns namespace cannot be written",
            ));
        } else if reserved_prefix(&name.prefix) {
            ""
        } else {
            &name.prefix
        };
        if !prefix.is_empty() && !self.known.name(prefix) {
            ncname("prefix", prefix)?;
            self.known.add_name(prefix);
        }
        self.start_element(prefix, local)?;
        self.pending = if eq(prefix, "xml") {
            Pending::None
        } else {
            match self.lookup_index(prefix) {
                Some(i) if same(&self.ns[i].1, ns) => Pending::InScope(i),
                None if ns.is_empty() => Pending::NoNamespace,
                _ => {
                    self.unbound_prefix.clear();
                    self.unbound_prefix.push_str(prefix);
                    self.unbound_ns.clear();
                    self.unbound_ns.push_str(ns);
                    Pending::Declare
                }
            }
        };
        Ok(())
    }

    /// Refuses a namespace name holding characters XML cannot hold; remembers it as checked.
    fn check_ns(&mut self, ns: &str) -> Result<()> {
        if !same(ns, &self.last_ns) {
            xml_chars("a namespace name", ns)?;
            self.last_ns.clear();
            self.last_ns.push_str(ns);
        }
        self.known.add_ns(ns);
        Ok(())
    }

    /// `Event::Attribute`, checked against the stream's grammar.
    #[inline(always)]
    fn ev_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        let local: &str = &name.local;
        if !self.known.name(local) {
            ncname("attribute name", local)?;
            self.known.add_name(local);
        }
        let ns: &str = &name.namespace;
        if !ns.is_empty() && !self.known.ns(ns) {
            self.check_ns(ns)?;
        }
        if eq(ns, XMLNS_NS) || (ns.is_empty() && eq(local, "xmlns")) {
            return Err(Error::unsupported(
                FMT,
                "a namespace declaration as an attribute (it is a Namespace event)",
            ));
        }
        if !ns.is_empty() {
            self.check_duplicate(ns, local)?;
        } else if self
            .plain_attrs
            .iter()
            .any(|&(a, b)| bytes_eq(&self.buf[a..b], local.as_bytes()))
        {
            return Err(Error::invalid_events(
                FMT,
                format!("duplicate attribute {{}}{local}"),
            ));
        }
        // As for elements: no prefix in no namespace, `xml` for the XML namespace.
        let prefix: &str = if ns.is_empty() {
            ""
        } else if eq(ns, XML_NS) {
            "xml"
        } else if reserved_prefix(&name.prefix) {
            ""
        } else {
            &name.prefix
        };
        if !prefix.is_empty() && !self.known.name(prefix) {
            ncname("prefix", prefix)?;
            self.known.add_name(prefix);
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
            put(&mut self.buf, prefix.as_bytes());
            self.buf.push(b':');
        }
        let name_at = self.buf.len();
        put(&mut self.buf, local.as_bytes());
        let name_end = self.buf.len();
        self.buf.extend_from_slice(b"=\"");
        if let Err(e) = escape_checked::<true>(&mut self.buf, "an attribute value", value) {
            self.buf.truncate(at);
            return Err(e);
        }
        self.buf.push(b'"');
        if ns.is_empty() {
            self.plain_attrs.push((name_at, name_end));
        }
        Ok(())
    }

    /// `Event::EndElement`, checked against the stream's grammar.
    #[inline(always)]
    fn ev_end(&mut self) {
        let (at, ns_mark, had_text) = match self.stack.pop() {
            Some(f) => (f.name_at, f.ns_mark, f.had_text),
            None => (self.names.len(), self.ns.len(), false),
        };
        self.settle_binding();
        if self.tag_open {
            self.buf.extend_from_slice(b"/>");
            self.tag_open = false;
        } else {
            if !had_text {
                self.indent(self.stack.len());
            }
            self.buf.extend_from_slice(b"</");
            put(&mut self.buf, &self.names[at..]);
            self.buf.push(b'>');
        }
        self.names.truncate(at);
        self.ns.truncate(ns_mark);
    }

    /// `Event::Characters`, checked against the stream's grammar.
    #[inline(always)]
    fn ev_characters(&mut self, text: &str, cdata: bool) -> Result<()> {
        if self.stack.is_empty() && !self.opts.fragments {
            xml_chars("character data", text)?;
            // White space between top-level items (all there can be there): as it is,
            // since a character reference is not allowed outside the root element.
            self.buf.extend_from_slice(text.as_bytes());
            return Ok(());
        }
        self.close_tag();
        if let Some(f) = self.stack.last_mut() {
            f.had_text = true;
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

#[cold]
#[inline(never)]
fn refused(what: &str, s: &str) -> Result<()> {
    xml_chars(what, s)
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
#[inline(always)]
fn escape_checked<const ATTR: bool>(buf: &mut Vec<u8>, what: &str, s: &str) -> Result<()> {
    match escape::<ATTR, true>(buf, s) {
        Ok(()) => Ok(()),
        Err(i) => refused(what, &s[i..]),
    }
}

/// The references that escaping writes, by the class of [`TEXT_CLASS`] and [`ATTR_CLASS`].
const REFERENCES: [&[u8]; 8] = [
    b"", b"&amp;", b"&lt;", b"&gt;", b"&quot;", b"&#x9;", b"&#xA;", b"&#xD;",
];
/// The class of a control character XML 1.0 cannot hold.
const CONTROL: u8 = 8;
/// The class of 0xEF, the lead byte of U+FFFE and U+FFFF (looked at when checking).
const LEAD_EF: u8 = 9;

/// What escaping does with each byte: 0 copies it, 1 to 7 write that reference of
/// [`REFERENCES`], [`CONTROL`] and [`LEAD_EF`] are checked.
const fn escape_classes(attr: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = CONTROL;
        c += 1;
    }
    t[b'&' as usize] = 1;
    t[b'<' as usize] = 2;
    t[b'\r' as usize] = 7;
    t[0xEF] = LEAD_EF;
    if attr {
        t[b'"' as usize] = 4;
        t[b'\t' as usize] = 5;
        t[b'\n' as usize] = 6;
    } else {
        t[b'>' as usize] = 3;
        t[b'\t' as usize] = 0;
        t[b'\n' as usize] = 0;
    }
    t
}

static TEXT_CLASS: [u8; 256] = escape_classes(false);
static ATTR_CLASS: [u8; 256] = escape_classes(true);

/// Eight copies of a byte.
const fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// The bytes of `w` that are below 0x20 or equal to one of the bytes that escaping or checking
/// looks at (`&`, `<`, `>` or `"`, and 0xEF, the lead byte of U+FFFE and U+FFFF), as their high
/// bits. The lowest bit set is always such a byte: a byte may be marked wrongly only above
/// another that is one (the borrow of the subtraction runs past a matching byte, never from a
/// byte that does not match).
#[inline(always)]
fn specials<const ATTR: bool>(w: u64) -> u64 {
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
}

/// Copies `s` into `buf` with the characters that must be escaped in text (or in an attribute
/// value: `ATTR`) replaced by references. The string is scanned eight bytes at a time, from one
/// byte to look at to the next: runs without anything to escape or check are copied whole.
/// With `CHECK`, stops at the first character that XML 1.0 cannot hold and returns its byte
/// position (what was written of `s` stays in `buf`: the caller fails).
#[inline(always)]
fn escape<const ATTR: bool, const CHECK: bool>(
    buf: &mut Vec<u8>,
    s: &str,
) -> std::result::Result<(), usize> {
    let b = s.as_bytes();
    let table = if ATTR { &ATTR_CLASS } else { &TEXT_CLASS };
    // A string shorter than a word (much text between tags is a line feed and indentation,
    // many values a few octets) copied whole when the table has nothing to do for any octet.
    if b.len() < 8 && b.iter().all(|&c| table[c as usize] == 0) {
        put(buf, b);
        return Ok(());
    }
    let mut last = 0;
    let mut i = 0;
    let word = |at: usize| u64::from_le_bytes(<[u8; 8]>::try_from(&b[at..at + 8]).unwrap());
    loop {
        if i + 8 <= b.len() {
            let m = specials::<ATTR>(word(i));
            if m == 0 {
                i += 8;
                continue;
            }
            i += (m.trailing_zeros() / 8) as usize;
        } else if b.len() >= 8 && i < b.len() {
            // The last word, overlapping what was looked at: those bytes shifted out (a
            // borrow from them may mark a byte that is nothing, which the table then says).
            let m = specials::<ATTR>(word(b.len() - 8)) >> (8 * (i + 8 - b.len()));
            if m == 0 {
                break;
            }
            i += (m.trailing_zeros() / 8) as usize;
        }
        // A byte to look at (or, in a string shorter than a word, the next byte): by table,
        // where a tab or line feed in text, frequent and written as it is, costs a lookup.
        let Some(&c) = b.get(i) else { break };
        let k = table[c as usize];
        i += 1;
        if k == 0 {
            continue;
        }
        if k >= CONTROL {
            if CHECK
                && (k == CONTROL
                    || (b.get(i) == Some(&0xBF) && matches!(b.get(i + 1), Some(0xBE | 0xBF))))
            {
                return Err(i - 1);
            }
            continue;
        }
        put(buf, &b[last..i - 1]);
        buf.extend_from_slice(REFERENCES[k as usize]);
        last = i;
    }
    put(buf, &b[last..]);
    Ok(())
}

/// `a == b`, without comparing the bytes when both are the same slice (names and namespace
/// names handed to the writer again and again usually are).
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || std::ptr::eq(a.as_ptr(), b.as_ptr()) || eq(a, b))
}

/// `a == b` for the short strings of the hot paths (prefixes, names, namespace names), in
/// scalar code: libc's `memcmp` costs more to start than these comparisons take.
#[inline(always)]
fn eq(a: &str, b: &str) -> bool {
    bytes_eq(a.as_bytes(), b.as_bytes())
}

/// `xml` or `xmlns`, the prefixes a name in another namespace cannot keep.
#[inline(always)]
fn reserved_prefix(p: &str) -> bool {
    eq(p, "xml") || eq(p, "xmlns")
}

/// Appends `s` to `buf`. Names, short text and the runs between references are mostly a few
/// octets: those are moved in two overlapping fixed-size words (a call into libc's `memcpy`
/// costs more than the copy for them); longer slices are copied by `extend_from_slice`.
#[inline(always)]
fn put(buf: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    if n > 16 {
        buf.extend_from_slice(s);
    } else if n >= 8 {
        let head: [u8; 8] = s[..8].try_into().unwrap();
        let tail: [u8; 8] = s[n - 8..].try_into().unwrap();
        buf.reserve(16);
        let at = buf.len();
        buf.extend_from_slice(&head);
        buf.truncate(at + n - 8);
        buf.extend_from_slice(&tail);
    } else if n >= 4 {
        let head: [u8; 4] = s[..4].try_into().unwrap();
        let tail: [u8; 4] = s[n - 4..].try_into().unwrap();
        buf.reserve(8);
        let at = buf.len();
        buf.extend_from_slice(&head);
        buf.truncate(at + n - 4);
        buf.extend_from_slice(&tail);
    } else {
        for &c in s {
            buf.push(c);
        }
    }
}

impl<W: Write> XmlWriter<W> {
    /// [`Encoder::write_event`]'s body, inlined where the event's kind is known (the tape's
    /// sink below), so that the dispatch and the event's construction fold away.
    #[inline(always)]
    fn event_inline(&mut self, event: &Event<'_>) -> Result<()> {
        match event {
            Event::StartElement(name) => {
                self.checker.start_element(FMT)?;
                self.ev_start(name)?
            }
            Event::Attribute { name, value } => {
                self.checker.attribute(FMT)?;
                self.ev_attribute(name, value)?
            }
            Event::EndElement => {
                self.checker.end_element(FMT)?;
                self.ev_end()
            }
            Event::Characters { text, cdata } => {
                self.checker.characters(FMT, text, *cdata)?;
                self.ev_characters(text, *cdata)?
            }
            _ => {
                self.checker.check(FMT, event)?;
                return self.ev_other(event);
            }
        }
        self.flush_full()
    }

    /// Writes out the buffer once it holds 64 KiB, but not while a DOCTYPE waits (that is
    /// inserted where its event came) or a start tag is open (its attributes' names are
    /// looked up in the buffer).
    #[inline(always)]
    fn flush_full(&mut self) -> Result<()> {
        if self.buf.len() >= 64 * 1024 && self.doctype.is_none() && !self.tag_open {
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
                if let Some((p, u)) = self.pending_binding()
                    && p == &**prefix
                    && u != &**uri
                {
                    return Err(Error::invalid_events(
                        FMT,
                        format!(
                            "prefix {prefix:?} declared as {uri:?} on an element whose own name puts it in {u:?}"
                        ),
                    ));
                }
                let mark = self.stack.last().map_or(0, |f| f.ns_mark);
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
                if let Some(f) = self.stack.last_mut() {
                    f.had_text = true;
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
        let w = &mut *self.0;
        w.checker.start_element(FMT)?;
        w.ev_start(&name)?;
        w.flush_full()
    }
    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: std::borrow::Cow<'a, str>) -> Result<()> {
        let w = &mut *self.0;
        w.checker.attribute(FMT)?;
        w.ev_attribute(&name, &value)?;
        w.flush_full()
    }
    #[inline]
    fn end_element(&mut self) -> Result<()> {
        let w = &mut *self.0;
        w.checker.end_element(FMT)?;
        w.ev_end();
        w.flush_full()
    }
    #[inline]
    fn text(&mut self, text: std::borrow::Cow<'a, str>) -> Result<()> {
        let w = &mut *self.0;
        w.checker.characters(FMT, &text, false)?;
        w.ev_characters(&text, false)?;
        w.flush_full()
    }
}

impl<W: Write> Encoder for XmlWriter<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.event_inline(event)
    }

    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        // The tape's strings stay where they are until the call returns: checked names are
        // known by address meanwhile (a previous tape's addresses are forgotten).
        self.known = Known::new();
        self.known.on = true;
        let r = tape.replay(&mut TapeSink(self));
        self.known.on = false;
        r
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
