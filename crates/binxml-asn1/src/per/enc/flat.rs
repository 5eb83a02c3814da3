//! The PER writer of the builder's flat operations ([`Flat`](crate::flat::Flat)).

use binxml_core::{Error, Result};

use super::PerWriter;
use crate::per::FRAG;
use crate::per::uper_bits;
use crate::value::V;

/// Where a list's items stand in its 16K fragments (X.691 10.9.3.8), for lists written one
/// item at a time.
struct Frags {
    /// items left in the current fragment
    left: usize,
    /// items after the current fragment
    after: usize,
    /// the current fragment is the last (its length below 16K)
    last: bool,
}

/// An element being written by [`PerWriter::encode_flat`].
struct FlatFrame {
    attrs: u32,
    n_ns: u32,
    n_attrs: u32,
    items: Frags,
}

impl<'r> PerWriter<'r> {
    /// The next fragment's header: what [`PerWriter::fragmented`] writes before its items.
    fn next_frag(&mut self, f: &mut Frags) {
        let rem = f.after;
        if rem >= FRAG {
            let m = (rem / FRAG).min(4);
            if self.aligned {
                self.align();
            }
            self.put(0xC0 | m as u64, 8);
            f.left = m * FRAG;
            f.after = rem - m * FRAG;
        } else {
            self.length(rem);
            f.left = rem;
            f.after = 0;
            f.last = true;
        }
    }

    /// A `SEQUENCE OF` of `n` items: its count (by `size`, as [`PerWriter::encode_inner`]
    /// writes it) and the state for its items.
    fn list_head(&mut self, n: usize, size: Option<(u64, u64)>) -> Frags {
        if let Some((lb, ub)) = size {
            let c = n as u64;
            if (lb..=ub).contains(&c) {
                self.put(0, 1);
                self.constrained(c - lb, ub - lb + 1);
                return Frags {
                    left: n,
                    after: 0,
                    last: true,
                };
            }
            self.put(1, 1);
        }
        let mut f = Frags {
            left: 0,
            after: n,
            last: false,
        };
        self.next_frag(&mut f);
        f
    }

    /// Before an item of a list: a new fragment's header where one begins.
    #[inline]
    fn list_item(&mut self, f: &mut Frags) -> Result<()> {
        while f.left == 0 {
            if f.last {
                return Err(Error::invalid_events(
                    self.format,
                    "internal: more items than counted",
                ));
            }
            self.next_frag(f);
        }
        f.left -= 1;
        Ok(())
    }

    /// After a list's last item: the closing empty fragment where the count is a multiple of
    /// 16K.
    fn list_end(&mut self, f: &mut Frags) -> Result<()> {
        while !f.last {
            if f.left != 0 {
                break;
            }
            self.next_frag(f);
        }
        if f.left != 0 || f.after != 0 {
            return Err(Error::invalid_events(
                self.format,
                "internal: fewer items than counted",
            ));
        }
        Ok(())
    }

    /// A StringOrIndex of the flat builder (a component-string id or an inline string).
    #[inline]
    fn flat_str(&mut self, r: u32, flat: &crate::flat::Flat) -> Result<()> {
        use crate::sentinel::INLINE;
        if r & INLINE != 0 {
            let t = flat
                .inline
                .get((r & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?;
            self.constrained(0, 2);
            return self.octets(t.as_bytes());
        }
        let refs = self
            .refs
            .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?;
        match refs.strings.get(r as usize) {
            Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => {
                self.constrained(0, 2);
                self.octets(refs.texts[r as usize].as_bytes())
            }
            Some(&pos) => {
                self.str_index(pos as u64);
                Ok(())
            }
            None => Err(self.mismatch(crate::schema::STR_IDX)),
        }
    }

    /// An element (`attr` false) or attribute name of the flat builder: a common name or a
    /// name written inline.
    #[inline]
    fn flat_name(&mut self, id: u32, flat: &crate::flat::Flat, attr: bool) -> Result<()> {
        use crate::flat::FNs;
        use crate::schema::{AT_NAME_SEQ, EL_NAME_SEQ};
        use crate::sentinel::{INLINE, NO_STR};
        if id & INLINE != 0 {
            let ty = if attr { AT_NAME_SEQ } else { EL_NAME_SEQ };
            let n = *flat
                .names
                .get((id & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(ty))?;
            // alternative 0, the SEQUENCE: presence of the namespace and the prefix
            self.constrained(0, 2);
            let p_ns = !matches!(n.ns, FNs::None);
            self.put((p_ns as u64) << 1 | (n.prefix != NO_STR) as u64, 2);
            // the namespace's CHOICE: a string, same-as-parent / -owner, same-as-previous
            let alts = if attr { 3 } else { 2 };
            match n.ns {
                FNs::None => {}
                FNs::Str(s) => {
                    self.constrained(0, alts);
                    self.flat_str(s, flat)?;
                }
                FNs::Same => self.constrained(1, alts),
                FNs::Prev if attr => self.constrained(2, alts),
                FNs::Prev => return Err(self.mismatch(ty)),
            }
            self.flat_str(n.local, flat)?;
            if n.prefix != NO_STR {
                self.flat_str(n.prefix, flat)?;
            }
            return Ok(());
        }
        let refs = self
            .refs
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        let pos = *refs
            .names
            .get(id as usize)
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        // `CHOICE { ..., common-name-index SmallIndex }`: alternative 1
        self.name_index(pos as u64);
        Ok(())
    }

    /// Writes `Document` whose children (and the elements in them) are `flat`'s operations
    /// (`doc`'s own `children` are not written): the same bits as [`PerWriter::encode`] of the
    /// whole value. `align`: give the first elements `base-URI` `same-as-parent-element` so
    /// that the component-strings block starts on an octet boundary (see `align_block`).
    pub(crate) fn encode_flat(
        &mut self,
        doc: &V<'_>,
        flat: &crate::flat::Flat,
        align: bool,
    ) -> Result<()> {
        use crate::flat::FOp;
        use crate::schema::*;
        let (Ty::Seq(fields), V::Seq(vals)) = (&TYPES[DOCUMENT], doc) else {
            return Err(self.mismatch(DOCUMENT));
        };
        if vals.len() != fields.len() {
            return Err(self.mismatch(DOCUMENT));
        }
        for ((_, opt), val) in fields.iter().zip(vals) {
            if *opt {
                self.put(val.is_some() as u64, 1);
            }
        }
        // the first elements' base-URI presence bit and where their base-URI goes
        let mut marks: Vec<(usize, usize)> = Vec::new();
        let mut open_marks: Vec<Option<usize>> = Vec::new();
        let mut doc_items = self.list_head(flat.doc_items, None);
        let mut stack: Vec<FlatFrame> = Vec::new();
        let mut i = 0;
        while i < flat.ops.len() {
            let op = flat.ops[i];
            i += 1;
            match op {
                FOp::Start {
                    name,
                    attrs,
                    n_ns,
                    n_attrs,
                    children,
                    ecc,
                } => {
                    match stack.last_mut() {
                        Some(p) => {
                            self.list_item(&mut p.items)?;
                            self.constrained(0, 5);
                        }
                        None => {
                            self.list_item(&mut doc_items)?;
                            self.constrained(0, 4);
                        }
                    }
                    let at = self.bit_len();
                    if align && marks.len() < 7 {
                        open_marks.push(Some(marks.len()));
                        marks.push((at + 2, 0));
                    } else {
                        open_marks.push(None);
                    }
                    self.put(((n_attrs > 0) as u64) << 2 | ((n_ns > 0) as u64) << 1, 3);
                    self.flat_name(name, flat, false)?;
                    let items = if ecc {
                        let Some(FOp::Text(t)) = flat.ops.get(i).copied() else {
                            return Err(self.mismatch(ELEMENT));
                        };
                        i += 1;
                        self.constrained(0, 2);
                        self.flat_str(t, flat)?;
                        Frags {
                            left: 0,
                            after: 0,
                            last: true,
                        }
                    } else {
                        self.constrained(1, 2);
                        self.list_head(children as usize, Some((0, 3)))
                    };
                    stack.push(FlatFrame {
                        attrs,
                        n_ns,
                        n_attrs,
                        items,
                    });
                }
                FOp::End { scope, n_scope, .. } => {
                    let Some(mut f) = stack.pop() else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    self.list_end(&mut f.items)?;
                    let a0 = f.attrs as usize;
                    let ns = a0..a0 + f.n_ns as usize;
                    let at = ns.end..ns.end + f.n_attrs as usize;
                    for range in [at, ns] {
                        let Some(list) = flat.attrs.get(range) else {
                            return Err(self.mismatch(ATTRS));
                        };
                        if list.is_empty() {
                            continue;
                        }
                        let mut fr = self.list_head(list.len(), Some((1, 4)));
                        for &(name, value) in list {
                            self.list_item(&mut fr)?;
                            // specified, attribute-type, references absent
                            self.put(0, 3);
                            self.flat_name(name, flat, true)?;
                            self.flat_str(value, flat)?;
                        }
                        self.list_end(&mut fr)?;
                    }
                    if flat.explicit_scopes {
                        // in-scope-namespaces: the list
                        let list = flat
                            .scope_list(scope, n_scope)
                            .ok_or_else(|| self.mismatch(NS_LIST))?;
                        self.constrained(0, 2);
                        let mut fr = self.list_head(list.len(), None);
                        for &(p, u) in list {
                            self.list_item(&mut fr)?;
                            self.put((p != crate::sentinel::NO_STR) as u64, 1);
                            if p != crate::sentinel::NO_STR {
                                self.flat_str(p, flat)?;
                            }
                            self.flat_str(u, flat)?;
                        }
                        self.list_end(&mut fr)?;
                    } else {
                        // in-scope-namespaces: same-as-parent-element
                        self.constrained(1, 2);
                    }
                    if let Some(Some(m)) = open_marks.pop() {
                        marks[m].1 = self.bit_len();
                    }
                }
                FOp::Text(t) => {
                    let Some(p) = stack.last_mut() else {
                        return Err(self.mismatch(DOC_CHILD));
                    };
                    self.list_item(&mut p.items)?;
                    // alternative 3 of 5 (3 bits), then Characters: a string (alternative 0 of
                    // its CHOICE, 1 bit), element-content-whitespace FALSE
                    self.put(3 << 1, 4);
                    self.flat_str(t, flat)?;
                    self.put(0, 1);
                }
                FOp::Child(alt, v) => {
                    let v = flat
                        .values
                        .get(v as usize)
                        .ok_or_else(|| self.mismatch(EL_CHILD))?;
                    let (list, alts) = match stack.last_mut() {
                        Some(p) => (&mut p.items, EL_CHILD),
                        None => (&mut doc_items, DOC_CHILD),
                    };
                    let Ty::Choice(alt_tys) = &TYPES[alts] else {
                        return Err(self.mismatch(alts));
                    };
                    let Some(&ty) = alt_tys.get(alt as usize) else {
                        return Err(self.mismatch(alts));
                    };
                    self.list_item(list)?;
                    self.constrained(alt as u64, alt_tys.len() as u64);
                    self.encode(ty, v)?;
                }
            }
        }
        if !stack.is_empty() {
            return Err(self.mismatch(ELEMENT));
        }
        self.list_end(&mut doc_items)?;
        if align {
            // the bits before the block: these and the small fields up to the block
            let refs = self.refs.ok_or_else(|| self.mismatch(DOCUMENT))?;
            let mut bits = self.bit_len() as u64;
            for ((fty, _), val) in fields.iter().zip(vals).take(8).skip(1) {
                if let Some(val) = val {
                    bits += uper_bits(*fty, val, refs);
                }
            }
            let need = ((8 - bits % 8) % 8) as usize;
            marks.truncate(need);
            if !marks.is_empty() {
                self.insert_marks(&marks);
            }
        }
        for ((fty, _), val) in fields.iter().zip(vals).skip(1) {
            match (&flat.common, val) {
                (Some(common), _) if *fty == CN_LIST => self.flat_common(common, flat)?,
                (_, Some(val)) => self.encode(*fty, val)?,
                (_, None) => {}
            }
        }
        Ok(())
    }

    /// `Document.common-names` from [`Flat::common`](crate::flat::Flat::common): the same
    /// bits as the list of values.
    fn flat_common(
        &mut self,
        common: &[crate::flat::FCommon],
        flat: &crate::flat::Flat,
    ) -> Result<()> {
        use crate::flat::FNs;
        let mut fr = self.list_head(common.len(), None);
        for c in common {
            self.list_item(&mut fr)?;
            let present = |n: FNs| !matches!(n, FNs::None);
            self.put((present(c.ns) as u64) << 1 | present(c.prefix) as u64, 2);
            // namespace-name: CHOICE { URIOrIndex, same-as-previous-item NULL }
            match c.ns {
                FNs::None => {}
                FNs::Str(s) => {
                    self.constrained(0, 2);
                    self.flat_str(s, flat)?;
                }
                FNs::Same => self.constrained(1, 2),
                FNs::Prev => return Err(self.mismatch(crate::schema::CN_ITEM)),
            }
            self.flat_str(c.local, flat)?;
            match c.prefix {
                FNs::None => {}
                FNs::Str(s) => {
                    self.constrained(0, 2);
                    self.flat_str(s, flat)?;
                }
                FNs::Same => self.constrained(1, 2),
                FNs::Prev => return Err(self.mismatch(crate::schema::CN_ITEM)),
            }
        }
        self.list_end(&mut fr)
    }

    /// Rewrites what was written so far with each mark's presence bit set and a `1` bit (the
    /// `same-as-parent-element` alternative) inserted at its position.
    fn insert_marks(&mut self, marks: &[(usize, usize)]) {
        self.flush_octets();
        let total = self.bit_len();
        let mut src = std::mem::take(&mut self.buf);
        if self.nacc > 0 {
            src.push((self.acc << (8 - self.nacc)) as u8);
        }
        self.acc = 0;
        self.nacc = 0;
        for &(p, _) in marks {
            src[p / 8] |= 0x80 >> (p % 8);
        }
        let mut ins: Vec<usize> = marks.iter().map(|m| m.1).collect();
        ins.sort_unstable();
        self.buf = Vec::with_capacity(src.len() + 1);
        let mut from = 0;
        for &p in &ins {
            self.copy_bits(&src, from, p);
            self.put(1, 1);
            from = p;
        }
        self.copy_bits(&src, from, total);
    }

    /// Appends bits `from..to` of `src`: the bits up to an octet boundary, the whole octets
    /// (shifted a word at a time by [`PerWriter::put_bytes`]), the rest.
    fn copy_bits(&mut self, src: &[u8], mut from: usize, to: usize) {
        if from >= to {
            return;
        }
        let head = ((8 - from % 8) % 8).min(to - from);
        if head > 0 {
            let v = src[from / 8] >> (8 - from % 8 - head);
            self.put(u64::from(v), head as u32);
            from += head;
        }
        let n = (to - from) / 8;
        self.put_bytes(&src[from / 8..from / 8 + n]);
        from += n * 8;
        let tail = to - from;
        if tail > 0 {
            self.put(u64::from(src[from / 8] >> (8 - tail)), tail as u32);
        }
    }
}
