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
//! Each event is stored as one record of the same shape for every kind: its kind and four
//! strings (16 octets each, a reference into the input or a range of the buffer; the ones the
//! kind does not have are empty), written with one capacity test and read back without a
//! length or an offset to compute. They are read as [`LentEvent`]s ([`LentBatch::views`]):
//! `Copy`, a reference to the record and to the batch, a string resolved when asked. A consumer
//! of `Event`s pays for the drop of each one, a jump on its variant that the processor
//! mispredicts on a mixed stream of events; a consumer of views drops nothing.
//! [`LentBatch::iter`] builds `Event`s from the views.
//!
//! Names a decoder hands over as plain slices ([`EventSink::start_element_in`]) are recorded
//! as they are. Transient names with their number in the decoder's name table
//! ([`EventSink::transient_element`]) are copied once per fill: later uses of the same number
//! point at the first copy.

use crate::codec::{BATCH_EVENTS, EventSink, NameRef, NameTable};
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

/// One recorded event: its kind and its strings, in this order: prefix (a declaration's
/// too), namespace name (a declaration's URI), local name, value (an attribute's value, or
/// character data). A string the kind does not have is empty; an event of kind
/// [`LentKind::Other`] keeps the index of its event in `LentBatch::others` in its first string.
#[derive(Debug, Clone, Copy)]
struct Rec<'a> {
    kind: LentKind,
    s: [Str<'a>; 4],
}

/// The empty string (of every kind of event, the strings it does not have): all zero bits, so
/// that storing it is storing zeros.
const NONE: Str<'static> = Str::Own(0, 0);

/// An event read from a [`LentBatch`] ([`LentBatch::views`]): its record (kind and strings,
/// borrowed from the input or the batch) and the batch. `Copy`, nothing to drop, two
/// references for every kind; a string is found when it is asked for (a slice of the input as
/// it is, or of the batch's buffer), `""` for one the kind does not have.
/// [`LentEvent::to_event`] builds the [`Event`].
#[derive(Debug, Clone, Copy)]
pub struct LentEvent<'b> {
    rec: &'b Rec<'b>,
    batch: &'b LentBatch<'b>,
}

impl<'b> LentEvent<'b> {
    /// What the event is.
    #[inline(always)]
    pub fn kind(&self) -> LentKind {
        self.rec.kind
    }

    #[inline(always)]
    fn at(&self, i: usize) -> &'b str {
        resolve(&self.rec.s[i], &self.batch.text)
    }

    /// The prefix of an element's or attribute's name, or of a namespace declaration.
    #[inline(always)]
    pub fn prefix(&self) -> &'b str {
        self.at(0)
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
        if self.rec.kind == LentKind::Attribute {
            self.at(3)
        } else {
            ""
        }
    }
    /// Character data.
    #[inline(always)]
    pub fn text(&self) -> &'b str {
        if self.rec.kind == LentKind::Characters {
            self.at(3)
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
        match (self.rec.kind, self.rec.s[0]) {
            (LentKind::Other, Str::Own(i, _)) => self.batch.others.get(i as usize),
            _ => None,
        }
    }
    /// The event as an [`Event`], its strings borrowed.
    pub fn to_event(&self) -> Event<'b> {
        let s = |i: usize| Cow::Borrowed(self.at(i));
        match self.rec.kind {
            LentKind::StartElement => Event::StartElement(self.name()),
            LentKind::Namespace => Event::Namespace {
                prefix: s(0),
                uri: s(1),
            },
            LentKind::Attribute => Event::Attribute {
                name: self.name(),
                value: s(3),
            },
            LentKind::Characters => Event::Characters {
                text: s(3),
                cdata: false,
            },
            LentKind::EndElement => Event::EndElement,
            // every `Other` is recorded with its event
            LentKind::Other => self
                .other()
                .map(Event::borrow)
                .unwrap_or(Event::EndDocument),
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
pub struct Views<'b> {
    recs: std::slice::Iter<'b, Rec<'b>>,
    batch: &'b LentBatch<'b>,
}

impl<'b> Iterator for Views<'b> {
    type Item = LentEvent<'b>;

    #[inline(always)]
    fn next(&mut self) -> Option<LentEvent<'b>> {
        let rec = self.recs.next()?;
        Some(LentEvent {
            rec,
            batch: self.batch,
        })
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<LentEvent<'b>> {
        let rec = self.recs.nth(n)?;
        Some(LentEvent {
            rec,
            batch: self.batch,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.recs.size_hint()
    }
}

impl ExactSizeIterator for Views<'_> {}

/// A batch of events filled by [`Decoder::next_lent`](crate::Decoder::next_lent) and read
/// with [`LentBatch::views`] (or [`LentBatch::iter`], as `Event`s); keep one and reuse it for
/// every batch of a document (its buffers then stop growing after the first batches). See the
/// module's documentation.
#[derive(Debug)]
pub struct LentBatch<'a> {
    /// the events, in order: the first `n` of these records (the others are slots that earlier
    /// fills wrote, rewritten before they are read)
    recs: Vec<Rec<'a>>,
    n: usize,
    /// the strings copied into the batch
    text: String,
    /// the events of kind `Other`, in order
    others: Vec<Event<'a>>,
    limit: usize,
    /// the table of names whose copies `names` holds
    table: Option<NameTable>,
    /// this fill's number: an entry of `names` made in an earlier fill is stale
    fill: u32,
    /// by a name's number in `table`: the fill that copied it, its namespace name and local name
    names: Vec<(u32, Str<'a>, Str<'a>)>,
}

/// The names of a decoder's table a batch keeps copies of, by number: numbers past it are copied
/// at each use (the cache's size stays a fixed bound whatever the decoder hands over).
const NAMES_KEPT: usize = 1 << 14;

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
            recs: vec![
                Rec {
                    kind: LentKind::EndElement,
                    s: [NONE; 4],
                };
                size
            ],
            n: 0,
            text: String::new(),
            others: Vec::new(),
            limit: size,
            table: None,
            fill: 1,
            names: Vec::new(),
        }
    }

    /// Empties the batch (keeping its buffers), as a fill does first.
    pub fn clear(&mut self) {
        self.n = 0;
        self.text.clear();
        if !self.others.is_empty() {
            self.others.clear();
        }
        self.forget_names();
    }

    /// Makes every copied name stale (they point into the buffer just emptied).
    #[inline]
    fn forget_names(&mut self) {
        self.fill = self.fill.wrapping_add(1);
        if self.fill == 0 {
            // the fill numbers start again: no entry may look current
            self.names.clear();
            self.fill = 1;
        }
    }

    /// The namespace name and local name of name `name` of a decoder's table: the copies made
    /// for an earlier use of it in this fill, or new ones.
    #[inline(always)]
    fn name(&mut self, namespace: &str, local: &str, name: NameRef) -> Option<(Str<'a>, Str<'a>)> {
        if self.table != Some(name.table) {
            self.table = Some(name.table);
            self.forget_names();
        }
        let i = name.id as usize;
        if let Some(&(fill, n, l)) = self.names.get(i)
            && fill == self.fill
        {
            return Some((n, l));
        }
        let n = self.keep(namespace)?;
        let l = self.keep(local)?;
        if i < NAMES_KEPT {
            if self.names.len() <= i {
                self.names.resize(i + 1, (0, NONE, NONE));
            }
            self.names[i] = (self.fill, n, l);
        }
        Some((n, l))
    }

    /// How many events the batch holds.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the batch holds no event (after a fill: the document has ended).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The events of the batch, in order, as [`LentEvent`]s: the cheapest way to read them
    /// (nothing is built, copied or dropped per event).
    #[inline]
    pub fn views(&self) -> Views<'_> {
        Views {
            recs: self.recs.get(..self.n).unwrap_or(&[]).iter(),
            batch: self,
        }
    }

    /// The events of the batch, in order, each built as an [`Event`] as it is read; their
    /// strings borrow from the input or from the batch.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Event<'_>> + '_ {
        self.views().map(|v| v.to_event())
    }

    /// The `i`th event of the batch, if it has that many.
    pub fn get(&self, i: usize) -> Option<Event<'_>> {
        self.views().nth(i).map(|v| v.to_event())
    }

    /// Copies `s` into the buffer; `None` past 4 GiB of text in one batch (the event is then
    /// kept whole, with [`LentBatch::other`]).
    #[inline(always)]
    fn keep(&mut self, s: &str) -> Option<Str<'a>> {
        // Most prefixes and many namespaces are empty: nothing to copy, no range to record.
        if s.is_empty() {
            return Some(NONE);
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

    /// Records an event. In a slot written before (every slot but those past the largest fill
    /// so far) the kind and the strings are stored field by field, straight into the slot: a
    /// record built and then pushed was built on the stack and copied. Past them, a cold
    /// out-of-line push (an element's attributes may take a batch beyond its size).
    #[inline(always)]
    fn put(&mut self, kind: LentKind, [a, b, c, d]: [Str<'a>; 4]) {
        match self.recs.get_mut(self.n) {
            Some(r) => {
                r.kind = kind;
                r.s[0] = a;
                r.s[1] = b;
                r.s[2] = c;
                r.s[3] = d;
            }
            None => push_growing(
                &mut self.recs,
                Rec {
                    kind,
                    s: [a, b, c, d],
                },
            ),
        }
        self.n += 1;
    }

    #[cold]
    #[inline(never)]
    fn other(&mut self, ev: Event<'a>) {
        // fewer events than records, so the index fits where the records' count does
        let i = self.others.len() as u32;
        self.others.push(ev);
        self.put(LentKind::Other, [Str::Own(i, i), NONE, NONE, NONE]);
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
            Some([p, n, l]) => self.put(LentKind::StartElement, [p, n, l, NONE]),
            None => self.other(Event::StartElement(name)),
        }
        Ok(())
    }

    /// The slices recorded as they are.
    #[inline(always)]
    fn start_element_in(
        &mut self,
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
    ) -> Result<()> {
        self.put(
            LentKind::StartElement,
            [Str::In(prefix), Str::In(namespace), Str::In(local), NONE],
        );
        Ok(())
    }

    /// The name's slices recorded as they are.
    #[inline(always)]
    fn attribute_in(
        &mut self,
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
        value: Cow<'a, str>,
    ) -> Result<()> {
        match self.cow(&value) {
            Some(v) => self.put(
                LentKind::Attribute,
                [Str::In(prefix), Str::In(namespace), Str::In(local), v],
            ),
            None => self.other(Event::Attribute {
                name: QName::new(prefix, namespace, local),
                value,
            }),
        }
        Ok(())
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        match (self.cow(&prefix), self.cow(&uri)) {
            (Some(p), Some(u)) => self.put(LentKind::Namespace, [p, u, NONE, NONE]),
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
        self.put(LentKind::EndElement, [NONE; 4]);
        Ok(())
    }

    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        match self.cow(&text) {
            Some(t) => self.put(LentKind::Characters, [NONE, NONE, NONE, t]),
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
                .map(|[p, n, l]| self.put(LentKind::StartElement, [p, n, l, NONE]))
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
                    self.put(LentKind::Namespace, [p, u, NONE, NONE]);
                    true
                }
                _ => false,
            },
            Event::Characters { text, cdata: false } => self
                .keep(text)
                .map(|t| self.put(LentKind::Characters, [NONE, NONE, NONE, t]))
                .is_some(),
            Event::EndElement => {
                self.put(LentKind::EndElement, [NONE; 4]);
                true
            }
            _ => false,
        };
        if !recorded {
            self.other(event.borrow().into_owned());
        }
        Ok(())
    }

    /// The names copied once per fill ([`LentBatch::name`]), the prefix copied.
    #[inline]
    fn transient_element(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
    ) -> Result<()> {
        match (self.keep(prefix), self.name(namespace, local, name)) {
            (Some(p), Some((n, l))) => self.put(LentKind::StartElement, [p, n, l, NONE]),
            _ => self.other(Event::StartElement(
                QName::new(prefix, namespace, local).into_owned(),
            )),
        }
        Ok(())
    }

    /// The text copied into the buffer.
    #[inline]
    fn transient_text(&mut self, text: &str) -> Result<()> {
        match self.keep(text) {
            Some(t) => self.put(LentKind::Characters, [NONE, NONE, NONE, t]),
            None => self.other(Event::text(text.to_owned())),
        }
        Ok(())
    }

    /// The name copied once per fill ([`LentBatch::name`]), the prefix and the value copied.
    #[inline]
    fn transient_attribute(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
        value: &str,
    ) -> Result<()> {
        match (
            self.keep(prefix),
            self.name(namespace, local, name),
            self.keep(value),
        ) {
            (Some(p), Some((n, l)), Some(v)) => self.put(LentKind::Attribute, [p, n, l, v]),
            _ => self.other(Event::Attribute {
                name: QName::new(prefix, namespace, local).into_owned(),
                value: Cow::Owned(value.to_owned()),
            }),
        }
        Ok(())
    }

    #[inline(always)]
    fn full(&self) -> bool {
        self.n >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_string_is_no_larger_than_a_str() {
        assert_eq!(std::mem::size_of::<Str<'_>>(), 16);
        assert_eq!(std::mem::size_of::<LentEvent<'_>>(), 16);
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
    fn a_name_of_a_table_is_copied_once_per_fill() {
        let (t, u) = (NameTable::new(), NameTable::new());
        let r = |table, id| NameRef { table, id };
        let mut b = LentBatch::new();
        b.transient_element("p", "urn:a", "e", r(t, 3)).unwrap();
        b.transient_attribute("", "urn:a", "e", r(t, 3), "v")
            .unwrap();
        b.transient_element("", "urn:a", "e", r(t, 3)).unwrap();
        b.transient_text("").unwrap();
        b.end_element().unwrap();
        // the text holds "p", "urn:a", "e", "v": the later uses point at the first copy
        assert_eq!(b.text, "purn:aev");
        // another table's name 3 is another name
        b.transient_element("", "urn:b", "f", r(u, 3)).unwrap();
        b.transient_attribute("q", "", "g", r(u, NAMES_KEPT as u32 + 5), "w")
            .unwrap();
        let got: Vec<Event<'_>> = b.iter().collect();
        assert_eq!(
            got,
            [
                Event::StartElement(QName::new("p", "urn:a", "e")),
                Event::Attribute {
                    name: QName::new("", "urn:a", "e"),
                    value: "v".into()
                },
                Event::StartElement(QName::new("", "urn:a", "e")),
                Event::text(""),
                Event::EndElement,
                Event::StartElement(QName::new("", "urn:b", "f")),
                Event::Attribute {
                    name: QName::new("q", "", "g"),
                    value: "w".into()
                },
            ]
        );
        assert!(b.names.len() <= NAMES_KEPT);
        // a new fill copies the name again (the buffer was emptied)
        b.clear();
        b.transient_element("", "urn:b", "f", r(u, 3)).unwrap();
        assert_eq!(b.text, "urn:bf");
        assert_eq!(
            b.get(0),
            Some(Event::StartElement(QName::new("", "urn:b", "f")))
        );
    }

    #[test]
    fn slices_are_recorded_as_they_are() {
        let mut b = LentBatch::new();
        b.start_element_in("p", "urn:x", "e").unwrap();
        b.attribute_in("", "", "a", Cow::Owned("v".into())).unwrap();
        b.attribute_in("q", "urn:q", "b", "w".into()).unwrap();
        assert_eq!(b.text, "v");
        assert_eq!(
            b.iter().collect::<Vec<_>>(),
            [
                Event::StartElement(QName::new("p", "urn:x", "e")),
                Event::Attribute {
                    name: QName::new("", "", "a"),
                    value: "v".into()
                },
                Event::Attribute {
                    name: QName::new("q", "urn:q", "b"),
                    value: "w".into()
                },
            ]
        );
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
