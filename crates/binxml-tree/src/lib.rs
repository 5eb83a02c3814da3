//! binxml-tree: one document tree, built from any binxml event stream.
//!
//! Arena storage: every node lives in one vector and is named by a [`NodeId`]; a node's children
//! are stored contiguously (a slice of one shared vector of ids, written once when the node's
//! end is seen, so building allocates per document, not per node); attributes and namespace
//! declarations likewise. Strings are the decoder's [`Cow`]s, so they borrow from the input
//! buffer wherever the format allowed it.
//!
//! The tree can be navigated ([`Node`]), modified ([`Document::set_text`],
//! [`Document::set_attribute`], [`Document::insert_child`], [`Document::remove_child`], ...) and
//! turned back into events ([`Document::events`], [`Document::write_to`]). It is the tree of the
//! life-cycle benchmark (parse, access, modify, serialize).

use std::borrow::Cow;

use binxml_core::{Decoder, DocType, Encoder, Error, Event, QName, Result, Typed};

/// A node's index in its document's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The index into the document's arena ([`Document::len`] counts its entries).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An attribute: its name and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute<'a> {
    /// The attribute's name, its namespace already resolved.
    pub name: QName<'a>,
    /// The attribute's value.
    pub value: Cow<'a, str>,
}

/// A namespace declaration on an element.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceDecl<'a> {
    /// The prefix declared; empty for the default namespace (`xmlns="..."`).
    pub prefix: Cow<'a, str>,
    /// The namespace name bound to the prefix; empty undeclares the default namespace.
    pub uri: Cow<'a, str>,
}

/// What a node is.
///
/// Every variant is at most 32 bytes, so that the arena's node (the kind and the parent) is 40:
/// building writes every node, and on event-dense documents the arena's size is what building
/// costs (memory traffic and page faults). The rare large kinds are boxed; an element's name
/// lives in its document's name table ([`Element`], read it with [`Node::name`]); the XML
/// declaration lives in the [`Document`] ([`Document::version`]).
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind<'a> {
    /// The document node.
    Document,
    /// An element. Its name, children, attributes and namespace declarations are read through
    /// [`Node`] ([`Node::name`], [`Node::children`], [`Node::attributes`], ...).
    Element(Element),
    /// Character data (adjacent plain text is one node).
    Text(Cow<'a, str>),
    /// Character data from a CDATA section.
    CData(Cow<'a, str>),
    /// A typed value in element content (from the formats that have them: a Fast Infoset
    /// encoding algorithm, a JSON number, ...).
    Typed(Typed<'a>),
    /// A comment's text, without `<!--` and `-->`.
    Comment(Cow<'a, str>),
    /// A processing instruction.
    ProcessingInstruction(Box<ProcessingInstruction<'a>>),
    /// The document type declaration; before the root element.
    DocType(Box<DocType<'a>>),
    /// A notation declared in the DTD.
    Notation(Box<Notation<'a>>),
    /// An unparsed entity declared in the DTD.
    UnparsedEntity(Box<UnparsedEntity<'a>>),
    /// An entity reference the producer did not expand.
    EntityReference(Box<EntityReference<'a>>),
}

/// An element node's own data: where its name, children, attributes and namespace declarations
/// are in its document. Meaningful in the document it was taken from only (a copy made with
/// `kind().clone()` may be given to [`Document::create`] of the same document: the copy gets
/// the name and no children, attributes or declarations).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Element {
    name: NameId,
    children: Span,
    attributes: Span,
    namespaces: Span,
}

/// An element name's index in its document's name table ([`Document::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(u32);

impl NameId {
    /// The index into the document's name table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Element {
    /// The element's name in its document's name table.
    pub fn name_id(&self) -> NameId {
        self.name
    }
}

/// A processing instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessingInstruction<'a> {
    /// Its target (the name after `<?`).
    pub target: Cow<'a, str>,
    /// The rest of it, leading white space removed; may be empty.
    pub data: Cow<'a, str>,
}

/// A notation declared in the DTD.
#[derive(Clone, Debug, PartialEq)]
pub struct Notation<'a> {
    /// The notation's name.
    pub name: Cow<'a, str>,
    /// Its public identifier, if declared.
    pub public_id: Option<Cow<'a, str>>,
    /// Its system identifier, if declared.
    pub system_id: Option<Cow<'a, str>>,
}

/// An unexpanded entity reference.
#[derive(Clone, Debug, PartialEq)]
pub struct EntityReference<'a> {
    /// The entity's name.
    pub name: Cow<'a, str>,
    /// Its public identifier, if known.
    pub public_id: Option<Cow<'a, str>>,
    /// Its system identifier, if known.
    pub system_id: Option<Cow<'a, str>>,
}

/// An unparsed entity declared in the DTD.
#[derive(Clone, Debug, PartialEq)]
pub struct UnparsedEntity<'a> {
    /// The entity's name.
    pub name: Cow<'a, str>,
    /// Its public identifier, if declared.
    pub public_id: Option<Cow<'a, str>>,
    /// Its system identifier (an unparsed entity always has one).
    pub system_id: Cow<'a, str>,
    /// The name of the notation of its data (`NDATA`).
    pub notation: Cow<'a, str>,
}

/// A range into one of the document's shared vectors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

const EMPTY: Span = Span { start: 0, len: 0 };

#[derive(Clone, Debug)]
struct NodeData<'a> {
    kind: NodeKind<'a>,
    parent: u32,
}

const NO_PARENT: u32 = u32::MAX;

/// A document tree. `'a` is the lifetime of the buffer its strings borrow from.
#[derive(Clone, Debug)]
pub struct Document<'a> {
    nodes: Vec<NodeData<'a>>,
    children: Vec<NodeId>,
    attributes: Vec<Attribute<'a>>,
    namespaces: Vec<NamespaceDecl<'a>>,
    /// Element names; an element holds an index. The builder shares an entry between elements
    /// of the same name where a small cache finds it (best effort: never more entries than
    /// elements).
    names: Vec<QName<'a>>,
    /// The document node's children.
    top: Span,
    version: Option<Cow<'a, str>>,
    encoding: Option<Cow<'a, str>>,
    standalone: Option<bool>,
}

fn ev_err(msg: &str) -> Error {
    Error::tree(msg)
}

impl<'a> Document<'a> {
    /// An empty document (a document node without children).
    pub fn new() -> Self {
        Document {
            nodes: vec![NodeData {
                kind: NodeKind::Document,
                parent: NO_PARENT,
            }],
            children: Vec::new(),
            attributes: Vec::new(),
            namespaces: Vec::new(),
            names: Vec::new(),
            top: EMPTY,
            version: None,
            encoding: None,
            standalone: None,
        }
    }

    /// Builds the tree from every event of `decoder` by push decoding ([`Decoder::read_into`]):
    /// the decoder hands element starts and ends, namespace declarations, attributes and text
    /// to the builder as their parts, without an intermediate [`Event`] per item. `size_hint`
    /// is the size of the document's XML in bytes, if known (0 otherwise): room for a tree of
    /// that size is reserved up front (memory a small document does not use is never touched,
    /// and a large one is not copied as the arena grows).
    ///
    /// A `&mut dyn Decoder` is a decoder too: its events are then pulled one at a time.
    ///
    /// ```
    /// use binxml_tree::Document;
    /// # fn demo<'a>(mut decoder: impl binxml_core::Decoder<'a>) -> binxml_core::Result<()> {
    /// let doc = Document::parse(&mut decoder, 0)?;
    /// println!("{} nodes", doc.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn parse<D: Decoder<'a>>(decoder: &mut D, size_hint: usize) -> Result<Document<'a>> {
        let mut b = Builder::with_capacity(size_hint);
        decoder.read_into(&mut b)?;
        b.finish()
    }

    /// Builds the tree from events already in memory.
    pub fn from_events<I: IntoIterator<Item = Event<'a>>>(events: I) -> Result<Document<'a>> {
        let mut b = Builder::new();
        for ev in events {
            b.event(ev)?;
        }
        b.finish()
    }

    /// The document node.
    pub fn document(&self) -> Node<'_, 'a> {
        Node {
            doc: self,
            id: NodeId(0),
        }
    }

    /// The root (document) element.
    pub fn root(&self) -> Option<Node<'_, 'a>> {
        self.document().children().find(|n| n.is_element())
    }

    /// The node with this id. `id` must come from this document (an id of another document names
    /// another node, or makes the node's methods panic).
    pub fn node(&self, id: NodeId) -> Node<'_, 'a> {
        Node { doc: self, id }
    }

    /// Number of nodes in the arena (including detached ones).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the document has nothing but its document node.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1 && self.children.is_empty()
    }

    /// The version of the XML declaration (or the binary format's header), if any.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// The encoding of the XML declaration, if any.
    pub fn encoding(&self) -> Option<&str> {
        self.encoding.as_deref()
    }

    /// The standalone flag of the XML declaration, if any.
    pub fn standalone(&self) -> Option<bool> {
        self.standalone
    }

    /// Sets the XML declaration's version, encoding and standalone flag.
    pub fn set_declaration(
        &mut self,
        version: Option<Cow<'a, str>>,
        encoding: Option<Cow<'a, str>>,
        standalone: Option<bool>,
    ) {
        self.version = version;
        self.encoding = encoding;
        self.standalone = standalone;
    }

    /// An element name from the name table (see [`Element::name_id`]).
    pub fn name(&self, id: NameId) -> &QName<'a> {
        &self.names[id.index()]
    }

    /// The children span of an element or the document node; empty for other nodes.
    #[inline]
    fn children_span(&self, id: NodeId) -> Span {
        match &self.nodes[id.index()].kind {
            NodeKind::Element(e) => e.children,
            NodeKind::Document if id.0 == 0 => self.top,
            _ => EMPTY,
        }
    }

    fn children_span_mut(&mut self, id: NodeId) -> &mut Span {
        match &mut self.nodes[id.index()].kind {
            NodeKind::Element(e) => &mut e.children,
            NodeKind::Document if id.0 == 0 => &mut self.top,
            _ => panic!(
                "node {id:?} is neither an element nor the document node: it has no children"
            ),
        }
    }

    fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.index()].kind {
            NodeKind::Element(e) => Some(e),
            _ => None,
        }
    }

    fn element_mut(&mut self, id: NodeId) -> &mut Element {
        match &mut self.nodes[id.index()].kind {
            NodeKind::Element(e) => e,
            _ => panic!("node {id:?} is not an element"),
        }
    }

    // ---- modification ----

    /// Creates a detached node; attach it with [`Document::append_child`] or
    /// [`Document::insert_child`]. An element kind (from [`Node::kind`] of this document) is
    /// created with its name and without children, attributes or namespace declarations.
    pub fn create(&mut self, mut kind: NodeKind<'a>) -> NodeId {
        if let NodeKind::Element(e) = &mut kind {
            assert!(
                e.name.index() < self.names.len(),
                "create: the element's name is not in this document"
            );
            *e = Element {
                name: e.name,
                children: EMPTY,
                attributes: EMPTY,
                namespaces: EMPTY,
            };
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(NodeData {
            kind,
            parent: NO_PARENT,
        });
        id
    }

    /// Creates a detached element.
    pub fn create_element(&mut self, name: QName<'a>) -> NodeId {
        let id = NameId(self.names.len() as u32);
        self.names.push(name);
        self.create(NodeKind::Element(Element {
            name: id,
            children: EMPTY,
            attributes: EMPTY,
            namespaces: EMPTY,
        }))
    }

    /// Renames an element.
    pub fn set_name(&mut self, id: NodeId, name: QName<'a>) {
        let n = NameId(self.names.len() as u32);
        self.names.push(name);
        self.element_mut(id).name = n;
    }

    /// Mutable access to a node's kind (change a comment, a text, ...; rename an element with
    /// [`Document::set_name`]).
    pub fn kind_mut(&mut self, id: NodeId) -> &mut NodeKind<'a> {
        &mut self.nodes[id.index()].kind
    }

    /// Inserts `child` (detached) at position `index` among `parent`'s children. Panics when
    /// `parent` is neither an element nor the document node.
    pub fn insert_child(&mut self, parent: NodeId, index: usize, child: NodeId) {
        assert!(
            self.nodes[child.index()].parent == NO_PARENT && child != NodeId(0),
            "insert_child: the node is attached"
        );
        let span = *self.children_span_mut(parent);
        let index = index.min(span.len as usize);
        let at_end = span.range().end == self.children.len();
        if at_end && index == span.len as usize {
            self.children.push(child);
        } else {
            // Relocate the child list to the end of the shared vector (amortized: the old slot
            // becomes garbage).
            let mut list: Vec<NodeId> = self.children[span.range()].to_vec();
            list.insert(index, child);
            let start = self.children.len() as u32;
            self.children.extend_from_slice(&list);
            self.children_span_mut(parent).start = start;
        }
        self.children_span_mut(parent).len += 1;
        self.nodes[child.index()].parent = parent.0;
    }

    /// Inserts `child` (detached) as the last of `parent`'s children. Panics when `parent` is
    /// neither an element nor the document node.
    pub fn append_child(&mut self, parent: NodeId, child: NodeId) {
        let n = self.children_span(parent).len as usize;
        self.insert_child(parent, n, child);
    }

    /// Detaches `parent`'s child at `index` and returns it.
    pub fn remove_child(&mut self, parent: NodeId, index: usize) -> Option<NodeId> {
        let span = self.children_span(parent);
        if index >= span.len as usize {
            return None;
        }
        let r = span.range();
        let child = self.children[r.start + index];
        self.children
            .copy_within(r.start + index + 1..r.end, r.start + index);
        self.children_span_mut(parent).len -= 1;
        self.nodes[child.index()].parent = NO_PARENT;
        Some(child)
    }

    /// Detaches `node` from its parent.
    pub fn detach(&mut self, node: NodeId) {
        let p = self.nodes[node.index()].parent;
        if p == NO_PARENT {
            return;
        }
        let parent = NodeId(p);
        if let Some(i) = self.children[self.children_span(parent).range()]
            .iter()
            .position(|&c| c == node)
        {
            self.remove_child(parent, i);
        }
    }

    /// Replaces an element's content by one text node (or sets a text node's text).
    pub fn set_text(&mut self, id: NodeId, text: impl Into<Cow<'a, str>>) {
        let text = text.into();
        match &mut self.nodes[id.index()].kind {
            NodeKind::Text(t) | NodeKind::CData(t) => *t = text,
            NodeKind::Element(e) => {
                let span = e.children;
                e.children.len = 0;
                for c in &self.children[span.range()] {
                    self.nodes[c.index()].parent = NO_PARENT;
                }
                let t = self.create(NodeKind::Text(text));
                self.append_child(id, t);
            }
            _ => {}
        }
    }

    /// Sets (or adds) an attribute of an element, matched by namespace and local name. Panics
    /// when `id` is not an element.
    pub fn set_attribute(&mut self, id: NodeId, name: QName<'a>, value: impl Into<Cow<'a, str>>) {
        let value = value.into();
        let span = self.element_mut(id).attributes;
        if let Some(a) = self.attributes[span.range()]
            .iter_mut()
            .find(|a| a.name.local == name.local && a.name.namespace == name.namespace)
        {
            a.value = value;
            return;
        }
        let attr = Attribute { name, value };
        if span.range().end == self.attributes.len() {
            self.attributes.push(attr);
        } else {
            let mut list = self.attributes[span.range()].to_vec();
            list.push(attr);
            self.element_mut(id).attributes.start = self.attributes.len() as u32;
            self.attributes.extend(list);
        }
        self.element_mut(id).attributes.len += 1;
    }

    /// Removes an attribute by local name and namespace; returns whether it was there.
    pub fn remove_attribute(&mut self, id: NodeId, namespace: &str, local: &str) -> bool {
        let Some(e) = self.element(id) else {
            return false;
        };
        let r = e.attributes.range();
        let Some(i) = self.attributes[r.clone()]
            .iter()
            .position(|a| a.name.local == local && a.name.namespace == namespace)
        else {
            return false;
        };
        self.attributes[r.start + i..r.end].rotate_left(1);
        self.element_mut(id).attributes.len -= 1;
        true
    }

    /// Adds a namespace declaration to an element. Panics when `id` is not an element.
    pub fn declare_namespace(
        &mut self,
        id: NodeId,
        prefix: impl Into<Cow<'a, str>>,
        uri: impl Into<Cow<'a, str>>,
    ) {
        let decl = NamespaceDecl {
            prefix: prefix.into(),
            uri: uri.into(),
        };
        let span = self.element_mut(id).namespaces;
        if span.range().end == self.namespaces.len() {
            self.namespaces.push(decl);
        } else {
            let mut list = self.namespaces[span.range()].to_vec();
            list.push(decl);
            self.element_mut(id).namespaces.start = self.namespaces.len() as u32;
            self.namespaces.extend(list);
        }
        self.element_mut(id).namespaces.len += 1;
    }

    // ---- serialization ----

    /// The document as a pull decoder of events (borrowing from the tree).
    pub fn events(&self) -> TreeEvents<'_, 'a> {
        TreeEvents {
            doc: self,
            stack: Vec::new(),
            queue: std::collections::VecDeque::new(),
            started: false,
            done: false,
            count: 0,
        }
    }

    /// Writes the whole document into an encoder and finishes it.
    pub fn write_to(&self, encoder: &mut dyn Encoder) -> Result<()> {
        let mut ev = self.events();
        binxml_core::transcode(&mut ev, encoder).map(|_| ())
    }
}

impl Default for Document<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Document<'_> {
    /// Drops the nodes that own something and only those: the drop glue of `Vec<NodeData>`
    /// calls a function per node to test its kind, and most nodes (elements, borrowed text)
    /// own nothing, so that glue would be a sizeable fraction of the cost of building the
    /// tree.
    fn drop(&mut self) {
        for n in self.nodes.iter_mut() {
            match &n.kind {
                NodeKind::Document
                | NodeKind::Element(_)
                | NodeKind::Text(Cow::Borrowed(_))
                | NodeKind::CData(Cow::Borrowed(_)) => {}
                // SAFETY: each node's kind is dropped at most once: here, and then the vector's
                // length is set to 0 below so that it does not drop them again. Dropping
                // strings and boxes does not panic, so no node is left half dropped.
                _ => unsafe { std::ptr::drop_in_place(&mut n.kind) },
            }
        }
        // SAFETY: the nodes' owned parts were dropped above and the rest own nothing;
        // NodeData has no other field that needs dropping (`parent` is a u32).
        unsafe { self.nodes.set_len(0) };
    }
}

/// Slots of the builder's name cache (a power of two).
const NAME_SLOTS: usize = 256;

/// The cache slot of an element name: the lengths of its parts and three bytes of its local
/// name, mixed (cheap, and enough to tell apart the few dozen names of most documents).
#[inline(always)]
fn name_slot(q: &QName<'_>) -> usize {
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
fn same_str(a: &str, b: &str) -> bool {
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
fn word4(s: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(s[at..at + 4].try_into().unwrap())
}

#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().unwrap())
}

/// Builds a [`Document`] from events.
///
/// Bookkeeping without flags in the hot paths: the stream has ended exactly when `open` is
/// empty (EndDocument closes the document node); an element's start tag is open exactly when
/// the newest node is the innermost open element (every other item makes a node or closes
/// one); plain text merges into the newest node when that is a text node of the innermost
/// open element.
struct Builder<'a> {
    doc: Document<'a>,
    /// Open nodes: (node, index in `pending` where its children start).
    open: Vec<(u32, u32)>,
    /// Children of open nodes not yet placed in `doc.children`.
    pending: Vec<NodeId>,
    /// StartDocument seen (an error after any other event).
    declared: bool,
    /// Name table indexes plus one (0: empty), by [`name_slot`].
    name_cache: Box<[u32; NAME_SLOTS]>,
}

impl<'a> Builder<'a> {
    fn new() -> Self {
        Builder {
            doc: Document::new(),
            open: vec![(0, 0)],
            pending: Vec::new(),
            declared: false,
            name_cache: Box::new([0; NAME_SLOTS]),
        }
    }

    /// A builder with room for a document encoded in `input_len` bytes (reserved memory that a
    /// small document does not use is never touched, and a large one is not copied as the
    /// arena grows).
    fn with_capacity(input_len: usize) -> Self {
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
        b.doc.attributes.reserve((input_len / 12).min(1 << 20));
        // Names: most documents have a few dozen, some (generated prefixes) one per element.
        b.doc.names.reserve((input_len / 32).clamp(64, 1 << 18));
        b.pending.reserve(256);
        b.open.reserve(64);
        b
    }

    #[cold]
    #[inline(never)]
    fn after_end() -> Error {
        ev_err("event after EndDocument")
    }

    /// The element's entry in the name table: the cached entry of an equal name, or a new one.
    #[inline(always)]
    fn intern(&mut self, q: QName<'a>) -> NameId {
        let slot = name_slot(&q);
        let cached = self.name_cache[slot];
        if let Some(n) = self.doc.names.get((cached as usize).wrapping_sub(1)) {
            if same_str(&n.local, &q.local)
                && same_str(&n.prefix, &q.prefix)
                && same_str(&n.namespace, &q.namespace)
            {
                // The usual name borrows all three parts: nothing to free, and no call to the
                // drop glue (`forget` of borrowed parts leaks nothing).
                if let (Cow::Borrowed(_), Cow::Borrowed(_), Cow::Borrowed(_)) =
                    (&q.prefix, &q.namespace, &q.local)
                {
                    std::mem::forget(q);
                }
                return NameId(cached - 1);
            }
        }
        let id = self.doc.names.len() as u32;
        self.doc.names.push(q);
        self.name_cache[slot] = id + 1;
        NameId(id)
    }

    #[inline(always)]
    fn leaf(&mut self, kind: NodeKind<'a>) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let id = NodeId(self.doc.nodes.len() as u32);
        self.doc.nodes.push(NodeData { kind, parent });
        self.pending.push(id);
        Ok(())
    }

    #[inline(always)]
    fn close(&mut self) {
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
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let name = self.intern(name);
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
        Ok(())
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
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
    fn in_start_tag(&mut self, what: &str) -> Result<&mut Element> {
        let Some(&(id, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        let newest = self.doc.nodes.len() - 1;
        if id != 0 && id as usize == newest {
            if let NodeKind::Element(e) = &mut self.doc.nodes[newest].kind {
                return Ok(e);
            }
        }
        Err(ev_err(what))
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.in_start_tag("Namespace outside a start tag")?
            .namespaces
            .len += 1;
        self.doc.namespaces.push(NamespaceDecl { prefix, uri });
        Ok(())
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.in_start_tag("Attribute outside a start tag")?
            .attributes
            .len += 1;
        self.doc.attributes.push(Attribute { name, value });
        Ok(())
    }

    #[inline(always)]
    fn characters(&mut self, text: Cow<'a, str>, cdata: bool) -> Result<()> {
        let Some(&(parent, _)) = self.open.last() else {
            return Err(Self::after_end());
        };
        if cdata {
            return self.leaf(NodeKind::CData(text));
        }
        // Adjacent plain text merges into one node: the newest node, when it is a text child
        // of the innermost open node (anything between would have made a node or closed one).
        if let Some(last) = self.doc.nodes.last_mut() {
            if let NodeKind::Text(t) = &mut last.kind {
                if last.parent == parent {
                    t.to_mut().push_str(&text);
                    return Ok(());
                }
            }
        }
        self.leaf(NodeKind::Text(text))
    }

    #[inline(always)]
    fn event(&mut self, ev: Event<'a>) -> Result<()> {
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
    fn rare(&mut self, ev: Event<'a>) -> Result<()> {
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

    fn finish(mut self) -> Result<Document<'a>> {
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
}

/// A read-only handle on one node.
#[derive(Clone, Copy)]
pub struct Node<'d, 'a> {
    doc: &'d Document<'a>,
    id: NodeId,
}

impl std::fmt::Debug for Node<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(q) => write!(f, "Node({:?}, Element({:?}))", self.id, q),
            None => write!(f, "Node({:?}, {:?})", self.id, self.kind()),
        }
    }
}

impl<'d, 'a> Node<'d, 'a> {
    /// The node's id in its document.
    pub fn id(&self) -> NodeId {
        self.id
    }

    fn data(&self) -> &'d NodeData<'a> {
        &self.doc.nodes[self.id.index()]
    }

    /// What the node is. For an element, read its parts through [`Node::name`],
    /// [`Node::children`], [`Node::attributes`] and [`Node::namespaces`].
    pub fn kind(&self) -> &'d NodeKind<'a> {
        &self.data().kind
    }

    /// Whether the node is an element.
    pub fn is_element(&self) -> bool {
        matches!(self.kind(), NodeKind::Element(_))
    }

    /// The element's name.
    pub fn name(&self) -> Option<&'d QName<'a>> {
        match self.kind() {
            NodeKind::Element(e) => Some(&self.doc.names[e.name.index()]),
            _ => None,
        }
    }

    /// The element's local name, or `""`.
    pub fn local_name(&self) -> &'d str {
        self.name().map_or("", |q| &q.local)
    }

    /// The parent node: `None` for the document node and for detached nodes.
    pub fn parent(&self) -> Option<Node<'d, 'a>> {
        let p = self.data().parent;
        (p != NO_PARENT).then_some(Node {
            doc: self.doc,
            id: NodeId(p),
        })
    }

    /// The children's ids, one contiguous slice.
    pub fn child_ids(&self) -> &'d [NodeId] {
        &self.doc.children[self.doc.children_span(self.id).range()]
    }

    /// The children, in document order: none for nodes other than elements and the document
    /// node.
    pub fn children(&self) -> impl Iterator<Item = Node<'d, 'a>> + 'd {
        let doc = self.doc;
        self.child_ids().iter().map(move |&id| Node { doc, id })
    }

    /// Child elements.
    pub fn elements(&self) -> impl Iterator<Item = Node<'d, 'a>> + 'd {
        self.children().filter(|n| n.is_element())
    }

    /// The element's attributes, in document order; empty for other nodes.
    pub fn attributes(&self) -> &'d [Attribute<'a>] {
        match self.kind() {
            NodeKind::Element(e) => &self.doc.attributes[e.attributes.range()],
            _ => &[],
        }
    }

    /// The element's namespace declarations, in document order; empty for other nodes.
    pub fn namespaces(&self) -> &'d [NamespaceDecl<'a>] {
        match self.kind() {
            NodeKind::Element(e) => &self.doc.namespaces[e.namespaces.range()],
            _ => &[],
        }
    }

    /// The value of the attribute with this local name (in any namespace).
    pub fn attribute(&self, local: &str) -> Option<&'d str> {
        self.attributes()
            .iter()
            .find(|a| a.name.local == local)
            .map(|a| a.value.as_ref())
    }

    /// The value of the attribute with this namespace and local name.
    pub fn attribute_ns(&self, namespace: &str, local: &str) -> Option<&'d str> {
        self.attributes()
            .iter()
            .find(|a| a.name.local == local && a.name.namespace == namespace)
            .map(|a| a.value.as_ref())
    }

    /// The first child element with this local name.
    pub fn child(&self, local: &str) -> Option<Node<'d, 'a>> {
        self.elements().find(|n| n.local_name() == local)
    }

    /// The first child element with this namespace and local name.
    pub fn child_ns(&self, namespace: &str, local: &str) -> Option<Node<'d, 'a>> {
        self.elements().find(|n| {
            n.name()
                .is_some_and(|q| q.local == local && q.namespace == namespace)
        })
    }

    /// The node's own text: a text node's text, or the concatenated text of an element's direct
    /// text (and typed) children. Borrowed when there is exactly one text child.
    pub fn text(&self) -> Cow<'d, str> {
        match self.kind() {
            NodeKind::Text(text) | NodeKind::CData(text) => Cow::Borrowed(text),
            NodeKind::Typed(t) => Cow::Owned(t.lexical()),
            NodeKind::Comment(c) => Cow::Borrowed(c),
            _ => {
                let mut out: Option<Cow<'d, str>> = None;
                for c in self.children() {
                    let piece: Cow<'d, str> = match c.kind() {
                        NodeKind::Text(text) | NodeKind::CData(text) => Cow::Borrowed(text),
                        NodeKind::Typed(t) => Cow::Owned(t.lexical()),
                        _ => continue,
                    };
                    out = Some(match out {
                        None => piece,
                        Some(mut acc) => {
                            acc.to_mut().push_str(&piece);
                            acc
                        }
                    });
                }
                out.unwrap_or(Cow::Borrowed(""))
            }
        }
    }

    /// Descendants in document order (not including this node).
    pub fn descendants(&self) -> Descendants<'d, 'a> {
        Descendants {
            doc: self.doc,
            stack: self.child_ids().iter().rev().copied().collect(),
        }
    }

    /// The first descendant element with this local name.
    pub fn find(&self, local: &str) -> Option<Node<'d, 'a>> {
        self.descendants().find(|n| n.local_name() == local)
    }

    /// Every descendant element with this local name.
    pub fn find_all<'s>(
        &self,
        local: &'s str,
    ) -> impl Iterator<Item = Node<'d, 'a>> + use<'d, 'a, 's> {
        self.descendants().filter(move |n| n.local_name() == local)
    }
}

/// Iterator over descendants in document order.
pub struct Descendants<'d, 'a> {
    doc: &'d Document<'a>,
    stack: Vec<NodeId>,
}

impl<'d, 'a> Iterator for Descendants<'d, 'a> {
    type Item = Node<'d, 'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let id = self.stack.pop()?;
        let n = Node { doc: self.doc, id };
        self.stack.extend(n.child_ids().iter().rev().copied());
        Some(n)
    }
}

/// The tree as a pull decoder of events.
pub struct TreeEvents<'d, 'a> {
    doc: &'d Document<'a>,
    /// (node, next child index)
    stack: Vec<(NodeId, usize)>,
    queue: std::collections::VecDeque<Event<'d>>,
    started: bool,
    done: bool,
    count: u64,
}

fn b<'d>(s: &'d Cow<'_, str>) -> Cow<'d, str> {
    Cow::Borrowed(s.as_ref())
}

fn bo<'d>(s: &'d Option<Cow<'_, str>>) -> Option<Cow<'d, str>> {
    s.as_ref().map(|s| Cow::Borrowed(s.as_ref()))
}

impl<'d, 'a> TreeEvents<'d, 'a> {
    fn open(&mut self, id: NodeId) {
        let n = self.doc.node(id);
        let ev = match n.kind() {
            NodeKind::Element(e) => {
                self.queue.push_back(Event::StartElement(
                    self.doc.names[e.name.index()].borrowed(),
                ));
                for ns in n.namespaces() {
                    self.queue.push_back(Event::Namespace {
                        prefix: b(&ns.prefix),
                        uri: b(&ns.uri),
                    });
                }
                for a in n.attributes() {
                    self.queue.push_back(Event::Attribute {
                        name: a.name.borrowed(),
                        value: b(&a.value),
                    });
                }
                self.stack.push((id, 0));
                return;
            }
            NodeKind::Text(text) => Event::Characters {
                text: b(text),
                cdata: false,
            },
            NodeKind::CData(text) => Event::Characters {
                text: b(text),
                cdata: true,
            },
            NodeKind::Typed(t) => Event::Typed(t.clone()),
            NodeKind::Comment(c) => Event::Comment(b(c)),
            NodeKind::ProcessingInstruction(p) => Event::ProcessingInstruction {
                target: b(&p.target),
                data: b(&p.data),
            },
            NodeKind::DocType(d) => Event::DocType(DocType {
                name: b(&d.name),
                public_id: bo(&d.public_id),
                system_id: bo(&d.system_id),
                internal_subset: bo(&d.internal_subset),
            }),
            NodeKind::Notation(n) => Event::Notation {
                name: b(&n.name),
                public_id: bo(&n.public_id),
                system_id: bo(&n.system_id),
            },
            NodeKind::UnparsedEntity(u) => Event::UnparsedEntity {
                name: b(&u.name),
                public_id: bo(&u.public_id),
                system_id: b(&u.system_id),
                notation: b(&u.notation),
            },
            NodeKind::EntityReference(r) => Event::EntityReference {
                name: b(&r.name),
                public_id: bo(&r.public_id),
                system_id: bo(&r.system_id),
            },
            NodeKind::Document => return,
        };
        self.queue.push_back(ev);
    }
}

impl<'d, 'a> Decoder<'d> for TreeEvents<'d, 'a> {
    fn next_event(&mut self) -> Result<Option<Event<'d>>> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                self.count += 1;
                return Ok(Some(ev));
            }
            if self.done {
                return Ok(None);
            }
            if !self.started {
                self.started = true;
                let d = self.doc;
                self.queue.push_back(Event::StartDocument {
                    version: bo(&d.version),
                    encoding: bo(&d.encoding),
                    standalone: d.standalone,
                });
                self.stack.push((NodeId(0), 0));
                continue;
            }
            let Some(&mut (id, ref mut next)) = self.stack.last_mut() else {
                self.done = true;
                continue;
            };
            let kids = self.doc.node(id).child_ids();
            if *next < kids.len() {
                let child = kids[*next];
                *next += 1;
                self.open(child);
            } else {
                self.stack.pop();
                if id == NodeId(0) {
                    self.queue.push_back(Event::EndDocument);
                    self.done = true;
                } else {
                    self.queue.push_back(Event::EndElement);
                }
            }
        }
    }

    fn offset(&self) -> u64 {
        self.count.saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Event<'static>> {
        vec![
            Event::start_document(),
            Event::Comment("c".into()),
            Event::StartElement(QName::local("inv")),
            Event::Namespace {
                prefix: "".into(),
                uri: "".into(),
            },
            Event::Attribute {
                name: QName::local("Currency"),
                value: "EUR".into(),
            },
            Event::StartElement(QName::local("item")),
            Event::Attribute {
                name: QName::local("id"),
                value: "1".into(),
            },
            Event::text("ab"),
            Event::text("cd"),
            Event::EndElement,
            Event::StartElement(QName::local("item")),
            Event::Attribute {
                name: QName::local("id"),
                value: "2".into(),
            },
            Event::Typed(Typed::Int(5)),
            Event::EndElement,
            Event::EndElement,
            Event::EndDocument,
        ]
    }

    #[test]
    fn build_navigate_and_back() {
        let doc = Document::from_events(sample()).unwrap();
        let root = doc.root().unwrap();
        assert_eq!(root.local_name(), "inv");
        assert_eq!(root.attribute("Currency"), Some("EUR"));
        let items: Vec<_> = root.find_all("item").collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].text(), "abcd");
        assert_eq!(items[0].children().count(), 1, "adjacent text merges");
        assert_eq!(items[1].text(), "5");
        assert_eq!(items[1].parent().unwrap().id(), root.id());
        let mut back = doc.events();
        let events = binxml_core::collect_events(&mut back).unwrap();
        let mut expected = sample();
        expected.remove(8);
        expected[7] = Event::text("abcd");
        assert_eq!(events, expected);
    }

    #[test]
    fn modify() {
        let mut doc = Document::from_events(sample()).unwrap();
        let root = doc.root().unwrap().id();
        let first = doc.node(root).child("item").unwrap().id();
        doc.set_text(first, "new");
        doc.set_attribute(first, QName::local("id"), "10");
        doc.set_attribute(first, QName::local("extra"), "x");
        let removed = doc.remove_child(root, 1).unwrap();
        assert_eq!(doc.node(removed).attribute("id"), Some("2"));
        let e = doc.create_element(QName::local("item"));
        doc.set_attribute(e, QName::local("id"), "3");
        doc.append_child(root, e);
        let t = doc.create(NodeKind::Text("z".into()));
        doc.insert_child(root, 0, t);
        let r = doc.node(root);
        let ids: Vec<_> = r.elements().map(|n| n.attribute("id").unwrap()).collect();
        assert_eq!(ids, ["10", "3"]);
        assert_eq!(r.child("item").unwrap().text(), "new");
        assert_eq!(r.child("item").unwrap().attribute("extra"), Some("x"));
        assert_eq!(r.children().next().unwrap().text(), "z");
        assert!(doc.remove_attribute(first, "", "extra"));
        assert_eq!(doc.node(first).attributes().len(), 1);
        let mut rec = binxml_core::Recorder::default();
        doc.write_to(&mut rec).unwrap();
        assert!(rec.finished);
        assert_eq!(
            rec.events
                .iter()
                .filter(|e| matches!(e, Event::StartElement(_)))
                .count(),
            3
        );
    }

    #[test]
    fn rejects_broken_streams() {
        assert!(Document::from_events(vec![Event::start_document(), Event::EndElement]).is_err());
        assert!(
            Document::from_events(vec![
                Event::start_document(),
                Event::StartElement(QName::local("a"))
            ])
            .is_err()
        );
    }

    fn msg(events: Vec<Event<'static>>) -> String {
        Document::from_events(events).unwrap_err().to_string()
    }

    /// The builder's bookkeeping without flags: every rule of the old flags, one case each.
    #[test]
    fn stream_rules() {
        let start = || Event::StartElement(QName::local("a"));
        let attr = || Event::Attribute {
            name: QName::local("x"),
            value: "1".into(),
        };
        let ns = || Event::Namespace {
            prefix: "p".into(),
            uri: "u".into(),
        };
        let sd = Event::start_document;
        // Attributes and declarations only in the start tag: not after text, a child, a comment
        // or the child's end, not at the top level.
        for after in [
            Event::text("t"),
            Event::Comment("c".into()),
            Event::Typed(Typed::Int(1)),
        ] {
            let e = msg(vec![sd(), start(), after.clone(), attr()]);
            assert!(e.contains("Attribute outside a start tag"), "{e}");
            let e = msg(vec![sd(), start(), after, ns()]);
            assert!(e.contains("Namespace outside a start tag"), "{e}");
        }
        let e = msg(vec![sd(), start(), start(), Event::EndElement, attr()]);
        assert!(e.contains("Attribute outside a start tag"), "{e}");
        assert!(msg(vec![sd(), attr()]).contains("Attribute outside a start tag"));
        assert!(msg(vec![attr()]).contains("Attribute outside a start tag"));
        assert!(msg(vec![sd(), start(), Event::EndElement, ns()]).contains("Namespace outside"));
        // In the start tag, after other attributes and declarations: fine.
        let doc = Document::from_events(vec![
            sd(),
            start(),
            ns(),
            attr(),
            start(),
            ns(),
            Event::EndElement,
            Event::EndElement,
            Event::EndDocument,
        ])
        .unwrap();
        let root = doc.root().unwrap();
        assert_eq!((root.namespaces().len(), root.attributes().len()), (1, 1));
        let child = root.elements().next().unwrap();
        assert_eq!((child.namespaces().len(), child.attributes().len()), (1, 0));
        // StartDocument first only.
        assert!(msg(vec![sd(), sd()]).contains("StartDocument twice"));
        assert!(msg(vec![Event::Comment("c".into()), sd()]).contains("StartDocument twice"));
        assert!(msg(vec![start(), Event::EndElement, sd()]).contains("StartDocument twice"));
        // Nothing after EndDocument (the same message for every kind of item).
        for after in [
            start(),
            Event::EndElement,
            attr(),
            ns(),
            Event::text("t"),
            Event::Comment("c".into()),
            sd(),
            Event::EndDocument,
        ] {
            let e = msg(vec![
                sd(),
                start(),
                Event::EndElement,
                Event::EndDocument,
                after,
            ]);
            assert!(e.contains("event after EndDocument"), "{e}");
        }
        assert!(
            msg(vec![sd(), start(), Event::EndDocument]).contains("EndDocument inside an element")
        );
        assert!(msg(vec![sd(), Event::EndElement]).contains("EndElement without StartElement"));
        assert!(msg(vec![sd(), start()]).contains("ended inside an element"));
        // A stream without StartDocument and EndDocument is accepted, as before.
        let doc = Document::from_events(vec![start(), Event::EndElement]).unwrap();
        assert_eq!(doc.root().unwrap().local_name(), "a");
        assert_eq!(doc.version(), None);
    }

    #[test]
    fn text_merging() {
        let doc = Document::from_events(vec![
            Event::start_document(),
            Event::StartElement(QName::local("a")),
            Event::text("x"),
            Event::text("y"),
            Event::Characters {
                text: "c1".into(),
                cdata: true,
            },
            Event::Characters {
                text: "c2".into(),
                cdata: true,
            },
            Event::text("z"),
            Event::StartElement(QName::local("b")),
            Event::text("in b"),
            Event::EndElement,
            Event::text("after b"),
            Event::Comment("c".into()),
            Event::text("after comment"),
            Event::EndElement,
            Event::text("top"),
            Event::text("level"),
            Event::EndDocument,
        ])
        .unwrap();
        let kinds: Vec<NodeKind> = doc
            .root()
            .unwrap()
            .children()
            .map(|n| n.kind().clone())
            .collect();
        let expected = [
            NodeKind::Text("xy".into()),
            NodeKind::CData("c1".into()),
            NodeKind::CData("c2".into()),
            NodeKind::Text("z".into()),
        ];
        assert_eq!(kinds[..4], expected);
        let rest: Vec<String> = doc
            .root()
            .unwrap()
            .children()
            .skip(5)
            .map(|n| n.text().into_owned())
            .collect();
        assert_eq!(rest, ["after b", "c", "after comment"]);
        assert_eq!(doc.root().unwrap().child("b").unwrap().text(), "in b");
        assert_eq!(doc.document().children().last().unwrap().text(), "toplevel");
    }

    #[test]
    fn declaration_and_rare_kinds() {
        let events = vec![
            Event::StartDocument {
                version: Some("1.0".into()),
                encoding: Some("UTF-8".into()),
                standalone: Some(true),
            },
            Event::DocType(DocType {
                name: "a".into(),
                public_id: None,
                system_id: Some("a.dtd".into()),
                internal_subset: None,
            }),
            Event::Notation {
                name: "n".into(),
                public_id: Some("p".into()),
                system_id: None,
            },
            Event::UnparsedEntity {
                name: "e".into(),
                public_id: None,
                system_id: "e.bin".into(),
                notation: "n".into(),
            },
            Event::ProcessingInstruction {
                target: "pi".into(),
                data: "d".into(),
            },
            Event::StartElement(QName::new("p", "urn:x", "a")),
            Event::EntityReference {
                name: "r".into(),
                public_id: None,
                system_id: Some("r.xml".into()),
            },
            Event::Typed(Typed::List(vec![Typed::Int(1), Typed::Bool(true)])),
            Event::EndElement,
            Event::EndDocument,
        ];
        let doc = Document::from_events(events.clone()).unwrap();
        assert_eq!(
            (doc.version(), doc.encoding(), doc.standalone()),
            (Some("1.0"), Some("UTF-8"), Some(true))
        );
        assert!(matches!(doc.document().kind(), NodeKind::Document));
        let kids: Vec<_> = doc.document().children().collect();
        assert!(
            matches!(kids[3].kind(), NodeKind::ProcessingInstruction(p) if p.target == "pi" && p.data == "d")
        );
        assert!(
            kids[3].attributes().is_empty()
                && kids[3].child_ids().is_empty()
                && kids[3].name().is_none()
        );
        assert_eq!(
            doc.root().unwrap().name().unwrap(),
            &QName::new("p", "urn:x", "a")
        );
        assert_eq!(
            binxml_core::collect_events(&mut doc.events()).unwrap(),
            events
        );
        let mut doc = doc;
        doc.set_declaration(None, None, None);
        assert_eq!(
            binxml_core::collect_events(&mut doc.events()).unwrap()[0],
            Event::start_document()
        );
    }

    #[test]
    fn drop_frees_owned_nodes_once() {
        // Document's Drop skips the nodes that own nothing: owned and borrowed strings of every
        // kind side by side, a clone, and nodes replaced by set_text (under valgrind:
        // `--leak-check=full` finds nothing lost, and no invalid free).
        let s = String::from("borrowed");
        let events = vec![
            Event::start_document(),
            Event::Comment(Cow::Owned("owned comment".into())),
            Event::StartElement(QName::local("a")),
            Event::Characters {
                text: Cow::Owned("owned text".into()),
                cdata: false,
            },
            Event::StartElement(QName::local("b")),
            Event::Characters {
                text: Cow::Owned("owned cdata".into()),
                cdata: true,
            },
            Event::Characters {
                text: Cow::Borrowed(s.as_str()),
                cdata: true,
            },
            Event::EndElement,
            Event::StartElement(QName::local("c")),
            Event::Characters {
                text: Cow::Borrowed(s.as_str()),
                cdata: false,
            },
            Event::Characters {
                text: Cow::Owned(" merged".into()),
                cdata: false,
            },
            Event::EndElement,
            Event::Comment(Cow::Borrowed(s.as_str())),
            Event::Typed(Typed::List(vec![Typed::Int(1)])),
            Event::EndElement,
            Event::EndDocument,
        ];
        let doc = Document::from_events(events.clone()).unwrap();
        let mut copy = doc.clone();
        drop(doc);
        let root = copy.root().unwrap().id();
        copy.set_text(root, String::from("replaced"));
        assert_eq!(copy.root().unwrap().text(), "replaced");
        let again = Document::from_events(events).unwrap();
        let kids: Vec<_> = again.root().unwrap().children().collect();
        assert!(
            matches!(kids[2].children().next().unwrap().kind(), NodeKind::Text(t) if t == "borrowed merged")
        );
    }

    #[test]
    fn names_are_shared_and_distinguished() {
        // Equal names share an entry, whether the strings are the same slice or equal copies;
        // names differing in any part (prefix, namespace, a byte the cache's slot does not
        // look at) do not.
        let owned =
            |p: &str, n: &str, l: &str| QName::new(p.to_string(), n.to_string(), l.to_string());
        let names = [
            QName::local("item"),
            owned("", "", "item"),
            owned("p", "", "item"),
            owned("", "urn:a", "item"),
            owned("", "", "itxm"),
            owned("", "", "iteem"),
            owned("", "", "a-rather-long-element-name-x"),
            owned("", "", "a-rather-long-element-name-y"),
            owned("", "", "a-rather-long-element-name-x"),
            owned("", "", "name1234"),
            owned("", "", "name1235"),
            owned("q", "urn:b", "i"),
            owned("q", "urn:b", "i"),
            owned("", "", ""),
        ];
        let mut events = vec![
            Event::start_document(),
            Event::StartElement(QName::local("root")),
        ];
        for round in 0..3 {
            for q in &names {
                events.push(Event::StartElement(q.clone()));
                events.push(Event::text(format!("{round}")));
                events.push(Event::EndElement);
            }
        }
        events.extend([Event::EndElement, Event::EndDocument]);
        let doc = Document::from_events(events.clone()).unwrap();
        let got: Vec<&QName> = doc
            .root()
            .unwrap()
            .elements()
            .map(|n| n.name().unwrap())
            .collect();
        let expected: Vec<&QName> = (0..3).flat_map(|_| names.iter()).collect();
        assert_eq!(got, expected);
        // Best effort (names with the same local name take turns in one slot of the cache),
        // and never more entries than elements.
        assert!(
            doc.names.len() < 3 * names.len(),
            "{} entries",
            doc.names.len()
        );
        assert_eq!(
            binxml_core::collect_events(&mut doc.events()).unwrap(),
            events
        );
        // A thousand elements of a few names (borrowed from different buffers): a few entries.
        let texts: Vec<String> = (0..1000)
            .map(|i| ["row", "cell", "x:cell"][i % 3].to_string())
            .collect();
        let mut events = vec![Event::StartElement(QName::local("root"))];
        for t in &texts {
            let (prefix, local) = t.split_once(':').unwrap_or(("", t));
            events.push(Event::StartElement(QName::new(
                prefix,
                if prefix.is_empty() { "" } else { "urn:x" },
                local,
            )));
            events.push(Event::EndElement);
        }
        events.push(Event::EndElement);
        let doc = Document::from_events(events).unwrap();
        assert_eq!(doc.root().unwrap().elements().count(), 1000);
        assert!(doc.names.len() <= 4, "{} entries", doc.names.len());
    }

    #[test]
    fn same_str_is_string_equality() {
        let words = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abd",
            "xbc",
            "abcd",
            "abce",
            "abcdefg",
            "abcdefh",
            "bbcdefg",
            "abcdefgh",
            "abcdefgi",
            "0123456789abcdef",
            "0123456789abcdeg",
            "1123456789abcdef",
            "0123456789abcdefg",
            "0123456789abcdefh",
            "0123456789Xbcdefg",
        ];
        for a in words {
            for b in words {
                let (a2, b2) = (a.to_string(), b.to_string());
                assert_eq!(same_str(&a2, &b2), a == b, "{a:?} {b:?}");
                assert_eq!(same_str(a, &b2), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn create_from_a_copied_kind_and_rename() {
        let mut doc = Document::from_events(sample()).unwrap();
        let root = doc.root().unwrap().id();
        let item = doc.node(root).child("item").unwrap().id();
        let copy = doc.create(doc.node(item).kind().clone());
        assert_eq!(doc.node(copy).local_name(), "item");
        assert!(doc.node(copy).attributes().is_empty() && doc.node(copy).child_ids().is_empty());
        doc.set_attribute(copy, QName::local("id"), "9");
        doc.append_child(root, copy);
        doc.set_name(copy, QName::local("renamed"));
        assert_eq!(
            doc.node(root).elements().last().unwrap().local_name(),
            "renamed"
        );
        assert_eq!(
            doc.node(item).local_name(),
            "item",
            "renaming one element leaves the others"
        );
        assert_eq!(doc.node(copy).attribute("id"), Some("9"));
        doc.set_text(copy, "t");
        assert_eq!(doc.node(copy).text(), "t");
        assert!(
            !doc.remove_attribute(doc.node(copy).child_ids()[0], "", "id"),
            "a text node has no attributes"
        );
    }

    #[test]
    #[should_panic(expected = "has no children")]
    fn text_nodes_take_no_children() {
        let mut doc = Document::from_events(sample()).unwrap();
        let t = doc.create(NodeKind::Text("x".into()));
        let u = doc.create(NodeKind::Text("y".into()));
        doc.append_child(t, u);
    }

    #[test]
    fn capacity_is_bounded_by_the_input() {
        // A tiny input reserves little, a huge claimed length at most the caps.
        let b = Builder::with_capacity(10);
        assert!(b.doc.nodes.capacity() < 64 && b.doc.attributes.capacity() < 64);
        let b = Builder::with_capacity(usize::MAX);
        assert!(b.doc.nodes.capacity() * std::mem::size_of::<NodeData>() <= 170 << 20);
        assert!(b.doc.attributes.capacity() * std::mem::size_of::<Attribute>() <= 100 << 20);
        assert!(b.doc.names.capacity() * std::mem::size_of::<QName>() <= 20 << 20);
    }
}
#[cfg(test)]
mod size_probe {
    /// The arena's node stays small (rare large kinds are boxed): building writes every node.
    #[test]
    fn node_size() {
        assert_eq!(std::mem::size_of::<super::NodeKind>(), 32);
        assert_eq!(std::mem::size_of::<super::NodeData>(), 40);
    }
}
