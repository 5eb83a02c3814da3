//! `binxml`: the command-line tool, a thin layer over the library.
//!
//! Exit status: 0 on success, 1 when an input could not be converted or an output not written
//! (one line `binxml: error: FILE: FORMAT: what went wrong at byte N` per failure), 2 on a usage
//! error. A closed output pipe ends the command at once and quietly, by SIGPIPE, as it ends
//! `cat`; SIGINT, SIGTERM and SIGHUP remove any temporary file before the command ends.

mod args;
mod batch;
mod convert;
mod error;
mod input;
mod output;
mod sign;
mod signals;
mod validate;
mod xebu_stream;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use binxml::{DecodeOptions, Decoder, Format};
use clap::{Parser, Subcommand};

use args::{CodecArgs, LimitArgs, OutputArgs};
use error::CliError;
use input::display;
use output::Compression;

#[derive(Parser)]
#[command(
    name = "binxml",
    version,
    about = "Convert between XML, JSON and binary infoset encodings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum SchemaCommand {
    /// Print the ASN.1 module of the schema (X.694), with its XER encoding control section.
    Asn1 {
        /// The schema's root document.
        schema: PathBuf,
        /// Read a schemaLocation from a local file instead (`URL=FILE`).
        #[arg(long = "schema-location", value_name = "URL=FILE")]
        schema_locations: Vec<String>,
        /// Map these global elements (`NAME` or `{NS}NAME`; default: the one the schema's root
        /// document declares); `all` maps every global element.
        #[arg(long, value_name = "ELEMENT")]
        root: Option<String>,
        /// Leave out the XER encoding control section (what PER and BER tools compile).
        #[arg(long)]
        no_encoding_control: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

#[derive(Subcommand)]
enum XebuCommand {
    /// Write the documents (any format) as the messages of one Xebu stream, the tokens (and
    /// XebuS's automata) carried from message to message.
    Pack {
        /// Input documents, in order.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The stream (`-`: standard output).
        #[arg(short = 'o', long = "output", default_value = "-")]
        output: PathBuf,
        /// Forget mode: every message decodes on its own.
        #[arg(long)]
        xebu_forget: bool,
        /// XebuS: the omission automata of this RELAX NG schema (.rng or .rnc).
        #[arg(long, value_name = "RNG")]
        xebu_schema: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Write each message of a Xebu stream as a document of its own, `DIR/STEM-N.EXT`.
    Unpack {
        /// The stream.
        input: PathBuf,
        /// Output directory.
        #[arg(long = "out-dir", value_name = "DIR")]
        out_dir: PathBuf,
        /// Output format of the documents.
        #[arg(short = 't', long = "to", default_value = "xml")]
        to: Format,
        /// XebuS: the schema the stream was written with.
        #[arg(long, value_name = "RNG")]
        xebu_schema: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Xebu streams: `binxml xebu pack a.xml b.xml -o s.xebu` writes a stream of messages,
    /// `binxml xebu unpack s.xebu --out-dir DIR` one document per message.
    Xebu {
        #[command(subcommand)]
        action: XebuCommand,
    },
    /// Convert documents. One INPUT (or `-` for stdin) writes to -o (default stdout); several
    /// inputs or a directory convert in parallel into --out-dir, with a progress bar. Inputs
    /// compressed with gzip, zstd or xz are decompressed.
    Convert {
        /// Input files or directories (`-` is standard input).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output format.
        #[arg(short = 't', long = "to")]
        to: Format,
        /// Input format (detected from the first bytes, then the file extension, when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        output: OutputArgs,
        /// Worker threads for batch conversion (default: all cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// List the formats.
    Formats,
    /// Schema tools: `binxml schema asn1 x.xsd` prints the ASN.1 module that ITU-T X.694
    /// maps the schema to (the types of `asn1-xsd-uper`, `-aper`, `-ber`).
    Schema {
        #[command(subcommand)]
        action: SchemaCommand,
    },
    /// Validate documents (any format) against an XML Schema, or a RELAX NG schema (`.rng`,
    /// or `.rnc` for the compact syntax). Prints `FILE: valid`, or each
    /// error as `FILE:LINE:COLUMN: PATH: what is wrong` (a byte offset for binary inputs);
    /// exit status 1 when any document is invalid or unreadable.
    Validate {
        /// Input files (`-` is standard input).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The schema's root document (an .xsd file, or a RELAX NG .rng / .rnc file; what it
        /// includes and imports is read from local files only).
        #[arg(long, value_name = "SCHEMA")]
        schema: PathBuf,
        /// Read a schemaLocation from a local file instead (`URL=FILE`; a URL ending in `/`
        /// maps a whole tree: `URL/=DIR`).
        #[arg(long = "schema-location", value_name = "URL=FILE")]
        schema_locations: Vec<String>,
        /// Input format (detected when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        limits: LimitArgs,
        /// EXI input: the options of a stream whose header has none (as `convert --exi`).
        #[arg(long, value_name = "OPTIONS")]
        exi: Option<String>,
    },
    /// Print one line per event with its offset in the input: bytes, or bits (`bit N`) for the
    /// bit-packed formats.
    Inspect {
        input: PathBuf,
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Fast Infoset external vocabulary `URI=FILE` the document may reference.
        #[arg(long = "fi-vocabulary", value_name = "URI=FILE")]
        fi_vocabulary: Vec<String>,
        /// EXI: the options of a stream whose header has none (as `convert --exi`).
        #[arg(long, value_name = "OPTIONS")]
        exi: Option<String>,
        /// Schema-informed EXI and the X.694 formats: the XML Schema (as `convert --schema`).
        #[command(flatten)]
        schema: args::SchemaArgs,
    },
    /// Sign an XML document with an enveloped XML Signature (one reference to the whole
    /// document, or to the element with --id), any file with a detached XML Signature
    /// (--detached), or with --cms a document in any format with a CMS SignedData; written to
    /// -o (standard output without).
    Sign {
        /// The XML document (with --detached, any file).
        input: PathBuf,
        /// The private key, PEM (PKCS#8, PKCS#1 or SEC1; RSA of 2048 bits or more, P-256, P-384),
        /// or a PKCS#12 file (.p12, .pfx: its password in BINXML_KEY_PASSWORD; its certificate
        /// used when --cert is not given).
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// The key's X.509 certificate, PEM, put in the signature's KeyInfo.
        #[arg(long, value_name = "PEM")]
        cert: Option<PathBuf>,
        /// Where to write the signed document (`-`: standard output).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// The canonicalization.
        #[arg(long, value_enum, default_value = "exc")]
        c14n: sign::C14nArg,
        /// The digest.
        #[arg(long, value_enum, default_value = "sha256")]
        digest: sign::DigestArg,
        /// Sign the element whose Id (ID, id, xml:id) attribute is this, not the whole document.
        #[arg(long)]
        id: Option<String>,
        /// An enveloping signature: the output's document element is the ds:Signature, the
        /// document inside its ds:Object with this Id.
        #[arg(long, value_name = "OBJECT_ID")]
        enveloping: Option<String>,
        /// Sign the document's bytes, in any format binxml reads, with a CMS SignedData (DER;
        /// needs --cert) instead of an XML Signature.
        #[arg(long)]
        cms: bool,
        /// A detached signature: a ds:Signature document whose reference names the input file
        /// by --uri (its file name when absent) and digests its bytes; with --cms, a SignedData
        /// without the content. Verify with --content.
        #[arg(long)]
        detached: bool,
        /// With --detached: the reference's URI (a relative URI reference; the input's file
        /// name, percent-escaped, when absent).
        #[arg(long, requires = "detached")]
        uri: Option<String>,
        /// RSA-PSS (MGF1, salt as long as the digest) rather than PKCS#1 v1.5, with an RSA key.
        #[arg(long)]
        rsa_pss: bool,
        /// With --cms: the input format (detected when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        /// Maximum size in bytes of a compressed input once decompressed.
        #[arg(long, default_value_t = 4 << 30)]
        max_decompressed: u64,
        /// Sign a schema-informed EXI message of this XML Schema over Canonical EXI (as ISO
        /// 15118 does; the schema imports the XML Signature schema): a ds:Signature in the
        /// element --signature-in names, referencing --id, or every element with an Id
        /// outside it.
        #[arg(long, value_name = "XSD")]
        schema: Option<PathBuf>,
        /// Read a schemaLocation from a local file instead (`URL=FILE`), with --schema.
        #[arg(long = "schema-location", value_name = "URL=FILE", requires = "schema")]
        schema_locations: Vec<String>,
        /// With --schema: the message's EXI options (as `convert --exi`), EXI's defaults when
        /// absent.
        #[arg(long = "exi", value_name = "OPTIONS", requires = "schema")]
        exi: Option<String>,
        /// With --schema: the element the signature goes in (`NAME` or `{NS}NAME`).
        #[arg(
            long = "signature-in",
            value_name = "ELEMENT",
            default_value = "Header"
        )]
        signature_in: String,
    },
    /// Verify the enveloped XML Signature of each document, or a CMS SignedData (recognized
    /// from its bytes). Prints `FILE: valid: ...` with what
    /// is signed and by which key, or `FILE: not valid: why`; exit status 1 when one is not
    /// valid. Without --cert or --pubkey the certificate in the signature is used, which proves
    /// integrity only.
    Verify {
        /// The signed XML documents.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The signer's X.509 certificate, PEM: its key must have made the signature.
        #[arg(long, value_name = "PEM")]
        cert: Option<PathBuf>,
        /// The signer's public key, PEM (SubjectPublicKeyInfo).
        #[arg(long, value_name = "PEM")]
        pubkey: Option<PathBuf>,
        /// Accept SHA-1 digests and signatures.
        #[arg(long)]
        allow_sha1: bool,
        /// Accept a signature that covers an element (by id) rather than the document element.
        #[arg(long)]
        allow_partial: bool,
        /// The signed file of a detached XML Signature or CMS signature (never fetched from
        /// the signature's URI).
        #[arg(long, value_name = "FILE")]
        content: Option<PathBuf>,
        /// Maximum size in bytes of a compressed input once decompressed.
        #[arg(long, default_value_t = 4 << 30)]
        max_decompressed: u64,
        /// EXI inputs are messages of this XML Schema signed over Canonical EXI.
        #[arg(long, value_name = "XSD")]
        schema: Option<PathBuf>,
        /// Read a schemaLocation from a local file instead (`URL=FILE`), with --schema.
        #[arg(long = "schema-location", value_name = "URL=FILE", requires = "schema")]
        schema_locations: Vec<String>,
        /// With --schema: the messages' EXI options, EXI's defaults when absent.
        #[arg(long = "exi", value_name = "OPTIONS", requires = "schema")]
        exi: Option<String>,
    },
    /// Print the detected format of each file (from its bytes, then its extension).
    Detect {
        inputs: Vec<PathBuf>,
        /// Maximum size in bytes of a compressed input once decompressed.
        #[arg(long, default_value_t = 4 << 30)]
        max_decompressed: u64,
    },
    /// Build a Fast Infoset external vocabulary from sample documents (any format): the names,
    /// namespaces and short repeated values they use. Reference it with
    /// `convert --fi-vocabulary URI=FILE` on both sides.
    FiVocabulary {
        /// Sample documents.
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        /// Where to write the vocabulary.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
}

/// Runs `f`, turning a panic into an error (a bug, but never a crash of the tool).
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, CliError>) -> Result<T, CliError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(CliError::failure(format!(
                "internal error (please report): {msg}"
            )))
        }
    }
}

/// Writes the lines `f` produces to standard output, buffered; a write error stops `f`.
fn to_stdout(f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    f(&mut w)
        .and_then(|()| w.flush())
        .map_err(|e| CliError::from_write(e).writing("standard output"))
}

fn formats() -> Result<(), CliError> {
    to_stdout(|w| {
        for f in Format::every() {
            writeln!(
                w,
                "{:<13} .{:<6} {}",
                f.name(),
                f.extension(),
                f.description()
            )?;
        }
        Ok(())
    })
}

fn detect(inputs: &[PathBuf], max_decompressed: u64) -> Result<i32, CliError> {
    let mut status = 0;
    let mut lines = Vec::new();
    for p in inputs {
        match input::read(p, max_decompressed) {
            Ok(src) => {
                let f = binxml::detect_named(&src.name, &src.data);
                let z = src
                    .compression
                    .map(|c| format!(" ({} compressed)", c.extension()))
                    .unwrap_or_default();
                let name = f.map(|f| f.name()).unwrap_or("unknown");
                if f.is_none() {
                    status = 1;
                }
                lines.push(format!("{}: {name}{z}", display(p)));
            }
            Err(e) => {
                // Lines so far go out first, so that the error follows them.
                flush_lines(&mut lines)?;
                if let Some(l) = e.about(&display(p)).line() {
                    eprintln_quiet(&l);
                }
                status = 1;
            }
        }
        if lines.len() >= 64 {
            flush_lines(&mut lines)?;
        }
    }
    flush_lines(&mut lines)?;
    Ok(status)
}

fn flush_lines(lines: &mut Vec<String>) -> Result<(), CliError> {
    let r = to_stdout(|w| {
        for l in lines.iter() {
            writeln!(w, "{l}")?;
        }
        Ok(())
    });
    lines.clear();
    r
}

/// Prints a line on standard error; a closed or full standard error is not worth dying for.
pub(crate) fn eprintln_quiet(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn inspect(
    input_path: &Path,
    from: Option<Format>,
    dopts: &DecodeOptions,
    max: u64,
) -> Result<(), CliError> {
    let shown = display(input_path);
    let src = input::read(input_path, max).map_err(|e| e.about(&shown))?;
    let from = input::format_of(from, &src).map_err(|e| e.about(&shown))?;
    let dec = binxml::AnyDecoder::new(from, &src.data, dopts)
        .map_err(|e| CliError::failure(e.to_string()).about(&shown))?;
    let mut lines = binxml::Inspector::new(dec);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write_err = |e: std::io::Error| CliError::from_write(e).writing("standard output");
    writeln!(out, "# {shown} as {from}").map_err(write_err)?;
    loop {
        match lines.next_line() {
            Ok(Some(line)) => writeln!(out, "{line}").map_err(write_err)?,
            Ok(None) => break,
            Err(e) => {
                out.flush().map_err(write_err)?;
                return Err(CliError::failure(e.to_string()).about(&shown));
            }
        }
    }
    out.flush().map_err(write_err)
}

fn fi_vocabulary(samples: &[PathBuf], output: &Path) -> Result<(), CliError> {
    let mut b = binxml::fi::VocabularyBuilder::new();
    for p in samples {
        let shown = display(p);
        let src = input::read(p, 4 << 30).map_err(|e| e.about(&shown))?;
        let f = input::format_of(None, &src).map_err(|e| e.about(&shown))?;
        let fail = |e: binxml::Error| CliError::failure(e.to_string()).about(&shown);
        let mut dec =
            binxml::AnyDecoder::new(f, &src.data, &DecodeOptions::default()).map_err(fail)?;
        while let Some(ev) = dec.next_event().map_err(fail)? {
            b.add_event(&ev);
        }
    }
    let text = b.build().to_text();
    output::write_to(output, Compression::from_path(output), |w| {
        w.write_all(text.as_bytes()).map_err(CliError::from_write)
    })
}

fn convert(
    inputs: Vec<PathBuf>,
    to: Format,
    from: Option<Format>,
    out: OutputArgs,
    jobs: Option<usize>,
    limits: LimitArgs,
    codec: CodecArgs,
) -> Result<i32, CliError> {
    codec.check(from, to)?;
    let (grammars, x694) = codec.schemas(&limits.limits(), from, to)?;
    let xebu_schema = codec.xebu_schema(&limits.limits())?;
    let dopts = args::decode_options(&limits, &codec.fi_vocabulary, codec.tsf_utf16_lengths)?
        .with_exi(args::exi_options(codec.exi.as_deref())?)
        .with_exi_schema(grammars.clone())
        .with_x694(x694.clone())
        .with_xebu_schema(xebu_schema.clone());
    let mut eopts = codec
        .encode_options(to)?
        .with_exi_schema(grammars)
        .with_x694(x694);
    eopts.xebu = eopts.xebu.clone().with_schema(xebu_schema);
    if let Some(j) = jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    if let Some(dir) = &out.out_dir {
        if out.output.is_some() {
            return Err(CliError::usage("use either -o or --out-dir"));
        }
        let naming = batch::Naming {
            to,
            keep_extension: out.keep_extension,
            compression: out.compress,
        };
        let planned = batch::plan(&inputs, dir, &naming)?;
        return Ok(batch::run(
            &planned,
            &batch::Batch {
                from,
                to,
                dopts: &dopts,
                eopts: &eopts,
                compression: out.compress,
                max_decompressed: limits.max_decompressed,
            },
        ));
    }
    if inputs.len() != 1 || inputs[0].is_dir() {
        return Err(CliError::usage(
            "several inputs or a directory need --out-dir DIR",
        ));
    }
    let input_path = &inputs[0];
    let target = out.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let compression = out.compress.or_else(|| Compression::from_path(&target));
    let resolved = output::resolve(&target)?;
    if out.output.is_none()
        && resolved == output::Target::Stdout
        && (to.is_binary() || compression.is_some())
        && std::io::stdout().is_terminal()
    {
        return Err(CliError::usage(format!(
            "refusing to write {to} (binary) to a terminal; use -o FILE or -o -"
        )));
    }
    let shown = display(input_path);
    guarded(|| {
        let src = input::read(input_path, limits.max_decompressed)?;
        let from = input::format_of(from, &src)?;
        if codec.tsf_utf16_lengths && from != Format::Tsf {
            return Err(CliError::usage(format!(
                "--tsf-utf16-lengths applies to TSF input, not {from}"
            )));
        }
        output::write_to(&target, compression, |w| {
            convert::convert(&src.data, from, to, w, &dopts, &eopts)
        })
    })
    .map_err(|e| e.about(&shown))?;
    Ok(0)
}

fn load_xebu_schema(
    path: Option<&Path>,
    limits: &binxml::core::Limits,
) -> Result<Option<binxml::xebu::XebuSchema>, CliError> {
    let Some(path) = path else { return Ok(None) };
    let options = binxml::schema::LoadOptions::default().with_limits(limits.clone());
    let s = binxml::schema::relaxng::RelaxNg::load_with(path, &options)
        .map_err(|e| CliError::failure(format!("schema {e}")))?;
    Ok(Some(binxml::xebu::XebuSchema::new(s)))
}

fn xebu(action: XebuCommand) -> Result<i32, CliError> {
    match action {
        XebuCommand::Pack {
            inputs,
            output,
            xebu_forget,
            xebu_schema,
            limits,
        } => {
            let schema = load_xebu_schema(xebu_schema.as_deref(), &limits.limits())?;
            let dopts = args::decode_options(&limits, &[], false)?;
            let opts = binxml::xebu::XebuOptions::default()
                .with_forget(xebu_forget)
                .with_schema(schema);
            xebu_stream::pack(&inputs, &output, &dopts, opts, limits.max_decompressed)?;
            Ok(0)
        }
        XebuCommand::Unpack {
            input,
            out_dir,
            to,
            xebu_schema,
            limits,
        } => {
            let schema = load_xebu_schema(xebu_schema.as_deref(), &limits.limits())?;
            let n = xebu_stream::unpack(
                &input,
                &out_dir,
                to,
                schema.as_ref(),
                &limits.limits(),
                &binxml::EncodeOptions::default(),
                limits.max_decompressed,
            )?;
            eprintln_quiet(&format!("{}: {n} messages", display(&input)));
            Ok(0)
        }
    }
}

fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Formats => formats().map(|()| 0),
        Command::Xebu { action } => guarded(|| xebu(action)),
        Command::Schema {
            action:
                SchemaCommand::Asn1 {
                    schema,
                    schema_locations,
                    root,
                    no_encoding_control,
                    limits,
                },
        } => guarded(|| {
            let s = args::load_schema(&schema, &schema_locations, &limits.limits())?;
            let roots = args::x694_roots(root.as_deref())?;
            let x = binxml::asn1::x694::X694::with_roots(std::sync::Arc::new(s), &roots)
                .map_err(|e| CliError::failure(format!("{}: {e}", display(&schema))))?;
            let text = x.text(!no_encoding_control);
            to_stdout(|w| w.write_all(text.as_bytes())).map(|()| 0)
        }),
        Command::FiVocabulary { samples, output } => {
            guarded(|| fi_vocabulary(&samples, &output)).map(|()| 0)
        }
        Command::Detect {
            inputs,
            max_decompressed,
        } => guarded(|| detect(&inputs, max_decompressed)),
        Command::Inspect {
            input,
            from,
            limits,
            fi_vocabulary,
            exi,
            schema,
        } => {
            let (grammars, x694) = schema.schemas(&limits.limits(), from, Format::Xml)?;
            let dopts = args::decode_options(&limits, &fi_vocabulary, false)?
                .with_positions(true)
                .with_exi(args::exi_options(exi.as_deref())?)
                .with_exi_schema(grammars)
                .with_x694(x694);
            guarded(|| inspect(&input, from, &dopts, limits.max_decompressed)).map(|()| 0)
        }
        Command::Validate {
            inputs,
            schema,
            schema_locations,
            from,
            limits,
            exi,
        } => {
            let dopts = args::decode_options(&limits, &[], false)?
                .with_positions(true)
                .with_exi(args::exi_options(exi.as_deref())?);
            guarded(|| {
                validate::run(
                    &inputs,
                    &schema,
                    &schema_locations,
                    from,
                    &dopts,
                    limits.max_decompressed,
                )
            })
        }
        Command::Sign {
            input,
            key,
            cert,
            output,
            c14n,
            digest,
            id,
            enveloping,
            cms,
            detached,
            uri,
            rsa_pss,
            from,
            max_decompressed,
            schema,
            schema_locations,
            exi,
            signature_in,
        } => guarded(|| {
            sign::sign(&sign::SignArgs {
                input: &input,
                key: &key,
                cert: cert.as_deref(),
                output: output.as_ref(),
                c14n,
                digest,
                id: id.as_deref(),
                enveloping: enveloping.as_deref(),
                cms,
                detached,
                uri: uri.as_deref(),
                rsa_pss,
                from,
                max_decompressed,
                exi: schema.as_deref().map(|schema| sign::ExiArgs {
                    schema,
                    schema_locations: &schema_locations,
                    options: exi.as_deref(),
                    signature_in: &signature_in,
                }),
            })
        }),
        Command::Verify {
            inputs,
            cert,
            pubkey,
            allow_sha1,
            allow_partial,
            content,
            max_decompressed,
            schema,
            schema_locations,
            exi,
        } => guarded(|| {
            sign::verify(&sign::VerifyArgs {
                inputs: &inputs,
                cert: cert.as_deref(),
                pubkey: pubkey.as_deref(),
                allow_sha1,
                allow_partial,
                content: content.as_deref(),
                max_decompressed,
                exi: schema.as_deref().map(|schema| sign::ExiArgs {
                    schema,
                    schema_locations: &schema_locations,
                    options: exi.as_deref(),
                    signature_in: "Header",
                }),
            })
        }),
        Command::Convert {
            inputs,
            to,
            from,
            output,
            jobs,
            limits,
            codec,
        } => convert(inputs, to, from, output, jobs, limits, codec),
    }
}

fn main() {
    // Panics are caught and reported as one error line; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    signals::install();
    let cli = Cli::parse();
    let code = match guarded(|| run(cli)) {
        Ok(code) => code,
        Err(e) if e.is_closed_pipe() => signals::die_of_closed_pipe(),
        Err(e) => {
            if let Some(line) = e.line() {
                eprintln_quiet(&line);
            }
            e.status()
        }
    };
    std::process::exit(code);
}
