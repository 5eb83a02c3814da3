//! The Fast Infoset encoder.

use std::io::Write;
use std::sync::Arc;

use std::borrow::Cow;

use binxml_core::{Encoder, Error, Event, EventSink, QName, Result, Typed, XML_NS, XMLNS_NS};

use crate::FORMAT;
use crate::algo;

use crate::vocab::Vocabulary;
use binxml_core::hash::bytes_eq;

mod body;
mod header;
mod prim;
mod scan;
mod strings;
mod tables;

pub(crate) use prim::*;
use scan::*;
use tables::*;

#[cfg(test)]
pub(crate) use scan::split_piece_for_tests;

/// Encoder policies.
///
/// Build them from [`FiOptions::default`] and the `with_...` setters; the fields can be read
/// and changed, and every value of each is valid. The struct is `#[non_exhaustive]`, so new
/// policies can be added without breaking callers.
///
/// ```
/// use binxml_fi::FiOptions;
///
/// let opts = FiOptions::default().with_utf16(true).with_max_indexed_chunk(8);
/// assert!(opts.utf16 && opts.split_text);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct FiOptions {
    /// Attribute values shorter than this many characters (UTF-16 code units, as the Java
    /// reference counts) are added to the attribute-value table and written by index when they
    /// repeat. Default 32, like the reference. 0 indexes none.
    pub max_indexed_attribute_value: usize,
    /// The same for character chunks; also used for comments and PI data (other strings), as the
    /// reference does. Default 32.
    pub max_indexed_chunk: usize,
    /// Write attribute values, character chunks, comments and PI data in UTF-16BE instead of
    /// UTF-8 (names are always UTF-8).
    pub utf16: bool,
    /// Write character chunks made only of `0123456789-+.E ` with the built-in numeric restricted
    /// alphabet (4 bits a character) when that is shorter. Off by default (the reference never
    /// does it on its own).
    pub numeric_alphabet: bool,
    /// Write chunks that look like xs:date / xs:dateTime values with the built-in date-and-time
    /// alphabet. Off by default.
    pub date_time_alphabet: bool,
    /// An external vocabulary, referenced by this URI; the decoder must be given the same
    /// vocabulary under the same URI.
    pub external_vocabulary: Option<(String, Arc<Vocabulary>)>,
    /// A vocabulary written into the document's header (X.891 initial vocabulary: every table
    /// listed in full), after the external vocabulary's tables when both are given. The decoder
    /// needs nothing to read it.
    pub initial_vocabulary: Option<Arc<Vocabulary>>,
    /// Start the document with `<?xml encoding='finf'?>` (or the form with the version and
    /// standalone of the `StartDocument` event, when it has them).
    pub xml_declaration: bool,
    /// Write the `StartDocument`'s version, encoding and standalone into the document's
    /// optional header fields (the reference never writes them). Off by default.
    pub document_properties: bool,
    /// Split character data into several chunks so that short repeated pieces become indexes:
    /// `<`, `&` and `>` (which in text mostly come from references) alone, and indentation (a
    /// run of white space with a line break, at least 4 characters) apart from the content
    /// around it. The reference gets a similar effect from the way SAX parsers split text; this
    /// keeps the output no larger than the reference's. On by default.
    pub split_text: bool,
}

impl Default for FiOptions {
    fn default() -> Self {
        FiOptions {
            max_indexed_attribute_value: 32,
            max_indexed_chunk: 32,
            utf16: false,
            numeric_alphabet: false,
            date_time_alphabet: false,
            external_vocabulary: None,
            initial_vocabulary: None,
            xml_declaration: false,
            document_properties: false,
            split_text: true,
        }
    }
}

impl FiOptions {
    /// Sets [`max_indexed_attribute_value`](FiOptions::max_indexed_attribute_value): attribute
    /// values shorter than this many UTF-16 code units are indexed (0 indexes none).
    pub fn with_max_indexed_attribute_value(mut self, max_indexed_attribute_value: usize) -> Self {
        self.max_indexed_attribute_value = max_indexed_attribute_value;
        self
    }

    /// Sets [`max_indexed_chunk`](FiOptions::max_indexed_chunk): character chunks, comments and PI
    /// data shorter than this many UTF-16 code units are indexed (0 indexes none).
    pub fn with_max_indexed_chunk(mut self, max_indexed_chunk: usize) -> Self {
        self.max_indexed_chunk = max_indexed_chunk;
        self
    }

    /// Sets [`utf16`](FiOptions::utf16): strings other than names in UTF-16BE.
    pub fn with_utf16(mut self, utf16: bool) -> Self {
        self.utf16 = utf16;
        self
    }

    /// Sets [`numeric_alphabet`](FiOptions::numeric_alphabet): numeric chunks with the built-in
    /// numeric alphabet when shorter.
    pub fn with_numeric_alphabet(mut self, numeric_alphabet: bool) -> Self {
        self.numeric_alphabet = numeric_alphabet;
        self
    }

    /// Sets [`date_time_alphabet`](FiOptions::date_time_alphabet): date and time chunks with the
    /// built-in date-and-time alphabet.
    pub fn with_date_time_alphabet(mut self, date_time_alphabet: bool) -> Self {
        self.date_time_alphabet = date_time_alphabet;
        self
    }

    /// Sets [`external_vocabulary`](FiOptions::external_vocabulary): an external vocabulary and the
    /// URI that references it (`None`: none).
    pub fn with_external_vocabulary(
        mut self,
        external_vocabulary: Option<(String, Arc<Vocabulary>)>,
    ) -> Self {
        self.external_vocabulary = external_vocabulary;
        self
    }

    /// Sets [`initial_vocabulary`](FiOptions::initial_vocabulary): a vocabulary written into the
    /// document's header (`None`: none).
    pub fn with_initial_vocabulary(mut self, initial_vocabulary: Option<Arc<Vocabulary>>) -> Self {
        self.initial_vocabulary = initial_vocabulary;
        self
    }

    /// Sets [`xml_declaration`](FiOptions::xml_declaration): start with `<?xml encoding='finf'?>`.
    pub fn with_xml_declaration(mut self, xml_declaration: bool) -> Self {
        self.xml_declaration = xml_declaration;
        self
    }

    /// Sets [`document_properties`](FiOptions::document_properties): the `StartDocument`'s version,
    /// encoding and standalone in the header's optional fields.
    pub fn with_document_properties(mut self, document_properties: bool) -> Self {
        self.document_properties = document_properties;
        self
    }

    /// Sets [`split_text`](FiOptions::split_text): split character data so that short repeated
    /// pieces become indexes.
    pub fn with_split_text(mut self, split_text: bool) -> Self {
        self.split_text = split_text;
        self
    }
}

/// Where the deferred start tag's name is.
enum PendingName {
    None,
    Index(u32),
    Literal,
}

#[derive(PartialEq, Clone, Copy)]
enum Phase {
    /// before StartDocument
    Start,
    /// after StartDocument, buffering the prolog until the first element
    Prolog,
    Body,
    Done,
}

/// Writes a Fast Infoset document. Call [`Encoder::finish`] after `EndDocument`, then
/// [`FiEncoder::into_inner`] to get the writer back.
pub struct FiEncoder<W: Write> {
    out: W,
    buf: Vec<u8>,
    opts: FiOptions,
    t: Tables,
    phase: Phase,
    /// element depth (the stream grammar's checks, folded into the encoder's state: see
    /// `write_event`)
    depth: u32,
    /// an attribute came after the current start tag (namespace declarations must precede
    /// attributes)
    seen_attr: bool,
    prolog: Vec<Event<'static>>,
    start_doc: Option<Event<'static>>,
    /// pending terminator nibbles (0, 1 or 2)
    terms: u8,
    in_start_tag: bool,
    attrs_started: bool,
    ns_buf: Vec<u8>,
    name: PendingName,
    lit_prefix: String,
    lit_ns: String,
    lit_local: String,
    /// the hash of the literal name (`QTable::hash`), found missing from the table
    lit_hash: u32,
    scratch: Vec<u8>,
    text: String,
    /// by depth: the white space last written there, when all its chunks were indexes
    memo: Vec<[TextMemo; 2]>,
    /// entry number of the last element name found in the table (0: none), whose successor
    /// is tried first
    last_element: u32,
    /// the same for the last attribute name of the current start tag
    last_attribute: u32,
    /// literal chunks written so far (a text all of whose chunks were indexes leaves it alone)
    literal_chunks: u32,
    /// namespace names of element and attribute names recognised by their address, during a
    /// call of `write_events` or `write_tape`
    seen_elements: SeenNames,
    seen_attributes: SeenNames,
    /// during a call of `write_events` or `write_tape` (see [`SeenNames`] for why strings may
    /// then be recognised by their address)
    in_scope: bool,
    /// ((address, length), index): the namespace name of a literal qualified name written
    /// last by index in this scope, at the address the event gave it (so that a literal name
    /// repeated on many elements does not hash and compare its namespace name each time)
    ns_memo: ((usize, usize), u32),
    /// the address and length of the pending literal element name's namespace name in its event
    lit_ns_at: (usize, usize),
    /// hashes of chunks too long for the table written so far (`split_text`), with how often
    /// each was seen, in a direct-mapped array (a newer chunk takes an older one's slot): one
    /// seen often enough is added to the table (see `long_chunk`)
    long_seen: Vec<(u32, u8)>,
}

/// White-space text and the octets it was written as (`out_len` 0: none).
#[derive(Default)]
struct TextMemo {
    text: Vec<u8>,
    out: [u8; 16],
    out_len: u8,
}

const MEMO_DEPTHS: usize = 64;

const FLUSH_AT: usize = 1 << 16;

impl<W: Write> FiEncoder<W> {
    /// An encoder writing to `out` with the default [`FiOptions`]. Output is buffered (64 KiB), so
    /// `out` needs no buffering of its own.
    pub fn new(out: W) -> Self {
        Self::with_options(out, FiOptions::default())
    }

    /// An encoder writing to `out` with `opts`; the vocabularies `opts` names are loaded into the
    /// tables now.
    pub fn with_options(out: W, opts: FiOptions) -> Self {
        let mut t = Tables::new();
        if let Some((_, v)) = &opts.external_vocabulary {
            t.load(v);
        }
        if let Some(v) = &opts.initial_vocabulary {
            t.load(v);
        }
        FiEncoder {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            opts,
            t,
            phase: Phase::Start,
            depth: 0,
            seen_attr: false,
            prolog: Vec::new(),
            start_doc: None,
            terms: 0,
            in_start_tag: false,
            attrs_started: false,
            ns_buf: Vec::new(),
            name: PendingName::None,
            // room for `put`'s stores of up to 64 octets
            lit_prefix: String::with_capacity(128),
            lit_ns: String::with_capacity(128),
            lit_local: String::with_capacity(128),
            lit_hash: 0,
            scratch: Vec::new(),
            text: String::new(),
            memo: Vec::new(),
            literal_chunks: 0,
            last_element: 0,
            last_attribute: 0,
            seen_elements: SeenNames::default(),
            seen_attributes: SeenNames::default(),
            in_scope: false,
            ns_memo: ((0, 0), 0),
            lit_ns_at: (0, 0),
            long_seen: Vec::new(),
        }
    }

    /// Runs `f` as one call in which strings may be recognised by their address (see
    /// [`SeenNames`]).
    #[inline(always)]
    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        for s in [&mut self.seen_elements, &mut self.seen_attributes] {
            *s = SeenNames {
                on: true,
                ..SeenNames::default()
            };
        }
        self.in_scope = true;
        // (0, 0) is no string's: an empty namespace name is not looked up
        self.ns_memo = ((0, 0), 0);
        let r = f(self);
        self.in_scope = false;
        self.seen_elements.on = false;
        self.seen_attributes.on = false;
        r
    }

    /// The writer, after [`Encoder::finish`].
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer. It holds the whole document only after [`Encoder::finish`]: before, part of
    /// the output may still be in the encoder's buffer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Writes the buffer through when it holds `FLUSH_AT` octets or more.
    #[inline(always)]
    fn flush_full(&mut self) -> Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    #[inline(never)]
    fn flush_buf(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.out
                .write_all(&self.buf)
                .map_err(|e| Error::io(FORMAT, e))?;
            self.buf.clear();
        }
        Ok(())
    }

    // ---- terminators ----

    #[inline(always)]
    fn terminate(&mut self) {
        if self.terms == 2 {
            self.buf.push(0xFF);
            self.terms = 1;
        } else {
            self.terms += 1;
        }
    }

    #[inline(always)]
    fn flush_terms(&mut self) {
        match self.terms {
            0 => {}
            1 => self.buf.push(0xF0),
            _ => self.buf.push(0xFF),
        }
        self.terms = 0;
    }
}

/// Names that Fast Infoset writes as non-empty strings must not be empty.
#[inline]
fn required_names(ev: &Event<'_>) -> Result<()> {
    let missing = match ev {
        Event::StartElement(q) => q.local.is_empty(),
        Event::Attribute { name, .. } => name.local.is_empty(),
        Event::EntityReference { name, .. } | Event::Notation { name, .. } => name.is_empty(),
        Event::UnparsedEntity {
            name,
            system_id,
            notation,
            ..
        } => name.is_empty() || system_id.is_empty() || notation.is_empty(),
        Event::ProcessingInstruction { target, .. } => target.is_empty(),
        _ => false,
    };
    if missing {
        return Err(empty_name(ev.kind()));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn empty_name(kind: &str) -> Error {
    Error::invalid_events(FORMAT, format!("{kind} with an empty name"))
}

#[cold]
#[inline(never)]
fn bad_stream(m: &'static str) -> Error {
    Error::invalid_events(FORMAT, m)
}

/// True when character data is only XML white space (allowed between top-level items).
#[inline]
fn is_xml_space(s: &str) -> bool {
    s.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

enum SubsetItem<'s> {
    Pi(&'s str, &'s str),
    Comment(&'s str),
}

/// The comments and processing instructions of a DTD internal subset, in order (declarations,
/// with their quoted literals, and parameter-entity references are skipped).
fn subset_items(s: &str) -> Vec<SubsetItem<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            let Some(end) = s[i + 4..].find("-->") else {
                break;
            };
            out.push(SubsetItem::Comment(&s[i + 4..i + 4 + end]));
            i += 4 + end + 3;
        } else if b[i..].starts_with(b"<?") {
            let Some(end) = s[i + 2..].find("?>") else {
                break;
            };
            let body = &s[i + 2..i + 2 + end];
            let t_end = body.find([' ', '\t', '\r', '\n']).unwrap_or(body.len());
            let (target, data) = body.split_at(t_end);
            if !target.is_empty() {
                out.push(SubsetItem::Pi(
                    target,
                    data.trim_start_matches([' ', '\t', '\r', '\n']),
                ));
            }
            i += 2 + end + 2;
        } else if b[i..].starts_with(b"<!") {
            // a markup declaration: up to its '>' outside quoted literals
            i += 2;
            let mut quote = 0u8;
            while i < b.len() {
                let c = b[i];
                i += 1;
                if quote != 0 {
                    if c == quote {
                        quote = 0;
                    }
                } else if c == b'"' || c == b'\'' {
                    quote = c;
                } else if c == b'>' {
                    break;
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Table {
    AttrValues,
    OtherStrings,
}

/// Asks the processor to load the event at `p` (two cache lines: an event spans two) while
/// another is encoded. [`Encoder::write_events`] calls it for the event [`PREFETCH_EVENTS`]
/// places ahead in its slice, which hides the cache misses of reading `Event`s (104 octets
/// each, more octets than the XML on event-dense documents). A prefetch is a hint: it never
/// faults and reads nothing into the program, whatever the address (past the slice's end it
/// is wasted).
#[inline(always)]
fn prefetch(p: *const Event<'_>) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = p as *const i8;
        // SAFETY: `_mm_prefetch` only needs SSE (always there on x86_64) and does not
        // dereference its address (no fault, no read visible to the program).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(std::mem::size_of::<Event<'_>>() - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// How many events ahead [`Encoder::write_events`] prefetches (about 2 KB).
const PREFETCH_EVENTS: usize = 20;

impl<W: Write> Encoder for FiEncoder<W> {
    /// The stream grammar of `binxml_core::StreamChecker` (and non-empty names) is checked here,
    /// folded into the encoder's own state: in the body (after the header, the root element
    /// seen) the hot events cost a test or two each, everything else goes the out-of-line way.
    #[inline]
    fn write_event(&mut self, ev: &Event<'_>) -> Result<()> {
        self.event_inline(ev)
    }

    /// [`Encoder::write_event`] on each event, with the event `PREFETCH_EVENTS` places
    /// ahead prefetched. The event's code is inlined into the loop: a call per event (its
    /// register saves and restores) is a noticeable share of an event's cost.
    fn write_events(&mut self, events: &[Event<'_>]) -> Result<()> {
        self.scoped(|e| {
            for (i, ev) in events.iter().enumerate() {
                prefetch(events.as_ptr().wrapping_add(i + PREFETCH_EVENTS));
                e.event_inline(ev)?;
            }
            Ok(())
        })
    }

    /// The tape replayed into the encoder's push interface (its [`EventSink`] methods).
    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        self.t.reserve_names(
            tape.names()
                .iter()
                .map(|q| (&*q.prefix, &*q.namespace, &*q.local)),
            tape.namespace_strings(),
        );
        self.t.attr_values.expect(tape.attributes());
        self.t.chunks.expect(tape.texts());
        self.scoped(|e| tape.replay(e))
    }

    fn finish(&mut self) -> Result<()> {
        if self.phase != Phase::Done {
            return Err(Error::invalid_events(FORMAT, "finish before EndDocument"));
        }
        self.flush_buf()?;
        self.out.flush().map_err(|e| Error::io(FORMAT, e))
    }
}

impl<W: Write> FiEncoder<W> {
    /// [`Encoder::write_event`]'s body: in the body (after the header, the root element seen)
    /// the hot events cost a test or two each, everything else goes the out-of-line way.
    #[inline(always)]
    fn event_inline(&mut self, ev: &Event<'_>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(ev);
        }
        match ev {
            Event::StartElement(q) => self.ev_start_element(q)?,
            Event::Attribute { name, value } => self.ev_attribute(name, value)?,
            Event::EndElement => self.ev_end_element()?,
            Event::Characters { text, cdata } => self.ev_characters(text, *cdata)?,
            Event::Namespace { prefix, uri } => self.ev_namespace(prefix, uri)?,
            _ => self.ev_other(ev)?,
        }
        self.flush_full()
    }
}

/// Push encoding: a push decoder ([`binxml_core::Decoder::read_into`]) hands the hot items to
/// the encoder as their parts, without an [`Event`] per item. The same checks and the same
/// bytes as [`Encoder::write_event`] with the events the parts make up; call
/// [`Encoder::finish`] after the decoder returns.
impl<'a, W: Write> EventSink<'a> for FiEncoder<W> {
    #[inline(always)]
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.write_event(&event)
    }

    #[inline(always)]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::StartElement(name));
        }
        self.ev_start_element(&name)?;
        self.flush_full()
    }

    #[inline(always)]
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Namespace { prefix, uri });
        }
        self.ev_namespace(&prefix, &uri)?;
        self.flush_full()
    }

    #[inline(always)]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Attribute { name, value });
        }
        self.ev_attribute(&name, &value)?;
        self.flush_full()
    }

    #[inline(always)]
    fn end_element(&mut self) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::EndElement);
        }
        self.ev_end_element()?;
        self.flush_full()
    }

    #[inline(always)]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        if self.phase != Phase::Body {
            return self.write_event_slow(&Event::Characters { text, cdata: false });
        }
        self.ev_characters(&text, false)?;
        self.flush_full()
    }
}
