//! The registry of formats: every format binxml reads and writes, by name and file extension.

use std::fmt;

/// Every format binxml reads and writes.
///
/// Deliberately exhaustive (unlike [`Event`](crate::Event) and [`ErrorKind`](crate::ErrorKind)):
/// the facade's `AnyDecoder` and `AnyEncoder` match on it, and adding a format should
/// make the compiler point at every place that must learn the new codec. Adding one is a
/// breaking change of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// XML 1.0 text.
    Xml,
    /// JSON (RFC 8259), mapped to elements by `docs/json-mapping.md`.
    Json,
    /// Fast Infoset (ITU-T X.891).
    Fi,
    /// Transaction Serial Format (Evans 2020).
    Tsf,
    /// Xebu token streams (Kangasharju et al.).
    Xebu,
    /// The ASN.1 XML infoset schema (X.695 draft) in unaligned PER.
    Asn1Uper,
    /// ... in aligned PER.
    Asn1Aper,
    /// ... in BER.
    Asn1Ber,
    /// EXI 1.0 (W3C Efficient XML Interchange), schema-less.
    Exi,
    /// ITU-T X.694: a document valid against an XML Schema, as a value of the ASN.1 type
    /// that X.694 maps its root element to, in unaligned PER. Needs the schema (not in
    /// [`Format::ALL`], whose formats encode any document).
    Asn1XsdUper,
    /// ... in aligned PER.
    Asn1XsdAper,
    /// ... in BER (definite lengths).
    Asn1XsdBer,
}

impl Format {
    /// Every format, in the order `binxml formats` lists them.
    pub const ALL: &'static [Format] = &[
        Format::Xml,
        Format::Json,
        Format::Fi,
        Format::Tsf,
        Format::Xebu,
        Format::Asn1Uper,
        Format::Asn1Aper,
        Format::Asn1Ber,
        Format::Exi,
    ];

    /// The formats that need a schema to encode or decode (after [`Format::ALL`] in
    /// `binxml formats`; names and extensions are looked up in both).
    pub const SCHEMA_INFORMED: &'static [Format] =
        &[Format::Asn1XsdUper, Format::Asn1XsdAper, Format::Asn1XsdBer];

    /// Every format: [`Format::ALL`], then [`Format::SCHEMA_INFORMED`].
    pub fn every() -> impl Iterator<Item = Format> {
        Format::ALL.iter().chain(Format::SCHEMA_INFORMED).copied()
    }

    /// The registry name (`-t NAME` on the command line), also the prefix of an [`Error`]'s
    /// message.
    ///
    /// [`Error`]: crate::Error
    pub fn name(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
            Format::Fi => "fi",
            Format::Tsf => "tsf",
            Format::Xebu => "xebu",
            Format::Asn1Uper => "asn1-uper",
            Format::Asn1Aper => "asn1-aper",
            Format::Asn1Ber => "asn1-ber",
            Format::Exi => "exi",
            Format::Asn1XsdUper => "asn1-xsd-uper",
            Format::Asn1XsdAper => "asn1-xsd-aper",
            Format::Asn1XsdBer => "asn1-xsd-ber",
        }
    }

    /// One line describing the format (what `binxml formats` prints).
    pub fn description(self) -> &'static str {
        match self {
            Format::Xml => "XML 1.0 text (UTF-8 out; any declared encoding in)",
            Format::Json => "JSON text, lossless through the binxml JSON mapping",
            Format::Fi => "Fast Infoset, ITU-T X.891 (interoperates with the Java reference)",
            Format::Tsf => "Transaction Serial Format (Evans 2020), XML and JSON",
            Format::Xebu => "Xebu token stream (Kangasharju et al.)",
            Format::Asn1Uper => "ASN.1 XML infoset schema (X.695 draft), unaligned PER",
            Format::Asn1Aper => "ASN.1 XML infoset schema (X.695 draft), aligned PER",
            Format::Asn1Ber => "ASN.1 XML infoset schema (X.695 draft), BER",
            Format::Exi => {
                "EXI 1.0, W3C Efficient XML Interchange (schema-less; interoperates with EXIficient)"
            }
            Format::Asn1XsdUper => {
                "ITU-T X.694: XML Schema mapped to ASN.1, unaligned PER (needs --schema)"
            }
            Format::Asn1XsdAper => {
                "ITU-T X.694: XML Schema mapped to ASN.1, aligned PER (needs --schema)"
            }
            Format::Asn1XsdBer => "ITU-T X.694: XML Schema mapped to ASN.1, BER (needs --schema)",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Xml => "xml",
            Format::Json => "json",
            Format::Fi => "fi",
            Format::Tsf => "tsf",
            Format::Xebu => "xebu",
            Format::Asn1Uper => "uper",
            Format::Asn1Aper => "aper",
            Format::Asn1Ber => "ber",
            Format::Exi => "exi",
            Format::Asn1XsdUper => "xuper",
            Format::Asn1XsdAper => "xaper",
            Format::Asn1XsdBer => "xber",
        }
    }

    /// Whether a format's first bytes identify it (magic number) rather than a guess.
    pub fn has_magic(self) -> bool {
        matches!(self, Format::Fi)
    }

    /// Whether the format is binary (not text a terminal can show).
    pub fn is_binary(self) -> bool {
        !matches!(self, Format::Xml | Format::Json | Format::Tsf)
    }

    /// The format a file extension names (`uper`, `fi`, ...; case-insensitive).
    pub fn from_extension(ext: &str) -> Option<Format> {
        let e = ext.to_ascii_lowercase();
        Format::every().find(|f| f.extension() == e)
    }

    /// The format a registry name (or extension) names, case-insensitive.
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.to_ascii_lowercase();
        Format::every().find(|f| f.name() == n || f.extension() == n)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        Format::from_name(s).ok_or_else(|| UnknownFormat {
            name: s.to_string(),
        })
    }
}

/// A name that is neither a registry name nor an extension of any [`Format`] (the error of
/// `"...".parse::<Format>()`); its message lists the known names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat {
    name: String,
}

impl UnknownFormat {
    /// The name that was not recognised.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown format {:?} (known: ", self.name)?;
        for (i, format) in Format::every().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(format.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownFormat {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::every() {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert_eq!(Format::from_extension(f.extension()), Some(f));
        }
        assert_eq!("UPER".parse::<Format>(), Ok(Format::Asn1Uper));
        assert_eq!("EXI".parse::<Format>(), Ok(Format::Exi));
        let e = "bxml".parse::<Format>().unwrap_err();
        assert_eq!(e.name(), "bxml");
        assert_eq!(
            e.to_string(),
            "unknown format \"bxml\" (known: xml, json, fi, tsf, xebu, asn1-uper, asn1-aper, asn1-ber, exi, asn1-xsd-uper, asn1-xsd-aper, asn1-xsd-ber)"
        );
    }
}
