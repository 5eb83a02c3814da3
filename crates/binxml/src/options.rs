//! What a decoder and an encoder are given beyond the bytes.

use binxml_core::Limits;

use crate::Format;

/// Options for decoding any format.
#[derive(Clone, Debug, Default)]
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
}

/// Options for encoding any format; each codec reads the part that concerns it.
#[derive(Clone, Debug, Default)]
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
}

impl EncodeOptions {
    /// The ASN.1 encoder's options for `format` (one of the ASN.1 formats): `asn1` or every
    /// feature on, with the format's rule.
    pub(crate) fn asn1_options(&self, format: Format) -> binxml_asn1::Options {
        let rule = binxml_asn1::Rule::from_format(format).expect("an ASN.1 format");
        let mut o = self.asn1.unwrap_or_else(|| binxml_asn1::Options::new(rule));
        o.rule = rule;
        o
    }
}
