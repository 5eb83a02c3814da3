//! The mapping between JSON values and binxml events (documented in `docs/json-mapping.md`);
//! shared with binxml-tsf through binxml-core.

pub use binxml_core::json_mapping::*;
