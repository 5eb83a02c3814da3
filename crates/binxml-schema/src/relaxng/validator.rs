//! Validation of a document's events against a RELAX NG grammar, by derivatives
//! (`derive.rs`). Text is handled as section 6.2.7 of the specification and Clark's algorithm
//! say: white-space-only text between child elements is ignored, and an element whose whole
//! content is one text chunk (or nothing) matches either that text or, when it is white space,
//! nothing. Comments and processing instructions are not part of the data model; text on both
//! sides of them is one chunk.
//!
//! The validator keeps going after an error: an element that is not allowed is reported and
//! skipped, an attribute that is not allowed is reported and ignored, an element whose content
//! is incomplete is reported and counts as matched, so one run reports the independent errors.

use std::borrow::Cow;

use binxml_core::{Decoder, Event};

use super::RelaxNg;
use super::derive::{Deriver, is_white};
use super::pattern::*;
use crate::datatypes::NamespaceResolver;
use crate::validate::Invalid;

struct Frame {
    local: String,
    /// The element was not allowed (or broke its start tag): its subtree is not checked.
    skip: bool,
    text: String,
    text_offset: u64,
    had_child: bool,
}

struct Opening {
    ns: String,
    local: String,
    offset: u64,
    attributes: Vec<(String, String, String, u64)>,
}

/// Checks one document's events against a RELAX NG schema.
pub struct RngValidator<'g> {
    d: Deriver,
    _schema: std::marker::PhantomData<&'g RelaxNg>,
    cur: P,
    stack: Vec<Frame>,
    opening: Option<Opening>,
    namespaces: Vec<(String, String, usize)>,
    errors: Vec<Invalid>,
    dropped: usize,
    saw_root: bool,
    /// The arena overflowed: nothing more is checked.
    stopped: bool,
}

struct Scopes<'a>(&'a [(String, String, usize)]);

impl NamespaceResolver for Scopes<'_> {
    fn resolve(&self, prefix: &str) -> Option<Cow<'_, str>> {
        self.0
            .iter()
            .rev()
            .find(|(p, _, _)| p == prefix)
            .map(|(_, u, _)| Cow::Borrowed(u.as_str()))
            .filter(|u| !(prefix.is_empty() && u.is_empty()))
    }
}

impl<'g> RngValidator<'g> {
    /// The most errors kept; later ones are counted, not stored.
    pub const MAX_ERRORS: usize = 1000;

    /// A validator for one document.
    pub fn new(schema: &'g RelaxNg) -> Self {
        let g = schema.grammar.clone();
        RngValidator {
            _schema: std::marker::PhantomData,
            cur: g.start,
            d: Deriver::new(g, schema.max_validation_patterns),
            stack: Vec::new(),
            opening: None,
            namespaces: Vec::new(),
            errors: Vec::new(),
            dropped: 0,
            saw_root: false,
            stopped: false,
        }
    }

    /// Validates the document a decoder produces; the errors are in document order.
    pub fn validate<'a, D: Decoder<'a>>(
        schema: &'g RelaxNg,
        decoder: &mut D,
    ) -> binxml_core::Result<Vec<Invalid>> {
        let mut v = RngValidator::new(schema);
        while let Some(ev) = decoder.next_event()? {
            v.event(&ev, decoder.offset());
        }
        Ok(v.finish())
    }

    /// Takes the next event of the document; `offset` is where it starts in the input.
    pub fn event(&mut self, event: &Event<'_>, offset: u64) {
        if self.stopped {
            return;
        }
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
                self.flush_text();
                if let Some(top) = self.stack.last_mut() {
                    top.had_child = true;
                }
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
                self.characters(&t.lexical(), offset);
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

    /// The errors found.
    pub fn finish(mut self) -> Vec<Invalid> {
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
        let mut s = String::new();
        for f in &self.stack {
            s.push('/');
            s.push_str(&f.local);
        }
        if s.is_empty() {
            s.push('/');
        }
        s
    }

    fn report(&mut self, offset: u64, message: String) {
        if self.errors.len() >= Self::MAX_ERRORS {
            self.dropped += 1;
            return;
        }
        let path = self.path();
        self.errors.push(Invalid {
            offset,
            line_col: None,
            path,
            message,
        });
    }

    fn overflow(&mut self, offset: u64) {
        self.report(
            offset,
            "validation stopped: the schema and this document need more patterns than the limit"
                .into(),
        );
        self.stopped = true;
    }

    fn skipping(&self) -> bool {
        self.stack.last().is_some_and(|f| f.skip)
    }

    fn characters(&mut self, text: &str, offset: u64) {
        if let Some(top) = self.stack.last_mut() {
            if top.skip {
                return;
            }
            if top.text.is_empty() {
                top.text_offset = offset;
            }
            top.text.push_str(text);
        } else if !is_white(text) {
            self.report(offset, "text outside the root element".into());
        }
    }

    /// Text before a child element: white space is ignored, anything else must match.
    fn flush_text(&mut self) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if top.skip || top.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut top.text);
        let offset = top.text_offset;
        if is_white(&text) {
            return;
        }
        let r = Scopes(&self.namespaces);
        match self.d.text(self.cur, &text, &r) {
            Ok(NOT_ALLOWED) => {
                self.report(offset, format!("text {} is not allowed here", quote(&text)))
            }
            Ok(p) => self.cur = p,
            Err(_) => self.overflow(offset),
        }
    }

    /// Checks the start tag in progress once its attributes are all there.
    fn open(&mut self) {
        let Some(o) = self.opening.take() else { return };
        self.saw_root = true;
        if self.skipping() {
            self.push(o.local, true);
            return;
        }
        let opened = match self.d.start_tag_open(self.cur, &o.ns, &o.local) {
            Ok(p) => p,
            Err(_) => return self.overflow(o.offset),
        };
        if opened == NOT_ALLOWED {
            let expected = self.d.expected(self.cur, 8);
            let hint = if expected.is_empty() {
                String::new()
            } else {
                format!(" (expected: {})", expected.join(", "))
            };
            self.report(
                o.offset,
                format!(
                    "element '{}' is not allowed here{hint}",
                    show(&o.ns, &o.local)
                ),
            );
            self.push(o.local, true);
            return;
        }
        self.push(o.local.clone(), false);
        let mut p = opened;
        let mut bad_attribute = false;
        for (ns, local, value, offset) in &o.attributes {
            let r = Scopes(&self.namespaces);
            match self.d.attribute(p, ns, local, value, &r) {
                Ok(NOT_ALLOWED) => {
                    bad_attribute = true;
                    self.report(
                        *offset,
                        format!(
                            "attribute '{}' (value {}) is not allowed here",
                            show(ns, local),
                            quote(value)
                        ),
                    )
                }
                Ok(x) => p = x,
                Err(_) => return self.overflow(*offset),
            }
        }
        let closed = match self.d.start_tag_close(p) {
            Ok(NOT_ALLOWED) => {
                // A required attribute is missing (or was refused above: reported once); the
                // content is still checked.
                if !bad_attribute {
                    self.report(
                        o.offset,
                        format!("element '{}' lacks a required attribute", o.local),
                    );
                }
                self.d.start_tag_close_lenient(p)
            }
            r => r,
        };
        match closed {
            Ok(x) => self.cur = x,
            Err(_) => self.overflow(o.offset),
        }
    }

    fn push(&mut self, local: String, skip: bool) {
        self.stack.push(Frame {
            local,
            skip,
            text: String::new(),
            text_offset: 0,
            had_child: false,
        });
    }

    fn close(&mut self, offset: u64) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if top.skip {
            self.pop_frame();
            return;
        }
        let mut p = self.cur;
        if top.had_child {
            self.flush_text();
            p = self.cur;
        } else {
            let text = std::mem::take(&mut top.text);
            let toff = top.text_offset;
            let r = Scopes(&self.namespaces);
            let d = match self.d.text(p, &text, &r) {
                Ok(d) => d,
                Err(_) => return self.overflow(offset),
            };
            let d = if is_white(&text) {
                match self.d.arena.choice(p, d) {
                    Ok(x) => x,
                    Err(_) => return self.overflow(offset),
                }
            } else {
                d
            };
            if d == NOT_ALLOWED {
                // The element's text is its whole content: reported once, the element counts
                // as matched.
                self.report(toff, format!("text {} is not allowed here", quote(&text)));
                match self.d.after_rest(p) {
                    Ok(rest) => self.cur = rest,
                    Err(_) => return self.overflow(offset),
                }
                self.pop_frame();
                return;
            }
            p = d;
        }
        match self.d.end_tag(p) {
            Ok(NOT_ALLOWED) => {
                let expected = self.d.expected(p, 8);
                let hint = if expected.is_empty() {
                    String::new()
                } else {
                    format!(" (expected: {})", expected.join(", "))
                };
                self.report(
                    offset,
                    format!("the content of this element is incomplete{hint}"),
                );
                match self.d.after_rest(p) {
                    Ok(rest) => self.cur = rest,
                    Err(_) => return self.overflow(offset),
                }
            }
            Ok(x) => self.cur = x,
            Err(_) => return self.overflow(offset),
        }
        self.pop_frame();
    }

    fn pop_frame(&mut self) {
        let depth = self.stack.len();
        self.stack.pop();
        while self.namespaces.last().is_some_and(|n| n.2 >= depth) {
            self.namespaces.pop();
        }
    }
}

fn show(ns: &str, local: &str) -> String {
    if ns.is_empty() {
        local.to_string()
    } else {
        format!("{{{ns}}}{local}")
    }
}

fn quote(s: &str) -> String {
    let t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        format!("'{t}...'")
    } else {
        format!("'{t}'")
    }
}
