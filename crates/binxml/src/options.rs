//! What a decoder and an encoder are given beyond the bytes.

use binxml_core::Limits;

use crate::Format;

/// Options for decoding any format.
///
/// Build them from [`DecodeOptions::default`] and the `with_...` setters; the fields can be
/// read and changed, and every value of each is valid. The struct is `#[non_exhaustive]`, so
/// new options can be added without breaking callers.
///
/// ```
/// use binxml::{DecodeOptions, Limits};
///
/// let opts = DecodeOptions::default()
///     .with_limits(Limits::default().with_max_depth(64))
///     .with_positions(true);
/// assert_eq!(opts.limits.max_depth, 64);
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Limits on what the input may make the decoder hold (depth, string length, tables,
    /// entity expansion).
    pub limits: Limits,
    /// Fast Infoset external vocabularies by URI. A document that references a vocabulary not
    /// given here is refused.
    pub fi_vocabularies: Option<std::sync::Arc<binxml_fi::Vocabularies>>,
    /// TSF: primitive lengths count UTF-16 code units (files of the TSF paper's reference
    /// converter).
    pub tsf_utf16_lengths: bool,
    /// Record where each event starts in formats that read their whole input first (the ASN.1
    /// formats), so that [`Decoder::offset`](crate::Decoder::offset) and
    /// [`Decoder::bit_offset`](crate::Decoder::bit_offset) give it rather than the event's
    /// number (`binxml inspect`); costs a word of memory per event.
    pub positions: bool,
    /// EXI: the options of streams whose header does not carry them.
    pub exi: binxml_exi::ExiOptions,
    /// EXI: the schema the stream was written with (schema-informed EXI), as grammars built
    /// once ([`binxml_exi::informed::SchemaGrammars`]) and shared by every decoder.
    pub exi_schema: Option<std::sync::Arc<binxml_exi::informed::SchemaGrammars>>,
    /// `asn1-xsd-uper`, `-aper`, `-ber`: the schema mapped by X.694, built once
    /// ([`binxml_asn1::x694::X694`]) and shared by every decoder.
    pub x694: Option<std::sync::Arc<binxml_asn1::x694::X694>>,
    /// Xebu: the RELAX NG schema of XebuS messages (their omission automata).
    pub xebu_schema: Option<binxml_xebu::XebuSchema>,
}

impl DecodeOptions {
    /// Sets [`xebu_schema`](DecodeOptions::xebu_schema): decode XebuS with this schema.
    pub fn with_xebu_schema(mut self, schema: Option<binxml_xebu::XebuSchema>) -> Self {
        self.xebu_schema = schema;
        self
    }

    /// Sets [`x694`](DecodeOptions::x694): decode the `asn1-xsd-*` formats with this mapped schema.
    pub fn with_x694(mut self, x694: Option<std::sync::Arc<binxml_asn1::x694::X694>>) -> Self {
        self.x694 = x694;
        self
    }

    /// Sets [`limits`](DecodeOptions::limits): the limits on what the input may make the decoder
    /// hold.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`fi_vocabularies`](DecodeOptions::fi_vocabularies): the Fast Infoset external
    /// vocabularies by URI (`None`: none).
    pub fn with_fi_vocabularies(
        mut self,
        fi_vocabularies: Option<std::sync::Arc<binxml_fi::Vocabularies>>,
    ) -> Self {
        self.fi_vocabularies = fi_vocabularies;
        self
    }

    /// Sets [`tsf_utf16_lengths`](DecodeOptions::tsf_utf16_lengths): TSF primitive lengths count
    /// UTF-16 code units.
    pub fn with_tsf_utf16_lengths(mut self, tsf_utf16_lengths: bool) -> Self {
        self.tsf_utf16_lengths = tsf_utf16_lengths;
        self
    }

    /// Sets [`positions`](DecodeOptions::positions): record where each event starts in the formats
    /// that read their whole input first.
    pub fn with_positions(mut self, positions: bool) -> Self {
        self.positions = positions;
        self
    }

    /// Sets [`exi_schema`](DecodeOptions::exi_schema): decode EXI schema-informed with these
    /// grammars.
    pub fn with_exi_schema(
        mut self,
        grammars: Option<std::sync::Arc<binxml_exi::informed::SchemaGrammars>>,
    ) -> Self {
        self.exi_schema = grammars;
        self
    }

    /// Sets [`exi`](DecodeOptions::exi): the EXI options of streams whose header does not carry
    /// them.
    pub fn with_exi(mut self, exi: binxml_exi::ExiOptions) -> Self {
        self.exi = exi;
        self
    }
}

/// Options for encoding any format; each codec reads the part that concerns it.
///
/// Build them from [`EncodeOptions::default`] and the `with_...` setters; the fields can be
/// read and changed. Each codec's options are validated when they are built (see
/// [`binxml_asn1::Options`] and [`binxml_xebu::XebuOptions`]). The struct is
/// `#[non_exhaustive]`, so new options can be added without breaking callers.
///
/// ```
/// use binxml::{DecodeOptions, EncodeOptions, Format, asn1};
///
/// let asn1 = asn1::Options::new(asn1::Rule::Uper).with_compression(asn1::Compression::Zstd)?;
/// let opts = EncodeOptions::default()
///     .with_indent(Some(1))
///     .with_asn1(Some(asn1));
/// let mut xml = Vec::new();
/// let d = DecodeOptions::default();
/// binxml::convert_with(b"<a><b/></a>", Format::Xml, &d, Format::Xml, &mut xml, &opts)?;
/// assert_eq!(String::from_utf8(xml).unwrap(), "<a>\n <b/>\n</a>\n");
/// let mut per = Vec::new();
/// binxml::convert_with(b"<a><b/></a>", Format::Xml, &d, Format::Asn1Uper, &mut per, &opts)?;
/// # Ok::<(), binxml::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// XML and JSON output: indent by this many spaces.
    pub indent: Option<usize>,
    /// Fast Infoset encoder options.
    pub fi: binxml_fi::FiOptions,
    /// Xebu encoder options.
    pub xebu: binxml_xebu::XebuOptions,
    /// TSF encoder options (the reference converter's dialect).
    pub tsf: binxml_tsf::TsfEncoderOptions,
    /// ASN.1 encoder features (tables, compression); `None`: every feature of the infoset
    /// schema's section 3.3 on, no compression. The encoding rule always comes from the format.
    pub asn1: Option<binxml_asn1::Options>,
    /// EXI encoder options (checked when the encoder is made; an invalid combination is the
    /// error of its first event).
    pub exi: binxml_exi::ExiOptions,
    /// EXI: write schema-informed EXI with these grammars (built once from a schema and
    /// shared).
    pub exi_schema: Option<std::sync::Arc<binxml_exi::informed::SchemaGrammars>>,
    /// `asn1-xsd-uper`, `-aper`, `-ber`: the schema mapped by X.694, built once and shared; documents are
    /// validated against it before anything is written.
    pub x694: Option<std::sync::Arc<binxml_asn1::x694::X694>>,
}

impl EncodeOptions {
    /// Sets [`x694`](EncodeOptions::x694): encode the `asn1-xsd-*` formats with this mapped schema.
    pub fn with_x694(mut self, x694: Option<std::sync::Arc<binxml_asn1::x694::X694>>) -> Self {
        self.x694 = x694;
        self
    }

    /// Sets [`indent`](EncodeOptions::indent): XML and JSON output indented by this many spaces
    /// (`None`: none).
    pub fn with_indent(mut self, indent: Option<usize>) -> Self {
        self.indent = indent;
        self
    }

    /// Sets [`fi`](EncodeOptions::fi): the Fast Infoset encoder's options.
    pub fn with_fi(mut self, fi: binxml_fi::FiOptions) -> Self {
        self.fi = fi;
        self
    }

    /// Sets [`xebu`](EncodeOptions::xebu): the Xebu encoder's options.
    pub fn with_xebu(mut self, xebu: binxml_xebu::XebuOptions) -> Self {
        self.xebu = xebu;
        self
    }

    /// Sets [`tsf`](EncodeOptions::tsf): the TSF encoder's options.
    pub fn with_tsf(mut self, tsf: binxml_tsf::TsfEncoderOptions) -> Self {
        self.tsf = tsf;
        self
    }

    /// Sets [`asn1`](EncodeOptions::asn1): the ASN.1 encoder's features (`None`: every feature on,
    /// no compression); the encoding rule always comes from the format.
    pub fn with_asn1(mut self, asn1: Option<binxml_asn1::Options>) -> Self {
        self.asn1 = asn1;
        self
    }

    /// Sets [`exi`](EncodeOptions::exi): the EXI encoder's options (checked when the encoder is
    /// made).
    pub fn with_exi(mut self, exi: binxml_exi::ExiOptions) -> Self {
        self.exi = exi;
        self
    }

    /// Sets [`exi_schema`](EncodeOptions::exi_schema): encode EXI schema-informed with these
    /// grammars.
    pub fn with_exi_schema(
        mut self,
        grammars: Option<std::sync::Arc<binxml_exi::informed::SchemaGrammars>>,
    ) -> Self {
        self.exi_schema = grammars;
        self
    }

    /// The ASN.1 encoder's options for `format` (one of the ASN.1 formats): `asn1` or every
    /// feature on, with the format's rule.
    pub(crate) fn asn1_options(&self, format: Format) -> binxml_asn1::Options {
        let rule = binxml_asn1::Rule::from_format(format).expect("an ASN.1 format");
        self.asn1
            .unwrap_or_else(|| binxml_asn1::Options::new(rule))
            .with_rule(rule)
    }
}
