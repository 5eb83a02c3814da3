//! The infoset event model shared by every codec.
//!
//! A document is a stream of [`Event`]s. Every decoder produces this stream and every encoder
//! consumes it; a conversion is a decoder piped into an encoder.
//!
//! # The grammar of a well-formed stream
//!
//! ```text
//! document  := StartDocument prolog element misc* EndDocument
//! prolog    := (Comment | ProcessingInstruction | DocType decl*)*
//! decl      := Notation | UnparsedEntity
//! element   := StartElement Namespace* Attribute* content* EndElement
//! content   := element | Characters | Typed | Comment | ProcessingInstruction | EntityReference
//! misc      := Comment | ProcessingInstruction
//! ```
//!
//! Namespace declarations of an element come right after its `StartElement` and before its
//! attributes. The `StartElement`'s [`QName`] and every attribute's [`QName`] carry the namespace
//! name already resolved, so encoders that only need the expanded name never track scopes.
//! `xmlns` and `xmlns:*` attributes never appear as [`Event::Attribute`]; they are
//! [`Event::Namespace`] events. A fragment (a stream without a single root element) is allowed by
//! the codecs that support it (JSON, TSF roots of several items).
//!
//! Strings are [`Cow`]: decoders over an in-memory buffer borrow from it wherever the encoded form
//! holds the string verbatim; streaming decoders produce owned strings (`Event<'static>`).

use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// A qualified name: prefix, namespace name and local name. An absent prefix or namespace is `""`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct QName<'a> {
    /// The prefix as written (`""`: none). Says nothing about the namespace on its own.
    pub prefix: Cow<'a, str>,
    /// The namespace name (a URI; `""`: no namespace).
    pub namespace: Cow<'a, str>,
    /// The local name.
    pub local: Cow<'a, str>,
}

impl<'a> QName<'a> {
    /// A name in no namespace and without prefix.
    pub fn local(local: impl Into<Cow<'a, str>>) -> Self {
        QName {
            prefix: Cow::Borrowed(""),
            namespace: Cow::Borrowed(""),
            local: local.into(),
        }
    }

    /// A name from its prefix, namespace name and local name.
    pub fn new(
        prefix: impl Into<Cow<'a, str>>,
        namespace: impl Into<Cow<'a, str>>,
        local: impl Into<Cow<'a, str>>,
    ) -> Self {
        QName {
            prefix: prefix.into(),
            namespace: namespace.into(),
            local: local.into(),
        }
    }

    /// `prefix:local`, or `local` when there is no prefix.
    pub fn qualified(&self) -> Cow<'_, str> {
        if self.prefix.is_empty() {
            Cow::Borrowed(&self.local)
        } else {
            Cow::Owned(format!("{}:{}", self.prefix, self.local))
        }
    }

    /// The same name, owning its strings.
    pub fn into_owned(self) -> QName<'static> {
        QName {
            prefix: Cow::Owned(self.prefix.into_owned()),
            namespace: Cow::Owned(self.namespace.into_owned()),
            local: Cow::Owned(self.local.into_owned()),
        }
    }

    /// The same name, borrowing its strings from this one (no copy).
    pub fn borrowed(&self) -> QName<'_> {
        QName {
            prefix: Cow::Borrowed(&self.prefix),
            namespace: Cow::Borrowed(&self.namespace),
            local: Cow::Borrowed(&self.local),
        }
    }
}

impl fmt::Display for QName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.namespace.is_empty() {
            write!(f, "{{{}}}", self.namespace)?;
        }
        if !self.prefix.is_empty() {
            write!(f, "{}:", self.prefix)?;
        }
        f.write_str(&self.local)
    }
}

/// A typed value, carried by formats that encode values natively (Fast Infoset's encoding
/// algorithms, Xebu's typed content, EXI's datatypes, JSON's numbers and booleans).
///
/// Every typed value has an XML lexical form ([`Typed::write_lexical`]); encoders for text-only
/// formats write that.
#[derive(Clone, Debug, PartialEq)]
pub enum Typed<'a> {
    /// A boolean (xs:boolean), lexical form `true` or `false`.
    Bool(bool),
    /// A signed integer (xs:long range).
    Int(i64),
    /// A 32-bit float (xs:float).
    Float(f32),
    /// A 64-bit float (xs:double).
    Double(f64),
    /// Binary data, lexical form base64 (xs:base64Binary).
    Base64(Cow<'a, [u8]>),
    /// Binary data, lexical form hexadecimal (xs:hexBinary).
    Hex(Cow<'a, [u8]>),
    /// A UUID, lexical form `8-4-4-4-12` hex digits.
    Uuid([u8; 16]),
    /// A date or time in its xs:date / xs:dateTime lexical form.
    DateTime(Cow<'a, str>),
    /// A JSON number kept as its exact text.
    Number(Cow<'a, str>),
    /// JSON null. Its lexical form is `null`.
    Null,
    /// A list of values, lexical form separated by single spaces.
    List(Vec<Typed<'a>>),
}

impl Typed<'_> {
    /// The same value, owning its data.
    pub fn into_owned(self) -> Typed<'static> {
        match self {
            Typed::Bool(b) => Typed::Bool(b),
            Typed::Int(i) => Typed::Int(i),
            Typed::Float(f) => Typed::Float(f),
            Typed::Double(f) => Typed::Double(f),
            Typed::Base64(b) => Typed::Base64(Cow::Owned(b.into_owned())),
            Typed::Hex(b) => Typed::Hex(Cow::Owned(b.into_owned())),
            Typed::Uuid(u) => Typed::Uuid(u),
            Typed::DateTime(s) => Typed::DateTime(Cow::Owned(s.into_owned())),
            Typed::Number(s) => Typed::Number(Cow::Owned(s.into_owned())),
            Typed::Null => Typed::Null,
            Typed::List(v) => Typed::List(v.into_iter().map(Typed::into_owned).collect()),
        }
    }

    /// Appends the XML lexical form of the value to `out`.
    pub fn write_lexical(&self, out: &mut String) {
        match self {
            Typed::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Typed::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Typed::Float(f) => write_float(out, *f as f64, true),
            Typed::Double(f) => write_float(out, *f, false),
            Typed::Base64(b) => crate::base64::encode_into(b, out),
            Typed::Hex(b) => {
                for byte in b.iter() {
                    let _ = write!(out, "{byte:02X}");
                }
            }
            Typed::Uuid(u) => {
                for (i, byte) in u.iter().enumerate() {
                    if matches!(i, 4 | 6 | 8 | 10) {
                        out.push('-');
                    }
                    let _ = write!(out, "{byte:02x}");
                }
            }
            Typed::DateTime(s) | Typed::Number(s) => out.push_str(s),
            Typed::Null => out.push_str("null"),
            Typed::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    item.write_lexical(out);
                }
            }
        }
    }

    /// The XML lexical form of the value.
    pub fn lexical(&self) -> String {
        let mut s = String::new();
        self.write_lexical(&mut s);
        s
    }
}

fn write_float(out: &mut String, v: f64, single: bool) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "INF" } else { "-INF" });
    } else if single {
        let _ = write!(out, "{}", v as f32);
    } else {
        let _ = write!(out, "{v}");
    }
}

/// The document type declaration.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DocType<'a> {
    /// The root element type name as written (`xs:schema`). Formats without a name (Fast Infoset)
    /// leave it empty; the XML writer then uses the root element's qualified name.
    pub name: Cow<'a, str>,
    /// The public identifier of the external subset, if declared.
    pub public_id: Option<Cow<'a, str>>,
    /// The system identifier (URI) of the external subset, if declared.
    pub system_id: Option<Cow<'a, str>>,
    /// The internal subset's text, between `[` and `]`, verbatim.
    pub internal_subset: Option<Cow<'a, str>>,
}

impl DocType<'_> {
    /// The same declaration, owning its strings.
    pub fn into_owned(self) -> DocType<'static> {
        DocType {
            name: Cow::Owned(self.name.into_owned()),
            public_id: self.public_id.map(|s| Cow::Owned(s.into_owned())),
            system_id: self.system_id.map(|s| Cow::Owned(s.into_owned())),
            internal_subset: self.internal_subset.map(|s| Cow::Owned(s.into_owned())),
        }
    }
}

/// One information item, or a piece of one, in document order.
///
/// New kinds of event may be added, so matches outside this crate need a wildcard arm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The document information item. The fields come from the XML declaration (or the binary
    /// format's header) when present.
    StartDocument {
        /// The XML version (`1.0`), if declared.
        version: Option<Cow<'a, str>>,
        /// The declared character encoding, if any.
        encoding: Option<Cow<'a, str>>,
        /// The standalone declaration, if any.
        standalone: Option<bool>,
    },
    /// The end of the document: the last event.
    EndDocument,
    /// The document type declaration; before the root element.
    DocType(DocType<'a>),
    /// A notation declared in the DTD (from binary formats that list them in their header).
    Notation {
        /// The notation's name.
        name: Cow<'a, str>,
        /// Its public identifier, if any.
        public_id: Option<Cow<'a, str>>,
        /// Its system identifier, if any.
        system_id: Option<Cow<'a, str>>,
    },
    /// An unparsed entity declared in the DTD.
    UnparsedEntity {
        /// The entity's name.
        name: Cow<'a, str>,
        /// Its public identifier, if any.
        public_id: Option<Cow<'a, str>>,
        /// Its system identifier.
        system_id: Cow<'a, str>,
        /// The name of the notation of its data.
        notation: Cow<'a, str>,
    },
    /// The start of an element; its namespace declarations, then its attributes, follow.
    StartElement(QName<'a>),
    /// The end of the innermost open element.
    EndElement,
    /// A namespace declaration (`xmlns:prefix="uri"`; prefix `""` is the default namespace, uri
    /// `""` undeclares it).
    Namespace {
        /// The prefix declared (`""`: the default namespace).
        prefix: Cow<'a, str>,
        /// The namespace name it is bound to (`""`: undeclared).
        uri: Cow<'a, str>,
    },
    /// An attribute of the element just started (not a namespace declaration).
    Attribute {
        /// The attribute's name.
        name: QName<'a>,
        /// Its normalized value.
        value: Cow<'a, str>,
    },
    /// Character data. `cdata` is true when it came from (or should be written as) a CDATA section.
    Characters {
        /// The characters.
        text: Cow<'a, str>,
        /// Whether they form a CDATA section.
        cdata: bool,
    },
    /// A typed value in element content.
    Typed(Typed<'a>),
    /// A comment's text, without `<!--` and `-->`.
    Comment(Cow<'a, str>),
    /// A processing instruction.
    ProcessingInstruction {
        /// Its target (the name after `<?`).
        target: Cow<'a, str>,
        /// The rest of it, leading white space removed.
        data: Cow<'a, str>,
    },
    /// An entity reference the producer did not expand.
    EntityReference {
        /// The entity's name.
        name: Cow<'a, str>,
        /// Its public identifier, if known.
        public_id: Option<Cow<'a, str>>,
        /// Its system identifier, if known.
        system_id: Option<Cow<'a, str>>,
    },
}

/// Rebuilds an event from `$e` (an event or a reference to one) field by field: `$s` maps each
/// string, `$o` each optional string, `$q` a name, `$d` a doctype, `$t` a typed value and `$c`
/// a flag. The one walk over the event's strings, behind [`Event::into_owned`] (by value) and
/// [`Event::borrow`] (by reference).
macro_rules! map_strs {
    ($e:expr, $s:path, $o:path, $q:path, $d:path, $t:path, $c:path) => {
        match $e {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => Event::StartDocument {
                version: $o(version),
                encoding: $o(encoding),
                standalone: $c(standalone),
            },
            Event::EndDocument => Event::EndDocument,
            Event::DocType(d) => Event::DocType($d(d)),
            Event::Notation {
                name,
                public_id,
                system_id,
            } => Event::Notation {
                name: $s(name),
                public_id: $o(public_id),
                system_id: $o(system_id),
            },
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => Event::UnparsedEntity {
                name: $s(name),
                public_id: $o(public_id),
                system_id: $s(system_id),
                notation: $s(notation),
            },
            Event::StartElement(q) => Event::StartElement($q(q)),
            Event::EndElement => Event::EndElement,
            Event::Namespace { prefix, uri } => Event::Namespace {
                prefix: $s(prefix),
                uri: $s(uri),
            },
            Event::Attribute { name, value } => Event::Attribute {
                name: $q(name),
                value: $s(value),
            },
            Event::Characters { text, cdata } => Event::Characters {
                text: $s(text),
                cdata: $c(cdata),
            },
            Event::Typed(t) => Event::Typed($t(t)),
            Event::Comment(c) => Event::Comment($s(c)),
            Event::ProcessingInstruction { target, data } => Event::ProcessingInstruction {
                target: $s(target),
                data: $s(data),
            },
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => Event::EntityReference {
                name: $s(name),
                public_id: $o(public_id),
                system_id: $o(system_id),
            },
        }
    };
}

fn own(s: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(s.into_owned())
}

impl<'a> Event<'a> {
    /// Plain character data.
    pub fn text(text: impl Into<Cow<'a, str>>) -> Self {
        Event::Characters {
            text: text.into(),
            cdata: false,
        }
    }

    /// A start-of-document event without an XML declaration.
    pub fn start_document() -> Self {
        Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        }
    }

    /// The same event, owning its strings (for events that must outlive the input).
    pub fn into_owned(self) -> Event<'static> {
        fn opt(s: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
            s.map(own)
        }
        fn copy<T>(x: T) -> T {
            x
        }
        map_strs!(
            self,
            own,
            opt,
            QName::into_owned,
            DocType::into_owned,
            Typed::into_owned,
            copy
        )
    }

    /// The same event, borrowing its strings from this one (no copy; typed values are cloned).
    pub fn borrow(&self) -> Event<'_> {
        fn b(s: &str) -> Cow<'_, str> {
            Cow::Borrowed(s)
        }
        fn opt<'s>(s: &'s Option<Cow<'_, str>>) -> Option<Cow<'s, str>> {
            s.as_deref().map(Cow::Borrowed)
        }
        fn doctype<'s>(d: &'s DocType<'_>) -> DocType<'s> {
            DocType {
                name: b(&d.name),
                public_id: opt(&d.public_id),
                system_id: opt(&d.system_id),
                internal_subset: opt(&d.internal_subset),
            }
        }
        fn typed<'s>(t: &'s Typed<'_>) -> Typed<'s> {
            t.clone()
        }
        fn copy<T: Copy>(x: &T) -> T {
            *x
        }
        map_strs!(self, b, opt, QName::borrowed, doctype, typed, copy)
    }

    /// The length in bytes of the longest string the event carries (names, values, text,
    /// identifiers, a typed number's or date's text): what decoders check against
    /// [`Limits::max_string_len`](crate::Limits::max_string_len) when their strings are
    /// borrowed from the input.
    pub fn longest_string(&self) -> usize {
        let q = |q: &QName<'_>| q.prefix.len().max(q.namespace.len()).max(q.local.len());
        let o = |s: &Option<Cow<'_, str>>| s.as_ref().map_or(0, |s| s.len());
        match self {
            Event::StartElement(n) => q(n),
            Event::Attribute { name, value } => q(name).max(value.len()),
            Event::Namespace { prefix, uri } => prefix.len().max(uri.len()),
            Event::Characters { text, .. } | Event::Comment(text) => text.len(),
            Event::ProcessingInstruction { target, data } => target.len().max(data.len()),
            Event::DocType(d) => d
                .name
                .len()
                .max(o(&d.public_id))
                .max(o(&d.system_id))
                .max(o(&d.internal_subset)),
            Event::EntityReference {
                name,
                public_id,
                system_id,
            }
            | Event::Notation {
                name,
                public_id,
                system_id,
            } => name.len().max(o(public_id)).max(o(system_id)),
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => name
                .len()
                .max(o(public_id))
                .max(system_id.len())
                .max(notation.len()),
            Event::Typed(Typed::Number(s) | Typed::DateTime(s)) => s.len(),
            _ => 0,
        }
    }

    /// A short name of the event kind, for diagnostics (`binxml inspect`).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::StartDocument { .. } => "StartDocument",
            Event::EndDocument => "EndDocument",
            Event::DocType(_) => "DocType",
            Event::Notation { .. } => "Notation",
            Event::UnparsedEntity { .. } => "UnparsedEntity",
            Event::StartElement(_) => "StartElement",
            Event::EndElement => "EndElement",
            Event::Namespace { .. } => "Namespace",
            Event::Attribute { .. } => "Attribute",
            Event::Characters { .. } => "Characters",
            Event::Typed(_) => "Typed",
            Event::Comment(_) => "Comment",
            Event::ProcessingInstruction { .. } => "PI",
            Event::EntityReference { .. } => "EntityRef",
        }
    }
}

/// A one-line description of the event, for `binxml inspect`.
impl fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        match self {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => {
                if let Some(v) = version {
                    write!(f, " version={v:?}")?;
                }
                if let Some(e) = encoding {
                    write!(f, " encoding={e:?}")?;
                }
                if let Some(s) = standalone {
                    write!(f, " standalone={s}")?;
                }
                Ok(())
            }
            Event::EndDocument | Event::EndElement => Ok(()),
            Event::DocType(d) => {
                write!(f, " {}", d.name)?;
                if let Some(p) = &d.public_id {
                    write!(f, " public={p:?}")?;
                }
                if let Some(s) = &d.system_id {
                    write!(f, " system={s:?}")?;
                }
                if let Some(s) = &d.internal_subset {
                    write!(f, " internal-subset={} chars", s.chars().count())?;
                }
                Ok(())
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                write!(f, " {name} public={public_id:?} system={system_id:?}")
            }
            Event::UnparsedEntity {
                name,
                system_id,
                notation,
                ..
            } => {
                write!(f, " {name} system={system_id:?} ndata={notation}")
            }
            Event::StartElement(q) => write!(f, " {q}"),
            Event::Namespace { prefix, uri } => write!(f, " {prefix:?} -> {uri:?}"),
            Event::Attribute { name, value } => write!(f, " {name} = {:?}", Clip(value)),
            Event::Characters { text, cdata } => {
                write!(
                    f,
                    "{} {:?}",
                    if *cdata { " (CDATA)" } else { "" },
                    Clip(text)
                )
            }
            Event::Typed(t) => write!(f, " {:?}", Clip(&t.lexical())),
            Event::Comment(c) => write!(f, " {:?}", Clip(c)),
            Event::ProcessingInstruction { target, data } => {
                write!(f, " {target} {:?}", Clip(data))
            }
            Event::EntityReference { name, .. } => write!(f, " &{name};"),
        }
    }
}

/// Debug-formats at most 60 characters of a string.
struct Clip<'s>(&'s str);

impl fmt::Debug for Clip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.chars().count();
        if n <= 60 {
            write!(f, "{:?}", self.0)
        } else {
            let cut: String = self.0.chars().take(57).collect();
            write!(f, "{cut:?}... ({n} chars)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_forms() {
        assert_eq!(Typed::Int(-42).lexical(), "-42");
        assert_eq!(Typed::Bool(true).lexical(), "true");
        assert_eq!(
            Typed::Double(f64::INFINITY).lexical(),
            "-INF".trim_start_matches('-')
        );
        assert_eq!(Typed::Float(1.5).lexical(), "1.5");
        assert_eq!(Typed::Hex(Cow::Borrowed(&[0xde, 0xad])).lexical(), "DEAD");
        assert_eq!(Typed::Base64(Cow::Borrowed(b"hello")).lexical(), "aGVsbG8=");
        assert_eq!(
            Typed::Uuid([
                0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17,
                0x40, 0x00
            ])
            .lexical(),
            "123e4567-e89b-12d3-a456-426614174000"
        );
        assert_eq!(
            Typed::List(vec![Typed::Int(1), Typed::Int(2)]).lexical(),
            "1 2"
        );
    }

    #[test]
    fn display_clips_long_text() {
        let long = "x".repeat(100);
        let e = Event::text(long);
        let s = e.to_string();
        assert!(s.contains("(100 chars)"), "{s}");
        assert_eq!(QName::new("p", "urn:a", "b").to_string(), "{urn:a}p:b");
    }
}
