#![no_main]
//! TSF's push loop (`TsfDecoder::read_into`) against pulling one event at a time
//! (`next_event`) on the same bytes: never a panic, the same events before the same error (or
//! none), whether the push runs in one call or paused every few events by a sink that reports
//! itself full (`EventSink::full`), with the rest pulled. The first byte picks the pause (0:
//! none) and the limits (a small depth or string limit, which the push loop must apply as the
//! pull path does); the rest is the input.
use binxml::core::{EventSink, Limits};
use binxml::tsf::{TsfDecoder, TsfOptions};
use binxml::{Decoder, Error, Event, Result};

/// Records the events it takes, full after `pause` more (0: never).
struct Paused {
    events: Vec<Event<'static>>,
    limit: usize,
}

impl<'a> EventSink<'a> for Paused {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.events.push(event.into_owned());
        Ok(())
    }
    fn full(&self) -> bool {
        self.limit != 0 && self.events.len() >= self.limit
    }
}

fn key(e: &Option<Error>) -> Option<(binxml::ErrorKind, String, Option<u64>)> {
    e.as_ref()
        .map(|e| (e.kind(), e.message().to_string(), e.offset()))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let pause = (pick & 0x0f) as usize;
    let limits = match pick >> 6 {
        0 => Limits::default(),
        1 => Limits::default().with_max_depth(4),
        2 => Limits::default().with_max_string_len(300),
        _ => Limits::default().with_max_depth(2).with_max_string_len(1 << 30),
    };
    let opts = TsfOptions::default()
        .with_limits(limits)
        .with_utf16_lengths(pick & 0x20 != 0);

    let mut pulled = Vec::new();
    let mut pull_err = None;
    let mut d = TsfDecoder::with_options(input, opts.clone());
    loop {
        match d.next_event() {
            Ok(Some(ev)) => pulled.push(ev.into_owned()),
            Ok(None) => break,
            Err(e) => {
                pull_err = Some(e);
                break;
            }
        }
    }

    // Pushed, paused every `pause` events; each pause also pulls one event.
    let mut d = TsfDecoder::with_options(input, opts);
    let mut sink = Paused {
        events: Vec::new(),
        limit: 0,
    };
    let mut push_err = None;
    loop {
        let before = sink.events.len();
        sink.limit = if pause == 0 { 0 } else { before + pause };
        if let Err(e) = d.read_into(&mut sink) {
            push_err = Some(e);
            break;
        }
        if pause == 0 || sink.events.len() == before {
            break;
        }
        match d.next_event() {
            Ok(Some(ev)) => sink.events.push(ev.into_owned()),
            Ok(None) => break,
            Err(e) => {
                push_err = Some(e);
                break;
            }
        }
        assert!(sink.events.len() <= pulled.len() + 1, "push went past pull");
    }
    assert_eq!(key(&pull_err), key(&push_err), "different errors");
    // Compared by their Debug text, as `push_pull` does.
    assert!(
        format!("{pulled:?}") == format!("{:?}", sink.events),
        "push and pull gave different events"
    );
    if let Some(e) = &push_err {
        assert!(e.offset().is_some(), "an error without an offset: {e}");
    }
});
