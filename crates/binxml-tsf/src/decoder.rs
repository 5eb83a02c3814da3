//! The streaming TSF decoder: units straight from the input buffer to events, no tree.

use binxml_core::{Decoder, Error, Event, Result};

use crate::events::{EventGen, Source};
use crate::lex::{Lexer, Unit};
use crate::TsfOptions;

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
}

impl<'a> TsfDecoder<'a> {
    /// A decoder for TSF whose lengths are UTF-8 byte counts, with the default limits.
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_options(input, TsfOptions::default())
    }

    /// UTF-8 lengths, the given limits.
    pub fn with_limits(input: &'a [u8], limits: binxml_core::Limits) -> Self {
        Self::with_options(input, TsfOptions { limits, ..TsfOptions::default() })
    }

    pub fn with_options(input: &'a [u8], opts: TsfOptions) -> Self {
        let inner = match Lexer::new(input, opts.utf16_lengths) {
            Ok(lex) => Ok(EventGen::new(lex, opts.limits)),
            Err(e) => Err(Some(e)),
        };
        TsfDecoder { inner }
    }
}

impl<'a> Decoder<'a> for TsfDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        match &mut self.inner {
            Ok(g) => g.next_event(),
            Err(e) => match e.take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }

    fn offset(&self) -> u64 {
        match &self.inner {
            Ok(g) => g.offset(),
            Err(_) => 0,
        }
    }
}

/// Decodes a whole TSF document into owned events.
pub fn parse_events(input: &[u8]) -> Result<Vec<Event<'static>>> {
    parse_events_with(input, TsfOptions::default())
}

pub fn parse_events_with(input: &[u8], opts: TsfOptions) -> Result<Vec<Event<'static>>> {
    let mut d = TsfDecoder::with_options(input, opts);
    let mut v = Vec::new();
    while let Some(ev) = d.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}
