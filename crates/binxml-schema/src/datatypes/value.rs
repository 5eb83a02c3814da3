//! `Value`: the parsed value of a simple type, with the value-space equality (for the
//! enumeration facet), order (for the range facets) and length (for the length facets) of
//! Part 2.

use std::cmp::Ordering;

use super::datetime::{DateTimeValue, DurationValue};
use super::number::{Decimal, FloatValue};

/// An expanded name: the value of xs:QName and xs:NOTATION. Two are equal when namespace and
/// local name are; the prefix is kept for encoders that preserve prefixes.
#[derive(Debug, Clone)]
pub struct QNameValue {
    /// The namespace name; empty when the name is in no namespace.
    pub namespace: String,
    /// The local part.
    pub local: String,
    /// The prefix as written (empty when none): not part of the value.
    pub prefix: String,
}

impl PartialEq for QNameValue {
    fn eq(&self, other: &QNameValue) -> bool {
        self.namespace == other.namespace && self.local == other.local
    }
}

/// A value in the value space of a simple type. Values of different primitive types are
/// never equal and never ordered (an xs:decimal 1 and an xs:float 1 are different values);
/// the integer types share `Decimal` with xs:decimal, whose value space holds theirs.
///
/// `PartialEq` is value-space identity ([`Value::same_value`]): `1.0` equals `1` as decimals,
/// `2000-01-01T12:00:00+01:00` equals `2000-01-01T11:00:00Z`, QNames compare by expanded
/// name.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Value {
    /// xs:string and the types derived from it (normalizedString, token, language, Name,
    /// NCName, ID, IDREF, ENTITY, NMTOKEN), and anySimpleType: the normalized string.
    String(String),
    /// xs:boolean.
    Boolean(bool),
    /// xs:decimal and xs:integer with all its derived types.
    Decimal(Decimal),
    /// xs:float.
    Float(FloatValue),
    /// xs:double.
    Double(FloatValue),
    /// xs:duration.
    Duration(DurationValue),
    /// xs:dateTime, time, date, gYearMonth, gYear, gMonthDay, gDay and gMonth
    /// ([`DateTimeValue::kind`] tells which).
    DateTime(DateTimeValue),
    /// xs:hexBinary: the octets.
    HexBinary(Vec<u8>),
    /// xs:base64Binary: the octets.
    Base64Binary(Vec<u8>),
    /// xs:anyURI: the string (Part 2 compares anyURI values as strings).
    AnyUri(String),
    /// xs:QName.
    QName(QNameValue),
    /// xs:NOTATION.
    Notation(QNameValue),
    /// A list type's value: its items in order.
    List(Vec<Value>),
}

impl Value {
    /// Value-space identity, the equality the enumeration facet uses. NaN equals NaN (XSD
    /// 1.0: "NaN equals itself"); 0 equals -0; date/time values with and without timezone
    /// are never equal.
    pub fn same_value(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (String(a), String(b)) | (AnyUri(a), AnyUri(b)) => a == b,
            (Boolean(a), Boolean(b)) => a == b,
            (HexBinary(a), HexBinary(b)) | (Base64Binary(a), Base64Binary(b)) => a == b,
            (QName(a), QName(b)) | (Notation(a), Notation(b)) => a == b,
            (Duration(a), Duration(b)) => a == b,
            (List(a), List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y))
            }
            _ => self.compare(other) == Some(Ordering::Equal),
        }
    }

    /// The order of the value space for the ordered types (numbers, durations, dates and
    /// times); `None` when the two are incomparable: of different types, of an unordered
    /// type, or incomparable within a partial order (NaN; durations such as P1M and P30D;
    /// dates with and without timezone that are less than 14 hours apart).
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        use Value::*;
        match (self, other) {
            (Decimal(a), Decimal(b)) => Some(a.cmp_value(b)),
            (Float(a), Float(b)) | (Double(a), Double(b)) => a.cmp_value(b),
            (Duration(a), Duration(b)) => a.cmp_value(b),
            (DateTime(a), DateTime(b)) => a.cmp_value(b),
            _ => None,
        }
    }

    /// The length the length facets measure: characters for strings and anyURI, octets for
    /// binary values, items for lists. `None` for the other types, and for QName and
    /// NOTATION, on which length facets are always satisfied (Part 2 second edition, 4.3.1).
    pub fn length(&self) -> Option<usize> {
        match self {
            Value::String(s) | Value::AnyUri(s) => Some(s.chars().count()),
            Value::HexBinary(b) | Value::Base64Binary(b) => Some(b.len()),
            Value::List(items) => Some(items.len()),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.same_value(other)
    }
}
