//! Canonical XML 1.0 and 1.1 and Exclusive XML Canonicalization 1.0 over binxml's event stream.
//!
//! The input is a document's events (from any decoder); the node-set is the whole document, or
//! one element's subtree (a document subset), less the subtrees of some elements (what the
//! enveloped-signature transform removes). The algorithms are the W3C Recommendations'
//! (<https://www.w3.org/TR/xml-c14n>, <https://www.w3.org/TR/xml-exc-c14n/>); the events already
//! carry what a canonicaliser needs from the parser: expanded entities, normalized attribute
//! values and line ends, attribute defaults, resolved namespace names.

use std::borrow::Cow;

use binxml_core::hash::bytes_eq;
use binxml_core::{Event, QName, XML_NS};

use crate::SignError;

/// Which canonicalization algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Canonical XML 1.0 (inclusive): every namespace in scope is rendered on the subset's
    /// apex, and the apex inherits its ancestors' `xml:*` attributes.
    Inclusive,
    /// Canonical XML 1.1: as 1.0, except that a subset's apex inherits only `xml:lang` and
    /// `xml:space` (not `xml:id`), and its `xml:base` is the fixup of the Recommendation's
    /// section 2.4: the omitted ancestors' values and its own joined ([`join_uri_references`]).
    Inclusive11,
    /// Exclusive XML Canonicalization 1.0: only the namespaces an element visibly uses (its own
    /// prefix, its attributes' prefixes, and those of the InclusiveNamespaces prefix list).
    Exclusive,
}

/// A canonicalization algorithm with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct C14n {
    /// Inclusive or exclusive.
    pub method: Method,
    /// Whether comments are kept (the `#WithComments` variants).
    pub with_comments: bool,
    /// Exclusive canonicalization's InclusiveNamespaces PrefixList (`#default` is the default
    /// namespace, written here as `""`); ignored by the inclusive method.
    pub inclusive_prefixes: Vec<String>,
}

/// Canonical XML 1.0 (`http://www.w3.org/TR/2001/REC-xml-c14n-20010315`).
pub const C14N10: &str = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
/// Canonical XML 1.0 with comments.
pub const C14N10_COMMENTS: &str = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments";
/// Canonical XML 1.1 (`http://www.w3.org/2006/12/xml-c14n11`).
pub const C14N11: &str = "http://www.w3.org/2006/12/xml-c14n11";
/// Canonical XML 1.1 with comments.
pub const C14N11_COMMENTS: &str = "http://www.w3.org/2006/12/xml-c14n11#WithComments";
/// Exclusive XML Canonicalization 1.0.
pub const EXC_C14N: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
/// Exclusive XML Canonicalization 1.0 with comments.
pub const EXC_C14N_COMMENTS: &str = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments";

impl C14n {
    /// The algorithm named by its URI, or `None` for one binxml does not implement (Canonical
    /// XML 2.0 among them).
    pub fn from_uri(uri: &str) -> Option<C14n> {
        let (method, with_comments) = match uri {
            C14N10 => (Method::Inclusive, false),
            C14N10_COMMENTS => (Method::Inclusive, true),
            C14N11 => (Method::Inclusive11, false),
            C14N11_COMMENTS => (Method::Inclusive11, true),
            EXC_C14N => (Method::Exclusive, false),
            EXC_C14N_COMMENTS => (Method::Exclusive, true),
            _ => return None,
        };
        Some(C14n {
            method,
            with_comments,
            inclusive_prefixes: Vec::new(),
        })
    }

    /// The algorithm's URI.
    pub fn uri(&self) -> &'static str {
        match (self.method, self.with_comments) {
            (Method::Inclusive, false) => C14N10,
            (Method::Inclusive, true) => C14N10_COMMENTS,
            (Method::Inclusive11, false) => C14N11,
            (Method::Inclusive11, true) => C14N11_COMMENTS,
            (Method::Exclusive, false) => EXC_C14N,
            (Method::Exclusive, true) => EXC_C14N_COMMENTS,
        }
    }

    /// The same algorithm with comments kept or dropped.
    pub fn with_comments(mut self, with_comments: bool) -> C14n {
        self.with_comments = with_comments;
        self
    }
}

/// What part of the document is canonicalized.
#[derive(Clone, Debug, Default)]
pub struct Subset<'s> {
    /// The index in the events of the `StartElement` whose subtree is the node-set; `None`: the
    /// whole document.
    pub apex: Option<usize>,
    /// Indices of `StartElement`s whose subtrees are left out.
    pub exclude: &'s [usize],
}

/// The canonical form of the whole document.
pub fn canonicalize(events: &[Event<'_>], c14n: &C14n) -> Result<Vec<u8>, SignError> {
    canonicalize_subset(events, &Subset::default(), c14n)
}

/// One element's namespace declarations in scope, as pushed on the scope stack.
struct Frame {
    /// Length of the in-scope stack before the element's declarations.
    scope_mark: usize,
    /// Length of the rendered stack before the element's rendered declarations.
    rendered_mark: usize,
    /// Length of the inherited-`xml:*` stack before the element's `xml:*` attributes.
    xml_mark: usize,
    /// Whether the element is output (inside the apex and not excluded).
    output: bool,
    /// Whether the element is the apex or below it (excluded or not).
    inside: bool,
    /// The index of its `StartElement`.
    start: usize,
}

/// The canonical form of a document subset.
pub fn canonicalize_subset(
    events: &[Event<'_>],
    subset: &Subset<'_>,
    c14n: &C14n,
) -> Result<Vec<u8>, SignError> {
    let mut out = Vec::with_capacity(4096);
    // Every namespace declaration in scope (later ones shadow earlier ones).
    let mut scope: Vec<(&str, &str)> = Vec::new();
    // The declarations rendered on output ancestors (what an output element's are compared with).
    let mut rendered: Vec<(&str, &str)> = Vec::new();
    // The `xml:*` attributes of the open elements above the apex.
    let mut xml_attrs: Vec<(&str, &str)> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut seen_root = false;
    let whole = subset.apex.is_none();
    let mut i = 0;
    while i < events.len() {
        let inside = frames.last().is_some_and(|f| f.inside);
        let output = if frames.is_empty() {
            whole
        } else {
            frames.last().unwrap().output
        };
        match &events[i] {
            Event::StartElement(name) => {
                let is_apex = subset.apex == Some(i);
                let el_inside = inside || is_apex || whole;
                let el_output = (output || is_apex) && !subset.exclude.contains(&i);
                let frame = Frame {
                    scope_mark: scope.len(),
                    rendered_mark: rendered.len(),
                    xml_mark: xml_attrs.len(),
                    output: el_output,
                    inside: el_inside,
                    start: i,
                };
                let mut j = i + 1;
                let mut attrs: Vec<(&QName<'_>, &str)> = Vec::new();
                while j < events.len() {
                    match &events[j] {
                        Event::Namespace { prefix, uri } => scope.push((prefix, uri)),
                        Event::Attribute { name, value } => attrs.push((name, value)),
                        _ => break,
                    }
                    j += 1;
                }
                if el_output {
                    let base = if is_apex && c14n.method == Method::Inclusive11 {
                        xml_base_fixup(&xml_attrs, &attrs)
                    } else {
                        None
                    };
                    write_start(
                        &mut out,
                        name,
                        &attrs,
                        &scope[..],
                        &mut rendered,
                        &inherited(is_apex, &xml_attrs, c14n),
                        base.as_deref(),
                        c14n,
                    )?;
                    seen_root = true;
                } else if !el_inside {
                    for (n, v) in &attrs {
                        if n.namespace == XML_NS {
                            xml_attrs.push((&n.local, v));
                        }
                    }
                }
                frames.push(frame);
                i = j;
                continue;
            }
            Event::EndElement => {
                let f = frames
                    .pop()
                    .ok_or_else(|| SignError::malformed("an element end without its start"))?;
                if f.output {
                    out.extend_from_slice(b"</");
                    if let Event::StartElement(name) = &events[f.start] {
                        out.extend_from_slice(name.qualified().as_bytes());
                    }
                    out.push(b'>');
                }
                scope.truncate(f.scope_mark);
                rendered.truncate(f.rendered_mark);
                xml_attrs.truncate(f.xml_mark);
                if frames.is_empty() && !whole && f.inside {
                    break;
                }
            }
            Event::Characters { .. }
            | Event::Typed(_)
            | Event::Comment(_)
            | Event::ProcessingInstruction { .. }
            | Event::EntityReference { .. }
                if !output => {}
            Event::Characters { text, .. } if !frames.is_empty() => escape_text(&mut out, text),
            Event::Typed(t) if !frames.is_empty() => escape_text(&mut out, &t.lexical()),
            Event::Comment(text) if c14n.with_comments => {
                let top = frames.is_empty();
                if top && seen_root {
                    out.push(b'\n');
                }
                out.extend_from_slice(b"<!--");
                out.extend_from_slice(text.as_bytes());
                out.extend_from_slice(b"-->");
                if top && !seen_root {
                    out.push(b'\n');
                }
            }
            Event::ProcessingInstruction { target, data } => {
                let top = frames.is_empty();
                if top && seen_root {
                    out.push(b'\n');
                }
                out.extend_from_slice(b"<?");
                out.extend_from_slice(target.as_bytes());
                if !data.is_empty() {
                    out.push(b' ');
                    out.extend_from_slice(data.as_bytes());
                }
                out.extend_from_slice(b"?>");
                if top && !seen_root {
                    out.push(b'\n');
                }
            }
            Event::EntityReference { name, .. } => {
                return Err(SignError::unsupported(format!(
                    "the entity reference &{name}; was not expanded: canonical XML needs its replacement text"
                )));
            }
            Event::Namespace { .. } | Event::Attribute { .. } => {
                return Err(SignError::malformed(
                    "a namespace declaration or attribute outside a start tag",
                ));
            }
            _ => {}
        }
        i += 1;
    }
    if subset.apex.is_some() && !seen_root {
        return Err(SignError::malformed("the subset's apex is not an element"));
    }
    Ok(out)
}

/// The namespace bound to `prefix` in `stack` (the last declaration wins); `""` when unbound.
fn lookup<'s>(stack: &[(&'s str, &'s str)], prefix: &str) -> Option<&'s str> {
    stack
        .iter()
        .rev()
        .find(|(p, _)| bytes_eq(p.as_bytes(), prefix.as_bytes()))
        .map(|(_, u)| *u)
}

/// The `xml:*` attributes of the ancestors that a subset's apex renders: Canonical XML 1.0 all
/// of them, 1.1 `xml:lang` and `xml:space` (its section 2.4; `xml:base` is fixed up instead,
/// [`xml_base_fixup`]), the exclusive method none. Nearest ancestor last.
fn inherited<'x>(
    is_apex: bool,
    xml_attrs: &[(&'x str, &'x str)],
    c14n: &C14n,
) -> Vec<(&'x str, &'x str)> {
    if !is_apex {
        return Vec::new();
    }
    match c14n.method {
        Method::Inclusive => xml_attrs.to_vec(),
        Method::Inclusive11 => xml_attrs
            .iter()
            .filter(|(l, _)| *l == "lang" || *l == "space")
            .copied()
            .collect(),
        Method::Exclusive => Vec::new(),
    }
}

/// Canonical XML 1.1's `xml:base` fixup of a subset's apex (section 2.4): when an omitted
/// ancestor has an `xml:base`, the apex's `xml:base` is the ancestors' values, outermost first,
/// then its own, joined with [`join_uri_references`]; an empty result is not rendered (`Some("")`
/// here). `None` when no ancestor has one: the apex's own attribute, if any, stays as it is.
fn xml_base_fixup(xml_attrs: &[(&str, &str)], own: &[(&QName<'_>, &str)]) -> Option<String> {
    let mut bases = xml_attrs
        .iter()
        .filter(|(l, _)| *l == "base")
        .map(|(_, v)| *v);
    let first = bases.next()?;
    let mut value = first.to_string();
    for b in bases {
        value = join_uri_references(&value, b);
    }
    if let Some((_, v)) = own
        .iter()
        .find(|(n, _)| n.namespace == XML_NS && n.local == "base")
    {
        value = join_uri_references(&value, v);
    }
    Some(value)
}

/// The parts of a URI reference (RFC 3986 appendix B), the fragment left out.
struct UriParts<'u> {
    scheme: Option<&'u str>,
    authority: Option<&'u str>,
    path: &'u str,
    query: Option<&'u str>,
}

fn split_uri(u: &str) -> UriParts<'_> {
    let u = u.split_once('#').map_or(u, |(a, _)| a);
    let (u, query) = match u.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (u, None),
    };
    // A scheme is letters, digits, "+", "-", "." before the first ":", ahead of any "/".
    let (scheme, rest) = match u.find(':') {
        Some(i)
            if i > 0
                && !u[..i].contains('/')
                && u[..i].starts_with(|c: char| c.is_ascii_alphabetic())
                && u[..i]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            (Some(&u[..i]), &u[i + 1..])
        }
        _ => (None, u),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find('/').unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    UriParts {
        scheme,
        authority,
        path,
        query,
    }
}

/// RFC 3986's remove_dot_segments (5.2.4) as Canonical XML 1.1 modifies it for relative
/// values: a `..` that has nothing left to remove in a relative path is kept (`../../x`), and a
/// path ending in `.` or `..` keeps a trailing `/`.
fn remove_dot_segments(path: &str) -> String {
    let absolute = path.starts_with('/');
    let body = if absolute { &path[1..] } else { path };
    let mut out: Vec<&str> = Vec::new();
    let mut trailing = false;
    let segments: Vec<&str> = body.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => trailing = last,
            ".." => {
                match out.last() {
                    Some(&top) if top != ".." => {
                        out.pop();
                    }
                    _ if absolute => {}
                    _ => out.push(".."),
                }
                trailing = last;
            }
            s => {
                if last {
                    if !s.is_empty() {
                        out.push(s);
                    }
                    trailing = s.is_empty() && !out.is_empty();
                } else {
                    out.push(s);
                }
            }
        }
    }
    let mut r = String::with_capacity(path.len());
    if absolute {
        r.push('/');
    }
    r.push_str(&out.join("/"));
    if trailing && !out.is_empty() {
        r.push('/');
    }
    r
}

/// Canonical XML 1.1's join-URI-References (section 2.4): `reference` resolved against `base`
/// as RFC 3986 5.2.2 does, except that `base` may be relative (and then so is the result), a
/// base path ending in `..` counts as ending in `../`, dot segments are removed as
/// [`remove_dot_segments`] does, and the fragment is dropped. String arithmetic only: nothing
/// is fetched.
pub fn join_uri_references(base: &str, reference: &str) -> String {
    let b = split_uri(base);
    let r = split_uri(reference);
    let base_path = if b.path == ".." || b.path.ends_with("/..") {
        format!("{}/", b.path)
    } else {
        b.path.to_string()
    };
    let (scheme, authority, path, query) = if r.scheme.is_some() {
        (r.scheme, r.authority, remove_dot_segments(r.path), r.query)
    } else if r.authority.is_some() {
        (b.scheme, r.authority, remove_dot_segments(r.path), r.query)
    } else if r.path.is_empty() {
        (b.scheme, b.authority, base_path, r.query.or(b.query))
    } else if r.path.starts_with('/') {
        (b.scheme, b.authority, remove_dot_segments(r.path), r.query)
    } else {
        // 5.2.3 merge: the base path up to its last "/", then the reference's path.
        let merged = if b.authority.is_some() && base_path.is_empty() {
            format!("/{}", r.path)
        } else {
            match base_path.rfind('/') {
                Some(i) => format!("{}{}", &base_path[..=i], r.path),
                None => r.path.to_string(),
            }
        };
        (b.scheme, b.authority, remove_dot_segments(&merged), r.query)
    };
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn write_start<'s>(
    out: &mut Vec<u8>,
    name: &QName<'_>,
    attrs: &[(&QName<'_>, &str)],
    scope: &[(&'s str, &'s str)],
    rendered: &mut Vec<(&'s str, &'s str)>,
    inherited_xml: &[(&str, &str)],
    xml_base: Option<&str>,
    c14n: &C14n,
) -> Result<(), SignError> {
    // The namespace nodes to consider: inclusive, every prefix in scope; exclusive, the
    // visibly utilized ones and the InclusiveNamespaces prefix list.
    let mut candidates: Vec<&str> = Vec::new();
    match c14n.method {
        Method::Inclusive | Method::Inclusive11 => {
            for (p, _) in scope {
                if !candidates.contains(p) {
                    candidates.push(p);
                }
            }
        }
        Method::Exclusive => {
            candidates.push(&name.prefix);
            for (n, _) in attrs {
                if !n.prefix.is_empty() && !candidates.contains(&n.prefix.as_ref()) {
                    candidates.push(&n.prefix);
                }
            }
            for p in &c14n.inclusive_prefixes {
                if !candidates.contains(&p.as_str()) {
                    candidates.push(p);
                }
            }
        }
    }
    let mut decls: Vec<(&'s str, &'s str)> = Vec::new();
    for p in candidates {
        if p == "xml" {
            continue;
        }
        let in_scope = scope
            .iter()
            .rev()
            .find(|(q, _)| bytes_eq(q.as_bytes(), p.as_bytes()))
            .copied();
        let before = lookup(rendered, p).unwrap_or("");
        match in_scope {
            Some((sp, uri)) => {
                // An empty default namespace is rendered only to undo a non-empty one above.
                if uri != before {
                    decls.push((sp, uri));
                }
            }
            None => {
                if p.is_empty() && !before.is_empty() {
                    decls.push(("", ""));
                } else if !p.is_empty() && c14n.method == Method::Exclusive {
                    // A prefix used but declared nowhere: the events do not form a
                    // namespace-well-formed document. The inclusive prefix list may name
                    // prefixes not in scope; those are simply not rendered.
                    if !c14n.inclusive_prefixes.iter().any(|q| q == p) {
                        return Err(SignError::malformed(format!(
                            "the prefix {p:?} of {} is not declared",
                            name.qualified()
                        )));
                    }
                }
            }
        }
    }
    decls.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'<');
    out.extend_from_slice(name.qualified().as_bytes());
    for (p, uri) in &decls {
        if p.is_empty() {
            out.extend_from_slice(b" xmlns=\"");
        } else {
            out.extend_from_slice(b" xmlns:");
            out.extend_from_slice(p.as_bytes());
            out.extend_from_slice(b"=\"");
        }
        escape_attr(out, uri);
        out.push(b'"');
        rendered.push((p, uri));
    }
    let mut sorted: Vec<(&str, &str, Cow<'_, str>, &str)> = attrs
        .iter()
        .map(|(n, v)| (n.namespace.as_ref(), n.local.as_ref(), n.qualified(), *v))
        .collect();
    for (local, value) in inherited_xml.iter().rev() {
        if !sorted
            .iter()
            .any(|(ns, l, _, _)| *ns == XML_NS && l == local)
        {
            sorted.push((XML_NS, local, Cow::Owned(format!("xml:{local}")), value));
        }
    }
    if let Some(base) = xml_base {
        sorted.retain(|(ns, l, _, _)| !(*ns == XML_NS && *l == "base"));
        if !base.is_empty() {
            sorted.push((XML_NS, "base", Cow::Borrowed("xml:base"), base));
        }
    }
    sorted.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    for (_, _, qname, value) in &sorted {
        out.push(b' ');
        out.extend_from_slice(qname.as_bytes());
        out.extend_from_slice(b"=\"");
        escape_attr(out, value);
        out.push(b'"');
    }
    out.push(b'>');
    Ok(())
}

fn escape_text(out: &mut Vec<u8>, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        out.extend_from_slice(&s.as_bytes()[last..i]);
        out.extend_from_slice(rep);
        last = i + 1;
    }
    out.extend_from_slice(&s.as_bytes()[last..]);
}

fn escape_attr(out: &mut Vec<u8>, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'"' => b"&quot;",
            b'\t' => b"&#x9;",
            b'\n' => b"&#xA;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        out.extend_from_slice(&s.as_bytes()[last..i]);
        out.extend_from_slice(rep);
        last = i + 1;
    }
    out.extend_from_slice(&s.as_bytes()[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c14n(xml: &str, apex: Option<usize>, uri: &str) -> String {
        let events = binxml_xml::decode(xml.as_bytes()).unwrap();
        let starts: Vec<usize> = (0..events.len())
            .filter(|&i| matches!(events[i], Event::StartElement(_)))
            .collect();
        let subset = Subset {
            apex: apex.map(|n| starts[n]),
            exclude: &[],
        };
        let out = canonicalize_subset(&events, &subset, &C14n::from_uri(uri).unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A document subset's apex: Canonical XML 1.0 renders every namespace in scope and the
    /// `xml:*` attributes it inherits (the nearest ancestor's); the exclusive form neither.
    #[test]
    /// Canonical XML 1.1 (its section 2.4): the apex inherits `xml:lang` and `xml:space` but
    /// not `xml:id`. The whole document is the same as in 1.0.
    fn c14n11_inherits_lang_and_space_only() {
        let doc = r#"<a xml:id="top" xml:lang="en" xml:space="preserve"><b xml:lang="fr"><c q="1" xml:id="x"/></b></a>"#;
        assert_eq!(
            c14n(doc, Some(2), C14N11),
            r#"<c q="1" xml:id="x" xml:lang="fr" xml:space="preserve"></c>"#
        );
        assert_eq!(
            c14n(doc, Some(1), C14N11),
            r#"<b xml:lang="fr" xml:space="preserve"><c q="1" xml:id="x"></c></b>"#
        );
        assert_eq!(
            c14n(doc, Some(1), C14N10),
            r#"<b xml:id="top" xml:lang="fr" xml:space="preserve"><c q="1" xml:id="x"></c></b>"#
        );
        assert_eq!(c14n(doc, None, C14N11), c14n(doc, None, C14N10));
    }

    /// Canonical XML 1.1's join-URI-References: the Recommendation's own examples (section 2.4)
    /// and RFC 3986's resolution where both are absolute.
    #[test]
    fn join_uri_references_examples() {
        assert_eq!(join_uri_references("abc/", "../"), "");
        assert_eq!(join_uri_references("../", "../"), "../../");
        assert_eq!(join_uri_references("..", ".."), "../../");
        assert_eq!(
            join_uri_references(&join_uri_references("../", "../"), "x"),
            "../../x"
        );
        // RFC 3986 section 5.4's examples against http://a/b/c/d;p?q.
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("http:g", "http:g"),
        ] {
            assert_eq!(join_uri_references(base, r), want, "{r:?}");
        }
    }

    /// The fixup on a subset's apex: the omitted ancestors' `xml:base` values and the apex's
    /// own, outermost first; an empty result is left out; none without an ancestor's.
    #[test]
    fn c14n11_xml_base_fixup() {
        let doc = r#"<a xml:base="http://e/d/x"><b xml:base="../y/"><c xml:base="z"><d/></c></b><e xml:base="../"><f xml:base=""/></e></a>"#;
        assert_eq!(
            c14n(doc, Some(1), C14N11),
            r#"<b xml:base="http://e/y/"><c xml:base="z"><d></d></c></b>"#
        );
        assert_eq!(
            c14n(doc, Some(2), C14N11),
            r#"<c xml:base="http://e/y/z"><d></d></c>"#
        );
        assert_eq!(
            c14n(doc, Some(3), C14N11),
            r#"<d xml:base="http://e/y/z"></d>"#
        );
        // Canonical XML 1.0 copies the nearest value instead.
        assert_eq!(c14n(doc, Some(3), C14N10), r#"<d xml:base="z"></d>"#);
        let rel = r#"<a xml:base="abc/"><b xml:base="../"><c/></b><g><h xml:base="x"/></g></a>"#;
        assert_eq!(c14n(rel, Some(2), C14N11), "<c></c>");
        assert_eq!(c14n(rel, Some(4), C14N11), r#"<h xml:base="abc/x"></h>"#);
        let none = r#"<a><b xml:base="q/r"/></a>"#;
        assert_eq!(c14n(none, Some(1), C14N11), r#"<b xml:base="q/r"></b>"#);
    }

    #[test]
    fn subset_apex_inherits_in_inclusive_form_only() {
        let doc = r#"<a xmlns="urn:d" xmlns:p="urn:p" xml:lang="en" xml:space="preserve"><b xml:lang="fr"><p:c q="1"><d/></p:c></b></a>"#;
        assert_eq!(
            c14n(doc, Some(2), C14N10),
            r#"<p:c xmlns="urn:d" xmlns:p="urn:p" q="1" xml:lang="fr" xml:space="preserve"><d></d></p:c>"#
        );
        assert_eq!(
            c14n(doc, Some(2), EXC_C14N),
            r#"<p:c xmlns:p="urn:p" q="1"><d xmlns="urn:d"></d></p:c>"#
        );
    }

    /// Exclusive canonicalization's prefix list renders a prefix the element does not use, and
    /// `xmlns=""` undoes a default namespace rendered above.
    #[test]
    fn inclusive_prefix_list_and_empty_default() {
        let doc = r#"<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns=""/></a>"#;
        let events = binxml_xml::decode(doc.as_bytes()).unwrap();
        let mut c = C14n::from_uri(EXC_C14N).unwrap();
        c.inclusive_prefixes = vec!["p".into()];
        let out = canonicalize(&events, &c).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns=""></b></a>"#
        );
        assert_eq!(
            c14n(doc, None, C14N10),
            r#"<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns=""></b></a>"#
        );
    }
}
