//! Abstract values of the module's types, in the shape the generic codecs walk.

use std::borrow::Cow;

use crate::sentinel::NOT_IN_TABLE;

/// An abstract value. Which variant goes with which `Ty` (the schema's):
/// `Seq` (one slot per component, `None` = absent OPTIONAL), `List` (SEQUENCE OF),
/// `Choice(alternative, value)`, `Int` (INTEGER, with the bit offset where a decoder found it,
/// 0 when built by an encoder), `Enum`, `Bool`, `Null`, `Text` (UTF8String), `Bytes` (OCTET
/// STRING, and RELATIVE-OID contents octets).
#[derive(Clone, Debug, PartialEq)]
pub enum V<'a> {
    /// NULL.
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// INTEGER: the value, and the bit offset where a decoder found it (0 when built by an
    /// encoder).
    Int(u64, u64),
    /// ENUMERATED: the index of the enumeration item.
    Enum(u64),
    /// UTF8String.
    Text(Cow<'a, str>),
    /// OCTET STRING (and the contents octets of a RELATIVE-OID).
    Bytes(Cow<'a, [u8]>),
    /// SEQUENCE: one slot per component, `None` for an absent OPTIONAL component.
    Seq(Vec<Option<V<'a>>>),
    /// SEQUENCE OF.
    List(Vec<V<'a>>),
    /// CHOICE: the index of the alternative chosen, and its value.
    Choice(u8, Box<V<'a>>),
    /// Encoder-internal: a StringOrIndex that refers to component string `id` (before the
    /// table is ordered). Replaced before encoding.
    StrRef(u32),
    /// Encoder-internal: a SmallIndex that refers to common name `id`. Replaced before encoding.
    NameRef(u32),
}

impl<'a> V<'a> {
    /// A CHOICE of alternative `alt` with value `v`.
    pub fn choice(alt: u8, v: V<'a>) -> V<'a> {
        V::Choice(alt, Box::new(v))
    }
    /// An INTEGER `v` (at bit offset 0).
    pub fn int(v: u64) -> V<'a> {
        V::Int(v, 0)
    }
    /// A UTF8String.
    pub fn text(s: impl Into<Cow<'a, str>>) -> V<'a> {
        V::Text(s.into())
    }
    /// Replaces the encoder-internal references by final indexes.
    /// `strings[id]` is the table position of string `id`, or [`NOT_IN_TABLE`] to write `texts[id]`
    /// inline.
    pub fn resolve(&mut self, strings: &[u32], texts: &[&str], names: &[u32]) {
        self.resolve_at(strings, texts, names, 0)
    }

    fn resolve_at(&mut self, strings: &[u32], texts: &[&str], names: &[u32], depth: u32) {
        // check the stack every few levels (an element is five levels of values)
        if depth.is_multiple_of(4) {
            crate::deep(|| self.resolve_inner(strings, texts, names, depth))
        } else {
            self.resolve_inner(strings, texts, names, depth)
        }
    }

    fn resolve_inner(&mut self, strings: &[u32], texts: &[&str], names: &[u32], depth: u32) {
        match self {
            V::StrRef(id) => {
                let pos = strings[*id as usize];
                *self = if pos == NOT_IN_TABLE {
                    V::choice(0, V::Text(Cow::Owned(texts[*id as usize].to_owned())))
                } else {
                    V::choice(1, V::int(pos as u64))
                }
            }
            V::NameRef(id) => *self = V::int(names[*id as usize] as u64),
            V::Seq(items) => {
                for v in items.iter_mut().flatten() {
                    v.resolve_at(strings, texts, names, depth + 1);
                }
            }
            V::List(items) => {
                for v in items.iter_mut() {
                    v.resolve_at(strings, texts, names, depth + 1);
                }
            }
            V::Choice(_, v) => v.resolve_at(strings, texts, names, depth + 1),
            _ => {}
        }
    }
}

/// How the encoder's table references ([`V::StrRef`], [`V::NameRef`]) resolve: written
/// directly, without first rewriting the value (see [`V::resolve`]).
pub(crate) struct Refs {
    /// table position of string id, or [`NOT_IN_TABLE`]
    pub strings: Vec<u32>,
    /// the text of string id (for those written inline)
    pub texts: crate::build::Texts,
    /// table position of name id
    pub names: Vec<u32>,
}
