//! A small model of well-formed documents, turned into binxml events, and the normalisation used
//! to compare the events a format gives back with the events it was given.
//!
//! Shared by the cargo-fuzz round-trip targets (`fuzz/src/lib.rs` builds a [`Doc`] from fuzzer
//! bytes) and the proptest properties (`crates/binxml/tests/proptest_roundtrip.rs` includes this
//! file with `#[path]`). Plain Rust, no dependency beyond binxml.

use std::borrow::Cow;
use std::collections::HashMap;

use binxml::{Decoder, Encoder, Event, Format, QName};

/// Element and attribute local names.
pub const NAMES: &[&str] = &[
    "a",
    "b",
    "item",
    "x-y",
    "_z",
    "\u{e9}l\u{e9}ment",
    "n.1",
    "data",
    "\u{4e2d}",
];
/// (prefix, namespace) pairs an element or attribute name may use. `("", "")` is no namespace.
pub const NAMESPACES: &[(&str, &str)] = &[
    ("", ""),
    ("", "urn:d"),
    ("p", "urn:p"),
    ("q", "urn:q"),
    ("p", "urn:p2"),
    ("s", "http://example.com/s?x=1&y=<2>"),
];
/// PI targets (never `xml` in any case).
pub const PI_TARGETS: &[&str] = &["pi", "xml-stylesheet", "t9", "\u{e0}"];

#[derive(Clone, Debug)]
pub enum Node {
    Element(Element),
    Text(String),
    CData(String),
    Comment(String),
    Pi(usize, String),
}

#[derive(Clone, Debug)]
pub struct Element {
    /// Index into [`NAMES`].
    pub name: usize,
    /// Index into [`NAMESPACES`].
    pub ns: usize,
    /// (name index, namespace index restricted to prefixed ones or 0, value).
    pub attrs: Vec<(usize, usize, String)>,
    pub children: Vec<Node>,
}

#[derive(Clone, Debug)]
pub struct Doc {
    /// Comments and PIs before the root.
    pub prolog: Vec<Node>,
    pub root: Element,
    /// Comments and PIs after the root.
    pub epilog: Vec<Node>,
}

/// Keeps only characters XML 1.0 can carry (U+0000 and other C0 controls, U+FFFE, U+FFFF and
/// lone surrogates are not representable); `\r` is kept: writers must escape it.
pub fn xml_chars(s: &str) -> String {
    s.chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..))
        .collect()
}

/// Comment text: no `--`, not ending in `-`.
pub fn comment_text(s: &str) -> String {
    let mut t = xml_chars(s).replace("--", "- -");
    while t.contains("--") {
        t = t.replace("--", "- -");
    }
    if t.ends_with('-') {
        t.push(' ');
    }
    t
}

/// PI data: no `?>`, no leading white space (the parser drops it).
pub fn pi_data(s: &str) -> String {
    let mut t = xml_chars(s).replace("?>", "? >");
    while t.contains("?>") {
        t = t.replace("?>", "? >");
    }
    t.trim_start_matches([' ', '\t', '\r', '\n']).to_string()
}

/// CDATA text: no `]]>`.
pub fn cdata_text(s: &str) -> String {
    let mut t = xml_chars(s).replace("]]>", "]] >");
    while t.contains("]]>") {
        t = t.replace("]]>", "]] >");
    }
    t
}

fn owned(s: &str) -> Cow<'static, str> {
    Cow::Owned(s.to_string())
}

impl Doc {
    /// The well-formed event stream of the document: namespace declarations are added where a
    /// name needs one; attributes that would clash (same expanded or qualified name, a prefix
    /// bound twice on one element) are left out.
    pub fn events(&self) -> Vec<Event<'static>> {
        let mut out = vec![Event::start_document()];
        for n in &self.prolog {
            misc(n, &mut out);
        }
        let mut scope: Vec<HashMap<String, String>> = vec![HashMap::new()];
        element(&self.root, &mut scope, &mut out);
        for n in &self.epilog {
            misc(n, &mut out);
        }
        out.push(Event::EndDocument);
        out
    }
}

fn misc(n: &Node, out: &mut Vec<Event<'static>>) {
    match n {
        Node::Comment(c) => out.push(Event::Comment(owned(&comment_text(c)))),
        Node::Pi(t, d) => out.push(Event::ProcessingInstruction {
            target: owned(PI_TARGETS[t % PI_TARGETS.len()]),
            data: owned(&pi_data(d)),
        }),
        _ => {}
    }
}

fn lookup(scope: &[HashMap<String, String>], prefix: &str) -> String {
    for m in scope.iter().rev() {
        if let Some(u) = m.get(prefix) {
            return u.clone();
        }
    }
    String::new()
}

fn element(e: &Element, scope: &mut Vec<HashMap<String, String>>, out: &mut Vec<Event<'static>>) {
    let (prefix, ns) = NAMESPACES[e.ns % NAMESPACES.len()];
    let local = NAMES[e.name % NAMES.len()];
    let mut decls: Vec<(String, String)> = Vec::new();
    if lookup(scope, prefix) != ns {
        decls.push((prefix.to_string(), ns.to_string()));
    }
    // Prefixes whose binding this element fixes (its own, declared here or inherited).
    let mut fixed: Vec<(String, String)> = vec![(prefix.to_string(), ns.to_string())];
    out.push(Event::StartElement(QName::new(
        owned(prefix),
        owned(ns),
        owned(local),
    )));
    let mut attrs: Vec<Event<'static>> = Vec::new();
    let mut seen_expanded: Vec<(String, String)> = Vec::new();
    let mut seen_qualified: Vec<(String, String)> = Vec::new();
    for (an, ans, value) in &e.attrs {
        let local = NAMES[an % NAMES.len()];
        let (ap, auri) = NAMESPACES[ans % NAMESPACES.len()];
        // Attributes are in no namespace unless prefixed.
        let (ap, auri) = if ap.is_empty() { ("", "") } else { (ap, auri) };
        if !ap.is_empty() {
            let bound_here = fixed.iter().find(|(p, _)| p == ap).map(|(_, u)| u.clone());
            match bound_here {
                Some(u) if u != auri => continue,
                Some(_) => {}
                None => {
                    if lookup(scope, ap) != auri {
                        decls.push((ap.to_string(), auri.to_string()));
                    }
                    fixed.push((ap.to_string(), auri.to_string()));
                }
            }
        }
        let ex = (auri.to_string(), local.to_string());
        let qn = (ap.to_string(), local.to_string());
        if seen_expanded.contains(&ex) || seen_qualified.contains(&qn) {
            continue;
        }
        seen_expanded.push(ex);
        seen_qualified.push(qn);
        attrs.push(Event::Attribute {
            name: QName::new(owned(ap), owned(auri), owned(local)),
            value: owned(&xml_chars(value)),
        });
    }
    let mut map = HashMap::new();
    for (p, u) in &decls {
        out.push(Event::Namespace {
            prefix: owned(p),
            uri: owned(u),
        });
        map.insert(p.clone(), u.clone());
    }
    out.extend(attrs);
    scope.push(map);
    for c in &e.children {
        match c {
            Node::Element(child) => element(child, scope, out),
            Node::Text(t) => {
                let t = xml_chars(t);
                if !t.is_empty() {
                    out.push(Event::Characters {
                        text: owned(&t),
                        cdata: false,
                    });
                }
            }
            Node::CData(t) => {
                let t = cdata_text(t);
                if !t.is_empty() {
                    out.push(Event::Characters {
                        text: owned(&t),
                        cdata: true,
                    });
                }
            }
            other => misc(other, out),
        }
    }
    scope.pop();
    out.push(Event::EndElement);
}

/// Whether the format keeps the CDATA flag of character data.
pub fn keeps_cdata(format: Format) -> bool {
    matches!(format, Format::Xml | Format::Fi | Format::Tsf)
}

/// The events as the format is expected to give them back: the XML declaration's fields
/// dropped, typed values as their lexical text, adjacent character data with the same CDATA flag
/// merged (the flag kept only where the format keeps it; XML writes CDATA holding a carriage
/// return as escaped text), empty text removed; for XML, line ends in comments and PIs as a
/// parser reports them.
pub fn normalize(events: &[Event<'_>], format: Format) -> Vec<Event<'static>> {
    let cdata_kept = keeps_cdata(format);
    let mut out: Vec<Event<'static>> = Vec::new();
    for ev in events {
        let ev = match ev {
            Event::StartDocument { .. } => Event::start_document(),
            Event::Typed(t) => Event::Characters {
                text: Cow::Owned(t.lexical()),
                cdata: false,
            },
            Event::Characters { text, cdata } => {
                // A CDATA section cannot hold a carriage return (line-end handling): the XML
                // writer writes such text as escaped character data instead.
                let cdata = *cdata && cdata_kept && !(format == Format::Xml && text.contains('\r'));
                Event::Characters {
                    text: Cow::Owned(text.to_string()),
                    cdata,
                }
            }
            // XML has no escape for a carriage return in a comment or a PI: parsers turn line
            // ends into `\n` there.
            Event::Comment(c) if format == Format::Xml => {
                Event::Comment(Cow::Owned(xml_line_ends(c)))
            }
            Event::ProcessingInstruction { target, data } if format == Format::Xml => {
                Event::ProcessingInstruction {
                    target: Cow::Owned(target.to_string()),
                    data: Cow::Owned(xml_line_ends(data)),
                }
            }
            other => other.clone().into_owned(),
        };
        if let Event::Characters { text, cdata } = &ev {
            if text.is_empty() {
                continue;
            }
            if let Some(Event::Characters {
                text: prev,
                cdata: pc,
            }) = out.last_mut()
                && *pc == *cdata
            {
                prev.to_mut().push_str(text);
                continue;
            }
        }
        out.push(ev);
    }
    out
}

/// XML's end-of-line handling: `\r\n` and a lone `\r` become `\n`.
pub fn xml_line_ends(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// Whether every string of the events is made of characters XML 1.0 can hold.
pub fn xml_representable(events: &[Event<'_>]) -> bool {
    let ok = |s: &str| xml_chars(s) == s;
    events.iter().all(|ev| match ev {
        Event::StartElement(q) => ok(&q.local),
        Event::Attribute { name, value } => ok(&name.local) && ok(value),
        Event::Characters { text, .. } => ok(text),
        _ => true,
    })
}

/// The bytes an encoder writes when `write` hands it the events (then `finish`).
fn encode_with(
    format: Format,
    write: impl FnOnce(&mut dyn binxml::Encoder) -> binxml::Result<()>,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    {
        let mut enc =
            binxml::AnyEncoder::new(format, &mut bytes, &binxml::EncodeOptions::default());
        write(&mut enc).map_err(|e| format!("encoder: {e}"))?;
        enc.finish().map_err(|e| format!("encoder finish: {e}"))?;
    }
    Ok(bytes)
}

/// What [`round_trip`] gives back when the encoder accepted the events: the encoded bytes and
/// the events decoded from them.
pub type Encoded = (Vec<u8>, Vec<Event<'static>>);

/// Encodes `events` in `format` and decodes them again. `Ok(None)`: the encoder declined the
/// document as unsupported (not a failure of the pair).
pub fn round_trip(format: Format, events: &[Event<'_>]) -> Result<Option<Encoded>, String> {
    let mut bytes = Vec::new();
    {
        let mut enc =
            binxml::AnyEncoder::new(format, &mut bytes, &binxml::EncodeOptions::default());
        for ev in events {
            if let Err(e) = enc.write_event(ev) {
                if e.kind() == binxml::ErrorKind::Unsupported {
                    return Ok(None);
                }
                return Err(format!("encoder: {e}"));
            }
        }
        if let Err(e) = enc.finish() {
            if e.kind() == binxml::ErrorKind::Unsupported {
                return Ok(None);
            }
            return Err(format!("encoder finish: {e}"));
        }
    }
    let mut back = Vec::new();
    {
        let mut dec = binxml::AnyDecoder::new(format, &bytes, &binxml::DecodeOptions::default())
            .map_err(|e| format!("decoder: {e}"))?;
        loop {
            match dec.next_event() {
                Ok(Some(ev)) => back.push(ev.into_owned()),
                Ok(None) => break,
                Err(e) => return Err(format!("decoder: {e}")),
            }
        }
    }
    Ok(Some((bytes, back)))
}

/// Checks one document through one format: `Err` describes the first difference.
pub fn check(format: Format, doc: &Doc) -> Result<(), String> {
    let events = doc.events();
    let Some((bytes, back)) = round_trip(format, &events)? else {
        return Ok(());
    };
    // the same events as one slice and replayed from a Tape: the same bytes
    for (how, other) in [
        (
            "write_events",
            encode_with(format, |e| e.write_events(&events))?,
        ),
        (
            "write_tape",
            encode_with(format, |e| {
                e.write_tape(&binxml::Tape::from_events(&events))
            })?,
        ),
    ] {
        if other != bytes {
            return Err(format!(
                "{format}: {how} wrote other bytes than write_event on each ({} against {})",
                other.len(),
                bytes.len()
            ));
        }
    }
    let want = normalize(&events, format);
    let got = normalize(&back, format);
    if want != got {
        let i = want
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        return Err(format!(
            "{format}: events differ at {i}: want {:?}, got {:?} ({} bytes encoded)",
            want.get(i),
            got.get(i),
            bytes.len()
        ));
    }
    Ok(())
}
