//! The built-in (schema-less) grammars of EXI 1.0, section 8.4: the document and fragment
//! grammars, and one element grammar (start tag and content) per qualified name, which learns
//! the productions a document uses.
//!
//! Learned productions are kept in the order they were learned; the newest has event code 0
//! (so a production at index `i` of `n` has code `n - 1 - i`). The productions every state
//! has regardless of learning (`AT(*)`, `SE(*)`, `CH`, ...) sit behind one more first-level
//! code, at the second level, in the order [`Layout`] fixes from the fidelity options; comments
//! and processing instructions share a third level.

use crate::tables::NameId;

/// A learned production.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prod {
    /// `SE(qname)`.
    Se(NameId),
    /// `AT(qname)`.
    At(NameId),
    /// `CH`.
    Ch,
    /// `EE` (in a fragment's content: `ED`).
    Ee,
    /// `SE(*)` (only in a fragment's content, where it is a first-level production).
    SeAny,
}

/// The built-in grammars of a stream's element names, numbered in the order they were made.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grammars {
    /// The grammars in use (`..n`), then those of an earlier stream kept for their memory.
    g: Vec<ElementGrammar>,
    n: usize,
}

/// Grammars kept for the next stream at most ([`Grammars::clear`]).
const KEEP: usize = 1 << 12;

/// The built-in grammar of one element name.
#[derive(Clone, Debug)]
struct ElementGrammar {
    /// The learned productions by [`State`]: StartTagContent's, then ElementContent's (which
    /// start with `EE`). Indexed by the state's number rather than matched on it: the decoder
    /// looks them up once an event.
    prods: [Vec<Prod>; 2],
    /// Where `EE` and `CH` were learned in StartTagContent and `CH` in ElementContent
    /// ([`NOT_LEARNED`] before), so that the encoder finds them without a scan.
    ee_start: u32,
    ch_start: u32,
    ch_content: u32,
}

/// A production not learned yet (for [`ElementGrammar`]'s positions).
const NOT_LEARNED: u32 = u32::MAX;

impl Grammars {
    /// A new grammar (nothing learned); its number.
    pub(crate) fn add(&mut self) -> usize {
        let i = self.n;
        match self.g.get_mut(i) {
            // One of an earlier stream's: its productions' memory is reused.
            Some(g) => {
                g.prods[0].clear();
                g.prods[1].truncate(1);
                g.ee_start = NOT_LEARNED;
                g.ch_start = NOT_LEARNED;
                g.ch_content = NOT_LEARNED;
            }
            None => self.g.push(ElementGrammar {
                prods: [Vec::new(), vec![Prod::Ee]],
                ee_start: NOT_LEARNED,
                ch_start: NOT_LEARNED,
                ch_content: NOT_LEARNED,
            }),
        }
        self.n += 1;
        i
    }

    /// Room for `n` grammars, made at once.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.g.reserve(n.saturating_sub(self.g.len() - self.n));
    }

    /// No grammars, for another stream: those made so far are kept (up to [`KEEP`]) for
    /// [`add`](Self::add) to reuse.
    pub(crate) fn clear(&mut self) {
        self.g.truncate(KEEP);
        self.n = 0;
    }

    /// The index of learned production `p` in `state` of grammar `gi`, if it is there (`EE`
    /// and `CH`, which the common events look for, without a scan; a name's production is
    /// unique in a state, so the scan stops at the only match).
    #[inline]
    pub(crate) fn find(&self, gi: usize, state: State, p: Prod) -> Option<usize> {
        let g = &self.g[gi];
        let at = match (state, p) {
            (State::Content, Prod::Ee) => return Some(0),
            (State::StartTag, Prod::Ee) => g.ee_start,
            (State::StartTag, Prod::Ch) => g.ch_start,
            (State::Content, Prod::Ch) => g.ch_content,
            _ => return g.prods[state as usize].iter().rposition(|&x| x == p),
        };
        (at != NOT_LEARNED).then_some(at as usize)
    }

    /// The productions of a state of grammar `gi`.
    #[inline]
    pub(crate) fn prods(&self, gi: usize, state: State) -> &[Prod] {
        &self.g[gi].prods[state as usize]
    }

    /// Learns a production of grammar `gi` matched through a second-level code (EXI 1.0,
    /// 8.4.3). `EE` and `CH` are learned once per state; `SE` and `AT` cannot repeat (a
    /// learned name matches at the first level).
    pub(crate) fn learn(&mut self, gi: usize, state: State, p: Prod) {
        let g = &mut self.g[gi];
        let slot = match (state, p) {
            (State::StartTag, Prod::Ee) => &mut g.ee_start,
            (State::StartTag, Prod::Ch) => &mut g.ch_start,
            (State::Content, Prod::Ch) => &mut g.ch_content,
            (State::Content, Prod::Ee) => return,
            _ => {
                g.prods[state as usize].push(p);
                return;
            }
        };
        if *slot == NOT_LEARNED {
            *slot = g.prods[state as usize].len() as u32;
            g.prods[state as usize].push(p);
        }
    }
}

/// The two states of an element grammar (numbered: the index of their productions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum State {
    /// StartTagContent: attributes and namespace declarations may still come.
    StartTag = 0,
    /// ElementContent.
    Content = 1,
}

/// The first-level code of a learned production at index `i` of `n`.
#[inline]
pub(crate) fn code_of(i: usize, n: usize) -> u32 {
    (n - 1 - i) as u32
}

/// The index of the learned production with first-level code `code` among `n`.
#[inline]
pub(crate) fn index_of(code: usize, n: usize) -> usize {
    n - 1 - code
}

/// An event reached through the second (and third) level of an element grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Undeclared {
    Ee,
    At,
    Ns,
    Sc,
    Se,
    Ch,
    Er,
    Cm,
    Pi,
}

/// Where the fidelity options put the second- and third-level events.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    start: Levels,
    content: Levels,
    /// The third level: comments and/or processing instructions.
    third: Levels,
    /// The second level of DocContent.
    doc: Levels,
}

/// One level's events, in order (at most eight: StartTagContent's second level with every
/// fidelity option), held inline: a layout is made for every stream.
#[derive(Clone, Copy, Debug)]
struct Levels {
    items: [Undeclared; 8],
    len: u8,
}

impl Levels {
    const EMPTY: Levels = Levels {
        items: [Undeclared::Ee; 8],
        len: 0,
    };

    fn push(&mut self, u: Undeclared) {
        self.items[self.len as usize] = u;
        self.len += 1;
    }

    #[inline]
    fn as_slice(&self) -> &[Undeclared] {
        &self.items[..self.len as usize]
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Stand-in for the CM/PI group in a second-level list.
const GROUP: Undeclared = Undeclared::Cm;

impl Layout {
    pub(crate) fn new(comments: bool, pis: bool, dtd: bool, prefixes: bool, sc: bool) -> Self {
        let mut third = Levels::EMPTY;
        if comments {
            third.push(Undeclared::Cm);
        }
        if pis {
            third.push(Undeclared::Pi);
        }
        let mut start = Levels::EMPTY;
        start.push(Undeclared::Ee);
        start.push(Undeclared::At);
        if prefixes {
            start.push(Undeclared::Ns);
        }
        if sc {
            start.push(Undeclared::Sc);
        }
        let mut content = Levels::EMPTY;
        content.push(Undeclared::Se);
        content.push(Undeclared::Ch);
        if dtd {
            content.push(Undeclared::Er);
        }
        if !third.is_empty() {
            content.push(GROUP);
        }
        for &u in content.as_slice() {
            start.push(u);
        }
        // DocContent's second level: DT, then the group (DT is spelt `Er` here: the only
        // other entry).
        let mut doc = Levels::EMPTY;
        if dtd {
            doc.push(Undeclared::Er);
        }
        if !third.is_empty() {
            doc.push(GROUP);
        }
        Layout {
            start,
            content,
            third,
            doc,
        }
    }

    /// The second-level list of a state.
    #[inline]
    pub(crate) fn second(&self, state: State) -> &[Undeclared] {
        match state {
            State::StartTag => self.start.as_slice(),
            State::Content => self.content.as_slice(),
        }
    }

    /// The third level (CM, PI).
    #[inline]
    pub(crate) fn third(&self) -> &[Undeclared] {
        self.third.as_slice()
    }

    /// DocContent's second level (DT as `Er`, then the CM/PI group).
    #[inline]
    pub(crate) fn doc(&self) -> &[Undeclared] {
        self.doc.as_slice()
    }

    /// The (second, third) code parts of `u` in `second`, if it has one there.
    pub(crate) fn find(&self, second: &[Undeclared], u: Undeclared) -> Option<(u32, Option<u32>)> {
        if matches!(u, Undeclared::Cm | Undeclared::Pi) {
            let t = self.third().iter().position(|&x| x == u)? as u32;
            let s = second.len() - 1;
            return Some((s as u32, Some(t)));
        }
        let s = second.iter().position(|&x| x == u)?;
        Some((s as u32, None))
    }

    /// Whether position `s` of `second` is the CM/PI group.
    #[inline]
    pub(crate) fn is_group(&self, second: &[Undeclared], s: usize) -> bool {
        !self.third.is_empty() && s == second.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_level_positions() {
        let l = Layout::new(true, true, true, true, true);
        let st = l.second(State::StartTag);
        assert_eq!(l.find(st, Undeclared::Ee), Some((0, None)));
        assert_eq!(l.find(st, Undeclared::Ns), Some((2, None)));
        assert_eq!(l.find(st, Undeclared::Se), Some((4, None)));
        assert_eq!(l.find(st, Undeclared::Er), Some((6, None)));
        assert_eq!(l.find(st, Undeclared::Pi), Some((7, Some(1))));
        let l = Layout::new(false, true, false, false, false);
        let ct = l.second(State::Content);
        assert_eq!(l.find(ct, Undeclared::Ch), Some((1, None)));
        assert_eq!(l.find(ct, Undeclared::Pi), Some((2, Some(0))));
        assert_eq!(l.find(ct, Undeclared::Cm), None);
        assert!(l.is_group(ct, 2));
    }
}
