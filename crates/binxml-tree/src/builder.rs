//! The builder: an [`EventSink`](binxml_core::EventSink) that appends a document's nodes.

use super::*;

/// Slots of the builder's name cache (a power of two).
pub(crate) const NAME_SLOTS: usize = 256;

/// The cache slot of an element name: the lengths of its parts and three bytes of its local
/// name, mixed (cheap, and enough to tell apart the few dozen names of most documents).
#[inline(always)]
pub(crate) fn name_slot(q: &QName<'_>) -> usize {
    let local = q.local.as_bytes();
    let n = local.len();
    let mut x = (n as u32) ^ (q.prefix.len() as u32) << 5 ^ (q.namespace.len() as u32) << 10;
    if n > 0 {
        x ^= (local[0] as u32) << 8 ^ (local[n - 1] as u32) << 16 ^ (local[n / 2] as u32) << 24;
    }
    (x.wrapping_mul(0x9E37_79B1) >> 24) as usize & (NAME_SLOTS - 1)
}

/// Two strings are equal: the same slice, or the same bytes (compared inline for the short
/// strings that names are, without a call to `memcmp`).
#[inline(always)]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if std::ptr::eq(a.as_ptr(), b.as_ptr()) {
        return true;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

#[inline(always)]
pub(crate) fn word4(s: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(s[at..at + 4].try_into().unwrap())
}

#[inline(always)]
pub(crate) fn word8(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().unwrap())
}

/// The entry of `q` in the name table `names`: the one `cache` holds for its slot when that
/// is an equal name, else a new one.
#[inline(always)]
fn intern_in<'a>(
    names: &mut Vec<QName<'a>>,
    cache: &mut [u32; NAME_SLOTS],
    q: QName<'a>,
) -> NameId {
    let slot = name_slot(&q);
    let cached = cache[slot];
    if let Some(n) = names.get((cached as usize).wrapping_sub(1))
        && same_str(&n.local, &q.local)
        && same_str(&n.prefix, &q.prefix)
        && same_str(&n.namespace, &q.namespace)
    {
        // The usual name borrows all three parts: nothing to free, and no call to the drop
        // glue (`forget` of borrowed parts leaks nothing).
        if let (Cow::Borrowed(_), Cow::Borrowed(_), Cow::Borrowed(_)) =
            (&q.prefix, &q.namespace, &q.local)
        {
            std::mem::forget(q);
        }
        return NameId(cached - 1);
    }
    let id = names.len() as u32;
    names.push(q);
    cache[slot] = id + 1;
    NameId(id)
}

/// [`intern_in`] for a name that lives only for the call: copied (into `arena` when there is
/// one) only when it is new to the cache.
#[inline(always)]
fn intern_transient_in<'a>(
    names: &mut Vec<QName<'a>>,
    cache: &mut [u32; NAME_SLOTS],
    arena: Option<&'a Strings>,
    q: &QName<'_>,
) -> NameId {
    let slot = name_slot(q);
    let cached = cache[slot];
    if let Some(n) = names.get((cached as usize).wrapping_sub(1))
        && same_str(&n.local, &q.local)
        && same_str(&n.prefix, &q.prefix)
        && same_str(&n.namespace, &q.namespace)
    {
        return NameId(cached - 1);
    }
    let id = names.len() as u32;
    names.push(keep_name(arena, q));
    cache[slot] = id + 1;
    NameId(id)
}

/// A copy of a transient event's name: in the arena when there is one.
#[inline(never)]
fn keep_name<'a>(arena: Option<&'a Strings>, q: &QName<'_>) -> QName<'a> {
    match arena {
        Some(a) => QName {
            prefix: Cow::Borrowed(a.alloc(&q.prefix)),
            namespace: Cow::Borrowed(a.alloc(&q.namespace)),
            local: Cow::Borrowed(a.alloc(&q.local)),
        },
        None => q.borrowed().into_owned(),
    }
}

/// Builds a [`Document`] from events.
///
/// Bookkeeping without flags in the hot paths: the stream has ended exactly when `open` is
/// empty (EndDocument closes the document node); an element's start tag is open exactly when
/// the newest node is the innermost open element (every other item makes a node or closes
/// one); plain text merges into the newest node when that is a text node of the innermost
/// open element.
pub(crate) struct Builder<'a> {
    pub(crate) doc: Document<'a>,
    /// Open nodes: (node, index in `pending` where its children start).
    pub(crate) open: Vec<(u32, u32)>,
    /// Children of open nodes not yet placed in `doc.children`.
    pub(crate) pending: Vec<NodeId>,
    /// StartDocument seen (an error after any other event).
    pub(crate) declared: bool,
    /// Name table indexes plus one (0: empty), by [`name_slot`].
    pub(crate) name_cache: Box<[u32; NAME_SLOTS]>,
    /// Where the strings of transient events are copied ([`Document::parse_in`]); without
    /// it, each is an owned string of its own.
    pub(crate) arena: Option<&'a Strings>,
    /// The cache of attribute names in the name table (as `name_cache` for elements, apart
    /// so that the two kinds of names do not take each other's slots).
    pub(crate) attr_cache: Box<[u32; NAME_SLOTS]>,
}

impl<'a> Builder<'a> {
    pub(crate) fn new() -> Self {
        Builder {
            doc: Document::new(),
            open: vec![(0, 0)],
            pending: Vec::new(),
            declared: false,
            name_cache: Box::new([0; NAME_SLOTS]),
            arena: None,
            attr_cache: Box::new([0; NAME_SLOTS]),
        }
    }

    /// A builder with room for a document encoded in `input_len` bytes (reserved memory that a
    /// small document does not use is never touched, and a large one is not copied as the
    /// arena grows).
    pub(crate) fn with_capacity(input_len: usize) -> Self {
        let mut b = Builder::new();
        // The nodes: an upper bound for XML text (a node takes at least 4 bytes, `<a/>` or
        // `x<a>`), so that the arena is not copied as it grows (the part a document does not
        // use is never touched); the attributes: one per 12 bytes, denser than the densest
        // documents of the corpus (OSM data, one per 19). Capped, so that a huge input reserves
        // at most 160 MiB of nodes and 96 MiB of attributes (beyond, the vectors double as
        // they fill, by remapping).
        let nodes = (input_len / 4).min(1 << 22);
        b.doc.nodes.reserve(nodes);
        b.doc.children.reserve(nodes);
        b.doc.attributes.reserve((input_len / 12).min(3 << 20));
        // Names: most documents have a few dozen, some (generated prefixes) one per element.
        b.doc.names.reserve((input_len / 32).clamp(64, 1 << 18));
        b.pending.reserve(256);
        b.open.reserve(64);
        b
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn after_end() -> Error {
        ev_err("event after EndDocument")
    }

    /// The element's entry in the name table: the cached entry of an equal name, or a new one.
    #[inline(always)]
    pub(crate) fn intern(&mut self, q: QName<'a>) -> NameId {
        intern_in(&mut self.doc.names, &mut self.name_cache, q)
    }

    /// [`Self::intern`] for an attribute's name.
    #[inline(always)]
    pub(crate) fn intern_attr(&mut self, q: QName<'a>) -> NameId {
        intern_in(&mut self.doc.names, &mut self.attr_cache, q)
    }

    /// [`Self::intern`] for a name that lives only for the call (a transient event's): copied
    /// only when the table has no entry for it in its cache slot.
    #[inline(always)]
    pub(crate) fn intern_transient(&mut self, q: &QName<'_>) -> NameId {
        intern_transient_in(&mut self.doc.names, &mut self.name_cache, self.arena, q)
    }

    /// [`Self::intern_transient`] for an attribute's name.
    #[inline(always)]
    pub(crate) fn intern_transient_attr(&mut self, q: &QName<'_>) -> NameId {
        intern_transient_in(&mut self.doc.names, &mut self.attr_cache, self.arena, q)
    }

    #[inline(always)]
    pub(crate) fn leaf(&mut self, kind: NodeKind<'a>) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let id = NodeId(self.doc.nodes.len() as u32);
        self.doc.nodes.push(NodeData { kind, parent });
        self.pending.push(id);
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn close(&mut self) {
        let (node, from) = self.open.pop().expect("open node");
        let from = from as usize;
        let start = self.doc.children.len() as u32;
        match self.pending.len() - from {
            0 => {}
            // Most elements have one child (their text): no copy loop.
            1 => self.doc.children.push(self.pending[from]),
            _ => self.doc.children.extend_from_slice(&self.pending[from..]),
        }
        self.pending.truncate(from);
        let span = Span {
            start,
            len: self.doc.children.len() as u32 - start,
        };
        if node == 0 {
            self.doc.top = span;
        } else if let NodeKind::Element(e) = &mut self.doc.nodes[node as usize].kind {
            e.children = span;
        }
    }

    #[inline(always)]
    pub(crate) fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let name = self.intern(name);
        self.open_element(parent, name);
        Ok(())
    }

    /// The element of a transient event: its name looked up without a copy.
    #[inline(always)]
    pub(crate) fn start_element_transient(&mut self, name: &QName<'_>) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let name = self.intern_transient(name);
        self.open_element(parent, name);
        Ok(())
    }

    #[inline(always)]
    fn open_element(&mut self, parent: u32, name: NameId) {
        let id = self.doc.nodes.len() as u32;
        let element = Element {
            name,
            children: EMPTY,
            attributes: Span {
                start: self.doc.attributes.len() as u32,
                len: 0,
            },
            namespaces: Span {
                start: self.doc.namespaces.len() as u32,
                len: 0,
            },
        };
        self.doc.nodes.push(NodeData {
            kind: NodeKind::Element(element),
            parent,
        });
        self.pending.push(NodeId(id));
        self.open.push((id, self.pending.len() as u32));
    }

    #[inline(always)]
    pub(crate) fn end_element(&mut self) -> Result<()> {
        if self.open.len() <= 1 {
            return Err(if self.open.is_empty() {
                Self::after_end()
            } else {
                ev_err("EndElement without StartElement")
            });
        }
        self.close();
        Ok(())
    }

    /// The element whose start tag is open (no node made since its start), or the error.
    #[inline(always)]
    pub(crate) fn in_start_tag(&mut self, what: &str) -> Result<&mut Element> {
        let Some(&(id, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let newest = self.doc.nodes.len() - 1;
        if id != 0
            && id as usize == newest
            && let NodeKind::Element(e) = &mut self.doc.nodes[newest].kind
        {
            return Ok(e);
        }
        Err(ev_err(what))
    }

    #[inline(always)]
    pub(crate) fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.in_start_tag("Namespace outside a start tag")?
            .namespaces
            .len += 1;
        self.doc.namespaces.push(NamespaceDecl { prefix, uri });
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.in_start_tag("Attribute outside a start tag")?
            .attributes
            .len += 1;
        let name = self.intern_attr(name);
        self.doc.attributes.push(Attr { name, value });
        Ok(())
    }

    /// An attribute whose name lives only for the call.
    #[inline(always)]
    pub(crate) fn attribute_transient(
        &mut self,
        name: &QName<'_>,
        value: Cow<'a, str>,
    ) -> Result<()> {
        self.in_start_tag("Attribute outside a start tag")?
            .attributes
            .len += 1;
        let name = self.intern_transient_attr(name);
        self.doc.attributes.push(Attr { name, value });
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn characters(&mut self, text: Cow<'a, str>, cdata: bool) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        if cdata {
            return self.leaf(NodeKind::CData(text));
        }
        // Adjacent plain text merges into one node: the newest node, when it is a text child
        // of the innermost open node (anything between would have made a node or closed one).
        if let Some(last) = self.doc.nodes.last_mut()
            && let NodeKind::Text(t) = &mut last.kind
            && last.parent == parent
        {
            t.to_mut().push_str(&text);
            return Ok(());
        }
        self.leaf(NodeKind::Text(text))
    }

    #[inline(always)]
    pub(crate) fn event(&mut self, ev: Event<'a>) -> Result<()> {
        match ev {
            Event::StartElement(name) => self.start_element(name),
            end @ Event::EndElement => {
                // Nothing to drop (the compiler otherwise calls the event's drop glue here).
                std::mem::forget(end);
                self.end_element()
            }
            Event::Namespace { prefix, uri } => self.namespace(prefix, uri),
            Event::Attribute { name, value } => self.attribute(name, value),
            Event::Characters { text, cdata } => self.characters(text, cdata),
            other => self.rare(other),
        }
    }

    /// The events that are not element content's hot items.
    #[inline(never)]
    pub(crate) fn rare(&mut self, ev: Event<'a>) -> Result<()> {
        if self.open.is_empty() {
            return Err(Self::after_end());
        }
        match ev {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => {
                if self.declared || self.doc.nodes.len() > 1 {
                    return Err(ev_err("StartDocument twice"));
                }
                self.declared = true;
                self.doc.version = version;
                self.doc.encoding = encoding;
                self.doc.standalone = standalone;
                Ok(())
            }
            Event::EndDocument => {
                if self.open.len() != 1 {
                    return Err(ev_err("EndDocument inside an element"));
                }
                self.close();
                Ok(())
            }
            Event::StartElement(name) => self.start_element(name),
            Event::EndElement => self.end_element(),
            Event::Namespace { prefix, uri } => self.namespace(prefix, uri),
            Event::Attribute { name, value } => self.attribute(name, value),
            Event::Characters { text, cdata } => self.characters(text, cdata),
            Event::Typed(t) => self.leaf(NodeKind::Typed(t)),
            Event::Comment(c) => self.leaf(NodeKind::Comment(c)),
            Event::ProcessingInstruction { target, data } => self.leaf(
                NodeKind::ProcessingInstruction(Box::new(ProcessingInstruction { target, data })),
            ),
            Event::DocType(d) => self.leaf(NodeKind::DocType(Box::new(d))),
            Event::Notation {
                name,
                public_id,
                system_id,
            } => self.leaf(NodeKind::Notation(Box::new(Notation {
                name,
                public_id,
                system_id,
            }))),
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => self.leaf(NodeKind::UnparsedEntity(Box::new(UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            }))),
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => self.leaf(NodeKind::EntityReference(Box::new(EntityReference {
                name,
                public_id,
                system_id,
            }))),
            _ => Err(ev_err("an event the tree does not know")),
        }
    }

    pub(crate) fn finish(mut self) -> Result<Document<'a>> {
        match self.open.len() {
            // EndDocument closed the document node.
            0 => {}
            1 => self.close(),
            _ => return Err(ev_err("the event stream ended inside an element")),
        }
        Ok(self.doc)
    }
}

impl<'a> binxml_core::EventSink<'a> for Builder<'a> {
    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        Builder::start_element(self, name)
    }
    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        Builder::namespace(self, prefix, uri)
    }
    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        Builder::attribute(self, name, value)
    }
    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        Builder::end_element(self)
    }
    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        self.characters(text, false)
    }
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        Builder::event(self, event)
    }
    /// Element starts and ends copy nothing: the name is found in the name table by its cache
    /// slot (copied once, when it is new). Everything else is kept, so copied: into the arena
    /// when there is one (attribute names once per name), else each string on its own.
    #[inline(always)]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        match (event, self.arena) {
            (Event::StartElement(name), _) => self.start_element_transient(name),
            (Event::EndElement, _) => Builder::end_element(self),
            (Event::Attribute { name, value }, Some(a)) => {
                self.attribute_transient(name, Cow::Borrowed(a.alloc(value)))
            }
            (Event::Characters { text, cdata }, Some(a)) => {
                self.characters(Cow::Borrowed(a.alloc(text)), *cdata)
            }
            (Event::Namespace { prefix, uri }, Some(a)) => Builder::namespace(
                self,
                Cow::Borrowed(a.alloc(prefix)),
                Cow::Borrowed(a.alloc(uri)),
            ),
            (other, _) => Builder::event(self, other.borrow().into_owned()),
        }
    }
}
