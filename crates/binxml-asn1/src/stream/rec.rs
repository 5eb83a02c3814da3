//! What a decoder's pass 1 records, and the event stream made from it.

use std::borrow::Cow;
use std::collections::VecDeque;

use binxml_core::{DocType, Error, Event, Format, Limits, Result, XMLNS_NS};

use super::*;
use crate::emit::Emitter;
use crate::value::V;

/// What pass 1 records, PER's and BER's alike: the operations, attributes, inline strings and
/// names, binary blocks and generic values, and the largest table indexes used (checked against
/// the tables once they have been read). Each rule's pass only reads its bits or octets and
/// hands the parts to this. Positions are bit offsets (BER: 8 x the octet offset); errors carry
/// them as bit offsets (PER) or octet offsets (BER).
pub(crate) struct Rec<'a> {
    pub(crate) format: Format,
    /// errors at bit offsets (PER), else at octet offsets (BER)
    pub(crate) bits: bool,
    pub(crate) ops: Vec<Op>,
    pub(crate) attrs: Vec<AttrRec>,
    pub(crate) inline: Vec<Cow<'a, str>>,
    pub(crate) names: Vec<InlineName>,
    pub(crate) bytes: Vec<Cow<'a, [u8]>>,
    pub(crate) values: Vec<V<'a>>,
    /// the largest component-string index used, and where
    pub(crate) max_str: Option<(u64, u64)>,
    /// the largest common-name index used, and where
    pub(crate) max_name: Option<(u64, u64)>,
    pub(crate) max_depth: usize,
    pub(crate) has_dtd: bool,
    /// an element name says same-as-parent-element (the decoder then keeps a stack of the
    /// open elements' namespaces)
    pub(crate) parent_ns_used: bool,
    /// where each operation's item starts (bits), when asked for (`binxml inspect`)
    pub(crate) positions: Option<Vec<u64>>,
    /// where the item being read starts
    pub(crate) mark: u64,
}

impl<'a> Rec<'a> {
    pub(crate) fn new(
        format: Format,
        bits: bool,
        limits: &Limits,
        ops: usize,
        positions: bool,
    ) -> Self {
        Rec {
            format,
            bits,
            ops: Vec::with_capacity(ops),
            attrs: Vec::new(),
            inline: Vec::new(),
            names: Vec::new(),
            bytes: Vec::new(),
            values: Vec::new(),
            max_str: None,
            max_name: None,
            max_depth: limits.max_depth,
            has_dtd: false,
            parent_ns_used: false,
            positions: positions.then(Vec::new),
            mark: 0,
        }
    }

    /// `e` placed at bit offset `at` (BER: at its octet).
    pub(crate) fn at(&self, e: Error, at: u64) -> Error {
        if self.bits {
            e.at_bit(at)
        } else {
            e.at(at / 8)
        }
    }

    #[cold]
    pub(crate) fn too_many(&self, what: &str, at: u64) -> Error {
        self.at(Error::limit(self.format, 0, format!("too many {what}")), at)
    }

    /// `n` as the index of a new item of a list (`what`, for the error at `at`).
    #[inline(always)]
    pub(crate) fn idx(&self, n: usize, what: &str, at: u64) -> Result<u32> {
        if n >= INLINE as usize {
            return Err(self.too_many(what, at));
        }
        Ok(n as u32)
    }

    /// An element at nesting `depth` (1: a root) starts at `at`.
    #[inline]
    pub(crate) fn depth(&self, depth: usize, at: u64) -> Result<()> {
        if depth > self.max_depth {
            return Err(self.at(Error::limit(self.format, 0, "elements nested too deep"), at));
        }
        Ok(())
    }

    /// A component-string index below `INLINE`, read at `at`.
    #[inline(always)]
    pub(crate) fn saw_str(&mut self, i: u64, at: u64) -> Str {
        if self.max_str.is_none_or(|(m, _)| i > m) {
            self.max_str = Some((i, at));
        }
        i as Str
    }

    /// A common-name index below `INLINE`, read at `at`.
    #[inline(always)]
    pub(crate) fn saw_name(&mut self, i: u64, at: u64) -> NameRef {
        if self.max_name.is_none_or(|(m, _)| i > m) {
            self.max_name = Some((i, at));
        }
        i as NameRef
    }

    /// Index `i` (a `what`, read at `at`) fits a [`Str`] or [`NameRef`]; whether its table
    /// holds it is checked at the end.
    #[inline(always)]
    pub(crate) fn fits(&self, i: u64, at: u64, what: &str) -> Result<()> {
        if i >= INLINE as u64 {
            let e = Error::malformed(self.format, 0, format!("{what} {i} outside any table"));
            return Err(self.at(e, at));
        }
        Ok(())
    }

    /// A component-string index read at `at`.
    #[inline(always)]
    pub(crate) fn str_index(&mut self, i: u64, at: u64) -> Result<Str> {
        self.fits(i, at, "component-string-index")?;
        Ok(self.saw_str(i, at))
    }

    /// A common-name index read at `at`.
    #[inline(always)]
    pub(crate) fn common(&mut self, i: u64, at: u64) -> Result<NameRef> {
        self.fits(i, at, "common-name-index")?;
        Ok(self.saw_name(i, at))
    }

    /// The largest index `max` used (a `what`) is in its table of `len` entries.
    pub(crate) fn in_table(&self, max: Option<(u64, u64)>, len: usize, what: &str) -> Result<()> {
        match max {
            Some((i, at)) if i as usize >= len => {
                let msg = format!("{what} {i} outside the table of {len}");
                Err(self.at(Error::malformed(self.format, 0, msg), at))
            }
            _ => Ok(()),
        }
    }

    /// A string written inline (`at`: where the reader is, for the error).
    #[inline(always)]
    pub(crate) fn inline_str(&mut self, s: Cow<'a, str>, at: u64) -> Result<Str> {
        let i = self.idx(self.inline.len(), "inline strings", at)?;
        self.inline.push(s);
        Ok(INLINE | i)
    }

    #[inline]
    pub(crate) fn inline_name(
        &mut self,
        ns: Ns,
        local: Str,
        prefix: Str,
        at: u64,
    ) -> Result<NameRef> {
        let i = self.idx(self.names.len(), "inline names", at)?;
        self.names.push(InlineName { ns, local, prefix });
        Ok(INLINE | i)
    }

    /// A generic value (entity reference, DTD), its index.
    pub(crate) fn value(&mut self, v: V<'a>, at: u64) -> Result<u32> {
        let i = self.idx(self.values.len(), "values", at)?;
        self.values.push(v);
        Ok(i)
    }

    /// Characters' binary block, its operation.
    pub(crate) fn base64(&mut self, b: Cow<'a, [u8]>, at: u64) -> Result<Op> {
        let i = self.idx(self.bytes.len(), "binary blocks", at)?;
        self.bytes.push(b);
        Ok(Op::Base64(i))
    }

    #[inline]
    pub(crate) fn push(&mut self, op: Op) {
        self.ops.push(op);
        self.position();
    }

    /// Notes that the item read next starts at bit `at`.
    #[inline(always)]
    pub(crate) fn mark(&mut self, at: u64) {
        self.mark = at;
    }

    /// Records the mark as the position of the operation just pushed.
    #[inline(always)]
    pub(crate) fn position(&mut self) {
        if let Some(p) = &mut self.positions {
            p.push(self.mark);
        }
    }

    /// An element's start (its attributes' range patched by [`Rec::end`]): its operation.
    #[inline(always)]
    pub(crate) fn start(&mut self, name: NameRef) -> usize {
        let op = self.ops.len();
        self.ops.push(Op::Start {
            name,
            attrs: 0,
            attrs_end: 0,
        });
        self.position();
        op
    }

    /// Where an element's attributes will start (before they are read).
    #[inline(always)]
    pub(crate) fn attrs_mark(&self, at: u64) -> Result<u32> {
        self.idx(self.attrs.len(), "attributes", at)
    }

    #[inline(always)]
    pub(crate) fn attr(&mut self, name: NameRef, value: Str, ns_list: bool, first: bool) {
        self.attrs.push(AttrRec {
            name,
            value,
            ns_list,
            first,
        });
    }

    /// The end of an element without attributes: its start keeps the empty range it was
    /// recorded with, and the attribute list did not grow (its bound was checked where it
    /// last did).
    #[inline(always)]
    pub(crate) fn end_plain(&mut self) {
        self.ops.push(Op::End);
        self.position();
    }

    /// The end of the element whose start is operation `op`, its attributes from `a0` (see
    /// [`Rec::attrs_mark`]) to the last one read.
    #[inline(always)]
    pub(crate) fn end(&mut self, op: usize, name: NameRef, a0: u32, at: u64) -> Result<()> {
        let a1 = self.idx(self.attrs.len(), "attributes", at)?;
        self.ops[op] = Op::Start {
            name,
            attrs: a0,
            attrs_end: a1,
        };
        self.ops.push(Op::End);
        self.position();
        Ok(())
    }

    /// The decoder: the largest indexes checked against the tables (in `e`), the document's
    /// start and declarations queued.
    pub(crate) fn into_stream(
        self,
        mut e: Emitter<'a>,
        ces: Option<V<'a>>,
        standalone: Option<bool>,
        version: Option<V<'a>>,
        notations: Option<V<'a>>,
        unparsed: Option<V<'a>>,
    ) -> Result<Stream<'a>> {
        self.in_table(self.max_str, e.strings.len(), "component-string-index")?;
        self.in_table(self.max_name, e.names.len(), "common-name-index")?;
        e.start(ces, standalone, version)?;
        let mut decls = e.decls(notations, unparsed)?;
        if !self.has_dtd && !decls.is_empty() {
            e.out.push(Event::DocType(DocType::default()));
            e.out.append(&mut decls);
        }
        let pending: VecDeque<Event<'a>> = std::mem::take(&mut e.out).into();
        let xmlns_name = e.names.iter().map(|n| n.0 == XMLNS_NS).collect();
        let borrowed_names = e
            .names
            .iter()
            .map(|n| match n {
                (Cow::Borrowed(ns), Cow::Borrowed(local), Cow::Borrowed(prefix)) => {
                    Some([*ns, *local, *prefix])
                }
                _ => None,
            })
            .collect();
        Ok(Stream {
            e,
            ops: self.ops,
            positions: self.positions.unwrap_or_default(),
            last_position: 0,
            next: 0,
            attrs: self.attrs,
            inline: self.inline,
            names: self.names,
            bytes: self.bytes,
            values: self.values,
            pending,
            ns_stack: Vec::new(),
            track_ns: self.parent_ns_used,
            decls,
            nss: Vec::new(),
            ats: Vec::new(),
            attr_cur: None,
            xmlns_name,
            borrowed_names,
            ended: false,
        })
    }
}
