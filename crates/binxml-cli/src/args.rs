//! The options shared by subcommands, and the library options they become. An option that
//! cannot apply to the conversion asked for is an error, never silently ignored.

use std::path::PathBuf;
use std::sync::Arc;

use binxml::{DecodeOptions, EncodeOptions, Format, Limits};
use clap::Args;

use crate::error::CliError;
use crate::output::Compression;

/// Decoder limits.
#[derive(Args, Clone)]
pub struct LimitArgs {
    /// Maximum element nesting depth accepted from the input.
    #[arg(long, default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Maximum length in bytes of one string (name, value or text) in the input.
    #[arg(long, default_value_t = Limits::default().max_string_len)]
    pub max_string: usize,
    /// Maximum number of entries in one table (vocabulary, string table, cache).
    #[arg(long, default_value_t = Limits::default().max_table_entries)]
    pub max_table: usize,
    /// Maximum bytes produced by expanding XML entity references in one document.
    #[arg(long, default_value_t = Limits::default().max_entity_expansion)]
    pub max_entity_expansion: usize,
    /// Maximum nesting of XML entity references.
    #[arg(long, default_value_t = Limits::default().max_entity_depth)]
    pub max_entity_depth: usize,
    /// Maximum ratio of decoded bytes to input bytes (table and token references can repeat
    /// data); 0 turns the check off.
    #[arg(long, default_value_t = Limits::default().max_expansion_ratio)]
    pub max_expansion_ratio: usize,
    /// Maximum size in bytes of a compressed input (gzip, zstd, xz) once decompressed.
    #[arg(long, default_value_t = 4 << 30)]
    pub max_decompressed: u64,
}

impl LimitArgs {
    /// The library's limits.
    pub fn limits(&self) -> Limits {
        Limits::default()
            .with_max_depth(self.max_depth)
            .with_max_string_len(self.max_string)
            .with_max_table_entries(self.max_table)
            .with_max_entity_expansion(self.max_entity_expansion)
            .with_max_entity_depth(self.max_entity_depth)
            .with_max_expansion_ratio(self.max_expansion_ratio)
    }
}

/// ASN.1 compression of the component-strings block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Asn1Compression {
    None,
    Bzip2,
    Deflate,
    Zstd,
}

/// Options of one codec or another; each names the format it applies to.
#[derive(Args, Clone)]
pub struct CodecArgs {
    /// XML and JSON output: indent by this many spaces.
    #[arg(long)]
    pub indent: Option<usize>,
    /// Fast Infoset output: write values and text in UTF-16 instead of UTF-8.
    #[arg(long)]
    pub fi_utf16: bool,
    /// Fast Infoset output: index attribute values and text chunks shorter than this (0: none;
    /// default 32).
    #[arg(long)]
    pub fi_index_below: Option<usize>,
    /// Fast Infoset output: start with the `<?xml encoding='finf'?>` declaration.
    #[arg(long)]
    pub fi_xml_declaration: bool,
    /// Fast Infoset output: numeric text with the numeric restricted alphabet.
    #[arg(long)]
    pub fi_numeric_alphabet: bool,
    /// Fast Infoset external vocabulary `URI=FILE` (a file written by `binxml fi-vocabulary`):
    /// encoding references the first one given; decoding accepts every one given.
    #[arg(long = "fi-vocabulary", value_name = "URI=FILE")]
    pub fi_vocabulary: Vec<String>,
    /// ASN.1 output: no component-strings or common-names tables, no
    /// element-content-characters, no same-as-parent-element.
    #[arg(long)]
    pub asn1_plain: bool,
    /// ASN.1 output: write a string inline wherever that is smaller than a table reference.
    #[arg(long, conflicts_with = "asn1_plain")]
    pub asn1_compact: bool,
    /// ASN.1 output: compress the component-strings block.
    #[arg(long, value_enum)]
    pub asn1_compression: Option<Asn1Compression>,
    /// Xebu output: forget mode (no token state kept; each message decodes on its own).
    #[arg(long)]
    pub xebu_forget: bool,
    /// Xebu input and output: XebuS, the omission automata of this RELAX NG schema (`.rng`, or
    /// `.rnc` for the compact syntax); XebuS input needs the schema it was written with.
    #[arg(long, value_name = "RNG")]
    pub xebu_schema: Option<PathBuf>,
    /// TSF output: write the TSF paper's reference-converter dialect (UTF-16 lengths, sorted
    /// attributes).
    #[arg(long)]
    pub tsf_reference: bool,
    /// TSF input: lengths count UTF-16 code units (files of the paper's reference converter).
    #[arg(long)]
    pub tsf_utf16_lengths: bool,
    /// EXI options, comma-separated: bit-packed (default), byte-aligned, pre-compression or
    /// compression; comments, pis, dtd, prefixes, lexical-values (preserve-all: every one);
    /// fragment; self-contained=NAME|{NS}NAME...; block-size=N, value-max-length=N,
    /// value-partition-capacity=N; for output also header (options in the stream), cookie,
    /// strip-whitespace (as EXIficient), deflate=LEVEL. For EXI input: the options of a
    /// stream whose header has none.
    #[arg(long, value_name = "OPTIONS")]
    pub exi: Option<String>,
    /// The XML Schema of schema-informed EXI and the X.694 formats.
    #[command(flatten)]
    pub schema: SchemaArgs,
}

/// The XML Schema of the schema-informed formats (`convert`, `inspect`).
#[derive(Args, Clone, Default)]
pub struct SchemaArgs {
    /// EXI input and output: schema-informed, with this XML Schema (its includes and imports
    /// read from local files only; the grammars are built once for all inputs). Add `strict`
    /// to --exi for strict mode. The X.694 formats (asn1-xsd-*) need it too.
    #[arg(long, value_name = "XSD")]
    pub schema: Option<PathBuf>,
    /// Read a schemaLocation from a local file instead (`URL=FILE`; `URL/=DIR` maps a tree).
    #[arg(long = "schema-location", value_name = "URL=FILE")]
    pub schema_locations: Vec<String>,
    /// The X.694 formats' root element (`NAME` or `{NS}NAME`), needed when the schema's root
    /// document declares several global elements (the encoding does not say which).
    #[arg(long = "schema-root", value_name = "ELEMENT")]
    pub schema_root: Option<String>,
}

/// Loads an XML Schema for the command line: `locations` map schemaLocations to files.
pub fn load_schema(
    path: &std::path::Path,
    locations: &[String],
    limits: &Limits,
) -> Result<binxml::schema::Schema, CliError> {
    let mut options = binxml::schema::LoadOptions::default().with_limits(limits.clone());
    for l in locations {
        let (url, file) = l.split_once('=').ok_or_else(|| {
            CliError::usage(format!("--schema-location '{l}': expected URL=FILE"))
        })?;
        options = options.with_location(url, file);
    }
    binxml::schema::Schema::load_with(path, &options)
        .map_err(|e| CliError::failure(format!("schema {e}")))
}

/// The schema-informed codecs' views of one schema.
pub type Schemas = (
    Option<Arc<binxml::exi::informed::SchemaGrammars>>,
    Option<Arc<binxml::asn1::x694::X694>>,
);

impl CodecArgs {
    /// The `--xebu-schema`, loaded.
    pub fn xebu_schema(
        &self,
        limits: &Limits,
    ) -> Result<Option<binxml::xebu::XebuSchema>, CliError> {
        let Some(path) = &self.xebu_schema else {
            return Ok(None);
        };
        let options = binxml::schema::LoadOptions::default().with_limits(limits.clone());
        let s = binxml::schema::relaxng::RelaxNg::load_with(path, &options)
            .map_err(|e| CliError::failure(format!("schema {e}")))?;
        Ok(Some(binxml::xebu::XebuSchema::new(s)))
    }

    /// What `--schema` builds (see [`SchemaArgs::schemas`]).
    pub fn schemas(
        &self,
        limits: &Limits,
        from: Option<Format>,
        to: Format,
    ) -> Result<Schemas, CliError> {
        self.schema.schemas(limits, from, to)
    }
}

impl SchemaArgs {
    /// What `--schema` builds, once, for a conversion `from` -> `to`: EXI grammars when EXI may
    /// be read or written, the X.694 mapping when `asn1-xsd-uper` is (or may be, for a
    /// detected input format; its mapping is then only kept when it succeeds).
    pub fn schemas(
        &self,
        limits: &Limits,
        from: Option<Format>,
        to: Format,
    ) -> Result<Schemas, CliError> {
        let Some(path) = &self.schema else {
            return Ok((None, None));
        };
        let schema = Arc::new(load_schema(path, &self.schema_locations, limits)?);
        let x694_format = |f: Format| Format::SCHEMA_INFORMED.contains(&f);
        let wants_exi =
            to == Format::Exi || from == Some(Format::Exi) || (from.is_none() && !x694_format(to));
        let needs_x694 = x694_format(to) || from.is_some_and(x694_format);
        let grammars = if wants_exi {
            let g = binxml::exi::informed::SchemaGrammars::new(schema.clone())
                .map_err(|e| CliError::failure(format!("schema {}: {e}", path.display())))?;
            Some(Arc::new(g))
        } else {
            None
        };
        let x694 = if needs_x694 || (from.is_none() && to != Format::Exi) {
            let roots = x694_roots(self.schema_root.as_deref())?;
            match binxml::asn1::x694::X694::with_roots(schema, &roots) {
                Ok(m) => Some(Arc::new(m)),
                Err(e) if needs_x694 => {
                    return Err(CliError::failure(format!(
                        "schema {}: X.694: {e}",
                        path.display()
                    )));
                }
                Err(_) => None,
            }
        } else {
            None
        };
        Ok((grammars, x694))
    }
}

/// The root elements `binxml schema asn1 --root` names.
pub fn x694_roots(root: Option<&str>) -> Result<binxml::asn1::x694::Roots, CliError> {
    use binxml::asn1::x694::Roots;
    Ok(match root {
        None => Roots::Main,
        Some("all") => Roots::All,
        Some(r) => {
            let (ns, local) = match r.strip_prefix('{').and_then(|t| t.split_once('}')) {
                Some((ns, local)) => (ns, local),
                None => ("", r),
            };
            Roots::Named(binxml::schema::model::Name::new(ns, local))
        }
    })
}

/// EXI options from `--exi`.
pub fn exi_options(text: Option<&str>) -> Result<binxml::exi::ExiOptions, CliError> {
    binxml::exi::ExiOptions::default()
        .parse_text(text.unwrap_or(""))
        .map_err(|e| CliError::usage(format!("--exi: {}", e.message())))
}

/// Reads `URI=FILE` vocabulary arguments.
fn load_vocabularies(args: &[String]) -> Result<Vec<(String, binxml::fi::Vocabulary)>, CliError> {
    args.iter()
        .map(|a| {
            let (uri, file) = a.split_once('=').ok_or_else(|| {
                CliError::usage(format!("--fi-vocabulary {a:?}: expected URI=FILE"))
            })?;
            let text = std::fs::read_to_string(file).map_err(|e| CliError::io(file, e))?;
            let v = binxml::fi::Vocabulary::from_text(&text)
                .map_err(|e| CliError::failure(format!("{file}: {e}")))?;
            Ok((uri.to_string(), v))
        })
        .collect()
}

/// Decoding options from the limits and the vocabularies a Fast Infoset input may reference.
pub fn decode_options(
    limits: &LimitArgs,
    vocab_args: &[String],
    tsf_utf16_lengths: bool,
) -> Result<DecodeOptions, CliError> {
    let vocabs = load_vocabularies(vocab_args)?;
    Ok(DecodeOptions::default()
        .with_limits(limits.limits())
        .with_fi_vocabularies((!vocabs.is_empty()).then(|| Arc::new(vocabs.into_iter().collect())))
        .with_tsf_utf16_lengths(tsf_utf16_lengths))
}

impl CodecArgs {
    /// Refuses the options that cannot apply when converting from `from` (when named) to `to`.
    pub fn check(&self, from: Option<Format>, to: Format) -> Result<(), CliError> {
        let is_asn1 = matches!(to, Format::Asn1Uper | Format::Asn1Aper | Format::Asn1Ber);
        let output_options: [(bool, &str, bool); 14] = [
            (
                self.indent.is_some(),
                "--indent",
                matches!(to, Format::Xml | Format::Json),
            ),
            (self.fi_utf16, "--fi-utf16", to == Format::Fi),
            (
                self.fi_index_below.is_some(),
                "--fi-index-below",
                to == Format::Fi,
            ),
            (
                self.fi_xml_declaration,
                "--fi-xml-declaration",
                to == Format::Fi,
            ),
            (
                self.fi_numeric_alphabet,
                "--fi-numeric-alphabet",
                to == Format::Fi,
            ),
            (self.asn1_plain, "--asn1-plain", is_asn1),
            (self.asn1_compact, "--asn1-compact", is_asn1),
            (
                self.asn1_compression.is_some(),
                "--asn1-compression",
                is_asn1,
            ),
            (self.xebu_forget, "--xebu-forget", to == Format::Xebu),
            (
                self.xebu_schema.is_some(),
                "--xebu-schema",
                to == Format::Xebu || from.is_none_or(|f| f == Format::Xebu),
            ),
            (self.tsf_reference, "--tsf-reference", to == Format::Tsf),
            (
                !self.fi_vocabulary.is_empty(),
                "--fi-vocabulary",
                to == Format::Fi || from.is_none_or(|f| f == Format::Fi),
            ),
            (
                self.exi.is_some(),
                "--exi",
                to == Format::Exi || from.is_none_or(|f| f == Format::Exi),
            ),
            (
                self.schema.schema.is_some(),
                "--schema",
                to == Format::Exi
                    || Format::SCHEMA_INFORMED.contains(&to)
                    || from
                        .is_none_or(|f| f == Format::Exi || Format::SCHEMA_INFORMED.contains(&f)),
            ),
        ];
        for (given, name, applies) in output_options {
            if given && !applies {
                return Err(CliError::usage(format!(
                    "{name} does not apply to {to} output"
                )));
            }
        }
        if self.tsf_utf16_lengths && from.is_some_and(|f| f != Format::Tsf) {
            return Err(CliError::usage(format!(
                "--tsf-utf16-lengths applies to TSF input, not {}",
                from.map(|f| f.name()).unwrap_or_default()
            )));
        }
        Ok(())
    }

    /// The encoder options for `to`.
    pub fn encode_options(&self, to: Format) -> Result<EncodeOptions, CliError> {
        let index_below = self.fi_index_below.unwrap_or(32);
        let mut fi = binxml::fi::FiOptions::default()
            .with_utf16(self.fi_utf16)
            .with_max_indexed_attribute_value(index_below)
            .with_max_indexed_chunk(index_below)
            .with_xml_declaration(self.fi_xml_declaration)
            .with_numeric_alphabet(self.fi_numeric_alphabet);
        if let Some((uri, v)) = load_vocabularies(&self.fi_vocabulary)?.into_iter().next() {
            fi = fi.with_external_vocabulary(Some((uri, Arc::new(v))));
        }
        let rule = match to {
            Format::Asn1Aper => binxml::asn1::Rule::Aper,
            Format::Asn1Ber => binxml::asn1::Rule::Ber,
            _ => binxml::asn1::Rule::Uper,
        };
        let a = if self.asn1_plain {
            binxml::asn1::Options::plain(rule)
        } else if self.asn1_compact {
            binxml::asn1::Options::compact(rule)
        } else {
            binxml::asn1::Options::new(rule)
        };
        let compression = match self.asn1_compression.unwrap_or(Asn1Compression::None) {
            Asn1Compression::None => binxml::asn1::Compression::None,
            Asn1Compression::Bzip2 => binxml::asn1::Compression::Bzip2,
            Asn1Compression::Deflate => binxml::asn1::Compression::Deflate,
            Asn1Compression::Zstd => binxml::asn1::Compression::Zstd,
        };
        // The library refuses a compression without the component-strings table; say it in
        // terms of the command's options.
        let a = a.with_compression(compression).map_err(|_| {
            CliError::usage(
                "--asn1-compression needs the component-strings table (drop --asn1-plain)",
            )
        })?;
        let tsf = if self.tsf_reference {
            binxml::tsf::TsfEncoderOptions::reference()
        } else {
            binxml::tsf::TsfEncoderOptions::default()
        };
        Ok(EncodeOptions::default()
            .with_exi(exi_options(self.exi.as_deref())?)
            .with_indent(self.indent)
            .with_fi(fi)
            .with_xebu(binxml::xebu::XebuOptions::default().with_forget(self.xebu_forget))
            .with_tsf(tsf)
            .with_asn1(Some(a)))
    }
}

/// Where a conversion writes, and how.
#[derive(Args, Clone)]
pub struct OutputArgs {
    /// Output file for a single input (`-`, the default, is standard output). A regular file is
    /// replaced atomically, keeping its permissions; a symbolic link's target is written; a
    /// device or FIFO is written directly. A name ending in `.gz`, `.zst` or `.xz` is
    /// compressed.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Output directory for batch conversion: files keep their relative paths, with the new
    /// format's extension. Two inputs that would be written to one output, or an output that
    /// is an input, stop the command before anything is written.
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// Batch conversion: keep the source extension in the output name (`d.xml` -> `d.xml.fi`),
    /// so that `d.xml` and `d.json` do not collide.
    #[arg(long, requires = "out_dir")]
    pub keep_extension: bool,
    /// Compress the output (also chosen by an `-o` name ending in `.gz`, `.zst` or `.xz`).
    #[arg(long, value_enum)]
    pub compress: Option<Compression>,
}
