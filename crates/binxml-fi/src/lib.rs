//! binxml-fi: Fast Infoset (ITU-T Rec. X.891 | ISO/IEC 24824-1) for binxml's event model.
//!
//! * [`FiEncoder`] writes a Fast Infoset document from [`Event`](binxml_core::Event)s to any
//!   [`std::io::Write`], with the encoder policies of [`FiOptions`] (which values and chunks are
//!   indexed, UTF-8 or UTF-16, restricted alphabets, external vocabulary, XML declaration).
//! * [`FiDecoder`] reads a document held in memory; strings that the document holds as UTF-8
//!   literals are borrowed from the input. [`FiReadDecoder`] reads from any [`std::io::Read`]
//!   with memory bounded by the vocabulary (events are `'static`).
//! * [`Vocabulary`] is an external (or initial) vocabulary: built from sample documents with
//!   [`VocabularyBuilder`] or given by the application, and referenced by URI.
//!
//! The bit layouts follow clause 7 and Annex C of X.891; `docs/fastinfoset.md` describes the
//! choices this implementation makes and how it compares with the Java reference.
//!
//! XML to Fast Infoset and back (the `fi_convert` example does the same with files):
//!
//! ```
//! use binxml_core::transcode;
//! use binxml_fi::{FiDecoder, FiEncoder};
//! use binxml_xml::{XmlDecoder, XmlWriter};
//!
//! let xml = br#"<order id="7"><item sku="a1">two</item></order>"#;
//! let mut fi = FiEncoder::new(Vec::new());
//! transcode(&mut XmlDecoder::new(xml), &mut fi)?;
//! let fi = fi.into_inner();
//! assert!(binxml_fi::detect(&fi));
//!
//! let mut back = XmlWriter::new(Vec::new());
//! transcode(&mut FiDecoder::new(&fi), &mut back)?;
//! let back = String::from_utf8(back.into_inner()?).unwrap();
//! assert!(back.ends_with(r#"<order id="7"><item sku="a1">two</item></order>"#));
//! # Ok::<(), binxml_core::Error>(())
//! ```

mod algo;
mod dec;
mod enc;
mod vocab;

pub use dec::{FiDecoder, FiReadDecoder};
pub use enc::{FiEncoder, FiOptions};
pub use vocab::{Vocabularies, Vocabulary, VocabularyBuilder};

/// The format this crate implements (the `format` of its errors).
pub const FORMAT: binxml_core::Format = binxml_core::Format::Fi;

/// The four octets that open every Fast Infoset document (identification and version 1).
pub const MAGIC: [u8; 4] = [0xE0, 0x00, 0x00, 0x01];

/// The XML declaration a Fast Infoset document may start with.
pub const XML_DECLARATION: &str = "<?xml encoding='finf'?>";

/// True when `prefix` (the first bytes of a file, at least 4 when available) looks like a Fast
/// Infoset document: the binary header, or an XML declaration naming the `finf` encoding.
pub fn detect(prefix: &[u8]) -> bool {
    if prefix.starts_with(&MAGIC) {
        return true;
    }
    if prefix.starts_with(b"<?xml") {
        let end = prefix.len().min(64);
        let head = &prefix[..end];
        return head.windows(6).any(|w| w == b"'finf'" || w == b"\"finf\"");
    }
    false
}

/// Encodes a whole event stream to a Fast Infoset document with the default options.
pub fn encode(events: &[binxml_core::Event<'_>]) -> binxml_core::Result<Vec<u8>> {
    encode_with(events, FiOptions::default())
}

/// Encodes a whole event stream to a Fast Infoset document with the given options.
pub fn encode_with(
    events: &[binxml_core::Event<'_>],
    options: FiOptions,
) -> binxml_core::Result<Vec<u8>> {
    use binxml_core::Encoder;
    let mut enc = FiEncoder::with_options(Vec::new(), options);
    enc.write_events(events)?;
    enc.finish()?;
    Ok(enc.into_inner())
}

/// Decodes a whole Fast Infoset document (no external vocabulary) into owned events.
pub fn decode(input: &[u8]) -> binxml_core::Result<Vec<binxml_core::Event<'static>>> {
    use binxml_core::Decoder;
    let mut dec = FiDecoder::new(input);
    let mut out = Vec::new();
    while let Some(e) = dec.next_event()? {
        out.push(e.into_owned());
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
