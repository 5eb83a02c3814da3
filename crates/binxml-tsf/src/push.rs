//! The push loop for XML-vocabulary TSF: units straight from the lexer to the sink's part
//! methods, with no event built per element, attribute or text and no generator state to
//! dispatch on per item. JSON-vocabulary documents stay on the event generator (their values
//! expand to several events each through the JSON mapping).
//!
//! It gives the same events, limits and errors (with the same offsets) as the generator in
//! `events.rs`, which the tests check against each other on the corpus and damaged inputs. Its
//! state is all in [`PushLoop`] between items, so it stops when [`EventSink::full`] says so and
//! a later call goes on from there.

use std::borrow::Cow;

use binxml_core::{Error, Event, EventSink, QName, Result};

use crate::events::{lookup, split_qname, sub, xml_item, xmlns_kind};
use crate::lex::{FORMAT, Lexer, Unit, UnitKind};

/// An open structured unit: the root message or an element.
struct Frame {
    /// Units still to read in it.
    remaining: usize,
    /// Namespace bindings in scope outside it (where to truncate when it ends).
    ns_len: usize,
}

/// One attribute of the start tag being read.
struct Attr<'a> {
    name: Cow<'a, str>,
    value: &'a str,
    off: usize,
    /// [`xmlns_kind`] of the name.
    ns: u8,
}

/// The push decoder of an XML-vocabulary document, between two items.
pub(crate) struct PushLoop<'a> {
    lex: Lexer<'a>,
    /// The root frame, then the open elements.
    stack: Vec<Frame>,
    /// Namespace bindings in scope, innermost last: (prefix, namespace name).
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The attributes of the start tag being read (kept for their capacity).
    attrs: Vec<Attr<'a>>,
    /// An element's first child, read to see whether it was the attribute list.
    peeked: Option<Unit<'a>>,
    max_depth: usize,
    /// Offset of the item delivered last.
    last_off: usize,
    started: bool,
    /// After `EndDocument` or an error.
    done: bool,
}

impl<'a> PushLoop<'a> {
    /// Whether the document in `lex` (at its start) is in the XML vocabulary: its first unit
    /// is the root message or an XML unit. `false` too when that unit is malformed: the
    /// generator reports it.
    pub fn applies(lex: &Lexer<'a>) -> bool {
        lex.raw(lex.pos, true).is_ok_and(|r| {
            !matches!(
                r.kind,
                UnitKind::Object
                    | UnitKind::Array
                    | UnitKind::String
                    | UnitKind::Number
                    | UnitKind::Literal
            )
        })
    }

    /// A loop over the document in `lex`, at its start, with the nesting limit `max_depth`
    /// (the string limit is the lexer's).
    pub fn new(lex: Lexer<'a>, max_depth: usize) -> Self {
        PushLoop {
            lex,
            stack: Vec::new(),
            ns: Vec::new(),
            attrs: Vec::new(),
            peeked: None,
            max_depth,
            last_off: 0,
            started: false,
            done: false,
        }
    }

    /// Byte offset of the item delivered last.
    pub fn offset(&self) -> u64 {
        self.last_off as u64
    }

    /// Hands the rest of the document to `sink` (see `Decoder::read_into`). After an error or
    /// the end it hands over nothing.
    pub fn run<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if self.done || sink.full() {
            return Ok(());
        }
        let r = self.run_inner(sink);
        if r.is_err() {
            self.done = true;
        }
        r
    }

    #[inline]
    fn run_inner<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if !self.started {
            // The first unit is read as the generator reads it (`[` as an array there, so a
            // document starting with one is not this loop's).
            let u = self.lex.unit(true)?;
            self.started = true;
            if u.kind == UnitKind::Attributes {
                self.stack.push(Frame {
                    remaining: u.count,
                    ns_len: 0,
                });
            } else {
                self.stack.push(Frame {
                    remaining: 1,
                    ns_len: 0,
                });
                self.peeked = Some(u);
            }
            sink.event(Event::start_document())?;
        }
        while !sink.full() {
            let Some(top) = self.stack.last_mut() else {
                return Ok(());
            };
            if top.remaining == 0 {
                let ns_len = top.ns_len;
                self.stack.pop();
                if self.stack.is_empty() {
                    self.lex.check_end(self.lex.pos)?;
                    self.done = true;
                    return sink.event(Event::EndDocument);
                }
                self.ns.truncate(ns_len);
                sink.end_element()?;
                continue;
            }
            top.remaining -= 1;
            let u = match self.peeked.take() {
                Some(u) => u,
                None => self.lex.unit(false)?,
            };
            match u.kind {
                UnitKind::Element => self.element(u, sink)?,
                UnitKind::Text => {
                    if !u.value.is_empty() {
                        self.last_off = u.off;
                        sink.text(Cow::Borrowed(u.value))?;
                    }
                }
                _ => {
                    if let Some(ev) = xml_item(&u, self.stack.len() == 1)? {
                        self.last_off = u.off;
                        sink.event(ev)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// An element unit: its attribute list read whole (every error in it comes before the
    /// element's start, as when pulling), then the start, its namespace declarations and its
    /// attributes handed over.
    fn element<S: EventSink<'a>>(&mut self, u: Unit<'a>, sink: &mut S) -> Result<()> {
        let off = u.off;
        // The root frame does not count.
        if self.stack.len() > self.max_depth {
            return Err(depth_error(self.max_depth, off));
        }
        let name = u.name.get();
        if name.is_empty() {
            return Err(Error::malformed(
                FORMAT,
                off as u64,
                "element without a name",
            ));
        }
        let mut remaining = u.count;
        let ns_len = self.ns.len();
        let mut attrs = std::mem::take(&mut self.attrs);
        attrs.clear();
        if remaining > 0 {
            let first = self.lex.unit(false)?;
            if first.kind == UnitKind::Attributes {
                remaining -= 1;
                for _ in 0..first.count {
                    let a = self.lex.unit(false)?;
                    if !matches!(a.kind, UnitKind::Text | UnitKind::Attribute) {
                        return Err(Error::malformed(
                            FORMAT,
                            a.off as u64,
                            "an attribute list holds a unit that is not an attribute",
                        ));
                    }
                    let an = a.name.get();
                    if an.is_empty() {
                        return Err(Error::malformed(
                            FORMAT,
                            a.off as u64,
                            "attribute without a name",
                        ));
                    }
                    let ns = xmlns_kind(&an);
                    if ns == 1 {
                        self.ns.push((Cow::Borrowed(""), Cow::Borrowed(a.value)));
                    } else if ns == 2 {
                        self.ns.push((sub(&an, 6), Cow::Borrowed(a.value)));
                    }
                    attrs.push(Attr {
                        name: an,
                        value: a.value,
                        off: a.off,
                        ns,
                    });
                }
            } else {
                self.peeked = Some(first);
            }
        }
        let (prefix, local) = split_qname(&name);
        let namespace = lookup(&self.ns, &prefix, off)?;
        self.stack.push(Frame { remaining, ns_len });
        self.last_off = off;
        sink.start_element(QName {
            prefix,
            namespace,
            local,
        })?;
        if !attrs.is_empty() {
            let r = self.attributes(&attrs, ns_len, sink);
            self.attrs = attrs;
            r?;
        }
        Ok(())
    }

    /// The namespace declarations, then the attributes, of the element just started.
    fn attributes<S: EventSink<'a>>(
        &mut self,
        attrs: &[Attr<'a>],
        ns_len: usize,
        sink: &mut S,
    ) -> Result<()> {
        if self.ns.len() != ns_len {
            for a in attrs {
                let prefix = match a.ns {
                    1 => Cow::Borrowed(""),
                    2 => sub(&a.name, 6),
                    _ => continue,
                };
                self.last_off = a.off;
                sink.namespace(prefix, Cow::Borrowed(a.value))?;
            }
        }
        for a in attrs {
            if a.ns != 0 {
                continue;
            }
            let (prefix, local) = split_qname(&a.name);
            let namespace = if prefix.is_empty() {
                Cow::Borrowed("")
            } else {
                lookup(&self.ns, &prefix, a.off)?
            };
            self.last_off = a.off;
            sink.attribute(
                QName {
                    prefix,
                    namespace,
                    local,
                },
                Cow::Borrowed(a.value),
            )?;
        }
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn depth_error(max: usize, off: usize) -> Error {
    Error::limit(FORMAT, off as u64, format!("nesting deeper than {max}"))
}
