//! The decoders' event stream: a pass 1 (PER's in `per/pass1.rs`, BER's in `ber/pass1.rs`)
//! reads the input into a flat list of operations ([`Rec`], `rec.rs`), then events are pulled
//! from that list one at a time, or pushed into a sink (`push.rs`): no abstract value of the
//! document, no vector of events.
//!
//! `Document`'s tables come after its children and an `Element`'s attributes after its
//! children, so nothing can be emitted before the whole input is read. Pass 1 reads the input
//! once, front to back, with an explicit stack (no recursion), and records
//! * an [`Op`] per start, end, text, comment, PI, entity reference and DTD, where an element's
//!   start is patched with its attributes' range once they have been read;
//! * strings as component-string indexes (checked against the table once it is known: the
//!   largest index and its bit offset are kept) or as inline strings (borrowed where the input
//!   has them on an octet boundary);
//! * the tables, split once; an uncompressed block on an octet boundary (always in APER; in
//!   UPER when the encoder aligned it, see `Options::align_strings`) is borrowed from the input,
//!   so every table string an event carries is a slice of the input.
//!
//! Memory is linear in the input: every operation, attribute and string costs input bits.
//! Rare items (entity references, the DTD, notations) go through the generic value decoder and
//! the [`Emitter`].

use std::borrow::Cow;
use std::collections::VecDeque;

use binxml_core::{Error, Event, QName, Result, Typed, XMLNS_NS};

use crate::emit::Emitter;
use crate::sentinel::{INLINE, NO_STR};
use crate::value::V;

mod push;
mod rec;

pub(crate) use rec::Rec;

/// A string: a component-string index, or `INLINE | i` for `inline[i]`.
pub(crate) type Str = u32;
/// A name: a common-name index, or `INLINE | i` for `names[i]`.
pub(crate) type NameRef = u32;

#[derive(Clone, Copy)]
pub(crate) enum Ns {
    None,
    Str(Str),
    /// same-as-parent-element (elements) or same-as-owner-element (attributes)
    Same,
    /// same-as-previous-attribute
    Prev,
}

#[derive(Clone, Copy)]
pub(crate) struct InlineName {
    pub(crate) ns: Ns,
    pub(crate) local: Str,
    pub(crate) prefix: Str,
}

#[derive(Clone, Copy)]
pub(crate) struct AttrRec {
    pub(crate) name: NameRef,
    pub(crate) value: Str,
    /// from `namespace-attributes` (else `attributes`)
    pub(crate) ns_list: bool,
    /// the first of its list (same-as-previous-attribute has nothing to refer to)
    pub(crate) first: bool,
}

#[derive(Clone, Copy)]
pub(crate) enum Op {
    Start {
        name: NameRef,
        attrs: u32,
        attrs_end: u32,
    },
    End,
    Text(Str),
    Base64(u32),
    Comment(Str),
    Pi(Str, Str),
    /// an UnexpandedEntityReference in `values`
    Uer(u32),
    /// a document-level DocumentTypeDeclaration in `values`
    Dtd(u32),
}

/// The decoder's state after pass 1: operations, and events pulled from them.
pub(crate) struct Stream<'a> {
    e: Emitter<'a>,
    ops: Vec<Op>,
    /// each operation's bit position (empty unless asked for)
    positions: Vec<u64>,
    /// the position of the operation the last event came from
    last_position: u64,
    next: usize,
    attrs: Vec<AttrRec>,
    inline: Vec<Cow<'a, str>>,
    names: Vec<InlineName>,
    bytes: Vec<Cow<'a, [u8]>>,
    values: Vec<V<'a>>,
    pending: VecDeque<Event<'a>>,
    /// namespace name of each open element (kept only when an element name refers to it)
    ns_stack: Vec<Cow<'a, str>>,
    track_ns: bool,
    decls: Vec<Event<'a>>,
    nss: Vec<Event<'a>>,
    ats: Vec<Event<'a>>,
    /// the attributes of the element just started, handed out one per call (all common names)
    attr_cur: Option<AttrCursor>,
    /// per common name: its namespace is `xmlns`'s (a namespace declaration)
    xmlns_name: Vec<bool>,
    /// per common name: its parts when all three borrow from the input (an event takes them
    /// without a clone of the name; `None`: a part was decompressed or copied)
    borrowed_names: Vec<Option<[&'a str; 3]>>,
    ended: bool,
}

/// Namespace events come first (from `namespace-attributes`, then from `attributes`), then
/// attribute events (in the same list order): four phases over the element's attributes.
#[derive(Clone, Copy)]
struct AttrCursor {
    start: u32,
    i: u32,
    end: u32,
    phase: u8,
}

/// Whether an attribute (from `namespace-attributes` or not, a namespace declaration or not)
/// is handed out in `phase` (see [`AttrCursor`]).
#[inline(always)]
fn in_phase(phase: u8, ns_list: bool, is_ns: bool) -> bool {
    match phase {
        0 => ns_list && is_ns,
        1 => !ns_list && is_ns,
        2 => ns_list && !is_ns,
        _ => !ns_list && !is_ns,
    }
}

impl<'a> Stream<'a> {
    /// How many operations pass 1 recorded (about the number of events).
    pub(crate) fn ops_len(&self) -> usize {
        self.ops.len()
    }

    #[inline(always)]
    fn s(&mut self, s: Str) -> Result<Cow<'a, str>> {
        if s & INLINE != 0 {
            // every inline string is used once
            Ok(std::mem::take(&mut self.inline[(s & !INLINE) as usize]))
        } else {
            // checked against the table after pass 1
            let v = self.e.strings[s as usize].clone();
            self.e.charge(v.len())?;
            Ok(v)
        }
    }

    fn opt_s(&mut self, s: Str) -> Result<Cow<'a, str>> {
        if s == NO_STR {
            Ok(Cow::Borrowed(""))
        } else {
            self.s(s)
        }
    }

    /// (namespace, local, prefix); `same` is the parent's (owner's) namespace, `prev` the
    /// previous attribute's.
    #[inline(always)]
    fn name(
        &mut self,
        n: NameRef,
        same: Option<&Cow<'a, str>>,
        prev: Option<&Cow<'a, str>>,
    ) -> Result<(Cow<'a, str>, Cow<'a, str>, Cow<'a, str>)> {
        if n & INLINE == 0 {
            if let Some([ns, local, prefix]) = self.borrowed_names[n as usize] {
                self.e.charge(ns.len() + local.len() + prefix.len())?;
                return Ok((
                    Cow::Borrowed(ns),
                    Cow::Borrowed(local),
                    Cow::Borrowed(prefix),
                ));
            }
            let name = self.e.names[n as usize].clone();
            self.e.charge(name.0.len() + name.1.len() + name.2.len())?;
            return Ok(name);
        }
        self.inline_name(n, same, prev)
    }

    /// [`Stream::name`] of a name written inline.
    #[inline(never)]
    fn inline_name(
        &mut self,
        n: NameRef,
        same: Option<&Cow<'a, str>>,
        prev: Option<&Cow<'a, str>>,
    ) -> Result<(Cow<'a, str>, Cow<'a, str>, Cow<'a, str>)> {
        let rec = self.names[(n & !INLINE) as usize];
        let ns = match rec.ns {
            Ns::None => Cow::Borrowed(""),
            Ns::Str(s) => self.s(s)?,
            Ns::Same => match same {
                Some(x) => self.e.copy(x)?,
                None => Cow::Borrowed(""),
            },
            Ns::Prev => match prev {
                Some(p) => self.e.copy(p)?,
                None => {
                    return Err(Error::malformed(
                        self.e.format(),
                        0,
                        "same-as-previous-attribute on the first attribute",
                    ));
                }
            },
        };
        let local = self.s(rec.local)?;
        let prefix = self.opt_s(rec.prefix)?;
        Ok((ns, local, prefix))
    }

    /// The namespace and attribute events of an element, into `pending`.
    fn attributes(&mut self, a0: u32, a1: u32, owner: &Cow<'a, str>) -> Result<()> {
        for pass_ns in [true, false] {
            let mut prev: Option<Cow<'a, str>> = None;
            for i in a0..a1 {
                let a = self.attrs[i as usize];
                if a.ns_list != pass_ns {
                    continue;
                }
                if a.first {
                    prev = None;
                }
                let (ns, local, prefix) = self.name(a.name, Some(owner), prev.as_ref())?;
                let value = self.s(a.value)?;
                if ns == XMLNS_NS {
                    if prefix == "xmlns" {
                        self.nss.push(Event::Namespace {
                            prefix: local,
                            uri: value,
                        });
                    } else if prefix.is_empty() && local == "xmlns" {
                        self.nss.push(Event::Namespace {
                            prefix: Cow::Borrowed(""),
                            uri: value,
                        });
                    } else {
                        return Err(Error::malformed(
                            self.e.format(),
                            0,
                            format!("bad namespace attribute {prefix}:{local}"),
                        ));
                    }
                } else {
                    self.ats.push(Event::Attribute {
                        name: QName {
                            prefix,
                            namespace: ns.clone(),
                            local,
                        },
                        value,
                    });
                }
                prev = Some(ns);
            }
        }
        self.pending.extend(self.nss.drain(..));
        self.pending.extend(self.ats.drain(..));
        Ok(())
    }

    /// The next namespace or attribute event of the element just started, if any.
    #[inline]
    fn next_attr(&mut self) -> Result<Option<Event<'a>>> {
        while let Some(c) = &mut self.attr_cur {
            if c.i == c.end {
                if c.phase == 3 {
                    self.attr_cur = None;
                    return Ok(None);
                }
                c.phase += 1;
                c.i = c.start;
                continue;
            }
            let a = self.attrs[c.i as usize];
            c.i += 1;
            let is_ns = self.xmlns_name[a.name as usize];
            if !in_phase(c.phase, a.ns_list, is_ns) {
                continue;
            }
            let (ns, local, prefix) = self.name(a.name, None, None)?;
            let value = self.s(a.value)?;
            if !is_ns {
                return Ok(Some(Event::Attribute {
                    name: QName {
                        prefix,
                        namespace: ns,
                        local,
                    },
                    value,
                }));
            }
            if prefix == "xmlns" {
                return Ok(Some(Event::Namespace {
                    prefix: local,
                    uri: value,
                }));
            }
            if prefix.is_empty() && local == "xmlns" {
                return Ok(Some(Event::Namespace {
                    prefix: Cow::Borrowed(""),
                    uri: value,
                }));
            }
            return Err(Error::malformed(
                self.e.format(),
                0,
                format!("bad namespace attribute {prefix}:{local}"),
            ));
        }
        Ok(None)
    }

    /// Events of a rare item that the generic emitter maps, into `pending`.
    fn via_emitter(&mut self, op: Op) -> Result<()> {
        match op {
            Op::Uer(i) => {
                let v = std::mem::replace(&mut self.values[i as usize], V::Null);
                self.e.uer(v)?;
            }
            Op::Dtd(i) => {
                let v = std::mem::replace(&mut self.values[i as usize], V::Null);
                let mut decls = std::mem::take(&mut self.decls);
                self.e.dtd(v, &mut decls)?;
                self.decls = decls;
            }
            _ => {}
        }
        self.pending.extend(self.e.out.drain(..));
        Ok(())
    }

    /// Where the item of the event returned last starts: bits (PER) or 8 x octets (BER); 0
    /// unless positions were asked for.
    pub(crate) fn position(&self) -> u64 {
        self.last_position
    }

    #[inline]
    pub(crate) fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if self.attr_cur.is_some()
                && let Some(ev) = self.next_attr()?
            {
                return Ok(Some(ev));
            }
            if let Some(ev) = self.pending.pop_front() {
                return Ok(Some(ev));
            }
            let Some(&op) = self.ops.get(self.next) else {
                if self.ended {
                    return Ok(None);
                }
                self.ended = true;
                return Ok(Some(Event::EndDocument));
            };
            if let Some(&p) = self.positions.get(self.next) {
                self.last_position = p;
            }
            self.next += 1;
            return Ok(Some(match op {
                Op::Start {
                    name,
                    attrs,
                    attrs_end,
                } => {
                    let parent = if self.track_ns {
                        self.ns_stack.last().cloned()
                    } else {
                        None
                    };
                    let (namespace, local, prefix) = self.name(name, parent.as_ref(), None)?;
                    if attrs != attrs_end {
                        let all_common = self.attrs[attrs as usize..attrs_end as usize]
                            .iter()
                            .all(|a| a.name & INLINE == 0);
                        if all_common {
                            // handed out one per call, in the order `attributes` gives
                            self.attr_cur = Some(AttrCursor {
                                start: attrs,
                                i: attrs,
                                end: attrs_end,
                                phase: 0,
                            });
                        } else {
                            self.attributes(attrs, attrs_end, &namespace)?;
                        }
                    }
                    if self.track_ns {
                        self.ns_stack.push(namespace.clone());
                    }
                    Event::StartElement(QName {
                        prefix,
                        namespace,
                        local,
                    })
                }
                Op::End => {
                    if self.track_ns {
                        self.ns_stack.pop();
                    }
                    Event::EndElement
                }
                Op::Text(s) => Event::Characters {
                    text: self.s(s)?,
                    cdata: false,
                },
                Op::Base64(i) => {
                    Event::Typed(Typed::Base64(std::mem::take(&mut self.bytes[i as usize])))
                }
                Op::Comment(s) => Event::Comment(self.s(s)?),
                Op::Pi(t, d) => Event::ProcessingInstruction {
                    target: self.s(t)?,
                    data: self.s(d)?,
                },
                Op::Uer(_) | Op::Dtd(_) => {
                    self.via_emitter(op)?;
                    continue;
                }
            }));
        }
    }
}
