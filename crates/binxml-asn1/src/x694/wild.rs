//! Wildcard content (X.694's ANY-ELEMENT and ANY-ATTRIBUTES components) as text.
//!
//! An attribute an attribute wildcard matches is one UTF8String: its namespace name and one
//! space when it has one, its local name, `=`, and its value between double quotes, escaped as
//! an XML attribute value (`&amp;`, `&lt;`, `&quot;`, and the white space characters tab, line
//! feed and carriage return as character references, so that they survive attribute-value
//! normalization): `urn:o z="1"`, `lang="en"`. A namespace name holds no space and no quote,
//! a local name no space and no `=`, so the string splits back without ambiguity.
//!
//! An element a wildcard matches is its XML text, written and parsed by an
//! [`XmlFragments`](binxml_core::XmlFragments) (the codec does not import the XML codec); the
//! text declares the namespaces of the enclosing elements that its names use
//! ([`with_context`]), so that it parses on its own.

use std::borrow::Cow;

use binxml_core::{Event, XML_NS};

/// The ANY-ATTRIBUTES string of an attribute.
pub fn attribute_string(ns: &str, local: &str, value: &str, out: &mut String) {
    if !ns.is_empty() {
        out.push_str(ns);
        out.push(' ');
    }
    out.push_str(local);
    out.push_str("=\"");
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An ANY-ATTRIBUTES string taken apart: namespace name (`""`: none), local name and value
/// (references replaced, literal white space normalized to spaces as XML does, either quote
/// accepted).
pub fn parse_attribute(s: &str) -> Result<(&str, &str, Cow<'_, str>), String> {
    // A namespace name may hold '=' (a query) but no quote: the value's opening quote is the
    // first quote, right after the name's '='.
    let eq = match s.find(['"', '\'']) {
        Some(q) if q > 0 && s.as_bytes()[q - 1] == b'=' => q - 1,
        _ => {
            return Err(format!(
                "attribute wildcard string {s:?}: not `[uri ]name=\"value\"`"
            ));
        }
    };
    let (head, rest) = (&s[..eq], &s[eq + 1..]);
    let (ns, local) = match head.rsplit_once(' ') {
        Some((ns, local)) => (ns, local),
        None => ("", head),
    };
    let ok_name = !local.is_empty()
        && !local
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, ':' | '"' | '\'' | '<' | '>' | '&' | '='));
    if !ok_name || (head.contains(' ') && ns.is_empty()) || ns.contains(char::is_whitespace) {
        return Err(format!(
            "attribute wildcard string {s:?}: not `[uri ]name=\"value\"`"
        ));
    }
    let quote = rest.chars().next().unwrap_or(' ');
    let body = match rest.strip_prefix(quote).and_then(|r| r.strip_suffix(quote)) {
        Some(b) if matches!(quote, '"' | '\'') && !b.contains(quote) => b,
        _ => {
            return Err(format!(
                "attribute wildcard string {s:?}: the value is not quoted"
            ));
        }
    };
    Ok((
        ns,
        local,
        unescape(body).map_err(|e| format!("{s:?}: {e}"))?,
    ))
}

/// An attribute value's text with its references replaced and literal white space made spaces.
fn unescape(body: &str) -> Result<Cow<'_, str>, String> {
    if !body.contains(['&', '<', '\t', '\n', '\r']) {
        return Ok(Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find(['&', '<', '\t', '\n', '\r']) {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        rest = &rest[i + 1..];
        match c {
            b'<' => return Err("'<' in an attribute value".into()),
            b'&' => {
                let end = rest.find(';').ok_or("a reference without ';'")?;
                let name = &rest[..end];
                rest = &rest[end + 1..];
                let ch = match name {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    _ => {
                        let n = if let Some(h) = name.strip_prefix("#x") {
                            u32::from_str_radix(h, 16).ok()
                        } else if let Some(d) = name.strip_prefix('#') {
                            d.parse::<u32>().ok()
                        } else {
                            None
                        };
                        n.and_then(char::from_u32)
                            .filter(|&c| xml_char(c))
                            .ok_or_else(|| format!("reference &{name}; is not a character"))?
                    }
                };
                out.push(ch);
            }
            _ => out.push(' '),
        }
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The events of an element matched by a wildcard (`sub`, from its start tag to its end tag),
/// with the declarations of `scope` (the bindings in scope around it, innermost last) that
/// its names use and that it does not make itself added to its start tag.
pub fn with_context<'e>(sub: &'e [Event<'static>], scope: &[(&'e str, &'e str)]) -> Vec<Event<'e>> {
    // The prefixes used where no declaration inside the subtree binds them.
    let mut declared: Vec<Vec<&str>> = Vec::new();
    let mut needed: Vec<&str> = Vec::new();
    let mut need = |p: &'e str, declared: &Vec<Vec<&str>>| {
        if p != "xml" && !declared.iter().flatten().any(|d| *d == p) && !needed.contains(&p) {
            needed.push(p);
        }
    };
    let mut i = 0;
    while i < sub.len() {
        match &sub[i] {
            Event::StartElement(q) => {
                let mut here = Vec::new();
                let mut j = i + 1;
                while let Some(Event::Namespace { prefix, .. }) = sub.get(j) {
                    here.push(&**prefix);
                    j += 1;
                }
                declared.push(here);
                if !q.namespace.is_empty() || !q.prefix.is_empty() {
                    need(&q.prefix, &declared);
                }
                while let Some(Event::Attribute { name, .. }) = sub.get(j) {
                    if !name.prefix.is_empty() {
                        need(&name.prefix, &declared);
                    }
                    j += 1;
                }
                i = j;
                continue;
            }
            Event::EndElement => {
                declared.pop();
            }
            _ => {}
        }
        i += 1;
    }
    let mut out: Vec<Event<'e>> = Vec::with_capacity(sub.len() + needed.len());
    out.push(sub[0].clone());
    for p in needed {
        if let Some((_, uri)) = scope.iter().rev().find(|(q, _)| *q == p) {
            out.push(Event::Namespace {
                prefix: Cow::Borrowed(p),
                uri: Cow::Borrowed(uri),
            });
        }
    }
    out.extend(sub[1..].iter().cloned());
    out
}

/// Whether `ns` may be the namespace of a wildcard attribute the decoder writes back: not the
/// XML Schema instance namespace (its attributes are the mapping's own) nor `xmlns`'s.
pub fn attribute_namespace_ok(ns: &str) -> bool {
    ns != super::map::XSI && ns != binxml_core::XMLNS_NS
}

/// The prefix `xml` is bound without a declaration.
pub fn is_xml(ns: &str) -> bool {
    ns == XML_NS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_strings_both_ways() {
        for (ns, local, value) in [
            ("urn:o", "z", "1"),
            ("", "lang", "a \"quoted\" & <tagged> 'x'\t\n\r end"),
            ("http://x/?a=b&c=d", "q", "="),
            ("urn:o", "e", ""),
        ] {
            let mut s = String::new();
            attribute_string(ns, local, value, &mut s);
            let (n, l, v) = parse_attribute(&s).unwrap();
            assert_eq!((n, l, &*v), (ns, local, value), "{s}");
        }
    }

    #[test]
    fn attribute_strings_refused() {
        for bad in [
            "",
            "z",
            "z=1",
            "z=\"1",
            "z=\"a\"b\"",
            " z=\"1\"",
            "urn:o  z=\"1\"",
            "p:z=\"1\"",
            "z=\"&bogus;\"",
            "z=\"&#0;\"",
            "z=\"a<b\"",
            "z=\"&amp\"",
        ] {
            assert!(parse_attribute(bad).is_err(), "{bad:?}");
        }
        // Literal white space is normalized, as in XML.
        assert_eq!(parse_attribute("z='a\tb'").unwrap().2, "a b");
    }
}
