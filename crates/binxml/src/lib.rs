//! binxml: XML, JSON and binary infoset encodings as one library.
//!
//! *The infoset is a stream of events; every format is a codec.* Each format lives in its own
//! crate with a pull decoder (bytes -> [`Event`]s) and an encoder (events -> bytes); this crate
//! re-exports them, names them in one registry ([`Format`]), detects formats from their first
//! bytes ([`detect`]) and converts between any two ([`convert`]).
//!
//! ```
//! use binxml::Format;
//! let fi = binxml::convert(b"<a x='1'>hi</a>", Some(Format::Xml), Format::Json).unwrap();
//! assert!(!fi.is_empty());
//! ```

use std::borrow::Cow;
use std::io::Write;

pub use binxml_asn1 as asn1;
pub use binxml_core::{
    self as core, CountingSink, Decoder, DocType, Encoder, Error, ErrorKind, Event, EventSink,
    Limits, QName, Result, Tape, Typed, collect_events, transcode,
};
pub use binxml_fi as fi;
pub use binxml_json as json;
pub use binxml_tree as tree;
pub use binxml_tsf as tsf;
pub use binxml_xebu as xebu;
pub use binxml_xml as xml;

pub use binxml_tree::Document;

/// Every format binxml reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// XML 1.0 text.
    Xml,
    /// JSON (RFC 8259), mapped to elements by `docs/json-mapping.md`.
    Json,
    /// Fast Infoset (ITU-T X.891).
    Fi,
    /// Transaction Serial Format (seed 001).
    Tsf,
    /// Xebu token streams (seed 003).
    Xebu,
    /// The ASN.1 XML infoset schema (seed 000) in unaligned PER.
    Asn1Uper,
    /// ... in aligned PER.
    Asn1Aper,
    /// ... in BER.
    Asn1Ber,
}

impl Format {
    /// Every format, in the order `binxml formats` lists them.
    pub const ALL: &'static [Format] = &[
        Format::Xml,
        Format::Json,
        Format::Fi,
        Format::Tsf,
        Format::Xebu,
        Format::Asn1Uper,
        Format::Asn1Aper,
        Format::Asn1Ber,
    ];

    /// The registry name (`-t NAME` on the command line).
    pub fn name(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
            Format::Fi => "fi",
            Format::Tsf => "tsf",
            Format::Xebu => "xebu",
            Format::Asn1Uper => "asn1-uper",
            Format::Asn1Aper => "asn1-aper",
            Format::Asn1Ber => "asn1-ber",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Format::Xml => "XML 1.0 text (UTF-8 out; any declared encoding in)",
            Format::Json => "JSON text, lossless through the binxml JSON mapping",
            Format::Fi => "Fast Infoset, ITU-T X.891 (interoperates with the Java reference)",
            Format::Tsf => "Transaction Serial Format (Evans 2020), XML and JSON",
            Format::Xebu => "Xebu token stream (Kangasharju et al.)",
            Format::Asn1Uper => "ASN.1 XML infoset schema (X.695 draft), unaligned PER",
            Format::Asn1Aper => "ASN.1 XML infoset schema (X.695 draft), aligned PER",
            Format::Asn1Ber => "ASN.1 XML infoset schema (X.695 draft), BER",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
            Format::Fi => "fi",
            Format::Tsf => "tsf",
            Format::Xebu => "xebu",
            Format::Asn1Uper => "uper",
            Format::Asn1Aper => "aper",
            Format::Asn1Ber => "ber",
        }
    }

    /// Whether a format's first bytes identify it (magic number) rather than a guess.
    pub fn has_magic(self) -> bool {
        matches!(self, Format::Fi)
    }

    /// Whether the format is binary (not text a terminal can show).
    pub fn is_binary(self) -> bool {
        !matches!(self, Format::Xml | Format::Json | Format::Tsf)
    }

    fn asn1_rule(self) -> Option<binxml_asn1::Rule> {
        match self {
            Format::Asn1Uper => Some(binxml_asn1::Rule::Uper),
            Format::Asn1Aper => Some(binxml_asn1::Rule::Aper),
            Format::Asn1Ber => Some(binxml_asn1::Rule::Ber),
            _ => None,
        }
    }

    /// The format a file extension names (`uper`, `fi`, ...; case-insensitive).
    pub fn from_extension(ext: &str) -> Option<Format> {
        let e = ext.to_ascii_lowercase();
        Format::ALL.iter().copied().find(|f| f.extension() == e)
    }

    /// The format a registry name (or extension) names, case-insensitive.
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.to_ascii_lowercase();
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name() == n || f.extension() == n)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Format::from_name(s).ok_or_else(|| {
            let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown format {s:?} (known: {})", names.join(", "))
        })
    }
}

/// Detects the format of a document from its first bytes: Fast Infoset's magic number (or its
/// `<?xml encoding='finf'?>` declaration) first, then the shape of the text formats (XML, TSF,
/// JSON), then BER's outer SEQUENCE and Xebu's document-start byte, which are weaker hints. PER
/// has no signature: name it with `-f asn1-uper` / `asn1-aper`. `None` when nothing matches.
pub fn detect(head: &[u8]) -> Option<Format> {
    if binxml_fi::detect(head) {
        return Some(Format::Fi);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = text
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    if first == Some(b'<') || head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Some(Format::Xml);
    }
    if binxml_tsf::looks_like_tsf(head) {
        return Some(Format::Tsf);
    }
    // BER's outer SEQUENCE tag is `0x30` (the digit 0): JSON can only follow a leading 0 with
    // `.`, an exponent or white space.
    if let [0x30, second, ..] = head {
        if !matches!(second, b'.' | b'e' | b'E' | b' ' | b'\t' | b'\r' | b'\n') {
            return Some(Format::Asn1Ber);
        }
    }
    if binxml_json::looks_like_json(head) {
        return Some(Format::Json);
    }
    if binxml_xebu::looks_like_xebu(head) {
        return Some(Format::Xebu);
    }
    None
}

/// Detects the format of a document from its first bytes and, where they cannot tell, its file
/// name: an unmistakable signature (Fast Infoset's magic number, XML's `<` or byte-order mark)
/// wins; then a file extension that names a format (`.uper`, `.aper`: PER has no signature of
/// its own); then the weaker guesses of [`detect`].
///
/// ```
/// use binxml::Format;
/// use std::path::Path;
/// assert_eq!(binxml::detect_named(Path::new("msg.uper"), &[0x0C, 0x42]), Some(Format::Asn1Uper));
/// assert_eq!(binxml::detect_named(Path::new("msg.uper"), b"<a/>"), Some(Format::Xml));
/// ```
pub fn detect_named(name: &std::path::Path, head: &[u8]) -> Option<Format> {
    let strong = detect(head).filter(|f| matches!(f, Format::Fi | Format::Xml));
    strong
        .or_else(|| {
            name.extension()
                .and_then(|e| e.to_str())
                .and_then(Format::from_extension)
        })
        .or_else(|| detect(head))
}

/// Options for decoding.
#[derive(Clone, Debug, Default)]
pub struct DecodeOptions {
    pub limits: Limits,
    /// Fast Infoset external vocabularies by URI. A document that references a vocabulary not
    /// given here is refused.
    pub fi_vocabularies: Option<std::sync::Arc<binxml_fi::Vocabularies>>,
    /// TSF: primitive lengths count UTF-16 code units (files of the paper's reference converter).
    pub tsf_utf16_lengths: bool,
    /// Record where each event starts in formats that read their whole input first (the ASN.1
    /// formats), so that [`Decoder::offset`] and [`Decoder::bit_offset`] give it rather than
    /// the event's number (`binxml inspect`); costs a word of memory per event.
    pub positions: bool,
}

/// Adapts a decoder of owned events to any input lifetime.
struct Owned<D>(D);

impl<'a, D: Decoder<'static>> Decoder<'a> for Owned<D> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        self.0.next_event()
    }
    fn offset(&self) -> u64 {
        self.0.offset()
    }
}

/// Options for encoding.
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions {
    /// XML output: indent by this many spaces.
    pub indent: Option<usize>,
    /// Fast Infoset encoder options.
    pub fi: binxml_fi::FiOptions,
    /// Xebu encoder options.
    pub xebu: binxml_xebu::XebuOptions,
    /// TSF encoder options (the reference converter's dialect).
    pub tsf: binxml_tsf::TsfEncoderOptions,
    /// ASN.1 encoder features (tables, compression); `None`: every section 3.3 feature on, no
    /// compression. The rule always comes from the format.
    pub asn1: Option<binxml_asn1::Options>,
}

/// Prepares raw input for [`decoder`]: XML in another encoding than UTF-8 is transcoded.
pub fn prepare(format: Format, input: &[u8]) -> Result<Cow<'_, [u8]>> {
    match format {
        Format::Xml => binxml_xml::to_utf8(input),
        _ => Ok(Cow::Borrowed(input)),
    }
}

/// A pull decoder for `format` over `input` (already [`prepare`]d).
pub fn decoder<'a>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
) -> Result<Box<dyn Decoder<'a> + 'a>> {
    Ok(match format {
        Format::Xml => Box::new(binxml_xml::XmlDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Json => Box::new(binxml_json::JsonDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Fi => match &opts.fi_vocabularies {
            None => Box::new(binxml_fi::FiDecoder::with_limits(
                input,
                opts.limits.clone(),
            )),
            // With external vocabularies, the streaming decoder (owned strings) holds them.
            Some(v) => Box::new(Owned(
                binxml_fi::FiReadDecoder::with_limits(input, opts.limits.clone())
                    .with_vocabularies(v.clone()),
            )),
        },
        Format::Tsf => Box::new(binxml_tsf::TsfDecoder::with_options(
            input,
            binxml_tsf::TsfOptions {
                limits: opts.limits.clone(),
                utf16_lengths: opts.tsf_utf16_lengths,
            },
        )),
        Format::Xebu => Box::new(binxml_xebu::XebuDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => {
            let rule = format.asn1_rule().expect("an ASN.1 format");
            let d = binxml_asn1::Asn1Decoder::with_limits(input, rule, opts.limits.clone());
            Box::new(if opts.positions {
                d.with_positions()
            } else {
                d
            })
        }
    })
}

/// Work done with a decoder of a statically known type (see [`with_decoder`]).
pub trait WithDecoder<'a> {
    type Output;
    fn run<D: Decoder<'a>>(self, decoder: &mut D) -> Result<Self::Output>;
}

/// Calls `work` with the decoder for `format` over `input` (already [`prepare`]d) as its own
/// type, not as a `dyn Decoder`: no dynamic call per event, and the decoder's
/// [`Decoder::read_into`] (push decoding) is the codec's own.
pub fn with_decoder<'a, W: WithDecoder<'a>>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
    work: W,
) -> Result<W::Output> {
    match format {
        Format::Xml => work.run(&mut binxml_xml::XmlDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Json => work.run(&mut binxml_json::JsonDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Fi => match &opts.fi_vocabularies {
            None => work.run(&mut binxml_fi::FiDecoder::with_limits(
                input,
                opts.limits.clone(),
            )),
            Some(v) => work.run(&mut Owned(
                binxml_fi::FiReadDecoder::with_limits(input, opts.limits.clone())
                    .with_vocabularies(v.clone()),
            )),
        },
        Format::Tsf => work.run(&mut binxml_tsf::TsfDecoder::with_options(
            input,
            binxml_tsf::TsfOptions {
                limits: opts.limits.clone(),
                utf16_lengths: opts.tsf_utf16_lengths,
            },
        )),
        Format::Xebu => work.run(&mut binxml_xebu::XebuDecoder::with_limits(
            input,
            opts.limits.clone(),
        )),
        Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => {
            let rule = format.asn1_rule().expect("an ASN.1 format");
            work.run(&mut binxml_asn1::Asn1Decoder::with_limits(
                input,
                rule,
                opts.limits.clone(),
            ))
        }
    }
}

/// Push decoding of a whole document of any format: every event goes to `sink`
/// ([`Decoder::read_into`] of the format's decoder).
pub fn decode_into<'a, S: EventSink<'a>>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
    sink: &mut S,
) -> Result<()> {
    struct Into<'s, S>(&'s mut S);
    impl<'a, S: EventSink<'a>> WithDecoder<'a> for Into<'_, S> {
        type Output = ();
        fn run<D: Decoder<'a>>(self, decoder: &mut D) -> Result<()> {
            decoder.read_into(self.0)
        }
    }
    with_decoder(format, input, opts, Into(sink))
}

/// Converts by push decoding: every event of the `format` document in `input` (already
/// [`prepare`]d) is written to `encoder`, which is then finished. Returns the number of events.
/// The same output as [`transcode`] over [`decoder`], faster (no dynamic call and no
/// `Event` returned per item on the decoding side).
pub fn transcode_into(
    format: Format,
    input: &[u8],
    opts: &DecodeOptions,
    encoder: &mut dyn Encoder,
) -> Result<u64> {
    let mut sink = binxml_core::EncoderSink::new(encoder);
    decode_into(format, input, opts, &mut sink)?;
    let n = sink.events;
    encoder.finish()?;
    Ok(n)
}

/// Converts a whole document (`input`, already [`prepare`]d, in format `from`) to `to`, written
/// to `out`, by push decoding. Where the target's encoder is itself an [`EventSink`] (Fast
/// Infoset, the ASN.1 formats), the decoder hands it element starts and ends, attributes,
/// namespace declarations and text as their parts, with no [`Event`] built in between for FI
/// and no dynamic call per event for ASN.1; otherwise every event goes to the format's
/// [`encoder`]. The same bytes as [`transcode`]. Returns the number of items handed over
/// (events, or parts).
pub fn convert_to<'w>(
    from: Format,
    input: &[u8],
    dopts: &DecodeOptions,
    to: Format,
    out: Box<dyn Write + 'w>,
    eopts: &EncodeOptions,
) -> Result<u64> {
    struct Count<'e, S> {
        inner: &'e mut S,
        n: u64,
    }
    impl<'a, S: EventSink<'a>> EventSink<'a> for Count<'_, S> {
        #[inline]
        fn event(&mut self, event: Event<'a>) -> Result<()> {
            self.n += 1;
            self.inner.event(event)
        }
        #[inline]
        fn start_element(&mut self, name: QName<'a>) -> Result<()> {
            self.n += 1;
            self.inner.start_element(name)
        }
        #[inline]
        fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
            self.n += 1;
            self.inner.namespace(prefix, uri)
        }
        #[inline]
        fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
            self.n += 1;
            self.inner.attribute(name, value)
        }
        #[inline]
        fn end_element(&mut self) -> Result<()> {
            self.n += 1;
            self.inner.end_element()
        }
        #[inline]
        fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
            self.n += 1;
            self.inner.text(text)
        }
    }
    /// Push-decodes into `enc`, then finishes it.
    fn run<'a, E: for<'e> EventSink<'e> + Encoder>(
        from: Format,
        input: &'a [u8],
        dopts: &DecodeOptions,
        enc: &mut E,
    ) -> Result<u64> {
        let mut sink = Count { inner: enc, n: 0 };
        decode_into(from, input, dopts, &mut sink)?;
        let n = sink.n;
        enc.finish()?;
        Ok(n)
    }
    match to {
        Format::Fi => run(
            from,
            input,
            dopts,
            &mut binxml_fi::FiEncoder::with_options(out, eopts.fi.clone()),
        ),
        Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => run(
            from,
            input,
            dopts,
            &mut binxml_asn1::Asn1Encoder::new(out, asn1_options(to, eopts)),
        ),
        _ => {
            let mut enc = encoder(to, out, eopts)?;
            transcode_into(from, input, dopts, &mut *enc)
        }
    }
}

/// An encoder for `format` writing to `out`.
pub fn encoder<'w>(
    format: Format,
    out: Box<dyn Write + 'w>,
    opts: &EncodeOptions,
) -> Result<Box<dyn Encoder + 'w>> {
    Ok(match format {
        Format::Xml => Box::new(binxml_xml::XmlWriter::with_options(
            out,
            binxml_xml::XmlWriterOptions {
                indent: opts.indent,
                fragments: false,
            },
        )),
        Format::Json => Box::new(binxml_json::JsonEncoder::new(out).pretty(opts.indent.is_some())),
        Format::Fi => Box::new(binxml_fi::FiEncoder::with_options(out, opts.fi.clone())),
        Format::Tsf => Box::new(binxml_tsf::TsfEncoder::with_options(out, opts.tsf.clone())),
        Format::Xebu => Box::new(binxml_xebu::XebuEncoder::with_options(
            out,
            opts.xebu.clone(),
        )),
        Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => Box::new(
            binxml_asn1::Asn1Encoder::new(out, asn1_options(format, opts)),
        ),
    })
}

/// The ASN.1 encoder's options for `format` (one of the ASN.1 formats): `opts.asn1` or every
/// feature on, with the format's rule.
fn asn1_options(format: Format, opts: &EncodeOptions) -> binxml_asn1::Options {
    let rule = format.asn1_rule().expect("an ASN.1 format");
    let mut o = opts.asn1.unwrap_or_else(|| binxml_asn1::Options::new(rule));
    o.rule = rule;
    o
}

/// Converts a whole document from one format to another (`from: None` detects it).
pub fn convert(input: &[u8], from: Option<Format>, to: Format) -> Result<Vec<u8>> {
    let from = match from {
        Some(f) => f,
        None => detect(input).ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "detect",
                "cannot tell the input's format; name it",
            )
        })?,
    };
    let prepared = prepare(from, input)?;
    let mut out = Vec::new();
    convert_to(
        from,
        &prepared,
        &DecodeOptions::default(),
        to,
        Box::new(&mut out),
        &EncodeOptions::default(),
    )?;
    Ok(out)
}

/// Parses a document of any format into the tree, by push decoding
/// ([`Document::parse_push`]).
pub fn parse_tree<'a>(format: Format, input: &'a [u8]) -> Result<Document<'a>> {
    parse_tree_with(format, input, &DecodeOptions::default())
}

/// [`parse_tree`] with decoding options (limits, external vocabularies).
pub fn parse_tree_with<'a>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
) -> Result<Document<'a>> {
    struct Tree(usize);
    impl<'a> WithDecoder<'a> for Tree {
        type Output = Document<'a>;
        fn run<D: Decoder<'a>>(self, decoder: &mut D) -> Result<Document<'a>> {
            Document::parse_push(decoder, self.0)
        }
    }
    // The tree reserves room from the size of the XML the document stands for; binary formats
    // are denser than their XML (about 3x for FI and PER on the corpus).
    let hint = if format == Format::Xml || format == Format::Json {
        input.len()
    } else {
        input.len().saturating_mul(3)
    };
    match prepare(format, input)? {
        Cow::Borrowed(input) => with_decoder(format, input, opts, Tree(hint)),
        // XML in another encoding than UTF-8: its UTF-8 form lives only while the tree is
        // built, so the tree takes owned copies of its strings.
        Cow::Owned(utf8) => {
            struct Owning<D>(D);
            impl<'a, 'b, D: Decoder<'b>> Decoder<'a> for Owning<D> {
                fn next_event(&mut self) -> Result<Option<Event<'a>>> {
                    Ok(self.0.next_event()?.map(Event::into_owned))
                }
                fn offset(&self) -> u64 {
                    self.0.offset()
                }
            }
            let dec = binxml_xml::XmlDecoder::with_limits(&utf8, opts.limits.clone());
            Document::parse_push(&mut Owning(dec), hint)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(*f));
        }
        assert!("nope".parse::<Format>().is_err());
    }

    #[test]
    fn detection() {
        assert_eq!(
            detect(b"\xEF\xBB\xBF<?xml version='1.0'?><a/>"),
            Some(Format::Xml)
        );
        assert_eq!(detect(b"  {\"a\": 1}"), Some(Format::Json));
        assert_eq!(detect(b"\x00\x01\x02"), None);
    }

    #[test]
    fn every_format_round_trips_a_document_and_is_detected() {
        let xml = r#"<?xml version="1.0"?><!--c--><inv xmlns="urn:i" cur="EUR"><item n="1">café &amp; tea</item><?pi d?><x:y xmlns:x="urn:x" x:a="b"/></inv>"#.as_bytes();
        let canon = convert(xml, Some(Format::Xml), Format::Xml).unwrap();
        for &f in Format::ALL.iter().filter(|&&f| f != Format::Json) {
            let enc = convert(xml, Some(Format::Xml), f).unwrap();
            let back = convert(&enc, Some(f), Format::Xml).unwrap();
            // The XML declaration is not part of the infoset that every format keeps.
            let strip = |b: &[u8]| {
                let s = String::from_utf8_lossy(b).into_owned();
                match s.strip_prefix("<?xml") {
                    Some(rest) => rest[rest.find("?>\n").unwrap() + 3..].to_string(),
                    None => s,
                }
            };
            assert_eq!(strip(&back), strip(&canon), "{f}");
            if !matches!(f, Format::Asn1Uper | Format::Asn1Aper) {
                assert_eq!(detect(&enc), Some(f), "{f}");
            }
        }
    }

    #[test]
    fn parse_tree_reads_xml_in_any_declared_encoding() {
        let latin1 = b"<?xml version='1.0' encoding='ISO-8859-1'?><a t='caf\xE9'>na\xEFve</a>";
        let doc = parse_tree(Format::Xml, latin1).unwrap();
        let root = doc.root().unwrap();
        assert_eq!(root.attribute("t"), Some("caf\u{e9}"));
        assert_eq!(root.text(), "na\u{ef}ve");
    }

    #[test]
    fn xml_json_round_trip() {
        let j = convert(br#"{"a":[1,2.50,true,null,"x"]}"#, None, Format::Xml).unwrap();
        let back = convert(&j, None, Format::Json).unwrap();
        assert_eq!(
            std::str::from_utf8(&back).unwrap().replace([' ', '\n'], ""),
            r#"{"a":[1,2.50,true,null,"x"]}"#
        );
    }
}
