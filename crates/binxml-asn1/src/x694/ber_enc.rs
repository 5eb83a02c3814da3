//! Events to BER (X.690, definite lengths), guided by the mapped module: the same walk over
//! the document as the PER encoder (`enc.rs`), with the tags that the module's AUTOMATIC
//! TAGS imply. The n-th component of a SEQUENCE or alternative of a CHOICE is tagged `[n]`,
//! implicitly, but explicitly when its type is a CHOICE (X.680: a tag on a CHOICE type is
//! explicit); a SEQUENCE OF's
//! items and the root value keep their universal tags (an untagged CHOICE is its alternative's
//! encoding).

use binxml_core::{Event, Format, Result, XmlFragments};

use super::ber::{BerWriter, SEQUENCE, Tag, context, integer_content, universal};
use super::enc::{AllGroup, Enc, Open};
use super::map::{Comp, Kind, Module, Role, TyId, is_content};
use super::simple::{self, Refusal};

struct BerEnc<'e> {
    e: Enc<'e>,
    w: BerWriter,
}

/// Encodes a whole document (its events) as a value of the root type `root`.
pub fn encode(
    m: &Module,
    root: usize,
    events: &[Event<'static>],
    format: Format,
    fragments: Option<&dyn XmlFragments>,
) -> Result<Vec<u8>> {
    let mut b = BerEnc {
        e: Enc::new(m, events, format, fragments),
        w: BerWriter::default(),
    };
    let ty = b.e.root(root)?;
    b.element(ty, None)?;
    b.e.end()?;
    Ok(b.w.finish())
}

/// The universal tag of a simple type's values, and whether they are constructed.
pub fn simple_tag(kind: &Kind) -> Option<(Tag, bool)> {
    Some(match kind {
        Kind::Boolean => (universal(1), false),
        Kind::Integer { .. } => (universal(2), false),
        Kind::Octets { .. } => (universal(4), false),
        Kind::Enumerated(_) => (universal(10), false),
        Kind::Utf8 { .. } => (universal(12), false),
        Kind::Visible { .. } => (universal(26), false),
        Kind::List { .. } => (SEQUENCE, true),
        _ => return None,
    })
}

impl BerEnc<'_> {
    /// An element (at its start tag) with type `ty`, tagged `[tag]` as a component.
    fn element(&mut self, ty: TyId, tag: Option<usize>) -> Result<()> {
        let m = self.e.m;
        let mut o = self.e.open();
        let mut kind = m.resolve(ty);
        let mut tag = tag.map(context);
        let mut explicit = None;
        if let Kind::Derivations { declared, alts } = kind {
            // A CHOICE: an explicit tag around the alternative's, `[i]`.
            let i = self.e.pick_type(&mut o, *declared, alts)?;
            explicit = tag.map(|t| self.w.open(t));
            tag = Some(context(i));
            kind = m.resolve(alts[i].ty);
        }
        match kind {
            Kind::Sequence(comps) => {
                let mark = self.w.open(tag.unwrap_or(SEQUENCE));
                self.sequence(comps, Some(&mut o))?;
                self.w.close(mark);
            }
            kind => {
                let text = self.e.text()?;
                self.simple(kind, tag, &text).map_err(|e| self.e.err(e))?;
            }
        }
        if let Some(mark) = explicit {
            self.w.close(mark);
        }
        self.e.close(o)
    }

    /// A SEQUENCE's components (its tag is written by the caller); attributes from `attrs`.
    fn sequence(&mut self, comps: &[Comp], mut attrs: Option<&mut Open>) -> Result<()> {
        let m = self.e.m;
        // An `all` group: where each element is (by content component), and the next
        // content component's index.
        let mut all: Option<AllGroup> = None;
        let mut next = 0;
        for (k, c) in comps.iter().enumerate() {
            if let Some(g) = &all
                && is_content(&c.role)
            {
                let at = g.at[next];
                next += 1;
                match at {
                    Some(p) => {
                        self.e.seek(p);
                        self.value(c, Some(k))?;
                    }
                    None if c.optional => {}
                    None => return Err(self.e.err(format!("element {} is missing", c.ident))),
                }
                continue;
            }
            match &c.role {
                Role::Order => {
                    let g = self.e.all_group(comps)?;
                    let mark = self.w.open(context(k));
                    for &j in &g.order {
                        self.w.primitive(universal(10), &integer_content(j as i128));
                    }
                    self.w.close(mark);
                    all = Some(g);
                }
                Role::Attr(name) => {
                    match attrs.as_deref_mut().and_then(|o| self.e.attribute(o, name)) {
                        Some(v) => self
                            .simple(m.resolve(c.ty), Some(context(k)), v)
                            .map_err(|e| self.e.err(format!("attribute {name}: {e}")))?,
                        None if c.optional => {}
                        None => return Err(self.e.err(format!("attribute {name} is missing"))),
                    }
                }
                Role::Text => {
                    let text = self.e.text()?;
                    self.simple(m.resolve(c.ty), Some(context(k)), &text)
                        .map_err(|e| self.e.err(e))?;
                }
                Role::AnyAttr(_) => {
                    let segs = self.e.any_attributes(attrs.as_deref_mut());
                    if segs.is_empty() {
                        continue;
                    }
                    let mark = self.w.open(context(k));
                    for seg in &segs {
                        self.w.primitive(universal(12), seg.as_bytes());
                    }
                    self.w.close(mark);
                }
                Role::Embed => {
                    let segs = self.e.embedded();
                    let mark = self.w.open(context(k));
                    for seg in &segs {
                        self.w.primitive(universal(12), seg.as_bytes());
                    }
                    self.w.close(mark);
                }
                Role::Nil => {
                    if !self.e.nil(attrs.as_deref_mut())? {
                        match m.resolve(c.ty) {
                            Kind::Sequence(comps) => {
                                let mark = self.w.open(context(k));
                                self.sequence(comps, None)?;
                                self.w.close(mark);
                            }
                            kind => {
                                let text = self.e.text()?;
                                self.simple(kind, Some(context(k)), &text)
                                    .map_err(|e| self.e.err(e))?;
                            }
                        }
                    }
                }
                _ => {
                    if c.optional && !self.e.matches(c) {
                        continue;
                    }
                    self.value(c, Some(k))?;
                }
            }
        }
        if let Some(g) = all {
            self.e.seek(g.end);
        }
        Ok(())
    }

    /// The value of a content component (an element or a group), tagged `[tag]`.
    fn value(&mut self, c: &Comp, tag: Option<usize>) -> Result<()> {
        match &c.role {
            Role::Elem(name) => {
                self.e.expect(name)?;
                self.element(c.ty, tag)
            }
            Role::Group => self.group(c.ty, tag),
            Role::Wildcard(_) => {
                let text = self.e.wildcard()?;
                self.w
                    .primitive(tag.map(context).unwrap_or(universal(12)), text.as_bytes());
                Ok(())
            }
            Role::Attr(_)
            | Role::AnyAttr(_)
            | Role::Text
            | Role::Type(_)
            | Role::Nil
            | Role::Embed
            | Role::Order => Err(self.e.err("internal: attribute in content")),
        }
    }

    fn group(&mut self, ty: TyId, tag: Option<usize>) -> Result<()> {
        let m = self.e.m;
        match m.resolve(ty) {
            Kind::Sequence(comps) => {
                let mark = self.w.open(tag.map(context).unwrap_or(SEQUENCE));
                self.sequence(comps, None)?;
                self.w.close(mark);
                Ok(())
            }
            Kind::Choice(alts) => {
                let i = self.e.choose(alts)?;
                let explicit = tag.map(|t| self.w.open(context(t)));
                self.value(&alts[i], Some(i))?;
                if let Some(mark) = explicit {
                    self.w.close(mark);
                }
                Ok(())
            }
            Kind::SeqOf { item, min, max } => {
                let mark = self.w.open(tag.map(context).unwrap_or(SEQUENCE));
                let mut n = 0u64;
                while max.is_none_or(|mx| n < mx) && self.e.matches(item) {
                    let before = self.e.at();
                    self.value(item, None)?;
                    n += 1;
                    if self.e.at() == before {
                        break;
                    }
                }
                if n < *min {
                    return Err(self
                        .e
                        .err(format!("{n} items where at least {min} are needed")));
                }
                self.w.close(mark);
                Ok(())
            }
            _ => Err(self.e.err("internal: a simple type as a group")),
        }
    }

    /// A simple value of `kind` from its text, tagged `tag` (else its universal tag).
    fn simple(&mut self, kind: &Kind, tag: Option<Tag>, text: &str) -> Result<(), Refusal> {
        let m = self.e.m;
        let (universal, _) =
            simple_tag(kind).ok_or("a simple value where the type is structured")?;
        let tag = tag.unwrap_or(universal);
        match kind {
            Kind::Boolean => {
                let b = simple::boolean(text)?;
                self.w.primitive(tag, &[if b { 0xFF } else { 0 }]);
            }
            Kind::Integer { lo, hi } => {
                let v = simple::integer(text, *lo, *hi)?;
                self.w.primitive(tag, &integer_content(v));
            }
            Kind::Enumerated(items) => {
                let i = simple::enumerated(items, text)?;
                self.w.primitive(tag, &integer_content(i as i128));
            }
            Kind::Utf8 { ws, .. } => self.w.primitive(tag, ws.apply(text).as_bytes()),
            Kind::Visible { alphabet } => {
                let idx = simple::visible(alphabet, text)?;
                let bytes: Vec<u8> = idx.iter().map(|&i| alphabet[i] as u8).collect();
                self.w.primitive(tag, &bytes);
            }
            Kind::Octets { hex, min, max } => {
                let b = simple::octets(*hex, text)?;
                size(b.len(), *min, *max)?;
                self.w.primitive(tag, &b);
            }
            Kind::List { item, min, max } => {
                let t = binxml_schema::datatypes::WhiteSpace::Collapse.apply(text);
                let items = simple::list_items(&t);
                size(items.len(), *min, *max)?;
                let ik = m.resolve(*item);
                let mark = self.w.open(tag);
                for it in items {
                    self.simple(ik, None, it)?;
                }
                self.w.close(mark);
            }
            _ => return Err("a simple value where the type is structured".into()),
        }
        Ok(())
    }
}

fn size(n: usize, min: u64, max: Option<u64>) -> Result<(), Refusal> {
    if (n as u64) < min || max.is_some_and(|m| n as u64 > m) {
        return Err(format!("{n} items or octets outside the size constraint"));
    }
    Ok(())
}
