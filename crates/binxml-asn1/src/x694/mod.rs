//! ITU-T X.694: an XML Schema mapped to an ASN.1 module, and documents valid against the
//! schema encoded as values of the module's type for their root element, in unaligned PER
//! (`asn1-xsd-uper`), aligned PER (`asn1-xsd-aper`) or BER (`asn1-xsd-ber`). `docs/x694.md` lists the clauses covered.
//!
//! [`X694::new`] maps a schema once; the encoder and decoder share it. The encoder checks
//! the document with the schema's validator before it writes anything.

pub mod map;
mod names;
pub mod print;

pub use map::{MapError, Module, Roots};

mod ber;
mod ber_dec;
mod ber_enc;
mod bits;
mod dec;
mod enc;
mod plan;
mod simple;

use std::io::Write;
use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Error, Event, EventSink, Format, Limits, Result};
use binxml_schema::{Schema, Validator};

/// A schema mapped once (the module and the schema's validator), shared by every encoder and
/// decoder of its documents.
#[derive(Debug)]
pub struct X694 {
    schema: Arc<Schema>,
    module: Module,
    plan: plan::Plan,
}

impl X694 {
    /// Maps `schema`, whose main document declares the root element.
    pub fn new(schema: Arc<Schema>) -> std::result::Result<X694, MapError> {
        X694::with_roots(schema, &Roots::Main)
    }

    /// Maps `schema` for these root elements (the codec uses the first).
    pub fn with_roots(schema: Arc<Schema>, roots: &Roots) -> std::result::Result<X694, MapError> {
        let module = map::map(&schema, roots)?;
        if module.roots.is_empty() {
            return Err(MapError("the schema declares no global element".into()));
        }
        let plan = plan::Plan::new(&module);
        Ok(X694 {
            schema,
            module,
            plan,
        })
    }

    /// The mapped module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The module's ASN.1 text; with `encoding_control`, the XER encoding control section.
    pub fn text(&self, encoding_control: bool) -> String {
        print::print(&self.module, encoding_control)
    }

    /// Checks a document's events against the schema: the validator's first error (and how
    /// many there are), as an error of `format`.
    pub fn validate(&self, events: &[Event<'_>], format: Format) -> Result<()> {
        let mut v = Validator::new(&self.schema);
        for (i, ev) in events.iter().enumerate() {
            v.event(ev, i as u64);
        }
        let errors = v.finish();
        match errors.first() {
            None => Ok(()),
            Some(e) => Err(Error::invalid_events(
                format,
                format!(
                    "the document is not valid against the schema ({} error{}): {}: {}",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                    e.path,
                    e.message
                ),
            )),
        }
    }

    /// Encodes a document valid against the schema (not checked here) as PER or BER bytes
    /// (`format`: `asn1-xsd-uper`, `asn1-xsd-aper` or `asn1-xsd-ber`).
    pub fn encode_events(&self, events: &[Event<'static>], format: Format) -> Result<Vec<u8>> {
        match format {
            Format::Asn1XsdBer => ber_enc::encode(&self.module, 0, events, format),
            _ => enc::encode(&self.module, 0, events, format),
        }
    }

    /// Decodes PER or BER bytes into the document's events.
    pub fn decode_events(
        &self,
        data: &[u8],
        format: Format,
        limits: &Limits,
    ) -> Result<Vec<Event<'static>>> {
        match format {
            Format::Asn1XsdBer => ber_dec::decode(&self.module, 0, data, format, limits),
            _ => dec::decode(&self.module, &self.plan, 0, data, format, limits),
        }
    }

    /// Decodes PER or BER bytes, handing each event to `sink` as it is read.
    pub fn decode_into<'e, S: EventSink<'e>>(
        &self,
        data: &[u8],
        format: Format,
        limits: &Limits,
        sink: &mut S,
    ) -> Result<()> {
        match format {
            Format::Asn1XsdBer => ber_dec::decode_into(&self.module, 0, data, format, limits, sink),
            _ => dec::decode_into(&self.module, &self.plan, 0, data, format, limits, sink),
        }
    }
}

/// Encodes a document of the mapped schema: collects its events, validates them when the
/// document ends and, only when it is valid, writes its PER or BER encoding.
pub struct X694Encoder<W: Write> {
    x: Arc<X694>,
    out: W,
    events: Vec<Event<'static>>,
    finished: bool,
    format: Format,
}

impl<W: Write> X694Encoder<W> {
    /// An encoder writing `format` (`asn1-xsd-uper`) to `out`.
    pub fn new(out: W, x: Arc<X694>, format: Format) -> Self {
        X694Encoder {
            x,
            out,
            events: Vec::new(),
            finished: false,
            format,
        }
    }
}

impl<W: Write> Encoder for X694Encoder<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        if self.finished {
            return Err(Error::invalid_events(self.format, "event after the end"));
        }
        self.events.push(event.clone().into_owned());
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.x.validate(&self.events, self.format)?;
        let bytes = self.x.encode_events(&self.events, self.format)?;
        self.out
            .write_all(&bytes)
            .and_then(|_| self.out.flush())
            .map_err(|e| Error::io(self.format, e))
    }
}

/// Decodes a document of the mapped schema (the whole input before the first event).
pub struct X694Decoder<'a> {
    x: Arc<X694>,
    input: &'a [u8],
    limits: Limits,
    format: Format,
    events: Option<std::vec::IntoIter<Event<'static>>>,
}

impl<'a> X694Decoder<'a> {
    /// A decoder of `input`.
    pub fn new(input: &'a [u8], x: Arc<X694>, format: Format, limits: Limits) -> Self {
        X694Decoder {
            x,
            input,
            limits,
            format,
            events: None,
        }
    }
}

impl<'a> Decoder<'a> for X694Decoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if self.events.is_none() {
            let evs = self
                .x
                .decode_events(self.input, self.format, &self.limits)?;
            self.events = Some(evs.into_iter());
        }
        Ok(self.events.as_mut().and_then(Iterator::next))
    }

    /// Decodes straight into the sink (no list of events in between).
    fn read_into<T: EventSink<'a>>(&mut self, sink: &mut T) -> Result<()> {
        match self.events.as_mut() {
            Some(rest) => {
                for ev in rest {
                    sink.dispatch(ev)?;
                }
                Ok(())
            }
            None => {
                self.events = Some(Vec::new().into_iter());
                let x = self.x.clone();
                x.decode_into(self.input, self.format, &self.limits, sink)
            }
        }
    }

    fn offset(&self) -> u64 {
        if self.events.is_some() {
            self.input.len() as u64
        } else {
            0
        }
    }
}
