//! binxml-sign: canonical XML over binxml's event stream, and XML Signature.
//!
//! - [`c14n`]: Canonical XML 1.0 and Exclusive XML Canonicalization 1.0, with and without
//!   comments, of a whole document or a document subset, computed from the events any binxml
//!   decoder produces.
//! - [`dsig`]: enveloped, enveloping and detached XML Signatures (one reference to the whole
//!   document, to an element by its id, or to a separate file given with the signature), made
//!   and checked with the RustCrypto crates and ring; verification refuses the
//!   constructions XML Signature attacks rely on (see `docs/sign.md`).
//! - [`exi_dsig`]: XML Signature over Canonical EXI, as ISO 15118 signs its messages:
//!   `SignedInfo` and the referenced elements encoded as schema-informed EXI fragments by
//!   binxml-exi, and the digests and signature computed over those octets.
//! - [`cms`]: CMS SignedData (RFC 5652) over a document's bytes in any format, enveloping or
//!   detached, as `openssl cms` makes and checks it.
//! - [`keys`]: private keys, public keys and X.509 certificates from PEM.
//!
//! This crate is not a codec: it takes a document's events (or, for CMS, its bytes) from the
//! caller and hands events back; the XML text around a signature is read and written by
//! binxml-xml, and the canonical EXI octets of a Canonical EXI signature are binxml-exi's
//! schema-informed encoder's.

#![forbid(unsafe_code)]

pub mod c14n;
pub mod cms;
pub mod dsig;
pub mod exi_dsig;
pub mod keys;
pub mod pkcs12;

use std::fmt;

/// What kind of failure a [`SignError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignErrorKind {
    /// The document, the signature or a key is not well-formed.
    Malformed,
    /// Something the signature uses that binxml does not implement.
    Unsupported,
    /// Refused by the verification policy: a construction signature attacks use, or a weak
    /// algorithm not allowed.
    Refused,
    /// A digest or the signature value does not match: the document or the signature was
    /// changed, or the key is not the signer's.
    Invalid,
    /// The document could not be parsed (the XML codec's error).
    Decode,
}

/// An error of canonicalization, signing or verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignError {
    kind: SignErrorKind,
    message: String,
}

impl SignError {
    /// An error of the given kind.
    pub fn new(kind: SignErrorKind, message: impl Into<String>) -> Self {
        SignError {
            kind,
            message: message.into(),
        }
    }
    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        Self::new(SignErrorKind::Malformed, message)
    }
    pub(crate) fn unsupported(message: impl Into<String>) -> Self {
        Self::new(SignErrorKind::Unsupported, message)
    }
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Self::new(SignErrorKind::Refused, message)
    }
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(SignErrorKind::Invalid, message)
    }
    /// What kind of failure it is.
    pub fn kind(&self) -> SignErrorKind {
        self.kind
    }
    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            SignErrorKind::Malformed => "malformed",
            SignErrorKind::Unsupported => "unsupported",
            SignErrorKind::Refused => "refused",
            SignErrorKind::Invalid => "invalid signature",
            SignErrorKind::Decode => "cannot parse",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

impl std::error::Error for SignError {}

impl From<binxml_core::Error> for SignError {
    fn from(e: binxml_core::Error) -> Self {
        SignError::new(SignErrorKind::Decode, e.to_string())
    }
}
