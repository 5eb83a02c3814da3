//! Minimal base64 (RFC 4648, standard alphabet, with padding), used for typed binary values.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `data` to `out`.
pub fn encode_into(data: &[u8], out: &mut String) {
    out.reserve(data.len().div_ceil(3) * 4);
    // Whole groups of 3 octets go 48 at a time through a block of 64 ASCII octets, appended as
    // one string (a char pushed at a time costs a capacity check and a UTF-8 length each).
    // Where 8 octets can be read, two groups come out of one big-endian word: four lookups of
    // two characters each, written as one 8-octet store.
    let mut block = [0u8; 64];
    let whole = data.len() / 3 * 3;
    let mut i = 0;
    while i < whole {
        let end = (i + 48).min(whole);
        let mut o = 0;
        while i + 6 <= end
            && let Some(w) = data.get(i..i + 8)
        {
            let w = u64::from_be_bytes(w.try_into().expect("8"));
            let [a, b, c, d] = [52, 40, 28, 16].map(|k| PAIRS[(w >> k) as usize & 0xFFF]);
            block[o..o + 8].copy_from_slice(&[a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]]);
            i += 6;
            o += 8;
        }
        while i < end {
            let v = (usize::from(data[i]) << 16)
                | (usize::from(data[i + 1]) << 8)
                | usize::from(data[i + 2]);
            let (hi, lo) = (PAIRS[v >> 12], PAIRS[v & 0xFFF]);
            block[o..o + 4].copy_from_slice(&[hi[0], hi[1], lo[0], lo[1]]);
            i += 3;
            o += 4;
        }
        out.push_str(crate::ascii::ascii_str(&block[..o]).expect("ASCII"));
    }
    let tail = &data[whole..];
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

/// The two characters of each 12-bit value: a group of 3 octets is two lookups, not four.
static PAIRS: [[u8; 2]; 4096] = {
    let mut t = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        t[i] = [ALPHABET[i >> 6], ALPHABET[i & 63]];
        i += 1;
    }
    t
};

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
