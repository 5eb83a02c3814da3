//! The encoder's header: the document's properties and its initial vocabulary.

use super::*;

impl<W: Write> FiEncoder<W> {
    // ---- header ----

    pub(super) fn write_header(&mut self) -> Result<()> {
        let (version, encoding, standalone) = match &self.start_doc {
            Some(Event::StartDocument {
                version,
                encoding,
                standalone,
            }) => (version.clone(), encoding.clone(), *standalone),
            _ => (None, None, None),
        };
        if self.opts.xml_declaration {
            let v = match version.as_deref() {
                Some("1.0") => " version='1.0'",
                Some("1.1") => " version='1.1'",
                _ => "",
            };
            let s = match standalone {
                Some(true) => " standalone='yes'",
                Some(false) => " standalone='no'",
                None => "",
            };
            self.buf
                .extend_from_slice(format!("<?xml{v} encoding='finf'{s}?>").as_bytes());
        }
        self.buf.extend_from_slice(&crate::MAGIC);
        let notations: Vec<Event<'static>> = self
            .prolog
            .iter()
            .filter(|e| matches!(e, Event::Notation { .. }))
            .cloned()
            .collect();
        let entities: Vec<Event<'static>> = self
            .prolog
            .iter()
            .filter(|e| matches!(e, Event::UnparsedEntity { .. }))
            .cloned()
            .collect();
        let props = self.opts.document_properties;
        let mut flags = 0u8;
        if self.opts.external_vocabulary.is_some() || self.opts.initial_vocabulary.is_some() {
            flags |= 0x20;
        }
        if !notations.is_empty() {
            flags |= 0x10;
        }
        if !entities.is_empty() {
            flags |= 0x08;
        }
        let encoding = encoding.filter(|e| props && !e.is_empty());
        if encoding.is_some() {
            flags |= 0x04;
        }
        let standalone = standalone.filter(|_| props);
        if standalone.is_some() {
            flags |= 0x02;
        }
        let version = version.filter(|v| props && !v.is_empty());
        if version.is_some() {
            flags |= 0x01;
        }
        self.buf.push(flags);
        if flags & 0x20 != 0 {
            self.write_initial_vocabulary();
        }
        for n in &notations {
            if let Event::Notation {
                name,
                public_id,
                system_id,
            } = n
            {
                let sys = system_id.as_deref().filter(|s| !s.is_empty());
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf
                    .push(0xC0 | (sys.is_some() as u8) << 1 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                if let Some(s) = sys {
                    ident(&mut self.buf, &mut self.t.other_uris, s);
                }
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
            }
        }
        if !notations.is_empty() {
            self.buf.push(0xF0);
        }
        for u in &entities {
            if let Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } = u
            {
                let publ = public_id.as_deref().filter(|s| !s.is_empty());
                self.buf.push(0xD0 | publ.is_some() as u8);
                ident(&mut self.buf, &mut self.t.other_ncnames, name);
                ident(&mut self.buf, &mut self.t.other_uris, system_id);
                if let Some(p) = publ {
                    ident(&mut self.buf, &mut self.t.other_uris, p);
                }
                ident(&mut self.buf, &mut self.t.other_ncnames, notation);
            }
        }
        if !entities.is_empty() {
            self.buf.push(0xF0);
        }
        if let Some(e) = encoding {
            len_2nd(&mut self.buf, 0, e.len());
            self.buf.extend_from_slice(e.as_bytes());
        }
        if let Some(s) = standalone {
            self.buf.push(s as u8);
        }
        if let Some(v) = version {
            self.nistring_first(&v, Table::OtherStrings, self.opts.max_indexed_chunk);
        }
        let prolog = std::mem::take(&mut self.prolog);
        for e in &prolog {
            self.body_event(e)?;
        }
        Ok(())
    }

    /// The initial-vocabulary component (C.2.5): 3 padding bits and 13 presence bits, the
    /// external vocabulary's URI, then each non-empty table of the inline vocabulary.
    pub(super) fn write_initial_vocabulary(&mut self) {
        let ext = self.opts.external_vocabulary.clone();
        let init = self.opts.initial_vocabulary.clone();
        let empty = Vocabulary::default();
        let r = init.as_deref().unwrap_or(&empty).resolved();
        let has = |v: &Vec<&str>| !v.is_empty();
        let mut b1 = 0u8;
        let mut b2 = 0u8;
        if ext.is_some() {
            b1 |= 0x10;
        }
        for (bit, on) in [
            (0x08, has(&r.alphabets)),
            (0x04, has(&r.algorithms)),
            (0x02, has(&r.prefixes)),
            (0x01, has(&r.namespaces)),
        ] {
            if on {
                b1 |= bit;
            }
        }
        for (bit, on) in [
            (0x80, has(&r.locals)),
            (0x40, has(&r.other_ncnames)),
            (0x20, has(&r.other_uris)),
            (0x10, has(&r.attr_values)),
            (0x08, has(&r.chunks)),
            (0x04, has(&r.other_strings)),
            (0x02, !r.elements.is_empty()),
            (0x01, !r.attributes.is_empty()),
        ] {
            if on {
                b2 |= bit;
            }
        }
        self.buf.extend_from_slice(&[b1, b2]);
        if let Some((uri, _)) = &ext {
            len_2nd(&mut self.buf, 0, uri.len());
            self.buf.extend_from_slice(uri.as_bytes());
        }
        for list in [
            &r.alphabets,
            &r.algorithms,
            &r.prefixes,
            &r.namespaces,
            &r.locals,
            &r.other_ncnames,
            &r.other_uris,
        ] {
            if !list.is_empty() {
                seq_len(&mut self.buf, list.len());
                for s in list.iter() {
                    len_2nd(&mut self.buf, 0, s.len());
                    self.buf.extend_from_slice(s.as_bytes());
                }
            }
        }
        for list in [&r.attr_values, &r.chunks, &r.other_strings] {
            if !list.is_empty() {
                seq_len(&mut self.buf, list.len());
                for s in list.iter() {
                    // EncodedCharacterString on the 3rd bit: padding '00', UTF-8, length
                    len_5th(&mut self.buf, 0, s.len());
                    self.buf.extend_from_slice(s.as_bytes());
                }
            }
        }
        for names in [&r.elements, &r.attributes] {
            if !names.is_empty() {
                seq_len(&mut self.buf, names.len());
                for &(p, n, l) in names.iter() {
                    self.buf
                        .push(((!p.is_empty()) as u8) << 1 | (!n.is_empty()) as u8);
                    if !p.is_empty() {
                        int_2nd(&mut self.buf, 0, self.t.prefixes.get(p).unwrap_or(1));
                    }
                    if !n.is_empty() {
                        int_2nd(&mut self.buf, 0, self.t.namespaces.get(n).unwrap_or(1));
                    }
                    int_2nd(&mut self.buf, 0, self.t.name(l).map_or(1, |e| e.local));
                }
            }
        }
    }
}
