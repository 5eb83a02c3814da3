//! RELAX NG (ISO/IEC 19757-2; the OASIS specification of 2001-12-03 and the compact syntax of
//! 2002-11-21): schemas read from local files in the XML syntax or the compact syntax (`.rnc`),
//! simplified as section 4 of the specification says into a pattern graph ([`Grammar`]), and a
//! validator by derivatives ([`RngValidator`]). The Xebu omission automata are built from the
//! same graph. `docs/schema.md` describes it.
//!
//! ```
//! use binxml_schema::relaxng::{RelaxNg, RngValidator};
//!
//! let rnc = br#"element note { attribute id { xsd:int }, element body { text } }"#;
//! let schema = RelaxNg::from_bytes(rnc, "note.rnc", true, &Default::default())?;
//! let doc = br#"<note id="x"><body>hi</body></note>"#;
//! let errors = RngValidator::validate(&schema, &mut binxml_xml::XmlDecoder::new(doc))?;
//! assert_eq!(errors.len(), 1); // id is not an int
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Departures and limits: only the built-in datatype library and XML Schema's (`xsd:` with
//! its facets as parameters) are known; `href`s are local files (a URL is an error, nothing
//! is fetched); the restrictions of section 7 (what may not appear inside `attribute`, `list`,
//! `except`, `start`; duplicate attributes; ambiguous interleaves of text) are not checked when
//! loading, so a schema that breaks them is accepted and validates by its patterns' meaning.

#[cfg(feature = "load")]
mod compact;
pub mod derive;
#[cfg(feature = "load")]
mod load;
pub mod pattern;
#[cfg(feature = "load")]
mod simplify;
mod validator;

use std::path::Path;

pub use derive::{Deriver, First};
pub use pattern::Grammar;
pub use validator::RngValidator;

#[cfg(feature = "load")]
use crate::{LoadOptions, SchemaError};

/// The RELAX NG namespace.
pub const RNG: &str = "http://relaxng.org/ns/structure/1.0";
/// The XML Schema datatype library's URI.
pub const XSD_DATATYPES: &str = "http://www.w3.org/2001/XMLSchema-datatypes";

/// A loaded and simplified RELAX NG schema.
#[derive(Clone, Debug)]
pub struct RelaxNg {
    grammar: std::sync::Arc<Grammar>,
    /// Most patterns a validator's derivatives may create (memory bound per document).
    pub max_validation_patterns: usize,
}

/// Most patterns a simplified schema may have.
pub const MAX_SCHEMA_PATTERNS: usize = 1_000_000;

#[cfg(feature = "load")]
impl RelaxNg {
    /// Loads a schema from a file: the compact syntax when its name ends in `.rnc`, else the
    /// XML syntax. What it includes is read from local files relative to it.
    pub fn load(path: impl AsRef<Path>) -> Result<RelaxNg, SchemaError> {
        Self::load_with(path, &LoadOptions::default())
    }

    /// [`RelaxNg::load`] with limits.
    pub fn load_with(
        path: impl AsRef<Path>,
        options: &LoadOptions,
    ) -> Result<RelaxNg, SchemaError> {
        let path = path.as_ref();
        let location = path.display().to_string();
        let bytes = crate::load::read_file(path, options.max_document_bytes)
            .map_err(|e| SchemaError::new(&location, format!("cannot read: {e}")))?;
        let docs = load::read_all(
            bytes,
            location,
            path.parent().map(Path::to_path_buf),
            load::is_compact(path),
            options,
        )?;
        Self::finish(&docs, options)
    }

    /// A schema from bytes (`compact`: the compact syntax); it cannot include files.
    pub fn from_bytes(
        bytes: &[u8],
        name: &str,
        compact: bool,
        options: &LoadOptions,
    ) -> Result<RelaxNg, SchemaError> {
        let docs = load::read_all(bytes.to_vec(), name.to_string(), None, compact, options)?;
        Self::finish(&docs, options)
    }

    fn finish(docs: &load::Docs, options: &LoadOptions) -> Result<RelaxNg, SchemaError> {
        let limit = options
            .max_content_states
            .saturating_mul(10)
            .min(MAX_SCHEMA_PATTERNS);
        let grammar = simplify::simplify(docs, limit)?;
        Ok(RelaxNg::new(grammar))
    }
}

impl RelaxNg {
    /// A schema from its simplified grammar.
    pub fn new(grammar: Grammar) -> RelaxNg {
        RelaxNg {
            grammar: std::sync::Arc::new(grammar),
            max_validation_patterns: 4_000_000,
        }
    }

    /// The simplified grammar.
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// Derivatives over the grammar, for the codecs that follow a document through it (the
    /// Xebu omission automata); `limit` bounds the patterns they may create.
    pub fn deriver(&self, limit: usize) -> Deriver {
        Deriver::new(self.grammar.clone(), limit)
    }

    /// Whether a path names a RELAX NG schema (`.rng` or `.rnc`) rather than an XML Schema.
    pub fn is_relaxng_path(path: &Path) -> bool {
        path.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("rng") || e.eq_ignore_ascii_case("rnc"))
    }
}
