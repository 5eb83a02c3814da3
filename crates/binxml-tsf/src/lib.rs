//! binxml-tsf: the Transaction Serial Format and the Transaction Array Model (Evans 2020).
//!
//! A TSF message is a sequence of lexical units: a decimal number, an optional name and a type
//! character. For a structured unit the number counts the units it contains; for a primitive
//! unit it is the length of the data after the type character. See `docs/tsf.md`.
//!
//! * XML vocabulary: `<` element (`{count}{qname}<`), `=` attribute list (an element's first unit,
//!   counted in the element's count) or, at top level, the root message, `[` text and attribute
//!   value (`{len}{name}[{value}`), `]` CDATA, `!` doctype, `+` comment, `?` processing
//!   instruction (target, space, data), and `&` an unexpanded entity reference (binxml's
//!   addition). The root `{n}=` is written only when the document has more than one top-level
//!   item: `<project></project>` is `0project<`.
//! * JSON vocabulary (section 3, with distinct primitive types): `{` object, `[` array, `'`
//!   string, `#` number (its exact text), `~` `true`/`false`/`null`.
//! * Names that start with a digit or `"`, or hold a type character, use the `"` form with `\`
//!   escapes (section 3.1.4).
//! * Lengths are UTF-8 byte counts. [`TsfOptions::utf16_lengths`] reads files whose lengths
//!   count UTF-16 code units (the paper's reference converter).
//!
//! [`TsfEncoder`] and [`TsfDecoder`] are the event codec; [`Tam`] is the zero-copy tree.
//!
//! XML to TSF, then the TSF read back as a tree and as XML (the `tsf_convert` example converts
//! files between XML, JSON and TSF):
//!
//! ```
//! use binxml_core::transcode;
//! use binxml_tsf::{Tam, TsfDecoder, TsfEncoder};
//! use binxml_xml::{XmlDecoder, XmlWriter};
//!
//! let xml = br#"<project id="p1"><name>binxml</name></project>"#;
//! let mut tsf = TsfEncoder::new(Vec::new());
//! transcode(&mut XmlDecoder::new(xml), &mut tsf)?;
//! let tsf = tsf.into_inner();
//!
//! let tam = Tam::parse(&tsf)?; // one allocation per structured unit
//! assert!(tam.len() > 0);
//!
//! let mut back = XmlWriter::new(Vec::new());
//! transcode(&mut TsfDecoder::new(&tsf), &mut back)?;
//! let back = String::from_utf8(back.into_inner()?).unwrap();
//! assert!(back.ends_with(r#"<project id="p1"><name>binxml</name></project>"#));
//! # Ok::<(), binxml_core::Error>(())
//! ```

#![forbid(unsafe_code)]

mod decoder;
mod encoder;
mod events;
mod jsonmap;
mod lex;
mod push;
mod tam;

pub use decoder::{TsfDecoder, decode, decode_with};
pub use encoder::{TsfEncoder, TsfEncoderOptions, encode};
pub use jsonmap::{JSON_NS, JsonType};
pub use lex::{RawName, UnitKind};
pub use tam::{Descendants, Node, Tam, TamDecoder, Units};

use binxml_core::Limits;

/// Decoder options.
///
/// Build them from [`TsfOptions::default`] (or [`TsfOptions::reference`]) and the `with_...`
/// setters; the fields can be read and changed, and every value of each is valid. The struct is
/// `#[non_exhaustive]`, so new options can be added without breaking callers.
///
/// ```
/// use binxml_tsf::TsfOptions;
///
/// let opts = TsfOptions::default().with_utf16_lengths(true);
/// assert_eq!(opts, TsfOptions::reference());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TsfOptions {
    /// Primitive lengths count UTF-16 code units instead of UTF-8 bytes (files written by the
    /// paper's reference converter).
    pub utf16_lengths: bool,
    /// The limits on hostile input (TSF uses the nesting depth and the string length in bytes).
    pub limits: Limits,
}

impl TsfOptions {
    /// Options for the reference converter's files (UTF-16 lengths).
    pub fn reference() -> Self {
        TsfOptions::default().with_utf16_lengths(true)
    }

    /// Sets [`utf16_lengths`](TsfOptions::utf16_lengths): primitive lengths count UTF-16 code
    /// units.
    pub fn with_utf16_lengths(mut self, utf16_lengths: bool) -> Self {
        self.utf16_lengths = utf16_lengths;
        self
    }

    /// Sets [`limits`](TsfOptions::limits): the limits on hostile input.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// The format registry's detection hint: TSF starts with a digit run followed by a name or a
/// type character (`5=`, `0project<`, `12{`, ...). Weak on its own (JSON numbers start with
/// digits too): check JSON and XML first.
pub fn detect(input: &[u8]) -> bool {
    let digits = input.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return false;
    }
    let rest = &input[digits..];
    match rest.first() {
        Some(&c) if lex_type_char(c) || c == b'"' => true,
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' || *c == b':' => {
            // A name, then a type character.
            rest.iter()
                .take(256)
                .find(|c| lex_type_char(**c))
                .is_some_and(|c| matches!(c, b'<' | b'{' | b'['))
        }
        _ => false,
    }
}

fn lex_type_char(c: u8) -> bool {
    lex::TYPE_CHAR[c as usize]
}
