//! binxml-schema: XML Schema 1.0 for binxml. One schema model, loaded from local files into
//! resolved components, that validates documents and drives the schema-informed codecs (EXI
//! grammars, X.694, Xebu omission). `docs/schema.md` describes it.

#![forbid(unsafe_code)]

pub mod automaton;
pub mod datatypes;
mod error;
#[cfg(feature = "load")]
mod load;
pub mod model;
pub mod relaxng;

pub use error::SchemaError;
#[cfg(feature = "load")]
pub use load::LoadOptions;

/// The XML Schema namespace.
pub const XS: &str = "http://www.w3.org/2001/XMLSchema";
pub use model::Schema;
mod simple;
mod validate;

pub use validate::{Invalid, Validator};
