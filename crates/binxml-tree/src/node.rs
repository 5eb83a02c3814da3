//! [`Node`]: read-only handles on nodes, and navigation.

use super::*;

/// A read-only handle on one node.
#[derive(Clone, Copy)]
pub struct Node<'d, 'a> {
    pub(crate) doc: &'d Document<'a>,
    pub(crate) id: NodeId,
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

    pub(crate) fn data(&self) -> &'d NodeData<'a> {
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

    /// The element's attributes, in document order; none for other nodes.
    pub fn attributes(&self) -> Attributes<'d, 'a> {
        Attributes {
            names: &self.doc.names,
            list: match self.kind() {
                NodeKind::Element(e) => self.doc.attributes[e.attributes.range()].iter(),
                _ => [].iter(),
            },
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
            .find(|a| a.name.local == local)
            .map(|a| a.value.as_ref())
    }

    /// The value of the attribute with this namespace and local name.
    pub fn attribute_ns(&self, namespace: &str, local: &str) -> Option<&'d str> {
        self.attributes()
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
    pub(crate) doc: &'d Document<'a>,
    pub(crate) stack: Vec<NodeId>,
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

/// The attributes of an element, in document order ([`Node::attributes`]).
#[derive(Clone, Debug)]
pub struct Attributes<'d, 'a> {
    names: &'d [QName<'a>],
    list: std::slice::Iter<'d, Attr<'a>>,
}

impl<'d, 'a> Attributes<'d, 'a> {
    /// How many attributes are left.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// No attribute is left.
    pub fn is_empty(&self) -> bool {
        self.list.len() == 0
    }

    /// The attribute at `index` of those left, if there is one.
    pub fn get(&self, index: usize) -> Option<Attribute<'d, 'a>> {
        let a = self.list.as_slice().get(index)?;
        Some(self.view(a))
    }

    fn view(&self, a: &'d Attr<'a>) -> Attribute<'d, 'a> {
        Attribute {
            name: &self.names[a.name.index()],
            value: &a.value,
        }
    }
}

impl<'d, 'a> Iterator for Attributes<'d, 'a> {
    type Item = Attribute<'d, 'a>;

    fn next(&mut self) -> Option<Attribute<'d, 'a>> {
        let a = self.list.next()?;
        Some(self.view(a))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.list.size_hint()
    }
}

impl DoubleEndedIterator for Attributes<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let a = self.list.next_back()?;
        Some(self.view(a))
    }
}

impl ExactSizeIterator for Attributes<'_, '_> {}
