//! The JSON writer: events following [`crate::mapping`] (from the JSON reader, or from XML in
//! that form, or from any codec that carried them) back to JSON text.

use binxml_core::Format;
use std::io::Write;

use binxml_core::{Encoder, Error, Event, Result, StreamChecker, Typed};

use crate::mapping::{JSON_NS, JsonType, KEY_ATTR, TYPE_ATTR};

const FORMAT: Format = Format::Json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    String,
    /// A number, boolean or null: its text is collected in `scalar` and checked at the end.
    Scalar(JsonType),
}

struct Frame {
    kind: Kind,
    /// Members or items written so far (objects and arrays).
    count: usize,
}

/// The element whose StartElement was seen but whose type is not known yet (its attributes may
/// still come).
struct Pending {
    ty: Option<JsonType>,
    has_key: bool,
}

/// Writes events in the JSON mapping as compact JSON.
pub struct JsonEncoder<W: Write> {
    out: W,
    buf: Vec<u8>,
    stack: Vec<Frame>,
    pending: Option<Pending>,
    /// The member name of the pending element (its local name, or the `key` attribute).
    name: String,
    scalar: String,
    checker: StreamChecker,
    root_done: bool,
    pretty: bool,
    /// Set when the root element is not in the JSON mapping: the document is written as JsonML.
    jsonml: Option<JsonMl>,
    jsonml_allowed: bool,
}

/// JsonML state (`["name", {"attr": "value"}, "text", ["child"]]`).
#[derive(Default)]
struct JsonMl {
    depth: usize,
    in_start: bool,
    attrs_open: bool,
    text: String,
    qname: String,
}

impl<W: Write> JsonEncoder<W> {
    /// An encoder writing compact JSON to `out`, XML outside the JSON mapping as JsonML. Output is
    /// buffered until [`Encoder::finish`].
    pub fn new(out: W) -> Self {
        JsonEncoder {
            out,
            buf: Vec::with_capacity(1 << 16),
            stack: Vec::new(),
            pending: None,
            name: String::new(),
            scalar: String::new(),
            checker: StreamChecker::new(true),
            root_done: false,
            pretty: false,
            jsonml: None,
            jsonml_allowed: true,
        }
    }

    /// Indents the output with two spaces per level.
    pub fn pretty(mut self, on: bool) -> Self {
        self.pretty = on;
        self
    }

    /// Whether XML outside the JSON mapping is written as JsonML (the default) or rejected as
    /// [`ErrorKind::InvalidEvents`](binxml_core::ErrorKind::InvalidEvents).
    pub fn xml_as_jsonml(mut self, on: bool) -> Self {
        self.jsonml_allowed = on;
        self
    }

    /// The writer, after [`Encoder::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    fn flush_buf(&mut self) -> Result<()> {
        self.out
            .write_all(&self.buf)
            .map_err(|e| Error::io(FORMAT, e))?;
        self.buf.clear();
        Ok(())
    }

    fn newline(&mut self, depth: usize) {
        if self.pretty {
            self.buf.push(b'\n');
            for _ in 0..depth {
                self.buf.extend_from_slice(b"  ");
            }
        }
    }

    /// Writes the pending element's opening, its type decided by `t` or by `first` content.
    fn open(&mut self, first: Option<&Event<'_>>) -> Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let ty = match p.ty {
            Some(t) => t,
            None => JsonType::infer(first).ok_or_else(|| {
                Error::invalid_events(
                    FORMAT,
                    "an element without a `t` attribute has element children (objects and arrays need t=\"object\" / t=\"array\")",
                )
            })?,
        };
        // Separator and member name.
        let depth = self.stack.len();
        match self.stack.last_mut() {
            None => {
                if self.root_done {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "more than one top-level JSON value",
                    ));
                }
                self.root_done = true;
            }
            Some(f) => {
                let parent = f.kind;
                let n = f.count;
                f.count += 1;
                match parent {
                    Kind::Object | Kind::Array => {
                        if n > 0 {
                            self.buf.push(b',');
                        }
                        self.newline(depth);
                        if parent == Kind::Object {
                            let name = std::mem::take(&mut self.name);
                            write_string(&mut self.buf, &name);
                            self.name = name;
                            self.buf.push(b':');
                            if self.pretty {
                                self.buf.push(b' ');
                            }
                        }
                    }
                    _ => {
                        return Err(Error::invalid_events(
                            FORMAT,
                            "an element inside a JSON string, number, boolean or null",
                        ));
                    }
                }
            }
        }
        let _ = p.has_key;
        let kind = match ty {
            JsonType::Object => {
                self.buf.push(b'{');
                Kind::Object
            }
            JsonType::Array => {
                self.buf.push(b'[');
                Kind::Array
            }
            JsonType::String => {
                self.buf.push(b'"');
                Kind::String
            }
            t => {
                self.scalar.clear();
                Kind::Scalar(t)
            }
        };
        self.stack.push(Frame { kind, count: 0 });
        Ok(())
    }

    /// Any XML that is not in the JSON mapping, as JsonML: an element is an array of its
    /// qualified name, an object of its attributes (namespace declarations as `xmlns`
    /// attributes; omitted when there are none), and its content (strings and elements).
    /// Comments, processing instructions and the doctype are dropped.
    fn jsonml_event(&mut self, event: &Event<'_>) -> Result<()> {
        let ml = self.jsonml.as_mut().unwrap();
        let buf = &mut self.buf;
        fn close_start(ml: &mut JsonMl, buf: &mut Vec<u8>) {
            if ml.in_start {
                if ml.attrs_open {
                    buf.push(b'}');
                }
                ml.in_start = false;
                ml.attrs_open = false;
            }
        }
        fn flush_text(ml: &mut JsonMl, buf: &mut Vec<u8>) {
            if !ml.text.is_empty() {
                buf.push(b',');
                write_string(buf, &ml.text);
                ml.text.clear();
            }
        }
        fn attr(ml: &mut JsonMl, buf: &mut Vec<u8>, name: &str, value: &str) {
            buf.extend_from_slice(if ml.attrs_open { b"," } else { b",{" });
            ml.attrs_open = true;
            write_string(buf, name);
            buf.push(b':');
            write_string(buf, value);
        }
        match event {
            Event::StartElement(q) => {
                if ml.depth == 0 && self.root_done {
                    return Err(Error::invalid_events(FORMAT, "more than one root element"));
                }
                close_start(ml, buf);
                flush_text(ml, buf);
                if ml.depth > 0 {
                    buf.push(b',');
                }
                ml.qname.clear();
                if !q.prefix.is_empty() {
                    ml.qname.push_str(&q.prefix);
                    ml.qname.push(':');
                }
                ml.qname.push_str(&q.local);
                buf.push(b'[');
                write_string(buf, &ml.qname);
                ml.depth += 1;
                ml.in_start = true;
                self.root_done = true;
            }
            Event::Namespace { prefix, uri } => {
                if prefix.is_empty() {
                    attr(ml, buf, "xmlns", uri);
                } else {
                    let n = format!("xmlns:{prefix}");
                    attr(ml, buf, &n, uri);
                }
            }
            Event::Attribute { name, value } => {
                let n = name.qualified();
                attr(ml, buf, &n, value);
            }
            Event::Characters { text, .. } if ml.depth > 0 => {
                close_start(ml, buf);
                ml.text.push_str(text);
            }
            Event::Typed(t) if ml.depth > 0 => {
                close_start(ml, buf);
                t.write_lexical(&mut ml.text);
            }
            Event::EntityReference { name, .. } if ml.depth > 0 => {
                close_start(ml, buf);
                ml.text.push('&');
                ml.text.push_str(name);
                ml.text.push(';');
            }
            Event::EndElement => {
                close_start(ml, buf);
                flush_text(ml, buf);
                buf.push(b']');
                ml.depth -= 1;
            }
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, text: &str) -> Result<()> {
        let Some(f) = self.stack.last() else {
            if is_ws(text) {
                return Ok(());
            }
            return Err(Error::invalid_events(FORMAT, "text outside the JSON value"));
        };
        match f.kind {
            Kind::String => {
                write_escaped(&mut self.buf, text);
                Ok(())
            }
            Kind::Scalar(_) => {
                self.scalar.push_str(text);
                Ok(())
            }
            Kind::Object | Kind::Array => {
                if is_ws(text) {
                    Ok(())
                } else {
                    Err(Error::invalid_events(
                        FORMAT,
                        "text directly inside a JSON object or array",
                    ))
                }
            }
        }
    }

    fn close(&mut self) -> Result<()> {
        let Some(f) = self.stack.pop() else {
            return Err(Error::invalid_events(
                FORMAT,
                "EndElement without StartElement",
            ));
        };
        match f.kind {
            Kind::Object | Kind::Array => {
                if f.count > 0 {
                    self.newline(self.stack.len());
                }
                self.buf
                    .push(if f.kind == Kind::Object { b'}' } else { b']' });
            }
            Kind::String => self.buf.push(b'"'),
            Kind::Scalar(t) => {
                let s = self.scalar.trim_matches([' ', '\t', '\r', '\n']);
                if !t.accepts_scalar(s) {
                    return Err(Error::invalid_events(
                        FORMAT,
                        format!("{s:?} is not a JSON {}", t.attr_value().unwrap_or("value")),
                    ));
                }
                self.buf
                    .extend_from_slice(if s.is_empty() { b"null" } else { s.as_bytes() });
            }
        }
        Ok(())
    }
}

/// String equality without a `memcmp` call (short strings).
#[inline]
fn eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

fn is_ws(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

fn write_string(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    write_escaped(buf, s);
    buf.push(b'"');
}

fn write_escaped(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[(b >> 4) as usize]);
            buf.push(HEX[(b & 15) as usize]);
        } else {
            buf.extend_from_slice(esc);
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
}

impl<W: Write> Encoder for JsonEncoder<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        self.checker.check(FORMAT, event)?;
        if self.jsonml_allowed
            && !self.root_done
            && self.stack.is_empty()
            && self.pending.is_none()
            && self.jsonml.is_none()
            && let Event::StartElement(q) = event
            && !eq(&q.namespace, JSON_NS)
        {
            self.jsonml = Some(JsonMl::default());
        }
        if self.jsonml.is_some() {
            self.jsonml_event(event)?;
            if self.buf.len() >= 1 << 16 {
                self.flush_buf()?;
            }
            return Ok(());
        }
        match event {
            Event::StartElement(q) => {
                if self.pending.is_some() {
                    self.open(Some(event))?;
                }
                if let Some(f) = self.stack.last()
                    && !matches!(f.kind, Kind::Object | Kind::Array)
                {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "an element inside a JSON string, number, boolean or null",
                    ));
                }
                self.name.clear();
                self.name.push_str(&q.local);
                self.pending = Some(Pending {
                    ty: None,
                    has_key: false,
                });
            }
            Event::Namespace { .. } => {}
            Event::Attribute { name, value } => {
                if let Some(p) = self.pending.as_mut()
                    && name.namespace.is_empty()
                    && name.prefix.is_empty()
                {
                    if eq(&name.local, TYPE_ATTR) {
                        p.ty = Some(JsonType::from_attr(value).ok_or_else(|| {
                            Error::invalid_events(FORMAT, format!("unknown JSON type t={value:?}"))
                        })?);
                    } else if eq(&name.local, KEY_ATTR) {
                        p.has_key = true;
                        self.name.clear();
                        self.name.push_str(value);
                    }
                }
            }
            Event::Characters { text, .. } => {
                if self.pending.is_some() {
                    self.open(Some(event))?;
                }
                self.text(text)?;
            }
            Event::Typed(t) => {
                if self.pending.is_some() {
                    self.open(Some(event))?;
                }
                match t {
                    Typed::Number(s) => self.text(s)?,
                    _ => {
                        let s = t.lexical();
                        self.text(&s)?;
                    }
                }
            }
            Event::EndElement => {
                if self.pending.is_some() {
                    self.open(None)?;
                }
                self.close()?;
            }
            Event::EndDocument => {
                if !self.root_done {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "the document has no JSON value",
                    ));
                }
            }
            Event::EntityReference { .. } => {
                return Err(Error::unsupported(
                    FORMAT,
                    "entity references cannot be written as JSON",
                ));
            }
            Event::StartDocument { .. }
            | Event::DocType(_)
            | Event::Notation { .. }
            | Event::UnparsedEntity { .. }
            | Event::Comment(_)
            | Event::ProcessingInstruction { .. } => {}
            _ => {
                return Err(Error::unsupported(
                    FORMAT,
                    "an event this encoder does not know",
                ));
            }
        }
        if self.buf.len() >= 1 << 16 {
            self.flush_buf()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.flush_buf()?;
        self.out.flush().map_err(|e| Error::io(FORMAT, e))
    }
}

/// Writes events (in the JSON mapping) as JSON text.
pub fn encode(events: &[Event<'_>]) -> Result<Vec<u8>> {
    let mut enc = JsonEncoder::new(Vec::new());
    for ev in events {
        enc.write_event(ev)?;
    }
    enc.finish()?;
    Ok(enc.into_inner())
}
