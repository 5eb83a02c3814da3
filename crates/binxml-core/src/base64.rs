//! Minimal base64 (RFC 4648, standard alphabet, with padding), used for typed binary values.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `data` to `out`.
pub fn encode_into(data: &[u8], out: &mut String) {
    out.reserve(data.len().div_ceil(3) * 4);
    // Whole groups of 3 octets go 48 at a time through a block of 64 ASCII octets, appended as
    // one string (a char pushed at a time costs a capacity check and a UTF-8 length each).
    let mut block = [0u8; 64];
    let mut groups = data.chunks_exact(48);
    for chunk in groups.by_ref() {
        encode_groups(chunk, &mut block);
        out.push_str(crate::ascii::ascii_str(&block).expect("ASCII"));
    }
    let rest = groups.remainder();
    let whole = rest.len() / 3 * 3;
    let n = whole / 3 * 4;
    encode_groups(&rest[..whole], &mut block[..n]);
    out.push_str(crate::ascii::ascii_str(&block[..n]).expect("ASCII"));
    let tail = &rest[whole..];
    if !tail.is_empty() {
        let b1 = tail.get(1).copied().unwrap_or(0);
        let v = (u32::from(tail[0]) << 16) | (u32::from(b1) << 8);
        out.push(ALPHABET[(v >> 18) as usize & 63] as char);
        out.push(ALPHABET[(v >> 12) as usize & 63] as char);
        out.push(if tail.len() > 1 {
            ALPHABET[(v >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push('=');
    }
}

/// Encodes whole groups of 3 octets into `out`, 4 characters per group.
#[inline]
fn encode_groups(data: &[u8], out: &mut [u8]) {
    for (g, o) in data.chunks_exact(3).zip(out.chunks_exact_mut(4)) {
        let v = (u32::from(g[0]) << 16) | (u32::from(g[1]) << 8) | u32::from(g[2]);
        o[0] = ALPHABET[(v >> 18) as usize & 63];
        o[1] = ALPHABET[(v >> 12) as usize & 63];
        o[2] = ALPHABET[(v >> 6) as usize & 63];
        o[3] = ALPHABET[v as usize & 63];
    }
}

/// The base64 encoding of `data`.
pub fn encode(data: &[u8]) -> String {
    let mut s = String::new();
    encode_into(data, &mut s);
    s
}

/// Decodes base64, ignoring XML whitespace. Returns `None` on any other invalid character or a
/// bad length.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut buf = 0u32;
    let mut nbits = 0;
    let mut pad = 0;
    let mut count = 0usize;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                pad += 1;
                count += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        count += 1;
        buf = (buf << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((buf >> nbits) as u8);
        }
    }
    if !count.is_multiple_of(4) || pad > 2 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = super::encode(s.as_bytes());
            assert_eq!(super::decode(&e).unwrap(), s.as_bytes(), "{e}");
        }
        assert_eq!(super::encode(b"foobar"), "Zm9vYmFy");
        assert!(super::decode("Zm9v!").is_none());
        assert!(super::decode("Zm9").is_none());
    }

    /// Every length around the 48-octet blocks and groups, against a bit-at-a-time encoding
    /// (RFC 4648, section 4), appended to text already there.
    #[test]
    fn blocks_and_tails() {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let data: Vec<u8> = (0..300u32).map(|i| (i * 97 + i / 7) as u8).collect();
        for n in 0..data.len() {
            let d = &data[..n];
            let mut want = String::from("x");
            let bits: Vec<u8> = d
                .iter()
                .flat_map(|b| (0..8).rev().map(move |k| (b >> k) & 1))
                .collect();
            for six in bits.chunks(6) {
                let mut v = 0usize;
                for k in 0..6 {
                    v = v << 1 | usize::from(*six.get(k).unwrap_or(&0));
                }
                want.push(A[v] as char);
            }
            while want.len() % 4 != 1 {
                want.push('=');
            }
            let mut got = String::from("x");
            super::encode_into(d, &mut got);
            assert_eq!(got, want, "{n} octets");
            assert_eq!(super::decode(&got[1..]).unwrap(), d);
        }
    }
}
