//! Schema-informed grammars (EXI 1.0 section 8.5), compiled once from a schema model and
//! shared by every stream encoded or decoded with it.
//!
//! Every non-terminal of every element and type grammar is one [`Grammar`] in one table,
//! named by a [`GrammarId`]; its productions are in event-code order (section 8.5.4.3), so a
//! production's index is its first-level event code. The productions that a schema does not
//! declare (section 8.5.4.4: undeclared elements and attributes, comments, ..., and the
//! `xsi:type` and `xsi:nil` attributes) depend on the strict option and the fidelity options
//! and are not stored: the codec derives them from a state's [`Kind`].

use binxml_schema::model::{ElemId, Name, TypeId};

/// A non-terminal of a schema-informed grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GrammarId(pub u32);

impl GrammarId {
    /// The index into [`SchemaGrammars::grammar`](super::SchemaGrammars::grammar)'s table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where in an element a state is, which decides its undeclared productions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The first state of a type grammar (`Type_i,0`): xsi:type, xsi:nil, namespace
    /// declarations and self-contained elements may come here.
    FirstStartTag,
    /// A later state that still accepts attributes.
    StartTag,
    /// A state of the element's content.
    Content,
}

/// The terminal symbol of a production.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminal {
    /// `AT(qname)` with a value of the attribute declaration's simple type.
    At {
        /// The attribute's name.
        name: Name,
        /// Its simple type.
        type_def: TypeId,
    },
    /// `AT(uri:*)`.
    AtNs(String),
    /// `AT(*)`.
    AtAny,
    /// `SE(qname)`: the element declaration, whose grammar evaluates the content.
    Se(ElemId),
    /// `SE(qname)` for a name declared more than once with different types (or nillable):
    /// the content is evaluated with the element fragment grammar (section 8.5.3).
    SeRelaxed(Name),
    /// `SE(uri:*)`.
    SeNs(String),
    /// `SE(*)`.
    SeAny,
    /// `EE`.
    Ee,
    /// `CH` with a value of this simple type (simple content).
    Ch(TypeId),
    /// `CH [untyped value]` declared by mixed content.
    ChMixed,
}

/// A production: a terminal and the state after it (`None` after `EE`).
#[derive(Clone, Debug)]
pub struct Production {
    /// What the production matches.
    pub terminal: Terminal,
    /// The state that follows.
    pub next: Option<GrammarId>,
}

/// A non-terminal: its kind and its productions in event-code order.
#[derive(Clone, Debug)]
pub struct Grammar {
    /// Start tag or content.
    pub kind: Kind,
    /// The declared productions; index = first-level event code.
    pub productions: Vec<Production>,
    /// For a start-tag state: the state its content starts in (`Element_i,content`), where
    /// undeclared content (SE(*), CH, ...) continues.
    pub content: Option<GrammarId>,
}
