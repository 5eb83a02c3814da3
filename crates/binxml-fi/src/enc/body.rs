//! The encoder's body: elements, attributes, namespaces, text, and the events with the
//! stream grammar's checks.

use super::*;

impl<W: Write> FiEncoder<W> {
    // ---- elements ----

    #[inline(always)]
    pub(super) fn start_element(&mut self, q: &binxml_core::QName<'_>) -> Result<()> {
        if !q.prefix.is_empty() && q.namespace.is_empty() {
            return Err(Error::invalid_events(
                FORMAT,
                format!("element {q} has a prefix but no namespace name"),
            ));
        }
        self.flush_terms();
        self.in_start_tag = true;
        self.attrs_started = false;
        self.ns_buf.clear();
        self.name = PendingName::Literal;
        let prev = self.last_element;
        let pred = self.t.elements.next_of(prev);
        let found = self.t.elements.get_predicted(
            pred,
            &q.prefix,
            &q.namespace,
            &q.local,
            &mut self.seen_elements,
        );
        let e = found.map_or(0, |f| f.1);
        if e != pred {
            self.t.elements.learn(prev, e);
        }
        self.last_element = e;
        self.last_attribute = 0;
        match found {
            Ok((i, _)) => self.name = PendingName::Index(i),
            Err(h) => {
                self.lit_hash = h;
                self.lit_ns_at = (q.namespace.as_ptr() as usize, q.namespace.len());
                for (to, from) in [
                    (&mut self.lit_prefix, &q.prefix),
                    (&mut self.lit_ns, &q.namespace),
                    (&mut self.lit_local, &q.local),
                ] {
                    // SAFETY: the String is cleared and receives the octets of a `str`,
                    // which are UTF-8.
                    let v = unsafe { to.as_mut_vec() };
                    v.clear();
                    put(v, from.as_bytes());
                }
            }
        }
        Ok(())
    }

    /// Writes the element's identification octet, namespace attributes and name.
    #[inline(always)]
    pub(super) fn element_head(&mut self, attrs: bool) {
        let a = if attrs { 0x40 } else { 0 };
        let first = if self.ns_buf.is_empty() {
            a
        } else {
            self.buf.push(0x38 | a);
            put(&mut self.buf, &self.ns_buf);
            self.buf.push(0xF0);
            0
        };
        match std::mem::replace(&mut self.name, PendingName::None) {
            PendingName::Index(i) => int_3rd(&mut self.buf, first, i),
            PendingName::Literal => self.literal_element_name(first),
            PendingName::None => {}
        }
    }

    #[inline(never)]
    pub(super) fn literal_element_name(&mut self, first: u8) {
        let (p, n, l) = (&self.lit_prefix, &self.lit_ns, &self.lit_local);
        let pbit = if p.is_empty() { 0 } else { 2 };
        let nbit = if n.is_empty() { 0 } else { 1 };
        self.buf.push(first | 0x3C | pbit | nbit);
        let memo = if self.in_scope {
            Some(&mut self.ns_memo)
        } else {
            None
        };
        let known = qname_parts(&mut self.buf, &mut self.t, memo, self.lit_ns_at, p, n, l);
        self.t
            .add_qname_hashed(false, self.lit_hash, known, p, n, l);
    }

    #[inline(always)]
    pub(super) fn close_start_tag(&mut self) {
        if self.in_start_tag {
            self.in_start_tag = false;
            if self.attrs_started {
                // end of the attributes
                self.terminate();
            } else {
                self.element_head(false);
            }
        }
    }

    #[inline(always)]
    pub(super) fn attribute(&mut self, name: &binxml_core::QName<'_>, value: &str) -> Result<()> {
        if !self.attrs_started {
            self.attrs_started = true;
            self.element_head(true);
        }
        if !name.prefix.is_empty() && name.namespace.is_empty() {
            return Err(Error::invalid_events(
                FORMAT,
                format!("attribute {name} has a prefix but no namespace name"),
            ));
        }
        // the first attribute is predicted by the element's name (its `first_attribute`),
        // the others by the attribute before
        let prev = self.last_attribute;
        let pred = if prev != 0 {
            self.t.attributes.next_of(prev)
        } else if self.last_element != 0 {
            self.t.elements.entries[self.last_element as usize - 1].first_attribute
        } else {
            0
        };
        let found = self.t.attributes.get_predicted(
            pred,
            &name.prefix,
            &name.namespace,
            &name.local,
            &mut self.seen_attributes,
        );
        let e = found.map_or(0, |f| f.1);
        if e != pred {
            if prev != 0 {
                self.t.attributes.learn(prev, e);
            } else if self.last_element != 0 {
                self.t.elements.entries[self.last_element as usize - 1].first_attribute = e;
            }
        }
        self.last_attribute = e;
        self.t.attr_values.seen = self.t.attr_values.seen.wrapping_add(1);
        match found {
            Ok((i, _)) => int_2nd(&mut self.buf, 0, i),
            Err(h) => self.literal_attribute_name(name, h),
        }
        self.nistring_first(
            value,
            Table::AttrValues,
            self.opts.max_indexed_attribute_value,
        );
        Ok(())
    }

    /// A literal attribute name (out of line: rare after the first start tags, and its
    /// table work would crowd the hot path's registers); `h` its hash.
    #[inline(never)]
    fn literal_attribute_name(&mut self, name: &binxml_core::QName<'_>, h: u32) {
        let pbit = if name.prefix.is_empty() { 0 } else { 2 };
        let nbit = if name.namespace.is_empty() { 0 } else { 1 };
        self.buf.push(0x78 | pbit | nbit);
        let n_at = (name.namespace.as_ptr() as usize, name.namespace.len());
        let (p, n, l) = (&*name.prefix, &*name.namespace, &*name.local);
        let memo = if self.in_scope {
            Some(&mut self.ns_memo)
        } else {
            None
        };
        let known = qname_parts(&mut self.buf, &mut self.t, memo, n_at, p, n, l);
        self.t.add_qname_hashed(true, h, known, p, n, l);
    }

    pub(super) fn namespace(&mut self, prefix: &str, uri: &str) {
        let pbit = if prefix.is_empty() { 0 } else { 2 };
        let nbit = if uri.is_empty() { 0 } else { 1 };
        self.ns_buf.push(0xCC | pbit | nbit);
        if !prefix.is_empty() {
            ident(&mut self.ns_buf, &mut self.t.prefixes, prefix);
        }
        if !uri.is_empty() {
            ident(&mut self.ns_buf, &mut self.t.namespaces, uri);
        }
    }

    pub(super) fn typed(&mut self, t: &Typed<'_>) {
        self.scratch.clear();
        if let Some(wire) = algo::encode_builtin(t, &mut self.scratch) {
            self.algorithm_chunk(wire, true, &[]);
            return;
        }
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        t.write_lexical(&mut text);
        if !text.is_empty() {
            let date_time = matches!(t, Typed::DateTime(_));
            let numeric = matches!(t, Typed::Number(_));
            let wire = if numeric {
                Some(0u8)
            } else if date_time {
                Some(1u8)
            } else {
                None
            };
            let mut done = false;
            if let Some(w) = wire {
                let alphabet: Vec<char> = algo::builtin_alphabet(w).unwrap().chars().collect();
                self.scratch.clear();
                if algo::alphabet_encode(&alphabet, &text, &mut self.scratch) {
                    self.buf.push(0x80 | 0x08 | (w >> 6));
                    len_7th(&mut self.buf, (w & 0x3F) << 2, self.scratch.len());
                    self.buf.extend_from_slice(&self.scratch);
                    done = true;
                }
            }
            if !done {
                self.chunk(&text);
            }
        }
        self.text = text;
    }

    /// Character data in an element (after the start tag is closed).
    #[inline(always)]
    pub(super) fn characters(&mut self, text: &str, cdata: bool) {
        if text.is_empty() {
            return;
        }
        self.flush_terms();
        if cdata {
            self.algorithm_chunk(algo::CDATA, false, text.as_bytes());
            return;
        }
        self.t.chunks.seen = self.t.chunks.seen.wrapping_add(1);
        let b = text.as_bytes();
        let d = self.depth as usize;
        let space = matches!(b[0], b' ' | b'\t' | b'\r' | b'\n');
        if space && let Some(pair) = self.memo.get(d) {
            for m in pair {
                if m.out_len != 0
                    && m.text.len() == b.len()
                    && bytes_eq(&m.text, b)
                    && !self.t.chunks.full()
                {
                    // white space written lately at this depth: the same indexes again
                    let out = m.out;
                    let n = m.out_len as usize;
                    put(&mut self.buf, &out[..n]);
                    return;
                }
            }
        }
        let pos = self.buf.len();
        let literals = self.literal_chunks;
        if self.opts.split_text {
            if is_short_indent(b, self.opts.max_indexed_chunk) {
                // what split_piece makes of it: one piece, the whole
                self.chunk(text);
            } else if has_split_octet(b) {
                self.split_chunks(text);
            } else {
                self.chunk(text);
            }
        } else {
            self.chunk(text);
        }
        if space && self.literal_chunks == literals && b.len() <= 64 && self.buf.len() - pos <= 16 {
            self.memo_text(d, b, pos);
        }
    }

    /// Remembers white space whose chunks were all written by index (the same text at this
    /// depth will be the same octets as long as the table is not full: entries never change).
    #[inline(never)]
    pub(super) fn memo_text(&mut self, d: usize, b: &[u8], pos: usize) {
        if d >= MEMO_DEPTHS || !b.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')) {
            return;
        }
        if self.memo.len() <= d {
            self.memo.resize_with(d + 1, Default::default);
        }
        // two texts a depth (the white space after a start tag and after an end tag differ),
        // the older one replaced
        let pair = &mut self.memo[d];
        pair.swap(0, 1);
        let m = &mut pair[0];
        m.text.clear();
        m.text.extend_from_slice(b);
        let out = &self.buf[pos..];
        m.out[..out.len()].copy_from_slice(out);
        m.out_len = out.len() as u8;
    }

    /// Text split into pieces for indexing (`split_text`).
    #[inline(never)]
    pub(super) fn split_chunks(&mut self, text: &str) {
        let mut rest: &str = text;
        let max = self.opts.max_indexed_chunk;
        while !rest.is_empty() {
            let (n, content) = split_piece(rest.as_bytes(), max);
            let (piece, tail) = rest.split_at(n);
            if content && piece.len() > 2 && has_line_break(piece.as_bytes()) {
                self.chunk_lines(piece, max);
            } else {
                self.chunk(piece);
            }
            rest = tail;
        }
    }

    // ---- the hot events of the body, with the stream grammar's checks ----

    #[inline(always)]
    pub(super) fn ev_start_element(&mut self, q: &binxml_core::QName<'_>) -> Result<()> {
        if self.depth == 0 {
            return Err(bad_stream("a second root element"));
        }
        if q.local.is_empty() {
            return Err(empty_name("StartElement"));
        }
        self.depth += 1;
        self.seen_attr = false;
        self.close_start_tag();
        self.start_element(q)
    }

    #[inline(always)]
    pub(super) fn ev_attribute(
        &mut self,
        name: &binxml_core::QName<'_>,
        value: &str,
    ) -> Result<()> {
        if !self.in_start_tag {
            return Err(bad_stream("Attribute outside a start tag"));
        }
        self.seen_attr = true;
        if name.local.is_empty() {
            return Err(empty_name("Attribute"));
        }
        if name.namespace.as_ref() != XMLNS_NS {
            self.attribute(name, value)?;
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn ev_end_element(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Err(bad_stream("EndElement without StartElement"));
        }
        self.depth -= 1;
        self.close_start_tag();
        self.terminate();
        Ok(())
    }

    #[inline(always)]
    pub(super) fn ev_characters(&mut self, text: &str, cdata: bool) -> Result<()> {
        if self.depth == 0 {
            // white space between top-level items has no place in the infoset
            if !is_xml_space(text) {
                return Err(bad_stream("character data outside the root element"));
            }
            return Ok(());
        }
        self.close_start_tag();
        self.characters(text, cdata);
        Ok(())
    }

    #[inline(always)]
    pub(super) fn ev_namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        if !self.in_start_tag || self.seen_attr {
            return Err(bad_stream(
                "Namespace must follow StartElement, before its attributes",
            ));
        }
        // the xml prefix is always bound: its declaration says nothing (SAX parsers do not
        // report it either)
        if !(prefix == "xml" && uri == XML_NS) {
            self.namespace(prefix, uri)
        }
        Ok(())
    }

    /// Every other event of the body (the root element seen, `EndDocument` not yet).
    #[inline(never)]
    pub(super) fn ev_other(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::StartDocument { .. } => return Err(bad_stream("StartDocument twice")),
            Event::EndDocument => {
                if self.depth != 0 {
                    return Err(bad_stream("EndDocument inside an element"));
                }
                self.body_event(ev)?;
                self.phase = Phase::Done;
                return Ok(());
            }
            Event::Typed(_) | Event::EntityReference { .. } if self.depth == 0 => {
                return Err(bad_stream("character data outside the root element"));
            }
            Event::DocType(_) | Event::Notation { .. } | Event::UnparsedEntity { .. } => {
                return Err(bad_stream(
                    "document type declaration after the root element started",
                ));
            }
            _ => {}
        }
        required_names(ev)?;
        self.body_event(ev)
    }

    /// Events before the root element and after the end: the checks of the stream grammar
    /// (no element seen yet, depth 0), the prolog kept until the header is written.
    #[inline(never)]
    pub(super) fn write_event_slow(&mut self, ev: &Event<'_>) -> Result<()> {
        match self.phase {
            Phase::Done => return Err(bad_stream("event after EndDocument")),
            Phase::Start => {
                if !matches!(ev, Event::StartDocument { .. }) {
                    return Err(bad_stream("the first event must be StartDocument"));
                }
                self.start_doc = Some(ev.clone().into_owned());
                self.phase = Phase::Prolog;
                return Ok(());
            }
            Phase::Prolog | Phase::Body => {}
        }
        match ev {
            Event::StartDocument { .. } => return Err(bad_stream("StartDocument twice")),
            Event::EndElement => return Err(bad_stream("EndElement without StartElement")),
            Event::Namespace { .. } => {
                return Err(bad_stream(
                    "Namespace must follow StartElement, before its attributes",
                ));
            }
            Event::Attribute { .. } => return Err(bad_stream("Attribute outside a start tag")),
            Event::Characters { text, .. } if !is_xml_space(text) => {
                return Err(bad_stream("character data outside the root element"));
            }
            Event::Typed(_) | Event::EntityReference { .. } => {
                return Err(bad_stream("character data outside the root element"));
            }
            _ => {}
        }
        required_names(ev)?;
        match ev {
            Event::Comment(_)
            | Event::ProcessingInstruction { .. }
            | Event::DocType(_)
            | Event::Notation { .. }
            | Event::UnparsedEntity { .. } => {
                self.prolog.push(ev.clone().into_owned());
                return Ok(());
            }
            Event::Characters { .. } => return Ok(()),
            _ => {}
        }
        // the root element or the end of a document without one
        self.phase = Phase::Body;
        self.write_header()?;
        if let Event::StartElement(q) = ev {
            self.depth = 1;
            self.seen_attr = false;
            self.close_start_tag();
            self.start_element(q)?;
        } else {
            self.body_event(ev)?;
            self.phase = Phase::Done;
        }
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// One event of the body (after the header), without the stream grammar's checks.
    pub(super) fn body_event(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::StartElement(q) => {
                self.close_start_tag();
                self.start_element(q)?;
            }
            Event::Namespace { prefix, uri } => {
                // the xml prefix is always bound: its declaration says nothing (SAX parsers do
                // not report it either)
                if !(prefix == "xml" && uri == XML_NS) {
                    self.namespace(prefix, uri)
                }
            }
            Event::Attribute { name, value } => {
                if name.namespace.as_ref() != XMLNS_NS {
                    self.attribute(name, value)?;
                }
            }
            Event::EndElement => {
                self.close_start_tag();
                self.terminate();
            }
            Event::Characters { text, cdata } => {
                self.close_start_tag();
                self.characters(text, *cdata);
            }
            Event::Typed(t) => {
                self.close_start_tag();
                self.flush_terms();
                self.typed(t);
            }
            Event::Comment(c) => {
                self.close_start_tag();
                self.flush_terms();
                self.buf.push(0xE2);
                self.nistring_first(c, Table::OtherStrings, self.opts.max_indexed_chunk);
            }
            Event::ProcessingInstruction { target, data } => {
                if target.is_empty() {
                    return Err(Error::invalid_events(
                        FORMAT,
                        "processing instruction without a target",
                    ));
                }
                self.close_start_tag();
                self.flush_terms();
                self.buf.push(0xE1);
                ident(&mut self.buf, &mut self.t.other_ncnames, target);
                self.nistring_first(data, Table::OtherStrings, self.opts.max_indexed_chunk);
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => {
                self.close_start_tag();
                self.flush_terms();
                let sys = system_id.as_deref().filter(|s| !s.is_empty());
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC8 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
            }
            Event::DocType(d) => {
                self.flush_terms();
                let sys = d.system_id.as_deref().filter(|s| !s.is_empty());
                let publ = d.public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC4 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
                // The item's children are the internal subset's processing instructions; its
                // comments (which XML processors report in document order) follow the item as
                // comments of the document. Declarations have no place in the item.
                let mut comments = Vec::new();
                if let Some(subset) = d.internal_subset.as_deref() {
                    for item in subset_items(subset) {
                        match item {
                            SubsetItem::Pi(target, data) => {
                                self.buf.push(0xE1);
                                ident(&mut self.buf, &mut self.t.other_ncnames, target);
                                self.nistring_first(
                                    data,
                                    Table::OtherStrings,
                                    self.opts.max_indexed_chunk,
                                );
                            }
                            SubsetItem::Comment(c) => comments.push(c),
                        }
                    }
                }
                self.terminate();
                for c in comments {
                    self.flush_terms();
                    self.buf.push(0xE2);
                    self.nistring_first(c, Table::OtherStrings, self.opts.max_indexed_chunk);
                }
            }
            Event::Notation { .. } | Event::UnparsedEntity { .. } => {}
            Event::EndDocument => {
                self.close_start_tag();
                self.terminate();
                self.flush_terms();
            }
            Event::StartDocument { .. } => {}
            _ => {
                return Err(Error::unsupported(
                    FORMAT,
                    "an event this encoder does not know",
                ));
            }
        }
        Ok(())
    }
}

/// Prefix, namespace name and local name of a literal qualified name (C.18 / C.17);
/// whether the local name is (now) in the local-name table. `n_at`: the address and length of
/// the namespace name as the event gave it, and `memo` [`FiEncoder::ns_memo`] within a call of
/// `write_events` or `write_tape` (`None` outside one). A function of the fields it uses, not
/// a method: the literal element name it is given is itself a field of the encoder.
#[inline(always)]
pub(super) fn qname_parts(
    buf: &mut Vec<u8>,
    t: &mut Tables,
    memo: Option<&mut ((usize, usize), u32)>,
    n_at: (usize, usize),
    p: &str,
    n: &str,
    l: &str,
) -> bool {
    if !p.is_empty() {
        match t.recent_prefixes.get(p) {
            Some(i) => int_2nd(buf, 0x80, i),
            None => match t.prefixes.find_or_add(p) {
                Some(i) => {
                    int_2nd(buf, 0x80, i);
                    t.recent_prefixes.put(p, i);
                }
                None => {
                    len_2nd(buf, 0, p.len());
                    put(buf, p.as_bytes());
                }
            },
        }
    }
    if !n.is_empty() {
        match memo {
            Some(m) if m.0 == n_at => int_2nd(buf, 0x80, m.1),
            _ => match t.recent_namespaces.get(n) {
                Some(i) => {
                    int_2nd(buf, 0x80, i);
                    if let Some(m) = memo {
                        *m = (n_at, i);
                    }
                }
                None => match t.namespaces.find_or_add(n) {
                    Some(i) => {
                        int_2nd(buf, 0x80, i);
                        t.recent_namespaces.put(n, i);
                        if let Some(m) = memo {
                            *m = (n_at, i);
                        }
                    }
                    None => {
                        len_2nd(buf, 0, n.len());
                        put(buf, n.as_bytes());
                    }
                },
            },
        }
    }
    match t.name(l) {
        Some(e) => {
            int_2nd(buf, 0x80, e.local);
            true
        }
        None => {
            len_2nd(buf, 0, l.len());
            put(buf, l.as_bytes());
            t.add_local(l);
            t.name_keys.get(l).is_some()
        }
    }
}
