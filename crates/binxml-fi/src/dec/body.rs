//! The decoder's body: elements, attributes, character chunks and the other items, pulled
//! ([`Core::next`]) or pushed into a sink ([`Core::push`]).

use super::*;

impl<'a, S: Src<'a>> Core<'a, S> {
    // ---- body ----

    #[cold]
    #[inline(never)]
    pub(super) fn too_deep(&self) -> Error {
        Error::limit(
            FORMAT,
            self.src.pos() - 1,
            format!("elements nested deeper than {}", self.limits.max_depth),
        )
    }

    /// A literal element or attribute name, added to its name-surrogate table. The usual name
    /// (all three parts borrowed) goes into the table as slices and comes back out of them:
    /// no `QName` clone, no second pass over its parts (documents that repeat a literal name
    /// on many elements pay this on each).
    #[inline(never)]
    pub(super) fn literal_name(&mut self, attr: bool, pn: u8) -> Result<QName<'a>> {
        let q = self.literal_qname(pn)?;
        let t = if attr {
            &self.t.attributes
        } else {
            &self.t.elements
        };
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(self.table_full());
        }
        let (slot, q) = match q {
            QName {
                prefix: Cow::Borrowed(prefix),
                namespace: Cow::Borrowed(namespace),
                local: Cow::Borrowed(local),
            } => (
                NameSlot::Borrowed {
                    prefix,
                    namespace,
                    local,
                },
                QName {
                    prefix: Cow::Borrowed(prefix),
                    namespace: Cow::Borrowed(namespace),
                    local: Cow::Borrowed(local),
                },
            ),
            q => (NameSlot::Owned(q.clone()), q),
        };
        if attr {
            self.t.attributes.push(slot);
        } else {
            self.t.elements.push(slot);
        }
        Ok(q)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn table_full(&self) -> Error {
        Error::limit(FORMAT, self.src.pos(), "a name-surrogate table is full")
    }

    /// The namespace attributes of an element (after its `001110` octet), up to the
    /// terminator; returns the octet that starts the element's name.
    #[inline(never)]
    pub(super) fn namespace_attributes(&mut self) -> Result<u8> {
        self.ns.clear();
        self.ns_pos = 0;
        loop {
            let c = self.src.byte()?;
            if c == 0xF0 {
                break;
            }
            if c & 0xFC != 0xCC {
                return Err(self.err(format!("bad namespace-attribute octet {c:#04x}")));
            }
            let prefix = if c & 2 != 0 {
                self.ident(StrTab::Prefix)?
            } else {
                Cow::Borrowed("")
            };
            let uri = if c & 1 != 0 {
                self.ident(StrTab::Namespace)?
            } else {
                Cow::Borrowed("")
            };
            self.ns.push((prefix, uri));
        }
        self.slow = !self.ns.is_empty();
        let nb = self.src.byte()?;
        if nb & 0xC0 != 0 {
            return Err(self.err("padding bits set before a qualified name"));
        }
        Ok(nb)
    }

    /// A literal qualified name (C.18 / C.17 after the `1111`/`11110` marker), `pn` = flags.
    #[inline(always)]
    pub(super) fn literal_qname(&mut self, pn: u8) -> Result<QName<'a>> {
        let prefix = if pn & 2 != 0 {
            self.ident(StrTab::Prefix)?
        } else {
            Cow::Borrowed("")
        };
        let namespace = if pn & 1 != 0 {
            self.ident(StrTab::Namespace)?
        } else {
            Cow::Borrowed("")
        };
        if pn == 2 {
            return Err(self.err("a qualified name with a prefix needs a namespace name"));
        }
        let local = self.ident(StrTab::Local)?;
        Ok(QName {
            prefix,
            namespace,
            local,
        })
    }

    #[inline(always)]
    pub(super) fn name_get(&mut self, attr: bool, i: u32) -> Result<QName<'a>> {
        let k = self.name_slot(attr, i)?;
        let t = if attr {
            &self.t.attributes
        } else {
            &self.t.elements
        };
        Ok(t[k].qname())
    }

    /// The position in its name table of the name with index `i` (charged to the expansion
    /// budget). The push loop builds the `QName` from the slot at the sink call, so that a
    /// batch writes it straight into the event instead of copying it through the returns.
    #[inline(always)]
    pub(super) fn name_slot(&mut self, attr: bool, i: u32) -> Result<usize> {
        let t = if attr {
            &self.t.attributes
        } else {
            &self.t.elements
        };
        match t.get(i as usize - 1) {
            Some(slot) => {
                let n = slot.charge_len();
                self.charge(n)?;
                Ok(i as usize - 1)
            }
            None => Err(self.err(format!(
                "index {i} past the end of the {} table ({} entries)",
                if attr {
                    "attribute-name"
                } else {
                    "element-name"
                },
                t.len()
            ))),
        }
    }

    #[inline(always)]
    pub(super) fn element(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        Ok(Some(Event::StartElement(self.element_name(b)?)))
    }

    /// An element item's name (and its namespace attributes, queued), first octet `b`.
    #[inline(always)]
    pub(super) fn element_name(&mut self, b: u8) -> Result<QName<'a>> {
        let nb = self.element_head(b)?;
        let q = if nb & 0x3C == 0x3C {
            self.literal_name(false, nb & 3)?
        } else {
            let i = self.int_3rd(nb)?;
            self.name_get(false, i)?
        };
        self.element_opened(b);
        Ok(q)
    }

    /// An element item up to its name: the depth limit and its namespace attributes (queued);
    /// returns the octet that starts the name.
    #[inline(always)]
    pub(super) fn element_head(&mut self, b: u8) -> Result<u8> {
        if self.depth >= self.limits.max_depth {
            return Err(self.too_deep());
        }
        if b & 0x3C == 0x38 {
            return self.namespace_attributes();
        }
        Ok(b)
    }

    /// The element item with first octet `b` has been read up to its attributes.
    #[inline(always)]
    pub(super) fn element_opened(&mut self, b: u8) {
        self.depth += 1;
        self.in_attrs = b & 0x40 != 0;
        self.root_seen = true;
    }

    #[inline(always)]
    pub(super) fn attribute(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        let (name, value) = self.attribute_parts(b)?;
        Ok(Some(Event::Attribute { name, value }))
    }

    /// An attribute's name and value, first octet `b`.
    #[inline(always)]
    pub(super) fn attribute_parts(&mut self, b: u8) -> Result<(QName<'a>, Cow<'a, str>)> {
        let name = if b & 0x7C == 0x78 {
            self.literal_name(true, b & 3)?
        } else if b & 0x70 == 0x70 {
            return Err(self.err(format!("bad attribute octet {b:#04x}")));
        } else {
            let i = self.int_2nd(b)?;
            self.name_get(true, i)?
        };
        let value = self.attribute_value()?;
        Ok((name, value))
    }

    /// An attribute's value (after its name).
    #[inline(always)]
    pub(super) fn attribute_value(&mut self) -> Result<Cow<'a, str>> {
        let b = self.src.byte()?;
        Ok(if b & 0x80 != 0 && b != 0xFF {
            let i = self.int_2nd(b)?;
            self.table_get(StrTab::AttrValue, i)?
        } else if b & 0xB0 == 0 {
            // a UTF-8 literal
            let len = self.len_5th(b)?;
            let v = self.utf8(len)?;
            if b & 0x40 != 0 {
                self.table_add(StrTab::AttrValue, v.clone())?;
            }
            v
        } else {
            match self.nistring_b(b, StrTab::AttrValue)? {
                NiStr::Str(s) | NiStr::Cdata(s) => s,
                NiStr::Typed(t) => Cow::Owned(t.lexical()),
            }
        })
    }

    /// Whether a character-chunk item with first octet `b` is plain text: an index, or a
    /// UTF-8 literal ([`Core::chunk_plain`]).
    #[inline(always)]
    pub(super) fn chunk_is_plain(b: u8) -> bool {
        b & 0x20 != 0 || b & 0x0C == 0
    }

    /// A character chunk by index or as a UTF-8 literal, first octet `b`.
    #[inline(always)]
    pub(super) fn chunk_plain(&mut self, b: u8) -> Result<Cow<'a, str>> {
        if b & 0x20 != 0 {
            let i = self.int_4th(b)?;
            return self.table_get(StrTab::Chunk, i);
        }
        let len = self.len_7th(b)?;
        let text = self.utf8(len)?;
        if b & 0x10 != 0 {
            self.table_add(StrTab::Chunk, text.clone())?;
        }
        Ok(text)
    }

    #[inline(always)]
    pub(super) fn chunk(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        if Self::chunk_is_plain(b) {
            return Ok(Some(Event::Characters {
                text: self.chunk_plain(b)?,
                cdata: false,
            }));
        }
        let add = b & 0x10 != 0;
        let v = match (b >> 2) & 3 {
            1 => {
                let len = self.len_7th(b)?;
                NiStr::Str(self.utf16(len)?)
            }
            k => {
                let b2 = self.src.byte()?;
                let wire = (b & 0x03) << 6 | b2 >> 2;
                let len = self.len_7th(b2)?;
                if k == 2 {
                    NiStr::Str(self.alphabet_string(wire, len)?)
                } else {
                    self.algorithm_data(wire, len)?
                }
            }
        };
        Ok(Some(match v {
            NiStr::Str(text) => {
                if add {
                    self.table_add(StrTab::Chunk, text.clone())?;
                }
                Event::Characters { text, cdata: false }
            }
            NiStr::Cdata(text) => {
                if add {
                    self.table_add(StrTab::Chunk, text.clone())?;
                }
                Event::Characters { text, cdata: true }
            }
            NiStr::Typed(t) => {
                if add {
                    self.table_add(StrTab::Chunk, Cow::Owned(t.lexical()))?;
                }
                Event::Typed(t)
            }
        }))
    }

    #[inline(always)]
    pub(super) fn end_of_level(&mut self) -> Result<Option<Event<'a>>> {
        if self.depth > 0 {
            self.depth -= 1;
            Ok(Some(Event::EndElement))
        } else {
            self.end_of_document()
        }
    }

    #[inline(never)]
    pub(super) fn end_of_document(&mut self) -> Result<Option<Event<'a>>> {
        {
            if self.terms > 0 {
                return Err(self.err("terminator after the end of the document"));
            }
            if !self.root_seen {
                return Err(self.err("document without a document element"));
            }
            self.phase = Phase::Done;
            self.slow = true;
            if !self.src.at_end()? {
                return Err(Error::malformed(
                    FORMAT,
                    self.src.pos(),
                    "data after the end of the document",
                ));
            }
            Ok(Some(Event::EndDocument))
        }
    }

    pub(super) fn doctype(&mut self, b: u8) -> Result<Event<'a>> {
        if self.doctype_seen || self.root_seen {
            return Err(self.err("document type declaration in the wrong place"));
        }
        self.doctype_seen = true;
        let system_id = if b & 2 != 0 {
            Some(self.ident(StrTab::OtherUri)?)
        } else {
            None
        };
        let public_id = if b & 1 != 0 {
            Some(self.ident(StrTab::OtherUri)?)
        } else {
            None
        };
        // its children: processing instructions of the internal subset
        let mut subset = String::new();
        loop {
            let c = self.src.byte()?;
            match c {
                0xE1 => {
                    let target = self.ident(StrTab::OtherNcname)?;
                    let data = self.nistring_text(StrTab::OtherString)?;
                    subset.push_str("<?");
                    subset.push_str(&target);
                    if !data.is_empty() {
                        subset.push(' ');
                        subset.push_str(&data);
                    }
                    subset.push_str("?>");
                }
                0xF0 => break,
                0xFF => {
                    self.terms += 1;
                    break;
                }
                _ => {
                    return Err(
                        self.err(format!("bad octet {c:#04x} in a document type declaration"))
                    );
                }
            }
        }
        let dt = DocType {
            name: Cow::Borrowed(""),
            public_id,
            system_id,
            internal_subset: if subset.is_empty() {
                None
            } else {
                Some(Cow::Owned(subset))
            },
        };
        let decls = std::mem::take(&mut self.decls);
        self.queue.extend(decls);
        self.refresh();
        Ok(Event::DocType(dt))
    }

    #[inline(always)]
    pub(super) fn next(&mut self) -> Result<Option<Event<'a>>> {
        if self.slow {
            return self.next_slow();
        }
        self.last = self.src.pos();
        self.body_item()
    }

    #[inline(never)]
    pub(super) fn next_slow(&mut self) -> Result<Option<Event<'a>>> {
        if let Some(e) = self.queue.pop_front() {
            self.refresh();
            return Ok(Some(e));
        }
        if self.ns_pos < self.ns.len() {
            let (p, u) = &self.ns[self.ns_pos];
            let e = Event::Namespace {
                prefix: p.clone(),
                uri: u.clone(),
            };
            self.ns_pos += 1;
            if self.ns_pos == self.ns.len() {
                self.ns.clear();
                self.ns_pos = 0;
            }
            self.refresh();
            return Ok(Some(e));
        }
        match self.phase {
            Phase::Done => return Ok(None),
            Phase::Header => {
                self.budget = self.budget.max(1);
                let e = self.header()?;
                self.phase = Phase::Body;
                self.refresh();
                return Ok(Some(e));
            }
            Phase::Body => {}
        }
        self.last = self.src.pos();
        if self.terms > 0 {
            self.terms -= 1;
            let r = self.end_of_level();
            self.refresh();
            return r;
        }
        self.refresh();
        self.body_item()
    }

    /// The next item of the body: no event is queued and no terminator pending.
    #[inline(always)]
    pub(super) fn body_item(&mut self) -> Result<Option<Event<'a>>> {
        if self.in_attrs {
            let b = self.src.byte()?;
            if b & 0x80 == 0 {
                return self.attribute(b);
            }
            self.in_attrs = false;
            match b {
                0xF0 => {}
                0xFF => return self.end_of_level(),
                _ => return Err(self.err(format!("bad octet {b:#04x} in an attribute list"))),
            }
            self.last = self.src.pos();
        }
        let b = self.src.byte()?;
        self.item(b)
    }

    /// A body item (not an attribute) whose first octet `b` has been read.
    #[inline(always)]
    pub(super) fn item(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        // tests in order of frequency (conditional branches, not a jump table)
        if b < 0x80 {
            if self.depth == 0 {
                if self.root_seen {
                    return Err(self.err("a second document element"));
                }
                if !self.decls.is_empty() {
                    return self.root_after_declarations(b);
                }
            }
            self.element(b)
        } else if b < 0xC0 {
            if self.depth == 0 {
                return Err(self.err("character data outside the document element"));
            }
            self.chunk(b)
        } else if b == 0xF0 {
            self.end_of_level()
        } else if b == 0xFF {
            self.terms += 1;
            self.slow = true;
            self.end_of_level()
        } else {
            self.rare_item(b)
        }
    }

    /// Push decoding ([`Decoder::read_into`]): element starts and ends, attributes and plain
    /// text go to the sink as their parts; everything else (and every state of the slow flag)
    /// goes through the pull path's functions and reaches the sink as an event. The same
    /// items in the same order as [`Core::next`].
    #[inline(always)]
    pub(super) fn push<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<()> {
        loop {
            // between items, every state in `self`: a later call resumes here
            if sink.full() {
                return Ok(());
            }
            if self.slow {
                match self.next_slow()? {
                    Some(ev) => {
                        sink.dispatch(ev)?;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            if self.in_attrs {
                if !self.push_attributes(sink)? {
                    continue;
                }
            } else if self.depth > 0 {
                if self.push_content(sink)? {
                    return Ok(());
                }
                continue;
            }
            self.last = self.src.pos();
            let b = self.src.byte()?;
            match self.item(b)? {
                Some(ev) => sink.dispatch(ev)?,
                None => return Ok(()),
            }
        }
    }

    /// Push decoding inside an element, where almost all the work is: element starts (with
    /// their attributes), plain text and element ends go to the sink as parts without passing
    /// through [`Core::push`]'s state tests. Returns to it (`Ok(false)`) when the slow flag is
    /// set, the depth falls to 0, an element's namespace attributes must come first or the
    /// sink is full; `Ok(true)` when the document ended. Requires `!slow`, `!in_attrs` and `depth > 0`.
    #[inline(always)]
    pub(super) fn push_content<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<bool> {
        loop {
            if sink.full() {
                return Ok(false);
            }
            self.last = self.src.pos();
            let b = self.src.byte()?;
            if b < 0x80 {
                let nb = self.element_head(b)?;
                if nb & 0x3C == 0x3C {
                    let name = self.literal_name(false, nb & 3)?;
                    self.element_opened(b);
                    sink.start_element(name)?;
                } else {
                    // the name built from its slot at the call (`Core::name_slot`)
                    let i = self.int_3rd(nb)?;
                    let k = self.name_slot(false, i)?;
                    self.element_opened(b);
                    self.t.elements[k].start_into(sink)?;
                }
                if self.slow {
                    // namespace attributes are queued: they go before the attributes
                    return Ok(false);
                }
                if self.in_attrs && (!self.push_attributes(sink)? || self.depth == 0) {
                    return Ok(false);
                }
                continue;
            }
            if b < 0xC0 && Self::chunk_is_plain(b) {
                let text = self.chunk_plain(b)?;
                sink.text(text)?;
                continue;
            }
            if b == 0xF0 {
                self.depth -= 1;
                sink.end_element()?;
                if self.depth == 0 {
                    return Ok(false);
                }
                continue;
            }
            if b == 0xFF && self.depth >= 2 {
                // a double terminator ending two elements (the last child's end and its
                // parent's): both ends here, not through a pending terminator
                self.depth -= 2;
                sink.end_element()?;
                sink.end_element()?;
                if self.depth == 0 {
                    return Ok(false);
                }
                continue;
            }
            match self.item(b)? {
                Some(ev) => sink.dispatch(ev)?,
                None => return Ok(true),
            }
            if self.slow || self.in_attrs || self.depth == 0 {
                return Ok(false);
            }
        }
    }

    /// The attributes of the element just started, up to the terminator that ends them (which
    /// may also end the element). Returns `Ok(true)` with `in_attrs` cleared, or `Ok(false)` if
    /// the slow flag was set on the way.
    #[inline(always)]
    pub(super) fn push_attributes<K: EventSink<'a>>(&mut self, sink: &mut K) -> Result<bool> {
        loop {
            self.last = self.src.pos();
            let b = self.src.byte()?;
            if b & 0x80 == 0 {
                if b & 0x70 == 0x70 {
                    // literal names (and bad octets)
                    let (name, value) = self.attribute_parts(b)?;
                    sink.attribute(name, value)?;
                } else {
                    // the name built from its slot at the call (`Core::name_slot`)
                    let i = self.int_2nd(b)?;
                    let k = self.name_slot(true, i)?;
                    let value = self.attribute_value()?;
                    self.t.attributes[k].attribute_into(sink, value)?;
                }
                continue;
            }
            self.in_attrs = false;
            match b {
                0xF0 => return Ok(true),
                0xFF if self.depth > 0 => {
                    // ends the attributes and the element (an empty element with attributes)
                    self.depth -= 1;
                    sink.end_element()?;
                    return Ok(true);
                }
                0xFF => {
                    // not reached: attributes follow an element start, which raised the depth
                    if let Some(ev) = self.end_of_level()? {
                        sink.dispatch(ev)?;
                    }
                    return Ok(!self.slow);
                }
                _ => return Err(self.err(format!("bad octet {b:#04x} in an attribute list"))),
            }
        }
    }

    /// The document element when the header listed notations or unparsed entities and no
    /// DOCTYPE item came: a nameless `DocType` event carries them before the root.
    #[inline(never)]
    pub(super) fn root_after_declarations(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        let decls = std::mem::take(&mut self.decls);
        let el = self.element(b)?;
        self.queue.extend(decls);
        self.queue.extend(el);
        self.slow = true;
        Ok(Some(Event::DocType(DocType::default())))
    }

    /// Processing instructions, comments, the DOCTYPE, entity references, and errors.
    #[inline(never)]
    pub(super) fn rare_item(&mut self, b: u8) -> Result<Option<Event<'a>>> {
        match b {
            0xE1 => {
                let target = self.ident(StrTab::OtherNcname)?;
                let data = self.nistring_text(StrTab::OtherString)?;
                Ok(Some(Event::ProcessingInstruction { target, data }))
            }
            0xE2 => Ok(Some(Event::Comment(
                self.nistring_text(StrTab::OtherString)?,
            ))),
            0xC4..=0xC7 if self.depth == 0 => self.doctype(b).map(Some),
            0xC8..=0xCB if self.depth > 0 => {
                let name = self.ident(StrTab::OtherNcname)?;
                let system_id = if b & 2 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                let public_id = if b & 1 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                Ok(Some(Event::EntityReference {
                    name,
                    public_id,
                    system_id,
                }))
            }
            _ => Err(self.err(format!("unexpected octet {b:#04x}"))),
        }
    }
}
