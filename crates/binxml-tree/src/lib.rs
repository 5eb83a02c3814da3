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

use binxml_core::{Decoder, DocType, Encoder, Error, Event, QName, Result};

mod builder;
mod document;
mod events;
mod node;
mod strings;
mod types;

pub use document::Document;
pub use events::TreeEvents;
pub use node::{Attributes, Descendants, Node};
pub use strings::Strings;
pub use types::{
    Attribute, Element, EntityReference, NameId, NamespaceDecl, NodeId, NodeKind, Notation,
    ProcessingInstruction, UnparsedEntity,
};

use builder::*;
use document::*;
use types::{Attr, EMPTY, Span};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod size_probe {
    /// The arena's node stays small (rare large kinds are boxed): building writes every node.
    #[test]
    fn node_size() {
        assert_eq!(std::mem::size_of::<super::NodeKind>(), 32);
        assert_eq!(std::mem::size_of::<super::NodeData>(), 40);
        // An attribute: a name-table index and its value.
        assert_eq!(std::mem::size_of::<super::Attr>(), 32);
    }
}
