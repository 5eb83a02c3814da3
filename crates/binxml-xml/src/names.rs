//! The name rules of XML 1.0 Fifth Edition (productions [4], [4a], [5], [7]): which characters
//! start and continue a name. The tokenizer checks ASCII bytes with its own tables and calls in
//! here only when a name holds a byte >= 0x80.

/// `NameStartChar` ([4]).
pub(crate) fn is_name_start_char(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// `NameChar` ([4a]).
pub(crate) fn is_name_char(c: char) -> bool {
    is_name_start_char(c)
        || matches!(c,
            '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// `NameChar` for the ASCII octets (the rest false).
const ASCII_NAME_CHAR: [bool; 128] = {
    let mut t = [false; 128];
    let mut c = 0;
    while c < 128 {
        t[c] =
            matches!(c as u8, b':' | b'A'..=b'Z' | b'_' | b'a'..=b'z' | b'-' | b'.' | b'0'..=b'9');
        c += 1;
    }
    t
};

/// The length in bytes of the run of name characters at the start of `s`: ASCII octets by
/// table, the characters from the first non-ASCII one on by [`is_name_char`].
pub(crate) fn name_chars_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c >= 0x80 {
            return s[i..]
                .char_indices()
                .find(|&(_, c)| !is_name_char(c))
                .map_or(s.len(), |(k, _)| i + k);
        }
        if !ASCII_NAME_CHAR[c as usize] {
            return i;
        }
        i += 1;
    }
    i
}

/// The length in bytes of the `Name` at the start of `s` (0 when there is none).
pub(crate) fn name_len(s: &str) -> usize {
    match s.as_bytes().first() {
        Some(&c) if c < 0x80 => {
            if matches!(c, b':' | b'A'..=b'Z' | b'_' | b'a'..=b'z') {
                name_chars_len(s)
            } else {
                0
            }
        }
        _ => match s.chars().next() {
            Some(c) if is_name_start_char(c) => name_chars_len(s),
            _ => 0,
        },
    }
}

/// Whether `s` is a `Name` ([5]).
pub(crate) fn is_name(s: &str) -> bool {
    !s.is_empty() && name_len(s) == s.len()
}

/// Whether `s` is an `Nmtoken` ([7]).
#[cfg(test)]
pub(crate) fn is_nmtoken(s: &str) -> bool {
    !s.is_empty() && name_chars_len(s) == s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "_x", ":a", "a:b", "é", "a\u{B7}", "\u{10000}x", "a-.0"] {
            assert!(is_name(ok), "{ok}");
        }
        for bad in [
            "", "1a", "-a", "\u{B7}a", "a b", "\u{D7}", "a\u{F7}", "\u{300}",
        ] {
            assert!(!is_name(bad), "{bad}");
        }
        assert!(is_nmtoken("1a") && is_nmtoken("\u{B7}") && !is_nmtoken("a\u{D7}"));
        // the ASCII table and the character rules agree
        for c in 0u8..128 {
            let s = (c as char).to_string();
            assert_eq!(name_chars_len(&s) == 1, is_name_char(c as char), "{c}");
            assert_eq!(name_len(&s) == 1, is_name_start_char(c as char), "{c}");
        }
        assert_eq!(name_chars_len("ab\u{B7}c d"), 5);
        assert_eq!(name_chars_len("ab\u{D7}c"), 2);
    }
}
