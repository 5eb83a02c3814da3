//! An abstract value of `Document` -> events (the decoder side of the mapping).

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{DocType, Error, Event, Limits, QName, Result, Typed, XMLNS_NS};

use crate::table;
use crate::value::V;

pub(crate) type Name<'a> = (Cow<'a, str>, Cow<'a, str>, Cow<'a, str>);

pub struct Emitter<'a> {
    format: Format,
    /// positions in `V::Int` are bit offsets; BER reports them as byte offsets
    ber: bool,
    pub(crate) limits: Limits,
    pub(crate) strings: Vec<Cow<'a, str>>,
    pub(crate) names: Vec<Name<'a>>,
    pub out: Vec<Event<'a>>,
    pub(crate) budget: usize,
    pub(crate) used: usize,
}

fn seq<'a>(v: V<'a>, n: usize, format: Format) -> Result<Vec<Option<V<'a>>>> {
    match v {
        V::Seq(s) if s.len() == n => Ok(s),
        _ => Err(Error::malformed(format, 0, "internal: value shape")),
    }
}

impl<'a> Emitter<'a> {
    pub fn new(format: Format, ber: bool, limits: Limits, input_len: usize) -> Self {
        let budget = limits.decoded_budget(input_len);
        Emitter {
            format,
            ber,
            limits,
            strings: vec![],
            names: vec![],
            out: vec![],
            budget,
            used: 0,
        }
    }

    fn err_at(&self, pos: u64, msg: String) -> Error {
        let e = Error::malformed(self.format, 0, msg);
        if self.ber {
            e.at(pos / 8)
        } else {
            e.at_bit(pos)
        }
    }

    pub(crate) fn shape(&self) -> Error {
        Error::malformed(self.format, 0, "internal: value shape")
    }

    #[inline]
    pub(crate) fn charge(&mut self, n: usize) -> Result<()> {
        self.used = self.used.saturating_add(n);
        if self.used > self.budget {
            return Err(self.over_budget());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self) -> Error {
        Error::limit(self.format, 0, "decoded text exceeds the expansion limit")
    }

    /// A StringOrIndex / URIOrIndex / NCNameOrIndex.
    fn s(&mut self, v: V<'a>) -> Result<Cow<'a, str>> {
        match v {
            V::Choice(0, b) => match *b {
                V::Text(t) => Ok(t),
                _ => Err(self.shape()),
            },
            V::Choice(1, b) => match *b {
                V::Int(i, pos) => self.lookup(i, pos),
                _ => Err(self.shape()),
            },
            _ => Err(self.shape()),
        }
    }

    /// Component string `i` (found at bit `pos`).
    pub(crate) fn lookup(&mut self, i: u64, pos: u64) -> Result<Cow<'a, str>> {
        let Some(s) = self.strings.get(i as usize) else {
            return Err(self.err_at(
                pos,
                format!(
                    "component-string-index {i} outside the table of {}",
                    self.strings.len()
                ),
            ));
        };
        let s = s.clone();
        self.charge(s.len())?;
        Ok(s)
    }

    fn opt_s(&mut self, v: Option<V<'a>>) -> Result<Option<Cow<'a, str>>> {
        v.map(|v| self.s(v)).transpose()
    }

    /// A common name (its copy counts against the expansion budget).
    pub(crate) fn common(&mut self, v: &V<'a>) -> Result<Name<'a>> {
        match v {
            V::Int(i, pos) => {
                let n = self.names.get(*i as usize).cloned().ok_or_else(|| {
                    self.err_at(
                        *pos,
                        format!(
                            "common-name-index {i} outside the table of {}",
                            self.names.len()
                        ),
                    )
                })?;
                self.charge(n.0.len() + n.1.len() + n.2.len())?;
                Ok(n)
            }
            _ => Err(self.shape()),
        }
    }

    /// A copy of a namespace name given by reference (same-as-...).
    pub(crate) fn copy(&mut self, s: &Cow<'a, str>) -> Result<Cow<'a, str>> {
        if let Cow::Owned(o) = s {
            self.charge(o.len())?;
        }
        Ok(s.clone())
    }

    /// Reads the component-strings and common-names tables.
    pub(crate) fn tables(&mut self, cs: Option<V<'a>>, cn: Option<V<'a>>) -> Result<()> {
        if let Some(V::List(items)) = cs {
            for it in items {
                let mut it = seq(it, 2, self.format)?;
                let (Some(V::Text(uri)), Some(V::Bytes(block))) = (it[0].take(), it[1].take())
                else {
                    return Err(self.shape());
                };
                let room = self.budget.saturating_sub(self.used);
                let raw = if table::is_uncompressed(&uri) {
                    block
                } else {
                    Cow::Owned(table::decompress(self.format, &uri, &block, room, 0)?)
                };
                self.charge(raw.len())?;
                table::parse_block_cow(self.format, raw, &mut self.strings, &self.limits, 0)?;
            }
        }
        if let Some(V::List(items)) = cn {
            if items.len() > self.limits.max_table_entries {
                return Err(Error::limit(self.format, 0, "too many common names"));
            }
            for it in items {
                let mut it = seq(it, 3, self.format)?;
                let prev = self.names.last().cloned();
                let ns = match it[0].take() {
                    None => Cow::Borrowed(""),
                    Some(V::Choice(0, x)) => self.s(*x)?,
                    Some(V::Choice(1, _)) => match &prev {
                        Some(p) => self.copy(&p.0)?,
                        None => {
                            return Err(Error::malformed(
                                self.format,
                                0,
                                "same-as-previous-item in the first common name",
                            ));
                        }
                    },
                    _ => return Err(self.shape()),
                };
                let local = self.s(it[1].take().ok_or_else(|| self.shape())?)?;
                let prefix = match it[2].take() {
                    None => Cow::Borrowed(""),
                    Some(V::Choice(0, x)) => self.s(*x)?,
                    Some(V::Choice(1, _)) => match &prev {
                        Some(p) => self.copy(&p.2)?,
                        None => {
                            return Err(Error::malformed(
                                self.format,
                                0,
                                "same-as-previous-item in the first common name",
                            ));
                        }
                    },
                    _ => return Err(self.shape()),
                };
                self.names.push((ns, local, prefix));
            }
        }
        Ok(())
    }

    /// The `StartDocument` event.
    pub(crate) fn start(
        &mut self,
        ces: Option<V<'a>>,
        standalone: Option<bool>,
        version: Option<V<'a>>,
    ) -> Result<()> {
        let encoding = match ces {
            Some(v) => Some(self.s(v)?).filter(|s| !s.is_empty()),
            None => None,
        };
        let version = self.opt_s(version)?;
        self.out.push(Event::StartDocument {
            version,
            encoding,
            standalone,
        });
        Ok(())
    }

    /// The notations' and unparsed entities' events.
    pub(crate) fn decls(
        &mut self,
        notations: Option<V<'a>>,
        unparsed: Option<V<'a>>,
    ) -> Result<Vec<Event<'a>>> {
        let mut decls = vec![];
        if let Some(V::List(items)) = notations {
            for it in items {
                let mut it = seq(it, 4, self.format)?;
                let name = self.s(it[0].take().ok_or_else(|| self.shape())?)?;
                let system_id = self.opt_s(it[1].take())?;
                let public_id = self.opt_s(it[2].take())?;
                decls.push(Event::Notation {
                    name,
                    public_id,
                    system_id,
                });
            }
        }
        if let Some(V::List(items)) = unparsed {
            for it in items {
                let mut it = seq(it, 6, self.format)?;
                let name = self.s(it[0].take().ok_or_else(|| self.shape())?)?;
                let system_id = self.opt_s(it[1].take())?.unwrap_or(Cow::Borrowed(""));
                let public_id = self.opt_s(it[2].take())?;
                let notation = self.s(it[4].take().ok_or_else(|| self.shape())?)?;
                decls.push(Event::UnparsedEntity {
                    name,
                    public_id,
                    system_id,
                    notation,
                });
            }
        }
        Ok(decls)
    }

    /// A DocumentTypeDeclaration, followed by the declarations.
    pub(crate) fn dtd(&mut self, v: V<'a>, decls: &mut Vec<Event<'a>>) -> Result<()> {
        let mut d = seq(v, 3, self.format)?;
        let system_id = self.opt_s(d[0].take())?;
        let public_id = self.opt_s(d[1].take())?;
        let mut internal_subset = None;
        if let Some(V::List(pis)) = d[2].take() {
            for pi in pis {
                let mut p = seq(pi, 4, self.format)?;
                let target = self.s(p[0].take().ok_or_else(|| self.shape())?)?;
                let content = self.s(p[1].take().ok_or_else(|| self.shape())?)?;
                // other processing instructions of the DTD have no event
                if target == crate::sentinel::INTERNAL_SUBSET_TARGET {
                    internal_subset = Some(content);
                }
            }
        }
        self.out.push(Event::DocType(DocType {
            name: Cow::Borrowed(""),
            public_id,
            system_id,
            internal_subset,
        }));
        self.out.append(decls);
        Ok(())
    }

    pub fn document(&mut self, doc: V<'a>) -> Result<()> {
        let mut f = seq(doc, 10, self.format)?;
        // tables first: they come last in the value
        self.tables(f[8].take(), f[9].take())?;
        let standalone = match f[5] {
            Some(V::Bool(b)) => Some(b),
            _ => None,
        };
        self.start(f[4].take(), standalone, f[6].take())?;
        let Some(V::List(children)) = f[0].take() else {
            return Err(self.shape());
        };
        let mut decls = self.decls(f[1].take(), f[2].take())?;
        let has_dtd = children.iter().any(|c| matches!(c, V::Choice(3, _)));
        if !has_dtd && !decls.is_empty() {
            self.out.push(Event::DocType(DocType::default()));
            self.out.append(&mut decls);
        }
        for c in children {
            let V::Choice(alt, c) = c else {
                return Err(self.shape());
            };
            match alt {
                0 => self.element(*c, &Cow::Borrowed(""), 1)?,
                1 => self.pi(*c)?,
                2 => self.comment(*c)?,
                _ => self.dtd(*c, &mut decls)?,
            }
        }
        self.out.push(Event::EndDocument);
        Ok(())
    }

    pub(crate) fn pi(&mut self, v: V<'a>) -> Result<()> {
        let mut f = seq(v, 4, self.format)?;
        let target = self.s(f[0].take().ok_or_else(|| self.shape())?)?;
        let data = self.s(f[1].take().ok_or_else(|| self.shape())?)?;
        self.out.push(Event::ProcessingInstruction { target, data });
        Ok(())
    }

    pub(crate) fn comment(&mut self, v: V<'a>) -> Result<()> {
        let mut f = seq(v, 1, self.format)?;
        let c = self.s(f[0].take().ok_or_else(|| self.shape())?)?;
        self.out.push(Event::Comment(c));
        Ok(())
    }

    /// (namespace, local, prefix) of an element's or attribute's `name` CHOICE.
    fn name(
        &mut self,
        v: V<'a>,
        same: &Cow<'a, str>,
        prev: Option<&Cow<'a, str>>,
    ) -> Result<Name<'a>> {
        match v {
            V::Choice(0, b) => {
                let mut f = seq(*b, 3, self.format)?;
                let ns = match f[0].take() {
                    None => Cow::Borrowed(""),
                    Some(V::Choice(0, x)) => self.s(*x)?,
                    Some(V::Choice(1, _)) => self.copy(same)?,
                    Some(V::Choice(2, _)) => match prev {
                        Some(p) => self.copy(p)?,
                        None => {
                            return Err(Error::malformed(
                                self.format,
                                0,
                                "same-as-previous-attribute on the first attribute",
                            ));
                        }
                    },
                    _ => return Err(self.shape()),
                };
                let local = self.s(f[1].take().ok_or_else(|| self.shape())?)?;
                let prefix = self.opt_s(f[2].take())?.unwrap_or(Cow::Borrowed(""));
                Ok((ns, local, prefix))
            }
            V::Choice(1, b) => self.common(&b),
            _ => Err(self.shape()),
        }
    }

    pub(crate) fn attributes(
        &mut self,
        v: Option<V<'a>>,
        owner: &Cow<'a, str>,
        nss: &mut Vec<Event<'a>>,
        attrs: &mut Vec<Event<'a>>,
    ) -> Result<()> {
        let Some(V::List(items)) = v else {
            return Ok(());
        };
        let mut prev: Option<Cow<'a, str>> = None;
        for it in items {
            let mut f = seq(it, 5, self.format)?;
            let (ns, local, prefix) = self.name(
                f[0].take().ok_or_else(|| self.shape())?,
                owner,
                prev.as_ref(),
            )?;
            let value = self.s(f[1].take().ok_or_else(|| self.shape())?)?;
            if ns == XMLNS_NS {
                if prefix == "xmlns" {
                    nss.push(Event::Namespace {
                        prefix: local,
                        uri: value,
                    });
                } else if prefix.is_empty() && local == "xmlns" {
                    nss.push(Event::Namespace {
                        prefix: Cow::Borrowed(""),
                        uri: value,
                    });
                } else {
                    return Err(Error::malformed(
                        self.format,
                        0,
                        format!("bad namespace attribute {prefix}:{local}"),
                    ));
                }
            } else {
                attrs.push(Event::Attribute {
                    name: QName {
                        prefix,
                        namespace: ns.clone(),
                        local,
                    },
                    value,
                });
            }
            prev = Some(ns);
        }
        Ok(())
    }

    fn element(&mut self, v: V<'a>, parent_ns: &Cow<'a, str>, depth: usize) -> Result<()> {
        crate::deep(|| self.element_inner(v, parent_ns, depth))
    }

    fn element_inner(&mut self, v: V<'a>, parent_ns: &Cow<'a, str>, depth: usize) -> Result<()> {
        if depth > self.limits.max_depth {
            return Err(Error::limit(self.format, 0, "elements nested too deep"));
        }
        let mut f = seq(v, 6, self.format)?;
        let (namespace, local, prefix) =
            self.name(f[0].take().ok_or_else(|| self.shape())?, parent_ns, None)?;
        self.out.push(Event::StartElement(QName {
            prefix,
            namespace: namespace.clone(),
            local,
        }));
        let mut nss = vec![];
        let mut attrs = vec![];
        self.attributes(f[3].take(), &namespace, &mut nss, &mut attrs)?;
        self.attributes(f[2].take(), &namespace, &mut nss, &mut attrs)?;
        self.out.append(&mut nss);
        self.out.append(&mut attrs);
        match f[1].take() {
            Some(V::Choice(0, s)) => {
                let text = self.s(*s)?;
                self.out.push(Event::Characters { text, cdata: false });
            }
            Some(V::Choice(1, l)) => {
                let V::List(items) = *l else {
                    return Err(self.shape());
                };
                for c in items {
                    let V::Choice(alt, c) = c else {
                        return Err(self.shape());
                    };
                    match alt {
                        0 => self.element(*c, &namespace, depth + 1)?,
                        1 => self.pi(*c)?,
                        2 => self.uer(*c)?,
                        3 => {
                            let mut ch = seq(*c, 2, self.format)?;
                            match ch[0].take() {
                                Some(V::Choice(0, s)) => {
                                    let text = self.s(*s)?;
                                    self.out.push(Event::Characters { text, cdata: false });
                                }
                                Some(V::Choice(1, b)) => {
                                    let V::Bytes(b) = *b else {
                                        return Err(self.shape());
                                    };
                                    self.out.push(Event::Typed(Typed::Base64(b)));
                                }
                                _ => return Err(self.shape()),
                            }
                        }
                        _ => self.comment(*c)?,
                    }
                }
            }
            _ => return Err(self.shape()),
        }
        self.out.push(Event::EndElement);
        Ok(())
    }

    /// An UnexpandedEntityReference.
    pub(crate) fn uer(&mut self, v: V<'a>) -> Result<()> {
        let mut u = seq(v, 4, self.format)?;
        let name = self.s(u[0].take().ok_or_else(|| self.shape())?)?;
        let system_id = self.known(u[1].take())?;
        let public_id = self.known(u[2].take())?;
        self.out.push(Event::EntityReference {
            name,
            public_id,
            system_id,
        });
        Ok(())
    }

    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// `CHOICE { x URIOrIndex, unknown NULL } OPTIONAL`.
    pub(crate) fn known(&mut self, v: Option<V<'a>>) -> Result<Option<Cow<'a, str>>> {
        match v {
            Some(V::Choice(0, x)) => Ok(Some(self.s(*x)?)),
            _ => Ok(None),
        }
    }
}
