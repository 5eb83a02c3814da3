//! The compact syntax (RELAX NG Compact Syntax, OASIS 2002-11-21), parsed into the element tree
//! of the XML syntax as its section 5 (the translation) defines it, so the same simplification
//! reads both. Annotations (`[ ... ]`, `>>`, annotation elements in grammars) and documentation
//! comments are skipped: they carry nothing for validation.

use std::rc::Rc;

use crate::SchemaError;
use crate::load::doc::{Elem, Scope};

use super::{RNG, XSD_DATATYPES};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// An identifier (`escaped`: written with a leading backslash, never a keyword).
    Ident(String, bool),
    /// `prefix:local`.
    CName(String, String),
    /// `prefix:*`.
    NsStar(String),
    Literal(String),
    Punct(&'static str),
}

struct Lexer<'a> {
    s: &'a str,
    pos: usize,
}

const PUNCT: [&str; 18] = [
    "|=", "&=", ">>", "=", "{", "}", "(", ")", "[", "]", ",", "&", "|", "?", "*", "+", "-", "~",
];

/// Most tokens a compact schema may have (bounds memory before the parse).
const MAX_TOKENS: usize = 4_000_000;

/// Deepest nesting of the recursive descent.
const MAX_DEPTH: usize = 1_000;

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '\u{B7}')
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn name(&mut self) -> String {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if is_name_char(c) {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        self.s[start..self.pos].to_string()
    }

    fn tokens(mut self, location: &str, bytes: &[u8]) -> Result<Vec<(Tok, usize)>, SchemaError> {
        let err =
            |pos: usize, m: &str| SchemaError::new(location, m.to_string()).at(bytes, pos as u64);
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if out.len() > MAX_TOKENS {
                return Err(err(self.pos, "too many tokens"));
            }
            let at = self.pos;
            if c.is_whitespace() {
                self.pos += c.len_utf8();
                continue;
            }
            if c == '#' {
                while let Some(c) = self.peek() {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                    self.pos += c.len_utf8();
                }
                continue;
            }
            if c == '"' || c == '\'' {
                let q = c;
                let triple: String = std::iter::repeat_n(q, 3).collect();
                let (delim, skip) = if self.s[self.pos..].starts_with(&triple) {
                    (triple, 3)
                } else {
                    (q.to_string(), 1)
                };
                self.pos += skip;
                let Some(end) = self.s[self.pos..].find(&delim) else {
                    return Err(err(at, "unterminated literal"));
                };
                let lit = &self.s[self.pos..self.pos + end];
                out.push((Tok::Literal(lit.to_string()), at));
                self.pos += end + delim.len();
                continue;
            }
            if c == '\\' || is_name_start(c) {
                let escaped = c == '\\';
                if escaped {
                    self.pos += 1;
                }
                let n = self.name();
                if n.is_empty() {
                    return Err(err(at, "a name expected after '\\'"));
                }
                if !escaped && self.peek() == Some(':') {
                    let rest = &self.s[self.pos + 1..];
                    if rest.starts_with('*') {
                        self.pos += 2;
                        out.push((Tok::NsStar(n), at));
                        continue;
                    }
                    if rest.chars().next().is_some_and(is_name_start) {
                        self.pos += 1;
                        let local = self.name();
                        out.push((Tok::CName(n, local), at));
                        continue;
                    }
                }
                out.push((Tok::Ident(n, escaped), at));
                continue;
            }
            match PUNCT.iter().find(|p| self.s[self.pos..].starts_with(**p)) {
                Some(p) => {
                    self.pos += p.len();
                    out.push((Tok::Punct(p), at));
                }
                None => return Err(err(at, &format!("unexpected character '{c}'"))),
            }
        }
        Ok(out)
    }
}

/// Replaces the `\x{...}` escapes (section 3 of the compact syntax) before tokenizing.
fn unescape(s: &str) -> Option<String> {
    if !s.contains("\\x") {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let xs = after.chars().take_while(|&c| c == 'x').count();
        if xs > 0 && after[xs..].starts_with('{') {
            let body = &after[xs + 1..];
            let end = body.find('}')?;
            let c = u32::from_str_radix(&body[..end], 16)
                .ok()
                .and_then(char::from_u32)?;
            out.push(c);
            rest = &body[end + 1..];
        } else {
            out.push('\\');
            rest = after;
        }
    }
    out.push_str(rest);
    Some(out)
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    i: usize,
    location: &'a str,
    bytes: &'a [u8],
    /// Declared prefixes (namespace and datatypes).
    namespaces: Vec<(String, String)>,
    datatypes: Vec<(String, String)>,
    default_ns: Option<String>,
    scope: Rc<Scope>,
    depth: usize,
}

const KEYWORDS: [&str; 19] = [
    "attribute",
    "default",
    "datatypes",
    "div",
    "element",
    "empty",
    "external",
    "grammar",
    "include",
    "inherit",
    "list",
    "mixed",
    "namespace",
    "notAllowed",
    "parent",
    "start",
    "string",
    "text",
    "token",
];

/// Parses a compact schema into the XML syntax's element tree.
pub(crate) fn parse(bytes: &[u8], location: &str) -> Result<Elem, SchemaError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        SchemaError::new(location, "the compact syntax must be UTF-8")
            .at(bytes, e.valid_up_to() as u64)
    })?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let text =
        unescape(text).ok_or_else(|| SchemaError::new(location, "a malformed \\x{...} escape"))?;
    let toks = Lexer { s: &text, pos: 0 }.tokens(location, bytes)?;
    let mut p = Parser {
        toks,
        i: 0,
        location,
        bytes,
        namespaces: vec![("xml".into(), "http://www.w3.org/XML/1998/namespace".into())],
        datatypes: vec![("xsd".into(), XSD_DATATYPES.into())],
        default_ns: None,
        scope: Rc::new(Scope::default()),
        depth: 0,
    };
    p.top()
}

impl Parser<'_> {
    fn err(&self, m: impl Into<String>) -> SchemaError {
        let pos = self.toks.get(self.i).map_or(self.bytes.len(), |t| t.1);
        SchemaError::new(self.location, m).at(self.bytes, pos as u64)
    }

    fn offset(&self) -> u64 {
        self.toks.get(self.i).map_or(self.bytes.len(), |t| t.1) as u64
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.0)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(n, false)) if n == k)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), SchemaError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.err(format!("'{p}' expected")))
        }
    }

    fn literal(&mut self) -> Result<String, SchemaError> {
        let mut s = match self.peek() {
            Some(Tok::Literal(l)) => l.clone(),
            _ => return Err(self.err("a literal expected")),
        };
        self.i += 1;
        while matches!(self.peek(), Some(Tok::Punct("~"))) {
            self.i += 1;
            match self.peek() {
                Some(Tok::Literal(l)) => s.push_str(l),
                _ => return Err(self.err("a literal expected after '~'")),
            }
            self.i += 1;
        }
        Ok(s)
    }

    fn ident_or_keyword(&mut self) -> Result<String, SchemaError> {
        match self.peek() {
            Some(Tok::Ident(n, _)) => {
                let n = n.clone();
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.err("a name expected")),
        }
    }

    fn elem(&self, local: &str, offset: u64) -> Elem {
        Elem {
            ns: RNG.to_string(),
            local: local.to_string(),
            attrs: Vec::new(),
            children: Vec::new(),
            text: String::new(),
            offset,
            scope: self.scope.clone(),
        }
    }

    fn skip_annotations(&mut self) -> Result<(), SchemaError> {
        while self.is_punct("[") {
            self.skip_brackets()?;
        }
        Ok(())
    }

    fn skip_brackets(&mut self) -> Result<(), SchemaError> {
        let mut level = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated annotation")),
                Some(Tok::Punct("[")) => level += 1,
                Some(Tok::Punct("]")) => {
                    level -= 1;
                    if level == 0 {
                        self.i += 1;
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }

    /// Follow annotations: `>> name [ ... ]`.
    fn skip_follow(&mut self) -> Result<(), SchemaError> {
        while self.eat(">>") {
            match self.peek() {
                Some(Tok::CName(..)) | Some(Tok::Ident(..)) => self.i += 1,
                _ => return Err(self.err("an annotation element name expected after '>>'")),
            }
            if !self.is_punct("[") {
                return Err(self.err("'[' expected"));
            }
            self.skip_brackets()?;
        }
        Ok(())
    }

    fn top(&mut self) -> Result<Elem, SchemaError> {
        let mut decls = Vec::new();
        loop {
            self.skip_annotations()?;
            if self.is_kw("namespace") && !matches!(self.peek_at(1), Some(Tok::Punct(_))) {
                self.i += 1;
                let prefix = self.ident_or_keyword()?;
                self.expect("=")?;
                let uri = self.ns_uri()?;
                self.namespaces.push((prefix.clone(), uri.clone()));
                decls.push((prefix, uri));
            } else if self.is_kw("default")
                && matches!(self.peek_at(1), Some(Tok::Ident(n, false)) if n == "namespace")
            {
                self.i += 2;
                let prefix = match self.peek() {
                    Some(Tok::Ident(..)) => Some(self.ident_or_keyword()?),
                    _ => None,
                };
                self.expect("=")?;
                let uri = self.ns_uri()?;
                if let Some(p) = prefix {
                    self.namespaces.push((p.clone(), uri.clone()));
                    decls.push((p, uri.clone()));
                }
                decls.push((String::new(), uri.clone()));
                self.default_ns = Some(uri);
            } else if self.is_kw("datatypes") && !matches!(self.peek_at(1), Some(Tok::Punct(_))) {
                self.i += 1;
                let prefix = self.ident_or_keyword()?;
                self.expect("=")?;
                let uri = self.literal()?;
                self.datatypes.push((prefix, uri));
            } else {
                break;
            }
        }
        self.scope = Rc::new(Scope::with(None, decls));
        let offset = self.offset();
        let root = if self.starts_grammar_content() {
            let mut g = self.elem("grammar", offset);
            self.grammar_content(&mut g, false)?;
            if self.peek().is_some() {
                return Err(self.err("a grammar component expected"));
            }
            g
        } else {
            let p = self.pattern()?;
            if self.peek().is_some() {
                return Err(self.err("end of schema expected"));
            }
            p
        };
        let mut root = root;
        if let Some(d) = &self.default_ns {
            root.attrs.push((String::new(), "ns".into(), d.clone()));
        }
        Ok(root)
    }

    fn ns_uri(&mut self) -> Result<String, SchemaError> {
        if self.is_kw("inherit") {
            self.i += 1;
            return Ok(String::new());
        }
        self.literal()
    }

    fn starts_grammar_content(&self) -> bool {
        let mut k = 0;
        // Leading annotations.
        if matches!(self.peek(), Some(Tok::Punct("["))) {
            let mut level = 0;
            while let Some(t) = self.peek_at(k) {
                match t {
                    Tok::Punct("[") => level += 1,
                    Tok::Punct("]") => {
                        level -= 1;
                        if level == 0 {
                            k += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
        }
        match self.peek_at(k) {
            Some(Tok::Ident(n, false)) if n == "start" || n == "div" || n == "include" => true,
            Some(Tok::Ident(..)) => {
                matches!(self.peek_at(k + 1), Some(Tok::Punct("=" | "|=" | "&=")))
            }
            Some(Tok::CName(..)) => matches!(self.peek_at(k + 1), Some(Tok::Punct("["))),
            _ => false,
        }
    }

    fn grammar_content(&mut self, into: &mut Elem, braced: bool) -> Result<(), SchemaError> {
        loop {
            self.skip_annotations()?;
            if braced && self.is_punct("}") {
                return Ok(());
            }
            if self.peek().is_none() {
                return if braced {
                    Err(self.err("'}' expected"))
                } else {
                    Ok(())
                };
            }
            let offset = self.offset();
            match self.peek().cloned() {
                Some(Tok::CName(..)) if matches!(self.peek_at(1), Some(Tok::Punct("["))) => {
                    self.i += 1;
                    self.skip_brackets()?;
                }
                Some(Tok::Ident(n, false)) if n == "div" => {
                    self.i += 1;
                    let mut d = self.elem("div", offset);
                    self.expect("{")?;
                    self.nest()?;
                    self.grammar_content(&mut d, true)?;
                    self.depth -= 1;
                    self.expect("}")?;
                    into.children.push(d);
                }
                Some(Tok::Ident(n, false)) if n == "include" => {
                    self.i += 1;
                    let mut inc = self.elem("include", offset);
                    let href = self.literal()?;
                    inc.attrs.push((String::new(), "href".into(), href));
                    self.inherit(&mut inc)?;
                    if self.eat("{") {
                        self.nest()?;
                        self.grammar_content(&mut inc, true)?;
                        self.depth -= 1;
                        self.expect("}")?;
                    }
                    into.children.push(inc);
                }
                Some(Tok::Ident(n, escaped)) => {
                    self.i += 1;
                    let start = n == "start" && !escaped;
                    let mut d = self.elem(if start { "start" } else { "define" }, offset);
                    if !start {
                        d.attrs.push((String::new(), "name".into(), n));
                    }
                    if self.eat("|=") {
                        d.attrs
                            .push((String::new(), "combine".into(), "choice".into()));
                    } else if self.eat("&=") {
                        d.attrs
                            .push((String::new(), "combine".into(), "interleave".into()));
                    } else {
                        self.expect("=")?;
                    }
                    let p = self.pattern()?;
                    d.children.push(p);
                    into.children.push(d);
                }
                _ => return Err(self.err("a grammar component expected")),
            }
        }
    }

    fn inherit(&mut self, e: &mut Elem) -> Result<(), SchemaError> {
        let ns = if self.is_kw("inherit") {
            self.i += 1;
            self.expect("=")?;
            let p = self.ident_or_keyword()?;
            Some(self.prefix_uri(&p)?)
        } else {
            self.default_ns.clone()
        };
        if let Some(ns) = ns {
            e.attrs.push((String::new(), "ns".into(), ns));
        }
        Ok(())
    }

    fn prefix_uri(&self, p: &str) -> Result<String, SchemaError> {
        self.namespaces
            .iter()
            .rev()
            .find(|(q, _)| q == p)
            .map(|(_, u)| u.clone())
            .ok_or_else(|| self.err(format!("namespace prefix '{p}' is not declared")))
    }

    fn nest(&mut self) -> Result<(), SchemaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("the schema nests deeper than {MAX_DEPTH}")));
        }
        Ok(())
    }

    fn pattern(&mut self) -> Result<Elem, SchemaError> {
        self.nest()?;
        let offset = self.offset();
        let first = self.particle()?;
        let op = match self.peek() {
            Some(Tok::Punct(p @ ("," | "&" | "|"))) => *p,
            _ => {
                self.depth -= 1;
                return Ok(first);
            }
        };
        let kind = match op {
            "," => "group",
            "&" => "interleave",
            _ => "choice",
        };
        let mut e = self.elem(kind, offset);
        e.children.push(first);
        while self.eat(op) {
            e.children.push(self.particle()?);
        }
        if matches!(self.peek(), Some(Tok::Punct("," | "&" | "|"))) {
            return Err(self.err("operators mixed without parentheses"));
        }
        self.depth -= 1;
        Ok(e)
    }

    fn particle(&mut self) -> Result<Elem, SchemaError> {
        self.skip_annotations()?;
        let offset = self.offset();
        let p = self.primary()?;
        self.skip_follow()?;
        let wrap = |s: &Self, local: &str, p: Elem| {
            let mut e = s.elem(local, offset);
            e.children.push(p);
            e
        };
        let p = if self.eat("?") {
            wrap(self, "optional", p)
        } else if self.eat("*") {
            wrap(self, "zeroOrMore", p)
        } else if self.eat("+") {
            wrap(self, "oneOrMore", p)
        } else {
            p
        };
        self.skip_follow()?;
        Ok(p)
    }

    fn braced_pattern(&mut self, into: &mut Elem) -> Result<(), SchemaError> {
        self.expect("{")?;
        let p = self.pattern()?;
        into.children.push(p);
        self.expect("}")
    }

    fn primary(&mut self) -> Result<Elem, SchemaError> {
        self.nest()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> Result<Elem, SchemaError> {
        let offset = self.offset();
        let tok = self
            .peek()
            .cloned()
            .ok_or_else(|| self.err("a pattern expected"))?;
        match tok {
            Tok::Punct("(") => {
                self.i += 1;
                let p = self.pattern()?;
                self.expect(")")?;
                Ok(p)
            }
            Tok::Ident(k, false) if k == "element" || k == "attribute" => {
                self.i += 1;
                let mut e = self.elem(&k, offset);
                let nc = self.name_class(k == "attribute")?;
                e.children.push(nc);
                self.braced_pattern(&mut e)?;
                Ok(e)
            }
            Tok::Ident(k, false) if k == "list" || k == "mixed" => {
                self.i += 1;
                let mut e = self.elem(&k, offset);
                self.braced_pattern(&mut e)?;
                Ok(e)
            }
            Tok::Ident(k, false) if k == "empty" || k == "text" || k == "notAllowed" => {
                self.i += 1;
                Ok(self.elem(&k, offset))
            }
            Tok::Ident(k, false) if k == "parent" => {
                self.i += 1;
                let n = self.ident_or_keyword()?;
                let mut e = self.elem("parentRef", offset);
                e.attrs.push((String::new(), "name".into(), n));
                Ok(e)
            }
            Tok::Ident(k, false) if k == "external" => {
                self.i += 1;
                let mut e = self.elem("externalRef", offset);
                let href = self.literal()?;
                e.attrs.push((String::new(), "href".into(), href));
                self.inherit(&mut e)?;
                Ok(e)
            }
            Tok::Ident(k, false) if k == "grammar" => {
                self.i += 1;
                let mut g = self.elem("grammar", offset);
                self.expect("{")?;
                self.grammar_content(&mut g, true)?;
                self.expect("}")?;
                Ok(g)
            }
            Tok::Ident(k, false) if k == "string" || k == "token" => {
                self.i += 1;
                self.datatype(String::new(), k, offset)
            }
            Tok::CName(prefix, local) => {
                self.i += 1;
                let lib = self
                    .datatypes
                    .iter()
                    .rev()
                    .find(|(p, _)| *p == prefix)
                    .map(|(_, u)| u.clone())
                    .ok_or_else(|| {
                        self.err(format!("datatypes prefix '{prefix}' is not declared"))
                    })?;
                self.datatype(lib, local, offset)
            }
            Tok::Literal(_) => {
                let v = self.literal()?;
                let mut e = self.elem("value", offset);
                e.text = v;
                Ok(e)
            }
            Tok::Ident(n, escaped) => {
                if !escaped && KEYWORDS.contains(&n.as_str()) {
                    return Err(self.err(format!("'{n}' cannot start a pattern")));
                }
                self.i += 1;
                let mut e = self.elem("ref", offset);
                e.attrs.push((String::new(), "name".into(), n));
                Ok(e)
            }
            _ => Err(self.err("a pattern expected")),
        }
    }

    fn datatype(&mut self, lib: String, ty: String, offset: u64) -> Result<Elem, SchemaError> {
        if matches!(self.peek(), Some(Tok::Literal(_))) {
            let v = self.literal()?;
            let mut e = self.elem("value", offset);
            e.attrs.push((String::new(), "datatypeLibrary".into(), lib));
            e.attrs.push((String::new(), "type".into(), ty));
            e.text = v;
            return Ok(e);
        }
        let mut e = self.elem("data", offset);
        e.attrs.push((String::new(), "datatypeLibrary".into(), lib));
        e.attrs.push((String::new(), "type".into(), ty));
        if self.eat("{") {
            while !self.eat("}") {
                self.skip_annotations()?;
                let off = self.offset();
                let name = self.ident_or_keyword()?;
                self.expect("=")?;
                let value = self.literal()?;
                let mut p = self.elem("param", off);
                p.attrs.push((String::new(), "name".into(), name));
                p.text = value;
                e.children.push(p);
            }
        }
        if self.eat("-") {
            let off = self.offset();
            let mut x = self.elem("except", off);
            x.children.push(self.primary()?);
            e.children.push(x);
        }
        Ok(e)
    }

    fn name_class(&mut self, attribute: bool) -> Result<Elem, SchemaError> {
        self.nest()?;
        let offset = self.offset();
        let first = self.name_class_primary(attribute)?;
        let r = if self.is_punct("|") {
            let mut c = self.elem("choice", offset);
            c.children.push(first);
            while self.eat("|") {
                c.children.push(self.name_class_primary(attribute)?);
            }
            c
        } else {
            first
        };
        self.depth -= 1;
        Ok(r)
    }

    fn name_class_primary(&mut self, attribute: bool) -> Result<Elem, SchemaError> {
        self.skip_annotations()?;
        let offset = self.offset();
        let tok = self
            .peek()
            .cloned()
            .ok_or_else(|| self.err("a name class expected"))?;
        let r = match tok {
            Tok::Punct("(") => {
                self.i += 1;
                let n = self.name_class(attribute)?;
                self.expect(")")?;
                n
            }
            Tok::Punct("*") => {
                self.i += 1;
                let mut e = self.elem("anyName", offset);
                self.except_nc(&mut e, attribute)?;
                e
            }
            Tok::NsStar(prefix) => {
                self.i += 1;
                let mut e = self.elem("nsName", offset);
                let ns = self.prefix_uri(&prefix)?;
                e.attrs.push((String::new(), "ns".into(), ns));
                self.except_nc(&mut e, attribute)?;
                e
            }
            Tok::CName(prefix, local) => {
                self.i += 1;
                let mut e = self.elem("name", offset);
                let ns = self.prefix_uri(&prefix)?;
                e.attrs.push((String::new(), "ns".into(), ns));
                e.text = local;
                e
            }
            Tok::Ident(n, _) => {
                self.i += 1;
                let mut e = self.elem("name", offset);
                if attribute {
                    e.attrs.push((String::new(), "ns".into(), String::new()));
                } else if let Some(d) = &self.default_ns {
                    e.attrs.push((String::new(), "ns".into(), d.clone()));
                }
                e.text = n;
                e
            }
            _ => return Err(self.err("a name class expected")),
        };
        self.skip_follow()?;
        Ok(r)
    }

    fn except_nc(&mut self, e: &mut Elem, attribute: bool) -> Result<(), SchemaError> {
        if self.eat("-") {
            let off = self.offset();
            let mut x = self.elem("except", off);
            x.children.push(self.name_class_primary(attribute)?);
            e.children.push(x);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(e: &Elem, out: &mut Vec<String>) {
        out.push(e.local.clone());
        for c in &e.children {
            names(c, out);
        }
    }

    #[test]
    fn translates_to_the_xml_syntax() {
        let e = parse(
            br#"default namespace = "urn:n"
                start = element a { attribute b { xsd:int { minInclusive = "1" } }?, c* }
                c |= element c { text }"#,
            "t.rnc",
        )
        .unwrap();
        let mut v = Vec::new();
        names(&e, &mut v);
        assert_eq!(
            v,
            [
                "grammar",
                "start",
                "element",
                "name",
                "group",
                "optional",
                "attribute",
                "name",
                "data",
                "param",
                "zeroOrMore",
                "ref",
                "define",
                "element",
                "name",
                "text"
            ]
        );
        assert_eq!(e.attr("ns"), Some("urn:n"));
    }

    #[test]
    fn refuses_mixed_operators_and_bad_literals() {
        assert!(parse(b"element a { b, c | d }", "t").is_err());
        assert!(parse(b"element a { \"x }", "t").is_err());
        assert!(parse(b"element a { \"x\\x{}\" }", "t").is_err());
        assert!(parse(b"element a { q:x }", "t").is_err());
    }
}
