//! The encoder's flat operations: the elements of a document as the builder's flat mode records
//! them and the PER and BER writers write them (no abstract value per element).

use crate::value::V;

type Val = V<'static>;

/// The PER encoder's elements as flat operations instead of abstract values (see
/// [`Builder::new_flat`](crate::build::Builder::new_flat)): what `PerWriter::encode_flat`
/// writes. Document-level items other than elements and the rare element children are
/// abstract values in `values`.
pub(crate) struct Flat {
    pub(crate) ops: Vec<FOp>,
    /// (name, string) of every element's namespace attributes, then its attributes
    pub(crate) attrs: Vec<(u32, u32)>,
    /// strings written inline (no strings table, empty, or holding U+0000):
    /// `INLINE | index`
    pub(crate) inline: Vec<Box<str>>,
    /// names written inline (no names table): `INLINE | index`
    pub(crate) names: Vec<FName>,
    /// every element lists its in-scope namespaces (`Options::scoped_namespaces` off): the
    /// lists are `scopes` ranges named by [`FOp::End`]
    pub(crate) explicit_scopes: bool,
    /// (prefix or `NO_STR`, namespace name) of the in-scope namespace lists
    pub(crate) scopes: Vec<(u32, u32)>,
    pub(crate) values: Vec<Val>,
    /// the number of `Document.children`
    pub(crate) doc_items: usize,
    /// PER: `Document.common-names` as entries instead of abstract values (the value's list
    /// is then empty; `PerWriter::encode_flat` writes these in its place)
    pub(crate) common: Option<Vec<FCommon>>,
}

/// An entry of `Document.common-names` (see [`Flat::common`]): its namespace and prefix
/// ([`FNs::None`] absent, [`FNs::Str`] a string, [`FNs::Same`] `same-as-previous-item`) and
/// its local name.
#[derive(Clone, Copy)]
pub(crate) struct FCommon {
    pub(crate) ns: FNs,
    pub(crate) local: u32,
    pub(crate) prefix: FNs,
}

impl Flat {
    /// About the octets of an encoding of these operations that writes `per_op` octets of tags
    /// and lengths per operation and attribute around the strings of `texts` (the table,
    /// written once) and the inline strings: what the writers reserve up front, so the output
    /// is not copied as it grows.
    pub(crate) fn size_hint(&self, texts: &crate::build::Texts, per_op: usize) -> usize {
        let inline: usize = self.inline.iter().map(|s| s.len()).sum();
        let ops = self.ops.len() + self.attrs.len() + self.scopes.len();
        texts
            .byte_len()
            .saturating_add(inline)
            .saturating_add(ops.saturating_mul(per_op))
    }

    /// The in-scope namespace list that an [`FOp::End`] names.
    pub(crate) fn scope_list(&self, scope: u32, n_scope: u32) -> Option<&[(u32, u32)]> {
        self.scopes
            .get(scope as usize..(scope as usize).checked_add(n_scope as usize)?)
    }
}

/// The namespace of a name written inline.
#[derive(Clone, Copy)]
pub(crate) enum FNs {
    /// no namespace (the component absent)
    None,
    /// a string
    Str(u32),
    /// `same-as-parent-element` (elements), `same-as-owner-element` (attributes)
    Same,
    /// `same-as-previous-attribute`
    Prev,
}

/// A name written inline: its namespace, local name and prefix (or `NO_STR`).
#[derive(Clone, Copy)]
pub(crate) struct FName {
    pub(crate) ns: FNs,
    pub(crate) local: u32,
    pub(crate) prefix: u32,
}

#[derive(Clone, Copy)]
pub(crate) enum FOp {
    /// An element (common-name id) with its namespace attributes and attributes
    /// (`attrs[attrs..attrs + n_ns + n_attrs]`), its number of children, and whether it is
    /// written as element-content-characters (its one child, a `Text`, follows).
    Start {
        name: u32,
        attrs: u32,
        n_ns: u32,
        n_attrs: u32,
        children: u32,
        ecc: bool,
    },
    /// The end of the element whose `Start` is operation `start`; its in-scope namespaces
    /// (with `Flat::explicit_scopes`) are `Flat::scopes[scope..scope + n_scope]`.
    End {
        start: u32,
        scope: u32,
        n_scope: u32,
    },
    /// Character data (a string)
    Text(u32),
    /// Another child: the alternative of `Element.children`'s item (in an element) or of
    /// `Document.children`'s (at document level), and its value in `Flat::values`.
    Child(u8, u32),
}
