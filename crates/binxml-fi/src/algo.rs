//! Built-in restricted alphabets (X.891 clause 9) and encoding algorithms (clause 10).

use std::borrow::Cow;

use binxml_core::Typed;

/// Built-in restricted alphabet 1 ("numeric"); wire value 0.
pub const NUMERIC: &str = "0123456789-+.E ";
/// Built-in restricted alphabet 2 ("date and time"); wire value 1.
pub const DATE_TIME: &str = "0123456789-:TZ ";

/// Wire values (index - 1) of the built-in encoding algorithms.
pub const HEX: u8 = 0;
pub const BASE64: u8 = 1;
pub const SHORT: u8 = 2;
pub const INT: u8 = 3;
pub const LONG: u8 = 4;
pub const BOOLEAN: u8 = 5;
pub const FLOAT: u8 = 6;
pub const DOUBLE: u8 = 7;
pub const UUID: u8 = 8;
pub const CDATA: u8 = 9;

/// Application-defined alphabets and algorithms start at this wire value.
pub const APPLICATION_START: u8 = 32;

fn bits_per_char(n: usize) -> u32 {
    let mut b = 1;
    while (1usize << b) <= n {
        b += 1;
    }
    b
}

/// Encodes `s` with the restricted alphabet `alphabet` (characters listed in value order).
/// Returns false (leaving `out` as it was) when a character is not in the alphabet.
pub fn alphabet_encode(alphabet: &[char], s: &str, out: &mut Vec<u8>) -> bool {
    let start = out.len();
    let bits = bits_per_char(alphabet.len());
    let mut acc: u32 = 0;
    let mut nacc: u32 = 0;
    for c in s.chars() {
        let Some(v) = alphabet.iter().position(|&a| a == c) else {
            out.truncate(start);
            return false;
        };
        acc = (acc << bits) | v as u32;
        nacc += bits;
        while nacc >= 8 {
            nacc -= 8;
            out.push((acc >> nacc) as u8);
        }
        acc &= (1 << nacc) - 1;
    }
    if nacc > 0 {
        let pad = 8 - nacc;
        out.push(((acc << pad) | ((1 << pad) - 1)) as u8);
    }
    true
}

/// Decodes restricted-alphabet octets. `None` when the octets are not a valid encoding.
pub fn alphabet_decode(alphabet: &[char], data: &[u8]) -> Option<String> {
    if alphabet.len() < 2 || data.is_empty() {
        return None;
    }
    let bits = bits_per_char(alphabet.len());
    let term = (1u32 << bits) - 1;
    let total = data.len() * 8;
    let count = total / bits as usize;
    let mut out = String::with_capacity(count);
    let mut acc: u32 = 0;
    let mut nacc: u32 = 0;
    let mut it = data.iter();
    for i in 0..count {
        while nacc < bits {
            acc = (acc << 8) | *it.next()? as u32;
            nacc += 8;
        }
        nacc -= bits;
        let v = (acc >> nacc) & term;
        acc &= (1 << nacc) - 1;
        if bits < 8 && v == term {
            // the terminator pads the last octet only
            if (i * bits as usize) / 8 != data.len() - 1 {
                return None;
            }
            return Some(out);
        }
        out.push(*alphabet.get(v as usize)?);
    }
    Some(out)
}

pub fn builtin_alphabet(wire: u8) -> Option<&'static str> {
    match wire {
        0 => Some(NUMERIC),
        1 => Some(DATE_TIME),
        _ => None,
    }
}

fn chunks<const N: usize>(data: &[u8]) -> Option<impl Iterator<Item = [u8; N]> + '_> {
    if data.is_empty() || !data.len().is_multiple_of(N) {
        return None;
    }
    Some(data.chunks_exact(N).map(|c| c.try_into().unwrap()))
}

fn one_or_list<'a>(mut v: Vec<Typed<'a>>) -> Typed<'a> {
    if v.len() == 1 {
        v.pop().unwrap()
    } else {
        Typed::List(v)
    }
}

/// Decodes the octets of built-in algorithm `wire` (not cdata) to a typed value.
/// `Err` carries a message for a malformed encoding.
pub fn decode_builtin<'a>(wire: u8, data: Cow<'a, [u8]>) -> Result<Typed<'a>, &'static str> {
    let bad = |what| Err(what);
    Ok(match wire {
        HEX => Typed::Hex(data),
        BASE64 => Typed::Base64(data),
        SHORT => match chunks::<2>(&data) {
            Some(it) => one_or_list(
                it.map(|b| Typed::Int(i16::from_be_bytes(b) as i64))
                    .collect(),
            ),
            None => return bad("short data length is not a multiple of 2"),
        },
        INT => match chunks::<4>(&data) {
            Some(it) => one_or_list(
                it.map(|b| Typed::Int(i32::from_be_bytes(b) as i64))
                    .collect(),
            ),
            None => return bad("int data length is not a multiple of 4"),
        },
        LONG => match chunks::<8>(&data) {
            Some(it) => one_or_list(it.map(|b| Typed::Int(i64::from_be_bytes(b))).collect()),
            None => return bad("long data length is not a multiple of 8"),
        },
        FLOAT => match chunks::<4>(&data) {
            Some(it) => one_or_list(it.map(|b| Typed::Float(f32::from_be_bytes(b))).collect()),
            None => return bad("float data length is not a multiple of 4"),
        },
        DOUBLE => match chunks::<8>(&data) {
            Some(it) => one_or_list(it.map(|b| Typed::Double(f64::from_be_bytes(b))).collect()),
            None => return bad("double data length is not a multiple of 8"),
        },
        UUID => match chunks::<16>(&data) {
            Some(it) => one_or_list(it.map(Typed::Uuid).collect()),
            None => return bad("uuid data length is not a multiple of 16"),
        },
        BOOLEAN => {
            if data.is_empty() {
                return bad("empty boolean data");
            }
            let unused = (data[0] >> 4) as usize;
            let n = if data.len() == 1 {
                if unused > 3 {
                    return bad("boolean data: more than 3 unused bits in a single octet");
                }
                4 - unused
            } else {
                if unused > 7 {
                    return bad("boolean data: more than 7 unused bits");
                }
                data.len() * 8 - 4 - unused
            };
            let mut v = Vec::with_capacity(n);
            for i in 0..n {
                let bit = 4 + i;
                v.push(Typed::Bool(data[bit / 8] & (0x80 >> (bit % 8)) != 0));
            }
            one_or_list(v)
        }
        _ => return bad("unknown built-in encoding algorithm"),
    })
}

enum Kind {
    Bool,
    Int32,
    Int64,
    Float,
    Double,
    Uuid,
}

fn kind(t: &Typed<'_>) -> Option<Kind> {
    Some(match t {
        Typed::Bool(_) => Kind::Bool,
        Typed::Int(i) if *i >= i32::MIN as i64 && *i <= i32::MAX as i64 => Kind::Int32,
        Typed::Int(_) => Kind::Int64,
        Typed::Float(_) => Kind::Float,
        Typed::Double(_) => Kind::Double,
        Typed::Uuid(_) => Kind::Uuid,
        _ => return None,
    })
}

/// Encodes a typed value with a built-in algorithm: returns the wire value, the octets going to
/// `out`. `None` when the value has no built-in encoding (it is then written as text).
pub fn encode_builtin(t: &Typed<'_>, out: &mut Vec<u8>) -> Option<u8> {
    match t {
        Typed::Hex(b) if !b.is_empty() => {
            out.extend_from_slice(b);
            return Some(HEX);
        }
        Typed::Base64(b) if !b.is_empty() => {
            out.extend_from_slice(b);
            return Some(BASE64);
        }
        _ => {}
    }
    let items: &[Typed<'_>] = match t {
        Typed::List(v) if !v.is_empty() => v,
        Typed::List(_) => return None,
        other => std::slice::from_ref(other),
    };
    let mut k = kind(&items[0])?;
    for it in &items[1..] {
        let k2 = kind(it)?;
        k = match (k, k2) {
            (Kind::Int32 | Kind::Int64, Kind::Int64) | (Kind::Int64, Kind::Int32) => Kind::Int64,
            (Kind::Int32, Kind::Int32) => Kind::Int32,
            (Kind::Bool, Kind::Bool) => Kind::Bool,
            (Kind::Float, Kind::Float) => Kind::Float,
            (Kind::Double, Kind::Double) => Kind::Double,
            (Kind::Uuid, Kind::Uuid) => Kind::Uuid,
            _ => return None,
        };
    }
    Some(match k {
        Kind::Int32 => {
            for it in items {
                if let Typed::Int(i) = it {
                    out.extend_from_slice(&(*i as i32).to_be_bytes());
                }
            }
            INT
        }
        Kind::Int64 => {
            for it in items {
                if let Typed::Int(i) = it {
                    out.extend_from_slice(&i.to_be_bytes());
                }
            }
            LONG
        }
        Kind::Float => {
            for it in items {
                if let Typed::Float(f) = it {
                    out.extend_from_slice(&f.to_be_bytes());
                }
            }
            FLOAT
        }
        Kind::Double => {
            for it in items {
                if let Typed::Double(f) = it {
                    out.extend_from_slice(&f.to_be_bytes());
                }
            }
            DOUBLE
        }
        Kind::Uuid => {
            for it in items {
                if let Typed::Uuid(u) = it {
                    out.extend_from_slice(u);
                }
            }
            UUID
        }
        Kind::Bool => {
            let n = items.len();
            let total_bits = 4 + n;
            let octets = total_bits.div_ceil(8);
            let unused = octets * 8 - total_bits;
            let start = out.len();
            out.resize(start + octets, 0);
            out[start] = (unused as u8) << 4;
            for (i, it) in items.iter().enumerate() {
                if let Typed::Bool(true) = it {
                    let bit = 4 + i;
                    out[start + bit / 8] |= 0x80 >> (bit % 8);
                }
            }
            BOOLEAN
        }
    })
}
