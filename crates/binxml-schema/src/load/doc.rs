//! A schema document read into a small element tree: what the loader walks.
//!
//! Only elements, attributes, character data and namespace scopes are kept (comments, PIs and
//! the DOCTYPE of a schema document carry nothing for the components). Each element keeps its
//! byte offset so that errors point at the declaration they are about, and its namespace scope,
//! because QName-valued attributes (`type="xs:string"`) are resolved against it.

use std::rc::Rc;

use binxml_core::{Decoder, Event, Limits};
use binxml_xml::XmlDecoder;

pub use crate::XS;

/// The namespace bindings in scope at an element: its own declarations, then its parent's scope.
#[derive(Debug, Default)]
pub struct Scope {
    parent: Option<Rc<Scope>>,
    decls: Vec<(String, String)>,
}

impl Scope {
    /// A scope of its own declarations (prefix, namespace), below `parent`.
    pub fn with(parent: Option<Rc<Scope>>, decls: Vec<(String, String)>) -> Scope {
        Scope { parent, decls }
    }

    /// The namespace bound to `prefix` (`""`: the default namespace, `None` when unbound;
    /// an undeclared default namespace is `Some("")`).
    pub fn resolve(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some("http://www.w3.org/XML/1998/namespace");
        }
        let mut scope = Some(self);
        while let Some(s) = scope {
            if let Some((_, uri)) = s.decls.iter().rev().find(|(p, _)| p == prefix) {
                return Some(uri);
            }
            scope = s.parent.as_deref();
        }
        if prefix.is_empty() { Some("") } else { None }
    }
}

/// An element of a schema document.
#[derive(Debug)]
pub struct Elem {
    /// Namespace name.
    pub ns: String,
    /// Local name.
    pub local: String,
    /// Attributes: (namespace, local name, value).
    pub attrs: Vec<(String, String, String)>,
    /// Child elements, in document order.
    pub children: Vec<Elem>,
    /// The character data directly inside the element.
    pub text: String,
    /// Byte offset of the start tag in the document.
    pub offset: u64,
    /// The namespace bindings in scope.
    pub scope: Rc<Scope>,
}

impl Elem {
    /// The value of the unqualified attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(ns, local, _)| ns.is_empty() && local == name)
            .map(|(_, _, v)| v.as_str())
    }

    /// Whether this is the XML Schema element `local`.
    pub fn is(&self, local: &str) -> bool {
        self.ns == XS && self.local == local
    }

    /// The child elements in the XML Schema namespace, `annotation` left out.
    pub fn xs_children(&self) -> impl Iterator<Item = &Elem> {
        self.children
            .iter()
            .filter(|c| c.ns == XS && c.local != "annotation")
    }

    /// The first XML Schema child named `local`.
    pub fn child(&self, local: &str) -> Option<&Elem> {
        self.xs_children().find(|c| c.local == local)
    }
}

/// Reads a schema document. The XML reader fetches nothing external and bounds entity
/// expansion; `limits` bounds depth and sizes as for any decoded document.
pub fn read(bytes: &[u8], limits: Limits) -> binxml_core::Result<Elem> {
    let utf8 = binxml_xml::to_utf8(bytes)?;
    let mut dec = XmlDecoder::with_limits(&utf8, limits);
    let mut stack: Vec<Elem> = Vec::new();
    let mut root = None;
    while let Some(ev) = dec.next_event()? {
        match ev {
            Event::StartElement(name) => {
                let scope = stack.last().map(|p| p.scope.clone()).unwrap_or_default();
                stack.push(Elem {
                    ns: name.namespace.into_owned(),
                    local: name.local.into_owned(),
                    attrs: Vec::new(),
                    children: Vec::new(),
                    text: String::new(),
                    offset: dec.offset(),
                    scope,
                });
            }
            Event::Namespace { prefix, uri } => {
                if let Some(top) = stack.last_mut() {
                    // The first declaration on an element opens its own scope.
                    let own = Rc::get_mut(&mut top.scope).is_some_and(|s| !s.decls.is_empty());
                    if !own {
                        let parent = top.scope.clone();
                        top.scope = Rc::new(Scope {
                            parent: Some(parent),
                            decls: Vec::new(),
                        });
                    }
                    if let Some(s) = Rc::get_mut(&mut top.scope) {
                        s.decls.push((prefix.into_owned(), uri.into_owned()));
                    }
                }
            }
            Event::Attribute { name, value } => {
                if let Some(top) = stack.last_mut() {
                    top.attrs.push((
                        name.namespace.into_owned(),
                        name.local.into_owned(),
                        value.into_owned(),
                    ));
                }
            }
            Event::Characters { text, .. } => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&text);
                }
            }
            Event::EndElement => {
                if let Some(done) = stack.pop() {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => root = Some(done),
                    }
                }
            }
            _ => {}
        }
    }
    root.ok_or_else(|| {
        binxml_core::Error::malformed(binxml_core::Format::Xml, 0, "no root element")
    })
}

impl crate::datatypes::NamespaceResolver for Scope {
    fn resolve(&self, prefix: &str) -> Option<std::borrow::Cow<'_, str>> {
        Scope::resolve(self, prefix).map(std::borrow::Cow::Borrowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_resolve_prefixes() {
        let doc = read(
            br#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:a">
                 <xs:element name="e" type="t"/>
                 <xs:element xmlns:b="urn:b" xmlns="" name="f"/>
               </xs:schema>"#,
            Limits::default(),
        )
        .unwrap();
        assert!(doc.is("schema"));
        let e = &doc.children[0];
        assert_eq!(e.scope.resolve(""), Some("urn:a"));
        assert_eq!(e.scope.resolve("xs"), Some(XS));
        let f = &doc.children[1];
        assert_eq!(f.scope.resolve(""), Some(""));
        assert_eq!(f.scope.resolve("b"), Some("urn:b"));
        assert_eq!(f.scope.resolve("xs"), Some(XS));
        assert_eq!(f.scope.resolve("c"), None);
    }
}
