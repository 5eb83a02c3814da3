//! ASCII octets as text without a second UTF-8 validation.
//!
//! Several decoders find runs of octets below 0x80 with word-wide tests of their own (EXI's
//! seven characters per 64-bit read, for one) and then need them as `&str`. `str::from_utf8`
//! would validate them again byte by byte, which costs more than the decoding did on short
//! strings. [`ascii_str`] checks the same property with the standard library's word-at-a-time
//! `is_ascii` and converts without the UTF-8 state machine.

/// `bytes` as a `&str` when every octet is below 0x80, else `None`.
#[inline]
#[allow(unsafe_code)]
pub fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: every octet is below 0x80, and a sequence of such octets is valid UTF-8
        // (each is a one-octet code point).
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::ascii_str;

    #[test]
    fn ascii_only() {
        assert_eq!(ascii_str(b""), Some(""));
        assert_eq!(ascii_str(b"abc\x7f\x00"), Some("abc\x7f\x00"));
        assert_eq!(ascii_str("é".as_bytes()), None);
        assert_eq!(ascii_str(b"0123456789abcdef\x80"), None);
        // A high octet at every position of a long run, crossing word boundaries.
        for i in 0..40 {
            let mut b = vec![b'a'; 40];
            b[i] = 0xc3;
            assert_eq!(ascii_str(&b), None, "{i}");
        }
    }
}
