//! The internal DTD subset: what a non-validating processor must read from it.
//!
//! General entity declarations (internal replacement text, external ids, unparsed entities),
//! attribute-list declarations (types and defaults) and notations. Parameter entities declared in
//! the internal subset are expanded between declarations. A reference to a parameter entity that
//! is not read (external) stops the processing of later ENTITY and ATTLIST declarations unless the
//! document is standalone, as XML 1.0 section 5.1 requires. Nothing external is ever fetched.

use std::collections::HashMap;

/// A general entity declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Entity {
    /// Internal entity: the replacement text (character references already replaced).
    Internal(String),
    /// External parsed entity: never fetched.
    External {
        /// The public identifier, if declared.
        public_id: Option<String>,
        /// The system identifier (as written, not resolved).
        system_id: String,
    },
    /// Unparsed entity (NDATA).
    Unparsed {
        /// The public identifier, if declared.
        public_id: Option<String>,
        /// The system identifier (as written, not resolved).
        system_id: String,
        /// The notation named after `NDATA`.
        notation: String,
    },
}

/// One attribute declared in an ATTLIST.
#[derive(Clone, Debug, PartialEq)]
pub struct AttDef {
    /// The attribute's qualified name as written.
    pub name: String,
    /// `true` for CDATA (no whitespace collapsing); other types are tokenized.
    pub cdata: bool,
    /// The default value (from a literal or #FIXED), `None` for #IMPLIED and #REQUIRED.
    pub default: Option<String>,
}

/// What the internal DTD subset declares ([`Dtd::parse`]): general entities, attribute defaults
/// and notations.
#[derive(Clone, Debug, Default)]
pub struct Dtd {
    /// General entities by name (the first declaration of a name wins, as XML 1.0 says).
    pub entities: HashMap<String, Entity>,
    /// Element qualified name -> declared attributes (first declaration wins).
    pub attlists: HashMap<String, Vec<AttDef>>,
    /// Notations, in declaration order: (name, public identifier, system identifier).
    pub notations: Vec<(String, Option<String>, Option<String>)>,
    /// True when an unread parameter entity reference stopped declaration processing.
    pub skipped_declarations: bool,
}

/// The parts of a `<!DOCTYPE ...>` declaration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DoctypeParts<'a> {
    pub name: &'a str,
    pub public_id: Option<&'a str>,
    pub system_id: Option<&'a str>,
    pub internal_subset: Option<&'a str>,
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while let Some(c) = self.rest().chars().next() {
            if matches!(c, ' ' | '\t' | '\r' | '\n') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.pos > start
    }
    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn name(&mut self) -> Result<&'a str, String> {
        let r = self.rest();
        let end = r
            .find(|c: char| {
                matches!(
                    c,
                    ' ' | '\t'
                        | '\r'
                        | '\n'
                        | '>'
                        | '['
                        | '"'
                        | '\''
                        | '('
                        | ')'
                        | '|'
                        | ','
                        | ';'
                        | '%'
                )
            })
            .unwrap_or(r.len());
        if end == 0 {
            return Err(format!("expected a name at offset {}", self.pos));
        }
        self.pos += end;
        Ok(&r[..end])
    }
    fn quoted(&mut self) -> Result<&'a str, String> {
        let r = self.rest();
        let q = r.chars().next().ok_or("unexpected end of declaration")?;
        if q != '"' && q != '\'' {
            return Err(format!("expected a quoted literal at offset {}", self.pos));
        }
        let end = r[1..].find(q).ok_or("unterminated literal")?;
        self.pos += end + 2;
        Ok(&r[1..1 + end])
    }
    /// Skips to just after the `>` closing the current markup declaration, honouring quotes.
    fn skip_decl(&mut self) -> Result<(), String> {
        let bytes = self.s.as_bytes();
        let mut quote = 0u8;
        while self.pos < bytes.len() {
            let b = bytes[self.pos];
            self.pos += 1;
            if quote != 0 {
                if b == quote {
                    quote = 0;
                }
            } else if b == b'"' || b == b'\'' {
                quote = b;
            } else if b == b'>' {
                return Ok(());
            }
        }
        Err("unterminated markup declaration".into())
    }
}

/// Splits the content of a DOCTYPE event (`name PUBLIC "p" "s" [subset]`).
pub fn split_doctype(content: &str) -> Result<DoctypeParts<'_>, String> {
    let mut c = Cursor { s: content, pos: 0 };
    c.skip_ws();
    let name = c.name()?;
    let mut parts = DoctypeParts {
        name,
        ..Default::default()
    };
    c.skip_ws();
    if c.eat("PUBLIC") {
        c.skip_ws();
        parts.public_id = Some(c.quoted()?);
        c.skip_ws();
        parts.system_id = Some(c.quoted()?);
    } else if c.eat("SYSTEM") {
        c.skip_ws();
        parts.system_id = Some(c.quoted()?);
    }
    c.skip_ws();
    if c.eat("[") {
        let start = c.pos;
        let end = content
            .rfind(']')
            .filter(|&e| e >= start)
            .ok_or("internal subset without ']'")?;
        parts.internal_subset = Some(&content[start..end]);
        c.pos = end + 1;
        c.skip_ws();
    }
    if !c.rest().trim().is_empty() {
        return Err(format!("unexpected text in DOCTYPE: {:?}", c.rest().trim()));
    }
    Ok(parts)
}

/// Replaces character references (`&#N;`, `&#xH;`) in an entity value literal.
/// General entity references are kept (they are expanded when the entity is used).
fn replace_char_refs(lit: &str) -> Result<String, String> {
    let mut out = String::with_capacity(lit.len());
    let mut rest = lit;
    while let Some(i) = rest.find("&#") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after
            .find(';')
            .ok_or("unterminated character reference in entity value")?;
        let num = &after[..end];
        let code = if let Some(hex) = num.strip_prefix('x') {
            u32::from_str_radix(hex, 16)
        } else {
            num.parse::<u32>()
        }
        .map_err(|_| format!("bad character reference &#{num};"))?;
        let ch = char::from_u32(code)
            .filter(|&c| is_xml_char(c))
            .ok_or(format!(
                "character reference &#{num}; is not an XML character"
            ))?;
        out.push(ch);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

impl Dtd {
    /// Reads an internal subset. `standalone` is the document's standalone declaration.
    /// `budget` bounds the total bytes of parameter-entity expansion.
    pub fn parse(subset: &str, standalone: bool, budget: usize) -> Result<Dtd, String> {
        let mut dtd = Dtd::default();
        let mut pes: HashMap<String, Option<String>> = HashMap::new();
        let mut used = 0usize;
        dtd.parse_decls(subset, standalone, &mut pes, 0, &mut used, budget)?;
        Ok(dtd)
    }

    fn parse_decls(
        &mut self,
        text: &str,
        standalone: bool,
        pes: &mut HashMap<String, Option<String>>,
        depth: usize,
        used: &mut usize,
        budget: usize,
    ) -> Result<(), String> {
        if depth > 16 {
            return Err("parameter entities nested too deeply".into());
        }
        let mut c = Cursor { s: text, pos: 0 };
        loop {
            c.skip_ws();
            if c.rest().is_empty() {
                return Ok(());
            }
            if c.eat("<!--") {
                let end = c.rest().find("-->").ok_or("unterminated comment in DTD")?;
                c.pos += end + 3;
            } else if c.eat("<?") {
                let end = c
                    .rest()
                    .find("?>")
                    .ok_or("unterminated processing instruction in DTD")?;
                c.pos += end + 2;
            } else if c.eat("<![") {
                // Conditional sections are only allowed in the external subset.
                return Err("conditional section in the internal subset".into());
            } else if c.eat("%") {
                let name = c.name()?;
                if !c.eat(";") {
                    return Err(format!("parameter entity reference %{name} without ';'"));
                }
                match pes.get(name).cloned() {
                    Some(Some(text)) => {
                        *used += text.len();
                        if *used > budget {
                            return Err("parameter entity expansion exceeds the limit".into());
                        }
                        self.parse_decls(&text, standalone, pes, depth + 1, used, budget)?;
                    }
                    Some(None) => {
                        // External parameter entity: not read.
                        if !standalone {
                            self.skipped_declarations = true;
                        }
                    }
                    None => return Err(format!("undeclared parameter entity %{name};")),
                }
            } else if c.eat("<!ENTITY") {
                c.skip_ws();
                let pe = c.eat("%");
                if pe {
                    c.skip_ws();
                }
                let name = c.name()?.to_string();
                c.skip_ws();
                let r = c.rest();
                let decl = if r.starts_with('"') || r.starts_with('\'') {
                    let lit = c.quoted()?;
                    let value = replace_char_refs(&expand_pe_refs(lit, pes)?)?;
                    Entity::Internal(value)
                } else {
                    let (public_id, system_id) = external_id(&mut c)?;
                    let system_id = system_id.ok_or("external entity without system literal")?;
                    c.skip_ws();
                    if c.eat("NDATA") {
                        c.skip_ws();
                        let notation = c.name()?.to_string();
                        Entity::Unparsed {
                            public_id,
                            system_id,
                            notation,
                        }
                    } else {
                        Entity::External {
                            public_id,
                            system_id,
                        }
                    }
                };
                c.skip_ws();
                if !c.eat(">") {
                    return Err(format!(
                        "expected '>' after the declaration of entity {name}"
                    ));
                }
                if self.skipped_declarations {
                    continue;
                }
                if pe {
                    pes.entry(name).or_insert(match decl {
                        Entity::Internal(t) => Some(t),
                        _ => None,
                    });
                } else {
                    // The first declaration is binding.
                    self.entities.entry(name).or_insert(decl);
                }
            } else if c.eat("<!ATTLIST") {
                c.skip_ws();
                let element = c.name()?.to_string();
                let mut defs = Vec::new();
                loop {
                    c.skip_ws();
                    if c.eat(">") {
                        break;
                    }
                    let attr = c.name()?.to_string();
                    c.skip_ws();
                    let cdata = if c.eat("(") {
                        let end = c.rest().find(')').ok_or("unterminated enumeration")?;
                        c.pos += end + 1;
                        false
                    } else {
                        let ty = c.name()?;
                        if ty == "NOTATION" {
                            c.skip_ws();
                            if !c.eat("(") {
                                return Err("NOTATION type without enumeration".into());
                            }
                            let end = c.rest().find(')').ok_or("unterminated enumeration")?;
                            c.pos += end + 1;
                        }
                        ty == "CDATA"
                    };
                    c.skip_ws();
                    let default = if c.eat("#REQUIRED") || c.eat("#IMPLIED") {
                        None
                    } else {
                        if c.eat("#FIXED") {
                            c.skip_ws();
                        }
                        let value = c.quoted()?;
                        // AttValue (XML 1.0 [10]) excludes '<', as in a start tag.
                        if value.contains('<') {
                            return Err(format!("'<' in the default value of attribute {attr}"));
                        }
                        Some(value.to_string())
                    };
                    defs.push(AttDef {
                        name: attr,
                        cdata,
                        default,
                    });
                }
                if self.skipped_declarations {
                    continue;
                }
                let list = self.attlists.entry(element).or_default();
                for d in defs {
                    if !list.iter().any(|x| x.name == d.name) {
                        list.push(d);
                    }
                }
            } else if c.eat("<!NOTATION") {
                c.skip_ws();
                let name = c.name()?.to_string();
                c.skip_ws();
                let (public_id, system_id) = external_id(&mut c)?;
                c.skip_ws();
                if !c.eat(">") {
                    return Err(format!("expected '>' after notation {name}"));
                }
                self.notations.push((name, public_id, system_id));
            } else if c.eat("<!ELEMENT") {
                c.skip_decl()?;
            } else {
                let shown: String = c.rest().chars().take(20).collect();
                return Err(format!("unexpected text in the internal subset: {shown:?}"));
            }
        }
    }
}

/// Reads `PUBLIC "p" ["s"]` or `SYSTEM "s"`.
fn external_id(c: &mut Cursor<'_>) -> Result<(Option<String>, Option<String>), String> {
    if c.eat("PUBLIC") {
        c.skip_ws();
        let p = c.quoted()?.to_string();
        let had_ws = c.skip_ws();
        let r = c.rest();
        let s = if had_ws && (r.starts_with('"') || r.starts_with('\'')) {
            Some(c.quoted()?.to_string())
        } else {
            None
        };
        Ok((Some(p), s))
    } else if c.eat("SYSTEM") {
        c.skip_ws();
        Ok((None, Some(c.quoted()?.to_string())))
    } else {
        Err("expected PUBLIC or SYSTEM".into())
    }
}

/// Expands parameter-entity references inside an entity value literal.
fn expand_pe_refs(lit: &str, pes: &HashMap<String, Option<String>>) -> Result<String, String> {
    if !lit.contains('%') {
        return Ok(lit.to_string());
    }
    let mut out = String::new();
    let mut rest = lit;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(';').ok_or("'%' without ';' in entity value")?;
        match pes.get(&after[..end]) {
            Some(Some(t)) => out.push_str(t),
            _ => {
                return Err(format!(
                    "parameter entity %{}; cannot be expanded here",
                    &after[..end]
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doctype_parts() {
        let p =
            split_doctype(" html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x.dtd\"").unwrap();
        assert_eq!(p.name, "html");
        assert_eq!(p.public_id, Some("-//W3C//DTD XHTML 1.0 Strict//EN"));
        assert_eq!(p.system_id, Some("x.dtd"));
        let p = split_doctype("a [ <!ENTITY x \"]\"> ]").unwrap();
        assert_eq!(p.internal_subset, Some(" <!ENTITY x \"]\"> "));
    }

    #[test]
    fn declarations() {
        let d = Dtd::parse(
            r#"<!ENTITY lt "&#38;#60;"> <!ENTITY % p "<!ENTITY q 'Q'>"> %p;
            <!ATTLIST a b CDATA "x" c (y|z) 'y' d CDATA #IMPLIED e ID #FIXED "f">
            <!-- c --> <?pi x?> <!ELEMENT a (#PCDATA|b)*> <!NOTATION gif SYSTEM "image/gif">
            <!ENTITY pic SYSTEM "p.gif" NDATA gif>"#,
            false,
            1000,
        )
        .unwrap();
        assert_eq!(d.entities["lt"], Entity::Internal("&#60;".into()));
        assert_eq!(d.entities["q"], Entity::Internal("Q".into()));
        let a = &d.attlists["a"];
        assert_eq!(a.len(), 4);
        assert_eq!(
            a[1],
            AttDef {
                name: "c".into(),
                cdata: false,
                default: Some("y".into())
            }
        );
        assert_eq!(a[2].default, None);
        let e = Dtd::parse("<!ATTLIST a b CDATA 'x<y'>", false, 1000).unwrap_err();
        assert!(e.contains("'<' in the default value of attribute b"), "{e}");
        assert!(matches!(d.entities["pic"], Entity::Unparsed { .. }));
        assert_eq!(d.notations.len(), 1);
    }

    #[test]
    fn unread_external_pe_stops_processing() {
        let d = Dtd::parse(
            r#"<!ENTITY % ext SYSTEM "x.ent"> %ext; <!ENTITY a "A">"#,
            false,
            1000,
        )
        .unwrap();
        assert!(d.entities.is_empty());
        assert!(d.skipped_declarations);
    }
}
