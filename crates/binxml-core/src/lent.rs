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
//! The events are stored in a form smaller than [`Event`] (a string is 16 octets, a reference
//! into the input or a range of the buffer; an attribute 72 octets against an `Event`'s 104)
//! and built as the consumer reads them ([`LentBatch::iter`]).

use crate::codec::{BATCH_EVENTS, EventSink};
use crate::{Event, QName, Result};
use std::borrow::Cow;

/// A string of a recorded event: borrowed from the input, or a range of the batch's buffer.
#[derive(Debug, Clone, Copy)]
enum Str<'a> {
    In(&'a str),
    Own(u32, u32),
}

/// One recorded event.
#[derive(Debug, Clone, Copy)]
enum Op<'a> {
    /// an element start: prefix, namespace name, local name
    Start(Str<'a>, Str<'a>, Str<'a>),
    /// an attribute: prefix, namespace name, local name, value
    Attr(Str<'a>, Str<'a>, Str<'a>, Str<'a>),
    /// a namespace declaration: prefix, namespace name
    Ns(Str<'a>, Str<'a>),
    /// character data (not a CDATA section)
    Text(Str<'a>),
    End,
    /// any other event: its number in `others`
    Other(u32),
}

/// A batch of events filled by [`Decoder::next_lent`](crate::Decoder::next_lent) and read
/// with [`LentBatch::iter`]; keep one and reuse it for every batch of a document (its buffers
/// then stop growing after the first batches). See the module's documentation.
#[derive(Debug)]
pub struct LentBatch<'a> {
    ops: Vec<Op<'a>>,
    text: String,
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
        LentBatch {
            ops: Vec::with_capacity(size.max(1)),
            text: String::new(),
            others: Vec::new(),
            limit: size.max(1),
        }
    }

    /// Empties the batch (keeping its buffers), as a fill does first.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.text.clear();
        self.others.clear();
    }

    /// How many events the batch holds.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch holds no event (after a fill: the document has ended).
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The events of the batch, in order, each built as it is read; their strings borrow from
    /// the input or from the batch.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Event<'_>> + '_ {
        self.ops.iter().map(move |op| self.event(op))
    }

    /// The `i`th event of the batch, if it has that many.
    pub fn get(&self, i: usize) -> Option<Event<'_>> {
        self.ops.get(i).map(|op| self.event(op))
    }

    #[inline(always)]
    fn event(&self, op: &Op<'a>) -> Event<'_> {
        match *op {
            Op::Start(p, n, l) => Event::StartElement(self.name(p, n, l)),
            Op::Attr(p, n, l, v) => Event::Attribute {
                name: self.name(p, n, l),
                value: Cow::Borrowed(self.s(v)),
            },
            Op::Ns(p, u) => Event::Namespace {
                prefix: Cow::Borrowed(self.s(p)),
                uri: Cow::Borrowed(self.s(u)),
            },
            Op::Text(t) => Event::Characters {
                text: Cow::Borrowed(self.s(t)),
                cdata: false,
            },
            Op::End => Event::EndElement,
            Op::Other(i) => self.others[i as usize].borrow(),
        }
    }

    #[inline(always)]
    fn name(&self, p: Str<'a>, n: Str<'a>, l: Str<'a>) -> QName<'_> {
        QName {
            prefix: Cow::Borrowed(self.s(p)),
            namespace: Cow::Borrowed(self.s(n)),
            local: Cow::Borrowed(self.s(l)),
        }
    }

    #[inline(always)]
    fn s(&self, s: Str<'a>) -> &str {
        match s {
            Str::In(s) => s,
            // ranges are cut at the ends of whole strings pushed onto `text`
            Str::Own(a, b) => &self.text[a as usize..b as usize],
        }
    }

    /// Copies `s` into the buffer; `None` past 4 GiB of text in one batch (the event is then
    /// kept whole, with [`LentBatch::other`]).
    #[inline(always)]
    fn keep(&mut self, s: &str) -> Option<Str<'a>> {
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

    #[inline(always)]
    fn put(&mut self, op: Op<'a>) {
        self.ops.push(op);
    }

    #[cold]
    #[inline(never)]
    fn other(&mut self, ev: Event<'a>) {
        self.others.push(ev);
        self.ops.push(Op::Other((self.others.len() - 1) as u32));
    }

    fn qname(&mut self, q: &QName<'a>) -> Option<(Str<'a>, Str<'a>, Str<'a>)> {
        Some((
            self.cow(&q.prefix)?,
            self.cow(&q.namespace)?,
            self.cow(&q.local)?,
        ))
    }

    fn qname_copied(&mut self, q: &QName<'_>) -> Option<(Str<'a>, Str<'a>, Str<'a>)> {
        Some((
            self.keep(&q.prefix)?,
            self.keep(&q.namespace)?,
            self.keep(&q.local)?,
        ))
    }
}

impl<'a> EventSink<'a> for LentBatch<'a> {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.other(event);
        Ok(())
    }

    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        match self.qname(&name) {
            Some((p, n, l)) => self.put(Op::Start(p, n, l)),
            None => self.other(Event::StartElement(name)),
        }
        Ok(())
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        match (self.cow(&prefix), self.cow(&uri)) {
            (Some(p), Some(u)) => self.put(Op::Ns(p, u)),
            _ => self.other(Event::Namespace { prefix, uri }),
        }
        Ok(())
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        match (self.qname(&name), self.cow(&value)) {
            (Some((p, n, l)), Some(v)) => self.put(Op::Attr(p, n, l, v)),
            _ => self.other(Event::Attribute { name, value }),
        }
        Ok(())
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        self.put(Op::End);
        Ok(())
    }

    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        match self.cow(&text) {
            Some(t) => self.put(Op::Text(t)),
            None => self.other(Event::Characters { text, cdata: false }),
        }
        Ok(())
    }

    /// Copies the strings into the batch's buffer: no allocation once it is large enough.
    #[inline]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        let op = match event {
            Event::StartElement(q) => self.qname_copied(q).map(|(p, n, l)| Op::Start(p, n, l)),
            Event::Attribute { name, value } => match (self.qname_copied(name), self.keep(value)) {
                (Some((p, n, l)), Some(v)) => Some(Op::Attr(p, n, l, v)),
                _ => None,
            },
            Event::Namespace { prefix, uri } => match (self.keep(prefix), self.keep(uri)) {
                (Some(p), Some(u)) => Some(Op::Ns(p, u)),
                _ => None,
            },
            Event::Characters { text, cdata: false } => self.keep(text).map(Op::Text),
            Event::EndElement => Some(Op::End),
            _ => None,
        };
        match op {
            Some(op) => self.put(op),
            None => self.other(event.borrow().into_owned()),
        }
        Ok(())
    }

    #[inline(always)]
    fn full(&self) -> bool {
        self.ops.len() >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_string_is_no_larger_than_a_str() {
        assert_eq!(std::mem::size_of::<Str<'_>>(), 16);
        assert!(std::mem::size_of::<Op<'_>>() < std::mem::size_of::<Event<'_>>());
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
        let mut t = LentBatch::new();
        for e in &events {
            t.transient(e).unwrap();
        }
        assert_eq!(t.iter().collect::<Vec<_>>(), events);
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
