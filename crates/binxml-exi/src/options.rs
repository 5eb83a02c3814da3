//! The EXI options (EXI 1.0, section 5.4) and the encoder's own choices.

use binxml_core::{Error, ErrorKind, Format, Result};

/// How the body is laid out (the `alignment` and `compression` options together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Alignment {
    /// Every item at the next bit (the default).
    #[default]
    BitPacked,
    /// Every event code and identifier in whole octets.
    ByteAligned,
    /// Byte-aligned, with values regrouped into channels by name (ready for a compressor).
    PreCompression,
    /// Pre-compression layout, each block's channels compressed with DEFLATE (RFC 1951).
    Compression,
}

impl Alignment {
    /// Whether items are byte-aligned.
    pub fn is_aligned(self) -> bool {
        self != Alignment::BitPacked
    }

    /// Whether values are regrouped into channels.
    pub fn is_reordered(self) -> bool {
        matches!(self, Alignment::PreCompression | Alignment::Compression)
    }

    /// The name used on the command line and in the docs.
    pub fn name(self) -> &'static str {
        match self {
            Alignment::BitPacked => "bit-packed",
            Alignment::ByteAligned => "byte-aligned",
            Alignment::PreCompression => "pre-compression",
            Alignment::Compression => "compression",
        }
    }

    /// The alignment a name names (`bit-packed`, `byte-aligned`, `pre-compression`,
    /// `compression`; `bitpacked`, `bytealigned`, `precompression`, `byte` and `pre-compress`
    /// as well).
    pub fn from_name(name: &str) -> Option<Alignment> {
        match name.to_ascii_lowercase().as_str() {
            "bit-packed" | "bitpacked" => Some(Alignment::BitPacked),
            "byte-aligned" | "bytealigned" | "byte" => Some(Alignment::ByteAligned),
            "pre-compression" | "precompression" | "pre-compress" => {
                Some(Alignment::PreCompression)
            }
            "compression" | "compressed" => Some(Alignment::Compression),
            _ => None,
        }
    }
}

/// What the encoder does with text made only of whitespace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Whitespace {
    /// Keep every character (the infoset; the default).
    #[default]
    Preserve,
    /// Drop whitespace-only text between two start tags, two end tags or an end and a start
    /// tag, unless `xml:space="preserve"` applies or lexical values are preserved: what
    /// EXIficient does (see `docs/exi.md`).
    DropBetweenTags,
}

/// The EXI options of a stream, and the encoder's choices that are not part of the stream
/// (header contents, whitespace policy, DEFLATE level).
///
/// Build from [`ExiOptions::default`] (EXI's defaults: bit-packed, no fidelity options, no
/// options in the header) with the `with_*` setters. [`validate`](Self::validate) rejects
/// combinations the Recommendation forbids; encoders and decoders call it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExiOptions {
    /// Alignment and compression.
    pub alignment: Alignment,
    /// `strict`: only meaningful with a schema; forbids the preserve options and
    /// self-contained elements.
    pub strict: bool,
    /// `fragment`: the body is a fragment (any number of top-level elements) rather than a
    /// document.
    pub fragment: bool,
    /// `preserve.comments`.
    pub comments: bool,
    /// `preserve.pis`.
    pub pis: bool,
    /// `preserve.dtd`: the document type declaration and entity references.
    pub dtd: bool,
    /// `preserve.prefixes`: namespace prefixes and declarations as written.
    pub prefixes: bool,
    /// `preserve.lexicalValues`.
    pub lexical_values: bool,
    /// `selfContained`: self-contained elements may occur.
    pub self_contained: bool,
    /// Encoder: the elements to write self-contained (with `self_contained` on), as `local` (no
    /// namespace) or `{namespace}local`.
    pub self_contained_elements: Vec<String>,
    /// `schemaId` as read from a header (`Some("")` built-in types only); a stream that names
    /// a schema needs schema-informed decoding, which this codec refuses.
    pub schema_id: Option<String>,
    /// `blockSize`: values per compression block (default 1,000,000).
    pub block_size: u32,
    /// `valueMaxLength`: longer values are not added to the string table.
    pub value_max_length: Option<u32>,
    /// `valuePartitionCapacity`: the size of the global value partition.
    pub value_partition_capacity: Option<u32>,
    /// Encoder: write the options into the header.
    pub include_options: bool,
    /// Encoder: start with the `$EXI` cookie.
    pub include_cookie: bool,
    /// Encoder: the whitespace policy.
    pub whitespace: Whitespace,
    /// Encoder: the DEFLATE level in compression mode (0-9, default 6 as zlib's).
    pub deflate_level: u32,
    /// `datatypeRepresentationMap` (EXI 1.0 7.4): schema datatypes whose values (and those of
    /// the types derived from them) take another built-in representation. Schema-informed
    /// streams only.
    pub datatype_representations: Vec<DatatypeRepresentation>,
    /// Encoder: W3C Canonical EXI (2018). [`validate`](Self::validate) refuses what a
    /// canonical stream does not have (the cookie, compression: section 3), and the
    /// schema-informed encoder writes an hour of 24 as 00:00:00 of the next day (section
    /// 4.5.5). Its other rules (event choice, attribute order, the values' forms, whitespace
    /// with [`Whitespace::DropBetweenTags`]) are what that encoder always does; `docs/sign.md`
    /// lists them. Not a stream option: nothing of it goes into the header.
    pub canonical: bool,
}

/// The namespace of EXI's built-in datatype representations (`exi:string`, ...).
pub const EXI_NS: &str = "http://www.w3.org/2009/exi";

/// One entry of a datatype representation map: a schema datatype and the representation its
/// values take, each a qualified name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DatatypeRepresentation {
    /// The schema datatype's namespace.
    pub type_ns: String,
    /// The schema datatype's local name.
    pub type_local: String,
    /// The representation's namespace ([`EXI_NS`] for the built-in ones).
    pub repr_ns: String,
    /// The representation's local name.
    pub repr_local: String,
}

/// The local names of EXI's built-in datatype representations (EXI 1.0 7.4, Table 7-1).
pub const BUILTIN_REPRESENTATIONS: &[&str] = &[
    "base64Binary",
    "boolean",
    "date",
    "dateTime",
    "decimal",
    "double",
    "gDay",
    "gMonth",
    "gMonthDay",
    "gYear",
    "gYearMonth",
    "hexBinary",
    "integer",
    "string",
    "time",
];

impl DatatypeRepresentation {
    /// An entry from `TYPE=REPRESENTATION`, each name `{namespace}local`, `xsd:local` (XML
    /// Schema) or `exi:local` (EXI's built-in representations).
    pub fn parse(text: &str) -> Result<DatatypeRepresentation> {
        let bad = || {
            Error::new(
                ErrorKind::InvalidOptions,
                Format::Exi,
                format!(
                    "datatype representation {text:?}: expected TYPE=REPRESENTATION, each \
                     {{namespace}}local, xsd:local or exi:local"
                ),
            )
        };
        let name = |t: &str| -> Option<(String, String, usize)> {
            if let Some(rest) = t.strip_prefix('{') {
                let close = rest.find('}')?;
                let after = &rest[close + 1..];
                let end = after.find('=').unwrap_or(after.len());
                let local = &after[..end];
                (!local.is_empty()).then(|| {
                    (
                        rest[..close].to_string(),
                        local.to_string(),
                        close + 2 + end,
                    )
                })
            } else {
                let end = t.find('=').unwrap_or(t.len());
                let (p, local) = t[..end].split_once(':')?;
                let ns = match p {
                    "xsd" | "xs" => binxml_schema::XS,
                    "exi" => EXI_NS,
                    _ => return None,
                };
                (!local.is_empty()).then(|| (ns.to_string(), local.to_string(), end))
            }
        };
        let (type_ns, type_local, used) = name(text).ok_or_else(bad)?;
        let rest = text[used..].strip_prefix('=').ok_or_else(bad)?;
        let (repr_ns, repr_local, used) = name(rest).ok_or_else(bad)?;
        if used != rest.len() {
            return Err(bad());
        }
        Ok(DatatypeRepresentation {
            type_ns,
            type_local,
            repr_ns,
            repr_local,
        })
    }

    /// The entry as [`parse`](Self::parse) reads it.
    pub fn to_text(&self) -> String {
        format!(
            "{{{}}}{}={{{}}}{}",
            self.type_ns, self.type_local, self.repr_ns, self.repr_local
        )
    }
}

impl Default for ExiOptions {
    fn default() -> Self {
        ExiOptions {
            alignment: Alignment::BitPacked,
            strict: false,
            fragment: false,
            comments: false,
            pis: false,
            dtd: false,
            prefixes: false,
            lexical_values: false,
            self_contained: false,
            self_contained_elements: Vec::new(),
            schema_id: None,
            block_size: DEFAULT_BLOCK_SIZE,
            value_max_length: None,
            value_partition_capacity: None,
            include_options: false,
            include_cookie: false,
            whitespace: Whitespace::Preserve,
            deflate_level: 6,
            datatype_representations: Vec::new(),
            canonical: false,
        }
    }
}

/// The default `blockSize`.
pub const DEFAULT_BLOCK_SIZE: u32 = 1_000_000;

impl ExiOptions {
    /// Every fidelity option on (comments, PIs, DTD, prefixes, lexical values): the infoset as
    /// closely as EXI keeps it.
    pub fn preserve_all() -> Self {
        ExiOptions::default()
            .with_comments(true)
            .with_pis(true)
            .with_dtd(true)
            .with_prefixes(true)
            .with_lexical_values(true)
    }

    /// Sets the alignment.
    pub fn with_alignment(mut self, a: Alignment) -> Self {
        self.alignment = a;
        self
    }
    /// Sets `strict`.
    pub fn with_strict(mut self, on: bool) -> Self {
        self.strict = on;
        self
    }
    /// Sets `fragment`.
    pub fn with_fragment(mut self, on: bool) -> Self {
        self.fragment = on;
        self
    }
    /// Sets `preserve.comments`.
    pub fn with_comments(mut self, on: bool) -> Self {
        self.comments = on;
        self
    }
    /// Sets `preserve.pis`.
    pub fn with_pis(mut self, on: bool) -> Self {
        self.pis = on;
        self
    }
    /// Sets `preserve.dtd`.
    pub fn with_dtd(mut self, on: bool) -> Self {
        self.dtd = on;
        self
    }
    /// Sets `preserve.prefixes`.
    pub fn with_prefixes(mut self, on: bool) -> Self {
        self.prefixes = on;
        self
    }
    /// Sets `preserve.lexicalValues`.
    pub fn with_lexical_values(mut self, on: bool) -> Self {
        self.lexical_values = on;
        self
    }
    /// Sets `selfContained`.
    pub fn with_self_contained(mut self, on: bool) -> Self {
        self.self_contained = on;
        self
    }
    /// Turns `selfContained` on and names the elements the encoder writes self-contained
    /// (`local` or `{namespace}local`).
    pub fn with_self_contained_elements<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Self {
        self.self_contained = true;
        self.self_contained_elements = names.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the encoder writes an element of this name self-contained.
    pub(crate) fn is_self_contained(&self, namespace: &str, local: &str) -> bool {
        self.self_contained
            && self
                .self_contained_elements
                .iter()
                .any(|n| match n.strip_prefix('{') {
                    Some(rest) => rest
                        .split_once('}')
                        .is_some_and(|(ns, l)| ns == namespace && l == local),
                    None => namespace.is_empty() && n == local,
                })
    }
    /// Sets `blockSize`.
    pub fn with_block_size(mut self, n: u32) -> Self {
        self.block_size = n;
        self
    }
    /// Sets `valueMaxLength`.
    pub fn with_value_max_length(mut self, n: Option<u32>) -> Self {
        self.value_max_length = n;
        self
    }
    /// Sets `valuePartitionCapacity`.
    pub fn with_value_partition_capacity(mut self, n: Option<u32>) -> Self {
        self.value_partition_capacity = n;
        self
    }
    /// Writes the options into the header (encoder).
    pub fn with_include_options(mut self, on: bool) -> Self {
        self.include_options = on;
        self
    }
    /// Starts the stream with `$EXI` (encoder).
    pub fn with_include_cookie(mut self, on: bool) -> Self {
        self.include_cookie = on;
        self
    }
    /// Sets the whitespace policy (encoder).
    pub fn with_whitespace(mut self, w: Whitespace) -> Self {
        self.whitespace = w;
        self
    }
    /// Sets Canonical EXI (encoder; see [`ExiOptions::canonical`]).
    pub fn with_canonical(mut self, on: bool) -> Self {
        self.canonical = on;
        self
    }

    /// Sets the DEFLATE level (encoder, compression mode).
    pub fn with_deflate_level(mut self, level: u32) -> Self {
        self.deflate_level = level;
        self
    }

    /// Checks the combination against the Recommendation (section 5.4).
    pub fn validate(&self) -> Result<()> {
        let bad = |m: &str| {
            Err(Error::new(
                ErrorKind::InvalidOptions,
                Format::Exi,
                m.to_string(),
            ))
        };
        if self.strict && (self.comments || self.pis || self.dtd || self.prefixes) {
            return bad(
                "EXI options: strict cannot be combined with preserve.comments, pis, dtd or prefixes",
            );
        }
        if self.strict && self.self_contained {
            return bad("EXI options: strict cannot be combined with selfContained");
        }
        if !self.self_contained_elements.is_empty() && !self.self_contained {
            return bad("EXI options: self-contained elements named without selfContained");
        }
        if self.self_contained && self.alignment.is_reordered() {
            return bad(
                "EXI options: selfContained cannot be combined with pre-compression or compression",
            );
        }
        if self.block_size == 0 {
            return bad("EXI options: blockSize must be at least 1");
        }
        if self.canonical && self.include_cookie {
            return bad("Canonical EXI: a canonical header has no cookie");
        }
        if self.canonical && self.alignment == Alignment::Compression {
            return bad("Canonical EXI: no compression (its canonical form is pre-compression)");
        }
        if self.deflate_level > 9 {
            return bad("EXI options: the DEFLATE level is 0 to 9");
        }
        for d in &self.datatype_representations {
            if d.repr_ns != EXI_NS || !BUILTIN_REPRESENTATIONS.contains(&d.repr_local.as_str()) {
                return bad(&format!(
                    "EXI options: datatypeRepresentationMap names {{{}}}{}, which is not one of \
                     EXI's built-in representations (exi:{})",
                    d.repr_ns,
                    d.repr_local,
                    BUILTIN_REPRESENTATIONS.join(", exi:")
                ));
            }
        }
        Ok(())
    }

    /// The options as `key=value` text, one per non-default option, comma-separated (what
    /// `binxml inspect` shows and the CLI's `--exi` accepts; empty for the defaults).
    pub fn to_text(&self) -> String {
        let mut v: Vec<String> = Vec::new();
        if self.alignment != Alignment::BitPacked {
            v.push(self.alignment.name().to_string());
        }
        for (on, name) in [
            (self.strict, "strict"),
            (self.fragment, "fragment"),
            (self.comments, "comments"),
            (self.pis, "pis"),
            (self.dtd, "dtd"),
            (self.prefixes, "prefixes"),
            (self.lexical_values, "lexical-values"),
            (
                self.self_contained && self.self_contained_elements.is_empty(),
                "self-contained",
            ),
        ] {
            if on {
                v.push(name.to_string());
            }
        }
        if !self.self_contained_elements.is_empty() {
            v.push(format!(
                "self-contained={}",
                self.self_contained_elements.join("|")
            ));
        }
        if self.block_size != DEFAULT_BLOCK_SIZE {
            v.push(format!("block-size={}", self.block_size));
        }
        if let Some(n) = self.value_max_length {
            v.push(format!("value-max-length={n}"));
        }
        if let Some(n) = self.value_partition_capacity {
            v.push(format!("value-partition-capacity={n}"));
        }
        if let Some(s) = &self.schema_id {
            v.push(format!("schema-id={s}"));
        }
        for d in &self.datatype_representations {
            v.push(format!("dtr={}", d.to_text()));
        }
        v.join(",")
    }

    /// Applies options written as in [`to_text`](Self::to_text) (also `header`, `cookie`,
    /// `strip-whitespace` and `deflate=N` for the encoder's choices; `dtr=TYPE=REPRESENTATION`
    /// for each entry of the datatype representation map); an empty string or `-` changes
    /// nothing.
    pub fn parse_text(mut self, text: &str) -> Result<Self> {
        for item in text.split(',').map(str::trim) {
            if item.is_empty() || item == "-" {
                continue;
            }
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (item, None),
            };
            let num = |v: Option<&str>| -> Result<u32> {
                v.and_then(|v| v.parse::<u32>().ok()).ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOptions,
                        Format::Exi,
                        format!("EXI option {key} needs a number (as {key}=N)"),
                    )
                })
            };
            let key_l = key.to_ascii_lowercase().replace('_', "-");
            if let Some(a) = Alignment::from_name(&key_l) {
                self.alignment = a;
                continue;
            }
            match key_l.as_str() {
                "strict" => self.strict = true,
                "fragment" => self.fragment = true,
                "comments" => self.comments = true,
                "pis" => self.pis = true,
                "dtd" => self.dtd = true,
                "prefixes" => self.prefixes = true,
                "lexical-values" | "lexicalvalues" | "lexical" => self.lexical_values = true,
                "self-contained" | "selfcontained" => {
                    self.self_contained = true;
                    if let Some(v) = value {
                        self.self_contained_elements = v
                            .split('|')
                            .filter(|n| !n.is_empty())
                            .map(String::from)
                            .collect();
                    }
                }
                "preserve-all" | "all" => {
                    self.comments = true;
                    self.pis = true;
                    self.dtd = true;
                    self.prefixes = true;
                    self.lexical_values = true;
                }
                "block-size" | "blocksize" => self.block_size = num(value)?,
                "value-max-length" | "valuemaxlength" => self.value_max_length = Some(num(value)?),
                "value-partition-capacity" | "valuepartitioncapacity" | "capacity" => {
                    self.value_partition_capacity = Some(num(value)?)
                }
                "schema-id" => self.schema_id = Some(value.unwrap_or("").to_string()),
                "header" | "include-options" => self.include_options = true,
                "cookie" => self.include_cookie = true,
                "strip-whitespace" | "drop-whitespace" => {
                    self.whitespace = Whitespace::DropBetweenTags
                }
                "deflate" => self.deflate_level = num(value)?,
                "canonical" => self.canonical = true,
                "dtr" | "datatype-representation" => self
                    .datatype_representations
                    .push(DatatypeRepresentation::parse(value.unwrap_or(""))?),
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidOptions,
                        Format::Exi,
                        format!(
                            "unknown EXI option {key:?} (known: bit-packed, byte-aligned, \
                             pre-compression, compression, strict, fragment, comments, pis, dtd, \
                             prefixes, lexical-values, self-contained[=NAME|NAME...], preserve-all, block-size=N, \
                             value-max-length=N, value-partition-capacity=N, header, cookie, \
                             strip-whitespace, deflate=N, canonical, dtr=TYPE=REPRESENTATION)"
                        ),
                    ));
                }
            }
        }
        self.validate()?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip_and_validation() {
        let o = ExiOptions::default()
            .parse_text("compression,comments,block-size=100,value-max-length=8")
            .unwrap();
        assert_eq!(o.alignment, Alignment::Compression);
        assert!(o.comments);
        assert_eq!(o.block_size, 100);
        let back = ExiOptions::default().parse_text(&o.to_text()).unwrap();
        assert_eq!(back, o);
        assert!(ExiOptions::default().parse_text("strict,comments").is_err());
        assert!(ExiOptions::default().parse_text("block-size=0").is_err());
        assert!(ExiOptions::default().parse_text("bogus").is_err());
        assert!(
            ExiOptions::default()
                .parse_text("canonical")
                .unwrap()
                .canonical
        );
        assert!(
            ExiOptions::default()
                .parse_text("canonical,cookie")
                .is_err()
        );
        assert!(
            ExiOptions::default()
                .parse_text("canonical,compression")
                .is_err()
        );
        let d = ExiOptions::default()
            .parse_text(
                "dtr=xsd:decimal=exi:string,dtr={urn:t}price={http://www.w3.org/2009/exi}integer",
            )
            .unwrap();
        assert_eq!(d.datatype_representations.len(), 2);
        assert_eq!(d.datatype_representations[1].type_ns, "urn:t");
        assert_eq!(d.datatype_representations[1].repr_local, "integer");
        assert_eq!(ExiOptions::default().parse_text(&d.to_text()).unwrap(), d);
        assert!(
            ExiOptions::default()
                .parse_text("dtr=xsd:decimal=exi:float")
                .is_err()
        );
        assert!(ExiOptions::default().parse_text("dtr=xsd:decimal").is_err());
    }
}
