//! binxml-schema: XML Schema 1.0 for binxml. One schema model, loaded from local files into
//! resolved components, that validates documents and drives the schema-informed codecs (EXI
//! grammars, X.694, Xebu omission). `docs/schema.md` describes it.

#![forbid(unsafe_code)]

pub mod datatypes;
