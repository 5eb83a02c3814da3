//! The Xebu decoder: a pull decoder over a buffer holding one message or a stream of them.

use std::borrow::Cow;
use std::collections::VecDeque;

use binxml_core::{
    Decoder, DocType, Error, Event, EventSink, Limits, QName, Result, StreamChecker, Typed,
};

use crate::FORMAT;
use crate::datetime::{self, DateTimeFields, Tz};
use crate::scope::{Derived, Scope};
use crate::tables::DecoderTables;
use crate::wire::{self, code, sel, special, typed};

use crate::MAX_LIST_DEPTH;

mod items;
mod push;

enum Tables<'a> {
    Local(Box<DecoderTables<'a>>),
    Shared(&'a mut DecoderTables<'static>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    BeforeMessage,
    InMessage,
    AfterMessage,
    Failed,
}

/// Reads Xebu from a buffer. [`Decoder::next_event`] returns the events of one message and
/// `None` after its `EndDocument`; [`XebuDecoder::next_message`] moves on to the next message of
/// a stream in the same buffer, with the token state carried over.
pub struct XebuDecoder<'a> {
    input: &'a [u8],
    pos: usize,
    last: usize,
    tables: Tables<'a>,
    limits: Limits,
    checker: StreamChecker,
    state: State,
    budget: usize,
    decoded: usize,
    messages: u64,
    /// Message sequence number the next message must carry (when it carries one).
    expected_seq: Option<u64>,
    seq_slot: Option<&'a mut Option<u64>>,
    scope: Scope<Cow<'a, str>>,
    /// Namespace declarations read before their element start, to be returned after it.
    queue: VecDeque<(usize, Event<'a>)>,
    /// Scope length before the queued declarations.
    queue_mark: Option<usize>,
    /// XebuS: the omission automata (`omit.rs`), when decoding with a schema.
    omit: Option<Box<crate::omit::DecOmit<'a>>>,
    /// The current message was written with omission automata.
    msg_omit: bool,
    /// A marker (XebuS) preceded the event just read.
    marked: bool,
    /// Made with a schema (XebuS messages are accepted).
    schema: bool,
    /// Bytes after the first message's end are an error ([`XebuDecoder::one_document`]).
    one_document: bool,
}

impl<'a> XebuDecoder<'a> {
    /// A decoder of the message (or stream of messages) in `input`, with the default [`Limits`].
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A decoder of the message (or stream of messages) in `input` that refuses input beyond
    /// `limits` (depth, string lengths, token table entries, decoded bytes per input byte) with an
    /// error.
    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        Self::build(input, limits, Tables::Local(Box::default()), None)
    }

    pub(crate) fn shared(
        input: &'a [u8],
        limits: Limits,
        tables: &'a mut DecoderTables<'static>,
        seq_slot: &'a mut Option<u64>,
    ) -> Self {
        let expected = *seq_slot;
        let mut d = Self::build(input, limits, Tables::Shared(tables), Some(seq_slot));
        d.expected_seq = expected;
        d
    }

    fn build(
        input: &'a [u8],
        limits: Limits,
        tables: Tables<'a>,
        seq_slot: Option<&'a mut Option<u64>>,
    ) -> Self {
        let budget = limits.decoded_budget(input.len());
        XebuDecoder {
            input,
            pos: 0,
            last: 0,
            tables,
            limits,
            checker: StreamChecker::new(true),
            state: State::BeforeMessage,
            budget,
            decoded: 0,
            messages: 0,
            expected_seq: None,
            seq_slot,
            scope: Scope::default(),
            queue: VecDeque::new(),
            queue_mark: None,
            omit: None,
            msg_omit: false,
            marked: false,
            schema: false,
            one_document: false,
        }
    }

    /// The same decoder reading its input as one document: bytes after the first message's
    /// `EndDocument` (a stream's further messages) are an error, returned instead of that
    /// `EndDocument`, so that no message is dropped silently.
    pub fn one_document(mut self) -> Self {
        self.one_document = true;
        self
    }

    /// A decoder of XebuS messages written with the omission automata of `schema` (messages
    /// written without them decode as well). The automata are kept across the messages.
    pub fn with_schema(input: &'a [u8], limits: Limits, schema: &crate::XebuSchema) -> Self {
        let mut d = Self::with_limits(input, limits);
        d.omit = Some(Box::new(crate::omit::DecOmit::new(schema)));
        d.schema = true;
        d
    }

    /// Whether a marker preceded the event just read (and forgets it).
    pub(crate) fn take_marked(&mut self) -> bool {
        std::mem::take(&mut self.marked)
    }

    /// Whether the current message was written with omission automata.
    pub(crate) fn message_omits(&self) -> bool {
        self.msg_omit
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// After a message's `EndDocument`: starts the next message of the stream if the buffer
    /// holds more bytes. Returns `false` at the end of the input (or after an error).
    pub fn next_message(&mut self) -> bool {
        if self.state == State::AfterMessage && self.pos < self.input.len() {
            self.state = State::BeforeMessage;
            self.checker = StreamChecker::new(true);
            true
        } else {
            false
        }
    }

    /// Complete messages decoded so far.
    pub fn messages_decoded(&self) -> u64 {
        self.messages
    }

    /// Bytes of the input not read yet (after a message's `EndDocument`: the stream's further
    /// messages).
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// Bytes consumed so far (the end of the last message after its `EndDocument`).
    pub fn position(&self) -> usize {
        self.pos
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::malformed(FORMAT, at as u64, msg)
    }

    fn eof(&self) -> Error {
        self.err(self.input.len(), "unexpected end of input")
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.eof()),
        }
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.input.len() - self.pos < n {
            return Err(self.err(
                self.pos,
                format!(
                    "{n} bytes past the end of the input ({} left)",
                    self.input.len() - self.pos
                ),
            ));
        }
        let s = &self.input[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A number in the 1/2/5-byte form; `wide` admits the 9-byte form (typed integers).
    fn num(&mut self, wide: bool) -> Result<u64> {
        let at = self.pos;
        let b = self.byte()?;
        Ok(match b {
            0..=0x7F => u64::from(b),
            0x80..=0xBF => (u64::from(b & 0x3F) << 8) | u64::from(self.byte()?),
            0xC0 => u64::from(u32::from_be_bytes(self.bytes(4)?.try_into().unwrap())),
            0xC1 if wide => u64::from_be_bytes(self.bytes(8)?.try_into().unwrap()),
            _ => return Err(self.err(at, format!("invalid length prefix 0x{b:02X}"))),
        })
    }

    fn len(&mut self) -> Result<usize> {
        let at = self.pos;
        let n = self.num(false)?;
        if n > self.limits.max_string_len as u64 {
            return Err(Error::limit(
                FORMAT,
                at as u64,
                format!("string of {n} bytes exceeds the limit"),
            ));
        }
        let left = self.input.len() - self.pos;
        if n > left as u64 {
            return Err(self.err(
                at,
                format!("length {n} past the end of the input ({left} bytes left)"),
            ));
        }
        Ok(n as usize)
    }

    fn str(&mut self) -> Result<&'a str> {
        let n = self.len()?;
        let at = self.pos;
        let b = self.bytes(n)?;
        std::str::from_utf8(b)
            .map_err(|e| self.err(at + e.valid_up_to(), "invalid UTF-8 in a string"))
    }

    fn charge(&mut self, n: usize, at: usize) -> Result<()> {
        self.decoded += n;
        if self.decoded > self.budget {
            return Err(Error::limit(
                FORMAT,
                at as u64,
                "decoded size exceeds the expansion limit",
            ));
        }
        Ok(())
    }

    fn undefined(&self, at: usize, what: &str, t: u8) -> Error {
        self.err(at, format!("reference to undefined {what} token {t}"))
    }

    fn fetch_ns(&mut self) -> Result<Cow<'a, str>> {
        let at = self.pos;
        let t = self.byte()?;
        let v = match &self.tables {
            Tables::Local(tb) => tb.ns.get(t as usize).cloned().flatten(),
            Tables::Shared(tb) => tb.ns.get(t as usize).cloned().flatten(),
        };
        let v = v.ok_or_else(|| self.undefined(at, "namespace", t))?;
        self.charge(v.len(), at)?;
        Ok(v)
    }

    fn fetch_name(&mut self) -> Result<QName<'a>> {
        let at = self.pos;
        let t = self.byte()?;
        let v = match &self.tables {
            Tables::Local(tb) => tb.name.get(t as usize).cloned().flatten(),
            Tables::Shared(tb) => tb.name.get(t as usize).cloned().flatten(),
        };
        let v = v.ok_or_else(|| self.undefined(at, "name", t))?;
        self.charge(v.prefix.len() + v.namespace.len() + v.local.len(), at)?;
        Ok(v)
    }

    /// The name part of an element or attribute for selector `s` (not the value selector).
    fn name(&mut self, s: u8) -> Result<QName<'a>> {
        if s == sel::NAME {
            return self.fetch_name();
        }
        let ns = if s == sel::NS {
            self.fetch_ns()?
        } else {
            let t = self.byte()?;
            let uri = self.str()?;
            match &mut self.tables {
                Tables::Local(tb) => tb.set_ns(t, Cow::Borrowed(uri)),
                Tables::Shared(tb) => tb.set_ns(t, Cow::Owned(uri.to_owned())),
            }
            Cow::Borrowed(uri)
        };
        let t = self.byte()?;
        let local = self.str()?;
        let q = QName {
            prefix: Cow::Borrowed(""),
            namespace: ns,
            local: Cow::Borrowed(local),
        };
        match &mut self.tables {
            Tables::Local(tb) => tb.set_name(t, q.clone()),
            Tables::Shared(tb) => tb.set_name(t, q.clone().into_owned()),
        }
        Ok(q)
    }

    /// The prefix of a name: explicit, or derived from the namespace scope.
    fn prefix(
        &mut self,
        at: usize,
        explicit: bool,
        q: &mut QName<'a>,
        attribute: bool,
    ) -> Result<()> {
        q.prefix = if explicit {
            Cow::Borrowed(self.str()?)
        } else {
            match self.scope.derive_entry(&q.namespace, attribute) {
                Some(Derived::Fixed(p)) => Cow::Borrowed(p),
                Some(Derived::Declared(p)) => p.clone(),
                None => {
                    return Err(self.err(
                        at,
                        format!("no prefix in scope for namespace {:?}", &*q.namespace),
                    ));
                }
            }
        };
        Ok(())
    }

    /// A varint (typed integers): at most 10 bytes, no bits past 64.
    fn varint(&mut self) -> Result<u64> {
        let at = self.pos;
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7F);
            if i == 9 && b > 1 {
                return Err(self.err(at, "integer longer than 64 bits"));
            }
            v |= bits << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(at, "integer longer than 64 bits"))
    }

    fn opt_strs(&mut self, n: usize) -> Result<(&'a str, Vec<Option<&'a str>>)> {
        let at = self.pos;
        let p = self.byte()?;
        if p >> n != 0 {
            return Err(self.err(at, format!("invalid presence bits 0x{p:02X}")));
        }
        let name = self.str()?;
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(if p & (1 << i) != 0 {
                Some(self.str()?)
            } else {
                None
            });
        }
        Ok((name, v))
    }

    fn typed(&mut self, d: u8, depth: usize) -> Result<Typed<'a>> {
        let at = self.pos - 1;
        Ok(match d & 0xF0 {
            typed::UINT => {
                let n = self.varint()?;
                if n > i64::MAX as u64 {
                    return Err(self.err(at, "integer out of range"));
                }
                Typed::Int(n as i64)
            }
            typed::NEG_INT => {
                let n = self.varint()?;
                if n > i64::MAX as u64 {
                    return Err(self.err(at, "integer out of range"));
                }
                Typed::Int(!(n as i64))
            }
            typed::FALSE => Typed::Bool(false),
            typed::TRUE => Typed::Bool(true),
            typed::FLOAT => Typed::Float(f32::from_bits(u32::from_be_bytes(
                self.bytes(4)?.try_into().unwrap(),
            ))),
            typed::DOUBLE => Typed::Double(f64::from_bits(u64::from_be_bytes(
                self.bytes(8)?.try_into().unwrap(),
            ))),
            typed::BASE64 | typed::HEX => {
                let n = self.len()?;
                let b = Cow::Borrowed(self.bytes(n)?);
                if d & 0xF0 == typed::BASE64 {
                    Typed::Base64(b)
                } else {
                    Typed::Hex(b)
                }
            }
            typed::UUID => Typed::Uuid(self.bytes(16)?.try_into().unwrap()),
            typed::DATETIME => Typed::DateTime(Cow::Owned(self.datetime()?)),
            typed::DATETIME_TEXT => Typed::DateTime(Cow::Borrowed(self.str()?)),
            typed::NUMBER => Typed::Number(Cow::Borrowed(self.str()?)),
            typed::NULL => Typed::Null,
            typed::LIST => {
                if depth >= MAX_LIST_DEPTH {
                    return Err(Error::limit(
                        FORMAT,
                        at as u64,
                        "typed lists nested too deeply",
                    ));
                }
                let n_at = self.pos;
                let n = self.num(false)?;
                if n > (self.input.len() - self.pos) as u64 {
                    return Err(
                        self.err(n_at, format!("list of {n} items past the end of the input"))
                    );
                }
                let mut items = Vec::new();
                for _ in 0..n {
                    let d_at = self.pos;
                    let d = self.byte()?;
                    if d & 0x0F != code::TYPED {
                        return Err(self.err(
                            d_at,
                            format!("list item discriminator 0x{d:02X} is not typed content"),
                        ));
                    }
                    items.push(self.typed(d, depth + 1)?);
                }
                Typed::List(items)
            }
            _ => return Err(self.err(at, format!("unknown typed content subtype 0x{d:02X}"))),
        })
    }

    fn datetime(&mut self) -> Result<String> {
        let at = self.pos;
        let flags = self.byte()?;
        let known = datetime::F_DATE
            | datetime::F_TIME
            | datetime::F_FRACTION
            | datetime::F_TZ_Z
            | datetime::F_TZ_OFFSET
            | datetime::F_NEG_YEAR;
        let bad = flags & !known != 0
            || flags & (datetime::F_DATE | datetime::F_TIME) == 0
            || (flags & datetime::F_FRACTION != 0 && flags & datetime::F_TIME == 0)
            || (flags & datetime::F_NEG_YEAR != 0 && flags & datetime::F_DATE == 0)
            || (flags & datetime::F_TZ_Z != 0 && flags & datetime::F_TZ_OFFSET != 0);
        if bad {
            return Err(self.err(at, format!("invalid date/time flags 0x{flags:02X}")));
        }
        let mut f = DateTimeFields::default();
        if flags & datetime::F_DATE != 0 {
            let y = self.num(true)?;
            let m = self.byte()?;
            let d = self.byte()?;
            if y >= 1_000_000_000_000_000_000 || m > 99 || d > 99 {
                return Err(self.err(at, "date field out of range"));
            }
            f.date = Some((flags & datetime::F_NEG_YEAR != 0, y, m, d));
        }
        if flags & datetime::F_TIME != 0 {
            let b = self.bytes(3)?;
            if b.iter().any(|&x| x > 99) {
                return Err(self.err(at, "time field out of range"));
            }
            f.time = Some((b[0], b[1], b[2]));
        }
        if flags & datetime::F_FRACTION != 0 {
            let n = self.byte()?;
            let v = self.num(true)?;
            if n == 0 || n > 18 || v >= 10u64.pow(u32::from(n)) {
                return Err(self.err(at, "fraction field out of range"));
            }
            f.fraction = Some((n, v));
        }
        if flags & datetime::F_TZ_Z != 0 {
            f.tz = Tz::Z;
        } else if flags & datetime::F_TZ_OFFSET != 0 {
            let o = i16::from_be_bytes(self.bytes(2)?.try_into().unwrap());
            if o.unsigned_abs() >= 100 * 60 {
                return Err(self.err(at, "time zone offset out of range"));
            }
            f.tz = Tz::Offset(o);
        }
        Ok(datetime::format(&f))
    }

    fn read_event(&mut self) -> Result<Event<'a>> {
        loop {
            let at = self.pos;
            let d = self.byte()?;
            let c = d & 0x0F;
            let flags = d & 0xF0;
            let s = d & sel::MASK;
            let bad = |this: &Self| this.err(at, format!("invalid discriminator 0x{d:02X}"));
            if self.state == State::BeforeMessage && c != code::START_DOCUMENT {
                return Err(self.err(
                    at,
                    format!("expected a document start, found discriminator 0x{d:02X}"),
                ));
            }
            if self.queue_mark.is_some() && c != code::NAMESPACE && c != code::START_ELEMENT {
                return Err(self.err(
                    at,
                    "namespace declarations not followed by an element start",
                ));
            }
            self.last = at;
            let ev = match c {
                code::START_DOCUMENT => {
                    if flags & !(wire::DOC_RESET | wire::DOC_DECL | wire::DOC_SEQ | wire::DOC_OMIT)
                        != 0
                    {
                        return Err(bad(self));
                    }
                    if flags & wire::DOC_OMIT != 0 && !self.schema {
                        return Err(self.err(
                            at,
                            "a XebuS message (written with omission automata): decode it with its schema",
                        ));
                    }
                    self.msg_omit = flags & wire::DOC_OMIT != 0;
                    if self.state != State::BeforeMessage {
                        return Err(self.err(at, "document start inside a message"));
                    }
                    self.begin_message();
                    self.scope.clear();
                    self.queue.clear();
                    self.queue_mark = None;
                    if flags & wire::DOC_RESET != 0 {
                        match &mut self.tables {
                            Tables::Local(tb) => tb.clear(),
                            Tables::Shared(tb) => tb.clear(),
                        }
                    }
                    if flags & wire::DOC_SEQ != 0 {
                        let n_at = self.pos;
                        let n = self.num(true)?;
                        if let Some(e) = self.expected_seq {
                            // A higher number is a gap (a lost message); a lower one is the sender
                            // resending after a rollback.
                            if n > e && flags & wire::DOC_RESET == 0 {
                                return Err(self.err(
                                    n_at,
                                    format!(
                                        "message {n} where {e} was expected (a message was lost)"
                                    ),
                                ));
                            }
                        }
                        self.expected_seq = Some(n.wrapping_add(1));
                    }
                    let (mut version, mut encoding, mut standalone) = (None, None, None);
                    if flags & wire::DOC_DECL != 0 {
                        let p_at = self.pos;
                        let p = self.byte()?;
                        let both = |a: u8, b: u8| p & a != 0 && p & b != 0;
                        if p & 0xC0 != 0
                            || (p & wire::DECL_STANDALONE_YES != 0
                                && p & wire::DECL_STANDALONE == 0)
                            || both(wire::DECL_VERSION, wire::DECL_VERSION_10)
                            || both(wire::DECL_ENCODING, wire::DECL_UTF8)
                        {
                            return Err(
                                self.err(p_at, format!("invalid declaration bits 0x{p:02X}"))
                            );
                        }
                        if p & wire::DECL_VERSION != 0 {
                            version = Some(Cow::Borrowed(self.str()?));
                        } else if p & wire::DECL_VERSION_10 != 0 {
                            version = Some(Cow::Borrowed("1.0"));
                        }
                        if p & wire::DECL_ENCODING != 0 {
                            encoding = Some(Cow::Borrowed(self.str()?));
                        } else if p & wire::DECL_UTF8 != 0 {
                            encoding = Some(Cow::Borrowed("UTF-8"));
                        }
                        if p & wire::DECL_STANDALONE != 0 {
                            standalone = Some(p & wire::DECL_STANDALONE_YES != 0);
                        }
                    }
                    Event::StartDocument {
                        version,
                        encoding,
                        standalone,
                    }
                }
                code::END_DOCUMENT => {
                    if flags != 0 {
                        return Err(bad(self));
                    }
                    Event::EndDocument
                }
                code::START_ELEMENT => {
                    if !items::start_element_ok(flags, s) {
                        return Err(bad(self));
                    }
                    Event::StartElement(self.start_element_item(at, flags, s)?)
                }
                code::END_ELEMENT => {
                    if flags != 0 {
                        return Err(bad(self));
                    }
                    self.scope.close();
                    Event::EndElement
                }
                code::NAMESPACE => {
                    if flags & !sel::NS != 0 {
                        return Err(bad(self));
                    }
                    self.namespace_item(at, s)?;
                    // The element start follows its declarations.
                    continue;
                }
                code::ATTRIBUTE => {
                    if !items::attribute_ok(flags, s) {
                        return Err(bad(self));
                    }
                    let (name, value) = self.attribute_item(at, flags, s)?;
                    Event::Attribute { name, value }
                }
                code::END_ATTRIBUTES if self.msg_omit && flags == 0 && !self.marked => {
                    // XebuS: the next event is not preceded by deleted events.
                    self.marked = true;
                    continue;
                }
                code::END_ATTRIBUTES => {
                    // Reserved (the published layout's end of attribute list); never written.
                    return Err(self.err(
                        at,
                        "end-of-attributes marker (0x06) is not used by this version",
                    ));
                }
                code::TEXT => {
                    if !items::text_ok(flags, s) {
                        return Err(bad(self));
                    }
                    let text = self.text_item(flags, s)?;
                    Event::Characters {
                        text,
                        cdata: flags & wire::F_CDATA != 0,
                    }
                }
                code::TYPED => Event::Typed(self.typed(d, 0)?),
                code::SPECIAL => match flags {
                    special::PI => {
                        let target = Cow::Borrowed(self.str()?);
                        let data = Cow::Borrowed(self.str()?);
                        Event::ProcessingInstruction { target, data }
                    }
                    special::COMMENT => Event::Comment(Cow::Borrowed(self.str()?)),
                    special::ENTITY_REF => {
                        let (name, v) = self.opt_strs(2)?;
                        Event::EntityReference {
                            name: Cow::Borrowed(name),
                            public_id: v[0].map(Cow::Borrowed),
                            system_id: v[1].map(Cow::Borrowed),
                        }
                    }
                    special::DOCTYPE => {
                        let (name, v) = self.opt_strs(3)?;
                        Event::DocType(DocType {
                            name: Cow::Borrowed(name),
                            public_id: v[0].map(Cow::Borrowed),
                            system_id: v[1].map(Cow::Borrowed),
                            internal_subset: v[2].map(Cow::Borrowed),
                        })
                    }
                    special::NOTATION => {
                        let (name, v) = self.opt_strs(2)?;
                        Event::Notation {
                            name: Cow::Borrowed(name),
                            public_id: v[0].map(Cow::Borrowed),
                            system_id: v[1].map(Cow::Borrowed),
                        }
                    }
                    special::UNPARSED_ENTITY => {
                        let (name, v) = self.opt_strs(1)?;
                        let system_id = Cow::Borrowed(self.str()?);
                        let notation = Cow::Borrowed(self.str()?);
                        Event::UnparsedEntity {
                            name: Cow::Borrowed(name),
                            public_id: v[0].map(Cow::Borrowed),
                            system_id,
                            notation,
                        }
                    }
                    _ => return Err(self.err(at, format!("unknown special subtype 0x{d:02X}"))),
                },
                code::SEQ_FETCH | code::SEQ_ENTRY => {
                    return Err(self.err(
                        at,
                        format!("sequence cache (discriminator 0x{d:02X}) is not supported"),
                    ));
                }
                _ => return Err(self.err(at, format!("unknown discriminator 0x{d:02X}"))),
            };
            return Ok(ev);
        }
    }

    fn begin_message(&mut self) {
        self.decoded = 0;
        match &mut self.tables {
            // A message abandoned half-way leaves no definitions behind.
            Tables::Local(tb) => tb.rollback(),
            Tables::Shared(tb) => tb.rollback(),
        }
        self.state = State::InMessage;
    }

    fn fail(&mut self) {
        self.state = State::Failed;
        match &mut self.tables {
            Tables::Local(tb) => tb.rollback(),
            Tables::Shared(tb) => tb.rollback(),
        }
    }
}

impl<'a> Decoder<'a> for XebuDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(mut om) = self.omit.take() {
            let r = crate::omit::decode_event(self, &mut om);
            self.omit = Some(om);
            if r.is_err() {
                self.fail();
            }
            return r;
        }
        self.next_plain()
    }

    /// Batched pull: the push loop into the batch.
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it.
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }

    /// The push loop (`decoder/push.rs`): the rest of the current message, then (like
    /// `next_event`) nothing until [`XebuDecoder::next_message`].
    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        self.push_into(sink)
    }

    fn offset(&self) -> u64 {
        self.last as u64
    }
}

impl<'a> XebuDecoder<'a> {
    /// The next event as written (XebuS: without the deleted ones, unchecked).
    pub(crate) fn next_plain(&mut self) -> Result<Option<Event<'a>>> {
        match self.state {
            State::AfterMessage => return Ok(None),
            State::Failed => {
                return Err(self.err(self.last, "the decoder stopped at an earlier error"));
            }
            State::BeforeMessage if self.pos >= self.input.len() => {
                self.state = State::Failed;
                return Err(self.err(self.pos, "unexpected end of input: no message"));
            }
            _ => {}
        }
        self.last = self.pos;
        let r = match self.queue.pop_front() {
            Some((at, ev)) => {
                self.last = at;
                Ok(ev)
            }
            None => self.read_event(),
        };
        let check = !self.msg_omit;
        let r = r.and_then(|ev| {
            if !check {
                return Ok(ev);
            }
            self.checker
                .check(FORMAT, &ev)
                .map_err(|e| self.err(self.last, e.message()))?;
            if self.checker.depth() > self.limits.max_depth {
                return Err(Error::limit(
                    FORMAT,
                    self.last as u64,
                    "element nesting exceeds the depth limit",
                ));
            }
            Ok(ev)
        });
        match r {
            Ok(Event::EndDocument) if self.seq_slot.is_some() && self.pos != self.input.len() => {
                // A stream decoder's buffer holds exactly one message; the message is not
                // committed.
                let e = self.err(self.pos, "bytes after the end of the message");
                self.fail();
                Err(e)
            }
            Ok(Event::EndDocument) if self.one_document && self.pos != self.input.len() => {
                let e = self.err(
                    self.pos,
                    "more messages follow: the input is a Xebu stream, not one document \
                     (decode_stream reads them all; binxml xebu unpack writes each message)",
                );
                self.fail();
                Err(e)
            }
            Ok(ev) => {
                if matches!(ev, Event::EndDocument) {
                    self.state = State::AfterMessage;
                    self.messages += 1;
                    match &mut self.tables {
                        Tables::Local(tb) => tb.commit(),
                        Tables::Shared(tb) => tb.commit(),
                    }
                    if let Some(slot) = self.seq_slot.as_deref_mut() {
                        *slot = self.expected_seq;
                    }
                }
                Ok(Some(ev))
            }
            Err(e) => {
                self.fail();
                Err(e)
            }
        }
    }

    /// The byte offset of the last event read.
    pub(crate) fn last_offset(&self) -> u64 {
        self.last as u64
    }
}

/// A stream decoder over separately delivered messages (one buffer each: a network message, a
/// file): it owns the token state, which survives between messages. A message that fails to
/// decode (or is abandoned half-way) leaves the state as it was after the last good message.
#[derive(Default)]
pub struct XebuStreamDecoder {
    tables: DecoderTables<'static>,
    limits: Limits,
    expected_seq: Option<u64>,
    messages: u64,
}

impl XebuStreamDecoder {
    /// A stream decoder with empty token tables and the default [`Limits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A stream decoder with empty token tables whose messages refuse input beyond `limits`.
    pub fn with_limits(limits: Limits) -> Self {
        XebuStreamDecoder {
            limits,
            ..Default::default()
        }
    }

    /// A decoder for the next message, `msg` holding exactly one message (bytes after its end
    /// are an error). Fetched strings come out owned, literal ones borrowed from `msg`.
    pub fn message<'m>(&'m mut self, msg: &'m [u8]) -> XebuDecoder<'m> {
        self.messages += 1;
        XebuDecoder::shared(
            msg,
            self.limits.clone(),
            &mut self.tables,
            &mut self.expected_seq,
        )
    }

    /// Decodes one whole message into owned events. Trailing bytes after its `EndDocument` are
    /// an error. On any error the token state stays that of the last good message.
    pub fn decode_message(&mut self, msg: &[u8]) -> Result<Vec<Event<'static>>> {
        let mut d = self.message(msg);
        let mut out = Vec::new();
        while let Some(ev) = d.next_event()? {
            out.push(ev.into_owned());
        }
        Ok(out)
    }

    /// Forgets all tokens (a new connection).
    pub fn reset(&mut self) {
        self.tables = DecoderTables::new();
        self.expected_seq = None;
    }

    /// Defined slots per table (namespace, name, value, content).
    pub fn occupancy(&self) -> [usize; 4] {
        self.tables.occupancy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binxml_core::Encoder;

    /// A large message defining far more tokens than there are slots keeps a bounded undo
    /// journal (it was one entry per definition: the decoder grew with the document).
    #[test]
    fn journal_is_bounded_within_a_large_message() {
        let mut enc = crate::XebuEncoder::new(Vec::new());
        let name = |s: &'static str| QName {
            prefix: Cow::Borrowed(""),
            namespace: Cow::Borrowed(""),
            local: Cow::Borrowed(s),
        };
        enc.write_event(&Event::start_document()).unwrap();
        enc.write_event(&Event::StartElement(name("data"))).unwrap();
        for i in 0..20_000 {
            enc.write_event(&Event::StartElement(name("rec"))).unwrap();
            let value = Cow::Owned(format!("{i}"));
            enc.write_event(&Event::Attribute {
                name: name("id"),
                value,
            })
            .unwrap();
            let text = Cow::Owned(format!("Record {i}"));
            enc.write_event(&Event::Characters { text, cdata: false })
                .unwrap();
            enc.write_event(&Event::EndElement).unwrap();
        }
        enc.write_event(&Event::EndElement).unwrap();
        enc.write_event(&Event::EndDocument).unwrap();
        enc.finish().unwrap();
        let bytes = enc.into_inner();
        let mut d = XebuDecoder::new(&bytes);
        let mut most = 0;
        let mut n = 0;
        while d.next_event().unwrap().is_some() {
            let Tables::Local(tb) = &d.tables else {
                unreachable!()
            };
            most = most.max(tb.journal_len());
            n += 1;
        }
        assert_eq!(n, 2 + 2 + 20_000 * 4);
        assert!(
            most <= 4 * crate::tables::SLOTS,
            "journal of {most} entries"
        );
    }
}
