//! Sets of code points as sorted, disjoint ranges, for the character sets of EXI 1.0
//! appendix E. `None` is "no restricted set" (a category or multi-character escape was used):
//! it absorbs every operation.

/// A set of code points, or `None` when EXI defines no set for the expression.
pub(crate) type Set = Option<Vec<(u32, u32)>>;

/// The largest code point.
const MAX: u32 = 0x10FFFF;

/// The set of the given ranges, normalized.
pub(crate) fn of(r: &[(u32, u32)]) -> Set {
    Some(normalize(r.to_vec()))
}

/// The set of one character.
pub(crate) fn single(c: char) -> Set {
    of(&[(u32::from(c), u32::from(c))])
}

/// Sorts and merges overlapping or adjacent ranges.
fn normalize(mut r: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    r.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// a ∪ b.
pub(crate) fn union(a: Set, b: Set) -> Set {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    Some(normalize(a))
}

/// Every code point not in a.
pub(crate) fn complement(a: Set) -> Set {
    let a = a?;
    let mut out = Vec::new();
    let mut next = 0u32;
    for (x, y) in a {
        if x > next {
            out.push((next, x - 1));
        }
        next = y.saturating_add(1);
    }
    if next <= MAX {
        out.push((next, MAX));
    }
    Some(out)
}

/// a minus b.
pub(crate) fn subtract(a: Set, b: Set) -> Set {
    let (a, b) = (a?, b?);
    let not_b = complement(Some(b))?;
    // a ∩ ¬b by walking both sorted lists.
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < not_b.len() {
        let lo = a[i].0.max(not_b[j].0);
        let hi = a[i].1.min(not_b[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < not_b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some(out)
}

/// The number of Unicode scalar values (surrogates excluded) in the ranges.
pub(crate) fn count(r: &[(u32, u32)]) -> u64 {
    r.iter()
        .map(|&(a, b)| {
            let all = u64::from(b - a) + 1;
            let sa = a.max(0xD800);
            let sb = b.min(0xDFFF);
            all - if sa <= sb { u64::from(sb - sa) + 1 } else { 0 }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations() {
        let az = of(&[(97, 122)]);
        let vowels = of(&[(97, 97), (101, 101), (105, 105), (111, 111), (117, 117)]);
        let consonants = subtract(az.clone(), vowels.clone()).unwrap();
        assert_eq!(count(&consonants), 21);
        assert_eq!(union(az.clone(), None), None);
        assert_eq!(union(of(&[(1, 3)]), of(&[(4, 5)])), of(&[(1, 5)]));
        assert_eq!(complement(complement(az.clone())), az);
        assert_eq!(
            count(&complement(Some(vec![])).unwrap()),
            0x10FFFF + 1 - 2048
        );
    }
}
