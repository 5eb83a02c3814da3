//! The grammar oracle: EXIficient's schema-informed EXI grammars (EXI 1.0 section 8.5) as a
//! graph, compared structurally before any bytes are encoded.
//!
//! EXIficient 1.0.7 dumps a `SchemaInformedGrammars` object as JSON with
//! `com.siemens.ct.exi.grammars.persistency.Grammars2JSON` (exificient-grammars);
//! [`ExiOracle::grammars`](crate::ExiOracle::grammars) runs it (the driver's `grammars`
//! command). [`parse_grammars2json`] reads that text into a [`GrammarGraph`], and [`canonical`]
//! writes a text that is equal for two graphs exactly when they behave the same, so that a
//! graph built by binxml from its own schema model can be compared with EXIficient's as two
//! strings (and diffed line by line when they differ).
//!
//! # What the dump holds
//!
//! * the string-table pre-population (section 7.3.1 and appendix D): each URI, in string-table
//!   order (`""`, the XML namespace, XML Schema instance, XML Schema, then the schema's URIs
//!   sorted), with its local names in order;
//! * for each such name its global links: the grammar of the global element of that name, the
//!   grammar of the global type of that name (the target of `xsi:type`), the datatype of the
//!   global attribute of that name ([`GlobalName`]);
//! * every grammar EXIficient keeps, with its kind and its **declared** productions in
//!   event-code order. Some are linked from no production: the element fragment grammar
//!   and the element content grammar of each start tag (EXIficient's
//!   `getElementContentGrammar`, where undeclared `SE(*)` and `CH` of a start tag lead), which
//!   GrammarsPreperation numbers too; [`canonical`] leaves them out (only reachable states).
//!
//! It does not hold the productions EXIficient adds at run time: the undeclared productions
//! of section 8.5.4.4 (non-strict `AT(xsi:type)`, `AT(xsi:nil)`, `AT(*)`, `SE(*)`, `CH`, `EE`
//! deviations, `NS`, `SC`, `CM`, `PI`, `ER`, `DT`, and in strict mode `AT(xsi:type)` and
//! `AT(xsi:nil)` for castable and nillable types) depend on the fidelity options and are
//! computed by EXIficient's coders from the declared ones; the grammar they use for an
//! undeclared `SE(*)` or `CH` in a start tag (the element's first content grammar,
//! EXIficient's `getElementContentGrammar`) is among the states but linked from nothing. Nor are the datatypes'
//! schema types (only their EXI representation: [`GProd::label`]), the whitespace facet, the
//! union flag of strings, or the element fragment grammar's role (it is one of the states, not
//! linked from anything).
//!
//! # Labels
//!
//! A production's terminal is written as text ([`GProd::label`]): `SD`, `ED`, `EE`,
//! `SE({uri}local)`, `SE({uri}*)`, `SE(*)`, `AT({uri}local)[DT]`, `AT({uri}*)`, `AT(*)`,
//! `CH[DT]`, `CH[*]` (EXIficient's `charactersGeneric`: untyped characters), with `{}` for no
//! namespace. `DT` is the datatype's EXI representation, EXIficient's `BuiltInType` name with
//! its parameters, which is all Grammars2JSON writes of a datatype:
//!
//! | DT | from |
//! | --- | --- |
//! | `BINARY_BASE64`, `BINARY_HEX` | base64Binary, hexBinary |
//! | `BOOLEAN` | boolean |
//! | `BOOLEAN_FACET` | boolean with a pattern facet (EXI's 2-bit boolean, `"facet": "true"`) |
//! | `DECIMAL`, `FLOAT` | decimal; float and double |
//! | `INTEGER`, `UNSIGNED_INTEGER` | integer types; those with a minimum of 0 or more |
//! | `NBIT_UNSIGNED_INTEGER(lo,hi)` | a bounded range of at most 4096 values (`lowerBound`, `upperBound`) |
//! | `DATETIME(t)` | `t` one of `dateTime`, `time`, `date`, `gYearMonth`, `gYear`, `gMonthDay`, `gDay`, `gMonth` |
//! | `STRING` | strings (also the default datatype: id -1, see below) |
//! | `RCS_STRING(c,c,...)` | a string with a restricted character set (its code points, in order) |
//! | `EXTENDED_STRING` | EXI profile strings (not emitted for plain schema-informed grammars) |
//! | `ENUMERATION(v|v|...)` | the enumerated values in order, as EXIficient's `Value.toString()` gives them |
//! | `LIST(DT)` | a list, with its item's DT |
//!
//! In enumeration values `\`, `|`, `(`, `)` and `,` are escaped with `\`, and control characters
//! as `\n`, `\r`, `\t` or `\u{X}`.
//!
//! # Quirks of Grammars2JSON, handled here
//!
//! * The grammar id of each grammar is written as a quoted string (`"grammarID" : "7"`): it is
//!   only a position, and ignored (a grammar's id is its position in the array).
//! * A datatype id of `-1` is a datatype that is not in `simpleDatatypes`: Grammars2JSON leaves
//!   EXIficient's default datatype (`BuiltIn.getDefaultDatatype()`, a plain string) out of the
//!   list, so a production's `-1` is `STRING`. A global attribute's datatype is found by Java
//!   `equals` (built-in type and schema type, plus parameters) among the datatypes the
//!   productions use, so its `-1` is either the default string or a datatype no production
//!   uses: written `?`.
//! * Strings are written with `printf("\"%s\"")`, unescaped: a URI, a local name or an
//!   enumeration value holding `"`, `\` or a control character makes the text invalid JSON.
//!   [`parse_grammars2json`] rewrites those lines as JSON strings before parsing (it knows
//!   their layout: one key a line); an enumeration value holding `", "` cannot be told from
//!   two values and is split. The dumps of the test sets of `tests/schemas/` are valid JSON as
//!   they are.
//! * The JSON is written in the JVM's default charset (`ExiOracle` starts java with
//!   `-Dfile.encoding=UTF-8`).
//! * `GrammarsPreperation.prepareGrammars` prints every grammar on `System.out` ("Sorted
//!   Grammars: [...]"); the driver swallows it (its protocol is stdout).
//! * EXIficient already merges grammars it finds equal when it numbers them
//!   (`GrammarIdDispenser`, a bounded structural comparison), so its states are fewer than the
//!   grammars it built; [`canonical`] merges all bisimilar states, so that does not matter.
//!
//! # The canonical text
//!
//! ```text
//! uris 5
//! u0 "" a b
//! u1 "http://www.w3.org/XML/1998/namespace" base id lang space
//! ...
//! globals 2
//! {urn:x}a element s5
//! {urn:x}T type s9
//! states 12
//! s0 document: SD->s1
//! s1 docContent: SE({urn:x}a)->s2 el s5 | SE(*)->s2
//! s2 docEnd: ED
//! ...
//! s5 firstStartTagContent(castable): AT({}id)[STRING]->s6 | EE
//! ```
//!
//! States are merged by partition refinement (bisimulation) on (kind, flags, the ordered list
//! of (label, class of next, class of element)), and numbered in the order a depth-first walk
//! first reaches them: from the document grammar, then the fragment grammar, then the global
//! elements' and global types' grammars in string-table order; within a state its productions
//! in order, for each the element grammar before the next state. Only reachable states are
//! written. The walk is iterative and deterministic.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

/// A schema-informed grammar set as EXIficient's Grammars2JSON dumps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrammarGraph {
    /// The string-table pre-population in order: each URI with its local names in order.
    pub uris: Vec<(String, Vec<String>)>,
    /// The grammars, indexed by position (Grammars2JSON's grammar id).
    pub states: Vec<GState>,
    /// The document grammar.
    pub document: usize,
    /// The fragment grammar.
    pub fragment: usize,
    /// The global links of the names in `uris` that have any, in string-table order.
    pub globals: Vec<GlobalName>,
}

/// The global declarations a name of the string table stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalName {
    /// The URI's position in [`GrammarGraph::uris`].
    pub uri: usize,
    /// The local name's position in that URI's list.
    pub local: usize,
    /// The grammar of the global element of this name.
    pub element: Option<usize>,
    /// The grammar of the global type of this name (for `xsi:type`).
    pub type_grammar: Option<usize>,
    /// The datatype (a DT text, see the module documentation; `?` when Grammars2JSON wrote -1)
    /// of the global attribute of this name.
    pub attribute: Option<String>,
}

/// One grammar (a state of the graph).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GState {
    /// `document`, `docContent`, `docEnd`, `fragment`, `fragmentContent`,
    /// `firstStartTagContent`, `startTagContent` or `elementContent`.
    pub kind: String,
    /// For `firstStartTagContent`: `nillable`, `castable`, `nillable,castable` or empty; empty
    /// for the other kinds.
    pub flags: String,
    /// The declared productions, in event-code order.
    pub productions: Vec<GProd>,
}

/// One production.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GProd {
    /// The terminal, as text (see the module documentation).
    pub label: String,
    /// The grammar that follows; `None` when there is none (after `EE`, `ED`).
    pub next: Option<usize>,
    /// For `SE(...)` of a declared element: the grammar of that element.
    pub element: Option<usize>,
}

/// Figures of one [`canonical_with_stats`] run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CanonicalStats {
    /// States in the graph.
    pub states: usize,
    /// Productions in the graph.
    pub productions: usize,
    /// States reachable from the roots.
    pub reachable: usize,
    /// Classes of bisimilar states among the reachable ones (the states written).
    pub merged: usize,
    /// Productions written.
    pub merged_productions: usize,
}

/// The text of a string for a canonical line: quoted, with `\`, `"` and control characters
/// escaped.
fn quoted(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// An enumeration value inside `ENUMERATION(...)`.
fn enum_value(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '|' | '(' | ')' | ',' => {
                o.push('\\');
                o.push(c);
            }
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

fn get<'v>(v: &'v Value, key: &str, what: &str) -> Result<&'v Value, String> {
    v.get(key).ok_or_else(|| format!("{what}: no \"{key}\""))
}

fn int(v: &Value, key: &str, what: &str) -> Result<i64, String> {
    let x = get(v, key, what)?;
    // Grammars2JSON writes some ids as quoted strings
    match x {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| format!("{what}: \"{key}\" is not an integer: {x}"))
}

fn string<'v>(v: &'v Value, key: &str, what: &str) -> Result<&'v str, String> {
    let x = get(v, key, what)?;
    x.as_str()
        .ok_or_else(|| format!("{what}: \"{key}\" is not a string: {x}"))
}

fn array<'v>(v: &'v Value, key: &str, what: &str) -> Result<&'v Vec<Value>, String> {
    let x = get(v, key, what)?;
    x.as_array()
        .ok_or_else(|| format!("{what}: \"{key}\" is not an array"))
}

/// A datatype object of `simpleDatatypes`, as DT text; `key` names its type (`type`, or
/// `listType` for a list's item, whose parameters share the list's object).
fn datatype_text(v: &Value, key: &str, what: &str) -> Result<String, String> {
    let name = string(v, key, what)?;
    Ok(match name {
        "NBIT_UNSIGNED_INTEGER" => {
            let num = |k: &str| -> Result<String, String> {
                let x = get(v, k, what)?;
                match x {
                    Value::Number(n) => Ok(n.to_string()),
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(format!("{what}: \"{k}\" is not a number")),
                }
            };
            format!("{name}({},{})", num("lowerBound")?, num("upperBound")?)
        }
        "DATETIME" => format!("{name}({})", string(v, "datetimeType", what)?),
        "ENUMERATION" => {
            let vals = array(v, "enumValues", what)?;
            let mut t = String::from("ENUMERATION(");
            for (i, x) in vals.iter().enumerate() {
                if i > 0 {
                    t.push('|');
                }
                let s = x
                    .as_str()
                    .ok_or_else(|| format!("{what}: an enumeration value is not a string"))?;
                t.push_str(&enum_value(s));
            }
            t.push(')');
            t
        }
        "RCS_STRING" => {
            let cps = array(v, "codePoints", what)?;
            let mut t = String::from("RCS_STRING(");
            for (i, x) in cps.iter().enumerate() {
                if i > 0 {
                    t.push(',');
                }
                let n = x
                    .as_u64()
                    .ok_or_else(|| format!("{what}: a code point is not a number"))?;
                let _ = write!(t, "{n}");
            }
            t.push(')');
            t
        }
        "LIST" => format!("LIST({})", datatype_text(v, "listType", what)?),
        // BOOLEAN_FACET's "facet" is always "true"; the rest have no parameters
        other => other.to_string(),
    })
}

/// JSON text of a string (for the repair of unescaped strings).
fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Rewrites the lines Grammars2JSON writes with unescaped strings (`"uri"`, `"localName"`,
/// `"enumValues"`) into valid JSON, relying on its layout: one key a line, tabs for indentation.
fn repair(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len() + 64);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let body = line.trim_start_matches('\t');
        let indent = &line[..line.len() - body.len()];
        if let Some(rest) = body.strip_prefix("\"uri\" : \"")
            && let Some(raw) = rest.strip_suffix("\", ")
        {
            let _ = writeln!(out, "{indent}\"uri\" : {}, ", json_string(raw));
            i += 1;
            continue;
        }
        if let Some(rest) = body.strip_prefix("\"localName\" : \"")
            && let Some(raw) = rest.strip_suffix('"')
        {
            let _ = writeln!(out, "{indent}\"localName\" : {}", json_string(raw));
            i += 1;
            continue;
        }
        if let Some(rest) = body.strip_prefix("\"enumValues\": [") {
            // the values may hold line ends: the list ends at a line ending in "]" that is
            // followed by the line closing the datatype object ("}" after tabs)
            let mut raw = rest.to_string();
            let mut j = i;
            loop {
                let closes = raw.ends_with(']')
                    && lines
                        .get(j + 1)
                        .is_none_or(|n| n.trim_start_matches('\t').starts_with('}'));
                if closes || j + 1 >= lines.len() {
                    break;
                }
                j += 1;
                raw.push('\n');
                raw.push_str(lines[j]);
            }
            let inner = raw.strip_suffix(']').unwrap_or(&raw);
            let mut vals = Vec::new();
            if let Some(q) = inner.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
                for v in q.split("\", \"") {
                    vals.push(json_string(v));
                }
            } else if !inner.is_empty() {
                vals.push(json_string(inner));
            }
            let _ = writeln!(out, "{indent}\"enumValues\": [{}]", vals.join(", "));
            i = j + 1;
            continue;
        }
        out.push_str(line);
        if i + 1 < lines.len() {
            out.push('\n');
        }
        i += 1;
    }
    out
}

/// Reads the JSON Grammars2JSON writes (see the module documentation for its quirks).
pub fn parse_grammars2json(json: &str) -> Result<GrammarGraph, String> {
    // Grammars2JSON never escapes a string: the text between the quotes is the value itself,
    // so the strings that may hold anything are always rewritten (a "\\b" in a URI would
    // otherwise read as a backspace)
    let root: Value = serde_json::from_str(&repair(json))
        .map_err(|e| format!("Grammars2JSON output is not JSON as expected: {e}"))?;

    // datatypes
    let mut datatypes = Vec::new();
    for (i, d) in array(&root, "simpleDatatypes", "the dump")?
        .iter()
        .enumerate()
    {
        let what = format!("simpleDatatypes[{i}]");
        let id = int(d, "simpleDatatypeID", &what)?;
        if id != i as i64 {
            return Err(format!("{what}: simpleDatatypeID {id}"));
        }
        datatypes.push(datatype_text(d, "type", &what)?);
    }
    let dt = |id: i64, what: &str| -> Result<String, String> {
        if id == -1 {
            Ok("STRING".to_string())
        } else {
            usize::try_from(id)
                .ok()
                .and_then(|i| datatypes.get(i).cloned())
                .ok_or_else(|| format!("{what}: no datatype {id}"))
        }
    };

    // grammars
    let grs = get(&root, "grs", "the dump")?;
    let list = array(grs, "grammar", "grs")?;
    let n = list.len();
    let state_id = |id: i64, what: &str| -> Result<usize, String> {
        usize::try_from(id)
            .ok()
            .filter(|&i| i < n)
            .ok_or_else(|| format!("{what}: no grammar {id}"))
    };
    let document = state_id(int(grs, "documentGrammarID", "grs")?, "documentGrammarID")?;
    let fragment = state_id(int(grs, "fragmentGrammarID", "grs")?, "fragmentGrammarID")?;

    // the string table and the global links
    let mut uris = Vec::new();
    let mut globals = Vec::new();
    let ns = array(
        get(&root, "qnames", "the dump")?,
        "namespaceContext",
        "qnames",
    )?;
    for (u, e) in ns.iter().enumerate() {
        let what = format!("namespaceContext[{u}]");
        if int(e, "uriID", &what)? != u as i64 {
            return Err(format!("{what}: uriID is not {u}"));
        }
        let uri = string(e, "uri", &what)?.to_string();
        let mut locals = Vec::new();
        for (l, q) in array(e, "qnameContext", &what)?.iter().enumerate() {
            let what = format!("{what}.qnameContext[{l}]");
            if int(q, "uriID", &what)? != u as i64 || int(q, "localNameID", &what)? != l as i64 {
                return Err(format!("{what}: ids are not ({u}, {l})"));
            }
            locals.push(string(q, "localName", &what)?.to_string());
            let link = |key: &str| -> Result<Option<usize>, String> {
                match q.get(key) {
                    None => Ok(None),
                    Some(_) => state_id(int(q, key, &what)?, &what).map(Some),
                }
            };
            let g = GlobalName {
                uri: u,
                local: l,
                element: link("globalElementGrammarID")?,
                type_grammar: link("globalTypeGrammarID")?,
                attribute: match q.get("globalAttributeDatatypeID") {
                    None => None,
                    Some(_) => match int(q, "globalAttributeDatatypeID", &what)? {
                        -1 => Some("?".to_string()),
                        id => Some(dt(id, &what)?),
                    },
                },
            };
            if g.element.is_some() || g.type_grammar.is_some() || g.attribute.is_some() {
                globals.push(g);
            }
        }
        uris.push((uri, locals));
    }
    let name = |u: i64, l: i64, what: &str| -> Result<String, String> {
        let (uri, locals) = usize::try_from(u)
            .ok()
            .and_then(|u| uris.get(u))
            .ok_or_else(|| format!("{what}: no URI {u}"))?;
        let local = usize::try_from(l)
            .ok()
            .and_then(|l| locals.get(l))
            .ok_or_else(|| format!("{what}: no local name {l} in URI {u}"))?;
        Ok(format!("{{{uri}}}{local}"))
    };
    let uri_of = |u: i64, what: &str| -> Result<&str, String> {
        usize::try_from(u)
            .ok()
            .and_then(|u| uris.get(u))
            .map(|(s, _)| s.as_str())
            .ok_or_else(|| format!("{what}: no URI {u}"))
    };

    let mut states = Vec::with_capacity(n);
    for (i, g) in list.iter().enumerate() {
        let what = format!("grammar[{i}]");
        let id = int(g, "grammarID", &what)?;
        if id != i as i64 {
            return Err(format!("{what}: grammarID {id}"));
        }
        let kind = string(g, "type", &what)?.to_string();
        let flags = if kind == "firstStartTagContent" {
            let flag = |k: &str| -> Result<bool, String> {
                get(g, k, &what)?
                    .as_bool()
                    .ok_or_else(|| format!("{what}: \"{k}\" is not a boolean"))
            };
            let mut f = Vec::new();
            if flag("isNillable")? {
                f.push("nillable");
            }
            if flag("isTypeCastable")? {
                f.push("castable");
            }
            f.join(",")
        } else {
            String::new()
        };
        let mut productions = Vec::new();
        for (k, p) in array(g, "production", &what)?.iter().enumerate() {
            let what = format!("{what}.production[{k}]");
            let event = string(p, "event", &what)?;
            let mut element = None;
            let label = match event {
                "startDocument" => "SD".to_string(),
                "endDocument" => "ED".to_string(),
                "endElement" => "EE".to_string(),
                "startElement" => {
                    element = Some(state_id(int(p, "startElementGrammarID", &what)?, &what)?);
                    format!(
                        "SE({})",
                        name(
                            int(p, "startElementNamespaceID", &what)?,
                            int(p, "startElementLocalNameID", &what)?,
                            &what
                        )?
                    )
                }
                "startElementNS" => format!(
                    "SE({{{}}}*)",
                    uri_of(int(p, "startElementNamespaceID", &what)?, &what)?
                ),
                "startElementGeneric" => "SE(*)".to_string(),
                "attribute" => format!(
                    "AT({})[{}]",
                    name(
                        int(p, "attributeNamespaceID", &what)?,
                        int(p, "attributeLocalNameID", &what)?,
                        &what
                    )?,
                    dt(int(p, "attributeDatatypeID", &what)?, &what)?
                ),
                "attributeNS" => format!(
                    "AT({{{}}}*)",
                    uri_of(int(p, "attributeNamespaceID", &what)?, &what)?
                ),
                "attributeGeneric" => "AT(*)".to_string(),
                "characters" => {
                    format!("CH[{}]", dt(int(p, "charactersDatatypeID", &what)?, &what)?)
                }
                "charactersGeneric" => "CH[*]".to_string(),
                other => return Err(format!("{what}: unknown event {other:?}")),
            };
            let next = match int(p, "nextGrammarID", &what)? {
                -1 => None,
                id => Some(state_id(id, &what)?),
            };
            productions.push(GProd {
                label,
                next,
                element,
            });
        }
        states.push(GState {
            kind,
            flags,
            productions,
        });
    }
    Ok(GrammarGraph {
        uris,
        states,
        document,
        fragment,
        globals,
    })
}

/// Ids for equal keys, in order of first appearance.
struct Interner<K> {
    map: HashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Interner<K> {
    fn new() -> Self {
        Interner {
            map: HashMap::new(),
        }
    }
    fn id(&mut self, k: K) -> u32 {
        let n = self.map.len() as u32;
        *self.map.entry(k).or_insert(n)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// The classes of bisimilar states: for each state its class, numbered by first appearance in
/// state order. Fails on a dangling id.
fn bisimulation(g: &GrammarGraph) -> Result<Vec<u32>, String> {
    let n = g.states.len();
    for (i, s) in g.states.iter().enumerate() {
        for p in &s.productions {
            for t in [p.next, p.element].into_iter().flatten() {
                if t >= n {
                    return Err(format!("state {i}: no state {t}"));
                }
            }
        }
    }
    // initial partition: kind, flags and the labels in order
    let mut labels = Interner::new();
    let mut initial = Interner::new();
    let mut class: Vec<u32> = g
        .states
        .iter()
        .map(|s| {
            let ls: Vec<u32> = s
                .productions
                .iter()
                .map(|p| labels.id(p.label.as_str()))
                .collect();
            initial.id((s.kind.as_str(), s.flags.as_str(), ls))
        })
        .collect();
    let mut count = initial.len();
    const NONE: u32 = u32::MAX;
    loop {
        // refine by the classes of the targets; the number of classes only grows, and the
        // partition is stable when it does not
        let mut sigs = Interner::new();
        let next: Vec<u32> = g
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut sig = Vec::with_capacity(1 + 2 * s.productions.len());
                sig.push(class[i]);
                for p in &s.productions {
                    sig.push(p.next.map_or(NONE, |t| class[t]));
                    sig.push(p.element.map_or(NONE, |t| class[t]));
                }
                sigs.id(sig)
            })
            .collect();
        let stable = sigs.len() == count;
        count = sigs.len();
        class = next;
        if stable {
            return Ok(class);
        }
    }
}

/// The roots of the walk: the document grammar, the fragment grammar, then each global
/// element's and global type's grammar in string-table order.
fn roots(g: &GrammarGraph) -> Vec<usize> {
    let mut r = vec![g.document, g.fragment];
    for n in &g.globals {
        r.extend(n.element);
        r.extend(n.type_grammar);
    }
    r
}

/// [`canonical`], with the figures of the run. Fails when an id points nowhere.
pub fn canonical_with_stats(g: &GrammarGraph) -> Result<(String, CanonicalStats), String> {
    let n = g.states.len();
    for r in roots(g) {
        if r >= n {
            return Err(format!("root {r}: no such state"));
        }
    }
    let class = bisimulation(g)?;
    let nclasses = class.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    // each class is written from its first state
    let mut rep = vec![usize::MAX; nclasses];
    for (i, &c) in class.iter().enumerate() {
        if rep[c as usize] == usize::MAX {
            rep[c as usize] = i;
        }
    }
    // preorder depth-first walk over classes, iterative
    let mut number = vec![u32::MAX; nclasses];
    let mut order: Vec<u32> = Vec::new();
    let mut reachable = vec![false; n];
    let mut reach_stack = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    for r in roots(g) {
        stack.push(class[r]);
        while let Some(c) = stack.pop() {
            if number[c as usize] != u32::MAX {
                continue;
            }
            number[c as usize] = order.len() as u32;
            order.push(c);
            let s = &g.states[rep[c as usize]];
            for p in s.productions.iter().rev() {
                if let Some(t) = p.next {
                    stack.push(class[t]);
                }
                if let Some(t) = p.element {
                    stack.push(class[t]);
                }
            }
        }
        // reachable states (not classes), for the figures
        if !reachable[r] {
            reachable[r] = true;
            reach_stack.push(r);
        }
        while let Some(i) = reach_stack.pop() {
            for p in &g.states[i].productions {
                for t in [p.next, p.element].into_iter().flatten() {
                    if !reachable[t] {
                        reachable[t] = true;
                        reach_stack.push(t);
                    }
                }
            }
        }
    }
    let sref = |t: usize| number[class[t] as usize];

    let mut out = String::new();
    let _ = writeln!(out, "uris {}", g.uris.len());
    for (u, (uri, locals)) in g.uris.iter().enumerate() {
        let _ = write!(out, "u{u} {}", quoted(uri));
        for l in locals {
            let _ = write!(out, " {l}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "globals {}", g.globals.len());
    for gl in &g.globals {
        let (uri, locals) = g
            .uris
            .get(gl.uri)
            .ok_or_else(|| format!("global: no URI {}", gl.uri))?;
        let local = locals
            .get(gl.local)
            .ok_or_else(|| format!("global: no local name {} in URI {}", gl.local, gl.uri))?;
        let _ = write!(out, "{{{uri}}}{local}");
        if let Some(e) = gl.element {
            let _ = write!(out, " element s{}", sref(e));
        }
        if let Some(t) = gl.type_grammar {
            let _ = write!(out, " type s{}", sref(t));
        }
        if let Some(a) = &gl.attribute {
            let _ = write!(out, " attribute [{a}]");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "states {}", order.len());
    let mut merged_productions = 0;
    for (k, &c) in order.iter().enumerate() {
        let s = &g.states[rep[c as usize]];
        let _ = write!(out, "s{k} {}", s.kind);
        if !s.flags.is_empty() {
            let _ = write!(out, "({})", s.flags);
        }
        out.push(':');
        for (i, p) in s.productions.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { " | " });
            out.push_str(&p.label);
            if let Some(t) = p.next {
                let _ = write!(out, "->s{}", sref(t));
            }
            if let Some(t) = p.element {
                let _ = write!(out, " el s{}", sref(t));
            }
        }
        merged_productions += s.productions.len();
        out.push('\n');
    }
    let stats = CanonicalStats {
        states: n,
        productions: g.states.iter().map(|s| s.productions.len()).sum(),
        reachable: reachable.iter().filter(|&&r| r).count(),
        merged: order.len(),
        merged_productions,
    };
    Ok((out, stats))
}

/// A text that is equal for two graphs exactly when they behave the same: the URI and
/// local-name table, the global links, then the reachable states after merging bisimilar
/// ones, one a line (see the module documentation). Panics when an id points nowhere (a graph
/// from [`parse_grammars2json`] never does; [`canonical_with_stats`] returns the error).
pub fn canonical(g: &GrammarGraph) -> String {
    canonical_with_stats(g)
        .unwrap_or_else(|e| panic!("canonical: {e}"))
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(label: &str, next: Option<usize>, element: Option<usize>) -> GProd {
        GProd {
            label: label.to_string(),
            next,
            element,
        }
    }

    fn st(kind: &str, productions: Vec<GProd>) -> GState {
        GState {
            kind: kind.to_string(),
            flags: String::new(),
            productions,
        }
    }

    /// document -> docContent -> SE(a) (element grammar 3..) -> docEnd; fragment unused parts.
    fn base(dup: bool) -> GrammarGraph {
        let mut states = vec![
            st("document", vec![p("SD", Some(1), None)]),
            st(
                "docContent",
                vec![p("SE({}a)", Some(2), Some(5)), p("SE(*)", Some(2), None)],
            ),
            st("docEnd", vec![p("ED", None, None)]),
            st("fragment", vec![p("SD", Some(4), None)]),
            st(
                "fragmentContent",
                vec![p("SE({}a)", Some(4), Some(5)), p("ED", None, None)],
            ),
            // a: AT(x) then content: SE(b) (twice, optional) then EE
            st(
                "firstStartTagContent",
                vec![p("AT({}x)[STRING]", Some(6), None), p("EE", None, None)],
            ),
            st(
                "elementContent",
                vec![p("SE({}b)", Some(7), Some(8)), p("EE", None, None)],
            ),
            st(
                "elementContent",
                vec![p("SE({}b)", Some(6), Some(8)), p("EE", None, None)],
            ),
            st(
                "firstStartTagContent",
                vec![p("CH[INTEGER]", Some(9), None)],
            ),
            st("elementContent", vec![p("EE", None, None)]),
        ];
        if dup {
            // a second copy of b's grammar, used by the second SE(b)
            states.push(st(
                "firstStartTagContent",
                vec![p("CH[INTEGER]", Some(11), None)],
            ));
            states.push(st("elementContent", vec![p("EE", None, None)]));
            states[7].productions[0].element = Some(10);
        }
        GrammarGraph {
            uris: vec![("".to_string(), vec!["a".into(), "b".into(), "x".into()])],
            states,
            document: 0,
            fragment: 3,
            globals: vec![GlobalName {
                uri: 0,
                local: 0,
                element: Some(5),
                ..Default::default()
            }],
        }
    }

    #[test]
    fn duplicated_equivalent_states_give_the_same_text() {
        let (a, sa) = canonical_with_stats(&base(false)).unwrap();
        let (b, sb) = canonical_with_stats(&base(true)).unwrap();
        assert_eq!(a, b);
        assert_eq!(sa.merged, sb.merged);
        assert_eq!(sb.states, 12);
        // 6 and 7 are bisimilar (an endless loop of SE(b)): merged
        assert_eq!(sa.merged, 9, "{a}");
        assert!(
            a.contains("s3 elementContent: SE({}b)->s3 el s4 | EE\n"),
            "{a}"
        );
    }

    #[test]
    fn the_order_of_productions_matters() {
        let mut g = base(false);
        g.states[1].productions.swap(0, 1);
        assert_ne!(canonical(&base(false)), canonical(&g));
    }

    #[test]
    fn the_state_order_does_not_matter() {
        // the same graph with its states permuted
        let g = base(false);
        let perm: Vec<usize> = (0..g.states.len()).rev().collect(); // old -> new
        let mut states = vec![GState::default(); g.states.len()];
        for (old, s) in g.states.iter().enumerate() {
            let mut s = s.clone();
            for q in &mut s.productions {
                q.next = q.next.map(|t| perm[t]);
                q.element = q.element.map(|t| perm[t]);
            }
            states[perm[old]] = s;
        }
        let h = GrammarGraph {
            states,
            document: perm[g.document],
            fragment: perm[g.fragment],
            globals: vec![GlobalName {
                element: Some(perm[5]),
                ..g.globals[0].clone()
            }],
            ..g.clone()
        };
        assert_eq!(canonical(&g), canonical(&h));
    }

    #[test]
    fn flags_labels_and_targets_matter() {
        let g = base(false);
        let mut h = g.clone();
        h.states[5].flags = "nillable".into();
        assert_ne!(canonical(&g), canonical(&h));
        let mut h = g.clone();
        h.states[8].productions[0].label = "CH[STRING]".into();
        assert_ne!(canonical(&g), canonical(&h));
        let mut h = g.clone();
        h.states[7].productions[0].next = Some(9); // the loop ends after two b
        assert_ne!(canonical(&g), canonical(&h));
        let mut h = g.clone();
        h.globals[0].attribute = Some("STRING".into());
        assert_ne!(canonical(&g), canonical(&h));
        let mut h = g.clone();
        h.uris[0].1.push("y".into());
        assert_ne!(canonical(&g), canonical(&h));
    }

    #[test]
    fn a_dangling_id_is_an_error() {
        let mut g = base(false);
        g.states[2].productions[0].next = Some(99);
        assert!(canonical_with_stats(&g).is_err());
    }

    /// A small dump in Grammars2JSON's layout, with the quirks: a quoted grammar id, and
    /// unescaped strings in a URI, a local name and enumeration values.
    const QUIRKY: &str = "{\n\t\"qnames\" : { \n\t\t\"namespaceContext\" : [\n\t\t\t{\n\t\t\t\t\"uriID\" : 0 ,\n\t\t\t\t\"uri\" : \"urn:a\\b\", \n\t\t\t\t\"qnameContext\" : [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"uriID\" : 0 ,\n\t\t\t\t\t\t\"localNameID\" : 0 ,\n\t\t\t\t\t\t\"localName\" : \"e\"\n\t\t\t\t\t\t,\n\t\t\t\t\t\t\"globalElementGrammarID\" : 3 \n\t\t\t\t\t\t,\n\t\t\t\t\t\t\"globalAttributeDatatypeID\" : -1 \n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n\t,\n\t\"simpleDatatypes\" : [ \n\t\t{\n\t\t\t\"simpleDatatypeID\" : 0,\n\t\t\t\"type\": \"ENUMERATION\",\n\t\t\t\"enumValues\": [\"a\"b\", \"c|d\", \"two\nlines\"]\n\t\t}\n\t\t, \n\t\t{\n\t\t\t\"simpleDatatypeID\" : 1,\n\t\t\t\"type\": \"LIST\",\n\t\t\t\"listType\": \"NBIT_UNSIGNED_INTEGER\",\n\t\t\t\"lowerBound\": 0,\n\t\t\t\"upperBound\": 11\n\t\t}\n\t]\n\t, \n\t\"grs\" : {\n\t\t\"documentGrammarID\" : 0 ,\n\t\t\"fragmentGrammarID\" : 1 ,\n\t\t\"grammar\" : [\n\t\t\t{\n\t\t\t\t\"grammarID\" : \"0\" ,\n\t\t\t\t\"type\" : \"document\" ,\n\t\t\t\t\"production\" : [ \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"startDocument\" ,\n\t\t\t\t\t\t\"nextGrammarID\" : 2\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t\t, \n\t\t\t{\n\t\t\t\t\"grammarID\" : \"1\" ,\n\t\t\t\t\"type\" : \"fragment\" ,\n\t\t\t\t\"production\" : [ \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"startDocument\" ,\n\t\t\t\t\t\t\"nextGrammarID\" : 2\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t\t, \n\t\t\t{\n\t\t\t\t\"grammarID\" : \"2\" ,\n\t\t\t\t\"type\" : \"docContent\" ,\n\t\t\t\t\"production\" : [ \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"startElement\" ,\n\t\t\t\t\t\t\"startElementNamespaceID\" : 0 ,\n\t\t\t\t\t\t\"startElementLocalNameID\" : 0 ,\n\t\t\t\t\t\t\"startElementGrammarID\" : 3 ,\n\t\t\t\t\t\t\"nextGrammarID\" : -1\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t\t, \n\t\t\t{\n\t\t\t\t\"grammarID\" : \"3\" ,\n\t\t\t\t\"type\" : \"firstStartTagContent\" ,\n\t\t\t\t\"isTypeCastable\" : true ,\n\t\t\t\t\"isNillable\" : false ,\n\t\t\t\t\"production\" : [ \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"attribute\" ,\n\t\t\t\t\t\t\"attributeNamespaceID\" : 0 ,\n\t\t\t\t\t\t\"attributeLocalNameID\" : 0 ,\n\t\t\t\t\t\t\"attributeDatatypeID\" : 1 ,\n\t\t\t\t\t\t\"nextGrammarID\" : 3\n\t\t\t\t\t}\n\t\t\t\t\t, \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"characters\" ,\n\t\t\t\t\t\t\"charactersDatatypeID\" : 0 ,\n\t\t\t\t\t\t\"nextGrammarID\" : 3\n\t\t\t\t\t}\n\t\t\t\t\t, \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"characters\" ,\n\t\t\t\t\t\t\"charactersDatatypeID\" : -1 ,\n\t\t\t\t\t\t\"nextGrammarID\" : 3\n\t\t\t\t\t}\n\t\t\t\t\t, \n\t\t\t\t\t{\n\t\t\t\t\t\t\"event\" : \"endElement\" ,\n\t\t\t\t\t\t\"nextGrammarID\" : -1\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n";

    #[test]
    fn the_quirks_are_repaired() {
        assert!(serde_json::from_str::<Value>(QUIRKY).is_err());
        let g = parse_grammars2json(QUIRKY).unwrap();
        assert_eq!(
            g.uris,
            vec![("urn:a\\b".to_string(), vec!["e".to_string()])]
        );
        assert_eq!(g.states.len(), 4);
        assert_eq!(g.states[3].flags, "castable");
        let labels: Vec<&str> = g.states[3]
            .productions
            .iter()
            .map(|p| p.label.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "AT({urn:a\\b}e)[LIST(NBIT_UNSIGNED_INTEGER(0,11))]",
                "CH[ENUMERATION(a\"b|c\\|d|two\\nlines)]",
                "CH[STRING]",
                "EE"
            ]
        );
        assert_eq!(g.globals[0].element, Some(3));
        assert_eq!(g.globals[0].attribute.as_deref(), Some("?"));
        let text = canonical(&g);
        assert!(
            text.starts_with("uris 1\nu0 \"urn:a\\\\b\" e\nglobals 1\n"),
            "{text}"
        );
        assert!(
            text.contains("s1 docContent: SE({urn:a\\b}e) el s2\n"),
            "{text}"
        );
    }
}
