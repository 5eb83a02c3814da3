//! The simple types of XML Schema 1.0 Part 2 (second edition, 2004): the built-in types, their
//! lexical spaces and values, the constraining facets, and the pattern language.
//!
//! # Using it
//!
//! - [`parse`]`(builtin, text, ns)` checks a string against a built-in type (white space,
//!   lexical space, the built-in's own range) and returns its [`Value`].
//! - [`Facets::builtin`] (or [`Facets::list`] for `<xs:list>`) gives a type's starting
//!   facets; [`Facets::restrict`] derives each `<xs:restriction>` step from its base's
//!   effective facets, refusing the restrictions Part 2 makes errors; [`Facets::validate`]
//!   checks a document's string against the result ([`Facets::check`] when the value is
//!   already parsed).
//! - [`Value`] has value-space equality (enumeration), order (range facets, a partial order
//!   for dates and durations) and length (length facets), and keeps what schema-informed
//!   EXI encodes: [`Decimal`] digits of any size, [`FloatValue::exi_mantissa_exponent`],
//!   [`DateTimeValue`] fields as written, bytes, expanded names. [`Facets::enumeration_index`],
//!   [`Facets::exi_char_set`] and [`Facets::integer_range`] answer EXI 7.2, 7.1.10.1 and
//!   7.1.5.
//! - [`Pattern`] compiles an XSD regular expression to the `regex` crate.
//!
//! # Choices where the specs leave room
//!
//! - XSD 1.0 second edition throughout: year 0000 is refused, `24:00:00` is allowed (the next
//!   day's midnight; for `time`, midnight), seconds stop at 59, `+INF` is refused (XSD 1.1).
//! - NaN equals itself (enumeration) and is incomparable with every other value, so no bound
//!   admits it; a date without timezone within 14 hours of a bound with one, or a duration
//!   such as P30D against P1M, is incomparable and fails the bound too (3.2.7.4, 3.2.6.2).
//! - A float literal beyond the type's range rounds to an infinity, as IEEE rounding does.
//! - Name characters are XML 1.0 fifth edition's, for Name, NCName, NMTOKEN and `\i`, `\c`.
//! - anyURI accepts any string (Part 2 defers to XLink's escaping, which can make any string a
//!   URI reference); base64Binary follows the second edition's grammar exactly (single inner
//!   spaces, canonical padding).
//!
//! # Limits (hostile input)
//!
//! Nothing panics on any input, matching is linear in the text (the `regex` crate), and memory
//! is proportional to the input. Years of more than 16 digits and duration components of more
//! than 18 are refused as out of range ([`ErrorKind::Range`]); patterns nested deeper than
//! [`Pattern::MAX_DEPTH`] or compiling to more than [`Pattern::SIZE_LIMIT`] are refused.
//! Errors quote at most [`DatatypeError::MAX_QUOTE`] characters of the offending text.
//!
//! # Not covered here
//!
//! - Union values: the model tries the member types in order ([`Facets::union`] and
//!   [`Facets::restrict_union`] keep a union's own pattern and enumeration facets, and
//!   [`Facets::check`] applies them to the member's value); likewise the facets of a list's
//!   item type (check each item from [`split_list`] against the item type's `Facets`).
//! - Rules of validation rather than of datatypes: ID uniqueness, IDREF targets, ENTITY and
//!   NOTATION declarations, NOTATION's "only through enumeration".
//! - XSD 1.1: assertions, explicitTimezone, the new types and lexical forms.
//! - Unicode versions: category escapes (`\p{Lu}`, `\d`, `\w`) use the `regex` crate's
//!   Unicode tables (newer than the Unicode 3.1 XSD 1.0 cites); block escapes use 3.1's blocks.
//! - Canonical lexical forms, other than [`Decimal`]'s `Display`.
//!
//! # Tests
//!
//! Unit tests per file; `tests/datatypes_oracle.rs` compares 1,309 cases with Python's
//! xmlschema (`tests/datatypes_oracle.py` writes the table; the cases where the spec and
//! xmlschema differ carry their clause); `tests/datatypes_hostile.rs` feeds hostile input.

mod builtin;
mod datetime;
mod error;
mod facets;
mod names;
mod number;
mod parse;
mod pattern;
mod resolver;
mod restrict;
mod value;
mod whitespace;

pub use builtin::Builtin;
pub use datetime::{DateTimeValue, DurationValue};
pub use error::{DatatypeError, ErrorKind};
pub use facets::{FacetKind, FacetSpec, Facets, Variety};
pub use names::{is_language, is_name, is_name_char, is_name_start_char, is_ncname, is_nmtoken};
pub use number::{Decimal, EXI_MAX_EXPONENT, EXI_SPECIAL_EXPONENT, FloatValue};
pub use parse::{parse, parse_list, split_list};
pub use pattern::{Pattern, restricted_char_set};
pub use resolver::{FnResolver, NamespaceResolver, NoNamespaces};
pub use restrict::MemberValue;
pub use value::{QNameValue, Value};
pub use whitespace::WhiteSpace;
