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
mod wild;

use std::io::Write;
use std::sync::Arc;

use binxml_core::{
    Decoder, Encoder, Error, Event, EventSink, Format, Limits, Result, XmlFragments,
};
use binxml_schema::{Schema, Validator};

/// A schema mapped once (the module and the schema's validator), shared by every encoder and
/// decoder of its documents.
///
/// Element wildcards' content is XML text: encoding and decoding it needs an
/// [`XmlFragments`] ([`X694::with_fragments`], or the encoder's and decoder's own
/// `with_fragments`; binxml's facade gives its encoders and decoders the XML codec's). Without
/// one, a document with content an element wildcard matches is refused.
#[derive(Debug)]
pub struct X694 {
    schema: Arc<Schema>,
    module: Module,
    plan: plan::Plan,
    fragments: Option<Arc<dyn XmlFragments>>,
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
            fragments: None,
        })
    }

    /// Writes and reads element wildcards' content (XML text) with `fragments`.
    pub fn with_fragments(mut self, fragments: Arc<dyn XmlFragments>) -> X694 {
        self.fragments = Some(fragments);
        self
    }

    /// What writes and reads element wildcards' content, when given.
    pub fn fragments(&self) -> Option<&Arc<dyn XmlFragments>> {
        self.fragments.as_ref()
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
        self.encode_with(events, format, self.fragments.as_deref())
    }

    /// [`X694::encode_events`] with `fragments` writing element wildcards' content.
    pub fn encode_with(
        &self,
        events: &[Event<'static>],
        format: Format,
        fragments: Option<&dyn XmlFragments>,
    ) -> Result<Vec<u8>> {
        match format {
            Format::Asn1XsdBer => ber_enc::encode(&self.module, 0, events, format, fragments),
            _ => enc::encode(&self.module, 0, events, format, fragments),
        }
    }

    /// Decodes PER or BER bytes into the document's events.
    pub fn decode_events(
        &self,
        data: &[u8],
        format: Format,
        limits: &Limits,
    ) -> Result<Vec<Event<'static>>> {
        let mut out = dec::Collect(Vec::new());
        self.decode_into(data, format, limits, &mut out)?;
        Ok(out.0)
    }

    /// Decodes PER or BER bytes, handing each event to `sink` as it is read.
    pub fn decode_into<'e, S: EventSink<'e>>(
        &self,
        data: &[u8],
        format: Format,
        limits: &Limits,
        sink: &mut S,
    ) -> Result<()> {
        self.decode_into_with(data, format, limits, self.fragments.as_deref(), sink)
    }

    /// [`X694::decode_into`] with `fragments` reading element wildcards' content.
    pub fn decode_into_with<'e, S: EventSink<'e>>(
        &self,
        data: &[u8],
        format: Format,
        limits: &Limits,
        fragments: Option<&dyn XmlFragments>,
        sink: &mut S,
    ) -> Result<()> {
        let d = dec::Ctx {
            m: &self.module,
            limits,
            fragments,
        };
        match format {
            Format::Asn1XsdBer => ber_dec::decode_into(&d, 0, data, format, sink),
            _ => dec::decode_into(&d, &self.plan, 0, data, format, sink),
        }
    }
}

/// Encodes a document of the mapped schema: collects its events, validates them when the
/// document ends and, only when it is valid, writes its PER or BER encoding.
pub struct X694Encoder<W: Write> {
    x: Arc<X694>,
    fragments: Option<Arc<dyn XmlFragments>>,
    out: W,
    events: Vec<Event<'static>>,
    finished: bool,
    format: Format,
}

impl<W: Write> X694Encoder<W> {
    /// An encoder writing `format` (`asn1-xsd-uper`) to `out`.
    pub fn new(out: W, x: Arc<X694>, format: Format) -> Self {
        X694Encoder {
            fragments: x.fragments.clone(),
            x,
            out,
            events: Vec::new(),
            finished: false,
            format,
        }
    }

    /// Writes element wildcards' content with `fragments` (instead of the mapped schema's).
    pub fn with_fragments(mut self, fragments: Arc<dyn XmlFragments>) -> Self {
        self.fragments = Some(fragments);
        self
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
        let bytes = self
            .x
            .encode_with(&self.events, self.format, self.fragments.as_deref())?;
        self.out
            .write_all(&bytes)
            .and_then(|_| self.out.flush())
            .map_err(|e| Error::io(self.format, e))
    }
}

/// Decodes a document of the mapped schema (the whole input before the first event).
pub struct X694Decoder<'a> {
    x: Arc<X694>,
    fragments: Option<Arc<dyn XmlFragments>>,
    input: &'a [u8],
    limits: Limits,
    format: Format,
    events: Option<std::vec::IntoIter<Event<'static>>>,
}

impl<'a> X694Decoder<'a> {
    /// A decoder of `input`.
    pub fn new(input: &'a [u8], x: Arc<X694>, format: Format, limits: Limits) -> Self {
        X694Decoder {
            fragments: x.fragments.clone(),
            x,
            input,
            limits,
            format,
            events: None,
        }
    }

    /// Reads element wildcards' content with `fragments` (instead of the mapped schema's).
    pub fn with_fragments(mut self, fragments: Arc<dyn XmlFragments>) -> Self {
        self.fragments = Some(fragments);
        self
    }
}

impl<'a> Decoder<'a> for X694Decoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if self.events.is_none() {
            let mut out = dec::Collect(Vec::new());
            self.x.decode_into_with(
                self.input,
                self.format,
                &self.limits,
                self.fragments.as_deref(),
                &mut out,
            )?;
            self.events = Some(out.0.into_iter());
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
                x.decode_into_with(
                    self.input,
                    self.format,
                    &self.limits,
                    self.fragments.as_deref(),
                    sink,
                )
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
