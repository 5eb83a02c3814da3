//! binxml-asn1: the ASN.1 Schema for the XML Information Set (the X.695 draft as used by OSS
//! Nokalva's 2003 paper, Appendix A; the module text is `asn1/XML-Infoset.asn`) encoded with
//! X.691 PER (aligned `asn1-aper`, unaligned `asn1-uper`) and X.690 BER (`asn1-ber`).
//!
//! An infoset becomes one abstract value of the module's `Document` type. PER needs counts up
//! front, so the encoder collects the whole document before [`Encoder::finish`] writes it (its
//! elements as flat operations, see `build::Flat`) and the decoder
//! reads the whole input before the first event (the tables come last in `Document`).
//!
//! The encoder features of the paper's section 3.3 are [`Options`], each of which can be turned
//! off. See `docs/asn1.md` for the mapping, the component-strings block format and the signals.

#![forbid(unsafe_code)]
// Namespace names are passed as `&Cow<'a, str>` on purpose: cloning keeps the borrow from the
// input.
#![allow(clippy::ptr_arg)]

use binxml_core::Format;
use std::io::Write;

use std::borrow::Cow;

use binxml_core::{
    Decoder, Encoder, Error, Event, EventSink, Limits, QName, Result, StreamChecker,
};

mod ber;
mod build;
mod emit;
mod flat;
mod per;
mod schema;
mod sentinel;
mod stream;
mod table;
mod value;
pub mod x694;

pub use build::Stats;
pub use table::Compression;

#[doc(hidden)]
pub mod reference;
use reference::encode_value;

/// Runs a step of a recursive walk, growing the stack first when little is left (values nest
/// five levels per element, up to `Limits::max_depth` elements).
#[inline]
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(32 * 1024, 1024 * 1024, f)
}

/// The module's text.
pub const MODULE: &str = include_str!("../asn1/XML-Infoset.asn");

/// The encoding rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// X.691 unaligned PER (`asn1-uper`).
    Uper,
    /// X.691 aligned PER (`asn1-aper`).
    Aper,
    /// X.690 BER (`asn1-ber`), definite lengths.
    Ber,
}

impl Rule {
    /// Every rule: UPER, APER, BER.
    pub const ALL: [Rule; 3] = [Rule::Uper, Rule::Aper, Rule::Ber];

    /// The format these rules write (`asn1-uper`, ...).
    pub fn format(self) -> Format {
        match self {
            Rule::Uper => Format::Asn1Uper,
            Rule::Aper => Format::Asn1Aper,
            Rule::Ber => Format::Asn1Ber,
        }
    }

    /// The rules of an ASN.1 format; `None` for the other formats.
    pub fn from_format(format: Format) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.format() == format)
    }
}

/// Encoder options: the rules and the section 3.3 features (all on by default, no compression).
///
/// Start from [`Options::new`], [`Options::compact`] or [`Options::plain`] and change them with
/// the `with_...` setters. The fields that any value suits are public; the component-strings
/// table and its compression depend on each other, so they are read through
/// [`Options::strings_table`] and [`Options::compression`] and set through
/// [`Options::with_strings_table`] and [`Options::with_compression`], which refuse a
/// compressed block without the table (an error of kind
/// [`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)). The struct is
/// `#[non_exhaustive]`, so new features can be added without breaking callers.
///
/// ```
/// use binxml_asn1::{Compression, Options, Rule};
///
/// let opts = Options::new(Rule::Uper)
///     .with_scoped_namespaces(false)
///     .with_compression(Compression::Deflate)?;
/// assert_eq!(opts.compression(), Compression::Deflate);
/// assert!(Options::plain(Rule::Uper).with_compression(Compression::Deflate).is_err());
/// # Ok::<(), binxml_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The encoding rules to write.
    pub rule: Rule,
    /// One component-strings table with every string, most frequent first; strings are
    /// referenced by `component-string-index` everywhere.
    strings_table: bool,
    /// One common-names table with every element and attribute name, most frequent first;
    /// names are referenced by `common-name-index` everywhere.
    pub names_table: bool,
    /// `element-content-characters` when an element's only child is character data.
    pub element_content_characters: bool,
    /// Compression of the component-strings block (needs `strings_table`).
    compression: Compression,
    /// Not in the paper: a string is written inline instead of as a table index when that is
    /// smaller in UPER (every string used once: 11 bits saved, 25 past `LargeIndex`'s root
    /// range; repeated strings keep the root range). A useful trade only without compression.
    pub inline_singletons: bool,
    /// `same-as-parent-element` for every element's in-scope namespaces, signalled by the root's
    /// `same-as-parent-element` (the in-scope namespaces follow the Namespaces in XML scoping
    /// rules from the namespace attributes). Off: every element lists its in-scope namespaces.
    pub scoped_namespaces: bool,
    /// UPER with an uncompressed strings table: give up to 7 elements (the first in document order) the
    /// `base-URI` alternative `same-as-parent-element` (one bit each; the paper's program chose it
    /// for every element) so that the table's block starts on an octet boundary, where the
    /// decoder can borrow its strings from the input instead of copying every one.
    pub align_strings: bool,
}

impl Options {
    /// Every feature on, no compression.
    pub fn new(rule: Rule) -> Self {
        Options {
            rule,
            strings_table: true,
            names_table: true,
            element_content_characters: true,
            compression: Compression::None,
            scoped_namespaces: true,
            inline_singletons: false,
            align_strings: true,
        }
    }

    /// Every feature on, no compression, and strings inline wherever that is smaller: the
    /// smallest uncompressed encoding.
    pub fn compact(rule: Rule) -> Self {
        Options {
            inline_singletons: true,
            ..Options::new(rule)
        }
    }

    /// Every feature off: strings and names inline, explicit in-scope namespaces.
    pub fn plain(rule: Rule) -> Self {
        Options {
            rule,
            strings_table: false,
            names_table: false,
            element_content_characters: false,
            compression: Compression::None,
            scoped_namespaces: false,
            inline_singletons: false,
            align_strings: false,
        }
    }

    /// Whether the encoder writes one component-strings table with every string, most frequent
    /// first (strings then referenced by `component-string-index` everywhere).
    pub fn strings_table(&self) -> bool {
        self.strings_table
    }

    /// The compression of the component-strings block ([`Compression::None`] without the
    /// table).
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The same options with the component-strings table on or off. Errors
    /// ([`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)): turning the
    /// table off while a compression is set (set [`Compression::None`] first).
    pub fn with_strings_table(mut self, on: bool) -> Result<Self> {
        if !on && self.compression != Compression::None {
            return Err(Error::invalid_options(
                self.rule.format(),
                "the compressed component-strings block needs the strings table",
            ));
        }
        self.strings_table = on;
        Ok(self)
    }

    /// The same options with the component-strings block compressed by `c`. Errors
    /// ([`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)): a compression
    /// other than [`Compression::None`] without the strings table.
    pub fn with_compression(mut self, c: Compression) -> Result<Self> {
        if c != Compression::None && !self.strings_table {
            return Err(Error::invalid_options(
                self.rule.format(),
                "compression of the component-strings block needs the strings table",
            ));
        }
        self.compression = c;
        Ok(self)
    }

    /// Sets [`rule`](Options::rule): the encoding rules to write.
    pub fn with_rule(mut self, rule: Rule) -> Self {
        self.rule = rule;
        self
    }

    /// Sets [`names_table`](Options::names_table): one common-names table with every element and
    /// attribute name.
    pub fn with_names_table(mut self, names_table: bool) -> Self {
        self.names_table = names_table;
        self
    }

    /// Sets [`element_content_characters`](Options::element_content_characters): the short form
    /// of an element whose only child is character data.
    pub fn with_element_content_characters(mut self, element_content_characters: bool) -> Self {
        self.element_content_characters = element_content_characters;
        self
    }

    /// Sets [`inline_singletons`](Options::inline_singletons): strings inline wherever that is
    /// smaller than a table index.
    pub fn with_inline_singletons(mut self, inline_singletons: bool) -> Self {
        self.inline_singletons = inline_singletons;
        self
    }

    /// Sets [`scoped_namespaces`](Options::scoped_namespaces): `same-as-parent-element` for
    /// every element's in-scope namespaces.
    pub fn with_scoped_namespaces(mut self, scoped_namespaces: bool) -> Self {
        self.scoped_namespaces = scoped_namespaces;
        self
    }

    /// Sets [`align_strings`](Options::align_strings): align the strings table's block on an
    /// octet boundary in UPER.
    pub fn with_align_strings(mut self, align_strings: bool) -> Self {
        self.align_strings = align_strings;
        self
    }
}

/// Encodes a whole event stream.
pub fn encode(events: &[Event<'_>], opts: Options) -> Result<Vec<u8>> {
    let format = opts.rule.format();
    let mut checker = StreamChecker::new(true);
    let mut b = build::Builder::new_flat(opts, format);
    for ev in events {
        checker.check(format, ev)?;
        b.event(ev)?;
    }
    Ok(encode_built(b, opts.rule)?.0)
}

/// Encodes the builder's value: PER straight from the value with its table references
/// unresolved (no rewriting pass), and its elements from the flat operations where the builder
/// made them ([`build::Builder::new_flat`]); BER from the resolved value, its elements likewise.
fn encode_built(b: build::Builder, rule: Rule) -> Result<(Vec<u8>, Stats)> {
    match rule {
        Rule::Uper | Rule::Aper => {
            let (mut v, stats, refs, flat, align) = b.finish_parts()?;
            let mut w = per::PerWriter::with_refs(rule == Rule::Aper, rule.format(), &refs);
            match flat {
                Some(flat) => {
                    w.reserve(flat.size_hint(&refs.texts, 2));
                    w.encode_flat(&v, &flat, align)?
                }
                None => {
                    if align {
                        build::align_block(&mut v, &refs);
                    }
                    w.encode(schema::DOCUMENT, &v)?
                }
            }
            Ok((w.finish(), stats))
        }
        Rule::Ber => {
            let (mut v, stats, refs, flat, _) = b.finish_parts()?;
            let texts: Vec<&str> = refs.texts.iter().collect();
            let resolve = !refs.strings.is_empty() || !refs.names.is_empty();
            if resolve {
                v.resolve(&refs.strings, &texts, &refs.names);
            }
            match flat {
                None => Ok((encode_value(rule, &v)?, stats)),
                Some(mut flat) => {
                    if resolve {
                        for x in flat.values.iter_mut() {
                            x.resolve(&refs.strings, &texts, &refs.names);
                        }
                    }
                    let mut w = ber::BerWriter::new(rule.format());
                    w.reserve(flat.size_hint(&refs.texts, 12));
                    w.encode_flat(&v, &flat, &refs)?;
                    Ok((w.finish(), stats))
                }
            }
        }
    }
}

/// Decodes a whole document into events.
pub fn decode(input: &[u8], rule: Rule) -> Result<Vec<Event<'_>>> {
    decode_with_limits(input, rule, &Limits::default())
}

/// Decodes a whole document into events, refusing documents beyond `limits` (depth, string
/// lengths, table entries, decoded bytes per input byte).
///
/// Errors: malformed input, with its byte offset (and bit offset for PER), or a limit exceeded.
pub fn decode_with_limits<'a>(
    input: &'a [u8],
    rule: Rule,
    limits: &Limits,
) -> Result<Vec<Event<'a>>> {
    match rule {
        Rule::Uper | Rule::Aper => per::decode(input, rule == Rule::Aper, rule.format(), limits),
        Rule::Ber => {
            let mut s = ber::open(input, rule.format(), limits, false)?;
            let mut out = Vec::with_capacity(s.ops_len() + 8);
            while let Some(ev) = s.next_event()? {
                out.push(ev);
            }
            Ok(out)
        }
    }
}

/// The encoder: collects the events, and at [`Encoder::finish`] builds the value of `Document`
/// and writes its encoding.
pub struct Asn1Encoder<W: Write> {
    out: Option<W>,
    opts: Options,
    builder: Option<build::Builder>,
    checker: StreamChecker,
    stats: Stats,
}

impl<W: Write> Asn1Encoder<W> {
    /// An encoder writing to `out` with `opts`. Nothing is written before [`Encoder::finish`].
    pub fn new(out: W, opts: Options) -> Self {
        Asn1Encoder {
            out: Some(out),
            opts,
            builder: Some(build::Builder::new_flat(opts, opts.rule.format())),
            checker: StreamChecker::new(true),
            stats: Stats::default(),
        }
    }

    /// Sizes of the parts of the encoding (after `finish`).
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The writer, after [`Encoder::finish`].
    pub fn into_inner(mut self) -> W {
        self.out.take().expect("writer")
    }
}

impl<W: Write> Encoder for Asn1Encoder<W> {
    #[inline]
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        let format = self.opts.rule.format();
        self.checker.check(format, event)?;
        match &mut self.builder {
            Some(b) => b.event(event),
            None => Err(Error::invalid_events(format, "event after finish")),
        }
    }

    /// The tape replayed into the encoder's push interface; the tape is borrowed for the whole
    /// call, so its strings stay put and the builder may find names by their addresses.
    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        if let Some(b) = &mut self.builder {
            b.begin_stable(tape.len());
        }
        let r = tape.replay(self);
        if let Some(b) = &mut self.builder {
            b.end_stable();
        }
        r
    }

    fn finish(&mut self) -> Result<()> {
        let format = self.opts.rule.format();
        let b = self
            .builder
            .take()
            .ok_or_else(|| Error::invalid_events(format, "finish called twice"))?;
        let (bytes, stats) = encode_built(b, self.opts.rule)?;
        self.stats = stats;
        let out = self.out.as_mut().expect("writer");
        out.write_all(&bytes).map_err(|e| Error::io(format, e))?;
        out.flush().map_err(|e| Error::io(format, e))
    }
}

/// Push decoding straight into the encoder (`decoder.read_into(&mut encoder)`, then
/// [`Encoder::finish`]) and [`Encoder::write_tape`]: the same checks and bytes as writing
/// every event, without a dynamic call per event. Element starts and ends, namespaces,
/// attributes and text go to the stream checker's per-kind checks and the builder as their
/// parts, without an [`Event`] built, matched and dropped per item.
impl<'a, W: Write> EventSink<'a> for Asn1Encoder<W> {
    #[inline]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.write_event(&event)
    }

    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        let format = self.opts.rule.format();
        self.checker.start_element(format)?;
        self.builder_mut()?.part_start(&name)
    }

    #[inline]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        let format = self.opts.rule.format();
        let ev = Event::Namespace { prefix, uri };
        self.checker.check(format, &ev)?;
        let Event::Namespace { prefix, uri } = &ev else {
            unreachable!("built above")
        };
        self.builder_mut()?.part_namespace(prefix, uri)
    }

    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        let format = self.opts.rule.format();
        self.checker.attribute(format)?;
        self.builder_mut()?.part_attribute(&name, &value)
    }

    #[inline]
    fn end_element(&mut self) -> Result<()> {
        let format = self.opts.rule.format();
        self.checker.end_element(format)?;
        self.builder_mut()?.part_end()
    }

    #[inline]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        let format = self.opts.rule.format();
        self.checker.characters(format, &text, false)?;
        self.builder_mut()?.part_text(&text);
        Ok(())
    }
}

impl<W: Write> Asn1Encoder<W> {
    /// The builder, until [`Encoder::finish`].
    #[inline]
    fn builder_mut(&mut self) -> Result<&mut build::Builder> {
        match &mut self.builder {
            Some(b) => Ok(b),
            None => Err(Error::invalid_events(
                self.opts.rule.format(),
                "event after finish",
            )),
        }
    }
}

/// The decoder: reads the whole input on the first call (the tables come last) into a flat
/// list of operations, then hands out one event per call (PER: one pass over the bits; BER:
/// one pass over the elements, their small parts and everything else as generic values).
pub struct Asn1Decoder<'a> {
    input: &'a [u8],
    rule: Rule,
    limits: Limits,
    state: State<'a>,
    count: u64,
    /// record where each event's item starts
    positions: bool,
}

enum State<'a> {
    Start,
    Per(Box<stream::Stream<'a>>),
    Failed,
}

impl<'a> Asn1Decoder<'a> {
    /// A decoder of the document in `input`, encoded with `rule`, with the default [`Limits`].
    pub fn new(input: &'a [u8], rule: Rule) -> Self {
        Self::with_limits(input, rule, Limits::default())
    }

    /// A decoder of the document in `input`, encoded with `rule`, that refuses documents beyond
    /// `limits` with an error. The input is first read when [`Decoder::next_event`] is called.
    pub fn with_limits(input: &'a [u8], rule: Rule, limits: Limits) -> Self {
        Asn1Decoder {
            input,
            rule,
            limits,
            state: State::Start,
            count: 0,
            positions: false,
        }
    }

    /// Records where each event's item starts, for [`Decoder::offset`] and
    /// [`Decoder::bit_offset`] (a word of memory per item; without it the offset is the
    /// event's number, the whole input being read at once).
    pub fn with_positions(mut self) -> Self {
        self.positions = true;
        self
    }

    fn open(&mut self) -> Result<()> {
        self.state = match self.rule {
            Rule::Uper | Rule::Aper => State::Per(Box::new(per::open(
                self.input,
                self.rule == Rule::Aper,
                self.rule.format(),
                &self.limits,
                self.positions,
            )?)),
            Rule::Ber => State::Per(Box::new(ber::open(
                self.input,
                self.rule.format(),
                &self.limits,
                self.positions,
            )?)),
        };
        Ok(())
    }
}

impl<'a> Decoder<'a> for Asn1Decoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if matches!(self.state, State::Start)
            && let Err(e) = self.open()
        {
            self.state = State::Failed;
            return Err(e);
        }
        let ev = match &mut self.state {
            State::Per(s) => match s.next_event() {
                Ok(ev) => ev,
                Err(e) => {
                    self.state = State::Failed;
                    return Err(e);
                }
            },
            State::Start | State::Failed => None,
        };
        if ev.is_some() {
            self.count += 1;
        }
        Ok(ev)
    }

    /// With [`Asn1Decoder::with_positions`], the octet where the last event's item starts;
    /// else the index of the last event returned (the whole input is read at once).
    fn offset(&self) -> u64 {
        match (&self.state, self.positions) {
            (State::Per(s), true) => s.position() / 8,
            _ => self.count.saturating_sub(1),
        }
    }

    /// With [`Asn1Decoder::with_positions`], the bit where the last event's item starts (PER).
    fn bit_offset(&self) -> Option<u64> {
        match (&self.state, self.positions, self.rule) {
            (State::Per(s), true, Rule::Uper | Rule::Aper) => Some(s.position()),
            _ => None,
        }
    }

    /// Push decoding: the same events as [`Decoder::next_event`], element starts and ends,
    /// namespaces, attributes and text handed to the sink as their parts.
    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if matches!(self.state, State::Start)
            && let Err(e) = self.open()
        {
            self.state = State::Failed;
            return Err(e);
        }
        let r = match &mut self.state {
            State::Per(s) => s.push(sink, &mut self.count),
            State::Start | State::Failed => Ok(()),
        };
        if r.is_err() {
            self.state = State::Failed;
        }
        r
    }

    /// Batched pull through the push loop ([`Decoder::offset`] is then not kept per event).
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it.
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_needs_the_strings_table() {
        let e = Options::plain(Rule::Aper)
            .with_compression(Compression::Zstd)
            .unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::InvalidOptions);
        assert_eq!(e.format(), Some(Format::Asn1Aper));
        let o = Options::new(Rule::Uper)
            .with_compression(Compression::Zstd)
            .unwrap();
        assert_eq!(o.compression(), Compression::Zstd);
        let e = o.with_strings_table(false).unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::InvalidOptions);
        let o = o
            .with_compression(Compression::None)
            .unwrap()
            .with_strings_table(false)
            .unwrap();
        assert!(!o.strings_table());
        let plain = Options::plain(Rule::Ber);
        assert_eq!(plain.with_compression(Compression::None).unwrap(), plain);
        assert_eq!(
            Options::plain(Rule::Uper).with_strings_table(true).unwrap(),
            Options {
                strings_table: true,
                ..Options::plain(Rule::Uper)
            }
        );
    }

    /// PER of the generic path (the whole abstract value), for comparing with the flat writer.
    fn encode_generic(events: &[Event<'_>], opts: Options) -> Result<Vec<u8>> {
        let format = opts.rule.format();
        let mut checker = StreamChecker::new(true);
        let mut b = build::Builder::new(opts, format);
        for ev in events {
            checker.check(format, ev)?;
            b.event(ev)?;
        }
        Ok(encode_built(b, opts.rule)?.0)
    }

    /// The flat PER and BER writers give the generic writers' bytes on the whole corpus, with
    /// the default options and with each table, the scoped namespaces, element-content
    /// characters and the alignment off (and all off), and on documents with every kind of
    /// child.
    #[test]
    fn flat_writer_equals_generic() {
        let mut docs: Vec<Vec<u8>> = binxml_testkit::corpus_xml_files()
            .into_iter()
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|d| d.len() < 3_000_000)
            .collect();
        docs.push(
            b"<!DOCTYPE a [<!ENTITY e 'x'><!NOTATION n SYSTEM 's'>]><?p d?><!--c--><a xmlns='urn:d' xmlns:p='urn:p' p:k='v' k=''>t<b/>u<?q r?><!--k--><c xml:base='b'/></a><!--z-->"
                .to_vec(),
        );
        // counts of 16K fragments: exactly one, several and a rest, four and more
        for n in [16384, 40000, 65536, 70000] {
            let mut d = b"<r>".to_vec();
            for i in 0..n {
                d.extend_from_slice(if i % 3 == 0 { b"<e/>" } else { b"<f>x</f>" });
            }
            d.extend_from_slice(b"</r>");
            docs.push(d);
        }
        let mut n = 0;
        for raw in &docs {
            let Ok(utf8) = binxml_xml_to_utf8(raw) else {
                continue;
            };
            let Ok(events) = binxml_xml::decode(&utf8) else {
                continue;
            };
            for rule in Rule::ALL {
                for opts in [
                    Options::new(rule),
                    Options::compact(rule),
                    Options::new(rule)
                        .with_compression(Compression::Deflate)
                        .unwrap(),
                    Options {
                        element_content_characters: false,
                        ..Options::new(rule)
                    },
                    Options {
                        align_strings: false,
                        ..Options::new(rule)
                    },
                    Options::plain(rule),
                    Options {
                        names_table: false,
                        ..Options::new(rule)
                    },
                    Options {
                        strings_table: false,
                        ..Options::new(rule)
                    },
                    Options {
                        scoped_namespaces: false,
                        ..Options::new(rule)
                    },
                ] {
                    let a = encode(&events, opts);
                    let b = encode_generic(&events, opts);
                    match (a, b) {
                        (Ok(a), Ok(b)) => assert!(a == b, "bytes differ ({opts:?})"),
                        (Err(a), Err(b)) => assert_eq!(a.message(), b.message()),
                        (a, b) => panic!("{opts:?}: flat {:?} generic {:?}", a.err(), b.err()),
                    }
                    n += 1;
                }
            }
        }
        assert!(n > 1600, "{n}");
    }

    fn binxml_xml_to_utf8(raw: &[u8]) -> std::result::Result<Vec<u8>, ()> {
        binxml_xml::to_utf8(raw)
            .map(|c| c.into_owned())
            .map_err(|_| ())
    }
}

#[cfg(test)]
mod ber_tests {
    use super::*;
    use crate::reference::decode_generic;

    /// BER's pass 1 (`ber::open`) gives the generic decoder's events on the corpus, and
    /// on damaged copies both fail (with an offset) or agree.
    #[test]
    fn ber_stream_equals_generic() {
        let limits = Limits::default();
        let mut n = 0;
        let mut x: u64 = 0x2545F4914F6CDD1D;
        for p in binxml_testkit::corpus_xml_files() {
            let Ok(raw) = std::fs::read(&p) else { continue };
            if raw.len() > 3_000_000 {
                continue;
            }
            let Ok(utf8) = binxml_xml::to_utf8(&raw) else {
                continue;
            };
            let Ok(events) = binxml_xml::decode(&utf8) else {
                continue;
            };
            for opts in [
                Options::new(Rule::Ber),
                Options::plain(Rule::Ber),
                Options::compact(Rule::Ber),
            ] {
                let bytes = encode(&events, opts).unwrap();
                let g = decode_generic(&bytes, Rule::Ber, &limits).unwrap();
                let s = decode(&bytes, Rule::Ber).unwrap();
                assert!(g == s, "{} {opts:?}", p.display());
                n += 1;
                if raw.len() > 20_000 {
                    continue;
                }
                for k in 0..40 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let mut b = bytes.clone();
                    if k % 3 == 0 {
                        b.truncate((x as usize) % b.len());
                    } else {
                        let bit = (x as usize) % (b.len() * 8);
                        b[bit / 8] ^= 0x80 >> (bit % 8);
                    }
                    let g = decode_generic(&b, Rule::Ber, &limits);
                    let s = decode(&b, Rule::Ber);
                    match (&g, &s) {
                        (Ok(g), Ok(s)) => assert!(g == s, "{} damage {k}", p.display()),
                        (Err(_), Err(e)) => assert!(
                            e.offset().is_some() || e.kind() != binxml_core::ErrorKind::Malformed,
                            "{e}"
                        ),
                        _ => panic!(
                            "{} {opts:?} damage {k}: generic {:?}, stream {:?}",
                            p.display(),
                            g.as_ref().err(),
                            s.as_ref().err()
                        ),
                    }
                }
            }
        }
        assert!(n > 200, "{n}");
    }
}
