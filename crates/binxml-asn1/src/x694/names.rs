//! X.694 clause 10: XSD names made into ASN.1 type references and identifiers.
//!
//! A name keeps its ASCII letters and digits; `_`, `.` and `-` become `-`, every other
//! character is dropped; runs of hyphens become one and a trailing hyphen is dropped; the first
//! character is upper-cased for a type reference and lower-cased for an identifier (a name that
//! does not start with a letter gets an `x` in front). A name that would clash with one already
//! given in the same scope (the module's type references, or one SEQUENCE's or CHOICE's
//! identifiers), or with an ASN.1 reserved word, gets the suffix `-1`, `-2`, ... (clause 10.3).

use std::collections::HashSet;

/// ASN.1 reserved words (X.680 12.38) that a converted name could equal.
const RESERVED: &[&str] = &[
    "ABSENT",
    "ABSTRACT-SYNTAX",
    "ALL",
    "APPLICATION",
    "AUTOMATIC",
    "BEGIN",
    "BIT",
    "BMPString",
    "BOOLEAN",
    "BY",
    "CHARACTER",
    "CHOICE",
    "CLASS",
    "COMPONENT",
    "COMPONENTS",
    "CONSTRAINED",
    "CONTAINING",
    "DATE",
    "DATE-TIME",
    "DEFAULT",
    "DEFINITIONS",
    "DURATION",
    "EMBEDDED",
    "ENCODED",
    "ENCODING-CONTROL",
    "END",
    "ENUMERATED",
    "EXCEPT",
    "EXPLICIT",
    "EXPORTS",
    "EXTENSIBILITY",
    "EXTERNAL",
    "FALSE",
    "FROM",
    "GeneralizedTime",
    "GeneralString",
    "GraphicString",
    "IA5String",
    "IDENTIFIER",
    "IMPLICIT",
    "IMPLIED",
    "IMPORTS",
    "INCLUDES",
    "INSTANCE",
    "INSTRUCTIONS",
    "INTEGER",
    "INTERSECTION",
    "ISO646String",
    "MAX",
    "MIN",
    "MINUS-INFINITY",
    "NOT-A-NUMBER",
    "NULL",
    "NumericString",
    "OBJECT",
    "ObjectDescriptor",
    "OCTET",
    "OF",
    "OID-IRI",
    "OPTIONAL",
    "PATTERN",
    "PDV",
    "PLUS-INFINITY",
    "PRESENT",
    "PrintableString",
    "PRIVATE",
    "REAL",
    "RELATIVE-OID",
    "RELATIVE-OID-IRI",
    "SEQUENCE",
    "SET",
    "SETTINGS",
    "SIZE",
    "STRING",
    "SYNTAX",
    "T61String",
    "TAGS",
    "TeletexString",
    "TIME",
    "TIME-OF-DAY",
    "TRUE",
    "TYPE-IDENTIFIER",
    "UNION",
    "UNIQUE",
    "UNIVERSAL",
    "UniversalString",
    "UTCTime",
    "UTF8String",
    "VideotexString",
    "VisibleString",
    "WITH",
];

/// The converted form of `name` (clause 10.3), upper-case first for a type reference.
pub fn convert(name: &str, type_reference: bool) -> String {
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        let c = match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => c,
            '_' | '.' | '-' => '-',
            _ => continue,
        };
        if c == '-' && (s.is_empty() || s.ends_with('-')) {
            continue;
        }
        s.push(c);
    }
    while s.ends_with('-') {
        s.pop();
    }
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        s.insert(0, 'x');
    }
    let mut chars = s.chars();
    let first = chars.next().expect("not empty");
    let first = if type_reference {
        first.to_ascii_uppercase()
    } else {
        first.to_ascii_lowercase()
    };
    std::iter::once(first).chain(chars).collect()
}

/// Names given in one scope; [`Scope::unique`] suffixes a name already taken.
#[derive(Default)]
pub struct Scope {
    taken: HashSet<String>,
}

impl Scope {
    /// `name`, or `name-1`, `name-2`, ... when it is taken or reserved; then taken.
    pub fn unique(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut n = 0u32;
        while self.taken.contains(&candidate) || RESERVED.contains(&candidate.as_str()) {
            n += 1;
            candidate = format!("{name}-{n}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion() {
        assert_eq!(convert("InvoiceType", true), "InvoiceType");
        assert_eq!(convert("invoice", true), "Invoice");
        assert_eq!(convert("Line_Item.x", false), "line-Item-x");
        assert_eq!(convert("__a__b_", false), "a-b");
        assert_eq!(convert("1st", true), "X1st");
        assert_eq!(convert("état", false), "tat");
        let mut s = Scope::default();
        assert_eq!(s.unique("a".into()), "a");
        assert_eq!(s.unique("a".into()), "a-1");
        assert_eq!(s.unique("a".into()), "a-2");
        assert_eq!(s.unique("INTEGER".into()), "INTEGER-1");
    }
}
