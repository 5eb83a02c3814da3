//! The BER writer of abstract values.

mod flat;

use binxml_core::Format;

use binxml_core::{Error, Result};

use super::{constructed, universal};
use crate::schema::{TYPES, Ty, TyId};
use crate::value::V;

/// Writes the encoding backwards (contents before their length and tag), reversed at the end.
pub struct BerWriter {
    rev: Vec<u8>,
    format: Format,
}

impl BerWriter {
    pub fn new(format: Format) -> Self {
        BerWriter {
            rev: Vec::new(),
            format,
        }
    }

    /// Room for `n` more octets of output.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.rev.reserve(n);
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.rev.reverse();
        self.rev
    }

    /// The tag and length octets (backwards) of contents `len` octets long.
    #[inline]
    fn header(&mut self, len: usize, tag: u8) {
        if len < 128 {
            // the usual short form: one append
            self.rev.extend_from_slice(&[len as u8, tag]);
            return;
        }
        let mut n = 0;
        let mut l = len;
        while l > 0 {
            self.rev.push(l as u8);
            l >>= 8;
            n += 1;
        }
        self.rev.extend_from_slice(&[0x80 | n, tag]);
    }

    /// Appends `b` backwards.
    #[inline]
    fn put_reversed(&mut self, b: &[u8]) {
        let at = self.rev.len();
        self.rev.extend_from_slice(b);
        self.rev[at..].reverse();
    }

    fn mismatch(&self, ty: TyId) -> Error {
        Error::invalid_events(
            self.format,
            format!("internal: value does not fit ASN.1 type #{ty}"),
        )
    }

    /// Encodes `v` of type `ty`, with context tag `[ctx]` (None: the universal tag).
    pub fn encode(&mut self, ty: TyId, v: &V<'_>, ctx: Option<u8>) -> Result<()> {
        // only Element nests without bound: the stack is checked once per element
        if ty == crate::schema::ELEMENT {
            crate::deep(|| self.encode_inner(ty, v, ctx))
        } else {
            self.encode_inner(ty, v, ctx)
        }
    }

    fn encode_inner(&mut self, ty: TyId, v: &V<'_>, ctx: Option<u8>) -> Result<()> {
        let t = &TYPES[ty];
        let start = self.rev.len();
        match (t, v) {
            (Ty::Choice(alts), V::Choice(i, inner)) if (*i as usize) < alts.len() => {
                self.encode(alts[*i as usize], inner, Some(*i))?;
                if let Some(c) = ctx {
                    let len = self.rev.len() - start;
                    self.header(len, 0xA0 | c);
                }
                return Ok(());
            }
            (Ty::Seq(fields), V::Seq(vals)) if vals.len() == fields.len() => {
                for (i, ((fty, opt), val)) in fields.iter().zip(vals).enumerate().rev() {
                    match val {
                        Some(val) => self.encode(*fty, val, Some(i as u8))?,
                        None if *opt => {}
                        None => return Err(self.mismatch(ty)),
                    }
                }
            }
            (Ty::SeqOf(item, _), V::List(items)) => {
                for it in items.iter().rev() {
                    self.encode(*item, it, None)?;
                }
            }
            (Ty::Int(..), V::Int(x, _)) | (Ty::Enum(_), V::Enum(x)) => {
                let mut x = *x;
                loop {
                    self.rev.push(x as u8);
                    let high = x & 0x80;
                    x >>= 8;
                    if x == 0 && high == 0 {
                        break;
                    }
                }
            }
            (Ty::Bool, V::Bool(b)) => self.rev.push(if *b { 0xFF } else { 0 }),
            (Ty::Null, V::Null) => {}
            (Ty::Utf8, V::Text(s)) => self.put_reversed(s.as_bytes()),
            (Ty::Octets | Ty::RelOid, V::Bytes(b)) => self.put_reversed(b),
            _ => return Err(self.mismatch(ty)),
        }
        let len = self.rev.len() - start;
        let tag = match ctx {
            Some(c) => 0x80 | if constructed(t) { 0x20 } else { 0 } | c,
            None => universal(t),
        };
        self.header(len, tag);
        Ok(())
    }
}
