//! `binxml sign` and `binxml verify`: enveloped XML Signatures, made and checked by
//! binxml-sign (through the facade's `binxml::sign`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use binxml::exi::ExiOptions;
use binxml::exi::informed::SchemaGrammars;
use binxml::sign::c14n::C14n;
use binxml::sign::cms;
use binxml::sign::dsig::{self, KeySource, SignOptions, Target, VerifyOptions};
use binxml::sign::exi_dsig::{self, ExiC14n, ExiSignOptions, SignaturePlace};
use binxml::sign::keys::{Certificate, DigestAlg, PrivateKey, PublicKey, RsaPadding};
use binxml::{DecodeOptions, Decoder, Format};

use crate::error::CliError;
use crate::input::{self, display};
use crate::output;

/// The canonicalization chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum C14nArg {
    /// Exclusive XML Canonicalization 1.0.
    Exc,
    /// Exclusive XML Canonicalization 1.0 with comments.
    ExcComments,
    /// Canonical XML 1.0.
    C14n,
    /// Canonical XML 1.0 with comments.
    C14nComments,
    /// Canonical XML 1.1.
    C14n11,
    /// Canonical XML 1.1 with comments.
    C14n11Comments,
}

impl C14nArg {
    fn c14n(self) -> C14n {
        use binxml::sign::c14n::{
            C14N10, C14N10_COMMENTS, C14N11, C14N11_COMMENTS, EXC_C14N, EXC_C14N_COMMENTS,
        };
        let uri = match self {
            C14nArg::Exc => EXC_C14N,
            C14nArg::ExcComments => EXC_C14N_COMMENTS,
            C14nArg::C14n => C14N10,
            C14nArg::C14nComments => C14N10_COMMENTS,
            C14nArg::C14n11 => C14N11,
            C14nArg::C14n11Comments => C14N11_COMMENTS,
        };
        C14n::from_uri(uri).expect("a known canonicalization")
    }
}

/// The digest chosen on the command line (SHA-1 is not offered for signing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DigestArg {
    Sha256,
    Sha384,
    Sha512,
}

fn read_text(path: &Path, what: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::io(format!("cannot read the {what} {}", display(path)), e))
}

/// The signing key: PEM, or a PKCS#12 file (DER) whose password is in the environment variable
/// `BINXML_KEY_PASSWORD` (empty when unset), with the certificate it holds for the key.
fn read_key(path: &Path) -> Result<(PrivateKey, Option<Certificate>), CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::io(format!("cannot read the key {}", display(path)), e))?;
    let fail = |e: binxml::sign::SignError| CliError::usage(format!("{}: {e}", display(path)));
    if bytes.first() == Some(&0x30) {
        let password = std::env::var("BINXML_KEY_PASSWORD").ok();
        let (key, certs) =
            binxml::sign::pkcs12::read_pkcs12(&bytes, password.as_deref().unwrap_or("")).map_err(
                |e| match password {
                    None => CliError::usage(format!(
                        "{}: {e} (a PKCS#12 file's password goes in BINXML_KEY_PASSWORD)",
                        display(path)
                    )),
                    Some(_) => fail(e),
                },
            )?;
        let own = certs
            .into_iter()
            .find(|c| *c.public_key() == key.public_key());
        return Ok((key, own));
    }
    let pem = String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{}: neither PEM nor PKCS#12", display(path))))?;
    Ok((PrivateKey::from_pem(&pem).map_err(fail)?, None))
}

fn sign_error(shown: &str, e: binxml::sign::SignError) -> CliError {
    CliError::failure(format!("{shown}: {e}"))
}

/// What `binxml sign` was asked to do.
pub struct SignArgs<'a> {
    pub input: &'a Path,
    pub key: &'a Path,
    pub cert: Option<&'a Path>,
    pub output: Option<&'a PathBuf>,
    pub c14n: C14nArg,
    pub digest: DigestArg,
    pub id: Option<&'a str>,
    pub enveloping: Option<&'a str>,
    pub cms: bool,
    pub detached: bool,
    pub uri: Option<&'a str>,
    pub rsa_pss: bool,
    pub from: Option<Format>,
    pub max_decompressed: u64,
    /// Canonical EXI: the message schema (and its schemaLocation map), the message's EXI
    /// options, the element the signature goes in.
    pub exi: Option<ExiArgs<'a>>,
}

/// How a schema-informed EXI message is signed or verified over Canonical EXI (ISO 15118's
/// form): `--schema` makes the choice.
pub struct ExiArgs<'a> {
    pub schema: &'a Path,
    pub schema_locations: &'a [String],
    /// The message's EXI options (`--exi`), EXI's defaults when absent.
    pub options: Option<&'a str>,
    /// The element the signature goes in (`NAME` or `{NS}NAME`).
    pub signature_in: &'a str,
}

impl ExiArgs<'_> {
    /// Canonical EXI for the schema's messages (`SignedInfo` encoded with the grammars of the
    /// XML Signature schema it imports), and the message's options.
    fn load(&self) -> Result<(ExiC14n, ExiOptions), CliError> {
        let limits = binxml::Limits::default();
        let schema = crate::args::load_schema(self.schema, self.schema_locations, &limits)?;
        let shown = display(self.schema);
        let grammars = SchemaGrammars::new(Arc::new(schema))
            .map_err(|e| CliError::failure(format!("schema {shown}: {e}")))?;
        let mut load = binxml::schema::LoadOptions::default().with_limits(limits);
        for l in self.schema_locations {
            if let Some((url, file)) = l.split_once('=') {
                load = load.with_location(url, file);
            }
        }
        let c14n = ExiC14n::for_message_schema(Arc::new(grammars), &load)
            .map_err(|e| CliError::failure(format!("schema {shown}: {e}")))?;
        let options = match self.options {
            Some(t) => ExiOptions::default()
                .parse_text(t)
                .map_err(|e| CliError::usage(format!("--exi '{t}': {e}")))?,
            None => ExiOptions::default(),
        };
        Ok((c14n, options))
    }
}

/// Reads the whole document with its decoder: only a document binxml can read is signed as
/// one, and a verified content is said to be one.
fn check_document(src: &input::Source, from: Option<Format>) -> Result<Format, CliError> {
    let format = input::format_of(from, src)?;
    let fail = |e: binxml::Error| CliError::failure(e.to_string());
    let mut dec =
        binxml::AnyDecoder::new(format, &src.data, &DecodeOptions::default()).map_err(fail)?;
    while dec.next_event().map_err(fail)?.is_some() {}
    Ok(format)
}

/// Signs one document with a CMS SignedData, written to `-o` (DER).
fn sign_cms(
    a: &SignArgs<'_>,
    key: &PrivateKey,
    cert: Option<&Certificate>,
) -> Result<i32, CliError> {
    let cert = cert.ok_or_else(|| CliError::usage("--cms needs the signer's --cert"))?;
    if a.c14n != C14nArg::Exc
        || a.digest != DigestArg::Sha256
        || a.id.is_some()
        || a.uri.is_some()
        || a.rsa_pss
    {
        return Err(CliError::usage(
            "--c14n, --digest, --id, --uri and --rsa-pss apply to XML Signatures, not to --cms",
        ));
    }
    let shown = display(a.input);
    let src = input::read(a.input, a.max_decompressed)?;
    check_document(&src, a.from).map_err(|e| e.about(&shown))?;
    let der = cms::sign_cms(&src.data, key, cert, a.detached).map_err(|e| sign_error(&shown, e))?;
    let target = a.output.cloned().unwrap_or_else(|| PathBuf::from("-"));
    if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err(CliError::usage(
            "refusing to write a CMS signature (binary) to a terminal; use -o FILE or -o -",
        ));
    }
    output::write_to(&target, None, |w| {
        w.write_all(&der).map_err(CliError::from_write)
    })?;
    Ok(0)
}

/// Signs a schema-informed EXI message over Canonical EXI: a `ds:Signature` appended to the
/// element `--signature-in` names, one reference per id (`--id`, else every element with an
/// id outside that element), written as EXI with the message's options.
fn sign_exi(
    a: &SignArgs<'_>,
    exi: &ExiArgs<'_>,
    key: &PrivateKey,
    cert: Option<&Certificate>,
) -> Result<i32, CliError> {
    if a.c14n != C14nArg::Exc || a.enveloping.is_some() || a.detached || a.uri.is_some() {
        return Err(CliError::usage(
            "--schema signs an EXI message over Canonical EXI: no --c14n, --enveloping, \
             --detached or --uri",
        ));
    }
    let shown = display(a.input);
    let (c14n, options) = exi.load()?;
    let src = input::read(a.input, a.max_decompressed)?;
    let fail = |e: binxml::sign::SignError| sign_error(&shown, e);
    let events = exi_dsig::decode_message(&src.data, &c14n, &options, binxml::Limits::default())
        .map_err(fail)?;
    let place = SignaturePlace::find(&events, exi.signature_in).map_err(fail)?;
    let references = match a.id {
        Some(id) => vec![id.to_string()],
        None => exi_dsig::ids_outside(&events, &place).map_err(fail)?,
    };
    if references.is_empty() {
        return Err(CliError::usage(format!(
            "{shown}: no element with an Id outside <{}> to sign: give --id",
            exi.signature_in
        )));
    }
    let opts = ExiSignOptions {
        references,
        place,
        digest: match a.digest {
            DigestArg::Sha256 => DigestAlg::Sha256,
            DigestArg::Sha384 => DigestAlg::Sha384,
            DigestArg::Sha512 => DigestAlg::Sha512,
        },
        rsa_padding: if a.rsa_pss {
            RsaPadding::Pss
        } else {
            RsaPadding::Pkcs1v15
        },
    };
    let signed = exi_dsig::sign_exi_events(&events, &c14n, key, cert, &opts).map_err(fail)?;
    let bytes = exi_dsig::encode_message(&signed, &c14n, &options).map_err(fail)?;
    let target = a.output.cloned().unwrap_or_else(|| PathBuf::from("-"));
    if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err(CliError::usage(
            "refusing to write a signed EXI message (binary) to a terminal; use -o FILE or -o -",
        ));
    }
    output::write_to(&target, None, |w| {
        w.write_all(&bytes).map_err(CliError::from_write)
    })?;
    Ok(0)
}

/// Signs one document: an XML Signature inside an XML document, or with `--cms` a CMS
/// SignedData over a document in any format; written to `-o` (standard output without).
pub fn sign(a: &SignArgs<'_>) -> Result<i32, CliError> {
    let (key, p12_cert) = read_key(a.key)?;
    let cert = match a.cert {
        Some(p) => Some(
            Certificate::from_pem(read_text(p, "certificate")?.as_bytes())
                .map_err(|e| CliError::usage(format!("{}: {e}", display(p))))?,
        ),
        None => p12_cert,
    };
    if a.cms {
        return sign_cms(a, &key, cert.as_ref());
    }
    if let Some(exi) = &a.exi {
        return sign_exi(a, exi, &key, cert.as_ref());
    }
    let opts = SignOptions {
        c14n: a.c14n.c14n(),
        digest: match a.digest {
            DigestArg::Sha256 => DigestAlg::Sha256,
            DigestArg::Sha384 => DigestAlg::Sha384,
            DigestArg::Sha512 => DigestAlg::Sha512,
        },
        target: match (a.enveloping, a.id) {
            (Some(obj), None) => Target::Enveloping(obj.to_string()),
            (None, id) => id.map_or(Target::Document, |id| Target::Id(id.to_string())),
            (Some(_), Some(_)) => {
                return Err(CliError::usage(
                    "--enveloping and --id: an enveloping signature signs the whole document",
                ));
            }
        },
        rsa_padding: if a.rsa_pss {
            RsaPadding::Pss
        } else {
            RsaPadding::Pkcs1v15
        },
    };
    if a.detached && (a.id.is_some() || a.enveloping.is_some()) {
        return Err(CliError::usage(
            "--detached signs the input file as a whole: no --id or --enveloping",
        ));
    }
    let shown = display(a.input);
    let signed = if a.detached {
        // The file's bytes as they are on disk: no decompression, no parsing.
        let data = read_raw(a.input)?;
        let uri = match a.uri {
            Some(u) => u.to_string(),
            None => uri_of(a.input)?,
        };
        dsig::sign_detached_xml(&data, &uri, &key, cert.as_ref(), &opts)
    } else {
        let src = input::read(a.input, a.max_decompressed)?;
        dsig::sign_xml(&src.data, &key, cert.as_ref(), &opts)
    }
    .map_err(|e| sign_error(&shown, e))?;
    let target = a.output.cloned().unwrap_or_else(|| PathBuf::from("-"));
    output::write_to(&target, None, |w| {
        w.write_all(&signed).map_err(CliError::from_write)
    })?;
    Ok(0)
}

/// A file's bytes as they are (`-`: standard input): a detached XML Signature digests the
/// octets its peers read, compressed or not.
fn read_raw(path: &Path) -> Result<Vec<u8>, CliError> {
    let shown = display(path);
    let mut buf = Vec::new();
    if path == Path::new("-") {
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| CliError::io("cannot read standard input", e))?;
    } else {
        buf = std::fs::read(path).map_err(|e| CliError::io("cannot read", e).about(&shown))?;
    }
    Ok(buf)
}

/// The relative URI of a detached signature's reference: the file's name, with what a URI
/// cannot hold percent-escaped (RFC 3986: unreserved and sub-delims characters stay).
fn uri_of(path: &Path) -> Result<String, CliError> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        CliError::usage("--detached: the input has no UTF-8 file name; give --uri")
    })?;
    let mut uri = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    Ok(uri)
}

/// Who signed, as the verify line says it.
fn signer_of(key: &Option<(PublicKey, String)>, cert: Option<&Certificate>) -> String {
    match (key, cert) {
        (Some((_, who)), _) => who.clone(),
        (None, Some(c)) => format!(
            "the document's own certificate {} (not trusted: pin a key with --cert)",
            c.subject()
        ),
        (None, None) => "an unknown key".to_string(),
    }
}

/// What `binxml verify` was asked to do.
pub struct VerifyArgs<'a> {
    pub inputs: &'a [PathBuf],
    pub cert: Option<&'a Path>,
    pub pubkey: Option<&'a Path>,
    pub allow_sha1: bool,
    pub allow_partial: bool,
    pub content: Option<&'a Path>,
    pub max_decompressed: u64,
    /// `--schema`: EXI inputs are messages signed over Canonical EXI.
    pub exi: Option<ExiArgs<'a>>,
}

/// Verifies each document's signature: one line per document, `FILE: valid ...` or the
/// reason it is not; exit status 1 when any is not valid.
pub fn verify(a: &VerifyArgs<'_>) -> Result<i32, CliError> {
    let key: Option<(PublicKey, String)> = match (a.cert, a.pubkey) {
        (Some(_), Some(_)) => {
            return Err(CliError::usage("give --cert or --pubkey, not both"));
        }
        (Some(p), None) => {
            let c = Certificate::from_pem(read_text(p, "certificate")?.as_bytes())
                .map_err(|e| CliError::usage(format!("{}: {e}", display(p))))?;
            let who = format!("the key of {} (--cert)", c.subject());
            Some((c.public_key().clone(), who))
        }
        (None, Some(p)) => Some((
            PublicKey::from_pem(&read_text(p, "public key")?)
                .map_err(|e| CliError::usage(format!("{}: {e}", display(p))))?,
            "the key given with --pubkey".to_string(),
        )),
        (None, None) => None,
    };
    let opts = VerifyOptions {
        allow_sha1: a.allow_sha1,
        require_document_element: !a.allow_partial,
        ..VerifyOptions::default()
    };
    if a.content.is_some() && a.inputs.len() > 1 {
        return Err(CliError::usage(
            "--content names the content of one detached signature: give one input",
        ));
    }
    let content = match a.content {
        Some(p) => Some(input::read(p, a.max_decompressed)?),
        None => None,
    };
    let exi = match &a.exi {
        Some(e) => Some(e.load()?),
        None => None,
    };
    let mut status = 0;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write_err = |e: std::io::Error| CliError::from_write(e).writing("standard output");
    for path in a.inputs {
        let shown = display(path);
        let src = match input::read(path, a.max_decompressed) {
            Ok(s) => s,
            Err(e) => {
                status = 1;
                out.flush().map_err(write_err)?;
                if let Some(line) = e.about(&shown).line() {
                    crate::eprintln_quiet(&line);
                }
                continue;
            }
        };
        let source = match &key {
            Some((k, _)) => KeySource::Given(k),
            None => KeySource::Embedded,
        };
        if let Some((c14n, options)) = &exi
            && input::format_of(None, &src).ok() == Some(Format::Exi)
        {
            let line = match exi_dsig::verify_exi(&src.data, c14n, options, source, &opts) {
                Ok(v) => format!(
                    "{shown}: valid: {} over Canonical EXI by {}, covering {}",
                    v.signature_method.rsplit('#').next().unwrap_or(""),
                    signer_of(&key, v.certificate.as_ref()),
                    v.elements
                        .iter()
                        .map(|e| format!("the element {e}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Err(e) => {
                    status = 1;
                    format!("{shown}: not valid: {e}")
                }
            };
            writeln!(out, "{line}").map_err(write_err)?;
            continue;
        }
        if cms::is_cms(&src.data) {
            let line = match cms::verify_cms(
                &src.data,
                content.as_ref().map(|c| &c.data[..]),
                source,
                &opts,
            ) {
                Ok(v) => {
                    let signer = signer_of(&key, v.certificate.as_ref());
                    let doc = input::Source {
                        data: input::Input::Buf(v.content),
                        name: a
                            .content
                            .map_or_else(|| path.with_extension(""), Path::to_path_buf),
                        compression: None,
                    };
                    match check_document(&doc, None) {
                        Ok(f) => {
                            format!(
                                "{shown}: valid: CMS SignedData ({}) by {signer}, over a {f} document",
                                v.digest.name()
                            )
                        }
                        Err(e) => {
                            status = 1;
                            format!(
                                "{shown}: not valid: the signature holds but its content is no document binxml reads ({})",
                                e.line().unwrap_or_default()
                            )
                        }
                    }
                }
                Err(e) => {
                    status = 1;
                    format!("{shown}: not valid: {e}")
                }
            };
            writeln!(out, "{line}").map_err(write_err)?;
            continue;
        }
        // A detached XML Signature digests the content file's bytes as they are on disk.
        let verified = match a.content {
            Some(p) => {
                let data = read_raw(p)?;
                dsig::verify_detached_xml(&src.data, &data, source, &opts)
            }
            None => dsig::verify_xml(&src.data, source, &opts),
        };
        match verified {
            Ok(v) => {
                let signer = signer_of(&key, v.certificate.as_ref());
                let what: Vec<String> = v
                    .references
                    .iter()
                    .map(|r| {
                        if r.detached {
                            format!(
                                "the detached file {} (given as {}, never fetched)",
                                r.uri,
                                a.content.map(display).unwrap_or_default()
                            )
                        } else if r.uri.is_empty() {
                            "the whole document".to_string()
                        } else if v.object == Some(r.element) {
                            format!("the document in its ds:Object {} (enveloping)", r.uri)
                        } else {
                            format!("the element {}", r.uri)
                        }
                    })
                    .collect();
                writeln!(
                    out,
                    "{shown}: valid: {} by {signer}, covering {}",
                    v.signature_method.rsplit('#').next().unwrap_or(""),
                    what.join(", ")
                )
                .map_err(write_err)?;
            }
            Err(e) => {
                status = 1;
                writeln!(out, "{shown}: not valid: {e}").map_err(write_err)?;
            }
        }
    }
    out.flush().map_err(write_err)?;
    Ok(status)
}
