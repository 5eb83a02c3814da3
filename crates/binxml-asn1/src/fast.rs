//! The PER decoder's fast path: no abstract value of the whole document.
//!
//! `Document`'s tables come after its children, and an `Element`'s attributes after its
//! children. Pass 1 skips through the children (checking them) and records, for every element
//! in document order, the bit offset of its attributes; then it decodes the rest of `Document`
//! (the tables). Pass 2 reads the children again and emits events straight from the bits,
//! reading each element's attributes at the recorded offset first. Small items (attributes,
//! PIs, entity references, the DTD) go through the generic value decoder.

use std::borrow::Cow;

use binxml_core::{DocType, Error, Event, Limits, QName, Result, Typed};

use crate::emit::Emitter;
use crate::per::PerReader;
use crate::schema::*;
use crate::value::V;

fn for_count<'a>(
    r: &mut PerReader<'a>,
    size: Option<(u64, u64)>,
    mut f: impl FnMut(&mut PerReader<'a>) -> Result<()>,
) -> Result<()> {
    let (mut n, mut more) = r.count_first(size)?;
    loop {
        for _ in 0..n {
            f(r)?;
        }
        if !more {
            return Ok(());
        }
        (n, more) = r.count_next()?;
    }
}

struct Pass1 {
    attrs_at: Vec<usize>,
    max_depth: usize,
    format: &'static str,
}

impl Pass1 {
    fn element(&mut self, r: &mut PerReader<'_>, depth: usize) -> Result<()> {
        crate::deep(|| self.element_inner(r, depth))
    }

    fn element_inner(&mut self, r: &mut PerReader<'_>, depth: usize) -> Result<()> {
        if depth > self.max_depth {
            return Err(
                Error::limit(self.format, 0, "elements nested too deep").at_bit(r.bit_pos() as u64)
            );
        }
        let (p_attrs, p_ns, p_base) = (r.bit()?, r.bit()?, r.bit()?);
        let idx = self.attrs_at.len();
        self.attrs_at.push(0);
        r.skip(EL_NAME)?;
        if r.choice(2)? == 0 {
            r.skip(STR_IDX)?;
        } else {
            for_count(r, Some((0, 3)), |r| match r.choice(5)? {
                0 => self.element(r, depth + 1),
                1 => r.skip(PI),
                2 => r.skip(UER),
                3 => r.skip(CHARACTERS),
                _ => r.skip(COMMENT),
            })?;
        }
        self.attrs_at[idx] = r.bit_pos();
        if p_attrs {
            r.skip(ATTRS)?;
        }
        if p_ns {
            r.skip(ATTRS)?;
        }
        r.skip(INSCOPE)?;
        if p_base {
            r.skip(IDX_OR_NULL)?;
        }
        Ok(())
    }
}

struct Pass2<'e, 'a> {
    e: &'e mut Emitter<'a>,
    attrs_at: Vec<usize>,
    next: usize,
    max_depth: usize,
}

impl<'a> Pass2<'_, 'a> {
    /// A StringOrIndex.
    fn s(&mut self, r: &mut PerReader<'a>) -> Result<Cow<'a, str>> {
        if r.choice(2)? == 0 {
            r.utf8()
        } else {
            let (i, at) = r.int(0, 2047)?;
            self.e.lookup(i, at)
        }
    }

    fn element(
        &mut self,
        r: &mut PerReader<'a>,
        parent_ns: &Cow<'a, str>,
        depth: usize,
    ) -> Result<()> {
        crate::deep(|| self.element_inner(r, parent_ns, depth))
    }

    fn element_inner(
        &mut self,
        r: &mut PerReader<'a>,
        parent_ns: &Cow<'a, str>,
        depth: usize,
    ) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::limit(
                r_format(self.e),
                0,
                "elements nested too deep",
            ));
        }
        let (p_attrs, p_ns, p_base) = (r.bit()?, r.bit()?, r.bit()?);
        let attrs_at = *self.attrs_at.get(self.next).ok_or_else(|| self.e.shape())?;
        self.next += 1;
        let (namespace, local, prefix) = if r.choice(2)? == 0 {
            let (p_nsn, p_prefix) = (r.bit()?, r.bit()?);
            let ns = if !p_nsn {
                Cow::Borrowed("")
            } else if r.choice(2)? == 0 {
                self.s(r)?
            } else {
                self.e.copy(parent_ns)?
            };
            let local = self.s(r)?;
            let prefix = if p_prefix {
                self.s(r)?
            } else {
                Cow::Borrowed("")
            };
            (ns, local, prefix)
        } else {
            let (i, at) = r.int(0, 15)?;
            self.e.common(&V::Int(i, at))?
        };
        self.e.out.push(Event::StartElement(QName {
            prefix,
            namespace: namespace.clone(),
            local,
        }));
        // attributes first, from where pass 1 found them
        let children_at = r.bit_pos();
        r.set_bit_pos(attrs_at);
        let attrs = if p_attrs {
            Some(r.decode(ATTRS)?)
        } else {
            None
        };
        let ns_attrs = if p_ns { Some(r.decode(ATTRS)?) } else { None };
        let (mut nss, mut ats) = (vec![], vec![]);
        self.e
            .attributes(ns_attrs, &namespace, &mut nss, &mut ats)?;
        self.e.attributes(attrs, &namespace, &mut nss, &mut ats)?;
        self.e.out.append(&mut nss);
        self.e.out.append(&mut ats);
        r.skip(INSCOPE)?;
        if p_base {
            r.skip(IDX_OR_NULL)?;
        }
        let end = r.bit_pos();
        r.set_bit_pos(children_at);
        if r.choice(2)? == 0 {
            let text = self.s(r)?;
            self.e.out.push(Event::Characters { text, cdata: false });
        } else {
            for_count(r, Some((0, 3)), |r| {
                match r.choice(5)? {
                    0 => self.element(r, &namespace, depth + 1)?,
                    1 => {
                        let v = r.decode(PI)?;
                        self.e.pi(v)?;
                    }
                    2 => {
                        let v = r.decode(UER)?;
                        self.e.uer(v)?;
                    }
                    3 => {
                        if r.choice(2)? == 0 {
                            let text = self.s(r)?;
                            self.e.out.push(Event::Characters { text, cdata: false });
                        } else {
                            let b = r.bytes()?;
                            self.e.out.push(Event::Typed(Typed::Base64(b)));
                        }
                        r.bit()?; // element-content-whitespace
                    }
                    _ => {
                        let c = self.s(r)?;
                        self.e.out.push(Event::Comment(c));
                    }
                }
                Ok(())
            })?;
        }
        if r.bit_pos() != attrs_at {
            return Err(self.e.shape());
        }
        r.set_bit_pos(end);
        self.e.out.push(Event::EndElement);
        Ok(())
    }
}

fn r_format(e: &Emitter<'_>) -> &'static str {
    e.format()
}

/// Decodes a whole PER document into events.
pub(crate) fn decode<'a>(
    input: &'a [u8],
    aligned: bool,
    format: &'static str,
    limits: &Limits,
) -> Result<Vec<Event<'a>>> {
    let mut r = PerReader::new(input, aligned, format, limits);
    let (p_base, p_standalone, p_version) = (r.bit()?, r.bit()?, r.bit()?);
    let children_at = r.bit_pos();
    let mut p1 = Pass1 {
        attrs_at: Vec::new(),
        max_depth: limits.max_depth,
        format,
    };
    let mut has_dtd = false;
    for_count(&mut r, None, |r| match r.choice(4)? {
        0 => p1.element(r, 1),
        1 => r.skip(PI),
        2 => r.skip(COMMENT),
        _ => {
            has_dtd = true;
            r.skip(DTD)
        }
    })?;
    let notations_at = r.bit_pos();
    r.skip(NOTATIONS)?;
    r.skip(UNPARSEDS)?;
    if p_base {
        r.skip(STR_IDX)?;
    }
    let ces = r.decode(STR_IDX)?;
    let standalone = if p_standalone { Some(r.bit()?) } else { None };
    let version = if p_version {
        Some(r.decode(STR_IDX)?)
    } else {
        None
    };
    r.bit()?; // all-declarations-processed
    let cs = r.decode(CS_LIST)?;
    let cn = r.decode(CN_LIST)?;
    r.finish()?;

    let mut e = Emitter::new(format, false, limits.clone(), input.len());
    // about three events per element (start, text, end), without trusting the input further
    e.out.reserve(
        p1.attrs_at
            .len()
            .saturating_mul(3)
            .min(input.len().saturating_mul(8))
            + 8,
    );
    e.tables(Some(cs), Some(cn))?;
    e.start(Some(ces), standalone, version)?;
    r.set_bit_pos(notations_at);
    let notations = r.decode(NOTATIONS)?;
    let unparsed = r.decode(UNPARSEDS)?;
    let mut decls = e.decls(Some(notations), Some(unparsed))?;
    if !has_dtd && !decls.is_empty() {
        e.out.push(Event::DocType(DocType::default()));
        e.out.append(&mut decls);
    }
    r.set_bit_pos(children_at);
    let mut p2 = Pass2 {
        e: &mut e,
        attrs_at: p1.attrs_at,
        next: 0,
        max_depth: limits.max_depth,
    };
    for_count(&mut r, None, |r| {
        match r.choice(4)? {
            0 => p2.element(r, &Cow::Borrowed(""), 1)?,
            1 => {
                let v = r.decode(PI)?;
                p2.e.pi(v)?;
            }
            2 => {
                let v = r.decode(COMMENT)?;
                p2.e.comment(v)?;
            }
            _ => {
                let v = r.decode(DTD)?;
                p2.e.dtd(v, &mut decls)?;
            }
        }
        Ok(())
    })?;
    e.out.push(Event::EndDocument);
    Ok(std::mem::take(&mut e.out))
}
