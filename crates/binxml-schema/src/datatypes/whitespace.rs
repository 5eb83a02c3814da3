//! `WhiteSpace`: the whiteSpace facet and the normalization it applies before parsing.

use std::borrow::Cow;

/// The value of the whiteSpace facet (Part 2, 4.3.6). The order is strictness: a restriction
/// may move only towards `Collapse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WhiteSpace {
    /// Leave the string as it is.
    Preserve,
    /// Replace each tab, line feed and carriage return by a space.
    Replace,
    /// `Replace`, then squeeze runs of spaces to one and strip leading and trailing spaces.
    Collapse,
}

/// The white space characters of XML 1.0 (production S): the only ones the facet touches.
pub(crate) fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

impl WhiteSpace {
    /// The facet value from its lexical form in a schema (`preserve`, `replace`, `collapse`).
    pub fn from_name(name: &str) -> Option<WhiteSpace> {
        match name {
            "preserve" => Some(WhiteSpace::Preserve),
            "replace" => Some(WhiteSpace::Replace),
            "collapse" => Some(WhiteSpace::Collapse),
            _ => None,
        }
    }

    /// The facet value's lexical form.
    pub fn name(self) -> &'static str {
        match self {
            WhiteSpace::Preserve => "preserve",
            WhiteSpace::Replace => "replace",
            WhiteSpace::Collapse => "collapse",
        }
    }

    /// Normalizes `s`; borrows it when nothing changes (the common case for data values, so
    /// validation allocates nothing for them).
    pub fn apply(self, s: &str) -> Cow<'_, str> {
        match self {
            WhiteSpace::Preserve => Cow::Borrowed(s),
            WhiteSpace::Replace => {
                if s.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
                    Cow::Owned(
                        s.chars()
                            .map(|c| if is_xml_space(c) { ' ' } else { c })
                            .collect(),
                    )
                } else {
                    Cow::Borrowed(s)
                }
            }
            WhiteSpace::Collapse => {
                if is_collapsed(s) {
                    Cow::Borrowed(s)
                } else {
                    let mut out = String::with_capacity(s.len());
                    for word in s.split(is_xml_space).filter(|w| !w.is_empty()) {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(word);
                    }
                    Cow::Owned(out)
                }
            }
        }
    }
}

/// Whether collapsing would leave `s` unchanged: no tab, line feed or carriage return, no
/// leading or trailing space, no two spaces in a row.
fn is_collapsed(s: &str) -> bool {
    let b = s.as_bytes();
    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
        return false;
    }
    let mut prev_space = false;
    for &c in b {
        match c {
            b'\t' | b'\n' | b'\r' => return false,
            b' ' if prev_space => return false,
            _ => prev_space = c == b' ',
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply() {
        assert!(matches!(
            WhiteSpace::Collapse.apply("a b"),
            Cow::Borrowed("a b")
        ));
        assert_eq!(WhiteSpace::Collapse.apply("  a \t\n b  "), "a b");
        assert_eq!(WhiteSpace::Collapse.apply(" "), "");
        assert_eq!(WhiteSpace::Replace.apply("a\tb\r\n"), "a b  ");
        assert!(matches!(
            WhiteSpace::Replace.apply("a  b"),
            Cow::Borrowed(_)
        ));
        assert_eq!(WhiteSpace::Preserve.apply(" \t"), " \t");
        // Only XML's four white space characters count: a no-break space stays.
        assert_eq!(WhiteSpace::Collapse.apply("\u{a0}a\u{a0}"), "\u{a0}a\u{a0}");
    }
}
