//! Byte scanning (SSE2 and SWAR): where text splits into chunks, which text is white space.

/// Octets of `w` equal to `t`: their high bits set (SWAR).
#[inline(always)]
pub(super) fn octets_eq(w: u64, t: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (ONES * t as u64);
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The octets of 16 at `b[i..]` that are a line break, `<`, `&` or `>` (with `marks`: all
/// five) or a line break (without), as a bit mask (bit k: octet i + k). SSE2, which every
/// x86_64 processor has: a handful of instructions for 16 octets.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn mask16(b: &[u8], i: usize, marks: bool) -> u32 {
    use core::arch::x86_64::*;
    let block = &b[i..i + 16];
    // SAFETY: `block` holds 16 octets (the slice above is bounds-checked); SSE2 is part of
    // the x86_64 baseline.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr() as *const __m128i);
        let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let mut m = _mm_or_si128(eq(b'\n'), eq(b'\r'));
        if marks {
            // `<` and `>` differ in one bit only: one comparison finds both
            let lt_gt =
                _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(2)), _mm_set1_epi8(b'>' as i8));
            m = _mm_or_si128(m, _mm_or_si128(lt_gt, eq(b'&')));
        }
        _mm_movemask_epi8(m) as u32
    }
}

/// The SWAR mask of a word: octets that are a line break (and with `marks` `<`, `&`, `>`)
/// have their high bit set; octets above a flagged one may be flagged too (borrows), the
/// lowest flagged octet is always a true match.
#[inline(always)]
pub(super) fn mask8(w: u64, marks: bool) -> u64 {
    let m = octets_eq(w, b'\n') | octets_eq(w, b'\r');
    if marks {
        m | octets_eq(w, b'<') | octets_eq(w, b'&') | octets_eq(w, b'>')
    } else {
        m
    }
}

/// True when `b` holds a line break (and with `marks` `<`, `&` or `>`): 16 octets at a time,
/// the last block overlapping the one before; shorter strings as one or two words, never an
/// octet loop.
#[inline(always)]
pub(super) fn has_octet(b: &[u8], marks: bool) -> bool {
    let n = b.len();
    #[cfg(target_arch = "x86_64")]
    if n >= 16 {
        let mut i = 0;
        while i + 16 <= n {
            if mask16(b, i, marks) != 0 {
                return true;
            }
            i += 16;
        }
        return i < n && mask16(b, n - 16, marks) != 0;
    }
    let w = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if mask8(w(i), marks) != 0 {
                return true;
            }
            i += 8;
        }
        return i < n && mask8(w(n - 8), marks) != 0;
    }
    let x = if n >= 4 {
        let lo = u32::from_le_bytes(b[..4].try_into().unwrap()) as u64;
        let hi = u32::from_le_bytes(b[n - 4..].try_into().unwrap()) as u64;
        lo | hi << 32
    } else if n > 0 {
        // the other octets are zero, which is none of the five
        b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16
    } else {
        0
    };
    mask8(x, marks) != 0
}

/// True when text may split into several chunks: it holds a line break, `<`, `&` or `>`
/// (without them it is one chunk).
#[inline(always)]
pub(super) fn has_split_octet(b: &[u8]) -> bool {
    has_octet(b, true)
}

/// Position of the first octet at or after `i` that is a line break (with `marks`: or `<`,
/// `&`, `>`), `b.len()` if none. 16 octets at a time, then 8, then single octets.
#[inline(always)]
pub(super) fn next_octet(b: &[u8], mut i: usize, marks: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= b.len() {
        let m = mask16(b, i, marks);
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
        i += 16;
    }
    while i + 8 <= b.len() {
        let m = mask8(u64::from_le_bytes(b[i..i + 8].try_into().unwrap()), marks);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len()
        && !(b[i] == b'\n' || b[i] == b'\r' || marks && matches!(b[i], b'<' | b'&' | b'>'))
    {
        i += 1;
    }
    i
}

/// Position of the first line break, `<`, `&` or `>` at or after `i` (`b.len()` if none).
#[inline]
pub(super) fn next_split_octet(b: &[u8], i: usize) -> usize {
    next_octet(b, i, true)
}

/// Position of the first line break at or after `i` (`b.len()` if none).
#[inline]
pub(super) fn next_line_break(b: &[u8], i: usize) -> usize {
    next_octet(b, i, false)
}

/// True when `b` holds a line break.
#[inline]
pub(super) fn has_line_break(b: &[u8]) -> bool {
    has_octet(b, false)
}

/// Length of the first chunk of `b` when text is split for indexing: `<`, `&` and `>` (which in
/// text mostly come from references) alone; a run of white space holding a line break and at
/// least 3 characters long (indentation; inside text it starts at the line break) alone; other
/// content up to the next of these.
#[inline]
/// The second value is false for the markup and indentation pieces, true for content.
pub(super) fn split_piece(b: &[u8], max: usize) -> (usize, bool) {
    /// length of the white-space run at `i`, if it holds a line break and is long enough
    /// (and short enough to be indexed)
    #[inline]
    fn indent_at(b: &[u8], i: usize, max: usize) -> usize {
        let mut j = i;
        let mut nl = false;
        while j < b.len() {
            let c = b[j];
            if c == b' ' || c == b'\t' {
                j += 1;
                // a run of the same character (deep indentation), a word at a time: the
                // length check below sees the run's end, as it would have seen each step
                let run = u64::from_ne_bytes([c; 8]);
                while j + 8 <= b.len() && u64::from_ne_bytes(b[j..j + 8].try_into().unwrap()) == run
                {
                    j += 8;
                }
            } else if c == b'\n' || c == b'\r' {
                // a second line break after indentation starts the next piece
                if nl && j - i >= 3 && !(b[j - 1] == b'\n' || b[j - 1] == b'\r') {
                    break;
                }
                nl = true;
                j += 1;
            } else {
                break;
            }
            if j - i >= max {
                // too long to be indexed: not indentation
                return 0;
            }
        }
        if nl && j - i >= 3 && j - i < max {
            j - i
        } else {
            0
        }
    }
    if matches!(b[0], b'<' | b'&' | b'>') {
        return (1, false);
    }
    let n = indent_at(b, 0, max);
    if n > 0 {
        return (n, false);
    }
    let mut i = 0;
    while i < b.len() {
        i = next_split_octet(b, i);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        if matches!(c, b'<' | b'&' | b'>') {
            break;
        }
        // indentation starts at a line break (white space before it ends the line)
        if (c == b'\n' || c == b'\r')
            && i > 0
            && !(b[i - 1] == b'\n' || b[i - 1] == b'\r')
            && indent_at(b, i, max) > 0
        {
            break;
        }
        i += 1;
    }
    (i.max(1), true)
}

/// True for the commonest text of all, the white space between elements: line breaks then
/// spaces and tabs (`[\r\n]+[ \t]*`), shorter than `max` (or than 3). [`split_piece`] keeps
/// such text whole (indentation when 3 to `max - 1` long, content too short to split when
/// shorter), so the encoder writes it as one chunk without splitting it.
#[inline(always)]
pub(super) fn is_short_indent(b: &[u8], max: usize) -> bool {
    let n = b.len();
    if n == 0 || n >= max.max(3) || !(b[0] == b'\n' || b[0] == b'\r') {
        return false;
    }
    let mut i = 1;
    while i < n && (b[i] == b'\n' || b[i] == b'\r') {
        i += 1;
    }
    while i + 8 <= n && u64::from_ne_bytes(b[i..i + 8].try_into().unwrap()) == SPACES {
        i += 8;
    }
    while i < n && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i == n
}

pub(super) const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);

/// True when `s` has fewer than `max` UTF-16 code units. The common answers (fewer octets
/// than `max`: yes) inline, the counting out of line.
#[inline(always)]
pub(super) fn short_enough(s: &str, max: usize) -> bool {
    s.len() < max || short_enough_counted(s, max)
}

#[inline(never)]
pub(super) fn short_enough_counted(s: &str, max: usize) -> bool {
    if s.len() >= max.saturating_mul(3) {
        return false;
    }
    if s.is_ascii() {
        // one UTF-16 code unit an octet
        return false;
    }
    s.encode_utf16().count() < max
}

/// True when `b` holds a 4-octet UTF-8 sequence (a character outside the Basic Multilingual
/// Plane): an octet with its top four bits set, eight octets at a time (a bit shifted left by
/// up to 3 from bits 4-7 stays in its octet).
#[inline]
pub(super) fn has_astral(b: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if b.len() >= 16 {
        use core::arch::x86_64::*;
        let n = b.len();
        // an octet is 0xF0 or more when the unsigned maximum of it and 0xF0 is itself
        let at = |i: usize| {
            let block = &b[i..i + 16];
            // SAFETY: `block` holds 16 octets (bounds-checked above); SSE2 is part of the
            // x86_64 baseline.
            unsafe {
                let v = _mm_loadu_si128(block.as_ptr() as *const __m128i);
                let top = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0xF0u8 as i8)), v);
                _mm_movemask_epi8(top) != 0
            }
        };
        let mut i = 0;
        while i + 16 <= n {
            if at(i) {
                return true;
            }
            i += 16;
        }
        // the last 16 octets, overlapping the block before
        return i < n && at(n - 16);
    }
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().unwrap());
        if w & (w << 1) & (w << 2) & (w << 3) & HI != 0 {
            return true;
        }
    }
    words.remainder().iter().any(|&c| c >= 0xF0)
}

#[cfg(test)]
pub(crate) fn split_piece_for_tests(b: &[u8]) -> usize {
    split_piece(b, 32).0
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn astral_found_at_every_position() {
        for len in 0..20 {
            let base = vec![b'a'; len];
            assert!(!has_astral(&base));
            // two- and three-octet sequences' lead octets are not astral
            for other in [0xC3u8, 0xE2, 0xEF, 0x9F, 0xBF] {
                for at in 0..len {
                    let mut b = base.clone();
                    b[at] = other;
                    assert!(!has_astral(&b), "{b:02X?}");
                }
            }
            for at in 0..len {
                for lead in [0xF0u8, 0xF4] {
                    let mut b = base.clone();
                    b[at] = lead;
                    assert!(has_astral(&b), "{b:02X?}");
                }
            }
        }
    }

    /// Every string of up to 9 octets over line breaks, spaces, tabs and one letter, and every
    /// indexing limit up to 12: where `is_short_indent` says yes, `split_piece` takes the
    /// whole string as its first piece.
    #[test]
    fn short_indent_is_one_piece() {
        let alphabet = [b'\n', b'\r', b' ', b'\t', b'a'];
        let mut yes = 0;
        for len in 1..=9u32 {
            for code in 0..5usize.pow(len) {
                let mut c = code;
                let b: Vec<u8> = (0..len)
                    .map(|_| {
                        let x = alphabet[c % 5];
                        c /= 5;
                        x
                    })
                    .collect();
                for max in 0..=12 {
                    if is_short_indent(&b, max) {
                        yes += 1;
                        assert_eq!(split_piece(&b, max).0, b.len(), "{b:?} max {max}");
                    }
                }
            }
        }
        assert!(yes > 1000);
    }

    /// The block scans (16 octets with SSE2, words, single octets) against a plain octet loop,
    /// on pseudo-random strings of every length up to 70 over an alphabet rich in the octets
    /// they look for (and octets 0x3E | 2 confusable ones), from every start position.
    #[test]
    fn scans_match_octet_loops() {
        let alphabet = b"ab \t\n\r<>&=?:<>\xff";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for len in 0..=70usize {
            for _ in 0..60 {
                // every position is a plain letter except a few picked ones, so that the
                // first match is anywhere (or nowhere)
                let mut b = vec![b'x'; len];
                let specials = (seed >> 60) as usize % 4;
                for _ in 0..specials {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if len > 0 {
                        b[(seed >> 33) as usize % len] =
                            alphabet[(seed >> 20) as usize % alphabet.len()];
                    }
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let split = |c: u8| matches!(c, b'\n' | b'\r' | b'<' | b'&' | b'>');
                let nl = |c: u8| c == b'\n' || c == b'\r';
                assert_eq!(has_split_octet(&b), b.iter().any(|&c| split(c)), "{b:?}");
                assert_eq!(has_line_break(&b), b.iter().any(|&c| nl(c)), "{b:?}");
                for i in 0..=len {
                    let want = (i..len).find(|&k| split(b[k])).unwrap_or(len);
                    assert_eq!(next_split_octet(&b, i), want, "{b:?} from {i}");
                    let want = (i..len).find(|&k| nl(b[k])).unwrap_or(len);
                    assert_eq!(next_line_break(&b, i), want, "{b:?} from {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000);
    }
}
