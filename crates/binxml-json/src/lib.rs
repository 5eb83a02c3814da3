//! binxml-json: JSON as binxml events.
//!
//! [`JsonDecoder`] reads strict JSON (RFC 8259; every `y_` file of JSONTestSuite accepted, every
//! `n_` file rejected with a byte offset) into events; [`JsonEncoder`] writes such events back as
//! JSON. The mapping (see [`mapping`] and `docs/json-mapping.md`) is lossless: numbers keep their
//! exact text, member order and duplicate member names are kept, and since every value is an
//! element with its type in a `t` attribute, JSON survives a trip through XML (or any codec that
//! carries elements and attributes) and comes back value for value.

#![forbid(unsafe_code)]

pub mod decoder;
pub mod encoder;
pub mod mapping;

pub use decoder::{JsonDecoder, decode};
pub use encoder::{JsonEncoder, encode};
pub use mapping::{ITEM_NAME, JSON_NS, JsonType, KEY_ATTR, ROOT_NAME, TYPE_ATTR, is_json_number};

/// True when `input` looks like JSON (first non-whitespace byte after an optional BOM is `{`,
/// `[`, `"`, a digit, `-`, `t`, `f` or `n`): the format registry's detection hint.
pub fn detect(input: &[u8]) -> bool {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    match input
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        Some(b'{' | b'[') => true,
        Some(b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
            // Scalars: only when the whole input is short and plausible.
            input.len() < 4096
        }
        _ => false,
    }
}
