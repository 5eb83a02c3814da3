//! The Python binding: a thin layer over the `binxml` facade. The ElementTree-style API lives in
//! `python/binxml/__init__.py`; this module gives it conversion, detection and event streams.

use std::borrow::Cow;

use binxml::{DecodeOptions, Decoder, DocType, EncodeOptions, Encoder, Event, Format, QName};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

mod attrib;
mod bytes_out;
mod stream;
mod tree;

create_exception!(
    _binxml,
    BinxmlError,
    PyValueError,
    "A document could not be decoded or encoded."
);

fn format(name: &str) -> PyResult<Format> {
    name.parse::<Format>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A `BinxmlError` whose arguments are the message, the format's name (or None), the byte
/// offset (or None) and the line and column (or None) where the input went wrong.
fn err(e: binxml::Error) -> PyErr {
    BinxmlError::new_err((
        e.to_string(),
        e.format().map(Format::name),
        e.offset(),
        e.line_col(),
    ))
}

/// Every format as (name, extension, description).
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str, &'static str)> {
    Format::ALL
        .iter()
        .map(|f| (f.name(), f.extension(), f.description()))
        .collect()
}

/// The format of a document from its first bytes, or None.
#[pyfunction]
fn detect(data: &[u8]) -> Option<&'static str> {
    binxml::detect(data).map(Format::name)
}

fn resolve(data: &[u8], from: Option<&str>) -> PyResult<Format> {
    match from {
        Some(f) => format(f),
        None => binxml::detect(data)
            .ok_or_else(|| BinxmlError::new_err("cannot detect the input format; pass from_=")),
    }
}

/// An XML Schema, loaded once from its root document (its includes and imports from local
/// files; nothing is fetched). `validate` checks a document in any format against it;
/// `convert(..., schema=s)` writes and reads schema-informed EXI with it; `sign_exi` and
/// `verify_exi` sign and verify its messages over Canonical EXI.
#[pyclass(frozen)]
struct Schema {
    schema: std::sync::Arc<binxml::schema::Schema>,
    /// The EXI grammars, built on first use.
    grammars: std::sync::OnceLock<std::sync::Arc<binxml::exi::informed::SchemaGrammars>>,
    /// Canonical EXI for the schema's messages (`sign_exi`, `verify_exi`), built on first use.
    c14n: std::sync::OnceLock<std::sync::Arc<binxml::sign::exi_dsig::ExiC14n>>,
}

/// One validation error as Python sees it: line (XML only), column or byte offset, path, message.
type Invalid = (Option<u64>, u64, String, String);

#[pymethods]
impl Schema {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let s = binxml::schema::Schema::load(&path)
            .map_err(|e| BinxmlError::new_err(format!("schema {e}")))?;
        Ok(Schema {
            schema: std::sync::Arc::new(s),
            grammars: std::sync::OnceLock::new(),
            c14n: std::sync::OnceLock::new(),
        })
    }

    /// The errors of `data` against the schema, each `(line, column, path, message)` (line and
    /// column for XML input, else `(None, byte offset, ...)`); empty when the document is
    /// valid.
    #[pyo3(signature = (data, from_=None))]
    fn validate(&self, py: Python<'_>, data: &[u8], from_: Option<&str>) -> PyResult<Vec<Invalid>> {
        let from = resolve(data, from_)?;
        let schema = &self.schema;
        let errors = py
            .allow_threads(|| -> binxml::Result<Vec<binxml::schema::Invalid>> {
                let mut dec = binxml::AnyDecoder::new(from, data, &DecodeOptions::default())?;
                binxml::schema::Validator::validate(schema, &mut dec)
            })
            .map_err(err)?;
        Ok(errors
            .into_iter()
            .map(|e| {
                if from == Format::Xml {
                    let (l, c) = binxml::core::error::line_col(data, e.offset as usize);
                    (Some(l), c, e.path, e.message)
                } else {
                    (None, e.offset, e.path, e.message)
                }
            })
            .collect())
    }
}

impl Schema {
    fn grammars(&self) -> PyResult<std::sync::Arc<binxml::exi::informed::SchemaGrammars>> {
        if let Some(g) = self.grammars.get() {
            return Ok(g.clone());
        }
        let g = binxml::exi::informed::SchemaGrammars::new(self.schema.clone()).map_err(err)?;
        Ok(self.grammars.get_or_init(|| std::sync::Arc::new(g)).clone())
    }

    /// Canonical EXI for the schema's messages: `SignedInfo`'s grammars from the XML Signature
    /// schema the message schema imports.
    fn c14n(&self) -> PyResult<std::sync::Arc<binxml::sign::exi_dsig::ExiC14n>> {
        if let Some(c) = self.c14n.get() {
            return Ok(c.clone());
        }
        let c = binxml::sign::exi_dsig::ExiC14n::for_message_schema(
            self.grammars()?,
            &binxml::schema::LoadOptions::default(),
        )
        .map_err(|e| BinxmlError::new_err(format!("schema: {e}")))?;
        Ok(self.c14n.get_or_init(|| std::sync::Arc::new(c)).clone())
    }
}

/// A RELAX NG schema (`.rng` or `.rnc`, its includes from local files) for XebuS: Xebu with the
/// schema's omission automata. `convert(..., xebu_schema=s)` writes and reads XebuS with it;
/// load it once and reuse it (its automata are built as messages need them).
#[pyclass(frozen)]
struct XebuSchema {
    schema: binxml::xebu::XebuSchema,
}

#[pymethods]
impl XebuSchema {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let s = binxml::schema::relaxng::RelaxNg::load(&path)
            .map_err(|e| BinxmlError::new_err(format!("schema {e}")))?;
        Ok(XebuSchema {
            schema: binxml::xebu::XebuSchema::new(s),
        })
    }
}

/// Where `convert` writes: a new bytes object (returned; `InPlace` once allocated), or, as the
/// encoder goes, a file (a path) or a Python file object (anything with `write(bytes)`).
enum Out {
    Bytes,
    InPlace(bytes_out::BytesOut),
    Path(std::path::PathBuf),
    Object(Py<PyAny>),
}

impl Out {
    fn of(out: Option<&Bound<'_, PyAny>>) -> PyResult<Out> {
        Ok(match out {
            None => Out::Bytes,
            Some(o) if o.hasattr("write")? => Out::Object(o.clone().unbind()),
            Some(o) => Out::Path(o.extract::<std::path::PathBuf>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err("out: a path or a binary file object")
            })?),
        })
    }
}

/// A Python file object as a `Write`, used while the GIL is released: each write takes it
/// back for the call (behind a large buffer, so rarely).
struct PyWriter(Py<PyAny>);

impl std::io::Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Python::with_gil(|py| {
            let n = self
                .0
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(std::io::Error::other)?;
            // A raw file object may write part of it (and says how much); a buffered one, all.
            match n.extract::<Option<usize>>() {
                Ok(Some(n)) if n <= buf.len() => Ok(n),
                _ => Ok(buf.len()),
            }
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that counts the bytes written through it.
struct Counted<W>(W, u64);

impl<W: std::io::Write> std::io::Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// What a conversion gave: the document, or how many bytes it wrote.
enum Converted {
    Bytes(Vec<u8>),
    InPlace(bytes_out::BytesOut),
    Written(u64),
}

/// Converts a document between formats (the GIL is released meanwhile). `exi`: EXI options
/// (`"compression,preserve-all,header"`, as the command line's `--exi`) for EXI output, and for
/// EXI input whose header carries none. `schema`: a `Schema`, for schema-informed EXI.
/// `xebu_schema`: an `XebuSchema`, for XebuS (both ways). `out`: a path or a binary file object
/// the output is written to as it is encoded (the number of bytes written is returned instead
/// of the document).
#[pyfunction]
#[pyo3(signature = (data, to, from_=None, indent=None, exi=None, schema=None, xebu_schema=None, out=None))]
// One parameter per Python keyword argument.
#[allow(clippy::too_many_arguments)]
fn convert<'py>(
    py: Python<'py>,
    data: &[u8],
    to: &str,
    from_: Option<&str>,
    indent: Option<usize>,
    exi: Option<&str>,
    schema: Option<&Schema>,
    xebu_schema: Option<&XebuSchema>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let from = resolve(data, from_)?;
    let xebu = xebu_schema.map(|x| x.schema.clone());
    let to = format(to)?;
    let exi = binxml::exi::ExiOptions::default()
        .parse_text(exi.unwrap_or(""))
        .map_err(err)?;
    let grammars = schema.map(Schema::grammars).transpose()?;
    let target = match Out::of(out)? {
        // Room for what the largest expansion (a compact binary format to indented XML) makes
        // of most documents; reserved, not touched, and a larger output still fits (`spill`).
        Out::Bytes => {
            let cap = data
                .len()
                .saturating_mul(8)
                .saturating_add(4096)
                .min(1 << 31);
            bytes_out::BytesOut::new(py, cap).map_or(Out::Bytes, Out::InPlace)
        }
        t => t,
    };
    let done = py.allow_threads(|| -> PyResult<Converted> {
        let mut opts = EncodeOptions::default()
            .with_indent(indent)
            .with_exi(exi.clone())
            .with_exi_schema(grammars.clone());
        opts.xebu = opts.xebu.clone().with_schema(xebu.clone());
        let dopts = DecodeOptions::default()
            .with_exi(exi)
            .with_exi_schema(grammars)
            .with_xebu_schema(xebu);
        let run = |w: &mut dyn std::io::Write| -> PyResult<u64> {
            let mut w = Counted(std::io::BufWriter::with_capacity(1 << 20, w), 0);
            binxml::convert_with(data, from, &dopts, to, &mut w, &opts).map_err(err)?;
            std::io::Write::flush(&mut w)?;
            Ok(w.1)
        };
        match target {
            Out::Bytes => {
                // Room for the output up front (reserved, not touched): growing by doubling
                // would copy it several times.
                let mut v = Vec::with_capacity(data.len().saturating_mul(2).min(1 << 31));
                binxml::convert_with(data, from, &dopts, to, &mut v, &opts).map_err(err)?;
                Ok(Converted::Bytes(v))
            }
            Out::InPlace(mut b) => {
                binxml::convert_with(data, from, &dopts, to, &mut b, &opts).map_err(err)?;
                Ok(Converted::InPlace(b))
            }
            Out::Path(p) => Ok(Converted::Written(run(&mut std::fs::File::create(p)?)?)),
            Out::Object(o) => Ok(Converted::Written(run(&mut PyWriter(o))?)),
        }
    })?;
    Ok(match done {
        Converted::Bytes(v) => PyBytes::new(py, &v).into_any(),
        Converted::InPlace(b) => b.finish(py)?.into_any(),
        Converted::Written(n) => n.into_pyobject(py)?.into_any(),
    })
}

/// [`convert`] of a file, mapped rather than read into a bytes object first (as the command
/// line does).
#[pyfunction]
#[pyo3(signature = (path, to, from_=None, indent=None, exi=None, schema=None, xebu_schema=None, out=None))]
#[allow(clippy::too_many_arguments)]
fn convert_file<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    to: &str,
    from_: Option<&str>,
    indent: Option<usize>,
    exi: Option<&str>,
    schema: Option<&Schema>,
    xebu_schema: Option<&XebuSchema>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let file = std::fs::File::open(&path)?;
    // `_input` unmaps when dropped, after the conversion that borrows `data`.
    let (_input, data) = stream::map(&file)?;
    convert(py, data, to, from_, indent, exi, schema, xebu_schema, out)
}

fn opt(s: &Option<Cow<'_, str>>) -> Option<String> {
    s.as_ref().map(|s| s.to_string())
}

/// The document's events as tuples:
/// `("start_document", version, encoding, standalone)`, `("doctype", name, public_id,
/// system_id, internal_subset)`, `("start", namespace, local, prefix)`, `("ns", prefix, uri)`,
/// `("attr", namespace, local, prefix, value)`, `("text", text, cdata)`, `("comment", text)`,
/// `("pi", target, data)`, `("entity_ref", name)`, `("end",)`, `("end_document",)`; typed values
/// come as `("text", lexical_form, False)`.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
fn events<'py>(
    py: Python<'py>,
    data: &[u8],
    format: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let from = resolve(data, format)?;
    let mut dec = binxml::AnyDecoder::new(from, data, &DecodeOptions::default()).map_err(err)?;
    let mut out = Vec::new();
    while let Some(ev) = dec.next_event().map_err(err)? {
        let t = match ev {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => ("start_document", opt(&version), opt(&encoding), standalone).into_pyobject(py)?,
            Event::EndDocument => PyTuple::new(py, ["end_document"])?,
            Event::DocType(d) => (
                "doctype",
                d.name.to_string(),
                opt(&d.public_id),
                opt(&d.system_id),
                opt(&d.internal_subset),
            )
                .into_pyobject(py)?,
            Event::StartElement(q) => (
                "start",
                q.namespace.as_ref(),
                q.local.as_ref(),
                q.prefix.as_ref(),
            )
                .into_pyobject(py)?,
            Event::EndElement => PyTuple::new(py, ["end"])?,
            Event::Namespace { prefix, uri } => {
                ("ns", prefix.as_ref(), uri.as_ref()).into_pyobject(py)?
            }
            Event::Attribute { name, value } => (
                "attr",
                name.namespace.as_ref(),
                name.local.as_ref(),
                name.prefix.as_ref(),
                value.as_ref(),
            )
                .into_pyobject(py)?,
            Event::Characters { text, cdata } => {
                ("text", text.as_ref(), cdata).into_pyobject(py)?
            }
            Event::Typed(t) => ("text", t.lexical(), false).into_pyobject(py)?,
            Event::Comment(c) => ("comment", c.as_ref()).into_pyobject(py)?,
            Event::ProcessingInstruction { target, data } => {
                ("pi", target.as_ref(), data.as_ref()).into_pyobject(py)?
            }
            Event::EntityReference { name, .. } => {
                ("entity_ref", name.as_ref()).into_pyobject(py)?
            }
            // declarations, and kinds of event this module does not know yet, are left out
            _ => continue,
        };
        out.push(t);
    }
    Ok(out)
}

fn s(t: &Bound<'_, PyTuple>, i: usize) -> PyResult<String> {
    t.get_item(i)?.extract()
}

fn os(t: &Bound<'_, PyTuple>, i: usize) -> PyResult<Option<String>> {
    if i >= t.len() {
        return Ok(None);
    }
    t.get_item(i)?.extract()
}

/// Encodes a list of event tuples (the shapes `events` returns) in a format.
#[pyfunction]
#[pyo3(signature = (events, to, indent=None))]
fn encode<'py>(
    py: Python<'py>,
    events: Vec<Bound<'py, PyTuple>>,
    to: &str,
    indent: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let to = format(to)?;
    let mut evs: Vec<Event<'static>> = Vec::with_capacity(events.len());
    for t in &events {
        let kind = s(t, 0)?;
        let ev = match kind.as_str() {
            "start_document" => Event::StartDocument {
                version: os(t, 1)?.map(Cow::Owned),
                encoding: os(t, 2)?.map(Cow::Owned),
                standalone: if t.len() > 3 {
                    t.get_item(3)?.extract()?
                } else {
                    None
                },
            },
            "end_document" => Event::EndDocument,
            "doctype" => Event::DocType(DocType {
                name: Cow::Owned(s(t, 1)?),
                public_id: os(t, 2)?.map(Cow::Owned),
                system_id: os(t, 3)?.map(Cow::Owned),
                internal_subset: os(t, 4)?.map(Cow::Owned),
            }),
            "start" => Event::StartElement(QName::new(
                os(t, 3)?.unwrap_or_default(),
                s(t, 1)?,
                s(t, 2)?,
            )),
            "end" => Event::EndElement,
            "ns" => Event::Namespace {
                prefix: Cow::Owned(s(t, 1)?),
                uri: Cow::Owned(s(t, 2)?),
            },
            "attr" => Event::Attribute {
                name: QName::new(s(t, 3)?, s(t, 1)?, s(t, 2)?),
                value: Cow::Owned(s(t, 4)?),
            },
            "text" => Event::Characters {
                text: Cow::Owned(s(t, 1)?),
                cdata: if t.len() > 2 {
                    t.get_item(2)?.extract()?
                } else {
                    false
                },
            },
            "comment" => Event::Comment(Cow::Owned(s(t, 1)?)),
            "pi" => Event::ProcessingInstruction {
                target: Cow::Owned(s(t, 1)?),
                data: Cow::Owned(os(t, 2)?.unwrap_or_default()),
            },
            "entity_ref" => Event::EntityReference {
                name: Cow::Owned(s(t, 1)?),
                public_id: None,
                system_id: None,
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown event kind {other:?}"
                )));
            }
        };
        evs.push(ev);
    }
    let out = py
        .allow_threads(|| -> binxml::Result<Vec<u8>> {
            let mut out = Vec::new();
            {
                let opts = EncodeOptions::default().with_indent(indent);
                let mut enc = binxml::AnyEncoder::new(to, &mut out, &opts);
                for e in &evs {
                    enc.write_event(e)?;
                }
                enc.finish()?;
            }
            Ok(out)
        })
        .map_err(err)?;
    Ok(PyBytes::new(py, &out))
}

fn sign_err(e: binxml::sign::SignError) -> PyErr {
    BinxmlError::new_err(e.to_string())
}

fn private_key(pem: &str) -> PyResult<binxml::sign::keys::PrivateKey> {
    binxml::sign::keys::PrivateKey::from_pem(pem).map_err(sign_err)
}

fn certificate(pem: Option<&str>) -> PyResult<Option<binxml::sign::keys::Certificate>> {
    pem.map(|p| binxml::sign::keys::Certificate::from_pem(p.as_bytes()))
        .transpose()
        .map_err(sign_err)
}

/// A signature's digest by name (SHA-1 is not offered for signing).
fn digest_alg(name: &str) -> PyResult<binxml::sign::keys::DigestAlg> {
    binxml::sign::keys::DigestAlg::from_name(name)
        .filter(|d| *d != binxml::sign::keys::DigestAlg::Sha1)
        .ok_or_else(|| PyValueError::new_err(format!("unknown digest {name:?}")))
}

fn rsa_padding(pss: bool) -> binxml::sign::keys::RsaPadding {
    if pss {
        binxml::sign::keys::RsaPadding::Pss
    } else {
        binxml::sign::keys::RsaPadding::Pkcs1v15
    }
}

/// Signs an XML document with an enveloped XML Signature (see docs/sign.md): `key` and `cert`
/// are PEM text; `c14n` one of `exc`, `exc-comments`, `c14n`, `c14n-comments`, `c14n11`,
/// `c14n11-comments`; `digest` `sha256`, `sha384` or `sha512`; `id` signs the element with that
/// id instead of the whole document; `enveloping` makes an enveloping signature instead (the
/// document inside its ds:Object with that id); `detached` (a relative URI naming the file
/// `data` is read from) makes a detached signature over `data` as bytes of any kind, returned
/// as a signature document of its own; `rsa_pss` signs an RSA key with RSA-PSS. Returns the
/// signed document.
#[pyfunction]
#[pyo3(signature = (data, key, cert=None, c14n="exc", digest="sha256", id=None, enveloping=None, detached=None, rsa_pss=false))]
// One parameter per Python keyword argument.
#[allow(clippy::too_many_arguments)]
fn sign_xml<'py>(
    py: Python<'py>,
    data: &[u8],
    key: &str,
    cert: Option<&str>,
    c14n: &str,
    digest: &str,
    id: Option<&str>,
    enveloping: Option<&str>,
    detached: Option<&str>,
    rsa_pss: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    use binxml::sign::c14n::{
        C14N10, C14N10_COMMENTS, C14N11, C14N11_COMMENTS, C14n, EXC_C14N, EXC_C14N_COMMENTS,
    };
    use binxml::sign::dsig::{SignOptions, Target};
    let uri = match c14n {
        "exc" => EXC_C14N,
        "exc-comments" => EXC_C14N_COMMENTS,
        "c14n" => C14N10,
        "c14n-comments" => C14N10_COMMENTS,
        "c14n11" => C14N11,
        "c14n11-comments" => C14N11_COMMENTS,
        other => return Err(PyValueError::new_err(format!("unknown c14n {other:?}"))),
    };
    let digest = digest_alg(digest)?;
    let opts = SignOptions {
        c14n: C14n::from_uri(uri).expect("a known canonicalization"),
        digest,
        target: match (enveloping, id) {
            (Some(o), None) => Target::Enveloping(o.to_string()),
            (None, id) => id.map_or(Target::Document, |i| Target::Id(i.to_string())),
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "enveloping and id: an enveloping signature signs the whole document",
                ));
            }
        },
        rsa_padding: rsa_padding(rsa_pss),
    };
    if detached.is_some() && (id.is_some() || enveloping.is_some()) {
        return Err(PyValueError::new_err(
            "detached signs data as a whole: no id or enveloping",
        ));
    }
    let key = private_key(key)?;
    let cert = certificate(cert)?;
    let out = py
        .allow_threads(|| match detached {
            Some(uri) => {
                binxml::sign::dsig::sign_detached_xml(data, uri, &key, cert.as_ref(), &opts)
            }
            None => binxml::sign::dsig::sign_xml(data, &key, cert.as_ref(), &opts),
        })
        .map_err(sign_err)?;
    Ok(PyBytes::new(py, &out))
}

/// Verifies the enveloped XML Signature of an XML document with the signer's certificate
/// (PEM), or, without one, with the certificate inside the signature (integrity only). Returns
/// a dict: `signature_method`, `references` (their URIs), `covers_document`, `certificate`
/// (the subject of the embedded certificate used, or None), `detached`. `content` is the data of
/// a detached signature (never fetched from its URI). Raises BinxmlError when the signature is
/// not valid or is refused.
#[pyfunction]
#[pyo3(signature = (data, cert=None, allow_sha1=false, allow_partial=false, content=None))]
fn verify_xml<'py>(
    py: Python<'py>,
    data: &[u8],
    cert: Option<&str>,
    allow_sha1: bool,
    allow_partial: bool,
    content: Option<&[u8]>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use binxml::sign::dsig::{KeySource, VerifyOptions};
    let cert = certificate(cert)?;
    let opts = VerifyOptions {
        allow_sha1,
        require_document_element: !allow_partial,
        ..VerifyOptions::default()
    };
    let v = py
        .allow_threads(|| {
            let key = match &cert {
                Some(c) => KeySource::Given(c.public_key()),
                None => KeySource::Embedded,
            };
            match content {
                Some(c) => binxml::sign::dsig::verify_detached_xml(data, c, key, &opts),
                None => binxml::sign::dsig::verify_xml(data, key, &opts),
            }
        })
        .map_err(sign_err)?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("detached", v.references.iter().any(|r| r.detached))?;
    d.set_item("signature_method", &v.signature_method)?;
    d.set_item(
        "references",
        v.references
            .iter()
            .map(|r| r.uri.clone())
            .collect::<Vec<_>>(),
    )?;
    d.set_item("covers_document", v.covers_document)?;
    d.set_item(
        "certificate",
        v.certificate.as_ref().map(|c| c.subject().to_string()),
    )?;
    Ok(d)
}

/// Signs a document's bytes (any format) with a CMS SignedData (DER), enveloping or detached.
#[pyfunction]
#[pyo3(signature = (data, key, cert, detached=false))]
fn sign_cms<'py>(
    py: Python<'py>,
    data: &[u8],
    key: &str,
    cert: &str,
    detached: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = private_key(key)?;
    let cert = certificate(Some(cert))?.expect("given");
    let out = py
        .allow_threads(|| binxml::sign::cms::sign_cms(data, &key, &cert, detached))
        .map_err(sign_err)?;
    Ok(PyBytes::new(py, &out))
}

/// Verifies a CMS SignedData (DER) with the signer's certificate (PEM), or the one it carries;
/// `content` is the signed document of a detached signature. Returns the signed content.
/// Raises BinxmlError when the signature is not valid.
#[pyfunction]
#[pyo3(signature = (p7s, cert=None, content=None))]
fn verify_cms<'py>(
    py: Python<'py>,
    p7s: &[u8],
    cert: Option<&str>,
    content: Option<&[u8]>,
) -> PyResult<Bound<'py, PyBytes>> {
    use binxml::sign::dsig::{KeySource, VerifyOptions};
    let cert = certificate(cert)?;
    let v = py
        .allow_threads(|| {
            let key = match &cert {
                Some(c) => KeySource::Given(c.public_key()),
                None => KeySource::Embedded,
            };
            binxml::sign::cms::verify_cms(p7s, content, key, &VerifyOptions::default())
        })
        .map_err(sign_err)?;
    Ok(PyBytes::new(py, &v.content))
}

/// Canonical EXI for the messages of `schema` (a `Schema`, or a path loaded into one for this
/// call), which must be given.
fn message_c14n(
    schema: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<std::sync::Arc<binxml::sign::exi_dsig::ExiC14n>> {
    let schema = schema.ok_or_else(|| {
        PyValueError::new_err(format!(
            "{what} needs schema=: the messages' XML Schema (a binxml.Schema or a path), which \
             imports the XML Signature schema"
        ))
    })?;
    if let Ok(s) = schema.downcast::<Schema>() {
        return s.get().c14n();
    }
    let path: std::path::PathBuf = schema
        .extract()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("schema: a binxml.Schema or a path"))?;
    Schema::new(path)?.c14n()
}

/// Signs a schema-informed EXI message over Canonical EXI, as ISO 15118 does (see
/// docs/sign.md): `schema` is the message's XML Schema (a `Schema` or a path; it imports the
/// XML Signature schema); `exi` the message's EXI options as `convert` takes them (EXI's
/// defaults when absent); a `ds:Signature` is appended to the first element named
/// `signature_in` (`NAME` or `{NS}NAME`), with one reference to the element whose `Id` is `id`,
/// or, without `id`, one per element with an `Id` outside that element. `key` and `cert` are
/// PEM text (the certificate goes in `KeyInfo`; ISO 15118 sends none); `digest` `sha256`,
/// `sha384` or `sha512`; `rsa_pss` signs an RSA key with RSA-PSS. Returns the signed message as
/// schema-informed EXI with the same options.
#[pyfunction]
#[pyo3(signature = (data, key, cert=None, schema=None, exi=None, signature_in="Header", id=None, digest="sha256", rsa_pss=false))]
// One parameter per Python keyword argument.
#[allow(clippy::too_many_arguments)]
fn sign_exi<'py>(
    py: Python<'py>,
    data: &[u8],
    key: &str,
    cert: Option<&str>,
    schema: Option<&Bound<'py, PyAny>>,
    exi: Option<&str>,
    signature_in: &str,
    id: Option<&str>,
    digest: &str,
    rsa_pss: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    use binxml::sign::exi_dsig::{self, ExiSignOptions, SignaturePlace};
    let c14n = message_c14n(schema, "sign_exi")?;
    let options = binxml::exi::ExiOptions::default()
        .parse_text(exi.unwrap_or(""))
        .map_err(err)?;
    let digest = digest_alg(digest)?;
    let key = private_key(key)?;
    let cert = certificate(cert)?;
    let out = py.allow_threads(|| -> PyResult<Vec<u8>> {
        let events = exi_dsig::decode_message(data, &c14n, &options, binxml::Limits::default())
            .map_err(sign_err)?;
        let place = SignaturePlace::find(&events, signature_in).map_err(sign_err)?;
        let references = match id {
            Some(id) => vec![id.to_string()],
            None => exi_dsig::ids_outside(&events, &place).map_err(sign_err)?,
        };
        if references.is_empty() {
            return Err(BinxmlError::new_err(format!(
                "no element with an Id outside <{signature_in}> to sign: give id="
            )));
        }
        let opts = ExiSignOptions {
            references,
            place,
            digest,
            rsa_padding: rsa_padding(rsa_pss),
        };
        let signed = exi_dsig::sign_exi_events(&events, &c14n, &key, cert.as_ref(), &opts)
            .map_err(sign_err)?;
        exi_dsig::encode_message(&signed, &c14n, &options).map_err(sign_err)
    })?;
    Ok(PyBytes::new(py, &out))
}

/// Verifies the Canonical EXI signature of a schema-informed EXI message (ISO 15118's form)
/// with the signer's certificate (PEM), or, without one, with the certificate inside the
/// signature (integrity only). `schema` and `exi` are as for `sign_exi`. Returns a dict:
/// `signature_method`, `references` (their URIs, `#id`), `elements` (the local name of each
/// element referenced), `certificate` (the subject of the embedded certificate used, or None).
/// Raises BinxmlError when the signature is not valid or is refused.
#[pyfunction]
#[pyo3(signature = (data, cert=None, schema=None, exi=None, allow_sha1=false))]
fn verify_exi<'py>(
    py: Python<'py>,
    data: &[u8],
    cert: Option<&str>,
    schema: Option<&Bound<'py, PyAny>>,
    exi: Option<&str>,
    allow_sha1: bool,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use binxml::sign::dsig::{KeySource, VerifyOptions};
    let c14n = message_c14n(schema, "verify_exi")?;
    let options = binxml::exi::ExiOptions::default()
        .parse_text(exi.unwrap_or(""))
        .map_err(err)?;
    let cert = certificate(cert)?;
    let opts = VerifyOptions {
        allow_sha1,
        ..VerifyOptions::default()
    };
    let v = py
        .allow_threads(|| {
            let key = match &cert {
                Some(c) => KeySource::Given(c.public_key()),
                None => KeySource::Embedded,
            };
            binxml::sign::exi_dsig::verify_exi(data, &c14n, &options, key, &opts)
        })
        .map_err(sign_err)?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("signature_method", &v.signature_method)?;
    d.set_item(
        "references",
        v.references
            .iter()
            .map(|r| r.uri.clone())
            .collect::<Vec<_>>(),
    )?;
    d.set_item("elements", &v.elements)?;
    d.set_item(
        "certificate",
        v.certificate.as_ref().map(|c| c.subject().to_string()),
    )?;
    Ok(d)
}

#[pymodule]
fn _binxml(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BinxmlError", m.py().get_type::<BinxmlError>())?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert_file, m)?)?;
    m.add_function(wrap_pyfunction!(events, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(sign_xml, m)?)?;
    m.add_function(wrap_pyfunction!(verify_xml, m)?)?;
    m.add_function(wrap_pyfunction!(sign_cms, m)?)?;
    m.add_function(wrap_pyfunction!(verify_cms, m)?)?;
    m.add_function(wrap_pyfunction!(sign_exi, m)?)?;
    m.add_function(wrap_pyfunction!(verify_exi, m)?)?;
    m.add_class::<Schema>()?;
    m.add_class::<attrib::Attrib>()?;
    m.add_class::<XebuSchema>()?;
    m.add_class::<tree::Tree>()?;
    m.add_class::<tree::Element>()?;
    m.add_class::<tree::ElementIter>()?;
    m.add_function(wrap_pyfunction!(tree::parse_tree, m)?)?;
    m.add_function(wrap_pyfunction!(tree::parse_file, m)?)?;
    m.add_class::<stream::EventStream>()?;
    m.add_function(wrap_pyfunction!(stream::stream_file, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_reader, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_fd, m)?)?;
    Ok(())
}
