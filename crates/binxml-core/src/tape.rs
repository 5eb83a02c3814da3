//! A compact recording of a document's events, replayed into any [`EventSink`].
//!
//! A `Vec<Event>` costs 104 octets an event (an [`Event`] is as large as its largest kind, an
//! attribute: three name strings and a value). Encoding from such a vector, a fast encoder
//! spends much of its time bringing the events in from memory rather than encoding them.
//! A [`Tape`] keeps each distinct qualified name once and refers to it by number, so an event
//! takes 24 octets: an element start is a name number, character data a borrowed `&str`.
//! Replaying it hands the encoder the same events through its push interface
//! ([`EventSink`]), built on the stack, which is also how events reach an encoder when a
//! decoder pushes into it ([`crate::Decoder::read_into`]) or an application writes a
//! document item by item. The Java harness records SAX events the same way (names interned,
//! character data copied) and replays them into the reference serializer's SAX interface.

use crate::{Event, EventSink, QName, Result};
use std::borrow::Cow;
use std::collections::HashMap;

/// One recorded event.
#[derive(Debug, Clone, Copy)]
enum Op<'a> {
    /// an element start: its name's number
    Start(u32),
    /// an attribute: its name's number and its value
    Attr(u32, &'a str),
    /// an attribute whose value the tape owns
    AttrOwned(u32, u32),
    /// character data (not a CDATA section)
    Text(&'a str),
    /// character data the tape owns
    TextOwned(u32),
    End,
    /// a namespace declaration: the numbers of its prefix and namespace name (in `strings`)
    Ns(u32, u32),
    /// any other event: its number in `others`
    Other(u32),
}

/// A document's events recorded compactly (see the module's documentation).
#[derive(Debug, Default, Clone)]
pub struct Tape<'a> {
    ops: Vec<Op<'a>>,
    names: Vec<QName<'a>>,
    strings: Vec<Cow<'a, str>>,
    owned: Vec<String>,
    others: Vec<Event<'a>>,
    /// attributes recorded
    attributes: usize,
    /// character data events recorded (not CDATA sections)
    texts: usize,
}

/// Numbers distinct values in order of first appearance.
struct Interner<K> {
    map: HashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Interner<K> {
    fn new() -> Self {
        Interner {
            map: HashMap::new(),
        }
    }
    /// The number of `k`, and whether it is new (then the caller stores it).
    fn id(&mut self, k: K) -> (u32, bool) {
        let n = self.map.len() as u32;
        match self.map.entry(k) {
            std::collections::hash_map::Entry::Occupied(e) => (*e.get(), false),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(n);
                (n, true)
            }
        }
    }
}

/// Builds a [`Tape`] event by event.
struct Builder<'a> {
    tape: Tape<'a>,
    names: Interner<QName<'a>>,
    strings: Interner<Cow<'a, str>>,
}

impl<'a> Builder<'a> {
    fn name(&mut self, q: &QName<'a>) -> u32 {
        let (id, new) = self.names.id(q.clone());
        if new {
            self.tape.names.push(q.clone());
        }
        id
    }

    // A clone of the Cow itself is stored: a borrowed string stays borrowed for 'a (not so a &str).
    #[allow(clippy::ptr_arg)]
    fn string(&mut self, s: &Cow<'a, str>) -> u32 {
        let (id, new) = self.strings.id(s.clone());
        if new {
            self.tape.strings.push(s.clone());
        }
        id
    }

    fn owned(&mut self, s: &str) -> u32 {
        self.tape.owned.push(s.to_owned());
        (self.tape.owned.len() - 1) as u32
    }

    fn push(&mut self, ev: &Event<'a>) {
        let op = match ev {
            Event::StartElement(q) => Op::Start(self.name(q)),
            Event::Attribute { name, value } => {
                self.tape.attributes += 1;
                let n = self.name(name);
                match value {
                    Cow::Borrowed(v) => Op::Attr(n, v),
                    Cow::Owned(v) => Op::AttrOwned(n, self.owned(v)),
                }
            }
            Event::Characters { text, cdata: false } => {
                self.tape.texts += 1;
                match text {
                    Cow::Borrowed(t) => Op::Text(t),
                    Cow::Owned(t) => Op::TextOwned(self.owned(t)),
                }
            }
            Event::EndElement => Op::End,
            Event::Namespace { prefix, uri } => Op::Ns(self.string(prefix), self.string(uri)),
            other => {
                self.tape.others.push(other.clone());
                Op::Other((self.tape.others.len() - 1) as u32)
            }
        };
        self.tape.ops.push(op);
    }
}

impl<'a> Tape<'a> {
    /// Records events (borrowed strings stay borrowed; owned ones are copied into the tape).
    pub fn from_events(events: &[Event<'a>]) -> Self {
        let mut b = Builder {
            tape: Tape::default(),
            names: Interner::new(),
            strings: Interner::new(),
        };
        b.tape.ops.reserve(events.len());
        for ev in events {
            b.push(ev);
        }
        b.tape
    }

    /// Records every event a decoder returns.
    pub fn record<D: crate::Decoder<'a> + ?Sized>(decoder: &mut D) -> Result<Self> {
        let mut b = Builder {
            tape: Tape::default(),
            names: Interner::new(),
            strings: Interner::new(),
        };
        while let Some(ev) = decoder.next_event()? {
            b.push(&ev);
        }
        Ok(b.tape)
    }

    /// Number of events recorded.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// The distinct qualified names of the recorded element starts and attributes, in order
    /// of first appearance (an encoder can size its name tables from them).
    pub fn names(&self) -> &[QName<'a>] {
        &self.names
    }

    /// How many distinct strings the recorded namespace declarations use (prefixes and
    /// namespace names together).
    pub fn namespace_strings(&self) -> usize {
        self.strings.len()
    }

    /// How many attributes were recorded.
    pub fn attributes(&self) -> usize {
        self.attributes
    }

    /// How many character data events (not CDATA sections) were recorded.
    pub fn texts(&self) -> usize {
        self.texts
    }

    /// True when no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Memory the recording holds, in octets (the event array and the name table; strings
    /// borrowed from the document not counted).
    pub fn footprint(&self) -> usize {
        self.ops.len() * std::mem::size_of::<Op<'_>>()
            + self.names.len() * std::mem::size_of::<QName<'_>>()
            + self.others.len() * std::mem::size_of::<Event<'_>>()
            + self.owned.iter().map(String::len).sum::<usize>()
    }

    /// Hands every recorded event to `sink`, in order, through its per-kind methods; stops at
    /// the first error.
    #[inline]
    pub fn replay<'s, S: EventSink<'s> + ?Sized>(&'s self, sink: &mut S) -> Result<()> {
        use Cow::Borrowed as B;
        let name = |n: u32| {
            let q = &self.names[n as usize];
            QName {
                prefix: B(&*q.prefix),
                namespace: B(&*q.namespace),
                local: B(&*q.local),
            }
        };
        for op in &self.ops {
            match *op {
                Op::Start(n) => sink.start_element(name(n))?,
                Op::Attr(n, v) => sink.attribute(name(n), B(v))?,
                Op::AttrOwned(n, v) => sink.attribute(name(n), B(&self.owned[v as usize]))?,
                Op::Text(t) => sink.text(B(t))?,
                Op::TextOwned(t) => sink.text(B(&self.owned[t as usize]))?,
                Op::End => sink.end_element()?,
                Op::Ns(p, u) => {
                    sink.namespace(B(&*self.strings[p as usize]), B(&*self.strings[u as usize]))?
                }
                Op::Other(i) => sink.event(self.others[i as usize].borrow())?,
            }
        }
        Ok(())
    }

    /// The recorded events again, as [`Event`]s borrowing from the tape.
    pub fn events(&self) -> Vec<Event<'_>> {
        struct Collect<'s>(Vec<Event<'s>>);
        impl<'s> EventSink<'s> for Collect<'s> {
            fn event(&mut self, event: Event<'s>) -> Result<()> {
                self.0.push(event);
                Ok(())
            }
        }
        let mut c = Collect(Vec::with_capacity(self.len()));
        self.replay(&mut c).expect("collecting cannot fail");
        c.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_24_octets() {
        assert!(std::mem::size_of::<Op<'_>>() <= 24);
    }

    #[test]
    fn replay_gives_the_recorded_events() {
        let owned_text = String::from("a < b");
        let evs = vec![
            Event::StartDocument {
                version: Some(B("1.0")),
                encoding: None,
                standalone: None,
            },
            Event::Comment(B("c")),
            Event::StartElement(QName::new("p", "urn:x", "root")),
            Event::Namespace {
                prefix: B("p"),
                uri: B("urn:x"),
            },
            Event::Attribute {
                name: QName::local("id"),
                value: B("1"),
            },
            Event::Attribute {
                name: QName::local("v"),
                value: Cow::Owned("x&y".into()),
            },
            Event::Characters {
                text: B("text"),
                cdata: false,
            },
            Event::Characters {
                text: Cow::Owned(owned_text.clone()),
                cdata: false,
            },
            Event::Characters {
                text: B("cdata"),
                cdata: true,
            },
            Event::StartElement(QName::new("p", "urn:x", "root")),
            Event::EndElement,
            Event::StartElement(QName::local("root")),
            Event::EndElement,
            Event::EndElement,
            Event::EndDocument,
        ];
        use Cow::Borrowed as B;
        let tape = Tape::from_events(&evs);
        assert_eq!(tape.len(), evs.len());
        assert_eq!(
            tape.names.len(),
            4,
            "p:root, id, v and root: each name once"
        );
        assert_eq!(tape.events(), evs);
    }
}
