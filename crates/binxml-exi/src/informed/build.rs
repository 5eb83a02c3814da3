//! Building the schema-informed grammars: for each type, the proto-grammar of section 8.5.4.1
//! (attribute uses sorted by name, then the content), normalized (8.5.4.2) by the subset
//! construction over its ε-closed states, with productions sorted as 8.5.4.3 orders them.
//!
//! The proto-grammar is a small automaton with ε-moves: each attribute use is a state with an
//! `AT` move (and an ε-move when optional), the attribute wildcard loops on every attribute
//! state, and the content follows the particle: `minOccurs` copies of the term, then optional
//! copies or a loop. Elements of one substitution group share their particle's position in
//! schema order (the depth-first order of the particle tree's leaves), sorted among themselves
//! by name.

use std::collections::HashMap;

use binxml_schema::Schema;
use binxml_schema::model::{
    AttributeUse, Compositor, Content, ElemId, Max, Name, NamespaceConstraint, Particle, Term,
    TypeDef, TypeId, Wildcard,
};

use super::grammar::{Grammar, GrammarId, Kind, Production, Terminal};

/// Why grammars could not be built: a content model too large to unroll.
#[derive(Debug)]
pub struct TooLarge {
    /// The type whose grammar exceeded the bound.
    pub type_def: TypeId,
}

/// A move of the proto-grammar, with its sort key.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Sym {
    At(Name, TypeId),
    AtNs(String),
    AtAny,
    /// `SE(qname)`: the declaration and its schema order (leaf index, rank in its
    /// substitution group).
    Se(ElemId, (u32, u32)),
    SeNs(String, u32),
    SeAny(u32),
    Ch(TypeId),
    ChMixed,
}

impl Sym {
    /// Two moves with the same terminal symbol are merged by normalization.
    fn same_terminal(&self, other: &Sym, schema: &Schema) -> bool {
        match (self, other) {
            (Sym::Se(a, _), Sym::Se(b, _)) => schema.element(*a).name == schema.element(*b).name,
            (Sym::SeNs(a, _), Sym::SeNs(b, _)) => a == b,
            (Sym::SeAny(_), Sym::SeAny(_)) => true,
            (Sym::At(a, _), Sym::At(b, _)) => a == b,
            _ => self == other,
        }
    }

    /// The order of section 8.5.4.3.
    fn key(&self) -> (u8, &str, &str, (u32, u32)) {
        match self {
            Sym::At(n, _) => (0, &n.local, &n.ns, (0, 0)),
            Sym::AtNs(uri) => (1, uri, "", (0, 0)),
            Sym::AtAny => (2, "", "", (0, 0)),
            Sym::Se(_, order) => (3, "", "", *order),
            Sym::SeNs(_, order) => (4, "", "", (*order, 0)),
            Sym::SeAny(order) => (5, "", "", (*order, 0)),
            Sym::Ch(_) | Sym::ChMixed => (7, "", "", (0, 0)),
        }
    }
}

#[derive(Default)]
struct Node {
    eps: Vec<u32>,
    moves: Vec<(Sym, u32)>,
    /// `EE` is allowed here.
    end: bool,
    /// A state of the attribute part.
    attribute: bool,
}

struct Proto<'s> {
    schema: &'s Schema,
    nodes: Vec<Node>,
    budget: usize,
    /// The next leaf's schema-order index.
    leaf: u32,
}

impl Proto<'_> {
    fn node(&mut self, attribute: bool) -> Result<u32, ()> {
        if self.nodes.len() >= self.budget {
            return Err(());
        }
        self.nodes.push(Node {
            attribute,
            ..Node::default()
        });
        Ok(self.nodes.len() as u32 - 1)
    }

    fn eps(&mut self, from: u32, to: u32) {
        self.nodes[from as usize].eps.push(to);
    }

    fn add(&mut self, from: u32, sym: Sym, to: u32) {
        self.nodes[from as usize].moves.push((sym, to));
    }

    /// The attribute part: one state per attribute use (sorted), the wildcard looping on
    /// each, then a last state. Returns (first, last).
    fn attributes(
        &mut self,
        uses: &[AttributeUse],
        wildcard: Option<&Wildcard>,
    ) -> Result<(u32, u32), ()> {
        let first = self.node(true)?;
        let mut cur = first;
        for u in uses {
            let decl = self.schema.attribute(u.decl);
            let next = self.node(true)?;
            self.add(cur, Sym::At(decl.name.clone(), decl.type_def), next);
            if !u.required {
                self.eps(cur, next);
            }
            self.wildcard_loops(cur, wildcard);
            cur = next;
        }
        self.wildcard_loops(cur, wildcard);
        Ok((first, cur))
    }

    fn wildcard_loops(&mut self, at: u32, wildcard: Option<&Wildcard>) {
        let Some(w) = wildcard else { return };
        match &w.namespaces {
            NamespaceConstraint::Any | NamespaceConstraint::Not(_) => self.add(at, Sym::AtAny, at),
            NamespaceConstraint::Set(uris) => {
                for u in uris {
                    self.add(at, Sym::AtNs(u.clone()), at);
                }
            }
        }
    }

    /// A particle from `from`; returns the state reached at its end.
    fn particle(&mut self, p: &Particle, from: u32) -> Result<u32, ()> {
        // Every copy of the term shares the schema order of the first.
        let leaf = self.leaf;
        let mut cur = from;
        let copy = |proto: &mut Self, cur: u32| -> Result<u32, ()> {
            proto.leaf = leaf;
            proto.term(&p.term, cur)
        };
        for _ in 0..p.min {
            cur = copy(self, cur)?;
        }
        match p.max {
            Max::Unbounded => {
                let hub = self.node(false)?;
                self.eps(cur, hub);
                let back = copy(self, hub)?;
                self.eps(back, hub);
                cur = hub;
            }
            Max::Bounded(max) if max > p.min => {
                let end = self.node(false)?;
                self.eps(cur, end);
                for _ in p.min..max {
                    cur = copy(self, cur)?;
                    self.eps(cur, end);
                }
                cur = end;
            }
            Max::Bounded(_) => {
                if p.min == 0 {
                    // maxOccurs 0: the particle matches nothing, and its leaves still count.
                    self.leaf = leaf;
                    let skip = self.node(false)?;
                    let _ = self.term(&p.term, skip)?;
                }
            }
        }
        Ok(cur)
    }

    fn term(&mut self, t: &Term, from: u32) -> Result<u32, ()> {
        match t {
            Term::Element(e) => {
                let order = self.leaf;
                self.leaf += 1;
                let to = self.node(false)?;
                for (rank, &s) in self.schema.substitution_group(*e).iter().enumerate() {
                    self.add(from, Sym::Se(s, (order, rank as u32)), to);
                }
                Ok(to)
            }
            Term::Wildcard(w) => {
                let order = self.leaf;
                self.leaf += 1;
                let to = self.node(false)?;
                match &w.namespaces {
                    NamespaceConstraint::Any | NamespaceConstraint::Not(_) => {
                        self.add(from, Sym::SeAny(order), to)
                    }
                    NamespaceConstraint::Set(uris) => {
                        for u in uris {
                            self.add(from, Sym::SeNs(u.clone(), order), to);
                        }
                    }
                }
                Ok(to)
            }
            Term::Group(g) => match g.compositor {
                Compositor::Sequence => {
                    let mut cur = from;
                    for p in &g.particles {
                        cur = self.particle(p, cur)?;
                    }
                    Ok(cur)
                }
                Compositor::Choice => {
                    let end = self.node(false)?;
                    if g.particles.is_empty() {
                        self.eps(from, end);
                    }
                    for p in &g.particles {
                        let start = self.node(false)?;
                        self.eps(from, start);
                        let e = self.particle(p, start)?;
                        self.eps(e, end);
                    }
                    Ok(end)
                }
                Compositor::All => {
                    // Section 8.5.4.1.8.3: any member, in any order, any number of times.
                    let hub = self.node(false)?;
                    self.eps(from, hub);
                    for p in &g.particles {
                        let start = self.node(false)?;
                        self.eps(hub, start);
                        let e = self.particle(p, start)?;
                        self.eps(e, hub);
                    }
                    Ok(hub)
                }
            },
        }
    }

    fn closure(&self, set: &mut Vec<u32>) {
        let mut seen = vec![false; self.nodes.len()];
        for &s in set.iter() {
            seen[s as usize] = true;
        }
        let mut stack = set.clone();
        while let Some(n) = stack.pop() {
            for &m in &self.nodes[n as usize].eps {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    set.push(m);
                    stack.push(m);
                }
            }
        }
        set.sort_unstable();
        set.dedup();
    }
}

/// The builder's output for one proto-grammar: the normalized states, appended to `out`.
struct Normalizer<'o> {
    out: &'o mut Vec<Grammar>,
    budget: usize,
}

impl Normalizer<'_> {
    /// Normalizes the proto-grammar from each of `starts`; returns the id of the state each
    /// starts in (the first is the type's first state).
    fn run(&mut self, proto: &Proto<'_>, starts: &[u32]) -> Result<Vec<GrammarId>, ()> {
        let schema = proto.schema;
        let base = self.out.len() as u32;
        let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut sets: Vec<Vec<u32>> = Vec::new();
        let mut entry = Vec::new();
        for &s in starts {
            let mut set = vec![s];
            proto.closure(&mut set);
            let id = *ids.entry(set.clone()).or_insert_with(|| {
                sets.push(set);
                sets.len() as u32 - 1
            });
            entry.push(GrammarId(base + id));
        }
        let mut i = 0;
        while i < sets.len() {
            let set = sets[i].clone();
            i += 1;
            // Moves grouped by terminal symbol, in the order first seen; a merged move keeps
            // the smallest sort key among its parts.
            let mut groups: Vec<(Sym, Vec<u32>)> = Vec::new();
            for &n in &set {
                for (sym, to) in &proto.nodes[n as usize].moves {
                    match groups
                        .iter_mut()
                        .find(|(s, _)| s.same_terminal(sym, schema))
                    {
                        Some((s, targets)) => {
                            if sym.key() < s.key() {
                                *s = sym.clone();
                            }
                            targets.push(*to);
                        }
                        None => groups.push((sym.clone(), vec![*to])),
                    }
                }
            }
            groups.sort_by(|a, b| a.0.key().cmp(&b.0.key()));
            let attribute = set.iter().any(|&n| proto.nodes[n as usize].attribute);
            let end = set.iter().any(|&n| proto.nodes[n as usize].end);
            let mut productions = Vec::with_capacity(groups.len() + 1);
            let mut target = |mut to: Vec<u32>| -> Result<GrammarId, ()> {
                proto.closure(&mut to);
                let id = match ids.get(&to) {
                    Some(&id) => id,
                    None => {
                        if sets.len() + self.out.len() >= self.budget {
                            return Err(());
                        }
                        let id = sets.len() as u32;
                        ids.insert(to.clone(), id);
                        sets.push(to);
                        id
                    }
                };
                Ok(GrammarId(base + id))
            };
            let mut ee_done = false;
            for (sym, to) in groups {
                let terminal = match sym {
                    Sym::At(name, t) => Terminal::At { name, type_def: t },
                    Sym::AtNs(u) => Terminal::AtNs(u),
                    Sym::AtAny => Terminal::AtAny,
                    Sym::Se(e, _) => Terminal::Se(e),
                    Sym::SeNs(u, _) => Terminal::SeNs(u),
                    Sym::SeAny(_) => Terminal::SeAny,
                    Sym::Ch(t) => Terminal::Ch(t),
                    Sym::ChMixed => Terminal::ChMixed,
                };
                if matches!(terminal, Terminal::Ch(_) | Terminal::ChMixed) && end && !ee_done {
                    productions.push(Production {
                        terminal: Terminal::Ee,
                        next: None,
                    });
                    ee_done = true;
                }
                productions.push(Production {
                    terminal,
                    next: Some(target(to)?),
                });
            }
            if end && !ee_done {
                productions.push(Production {
                    terminal: Terminal::Ee,
                    next: None,
                });
            }
            let kind = if i == 1 {
                Kind::FirstStartTag
            } else if attribute {
                Kind::StartTag
            } else {
                Kind::Content
            };
            self.out.push(Grammar::new(kind, productions, None));
        }
        Ok(entry)
    }
}

/// The grammars of one schema: every type's `Type` and `TypeEmpty` grammars.
pub(crate) struct Built {
    pub grammars: Vec<Grammar>,
    pub type_grammar: Vec<GrammarId>,
    pub type_empty: Vec<GrammarId>,
}

/// Builds the type grammars of every type of `schema` (named, anonymous and built-in).
/// `max_states` bounds the whole table.
pub(crate) fn build(schema: &Schema, max_states: usize) -> Result<Built, TooLarge> {
    let mut grammars = Vec::new();
    let mut type_grammar = Vec::with_capacity(schema.type_count());
    let mut type_empty = Vec::with_capacity(schema.type_count());
    for i in 0..schema.type_count() {
        let t = TypeId(i as u32);
        let too_large = |_| TooLarge { type_def: t };
        let full =
            type_grammar_of(schema, t, false, &mut grammars, max_states).map_err(too_large)?;
        let empty =
            type_grammar_of(schema, t, true, &mut grammars, max_states).map_err(too_large)?;
        type_grammar.push(full);
        type_empty.push(empty);
    }
    Ok(Built {
        grammars,
        type_grammar,
        type_empty,
    })
}

fn type_grammar_of(
    schema: &Schema,
    t: TypeId,
    empty: bool,
    out: &mut Vec<Grammar>,
    budget: usize,
) -> Result<GrammarId, ()> {
    let mut proto = Proto {
        schema,
        nodes: Vec::new(),
        budget,
        leaf: 0,
    };
    let (uses, wildcard): (&[AttributeUse], Option<&Wildcard>) = match schema.type_def(t) {
        TypeDef::Complex(c) => (&c.attributes, c.attribute_wildcard.as_ref()),
        TypeDef::Simple(_) => (&[], None),
    };
    let (start, last) = proto.attributes(uses, wildcard)?;
    let content = proto.node(false)?;
    proto.eps(last, content);
    let end = if empty {
        content
    } else {
        match schema.type_def(t) {
            TypeDef::Simple(_) => {
                let e = proto.node(false)?;
                proto.add(content, Sym::Ch(t), e);
                e
            }
            TypeDef::Complex(c) => match &c.content {
                Content::Empty => content,
                Content::Simple(s) => {
                    let e = proto.node(false)?;
                    proto.add(content, Sym::Ch(*s), e);
                    e
                }
                Content::Elements { particle, mixed } => {
                    let first_content = proto.nodes.len();
                    let e = proto.particle(particle, content)?;
                    if *mixed {
                        for n in first_content..proto.nodes.len() {
                            proto.add(n as u32, Sym::ChMixed, n as u32);
                        }
                        proto.add(content, Sym::ChMixed, content);
                    }
                    e
                }
            },
        }
    };
    proto.nodes[end as usize].end = true;
    // Each start-tag state's undeclared content continues in the content's first state on
    // its own (`Element_i,content2`): the closure of the content node alone.
    let entry = Normalizer { out, budget }.run(&proto, &[start, content])?;
    let (first, content_state) = (entry[0], entry[1]);
    for g in &mut out[first.index()..] {
        if g.kind != Kind::Content {
            g.content = Some(content_state);
        }
    }
    Ok(first)
}
