//! The JSON event mapping, shared with binxml-json through binxml-core (documented in
//! `docs/json-mapping.md`).

pub use binxml_core::json_mapping::*;
