//! The errors of loading a schema.

use std::fmt;

/// A schema that cannot be loaded: a document that cannot be read, or one that breaks a rule of
/// XML Schema. Says which document, where in it (byte offset, line and column of the element
/// at fault) and what is wrong.
#[derive(Debug)]
pub struct SchemaError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    location: String,
    offset: Option<u64>,
    line_col: Option<(u64, u64)>,
    message: String,
}

impl SchemaError {
    /// An error in document `location` (a path or the name the schema was given), at no
    /// particular place.
    pub fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaError(Box::new(Inner {
            location: location.into(),
            offset: None,
            line_col: None,
            message: message.into(),
        }))
    }

    /// The same error at byte `offset` of `bytes` (the document's content).
    pub fn at(mut self, bytes: &[u8], offset: u64) -> Self {
        self.0.offset = Some(offset);
        self.0.line_col = Some(binxml_core::error::line_col(bytes, offset as usize));
        self
    }

    /// The schema document the error is in.
    pub fn location(&self) -> &str {
        &self.0.location
    }

    /// Byte offset of the element at fault, when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// Line and column (1-based) of the element at fault, when known.
    pub fn line_col(&self) -> Option<(u64, u64)> {
        self.0.line_col
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.location)?;
        if let Some((line, col)) = self.0.line_col {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": {}", self.0.message)
    }
}

impl std::error::Error for SchemaError {}
