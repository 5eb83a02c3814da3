//! Wire-level constants and primitives: discriminators, the 1/2/5-byte length form, strings.
//! `docs/xebu.md` is the normative description; this module follows it.

/// Event codes (low nibble of the discriminator).
pub mod code {
    pub const END_DOCUMENT: u8 = 0x0;
    pub const START_DOCUMENT: u8 = 0x1;
    pub const NAMESPACE: u8 = 0x2;
    pub const START_ELEMENT: u8 = 0x3;
    pub const END_ELEMENT: u8 = 0x4;
    pub const ATTRIBUTE: u8 = 0x5;
    pub const END_ATTRIBUTES: u8 = 0x6;
    pub const TEXT: u8 = 0x7;
    pub const SEQ_FETCH: u8 = 0xA;
    pub const SEQ_ENTRY: u8 = 0xB;
    pub const TYPED: u8 = 0xC;
    pub const SPECIAL: u8 = 0xF;
}

/// The cache selector in the two high bits of the discriminator.
pub mod sel {
    /// Everything literal.
    pub const LITERAL: u8 = 0x00;
    /// Namespace fetched from the namespace cache.
    pub const NS: u8 = 0x40;
    /// Name fetched from the name cache.
    pub const NAME: u8 = 0x80;
    /// Value (attribute) or content (text) fetched from the value/content cache.
    pub const VALUE: u8 = 0xC0;
    pub const MASK: u8 = 0xC0;
}

/// Flag bit 0x20: the literal value/content carries a token definition.
pub const F_DEFINE: u8 = 0x20;
/// Flag bit 0x10 on text: the text is a CDATA section.
pub const F_CDATA: u8 = 0x10;
/// Flag bit 0x10 on element starts and attributes: an explicit prefix follows the name.
pub const F_PREFIX: u8 = 0x10;

/// Document start flags.
pub const DOC_RESET: u8 = 0x10;
pub const DOC_DECL: u8 = 0x20;
pub const DOC_SEQ: u8 = 0x40;
/// XebuS: the message was written with omission automata (decode it with the schema).
pub const DOC_OMIT: u8 = 0x80;

/// Declaration presence bits (the byte after a document start with `DOC_DECL`).
pub const DECL_VERSION: u8 = 0x01;
pub const DECL_ENCODING: u8 = 0x02;
pub const DECL_STANDALONE: u8 = 0x04;
pub const DECL_STANDALONE_YES: u8 = 0x08;
/// Version present and equal to `1.0` (no string follows).
pub const DECL_VERSION_10: u8 = 0x10;
/// Encoding present and equal to `UTF-8` (no string follows).
pub const DECL_UTF8: u8 = 0x20;

/// Special subtypes (high nibble of a `0x?F` discriminator).
pub mod special {
    pub const PI: u8 = 0x00;
    pub const COMMENT: u8 = 0x10;
    pub const ENTITY_REF: u8 = 0x20;
    pub const DOCTYPE: u8 = 0x30;
    pub const NOTATION: u8 = 0x40;
    pub const UNPARSED_ENTITY: u8 = 0x50;
}

/// Typed content subtypes (high nibble of a `0x?C` discriminator).
pub mod typed {
    pub const UINT: u8 = 0x00;
    pub const NEG_INT: u8 = 0x10;
    pub const FALSE: u8 = 0x20;
    pub const TRUE: u8 = 0x30;
    pub const FLOAT: u8 = 0x40;
    pub const DOUBLE: u8 = 0x50;
    pub const BASE64: u8 = 0x60;
    pub const HEX: u8 = 0x70;
    pub const UUID: u8 = 0x80;
    pub const DATETIME: u8 = 0x90;
    pub const NUMBER: u8 = 0xA0;
    pub const NULL: u8 = 0xB0;
    pub const LIST: u8 = 0xC0;
    pub const DATETIME_TEXT: u8 = 0xD0;
}

/// Appends a length / unsigned number in the 1/2/5-byte form (9 bytes for values of 2^32 and
/// more, typed integers only).
#[inline]
pub fn put_num(out: &mut Vec<u8>, n: u64) {
    if n < 0x80 {
        out.push(n as u8);
    } else if n < 0x4000 {
        out.push(0x80 | (n >> 8) as u8);
        out.push(n as u8);
    } else if n <= u32::MAX as u64 {
        out.push(0xC0);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(0xC1);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// Appends a length-prefixed UTF-8 string.
#[inline]
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_num(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends an unsigned integer in base-128 groups, least significant first, the high bit set on
/// every byte but the last (typed integers).
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}
