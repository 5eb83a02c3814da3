//! EXI 1.0 (W3C Efficient XML Interchange, Second Edition), schema-less: a decoder and an
//! encoder for the whole format without a schema — the header with its options document,
//! the built-in grammars with learning, the string table with its bounds, every fidelity
//! option, fragments, and the four layouts (bit-packed, byte-aligned, pre-compression and
//! compression with DEFLATE). `docs/exi.md` describes the codec and where it matches
//! EXIficient, the reference it is tested against.
//!
//! ```
//! use binxml_exi::{Alignment, ExiOptions};
//!
//! let xml = br#"<note to="Tove"><!--draft--><body>Hi</body></note>"#;
//! let events = binxml_xml::decode(xml)?;
//! // EXI's defaults keep elements, attributes and text; the decoder declares `xsi` on the root
//! // (it invents the prefixes, which the stream does not carry).
//! let exi = binxml_exi::encode(&events)?;
//! let back = binxml_xml::encode(&binxml_exi::decode(&exi)?)?;
//! assert!(String::from_utf8(back).unwrap().ends_with(
//!     r#"<note xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" to="Tove"><body>Hi</body></note>"#
//! ));
//!
//! // Comments, PIs, prefixes and the DOCTYPE need their preserve options; compression packs
//! // the values by name and deflates them. With the options in the header, any decoder reads it.
//! let options = ExiOptions::preserve_all()
//!     .with_alignment(Alignment::Compression)
//!     .with_include_options(true);
//! let packed = binxml_exi::encode_with(&events, &options)?;
//! let back = binxml_xml::encode(&binxml_exi::decode(&packed)?)?;
//! assert!(String::from_utf8(back).unwrap().ends_with(
//!     r#"<note to="Tove"><!--draft--><body>Hi</body></note>"#
//! ));
//! # Ok::<(), binxml_core::Error>(())
//! ```

#![forbid(unsafe_code)]

mod bits;
mod dec;
mod deflate;
mod enc;
mod grammar;
mod header;
mod index;
pub mod informed;
mod options;
mod tables;

pub use dec::ExiDecoder;
pub use enc::ExiEncoder;
#[doc(hidden)]
pub use informed::values::for_tests as __values_for_tests;
pub use options::{
    Alignment, BUILTIN_REPRESENTATIONS, DEFAULT_BLOCK_SIZE, DatatypeRepresentation, EXI_NS,
    ExiOptions, Whitespace,
};

use binxml_core::{Decoder, Encoder, Event, Format, Limits, Result};

/// The format's registry name.
pub const FORMAT: Format = Format::Exi;

/// Whether `prefix` (the first bytes of a file) is EXI: the `$EXI` cookie, or the
/// distinguishing bits `10` followed by a final version 1 header (`0x80`, or `0xA0` with
/// options). Without the cookie the test is a guess on one octet: try it after the formats
/// with stronger magic numbers.
pub fn detect(prefix: &[u8]) -> bool {
    if prefix.starts_with(header::COOKIE) {
        return true;
    }
    matches!(prefix.first(), Some(0x80 | 0xA0))
}

/// Decodes a whole EXI stream with default options (for streams whose header carries none,
/// the options must be EXI's defaults).
pub fn decode(input: &[u8]) -> Result<Vec<Event<'static>>> {
    decode_with(input, &ExiOptions::default())
}

/// Decodes a whole EXI stream; `options` apply when the header carries none.
pub fn decode_with(input: &[u8], options: &ExiOptions) -> Result<Vec<Event<'static>>> {
    let mut d = ExiDecoder::with_options(input, options.clone(), Limits::default());
    let mut out = Vec::new();
    while let Some(ev) = d.next_event()? {
        out.push(ev.into_owned());
    }
    Ok(out)
}

/// Encodes events as EXI with default options.
pub fn encode(events: &[Event<'_>]) -> Result<Vec<u8>> {
    encode_with(events, &ExiOptions::default())
}

/// Encodes events as EXI with `options`.
pub fn encode_with(events: &[Event<'_>], options: &ExiOptions) -> Result<Vec<u8>> {
    let mut e = ExiEncoder::with_options(Vec::new(), options.clone())?;
    e.write_events(events)?;
    e.finish()?;
    Ok(e.into_inner())
}
