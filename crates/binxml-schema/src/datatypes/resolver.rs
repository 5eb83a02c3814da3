//! `NamespaceResolver`: how QName and NOTATION values find the namespace of their prefix.

use std::borrow::Cow;
use std::collections::HashMap;

/// The in-scope namespaces of the element whose text or attribute is being parsed (or of the
/// schema element that holds a facet value).
pub trait NamespaceResolver {
    /// The namespace name bound to `prefix`; `""` asks for the default namespace. `None`
    /// when the prefix is not bound (for `""`: when there is no default namespace). The
    /// `xml` prefix is resolved by the parser itself. Borrowed when the resolver holds the
    /// string, owned when it has to make it.
    fn resolve(&self, prefix: &str) -> Option<Cow<'_, str>>;
}

/// No namespace bindings: for types that need none, and for tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNamespaces;

impl NamespaceResolver for NoNamespaces {
    fn resolve(&self, _prefix: &str) -> Option<Cow<'_, str>> {
        None
    }
}

/// Prefix to namespace.
impl NamespaceResolver for HashMap<String, String> {
    fn resolve(&self, prefix: &str) -> Option<Cow<'_, str>> {
        self.get(prefix).map(|ns| Cow::Borrowed(ns.as_str()))
    }
}

/// A list of (prefix, namespace) bindings; a later binding of a prefix wins.
impl NamespaceResolver for &[(&str, &str)] {
    fn resolve(&self, prefix: &str) -> Option<Cow<'_, str>> {
        self.iter()
            .rev()
            .find(|(p, _)| *p == prefix)
            .map(|(_, ns)| Cow::Borrowed(*ns))
    }
}

/// A function from prefix to namespace as a resolver (a validator's closure over its
/// namespace stack, say).
pub struct FnResolver<F>(pub F);

impl<F: Fn(&str) -> Option<String>> NamespaceResolver for FnResolver<F> {
    fn resolve(&self, prefix: &str) -> Option<Cow<'_, str>> {
        (self.0)(prefix).map(Cow::Owned)
    }
}
