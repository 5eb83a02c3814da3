//! The mapping between JSON values and binxml events (documented in `docs/json-mapping.md`).
//! It lives in the core because two codecs speak it: `binxml-json` (JSON text) and `binxml-tsf`
//! (TSF's JSON units), and codecs do not depend on each other.
//!
//! Every JSON value is one element in the namespace [`JSON_NS`]:
//!
//! * its local name is the member name when the value is an object member and the name is a
//!   valid XML NCName; otherwise the name escaped by the TSF paper's section 3.2 convention
//!   (every character not allowed in an XML name becomes `uHHHH`), and the exact member name is
//!   kept in the attribute `key`. The root value is named [`ROOT_NAME`], array items
//!   [`ITEM_NAME`];
//! * the attribute `t` gives its type: `object`, `array`, `number`, `boolean` or `null`.
//!   Strings have no `t` attribute;
//! * a string's content is one `Characters` event (none for `""`), a number's one
//!   `Typed::Number` holding the exact number text, a boolean's `Typed::Bool`, null's
//!   `Typed::Null`; an object's and an array's content are the elements of its members / items.
//!
//! The root element also declares [`JSON_NS`] as the default namespace, so that the XML writer
//! produces `<json xmlns="urn:binxml:json" t="object">...</json>`.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::event::{Event, QName, Typed};

/// The namespace of every element of a JSON document's events.
pub const JSON_NS: &str = "urn:binxml:json";
/// The local name of the root value's element.
pub const ROOT_NAME: &str = "json";
/// The local name of an array item's element.
pub const ITEM_NAME: &str = "item";
/// The attribute that holds a value's type (absent for strings).
pub const TYPE_ATTR: &str = "t";
/// The attribute that holds the exact member name when the element name had to be escaped.
pub const KEY_ATTR: &str = "key";

/// The JSON type of a value, as written in the `t` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// `{...}`: an element per member.
    Object,
    /// `[...]`: an element per item.
    Array,
    /// A string (the default: no `t` attribute).
    String,
    /// A number, its text kept exactly.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

impl JsonType {
    /// The value of the `t` attribute (`None` for strings, which carry no `t`).
    pub fn attr_value(self) -> Option<&'static str> {
        match self {
            JsonType::Object => Some("object"),
            JsonType::Array => Some("array"),
            JsonType::String => None,
            JsonType::Number => Some("number"),
            JsonType::Boolean => Some("boolean"),
            JsonType::Null => Some("null"),
        }
    }

    /// Parses a `t` attribute value.
    pub fn from_attr(v: &str) -> Option<JsonType> {
        Some(match v.trim_matches([' ', '\t', '\r', '\n']) {
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "boolean" => JsonType::Boolean,
            "null" => JsonType::Null,
            _ => return None,
        })
    }

    /// The type of an element without a `t` attribute, from its first content event (`None`
    /// when the element ends first): a typed boolean, null or number gives that type, anything
    /// else a string. `None` when that first event is a child element (objects and arrays need
    /// their `t`); the caller words the error.
    pub fn infer(first: Option<&Event<'_>>) -> Option<JsonType> {
        Some(match first {
            Some(Event::Typed(t)) => match t {
                Typed::Bool(_) => JsonType::Boolean,
                Typed::Null => JsonType::Null,
                Typed::Number(_) | Typed::Int(_) | Typed::Float(_) | Typed::Double(_) => {
                    JsonType::Number
                }
                _ => JsonType::String,
            },
            Some(Event::StartElement(_)) => return None,
            _ => JsonType::String,
        })
    }

    /// True when `s` (white space already trimmed) is a valid text for a scalar of this type:
    /// a JSON number, `true` / `false`, or `null` (an empty null is accepted too).
    pub fn accepts_scalar(self, s: &str) -> bool {
        match self {
            JsonType::Number => is_json_number(s),
            JsonType::Boolean => s == "true" || s == "false",
            _ => s == "null" || s.is_empty(),
        }
    }
}

/// True when `s` matches JSON's number grammar (RFC 8259 section 6).
pub fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut p = 0;
    let digits = |p: &mut usize| {
        let s = *p;
        while matches!(b.get(*p), Some(b'0'..=b'9')) {
            *p += 1;
        }
        *p > s
    };
    if b.get(p) == Some(&b'-') {
        p += 1;
    }
    match b.get(p) {
        Some(b'0') => p += 1,
        Some(b'1'..=b'9') => {
            digits(&mut p);
        }
        _ => return false,
    }
    if b.get(p) == Some(&b'.') {
        p += 1;
        if !digits(&mut p) {
            return false;
        }
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        p += 1;
        if matches!(b.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        if !digits(&mut p) {
            return false;
        }
    }
    p == b.len()
}

/// A JSON value's content, as far as its reader has it when the value starts.
pub enum Content<'a> {
    /// An object or array: its members or items follow as elements.
    Open,
    /// A string's text (no `Characters` event when empty).
    Str(Cow<'a, str>),
    /// A number, boolean or null.
    Typed(Typed<'a>),
}

/// The events of one JSON value, the machine both JSON readers (`binxml-json`'s text reader and
/// `binxml-tsf`'s JSON units) drive: [`ValueEvents::begin`] gives the value's `StartElement`,
/// then [`ValueEvents::next`] the rest in order (the root's namespace declaration, `t`, `key`,
/// the content) and, for a scalar, the closing `EndElement` last. An object's or array's
/// `EndElement` is the reader's to give, after its members.
pub struct ValueEvents<'a> {
    phase: u8,
    root: bool,
    ty: JsonType,
    key: Option<Cow<'a, str>>,
    content: Content<'a>,
}

impl<'a> ValueEvents<'a> {
    /// Starts a value: `key` is its member name (`None` for the root and array items), `root`
    /// whether it is the document's value. Returns its `StartElement` and the machine holding
    /// its remaining events.
    pub fn begin(
        key: Option<Cow<'a, str>>,
        root: bool,
        ty: JsonType,
        content: Content<'a>,
    ) -> (Event<'a>, ValueEvents<'a>) {
        let (local, key_attr): (Cow<'a, str>, Option<Cow<'a, str>>) = match key {
            None => (
                Cow::Borrowed(if root { ROOT_NAME } else { ITEM_NAME }),
                None,
            ),
            Some(k) => match element_name(&k) {
                // The name itself.
                Cow::Borrowed(s) if s.len() == k.len() => (k, None),
                esc => (Cow::Owned(esc.into_owned()), Some(k)),
            },
        };
        (
            Event::StartElement(QName::new("", JSON_NS, local)),
            ValueEvents {
                phase: 0,
                root,
                ty,
                key: key_attr,
                content,
            },
        )
    }
}

impl<'a> Iterator for ValueEvents<'a> {
    type Item = Event<'a>;

    /// The value's next event; `None` when it has no more. The last event of a scalar is its
    /// `EndElement`.
    #[inline]
    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            match self.phase {
                0 => {
                    self.phase = 1;
                    if self.root {
                        return Some(Event::Namespace {
                            prefix: Cow::Borrowed(""),
                            uri: Cow::Borrowed(JSON_NS),
                        });
                    }
                }
                1 => {
                    self.phase = 2;
                    if let Some(t) = self.ty.attr_value() {
                        return Some(Event::Attribute {
                            name: QName::local(TYPE_ATTR),
                            value: Cow::Borrowed(t),
                        });
                    }
                }
                2 => {
                    self.phase = 3;
                    if let Some(k) = self.key.take() {
                        return Some(Event::Attribute {
                            name: QName::local(KEY_ATTR),
                            value: k,
                        });
                    }
                }
                3 => {
                    self.phase = 4;
                    match std::mem::replace(&mut self.content, Content::Open) {
                        Content::Open => {
                            self.phase = 5;
                            return None;
                        }
                        Content::Str(s) => {
                            if !s.is_empty() {
                                return Some(Event::Characters {
                                    text: s,
                                    cdata: false,
                                });
                            }
                        }
                        Content::Typed(t) => return Some(Event::Typed(t)),
                    }
                }
                4 => {
                    self.phase = 5;
                    return Some(Event::EndElement);
                }
                _ => return None,
            }
        }
    }
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
        | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
        | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// True when `name` is a valid XML NCName (an XML name without a colon).
pub fn is_ncname(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if is_name_start(c) => chars.all(is_name_char),
        _ => false,
    }
}

/// Whether `c` stays as it is in an element name made from a member name: a name character
/// (a name start character first) under both the Fifth Edition's rules and the earlier
/// editions' (Appendix B of the Fourth). The Fifth Edition allows far more characters in names,
/// whole blocks and the supplementary planes, but parsers that keep the earlier rules (expat)
/// refuse them, and the XML written from JSON must be read by every parser.
fn kept_in_name(c: char, first: bool) -> bool {
    if first {
        is_name_start(c) && (c.is_ascii() || crate::xml4_names::is_letter(c))
    } else {
        is_name_char(c) && (c.is_ascii() || crate::xml4_names::is_name_char(c))
    }
}

/// The element name for member name `key`: `key` itself when it is an NCName under every
/// edition's name rules, else the section 3.2 escape (each character not kept, see
/// [`kept_in_name`], becomes `u` and its UTF-16 code units as four lowercase hex digits each; an
/// empty name becomes `_`).
pub fn element_name(key: &str) -> Cow<'_, str> {
    if !key.is_empty()
        && key
            .chars()
            .enumerate()
            .all(|(i, c)| kept_in_name(c, i == 0))
    {
        return Cow::Borrowed(key);
    }
    if key.is_empty() {
        return Cow::Borrowed("_");
    }
    let mut out = String::with_capacity(key.len() + 8);
    for (i, c) in key.chars().enumerate() {
        if kept_in_name(c, i == 0) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "u{:04x}", u);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(element_name("abc"), "abc");
        assert_eq!(element_name("a b"), "au0020b");
        assert_eq!(element_name("64th"), "u00364th");
        assert_eq!(element_name(""), "_");
        assert_eq!(element_name("a:b"), "au003ab");
        // Name characters of the Fifth Edition only: escaped (expat refuses such names).
        assert_eq!(element_name("\u{1F511}"), "ud83dudd11");
        assert_eq!(element_name("k\u{10000}"), "kud800udc00");
        assert_eq!(element_name("\u{132}a\u{3400}"), "u0132au3400");
        assert_eq!(element_name("\u{E9}t\u{E9}"), "\u{E9}t\u{E9}");
        assert_eq!(
            element_name("\u{43A}\u{43B}\u{44E}\u{447}"),
            "\u{43A}\u{43B}\u{44E}\u{447}"
        );
        assert!(is_ncname("été"));
        assert!(!is_ncname("-x"));
    }

    #[test]
    fn numbers() {
        for ok in ["0", "-0", "12", "1.5", "1e9", "-1.25E-3"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", "1 "] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
