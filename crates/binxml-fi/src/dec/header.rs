//! The decoder's header: the document's properties and its initial vocabulary.

use super::*;

impl<'a, S: Src<'a>> Core<'a, S> {
    // ---- header ----

    pub(super) fn header(&mut self) -> Result<Event<'a>> {
        let mut decl_version = None;
        let mut decl_standalone = None;
        let head = self.src.peek(4)?;
        if head.starts_with(b"<?xm") {
            let text = self.src.peek(80)?.to_vec();
            let Some(end) = text.windows(2).position(|w| w == b"?>") else {
                return Err(Error::malformed(FORMAT, 0, "unterminated XML declaration"));
            };
            let decl = std::str::from_utf8(&text[..end + 2])
                .map_err(|_| Error::malformed(FORMAT, 0, "bad XML declaration"))?;
            let attr = |name: &str| -> Option<String> {
                let i = decl.find(name)?;
                let rest = decl[i + name.len()..]
                    .trim_start()
                    .strip_prefix('=')?
                    .trim_start();
                let q = rest.chars().next()?;
                if q != '\'' && q != '"' {
                    return None;
                }
                let rest = &rest[1..];
                Some(rest[..rest.find(q)?].to_string())
            };
            if !decl.starts_with("<?xml ") || attr("encoding").as_deref() != Some("finf") {
                return Err(Error::malformed(
                    FORMAT,
                    0,
                    "not a Fast Infoset document: XML declaration without encoding='finf'",
                ));
            }
            decl_version = attr("version");
            decl_standalone = attr("standalone").map(|s| s == "yes");
            self.src.skip(end + 2);
        }
        let at = self.src.pos();
        let mut magic = [0u8; 4];
        for m in &mut magic {
            *m = self.src.byte().map_err(|_| {
                Error::malformed(FORMAT, at, "not a Fast Infoset document: too short")
            })?;
        }
        if magic[..2] != [0xE0, 0x00] {
            return Err(Error::malformed(
                FORMAT,
                at,
                "not a Fast Infoset document: bad identification octets",
            ));
        }
        if magic[2..] != [0x00, 0x01] {
            return Err(Error::malformed(
                FORMAT,
                at + 2,
                format!(
                    "unsupported Fast Infoset version {}",
                    u16::from_be_bytes([magic[2], magic[3]])
                ),
            ));
        }
        let flags = self.src.byte()?;
        if flags & 0x80 != 0 {
            return Err(self.err("padding bit set in the document header"));
        }
        if flags & 0x40 != 0 {
            // additional data: skipped
            let n = self.seq_len()?;
            for _ in 0..n {
                self.octet_string_2nd()?;
                let b = self.src.byte()?;
                let len = self.len_2nd(b & 0x7F)?;
                self.octets(len)?;
            }
        }
        if flags & 0x20 != 0 {
            self.initial_vocabulary()?;
        }
        if flags & 0x10 != 0 {
            loop {
                let b = self.src.byte()?;
                if b == 0xF0 {
                    break;
                }
                if b & 0xFC != 0xC0 {
                    return Err(self.err(format!("bad notation octet {b:#04x}")));
                }
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
                self.decls.push(Event::Notation {
                    name,
                    public_id,
                    system_id,
                });
            }
        }
        if flags & 0x08 != 0 {
            loop {
                let b = self.src.byte()?;
                if b == 0xF0 {
                    break;
                }
                if b & 0xFE != 0xD0 {
                    return Err(self.err(format!("bad unparsed-entity octet {b:#04x}")));
                }
                let name = self.ident(StrTab::OtherNcname)?;
                let system_id = self.ident(StrTab::OtherUri)?;
                let public_id = if b & 1 != 0 {
                    Some(self.ident(StrTab::OtherUri)?)
                } else {
                    None
                };
                let notation = self.ident(StrTab::OtherNcname)?;
                self.decls.push(Event::UnparsedEntity {
                    name,
                    public_id,
                    system_id,
                    notation,
                });
            }
        }
        let encoding = if flags & 0x04 != 0 {
            Some(self.octet_string_2nd()?)
        } else {
            None
        };
        let standalone = if flags & 0x02 != 0 {
            match self.src.byte()? {
                0 => Some(false),
                1 => Some(true),
                b => return Err(self.err(format!("bad standalone octet {b:#04x}"))),
            }
        } else {
            decl_standalone
        };
        let version = if flags & 0x01 != 0 {
            Some(self.nistring_text(StrTab::OtherString)?)
        } else {
            decl_version.map(Cow::Owned)
        };
        Ok(Event::StartDocument {
            version,
            encoding,
            standalone,
        })
    }

    /// Number of items of a sequence (C.21).
    pub(super) fn seq_len(&mut self) -> Result<usize> {
        let b = self.src.byte()?;
        if b & 0x80 == 0 {
            Ok(b as usize + 1)
        } else {
            let b2 = self.src.byte()? as usize;
            let b3 = self.src.byte()? as usize;
            let n = (((b & 0x0F) as usize) << 16 | b2 << 8 | b3) + 129;
            if n > 1 << 20 {
                return Err(self.err("sequence of more than 2^20 items"));
            }
            Ok(n)
        }
    }

    pub(super) fn vocab_index(&mut self, b: u8) -> Result<u32> {
        if b & 0x80 != 0 {
            return Err(self.err("padding bit set"));
        }
        self.int_2nd(b)
    }

    pub(super) fn initial_vocabulary(&mut self) -> Result<()> {
        let b1 = self.src.byte()?;
        let b2 = self.src.byte()?;
        if b1 & 0xE0 != 0 {
            return Err(self.err("padding bits set in the initial vocabulary"));
        }
        if b1 & 0x10 != 0 {
            let at = self.src.pos();
            let uri = self.octet_string_2nd()?;
            let found = if let Some(v) = self.borrowed_vocabs {
                match v.get(uri.as_ref()) {
                    Some(voc) => {
                        let r = voc.resolved();
                        self.load(&r, Cow::Borrowed);
                        true
                    }
                    None => false,
                }
            } else if let Some(v) = self.shared_vocabs.clone() {
                match v.get(uri.as_ref()) {
                    Some(voc) => {
                        let r = voc.resolved();
                        self.load(&r, |s| Cow::Owned(s.to_string()));
                        true
                    }
                    None => false,
                }
            } else {
                false
            };
            if !found {
                return Err(Error::unsupported(
                    FORMAT,
                    format!("the document uses the external vocabulary {uri:?}, which this decoder was not given"),
                )
                .at(at));
            }
        }
        if b1 & 0x08 != 0 {
            let n = self.seq_len()?;
            for _ in 0..n {
                let s = self.octet_string_2nd()?;
                let chars: Vec<char> = s.chars().collect();
                if chars.len() < 2 || chars.len() > 1 << 16 {
                    return Err(self.err("a restricted alphabet needs 2 to 65536 characters"));
                }
                self.t.alphabets.push(chars);
            }
        }
        if b1 & 0x04 != 0 {
            let n = self.seq_len()?;
            for _ in 0..n {
                let s = self.octet_string_2nd()?;
                self.t.algorithms.push(s.into_owned());
            }
        }
        for (flag_byte, flag, tab) in [
            (b1, 0x02, StrTab::Prefix),
            (b1, 0x01, StrTab::Namespace),
            (b2, 0x80, StrTab::Local),
            (b2, 0x40, StrTab::OtherNcname),
            (b2, 0x20, StrTab::OtherUri),
        ] {
            if flag_byte & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let s = self.octet_string_2nd()?;
                    self.table_add(tab, s)?;
                }
            }
        }
        for (flag, tab) in [
            (0x10, StrTab::AttrValue),
            (0x08, StrTab::Chunk),
            (0x04, StrTab::OtherString),
        ] {
            if b2 & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let b = self.src.byte()?;
                    if b & 0x80 != 0 {
                        return Err(self.err("an initial-vocabulary string must be a literal"));
                    }
                    let s = match (b >> 4) & 3 {
                        0 => {
                            let len = self.len_5th(b)?;
                            self.utf8(len)?
                        }
                        1 => {
                            let len = self.len_5th(b)?;
                            self.utf16(len)?
                        }
                        k => {
                            let b2 = self.src.byte()?;
                            let wire = (b & 0x0F) << 4 | b2 >> 4;
                            let len = self.len_5th(b2)?;
                            if k == 2 {
                                self.alphabet_string(wire, len)?
                            } else {
                                match self.algorithm_data(wire, len)? {
                                    NiStr::Str(s) | NiStr::Cdata(s) => s,
                                    NiStr::Typed(t) => Cow::Owned(t.lexical()),
                                }
                            }
                        }
                    };
                    self.table_add(tab, s)?;
                }
            }
        }
        for (flag, attr) in [(0x02, false), (0x01, true)] {
            if b2 & flag != 0 {
                let n = self.seq_len()?;
                for _ in 0..n {
                    let b = self.src.byte()?;
                    if b & 0xFC != 0 {
                        return Err(self.err("padding bits set in a name surrogate"));
                    }
                    let prefix = if b & 2 != 0 {
                        let x = self.src.byte()?;
                        let i = self.vocab_index(x)?;
                        self.table_get(StrTab::Prefix, i)?
                    } else {
                        Cow::Borrowed("")
                    };
                    let namespace = if b & 1 != 0 {
                        let x = self.src.byte()?;
                        let i = self.vocab_index(x)?;
                        self.table_get(StrTab::Namespace, i)?
                    } else {
                        Cow::Borrowed("")
                    };
                    if b & 2 != 0 && b & 1 == 0 {
                        return Err(
                            self.err("a name surrogate with a prefix needs a namespace name")
                        );
                    }
                    let x = self.src.byte()?;
                    let i = self.vocab_index(x)?;
                    let local = self.table_get(StrTab::Local, i)?;
                    let q = QName {
                        prefix,
                        namespace,
                        local,
                    };
                    self.name_add(attr, q)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn load<'v>(
        &mut self,
        r: &crate::vocab::Resolved<'v>,
        conv: impl Fn(&'v str) -> Cow<'a, str>,
    ) {
        let lists: [(StrTab, &Vec<&'v str>); 8] = [
            (StrTab::Prefix, &r.prefixes),
            (StrTab::Namespace, &r.namespaces),
            (StrTab::Local, &r.locals),
            (StrTab::OtherNcname, &r.other_ncnames),
            (StrTab::OtherUri, &r.other_uris),
            (StrTab::AttrValue, &r.attr_values),
            (StrTab::Chunk, &r.chunks),
            (StrTab::OtherString, &r.other_strings),
        ];
        for (tab, list) in lists {
            for &s in list.iter() {
                self.t.strs[tab as usize].push(conv(s));
            }
        }
        for a in &r.alphabets {
            self.t.alphabets.push(a.chars().collect());
        }
        for a in &r.algorithms {
            self.t.algorithms.push(a.to_string());
        }
        for &(p, n, l) in &r.elements {
            self.t.elements.push(NameSlot::new(QName {
                prefix: conv(p),
                namespace: conv(n),
                local: conv(l),
            }));
        }
        for &(p, n, l) in &r.attributes {
            self.t.attributes.push(NameSlot::new(QName {
                prefix: conv(p),
                namespace: conv(n),
                local: conv(l),
            }));
        }
    }

    pub(super) fn name_add(&mut self, attr: bool, q: QName<'a>) -> Result<()> {
        let t = if attr {
            &mut self.t.attributes
        } else {
            &mut self.t.elements
        };
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                "a name-surrogate table is full",
            ));
        }
        t.push(NameSlot::new(q));
        Ok(())
    }
}
