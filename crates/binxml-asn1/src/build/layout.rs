//! Where things go in the encoding: the component-strings block aligned (UPER), the common
//! names grouped within their cost classes.

use super::Val;
use crate::value::V;

/// Makes the uncompressed component-strings block of `doc`'s UPER encoding start on an octet
/// boundary: everything after `Document.children` up to the block is octets except the small
/// fields, so the misalignment is known from their sizes; each element that gets
/// `base-URI` `same-as-parent-element` (true without `xml:base`) adds one bit.
pub(crate) fn align_block(doc: &mut Val, refs: &crate::value::Refs) {
    use crate::per::uper_bits;
    use crate::schema::*;
    let V::Seq(f) = doc else { return };
    let tys = [
        DOC_CHILDREN,
        NOTATIONS,
        UNPARSEDS,
        STR_IDX,
        STR_IDX,
        BOOL,
        STR_IDX,
        BOOL,
    ];
    // the presence bits of base-URI, standalone and version, then the components before the
    // component-strings (whose count, URI and block length are whole octets)
    let mut bits = 3;
    for (ty, v) in tys.iter().zip(f.iter()) {
        if let Some(v) = v {
            bits += uper_bits(*ty, v, refs);
        }
    }
    let mut need = ((8 - bits % 8) % 8) as u32;
    if need == 0 {
        return;
    }
    let Some(V::List(children)) = &mut f[0] else {
        return;
    };
    for c in children.iter_mut() {
        if let V::Choice(0, root) = c {
            mark_base(root, &mut need);
        }
    }
}

/// Gives `el` and the elements under it `base-URI` `same-as-parent-element` (for a root: the
/// document's, absent), `need` of them, in document order.
fn mark_base(el: &mut Val, need: &mut u32) {
    crate::deep(|| {
        if *need == 0 {
            return;
        }
        let V::Seq(f) = el else { return };
        if f.len() == 6 && f[5].is_none() {
            f[5] = Some(V::choice(1, V::Null));
            *need -= 1;
        }
        if let Some(V::Choice(1, list)) = &mut f[1]
            && let V::List(items) = &mut **list
        {
            for it in items.iter_mut() {
                if *need == 0 {
                    return;
                }
                if let V::Choice(0, child) = it {
                    mark_base(child, need);
                }
            }
        }
    })
}

/// The cost class of common-name position `p` in PER: the root range (`0..16`), else the number
/// of octets of its unconstrained encoding.
fn name_band(p: usize) -> u32 {
    if p < 16 {
        0
    } else {
        (64 - (p as u64).leading_zeros()) / 8 + 1
    }
}

/// Reorders the common names (already most frequent first) within each cost class, so that
/// names with the same namespace and prefix are adjacent and their entries can say
/// `same-as-previous-item`: every name keeps the index size it had.
pub(super) fn group_names(order: &mut [u32], groups: &[(u32, u32)]) {
    let (mut n_ns, mut n_pairs) = (0, 0);
    for &(ns, pair) in groups {
        n_ns = n_ns.max(ns as usize + 1);
        n_pairs = n_pairs.max(pair as usize + 1);
    }
    // the first position (in the class) of each namespace and pair; `NONE` outside a class
    const NONE: u32 = u32::MAX;
    let mut first_ns = vec![NONE; n_ns];
    let mut first_pair = vec![NONE; n_pairs];
    let mut start = 0;
    while start < order.len() {
        let band = name_band(start);
        let mut end = start + 1;
        while end < order.len() && name_band(end) == band {
            end += 1;
        }
        let slice = &mut order[start..end];
        let mut ns_key = Vec::with_capacity(slice.len());
        let mut pair_key = Vec::with_capacity(slice.len());
        for (i, &id) in slice.iter().enumerate() {
            let (ns, pair) = groups[id as usize];
            let f = &mut first_ns[ns as usize];
            if *f == NONE {
                *f = i as u32;
            }
            ns_key.push(*f);
            let f = &mut first_pair[pair as usize];
            if *f == NONE {
                *f = i as u32;
            }
            pair_key.push(*f);
        }
        for &id in slice.iter() {
            let (ns, pair) = groups[id as usize];
            first_ns[ns as usize] = NONE;
            first_pair[pair as usize] = NONE;
        }
        // ordered by (first use of the namespace, of the namespace and prefix, position): two
        // stable counting sorts, the minor key first
        let idx: Vec<u32> = (0..slice.len() as u32).collect();
        let idx = counting_sort(&idx, &pair_key);
        let idx = counting_sort(&idx, &ns_key);
        let sorted: Vec<u32> = idx.iter().map(|&i| slice[i as usize]).collect();
        slice.copy_from_slice(&sorted);
        start = end;
    }
}

/// `idx` stably sorted by `key[i]` (each key below `key.len()`).
fn counting_sort(idx: &[u32], key: &[u32]) -> Vec<u32> {
    let mut starts = vec![0usize; key.len() + 1];
    for &k in key {
        starts[k as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut out = vec![0u32; idx.len()];
    for &i in idx {
        let s = &mut starts[key[i as usize] as usize];
        out[*s] = i;
        *s += 1;
    }
    out
}
