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

pub use binxml_core::{self as core, collect_events, transcode, Decoder, DocType, Encoder, Error, ErrorKind, Event, Limits, QName, Result, Typed};
pub use binxml_json as json;
pub use binxml_tree as tree;
pub use binxml_xml as xml;

pub use binxml_tree::Document;

/// Every format binxml reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// XML 1.0 text.
    Xml,
    /// JSON (RFC 8259), mapped to elements by `docs/json-mapping.md`.
    Json,
}

impl Format {
    /// Every format, in the order `binxml formats` lists them.
    pub const ALL: &'static [Format] = &[Format::Xml, Format::Json];

    /// The registry name (`-t NAME` on the command line).
    pub fn name(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Format::Xml => "XML 1.0 text (UTF-8 out; any declared encoding in)",
            Format::Json => "JSON text, lossless through the binxml JSON mapping",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
        }
    }

    /// Whether a format's first bytes identify it (magic number) rather than a guess.
    pub fn has_magic(self) -> bool {
        false
    }

    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.to_ascii_lowercase();
        Format::ALL.iter().copied().find(|f| f.name() == n || f.extension() == n)
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

/// Detects the format of a document from its first bytes: magic numbers first, then the shape
/// of text formats. `None` when nothing matches.
pub fn detect(head: &[u8]) -> Option<Format> {
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = text.iter().copied().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    if first == Some(b'<') || head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Some(Format::Xml);
    }
    if binxml_json::looks_like_json(head) {
        return Some(Format::Json);
    }
    None
}

/// Options for decoding.
#[derive(Clone, Debug, Default)]
pub struct DecodeOptions {
    pub limits: Limits,
}

/// Options for encoding.
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions {
    /// XML output: indent by this many spaces.
    pub indent: Option<usize>,
}

/// Prepares raw input for [`decoder`]: XML in another encoding than UTF-8 is transcoded.
pub fn prepare(format: Format, input: &[u8]) -> Result<Cow<'_, [u8]>> {
    match format {
        Format::Xml => binxml_xml::to_utf8(input),
        _ => Ok(Cow::Borrowed(input)),
    }
}

/// A pull decoder for `format` over `input` (already [`prepare`]d).
pub fn decoder<'a>(format: Format, input: &'a [u8], opts: &DecodeOptions) -> Result<Box<dyn Decoder<'a> + 'a>> {
    Ok(match format {
        Format::Xml => Box::new(binxml_xml::XmlDecoder::with_limits(input, opts.limits.clone())),
        Format::Json => Box::new(binxml_json::JsonDecoder::with_limits(input, opts.limits.clone())),
    })
}

/// An encoder for `format` writing to `out`.
pub fn encoder<'w>(format: Format, out: Box<dyn Write + 'w>, opts: &EncodeOptions) -> Result<Box<dyn Encoder + 'w>> {
    Ok(match format {
        Format::Xml => Box::new(binxml_xml::XmlWriter::with_options(
            out,
            binxml_xml::XmlWriterOptions { indent: opts.indent, fragments: false },
        )),
        Format::Json => Box::new(binxml_json::JsonEncoder::new(out)),
    })
}

/// Converts a whole document from one format to another (`from: None` detects it).
pub fn convert(input: &[u8], from: Option<Format>, to: Format) -> Result<Vec<u8>> {
    let from = match from {
        Some(f) => f,
        None => detect(input).ok_or_else(|| Error::new(ErrorKind::Unsupported, "detect", "cannot tell the input's format; name it"))?,
    };
    let prepared = prepare(from, input)?;
    let mut dec = decoder(from, &prepared, &DecodeOptions::default())?;
    let mut out = Vec::new();
    {
        let mut enc = encoder(to, Box::new(&mut out), &EncodeOptions::default())?;
        transcode(&mut dec, &mut enc)?;
    }
    Ok(out)
}

/// Parses a document of any format into the tree.
pub fn parse_tree<'a>(format: Format, input: &'a [u8]) -> Result<Document<'a>> {
    let mut dec = decoder(format, input, &DecodeOptions::default())?;
    Document::parse(&mut dec)
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
        assert_eq!(detect(b"\xEF\xBB\xBF<?xml version='1.0'?><a/>"), Some(Format::Xml));
        assert_eq!(detect(b"  {\"a\": 1}"), Some(Format::Json));
        assert_eq!(detect(b"\x00\x01\x02"), None);
    }

    #[test]
    fn xml_json_round_trip() {
        let j = convert(br#"{"a":[1,2.50,true,null,"x"]}"#, None, Format::Xml).unwrap();
        let back = convert(&j, None, Format::Json).unwrap();
        assert_eq!(std::str::from_utf8(&back).unwrap().replace([' ', '\n'], ""), r#"{"a":[1,2.50,true,null,"x"]}"#);
    }
}
