#![no_main]
//! Push decoding (`AnyDecoder::read_into`, each codec's own loop) and batched pull
//! (`next_batch`, those loops into a batch; `next_lent`, the same into a `LentBatch`) against pull decoding one event at a time
//! (`next_event`) on the same bytes: never a panic, the same events or the same error (a batch
//! ending in an error holds the events pulled before it), and the same tree from
//! `binxml::parse_tree` (push) as from the pulled events. The first byte picks the format
//! (`Format::ALL[byte % Format::ALL.len()]`: nine formats, EXI with its default options), the
//! rest is the input.
use binxml::core::collect_events;
use binxml::{AnyDecoder, DecodeOptions, Decoder, Error, Event, Format, tree::Document};

fn owned(v: Vec<Event<'_>>) -> Vec<Event<'static>> {
    v.into_iter().map(Event::into_owned).collect()
}

/// How `pull_all` pulls.
#[derive(Clone, Copy, PartialEq)]
enum Pull {
    One,
    Batch,
    Lent,
}

/// Every event until the end or an error, by `next_event`, `next_batch` or `next_lent`.
fn pull_all(mut d: AnyDecoder<'_>, how: Pull) -> (Vec<Event<'static>>, Option<Error>) {
    let mut v = Vec::new();
    if how == Pull::Lent {
        let mut batch = binxml::core::LentBatch::new();
        loop {
            let r = d.next_lent(&mut batch);
            v.extend(batch.iter().map(Event::into_owned));
            match r {
                Ok(0) => return (v, None),
                Ok(_) => {}
                Err(e) => return (v, Some(e)),
            }
        }
    }
    if how == Pull::Batch {
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let r = d.next_batch(&mut batch);
            v.extend(batch.drain(..).map(Event::into_owned));
            match r {
                Ok(0) => return (v, None),
                Ok(_) => {}
                Err(e) => return (v, Some(e)),
            }
        }
    }
    loop {
        match d.next_event() {
            Ok(Some(ev)) => v.push(ev.into_owned()),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e)),
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let f = Format::ALL[pick as usize % Format::ALL.len()];
    let input = rest;
    let opts = DecodeOptions::default();
    let Ok(d) = AnyDecoder::new(f, input, &opts) else {
        return;
    };
    let (events, error) = pull_all(d, Pull::One);
    let (b_events, b_error) = pull_all(AnyDecoder::new(f, input, &opts).unwrap(), Pull::Batch);
    let (l_events, l_error) = pull_all(AnyDecoder::new(f, input, &opts).unwrap(), Pull::Lent);
    assert!(
        format!("{events:?}") == format!("{l_events:?}"),
        "lent batches and one-at-a-time pull gave different events"
    );
    assert!(
        format!("{events:?}") == format!("{b_events:?}"),
        "batched and one-at-a-time pull gave different events"
    );
    let key = |e: &Option<Error>| {
        e.as_ref()
            .map(|e| (e.kind(), e.message().to_string(), e.offset()))
    };
    assert_eq!(key(&error), key(&b_error), "batched pull: different errors");
    assert_eq!(key(&error), key(&l_error), "lent batches: different errors");
    let pulled = match error {
        None => Ok(events),
        Some(e) => Err(e),
    };
    let mut v = Vec::new();
    let pushed = AnyDecoder::new(f, input, &opts)
        .and_then(|mut d| d.read_into(&mut v))
        .map(|()| owned(v));
    match (&pulled, &pushed) {
        // Compared by their Debug text: typed NaN values are equal there, not by `==`.
        (Ok(a), Ok(b)) => assert!(
            format!("{a:?}") == format!("{b:?}"),
            "push and pull gave different events"
        ),
        (Err(a), Err(b)) => assert_eq!(
            (a.kind(), a.message(), a.offset()),
            (b.kind(), b.message(), b.offset()),
            "different errors"
        ),
        (a, b) => panic!(
            "one path failed: pull {:?}, push {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
    let mut pulled = AnyDecoder::new(f, input, &opts).unwrap();
    let mut pulled: &mut dyn Decoder<'_> = &mut pulled;
    let generic = Document::parse(&mut pulled, input.len());
    let tree = binxml::parse_tree(f, input);
    match (generic, tree) {
        (Ok(g), Ok(t)) => {
            let (g, t) = (
                owned(collect_events(&mut g.events()).unwrap()),
                owned(collect_events(&mut t.events()).unwrap()),
            );
            assert!(format!("{g:?}") == format!("{t:?}"), "different trees");
        }
        (Err(g), Err(t)) => assert_eq!(
            (g.kind(), g.message(), g.offset()),
            (t.kind(), t.message(), t.offset()),
            "different tree errors"
        ),
        (g, t) => panic!(
            "one tree path failed: generic {:?}, push {:?}",
            g.err(),
            t.err()
        ),
    }
});
