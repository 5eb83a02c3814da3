//! The BER writer of the builder's flat operations ([`Flat`](crate::flat::Flat)).

use binxml_core::Result;

use super::BerWriter;
use crate::value::V;

/// An element being written backwards by [`BerWriter::encode_flat`].
struct BerFrame {
    /// where the element's encoding ends (it is written backwards: its first octet written)
    el: usize,
    /// where its children list ends
    list: usize,
}

impl BerWriter {
    /// The contents octets of an INTEGER (backwards).
    fn int_contents(&mut self, mut x: u64) {
        loop {
            self.rev.push(x as u8);
            let high = x & 0x80;
            x >>= 8;
            if x == 0 && high == 0 {
                break;
            }
        }
    }

    /// A StringOrIndex of the flat builder with context tag `[ctx]` (explicit: a CHOICE).
    fn flat_str(
        &mut self,
        r: u32,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
        ctx: u8,
    ) -> Result<()> {
        use crate::sentinel::INLINE;
        let start = self.rev.len();
        let text: &str = if r & INLINE != 0 {
            flat.inline
                .get((r & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(crate::schema::STR_IDX))?
        } else {
            match refs.strings.get(r as usize) {
                Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => &refs.texts[r as usize],
                Some(&pos) if pos < 0x80 => {
                    // the usual small index at once: [ctx] { [1] LargeIndex }, backwards
                    self.rev
                        .extend_from_slice(&[pos as u8, 1, 0x81, 3, 0xA0 | ctx]);
                    return Ok(());
                }
                Some(&pos) => {
                    // component-string-index [1] LargeIndex
                    self.int_contents(pos as u64);
                    let len = self.rev.len() - start;
                    self.header(len, 0x81);
                    let len = self.rev.len() - start;
                    self.header(len, 0xA0 | ctx);
                    return Ok(());
                }
                None => return Err(self.mismatch(crate::schema::STR_IDX)),
            }
        };
        // [0] UTF8String
        self.put_reversed(text.as_bytes());
        let len = self.rev.len() - start;
        self.header(len, 0x80);
        let len = self.rev.len() - start;
        self.header(len, 0xA0 | ctx);
        Ok(())
    }

    /// An element (`attr` false) or attribute name of the flat builder with context tag
    /// `[ctx]` (explicit: a CHOICE): a common name (`[1] SmallIndex`) or a name written inline
    /// (`[0]` its SEQUENCE).
    fn flat_name(
        &mut self,
        id: u32,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
        ctx: u8,
        attr: bool,
    ) -> Result<()> {
        use crate::flat::FNs;
        use crate::sentinel::{INLINE, NO_STR};
        if id & INLINE != 0 {
            let ty = if attr {
                crate::schema::AT_NAME_SEQ
            } else {
                crate::schema::EL_NAME_SEQ
            };
            let n = *flat
                .names
                .get((id & !INLINE) as usize)
                .ok_or_else(|| self.mismatch(ty))?;
            let start = self.rev.len();
            // [2] prefix, [1] local name, [0] namespace (explicit around its CHOICE)
            if n.prefix != NO_STR {
                self.flat_str(n.prefix, flat, refs, 2)?;
            }
            self.flat_str(n.local, flat, refs, 1)?;
            let ns = self.rev.len();
            match n.ns {
                FNs::None => {}
                FNs::Str(s) => self.flat_str(s, flat, refs, 0)?,
                // NULL alternatives [1] and [2]
                FNs::Same => self.header(0, 0x81),
                FNs::Prev if attr => self.header(0, 0x82),
                FNs::Prev => return Err(self.mismatch(ty)),
            }
            if !matches!(n.ns, FNs::None) {
                let len = self.rev.len() - ns;
                self.header(len, 0xA0);
            }
            // [0] the SEQUENCE alternative, and the explicit tag of the CHOICE
            let len = self.rev.len() - start;
            self.header(len, 0xA0);
            let len = self.rev.len() - start;
            self.header(len, 0xA0 | ctx);
            return Ok(());
        }
        let pos = *refs
            .names
            .get(id as usize)
            .ok_or_else(|| self.mismatch(crate::schema::SMALL))?;
        if pos < 0x80 {
            // the usual small index at once: [ctx] { [1] SmallIndex }, backwards
            self.rev
                .extend_from_slice(&[pos as u8, 1, 0x81, 3, 0xA0 | ctx]);
            return Ok(());
        }
        let start = self.rev.len();
        self.int_contents(pos as u64);
        let len = self.rev.len() - start;
        self.header(len, 0x81);
        let len = self.rev.len() - start;
        self.header(len, 0xA0 | ctx);
        Ok(())
    }

    /// Writes `Document` whose children (and the elements in them) are `flat`'s operations
    /// (`doc`'s own `children` are not written; `doc` and `flat.values` are resolved): the same
    /// octets as [`BerWriter::encode`] of the whole value. Backwards, as every encoding here:
    /// the operations from the last.
    pub(crate) fn encode_flat(
        &mut self,
        doc: &V<'_>,
        flat: &crate::flat::Flat,
        refs: &crate::value::Refs,
    ) -> Result<()> {
        use crate::flat::FOp;
        use crate::schema::*;
        let (Ty::Seq(fields), V::Seq(vals)) = (&TYPES[DOCUMENT], doc) else {
            return Err(self.mismatch(DOCUMENT));
        };
        if vals.len() != fields.len() {
            return Err(self.mismatch(DOCUMENT));
        }
        let doc_start = self.rev.len();
        for (i, ((fty, opt), val)) in fields.iter().zip(vals).enumerate().skip(1).rev() {
            match val {
                Some(val) => self.encode(*fty, val, Some(i as u8))?,
                None if *opt => {}
                None => return Err(self.mismatch(DOCUMENT)),
            }
        }
        let children_start = self.rev.len();
        let mut stack: Vec<BerFrame> = Vec::new();
        let mut i = flat.ops.len();
        while i > 0 {
            i -= 1;
            match flat.ops[i] {
                FOp::End {
                    start,
                    scope,
                    n_scope,
                } => {
                    let Some(&FOp::Start {
                        attrs,
                        n_ns,
                        n_attrs,
                        ecc,
                        ..
                    }) = flat.ops.get(start as usize)
                    else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    let el = self.rev.len();
                    if flat.explicit_scopes {
                        // [4] in-scope-namespaces: [0] the list of (prefix [0], name [1])
                        let list = flat
                            .scope_list(scope, n_scope)
                            .ok_or_else(|| self.mismatch(NS_LIST))?;
                        for &(p, u) in list.iter().rev() {
                            let a = self.rev.len();
                            self.flat_str(u, flat, refs, 1)?;
                            if p != crate::sentinel::NO_STR {
                                self.flat_str(p, flat, refs, 0)?;
                            }
                            let len = self.rev.len() - a;
                            self.header(len, 0x30);
                        }
                        let len = self.rev.len() - el;
                        self.header(len, 0xA0);
                        let len = self.rev.len() - el;
                        self.header(len, 0xA4);
                    } else {
                        // [4] in-scope-namespaces: [1] same-as-parent-element NULL
                        self.header(0, 0x81);
                        self.header(2, 0xA4);
                    }
                    // [3] namespace-attributes, [2] attributes
                    let a0 = attrs as usize;
                    let ns = a0..a0 + n_ns as usize;
                    let at = ns.end..ns.end + n_attrs as usize;
                    for (range, tag) in [(ns, 0xA3), (at, 0xA2)] {
                        let Some(list) = flat.attrs.get(range) else {
                            return Err(self.mismatch(ATTRS));
                        };
                        if list.is_empty() {
                            continue;
                        }
                        let l0 = self.rev.len();
                        for &(name, value) in list.iter().rev() {
                            let a = self.rev.len();
                            self.flat_str(value, flat, refs, 1)?;
                            self.flat_name(name, flat, refs, 0, true)?;
                            let len = self.rev.len() - a;
                            self.header(len, 0x30);
                        }
                        let len = self.rev.len() - l0;
                        self.header(len, tag);
                    }
                    if ecc {
                        // [1] children: [0] element-content-characters, the next operation back
                        let Some(FOp::Text(t)) = i.checked_sub(1).map(|j| flat.ops[j]) else {
                            return Err(self.mismatch(ELEMENT));
                        };
                        i -= 1;
                        let c = self.rev.len();
                        self.flat_str(t, flat, refs, 0)?;
                        let len = self.rev.len() - c;
                        self.header(len, 0xA1);
                        if i != start as usize + 1 {
                            return Err(self.mismatch(ELEMENT));
                        }
                    }
                    stack.push(BerFrame {
                        el,
                        list: self.rev.len(),
                    });
                }
                FOp::Start { name, ecc, .. } => {
                    let Some(f) = stack.pop() else {
                        return Err(self.mismatch(ELEMENT));
                    };
                    if !ecc {
                        // [1] children: [1] a list of children
                        let len = self.rev.len() - f.list;
                        self.header(len, 0xA1);
                        let len = self.rev.len() - f.list;
                        self.header(len, 0xA1);
                    }
                    self.flat_name(name, flat, refs, 0, false)?;
                    // [0] element (of a CHOICE of children)
                    let len = self.rev.len() - f.el;
                    self.header(len, 0xA0);
                }
                FOp::Text(t) => {
                    // [3] Characters: [0] a string, [1] element-content-whitespace FALSE
                    let c = self.rev.len();
                    self.rev.push(0);
                    self.header(1, 0x81);
                    let s = self.rev.len();
                    self.flat_str(t, flat, refs, 0)?;
                    let len = self.rev.len() - s;
                    self.header(len, 0xA0);
                    let len = self.rev.len() - c;
                    self.header(len, 0xA3);
                }
                FOp::Child(alt, v) => {
                    let v = flat
                        .values
                        .get(v as usize)
                        .ok_or_else(|| self.mismatch(EL_CHILD))?;
                    let alts = if stack.is_empty() {
                        DOC_CHILD
                    } else {
                        EL_CHILD
                    };
                    let Ty::Choice(alt_tys) = &TYPES[alts] else {
                        return Err(self.mismatch(alts));
                    };
                    let Some(&ty) = alt_tys.get(alt as usize) else {
                        return Err(self.mismatch(alts));
                    };
                    self.encode(ty, v, Some(alt))?;
                }
            }
        }
        if !stack.is_empty() {
            return Err(self.mismatch(ELEMENT));
        }
        // [0] children
        let len = self.rev.len() - children_start;
        self.header(len, 0xA0);
        let len = self.rev.len() - doc_start;
        self.header(len, 0x30);
        Ok(())
    }
}
