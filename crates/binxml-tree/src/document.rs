//! [`Document`]: the arena, building it from events, modifying it, writing it out.

use super::*;

#[derive(Clone, Debug)]
pub(crate) struct NodeData<'a> {
    pub(crate) kind: NodeKind<'a>,
    pub(crate) parent: u32,
}

pub(crate) const NO_PARENT: u32 = u32::MAX;

/// A document tree. `'a` is the lifetime of the buffer its strings borrow from.
#[derive(Clone, Debug)]
pub struct Document<'a> {
    pub(crate) nodes: Vec<NodeData<'a>>,
    pub(crate) children: Vec<NodeId>,
    pub(crate) attributes: Vec<Attr<'a>>,
    pub(crate) namespaces: Vec<NamespaceDecl<'a>>,
    /// Element and attribute names; an element or attribute holds an index. The builder shares
    /// an entry between elements (or attributes) of the same name where a small cache finds it
    /// (best effort: never more entries than elements and attributes).
    pub(crate) names: Vec<QName<'a>>,
    /// The document node's children.
    pub(crate) top: Span,
    pub(crate) version: Option<Cow<'a, str>>,
    pub(crate) encoding: Option<Cow<'a, str>>,
    pub(crate) standalone: Option<bool>,
}

pub(crate) fn ev_err(msg: &str) -> Error {
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

    /// [`Document::parse`], with the strings of transient events (those a decoder lends only
    /// for a call: EXI's, from its string tables) copied into `strings` rather than each into
    /// an owned string of its own, and attribute names copied once per name. The tree borrows
    /// from `strings` (and from the input), so it cannot outlive either.
    pub fn parse_in<D: Decoder<'a>>(
        decoder: &mut D,
        size_hint: usize,
        strings: &'a Strings,
    ) -> Result<Document<'a>> {
        let mut b = Builder::with_capacity(size_hint);
        b.arena = Some(strings);
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
    pub(crate) fn children_span(&self, id: NodeId) -> Span {
        match &self.nodes[id.index()].kind {
            NodeKind::Element(e) => e.children,
            NodeKind::Document if id.0 == 0 => self.top,
            _ => EMPTY,
        }
    }

    pub(crate) fn children_span_mut(&mut self, id: NodeId) -> &mut Span {
        match &mut self.nodes[id.index()].kind {
            NodeKind::Element(e) => &mut e.children,
            NodeKind::Document if id.0 == 0 => &mut self.top,
            _ => panic!(
                "node {id:?} is neither an element nor the document node: it has no children"
            ),
        }
    }

    pub(crate) fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.index()].kind {
            NodeKind::Element(e) => Some(e),
            _ => None,
        }
    }

    pub(crate) fn element_mut(&mut self, id: NodeId) -> &mut Element {
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
        let names = &self.names;
        if let Some(a) = self.attributes[span.range()].iter_mut().find(|a| {
            let n = &names[a.name.index()];
            n.local == name.local && n.namespace == name.namespace
        }) {
            a.value = value;
            return;
        }
        let attr = Attr {
            name: self.add_name(name),
            value,
        };
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

    /// Renames the element's attribute at `index` (in document order; to change a name's
    /// prefix, say). Panics when `id` is not an element or has no attribute at `index`.
    pub fn set_attribute_name(&mut self, id: NodeId, index: usize, name: QName<'a>) {
        let r = self.element_mut(id).attributes.range();
        assert!(index < r.len(), "attribute {index} of {} ", r.len());
        self.attributes[r.start + index].name = self.add_name(name);
    }

    /// A new entry of the name table (names changed or added after building; not shared).
    fn add_name(&mut self, name: QName<'a>) -> NameId {
        self.names.push(name);
        NameId(self.names.len() as u32 - 1)
    }

    /// Removes an attribute by local name and namespace; returns whether it was there.
    pub fn remove_attribute(&mut self, id: NodeId, namespace: &str, local: &str) -> bool {
        let Some(e) = self.element(id) else {
            return false;
        };
        let r = e.attributes.range();
        let names = &self.names;
        let Some(i) = self.attributes[r.clone()].iter().position(|a| {
            let n = &names[a.name.index()];
            n.local == local && n.namespace == namespace
        }) else {
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
            subtree: None,
        }
    }

    /// One element and its descendants as a document of their own (a pull decoder of events):
    /// the namespace declarations in scope at the element that it does not repeat itself are
    /// added to its start, so that the prefixes it uses stay bound. Panics when `id` is not an
    /// element.
    pub fn element_events(&self, id: NodeId) -> TreeEvents<'_, 'a> {
        assert!(self.element(id).is_some(), "element_events: not an element");
        let mut inherited: Vec<NamespaceDecl<'_>> = Vec::new();
        let own = self.node(id).namespaces();
        let mut at = self.node(id).parent();
        while let Some(n) = at {
            for ns in n.namespaces() {
                let shadowed = own.iter().any(|o| o.prefix == ns.prefix)
                    || inherited.iter().any(|o| o.prefix == ns.prefix);
                if !shadowed {
                    inherited.push(NamespaceDecl {
                        prefix: Cow::Borrowed(&ns.prefix),
                        uri: Cow::Borrowed(&ns.uri),
                    });
                }
            }
            at = n.parent();
        }
        let mut ev = self.events();
        ev.subtree = Some((id, inherited));
        ev
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
