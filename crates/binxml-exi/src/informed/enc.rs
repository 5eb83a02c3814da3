//! The schema-informed EXI encoder: events written with the grammars of a schema (EXI 1.0
//! section 8.5), typed values (section 7), and the built-in grammars for what the schema does
//! not declare (non-strict mode).
//!
//! It follows the order EXIficient writes a start tag in, which the Recommendation leaves to
//! the encoder where the grammars allow several: `xsi:type`, then `xsi:nil`, then the other
//! attributes sorted by local name and namespace (the order the grammars' `AT` productions
//! are in). Text is buffered until the next event, then written as EXIficient does: typed
//! simple content after its type's whitespace processing, and whitespace-only text between
//! tags dropped under [`Whitespace::DropBetweenTags`].

use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;

use binxml_core::hash::bytes_eq;
use binxml_core::{Encoder, Error, Event, Format, QName, Result, StreamChecker};
use binxml_schema::model::{ElemId, TypeId};

use super::TableLease;
use super::datatype::ExiType;
use super::grammar::{
    Fidelity, GrammarId, Kind, Order, Second, Terminal, has_second_level, second_level,
};
use super::{SchemaGrammars, values};
use crate::bits::{BitWriter, width};
use crate::grammar::{Grammars as BuiltinGrammars, Layout, Prod, State, Undeclared, code_of};
use crate::header;
use crate::options::{Alignment, ExiOptions, Whitespace};
use crate::tables::{NONE, NameId, Tables, XSI_NS};

/// The grammar an open element is in.
#[derive(Clone, Copy, Debug)]
enum Cur {
    /// A schema-informed state; `nillable`/`castable` of the element's declaration (strict
    /// mode's xsi:nil and xsi:type in its first state).
    Informed {
        state: GrammarId,
        empty: GrammarId,
        nillable: bool,
        castable: bool,
    },
    /// A built-in element grammar (an element the schema does not declare).
    Builtin { grammar: usize, state: State },
}

#[derive(Debug)]
struct Frame {
    cur: Cur,
    name: NameId,
    /// `xml:space` in effect around this element.
    outer_space: bool,
}

/// What comes after buffered text (EXIficient keeps whitespace-only text only directly
/// between a start tag and its end tag, or a comment or PI).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Se,
    Ee,
    Ed,
    /// A comment or processing instruction.
    Misc,
    /// An entity reference.
    Er,
}

/// Writes events as schema-informed EXI.
pub struct SchemaEncoder<W: Write> {
    out: W,
    g: Arc<SchemaGrammars>,
    o: ExiOptions,
    w: BitWriter,
    t: TableLease,
    builtin: BuiltinGrammars,
    layout: Layout,
    stack: Vec<Frame>,
    checker: StreamChecker,
    /// The open start tag's attributes as spans of `abuf` (namespace, local, value, prefix),
    /// and xsi:type / xsi:nil (prefix, value).
    attrs: Vec<[Span; 4]>,
    abuf: String,
    xsi_type: Option<(String, String)>,
    xsi_nil: Option<(String, String)>,
    /// The open element's prefix (preserve.prefixes: the NS event that declares it says so).
    se_prefix: String,
    in_tag: bool,
    /// The last start tag, attribute or end tag was a start tag or attribute: EXIficient's
    /// `lastEvent`, which text, comments and PIs do not change (whitespace-only text is kept
    /// when it follows one and an end tag, comment or PI follows it).
    after_start: bool,
    text: String,
    space: bool,
    /// Namespace declarations in scope, innermost last, with the depth that declared each.
    scope: Vec<(String, String, usize)>,
    /// Whether the document element has been written (DocContent -> DocEnd).
    root_done: bool,
    done: bool,
    /// The options' error, for [`new_deferred`](Self::new_deferred).
    invalid: Option<Error>,
    /// The block's values (pre-compression and compression).
    chan: Channels,
    /// The compression layout's zlib state, made at the first stream.
    deflater: Option<crate::deflate::Deflater>,
    /// The representations of a datatype representation map, if the options have one.
    reps: Option<Arc<super::Representations>>,
    /// The streams around the self-contained elements being written, innermost last.
    outer: Vec<Outer>,
}

/// What a self-contained element's fragment sets aside (section 8.5.4.4.1, `SC Fragment`):
/// the string table and built-in grammars, which the fragment starts afresh,
/// restored after the element.
struct Outer {
    t: TableLease,
    builtin: BuiltinGrammars,
    /// The stack's depth with the element's outer frame on it.
    depth: usize,
}

/// A byte range of a buffer.
type Span = (u32, u32);

impl<W: Write> SchemaEncoder<W> {
    /// An encoder writing to `out` with the grammars of a schema.
    pub fn new(out: W, grammars: Arc<SchemaGrammars>, options: ExiOptions) -> Result<Self> {
        let mut e = Self::new_deferred(out, grammars, options);
        match e.invalid.take() {
            Some(err) => Err(err),
            None => Ok(e),
        }
    }

    /// An encoder whose options, if they cannot be used, are the error of its first event
    /// (for callers that make encoders infallibly).
    pub fn new_deferred(out: W, grammars: Arc<SchemaGrammars>, options: ExiOptions) -> Self {
        let mut invalid = Self::check(&options).err();
        let reps = match grammars.representations(&options.datatype_representations) {
            Ok(r) => r.map(Arc::new),
            Err(e) => {
                invalid.get_or_insert(e);
                None
            }
        };
        let t = grammars.string_table(
            options.value_max_length.map(|n| n as usize),
            options.value_partition_capacity.map(|n| n as usize),
            true,
        );
        SchemaEncoder {
            out,
            w: BitWriter::new(false),
            t,
            builtin: BuiltinGrammars::default(),
            layout: Layout::new(
                options.comments,
                options.pis,
                options.dtd,
                options.prefixes,
                options.self_contained,
            ),
            stack: Vec::new(),
            checker: StreamChecker::new(options.fragment),
            attrs: Vec::new(),
            abuf: String::new(),
            xsi_type: None,
            xsi_nil: None,
            se_prefix: String::new(),
            in_tag: false,
            after_start: false,
            text: String::new(),
            space: false,
            scope: Vec::new(),
            root_done: false,
            done: false,
            invalid,
            chan: Channels::default(),
            deflater: None,
            reps,
            outer: Vec::new(),
            g: grammars,
            o: options,
        }
    }

    fn check(options: &ExiOptions) -> Result<()> {
        options.validate()
    }

    /// The writer, once the document is finished.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn io(e: std::io::Error) -> Error {
        Error::io(Format::Exi, e)
    }

    fn invalid(what: impl Into<String>) -> Error {
        Error::invalid_events(Format::Exi, what.into())
    }

    // ---- event codes ---------------------------------------------------------------------

    /// The second-level productions of a schema-informed state (section 8.5.4.4).
    fn second_order(&self, cur: Cur) -> Order {
        let Cur::Informed {
            state,
            nillable,
            castable,
            ..
        } = cur
        else {
            return Order::default();
        };
        second_level(
            self.g.grammar(state),
            nillable,
            castable,
            Fidelity::of(&self.o),
        )
    }

    /// Whether a schema-informed state has second-level productions (without listing them).
    fn has_second(&self, cur: Cur) -> bool {
        let Cur::Informed {
            state,
            nillable,
            castable,
            ..
        } = cur
        else {
            return false;
        };
        has_second_level(
            self.g.grammar(state),
            nillable,
            castable,
            Fidelity::of(&self.o),
        )
    }

    /// The third level's entries: comments, then processing instructions, as preserved.
    fn third(&self) -> Vec<Undeclared> {
        let mut v = Vec::new();
        if self.o.comments {
            v.push(Undeclared::Cm);
        }
        if self.o.pis {
            v.push(Undeclared::Pi);
        }
        v
    }

    /// A comment or processing instruction (preserved): its code, the third level under the
    /// last second-level entry, then the state its element's content continues in.
    fn misc(&mut self, u: Undeclared) -> Result<()> {
        let third = self.third();
        let Some(t) = third.iter().position(|&x| x == u) else {
            return Ok(());
        };
        let n3 = width(third.len());
        match self.stack.last().map(|f| f.cur) {
            None if self.o.fragment => {
                // FragmentContent: SE(F_0..F_n-1), SE(*), ED, then the CM/PI group.
                let n = self.g.fragment_elements().len() + 2;
                self.w.nbit(n as u32, width(n + 1));
            }
            None => {
                // DocContent before the root (its second level: DT with preserve.dtd, then
                // the CM/PI group), or DocEnd after it (ED, then the group).
                if self.root_done {
                    self.w.nbit(1, 1);
                } else {
                    self.doc_content_second();
                    let dtd = usize::from(self.o.dtd);
                    self.w.nbit(dtd as u32, width(dtd + 1));
                }
            }
            Some(cur @ Cur::Informed { state, .. }) => {
                self.code2(cur, Second::Misc)?;
                let st = self.g.grammar(state);
                let next = match st.kind {
                    Kind::Content => state,
                    _ => st.content.unwrap_or(state),
                };
                self.set_state(Some(next));
            }
            Some(Cur::Builtin { grammar, state }) => {
                let n1 = self.builtin.prods(grammar, state).len();
                let second = self.layout.second(state);
                self.w.nbit(n1 as u32, width(n1 + 1));
                self.w.nbit((second.len() - 1) as u32, width(second.len()));
                self.set_cur(Cur::Builtin {
                    grammar,
                    state: State::Content,
                });
            }
        }
        self.w.nbit(t as u32, n3);
        Ok(())
    }

    /// DocContent's first-level code that leads to its second level (after SE(G_0..G_n-1)
    /// and SE(*)): DT, then the CM/PI group.
    fn doc_content_second(&mut self) {
        let n = self.g.document_elements().len() + 1;
        self.w.nbit(n as u32, width(n + 1));
    }

    /// An undeclared content event of the open element (ER: comments and PIs go through
    /// [`misc`](Self::misc)): the code of `u` in its state, after which its content continues.
    fn content_event(&mut self, u: Second) -> Result<()> {
        match self.stack.last().map(|f| f.cur) {
            None => Err(Self::invalid(format!("{u:?} outside the document element"))),
            Some(cur @ Cur::Informed { state, .. }) => {
                self.code2(cur, u)?;
                let st = self.g.grammar(state);
                let next = match st.kind {
                    Kind::Content => state,
                    _ => st.content.unwrap_or(state),
                };
                self.set_state(Some(next));
                Ok(())
            }
            Some(Cur::Builtin { grammar, state }) => {
                let v = match u {
                    Second::Er => Undeclared::Er,
                    _ => return Err(Self::invalid(format!("{u:?} in a built-in grammar"))),
                };
                self.code2_builtin(grammar, state, v)?;
                self.set_cur(Cur::Builtin {
                    grammar,
                    state: State::Content,
                });
                Ok(())
            }
        }
    }

    /// Writes the first-level code `i` of the current informed state.
    fn code1(&mut self, cur: Cur, i: usize) {
        let Cur::Informed { state, .. } = cur else {
            return;
        };
        let n = self.g.grammar(state).productions.len();
        let more = usize::from(self.has_second(cur));
        self.w.nbit(i as u32, width(n + more));
    }

    /// Writes the second-level code `u` of the current informed state, or fails (strict mode,
    /// or a production the state does not have).
    fn code2(&mut self, cur: Cur, u: Second) -> Result<()> {
        let Cur::Informed { state, .. } = cur else {
            return Err(Self::invalid("not in a schema-informed grammar"));
        };
        let n1 = self.g.grammar(state).productions.len();
        let order = self.second_order(cur);
        let Some(pos) = order.iter().position(|x| *x == u) else {
            return Err(Self::invalid(format!(
                "{u:?} is not allowed here by the schema{}",
                if self.o.strict { " (strict)" } else { "" }
            )));
        };
        self.w.nbit(n1 as u32, width(n1 + 1));
        self.w.nbit(pos as u32, width(order.len()));
        Ok(())
    }

    /// Writes a second-level code of a built-in element grammar.
    fn code2_builtin(&mut self, grammar: usize, state: State, u: Undeclared) -> Result<()> {
        let n1 = self.builtin.prods(grammar, state).len();
        let second = self.layout.second(state);
        let (s, _) = self
            .layout
            .find(second, u)
            .ok_or_else(|| Self::invalid(format!("{u:?} is not allowed here")))?;
        self.w.nbit(n1 as u32, width(n1 + 1));
        self.w.nbit(s, width(second.len()));
        Ok(())
    }

    /// A learned production's first-level code in a built-in grammar, if it has one.
    fn code1_builtin(&mut self, grammar: usize, state: State, p: Prod) -> bool {
        let prods = self.builtin.prods(grammar, state);
        match prods.iter().rposition(|&x| x == p) {
            Some(i) => {
                let n = prods.len();
                self.w.nbit(code_of(i, n), width(n + 1));
                true
            }
            None => false,
        }
    }

    fn set_cur(&mut self, cur: Cur) {
        if let Some(f) = self.stack.last_mut() {
            f.cur = cur;
        }
    }

    fn set_state(&mut self, next: Option<GrammarId>) {
        if let (Some(n), Some(f)) = (next, self.stack.last_mut())
            && let Cur::Informed { state, .. } = &mut f.cur
        {
            *state = n;
        }
    }

    /// The grammar an element named `name` starts in when its declaration is not known from
    /// the production (SE(*) and SE(uri:*)): its global element's, else its built-in one.
    fn global_grammar(&mut self, name: NameId) -> Cur {
        if let Some(e) = self.g.global_element(name) {
            return self.element_cur(e);
        }
        self.builtin_cur(name)
    }

    fn element_cur(&self, e: ElemId) -> Cur {
        let eg = self.g.element(e);
        Cur::Informed {
            state: eg.start,
            empty: eg.empty,
            nillable: eg.nillable,
            castable: eg.castable,
        }
    }

    fn builtin_cur(&mut self, name: NameId) -> Cur {
        let grammar = match self.t.grammar(name) {
            NONE => {
                let gi = self.builtin.add();
                self.t.set_grammar(name, gi as u32);
                gi
            }
            gi => gi as usize,
        };
        Cur::Builtin {
            grammar,
            state: State::StartTag,
        }
    }

    fn name_of(&self, ns: &str, local: &str) -> Option<NameId> {
        let u = self.t.uri_id(ns)?;
        self.t.name_id(u, local)
    }

    // ---- events ----------------------------------------------------------------------------

    fn start_element(&mut self, q: &QName<'_>) -> Result<()> {
        self.flush_text(Next::Se)?;
        self.close_tag()?;
        let (name, cur) = match self.stack.last().map(|f| f.cur) {
            None if self.o.fragment => self.fragment_element(q),
            None => {
                if self.root_done {
                    return Err(Self::invalid("a second root element"));
                }
                self.root_done = true;
                let docs = self.g.document_elements();
                let hit = docs.iter().position(|&e| {
                    let n = &self.g.schema().element(e).name;
                    n.ns == q.namespace && n.local == q.local
                });
                let n = docs.len() + 1;
                let more = usize::from(self.o.dtd || self.o.comments || self.o.pis);
                match hit {
                    Some(i) => {
                        let e = docs[i];
                        self.w.nbit(i as u32, width(n + more));
                        (self.g.elem_name(e), self.element_cur(e))
                    }
                    None => {
                        self.w.nbit((n - 1) as u32, width(n + more));
                        let name = self.t.write_qname(&mut self.w, &q.namespace, &q.local);
                        let cur = self.global_grammar(name);
                        (name, cur)
                    }
                }
            }
            Some(cur @ Cur::Informed { state, .. }) => {
                let g = Arc::clone(&self.g);
                let st = g.grammar(state);
                let schema = g.schema();
                let mut found = None;
                // The state's declared names compared with the event's as strings: a hit
                // (nearly every element of a valid document) needs no table lookup.
                for (i, p) in st.productions.iter().enumerate() {
                    match &p.terminal {
                        Terminal::Se(e) if same_name(&schema.element(*e).name, q) => {
                            found = Some((i, Some(*e), p.next, false));
                            break;
                        }
                        Terminal::SeRelaxed(n)
                            if same_name(n, q) && g.prod_name(state, i).is_some() =>
                        {
                            found = Some((i, None, p.next, false));
                            break;
                        }
                        _ => {}
                    }
                }
                if found.is_none() {
                    for (i, p) in st.productions.iter().enumerate() {
                        if let Terminal::SeNs(u) = &p.terminal
                            && *u == q.namespace
                        {
                            found = Some((i, None, p.next, true));
                            break;
                        }
                    }
                }
                match found {
                    Some((i, Some(e), next, _)) => {
                        self.code1(cur, i);
                        self.set_state(next);
                        (self.g.elem_name(e), self.element_cur(e))
                    }
                    Some((i, None, next, ns_only)) => {
                        self.code1(cur, i);
                        self.set_state(next);
                        let name = if ns_only {
                            let u = self
                                .t
                                .uri_id(&q.namespace)
                                .expect("wildcard URIs are in the table");
                            self.t.write_local(&mut self.w, u, &q.local)
                        } else {
                            self.name_of(&q.namespace, &q.local)
                                .expect("declared names are in the table")
                        };
                        let cur = if ns_only {
                            self.global_grammar(name)
                        } else {
                            let eg = self
                                .g
                                .element_fragment()
                                .expect("relaxed names have the element fragment grammar");
                            Cur::Informed {
                                state: eg.start,
                                empty: eg.empty,
                                nillable: true,
                                castable: true,
                            }
                        };
                        (name, cur)
                    }
                    None => {
                        let any = st
                            .productions
                            .iter()
                            .position(|p| matches!(p.terminal, Terminal::SeAny));
                        match any {
                            Some(i) => {
                                let next = st.productions[i].next;
                                self.code1(cur, i);
                                self.set_state(next);
                            }
                            None => {
                                self.code2(cur, Second::SeAny)?;
                                let content = self.g.grammar(state).content;
                                if let Some(c) = content {
                                    self.set_state(Some(c));
                                }
                            }
                        }
                        let name = self.t.write_qname(&mut self.w, &q.namespace, &q.local);
                        let cur = self.global_grammar(name);
                        (name, cur)
                    }
                }
            }
            Some(Cur::Builtin { grammar, state }) => {
                let known = self.name_of(&q.namespace, &q.local);
                let hit = known.filter(|&id| self.code1_builtin(grammar, state, Prod::Se(id)));
                let name = match hit {
                    Some(id) => id,
                    None => {
                        self.code2_builtin(grammar, state, Undeclared::Se)?;
                        let id = self.t.write_qname(&mut self.w, &q.namespace, &q.local);
                        self.builtin.learn(grammar, state, Prod::Se(id));
                        id
                    }
                };
                self.set_cur(Cur::Builtin {
                    grammar,
                    state: State::Content,
                });
                (name, self.global_grammar(name))
            }
        };
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, name, &q.prefix);
            self.se_prefix.clear();
            self.se_prefix.push_str(&q.prefix);
        }
        self.stack.push(Frame {
            cur,
            name,
            outer_space: self.space,
        });
        self.in_tag = true;
        self.after_start = true;
        if self.o.self_contained && self.o.is_self_contained(&q.namespace, &q.local) {
            self.start_self_contained(q)?;
        }
        Ok(())
    }

    /// SC right after the element's SE, then, from the next octet boundary, the element again
    /// as the first event of a fragment with a fresh string table and built-in grammars: the
    /// schema-informed fragment grammar's SE (section 8.5.3), which picks the element's
    /// grammar by its name alone. With preserved prefixes an NS event for the element's own
    /// prefix follows, as EXIficient writes it.
    fn start_self_contained(&mut self, q: &QName<'_>) -> Result<()> {
        let cur = self.stack.last().expect("the element just started").cur;
        match cur {
            Cur::Informed { .. } => self.code2(cur, Second::Sc)?,
            Cur::Builtin { grammar, state } => {
                self.code2_builtin(grammar, state, Undeclared::Sc)?
            }
        }
        self.w.pad();
        let fresh = self.g.string_table(
            self.o.value_max_length.map(|n| n as usize),
            self.o.value_partition_capacity.map(|n| n as usize),
            true,
        );
        self.outer.push(Outer {
            t: std::mem::replace(&mut self.t, fresh),
            builtin: std::mem::take(&mut self.builtin),
            depth: self.stack.len(),
        });
        self.space = false;
        let (name, cur) = self.fragment_element(q);
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, name, &q.prefix);
        }
        self.stack.push(Frame {
            cur,
            name,
            outer_space: false,
        });
        if self.o.prefixes {
            match cur {
                Cur::Informed { .. } => self.code2(cur, Second::Ns)?,
                Cur::Builtin { grammar, state } => {
                    self.code2_builtin(grammar, state, Undeclared::Ns)?
                }
            }
            let u = self.t.write_uri(&mut self.w, &q.namespace);
            self.t.write_ns_prefix(&mut self.w, u, &q.prefix);
            self.w.boolean(true);
        }
        Ok(())
    }

    /// After a self-contained element's EE: its fragment's ED, padding, and the outer
    /// stream's state back; the element's outer frame ends without an EE of its own.
    fn end_self_contained(&mut self) {
        let misc = usize::from(self.o.comments || self.o.pis);
        let n = self.g.fragment_elements().len();
        self.w.nbit((n + 1) as u32, width(n + 2 + misc));
        self.w.pad();
        let outer = self.outer.pop().expect("inside a self-contained element");
        self.t = outer.t;
        self.builtin = outer.builtin;
        let f = self.stack.pop().expect("the element's outer frame");
        self.space = f.outer_space;
        let depth = self.stack.len() + 1;
        while self.scope.last().is_some_and(|s| s.2 >= depth) {
            self.scope.pop();
        }
        // EXIficient's outer encoder does not see the element's end: for its whitespace
        // policy the last event is still the element's start.
        self.after_start = true;
    }

    /// A top-level element of a fragment (EXI 1.0 8.5.3): SE(F_i) for a name the schema
    /// declares (its declaration's grammar, or the element fragment grammar when the name is
    /// declared with different types), else SE(*) with the name's global declaration's grammar
    /// or a built-in one.
    fn fragment_element(&mut self, q: &QName<'_>) -> (NameId, Cur) {
        let g = Arc::clone(&self.g);
        let frag = g.fragment_elements();
        let misc = usize::from(self.o.comments || self.o.pis);
        let bits = width(frag.len() + 2 + misc);
        let hit = frag
            .binary_search_by(|(n, _)| {
                (n.local.as_str(), n.ns.as_str()).cmp(&(q.local.as_ref(), q.namespace.as_ref()))
            })
            .ok();
        match hit {
            Some(i) => {
                self.w.nbit(i as u32, bits);
                let name = self
                    .name_of(&q.namespace, &q.local)
                    .expect("declared names are in the table");
                let cur = match frag[i].1 {
                    Some(e) => self.element_cur(e),
                    None => {
                        let eg = g
                            .element_fragment()
                            .expect("a name declared with different types has it");
                        Cur::Informed {
                            state: eg.start,
                            empty: eg.empty,
                            nillable: eg.nillable,
                            castable: eg.castable,
                        }
                    }
                };
                (name, cur)
            }
            None => {
                self.w.nbit(frag.len() as u32, bits);
                let name = self.t.write_qname(&mut self.w, &q.namespace, &q.local);
                (name, self.global_grammar(name))
            }
        }
    }

    /// Writes the pending start tag's xsi:type, xsi:nil and attributes.
    #[inline(always)]
    fn close_tag(&mut self) -> Result<()> {
        if !self.in_tag {
            return Ok(());
        }
        self.in_tag = false;
        if self.attrs.is_empty() && self.xsi_type.is_none() && self.xsi_nil.is_none() {
            return Ok(());
        }
        self.close_tag_held()
    }

    /// [`close_tag`](Self::close_tag) when the tag has attributes.
    #[inline(never)]
    fn close_tag_held(&mut self) -> Result<()> {
        self.write_xsi()?;
        let mut attrs = std::mem::take(&mut self.attrs);
        let mut abuf = std::mem::take(&mut self.abuf);
        let s = |r: Span| &abuf[r.0 as usize..r.1 as usize];
        // The grammars list attributes by local name, then namespace.
        attrs.sort_by(|a, b| (s(a[1]), s(a[0])).cmp(&(s(b[1]), s(b[0]))));
        let mut done = Ok(());
        for a in &attrs {
            done = self.write_attribute(s(a[0]), s(a[1]), s(a[3]), s(a[2]));
            if done.is_err() {
                break;
            }
        }
        attrs.clear();
        abuf.clear();
        self.attrs = attrs;
        self.abuf = abuf;
        done
    }

    /// [`close_tag`](Self::close_tag) with the attributes borrowed from a tape being written
    /// ([`TapeSink`]) rather than copied into `abuf`.
    fn close_tag_with(&mut self, attrs: &mut Vec<TapeAttr<'_>>) -> Result<()> {
        if !self.in_tag {
            return Ok(());
        }
        self.in_tag = false;
        self.write_xsi()?;
        // The grammars list attributes by local name, then namespace.
        attrs.sort_by(|a, b| (a.local, a.ns).cmp(&(b.local, b.ns)));
        let mut done = Ok(());
        for a in attrs.iter() {
            done = self.write_attribute(a.ns, a.local, a.prefix, a.value);
            if done.is_err() {
                break;
            }
        }
        attrs.clear();
        done
    }

    /// The held xsi:type and xsi:nil of the start tag being closed, which come before its
    /// other attributes.
    #[inline(always)]
    fn write_xsi(&mut self) -> Result<()> {
        if self.xsi_type.is_none() && self.xsi_nil.is_none() {
            return Ok(());
        }
        self.write_xsi_held()
    }

    /// [`write_xsi`](Self::write_xsi) when the tag has xsi:type or xsi:nil.
    #[inline(never)]
    fn write_xsi_held(&mut self) -> Result<()> {
        if let Some((p, t)) = self.xsi_type.take() {
            self.write_xsi_type(&p, &t)?;
        }
        if let Some((p, n)) = self.xsi_nil.take() {
            self.write_xsi_nil(&p, &n)?;
        }
        Ok(())
    }

    /// Keeps an attribute of the open start tag until the tag is closed: xsi:type and
    /// xsi:nil aside (they are written first), the others copied into `abuf`.
    fn hold_attribute(&mut self, name: &QName<'_>, value: &str) {
        if self.hold_xsi(name, value) {
            return;
        }
        let mut span = |t: &str| {
            let start = self.abuf.len() as u32;
            self.abuf.push_str(t);
            (start, self.abuf.len() as u32)
        };
        let a = [
            span(&name.namespace),
            span(&name.local),
            span(value),
            span(&name.prefix),
        ];
        self.attrs.push(a);
    }

    /// Holds `name` aside if it is xsi:type or xsi:nil (then true).
    #[inline]
    fn hold_xsi(&mut self, name: &QName<'_>, value: &str) -> bool {
        if name.namespace != XSI_NS {
            return false;
        }
        let slot = match name.local.as_ref() {
            "type" => &mut self.xsi_type,
            "nil" => &mut self.xsi_nil,
            _ => return false,
        };
        *slot = Some((name.prefix.to_string(), value.to_string()));
        true
    }

    /// A namespace declaration of the open start tag: in scope for xsi:type's value, and, with
    /// preserve.prefixes, an NS event (its URI, its prefix, and whether it is the element's).
    fn namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        if prefix == "xml" {
            // `xmlns:xml` only restates the predeclared binding; SAX parsers (and so
            // EXIficient) do not report it.
            return Ok(());
        }
        let depth = self.stack.len();
        self.scope
            .push((prefix.to_string(), uri.to_string(), depth));
        if !self.o.prefixes {
            return Ok(());
        }
        if !self.in_tag {
            return Err(Self::invalid("a namespace declaration after content"));
        }
        let cur = self.stack.last().expect("inside an element").cur;
        match cur {
            Cur::Informed { .. } => self.code2(cur, Second::Ns)?,
            Cur::Builtin { grammar, state } => {
                self.code2_builtin(grammar, state, Undeclared::Ns)?
            }
        }
        let u = self.t.write_uri(&mut self.w, uri);
        self.t.write_ns_prefix(&mut self.w, u, prefix);
        self.w.boolean(prefix == self.se_prefix);
        Ok(())
    }

    fn resolve(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(crate::tables::XML_NS);
        }
        match self.scope.iter().rev().find(|(p, _, _)| p == prefix) {
            Some((_, u, _)) => Some(u),
            None if prefix.is_empty() => Some(""),
            None => None,
        }
    }

    /// Writes the prefix of an SE or AT name (preserve.prefixes).
    fn name_prefix(&mut self, name: NameId, prefix: &str) {
        if self.o.prefixes {
            self.t.write_qname_prefix(&mut self.w, name, prefix);
        }
    }

    fn write_xsi_type(&mut self, own_prefix: &str, value: &str) -> Result<()> {
        if self.o.lexical_values && !self.o.prefixes {
            // The value would be a string, whose QName a decoder resolves only with the
            // prefixes preserve.prefixes keeps: EXIficient refuses a prefixed one and writes
            // an unprefixed one that its own decoder then cannot read (docs/exi.md).
            return Err(Error::unsupported(
                Format::Exi,
                "xsi:type with preserve.lexicalValues needs preserve.prefixes: without them \
                 its value's prefix cannot be resolved when decoding",
            ));
        }
        let cur = self.stack.last().expect("inside an element").cur;
        let xsi_type = self
            .name_of(XSI_NS, "type")
            .expect("xsi:type is in every table");
        match cur {
            Cur::Informed { .. } => {
                if self.code2(cur, Second::XsiType).is_err() {
                    // Not at the second level: an AT(*) of the grammar, or the undeclared one.
                    let st = match cur {
                        Cur::Informed { state, .. } => self.g.grammar(state),
                        Cur::Builtin { .. } => unreachable!(),
                    };
                    match st
                        .productions
                        .iter()
                        .position(|p| matches!(p.terminal, Terminal::AtAny))
                    {
                        Some(i) => self.code1(cur, i),
                        None => self.code2(cur, Second::AtAny)?,
                    }
                    self.t.write_qname(&mut self.w, XSI_NS, "type");
                }
            }
            Cur::Builtin { grammar, state } => {
                if !self.code1_builtin(grammar, state, Prod::At(xsi_type)) {
                    self.code2_builtin(grammar, state, Undeclared::At)?;
                    self.t.write_qname(&mut self.w, XSI_NS, "type");
                    self.builtin.learn(grammar, state, Prod::At(xsi_type));
                }
            }
        }
        self.name_prefix(xsi_type, own_prefix);
        // The value, a QName: an unbound prefix makes the whole text the local name.
        let v = value.trim();
        let (prefix, local) = v.split_once(':').unwrap_or(("", v));
        let (uri, local) = match self.resolve(prefix) {
            Some(u) => (u.to_string(), local),
            None => (String::new(), v),
        };
        if self.o.lexical_values {
            // A string of the value's characters (in the structure channel, as EXIficient
            // writes it), whose prefix the declarations preserved in the stream resolve.
            self.t.write_value(&mut self.w, xsi_type, value);
        } else {
            let id = self.t.write_qname(&mut self.w, &uri, local);
            let p = if uri.is_empty() { "" } else { prefix };
            self.name_prefix(id, p);
        }
        if let Some(t) = self.g.schema().global_type(&uri, local) {
            let start = self.g.type_grammar(t);
            let empty = self.g.type_empty(t);
            if let Some(f) = self.stack.last_mut() {
                f.cur = Cur::Informed {
                    state: start,
                    empty,
                    // A named type's grammar has no element's flags (EXIficient's type
                    // grammars are not nillable or castable).
                    nillable: false,
                    castable: false,
                };
            }
        }
        Ok(())
    }

    fn write_xsi_nil(&mut self, own_prefix: &str, value: &str) -> Result<()> {
        let cur = self.stack.last().expect("inside an element").cur;
        let nil = match value.trim() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        };
        match (cur, nil) {
            (Cur::Informed { empty, .. }, Some(b)) => {
                self.code2(cur, Second::XsiNil)?;
                self.name_prefix(crate::tables::XSI_NIL, own_prefix);
                self.w.boolean(b);
                if b {
                    self.set_state(Some(empty));
                }
                Ok(())
            }
            _ => self.write_attribute(XSI_NS, "nil", own_prefix, value),
        }
    }

    fn write_attribute(&mut self, ns: &str, local: &str, prefix: &str, value: &str) -> Result<()> {
        let cur = self.stack.last().expect("inside an element").cur;
        let (grammar, state) = match cur {
            Cur::Builtin { grammar, state } => (grammar, state),
            Cur::Informed { state, .. } => {
                let g = Arc::clone(&self.g);
                let st = g.grammar(state);
                // A declared AT(qname), its name compared as strings; its number in the table
                // is known from the grammars.
                let declared =
                    st.productions
                        .iter()
                        .enumerate()
                        .find_map(|(i, p)| match &p.terminal {
                            Terminal::At { name, .. }
                                if bytes_eq(name.local.as_bytes(), local.as_bytes())
                                    && bytes_eq(name.ns.as_bytes(), ns.as_bytes()) =>
                            {
                                g.prod_name(state, i).map(|id| (i, p, id))
                            }
                            _ => None,
                        });
                if let Some((i, p, name)) = declared {
                    let Terminal::At { type_def, .. } = &p.terminal else {
                        unreachable!()
                    };
                    let reps = self.reps.clone();
                    let dt = g.value_type_in(reps.as_deref(), *type_def, self.o.lexical_values);
                    if !self.o.alignment.is_reordered() && !is_string(dt) {
                        // Parsed once: the event code depends on whether it is representable.
                        if let Some(v) = values::prepare_value(dt, value) {
                            self.code1(cur, i);
                            self.name_prefix(name, prefix);
                            let mut items = values::TableItems {
                                t: &mut self.t,
                                name,
                                max_len: usize::MAX,
                            };
                            values::write_prepared(&v, &mut self.w, &mut items, self.o.canonical);
                            self.set_state(p.next);
                            return Ok(());
                        }
                    }
                    if values::representable(dt, value) {
                        self.code1(cur, i);
                        self.name_prefix(name, prefix);
                        self.value(name, Some(*type_def), value)?;
                    } else {
                        // Third level: the declared attribute with an untyped value.
                        let first_at = st
                            .productions
                            .iter()
                            .position(|p| matches!(p.terminal, Terminal::At { .. }))
                            .unwrap_or(0);
                        self.code2(cur, Second::AtUntyped)?;
                        let declared = count_declared_attributes(st);
                        self.w.nbit((i - first_at) as u32, width(declared + 1));
                        self.name_prefix(name, prefix);
                        self.value(name, None, value)?;
                    }
                    self.set_state(p.next);
                    return Ok(());
                }
                // AT(uri:*), then AT(*), declared.
                let ns_prod = st
                    .productions
                    .iter()
                    .position(|p| matches!(&p.terminal, Terminal::AtNs(u) if u == ns));
                let any_prod = ns_prod.or_else(|| {
                    st.productions
                        .iter()
                        .position(|p| matches!(p.terminal, Terminal::AtAny))
                });
                let global_type = g.global_attribute_type(ns, local);
                let typed = global_type.is_some_and(|t| {
                    values::representable(
                        g.value_type_in(self.reps.as_deref(), t, self.o.lexical_values),
                        value,
                    )
                });
                if global_type.is_some() && !typed {
                    // AT(*) [untyped value]: the last entry of the third level.
                    self.code2(cur, Second::AtUntyped)?;
                    let declared = count_declared_attributes(st);
                    self.w.nbit(declared as u32, width(declared + 1));
                    let name = self.t.write_qname(&mut self.w, ns, local);
                    self.name_prefix(name, prefix);
                    return self.value(name, None, value);
                }
                let name = match any_prod {
                    Some(i) => {
                        self.code1(cur, i);
                        if ns_prod.is_some() {
                            let u = self.t.uri_id(ns).expect("wildcard URIs are in the table");
                            self.t.write_local(&mut self.w, u, local)
                        } else {
                            self.t.write_qname(&mut self.w, ns, local)
                        }
                    }
                    None => {
                        self.code2(cur, Second::AtAny)?;
                        self.t.write_qname(&mut self.w, ns, local)
                    }
                };
                self.name_prefix(name, prefix);
                self.value(name, global_type, value)?;
                if let Some(i) = any_prod {
                    let next = st.productions[i].next;
                    self.set_state(next);
                }
                self.xml_space(ns, local, value);
                return Ok(());
            }
        };
        // A built-in grammar: as schema-less.
        let known = self.name_of(ns, local);
        let hit = known.filter(|&id| self.code1_builtin(grammar, state, Prod::At(id)));
        let name = match hit {
            Some(id) => id,
            None => {
                self.code2_builtin(grammar, state, Undeclared::At)?;
                let id = self.t.write_qname(&mut self.w, ns, local);
                self.builtin.learn(grammar, state, Prod::At(id));
                id
            }
        };
        self.name_prefix(name, prefix);
        self.value(name, None, value)?;
        self.xml_space(ns, local, value);
        Ok(())
    }

    fn xml_space(&mut self, ns: &str, local: &str, value: &str) {
        if ns == crate::tables::XML_NS && local == "space" {
            match value {
                "preserve" => self.space = true,
                "default" => self.space = false,
                _ => {}
            }
        }
    }

    /// A value of an attribute or element named `name`: typed by simple type `t` (strings
    /// through the string table, with their restricted character set), or untyped (`None`, a
    /// string). In the pre-compression and compression layouts it goes to its name's channel
    /// and is written when the block closes (EXI 1.0, section 9).
    fn value(&mut self, name: NameId, t: Option<TypeId>, text: &str) -> Result<()> {
        if !self.o.alignment.is_reordered() {
            let lexical = self.o.lexical_values;
            let canonical = self.o.canonical;
            let reps = self.reps.as_deref();
            write_value(
                &mut self.t,
                &self.g,
                reps,
                &mut self.w,
                name,
                t,
                text,
                lexical,
                canonical,
            );
            return Ok(());
        }
        let c = &mut self.chan;
        if c.index.len() <= name as usize {
            c.index.resize(name as usize + 1, 0);
        }
        let i = c.index[name as usize];
        let start = c.buf.len() as u32;
        c.buf.push_str(text);
        let v = (t, (start, c.buf.len() as u32));
        if i == 0 {
            c.list.push((name, vec![v]));
            c.index[name as usize] = c.list.len() as u32;
        } else {
            c.list[i as usize - 1].1.push(v);
        }
        c.count += 1;
        if c.count == self.o.block_size {
            self.close_block()?;
        }
        Ok(())
    }

    /// Writes the block's structure and value channels, each compressed stream DEFLATEd in the
    /// compression layout (section 9.3: one stream when the block has at most 100 values, else
    /// the structure, the small channels together, then each large channel).
    fn close_block(&mut self) -> Result<()> {
        let structure = self.w.take_octets();
        let channels = std::mem::take(&mut self.chan.list);
        for (name, _) in &channels {
            self.chan.index[*name as usize] = 0;
        }
        let count = std::mem::replace(&mut self.chan.count, 0);
        if structure.is_empty() && channels.is_empty() {
            return Ok(());
        }
        let g = Arc::clone(&self.g);
        let reps = self.reps.clone();
        let lexical = self.o.lexical_values;
        let canonical = self.o.canonical;
        let buf = std::mem::take(&mut self.chan.buf);
        let write_all =
            |t: &mut Tables, w: &mut BitWriter, name: NameId, values: &[ChannelValue]| {
                for &(ty, (a, b)) in values {
                    let text = &buf[a as usize..b as usize];
                    write_value(
                        t,
                        &g,
                        reps.as_deref(),
                        w,
                        name,
                        ty,
                        text,
                        lexical,
                        canonical,
                    );
                }
            };
        if count <= SMALL_BLOCK {
            let mut s = BitWriter::new(true);
            s.raw(&structure);
            for (name, values) in &channels {
                write_all(&mut self.t, &mut s, *name, values);
            }
            self.emit(&s.finish())?;
        } else {
            self.emit(&structure)?;
            let mut small = BitWriter::new(true);
            let mut any_small = false;
            for (name, values) in &channels {
                if values.len() as u32 <= SMALL_BLOCK {
                    any_small = true;
                    write_all(&mut self.t, &mut small, *name, values);
                }
            }
            if any_small {
                self.emit(&small.finish())?;
            }
            for (name, values) in &channels {
                if values.len() as u32 > SMALL_BLOCK {
                    let mut s = BitWriter::new(true);
                    write_all(&mut self.t, &mut s, *name, values);
                    self.emit(&s.finish())?;
                }
            }
        }
        let mut buf = buf;
        buf.clear();
        self.chan.buf = buf;
        Ok(())
    }

    /// One compressed stream: DEFLATEd in the compression layout, as is in pre-compression.
    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        if self.o.alignment == Alignment::Compression {
            let level = self.o.deflate_level;
            let z = self
                .deflater
                .get_or_insert_with(|| crate::deflate::Deflater::new(level));
            self.out.write_all(z.deflate(bytes)).map_err(Self::io)
        } else {
            self.out.write_all(bytes).map_err(Self::io)
        }
    }

    /// Writes buffered text as EXIficient does (see the module docs).
    #[inline(always)]
    fn flush_text(&mut self, next: Next) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        self.flush_text_held(next)
    }

    /// [`flush_text`](Self::flush_text) when there is text.
    #[inline(never)]
    fn flush_text_held(&mut self, next: Next) -> Result<()> {
        let text = std::mem::take(&mut self.text);
        let r = self.write_text(text.as_str(), next);
        let mut text = text;
        text.clear();
        self.text = text;
        r
    }

    fn write_text(&mut self, text: &str, next: Next) -> Result<()> {
        let Some(frame) = self.stack.last() else {
            return if is_whitespace(text) {
                Ok(())
            } else {
                Err(Error::unsupported(
                    Format::Exi,
                    "character data outside elements cannot be written in EXI",
                ))
            };
        };
        let cur = frame.cur;
        // The datatype of a typed CH at the state's first production (simple content).
        let typed = match cur {
            Cur::Informed { state, .. } => match self.g.grammar(state).productions.first() {
                Some(p) => match &p.terminal {
                    Terminal::Ch(t) => Some((*t, p.next)),
                    _ => None,
                },
                None => None,
            },
            Cur::Builtin { .. } => None,
        };
        // Lexical values keep their characters as they are.
        let collapse_ws = typed.map(|(t, _)| match self.o.lexical_values {
            true => Ws::Preserve,
            false => whitespace_of(&self.g, self.reps.as_deref(), t),
        });
        let processed: std::borrow::Cow<'_, str> = match collapse_ws {
            Some(ws) if !(self.space || ws == Ws::Preserve) => match ws {
                Ws::Replace => text.replace(['\t', '\n', '\r'], " ").into(),
                _ => collapse(text),
            },
            Some(_) => text.into(),
            None => {
                let keep = match self.o.whitespace {
                    Whitespace::Preserve => true,
                    Whitespace::DropBetweenTags => {
                        // EXIficient keeps every whitespace text with lexical values.
                        self.o.lexical_values
                            || self.space
                            || (self.after_start && matches!(next, Next::Ee | Next::Misc))
                            || !is_whitespace(text)
                    }
                };
                if !keep {
                    return Ok(());
                }
                text.into()
            }
        };
        if collapse_ws.is_some_and(|ws| ws != Ws::Preserve) && processed.is_empty() && !self.space {
            // Text that whitespace processing empties is dropped (EXIficient writes no CH).
            return Ok(());
        }
        self.characters(&processed, cur, typed)
    }

    fn characters(
        &mut self,
        text: &str,
        cur: Cur,
        typed: Option<(binxml_schema::model::TypeId, Option<GrammarId>)>,
    ) -> Result<()> {
        let name = self.stack.last().expect("inside an element").name;
        match cur {
            Cur::Informed { state, .. } => {
                let g = Arc::clone(&self.g);
                // Any typed CH of the state (EXIficient's getProduction(CHARACTERS)); `typed`
                // is whether the first production is one (which decides whitespace).
                let _ = typed;
                let typed_ch =
                    g.grammar(state)
                        .productions
                        .iter()
                        .enumerate()
                        .find_map(|(i, p)| match &p.terminal {
                            Terminal::Ch(t) => Some((i, *t, p.next)),
                            _ => None,
                        });
                if let Some((i, t, next)) = typed_ch {
                    let reps = self.reps.clone();
                    let dt = g.value_type_in(reps.as_deref(), t, self.o.lexical_values);
                    if !self.o.alignment.is_reordered() && !is_string(dt) {
                        // Parsed once: the event code depends on whether it is representable.
                        if let Some(p) = values::prepare_value(dt, text) {
                            self.code1(cur, i);
                            let mut items = values::TableItems {
                                t: &mut self.t,
                                name,
                                max_len: usize::MAX,
                            };
                            values::write_prepared(&p, &mut self.w, &mut items, self.o.canonical);
                            self.set_state(next);
                            return Ok(());
                        }
                    } else if values::representable(dt, text) {
                        self.code1(cur, i);
                        self.value(name, Some(t), text)?;
                        self.set_state(next);
                        return Ok(());
                    }
                }
                let st = g.grammar(state);
                match st
                    .productions
                    .iter()
                    .position(|p| matches!(p.terminal, Terminal::ChMixed))
                {
                    Some(i) => {
                        let next = st.productions[i].next;
                        self.code1(cur, i);
                        self.value(name, None, text)?;
                        self.set_state(next);
                    }
                    None => {
                        if self.o.strict && !self.space && text.trim().is_empty() {
                            // Strict grammars have no undeclared CH: EXIficient drops
                            // whitespace that nothing declares rather than fail.
                            return Ok(());
                        }
                        self.code2(cur, Second::Ch)?;
                        self.value(name, None, text)?;
                        let next = match st.kind {
                            Kind::Content => state,
                            _ => st.content.unwrap_or(state),
                        };
                        self.set_state(Some(next));
                    }
                }
            }
            Cur::Builtin { grammar, state } => {
                if !self.code1_builtin(grammar, state, Prod::Ch) {
                    self.code2_builtin(grammar, state, Undeclared::Ch)?;
                    self.builtin.learn(grammar, state, Prod::Ch);
                }
                self.value(name, None, text)?;
                self.set_cur(Cur::Builtin {
                    grammar,
                    state: State::Content,
                });
            }
        }
        Ok(())
    }

    fn end_element(&mut self) -> Result<()> {
        self.flush_text(Next::Ee)?;
        self.close_tag()?;
        let cur = self
            .stack
            .last()
            .ok_or_else(|| Self::invalid("EndElement without element"))?
            .cur;
        match cur {
            Cur::Informed { state, .. } => {
                let g = Arc::clone(&self.g);
                let st = g.grammar(state);
                match st
                    .productions
                    .iter()
                    .position(|p| matches!(p.terminal, Terminal::Ee))
                {
                    Some(i) => self.code1(cur, i),
                    None => {
                        if self.code2(cur, Second::Ee).is_err() {
                            // Strict: an empty typed value makes EE reachable (EXIficient
                            // writes an empty CH, as SAX reports no text for `<a></a>`).
                            let typed = match st.productions.first().map(|p| &p.terminal) {
                                Some(Terminal::Ch(t)) => Some((*t, st.productions[0].next)),
                                _ => None,
                            };
                            if typed.is_none() {
                                return Err(Self::invalid(
                                    "the element's content is incomplete (strict)",
                                ));
                            }
                            self.characters("", cur, typed)?;
                            let cur = self.stack.last().expect("inside an element").cur;
                            let Cur::Informed { state, .. } = cur else {
                                unreachable!()
                            };
                            let i = self
                                .g
                                .grammar(state)
                                .productions
                                .iter()
                                .position(|p| matches!(p.terminal, Terminal::Ee))
                                .ok_or_else(|| {
                                    Self::invalid("the element's content is incomplete (strict)")
                                })?;
                            self.code1(cur, i);
                        }
                    }
                }
            }
            Cur::Builtin { grammar, state } => {
                if !self.code1_builtin(grammar, state, Prod::Ee) {
                    self.code2_builtin(grammar, state, Undeclared::Ee)?;
                    self.builtin.learn(grammar, state, Prod::Ee);
                }
            }
        }
        let f = self.stack.pop().expect("checked");
        self.space = f.outer_space;
        let depth = self.stack.len() + 1;
        while self.scope.last().is_some_and(|s| s.2 >= depth) {
            self.scope.pop();
        }
        self.after_start = false;
        if self
            .outer
            .last()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            self.end_self_contained();
        }
        Ok(())
    }

    fn end_document(&mut self) -> Result<()> {
        self.flush_text(Next::Ed)?;
        let misc = usize::from(self.o.comments || self.o.pis);
        if self.o.fragment {
            // FragmentContent's ED, after SE(F_0..F_n-1) and SE(*).
            let n = self.g.fragment_elements().len();
            self.w.nbit((n + 1) as u32, width(n + 2 + misc));
        } else {
            // DocEnd: ED (code 0, of two when CM/PI are preserved).
            self.w.nbit(0, width(1 + misc));
        }
        if self.o.alignment.is_reordered() {
            self.close_block()?;
        } else {
            let w = std::mem::take(&mut self.w);
            let bytes = w.finish();
            self.out.write_all(&bytes).map_err(Self::io)?;
        }
        self.done = true;
        Ok(())
    }
}

/// Strings go through the string table, whole or (lists) item by item.
fn is_string(dt: &ExiType) -> bool {
    matches!(dt, ExiType::String | ExiType::Restricted(_))
}

/// Writes a value (see [`SchemaEncoder::value`]) to `w`.
#[allow(clippy::too_many_arguments)]
fn write_value(
    t: &mut Tables,
    g: &SchemaGrammars,
    reps: Option<&super::Representations>,
    w: &mut BitWriter,
    name: NameId,
    ty: Option<TypeId>,
    text: &str,
    lexical: bool,
    canonical: bool,
) {
    let Some(ty) = ty else {
        t.write_value(w, name, text);
        return;
    };
    let dt = g.value_type_in(reps, ty, lexical);
    match dt {
        ExiType::String => t.write_value(w, name, text),
        ExiType::Restricted(_) => t.write_value_with(w, name, text, |w, s| {
            values::encode_string_literal(dt, s, w)
        }),
        _ => {
            let mut items = values::TableItems {
                t,
                name,
                max_len: usize::MAX,
            };
            let ok = values::encode_with(dt, text, w, &mut items, canonical);
            debug_assert!(ok, "checked before");
        }
    }
}

/// Values in one stream up to which a block's channels share one compressed stream.
const SMALL_BLOCK: u32 = 100;

/// A value waiting in its channel: its simple type (`None`: untyped) and text.
/// A value of a channel: its type, and its text as a span of [`Channels::buf`].
type ChannelValue = (Option<TypeId>, (u32, u32));

/// The values of a block in the reordered layouts, one channel per name in order of first use.
#[derive(Debug, Default)]
struct Channels {
    list: Vec<(NameId, Vec<ChannelValue>)>,
    buf: String,
    /// Name -> index in `list` + 1 (0: none yet in this block).
    index: Vec<u32>,
    count: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ws {
    Preserve,
    Replace,
    Collapse,
}

/// The whitespace processing EXIficient applies to a datatype's text: strings keep their
/// whiteSpace facet's, every other representation collapses.
fn whitespace_of(
    g: &SchemaGrammars,
    reps: Option<&super::Representations>,
    t: binxml_schema::model::TypeId,
) -> Ws {
    use binxml_schema::datatypes::WhiteSpace;
    match g.value_type_in(reps, t, false) {
        ExiType::String | ExiType::Restricted(_) => match g.schema().type_def(t) {
            binxml_schema::model::TypeDef::Simple(s) => match s.facets.white_space() {
                WhiteSpace::Preserve => Ws::Preserve,
                WhiteSpace::Replace => Ws::Replace,
                WhiteSpace::Collapse => Ws::Collapse,
            },
            binxml_schema::model::TypeDef::Complex(_) => Ws::Preserve,
        },
        _ => Ws::Collapse,
    }
}

fn count_declared_attributes(st: &super::Grammar) -> usize {
    st.productions
        .iter()
        .filter(|p| matches!(p.terminal, Terminal::At { .. }))
        .count()
}

fn is_whitespace(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// `s` with its whitespace collapsed (XML Schema's `collapse`): as it is when it has nothing
/// to collapse (most values).
fn collapse(s: &str) -> std::borrow::Cow<'_, str> {
    // A space after a space (or at the start), a tab or line end, or a space at the end.
    let mut after_space = true;
    let mut clean = true;
    for &b in s.as_bytes() {
        match b {
            b'\t' | b'\n' | b'\r' => clean = false,
            b' ' if after_space => clean = false,
            _ => {}
        }
        after_space = b == b' ';
    }
    if clean && (s.is_empty() || !after_space) {
        return s.into();
    }
    s.split([' ', '\t', '\n', '\r'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .into()
}

/// Whether a declared name is the event's.
fn same_name(n: &binxml_schema::model::Name, q: &QName<'_>) -> bool {
    bytes_eq(n.local.as_bytes(), q.local.as_bytes())
        && bytes_eq(n.ns.as_bytes(), q.namespace.as_bytes())
}

/// An attribute of the open start tag, borrowed from the tape being written.
struct TapeAttr<'s> {
    ns: &'s str,
    local: &'s str,
    prefix: &'s str,
    value: &'s str,
}

/// Replays a tape into the encoder with what it would buffer borrowed from the tape instead
/// of copied: the text not yet written (held until the next event says what follows it) and
/// the open start tag's attributes (held until the tag closes, to be sorted). The common
/// events come through the sink's per-kind methods, the others through
/// [`Encoder::write_event`] with what is held handed to the encoder's own buffers first.
struct TapeSink<'e, 's, W: Write> {
    e: &'e mut SchemaEncoder<W>,
    /// Text not yet written (when the encoder's own `text` is empty).
    held: Option<&'s str>,
    /// The open start tag's attributes (when the encoder's own `attrs` is empty).
    attrs: Vec<TapeAttr<'s>>,
}

impl<W: Write> TapeSink<'_, '_, W> {
    /// Moves what the sink holds into the encoder's own buffers (as `write_event` would
    /// have left them).
    fn spill(&mut self) {
        if let Some(h) = self.held.take() {
            self.e.text.push_str(h);
        }
        for a in std::mem::take(&mut self.attrs) {
            self.e.hold_attribute(
                &QName {
                    prefix: Cow::Borrowed(a.prefix),
                    namespace: Cow::Borrowed(a.ns),
                    local: Cow::Borrowed(a.local),
                },
                a.value,
            );
        }
    }

    /// Writes the text before the next event (`flush_text`).
    #[inline(always)]
    fn release(&mut self, next: Next) -> Result<()> {
        match self.held.take() {
            Some(h) => self.e.write_text(h, next),
            None => self.e.flush_text(next),
        }
    }

    /// Closes the open start tag (`close_tag`).
    #[inline(always)]
    fn close(&mut self) -> Result<()> {
        if self.attrs.is_empty() {
            self.e.close_tag()
        } else {
            self.e.close_tag_with(&mut self.attrs)
        }
    }
}

impl<'s, W: Write> binxml_core::EventSink<'s> for TapeSink<'_, 's, W> {
    fn event(&mut self, ev: Event<'s>) -> Result<()> {
        self.spill();
        self.e.write_event(&ev)
    }

    #[inline]
    fn start_element(&mut self, name: QName<'s>) -> Result<()> {
        self.e.live()?;
        self.e.checker.start_element(Format::Exi)?;
        self.release(Next::Se)?;
        self.close()?;
        self.e.start_element(&name)
    }

    #[inline]
    fn end_element(&mut self) -> Result<()> {
        self.e.live()?;
        self.e.checker.end_element(Format::Exi)?;
        self.release(Next::Ee)?;
        self.close()?;
        self.e.end_element()
    }

    #[inline]
    fn attribute(&mut self, name: QName<'s>, value: Cow<'s, str>) -> Result<()> {
        self.e.live()?;
        self.e.checker.attribute(Format::Exi)?;
        if !self.e.in_tag {
            return Err(SchemaEncoder::<W>::invalid("an attribute after content"));
        }
        if self.e.hold_xsi(&name, &value) {
            return Ok(());
        }
        match (name.namespace, name.local, name.prefix, value) {
            (Cow::Borrowed(ns), Cow::Borrowed(local), Cow::Borrowed(prefix), Cow::Borrowed(v))
                if self.e.attrs.is_empty() =>
            {
                self.attrs.push(TapeAttr {
                    ns,
                    local,
                    prefix,
                    value: v,
                });
            }
            (namespace, local, prefix, value) => {
                self.spill();
                let q = QName {
                    prefix,
                    namespace,
                    local,
                };
                self.e.hold_attribute(&q, &value);
            }
        }
        Ok(())
    }

    #[inline]
    fn text(&mut self, text: Cow<'s, str>) -> Result<()> {
        self.e.live()?;
        self.e.checker.characters(Format::Exi, &text, false)?;
        self.close()?;
        match text {
            Cow::Borrowed(t) if self.held.is_none() && self.e.text.is_empty() => {
                self.held = Some(t);
            }
            text => {
                if let Some(h) = self.held.take() {
                    self.e.text.push_str(h);
                }
                self.e.text.push_str(&text);
            }
        }
        Ok(())
    }
}

impl<W: Write> SchemaEncoder<W> {
    /// The options' error, if they cannot be used (every event fails with it).
    #[inline(always)]
    fn live(&self) -> Result<()> {
        match &self.invalid {
            Some(e) => Err(Error::new(e.kind(), Format::Exi, e.message())),
            None => Ok(()),
        }
    }
}

impl<W: Write> Encoder for SchemaEncoder<W> {
    fn write_event(&mut self, ev: &Event<'_>) -> Result<()> {
        self.live()?;
        self.checker.check(Format::Exi, ev)?;
        match ev {
            Event::StartDocument { .. } => {
                header::write(&mut self.w, &self.o);
                if self.o.alignment.is_aligned() {
                    self.w.set_aligned(true);
                }
                if self.o.alignment.is_reordered() {
                    // The header is not part of any compressed stream.
                    let head = self.w.take_octets();
                    self.out.write_all(&head).map_err(Self::io)?;
                }
                Ok(())
            }
            Event::EndDocument => self.end_document(),
            Event::StartElement(q) => self.start_element(q),
            Event::EndElement => self.end_element(),
            Event::Namespace { prefix, uri } => self.namespace(prefix, uri),
            Event::Attribute { name, value } => {
                if !self.in_tag {
                    return Err(Self::invalid("an attribute after content"));
                }
                self.hold_attribute(name, value);
                Ok(())
            }
            Event::Characters { text, .. } => {
                self.close_tag()?;
                self.text.push_str(text);
                Ok(())
            }
            Event::Typed(t) => {
                self.close_tag()?;
                t.write_lexical(&mut self.text);
                Ok(())
            }
            // Without the preserve options these are not part of EXI's data model.
            Event::Comment(c) => {
                if !self.o.comments {
                    return Ok(());
                }
                self.flush_text(Next::Misc)?;
                self.close_tag()?;
                self.misc(Undeclared::Cm)?;
                self.w.string(c);
                Ok(())
            }
            Event::ProcessingInstruction { target, data } => {
                if !self.o.pis {
                    return Ok(());
                }
                self.flush_text(Next::Misc)?;
                self.close_tag()?;
                self.misc(Undeclared::Pi)?;
                self.w.string(target);
                self.w.string(data);
                Ok(())
            }
            Event::DocType(dt) => {
                if !self.o.dtd || self.o.fragment {
                    // Not part of EXI's data model without preserve.dtd; a fragment has no
                    // DOCTYPE (FragmentContent has no DT).
                    return Ok(());
                }
                if self.root_done || !self.stack.is_empty() {
                    return Err(Self::invalid("a DOCTYPE after the document element"));
                }
                // DocContent: the code past SE(G_i) and SE(*), then DT first at the second
                // level (section 8.5.1).
                self.doc_content_second();
                let misc = usize::from(self.o.comments || self.o.pis);
                self.w.nbit(0, width(1 + misc));
                self.w.string(&dt.name);
                self.w.string(dt.public_id.as_deref().unwrap_or(""));
                self.w.string(dt.system_id.as_deref().unwrap_or(""));
                self.w.string(dt.internal_subset.as_deref().unwrap_or(""));
                Ok(())
            }
            Event::EntityReference { name, .. } => {
                if !self.o.dtd {
                    return Ok(());
                }
                self.flush_text(Next::Er)?;
                self.close_tag()?;
                self.content_event(Second::Er)?;
                self.w.string(name);
                Ok(())
            }
            Event::Notation { .. } | Event::UnparsedEntity { .. } => Ok(()),
            _ => Ok(()),
        }
    }

    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        let mut sink = TapeSink {
            e: self,
            held: None,
            attrs: Vec::new(),
        };
        let r = tape.replay(&mut sink);
        // The tape's strings last only for this call.
        sink.spill();
        r
    }

    fn finish(&mut self) -> Result<()> {
        if !self.done {
            return Err(Error::invalid_events(
                Format::Exi,
                "finish before EndDocument",
            ));
        }
        self.out.flush().map_err(Self::io)
    }
}
