//! Vocabularies: the initial contents of the dynamic tables (X.891 clause 8), used as external
//! vocabularies referenced by URI.

use std::collections::{HashMap, HashSet};

use binxml_core::{Event, QName, XML_NS};

/// The contents of a vocabulary, table by table, in index order (index 1 is the first entry;
/// the built-in `xml` prefix and XML namespace name are not listed, they always come first).
///
/// Element and attribute names refer to strings; when a name's prefix, namespace name or local
/// name is missing from its table, the encoder and the decoder both append it after the listed
/// entries (the rule the Java reference follows, so both sides agree on every index).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vocabulary {
    /// Restricted alphabets, each given as the string of its characters (they come after the
    /// built-in ones).
    pub restricted_alphabets: Vec<String>,
    /// Encoding algorithm URIs (they come after the built-in ones).
    pub encoding_algorithms: Vec<String>,
    /// Namespace prefixes (after the built-in `xml`).
    pub prefixes: Vec<String>,
    /// Namespace names (after the built-in XML namespace).
    pub namespace_names: Vec<String>,
    /// Local names of elements and attributes.
    pub local_names: Vec<String>,
    /// Other NCNames: processing-instruction targets and entity names.
    pub other_ncnames: Vec<String>,
    /// Other URIs: system and public identifiers.
    pub other_uris: Vec<String>,
    /// Attribute values.
    pub attribute_values: Vec<String>,
    /// Character chunks (text content).
    pub content_character_chunks: Vec<String>,
    /// Other strings: comments and processing-instruction data.
    pub other_strings: Vec<String>,
    /// Element names (the element name surrogates table).
    pub element_names: Vec<QName<'static>>,
    /// Attribute names (the attribute name surrogates table).
    pub attribute_names: Vec<QName<'static>>,
}

/// External vocabularies a decoder knows, by URI.
pub type Vocabularies = HashMap<String, Vocabulary>;

/// The tables a vocabulary sets up, with the name components resolved to indexes.
#[derive(Debug, Default)]
pub(crate) struct Resolved<'v> {
    pub alphabets: Vec<&'v str>,
    pub algorithms: Vec<&'v str>,
    pub prefixes: Vec<&'v str>,
    pub namespaces: Vec<&'v str>,
    pub locals: Vec<&'v str>,
    pub other_ncnames: Vec<&'v str>,
    pub other_uris: Vec<&'v str>,
    pub attr_values: Vec<&'v str>,
    pub chunks: Vec<&'v str>,
    pub other_strings: Vec<&'v str>,
    /// (prefix, namespace, local) as strings
    pub elements: Vec<(&'v str, &'v str, &'v str)>,
    pub attributes: Vec<(&'v str, &'v str, &'v str)>,
}

fn add_unique<'v>(list: &mut Vec<&'v str>, seen: &mut HashSet<&'v str>, s: &'v str) {
    if !s.is_empty() && seen.insert(s) {
        list.push(s);
    }
}

impl Vocabulary {
    /// An empty vocabulary.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tables as both sides build them: every list without empty strings and duplicates
    /// (and without `xml` / the XML namespace, which are built in), then the components of the
    /// element and attribute names that were missing.
    pub(crate) fn resolved(&self) -> Resolved<'_> {
        let mut r = Resolved::default();
        fn list(src: &[String]) -> Vec<&str> {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for s in src {
                add_unique(&mut out, &mut seen, s);
            }
            out
        }
        r.alphabets = list(&self.restricted_alphabets);
        r.algorithms = list(&self.encoding_algorithms);
        r.other_ncnames = list(&self.other_ncnames);
        r.other_uris = list(&self.other_uris);
        r.attr_values = list(&self.attribute_values);
        r.chunks = list(&self.content_character_chunks);
        r.other_strings = list(&self.other_strings);
        let mut pseen: HashSet<&str> = HashSet::from(["xml"]);
        let mut nseen: HashSet<&str> = HashSet::from([XML_NS]);
        let mut lseen = HashSet::new();
        for s in &self.prefixes {
            add_unique(&mut r.prefixes, &mut pseen, s);
        }
        for s in &self.namespace_names {
            add_unique(&mut r.namespaces, &mut nseen, s);
        }
        for s in &self.local_names {
            add_unique(&mut r.locals, &mut lseen, s);
        }
        for (names, out) in [
            (&self.element_names, &mut r.elements),
            (&self.attribute_names, &mut r.attributes),
        ] {
            let mut qseen = HashSet::new();
            for q in names.iter() {
                if q.local.is_empty() {
                    continue;
                }
                // a prefix needs a namespace name
                let prefix: &str = if q.namespace.is_empty() {
                    ""
                } else {
                    &q.prefix
                };
                if !qseen.insert((&*q.namespace, &*q.local)) {
                    continue;
                }
                add_unique(&mut r.namespaces, &mut nseen, &q.namespace);
                add_unique(&mut r.prefixes, &mut pseen, prefix);
                add_unique(&mut r.locals, &mut lseen, &q.local);
                out.push((prefix, &*q.namespace, &*q.local));
            }
        }
        r
    }

    /// A line-oriented text form (`table<TAB>value`, names as `table<TAB>prefix<TAB>ns<TAB>local`,
    /// with `\\`, `\t`, `\n` and `\r` escaped), used to hand a vocabulary to other tools.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut line = |table: &str, parts: &[&str]| {
            out.push_str(table);
            for p in parts {
                out.push('\t');
                escape_into(&mut out, p);
            }
            out.push('\n');
        };
        let tables: [(&str, &Vec<String>); 10] = [
            ("restricted-alphabet", &self.restricted_alphabets),
            ("encoding-algorithm", &self.encoding_algorithms),
            ("prefix", &self.prefixes),
            ("namespace-name", &self.namespace_names),
            ("local-name", &self.local_names),
            ("other-ncname", &self.other_ncnames),
            ("other-uri", &self.other_uris),
            ("attribute-value", &self.attribute_values),
            ("content-character-chunk", &self.content_character_chunks),
            ("other-string", &self.other_strings),
        ];
        for (name, list) in tables {
            for s in list {
                line(name, &[s]);
            }
        }
        for q in &self.element_names {
            line("element-name", &[&q.prefix, &q.namespace, &q.local]);
        }
        for q in &self.attribute_names {
            line("attribute-name", &[&q.prefix, &q.namespace, &q.local]);
        }
        out
    }

    /// Parses [`Vocabulary::to_text`]'s form.
    pub fn from_text(text: &str) -> Result<Vocabulary, String> {
        let mut v = Vocabulary::default();
        for (n, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split('\t');
            let table = parts.next().unwrap_or("");
            let vals: Vec<String> = parts.map(unescape).collect();
            let one = || -> Result<String, String> {
                if vals.len() == 1 {
                    Ok(vals[0].clone())
                } else {
                    Err(format!("line {}: expected one value", n + 1))
                }
            };
            let qname = || -> Result<QName<'static>, String> {
                if vals.len() == 3 {
                    Ok(QName::new(
                        vals[0].clone(),
                        vals[1].clone(),
                        vals[2].clone(),
                    ))
                } else {
                    Err(format!(
                        "line {}: expected prefix, namespace and local name",
                        n + 1
                    ))
                }
            };
            match table {
                "restricted-alphabet" => v.restricted_alphabets.push(one()?),
                "encoding-algorithm" => v.encoding_algorithms.push(one()?),
                "prefix" => v.prefixes.push(one()?),
                "namespace-name" => v.namespace_names.push(one()?),
                "local-name" => v.local_names.push(one()?),
                "other-ncname" => v.other_ncnames.push(one()?),
                "other-uri" => v.other_uris.push(one()?),
                "attribute-value" => v.attribute_values.push(one()?),
                "content-character-chunk" => v.content_character_chunks.push(one()?),
                "other-string" => v.other_strings.push(one()?),
                "element-name" => v.element_names.push(qname()?),
                "attribute-name" => v.attribute_names.push(qname()?),
                other => return Err(format!("line {}: unknown table {other:?}", n + 1)),
            }
        }
        Ok(v)
    }
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Builds a [`Vocabulary`] from sample documents, the way the Java reference's
/// `VocabularyGenerator` does: every name, namespace and prefix; attribute values and character
/// chunks shorter than `max_value_chars` UTF-16 units (default 32); PI targets and data,
/// comments (other strings) and entity names.
#[derive(Debug)]
pub struct VocabularyBuilder {
    v: Vocabulary,
    /// Values (attribute values, chunks, other strings) shorter than this many UTF-16 code
    /// units are recorded. 0 records none.
    pub max_value_chars: usize,
    seen: [HashSet<String>; 8],
    qseen: [HashSet<(String, String)>; 2],
}

impl Default for VocabularyBuilder {
    fn default() -> Self {
        VocabularyBuilder {
            v: Vocabulary::default(),
            max_value_chars: 32,
            seen: Default::default(),
            qseen: Default::default(),
        }
    }
}

impl VocabularyBuilder {
    /// A builder with nothing recorded and `max_value_chars` 32.
    pub fn new() -> Self {
        Self::default()
    }

    fn add(&mut self, table: usize, s: &str) {
        if s.is_empty() || (table == 0 && s == "xml") || (table == 1 && s == XML_NS) {
            return;
        }
        if self.seen[table].contains(s) {
            return;
        }
        self.seen[table].insert(s.to_string());
        let list = match table {
            0 => &mut self.v.prefixes,
            1 => &mut self.v.namespace_names,
            2 => &mut self.v.local_names,
            3 => &mut self.v.other_ncnames,
            4 => &mut self.v.other_uris,
            5 => &mut self.v.attribute_values,
            6 => &mut self.v.content_character_chunks,
            _ => &mut self.v.other_strings,
        };
        list.push(s.to_string());
    }

    fn small(&self, s: &str) -> bool {
        s.len() < self.max_value_chars || s.encode_utf16().count() < self.max_value_chars
    }

    fn add_name(&mut self, attr: bool, q: &QName<'_>) {
        if !q.namespace.is_empty() {
            self.add(1, &q.namespace);
            self.add(0, &q.prefix);
        }
        self.add(2, &q.local);
        let k = attr as usize;
        // names are keyed by (namespace, local) like javax.xml.namespace.QName
        let key = (q.namespace.to_string(), q.local.to_string());
        if self.qseen[k].insert(key) {
            let q = q.clone().into_owned();
            if attr {
                self.v.attribute_names.push(q)
            } else {
                self.v.element_names.push(q)
            }
        }
    }

    /// Records one event of a sample document.
    pub fn add_event(&mut self, e: &Event<'_>) {
        match e {
            Event::StartElement(q) => self.add_name(false, q),
            Event::Attribute { name, value } => {
                if name.namespace.as_ref() == binxml_core::XMLNS_NS {
                    return;
                }
                self.add_name(true, name);
                if self.small(value) {
                    self.add(5, value);
                }
            }
            Event::Namespace { prefix, uri } => {
                self.add(0, prefix);
                self.add(1, uri);
            }
            Event::Characters { text, cdata: false } if self.small(text) => self.add(6, text),
            Event::Comment(c) if self.small(c) => self.add(7, c),
            Event::ProcessingInstruction { target, data } => {
                self.add(3, target);
                if self.small(data) {
                    self.add(7, data);
                }
            }
            Event::EntityReference { name, .. } => self.add(3, name),
            _ => {}
        }
    }

    /// Records the events of a sample document, in order ([`VocabularyBuilder::add_event`] on
    /// each).
    pub fn add_events<'e>(&mut self, events: impl IntoIterator<Item = &'e Event<'e>>) {
        for e in events {
            self.add_event(e);
        }
    }

    /// The vocabulary: every table in the order its entries were first seen.
    pub fn build(self) -> Vocabulary {
        self.v
    }
}
