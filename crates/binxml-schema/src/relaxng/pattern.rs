//! The simplified pattern graph (RELAX NG section 4's result): patterns made of the few
//! primitive forms that are left after simplification, hash-consed so that equal patterns share
//! one id (the derivatives of a validator stay small and memoizable).
//!
//! An element's content is not a child node but a slot in [`Grammar::contents`]: that is how
//! the graph stays finite for recursive grammars (the spec's "every ref points at an element
//! define", section 4.19).

use std::collections::HashMap;

use crate::datatypes::{Builtin, Facets, Value};

/// A pattern's id in its [`Arena`].
pub type P = u32;

/// The primitive patterns, plus `After` (the validator's "content of an open element, then
/// the rest").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The empty sequence.
    Empty,
    /// Nothing (the error pattern).
    NotAllowed,
    /// Any amount of text.
    Text,
    /// Either.
    Choice(P, P),
    /// Both, in any interleaving.
    Interleave(P, P),
    /// One, then the other.
    Group(P, P),
    /// One or more repetitions.
    OneOrMore(P),
    /// Text split into white-space separated tokens that match the pattern.
    List(P),
    /// A datatype's value (index into [`Grammar::datatypes`]).
    Data(u32),
    /// A datatype's value that does not match the pattern.
    DataExcept(u32, P),
    /// One value (index into [`Grammar::values`]).
    Value(u32),
    /// An attribute: its name class (index into [`Grammar::name_classes`]) and value pattern.
    Attribute(u32, P),
    /// An element: its name class and the slot of its content ([`Grammar::contents`]).
    Element(u32, u32),
    /// The content of an open element, then what follows its end (validation only).
    After(P, P),
}

/// The fixed ids of the two constant patterns.
pub const EMPTY: P = 0;
/// See [`EMPTY`].
pub const NOT_ALLOWED: P = 1;
/// See [`EMPTY`].
pub const TEXT: P = 2;

/// Hash-consed patterns: one id per distinct node.
#[derive(Clone, Debug)]
pub struct Arena {
    nodes: Vec<Node>,
    ids: HashMap<Node, P>,
    limit: usize,
}

/// The arena grew past its limit (a hostile schema, or a document whose derivatives explode).
#[derive(Debug)]
pub struct TooBig;

impl Arena {
    /// An arena holding the constants, that refuses to grow past `limit` nodes.
    pub fn new(limit: usize) -> Arena {
        let mut a = Arena {
            nodes: Vec::new(),
            ids: HashMap::new(),
            limit,
        };
        for n in [Node::Empty, Node::NotAllowed, Node::Text] {
            let _ = a.intern(n);
        }
        a
    }

    /// The node of `p`.
    pub fn node(&self, p: P) -> Node {
        self.nodes[p as usize]
    }

    /// How many nodes there are.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are none (never: the constants are always there).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The most nodes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Sets the most nodes.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    fn intern(&mut self, n: Node) -> Result<P, TooBig> {
        if let Some(&p) = self.ids.get(&n) {
            return Ok(p);
        }
        if self.nodes.len() >= self.limit {
            return Err(TooBig);
        }
        let p = self.nodes.len() as P;
        self.nodes.push(n);
        self.ids.insert(n, p);
        Ok(p)
    }

    /// `a | b`, with notAllowed dropped and duplicates merged.
    pub fn choice(&mut self, a: P, b: P) -> Result<P, TooBig> {
        if a == NOT_ALLOWED || a == b {
            return Ok(b);
        }
        if b == NOT_ALLOWED {
            return Ok(a);
        }
        // A choice already containing `b` (left-nested) stays as it is.
        if self.contains_choice(a, b) {
            return Ok(a);
        }
        self.intern(Node::Choice(a, b))
    }

    fn contains_choice(&self, a: P, b: P) -> bool {
        let mut cur = a;
        // Bounded: choices built here nest to the left.
        for _ in 0..64 {
            match self.node(cur) {
                Node::Choice(x, y) => {
                    if y == b || x == b {
                        return true;
                    }
                    cur = x;
                }
                _ => return cur == b,
            }
        }
        false
    }

    /// `a, b`.
    pub fn group(&mut self, a: P, b: P) -> Result<P, TooBig> {
        if a == NOT_ALLOWED || b == NOT_ALLOWED {
            return Ok(NOT_ALLOWED);
        }
        if a == EMPTY {
            return Ok(b);
        }
        if b == EMPTY {
            return Ok(a);
        }
        self.intern(Node::Group(a, b))
    }

    /// `a & b`.
    pub fn interleave(&mut self, a: P, b: P) -> Result<P, TooBig> {
        if a == NOT_ALLOWED || b == NOT_ALLOWED {
            return Ok(NOT_ALLOWED);
        }
        if a == EMPTY {
            return Ok(b);
        }
        if b == EMPTY {
            return Ok(a);
        }
        self.intern(Node::Interleave(a, b))
    }

    /// `a+`.
    pub fn one_or_more(&mut self, a: P) -> Result<P, TooBig> {
        match a {
            NOT_ALLOWED | EMPTY => Ok(a),
            _ => self.intern(Node::OneOrMore(a)),
        }
    }

    /// `after(a, b)`.
    pub fn after(&mut self, a: P, b: P) -> Result<P, TooBig> {
        if a == NOT_ALLOWED || b == NOT_ALLOWED {
            return Ok(NOT_ALLOWED);
        }
        self.intern(Node::After(a, b))
    }

    /// Any other node, as it is.
    pub fn make(&mut self, n: Node) -> Result<P, TooBig> {
        match n {
            Node::Choice(a, b) => self.choice(a, b),
            Node::Group(a, b) => self.group(a, b),
            Node::Interleave(a, b) => self.interleave(a, b),
            Node::OneOrMore(a) => self.one_or_more(a),
            Node::After(a, b) => self.after(a, b),
            Node::List(NOT_ALLOWED) | Node::Attribute(_, NOT_ALLOWED) => Ok(NOT_ALLOWED),
            n => self.intern(n),
        }
    }

    /// Whether `p` matches the empty sequence.
    pub fn nullable(&self, p: P) -> bool {
        match self.node(p) {
            Node::Empty | Node::Text => true,
            Node::Choice(a, b) => self.nullable(a) || self.nullable(b),
            Node::Interleave(a, b) | Node::Group(a, b) => self.nullable(a) && self.nullable(b),
            Node::OneOrMore(a) => self.nullable(a),
            _ => false,
        }
    }
}

/// A name class (section 4.12's forms, after simplification).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NameClass {
    /// One name: namespace, local name.
    Name(String, String),
    /// Any name, but those of the exception.
    AnyName(Option<Box<NameClass>>),
    /// Any name in the namespace, but those of the exception.
    NsName(String, Option<Box<NameClass>>),
    /// Either.
    Choice(Box<NameClass>, Box<NameClass>),
}

impl NameClass {
    /// Whether the class contains the name.
    pub fn contains(&self, ns: &str, local: &str) -> bool {
        match self {
            NameClass::Name(n, l) => n == ns && l == local,
            NameClass::AnyName(except) => !except.as_ref().is_some_and(|e| e.contains(ns, local)),
            NameClass::NsName(n, except) => {
                n == ns && !except.as_ref().is_some_and(|e| e.contains(ns, local))
            }
            NameClass::Choice(a, b) => a.contains(ns, local) || b.contains(ns, local),
        }
    }

    /// The single name the class contains, when it is one name.
    pub fn single(&self) -> Option<(&str, &str)> {
        match self {
            NameClass::Name(n, l) => Some((n, l)),
            _ => None,
        }
    }
}

/// A datatype of a `data` or `value` pattern.
#[derive(Clone, Debug)]
pub enum Datatype {
    /// The built-in library's `string` (no white-space processing).
    String,
    /// The built-in library's `token` (white space collapsed).
    Token,
    /// An XML Schema datatype with the facets of its parameters.
    Xsd(Builtin, Box<Facets>),
}

impl Datatype {
    /// The XML Schema built-in type, when it is one.
    pub fn builtin(&self) -> Option<Builtin> {
        match self {
            Datatype::Xsd(b, _) => Some(*b),
            _ => None,
        }
    }
}

/// The value of a `value` pattern.
#[derive(Clone, Debug)]
pub struct ValuePattern {
    /// Its datatype (index into [`Grammar::datatypes`]).
    pub datatype: u32,
    /// The value as written.
    pub lexical: String,
    /// Its value, for XML Schema datatypes.
    pub value: Option<Value>,
}

/// A simplified grammar: the start pattern and everything the pattern ids refer to.
#[derive(Clone, Debug)]
pub struct Grammar {
    /// The patterns.
    pub arena: Arena,
    /// The start pattern.
    pub start: P,
    /// Element contents, by slot.
    pub contents: Vec<P>,
    /// Name classes of elements and attributes.
    pub name_classes: Vec<NameClass>,
    /// Datatypes.
    pub datatypes: Vec<Datatype>,
    /// Values.
    pub values: Vec<ValuePattern>,
}
