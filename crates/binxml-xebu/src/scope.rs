//! Namespace scope, kept by both sides so that prefixes are derived rather than written: Xebu
//! tokenizes namespace URIs, and the prefix of a name is the one the in-scope declarations give
//! its URI (see "Prefix derivation" in `docs/xebu.md`).

use binxml_core::hash::bytes_eq;

struct Binding<S> {
    prefix: S,
    uri: S,
    /// A later (inner) binding of the same prefix is in scope.
    shadowed: bool,
    /// The binding this one shadows.
    shadows: Option<usize>,
}

pub enum Derived<'s, S> {
    Fixed(&'static str),
    Declared(&'s S),
}

pub struct Scope<S> {
    bindings: Vec<Binding<S>>,
    marks: Vec<usize>,
}

impl<S> Default for Scope<S> {
    fn default() -> Self {
        Scope {
            bindings: Vec::new(),
            marks: Vec::new(),
        }
    }
}

impl<S: AsRef<str>> Scope<S> {
    pub fn clear(&mut self) {
        self.bindings.clear();
        self.marks.clear();
    }

    /// Number of bindings in scope (shadowed ones included).
    pub fn len(&self) -> usize {
        self.bindings.len()
    }

    /// Adds a declaration (of the element about to start).
    pub fn declare(&mut self, prefix: S, uri: S) {
        let shadows = self
            .bindings
            .iter()
            .rposition(|b| bytes_eq(b.prefix.as_ref().as_bytes(), prefix.as_ref().as_bytes()));
        if let Some(j) = shadows {
            self.bindings[j].shadowed = true;
        }
        self.bindings.push(Binding {
            prefix,
            uri,
            shadowed: false,
            shadows,
        });
    }

    /// Opens an element whose declarations start at binding `mark`.
    pub fn open(&mut self, mark: usize) {
        self.marks.push(mark);
    }

    /// Closes the innermost element, dropping its declarations.
    pub fn close(&mut self) {
        let mark = self.marks.pop().unwrap_or(0);
        while self.bindings.len() > mark {
            let b = self.bindings.pop().expect("a binding");
            if let Some(j) = b.shadows {
                self.bindings[j].shadowed = false;
            }
        }
    }

    /// The prefix derived for a name in namespace `uri`: `""` for no namespace, `xml` for the
    /// XML namespace, else the prefix of the innermost in-scope declaration of `uri` (never the
    /// default namespace for an attribute).
    pub fn derive(&self, uri: &str, attribute: bool) -> Option<&str> {
        match self.derive_entry(uri, attribute)? {
            Derived::Fixed(p) => Some(p),
            Derived::Declared(p) => Some(p.as_ref()),
        }
    }

    /// [`Scope::derive`], giving the declaration's own prefix value.
    pub fn derive_entry(&self, uri: &str, attribute: bool) -> Option<Derived<'_, S>> {
        if uri.is_empty() {
            return Some(Derived::Fixed(""));
        }
        if uri == binxml_core::XML_NS {
            return Some(Derived::Fixed("xml"));
        }
        self.bindings
            .iter()
            .rev()
            .find(|b| {
                !b.shadowed
                    && bytes_eq(b.uri.as_ref().as_bytes(), uri.as_bytes())
                    && !(attribute && b.prefix.as_ref().is_empty())
            })
            .map(|b| Derived::Declared(&b.prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation() {
        let mut s: Scope<&str> = Scope::default();
        assert_eq!(s.derive("", false), Some(""));
        assert_eq!(s.derive("urn:a", false), None);
        s.declare("", "urn:a");
        s.declare("a", "urn:a");
        s.open(0);
        assert_eq!(s.derive("urn:a", false), Some("a"));
        assert_eq!(s.derive("urn:a", true), Some("a"));
        let m = s.len();
        s.declare("a", "urn:b");
        s.open(m);
        assert_eq!(s.derive("urn:a", false), Some(""));
        assert_eq!(s.derive("urn:a", true), None);
        assert_eq!(s.derive("urn:b", true), Some("a"));
        s.close();
        assert_eq!(s.derive("urn:a", true), Some("a"));
        s.close();
        assert_eq!(s.len(), 0);
    }
}
