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
}

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
        }
    }
}

impl<'a> Decoder<'a> for TsfDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        match &mut self.inner {
            Ok(g) => {
                let ev = g.next_event()?;
                // `Limits::max_string_len` for every string (they are borrowed from the input).
                if let Some(e) = &ev
                    && longest_string(e) > self.max_string_len
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

pub fn decode_with(input: &[u8], opts: TsfOptions) -> Result<Vec<Event<'static>>> {
    let mut d = TsfDecoder::with_options(input, opts);
    let mut v = Vec::new();
    while let Some(ev) = d.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}

/// The length in bytes of the longest string an event carries.
fn longest_string(ev: &Event<'_>) -> usize {
    use binxml_core::QName;
    use std::borrow::Cow;
    let q = |q: &QName<'_>| q.prefix.len().max(q.namespace.len()).max(q.local.len());
    let o = |s: &Option<Cow<'_, str>>| s.as_ref().map_or(0, |s| s.len());
    match ev {
        Event::StartElement(n) => q(n),
        Event::Attribute { name, value } => q(name).max(value.len()),
        Event::Namespace { prefix, uri } => prefix.len().max(uri.len()),
        Event::Characters { text, .. } | Event::Comment(text) => text.len(),
        Event::ProcessingInstruction { target, data } => target.len().max(data.len()),
        Event::DocType(d) => d
            .name
            .len()
            .max(o(&d.public_id))
            .max(o(&d.system_id))
            .max(o(&d.internal_subset)),
        Event::EntityReference { name, .. } => name.len(),
        Event::Typed(binxml_core::Typed::Number(s) | binxml_core::Typed::DateTime(s)) => s.len(),
        _ => 0,
    }
}
