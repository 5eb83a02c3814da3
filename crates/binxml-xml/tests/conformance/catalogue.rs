//! The W3C XML Conformance Test Suite's catalogue: `xmlconf.xml` and the collections it includes
//! as external entities, read into a flat list of tests.
//!
//! The catalogue is read by a small scanner of its own rather than by the decoder under test, so
//! that a parser bug cannot hide tests. It knows what the catalogue files use: comments, the
//! `<!ENTITY name SYSTEM "file">` declarations of the top file, references to them, and `TEST`
//! start tags. A test's file is relative to the collection file that lists it (XML Base: an
//! element's base URI is that of the entity holding it; the collection files set no `xml:base`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `TEST` element.
#[derive(Clone, Debug)]
pub struct Test {
    pub id: String,
    /// `valid`, `invalid`, `not-wf` or `error`.
    pub kind: String,
    /// `none`, `general`, `parameter` or `both`.
    pub entities: String,
    pub recommendation: String,
    /// Empty when the test does not say (it then applies to every edition).
    pub editions: Vec<String>,
    /// Empty when the test does not say.
    pub versions: Vec<String>,
    /// `NAMESPACE="no"`: not namespace-well-formed, for parsers without namespaces only.
    pub namespace: bool,
    pub file: PathBuf,
    pub output: Option<PathBuf>,
}

impl Test {
    /// Whether an XML 1.0 Fifth Edition parser is scored on it (the XML 1.0 tests of every
    /// collection but the Namespaces ones).
    pub fn xml10_5e(&self) -> bool {
        !matches!(self.recommendation.as_str(), "XML1.1" | "NS1.1")
            && !self.recommendation.starts_with("NS1.0")
            && (self.versions.is_empty() || self.versions.iter().any(|v| v == "1.0"))
            && (self.editions.is_empty() || self.editions.iter().any(|e| e == "5"))
    }
}

/// The tests of the catalogue `top` (`xmlconf.xml`), in catalogue order.
pub fn read(top: &Path) -> Result<Vec<Test>, String> {
    let text = read_text(top)?;
    let dir = top.parent().unwrap_or(Path::new("."));
    let mut entities = BTreeMap::new();
    let mut tests = Vec::new();
    let body = strip_comments(&text);
    // The declarations: `<!ENTITY name SYSTEM "file">`.
    let mut s = body.as_str();
    while let Some(i) = s.find("<!ENTITY") {
        s = &s[i + 8..];
        let decl = &s[..s.find('>').ok_or("unterminated ENTITY declaration")?];
        let mut words = decl.split_whitespace();
        let (Some(name), Some("SYSTEM"), Some(file)) = (words.next(), words.next(), words.next())
        else {
            return Err(format!("unexpected entity declaration {decl:?}"));
        };
        entities.insert(name.to_string(), dir.join(file.trim_matches(['"', '\''])));
    }
    // The references, after the DOCTYPE: each includes a collection.
    let after = body
        .find("]>")
        .ok_or("no internal subset in the catalogue")?;
    let mut s = &body[after + 2..];
    while let Some(i) = s.find('&') {
        s = &s[i + 1..];
        let end = s.find(';').ok_or("'&' without ';' in the catalogue")?;
        let name = &s[..end];
        s = &s[end + 1..];
        let Some(file) = entities.get(name) else {
            continue;
        };
        collection(file, &mut tests)?;
    }
    Ok(tests)
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        rest = match rest[i..].find("-->") {
            Some(e) => &rest[i + e + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// The `TEST` elements of one collection file.
fn collection(file: &Path, tests: &mut Vec<Test>) -> Result<(), String> {
    let text = strip_comments(&read_text(file)?);
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut s = text.as_str();
    while let Some(i) = s.find("<TEST") {
        s = &s[i + 5..];
        if !s.starts_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let end = s.find('>').ok_or("unterminated TEST tag")?;
        let attrs = attributes(&s[..end])
            .map_err(|m| format!("{}: {m} in {:?}", file.display(), &s[..end]))?;
        let get = |k: &str| attrs.get(k).cloned().unwrap_or_default();
        let words =
            |k: &str| -> Vec<String> { get(k).split_whitespace().map(str::to_string).collect() };
        let id = get("ID");
        if id.is_empty() || !attrs.contains_key("URI") || !attrs.contains_key("TYPE") {
            return Err(format!("{}: TEST without ID, URI or TYPE", file.display()));
        }
        tests.push(Test {
            id,
            kind: get("TYPE"),
            entities: attrs
                .get("ENTITIES")
                .cloned()
                .unwrap_or_else(|| "none".into()),
            recommendation: attrs
                .get("RECOMMENDATION")
                .cloned()
                .unwrap_or_else(|| "XML1.0".into()),
            editions: words("EDITION"),
            versions: words("VERSION"),
            namespace: get("NAMESPACE") != "no",
            file: dir.join(get("URI")),
            output: attrs.get("OUTPUT").map(|o| dir.join(o)),
        });
        s = &s[end..];
    }
    Ok(())
}

/// The attributes of a start tag's text after its name (values hold no references in the
/// catalogue but `&amp;`-style ones, which are left as written).
fn attributes(tag: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut s = tag.trim_end_matches('/').trim_start();
    while !s.is_empty() {
        let eq = s.find('=').ok_or("attribute without '='")?;
        let name = s[..eq].trim().to_string();
        let v = s[eq + 1..].trim_start();
        let q = v.chars().next().ok_or("attribute without value")?;
        if q != '"' && q != '\'' {
            return Err("unquoted attribute value".into());
        }
        let end = v[1..].find(q).ok_or("unterminated attribute value")?;
        out.insert(name, v[1..1 + end].to_string());
        s = v[end + 2..].trim_start();
    }
    Ok(out)
}
