//! The streaming TSF decoder: units straight from the input buffer to events, no tree.

use binxml_core::{Decoder, Error, Event, Result};

use crate::TsfOptions;
use crate::events::{EventGen, Source};
use crate::lex::{Lexer, Unit};

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
/// open elements and namespace bindings.
pub struct TsfDecoder<'a> {
    inner: Result<EventGen<'a, Lexer<'a>>, Option<Error>>,
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
        let max_string_len = opts.limits.max_string_len;
        let inner = match Lexer::new(input, opts.utf16_lengths) {
            Ok(mut lex) => {
                lex.max_str = opts.limits.max_string_len;
                Ok(EventGen::new(lex, opts.limits))
            }
            Err(e) => Err(Some(e)),
        };
        TsfDecoder {
            inner,
            max_string_len,
            check_len: input.len().max(LONGEST_CONSTANT) > max_string_len,
        }
    }
}

impl<'a> Decoder<'a> for TsfDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
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

    /// The generator's events handed straight to the sink (the provided method would go
    /// through `next_event` per event).
    fn read_into<S: binxml_core::EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if self.check_len || self.inner.is_err() {
            while let Some(ev) = self.next_event()? {
                sink.dispatch(ev)?;
            }
            return Ok(());
        }
        if let Ok(g) = &mut self.inner {
            while let Some(ev) = g.next_event()? {
                sink.dispatch(ev)?;
            }
        }
        Ok(())
    }

    fn offset(&self) -> u64 {
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
