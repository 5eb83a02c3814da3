//! The streaming TSF decoder: units straight from the input buffer to events, no tree.

use std::collections::VecDeque;

use binxml_core::{BatchSink, Decoder, Error, Event, EventSink, Result};

use crate::TsfOptions;
use crate::events::{EventGen, Source};
use crate::lex::{Lexer, Unit};
use crate::push::PushLoop;

impl<'a> Source<'a> for Lexer<'a> {
    #[inline]
    fn unit(&mut self, json: bool) -> Result<Unit<'a>> {
        Lexer::unit(self, json)
    }

    fn end(&mut self) -> Result<()> {
        self.check_end(self.pos)
    }
}

/// Decodes TSF (XML or JSON vocabulary) into events. Names and data are borrowed from the input
/// (names in the `"` form with escapes excepted); the only allocations are the small stacks of
/// open elements and namespace bindings. Push decoding ([`Decoder::read_into`]) and batched
/// pull ([`Decoder::next_batch`]) of an XML-vocabulary document run a loop of their own, which
/// hands elements, attributes, namespace declarations and text to the sink as their parts.
pub struct TsfDecoder<'a> {
    inner: Result<EventGen<'a, Lexer<'a>>, Option<Error>>,
    /// The push loop, once `read_into` (or `next_batch`) has started an XML-vocabulary
    /// document with it; the generator is not used after that.
    push: Option<Box<Pushed<'a>>>,
    max_string_len: usize,
    /// Every string is checked against `max_string_len`: the input is longer than the limit
    /// (or than the longest constant the decoder adds, a namespace name of its own).
    check_len: bool,
}

/// Longer than any string the decoder produces that is not in its input (the XML and JSON
/// vocabularies' namespace names).
const LONGEST_CONSTANT: usize = 256;

impl<'a> TsfDecoder<'a> {
    /// A decoder for TSF whose lengths are UTF-8 byte counts, with the default limits.
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_options(input, TsfOptions::default())
    }

    /// UTF-8 lengths, the given limits.
    pub fn with_limits(input: &'a [u8], limits: binxml_core::Limits) -> Self {
        Self::with_options(
            input,
            TsfOptions {
                limits,
                ..TsfOptions::default()
            },
        )
    }

    /// A decoder of the TSF document in `input` with `opts` (length units and limits).
    pub fn with_options(input: &'a [u8], opts: TsfOptions) -> Self {
        Self::with_lexer(Lexer::new(input, opts.utf16_lengths), input.len(), opts)
    }

    /// A decoder of the TSF document in `input`, text already checked to be UTF-8 (a caller
    /// that reads a large mapped file checks it in pieces, giving each back to the kernel
    /// after, rather than having the whole file resident at once).
    pub fn from_text(input: &'a str, opts: TsfOptions) -> Self {
        Self::with_lexer(
            Ok(Lexer::from_text(input, opts.utf16_lengths)),
            input.len(),
            opts,
        )
    }

    fn with_lexer(lexer: Result<Lexer<'a>>, len: usize, opts: TsfOptions) -> Self {
        let max_string_len = opts.limits.max_string_len;
        let inner = match lexer {
            Ok(mut lex) => {
                lex.max_str = opts.limits.max_string_len;
                Ok(EventGen::new(lex, opts.limits))
            }
            Err(e) => Err(Some(e)),
        };
        TsfDecoder {
            inner,
            push: None,
            max_string_len,
            check_len: len.max(LONGEST_CONSTANT) > max_string_len,
        }
    }
}

/// The push loop and, for `next_event` after it started, the events of its last item not yet
/// returned, then its error.
struct Pushed<'a> {
    run: PushLoop<'a>,
    queue: VecDeque<Event<'a>>,
    error: Option<Error>,
}

impl<'a> TsfDecoder<'a> {
    /// The push loop, started here if no event has been returned yet and the document is in
    /// the XML vocabulary with every string within the limit (`check_len` false: the loop
    /// checks no string lengths beyond the lexer's).
    fn push_loop(&mut self) -> Option<&mut Pushed<'a>> {
        if self.push.is_none()
            && !self.check_len
            && let Ok(g) = &self.inner
            && g.at_start()
            && PushLoop::applies(&g.src)
        {
            self.push = Some(Box::new(Pushed {
                run: PushLoop::new(g.src.clone(), g.max_depth()),
                queue: VecDeque::new(),
                error: None,
            }));
        }
        self.push.as_deref_mut()
    }

    /// `next_event` once the push loop has started: one item's events at a time.
    #[cold]
    fn next_pushed(p: &mut Pushed<'a>) -> Result<Option<Event<'a>>> {
        if p.queue.is_empty() && p.error.is_none() {
            let mut v = Vec::new();
            let r = p.run.run(&mut BatchSink::new(&mut v, 1));
            p.queue.extend(v);
            p.error = r.err();
        }
        match p.queue.pop_front() {
            Some(ev) => Ok(Some(ev)),
            None => p.error.take().map_or(Ok(None), Err),
        }
    }
}

impl<'a> Decoder<'a> for TsfDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(p) = &mut self.push {
            return Self::next_pushed(p);
        }
        match &mut self.inner {
            Ok(g) => {
                let ev = g.next_event()?;
                // `Limits::max_string_len` for every string: they are borrowed from the input,
                // or shorter than what they unescape, or constants, so an input within the
                // limit needs no check.
                if self.check_len
                    && let Some(e) = &ev
                    && e.longest_string() > self.max_string_len
                {
                    let msg = format!(
                        "string longer than the limit of {} bytes",
                        self.max_string_len
                    );
                    return Err(Error::limit(crate::lex::FORMAT, g.offset(), msg));
                }
                Ok(ev)
            }
            Err(e) => match e.take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }

    /// XML-vocabulary documents: the push loop (`push.rs`), from the start of the document.
    /// Otherwise (JSON, strings to check against the limit, or after events were pulled) the
    /// pulled events, handed to the sink.
    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if let Some(p) = self.push_loop() {
            // Events a `next_event` call left queued go first.
            while !sink.full()
                && let Some(ev) = p.queue.pop_front()
            {
                sink.dispatch(ev)?;
            }
            if !p.queue.is_empty() {
                return Ok(());
            }
            if let Some(e) = p.error.take() {
                return Err(e);
            }
            return p.run.run(sink);
        }
        while !sink.full()
            && let Some(ev) = self.next_event()?
        {
            sink.dispatch(ev)?;
        }
        Ok(())
    }

    /// The push loop (or the generator) into a batch.
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it.
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }

    /// After the push loop started (a `next_event` after `read_into`), the offset of the item
    /// whose events are being returned, or of its last attribute: the loop does not keep one
    /// per event.
    fn offset(&self) -> u64 {
        if let Some(p) = &self.push {
            return p.run.offset();
        }
        match &self.inner {
            Ok(g) => g.offset(),
            Err(_) => 0,
        }
    }
}

/// Decodes a whole TSF document into owned events.
pub fn decode(input: &[u8]) -> Result<Vec<Event<'static>>> {
    decode_with(input, TsfOptions::default())
}

/// Decodes a whole TSF document into owned events, with `opts` (length units and limits).
///
/// Errors: malformed input, with its byte offset, or a limit exceeded.
pub fn decode_with(input: &[u8], opts: TsfOptions) -> Result<Vec<Event<'static>>> {
    let mut d = TsfDecoder::with_options(input, opts);
    let mut v = Vec::new();
    while let Some(ev) = d.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}
