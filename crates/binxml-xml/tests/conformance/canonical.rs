//! James Clark's canonical XML, the form of the suite's expected outputs, written from binxml's
//! events.
//!
//! The form: no XML declaration and no comments; attributes (namespace declarations among them,
//! as written) sorted by name; `<a></a>` for empty elements; `&`, `<`, `>`, `"`, tab, line feed
//! and carriage return escaped in text and attribute values; `<?target data?>` with one space
//! after the target. When the document declares notations, the "second" form puts them first in
//! a DOCTYPE, sorted by name, one a line.

use binxml_core::Event;

/// The canonical form of a document's events.
pub fn write(events: &[Event<'_>]) -> String {
    let mut out = String::new();
    let mut doctype = None;
    let mut notations = Vec::new();
    for ev in events {
        match ev {
            Event::DocType(d) => doctype = Some(d.name.to_string()),
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                let mut n = format!("<!NOTATION {name}");
                match (public_id, system_id) {
                    (Some(p), Some(s)) => n += &format!(" PUBLIC '{p}' '{s}'"),
                    (Some(p), None) => n += &format!(" PUBLIC '{p}'"),
                    (None, Some(s)) => n += &format!(" SYSTEM '{s}'"),
                    (None, None) => {}
                }
                n.push('>');
                notations.push((name.to_string(), n));
            }
            _ => {}
        }
    }
    if !notations.is_empty() {
        notations.sort();
        out += &format!("<!DOCTYPE {} [\n", doctype.unwrap_or_default());
        for (_, n) in notations {
            out += &n;
            out.push('\n');
        }
        out += "]>\n";
    }
    let mut open: Vec<String> = Vec::new();
    // The start tag being gathered: its name and its attributes.
    let mut tag: Option<(String, Vec<(String, String)>)> = None;
    let close_tag = |out: &mut String, tag: &mut Option<(String, Vec<(String, String)>)>| {
        if let Some((name, mut attrs)) = tag.take() {
            attrs.sort();
            out.push('<');
            out.push_str(&name);
            for (k, v) in attrs {
                out.push(' ');
                out.push_str(&k);
                out.push_str("=\"");
                escape(out, &v);
                out.push('"');
            }
            out.push('>');
        }
    };
    for ev in events {
        match ev {
            Event::Namespace { prefix, uri } => {
                if let Some((_, attrs)) = &mut tag {
                    let name = if prefix.is_empty() {
                        "xmlns".to_string()
                    } else {
                        format!("xmlns:{prefix}")
                    };
                    attrs.push((name, uri.to_string()));
                }
                continue;
            }
            Event::Attribute { name, value } => {
                if let Some((_, attrs)) = &mut tag {
                    attrs.push((name.qualified().to_string(), value.to_string()));
                }
                continue;
            }
            _ => close_tag(&mut out, &mut tag),
        }
        match ev {
            Event::StartElement(q) => {
                let name = q.qualified().to_string();
                open.push(name.clone());
                tag = Some((name, Vec::new()));
            }
            Event::EndElement => {
                let name = open.pop().unwrap_or_default();
                out.push_str("</");
                out.push_str(&name);
                out.push('>');
            }
            Event::Characters { text, .. } => escape(&mut out, text),
            Event::ProcessingInstruction { target, data } => {
                out += &format!("<?{target} {data}?>");
            }
            _ => {}
        }
    }
    close_tag(&mut out, &mut tag);
    out
}

fn escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}
