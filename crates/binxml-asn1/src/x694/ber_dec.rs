//! BER to events, guided by the mapped module, with the tags of `ber_enc.rs`. The input is
//! hostile: every length is checked against the value that encloses it before anything is
//! read, every value must have the tag and the form its place in the module gives it, a
//! constructed value must be read to its end, and the events go through the same depth limit
//! and budget as the PER decoder's (`dec.rs`). Lengths are definite (what the encoder writes);
//! strings are primitive.

use binxml_core::{Event, EventSink, Format, QName, Result};

use super::ber::{BerReader, SEQUENCE, Tag, context, integer_value, universal};
use super::ber_enc::simple_tag;
use super::dec::{Ctx, Emit};
use super::map::{Comp, Kind, Role, TyId, is_content};
use super::simple;

struct BerDec<'a, 'm, 's, S> {
    r: BerReader<'a>,
    o: Emit<'m, 's, S>,
}

/// Decodes a whole BER encoding into `sink`, event by event (an error can come after some
/// events were handed over).
pub fn decode_into<'e, S: EventSink<'e>>(
    ctx: &Ctx<'_>,
    root: usize,
    data: &[u8],
    format: Format,
    sink: &mut S,
) -> Result<()> {
    let m = ctx.m;
    let mut d = BerDec {
        r: BerReader::new(data, format),
        o: Emit::new(ctx, sink, format, data.len()),
    };
    d.push(&Event::StartDocument {
        version: None,
        encoding: None,
        standalone: None,
    })?;
    let (name, ty) = &m.roots[root];
    d.element(*ty, &m.qname(name), true, None, data.len())?;
    d.push(&Event::EndDocument)?;
    if d.r.pos() != data.len() {
        return Err(d
            .r
            .err(format!("{} octets after the value", data.len() - d.r.pos())));
    }
    Ok(())
}

impl<'e, S: EventSink<'e>> BerDec<'_, '_, '_, S> {
    fn at(&self) -> usize {
        self.r.pos() * 8
    }

    fn push(&mut self, ev: &Event<'_>) -> Result<()> {
        self.o.push(ev, self.at())
    }

    /// The alternative of a CHOICE of `n` alternatives that the next tag names.
    fn alternative(&self, n: usize, end: usize) -> Result<usize> {
        match self.r.peek(end)? {
            Some(t) if t.class == 0x80 && (t.number as usize) < n => Ok(t.number as usize),
            Some(_) => Err(self.r.err(format!(
                "a tag that names none of the {n} alternatives of a CHOICE"
            ))),
            None => Err(self
                .r
                .err("a CHOICE's value expected, the enclosing value ends")),
        }
    }

    /// An element of type `ty`, tagged `[tag]` as a component, within the value ending at
    /// `end`.
    fn element(
        &mut self,
        ty: TyId,
        name: &QName<'_>,
        root: bool,
        tag: Option<usize>,
        end: usize,
    ) -> Result<()> {
        let m = self.o.m;
        let mut id = m.resolve_id(ty);
        let mut kind = &m.types[id].kind;
        let mut tag = tag.map(context);
        let mut xsi_type = None;
        let mut end = end;
        let mut explicit = None;
        if let Kind::Derivations { declared, alts } = kind {
            if let Some(t) = tag {
                let (_, e) = self.r.expect(t, true, end)?;
                explicit = Some(e);
                end = e;
            }
            if alts.is_empty() {
                return Err(self
                    .r
                    .err("an element of an abstract type with no concrete derivation"));
            }
            let i = self.alternative(alts.len(), end)?;
            if Some(i) != *declared
                && let Role::Type(_) = &alts[i].role
            {
                xsi_type = Some(&alts[i].qname);
            }
            tag = Some(context(i));
            id = m.resolve_id(alts[i].ty);
            kind = &m.types[id].kind;
        }
        self.o
            .start(name, root, xsi_type, m.any_attr[id], self.at())?;
        stacker::maybe_grow(32 * 1024, 1024 * 1024, || match kind {
            Kind::Sequence(comps) => {
                let (_, e) = self.r.expect(tag.unwrap_or(SEQUENCE), true, end)?;
                self.sequence(comps, e)?;
                self.r.at_end(e)
            }
            kind => {
                let s = self.simple(kind, tag, end)?;
                self.o.text(&s, self.at())
            }
        })?;
        if let Some(e) = explicit {
            self.r.at_end(e)?;
        }
        self.o.end(self.at())
    }

    /// A SEQUENCE's components, up to `end`: the n-th is there when the next tag is `[n]`.
    fn sequence(&mut self, comps: &[Comp], end: usize) -> Result<()> {
        if comps.first().is_some_and(|c| c.role == Role::Order) {
            return self.all_group(comps, end);
        }
        for (k, c) in comps.iter().enumerate() {
            self.sequence_one(k, c, end)?;
        }
        Ok(())
    }

    /// Component `k` of a SEQUENCE, `c`: there when the next tag is `[k]`.
    fn sequence_one(&mut self, k: usize, c: &Comp, end: usize) -> Result<()> {
        let m = self.o.m;
        if self.r.peek(end)? != Some(context(k)) {
            if c.role == Role::Nil {
                self.o.nil(self.at())?;
            }
            if c.optional {
                return Ok(());
            }
            return Err(self
                .r
                .err(format!("component {} ([{k}]) is missing", c.ident)));
        }
        match &c.role {
            Role::Attr(_) => {
                let s = self.simple(m.resolve(c.ty), Some(context(k)), end)?;
                self.o.attribute(&c.qname, &s, self.at())?;
            }
            Role::Text => {
                let s = self.simple(m.resolve(c.ty), Some(context(k)), end)?;
                self.o.text(&s, self.at())?;
            }
            Role::Embed => {
                let (_, e) = self.r.expect(context(k), true, end)?;
                self.o.embed_begin();
                while self.r.pos() < e {
                    let (len, _) = self.r.expect(universal(12), false, e)?;
                    let s = std::str::from_utf8(self.r.take(len))
                        .map_err(|_| self.r.err("UTF8String is not UTF-8"))?;
                    self.o.embed_push(s);
                }
            }
            Role::AnyAttr(allowed) => {
                let (_, e) = self.r.expect(context(k), true, end)?;
                while self.r.pos() < e {
                    let at = self.at();
                    let (len, _) = self.r.expect(universal(12), false, e)?;
                    let s = std::str::from_utf8(self.r.take(len))
                        .map_err(|_| self.r.err("UTF8String is not UTF-8"))?;
                    self.o.any_attribute(s, allowed, at)?;
                }
                self.o.release()?;
            }
            Role::Nil => match m.resolve(c.ty) {
                Kind::Sequence(comps) => {
                    let (_, e) = self.r.expect(context(k), true, end)?;
                    self.sequence(comps, e)?;
                    self.r.at_end(e)?;
                }
                kind => {
                    let s = self.simple(kind, Some(context(k)), end)?;
                    self.o.text(&s, self.at())?;
                }
            },
            Role::Order => return Err(self.r.err("internal: an order not first")),
            _ => self.value(c, Some(k), end)?,
        }
        Ok(())
    }

    /// A SEQUENCE that holds an `all` group: `order` (`[0]`, a SEQUENCE OF ENUMERATED) says in
    /// which order the document has the elements, whose values follow in the module's order;
    /// each is found by its tag and read in document order.
    fn all_group(&mut self, comps: &[Comp], end: usize) -> Result<()> {
        let content: Vec<(usize, &Comp)> = comps
            .iter()
            .enumerate()
            .filter(|(_, c)| is_content(&c.role))
            .collect();
        let mut order = Vec::new();
        let (_, e) = self.r.expect(context(0), true, end)?;
        while self.r.pos() < e {
            let (len, _) = self.r.expect(universal(10), false, e)?;
            let at = self.r.pos();
            let j = integer_value(self.r.take(len))
                .ok()
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&j| j < content.len())
                .ok_or_else(|| {
                    self.r.err(format!(
                        "order item at {at}: not a value of the enumeration"
                    ))
                })?;
            order.push(j);
        }
        let mut starts = vec![None; content.len()];
        let mut next = 0;
        for (k, c) in comps.iter().enumerate().skip(1) {
            let tag = self.r.peek(end)?;
            if is_content(&c.role) {
                if tag == Some(context(k)) {
                    starts[next] = Some(self.r.pos());
                    let h = self.r.header(end)?;
                    self.r.take(h.len);
                } else if !c.optional {
                    return Err(self
                        .r
                        .err(format!("component {} ([{k}]) is missing", c.ident)));
                }
                next += 1;
                continue;
            }
            // The attributes (and mixed content's strings) before the group's elements.
            self.sequence_one(k, c, end)?;
        }
        let after = self.r.pos();
        let present = starts.iter().filter(|s| s.is_some()).count();
        if order.len() != present {
            return Err(self.r.err(format!(
                "the order names {} elements, {present} are present",
                order.len()
            )));
        }
        for &j in &order {
            let Some(at) = starts[j].take() else {
                return Err(self.r.err(format!(
                    "the order names {} twice or absent",
                    content[j].1.ident
                )));
            };
            self.r.seek(at);
            let (k, c) = content[j];
            self.value(c, Some(k), end)?;
        }
        self.r.seek(after);
        Ok(())
    }

    fn value(&mut self, c: &Comp, tag: Option<usize>, end: usize) -> Result<()> {
        match &c.role {
            Role::Elem(_) => self.element(c.ty, &c.qname, false, tag, end),
            Role::Group => self.group(c.ty, tag, end),
            Role::Type(_) => Err(self.r.err("internal: a type alternative as content")),
            Role::Wildcard(allowed) => {
                let at = self.at();
                let (len, _) =
                    self.r
                        .expect(tag.map(context).unwrap_or(universal(12)), false, end)?;
                let s = std::str::from_utf8(self.r.take(len))
                    .map_err(|_| self.r.err("UTF8String is not UTF-8"))?;
                self.o.wildcard(s, allowed, at)
            }
            Role::Attr(_)
            | Role::AnyAttr(_)
            | Role::Text
            | Role::Nil
            | Role::Embed
            | Role::Order => Err(self.r.err("internal: attribute in content")),
        }
    }

    fn group(&mut self, ty: TyId, tag: Option<usize>, end: usize) -> Result<()> {
        let m = self.o.m;
        match m.resolve(ty) {
            Kind::Sequence(comps) => {
                let (_, e) = self
                    .r
                    .expect(tag.map(context).unwrap_or(SEQUENCE), true, end)?;
                self.sequence(comps, e)?;
                self.r.at_end(e)
            }
            Kind::Choice(alts) => {
                let mut inner = end;
                if let Some(t) = tag {
                    (_, inner) = self.r.expect(context(t), true, end)?;
                }
                let i = self.alternative(alts.len(), inner)?;
                self.value(&alts[i], Some(i), inner)?;
                if tag.is_some() {
                    self.r.at_end(inner)?;
                }
                Ok(())
            }
            Kind::SeqOf { item, min, max } => {
                let (_, e) = self
                    .r
                    .expect(tag.map(context).unwrap_or(SEQUENCE), true, end)?;
                // Every item has a header of its own: the count is bounded by the input.
                let mut n = 0u64;
                while self.r.pos() < e {
                    self.value(item, None, e)?;
                    n += 1;
                }
                if n < *min || max.is_some_and(|mx| n > mx) {
                    return Err(self.r.err(format!("{n} items outside the size constraint")));
                }
                Ok(())
            }
            _ => Err(self.r.err("internal: a simple type as a group")),
        }
    }

    /// A simple value of `kind`, tagged `tag` (else its universal tag): its canonical text.
    fn simple(&mut self, kind: &Kind, tag: Option<Tag>, end: usize) -> Result<String> {
        let m = self.o.m;
        let Some((universal, constructed)) = simple_tag(kind) else {
            return Err(self
                .r
                .err("internal: a structured type read as a simple value"));
        };
        let (len, e) = self.r.expect(tag.unwrap_or(universal), constructed, end)?;
        let mut out = String::new();
        if let Kind::List { item, min, max } = kind {
            let ik = m.resolve(*item);
            let mut n = 0u64;
            while self.r.pos() < e {
                if n > 0 {
                    out.push(' ');
                }
                out.push_str(&self.simple(ik, None, e)?);
                n += 1;
            }
            if n < *min || max.is_some_and(|mx| n > mx) {
                return Err(self.r.err(format!("{n} items outside the size constraint")));
            }
            return Ok(out);
        }
        let content = self.r.take(len);
        match kind {
            Kind::Boolean => match content {
                [b] => out.push_str(if *b != 0 { "true" } else { "false" }),
                _ => return Err(self.r.err(format!("a BOOLEAN of {len} octets"))),
            },
            Kind::Integer { lo, hi } => {
                let v = integer_value(content).map_err(|e| self.r.err(e))?;
                if lo.is_some_and(|l| v < l) || hi.is_some_and(|h| v > h) {
                    return Err(self.r.err(format!("integer {v} outside its range")));
                }
                out.push_str(&v.to_string());
            }
            Kind::Enumerated(items) => {
                let v = integer_value(content).map_err(|e| self.r.err(e))?;
                let item = usize::try_from(v).ok().and_then(|i| items.get(i));
                let (_, value) =
                    item.ok_or_else(|| self.r.err(format!("enumeration {v} out of range")))?;
                out.push_str(value);
            }
            Kind::Utf8 { .. } => {
                out.push_str(
                    std::str::from_utf8(content)
                        .map_err(|_| self.r.err("UTF8String is not UTF-8"))?,
                );
            }
            Kind::Visible { alphabet } => {
                for &b in content {
                    let c = b as char;
                    if alphabet.binary_search(&c).is_err() {
                        return Err(self.r.err(format!("{c:?} outside the permitted alphabet")));
                    }
                    out.push(c);
                }
            }
            Kind::Octets { hex, min, max } => {
                let n = content.len() as u64;
                if n < *min || max.is_some_and(|mx| n > mx) {
                    return Err(self
                        .r
                        .err(format!("{n} octets outside the size constraint")));
                }
                simple::octets_text(*hex, content, &mut out);
            }
            _ => return Err(self.r.err("internal: a structured type as a simple value")),
        }
        Ok(out)
    }
}
