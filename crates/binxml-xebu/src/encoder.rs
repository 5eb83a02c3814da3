//! The Xebu encoder: events in, Xebu out, token state kept across the messages of a stream.

use std::io::Write;

use binxml_core::hash::bytes_eq;
use std::borrow::Cow;

use binxml_core::{Encoder, Error, Event, EventSink, QName, Result, StreamChecker, Typed};

use crate::FORMAT;
use crate::datetime;
use crate::scope::Scope;
use crate::tables::EncoderCache;
use crate::wire::{self, code, put_num, put_str, put_varint, sel, special, typed};

/// Encoder settings.
///
/// Build them from [`XebuOptions::default`] (or [`XebuOptions::forget`]) and the `with_...`
/// setters. The fields that any value suits are public; the cache size is read through
/// [`XebuOptions::cache_size`] and set through [`XebuOptions::with_cache_size`], which refuses
/// sizes outside 1..=256 (an error of kind
/// [`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)). The struct is
/// `#[non_exhaustive]`, so new settings can be added without breaking callers.
///
/// ```
/// use binxml_xebu::XebuOptions;
///
/// let opts = XebuOptions::default().with_sequence_numbers(true).with_cache_size(16)?;
/// assert_eq!(opts.cache_size(), 16);
/// assert!(XebuOptions::default().with_cache_size(0).is_err());
/// # Ok::<(), binxml_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct XebuOptions {
    /// Forget mode (the paper's F): every message starts with empty caches (and says so), so
    /// each message decodes on its own.
    pub forget: bool,
    /// Attribute values and text chunks up to this many bytes get a token; longer ones are
    /// written literally without one.
    pub max_cached_len: usize,
    /// Slots used in each cache (1..=256). Smaller values only exist to exercise eviction.
    cache_size: usize,
    /// Write a message sequence number in every document start, so that a stream decoder
    /// detects a lost message instead of misreading tokens it never saw defined.
    pub sequence_numbers: bool,
    /// XebuS: the schema whose omission automata the encoder uses.
    schema: Option<crate::XebuSchema>,
}

impl Default for XebuOptions {
    fn default() -> Self {
        XebuOptions {
            forget: false,
            max_cached_len: 64,
            cache_size: 256,
            sequence_numbers: false,
            schema: None,
        }
    }
}

impl XebuOptions {
    /// XebuS: encode with the omission automata of this RELAX NG schema (`None`: plain Xebu).
    pub fn with_schema(mut self, schema: Option<crate::XebuSchema>) -> Self {
        self.schema = schema;
        self
    }

    /// The schema of XebuS, if any.
    pub fn schema(&self) -> Option<&crate::XebuSchema> {
        self.schema.as_ref()
    }

    /// The defaults with forget mode on.
    pub fn forget() -> Self {
        XebuOptions::default().with_forget(true)
    }

    /// The slots used in each cache (1..=256; 256 by default).
    pub fn cache_size(&self) -> usize {
        self.cache_size
    }

    /// The same settings with `n` slots in each cache. Errors
    /// ([`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)): `n` outside
    /// 1..=256 (a token is one byte).
    pub fn with_cache_size(mut self, n: usize) -> Result<Self> {
        if !(1..=crate::tables::SLOTS).contains(&n) {
            return Err(Error::invalid_options(
                FORMAT,
                format!("cache size {n} outside 1..={}", crate::tables::SLOTS),
            ));
        }
        self.cache_size = n;
        Ok(self)
    }

    /// Sets [`forget`](XebuOptions::forget): every message starts with empty caches.
    pub fn with_forget(mut self, forget: bool) -> Self {
        self.forget = forget;
        self
    }

    /// Sets [`max_cached_len`](XebuOptions::max_cached_len): values and text chunks up to this many
    /// bytes get a token.
    pub fn with_max_cached_len(mut self, max_cached_len: usize) -> Self {
        self.max_cached_len = max_cached_len;
        self
    }

    /// Sets [`sequence_numbers`](XebuOptions::sequence_numbers): a message sequence number in every
    /// document start.
    pub fn with_sequence_numbers(mut self, sequence_numbers: bool) -> Self {
        self.sequence_numbers = sequence_numbers;
        self
    }
}

/// A point in the encoder's token history (between two messages), to roll back to when the
/// decoder's state is known good only up to that point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    seq: u64,
    messages: u64,
}

impl Checkpoint {
    /// The sequence number of the message that follows the checkpoint (the number of messages
    /// written before it, counting resent ones once).
    pub fn messages(&self) -> u64 {
        self.messages
    }
}

/// Writes Xebu. One encoder writes one message (document) or a stream of them: after
/// `EndDocument` it accepts the next `StartDocument`, keeping its tokens unless
/// [`XebuOptions::forget`] is set.
pub struct XebuEncoder<W: Write> {
    out: W,
    buf: Vec<u8>,
    opts: XebuOptions,
    ns: EncoderCache,
    name: EncoderCache,
    value: EncoderCache,
    content: EncoderCache,
    /// Definition sequence number (incremented by every token definition).
    seq: u64,
    checker: StreamChecker,
    in_message: bool,
    pending_reset: bool,
    messages: u64,
    /// The sequence number of the next message (rewound by `rollback_to`).
    next_seq_no: u64,
    key: Vec<u8>,
    scope: Scope<String>,
    /// The start tag being collected: its name waits for the namespace declarations that
    /// follow it in the events and precede it in the bytes.
    pending: bool,
    pending_name: QName<'static>,
    pending_mark: usize,
    /// XebuS: the omission automata (`omit.rs`).
    omit: Option<Box<crate::omit::EncOmit>>,
}

const FLUSH_AT: usize = 64 << 10;

/// The cache key of a name: namespace and local name (the prefix is derived, not tokenized).
fn name_key(key: &mut Vec<u8>, q: &QName<'_>) {
    key.clear();
    key.extend_from_slice(&(q.namespace.len() as u32).to_le_bytes());
    key.extend_from_slice(q.namespace.as_bytes());
    key.extend_from_slice(q.local.as_bytes());
}

impl<W: Write> XebuEncoder<W> {
    /// An encoder writing to `out` with the default [`XebuOptions`].
    pub fn new(out: W) -> Self {
        Self::with_options(out, XebuOptions::default())
    }

    /// An encoder writing to `out` with `opts`.
    pub fn with_options(out: W, opts: XebuOptions) -> Self {
        let n = opts.cache_size;
        let omit = opts
            .schema
            .as_ref()
            .map(|s| Box::new(crate::omit::EncOmit::new(s)));
        XebuEncoder {
            out,
            buf: Vec::with_capacity(4096),
            ns: EncoderCache::new(n),
            name: EncoderCache::new(n),
            value: EncoderCache::new(n),
            content: EncoderCache::new(n),
            opts,
            seq: 0,
            checker: StreamChecker::new(true),
            in_message: false,
            pending_reset: false,
            messages: 0,
            next_seq_no: 0,
            key: Vec::new(),
            scope: Scope::default(),
            pending: false,
            pending_name: QName::default(),
            pending_mark: 0,
            omit,
        }
    }

    /// An encoder with the omission automata of a RELAX NG schema (XebuS): the events the
    /// schema makes certain are left out, typed text is written as typed content. The
    /// automata are kept across the messages of the stream. Decode with
    /// [`XebuDecoder::with_schema`](crate::XebuDecoder::with_schema) and the same schema.
    pub fn with_schema(out: W, opts: XebuOptions, schema: &crate::XebuSchema) -> Self {
        Self::with_options(out, opts.with_schema(Some(schema.clone())))
    }

    /// Writes a one-byte marker: the next event is not preceded by deleted events (XebuS).
    pub(crate) fn write_marker(&mut self) {
        self.flush_pending();
        self.buf.push(code::END_ATTRIBUTES);
    }

    /// The options the encoder was made with.
    pub fn options(&self) -> &XebuOptions {
        &self.opts
    }

    /// Writes one whole message (a complete document event sequence) and flushes it to the
    /// writer: the stream API, one call per message.
    pub fn write_message(&mut self, events: &[Event<'_>]) -> Result<()> {
        for ev in events {
            self.write_event(ev)?;
        }
        if self.in_message {
            return Err(Error::invalid_events(
                FORMAT,
                "a message must end with EndDocument",
            ));
        }
        self.finish()
    }

    /// Complete messages written so far.
    pub fn messages_written(&self) -> u64 {
        self.messages
    }

    /// The token state now. Take it between messages, e.g. right after a message the peer has
    /// acknowledged.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            seq: self.seq,
            messages: self.next_seq_no,
        }
    }

    /// Invalidates every token defined after `cp`: later messages define them again before use,
    /// so a decoder whose state is that of `cp` (or of any later point, with whatever damage
    /// after `cp`) decodes them correctly. Must be called between messages.
    pub fn rollback_to(&mut self, cp: Checkpoint) -> Result<()> {
        if self.in_message {
            return Err(Error::invalid_events(
                FORMAT,
                "rollback_to inside a message",
            ));
        }
        for c in [
            &mut self.ns,
            &mut self.name,
            &mut self.value,
            &mut self.content,
        ] {
            c.invalidate_after(cp.seq);
        }
        // Messages are resent from the checkpoint on: their sequence numbers continue from it.
        self.next_seq_no = cp.messages;
        Ok(())
    }

    /// Forgets every token; the next message tells the decoder to do the same. For a peer that
    /// lost all its state (or a new connection).
    pub fn reset(&mut self) -> Result<()> {
        if self.in_message {
            return Err(Error::invalid_events(FORMAT, "reset inside a message"));
        }
        self.clear_caches();
        self.pending_reset = true;
        Ok(())
    }

    fn clear_caches(&mut self) {
        for c in [
            &mut self.ns,
            &mut self.name,
            &mut self.value,
            &mut self.content,
        ] {
            c.clear();
        }
    }

    /// Tokens held in each cache (namespace, name, value, content).
    pub fn cache_occupancy(&self) -> [usize; 4] {
        [
            self.ns.len(),
            self.name.len(),
            self.value.len(),
            self.content.len(),
        ]
    }

    /// The writer. Output is buffered: the writer holds a message only after
    /// [`XebuEncoder::write_message`] or [`Encoder::finish`] wrote it out.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// The writer, mutably (e.g. to take the bytes of each message as it is written).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The writer (call [`Encoder::finish`] first).
    pub fn into_inner(self) -> W {
        self.out
    }

    fn flush_buf(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.out
                .write_all(&self.buf)
                .map_err(|e| Error::io(FORMAT, e))?;
            self.buf.clear();
        }
        Ok(())
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Writes the name part of an element or attribute whose name token is not known: returns
    /// the selector bits. `self.key[..key_len]` is the name's key, `name_hash` its hash.
    fn name_parts(&mut self, q: &QName<'_>, key_len: usize, name_hash: u32) -> u8 {
        let seq = self.next_seq();
        let mut s = sel::LITERAL;
        match self.ns.find(q.namespace.as_bytes()) {
            Ok(t) => {
                s = sel::NS;
                self.buf.push(t);
            }
            Err(h) => {
                let t = self.ns.define_hashed(q.namespace.as_bytes(), h, seq);
                self.buf.push(t);
                put_str(&mut self.buf, &q.namespace);
            }
        }
        let t = self
            .name
            .define_hashed(&self.key[..key_len], name_hash, seq);
        self.buf.push(t);
        put_str(&mut self.buf, &q.local);
        s
    }

    /// Writes the name part of an element or attribute: returns the selector bits.
    /// `self.key[..key_len]` is the name's key.
    #[inline]
    fn name_ref(&mut self, q: &QName<'_>, key_len: usize) -> u8 {
        match self.name.find(&self.key[..key_len]) {
            Ok(t) => {
                self.buf.push(t);
                sel::NAME
            }
            Err(h) => self.name_parts(q, key_len, h),
        }
    }

    /// Writes the pending start tag, its namespace declarations already written.
    fn flush_pending(&mut self) {
        if !self.pending {
            return;
        }
        self.pending = false;
        let q = std::mem::take(&mut self.pending_name);
        self.scope.open(self.pending_mark);
        let explicit = !self
            .scope
            .derive(&q.namespace, false)
            .is_some_and(|p| bytes_eq(p.as_bytes(), q.prefix.as_bytes()));
        let p = if explicit { wire::F_PREFIX } else { 0 };
        name_key(&mut self.key, &q);
        // The discriminator, known once the name is: written in place after it.
        let at = self.buf.len();
        self.buf.push(0);
        let s = self.name_ref(&q, self.key.len());
        if explicit {
            put_str(&mut self.buf, &q.prefix);
        }
        self.buf[at] = s | p | code::START_ELEMENT;
        self.pending_name = q;
    }

    fn attribute(&mut self, q: &QName<'_>, value: &str) {
        let explicit = !self
            .scope
            .derive(&q.namespace, true)
            .is_some_and(|p| bytes_eq(p.as_bytes(), q.prefix.as_bytes()));
        // The key: the name's key, then (a cacheable value) its length and the value.
        name_key(&mut self.key, q);
        let name_len = self.key.len();
        let cacheable = value.len() <= self.opts.max_cached_len;
        // The value key's hash when it was looked up and not found.
        let mut value_hash = None;
        if cacheable {
            self.key.extend_from_slice(&(name_len as u32).to_le_bytes());
            self.key.extend_from_slice(value.as_bytes());
            if !explicit {
                match self.value.find(&self.key) {
                    Ok(t) => {
                        self.buf.push(sel::VALUE | code::ATTRIBUTE);
                        self.buf.push(t);
                        return;
                    }
                    Err(h) => value_hash = Some(h),
                }
            }
        }
        // The discriminator, known once the name is: written in place after it.
        let at = self.buf.len();
        self.buf.push(0);
        let s = self.name_ref(q, name_len);
        let mut d = s | code::ATTRIBUTE;
        if explicit {
            d |= wire::F_PREFIX;
            put_str(&mut self.buf, &q.prefix);
        }
        if cacheable {
            // (With an explicit prefix the entry is still defined: a later use whose derived
            // prefix matches may fetch it.)
            d |= wire::F_DEFINE;
            let seq = self.next_seq();
            // (Not found above: the name's lookups and definitions leave the value cache as it
            // was.)
            let found = match value_hash {
                Some(h) => Err(h),
                None => self.value.find(&self.key),
            };
            let t = match found {
                Ok(t) => t,
                Err(h) => self.value.define_hashed(&self.key, h, seq),
            };
            self.buf.push(t);
        }
        put_str(&mut self.buf, value);
        self.buf[at] = d;
    }

    fn text(&mut self, text: &str, cdata: bool) {
        let c = if cdata { wire::F_CDATA } else { 0 };
        if text.len() <= self.opts.max_cached_len {
            let h = match self.content.find(text.as_bytes()) {
                Ok(t) => {
                    self.buf.push(sel::VALUE | c | code::TEXT);
                    self.buf.push(t);
                    return;
                }
                Err(h) => h,
            };
            let seq = self.next_seq();
            let t = self.content.define_hashed(text.as_bytes(), h, seq);
            self.buf.push(wire::F_DEFINE | c | code::TEXT);
            self.buf.push(t);
        } else {
            self.buf.push(c | code::TEXT);
        }
        put_str(&mut self.buf, text);
    }

    fn namespace(&mut self, prefix: &str, uri: &str) {
        match self.ns.find(uri.as_bytes()) {
            Ok(t) => {
                self.buf.push(sel::NS | code::NAMESPACE);
                self.buf.push(t);
            }
            Err(h) => {
                let seq = self.next_seq();
                let t = self.ns.define_hashed(uri.as_bytes(), h, seq);
                self.buf.push(code::NAMESPACE);
                self.buf.push(t);
                put_str(&mut self.buf, uri);
            }
        }
        put_str(&mut self.buf, prefix);
        self.scope.declare(prefix.to_owned(), uri.to_owned());
    }

    fn start_document(
        &mut self,
        version: Option<&str>,
        encoding: Option<&str>,
        standalone: Option<bool>,
    ) {
        let mut d = code::START_DOCUMENT;
        if self.opts.forget || self.pending_reset {
            if self.opts.forget {
                self.clear_caches();
            }
            d |= wire::DOC_RESET;
            self.pending_reset = false;
        }
        let decl = version.is_some() || encoding.is_some() || standalone.is_some();
        if decl {
            d |= wire::DOC_DECL;
        }
        if self.opts.sequence_numbers {
            d |= wire::DOC_SEQ;
        }
        self.buf.push(d);
        if self.opts.sequence_numbers {
            put_num(&mut self.buf, self.next_seq_no);
        }
        if decl {
            let mut p = 0;
            match version {
                Some("1.0") => p |= wire::DECL_VERSION_10,
                Some(_) => p |= wire::DECL_VERSION,
                None => {}
            }
            match encoding {
                Some("UTF-8") => p |= wire::DECL_UTF8,
                Some(_) => p |= wire::DECL_ENCODING,
                None => {}
            }
            if let Some(s) = standalone {
                p |= wire::DECL_STANDALONE;
                if s {
                    p |= wire::DECL_STANDALONE_YES;
                }
            }
            self.buf.push(p);
            if p & wire::DECL_VERSION != 0 {
                put_str(&mut self.buf, version.unwrap_or_default());
            }
            if p & wire::DECL_ENCODING != 0 {
                put_str(&mut self.buf, encoding.unwrap_or_default());
            }
        }
    }

    fn opt_strs(&mut self, d: u8, name: &str, opts: &[Option<&str>]) {
        self.buf.push(d);
        let mut p = 0u8;
        for (i, o) in opts.iter().enumerate() {
            if o.is_some() {
                p |= 1 << i;
            }
        }
        self.buf.push(p);
        put_str(&mut self.buf, name);
        for s in opts.iter().flatten() {
            put_str(&mut self.buf, s);
        }
    }
}

/// Appends a typed value (discriminator included).
pub(crate) fn put_typed(out: &mut Vec<u8>, t: &Typed<'_>) -> Result<()> {
    put_typed_at(out, t, 0)
}

fn put_typed_at(out: &mut Vec<u8>, t: &Typed<'_>, depth: usize) -> Result<()> {
    let c = code::TYPED;
    match t {
        Typed::Int(i) => {
            if *i >= 0 {
                out.push(typed::UINT | c);
                put_varint(out, *i as u64);
            } else {
                out.push(typed::NEG_INT | c);
                put_varint(out, !(*i as u64));
            }
        }
        Typed::Bool(b) => out.push(if *b { typed::TRUE } else { typed::FALSE } | c),
        Typed::Float(f) => {
            out.push(typed::FLOAT | c);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Typed::Double(f) => {
            out.push(typed::DOUBLE | c);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Typed::Base64(b) | Typed::Hex(b) => {
            out.push(
                if matches!(t, Typed::Base64(_)) {
                    typed::BASE64
                } else {
                    typed::HEX
                } | c,
            );
            put_num(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        Typed::Uuid(u) => {
            out.push(typed::UUID | c);
            out.extend_from_slice(u);
        }
        Typed::DateTime(s) => match datetime::parse(s) {
            Some(f) => {
                out.push(typed::DATETIME | c);
                let mut flags = 0u8;
                if let Some((neg, ..)) = f.date {
                    flags |= datetime::F_DATE;
                    if neg {
                        flags |= datetime::F_NEG_YEAR;
                    }
                }
                if f.time.is_some() {
                    flags |= datetime::F_TIME;
                }
                if f.fraction.is_some() {
                    flags |= datetime::F_FRACTION;
                }
                match f.tz {
                    datetime::Tz::None => {}
                    datetime::Tz::Z => flags |= datetime::F_TZ_Z,
                    datetime::Tz::Offset(_) => flags |= datetime::F_TZ_OFFSET,
                }
                out.push(flags);
                if let Some((_, y, m, d)) = f.date {
                    put_num(out, y);
                    out.push(m);
                    out.push(d);
                }
                if let Some((h, m, s)) = f.time {
                    out.extend_from_slice(&[h, m, s]);
                }
                if let Some((n, v)) = f.fraction {
                    out.push(n);
                    put_num(out, v);
                }
                if let datetime::Tz::Offset(o) = f.tz {
                    out.extend_from_slice(&o.to_be_bytes());
                }
            }
            None => {
                out.push(typed::DATETIME_TEXT | c);
                put_str(out, s);
            }
        },
        Typed::Number(s) => {
            out.push(typed::NUMBER | c);
            put_str(out, s);
        }
        Typed::Null => out.push(typed::NULL | c),
        Typed::List(items) => {
            if depth >= crate::MAX_LIST_DEPTH {
                return Err(Error::unsupported(
                    FORMAT,
                    "typed lists nested more than 32 deep",
                ));
            }
            out.push(typed::LIST | c);
            put_num(out, items.len() as u64);
            for item in items {
                put_typed_at(out, item, depth + 1)?;
            }
        }
    }
    Ok(())
}

fn check_len(s: &str) -> Result<()> {
    if s.len() > u32::MAX as usize {
        return Err(Error::unsupported(FORMAT, "a string of 4 GiB or more"));
    }
    Ok(())
}

impl<W: Write> Encoder for XebuEncoder<W> {
    fn write_event(&mut self, event: &Event<'_>) -> Result<()> {
        if let Some(mut om) = self.omit.take() {
            let r = crate::omit::encode_event(self, &mut om, event);
            self.omit = Some(om);
            return r;
        }
        self.write_plain(event, true)
    }

    /// The tape replayed into the encoder's push interface (its [`EventSink`] methods): no
    /// event is built per element, attribute or text.
    fn write_tape(&mut self, tape: &binxml_core::Tape<'_>) -> Result<()> {
        tape.replay(self)
    }

    fn finish(&mut self) -> Result<()> {
        if self.in_message {
            return Err(Error::invalid_events(FORMAT, "finish before EndDocument"));
        }
        self.flush_buf()?;
        self.out.flush().map_err(|e| Error::io(FORMAT, e))
    }
}

impl<W: Write> XebuEncoder<W> {
    /// The output buffer handed to the writer once it holds enough.
    #[inline(always)]
    fn flush_full(&mut self) -> Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// `Event::StartElement`: the name waits for the element's namespace declarations.
    #[inline]
    fn hot_start_element(&mut self, q: &QName<'_>, check: bool) -> Result<()> {
        if check {
            self.checker.start_element(FORMAT)?;
        }
        self.flush_pending();
        for s in [&q.prefix, &q.namespace, &q.local] {
            check_len(s)?;
        }
        // Reuses the pending name's string buffers.
        for (dst, src) in [
            (&mut self.pending_name.prefix, &q.prefix),
            (&mut self.pending_name.namespace, &q.namespace),
            (&mut self.pending_name.local, &q.local),
        ] {
            let d = dst.to_mut();
            d.clear();
            d.push_str(src);
        }
        self.pending = true;
        self.pending_mark = self.scope.len();
        self.flush_full()
    }

    #[inline]
    fn hot_end_element(&mut self, check: bool) -> Result<()> {
        if check {
            self.checker.end_element(FORMAT)?;
        }
        self.flush_pending();
        self.scope.close();
        self.buf.push(code::END_ELEMENT);
        self.flush_full()
    }

    #[inline]
    fn hot_attribute(&mut self, name: &QName<'_>, value: &str, check: bool) -> Result<()> {
        if check {
            self.checker.attribute(FORMAT)?;
        }
        self.flush_pending();
        check_len(value)?;
        self.attribute(name, value);
        self.flush_full()
    }

    #[inline]
    fn hot_text(&mut self, text: &str, cdata: bool, check: bool) -> Result<()> {
        if check {
            self.checker.characters(FORMAT, text, cdata)?;
        }
        self.flush_pending();
        check_len(text)?;
        self.text(text, cdata);
        self.flush_full()
    }

    /// Writes one event as it is; `check`: against the event grammar (XebuS checks the
    /// events before deleting some, and writes the rest unchecked).
    pub(crate) fn write_plain(&mut self, event: &Event<'_>, check: bool) -> Result<()> {
        match event {
            Event::StartElement(q) => return self.hot_start_element(q, check),
            Event::EndElement => return self.hot_end_element(check),
            Event::Attribute { name, value } => return self.hot_attribute(name, value, check),
            Event::Characters { text, cdata } => return self.hot_text(text, *cdata, check),
            _ => {}
        }
        if check {
            self.checker.check(FORMAT, event)?;
        }
        if !matches!(event, Event::Namespace { .. }) {
            self.flush_pending();
        }
        match event {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => {
                self.in_message = true;
                self.scope.clear();
                let at = self.buf.len();
                self.start_document(version.as_deref(), encoding.as_deref(), *standalone);
                if !check {
                    self.buf[at] |= wire::DOC_OMIT;
                }
            }
            Event::EndDocument => {
                self.buf.push(code::END_DOCUMENT);
                self.in_message = false;
                self.messages += 1;
                self.next_seq_no += 1;
                self.checker = StreamChecker::new(true);
                if self.buf.len() >= FLUSH_AT {
                    self.flush_buf()?;
                }
            }
            Event::Namespace { prefix, uri } => {
                check_len(uri)?;
                self.namespace(prefix, uri);
            }
            Event::StartElement(_)
            | Event::EndElement
            | Event::Attribute { .. }
            | Event::Characters { .. } => unreachable!("written above"),
            Event::Typed(t) => {
                let mark = self.buf.len();
                if let Err(e) = put_typed(&mut self.buf, t) {
                    // Nothing of a rejected value reaches the output.
                    self.buf.truncate(mark);
                    return Err(e);
                }
            }
            Event::Comment(c) => {
                check_len(c)?;
                self.buf.push(special::COMMENT | code::SPECIAL);
                put_str(&mut self.buf, c);
            }
            Event::ProcessingInstruction { target, data } => {
                check_len(data)?;
                self.buf.push(special::PI | code::SPECIAL);
                put_str(&mut self.buf, target);
                put_str(&mut self.buf, data);
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => self.opt_strs(
                special::ENTITY_REF | code::SPECIAL,
                name,
                &[public_id.as_deref(), system_id.as_deref()],
            ),
            Event::DocType(d) => {
                if let Some(s) = &d.internal_subset {
                    check_len(s)?;
                }
                self.opt_strs(
                    special::DOCTYPE | code::SPECIAL,
                    &d.name,
                    &[
                        d.public_id.as_deref(),
                        d.system_id.as_deref(),
                        d.internal_subset.as_deref(),
                    ],
                )
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => self.opt_strs(
                special::NOTATION | code::SPECIAL,
                name,
                &[public_id.as_deref(), system_id.as_deref()],
            ),
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => {
                self.opt_strs(
                    special::UNPARSED_ENTITY | code::SPECIAL,
                    name,
                    &[public_id.as_deref()],
                );
                put_str(&mut self.buf, system_id);
                put_str(&mut self.buf, notation);
            }
            _ => {
                return Err(Error::unsupported(
                    FORMAT,
                    "an event this encoder does not know",
                ));
            }
        }
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }
}

/// The encoder's push interface: a decoder's push loop (or a tape) hands it the hot items as
/// their parts. XebuS (omission automata) takes every event whole.
impl<'a, W: Write> EventSink<'a> for XebuEncoder<W> {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        self.write_event(&event)
    }

    #[inline]
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        if self.omit.is_some() {
            return self.write_event(&Event::StartElement(name));
        }
        self.hot_start_element(&name, true)
    }

    #[inline]
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        if self.omit.is_some() {
            return self.write_event(&Event::Attribute { name, value });
        }
        self.hot_attribute(&name, &value, true)
    }

    #[inline]
    fn end_element(&mut self) -> Result<()> {
        if self.omit.is_some() {
            return self.write_event(&Event::EndElement);
        }
        self.hot_end_element(true)
    }

    #[inline]
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        if self.omit.is_some() {
            return self.write_event(&Event::Characters { text, cdata: false });
        }
        self.hot_text(&text, false, true)
    }
}
