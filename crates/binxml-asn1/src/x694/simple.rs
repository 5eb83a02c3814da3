//! Simple values (attribute values and character content) to and from PER bits: the text is
//! whitespace-normalised as its type says, then written as the mapped ASN.1 type's value; the
//! decoder writes the canonical text back (documented in `docs/x694.md`). The parsing of the
//! text and the writing of the canonical text are shared with the BER codec.

use binxml_core::Result;
use binxml_schema::datatypes::WhiteSpace;

use super::bits::{BitReader, BitWriter, range_bits};
use super::map::{Kind, Module};

/// The type of the strings of `embed-values` (mixed content's character data, as written).
pub const EMBEDDED: Kind = Kind::Utf8 {
    min: 0,
    max: None,
    ws: WhiteSpace::Preserve,
};

/// Why a text does not fit its type (the encoder turns it into an error).
pub type Refusal = String;

fn collapse(s: &str) -> std::borrow::Cow<'_, str> {
    WhiteSpace::Collapse.apply(s)
}

/// Writes `text` as a value of `kind`.
pub fn encode(m: &Module, kind: &Kind, text: &str, w: &mut BitWriter) -> Result<(), Refusal> {
    match kind {
        Kind::Boolean => w.put(boolean(text)? as u64, 1),
        Kind::Integer { lo, hi } => w.integer(integer(text, *lo, *hi)?, *lo, *hi),
        Kind::Enumerated(items) => {
            w.constrained(enumerated(items, text)? as u128, items.len() as u128)
        }
        Kind::Utf8 { ws, .. } => {
            let t = ws.apply(text);
            let b = t.as_bytes();
            w.counted(b.len(), 0, None, |w, s, e| {
                w.octets(&b[s..e]);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        Kind::Visible { alphabet } => {
            let idx = visible(alphabet, text)?;
            let (bits, direct) = char_coding(alphabet, w.aligned());
            w.counted(idx.len(), 0, None, |w, s, e| {
                for &i in &idx[s..e] {
                    let v = if direct { alphabet[i] as u64 } else { i as u64 };
                    w.put(v, bits);
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        Kind::Octets { hex, min, max } => {
            let b = octets(*hex, text)?;
            let small_fixed = *min == b.len() as u64 && *max == Some(*min) && *min <= 2;
            w.counted(b.len(), *min, *max, |w, s, e| {
                // X.691 17.6-17.8: aligned octets, but for a fixed size of at most two.
                if !small_fixed {
                    w.align();
                }
                w.octets(&b[s..e]);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        Kind::List { item, min, max } => {
            let t = collapse(text);
            let items = list_items(&t);
            let ik = m.resolve(*item);
            let mut err = None;
            w.counted(items.len(), *min, *max, |w, s, e| {
                for it in &items[s..e] {
                    if let Err(x) = encode(m, ik, it, w) {
                        err = Some(x);
                    }
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?;
            if let Some(e) = err {
                return Err(e);
            }
        }
        Kind::Ref(_)
        | Kind::Sequence(_)
        | Kind::Choice(_)
        | Kind::Derivations { .. }
        | Kind::SeqOf { .. } => {
            return Err("a simple value where the type is structured".into());
        }
    }
    Ok(())
}

/// Reads a value of `kind` and appends its text to `out`.
pub fn decode(m: &Module, kind: &Kind, r: &mut BitReader<'_>, out: &mut String) -> Result<()> {
    match kind {
        Kind::Boolean => out.push_str(if r.get(1)? == 1 { "true" } else { "false" }),
        Kind::Integer { lo, hi } => {
            let at = r.pos();
            let v = r.integer(*lo, *hi)?;
            if lo.is_some_and(|l| v < l) || hi.is_some_and(|h| v > h) {
                return Err(r.err(format!("integer {v} outside its range (at bit {at})")));
            }
            out.push_str(&v.to_string());
        }
        Kind::Enumerated(items) => {
            let i = r.constrained(items.len() as u128)? as usize;
            out.push_str(&items[i].1);
        }
        Kind::Utf8 { .. } => {
            let mut bytes = Vec::new();
            r.counted(0, None, |r, n| {
                if bytes.is_empty() {
                    bytes = r.octets(n)?;
                } else {
                    bytes.extend_from_slice(&r.octets(n)?);
                }
                Ok(())
            })?;
            let s = String::from_utf8(bytes).map_err(|_| r.err("UTF8String is not UTF-8"))?;
            if out.is_empty() {
                *out = s;
            } else {
                out.push_str(&s);
            }
        }
        Kind::Visible { alphabet } => {
            let (bits, direct) = char_coding(alphabet, r.aligned());
            r.counted(0, None, |r, n| {
                if n.saturating_mul(bits as usize) > r.left() {
                    return Err(r.err(format!("{n} characters announced, {} bits left", r.left())));
                }
                // As many characters as fit in 56 bits are read at once (a number or a date
                // in a few reads, not one per character).
                let per_read = (56 / bits.max(1)).max(1) as usize;
                let mask = (1u64 << bits) - 1;
                let mut left = n;
                while left > 0 {
                    let k = left.min(per_read);
                    let word = r.get(k as u32 * bits)?;
                    for j in (0..k).rev() {
                        let v = (word >> (j as u32 * bits)) & mask;
                        let c = if direct {
                            char::from_u32(v as u32).filter(|c| alphabet.binary_search(c).is_ok())
                        } else {
                            alphabet.get(v as usize).copied()
                        };
                        out.push(
                            c.ok_or_else(|| r.err("character outside the permitted alphabet"))?,
                        );
                    }
                    left -= k;
                }
                Ok(())
            })?;
        }
        Kind::Octets { hex, min, max } => {
            let mut bytes = Vec::new();
            r.counted(*min, *max, |r, n| {
                if !(*max == Some(*min) && *min <= 2) {
                    r.align()?;
                }
                bytes.extend_from_slice(&r.octets(n)?);
                Ok(())
            })?;
            octets_text(*hex, &bytes, out);
        }
        Kind::List { item, min, max } => {
            let ik = m.resolve(*item);
            let mut first = true;
            r.counted(*min, *max, |r, n| {
                // An item takes at least one bit unless its type has a single value; the input
                // bounds the count either way through the per-item check below.
                for _ in 0..n {
                    let before = r.pos();
                    if !first {
                        out.push(' ');
                    }
                    first = false;
                    decode(m, ik, r, out)?;
                    if r.pos() == before && out.len() > (1 << 20) {
                        return Err(r.err("list of empty items too long"));
                    }
                }
                Ok(())
            })?;
        }
        Kind::Ref(_)
        | Kind::Sequence(_)
        | Kind::Choice(_)
        | Kind::Derivations { .. }
        | Kind::SeqOf { .. } => {
            return Err(r.err("internal: a structured type read as a simple value"));
        }
    }
    Ok(())
}

/// Bits per character of a permitted alphabet (X.691 30.5.3: the fewest for its size,
/// rounded up to a power of two in the ALIGNED variant) and whether characters are written as
/// their own codes (when the largest fits in those bits, 30.5.4) rather than as indexes into
/// the alphabet.
pub fn char_coding(alphabet: &[char], aligned: bool) -> (u32, bool) {
    let mut bits = range_bits(alphabet.len() as u128);
    if aligned {
        bits = bits.next_power_of_two();
    }
    let largest = alphabet.last().map(|c| *c as u64).unwrap_or(0);
    (bits, bits < 64 && largest < (1u64 << bits))
}

fn from_hex(t: &str) -> Option<Vec<u8>> {
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    t.as_bytes()
        .chunks(2)
        .map(|p| Some((digit(p[0])? * 16 + digit(p[1])?) as u8))
        .collect()
}

/// The boolean value of a text.
pub fn boolean(text: &str) -> Result<bool, Refusal> {
    match &*collapse(text) {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        t => Err(format!("{t:?} is not a boolean")),
    }
}

/// The integer value of a text, checked against the type's range.
pub fn integer(text: &str, lo: Option<i128>, hi: Option<i128>) -> Result<i128, Refusal> {
    let t = collapse(text);
    let v: i128 = t
        .strip_prefix('+')
        .unwrap_or(&t)
        .parse()
        .map_err(|_| format!("{t:?} is not an integer this mapping holds (128 bits)"))?;
    if lo.is_some_and(|l| v < l) || hi.is_some_and(|h| v > h) {
        return Err(format!("{v} is outside the type's range"));
    }
    Ok(v)
}

/// The index of a text among an ENUMERATED type's values.
pub fn enumerated(items: &[(String, String)], text: &str) -> Result<usize, Refusal> {
    let t = collapse(text);
    items
        .iter()
        .position(|(_, v)| *v == t || collapse(v) == t)
        .ok_or_else(|| format!("{t:?} is not one of the enumerated values"))
}

/// The indexes into the permitted alphabet of a (collapsed) text's characters.
pub fn visible(alphabet: &[char], text: &str) -> Result<Vec<usize>, Refusal> {
    let t = collapse(text);
    let mut idx = Vec::with_capacity(t.len());
    for c in t.chars() {
        idx.push(
            alphabet
                .binary_search(&c)
                .map_err(|_| format!("{c:?} is outside the permitted alphabet"))?,
        );
    }
    Ok(idx)
}

/// The octets of a hexBinary or base64Binary text.
pub fn octets(hex: bool, text: &str) -> Result<Vec<u8>, Refusal> {
    let t = collapse(text);
    if hex {
        from_hex(&t).ok_or_else(|| format!("{t:?} is not hexBinary"))
    } else {
        binxml_core::base64::decode(&t).ok_or_else(|| format!("{t:?} is not base64"))
    }
}

/// The canonical text of octets: upper-case hexBinary, or base64 without line breaks.
pub fn octets_text(hex: bool, bytes: &[u8], out: &mut String) {
    if hex {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        out.reserve(bytes.len() * 2);
        for &b in bytes {
            out.push(char::from(DIGITS[usize::from(b >> 4)]));
            out.push(char::from(DIGITS[usize::from(b & 15)]));
        }
    } else {
        binxml_core::base64::encode_into(bytes, out);
    }
}

/// The items of a collapsed list value.
pub fn list_items(collapsed: &str) -> Vec<&str> {
    collapsed.split(' ').filter(|s| !s.is_empty()).collect()
}
