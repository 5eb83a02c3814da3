//! Derivatives of patterns with respect to a document's events, after James Clark's "An
//! algorithm for RELAX NG validation" (2002): a start tag's name, each attribute, the end of
//! the start tag, text and the end tag each turn the current pattern into the pattern of what
//! may follow. Patterns are hash-consed in the validator's own copy of the grammar's arena and
//! the name-keyed derivatives are memoized, so a document costs time linear in its events for
//! a given schema. The arena's limit bounds memory whatever the schema and the document.

use std::collections::HashMap;

use super::pattern::*;
use crate::datatypes::{NamespaceResolver, WhiteSpace};

/// The arena outgrew its limit while validating.
pub type R = Result<P, TooBig>;

/// What to apply to the second half of each `After` (the spec's `applyAfter` functions).
#[derive(Clone, Copy)]
enum Then {
    /// `x & b`.
    InterleaveRight(P),
    /// `a & x`.
    InterleaveLeft(P),
    /// `x , b`.
    Group(P),
    /// `after(x, b)`.
    After(P),
}

/// Recursion deeper than this (a pathological pattern shape) is treated like an arena overflow.
const MAX_RECURSION: usize = 20_000;

/// Derivatives over one grammar, with their memo tables.
pub struct Deriver {
    /// The grammar.
    pub g: std::sync::Arc<Grammar>,
    /// Its patterns and those the derivatives made.
    pub arena: Arena,
    /// Name ids by namespace, then local name (looked up without allocating).
    names: HashMap<String, HashMap<String, u32>>,
    name_count: u32,
    open: HashMap<(P, u32), P>,
    close: HashMap<P, P>,
    end: HashMap<P, P>,
    depth: usize,
}

impl Deriver {
    /// Derivatives over `g`, its arena copied and allowed to grow to `limit` patterns.
    pub fn new(g: std::sync::Arc<Grammar>, limit: usize) -> Self {
        let mut arena = g.arena.clone();
        arena.set_limit(limit.max(g.arena.len()));
        Deriver {
            g,
            arena,
            names: HashMap::new(),
            name_count: 0,
            open: HashMap::new(),
            close: HashMap::new(),
            end: HashMap::new(),
            depth: 0,
        }
    }

    fn enter(&mut self) -> Result<(), TooBig> {
        self.depth += 1;
        if self.depth > MAX_RECURSION {
            self.depth -= 1;
            return Err(TooBig);
        }
        Ok(())
    }

    /// Whether `p` matches the empty sequence.
    pub fn nullable(&self, p: P) -> bool {
        self.arena.nullable(p)
    }

    fn apply_after(&mut self, f: Then, p: P) -> R {
        match self.arena.node(p) {
            Node::After(a, b) => {
                let nb = match f {
                    Then::InterleaveRight(x) => self.arena.interleave(b, x)?,
                    Then::InterleaveLeft(x) => self.arena.interleave(x, b)?,
                    Then::Group(x) => self.arena.group(b, x)?,
                    Then::After(x) => self.arena.after(b, x)?,
                };
                self.arena.after(a, nb)
            }
            Node::Choice(a, b) => {
                self.enter()?;
                let x = self.apply_after(f, a);
                let y = x.and_then(|x| Ok((x, self.apply_after(f, b)?)));
                self.depth -= 1;
                let (x, y) = y?;
                self.arena.choice(x, y)
            }
            _ => Ok(NOT_ALLOWED),
        }
    }

    /// The derivative by a start tag's name.
    pub fn start_tag_open(&mut self, p: P, ns: &str, local: &str) -> R {
        let name = match self.names.get(ns).and_then(|m| m.get(local)) {
            Some(&n) => n,
            None => {
                let n = self.name_count;
                self.name_count += 1;
                self.names
                    .entry(ns.to_string())
                    .or_default()
                    .insert(local.to_string(), n);
                n
            }
        };
        self.sto(p, name, ns, local)
    }

    fn sto(&mut self, p: P, name: u32, ns: &str, local: &str) -> R {
        if let Some(&r) = self.open.get(&(p, name)) {
            return Ok(r);
        }
        self.enter()?;
        let r = self.sto_inner(p, name, ns, local);
        self.depth -= 1;
        let r = r?;
        self.open.insert((p, name), r);
        Ok(r)
    }

    fn sto_inner(&mut self, p: P, name: u32, ns: &str, local: &str) -> R {
        match self.arena.node(p) {
            Node::Choice(a, b) => {
                let x = self.sto(a, name, ns, local)?;
                let y = self.sto(b, name, ns, local)?;
                self.arena.choice(x, y)
            }
            Node::Element(nc, slot) => {
                if self.g.name_classes[nc as usize].contains(ns, local) {
                    self.arena.after(self.g.contents[slot as usize], EMPTY)
                } else {
                    Ok(NOT_ALLOWED)
                }
            }
            Node::Interleave(a, b) => {
                let x = self.sto(a, name, ns, local)?;
                let x = self.apply_after(Then::InterleaveRight(b), x)?;
                let y = self.sto(b, name, ns, local)?;
                let y = self.apply_after(Then::InterleaveLeft(a), y)?;
                self.arena.choice(x, y)
            }
            Node::OneOrMore(a) => {
                let x = self.sto(a, name, ns, local)?;
                let rest = self.arena.choice(p, EMPTY)?;
                self.apply_after(Then::Group(rest), x)
            }
            Node::Group(a, b) => {
                let x = self.sto(a, name, ns, local)?;
                let x = self.apply_after(Then::Group(b), x)?;
                if self.nullable(a) {
                    let y = self.sto(b, name, ns, local)?;
                    self.arena.choice(x, y)
                } else {
                    Ok(x)
                }
            }
            Node::After(a, b) => {
                let x = self.sto(a, name, ns, local)?;
                self.apply_after(Then::After(b), x)
            }
            _ => Ok(NOT_ALLOWED),
        }
    }

    /// The derivative by one attribute.
    pub fn attribute(
        &mut self,
        p: P,
        ns: &str,
        local: &str,
        value: &str,
        r: &dyn NamespaceResolver,
    ) -> R {
        self.enter()?;
        let out = self.att_inner(p, ns, local, value, r);
        self.depth -= 1;
        out
    }

    fn att_inner(
        &mut self,
        p: P,
        ns: &str,
        local: &str,
        value: &str,
        r: &dyn NamespaceResolver,
    ) -> R {
        match self.arena.node(p) {
            Node::After(a, b) => {
                let x = self.attribute(a, ns, local, value, r)?;
                self.arena.after(x, b)
            }
            Node::Choice(a, b) => {
                let x = self.attribute(a, ns, local, value, r)?;
                let y = self.attribute(b, ns, local, value, r)?;
                self.arena.choice(x, y)
            }
            Node::Group(a, b) | Node::Interleave(a, b) => {
                let group = matches!(self.arena.node(p), Node::Group(..));
                let x = self.attribute(a, ns, local, value, r)?;
                let y = self.attribute(b, ns, local, value, r)?;
                let (l, rr) = if group {
                    (self.arena.group(x, b)?, self.arena.group(a, y)?)
                } else {
                    (self.arena.interleave(x, b)?, self.arena.interleave(a, y)?)
                };
                self.arena.choice(l, rr)
            }
            Node::OneOrMore(a) => {
                let x = self.attribute(a, ns, local, value, r)?;
                let rest = self.arena.choice(p, EMPTY)?;
                self.arena.group(x, rest)
            }
            Node::Attribute(nc, a) => {
                if self.g.name_classes[nc as usize].contains(ns, local)
                    && self.value_match(a, value, r)?
                {
                    Ok(EMPTY)
                } else {
                    Ok(NOT_ALLOWED)
                }
            }
            _ => Ok(NOT_ALLOWED),
        }
    }

    fn value_match(&mut self, p: P, s: &str, r: &dyn NamespaceResolver) -> Result<bool, TooBig> {
        if self.nullable(p) && is_white(s) {
            return Ok(true);
        }
        let d = self.text(p, s, r)?;
        Ok(self.nullable(d))
    }

    /// The derivative by the end of the start tag (no more attributes).
    pub fn start_tag_close(&mut self, p: P) -> R {
        if let Some(&r) = self.close.get(&p) {
            return Ok(r);
        }
        self.enter()?;
        let r = self.stc_inner(p);
        self.depth -= 1;
        let r = r?;
        self.close.insert(p, r);
        Ok(r)
    }

    fn stc_inner(&mut self, p: P) -> R {
        match self.arena.node(p) {
            Node::After(a, b) => {
                let x = self.start_tag_close(a)?;
                self.arena.after(x, b)
            }
            Node::Choice(a, b) => {
                let x = self.start_tag_close(a)?;
                let y = self.start_tag_close(b)?;
                self.arena.choice(x, y)
            }
            Node::Group(a, b) => {
                let x = self.start_tag_close(a)?;
                let y = self.start_tag_close(b)?;
                self.arena.group(x, y)
            }
            Node::Interleave(a, b) => {
                let x = self.start_tag_close(a)?;
                let y = self.start_tag_close(b)?;
                self.arena.interleave(x, y)
            }
            Node::OneOrMore(a) => {
                let x = self.start_tag_close(a)?;
                self.arena.one_or_more(x)
            }
            Node::Attribute(..) => Ok(NOT_ALLOWED),
            _ => Ok(p),
        }
    }

    /// The derivative by a text chunk.
    pub fn text(&mut self, p: P, s: &str, r: &dyn NamespaceResolver) -> R {
        self.enter()?;
        let out = self.text_inner(p, s, r);
        self.depth -= 1;
        out
    }

    fn text_inner(&mut self, p: P, s: &str, r: &dyn NamespaceResolver) -> R {
        match self.arena.node(p) {
            Node::Choice(a, b) => {
                let x = self.text(a, s, r)?;
                let y = self.text(b, s, r)?;
                self.arena.choice(x, y)
            }
            Node::Interleave(a, b) => {
                let x = self.text(a, s, r)?;
                let x = self.arena.interleave(x, b)?;
                let y = self.text(b, s, r)?;
                let y = self.arena.interleave(a, y)?;
                self.arena.choice(x, y)
            }
            Node::Group(a, b) => {
                let x = self.text(a, s, r)?;
                let x = self.arena.group(x, b)?;
                if self.nullable(a) {
                    let y = self.text(b, s, r)?;
                    self.arena.choice(x, y)
                } else {
                    Ok(x)
                }
            }
            Node::After(a, b) => {
                let x = self.text(a, s, r)?;
                self.arena.after(x, b)
            }
            Node::OneOrMore(a) => {
                let x = self.text(a, s, r)?;
                let rest = self.arena.choice(p, EMPTY)?;
                self.arena.group(x, rest)
            }
            Node::Text => Ok(p),
            Node::Value(v) => Ok(if self.value_equal(v, s, r) {
                EMPTY
            } else {
                NOT_ALLOWED
            }),
            Node::Data(dt) => Ok(if self.allows(dt, s, r) {
                EMPTY
            } else {
                NOT_ALLOWED
            }),
            Node::DataExcept(dt, x) => {
                if !self.allows(dt, s, r) {
                    return Ok(NOT_ALLOWED);
                }
                let d = self.text(x, s, r)?;
                Ok(if self.nullable(d) { NOT_ALLOWED } else { EMPTY })
            }
            Node::List(x) => {
                let mut cur = x;
                for word in s.split(is_space).filter(|w| !w.is_empty()) {
                    cur = self.text(cur, word, r)?;
                    if cur == NOT_ALLOWED {
                        break;
                    }
                }
                Ok(if self.nullable(cur) {
                    EMPTY
                } else {
                    NOT_ALLOWED
                })
            }
            _ => Ok(NOT_ALLOWED),
        }
    }

    /// The derivative by an end tag.
    pub fn end_tag(&mut self, p: P) -> R {
        if let Some(&r) = self.end.get(&p) {
            return Ok(r);
        }
        self.enter()?;
        let r = match self.arena.node(p) {
            Node::Choice(a, b) => {
                let x = self.end_tag(a);
                let y = x.and_then(|x| Ok((x, self.end_tag(b)?)));
                y.and_then(|(x, y)| self.arena.choice(x, y))
            }
            Node::After(a, b) if self.nullable(a) => Ok(b),
            _ => Ok(NOT_ALLOWED),
        };
        self.depth -= 1;
        let r = r?;
        self.end.insert(p, r);
        Ok(r)
    }

    /// What follows the open element whatever its content: the choice of every `After`'s
    /// second half (error recovery: the element counts as matched).
    pub fn after_rest(&mut self, p: P) -> R {
        self.enter()?;
        let r = match self.arena.node(p) {
            Node::Choice(a, b) => {
                let x = self.after_rest(a);
                let y = x.and_then(|x| Ok((x, self.after_rest(b)?)));
                y.and_then(|(x, y)| self.arena.choice(x, y))
            }
            Node::After(_, b) => Ok(b),
            _ => Ok(NOT_ALLOWED),
        };
        self.depth -= 1;
        r
    }

    fn allows(&self, dt: u32, s: &str, r: &dyn NamespaceResolver) -> bool {
        match &self.g.datatypes[dt as usize] {
            Datatype::String | Datatype::Token => true,
            Datatype::Xsd(_, f) => f.validate(s, r).is_ok(),
        }
    }

    fn value_equal(&self, v: u32, s: &str, r: &dyn NamespaceResolver) -> bool {
        let vp = &self.g.values[v as usize];
        match &self.g.datatypes[vp.datatype as usize] {
            Datatype::String => s == vp.lexical,
            Datatype::Token => {
                WhiteSpace::Collapse.apply(s) == WhiteSpace::Collapse.apply(&vp.lexical)
            }
            Datatype::Xsd(_, f) => match (f.validate(s, r), &vp.value) {
                (Ok(a), Some(b)) => a.same_value(b),
                _ => false,
            },
        }
    }

    /// [`Deriver::start_tag_close`] that lets missing attributes go (recovery after an
    /// attribute the document lacks).
    pub fn start_tag_close_lenient(&mut self, p: P) -> R {
        self.enter()?;
        let r = self.stcl_inner(p);
        self.depth -= 1;
        r
    }

    fn stcl_inner(&mut self, p: P) -> R {
        match self.arena.node(p) {
            Node::After(a, b) => {
                let x = self.start_tag_close_lenient(a)?;
                self.arena.after(x, b)
            }
            Node::Choice(a, b) => {
                let x = self.start_tag_close_lenient(a)?;
                let y = self.start_tag_close_lenient(b)?;
                self.arena.choice(x, y)
            }
            Node::Group(a, b) => {
                let x = self.start_tag_close_lenient(a)?;
                let y = self.start_tag_close_lenient(b)?;
                self.arena.group(x, y)
            }
            Node::Interleave(a, b) => {
                let x = self.start_tag_close_lenient(a)?;
                let y = self.start_tag_close_lenient(b)?;
                self.arena.interleave(x, y)
            }
            Node::OneOrMore(a) => {
                let x = self.start_tag_close_lenient(a)?;
                self.arena.one_or_more(x)
            }
            Node::Attribute(..) => Ok(EMPTY),
            _ => Ok(p),
        }
    }

    /// What `p` can match first: the element name classes, the attribute patterns
    /// (name class, value pattern), and whether text can come.
    pub fn first(&self, p: P) -> First {
        let mut f = First::default();
        let mut stack = vec![p];
        let mut seen = std::collections::HashSet::new();
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            match self.arena.node(p) {
                Node::Choice(a, b) | Node::Interleave(a, b) => stack.extend([b, a]),
                Node::Group(a, b) => {
                    if self.nullable(a) {
                        stack.push(b);
                    }
                    stack.push(a);
                }
                Node::OneOrMore(a) | Node::After(a, _) => stack.push(a),
                Node::Element(nc, _) => {
                    if !f.elements.contains(&nc) {
                        f.elements.push(nc);
                    }
                }
                Node::Attribute(nc, v) => {
                    if !f.attributes.contains(&(nc, v)) {
                        f.attributes.push((nc, v));
                    }
                }
                Node::Data(dt) => {
                    f.text = true;
                    if !f.data.contains(&dt) {
                        f.data.push(dt);
                    }
                }
                Node::Text | Node::DataExcept(..) | Node::Value(_) | Node::List(_) => {
                    f.text = true;
                    f.other_text = true;
                }
                Node::Empty | Node::NotAllowed => {}
            }
        }
        f
    }

    /// The names of the elements `p` allows next (for messages), at most `max`.
    pub fn expected(&self, p: P, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![p];
        let mut seen = std::collections::HashSet::new();
        while let Some(p) = stack.pop() {
            if out.len() >= max || !seen.insert(p) {
                continue;
            }
            match self.arena.node(p) {
                Node::Choice(a, b) | Node::Interleave(a, b) => stack.extend([b, a]),
                Node::Group(a, b) => {
                    if self.nullable(a) {
                        stack.push(b);
                    }
                    stack.push(a);
                }
                Node::OneOrMore(a) | Node::After(a, _) => stack.push(a),
                Node::Element(nc, _) => {
                    let s = match &self.g.name_classes[nc as usize] {
                        NameClass::Name(_, l) => l.clone(),
                        _ => "(any of a name class)".to_string(),
                    };
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// What a pattern can match first ([`Deriver::first`]).
#[derive(Debug, Default)]
pub struct First {
    /// Name classes of the elements.
    pub elements: Vec<u32>,
    /// Attributes: name class and value pattern.
    pub attributes: Vec<(u32, P)>,
    /// Whether text (of any kind) can come.
    pub text: bool,
    /// The datatypes of the `data` patterns among them.
    pub data: Vec<u32>,
    /// Whether text other than `data` can come (text, values, lists, data with exceptions).
    pub other_text: bool,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Whether a string is only XML white space.
pub fn is_white(s: &str) -> bool {
    s.chars().all(is_space)
}
