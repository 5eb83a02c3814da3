//! The generic path through the abstract value of `Document` (events to a value of the
//! module's type and back, the value to and from bits), which the tests and the mutation
//! campaign check the fast encoder and decoder against. Not part of the API: it may change with
//! the implementation.

use binxml_core::{Event, Limits, Result, StreamChecker};

pub use crate::value::V;
use crate::{Options, Rule, Stats, ber, build, emit, per, schema};

/// The component-strings block: building, compressing and splitting it.
pub mod table {
    pub use crate::table::{IDENTITY, NONE, ZSTD, build_block, compress, decompress, parse_block};
}

/// Encodes an abstract value of `Document` by `rule`.
pub fn encode_value(rule: Rule, v: &V<'_>) -> Result<Vec<u8>> {
    let format = rule.format();
    match rule {
        Rule::Uper | Rule::Aper => {
            let mut w = per::PerWriter::new(rule == Rule::Aper, format);
            w.encode(schema::DOCUMENT, v)?;
            Ok(w.finish())
        }
        Rule::Ber => {
            let mut w = ber::BerWriter::new(format);
            w.encode(schema::DOCUMENT, v, None)?;
            Ok(w.finish())
        }
    }
}

/// Decodes an abstract value of `Document`.
pub fn decode_value<'a>(rule: Rule, input: &'a [u8], limits: &Limits) -> Result<V<'a>> {
    let format = rule.format();
    match rule {
        Rule::Uper | Rule::Aper => {
            let mut r = per::PerReader::new(input, rule == Rule::Aper, format, limits);
            let v = r.decode(schema::DOCUMENT)?;
            r.finish()?;
            Ok(v)
        }
        Rule::Ber => {
            let mut r = ber::BerReader::new(input, format, limits);
            let v = r.decode(schema::DOCUMENT, None, None)?;
            r.finish()?;
            Ok(v)
        }
    }
}

/// Maps events to the abstract value of `Document` (with its tables) and the sizes of its parts.
pub fn build_value(events: &[Event<'_>], opts: Options) -> Result<(V<'static>, Stats)> {
    let format = opts.rule.format();
    let mut checker = StreamChecker::new(true);
    let mut b = build::Builder::new(opts, format);
    for ev in events {
        checker.check(format, ev)?;
        b.event(ev)?;
    }
    b.finish()
}

/// Maps an abstract value of `Document` to events.
pub fn value_to_events<'a>(
    rule: Rule,
    v: V<'a>,
    limits: &Limits,
    input_len: usize,
) -> Result<Vec<Event<'a>>> {
    let mut e = emit::Emitter::new(rule.format(), rule == Rule::Ber, limits.clone(), input_len);
    e.document(v)?;
    Ok(e.out)
}

/// Decodes through the abstract value of the whole document (the reference path; `decode` and
/// the decoder take faster paths that give the same events).
pub fn decode_generic<'a>(input: &'a [u8], rule: Rule, limits: &Limits) -> Result<Vec<Event<'a>>> {
    let v = decode_value(rule, input, limits)?;
    value_to_events(rule, v, limits, input.len())
}
