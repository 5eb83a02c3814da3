//! The codec traits: a pull [`Decoder`] (bytes -> events) and an [`Encoder`] (events -> bytes).

use crate::Format;
use crate::error::{Error, Result};
use crate::event::{Event, QName};
use crate::lent::LentBatch;
use std::borrow::Cow;

/// How many events [`Decoder::next_batch`] appends per call, about: enough that the call and
/// the decoder's re-entry cost nothing beside the events, few enough (a few pages of events)
/// that a batch stays in the cache while the consumer reads it.
pub const BATCH_EVENTS: usize = 128;

/// A pull decoder: each call returns the next event of the document, `None` after
/// `EndDocument`; or, in batches, the next events appended to a vector the caller keeps.
///
/// `'a` is the lifetime of the input buffer: decoders over a slice return events whose strings
/// borrow from it; decoders over a reader return `Event<'static>`.
pub trait Decoder<'a> {
    /// Returns the next event, or `None` once `EndDocument` has been returned.
    ///
    /// Errors: malformed input (with its byte offset, and bit offset for PER), a decoder limit
    /// exceeded, or an I/O error of the underlying reader. Do not call it again after an error:
    /// what it returns then is unspecified.
    fn next_event(&mut self) -> Result<Option<Event<'a>>>;

    /// Batched pull: appends the next events of the document to `out` and returns how many,
    /// 0 once the document has ended. A batch holds about [`BATCH_EVENTS`] events: a decoder
    /// stops only between items it can resume from, so the namespace declarations and
    /// attributes of one element may take it past that.
    ///
    /// The same events as [`Decoder::next_event`] called until `None`, at a fraction of the
    /// cost per event: the decoders with a push loop ([`Decoder::read_into`]) override it to
    /// run that loop into a [`BatchSink`] ([`next_batch_by_push`]), so one call re-enters the
    /// decoder for a batch instead of once per event, and no event passes through a
    /// `Result<Option<Event>>`. The provided method calls `next_event` up to [`BATCH_EVENTS`]
    /// times (streaming decoders over a reader keep it: their memory stays bounded by one
    /// batch). [`Decoder::offset`] is not kept per event: a consumer that prints each event's
    /// position (`binxml inspect`) pulls one at a time.
    ///
    /// Errors: those of `next_event`. The events decoded before the error are in `out` (the
    /// error is where the next event would have been); do not call it again after an error.
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        let start = out.len();
        while out.len() - start < BATCH_EVENTS {
            match self.next_event()? {
                Some(ev) => out.push(ev),
                None => break,
            }
        }
        Ok(out.len() - start)
    }

    /// Batched pull into a [`LentBatch`]: empties `batch`, fills it with the next events of the
    /// document and returns how many, 0 once the document has ended. The events read back from
    /// the batch ([`LentBatch::iter`]) borrow their strings from the input or from the batch's
    /// own buffer, so a decoder whose strings are not in its input (EXI's string table) copies
    /// them into that buffer instead of allocating each one, as [`Decoder::next_batch`] must.
    ///
    /// The same events as [`Decoder::next_batch`]; the provided method calls `next_event` up
    /// to the batch's size, the decoders with a push loop override it to run that loop into
    /// the batch ([`next_lent_by_push`]).
    ///
    /// Errors: those of `next_event`, with the events decoded before the error in `batch`.
    fn next_lent(&mut self, batch: &mut LentBatch<'a>) -> Result<usize> {
        batch.clear();
        while !batch.full() {
            match self.next_event()? {
                Some(ev) => batch.dispatch(ev)?,
                None => break,
            }
        }
        Ok(batch.len())
    }

    /// Byte offset in the input of the start of the event returned last (the position `binxml
    /// inspect` prints).
    fn offset(&self) -> u64;

    /// Bit offset in the input of the start of the event returned last, for the formats whose
    /// items do not start on octet boundaries (PER); `None` for the others, where
    /// [`Decoder::offset`] says it all.
    fn bit_offset(&self) -> Option<u64> {
        None
    }

    /// Push decoding: hands every remaining event of the document to `sink`, in order, and
    /// returns after `EndDocument` (or at the first error, the decoder's or the sink's), or
    /// earlier, between two items it can resume from, once [`EventSink::full`] says so (a
    /// later call goes on from there).
    ///
    /// The same events as [`Decoder::next_event`] called until `None`. The provided method
    /// does exactly that; decoders override it with a loop that hands the hot items (element
    /// starts and ends, attributes, namespace declarations, text) to the sink as their parts,
    /// without building and returning an [`Event`] per item: the way a SAX parser works, and
    /// the path the tree is built on.
    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()>
    where
        Self: Sized,
    {
        while !sink.full() {
            match self.next_event()? {
                Some(ev) => sink.dispatch(ev)?,
                None => break,
            }
        }
        Ok(())
    }
}

/// One decoder's table of names, as [`EventSink::transient_element`] names it: a number no
/// other table of this process has (each [`NameTable::new`] takes the next one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NameTable(u64);

impl NameTable {
    /// A table number not given out before.
    pub fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        NameTable(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for NameTable {
    fn default() -> Self {
        Self::new()
    }
}

/// A name of a decoder's table of names ([`EventSink::transient_element`]): the table and the
/// name's number in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NameRef {
    /// The decoder's table.
    pub table: NameTable,
    /// The name's number in it: while the table lives, the same number, the same namespace
    /// name and local name.
    pub id: u32,
}

/// [`Decoder::next_batch`] for a decoder with its own push loop: that loop, run into a
/// [`BatchSink`] that fills up after [`BATCH_EVENTS`] events. The loop must check
/// [`EventSink::full`] between items, where its state is all in the decoder.
#[inline]
pub fn next_batch_by_push<'a, D: Decoder<'a>>(
    decoder: &mut D,
    out: &mut Vec<Event<'a>>,
) -> Result<usize> {
    let start = out.len();
    decoder.read_into(&mut BatchSink::new(out, BATCH_EVENTS))?;
    Ok(out.len() - start)
}

/// [`Decoder::next_lent`] for a decoder with its own push loop: that loop, run into the
/// emptied batch until it is full. The loop must check [`EventSink::full`] between items.
#[inline]
pub fn next_lent_by_push<'a, D: Decoder<'a>>(
    decoder: &mut D,
    batch: &mut LentBatch<'a>,
) -> Result<usize> {
    batch.clear();
    decoder.read_into(batch)?;
    Ok(batch.len())
}

/// An [`EventSink`] that appends the events to a vector and is [`full`](EventSink::full) once
/// it has taken a given number: what batched pull ([`Decoder::next_batch`]) runs a push loop
/// into. Transient events are copied ([`Event::into_owned`]).
pub struct BatchSink<'v, 'a> {
    out: &'v mut Vec<Event<'a>>,
    limit: usize,
}

impl<'v, 'a> BatchSink<'v, 'a> {
    /// A sink that appends to `out` and is full after `max` events.
    pub fn new(out: &'v mut Vec<Event<'a>>, max: usize) -> Self {
        let limit = out.len() + max;
        out.reserve(max);
        BatchSink { out, limit }
    }
}

impl<'a> BatchSink<'_, 'a> {
    /// Appends one event. Within the capacity reserved by [`BatchSink::new`] (the branch the
    /// compiler can prove never grows the vector) the event is written straight into its slot;
    /// `Vec::push` alone keeps its growth call between building the event and storing it, so
    /// the event is built on the stack and copied, and that copy reads back the stores just
    /// made in wider loads than they were written with (a store-forwarding stall per event).
    #[inline(always)]
    fn put(&mut self, event: Event<'a>) {
        if self.out.len() < self.out.capacity() {
            self.out.push(event);
        } else {
            push_growing(self.out, event);
        }
    }
}

/// [`BatchSink::put`] past the reserved capacity: an element's attributes may take a batch
/// beyond its size.
#[cold]
#[inline(never)]
fn push_growing<'a>(out: &mut Vec<Event<'a>>, event: Event<'a>) {
    out.push(event);
}

impl<'a> EventSink<'a> for BatchSink<'_, 'a> {
    #[inline(always)]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.put(event);
        Ok(())
    }
    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        self.put(Event::StartElement(name));
        Ok(())
    }
    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.put(Event::Namespace { prefix, uri });
        Ok(())
    }
    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.put(Event::Attribute { name, value });
        Ok(())
    }
    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        self.put(Event::EndElement);
        Ok(())
    }
    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        self.put(Event::Characters { text, cdata: false });
        Ok(())
    }
    #[inline(always)]
    fn full(&self) -> bool {
        self.out.len() >= self.limit
    }
}

/// Receives a document from [`Decoder::read_into`]: element starts and ends, namespace
/// declarations, attributes and plain (non-CDATA) text as their parts, every other event
/// (`StartDocument`, `EndDocument`, DOCTYPE declarations, comments, processing instructions,
/// CDATA sections, entity references, typed values) as an [`Event`].
///
/// Only [`EventSink::event`] is required: the other methods default to building the event and
/// handing it to it, so a sink that wants events whole implements that one method.
pub trait EventSink<'a> {
    /// Receives one whole event: every event the part methods below do not take, and those too
    /// unless the sink overrides them. An error stops the decoding and is returned by
    /// [`Decoder::read_into`].
    fn event(&mut self, event: Event<'a>) -> Result<()>;

    /// An element starts (`Event::StartElement`); its namespace declarations, then its
    /// attributes, follow.
    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        self.event(Event::StartElement(name))
    }
    /// One namespace declaration of the element just started (`Event::Namespace`); `prefix` is
    /// empty for the default namespace.
    #[inline]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.event(Event::Namespace { prefix, uri })
    }
    /// One attribute of the element just started (`Event::Attribute`), with its name resolved.
    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.event(Event::Attribute { name, value })
    }
    /// An element starts whose name's parts are all slices of the input (or of a table that
    /// lives as long): [`EventSink::start_element`] without a `Cow` to test, for a sink that
    /// records the slices as they are. The default builds the name.
    #[inline(always)]
    fn start_element_in(
        &mut self,
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
    ) -> Result<()> {
        self.start_element(QName {
            prefix: Cow::Borrowed(prefix),
            namespace: Cow::Borrowed(namespace),
            local: Cow::Borrowed(local),
        })
    }
    /// An attribute whose name's parts are all slices of the input, as for
    /// [`EventSink::start_element_in`]. The default builds the name.
    #[inline(always)]
    fn attribute_in(
        &mut self,
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
        value: Cow<'a, str>,
    ) -> Result<()> {
        self.attribute(
            QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            },
            value,
        )
    }
    /// The innermost open element ends (`Event::EndElement`).
    #[inline]
    fn end_element(&mut self) -> Result<()> {
        self.event(Event::EndElement)
    }
    /// Character data not from a CDATA section.
    #[inline]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        self.event(Event::Characters { text, cdata: false })
    }

    /// An event whose strings live only for this call: decoders whose strings sit in their
    /// own tables rather than in the input (EXI) hand events over this way, so that a sink
    /// that does not keep them (an encoder, a counter) takes them without a copy. The default
    /// copies the strings ([`Event::into_owned`]) and dispatches.
    #[inline]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        self.dispatch(event.borrow().into_owned())
    }

    /// A transient element start ([`EventSink::transient`]) whose namespace name and local
    /// name are entry `name.id` of the decoder's table of names `name.table`: for as long as
    /// that table lives, the same id stands for the same two strings, so a sink that copies
    /// names (a [`LentBatch`]) may copy each once and point its later uses at the copy. The
    /// default hands on the event.
    #[inline]
    fn transient_element(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
    ) -> Result<()> {
        let _ = name;
        // every string borrowed: nothing to drop
        self.transient(&std::mem::ManuallyDrop::new(Event::StartElement(
            QName::new(prefix, namespace, local),
        )))
    }

    /// Transient character data not from a CDATA section ([`EventSink::transient`] of
    /// `Event::Characters`), for a sink that copies it without testing an event's kind. The
    /// default hands on the event.
    #[inline]
    fn transient_text(&mut self, text: &str) -> Result<()> {
        self.transient(&std::mem::ManuallyDrop::new(Event::Characters {
            text: Cow::Borrowed(text),
            cdata: false,
        }))
    }

    /// A transient attribute ([`EventSink::transient`]) whose name's namespace name and local
    /// name are entry `name.id` of the decoder's table of names, as for
    /// [`EventSink::transient_element`]. The default hands on the event.
    #[inline]
    fn transient_attribute(
        &mut self,
        prefix: &str,
        namespace: &str,
        local: &str,
        name: NameRef,
        value: &str,
    ) -> Result<()> {
        let _ = name;
        self.transient(&std::mem::ManuallyDrop::new(Event::Attribute {
            name: QName::new(prefix, namespace, local),
            value: Cow::Borrowed(value),
        }))
    }

    /// Whether the sink wants the decoder to stop: push loops check it between items and
    /// return from [`Decoder::read_into`] once it is true, at a point a later call resumes
    /// from. `false` (the default) for a sink that takes the whole document; a
    /// [`BatchSink`] is full after its batch.
    #[inline(always)]
    fn full(&self) -> bool {
        false
    }

    /// Hands a whole event to the method for its kind.
    #[inline(always)]
    fn dispatch(&mut self, ev: Event<'a>) -> Result<()> {
        match ev {
            Event::StartElement(name) => self.start_element(name),
            Event::Namespace { prefix, uri } => self.namespace(prefix, uri),
            Event::Attribute { name, value } => self.attribute(name, value),
            Event::EndElement => self.end_element(),
            Event::Characters { text, cdata: false } => self.text(text),
            other => self.event(other),
        }
    }
}

impl<'a> EventSink<'a> for Vec<Event<'a>> {
    #[inline]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.push(event);
        Ok(())
    }
}

/// A sink that counts what it receives: the events, and the bytes of the names, values and text
/// of the hot items (so that every string is produced, as a handler that reads them needs). The
/// "empty handler" of push benchmarks.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingSink {
    /// Number of events received, whether whole or as parts.
    pub events: u64,
    /// Total length of the local names, prefixes, namespace names, attribute values and plain
    /// text handed over by the part methods.
    pub bytes: u64,
}

impl<'a> EventSink<'a> for CountingSink {
    #[inline]
    fn event(&mut self, _event: Event<'a>) -> Result<()> {
        self.events += 1;
        Ok(())
    }
    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        self.events += 1;
        self.bytes += (name.local.len() + name.prefix.len() + name.namespace.len()) as u64;
        Ok(())
    }
    #[inline]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.events += 1;
        self.bytes += (prefix.len() + uri.len()) as u64;
        Ok(())
    }
    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.events += 1;
        self.bytes +=
            (name.local.len() + name.prefix.len() + name.namespace.len() + value.len()) as u64;
        Ok(())
    }
    #[inline]
    fn end_element(&mut self) -> Result<()> {
        self.events += 1;
        Ok(())
    }
    #[inline]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        self.events += 1;
        self.bytes += text.len() as u64;
        Ok(())
    }
    /// Counts the strings the part methods count, without copying them.
    #[inline]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        self.events += 1;
        self.bytes += match event {
            Event::StartElement(n) => n.local.len() + n.prefix.len() + n.namespace.len(),
            Event::Namespace { prefix, uri } => prefix.len() + uri.len(),
            Event::Attribute { name: n, value } => {
                n.local.len() + n.prefix.len() + n.namespace.len() + value.len()
            }
            Event::Characters { text, cdata: false } => text.len(),
            _ => 0,
        } as u64;
        Ok(())
    }
}

/// A borrowed decoder is a decoder (`&mut dyn Decoder` included: its push decoding is the
/// provided `read_into`, pulling one event at a time).
impl<'a, D: Decoder<'a> + ?Sized> Decoder<'a> for &mut D {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        (**self).next_event()
    }
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        (**self).next_batch(out)
    }
    fn next_lent(&mut self, batch: &mut LentBatch<'a>) -> Result<usize> {
        (**self).next_lent(batch)
    }
    fn offset(&self) -> u64 {
        (**self).offset()
    }
    fn bit_offset(&self) -> Option<u64> {
        (**self).bit_offset()
    }
}

impl<'a, D: Decoder<'a> + ?Sized> Decoder<'a> for Box<D> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        (**self).next_event()
    }
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        (**self).next_batch(out)
    }
    fn next_lent(&mut self, batch: &mut LentBatch<'a>) -> Result<usize> {
        (**self).next_lent(batch)
    }
    fn offset(&self) -> u64 {
        (**self).offset()
    }
    fn bit_offset(&self) -> Option<u64> {
        (**self).bit_offset()
    }
}

/// An encoder: takes events in document order and writes the format. [`Encoder::finish`] must be
/// called after `EndDocument` to flush the output; encoders report events that break the stream
/// grammar as [`ErrorKind::InvalidEvents`](crate::ErrorKind::InvalidEvents).
pub trait Encoder {
    /// Encodes one event. Errors: the event breaks the stream grammar
    /// ([`ErrorKind::InvalidEvents`](crate::ErrorKind::InvalidEvents)), the format cannot
    /// represent it, or writing to the output failed.
    fn write_event(&mut self, event: &Event<'_>) -> Result<()>;

    /// Writes a run of events held in memory (a recorded document, a replay), in order: the
    /// same as [`Encoder::write_event`] on each, which is what the default does (with one
    /// dynamic call for the whole run through `dyn Encoder`). An encoder may override it to use
    /// what an array allows: the Fast Infoset encoder asks the processor to load the events
    /// ahead of the one it encodes.
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        for ev in events {
            self.write_event(ev)?;
        }
        Ok(())
    }

    /// Writes the events of a [`Tape`](crate::Tape) (a compact recording), in order: the same
    /// as [`Encoder::write_event`] on each, which is what the default does. An encoder with a
    /// push interface ([`EventSink`]) replays the tape into it: the events are built on the
    /// stack, one at a time, as when a decoder pushes into the encoder.
    fn write_tape(&mut self, tape: &crate::Tape<'_>) -> Result<()> {
        tape.replay(&mut EncoderSink::new(self))
    }

    /// Flushes everything written so far. Called once, after the last event.
    fn finish(&mut self) -> Result<()>;
}

impl<E: Encoder + ?Sized> Encoder for Box<E> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        (**self).write_event(event)
    }
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        (**self).write_events(events)
    }
    fn write_tape(&mut self, tape: &crate::Tape<'_>) -> Result<()> {
        (**self).write_tape(tape)
    }
    fn finish(&mut self) -> Result<()> {
        (**self).finish()
    }
}

/// An [`EventSink`] that writes every event it receives to an encoder (push decoding straight
/// into an encoder: `decoder.read_into(&mut EncoderSink::new(&mut encoder))`), counting them.
pub struct EncoderSink<'e, E: Encoder + ?Sized> {
    /// The encoder the events go to.
    pub encoder: &'e mut E,
    /// Number of events written so far.
    pub events: u64,
}

impl<'e, E: Encoder + ?Sized> EncoderSink<'e, E> {
    /// A sink that writes to `encoder`, with the count at zero. It does not call
    /// [`Encoder::finish`]: the caller does, after the decoding.
    pub fn new(encoder: &'e mut E) -> Self {
        EncoderSink { encoder, events: 0 }
    }
}

impl<'a, E: Encoder + ?Sized> EventSink<'a> for EncoderSink<'_, E> {
    #[inline]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.events += 1;
        self.encoder.write_event(&event)
    }
    /// The encoder takes the event as it is: no copy.
    #[inline]
    fn transient(&mut self, event: &Event<'_>) -> Result<()> {
        self.events += 1;
        self.encoder.write_event(event)
    }
}

/// Pipes every event of `decoder` into `encoder` and finishes it. Returns the number of events.
pub fn transcode<'a>(decoder: &mut dyn Decoder<'a>, encoder: &mut dyn Encoder) -> Result<u64> {
    let mut n = 0;
    let mut batch = Vec::with_capacity(BATCH_EVENTS);
    loop {
        batch.clear();
        let r = decoder.next_batch(&mut batch);
        // the events before a decoding error are written, as when pulling one at a time
        encoder.write_events(&batch)?;
        n += batch.len() as u64;
        if r? == 0 {
            break;
        }
    }
    encoder.finish()?;
    Ok(n)
}

/// Reads every event of a decoder into a vector (owned), e.g. to replay the same events into
/// several encoders.
pub fn collect_events<'a>(decoder: &mut dyn Decoder<'a>) -> Result<Vec<Event<'a>>> {
    let mut v = Vec::new();
    while decoder.next_batch(&mut v)? > 0 {}
    Ok(v)
}

/// An encoder that records the events it is given.
#[derive(Default, Debug)]
pub struct Recorder {
    /// The events received, in order, as owned copies.
    pub events: Vec<Event<'static>>,
    /// Whether [`Encoder::finish`] was called.
    pub finished: bool,
}

impl Encoder for Recorder {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.events.push(event.clone().into_owned());
        Ok(())
    }
    fn finish(&mut self) -> Result<()> {
        self.finished = true;
        Ok(())
    }
}

/// A decoder that replays recorded events (offsets are event indexes).
pub struct Replay<'s, 'a> {
    events: &'s [Event<'a>],
    pos: usize,
}

impl<'s, 'a> Replay<'s, 'a> {
    /// A decoder that returns `events` in order (borrowing their strings), then `None`.
    pub fn new(events: &'s [Event<'a>]) -> Self {
        Replay { events, pos: 0 }
    }
}

impl<'s, 'a> Decoder<'s> for Replay<'s, 'a> {
    fn next_event(&mut self) -> Result<Option<Event<'s>>> {
        let ev = self.events.get(self.pos).map(Event::borrow);
        self.pos += 1;
        Ok(ev)
    }
    fn offset(&self) -> u64 {
        self.pos.saturating_sub(1) as u64
    }
}

/// Checks that an event stream follows the grammar documented in [`crate::event`]. Encoders can
/// feed every event through it to reject broken streams with a clear message.
#[derive(Default, Debug, Clone)]
pub struct StreamChecker {
    depth: usize,
    started: bool,
    ended: bool,
    /// true right after a StartElement, until the first content event
    in_start_tag: bool,
    seen_attribute: bool,
    root_seen: bool,
    /// Allow several top-level elements and top-level character data (a fragment rather than a
    /// document).
    pub fragments: bool,
}

impl StreamChecker {
    /// A checker at the start of a stream; `fragments` allows several top-level elements and
    /// top-level character data.
    pub fn new(fragments: bool) -> Self {
        StreamChecker {
            fragments,
            ..Default::default()
        }
    }

    /// Number of elements open after the events checked so far.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// [`check`](Self::check) for `Event::StartElement`, without building the event: the
    /// common case (inside the root element) in a few comparisons, the rest through `check`.
    #[inline(always)]
    pub fn start_element(&mut self, format: Format) -> Result<()> {
        if self.depth != 0 && !self.ended {
            self.depth += 1;
            self.in_start_tag = true;
            self.seen_attribute = false;
            return Ok(());
        }
        self.check_cold(format, &Event::StartElement(crate::QName::local("")))
    }

    /// [`check`](Self::check) for `Event::Attribute` (see [`start_element`](Self::start_element)).
    #[inline(always)]
    pub fn attribute(&mut self, format: Format) -> Result<()> {
        if self.in_start_tag && !self.ended {
            self.seen_attribute = true;
            return Ok(());
        }
        self.check_cold(
            format,
            &Event::Attribute {
                name: crate::QName::local(""),
                value: std::borrow::Cow::Borrowed(""),
            },
        )
    }

    /// [`check`](Self::check) for `Event::EndElement` (see [`start_element`](Self::start_element)).
    #[inline(always)]
    pub fn end_element(&mut self, format: Format) -> Result<()> {
        if self.depth != 0 && !self.ended {
            self.depth -= 1;
            self.in_start_tag = false;
            return Ok(());
        }
        self.check_cold(format, &Event::EndElement)
    }

    /// [`check`](Self::check) for `Event::Characters` holding `text` (see
    /// [`start_element`](Self::start_element)).
    #[inline(always)]
    pub fn characters(&mut self, format: Format, text: &str, cdata: bool) -> Result<()> {
        if self.depth != 0 && !self.ended {
            self.in_start_tag = false;
            return Ok(());
        }
        self.check_cold(
            format,
            &Event::Characters {
                text: std::borrow::Cow::Borrowed(text),
                cdata,
            },
        )
    }

    #[cold]
    #[inline(never)]
    fn check_cold(&mut self, format: Format, ev: &Event<'_>) -> Result<()> {
        self.check(format, ev)
    }

    /// Checks the next event of the stream against the grammar and updates the state.
    ///
    /// Errors: [`ErrorKind::InvalidEvents`](crate::ErrorKind::InvalidEvents), attributed to
    /// `format`, saying which rule `ev` breaks (an event before `StartDocument` or after
    /// `EndDocument`, a second root element, a namespace declaration or attribute outside a start
    /// tag, an unbalanced `EndElement`, non-whitespace text, a typed value or an entity reference
    /// outside the root element, a document type declaration after the root element started).
    #[inline]
    pub fn check(&mut self, format: Format, ev: &Event<'_>) -> Result<()> {
        let err = |m: &str| Err(Error::invalid_events(format, m.to_string()));
        if self.ended {
            return err("event after EndDocument");
        }
        if !self.started && !matches!(ev, Event::StartDocument { .. }) {
            return err("the first event must be StartDocument");
        }
        match ev {
            Event::StartDocument { .. } => {
                if self.started {
                    return err("StartDocument twice");
                }
                self.started = true;
            }
            Event::EndDocument => {
                if self.depth != 0 {
                    return err("EndDocument inside an element");
                }
                self.ended = true;
            }
            Event::StartElement(_) => {
                if self.depth == 0 {
                    if self.root_seen && !self.fragments {
                        return err("a second root element");
                    }
                    self.root_seen = true;
                }
                self.depth += 1;
                self.in_start_tag = true;
                self.seen_attribute = false;
                return Ok(());
            }
            Event::EndElement => {
                if self.depth == 0 {
                    return err("EndElement without StartElement");
                }
                self.depth -= 1;
            }
            Event::Namespace { .. } => {
                if !self.in_start_tag || self.seen_attribute {
                    return err("Namespace must follow StartElement, before its attributes");
                }
                return Ok(());
            }
            Event::Attribute { .. } => {
                if !self.in_start_tag {
                    return err("Attribute outside a start tag");
                }
                self.seen_attribute = true;
                return Ok(());
            }
            Event::Characters { .. } | Event::Typed(_) | Event::EntityReference { .. } => {
                if self.depth == 0 && !self.fragments {
                    let whitespace = matches!(ev, Event::Characters { text, .. } if text.trim_matches([' ', '\t', '\r', '\n']).is_empty());
                    if !whitespace {
                        return err("character data outside the root element");
                    }
                }
            }
            Event::DocType(_) | Event::Notation { .. } | Event::UnparsedEntity { .. } => {
                if self.depth != 0 || self.root_seen {
                    return err("document type declaration after the root element started");
                }
            }
            Event::Comment(_) | Event::ProcessingInstruction { .. } => {}
        }
        self.in_start_tag = false;
        Ok(())
    }
}
