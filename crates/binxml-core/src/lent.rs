//! A batch of pulled events whose strings borrow from the input or from the batch itself
//! ([`Decoder::next_lent`](crate::Decoder::next_lent)).
//!
//! Batched pull into a `Vec<Event<'a>>` ([`Decoder::next_batch`](crate::Decoder::next_batch))
//! must own every string a decoder does not find in its input: EXI's strings live in its string
//! table, so each event of a batch allocated its strings and the consumer freed them again (the
//! allocator led EXI's pull profile). A [`LentBatch`] keeps such strings in one text buffer of
//! its own, reused from batch to batch, and the events it hands out borrow from it: a copy into
//! a buffer that is already large enough instead of an allocation and a free per string. Strings
//! of the input stay borrowed from the input.
//!
//! The events are stored as their kinds (an octet each) and their strings (16 octets each, a
//! reference into the input or a range of the buffer; an element's end has none, an attribute
//! four), and read back as [`LentEvent`]s ([`LentBatch::views`]): `Copy`, the same shape for
//! every kind, a string resolved when asked for. A consumer of `Event`s pays for the drop of
//! each one, a jump on its variant that the processor mispredicts on a mixed stream of events;
//! a consumer of views drops nothing. [`LentBatch::iter`] builds `Event`s from the views.

use crate::codec::{BATCH_EVENTS, EventSink};
use crate::{Event, QName, Result};
use std::borrow::Cow;

/// A string of a recorded event: borrowed from the input, or a range of the batch's buffer.
#[derive(Debug, Clone, Copy)]
enum Str<'a> {
    In(&'a str),
    Own(u32, u32),
}

/// What a [`LentEvent`] is: the kinds of event a push loop hands over as parts, and the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LentKind {
    /// `Event::StartElement`: [`LentEvent::prefix`], [`LentEvent::namespace`],
    /// [`LentEvent::local`].
    StartElement,
    /// `Event::Namespace`: [`LentEvent::prefix`] and [`LentEvent::uri`].
    Namespace,
    /// `Event::Attribute`: the name's three parts and [`LentEvent::value`].
    Attribute,
    /// `Event::Characters` not from a CDATA section: [`LentEvent::text`].
    Characters,
    /// `Event::EndElement`.
    EndElement,
    /// Any other event, kept whole: [`LentEvent::other`].
    Other,
}

impl LentKind {
    /// How many strings an event of this kind records, in this order: prefix, namespace name
    /// (a declaration's URI), local name, value (for character data, the text alone).
    #[inline(always)]
    const fn strings(self) -> usize {
        match self {
            LentKind::StartElement => 3,
            LentKind::Namespace => 2,
            LentKind::Attribute => 4,
            LentKind::Characters => 1,
            LentKind::EndElement | LentKind::Other => 0,
        }
    }
}

/// An event read from a [`LentBatch`] ([`LentBatch::views`]): its kind and its strings, borrowed
/// from the input or the batch. `Copy`, nothing to drop, the same small size for every kind; a
/// string is found when it is asked for (a slice of the input as it is, or of the batch's
/// buffer), `""` for one the kind does not have. [`LentEvent::to_event`] builds the [`Event`].
#[derive(Debug, Clone, Copy)]
pub struct LentEvent<'b> {
    kind: LentKind,
    /// the event's strings (`kind.strings()` of them)
    s: &'b [Str<'b>],
    /// the batch's buffer, which `Str::Own` ranges index
    text: &'b str,
    other: Option<&'b Event<'b>>,
}

impl<'b> LentEvent<'b> {
    /// What the event is.
    #[inline(always)]
    pub fn kind(&self) -> LentKind {
        self.kind
    }

    #[inline(always)]
    fn at(&self, i: usize) -> &'b str {
        self.s.get(i).map_or("", |x| resolve(x, self.text))
    }

    /// The prefix of an element's or attribute's name, or of a namespace declaration.
    #[inline(always)]
    pub fn prefix(&self) -> &'b str {
        if self.kind == LentKind::Characters {
            ""
        } else {
            self.at(0)
        }
    }
    /// The namespace name of an element or attribute.
    #[inline(always)]
    pub fn namespace(&self) -> &'b str {
        self.at(1)
    }
    /// The URI of a namespace declaration (the same string as [`LentEvent::namespace`]).
    #[inline(always)]
    pub fn uri(&self) -> &'b str {
        self.at(1)
    }
    /// The local name of an element or attribute.
    #[inline(always)]
    pub fn local(&self) -> &'b str {
        self.at(2)
    }
    /// An attribute's value.
    #[inline(always)]
    pub fn value(&self) -> &'b str {
        self.at(3)
    }
    /// Character data.
    #[inline(always)]
    pub fn text(&self) -> &'b str {
        if self.kind == LentKind::Characters {
            self.at(0)
        } else {
            ""
        }
    }
    /// An element's or attribute's name, borrowed.
    pub fn name(&self) -> QName<'b> {
        QName {
            prefix: Cow::Borrowed(self.prefix()),
            namespace: Cow::Borrowed(self.namespace()),
            local: Cow::Borrowed(self.local()),
        }
    }
    /// The event of kind [`LentKind::Other`] (a comment, a CDATA section, a typed value, the
    /// document's start and end, ...); `None` for the other kinds.
    #[inline(always)]
    pub fn other(&self) -> Option<&'b Event<'b>> {
        self.other
    }
    /// The event as an [`Event`], its strings borrowed.
    pub fn to_event(&self) -> Event<'b> {
        let s = |x: &Str<'b>| Cow::Borrowed(resolve(x, self.text));
        // each kind has its number of strings (`LentKind::strings`)
        match (self.kind, self.s) {
            (LentKind::StartElement, [p, n, l]) => Event::StartElement(QName {
                prefix: s(p),
                namespace: s(n),
                local: s(l),
            }),
            (LentKind::Namespace, [p, u]) => Event::Namespace {
                prefix: s(p),
                uri: s(u),
            },
            (LentKind::Attribute, [p, n, l, v]) => Event::Attribute {
                name: QName {
                    prefix: s(p),
                    namespace: s(n),
                    local: s(l),
                },
                value: s(v),
            },
            (LentKind::Characters, [t]) => Event::Characters {
                text: s(t),
                cdata: false,
            },
            (LentKind::EndElement, _) => Event::EndElement,
            // every `Other` is recorded with its event
            _ => self.other.map(Event::borrow).unwrap_or(Event::EndDocument),
        }
    }
}

/// A recorded string: a slice of the input as it is, or a range of the batch's buffer `text`.
#[inline(always)]
fn resolve<'b>(s: &Str<'b>, text: &'b str) -> &'b str {
    match *s {
        Str::In(s) => s,
        // ranges are cut at the ends of whole strings pushed onto the buffer
        Str::Own(a, b) => text.get(a as usize..b as usize).unwrap_or(""),
    }
}

/// The events of a [`LentBatch`] as [`LentEvent`]s ([`LentBatch::views`]).
#[derive(Debug, Clone)]
pub struct Views<'b, 'a> {
    kinds: std::slice::Iter<'b, LentKind>,
    /// the strings of the events not yet read
    strs: &'b [Str<'a>],
    others: std::slice::Iter<'b, Event<'a>>,
    text: &'b str,
}

impl<'b, 'a> Iterator for Views<'b, 'a> {
    type Item = LentEvent<'b>;

    #[inline(always)]
    fn next(&mut self) -> Option<LentEvent<'b>> {
        let kind = *self.kinds.next()?;
        let (s, rest) = self
            .strs
            .split_at_checked(kind.strings())
            .unwrap_or((&[], &[]));
        self.strs = rest;
        let other = if kind == LentKind::Other {
            self.others.next()
        } else {
            None
        };
        Some(LentEvent {
            kind,
            s,
            text: self.text,
            other,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.kinds.size_hint()
    }
}

impl ExactSizeIterator for Views<'_, '_> {}

/// A batch of events filled by [`Decoder::next_lent`](crate::Decoder::next_lent) and read
/// with [`LentBatch::views`] (or [`LentBatch::iter`], as `Event`s); keep one and reuse it for
/// every batch of a document (its buffers then stop growing after the first batches). See the
/// module's documentation.
#[derive(Debug)]
pub struct LentBatch<'a> {
    /// each event's kind
    kinds: Vec<LentKind>,
    /// the events' strings, in order, each event's `kind.strings()` of them
    strs: Vec<Str<'a>>,
    /// the strings copied into the batch
    text: String,
    /// the events of kind `Other`, in order
    others: Vec<Event<'a>>,
    limit: usize,
}

impl Default for LentBatch<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> LentBatch<'a> {
    /// An empty batch that takes about [`BATCH_EVENTS`] events per fill.
    pub fn new() -> Self {
        Self::with_size(BATCH_EVENTS)
    }

    /// An empty batch that a push loop fills with about `size` events (at least one) per call
    /// (an element's attributes may take it past that).
    pub fn with_size(size: usize) -> Self {
        let size = size.max(1);
        LentBatch {
            kinds: Vec::with_capacity(size),
            strs: Vec::with_capacity(4 * size),
            text: String::new(),
            others: Vec::new(),
            limit: size,
        }
    }

    /// Empties the batch (keeping its buffers), as a fill does first.
    pub fn clear(&mut self) {
        self.kinds.clear();
        self.strs.clear();
        self.text.clear();
        if !self.others.is_empty() {
            self.others.clear();
        }
    }

    /// How many events the batch holds.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether the batch holds no event (after a fill: the document has ended).
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The events of the batch, in order, as [`LentEvent`]s: the cheapest way to read them
    /// (nothing is built, copied or dropped per event).
    #[inline]
    pub fn views(&self) -> Views<'_, 'a> {
        Views {
            kinds: self.kinds.iter(),
            strs: &self.strs,
            others: self.others.iter(),
            text: &self.text,
        }
    }

    /// The events of the batch, in order, each built as an [`Event`] as it is read; their
    /// strings borrow from the input or from the batch.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Event<'_>> + '_ {
        self.views().map(|v| v.to_event())
    }

    /// The `i`th event of the batch, if it has that many (found from the first: for reading
    /// the batch in order, [`LentBatch::views`]).
    pub fn get(&self, i: usize) -> Option<Event<'_>> {
        self.views().nth(i).map(|v| v.to_event())
    }

    /// Copies `s` into the buffer; `None` past 4 GiB of text in one batch (the event is then
    /// kept whole, with [`LentBatch::other`]).
    #[inline(always)]
    fn keep(&mut self, s: &str) -> Option<Str<'a>> {
        // Most prefixes and many namespaces are empty: nothing to copy, no range to record.
        if s.is_empty() {
            return Some(Str::In(""));
        }
        let start = self.text.len();
        let end = start + s.len();
        if end > u32::MAX as usize {
            return None;
        }
        self.text.push_str(s);
        Some(Str::Own(start as u32, end as u32))
    }

    #[inline(always)]
    fn cow(&mut self, s: &Cow<'a, str>) -> Option<Str<'a>> {
        match s {
            Cow::Borrowed(b) => Some(Str::In(b)),
            Cow::Owned(o) => self.keep(o),
        }
    }

    /// Records an event: its kind, then its strings. Within the capacity reserved (a branch
    /// the compiler can prove never grows the vector) the kind is written straight into its
    /// slot; past it, a cold out-of-line push (an element's attributes may take a batch beyond
    /// its size). The strings are appended together, with one length update.
    #[inline(always)]
    fn put<const N: usize>(&mut self, kind: LentKind, s: [Str<'a>; N]) {
        if self.kinds.len() < self.kinds.capacity() {
            self.kinds.push(kind);
        } else {
            push_growing(&mut self.kinds, kind);
        }
        self.strs.extend(s);
    }

    #[cold]
    #[inline(never)]
    fn other(&mut self, ev: Event<'a>) {
        self.others.push(ev);
        self.kinds.push(LentKind::Other);
    }

    #[inline(always)]
    fn qname(&mut self, q: &QName<'a>) -> Option<[Str<'a>; 3]> {
        Some([
            self.cow(&q.prefix)?,
            self.cow(&q.namespace)?,
            self.cow(&q.local)?,
        ])
    }

    fn qname_copied(&mut self, q: &QName<'_>) -> Option<[Str<'a>; 3]> {
        Some([
            self.keep(&q.prefix)?,
            self.keep(&q.namespace)?,
            self.keep(&q.local)?,
        ])
    }
}

/// [`LentBatch::put`] past the reserved capacity.
#[cold]
#[inline(never)]
fn push_growing<T>(v: &mut Vec<T>, x: T) {
    v.push(x);
}

impl<'a> EventSink<'a> for LentBatch<'a> {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.other(event);
        Ok(())
    }

    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        match self.qname(&name) {
            Some(q) => self.put(LentKind::StartElement, q),
            None => self.other(Event::StartElement(name)),
        }
        Ok(())
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        match (self.cow(&prefix), self.cow(&uri)) {
            (Some(p), Some(u)) => self.put(LentKind::Namespace, [p, u]),
            _ => self.other(Event::Namespace { prefix, uri }),
        }
        Ok(())
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        match (self.qname(&name), self.cow(&value)) {
            (Some([p, n, l]), Some(v)) => self.put(LentKind::Attribute, [p, n, l, v]),
            _ => self.other(Event::Attribute { name, value }),
        }
        Ok(())
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        self.put(LentKind::EndElement, []);
        Ok(())
    }

    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        match self.cow(&text) {
            Some(t) => self.put(LentKind::Characters, [t]),
            None => self.other(Event::Characters { text, cdata: false }),
        }
        Ok(())
    }

    /// Copies the strings into the batch's buffer: no allocation once it is large enough.
    #[inline]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        let recorded = match event {
            Event::StartElement(q) => self
                .qname_copied(q)
                .map(|q| self.put(LentKind::StartElement, q))
                .is_some(),
            Event::Attribute { name, value } => match (self.qname_copied(name), self.keep(value)) {
                (Some([p, n, l]), Some(v)) => {
                    self.put(LentKind::Attribute, [p, n, l, v]);
                    true
                }
                _ => false,
            },
            Event::Namespace { prefix, uri } => match (self.keep(prefix), self.keep(uri)) {
                (Some(p), Some(u)) => {
                    self.put(LentKind::Namespace, [p, u]);
                    true
                }
                _ => false,
            },
            Event::Characters { text, cdata: false } => self
                .keep(text)
                .map(|t| self.put(LentKind::Characters, [t]))
                .is_some(),
            Event::EndElement => {
                self.put(LentKind::EndElement, []);
                true
            }
            _ => false,
        };
        if !recorded {
            self.other(event.borrow().into_owned());
        }
        Ok(())
    }

    #[inline(always)]
    fn full(&self) -> bool {
        self.kinds.len() >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_string_is_no_larger_than_a_str() {
        assert_eq!(std::mem::size_of::<Str<'_>>(), 16);
        assert!(std::mem::size_of::<LentEvent<'_>>() <= 48);
    }

    #[test]
    fn events_come_back_as_they_went_in() {
        let owned = String::from("owned text");
        let events = vec![
            Event::start_document(),
            Event::StartElement(QName::new("p", "urn:x", "e")),
            Event::Namespace {
                prefix: "p".into(),
                uri: Cow::Owned("urn:x".into()),
            },
            Event::Attribute {
                name: QName::new("", "", "a"),
                value: Cow::Owned("v".into()),
            },
            Event::text(owned.clone()),
            Event::Characters {
                text: "cd".into(),
                cdata: true,
            },
            Event::Comment("c".into()),
            Event::EndElement,
            Event::EndDocument,
        ];
        let mut b = LentBatch::new();
        for e in &events {
            b.dispatch(e.clone()).unwrap();
        }
        assert_eq!(b.iter().collect::<Vec<_>>(), events);
        let kinds: Vec<LentKind> = b.views().map(|v| v.kind()).collect();
        use LentKind::*;
        assert_eq!(
            kinds,
            [
                Other,
                StartElement,
                Namespace,
                Attribute,
                Characters,
                Other,
                Other,
                EndElement,
                Other
            ]
        );
        let v: Vec<LentEvent<'_>> = b.views().collect();
        assert_eq!(
            (v[1].prefix(), v[1].namespace(), v[1].local()),
            ("p", "urn:x", "e")
        );
        assert_eq!((v[2].prefix(), v[2].uri()), ("p", "urn:x"));
        assert_eq!((v[3].local(), v[3].value()), ("a", "v"));
        assert_eq!(v[4].text(), "owned text");
        assert_eq!(v[6].other(), Some(&Event::Comment("c".into())));
        assert_eq!((v[7].local(), v[7].text(), v[4].prefix()), ("", "", ""));
        assert_eq!(b.get(3), Some(events[3].clone()));
        let mut t = LentBatch::new();
        for e in &events {
            t.transient(e).unwrap();
        }
        assert_eq!(t.iter().collect::<Vec<_>>(), events);
        assert_eq!(t.views().map(|v| v.to_event()).collect::<Vec<_>>(), events);
        assert_eq!(t.get(4), Some(Event::text("owned text")));
        t.clear();
        assert!(t.is_empty());
    }

    #[test]
    fn full_after_its_size() {
        let mut b = LentBatch::with_size(2);
        b.end_element().unwrap();
        assert!(!b.full());
        b.end_element().unwrap();
        assert!(b.full());
        assert_eq!(b.len(), 2);
    }
}
