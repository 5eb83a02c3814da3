//! TAM, the Transaction Array Model (TSF paper, section 4): the tree of a TSF buffer.
//!
//! Each structured unit's contained units are one block of rows, reserved in one step as soon
//! as the unit's count is read (the count is in the buffer before the content). All blocks live
//! in one arena, so a whole document takes a handful of allocations (the arena's growth; it is
//! sized from the input length up front), not one per node. Rows hold offsets into the input:
//! names and values are borrowed, never copied. The effective root (section 4.3) is the block of
//! top-level units: the items of an `n=` root message, or the one unit of a document with the
//! implied `1=`.

use std::borrow::Cow;

use binxml_core::{Decoder, Error, Event, Result};

use crate::TsfOptions;
use crate::events::{EventGen, Source};
use crate::lex::{FORMAT, Lexer, RawName, Unit, UnitKind};

const NONE: u32 = u32::MAX;

const ALLOW_JSON: u32 = 1 << UnitKind::Object as u32
    | 1 << UnitKind::Array as u32
    | 1 << UnitKind::String as u32
    | 1 << UnitKind::Number as u32
    | 1 << UnitKind::Literal as u32;
const ALLOW_XML: u32 = 1 << UnitKind::Element as u32
    | 1 << UnitKind::Text as u32
    | 1 << UnitKind::CData as u32
    | 1 << UnitKind::Comment as u32
    | 1 << UnitKind::ProcessingInstruction as u32
    | 1 << UnitKind::EntityRef as u32;

#[derive(Clone, Copy, Default, Debug)]
struct Row {
    name_off: u32,
    name_len: u32,
    /// Structured: first row of the block. Primitive: offset of the data.
    a: u32,
    /// Structured: count. Primitive: length of the data in bytes.
    b: u32,
    parent: u32,
    kind: u8,
    quoted: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Xml,
    Attrs,
    Json,
}

#[cold]
#[inline(never)]
fn vocabulary_error(ctx: Ctx, kind: UnitKind, off: usize) -> Error {
    let what = match ctx {
        Ctx::Json => "an XML unit inside a JSON value",
        Ctx::Attrs => "an attribute list holds a unit that is not an attribute",
        Ctx::Xml => match kind {
            UnitKind::Attributes => "an attribute list must be the first unit of an element",
            UnitKind::Doctype => "doctype inside an element",
            _ => "a JSON unit in an XML document",
        },
    };
    Error::malformed(FORMAT, off as u64, what)
}

#[cold]
#[inline(never)]
fn depth_error(max: usize, off: usize) -> Error {
    Error::limit(FORMAT, off as u64, format!("nesting deeper than {max}"))
}

struct Level {
    next: u32,
    end: u32,
    start: u32,
    parent: u32,
    ctx: Ctx,
}

/// A TSF document as a tree of rows borrowing from the input buffer.
pub struct Tam<'a> {
    input: &'a str,
    rows: Vec<Row>,
    top: u32,
    root_message: bool,
    json: bool,
    limits: binxml_core::Limits,
}

impl<'a> Tam<'a> {
    /// Builds the tree of a TSF buffer (UTF-8 byte lengths, default limits).
    pub fn parse(input: &'a [u8]) -> Result<Tam<'a>> {
        Self::parse_with(input, TsfOptions::default())
    }

    /// Builds the tree of a TSF buffer with `opts` (length units and limits).
    ///
    /// Errors: malformed input, with its byte offset; a limit exceeded; an input of 4 GiB or more
    /// (rows hold 32-bit offsets).
    pub fn parse_with(input: &'a [u8], opts: TsfOptions) -> Result<Tam<'a>> {
        if input.len() >= NONE as usize {
            return Err(Error::limit(FORMAT, 0, "TAM holds inputs under 4 GiB"));
        }
        let mut lex = Lexer::new(input, opts.utf16_lengths)?;
        lex.max_str = opts.limits.max_string_len;
        let max_depth = opts.limits.max_depth;
        let first = lex.raw(0, true)?;
        let root_message = first.kind == UnitKind::Attributes;
        let json = (1u32 << first.kind as u32) & ALLOW_JSON != 0;
        let top = if root_message { first.n } else { 1 } as u32;
        // About one unit per 6 bytes in practice (the paper's files: 6 to 37 bytes per unit).
        let mut rows: Vec<Row> = Vec::with_capacity(input.len() / 6 + 4);
        rows.resize(top as usize, Row::default());
        let mut pos = if root_message { first.end } else { 0 };
        let mut stack: Vec<Level> = Vec::with_capacity(32);
        // The current block, in locals.
        let (mut next, mut end, mut start, mut parent) = (0u32, top, 0u32, NONE);
        let mut ctx = if json { Ctx::Json } else { Ctx::Xml };
        loop {
            if next == end {
                match stack.pop() {
                    Some(l) => {
                        (next, end, start, parent, ctx) = (l.next, l.end, l.start, l.parent, l.ctx);
                        continue;
                    }
                    None => break,
                }
            }
            let r = next;
            next += 1;
            let u = lex.raw(pos, ctx == Ctx::Json)?;
            pos = u.end;
            let mut kind = u.kind;
            let allowed = match ctx {
                Ctx::Json => ALLOW_JSON,
                Ctx::Xml => ALLOW_XML,
                Ctx::Attrs => 1 << UnitKind::Text as u32,
            };
            if (1u32 << kind as u32) & allowed == 0 {
                let ok = ctx == Ctx::Xml
                    && match kind {
                        UnitKind::Doctype => parent == NONE,
                        UnitKind::Attributes => parent != NONE && r == start,
                        _ => false,
                    };
                if !ok {
                    return Err(vocabulary_error(ctx, kind, u.off));
                }
            }
            if ctx == Ctx::Attrs {
                kind = UnitKind::Attribute;
            }
            let mut row = Row {
                name_off: u.name_start as u32,
                name_len: (u.name_end - u.name_start) as u32,
                a: u.data_start as u32,
                b: (u.end - u.data_start) as u32,
                parent,
                kind: kind as u8,
                quoted: u.quoted,
            };
            if kind.is_structured() {
                let first = rows.len() as u32;
                let count = u.n as u32;
                row.a = first;
                row.b = count;
                rows[r as usize] = row;
                if kind == UnitKind::Attributes {
                    // An attribute list holds only attributes, which hold nothing: its block is
                    // filled right away, in order.
                    rows.reserve(count as usize);
                    for _ in 0..count {
                        let a = lex.raw(pos, false)?;
                        if a.kind != UnitKind::Text {
                            return Err(vocabulary_error(Ctx::Attrs, a.kind, a.off));
                        }
                        pos = a.end;
                        rows.push(Row {
                            name_off: a.name_start as u32,
                            name_len: (a.name_end - a.name_start) as u32,
                            a: a.data_start as u32,
                            b: (a.end - a.data_start) as u32,
                            parent: r,
                            kind: UnitKind::Attribute as u8,
                            quoted: a.quoted,
                        });
                    }
                } else if count > 0 {
                    if stack.len() >= max_depth {
                        return Err(depth_error(max_depth, u.off));
                    }
                    rows.resize(first as usize + count as usize, Row::default());
                    stack.push(Level {
                        next,
                        end,
                        start,
                        parent,
                        ctx,
                    });
                    (next, end, start, parent) = (first, first + count, first, r);
                    ctx = match kind {
                        UnitKind::Element => Ctx::Xml,
                        UnitKind::Attributes => Ctx::Attrs,
                        _ => Ctx::Json,
                    };
                }
            } else {
                rows[r as usize] = row;
            }
        }
        lex.check_end(pos)?;
        Ok(Tam {
            input: lex.input,
            rows,
            top,
            root_message,
            json,
            limits: opts.limits,
        })
    }

    /// The input buffer (checked UTF-8).
    pub fn input(&self) -> &'a str {
        self.input
    }

    /// The number of units in the tree.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the tree has no units.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// True for a TSF serialization of JSON.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// The top-level units (section 4.3's effective root node).
    pub fn items(&self) -> Units<'_, 'a> {
        Units {
            tam: self,
            next: 0,
            end: self.top,
        }
    }

    /// The document's root: its root element (XML) or its value (JSON).
    pub fn root(&self) -> Option<Node<'_, 'a>> {
        self.items().find(|n| named_kind(n.kind()))
    }

    /// The unit at a row index (as given by [`Node::index`]).
    pub fn node(&self, index: usize) -> Option<Node<'_, 'a>> {
        (index < self.rows.len()).then_some(Node {
            tam: self,
            idx: index as u32,
        })
    }

    /// The document as events (the same events the streaming [`crate::TsfDecoder`] gives).
    pub fn events(&self) -> TamDecoder<'_, 'a> {
        TamDecoder {
            inner: EventGen::new(
                TamSource {
                    tam: self,
                    stack: Vec::with_capacity(32),
                    descend: None,
                    started: false,
                },
                self.limits.clone(),
            ),
        }
    }

    #[inline]
    fn row(&self, i: u32) -> &Row {
        &self.rows[i as usize]
    }

    #[inline]
    fn str_at(&self, off: u32, len: u32) -> &'a str {
        &self.input[off as usize..off as usize + len as usize]
    }

    fn unit(&self, i: u32) -> Unit<'a> {
        let r = *self.row(i);
        let kind = UnitKind::from_u8(r.kind);
        let name = RawName {
            raw: self.str_at(r.name_off, r.name_len),
            quoted: r.quoted,
        };
        if kind.is_structured() {
            Unit {
                kind,
                name,
                count: r.b as usize,
                value: "",
                off: r.name_off as usize,
            }
        } else {
            Unit {
                kind,
                name,
                count: 0,
                value: self.str_at(r.a, r.b),
                off: r.name_off as usize,
            }
        }
    }
}

/// One unit of a [`Tam`].
#[derive(Clone, Copy)]
pub struct Node<'t, 'a> {
    tam: &'t Tam<'a>,
    idx: u32,
}

impl std::fmt::Debug for Node<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node({} {:?} {:?})", self.idx, self.kind(), self.name())
    }
}

impl PartialEq for Node<'_, '_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.tam, other.tam) && self.idx == other.idx
    }
}

impl<'t, 'a> Node<'t, 'a> {
    #[inline]
    fn row(&self) -> &'t Row {
        &self.tam.rows[self.idx as usize]
    }

    /// The row index (stable for the tree's life).
    pub fn index(&self) -> usize {
        self.idx as usize
    }

    /// What the unit is.
    pub fn kind(&self) -> UnitKind {
        UnitKind::from_u8(self.row().kind)
    }

    /// Whether the unit is an element.
    pub fn is_element(&self) -> bool {
        self.kind() == UnitKind::Element
    }

    /// The unit's name, `\` escapes of the `"` form removed (borrowed unless it had escapes).
    pub fn name(&self) -> Cow<'a, str> {
        let r = self.row();
        RawName {
            raw: self.tam.str_at(r.name_off, r.name_len),
            quoted: r.quoted,
        }
        .get()
    }

    /// True when the unit's name equals `name`.
    pub fn has_name(&self, name: &str) -> bool {
        let r = self.row();
        let raw = self.tam.str_at(r.name_off, r.name_len);
        if !r.quoted {
            raw == name
        } else {
            RawName { raw, quoted: true }.get() == name
        }
    }

    /// A primitive unit's data ("" for structured units).
    pub fn value(&self) -> &'a str {
        let r = self.row();
        if self.kind().is_structured() {
            ""
        } else {
            self.tam.str_at(r.a, r.b)
        }
    }

    /// The number of units a structured unit contains (0 for primitive units).
    pub fn len(&self) -> usize {
        if self.kind().is_structured() {
            self.row().b as usize
        } else {
            0
        }
    }

    /// Whether the unit contains no units (always true of primitive units).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every unit this one contains, the attribute list included.
    pub fn units(&self) -> Units<'t, 'a> {
        let r = self.row();
        if self.kind().is_structured() {
            Units {
                tam: self.tam,
                next: r.a,
                end: r.a + r.b,
            }
        } else {
            Units {
                tam: self.tam,
                next: 0,
                end: 0,
            }
        }
    }

    fn attr_list(&self) -> Option<Node<'t, 'a>> {
        if self.kind() != UnitKind::Element {
            return None;
        }
        self.units()
            .next()
            .filter(|n| n.kind() == UnitKind::Attributes)
    }

    /// The content: the contained units less an element's attribute list.
    pub fn children(&self) -> Units<'t, 'a> {
        let mut u = self.units();
        if self.attr_list().is_some() {
            u.next += 1;
        }
        u
    }

    /// An element's attributes (units of kind [`UnitKind::Attribute`]: name and value).
    pub fn attributes(&self) -> Units<'t, 'a> {
        match self.kind() {
            UnitKind::Attributes => self.units(),
            _ => match self.attr_list() {
                Some(l) => l.units(),
                None => Units {
                    tam: self.tam,
                    next: 0,
                    end: 0,
                },
            },
        }
    }

    /// The local part of an XML name (after the prefix's colon); a JSON member's whole name.
    pub fn local_name(&self) -> Cow<'a, str> {
        let n = self.name();
        if !matches!(self.kind(), UnitKind::Element | UnitKind::Attribute) {
            return n;
        }
        match n {
            Cow::Borrowed(s) => Cow::Borrowed(s.rsplit(':').next().unwrap_or(s)),
            Cow::Owned(s) => Cow::Owned(s.rsplit(':').next().unwrap_or(&s).to_string()),
        }
    }

    /// True when `name` is the unit's name as written (`ns:person`) or, for XML names and a
    /// `name` without a colon, its local part (`person`), as in binxml-tree.
    pub fn matches(&self, name: &str) -> bool {
        if self.has_name(name) {
            return true;
        }
        matches!(self.kind(), UnitKind::Element | UnitKind::Attribute)
            && !name.contains(':')
            && self.local_name() == name
    }

    /// The value of the attribute named `name` (see [`Node::matches`]).
    pub fn attribute(&self, name: &str) -> Option<&'a str> {
        self.attributes()
            .find(|a| a.matches(name))
            .map(|a| a.value())
    }

    /// The child elements (or, for a JSON object or array, its values).
    pub fn elements(&self) -> impl Iterator<Item = Node<'t, 'a>> + use<'t, 'a> {
        self.children().filter(|c| named_kind(c.kind()))
    }

    /// Character data: a primitive unit's data, or the text and CDATA children of an element
    /// joined (borrowed when there is at most one).
    pub fn text(&self) -> Cow<'a, str> {
        if !self.kind().is_structured() {
            return Cow::Borrowed(self.value());
        }
        let mut out: Option<Cow<'a, str>> = None;
        for c in self.children() {
            if matches!(c.kind(), UnitKind::Text | UnitKind::CData) {
                out = Some(match out {
                    None => Cow::Borrowed(c.value()),
                    Some(prev) => Cow::Owned(prev.into_owned() + c.value()),
                });
            }
        }
        out.unwrap_or(Cow::Borrowed(""))
    }

    /// The first child element (or JSON member) named `name` (see [`Node::matches`]).
    pub fn child(&self, name: &str) -> Option<Node<'t, 'a>> {
        self.children_named(name).next()
    }

    /// The child elements (or JSON members) named `name`.
    pub fn children_named<'n>(
        &self,
        name: &'n str,
    ) -> impl Iterator<Item = Node<'t, 'a>> + use<'t, 'a, 'n> {
        self.children()
            .filter(move |c| named_kind(c.kind()) && c.matches(name))
    }

    /// The first descendant element (or JSON member) named `name`, in document order.
    pub fn find(&self, name: &str) -> Option<Node<'t, 'a>> {
        self.find_all(name).next()
    }

    /// Every descendant element (or JSON member) named `name`, in document order.
    pub fn find_all<'n>(
        &self,
        name: &'n str,
    ) -> impl Iterator<Item = Node<'t, 'a>> + use<'t, 'a, 'n> {
        self.descendants()
            .filter(move |n| named_kind(n.kind()) && n.matches(name))
    }

    /// Every unit below this one in document order (attribute lists and attributes included).
    pub fn descendants(&self) -> Descendants<'t, 'a> {
        let mut stack = Vec::new();
        let u = self.units();
        if u.next < u.end {
            stack.push((u.next, u.end));
        }
        Descendants {
            tam: self.tam,
            stack,
        }
    }

    /// The structured unit containing this one (`None` at top level).
    pub fn parent(&self) -> Option<Node<'t, 'a>> {
        let p = self.row().parent;
        (p != NONE).then_some(Node {
            tam: self.tam,
            idx: p,
        })
    }
}

fn named_kind(k: UnitKind) -> bool {
    matches!(
        k,
        UnitKind::Element
            | UnitKind::Object
            | UnitKind::Array
            | UnitKind::String
            | UnitKind::Number
            | UnitKind::Literal
    )
}

/// The units of one block.
#[derive(Clone)]
pub struct Units<'t, 'a> {
    tam: &'t Tam<'a>,
    next: u32,
    end: u32,
}

impl<'t, 'a> Iterator for Units<'t, 'a> {
    type Item = Node<'t, 'a>;
    #[inline]
    fn next(&mut self) -> Option<Node<'t, 'a>> {
        if self.next < self.end {
            self.next += 1;
            Some(Node {
                tam: self.tam,
                idx: self.next - 1,
            })
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Units<'_, '_> {}

impl DoubleEndedIterator for Units<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.next < self.end {
            self.end -= 1;
            Some(Node {
                tam: self.tam,
                idx: self.end,
            })
        } else {
            None
        }
    }
}

/// Pre-order walk below a unit.
pub struct Descendants<'t, 'a> {
    tam: &'t Tam<'a>,
    stack: Vec<(u32, u32)>,
}

impl<'t, 'a> Iterator for Descendants<'t, 'a> {
    type Item = Node<'t, 'a>;
    fn next(&mut self) -> Option<Node<'t, 'a>> {
        loop {
            let top = self.stack.last_mut()?;
            if top.0 == top.1 {
                self.stack.pop();
                continue;
            }
            let i = top.0;
            top.0 += 1;
            let r = self.tam.row(i);
            if UnitKind::from_u8(r.kind).is_structured() && r.b > 0 {
                self.stack.push((r.a, r.a + r.b));
            }
            return Some(Node {
                tam: self.tam,
                idx: i,
            });
        }
    }
}

/// Units of a TAM in document order, for the event generator.
pub(crate) struct TamSource<'t, 'a> {
    tam: &'t Tam<'a>,
    stack: Vec<(u32, u32)>,
    descend: Option<(u32, u32)>,
    started: bool,
}

impl<'a> Source<'a> for TamSource<'_, 'a> {
    fn unit(&mut self, _json: bool) -> Result<Unit<'a>> {
        if !self.started {
            self.started = true;
            self.stack.push((0, self.tam.top));
            if self.tam.root_message {
                return Ok(Unit {
                    kind: UnitKind::Attributes,
                    name: RawName::NONE,
                    count: self.tam.top as usize,
                    value: "",
                    off: 0,
                });
            }
        }
        if let Some(d) = self.descend.take() {
            self.stack.push(d);
        }
        loop {
            let Some(top) = self.stack.last_mut() else {
                return Err(Error::malformed(
                    FORMAT,
                    self.tam.input.len() as u64,
                    "no more units",
                ));
            };
            if top.0 < top.1 {
                let i = top.0;
                top.0 += 1;
                let r = self.tam.row(i);
                if UnitKind::from_u8(r.kind).is_structured() && r.b > 0 {
                    self.descend = Some((r.a, r.a + r.b));
                }
                return Ok(self.tam.unit(i));
            }
            self.stack.pop();
        }
    }

    fn end(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A TAM's document as events (borrowing from the TSF buffer).
pub struct TamDecoder<'t, 'a> {
    inner: EventGen<'a, TamSource<'t, 'a>>,
}

impl<'a> Decoder<'a> for TamDecoder<'_, 'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        self.inner.next_event()
    }
    fn offset(&self) -> u64 {
        self.inner.offset()
    }
}
