//! The node data: ids, kinds, elements, attributes and the other items.

use std::borrow::Cow;

use binxml_core::{DocType, QName, Typed};

#[cfg(doc)]
use crate::{Document, Node};

/// A node's index in its document's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The index into the document's arena ([`Document::len`] counts its entries).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An attribute of an element, borrowed from its tree: its name and value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attribute<'d, 'a> {
    /// The attribute's name, its namespace already resolved.
    pub name: &'d QName<'a>,
    /// The attribute's value.
    pub value: &'d Cow<'a, str>,
}

/// An attribute as the tree stores it: its name an entry of the name table that element names
/// share (an attribute name repeats as element names do), so that an attribute takes 32 bytes
/// instead of the 96 of a name and a value. In a large tree most of the memory is touched
/// for the first time while it is built, and that first touch (a page fault per page) costs
/// about as much as the building: a smaller tree is a faster one.
#[derive(Clone, Debug)]
pub(crate) struct Attr<'a> {
    pub(crate) name: NameId,
    pub(crate) value: Cow<'a, str>,
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
    pub(crate) name: NameId,
    pub(crate) children: Span,
    pub(crate) attributes: Span,
    pub(crate) namespaces: Span,
}

/// An element name's index in its document's name table ([`Document::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub(crate) u32);

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
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl Span {
    pub(crate) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

pub(crate) const EMPTY: Span = Span { start: 0, len: 0 };
