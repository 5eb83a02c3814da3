//! One decoder and one encoder for every format: enums that dispatch to the codec once per
//! call, so that push decoding ([`Decoder::read_into`]) runs the codec's own loop with no
//! trait object in between.

use std::borrow::Cow;
use std::io::Write;
use std::marker::PhantomData;

use binxml_core::{Decoder, Encoder, Event, EventSink, QName, Result, Tape};

use crate::Format;
use crate::options::{DecodeOptions, EncodeOptions};

self_cell::self_cell!(
    /// XML in another encoding than UTF-8: its UTF-8 form, and the decoder over it.
    struct TranscodedXml {
        owner: Vec<u8>,
        #[not_covariant]
        dependent: XmlOver,
    }
);

type XmlOver<'b> = binxml_xml::XmlDecoder<'b>;

/// A pull decoder for any [`Format`], over a document held in memory.
///
/// ```
/// use binxml::{AnyDecoder, DecodeOptions, Decoder, Event, Format};
/// let mut dec = AnyDecoder::new(Format::Xml, b"<a x='1'>hi</a>", &DecodeOptions::default())?;
/// let mut names = Vec::new();
/// while let Some(ev) = dec.next_event()? {
///     if let Event::StartElement(q) = ev {
///         names.push(q.local.into_owned());
///     }
/// }
/// assert_eq!(names, ["a"]);
/// # Ok::<(), binxml::Error>(())
/// ```
pub struct AnyDecoder<'a>(Inner<'a>);

enum Inner<'a> {
    Xml(binxml_xml::XmlDecoder<'a>),
    /// Events are copied out of the transcoded buffer, which the decoder owns.
    XmlTranscoded(Box<TranscodedXml>),
    Json(binxml_json::JsonDecoder<'a>),
    Fi(binxml_fi::FiDecoder<'a>),
    /// With external vocabularies, which the streaming decoder holds (owned strings).
    FiVocabularies(binxml_fi::FiReadDecoder<&'a [u8]>),
    Tsf(binxml_tsf::TsfDecoder<'a>),
    Xebu(binxml_xebu::XebuDecoder<'a>),
    Asn1(binxml_asn1::Asn1Decoder<'a>),
    Exi(Box<binxml_exi::ExiDecoder<'a>>),
    ExiInformed(Box<binxml_exi::informed::SchemaDecoder<'a>>),
    X694(binxml_asn1::x694::X694Decoder<'a>),
}

impl<'a> AnyDecoder<'a> {
    /// A decoder for `format` over `input`, with `opts`' limits and tables. XML in any
    /// declared encoding is read (transcoded to UTF-8 first when it is not UTF-8).
    pub fn new(format: Format, input: &'a [u8], opts: &DecodeOptions) -> Result<AnyDecoder<'a>> {
        let limits = opts.limits.clone();
        Ok(AnyDecoder(match format {
            Format::Xml => match binxml_xml::to_utf8(input)? {
                Cow::Borrowed(utf8) => {
                    Inner::Xml(binxml_xml::XmlDecoder::with_limits(utf8, limits))
                }
                Cow::Owned(utf8) => Inner::XmlTranscoded(Box::new(TranscodedXml::new(utf8, |b| {
                    binxml_xml::XmlDecoder::with_limits(b, limits)
                }))),
            },
            Format::Json => Inner::Json(binxml_json::JsonDecoder::with_limits(input, limits)),
            Format::Fi => match &opts.fi_vocabularies {
                None => Inner::Fi(binxml_fi::FiDecoder::with_limits(input, limits)),
                Some(v) => Inner::FiVocabularies(
                    binxml_fi::FiReadDecoder::with_limits(input, limits)
                        .with_vocabularies(v.clone()),
                ),
            },
            Format::Tsf => Inner::Tsf(binxml_tsf::TsfDecoder::with_options(
                input,
                binxml_tsf::TsfOptions::default()
                    .with_limits(limits)
                    .with_utf16_lengths(opts.tsf_utf16_lengths),
            )),
            Format::Xebu => Inner::Xebu(
                match &opts.xebu_schema {
                    Some(s) => binxml_xebu::XebuDecoder::with_schema(input, limits, s),
                    None => binxml_xebu::XebuDecoder::with_limits(input, limits),
                }
                // A stream of several messages is refused rather than cut to its first
                // (`binxml_xebu::decode_stream` reads them all).
                .one_document(),
            ),
            Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => {
                let rule = binxml_asn1::Rule::from_format(format).expect("an ASN.1 format");
                let d = binxml_asn1::Asn1Decoder::with_limits(input, rule, limits);
                Inner::Asn1(if opts.positions {
                    d.with_positions()
                } else {
                    d
                })
            }
            Format::Exi if opts.exi_schema.is_some() => {
                Inner::ExiInformed(Box::new(binxml_exi::informed::SchemaDecoder::new(
                    input,
                    opts.exi_schema.clone().expect("checked"),
                    opts.exi.clone(),
                    limits,
                )))
            }
            Format::Exi => Inner::Exi(Box::new(binxml_exi::ExiDecoder::with_options(
                input,
                opts.exi.clone(),
                limits,
            ))),
            Format::Asn1XsdUper | Format::Asn1XsdAper | Format::Asn1XsdBer => {
                let Some(x) = opts.x694.clone() else {
                    return Err(binxml_core::Error::invalid_options(
                        format,
                        "decoding needs the schema (DecodeOptions::x694, --schema)",
                    ));
                };
                // Element wildcards' content is XML text, which the XML codec reads.
                Inner::X694(
                    binxml_asn1::x694::X694Decoder::new(input, x, format, limits)
                        .with_fragments(std::sync::Arc::new(crate::XmlText)),
                )
            }
        }))
    }
}

/// A batch of events pulled one at a time from `next` (the provided `Decoder::next_batch`).
fn batch_of<'a>(
    out: &mut Vec<Event<'a>>,
    mut next: impl FnMut() -> Result<Option<Event<'a>>>,
) -> Result<usize> {
    let start = out.len();
    while out.len() - start < binxml_core::BATCH_EVENTS {
        match next()? {
            Some(ev) => out.push(ev),
            None => break,
        }
    }
    Ok(out.len() - start)
}

/// A lent batch of events pulled one at a time from `next` (the provided `Decoder::next_lent`).
fn lent_of<'a>(
    batch: &mut binxml_core::LentBatch<'a>,
    mut next: impl FnMut() -> Result<Option<Event<'a>>>,
) -> Result<usize> {
    batch.clear();
    while !batch.full() {
        match next()? {
            Some(ev) => batch.dispatch(ev)?,
            None => break,
        }
    }
    Ok(batch.len())
}

impl<'a> Decoder<'a> for AnyDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        match &mut self.0 {
            Inner::Xml(d) => d.next_event(),
            Inner::XmlTranscoded(d) => {
                d.with_dependent_mut(|_, d| Ok(d.next_event()?.map(Event::into_owned)))
            }
            Inner::Json(d) => d.next_event(),
            Inner::Fi(d) => d.next_event(),
            Inner::FiVocabularies(d) => d.next_event(),
            Inner::Tsf(d) => d.next_event(),
            Inner::Xebu(d) => d.next_event(),
            Inner::Asn1(d) => d.next_event(),
            Inner::Exi(d) => d.next_event(),
            Inner::ExiInformed(d) => d.next_event(),
            Inner::X694(d) => d.next_event(),
        }
    }

    fn offset(&self) -> u64 {
        match &self.0 {
            Inner::Xml(d) => d.offset(),
            Inner::XmlTranscoded(d) => d.with_dependent(|_, d| d.offset()),
            Inner::Json(d) => d.offset(),
            Inner::Fi(d) => d.offset(),
            Inner::FiVocabularies(d) => d.offset(),
            Inner::Tsf(d) => d.offset(),
            Inner::Xebu(d) => d.offset(),
            Inner::Asn1(d) => d.offset(),
            Inner::Exi(d) => d.offset(),
            Inner::ExiInformed(d) => d.offset(),
            Inner::X694(d) => d.offset(),
        }
    }

    fn bit_offset(&self) -> Option<u64> {
        match &self.0 {
            Inner::Asn1(d) => d.bit_offset(),
            Inner::Exi(d) => d.bit_offset(),
            Inner::ExiInformed(d) => d.bit_offset(),
            _ => None,
        }
    }

    /// The codec's own push loop: one dispatch for the whole document.
    /// Batched pull: the codec's own push loop into a batch where the codec has one that
    /// stops when the batch is full (XML, Fast Infoset, ASN.1 PER and BER, EXI without a
    /// schema, Xebu); the codec's `next_event` for the others.
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        match &mut self.0 {
            Inner::Xml(_)
            | Inner::XmlTranscoded(_)
            | Inner::Fi(_)
            | Inner::Asn1(_)
            | Inner::Exi(_) => binxml_core::next_batch_by_push(self, out),
            Inner::Json(d) => d.next_batch(out),
            Inner::FiVocabularies(d) => batch_of(out, || d.next_event()),
            Inner::Tsf(d) => d.next_batch(out),
            Inner::Xebu(d) => d.next_batch(out),
            Inner::ExiInformed(d) => d.next_batch(out),
            Inner::X694(d) => d.next_batch(out),
        }
    }

    /// Batched pull into a lent batch: the same choice of loop as [`Decoder::next_batch`].
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        match &mut self.0 {
            Inner::Xml(_)
            | Inner::XmlTranscoded(_)
            | Inner::Fi(_)
            | Inner::Asn1(_)
            | Inner::Exi(_) => binxml_core::next_lent_by_push(self, batch),
            Inner::Json(d) => d.next_lent(batch),
            Inner::FiVocabularies(d) => lent_of(batch, || d.next_event()),
            Inner::Tsf(d) => d.next_lent(batch),
            Inner::Xebu(d) => d.next_lent(batch),
            Inner::ExiInformed(d) => d.next_lent(batch),
            Inner::X694(d) => d.next_lent(batch),
        }
    }

    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        match &mut self.0 {
            Inner::Xml(d) => d.read_into(sink),
            Inner::XmlTranscoded(d) => d.with_dependent_mut(|_, d| {
                d.read_into(&mut Owning {
                    sink,
                    _a: PhantomData,
                })
            }),
            Inner::Json(d) => d.read_into(sink),
            Inner::Fi(d) => d.read_into(sink),
            Inner::FiVocabularies(d) => {
                while let Some(ev) = d.next_event()? {
                    sink.dispatch(ev)?;
                }
                Ok(())
            }
            Inner::Tsf(d) => d.read_into(sink),
            Inner::Xebu(d) => d.read_into(sink),
            Inner::Asn1(d) => d.read_into(sink),
            // The decoders' own push loops (the Box's would be the provided, pulling one).
            Inner::Exi(d) => (**d).read_into(sink),
            Inner::ExiInformed(d) => (**d).read_into(sink),
            Inner::X694(d) => d.read_into(sink),
        }
    }
}

/// Hands events borrowed from a short-lived buffer to a sink of longer-lived ones, as copies.
struct Owning<'s, 'a, S> {
    sink: &'s mut S,
    _a: PhantomData<&'a ()>,
}

impl<'b, 'a, S: EventSink<'a>> EventSink<'b> for Owning<'_, 'a, S> {
    fn event(&mut self, event: Event<'b>) -> Result<()> {
        self.sink.event(event.into_owned())
    }
    fn start_element(&mut self, name: QName<'b>) -> Result<()> {
        self.sink.start_element(name.into_owned())
    }
    fn namespace(&mut self, prefix: Cow<'b, str>, uri: Cow<'b, str>) -> Result<()> {
        self.sink.namespace(
            Cow::Owned(prefix.into_owned()),
            Cow::Owned(uri.into_owned()),
        )
    }
    fn attribute(&mut self, name: QName<'b>, value: Cow<'b, str>) -> Result<()> {
        self.sink
            .attribute(name.into_owned(), Cow::Owned(value.into_owned()))
    }
    fn end_element(&mut self) -> Result<()> {
        self.sink.end_element()
    }
    fn text(&mut self, text: Cow<'b, str>) -> Result<()> {
        self.sink.text(Cow::Owned(text.into_owned()))
    }
    fn full(&self) -> bool {
        self.sink.full()
    }
}

/// An encoder for any [`Format`], writing to `W`.
///
/// ```
/// use binxml::{AnyEncoder, EncodeOptions, Encoder, Event, Format, QName};
/// let mut out = Vec::new();
/// let mut enc = AnyEncoder::new(Format::Xml, &mut out, &EncodeOptions::default());
/// for ev in [
///     Event::StartDocument { version: None, encoding: None, standalone: None },
///     Event::StartElement(QName::local("a")),
///     Event::EndElement,
///     Event::EndDocument,
/// ] {
///     enc.write_event(&ev)?;
/// }
/// enc.finish()?;
/// drop(enc);
/// assert!(String::from_utf8(out).unwrap().ends_with("<a/>"));
/// # Ok::<(), binxml::Error>(())
/// ```
pub struct AnyEncoder<W: Write>(Enc<W>);

enum Enc<W: Write> {
    /// Boxed, as the FI encoder: the XML writer keeps a 4 KB table of the names it has checked.
    Xml(Box<binxml_xml::XmlWriter<W>>),
    Json(binxml_json::JsonEncoder<W>),
    /// Boxed: the FI encoder is about 5 KB, the others at most 650 bytes (no measurable cost:
    /// the encoder allocates its 64 KB buffer and its tables anyway).
    Fi(Box<binxml_fi::FiEncoder<W>>),
    Tsf(binxml_tsf::TsfEncoder<W>),
    Xebu(binxml_xebu::XebuEncoder<W>),
    Asn1(binxml_asn1::Asn1Encoder<W>),
    Exi(Box<binxml_exi::ExiEncoder<W>>),
    ExiInformed(Box<binxml_exi::informed::SchemaEncoder<W>>),
    X694(binxml_asn1::x694::X694Encoder<W>),
    /// A format whose options are missing (a schema-informed format without its schema):
    /// every event is an error.
    Unusable(Format, &'static str),
}

impl<W: Write> AnyEncoder<W> {
    /// An encoder for `format` writing to `out`, with the options of `opts` that concern it.
    pub fn new(format: Format, out: W, opts: &EncodeOptions) -> AnyEncoder<W> {
        AnyEncoder(match format {
            Format::Xml => Enc::Xml(Box::new(binxml_xml::XmlWriter::with_options(
                out,
                binxml_xml::XmlWriterOptions::default()
                    .with_indent(opts.indent)
                    .with_fragments(false),
            ))),
            Format::Json => {
                Enc::Json(binxml_json::JsonEncoder::new(out).pretty(opts.indent.is_some()))
            }
            Format::Fi => Enc::Fi(Box::new(binxml_fi::FiEncoder::with_options(
                out,
                opts.fi.clone(),
            ))),
            Format::Tsf => Enc::Tsf(binxml_tsf::TsfEncoder::with_options(out, opts.tsf.clone())),
            Format::Xebu => Enc::Xebu(binxml_xebu::XebuEncoder::with_options(
                out,
                opts.xebu.clone(),
            )),
            Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber => Enc::Asn1(
                binxml_asn1::Asn1Encoder::new(out, opts.asn1_options(format)),
            ),
            Format::Exi if opts.exi_schema.is_some() => {
                Enc::ExiInformed(Box::new(binxml_exi::informed::SchemaEncoder::new_deferred(
                    out,
                    opts.exi_schema.clone().expect("checked"),
                    opts.exi.clone(),
                )))
            }
            Format::Exi => Enc::Exi(Box::new(binxml_exi::ExiEncoder::with_options_deferred(
                out,
                opts.exi.clone(),
            ))),
            Format::Asn1XsdUper | Format::Asn1XsdAper | Format::Asn1XsdBer => match &opts.x694 {
                // Element wildcards' content is XML text, which the XML codec writes.
                Some(x) => Enc::X694(
                    binxml_asn1::x694::X694Encoder::new(out, x.clone(), format)
                        .with_fragments(std::sync::Arc::new(crate::XmlText)),
                ),
                None => Enc::Unusable(
                    format,
                    "encoding needs the schema (EncodeOptions::x694, --schema)",
                ),
            },
        })
    }

    /// Push-decodes all of `decoder` into this encoder and finishes it: the decoder's own loop
    /// hands its items to the encoder's, with no dispatch per event where the encoder takes
    /// items as their parts (Fast Infoset, the ASN.1 formats). Returns the number of items.
    pub fn encode_from<'a>(&mut self, decoder: &mut AnyDecoder<'a>) -> Result<u64> {
        fn run<'a, S: EventSink<'a> + Encoder>(d: &mut AnyDecoder<'a>, enc: &mut S) -> Result<u64> {
            let mut sink = Counting { inner: enc, n: 0 };
            d.read_into(&mut sink)?;
            let n = sink.n;
            enc.finish()?;
            Ok(n)
        }
        fn by_event<'a, E: Encoder>(d: &mut AnyDecoder<'a>, enc: &mut E) -> Result<u64> {
            let mut sink = binxml_core::EncoderSink::new(enc);
            d.read_into(&mut sink)?;
            let n = sink.events;
            enc.finish()?;
            Ok(n)
        }
        match &mut self.0 {
            Enc::Fi(e) => run(decoder, &mut **e),
            Enc::Asn1(e) => run(decoder, e),
            Enc::Xml(e) => by_event(decoder, e.as_mut()),
            Enc::Json(e) => by_event(decoder, e),
            Enc::Tsf(e) => by_event(decoder, e),
            Enc::Xebu(e) => by_event(decoder, e),
            Enc::Exi(e) => by_event(decoder, e.as_mut()),
            Enc::ExiInformed(e) => by_event(decoder, e.as_mut()),
            Enc::X694(e) => by_event(decoder, e),
            Enc::Unusable(f, why) => Err(binxml_core::Error::invalid_options(*f, *why)),
        }
    }
}

macro_rules! each_encoder {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            Enc::Xml($e) => $body,
            Enc::Json($e) => $body,
            Enc::Fi($e) => $body,
            Enc::Tsf($e) => $body,
            Enc::Xebu($e) => $body,
            Enc::Asn1($e) => $body,
            Enc::Exi($e) => $body,
            Enc::ExiInformed($e) => $body,
            Enc::X694($e) => $body,
            Enc::Unusable(f, why) => {
                let $e = &mut Unusable(*f, why);
                $body
            }
        }
    };
}

impl<W: Write> Encoder for AnyEncoder<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        each_encoder!(&mut self.0, e => e.write_event(event))
    }
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        each_encoder!(&mut self.0, e => e.write_events(events))
    }
    fn write_tape(&mut self, tape: &Tape<'_>) -> Result<()> {
        each_encoder!(&mut self.0, e => e.write_tape(tape))
    }
    fn finish(&mut self) -> Result<()> {
        each_encoder!(&mut self.0, e => e.finish())
    }
}

impl Encoder for Unusable {
    fn write_event(&mut self, _: &Event<'_>) -> Result<()> {
        Err(binxml_core::Error::invalid_options(self.0, self.1))
    }
    fn finish(&mut self) -> Result<()> {
        Err(binxml_core::Error::invalid_options(self.0, self.1))
    }
}

/// The encoder of [`Enc::Unusable`].
struct Unusable(Format, &'static str);

/// Counts the items handed to the sink beneath.
struct Counting<'e, S> {
    inner: &'e mut S,
    n: u64,
}

impl<'a, S: EventSink<'a>> EventSink<'a> for Counting<'_, S> {
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
    #[inline]
    fn full(&self) -> bool {
        self.inner.full()
    }
}
