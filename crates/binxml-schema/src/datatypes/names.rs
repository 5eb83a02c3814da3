//! XML names: the name characters of XML 1.0 fifth edition (productions 4 and 4a), and the
//! lexical checks of Name, NCName, NMTOKEN and language built on them.

/// NameStartChar of XML 1.0 fifth edition, production 4 (`:` included).
pub fn is_name_start_char(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// NameChar of XML 1.0 fifth edition, production 4a.
pub fn is_name_char(c: char) -> bool {
    is_name_start_char(c)
        || matches!(c,
            '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// The same sets as inclusive ranges, for the pattern escapes `\i` and `\c`.
pub(crate) const NAME_START_RANGES: &[(char, char)] = &[
    (':', ':'),
    ('A', 'Z'),
    ('_', '_'),
    ('a', 'z'),
    ('\u{C0}', '\u{D6}'),
    ('\u{D8}', '\u{F6}'),
    ('\u{F8}', '\u{2FF}'),
    ('\u{370}', '\u{37D}'),
    ('\u{37F}', '\u{1FFF}'),
    ('\u{200C}', '\u{200D}'),
    ('\u{2070}', '\u{218F}'),
    ('\u{2C00}', '\u{2FEF}'),
    ('\u{3001}', '\u{D7FF}'),
    ('\u{F900}', '\u{FDCF}'),
    ('\u{FDF0}', '\u{FFFD}'),
    ('\u{10000}', '\u{EFFFF}'),
];

/// The characters NameChar adds to NameStartChar.
pub(crate) const NAME_EXTRA_RANGES: &[(char, char)] = &[
    ('-', '.'),
    ('0', '9'),
    ('\u{B7}', '\u{B7}'),
    ('\u{300}', '\u{36F}'),
    ('\u{203F}', '\u{2040}'),
];

/// Whether `s` matches production Name.
pub fn is_name(s: &str) -> bool {
    let mut it = s.chars();
    matches!(it.next(), Some(c) if is_name_start_char(c)) && it.all(is_name_char)
}

/// Whether `s` is an NCName (Namespaces in XML 1.0): a Name without colons.
pub fn is_ncname(s: &str) -> bool {
    !s.contains(':') && is_name(s)
}

/// Whether `s` is an Nmtoken: one or more NameChars.
pub fn is_nmtoken(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_name_char)
}

/// Whether `s` matches the pattern Part 2 gives `language`:
/// `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`.
pub fn is_language(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or("");
    let ok = |p: &str, digits: bool| {
        (1..=8).contains(&p.len())
            && p.bytes()
                .all(|b| b.is_ascii_alphabetic() || (digits && b.is_ascii_digit()))
    };
    ok(first, false) && parts.all(|p| ok(p, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_name("a:b") && is_name(":") && is_name("_1.-"));
        assert!(!is_name("1a") && !is_name("") && !is_name("-a") && !is_name("a b"));
        assert!(is_ncname("ab") && !is_ncname("a:b"));
        assert!(is_nmtoken("1a") && is_nmtoken("-") && !is_nmtoken("") && !is_nmtoken("a b"));
        // Fifth edition: letters outside the old Appendix B tables are name characters.
        assert!(is_name("\u{10000}x") && is_name("\u{2C00}"));
        assert!(!is_name("\u{D7}") && !is_name("a\u{F7}"));
    }

    #[test]
    fn language() {
        for ok in ["en", "en-US", "i-klingon", "x-a1b2c3d4", "abcdefgh"] {
            assert!(is_language(ok), "{ok}");
        }
        for bad in [
            "",
            "abcdefghi",
            "en-",
            "-en",
            "e1",
            "en--US",
            "en-abcdefghi",
            "en_US",
        ] {
            assert!(!is_language(bad), "{bad}");
        }
    }

    #[test]
    fn ranges_agree_with_predicates() {
        let in_ranges = |r: &[(char, char)], c: char| r.iter().any(|&(a, b)| a <= c && c <= b);
        for c in (0..0x11000u32).filter_map(char::from_u32) {
            assert_eq!(
                in_ranges(NAME_START_RANGES, c),
                is_name_start_char(c),
                "{c:?}"
            );
            assert_eq!(
                in_ranges(NAME_START_RANGES, c) || in_ranges(NAME_EXTRA_RANGES, c),
                is_name_char(c),
                "{c:?}"
            );
        }
    }
}
