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
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An attribute: its name and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute<'a> {
    pub name: QName<'a>,
    pub value: Cow<'a, str>,
}

/// A namespace declaration on an element.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceDecl<'a> {
    pub prefix: Cow<'a, str>,
    pub uri: Cow<'a, str>,
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind<'a> {
    Document { version: Option<Cow<'a, str>>, encoding: Option<Cow<'a, str>>, standalone: Option<bool> },
    Element(QName<'a>),
    Text { text: Cow<'a, str>, cdata: bool },
    Typed(Typed<'a>),
    Comment(Cow<'a, str>),
    ProcessingInstruction { target: Cow<'a, str>, data: Cow<'a, str> },
    /// Boxed, as is [`NodeKind::UnparsedEntity`]: the rare large kinds do not make every node
    /// larger.
    DocType(Box<DocType<'a>>),
    Notation { name: Cow<'a, str>, public_id: Option<Cow<'a, str>>, system_id: Option<Cow<'a, str>> },
    UnparsedEntity(Box<UnparsedEntity<'a>>),
    EntityReference { name: Cow<'a, str>, public_id: Option<Cow<'a, str>>, system_id: Option<Cow<'a, str>> },
}

/// An unparsed entity declared in the DTD.
#[derive(Clone, Debug, PartialEq)]
pub struct UnparsedEntity<'a> {
    pub name: Cow<'a, str>,
    pub public_id: Option<Cow<'a, str>>,
    pub system_id: Cow<'a, str>,
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

#[derive(Clone, Debug)]
struct NodeData<'a> {
    kind: NodeKind<'a>,
    parent: u32,
    children: Span,
    attributes: Span,
    namespaces: Span,
}

const NO_PARENT: u32 = u32::MAX;

/// A document tree. `'a` is the lifetime of the buffer its strings borrow from.
#[derive(Clone, Debug)]
pub struct Document<'a> {
    nodes: Vec<NodeData<'a>>,
    children: Vec<NodeId>,
    attributes: Vec<Attribute<'a>>,
    namespaces: Vec<NamespaceDecl<'a>>,
}

fn ev_err(msg: &str) -> Error {
    Error::invalid_events("tree", msg.to_string())
}

impl<'a> Document<'a> {
    /// An empty document (a document node without children).
    pub fn new() -> Self {
        Document {
            nodes: vec![NodeData {
                kind: NodeKind::Document { version: None, encoding: None, standalone: None },
                parent: NO_PARENT,
                children: Span::default(),
                attributes: Span::default(),
                namespaces: Span::default(),
            }],
            children: Vec::new(),
            attributes: Vec::new(),
            namespaces: Vec::new(),
        }
    }

    /// Builds the tree from every event of `decoder`.
    pub fn parse(decoder: &mut dyn Decoder<'a>) -> Result<Document<'a>> {
        Self::parse_sized(decoder, 0)
    }

    /// Builds the tree from every event of `decoder`, reserving room for a document encoded in
    /// `input_len` bytes (reserved memory that a small document does not use is never touched,
    /// and a large one is not copied as the arena grows).
    pub fn parse_sized(decoder: &mut dyn Decoder<'a>, input_len: usize) -> Result<Document<'a>> {
        Self::parse_from(decoder, input_len)
    }

    /// [`Document::parse_sized`] for a decoder of a known type: the same building, without a
    /// dynamic call per event (and with the decoder's event production inlined where the
    /// compiler sees fit).
    pub fn parse_from<D: Decoder<'a> + ?Sized>(decoder: &mut D, input_len: usize) -> Result<Document<'a>> {
        let mut b = Builder::with_capacity(input_len);
        while let Some(ev) = decoder.next_event()? {
            b.event(ev)?;
        }
        b.finish()
    }

    /// Builds the tree by push decoding ([`Decoder::read_into`]): the decoder hands element
    /// starts and ends, namespace declarations, attributes and text to the builder as their
    /// parts, without an intermediate [`Event`] per item. The same tree as
    /// [`Document::parse_sized`] (checked on the corpus by the tests), the fastest path.
    pub fn parse_push<D: Decoder<'a>>(decoder: &mut D, input_len: usize) -> Result<Document<'a>> {
        let mut b = Builder::with_capacity(input_len);
        decoder.read_into(&mut b)?;
        b.finish()
    }

    /// Parses UTF-8 XML text (see `binxml_xml::to_utf8`) straight into the tree: the XML decoder
    /// hands element starts and ends, namespace declarations, attributes and text to the
    /// builder as their parts, without the intermediate [`Event`]s of
    /// [`Document::parse_sized`] (which builds the same tree from any decoder).
    pub fn parse_xml(input: &'a [u8]) -> Result<Document<'a>> {
        Self::parse_xml_with(&mut binxml_xml::XmlDecoder::new(input), input.len())
    }

    /// [`Document::parse_xml`] from a decoder set up by the caller (its limits), reserving room
    /// for a document of `input_len` bytes.
    pub fn parse_xml_with(decoder: &mut binxml_xml::XmlDecoder<'a>, input_len: usize) -> Result<Document<'a>> {
        let mut b = Builder::with_capacity(input_len);
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
        Node { doc: self, id: NodeId(0) }
    }

    /// The root (document) element.
    pub fn root(&self) -> Option<Node<'_, 'a>> {
        self.document().children().find(|n| n.is_element())
    }

    pub fn node(&self, id: NodeId) -> Node<'_, 'a> {
        Node { doc: self, id }
    }

    /// Number of nodes in the arena (including detached ones).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1 && self.children.is_empty()
    }

    // ---- modification ----

    /// Creates a detached node; attach it with [`Document::append_child`] or
    /// [`Document::insert_child`].
    pub fn create(&mut self, kind: NodeKind<'a>) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(NodeData { kind, parent: NO_PARENT, children: Span::default(), attributes: Span::default(), namespaces: Span::default() });
        id
    }

    /// Creates a detached element.
    pub fn create_element(&mut self, name: QName<'a>) -> NodeId {
        self.create(NodeKind::Element(name))
    }

    /// Mutable access to a node's kind (rename an element, change a comment, ...).
    pub fn kind_mut(&mut self, id: NodeId) -> &mut NodeKind<'a> {
        &mut self.nodes[id.index()].kind
    }

    /// Inserts `child` (detached) at position `index` among `parent`'s children.
    pub fn insert_child(&mut self, parent: NodeId, index: usize, child: NodeId) {
        assert!(self.nodes[child.index()].parent == NO_PARENT && child != NodeId(0), "insert_child: the node is attached");
        let span = self.nodes[parent.index()].children;
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
            self.nodes[parent.index()].children.start = start;
        }
        self.nodes[parent.index()].children.len += 1;
        self.nodes[child.index()].parent = parent.0;
    }

    pub fn append_child(&mut self, parent: NodeId, child: NodeId) {
        let n = self.nodes[parent.index()].children.len as usize;
        self.insert_child(parent, n, child);
    }

    /// Detaches `parent`'s child at `index` and returns it.
    pub fn remove_child(&mut self, parent: NodeId, index: usize) -> Option<NodeId> {
        let span = self.nodes[parent.index()].children;
        if index >= span.len as usize {
            return None;
        }
        let r = span.range();
        let child = self.children[r.start + index];
        self.children.copy_within(r.start + index + 1..r.end, r.start + index);
        self.nodes[parent.index()].children.len -= 1;
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
        if let Some(i) = self.children[self.nodes[p as usize].children.range()].iter().position(|&c| c == node) {
            self.remove_child(parent, i);
        }
    }

    /// Replaces an element's content by one text node (or sets a text node's text).
    pub fn set_text(&mut self, id: NodeId, text: impl Into<Cow<'a, str>>) {
        let text = text.into();
        match &mut self.nodes[id.index()].kind {
            NodeKind::Text { text: t, .. } => *t = text,
            NodeKind::Element(_) => {
                let span = self.nodes[id.index()].children;
                for c in &self.children[span.range()] {
                    self.nodes[c.index()].parent = NO_PARENT;
                }
                self.nodes[id.index()].children.len = 0;
                let t = self.create(NodeKind::Text { text, cdata: false });
                self.append_child(id, t);
            }
            _ => {}
        }
    }

    /// Sets (or adds) an attribute of an element, matched by namespace and local name.
    pub fn set_attribute(&mut self, id: NodeId, name: QName<'a>, value: impl Into<Cow<'a, str>>) {
        let value = value.into();
        let span = self.nodes[id.index()].attributes;
        if let Some(a) = self.attributes[span.range()].iter_mut().find(|a| a.name.local == name.local && a.name.namespace == name.namespace) {
            a.value = value;
            return;
        }
        let attr = Attribute { name, value };
        if span.range().end == self.attributes.len() {
            self.attributes.push(attr);
        } else {
            let mut list = self.attributes[span.range()].to_vec();
            list.push(attr);
            self.nodes[id.index()].attributes.start = self.attributes.len() as u32;
            self.attributes.extend(list);
        }
        self.nodes[id.index()].attributes.len += 1;
    }

    /// Removes an attribute by local name and namespace; returns whether it was there.
    pub fn remove_attribute(&mut self, id: NodeId, namespace: &str, local: &str) -> bool {
        let span = self.nodes[id.index()].attributes;
        let r = span.range();
        let Some(i) = self.attributes[r.clone()].iter().position(|a| a.name.local == local && a.name.namespace == namespace) else {
            return false;
        };
        self.attributes[r.start + i..r.end].rotate_left(1);
        self.nodes[id.index()].attributes.len -= 1;
        true
    }

    /// Adds a namespace declaration to an element.
    pub fn declare_namespace(&mut self, id: NodeId, prefix: impl Into<Cow<'a, str>>, uri: impl Into<Cow<'a, str>>) {
        let decl = NamespaceDecl { prefix: prefix.into(), uri: uri.into() };
        let span = self.nodes[id.index()].namespaces;
        if span.range().end == self.namespaces.len() {
            self.namespaces.push(decl);
        } else {
            let mut list = self.namespaces[span.range()].to_vec();
            list.push(decl);
            self.nodes[id.index()].namespaces.start = self.namespaces.len() as u32;
            self.namespaces.extend(list);
        }
        self.nodes[id.index()].namespaces.len += 1;
    }

    // ---- serialization ----

    /// The document as a pull decoder of events (borrowing from the tree).
    pub fn events(&self) -> TreeEvents<'_, 'a> {
        TreeEvents { doc: self, stack: Vec::new(), queue: std::collections::VecDeque::new(), started: false, done: false, count: 0 }
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

/// Builds a [`Document`] from events.
struct Builder<'a> {
    doc: Document<'a>,
    /// Open nodes: (node, index in `pending` where its children start).
    open: Vec<(NodeId, usize)>,
    /// Children of open nodes not yet placed in `doc.children`.
    pending: Vec<NodeId>,
    ended: bool,
    started: bool,
    in_start_tag: bool,
}

impl<'a> Builder<'a> {
    fn new() -> Self {
        Builder { doc: Document::new(), open: vec![(NodeId(0), 0)], pending: Vec::new(), ended: false, started: false, in_start_tag: false }
    }

    /// A builder with room for a document encoded in `input_len` bytes (reserved memory that a
    /// small document does not use is never touched, and a large one is not copied as the
    /// arena grows).
    fn with_capacity(input_len: usize) -> Self {
        let mut b = Builder::new();
        // Rough upper bounds from the densest real documents: a node every 12 bytes, an
        // attribute every 24; capped so a huge input does not reserve more than it could fill.
        let nodes = (input_len / 12).min(1 << 26);
        b.doc.nodes.reserve(nodes);
        b.doc.children.reserve(nodes);
        b.doc.attributes.reserve((input_len / 24).min(1 << 25));
        b.pending.reserve(256);
        b
    }

    #[inline]
    fn leaf(&mut self, kind: NodeKind<'a>) {
        let parent = self.open.last().map_or(0, |o| o.0 .0);
        let id = NodeId(self.doc.nodes.len() as u32);
        self.doc.nodes.push(NodeData { kind, parent, children: Span::default(), attributes: Span::default(), namespaces: Span::default() });
        self.pending.push(id);
    }

    #[inline]
    fn close(&mut self) {
        let (node, from) = self.open.pop().expect("open node");
        let start = self.doc.children.len() as u32;
        match self.pending.len() - from {
            0 => {}
            // Most elements have one child (their text): no copy loop.
            1 => self.doc.children.push(self.pending[from]),
            _ => self.doc.children.extend_from_slice(&self.pending[from..]),
        }
        self.pending.truncate(from);
        self.doc.nodes[node.index()].children = Span { start, len: self.doc.children.len() as u32 - start };
    }

    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        let parent = self.open.last().map_or(0, |o| o.0 .0);
        let id = NodeId(self.doc.nodes.len() as u32);
        let attr_start = self.doc.attributes.len() as u32;
        let ns_start = self.doc.namespaces.len() as u32;
        self.doc.nodes.push(NodeData {
            kind: NodeKind::Element(name),
            parent,
            children: Span::default(),
            attributes: Span { start: attr_start, len: 0 },
            namespaces: Span { start: ns_start, len: 0 },
        });
        self.pending.push(id);
        self.open.push((id, self.pending.len()));
        self.in_start_tag = true;
        self.started = true;
        Ok(())
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        self.in_start_tag = false;
        if self.open.len() <= 1 {
            return Err(ev_err("EndElement without StartElement"));
        }
        self.close();
        self.started = true;
        Ok(())
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        if !self.in_start_tag {
            return Err(ev_err("Namespace outside a start tag"));
        }
        let id = self.open.last().map_or(0, |o| o.0 .0);
        self.doc.namespaces.push(NamespaceDecl { prefix, uri });
        self.doc.nodes[id as usize].namespaces.len += 1;
        self.started = true;
        Ok(())
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        if !self.in_start_tag {
            return Err(ev_err("Attribute outside a start tag"));
        }
        let id = self.open.last().map_or(0, |o| o.0 .0);
        self.doc.attributes.push(Attribute { name, value });
        self.doc.nodes[id as usize].attributes.len += 1;
        self.started = true;
        Ok(())
    }

    #[inline(always)]
    fn characters(&mut self, text: Cow<'a, str>, cdata: bool) -> Result<()> {
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        self.in_start_tag = false;
        self.started = true;
        // Adjacent plain text merges into one node.
        if !cdata {
            if let Some(&last) = self.pending.last() {
                let open_from = self.open.last().map_or(0, |o| o.1);
                if self.pending.len() > open_from {
                    if let NodeKind::Text { text: t, cdata: false } = &mut self.doc.nodes[last.index()].kind {
                        t.to_mut().push_str(&text);
                        return Ok(());
                    }
                }
            }
        }
        self.leaf(NodeKind::Text { text, cdata });
        Ok(())
    }

    #[inline(always)]
    fn event(&mut self, ev: Event<'a>) -> Result<()> {
        match ev {
            Event::StartElement(name) => return self.start_element(name),
            Event::EndElement => return self.end_element(),
            Event::Namespace { prefix, uri } => return self.namespace(prefix, uri),
            Event::Attribute { name, value } => return self.attribute(name, value),
            Event::Characters { text, cdata } => return self.characters(text, cdata),
            _ => {}
        }
        if self.ended {
            return Err(ev_err("event after EndDocument"));
        }
        self.in_start_tag = false;
        match ev {
            Event::StartDocument { version, encoding, standalone } => {
                if self.started {
                    return Err(ev_err("StartDocument twice"));
                }
                self.doc.nodes[0].kind = NodeKind::Document { version, encoding, standalone };
            }
            Event::EndDocument => {
                if self.open.len() != 1 {
                    return Err(ev_err("EndDocument inside an element"));
                }
                self.ended = true;
            }
            Event::StartElement(_) | Event::EndElement | Event::Namespace { .. } | Event::Attribute { .. } | Event::Characters { .. } => {}
            Event::Typed(t) => self.leaf(NodeKind::Typed(t)),
            Event::Comment(c) => self.leaf(NodeKind::Comment(c)),
            Event::ProcessingInstruction { target, data } => self.leaf(NodeKind::ProcessingInstruction { target, data }),
            Event::DocType(d) => self.leaf(NodeKind::DocType(Box::new(d))),
            Event::Notation { name, public_id, system_id } => self.leaf(NodeKind::Notation { name, public_id, system_id }),
            Event::UnparsedEntity { name, public_id, system_id, notation } => {
                self.leaf(NodeKind::UnparsedEntity(Box::new(UnparsedEntity { name, public_id, system_id, notation })))
            }
            Event::EntityReference { name, public_id, system_id } => {
                self.leaf(NodeKind::EntityReference { name, public_id, system_id })
            }
        }
        self.started = true;
        Ok(())
    }

    fn finish(mut self) -> Result<Document<'a>> {
        if self.open.len() != 1 {
            return Err(ev_err("the event stream ended inside an element"));
        }
        self.close();
        Ok(self.doc)
    }
}

impl<'a> binxml_core::EventSink<'a> for Builder<'a> {
    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        Builder::start_element(self, name)
    }
    #[inline]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        Builder::namespace(self, prefix, uri)
    }
    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        Builder::attribute(self, name, value)
    }
    #[inline]
    fn end_element(&mut self) -> Result<()> {
        Builder::end_element(self)
    }
    #[inline]
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
        write!(f, "Node({:?}, {:?})", self.id, self.kind())
    }
}

impl<'d, 'a> Node<'d, 'a> {
    pub fn id(&self) -> NodeId {
        self.id
    }

    fn data(&self) -> &'d NodeData<'a> {
        &self.doc.nodes[self.id.index()]
    }

    pub fn kind(&self) -> &'d NodeKind<'a> {
        &self.data().kind
    }

    pub fn is_element(&self) -> bool {
        matches!(self.kind(), NodeKind::Element(_))
    }

    /// The element's name.
    pub fn name(&self) -> Option<&'d QName<'a>> {
        match self.kind() {
            NodeKind::Element(q) => Some(q),
            _ => None,
        }
    }

    /// The element's local name, or `""`.
    pub fn local_name(&self) -> &'d str {
        self.name().map_or("", |q| &q.local)
    }

    pub fn parent(&self) -> Option<Node<'d, 'a>> {
        let p = self.data().parent;
        (p != NO_PARENT).then_some(Node { doc: self.doc, id: NodeId(p) })
    }

    /// The children's ids, one contiguous slice.
    pub fn child_ids(&self) -> &'d [NodeId] {
        &self.doc.children[self.data().children.range()]
    }

    pub fn children(&self) -> impl Iterator<Item = Node<'d, 'a>> + 'd {
        let doc = self.doc;
        self.child_ids().iter().map(move |&id| Node { doc, id })
    }

    /// Child elements.
    pub fn elements(&self) -> impl Iterator<Item = Node<'d, 'a>> + 'd {
        self.children().filter(|n| n.is_element())
    }

    pub fn attributes(&self) -> &'d [Attribute<'a>] {
        &self.doc.attributes[self.data().attributes.range()]
    }

    pub fn namespaces(&self) -> &'d [NamespaceDecl<'a>] {
        &self.doc.namespaces[self.data().namespaces.range()]
    }

    /// The value of the attribute with this local name (in any namespace).
    pub fn attribute(&self, local: &str) -> Option<&'d str> {
        self.attributes().iter().find(|a| a.name.local == local).map(|a| a.value.as_ref())
    }

    /// The value of the attribute with this namespace and local name.
    pub fn attribute_ns(&self, namespace: &str, local: &str) -> Option<&'d str> {
        self.attributes().iter().find(|a| a.name.local == local && a.name.namespace == namespace).map(|a| a.value.as_ref())
    }

    /// The first child element with this local name.
    pub fn child(&self, local: &str) -> Option<Node<'d, 'a>> {
        self.elements().find(|n| n.local_name() == local)
    }

    /// The first child element with this namespace and local name.
    pub fn child_ns(&self, namespace: &str, local: &str) -> Option<Node<'d, 'a>> {
        self.elements().find(|n| n.name().is_some_and(|q| q.local == local && q.namespace == namespace))
    }

    /// The node's own text: a text node's text, or the concatenated text of an element's direct
    /// text (and typed) children. Borrowed when there is exactly one text child.
    pub fn text(&self) -> Cow<'d, str> {
        match self.kind() {
            NodeKind::Text { text, .. } => Cow::Borrowed(text),
            NodeKind::Typed(t) => Cow::Owned(t.lexical()),
            NodeKind::Comment(c) => Cow::Borrowed(c),
            _ => {
                let mut out: Option<Cow<'d, str>> = None;
                for c in self.children() {
                    let piece: Cow<'d, str> = match c.kind() {
                        NodeKind::Text { text, .. } => Cow::Borrowed(text),
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
        Descendants { doc: self.doc, stack: self.child_ids().iter().rev().copied().collect() }
    }

    /// The first descendant element with this local name.
    pub fn find(&self, local: &str) -> Option<Node<'d, 'a>> {
        self.descendants().find(|n| n.local_name() == local)
    }

    /// Every descendant element with this local name.
    pub fn find_all<'s>(&self, local: &'s str) -> impl Iterator<Item = Node<'d, 'a>> + use<'d, 'a, 's> {
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
            NodeKind::Element(q) => {
                self.queue.push_back(Event::StartElement(q.borrowed()));
                for ns in n.namespaces() {
                    self.queue.push_back(Event::Namespace { prefix: b(&ns.prefix), uri: b(&ns.uri) });
                }
                for a in n.attributes() {
                    self.queue.push_back(Event::Attribute { name: a.name.borrowed(), value: b(&a.value) });
                }
                self.stack.push((id, 0));
                return;
            }
            NodeKind::Text { text, cdata } => Event::Characters { text: b(text), cdata: *cdata },
            NodeKind::Typed(t) => Event::Typed(t.clone()),
            NodeKind::Comment(c) => Event::Comment(b(c)),
            NodeKind::ProcessingInstruction { target, data } => Event::ProcessingInstruction { target: b(target), data: b(data) },
            NodeKind::DocType(d) => Event::DocType(DocType {
                name: b(&d.name),
                public_id: bo(&d.public_id),
                system_id: bo(&d.system_id),
                internal_subset: bo(&d.internal_subset),
            }),
            NodeKind::Notation { name, public_id, system_id } => Event::Notation { name: b(name), public_id: bo(public_id), system_id: bo(system_id) },
            NodeKind::UnparsedEntity(u) => Event::UnparsedEntity {
                name: b(&u.name),
                public_id: bo(&u.public_id),
                system_id: b(&u.system_id),
                notation: b(&u.notation),
            },
            NodeKind::EntityReference { name, public_id, system_id } => Event::EntityReference { name: b(name), public_id: bo(public_id), system_id: bo(system_id) },
            NodeKind::Document { .. } => return,
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
                if let NodeKind::Document { version, encoding, standalone } = self.doc.document().kind() {
                    self.queue.push_back(Event::StartDocument { version: bo(version), encoding: bo(encoding), standalone: *standalone });
                }
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
            Event::Namespace { prefix: "".into(), uri: "".into() },
            Event::Attribute { name: QName::local("Currency"), value: "EUR".into() },
            Event::StartElement(QName::local("item")),
            Event::Attribute { name: QName::local("id"), value: "1".into() },
            Event::text("ab"),
            Event::text("cd"),
            Event::EndElement,
            Event::StartElement(QName::local("item")),
            Event::Attribute { name: QName::local("id"), value: "2".into() },
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
        let t = doc.create(NodeKind::Text { text: "z".into(), cdata: false });
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
        assert_eq!(rec.events.iter().filter(|e| matches!(e, Event::StartElement(_))).count(), 3);
    }

    #[test]
    fn rejects_broken_streams() {
        assert!(Document::from_events(vec![Event::start_document(), Event::EndElement]).is_err());
        assert!(Document::from_events(vec![Event::start_document(), Event::StartElement(QName::local("a"))]).is_err());
    }
}
#[cfg(test)]
mod size_probe {
    /// The arena's node stays small (rare large kinds are boxed): building writes every node.
    #[test]
    fn node_size() {
        assert!(std::mem::size_of::<super::NodeData>() <= 112, "{}", std::mem::size_of::<super::NodeData>());
    }
}
