//! The length of a value's UPER encoding, without writing it.

use super::FRAG;
use crate::schema::{TYPES, Ty, TyId};
use crate::value::{Refs, V};

/// The length in bits of `v`'s UPER encoding (as [`PerWriter`](super::PerWriter) would write
/// it, without writing; values that do not fit `ty` count as nothing).
pub(crate) fn uper_bits(ty: TyId, v: &V<'_>, refs: &Refs) -> u64 {
    if ty == crate::schema::ELEMENT {
        crate::deep(|| uper_bits_inner(ty, v, refs))
    } else {
        uper_bits_inner(ty, v, refs)
    }
}

fn int_bits(x: u64, lo: u64, hi: u64) -> u64 {
    if (lo..=hi).contains(&x) {
        1 + constrained_bits(hi - lo + 1)
    } else {
        // octets of the non-negative two's complement form, and their length
        let octets = (64 - x.leading_zeros() as u64) / 8 + 1;
        1 + 8 + 8 * octets
    }
}

fn length_bits(n: u64) -> u64 {
    // general length determinants with 16K fragments: a header octet per fragment
    let frags = n / FRAG as u64;
    let headers = frags.div_ceil(4);
    let rest = n - (n / FRAG as u64) * FRAG as u64;
    headers * 8 + if rest < 128 { 8 } else { 16 }
}

fn constrained_bits(range: u64) -> u64 {
    if range <= 1 {
        0
    } else {
        64 - (range - 1).leading_zeros() as u64
    }
}

fn uper_bits_inner(ty: TyId, v: &V<'_>, refs: &Refs) -> u64 {
    match (&TYPES[ty], v) {
        (Ty::Seq(fields), V::Seq(vals)) => {
            let mut n = 0;
            for ((fty, opt), val) in fields.iter().zip(vals) {
                n += *opt as u64;
                if let Some(val) = val {
                    n += uper_bits(*fty, val, refs);
                }
            }
            n
        }
        (Ty::SeqOf(item, size), V::List(items)) => {
            let c = items.len() as u64;
            let head = match *size {
                Some((lb, ub)) if (lb..=ub).contains(&c) => 1 + constrained_bits(ub - lb + 1),
                Some(_) => 1 + length_bits(c),
                None => length_bits(c),
            };
            head + items
                .iter()
                .map(|it| uper_bits(*item, it, refs))
                .sum::<u64>()
        }
        (Ty::Choice(alts), V::Choice(i, inner)) if (*i as usize) < alts.len() => {
            constrained_bits(alts.len() as u64) + uper_bits(alts[*i as usize], inner, refs)
        }
        (Ty::Int(lo, hi), V::Int(x, _)) => int_bits(*x, *lo, *hi),
        (Ty::Choice(_), V::StrRef(id)) => match refs.strings.get(*id as usize) {
            Some(&pos) if pos == crate::sentinel::NOT_IN_TABLE => {
                let n = refs.texts[*id as usize].len() as u64;
                1 + length_bits(n) + 8 * n
            }
            Some(&pos) => 1 + int_bits(pos as u64, 0, 2047),
            None => 0,
        },
        (Ty::Int(lo, hi), V::NameRef(id)) => refs
            .names
            .get(*id as usize)
            .map_or(0, |&pos| int_bits(pos as u64, *lo, *hi)),
        (Ty::Enum(n), V::Enum(_)) => constrained_bits(*n),
        (Ty::Bool, V::Bool(_)) => 1,
        (Ty::Utf8, V::Text(s)) => length_bits(s.len() as u64) + 8 * s.len() as u64,
        (Ty::Octets | Ty::RelOid, V::Bytes(b)) => length_bits(b.len() as u64) + 8 * b.len() as u64,
        _ => 0,
    }
}
