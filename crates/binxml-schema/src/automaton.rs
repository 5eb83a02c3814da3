//! Content models compiled to deterministic automata over element names.
//!
//! A complex type's particle becomes a Thompson automaton (occurrence bounds unrolled:
//! `minOccurs` copies of the term, then `maxOccurs - minOccurs` optional copies or a loop), then
//! a deterministic one by the subset construction. Each state says which element names and
//! wildcards may come next and whether the content may end there; an element particle's term
//! stands for every member of its substitution group. The number of states is bounded
//! ([`crate::LoadOptions::max_content_states`]), so a `maxOccurs` of billions is an error, not
//! an allocation.
//!
//! An `<all>` group compiles to a loop over its members; which members occurred, and that the
//! required ones did, is counted by the validator ([`ContentModel::all`]).

use std::collections::HashMap;

use crate::model::*;

/// A state of a [`ContentModel`].
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Whether the content may end here.
    pub accepting: bool,
    /// Element names allowed next: the declaration that matches and the next state, sorted by
    /// name.
    pub elements: Vec<(ElemId, u32)>,
    /// Wildcards allowed next, with the next state.
    pub wildcards: Vec<(Wildcard, u32)>,
}

/// A compiled content model; state 0 is the start.
#[derive(Clone, Debug)]
pub struct ContentModel {
    /// The states.
    pub states: Vec<State>,
    /// For a content model that is an `<all>` group: its members and whether each is required.
    pub all: Option<Vec<(ElemId, bool)>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Sym {
    Elem(ElemId),
    Wild(u32),
}

struct Nfa<'s> {
    schema: &'s Schema,
    eps: Vec<Vec<u32>>,
    edges: Vec<Vec<(Sym, u32)>>,
    wildcards: Vec<Wildcard>,
    budget: usize,
}

/// Why a content model could not be compiled.
#[derive(Debug)]
pub struct TooLarge;

impl Nfa<'_> {
    fn node(&mut self) -> Result<u32, TooLarge> {
        if self.eps.len() >= self.budget {
            return Err(TooLarge);
        }
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        Ok(self.eps.len() as u32 - 1)
    }

    fn particle(&mut self, p: &Particle, from: u32) -> Result<u32, TooLarge> {
        let mut cur = from;
        for _ in 0..p.min {
            cur = self.term(&p.term, cur)?;
        }
        match p.max {
            Max::Unbounded => {
                let hub = self.node()?;
                self.eps[cur as usize].push(hub);
                let back = self.term(&p.term, hub)?;
                self.eps[back as usize].push(hub);
                Ok(hub)
            }
            Max::Bounded(max) => {
                if max <= p.min {
                    return Ok(cur);
                }
                let end = self.node()?;
                self.eps[cur as usize].push(end);
                for _ in p.min..max {
                    cur = self.term(&p.term, cur)?;
                    self.eps[cur as usize].push(end);
                }
                Ok(end)
            }
        }
    }

    fn term(&mut self, t: &Term, from: u32) -> Result<u32, TooLarge> {
        match t {
            Term::Element(e) => {
                let to = self.node()?;
                for &s in self.schema.substitutes(*e) {
                    self.edges[from as usize].push((Sym::Elem(s), to));
                }
                Ok(to)
            }
            Term::Wildcard(w) => {
                let to = self.node()?;
                let i = self.wildcards.len() as u32;
                self.wildcards.push(w.clone());
                self.edges[from as usize].push((Sym::Wild(i), to));
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
                    let end = self.node()?;
                    for p in &g.particles {
                        let start = self.node()?;
                        self.eps[from as usize].push(start);
                        let e = self.particle(p, start)?;
                        self.eps[e as usize].push(end);
                    }
                    Ok(end)
                }
                Compositor::All => {
                    // Any member, any number of times; the validator counts.
                    let hub = self.node()?;
                    self.eps[from as usize].push(hub);
                    for p in &g.particles {
                        let once = Particle {
                            min: 1,
                            max: Max::Bounded(1),
                            term: p.term.clone(),
                        };
                        let e = self.particle(&once, hub)?;
                        self.eps[e as usize].push(hub);
                    }
                    Ok(hub)
                }
            },
        }
    }

    fn closure(&self, set: &mut Vec<u32>) {
        let mut seen = vec![false; self.eps.len()];
        let mut stack: Vec<u32> = set.clone();
        for &s in set.iter() {
            seen[s as usize] = true;
        }
        while let Some(n) = stack.pop() {
            for &m in &self.eps[n as usize] {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    set.push(m);
                    stack.push(m);
                }
            }
        }
        set.sort_unstable();
    }
}

impl ContentModel {
    /// Compiles a particle; `max_states` bounds both the unrolled and the deterministic
    /// automaton.
    pub fn compile(
        schema: &Schema,
        particle: &Particle,
        max_states: usize,
    ) -> Result<ContentModel, TooLarge> {
        let mut nfa = Nfa {
            schema,
            eps: Vec::new(),
            edges: Vec::new(),
            wildcards: Vec::new(),
            budget: max_states,
        };
        let start = nfa.node()?;
        let end = nfa.particle(particle, start)?;
        let all = match &particle.term {
            Term::Group(g) if g.compositor == Compositor::All => Some(
                g.particles
                    .iter()
                    .filter_map(|p| match p.term {
                        Term::Element(e) => Some((e, p.min > 0 && particle.min > 0)),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        };
        let mut first = vec![start];
        nfa.closure(&mut first);
        let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut sets = vec![first.clone()];
        ids.insert(first, 0);
        let mut states = Vec::new();
        let mut i = 0;
        while i < sets.len() {
            let set = sets[i].clone();
            i += 1;
            let mut by_sym: Vec<(Sym, u32)> = set
                .iter()
                .flat_map(|&n| nfa.edges[n as usize].iter().copied())
                .collect();
            by_sym.sort_unstable();
            let mut state = State {
                accepting: set.binary_search(&end).is_ok(),
                ..State::default()
            };
            // Element symbols group by name: two declarations of one name in a state (allowed
            // when they have the same type) lead to the union of their targets.
            let mut by_name: Vec<(&Name, ElemId, Vec<u32>)> = Vec::new();
            let mut wild: Vec<(u32, Vec<u32>)> = Vec::new();
            for (sym, to) in by_sym {
                match sym {
                    Sym::Elem(e) => {
                        let name = &schema.element(e).name;
                        match by_name.iter_mut().find(|(n, _, _)| *n == name) {
                            Some(entry) => entry.2.push(to),
                            None => by_name.push((name, e, vec![to])),
                        }
                    }
                    Sym::Wild(w) => match wild.iter_mut().find(|(x, _)| *x == w) {
                        Some(entry) => entry.1.push(to),
                        None => wild.push((w, vec![to])),
                    },
                }
            }
            by_name.sort_by(|a, b| a.0.cmp(b.0));
            let mut target = |mut set: Vec<u32>| -> Result<u32, TooLarge> {
                nfa.closure(&mut set);
                set.dedup();
                if let Some(&id) = ids.get(&set) {
                    return Ok(id);
                }
                if sets.len() >= max_states {
                    return Err(TooLarge);
                }
                let id = sets.len() as u32;
                ids.insert(set.clone(), id);
                sets.push(set);
                Ok(id)
            };
            for (_, e, to) in by_name {
                state.elements.push((e, target(to)?));
            }
            for (w, to) in wild {
                state
                    .wildcards
                    .push((nfa.wildcards[w as usize].clone(), target(to)?));
            }
            states.push(state);
        }
        Ok(ContentModel { states, all })
    }

    /// The next state after an element named `ns`/`local` in state `state`: through a
    /// declaration (`Ok`) or a wildcard (`Err`), or `None` when it is not allowed.
    pub fn step(&self, schema: &Schema, state: u32, ns: &str, local: &str) -> Option<Step<'_>> {
        let s = &self.states[state as usize];
        if let Ok(i) = s.elements.binary_search_by(|(e, _)| {
            let n = &schema.element(*e).name;
            (n.ns.as_str(), n.local.as_str()).cmp(&(ns, local))
        }) {
            let (e, to) = s.elements[i];
            return Some(Step::Element(e, to));
        }
        s.wildcards
            .iter()
            .find(|(w, _)| w.namespaces.allows(ns))
            .map(|(w, to)| Step::Wildcard(w, *to))
    }
}

/// How an element matched a content model.
#[derive(Debug)]
pub enum Step<'m> {
    /// A declaration, and the next state.
    Element(ElemId, u32),
    /// A wildcard, and the next state.
    Wildcard(&'m Wildcard, u32),
}
