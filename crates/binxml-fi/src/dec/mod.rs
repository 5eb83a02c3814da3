//! The Fast Infoset decoder, over a byte slice ([`FiDecoder`], borrowing strings from it) or a
//! reader ([`FiReadDecoder`], owned strings, memory bounded by the vocabulary).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;

use binxml_core::{
    Decoder, DocType, Error, Event, EventSink, Limits, QName, Result, Typed, XML_NS,
};

use crate::FORMAT;
use crate::algo;
use crate::vocab::Vocabularies;

mod body;
mod header;
mod prim;
mod src;

use src::is_ascii_short;
pub(crate) use src::{ReadSrc, SliceSrc, Src};

// ---------------------------------------------------------------------------------------------
// The decoder proper

/// A non-identifying string as decoded.
enum NiStr<'a> {
    Str(Cow<'a, str>),
    Typed(Typed<'a>),
    Cdata(Cow<'a, str>),
}

#[derive(PartialEq, Clone, Copy)]
enum Phase {
    Header,
    Body,
    Done,
}

#[derive(Clone, Copy)]
enum StrTab {
    Prefix,
    Namespace,
    Local,
    OtherNcname,
    OtherUri,
    AttrValue,
    Chunk,
    OtherString,
}

const TABLE_NAMES: [&str; 8] = [
    "prefix",
    "namespace-name",
    "local-name",
    "other-NCName",
    "other-URI",
    "attribute-value",
    "content-character-chunk",
    "other-string",
];

/// An entry of a name-surrogate table. Names whose parts are all borrowed (the common case)
/// are kept as plain slices, so that handing one out copies three slices and branches once.
enum NameSlot<'a> {
    Borrowed {
        prefix: &'a str,
        namespace: &'a str,
        local: &'a str,
    },
    Owned(QName<'a>),
}

impl<'a> NameSlot<'a> {
    fn new(q: QName<'a>) -> Self {
        match q {
            QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            } => NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            },
            q => NameSlot::Owned(q),
        }
    }

    /// What handing the name out charges to the expansion budget.
    #[inline(always)]
    fn charge_len(&self) -> usize {
        match self {
            NameSlot::Borrowed { prefix, local, .. } => prefix.len() + local.len(),
            NameSlot::Owned(q) => q.prefix.len() + q.local.len(),
        }
    }

    /// Hands the name to `sink` as an element's start: its three slices as they are
    /// ([`EventSink::start_element_in`]), or a clone of an owned name.
    #[inline(always)]
    fn start_into<K: EventSink<'a>>(&self, sink: &mut K) -> Result<()> {
        match self {
            NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            } => sink.start_element_in(prefix, namespace, local),
            NameSlot::Owned(q) => sink.start_element(q.clone()),
        }
    }

    /// Hands the name and `value` to `sink` as an attribute, as [`NameSlot::start_into`].
    #[inline(always)]
    fn attribute_into<K: EventSink<'a>>(&self, sink: &mut K, value: Cow<'a, str>) -> Result<()> {
        match self {
            NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            } => sink.attribute_in(prefix, namespace, local, value),
            NameSlot::Owned(q) => sink.attribute(q.clone(), value),
        }
    }

    /// The name as a `QName`: three slices, or a clone of an owned name.
    #[inline(always)]
    fn qname(&self) -> QName<'a> {
        match self {
            NameSlot::Borrowed {
                prefix,
                namespace,
                local,
            } => QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            },
            NameSlot::Owned(q) => q.clone(),
        }
    }
}

struct Tables<'a> {
    strs: [Vec<Cow<'a, str>>; 8],
    elements: Vec<NameSlot<'a>>,
    attributes: Vec<NameSlot<'a>>,
    alphabets: Vec<Vec<char>>,
    algorithms: Vec<String>,
}

impl<'a> Tables<'a> {
    fn new() -> Self {
        let mut t = Tables {
            strs: Default::default(),
            elements: Vec::new(),
            attributes: Vec::new(),
            alphabets: Vec::new(),
            algorithms: Vec::new(),
        };
        t.strs[StrTab::Prefix as usize].push(Cow::Borrowed("xml"));
        t.strs[StrTab::Namespace as usize].push(Cow::Borrowed(XML_NS));
        t
    }
}

pub(crate) struct Core<'a, S: Src<'a>> {
    src: S,
    t: Tables<'a>,
    limits: Limits,
    /// bytes of strings taken from the tables by index, against `budget`
    expanded: usize,
    budget: usize,
    phase: Phase,
    depth: usize,
    /// pending terminators (the second half of a double terminator)
    terms: u8,
    in_attrs: bool,
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    ns_pos: usize,
    queue: VecDeque<Event<'a>>,
    decls: Vec<Event<'a>>,
    doctype_seen: bool,
    root_seen: bool,
    last: u64,
    shared_vocabs: Option<Arc<Vocabularies>>,
    borrowed_vocabs: Option<&'a Vocabularies>,
    alphabet_cache: [Vec<char>; 2],
    /// Something other than the next body item is due: queued events, namespace attributes,
    /// a pending terminator, the header, or the end. Kept by [`Core::refresh`].
    slow: bool,
}

impl<'a, S: Src<'a>> Core<'a, S> {
    #[inline]
    fn refresh(&mut self) {
        self.slow = !self.queue.is_empty()
            || self.ns_pos < self.ns.len()
            || self.terms > 0
            || self.phase != Phase::Body;
    }

    fn new(src: S, limits: Limits, budget: usize) -> Self {
        Core {
            src,
            t: Tables::new(),
            limits,
            expanded: 0,
            budget,
            phase: Phase::Header,
            depth: 0,
            terms: 0,
            in_attrs: false,
            ns: Vec::new(),
            ns_pos: 0,
            queue: VecDeque::new(),
            decls: Vec::new(),
            doctype_seen: false,
            root_seen: false,
            last: 0,
            shared_vocabs: None,
            borrowed_vocabs: None,
            alphabet_cache: [Vec::new(), Vec::new()],
            slow: true,
        }
    }

    #[cold]
    #[inline(never)]
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::malformed(FORMAT, self.src.pos().saturating_sub(1), msg)
    }

    #[cold]
    #[inline(never)]
    fn err_at(&self, at: u64, msg: impl Into<String>) -> Error {
        Error::malformed(FORMAT, at, msg)
    }
}

// ---------------------------------------------------------------------------------------------
// Public decoders

/// Decodes a Fast Infoset document held in memory. Strings written as UTF-8 literals (and
/// strings of a borrowed external vocabulary) are borrowed, not copied.
pub struct FiDecoder<'a> {
    core: Core<'a, SliceSrc<'a>>,
}

impl<'a> FiDecoder<'a> {
    /// A decoder of the document in `input`, with the default [`Limits`].
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A decoder of the document in `input` that refuses documents beyond `limits` (depth,
    /// string lengths, table entries, decoded bytes per input byte) with an error.
    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        let budget = limits.decoded_budget(input.len());
        let mut core = Core::new(
            SliceSrc {
                data: input,
                pos: 0,
            },
            limits,
            budget,
        );
        // room for the tables that grow with the document (bounded by the input's length)
        let hint = (input.len() / 16).min(1 << 16);
        core.t.strs[StrTab::Chunk as usize].reserve(hint);
        core.t.strs[StrTab::AttrValue as usize].reserve(hint / 2);
        FiDecoder { core }
    }

    /// The external vocabularies this decoder accepts, by URI. A document that references a
    /// vocabulary not in the map is refused.
    pub fn with_vocabularies(mut self, vocabularies: &'a Vocabularies) -> Self {
        self.core.borrowed_vocabs = Some(vocabularies);
        self
    }
}

impl<'a> Decoder<'a> for FiDecoder<'a> {
    #[inline]
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        self.core.next()
    }
    fn offset(&self) -> u64 {
        self.core.last
    }
    fn read_into<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<()> {
        self.core.push(sink)
    }
    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it.
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }
}

/// Decodes a Fast Infoset document from a reader, reading it in 64 KiB blocks: memory is
/// bounded by the vocabulary and the longest string, not by the document.
pub struct FiReadDecoder<R: Read> {
    core: Core<'static, ReadSrc<R>>,
}

impl<R: Read> FiReadDecoder<R> {
    /// A decoder of the document `reader` yields, with the default [`Limits`]. The reader needs no
    /// buffering of its own.
    pub fn new(reader: R) -> Self {
        Self::with_limits(reader, Limits::default())
    }

    /// A decoder of the document `reader` yields that refuses documents beyond `limits` (depth,
    /// string lengths, table entries, decoded bytes per input byte read so far) with an error.
    pub fn with_limits(reader: R, limits: Limits) -> Self {
        // the input length is unknown: the budget is the limits' floor unless unlimited
        let budget = if limits.max_expansion_ratio == 0 {
            usize::MAX
        } else {
            limits.decoded_budget(0)
        };
        let src = ReadSrc {
            r: reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            consumed: 0,
            eof: false,
        };
        let mut core = Core::new(src, limits, budget);
        core.budget = budget;
        FiReadDecoder { core }
    }

    /// The external vocabularies this decoder accepts, by URI. A document that references a
    /// vocabulary not in the map is refused. Their strings are copied into the events.
    pub fn with_vocabularies(mut self, vocabularies: Arc<Vocabularies>) -> Self {
        self.core.shared_vocabs = Some(vocabularies);
        self
    }
}

impl<R: Read> Decoder<'static> for FiReadDecoder<R> {
    fn next_event(&mut self) -> Result<Option<Event<'static>>> {
        let before = self.core.src.consumed;
        let r = self.core.next();
        // the expansion budget grows with the input read so far
        if self.core.limits.max_expansion_ratio != 0 {
            let read = self.core.src.consumed.max(before) as usize;
            self.core.budget = self.core.limits.decoded_budget(read);
        }
        r
    }
    fn offset(&self) -> u64 {
        self.core.last
    }
}
