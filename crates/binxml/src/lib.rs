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

use std::io::Write;

pub use binxml_asn1 as asn1;
pub use binxml_core::{
    self as core, CountingSink, Decoder, DocType, Encoder, Error, ErrorKind, Event, EventSink,
    Format, Limits, QName, Result, Tape, Typed, UnknownFormat,
};
pub use binxml_exi as exi;
pub use binxml_fi as fi;
pub use binxml_json as json;
pub use binxml_schema as schema;
pub use binxml_sign as sign;
pub use binxml_tree as tree;
pub use binxml_tsf as tsf;
pub use binxml_xebu as xebu;
pub use binxml_xml as xml;

pub use binxml_tree::Document;

/// Detects the format of a document from its first bytes: Fast Infoset's magic number (or its
/// `<?xml encoding='finf'?>` declaration) first, then EXI's `$EXI` cookie or header octet
/// (`0x80`, `0xA0`: no text starts so), then the shape of the text formats (XML, TSF,
/// JSON), then BER's outer SEQUENCE and Xebu's document-start byte, which are weaker hints. PER
/// has no signature: name it with `-f asn1-uper` / `asn1-aper`. `None` when nothing matches.
pub fn detect(head: &[u8]) -> Option<Format> {
    if binxml_fi::detect(head) {
        return Some(Format::Fi);
    }
    if binxml_exi::detect(head) {
        return Some(Format::Exi);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = text
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    if first == Some(b'<') || head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Some(Format::Xml);
    }
    if binxml_tsf::detect(head) {
        return Some(Format::Tsf);
    }
    // BER's outer SEQUENCE tag is `0x30` (the digit 0): JSON can only follow a leading 0 with
    // `.`, an exponent or white space.
    if let [0x30, second, ..] = head
        && !matches!(second, b'.' | b'e' | b'E' | b' ' | b'\t' | b'\r' | b'\n')
    {
        return Some(Format::Asn1Ber);
    }
    if binxml_json::detect(head) {
        return Some(Format::Json);
    }
    if binxml_xebu::detect(head) {
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
    let strong = detect(head).filter(|f| match f {
        Format::Fi | Format::Xml => true,
        Format::Exi => head.starts_with(b"$EXI"),
        _ => false,
    });
    strong
        .or_else(|| {
            name.extension()
                .and_then(|e| e.to_str())
                .and_then(Format::from_extension)
        })
        .or_else(|| detect(head))
}

mod any;
mod fragments;
mod inspect;
mod options;

pub use any::{AnyDecoder, AnyEncoder};
pub use fragments::XmlText;
pub use inspect::{InspectLine, Inspector, Position};
pub use options::{DecodeOptions, EncodeOptions};

/// Converts a whole document from one format to another (`from: None` detects it), with the
/// default options.
///
/// ```
/// use binxml::Format;
/// let fi = binxml::convert(b"<a x='1'>hi</a>", Some(Format::Xml), Format::Fi)?;
/// let xml = binxml::convert(&fi, None, Format::Xml)?;
/// assert!(String::from_utf8(xml).unwrap().ends_with("<a x=\"1\">hi</a>"));
/// # Ok::<(), binxml::Error>(())
/// ```
pub fn convert(input: &[u8], from: Option<Format>, to: Format) -> Result<Vec<u8>> {
    let from = match from {
        Some(f) => f,
        None => {
            detect(input).ok_or_else(|| Error::detect("cannot tell the input's format; name it"))?
        }
    };
    let mut out = Vec::new();
    convert_with(
        input,
        from,
        &DecodeOptions::default(),
        to,
        &mut out,
        &EncodeOptions::default(),
    )?;
    Ok(out)
}

/// Converts a whole document (`input`, in format `from`) to `to`, written to `out`: the
/// format's decoder pushes into the target's encoder ([`AnyEncoder::encode_from`]). Returns
/// the number of items handed over (events, or parts of them).
pub fn convert_with<W: Write>(
    input: &[u8],
    from: Format,
    dopts: &DecodeOptions,
    to: Format,
    out: W,
    eopts: &EncodeOptions,
) -> Result<u64> {
    let mut decoder = AnyDecoder::new(from, input, dopts)?;
    AnyEncoder::new(to, out, eopts).encode_from(&mut decoder)
}

/// A pull decoder of an XML document read from `reader` as it is decoded, with `opts`'
/// limits: the memory it holds is a window of the document (256 KiB, or the longest token)
/// and that window's events, however long the document; events and errors are those of
/// [`AnyDecoder`] over the whole document ([`xml::XmlReadDecoder`] says where they differ).
/// Documents in another encoding than UTF-8 are read whole and transcoded first.
///
/// ```
/// use binxml::{Decoder, Event};
/// let doc: &[u8] = b"<log><e>1</e><e>2</e></log>";
/// let mut dec = binxml::xml_reader(doc, &binxml::DecodeOptions::default());
/// let mut ends = 0;
/// while let Some(ev) = dec.next_event()? {
///     ends += matches!(ev, Event::EndElement) as usize;
/// }
/// assert_eq!(ends, 3);
/// # Ok::<(), binxml::Error>(())
/// ```
pub fn xml_reader<R: std::io::Read>(reader: R, opts: &DecodeOptions) -> xml::XmlReadDecoder<R> {
    xml::XmlReadDecoder::with_limits(reader, opts.limits.clone())
}

/// Parses a document of any format into the tree, by push decoding
/// ([`Document::parse`]).
pub fn parse_tree<'a>(format: Format, input: &'a [u8]) -> Result<Document<'a>> {
    parse_tree_with(format, input, &DecodeOptions::default())
}

/// [`parse_tree`] with decoding options (limits, external vocabularies).
pub fn parse_tree_with<'a>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
) -> Result<Document<'a>> {
    Document::parse(
        &mut AnyDecoder::new(format, input, opts)?,
        tree_hint(format, input),
    )
}

/// [`parse_tree_with`], the strings that the decoder lends only for a call (EXI's) copied into
/// `strings` ([`Document::parse_in`]): what a tree that lives beside its input and arena uses
/// (the Python package's).
pub fn parse_tree_in<'a>(
    format: Format,
    input: &'a [u8],
    opts: &DecodeOptions,
    strings: &'a tree::Strings,
) -> Result<Document<'a>> {
    let mut dec = AnyDecoder::new(format, input, opts)?;
    Document::parse_in(&mut dec, tree_hint(format, input), strings)
}

/// The size of the XML a document stands for, from which the tree reserves room: binary
/// formats are denser than their XML (about 3x for FI and PER).
fn tree_hint(format: Format, input: &[u8]) -> usize {
    if format == Format::Xml || format == Format::Json {
        input.len()
    } else {
        input.len().saturating_mul(3)
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
            // EXI keeps comments, PIs and prefixes only when asked (its defaults drop them).
            let eopts = EncodeOptions {
                exi: exi::ExiOptions::preserve_all(),
                ..EncodeOptions::default()
            };
            let mut enc = Vec::new();
            convert_with(
                xml,
                Format::Xml,
                &DecodeOptions::default(),
                f,
                &mut enc,
                &eopts,
            )
            .unwrap();
            let dopts = DecodeOptions {
                exi: eopts.exi.clone(),
                ..DecodeOptions::default()
            };
            let mut back = Vec::new();
            let xml_out = EncodeOptions::default();
            convert_with(&enc, f, &dopts, Format::Xml, &mut back, &xml_out).unwrap();
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
