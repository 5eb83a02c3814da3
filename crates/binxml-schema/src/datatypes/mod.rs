//! The simple types of XML Schema 1.0 Part 2: the built-in types, facets, values and patterns.
//!
//! (Module documentation: see the end of this work.)

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
pub use resolver::{NamespaceResolver, NoNamespaces};
pub use value::{QNameValue, Value};
pub use whitespace::WhiteSpace;
