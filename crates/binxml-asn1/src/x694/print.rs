//! The mapped module as ASN.1 text (X.680 notation, AUTOMATIC TAGS), followed by the XER
//! encoding control section that says how each component appears in XML (X.693 encoding
//! instructions: `ATTRIBUTE`, `UNTAGGED`, `LIST`, `BASE64`, `NAME AS`, `NAMESPACE AS`,
//! `USE-TYPE`, `USE-NIL`, `EMBED-VALUES`, `USE-ORDER`, `ANY-ELEMENT`, `ANY-ATTRIBUTES`). PER
//! and BER ignore that section; [`print`] leaves it out when asked.

use std::fmt::Write;

use binxml_schema::model::NamespaceConstraint;

use super::map::{Comp, Kind, Module, Role, TyId};

/// The module text; with `encoding_control`, the XER encoding control section too.
pub fn print(m: &Module, encoding_control: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- ASN.1 module mapped from XML Schema by binxml (ITU-T X.694; docs/x694.md)"
    );
    let _ = writeln!(out, "{} DEFINITIONS AUTOMATIC TAGS ::=\nBEGIN\n", m.name);
    for &t in &m.assignments {
        let ty = &m.types[t];
        let _ = write!(out, "{} ::= ", ty.name.as_deref().unwrap_or("?"));
        kind(m, t, 0, &mut out, true);
        out.push_str("\n\n");
    }
    if encoding_control {
        out.push_str("ENCODING-CONTROL XER\n");
        out.push_str("    GLOBAL-DEFAULTS MODIFIED-ENCODINGS\n");
        for ns in &m.namespaces {
            let _ = writeln!(out, "    -- namespace {ns:?}");
        }
        for (name, t) in &m.roots {
            if !name.ns.is_empty() {
                let tn = m.types[*t].name.as_deref().unwrap_or("?");
                let _ = writeln!(out, "    NAMESPACE {tn} AS {:?}", name.ns);
            }
        }
        for &t in &m.assignments {
            let tn = m.types[t].name.clone().unwrap_or_default();
            instructions(m, t, &tn, &mut out, 0);
        }
    }
    out.push_str("END\n");
    out
}

/// The namespace restriction of an ANY-ELEMENT or ANY-ATTRIBUTES instruction (X.693: `FROM`
/// or `EXCEPT` a list of URIs, `ABSENT` standing for no namespace); none for `##any`.
fn namespaces(w: &NamespaceConstraint) -> String {
    let list = |kw: &str, set: &[&str]| {
        let mut s = format!(" {kw}");
        for n in set {
            if n.is_empty() {
                s.push_str(" ABSENT");
            } else {
                let _ = write!(s, " \"{n}\"");
            }
        }
        s
    };
    match w {
        NamespaceConstraint::Any => String::new(),
        // `##other`: neither the target namespace nor no namespace.
        NamespaceConstraint::Not(t) if t.is_empty() => list("EXCEPT", &[""]),
        NamespaceConstraint::Not(t) => list("EXCEPT", &["", t]),
        NamespaceConstraint::Set(set) => {
            list("FROM", &set.iter().map(String::as_str).collect::<Vec<_>>())
        }
    }
}

/// The encoding instructions of the components of a named type (the paths reach inline types
/// through their identifiers).
fn instructions(m: &Module, t: TyId, path: &str, out: &mut String, depth: usize) {
    if depth > 32 {
        return;
    }
    let comps: &[Comp] = match &m.types[t].kind {
        Kind::Ref(u) if m.types[*u].name.is_none() => {
            return instructions(m, *u, path, out, depth + 1);
        }
        Kind::Sequence(c) | Kind::Choice(c) => c,
        Kind::Derivations { alts, .. } => {
            let _ = writeln!(out, "    USE-TYPE {path}");
            alts
        }
        Kind::SeqOf { item, .. } => std::slice::from_ref(&**item),
        _ => return,
    };
    if comps.iter().any(|c| c.role == Role::Nil) {
        let _ = writeln!(out, "    USE-NIL {path}");
    }
    for c in comps {
        let p = format!("{path}.{}", c.ident);
        match &c.role {
            Role::Embed => {
                let _ = writeln!(out, "    EMBED-VALUES {path}");
                continue;
            }
            Role::Order => {
                let _ = writeln!(out, "    USE-ORDER {path}");
                continue;
            }
            Role::Attr(n) => {
                let _ = writeln!(out, "    ATTRIBUTE {p}");
                if !n.ns.is_empty() {
                    let _ = writeln!(out, "    NAMESPACE {p} AS {:?}", n.ns);
                }
                name_as(out, &p, &n.local, &c.ident);
            }
            Role::Elem(n) | Role::Type(n) => name_as(out, &p, &n.local, &c.ident),
            Role::Text | Role::Group | Role::Nil => {
                let _ = writeln!(out, "    UNTAGGED {p}");
            }
            Role::Wildcard(w) => {
                let _ = writeln!(out, "    ANY-ELEMENT {p}{}", namespaces(w));
                let _ = writeln!(out, "    UNTAGGED {p}");
            }
            Role::AnyAttr(w) => {
                let _ = writeln!(out, "    ANY-ATTRIBUTES {p}{}", namespaces(w));
                continue;
            }
        }
        if matches!(m.types[c.ty].kind, Kind::List { .. }) && m.types[c.ty].name.is_none() {
            let _ = writeln!(out, "    LIST {p}");
        }
        if let Kind::Octets { hex: false, .. } = m.resolve(c.ty) {
            let _ = writeln!(out, "    BASE64 {p}");
        }
        if m.types[c.ty].name.is_none() {
            instructions(m, c.ty, &p, out, depth + 1);
        }
    }
}

fn name_as(out: &mut String, path: &str, xml: &str, ident: &str) {
    if xml != ident {
        let _ = writeln!(out, "    NAME {path} AS {xml:?}");
    }
}

fn size(min: u64, max: Option<u64>) -> String {
    match (min, max) {
        (0, None) => String::new(),
        (a, None) => format!(" (SIZE ({a}..MAX))"),
        (a, Some(b)) if a == b => format!(" (SIZE ({a}))"),
        (a, Some(b)) => format!(" (SIZE ({a}..{b}))"),
    }
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push_str("    ");
    }
}

/// Writes type `t`: its reference when named (unless `top`, the assignment itself), else
/// its definition.
fn kind(m: &Module, t: TyId, depth: usize, out: &mut String, top: bool) {
    let ty = &m.types[t];
    if let (false, Some(n)) = (top, &ty.name) {
        out.push_str(n);
        return;
    }
    match &ty.kind {
        Kind::Ref(u) => kind(m, *u, depth, out, false),
        Kind::Boolean => out.push_str("BOOLEAN"),
        Kind::Integer { lo, hi } => {
            out.push_str("INTEGER");
            match (lo, hi) {
                (None, None) => {}
                (Some(a), None) => {
                    let _ = write!(out, " ({a}..MAX)");
                }
                (None, Some(b)) => {
                    let _ = write!(out, " (MIN..{b})");
                }
                (Some(a), Some(b)) => {
                    let _ = write!(out, " ({a}..{b})");
                }
            }
        }
        Kind::Enumerated(items) => {
            out.push_str("ENUMERATED {");
            for (i, (ident, _)) in items.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                out.push_str(ident);
            }
            out.push_str(" }");
        }
        Kind::Utf8 { min, max, .. } => {
            out.push_str("UTF8String");
            out.push_str(&size(*min, *max));
        }
        Kind::Visible { alphabet } => {
            out.push_str("VisibleString (FROM (");
            for (i, c) in alphabet.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                let _ = write!(out, "\"{c}\"");
            }
            out.push_str("))");
        }
        Kind::Octets { min, max, .. } => {
            out.push_str("OCTET STRING");
            out.push_str(&size(*min, *max));
        }
        Kind::List { item, min, max } => {
            out.push_str("SEQUENCE");
            out.push_str(&size(*min, *max));
            out.push_str(" OF ");
            kind(m, *item, depth, out, false);
        }
        Kind::SeqOf { item, min, max } => {
            out.push_str("SEQUENCE");
            out.push_str(&size(*min, *max));
            let _ = write!(out, " OF {} ", item.ident);
            kind(m, item.ty, depth, out, false);
        }
        Kind::Sequence(comps) | Kind::Choice(comps) | Kind::Derivations { alts: comps, .. } => {
            out.push_str(if !matches!(ty.kind, Kind::Sequence(_)) {
                "CHOICE {"
            } else {
                "SEQUENCE {"
            });
            if comps.is_empty() {
                out.push('}');
                return;
            }
            out.push('\n');
            for (i, c) in comps.iter().enumerate() {
                indent(out, depth + 1);
                out.push_str(&c.ident);
                out.push(' ');
                kind(m, c.ty, depth + 1, out, false);
                if c.optional {
                    out.push_str(" OPTIONAL");
                }
                if i + 1 < comps.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, depth);
            out.push('}');
        }
    }
}
