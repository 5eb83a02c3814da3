//! `parse`: a lexical form of a built-in type to its value, checking the lexical space and the
//! type's own range exactly as Part 2 defines them.

use super::builtin::Builtin;
use super::datetime::{DateTimeValue, DurationValue};
use super::error::{DatatypeError, ErrorKind, lexical};
use super::names;
use super::number::{Decimal, FloatValue};
use super::resolver::NamespaceResolver;
use super::value::{QNameValue, Value};

/// The namespace the `xml` prefix is bound to, always (Namespaces in XML 1.0).
const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";

/// Parses `lexical` as a value of the built-in type `t`: applies the type's whiteSpace
/// facet, checks the lexical space, checks the built-in's range (an `xs:byte` is -128..127,
/// a `positiveInteger` above 0) and returns the value. `ns` resolves the prefix of QName and
/// NOTATION values. The three built-in list types give a [`Value::List`] of at least one
/// item.
pub fn parse(
    t: Builtin,
    lexical: &str,
    ns: &dyn NamespaceResolver,
) -> Result<Value, DatatypeError> {
    let s = t.whitespace().apply(lexical);
    parse_normalized(t, &s, ns)
}

/// The items of a list's lexical form: the white-space separated tokens.
pub fn split_list(lexical: &str) -> impl Iterator<Item = &str> {
    lexical
        .split(super::whitespace::is_xml_space)
        .filter(|t| !t.is_empty())
}

/// Parses a list type's lexical form: each white-space separated item as a value of `item`.
/// The result may be empty (a list type's own length facets decide whether that is valid).
pub fn parse_list(
    item: Builtin,
    lexical: &str,
    ns: &dyn NamespaceResolver,
) -> Result<Value, DatatypeError> {
    split_list(lexical)
        .map(|tok| parse(item, tok, ns))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::List)
}

/// [`parse`] on a string already normalized by a whiteSpace facet at least as strict as the
/// type's own.
pub(crate) fn parse_normalized(
    t: Builtin,
    s: &str,
    ns: &dyn NamespaceResolver,
) -> Result<Value, DatatypeError> {
    use Builtin::*;
    let subject = || format!("xs:{}", t.name());
    let check = |ok: bool, what: &str| {
        if ok {
            Ok(Value::String(s.to_string()))
        } else {
            Err(lexical(&subject(), s, format!("not {what}")))
        }
    };
    match t {
        AnySimpleType | String | NormalizedString | Token => Ok(Value::String(s.to_string())),
        Language => check(names::is_language(s), "a language tag"),
        NmToken => check(names::is_nmtoken(s), "an NMTOKEN"),
        Name => check(names::is_name(s), "an XML Name"),
        NCName | Id | IdRef | Entity => check(names::is_ncname(s), "an NCName"),
        NmTokens | IdRefs | Entities => {
            let item = t.list_item().unwrap_or(NmToken);
            let v = parse_list(item, s, ns)?;
            if v.length() == Some(0) {
                return Err(lexical(
                    &subject(),
                    s,
                    "a list of at least one item is needed",
                ));
            }
            Ok(v)
        }
        Boolean => match s {
            "true" | "1" => Ok(Value::Boolean(true)),
            "false" | "0" => Ok(Value::Boolean(false)),
            _ => Err(lexical(&subject(), s, "not true, false, 1 or 0")),
        },
        Decimal => super::number::Decimal::parse(s, true)
            .map(Value::Decimal)
            .ok_or_else(|| lexical(&subject(), s, "not a decimal number")),
        Float | Double => FloatValue::parse(s, t == Float)
            .map(|f| {
                if t == Float {
                    Value::Float(f)
                } else {
                    Value::Double(f)
                }
            })
            .ok_or_else(|| lexical(&subject(), s, "not a floating-point literal")),
        Duration => DurationValue::parse(s).map(Value::Duration),
        DateTime | Time | Date | GYearMonth | GYear | GMonthDay | GDay | GMonth => {
            DateTimeValue::parse(t, s).map(Value::DateTime)
        }
        HexBinary => parse_hex(s)
            .map(Value::HexBinary)
            .ok_or_else(|| lexical(&subject(), s, "not an even number of hex digits")),
        Base64Binary => parse_base64(s)
            .map(Value::Base64Binary)
            .ok_or_else(|| lexical(&subject(), s, "not base64 as Part 2 defines it")),
        // Part 2 leaves anyURI's lexical space to the URI escaping of XLink: any string can be
        // made a URI reference, so it is checked as leniently as the recommendation advises.
        AnyUri => Ok(Value::AnyUri(s.to_string())),
        QName | Notation => {
            let q = parse_qname(s, ns).map_err(|m| lexical(&subject(), s, m))?;
            Ok(if t == QName {
                Value::QName(q)
            } else {
                Value::Notation(q)
            })
        }
        Integer | NonPositiveInteger | NegativeInteger | Long | Int | Short | Byte
        | NonNegativeInteger | UnsignedLong | UnsignedInt | UnsignedShort | UnsignedByte
        | PositiveInteger => {
            let d = super::number::Decimal::parse(s, false)
                .ok_or_else(|| lexical(&subject(), s, "not an integer"))?;
            check_integer_bounds(t, &d, s)?;
            Ok(Value::Decimal(d))
        }
    }
}

/// Refuses an integer outside its built-in type's bounds.
fn check_integer_bounds(t: Builtin, d: &Decimal, s: &str) -> Result<(), DatatypeError> {
    let (min, max) = t.integer_bounds();
    let below = min
        .and_then(|m| Decimal::parse(m, false))
        .is_some_and(|m| d.cmp_value(&m).is_lt());
    let above = max
        .and_then(|m| Decimal::parse(m, false))
        .is_some_and(|m| d.cmp_value(&m).is_gt());
    if below || above {
        return Err(DatatypeError::new(
            ErrorKind::Range,
            &format!("xs:{}", t.name()),
            s,
            format!("out of range {}..{}", min.unwrap_or(""), max.unwrap_or("")),
        ));
    }
    Ok(())
}

/// `prefix:local` or `local`, each an NCName; an unprefixed name takes the default namespace.
fn parse_qname(s: &str, ns: &dyn NamespaceResolver) -> Result<QNameValue, &'static str> {
    let (prefix, local) = s.split_once(':').unwrap_or(("", s));
    if !names::is_ncname(local) || (s.contains(':') && !names::is_ncname(prefix)) {
        return Err("not a QName");
    }
    let namespace = if prefix == "xml" {
        XML_NAMESPACE.to_string()
    } else {
        match ns.resolve(prefix) {
            Some(n) => n.into_owned(),
            None if prefix.is_empty() => String::new(),
            None => return Err("the prefix is not bound to a namespace"),
        }
    };
    Ok(QNameValue {
        namespace,
        local: local.to_string(),
        prefix: prefix.to_string(),
    })
}

/// hexBinary: pairs of hex digits, either case.
fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let digit = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    s.as_bytes()
        .chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The value of a base64 character, or `None` for anything else.
fn b64_value(b: u8) -> Option<u8> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    })
}

/// base64Binary as Part 2 second edition defines its lexical space (3.2.16): groups of four
/// characters, single spaces allowed between characters (the collapsed form of any white
/// space), `=` padding only at the end and only after a character whose unused bits are
/// zero (`B04` before `==`, `B16` before `=`), so that each value has one canonical form.
fn parse_base64(s: &str) -> Option<Vec<u8>> {
    // After collapsing, spaces are single and inner: the grammar allows one after any
    // character but the last, so they can simply be dropped.
    let t: Vec<u8> = s.bytes().filter(|&b| b != b' ').collect();
    if !t.len().is_multiple_of(4) || s.contains("  ") {
        return None;
    }
    let pad = t.iter().rev().take_while(|&&b| b == b'=').count();
    if pad > 2 {
        return None;
    }
    let body = &t[..t.len() - pad];
    let mut out = Vec::with_capacity(t.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in body {
        acc = acc << 6 | u32::from(b64_value(b)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // The leftover bits of the last character must be zero: B04 before "==", B16 before "=".
    if acc != 0 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::resolver::NoNamespaces;
    use super::*;

    fn ok(t: Builtin, s: &str) -> Value {
        parse(t, s, &NoNamespaces).unwrap_or_else(|e| panic!("{s}: {e}"))
    }
    fn bad(t: Builtin, s: &str) {
        assert!(
            parse(t, s, &NoNamespaces).is_err(),
            "{} {s:?} accepted",
            t.name()
        );
    }

    #[test]
    fn integers() {
        use Builtin::*;
        ok(Byte, "-128");
        ok(Byte, " +127 ");
        bad(Byte, "128");
        bad(Byte, "-129");
        ok(UnsignedLong, "18446744073709551615");
        bad(UnsignedLong, "18446744073709551616");
        bad(UnsignedLong, "-1");
        ok(UnsignedLong, "-0");
        ok(Long, "-9223372036854775808");
        bad(Long, "9223372036854775808");
        bad(PositiveInteger, "0");
        ok(PositiveInteger, "0001");
        bad(NegativeInteger, "-0");
        ok(NonPositiveInteger, "-0");
        bad(Integer, "1.0");
        bad(Integer, "1e0");
        bad(Integer, "");
        let huge = "9".repeat(1000);
        assert_eq!(ok(Integer, &huge), ok(Integer, &format!("+000{huge}")));
    }

    #[test]
    fn strings_and_names() {
        use Builtin::*;
        assert_eq!(ok(Token, "  a \n b "), Value::String("a b".into()));
        assert_eq!(ok(NormalizedString, "a\tb"), Value::String("a b".into()));
        assert_eq!(ok(String, " a\t"), Value::String(" a\t".into()));
        ok(NCName, " abc ");
        bad(NCName, "a:b");
        bad(Name, "1a");
        bad(Language, "toolonglanguage");
        assert_eq!(ok(NmTokens, " a  b c ").length(), Some(3));
        bad(NmTokens, "  ");
        bad(IdRefs, "a b:c");
    }

    #[test]
    fn binary() {
        use Builtin::*;
        assert_eq!(ok(HexBinary, "0aFf"), Value::HexBinary(vec![10, 255]));
        bad(HexBinary, "abc");
        bad(HexBinary, "0g");
        assert_eq!(ok(HexBinary, "").length(), Some(0));
        assert_eq!(
            ok(Base64Binary, "aGVsbG8="),
            Value::Base64Binary(b"hello".to_vec())
        );
        assert_eq!(
            ok(Base64Binary, "aGV s bG8 ="),
            Value::Base64Binary(b"hello".to_vec())
        );
        assert_eq!(ok(Base64Binary, " aG\nVsbA== ").length(), Some(4));
        ok(Base64Binary, "");
        bad(Base64Binary, "aGVsbG9=");
        bad(Base64Binary, "aGVsbB==");
        bad(Base64Binary, "aGVsbG8");
        bad(Base64Binary, "aGVs=G8=");
        bad(Base64Binary, "a===");
        bad(Base64Binary, "aGVs!G8=");
    }

    #[test]
    fn qnames() {
        let ns: &[(&str, &str)] = &[("", "urn:d"), ("p", "urn:p")];
        let q = |s: &str| parse(Builtin::QName, s, &ns);
        assert_ne!(q("p:a").unwrap(), q("a").unwrap());
        match q("a").unwrap() {
            Value::QName(v) => assert_eq!((v.namespace.as_str(), v.local.as_str()), ("urn:d", "a")),
            v => panic!("{v:?}"),
        }
        assert!(q("x:a").is_err());
        assert!(q("p:").is_err() && q(":a").is_err() && q("a:b:c").is_err());
        match q("xml:lang").unwrap() {
            Value::QName(v) => assert_eq!(v.namespace, XML_NAMESPACE),
            v => panic!("{v:?}"),
        }
        assert!(parse(Builtin::QName, "a", &NoNamespaces).is_ok());
        let f =
            super::super::resolver::FnResolver(|p: &str| (p == "f").then(|| "urn:f".to_string()));
        match parse(Builtin::QName, "f:a", &f) {
            Ok(Value::QName(v)) => assert_eq!(v.namespace, "urn:f"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn others() {
        use Builtin::*;
        assert_eq!(ok(Boolean, " 1 "), Value::Boolean(true));
        bad(Boolean, "TRUE");
        assert_eq!(ok(Decimal, "1."), ok(Decimal, "1.000"));
        bad(Decimal, "1e5");
        ok(Double, "1e5");
        ok(Float, "-INF");
        bad(Float, "+INF");
        assert_ne!(ok(Float, "1"), ok(Double, "1"));
        assert_ne!(ok(Decimal, "1"), ok(Double, "1"));
        ok(AnyUri, "http://example.com/a b");
        ok(Date, "2000-02-29");
        bad(Date, "2001-02-29");
    }
}
