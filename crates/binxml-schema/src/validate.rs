//! Validation of a document's event stream against a [`Schema`] (XML Schema 1.0 Part 1,
//! section 3 validation rules): element and attribute declarations, content models, simple
//! values, xsi:type and xsi:nil, ID uniqueness and IDREF targets.
//!
//! The validator follows the events as they come (any decoder's stream), so a document of any
//! size is checked in one pass and in the memory of its deepest path. It keeps going after an
//! error: an element that does not fit is reported and its content skipped, so one run reports
//! every independent error (up to [`Validator::MAX_ERRORS`]).
//!
//! Not checked: identity constraints (`key`, `keyref`, `unique`), and the schema-for-schemas
//! rules of Part 1 that need a derivation to be a valid restriction of its base's content.

use std::collections::HashSet;
use std::fmt;

use binxml_core::{Decoder, Event};

use crate::automaton::Step;
use crate::datatypes::Builtin;
use crate::model::*;
use crate::simple;

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// One way a document breaks its schema: where (byte offset of the event, and the element
/// path) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Byte offset in the input of the event at fault.
    pub offset: u64,
    /// Line and column (1-based), when the caller knows the input's text.
    pub line_col: Option<(u64, u64)>,
    /// The path of the element at fault (`/Invoice/LineItem/Price`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col {
            Some((l, c)) => write!(f, "{l}:{c}: ")?,
            None => write!(f, "byte {}: ", self.offset)?,
        }
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// How an open element is checked.
enum Check {
    /// Not validated (a skip wildcard, or below an element already reported).
    Skip,
    /// Validated against a type.
    Type {
        type_def: TypeId,
        decl: Option<ElemId>,
        /// The content model's state (element content).
        state: u32,
        nil: bool,
        /// For an `<all>` content model: how often each member occurred.
        all_seen: Vec<u32>,
    },
}

struct Frame {
    local: String,
    check: Check,
    text: String,
    /// Offset of the start tag.
    offset: u64,
}

/// A start tag whose namespace declarations and attributes are still coming.
struct Opening {
    ns: String,
    local: String,
    offset: u64,
    attributes: Vec<(String, String, String, u64)>,
}

/// Checks one document's events against a schema.
pub struct Validator<'s> {
    schema: &'s Schema,
    stack: Vec<Frame>,
    opening: Option<Opening>,
    /// In-scope namespace declarations, with the depth that declared each.
    namespaces: Vec<(String, String, usize)>,
    errors: Vec<Invalid>,
    dropped: usize,
    ids: HashSet<String>,
    idrefs: Vec<(String, u64, String)>,
    saw_root: bool,
}

impl<'s> Validator<'s> {
    /// The most errors kept; later ones are counted, not stored.
    pub const MAX_ERRORS: usize = 1000;

    /// A validator for one document.
    pub fn new(schema: &'s Schema) -> Self {
        Validator {
            schema,
            stack: Vec::new(),
            opening: None,
            namespaces: Vec::new(),
            errors: Vec::new(),
            dropped: 0,
            ids: HashSet::new(),
            idrefs: Vec::new(),
            saw_root: false,
        }
    }

    /// Validates the document a decoder produces; the errors are in document order. The
    /// decoder's own errors (malformed input) are returned as such.
    pub fn validate<'a, D: Decoder<'a>>(
        schema: &'s Schema,
        decoder: &mut D,
    ) -> binxml_core::Result<Vec<Invalid>> {
        let mut v = Validator::new(schema);
        while let Some(ev) = decoder.next_event()? {
            v.event(&ev, decoder.offset());
        }
        Ok(v.finish())
    }

    /// Takes the next event of the document; `offset` is where it starts in the input.
    pub fn event(&mut self, event: &Event<'_>, offset: u64) {
        match event {
            Event::Namespace { prefix, uri } => {
                let depth = self.stack.len() + 1;
                self.namespaces
                    .push((prefix.to_string(), uri.to_string(), depth));
            }
            Event::Attribute { name, value } => {
                if let Some(o) = &mut self.opening {
                    o.attributes.push((
                        name.namespace.to_string(),
                        name.local.to_string(),
                        value.to_string(),
                        offset,
                    ));
                }
            }
            Event::StartElement(name) => {
                self.open();
                self.opening = Some(Opening {
                    ns: name.namespace.to_string(),
                    local: name.local.to_string(),
                    offset,
                    attributes: Vec::new(),
                });
            }
            Event::EndElement => {
                self.open();
                self.close(offset);
            }
            Event::Characters { text, .. } => {
                self.open();
                self.characters(text, offset);
            }
            Event::Typed(t) => {
                self.open();
                let mut s = String::new();
                t.write_lexical(&mut s);
                self.characters(&s, offset);
            }
            Event::EndDocument => {
                self.open();
                if !self.saw_root {
                    self.report(offset, "the document has no root element".into());
                }
            }
            _ => self.open(),
        }
    }

    /// The errors found, once the whole document has been seen (IDREFs without their ID are
    /// reported last).
    pub fn finish(mut self) -> Vec<Invalid> {
        let refs = std::mem::take(&mut self.idrefs);
        for (id, offset, path) in refs {
            if !self.ids.contains(&id) {
                self.push(Invalid {
                    offset,
                    line_col: None,
                    path,
                    message: format!("IDREF '{id}' names no ID in the document"),
                });
            }
        }
        if self.dropped > 0 {
            let offset = self.errors.last().map_or(0, |e| e.offset);
            self.errors.push(Invalid {
                offset,
                line_col: None,
                path: String::new(),
                message: format!("{} more errors not listed", self.dropped),
            });
        }
        self.errors
    }

    fn path(&self) -> String {
        let mut p = String::new();
        for f in &self.stack {
            p.push('/');
            p.push_str(&f.local);
        }
        if p.is_empty() {
            p.push('/');
        }
        p
    }

    fn push(&mut self, e: Invalid) {
        if self.errors.len() < Self::MAX_ERRORS {
            self.errors.push(e);
        } else {
            self.dropped += 1;
        }
    }

    fn report(&mut self, offset: u64, message: String) {
        let path = self.path();
        self.push(Invalid {
            offset,
            line_col: None,
            path,
            message,
        });
    }

    fn resolve_prefix(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some(binxml_core::XML_NS);
        }
        match self.namespaces.iter().rev().find(|(p, _, _)| p == prefix) {
            Some((_, uri, _)) => Some(uri),
            None if prefix.is_empty() => Some(""),
            None => None,
        }
    }

    fn name_list(&self, state: &crate::automaton::State, accepting_end: bool) -> String {
        let mut names: Vec<String> = state
            .elements
            .iter()
            .map(|(e, _)| self.schema.element(*e).name.to_string())
            .collect();
        for (w, _) in &state.wildcards {
            names.push(match &w.namespaces {
                NamespaceConstraint::Any => "any element".into(),
                NamespaceConstraint::Not(ns) => format!("any element not in '{ns}'"),
                NamespaceConstraint::Set(s) => format!("any element in {s:?}"),
            });
        }
        if accepting_end {
            names.push("the end of the element".into());
        }
        if names.is_empty() {
            return "nothing".into();
        }
        names.join(", ")
    }

    /// Handles the pending start tag, now that its attributes are known.
    fn open(&mut self) {
        let Some(o) = self.opening.take() else { return };
        let schema = self.schema;
        let mut frame = Frame {
            local: o.local.clone(),
            check: Check::Skip,
            text: String::new(),
            offset: o.offset,
        };
        let decl = match self.stack.last_mut() {
            None => {
                self.saw_root = true;
                match schema.global_element(&o.ns, &o.local) {
                    Some(e) => Some(e),
                    None => {
                        self.stack.push(frame);
                        let msg = format!(
                            "the root element {} is not declared as a global element",
                            Name::new(&o.ns, &o.local)
                        );
                        self.report(o.offset, msg);
                        return;
                    }
                }
            }
            Some(parent) => match &mut parent.check {
                Check::Skip => {
                    self.stack.push(frame);
                    return;
                }
                Check::Type {
                    type_def,
                    state,
                    nil,
                    all_seen,
                    ..
                } => {
                    let model = schema.content_model(*type_def);
                    let msg = if *nil {
                        Some("an element with xsi:nil=\"true\" has no content".to_string())
                    } else if let Some(model) = model {
                        match model.step(schema, *state, &o.ns, &o.local) {
                            Some(Step::Element(e, to)) => {
                                *state = to;
                                if let Some(all) = &model.all
                                    && let Some(i) = all
                                        .iter()
                                        .position(|(m, _)| schema.substitutes(*m).contains(&e))
                                {
                                    all_seen.resize(all.len(), 0);
                                    all_seen[i] += 1;
                                }
                                frame.check = Check::Type {
                                    type_def: schema.element(e).type_def,
                                    decl: Some(e),
                                    state: 0,
                                    nil: false,
                                    all_seen: Vec::new(),
                                };
                                None
                            }
                            Some(Step::Wildcard(w, to)) => {
                                *state = to;
                                match (w.process, schema.global_element(&o.ns, &o.local)) {
                                    (ProcessContents::Skip, _) => {}
                                    (_, Some(e)) => {
                                        frame.check = Check::Type {
                                            type_def: schema.element(e).type_def,
                                            decl: Some(e),
                                            state: 0,
                                            nil: false,
                                            all_seen: Vec::new(),
                                        }
                                    }
                                    (ProcessContents::Lax, None) => {
                                        frame.check = Check::Type {
                                            type_def: ANY_TYPE,
                                            decl: None,
                                            state: 0,
                                            nil: false,
                                            all_seen: Vec::new(),
                                        }
                                    }
                                    (ProcessContents::Strict, None) => {
                                        let has_type = o
                                            .attributes
                                            .iter()
                                            .any(|a| a.0 == XSI && a.1 == "type");
                                        if has_type {
                                            frame.check = Check::Type {
                                                type_def: ANY_TYPE,
                                                decl: None,
                                                state: 0,
                                                nil: false,
                                                all_seen: Vec::new(),
                                            }
                                        } else {
                                            self.stack.push(frame);
                                            let msg = format!(
                                                "element {} matches a strict wildcard but has no global declaration",
                                                Name::new(&o.ns, &o.local)
                                            );
                                            self.report(o.offset, msg);
                                            return;
                                        }
                                    }
                                }
                                None
                            }
                            None => {
                                let s = &model.states[*state as usize];
                                Some(format!(
                                    "element {} is not allowed here; expected {}",
                                    Name::new(&o.ns, &o.local),
                                    self.name_list(s, s.accepting)
                                ))
                            }
                        }
                    } else {
                        Some(format!(
                            "element {} is not allowed: the type of the parent has {} content",
                            Name::new(&o.ns, &o.local),
                            if schema.simple_content(*type_def).is_some() {
                                "simple"
                            } else {
                                "empty"
                            }
                        ))
                    };
                    if let Some(msg) = msg {
                        self.stack.push(frame);
                        let path = self.path();
                        self.push(Invalid {
                            offset: o.offset,
                            line_col: None,
                            path,
                            message: msg,
                        });
                        return;
                    }
                    match &frame.check {
                        Check::Type { decl, .. } => *decl,
                        Check::Skip => {
                            self.stack.push(frame);
                            return;
                        }
                    }
                }
            },
        };
        if let (Some(e), Check::Skip) = (decl, &frame.check) {
            frame.check = Check::Type {
                type_def: schema.element(e).type_def,
                decl: Some(e),
                state: 0,
                nil: false,
                all_seen: Vec::new(),
            };
        }
        self.stack.push(frame);
        self.start_checks(&o);
    }

    /// xsi:type, xsi:nil, abstract declarations and types, and the attributes of the element
    /// just pushed.
    fn start_checks(&mut self, o: &Opening) {
        let schema = self.schema;
        let Some(Frame {
            check: Check::Type { type_def, decl, .. },
            ..
        }) = self.stack.last()
        else {
            return;
        };
        let (mut type_def, decl) = (*type_def, *decl);
        if let Some(e) = decl
            && schema.element(e).abstract_
        {
            self.report(
                o.offset,
                format!("element {} is abstract", schema.element(e).name),
            );
        }
        let mut nil = false;
        for (ns, local, value, offset) in &o.attributes {
            if ns != XSI {
                continue;
            }
            match local.as_str() {
                "type" => {
                    match self.resolve_qname(value) {
                        Some(name) => {
                            match schema.global_type(&name.ns, &name.local) {
                                Some(t) => {
                                    let blocked =
                                        decl.map(|e| schema.element(e).block).unwrap_or_default();
                                    let type_block = match schema.type_def(type_def) {
                                        TypeDef::Complex(c) => c.block,
                                        TypeDef::Simple(_) => Derivations::default(),
                                    };
                                    match schema.derivation_methods(t, type_def) {
                                None => self.report(
                                    *offset,
                                    format!("xsi:type {name} is not derived from the declared type"),
                                ),
                                Some(m)
                                    if (m.extension && (blocked.extension || type_block.extension))
                                        || (m.restriction
                                            && (blocked.restriction || type_block.restriction)) =>
                                {
                                    self.report(*offset, format!("xsi:type {name}: the derivation is blocked"))
                                }
                                Some(_) => type_def = t,
                            }
                                }
                                None => self.report(
                                    *offset,
                                    format!("xsi:type {name} is not a declared type"),
                                ),
                            }
                        }
                        None => self.report(
                            *offset,
                            format!("xsi:type '{value}' has an undeclared prefix"),
                        ),
                    }
                }
                "nil" => match value.trim() {
                    "true" | "1" => {
                        if decl.is_some_and(|e| schema.element(e).nillable) {
                            nil = true;
                        } else {
                            self.report(
                                *offset,
                                "xsi:nil on an element that is not nillable".into(),
                            );
                        }
                    }
                    "false" | "0" => {}
                    v => self.report(*offset, format!("xsi:nil '{v}' is not a boolean")),
                },
                "schemaLocation" | "noNamespaceSchemaLocation" => {}
                other => self.report(
                    *offset,
                    format!("xsi:{other} is not an attribute of the xsi namespace"),
                ),
            }
        }
        if nil
            && let Some(e) = decl
            && matches!(schema.element(e).value, Some(ValueConstraint::Fixed(_)))
        {
            self.report(o.offset, "xsi:nil on an element with a fixed value".into());
        }
        if let TypeDef::Complex(c) = schema.type_def(type_def)
            && c.abstract_
        {
            let name = c
                .name
                .as_ref()
                .map_or("an anonymous type".into(), |n| n.to_string());
            self.report(
                o.offset,
                format!("the type {name} is abstract (use xsi:type)"),
            );
        }
        if let Some(Frame {
            check:
                Check::Type {
                    type_def: t,
                    nil: n,
                    ..
                },
            ..
        }) = self.stack.last_mut()
        {
            *t = type_def;
            *n = nil;
        }
        self.attributes(o, type_def);
    }

    fn attributes(&mut self, o: &Opening, type_def: TypeId) {
        let schema = self.schema;
        let (uses, wildcard): (&[AttributeUse], Option<&Wildcard>) = match schema.type_def(type_def)
        {
            TypeDef::Complex(c) => (&c.attributes, c.attribute_wildcard.as_ref()),
            TypeDef::Simple(_) => (&[], None),
        };
        for (ns, local, value, offset) in &o.attributes {
            if ns == XSI {
                continue;
            }
            let found = uses.iter().find(|u| {
                let n = &schema.attribute(u.decl).name;
                n.ns == *ns && n.local == *local
            });
            let (attr_type, fixed) = match found {
                Some(u) => {
                    let d = schema.attribute(u.decl);
                    let fixed = match (&u.value, &d.value) {
                        (Some(ValueConstraint::Fixed(f)), _)
                        | (None, Some(ValueConstraint::Fixed(f))) => Some(f),
                        _ => None,
                    };
                    (d.type_def, fixed)
                }
                None => match wildcard {
                    Some(w) if w.namespaces.allows(ns) => {
                        match (w.process, schema.global_attribute(ns, local)) {
                            (ProcessContents::Skip, _) | (ProcessContents::Lax, None) => continue,
                            (_, Some(a)) => (schema.attribute(a).type_def, None),
                            (ProcessContents::Strict, None) => {
                                self.report(
                                *offset,
                                format!("attribute {} matches a strict wildcard but has no global declaration", Name::new(ns, local)),
                            );
                                continue;
                            }
                        }
                    }
                    _ => {
                        self.report(
                            *offset,
                            format!("attribute {} is not allowed", Name::new(ns, local)),
                        );
                        continue;
                    }
                },
            };
            self.simple_value(
                attr_type,
                value,
                *offset,
                &format!("attribute {}", Name::new(ns, local)),
                fixed.map(String::as_str),
            );
        }
        for u in uses.iter().filter(|u| u.required) {
            let n = &schema.attribute(u.decl).name;
            if !o
                .attributes
                .iter()
                .any(|(ns, local, _, _)| *ns == n.ns && *local == n.local)
            {
                self.report(o.offset, format!("the required attribute {n} is missing"));
            }
        }
    }

    fn resolve_qname(&self, value: &str) -> Option<Name> {
        let value = value.trim();
        let (prefix, local) = value.split_once(':').unwrap_or(("", value));
        Some(Name::new(self.resolve_prefix(prefix)?, local))
    }

    /// Checks a simple value; records IDs and IDREFs.
    fn simple_value(
        &mut self,
        t: TypeId,
        value: &str,
        offset: u64,
        what: &str,
        fixed: Option<&str>,
    ) {
        let schema = self.schema;
        let resolve = |p: &str| self.resolve_prefix(p).map(str::to_string);
        match simple::check(schema, t, value, &resolve) {
            Err(msg) => self.report(offset, format!("{what}: {msg}")),
            Ok(()) => {
                if let Some(f) = fixed
                    && !simple::equal(schema, t, value, f, &resolve)
                {
                    self.report(
                        offset,
                        format!("{what}: '{value}' differs from the fixed value '{f}'"),
                    );
                }
                self.ids_of(t, value, offset);
            }
        }
    }

    fn ids_of(&mut self, t: TypeId, value: &str, offset: u64) {
        let TypeDef::Simple(s) = self.schema.type_def(t) else {
            return;
        };
        match (&s.variety, s.builtin) {
            (Variety::Atomic(_), Builtin::Id) => {
                let id = value.trim().to_string();
                if !self.ids.insert(id.clone()) {
                    self.report(offset, format!("the ID '{id}' is used twice"));
                }
            }
            (Variety::Atomic(_), Builtin::IdRef) => {
                let path = self.path();
                self.idrefs.push((value.trim().to_string(), offset, path));
            }
            (Variety::List(item), _) => {
                if let TypeDef::Simple(i) = self.schema.type_def(*item)
                    && i.builtin == Builtin::IdRef
                {
                    let path = self.path();
                    for v in value.split_ascii_whitespace() {
                        self.idrefs.push((v.to_string(), offset, path.clone()));
                    }
                }
            }
            _ => {}
        }
    }

    fn characters(&mut self, text: &str, offset: u64) {
        let schema = self.schema;
        let Some(frame) = self.stack.last_mut() else {
            return;
        };
        let Check::Type { type_def, nil, .. } = &frame.check else {
            return;
        };
        let msg = if *nil {
            (!text.is_empty())
                .then(|| "an element with xsi:nil=\"true\" has no content".to_string())
        } else if schema.simple_content(*type_def).is_some() {
            frame.text.push_str(text);
            None
        } else {
            match schema.type_def(*type_def) {
                TypeDef::Complex(ComplexType {
                    content: Content::Elements { mixed: true, .. },
                    ..
                }) => None,
                TypeDef::Complex(ComplexType {
                    content: Content::Elements { .. },
                    ..
                }) => (!text.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r')))
                    .then(|| "text is not allowed in element-only content".to_string()),
                _ => (!text.is_empty()).then(|| "the element's type has empty content".to_string()),
            }
        };
        if let Some(m) = msg {
            self.report(offset, m);
        }
    }

    fn close(&mut self, offset: u64) {
        let schema = self.schema;
        let Some(frame) = self.stack.last() else {
            return;
        };
        let (t, decl, state, nil, all_seen) = match &frame.check {
            Check::Skip => {
                self.pop_frame();
                return;
            }
            Check::Type {
                type_def,
                decl,
                state,
                nil,
                all_seen,
            } => (*type_def, *decl, *state, *nil, all_seen.clone()),
        };
        if !nil {
            if let Some(model) = schema.content_model(t) {
                let s = &model.states[state as usize];
                if !s.accepting {
                    let msg = format!(
                        "the content ends too early; expected {}",
                        self.name_list(s, false)
                    );
                    self.report(offset, msg);
                } else if let Some(all) = &model.all {
                    for (i, (m, required)) in all.iter().enumerate() {
                        let n = all_seen.get(i).copied().unwrap_or(0);
                        let name = &schema.element(*m).name;
                        if n > 1 {
                            self.report(
                                offset,
                                format!("element {name} occurs {n} times in an <all> group"),
                            );
                        } else if n == 0 && *required {
                            self.report(offset, format!("the required element {name} is missing"));
                        }
                    }
                }
            } else if let Some(st) = schema.simple_content(t) {
                let text = self
                    .stack
                    .last_mut()
                    .map(|f| std::mem::take(&mut f.text))
                    .unwrap_or_default();
                let start = self.stack.last().map_or(offset, |f| f.offset);
                let value = decl.and_then(|e| schema.element(e).value.as_ref());
                let (text, fixed) = match value {
                    Some(ValueConstraint::Default(d)) if text.is_empty() => (d.clone(), None),
                    Some(ValueConstraint::Fixed(f)) if text.is_empty() => (f.clone(), None),
                    Some(ValueConstraint::Fixed(f)) => (text, Some(f.as_str())),
                    _ => (text, None),
                };
                self.simple_value(st, &text, start, "the element's value", fixed);
            }
        }
        self.pop_frame();
    }

    fn pop_frame(&mut self) {
        let depth = self.stack.len();
        while self.namespaces.last().is_some_and(|n| n.2 >= depth) {
            self.namespaces.pop();
        }
        self.stack.pop();
    }
}
