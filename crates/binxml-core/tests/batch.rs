//! Batched pull (`Decoder::next_batch`): the provided method and the push loop paused by a
//! `BatchSink` cover the stream in order, in batches of `BATCH_EVENTS`, and an error comes
//! after the events decoded before it.

use binxml_core::{
    BATCH_EVENTS, BatchSink, Decoder, Error, Event, EventSink, Format, Replay, Result,
    next_batch_by_push,
};

fn stream(n: usize) -> Vec<Event<'static>> {
    (0..n)
        .map(|i| Event::Comment(i.to_string().into()))
        .collect()
}

/// Every batch of `next` until it gives 0, and the sizes of the batches.
fn drain<'a>(
    mut next: impl FnMut(&mut Vec<Event<'a>>) -> Result<usize>,
) -> (Vec<Event<'a>>, Vec<usize>) {
    let mut all = Vec::new();
    let mut sizes = Vec::new();
    let mut batch = Vec::new();
    loop {
        batch.clear();
        let n = next(&mut batch).unwrap();
        assert_eq!(n, batch.len());
        if n == 0 {
            return (all, sizes);
        }
        sizes.push(n);
        all.append(&mut batch);
    }
}

#[test]
fn provided_next_batch_covers_the_stream() {
    let events = stream(2 * BATCH_EVENTS + 44);
    let mut r = Replay::new(&events);
    let (all, sizes) = drain(|b| r.next_batch(b));
    assert_eq!(all, events);
    assert_eq!(sizes, [BATCH_EVENTS, BATCH_EVENTS, 44]);
}

#[test]
fn push_loop_paused_by_a_batch_sink() {
    let events = stream(BATCH_EVENTS + 1);
    let mut r = Replay::new(&events);
    let (all, sizes) = drain(|b| next_batch_by_push(&mut r, b));
    assert_eq!(all, events);
    assert_eq!(sizes, [BATCH_EVENTS, 1]);
    // a sink of its own size; appended after what the vector holds
    let mut r = Replay::new(&events);
    let mut out = vec![Event::EndElement];
    r.read_into(&mut BatchSink::new(&mut out, 3)).unwrap();
    assert_eq!(out.len(), 4);
    assert_eq!(&out[1..], &events[..3]);
}

#[test]
fn a_sink_that_is_never_full_takes_the_whole_stream() {
    struct All(Vec<Event<'static>>);
    impl EventSink<'static> for All {
        fn event(&mut self, event: Event<'static>) -> Result<()> {
            self.0.push(event);
            Ok(())
        }
    }
    let events = stream(3 * BATCH_EVENTS);
    let mut sink = All(Vec::new());
    let mut d = Owned(events.clone().into_iter(), 0);
    d.read_into(&mut sink).unwrap();
    assert_eq!(sink.0, events);
}

/// A decoder of owned events that fails after `fail_after` events when that is not 0.
struct Owned<I>(I, usize);

impl<I: Iterator<Item = Event<'static>>> Decoder<'static> for Owned<I> {
    fn next_event(&mut self) -> Result<Option<Event<'static>>> {
        if self.1 == 1 {
            return Err(Error::malformed(Format::Xml, 7, "broken"));
        }
        self.1 = self.1.saturating_sub(1);
        Ok(self.0.next())
    }
    fn offset(&self) -> u64 {
        0
    }
}

#[test]
fn an_error_comes_after_the_events_before_it() {
    let events = stream(BATCH_EVENTS + 10);
    for batched_by_push in [false, true] {
        let mut d = Owned(events.clone().into_iter(), BATCH_EVENTS + 6);
        let mut first = Vec::new();
        let n = if batched_by_push {
            next_batch_by_push(&mut d, &mut first)
        } else {
            d.next_batch(&mut first)
        }
        .unwrap();
        assert_eq!(n, BATCH_EVENTS);
        let mut second = Vec::new();
        let e = if batched_by_push {
            next_batch_by_push(&mut d, &mut second)
        } else {
            d.next_batch(&mut second)
        }
        .unwrap_err();
        assert_eq!(e.offset(), Some(7));
        assert_eq!(second, &events[BATCH_EVENTS..BATCH_EVENTS + 5]);
    }
}

#[test]
fn a_batch_sink_takes_events_past_its_size() {
    // a start tag's attributes are not split: the loop goes on past `full()`, beyond the
    // capacity the sink reserved, and every part method appends in order
    use binxml_core::QName;
    let mut out = Vec::new();
    let mut sink = BatchSink::new(&mut out, 2);
    sink.start_element(QName::local("a")).unwrap();
    sink.namespace("p".into(), "urn:p".into()).unwrap();
    assert!(sink.full());
    for i in 0..40 {
        sink.attribute(QName::local(format!("x{i}")), i.to_string().into())
            .unwrap();
    }
    sink.text("t".into()).unwrap();
    sink.event(Event::Comment("c".into())).unwrap();
    sink.end_element().unwrap();
    assert_eq!(out.len(), 45);
    assert_eq!(out[0], Event::StartElement(QName::local("a")));
    assert_eq!(
        out[1],
        Event::Namespace {
            prefix: "p".into(),
            uri: "urn:p".into()
        }
    );
    for i in 0..40 {
        assert_eq!(
            out[2 + i],
            Event::Attribute {
                name: QName::local(format!("x{i}")),
                value: i.to_string().into()
            }
        );
    }
    assert_eq!(
        out[42],
        Event::Characters {
            text: "t".into(),
            cdata: false
        }
    );
    assert_eq!(out[43], Event::Comment("c".into()));
    assert_eq!(out[44], Event::EndElement);
}
