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
    /// Whether `productions` holds an `EE` (the second level adds one where it does not):
    /// known when the grammar is built, not searched for at every second-level event.
    pub(crate) has_ee: bool,
}

impl Grammar {
    /// A state of `kind` with `productions` (in event-code order).
    pub(crate) fn new(
        kind: Kind,
        productions: Vec<Production>,
        content: Option<GrammarId>,
    ) -> Grammar {
        let has_ee = productions
            .iter()
            .any(|p| matches!(p.terminal, Terminal::Ee));
        Grammar {
            kind,
            productions,
            content,
            has_ee,
        }
    }
}

/// A second-level production of a schema-informed state (section 8.5.4.4): the productions a
/// schema does not declare, which the codec adds by the state's kind and the options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Second {
    /// `EE`, where the state has none at the first level.
    #[default]
    Ee,
    /// `AT(xsi:type)`.
    XsiType,
    /// `AT(xsi:nil)`.
    XsiNil,
    /// `AT(*)`.
    AtAny,
    /// `AT(qname)[untyped value]`: a declared attribute whose value its type cannot hold,
    /// or an undeclared one (a third level names which).
    AtUntyped,
    /// `NS` (preserve.prefixes; first state only).
    Ns,
    /// `SC` (selfContained; first state only).
    Sc,
    /// `SE(*)`.
    SeAny,
    /// `CH [untyped value]`.
    Ch,
    /// `ER` (preserve.dtd).
    Er,
    /// The CM/PI group (preserve.comments or preserve.pis); its third level holds them.
    Misc,
}

/// The options that decide which second-level productions a state has.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fidelity {
    pub strict: bool,
    pub prefixes: bool,
    pub self_contained: bool,
    pub dtd: bool,
    /// Comments or processing instructions are preserved.
    pub misc: bool,
}

impl Fidelity {
    pub(crate) fn of(o: &crate::options::ExiOptions) -> Self {
        Fidelity {
            strict: o.strict,
            prefixes: o.prefixes,
            self_contained: o.self_contained,
            dtd: o.dtd,
            misc: o.comments || o.pis,
        }
    }
}

/// A state's second-level productions in event-code order (at most eleven: no allocation
/// per event).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Order {
    items: [Second; 11],
    len: usize,
}

impl Order {
    fn push(&mut self, s: Second) {
        self.items[self.len] = s;
        self.len += 1;
    }
}

impl std::ops::Deref for Order {
    type Target = [Second];
    fn deref(&self) -> &[Second] {
        &self.items[..self.len]
    }
}

/// The second level of state `st` of an element whose declaration is `nillable` and whose
/// type is `castable`, in the order of section 8.5.4.4.1 (strict: 8.5.4.4.2):
/// `EE` (when the state has none), `AT(xsi:type)`, `AT(xsi:nil)`, `AT(*)`, `AT(qname)[untyped]`,
/// `NS`, `SC`, `SE(*)`, `CH [untyped]`, `ER`, then the CM/PI group. The attribute entries are
/// on start-tag states only, `xsi:type`, `xsi:nil`, `NS` and `SC` on the first state only.
/// `AT(qname)[untyped]` is one entry whose third level picks the attribute, as EXIficient
/// writes it (its `ATTRIBUTE_INVALID_VALUE`).
/// Whether [`second_level`] gives any production, without building the list: outside strict
/// mode it always holds SE(*) and CH; in strict mode only a first start tag's xsi:type (a type
/// with derived types) or xsi:nil (a nillable element).
pub(crate) fn has_second_level(st: &Grammar, nillable: bool, castable: bool, f: Fidelity) -> bool {
    if f.strict {
        st.kind == Kind::FirstStartTag && (castable || nillable)
    } else {
        true
    }
}

pub(crate) fn second_level(st: &Grammar, nillable: bool, castable: bool, f: Fidelity) -> Order {
    let mut v = Order::default();
    if f.strict {
        if st.kind == Kind::FirstStartTag {
            if castable {
                v.push(Second::XsiType);
            }
            if nillable {
                v.push(Second::XsiNil);
            }
        }
        return v;
    }
    if !st.has_ee {
        v.push(Second::Ee);
    }
    if st.kind == Kind::FirstStartTag {
        v.push(Second::XsiType);
        v.push(Second::XsiNil);
    }
    if st.kind != Kind::Content {
        v.push(Second::AtAny);
        v.push(Second::AtUntyped);
    }
    if st.kind == Kind::FirstStartTag {
        if f.prefixes {
            v.push(Second::Ns);
        }
        if f.self_contained {
            v.push(Second::Sc);
        }
    }
    v.push(Second::SeAny);
    v.push(Second::Ch);
    if f.dtd {
        v.push(Second::Er);
    }
    if f.misc {
        v.push(Second::Misc);
    }
    v
}
