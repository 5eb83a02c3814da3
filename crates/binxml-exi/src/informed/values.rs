//! Typed values (EXI 1.0 sections 7.1 and 7.2): a value's lexical form written in the EXI
//! datatype representation of its simple type ([`ExiType`]), and read back to the lexical form
//! EXIficient 1.0.7's decoder gives.
//!
//! - [`encode`] writes an attribute value or element text in its representation, or writes
//!   nothing and returns `false` when the value cannot be represented (the caller then uses
//!   the untyped production, a string). "Can be represented" is the Recommendation's test
//!   (8.5.4.4.1): the value is in the lexical space of the representation's XML Schema type
//!   after whitespace collapsing (xs:integer for Integer, Unsigned Integer and n-bit, within
//!   their ranges; xs:decimal; xs:double; the date-time type; xs:boolean; xs:hexBinary;
//!   xs:base64Binary; each item of a list; one of an enumeration's values), and the Float
//!   representation needs a mantissa and exponent in range (7.1.4). Facets other than those
//!   that choose the representation are not checked (EXI does not check them: an xs:int of
//!   2^40 is an Integer). The String and restricted-character-set representations go
//!   through the string table, which the caller handles: [`encode_string_literal`] writes a
//!   literal's characters.
//! - [`decode`] reads a value and appends its lexical form; [`decode_string_literal`] reads a
//!   literal's characters. Lengths and counts are checked against the input left before
//!   anything is allocated; every error carries the bit offset.
//!
//! Lexical forms on decoding (EXIficient's): booleans `true`/`false` (with a pattern facet the
//! form written: `false`, `0`, `true`, `1`); integers without sign or leading zeros (`-0` is
//! `0`); decimals always with a point (`1.0`, `-0.05`, `0.0`); floats as mantissa `E`
//! exponent with the mantissa's trailing zeros moved into the exponent (`15E-1`, `1E3`, `0E0`,
//! `INF`, `-INF`, `NaN`); dates with four-digit years at least, fractional seconds as written
//! without trailing zeros, timezone `Z` for +00:00 else `±hh:mm`; hexBinary in upper case;
//! base64Binary without line breaks; lists with one space between items; an enumeration's
//! value in the canonical form of its base type (strings as the schema gives them).
//!
//! Lists (7.1.11): each item in the representation of the item type; String (and
//! restricted-character-set) items go through the value string table of the attribute or
//! element, as whole values do (7.1.11 sends each item to section 7, which sends String values
//! to the string table, 7.3), which is what EXIficient does (checked on its bytes): the caller
//! gives [`encode_with`] and [`decode_with`] its table as an [`ItemStrings`].
//!
//! The decoder does not check the ranges of date-time fields (month 13, February 30, hour 25,
//! timezone +15:00) nor of a float's exponent: EXIficient writes such values when given them
//! and reads them back as they are, and so does this decoder.
//!
//! Arbitrary-size integers: Integer, Unsigned Integer, Decimal's parts and fractional seconds
//! of up to [`MAX_BIG_DIGITS`] decimal digits are written (longer ones are strings); the decoder
//! reads unsigned integers of up to [`MAX_BIG_OCTETS`](crate::bits::MAX_BIG_OCTETS) octets.

use binxml_core::Result;
use binxml_schema::datatypes::{self, Builtin, DateTimeValue, NoNamespaces, Value};

use super::datatype::{DateTimeKind, ExiType};
use crate::bits::{Big, BitReader, BitWriter, MAX_BIG_DIGITS, char_len, width};

/// The exponent that marks INF, -INF and NaN (7.1.4).
const SPECIAL_EXPONENT: i64 = -(1 << 14);
/// Date-time fields (7.1.8): year offset, field widths, timezone offset.
const YEAR_OFFSET: i64 = 2000;
const MONTHDAY_BITS: u32 = 9;
const TIME_BITS: u32 = 17;
const TIMEZONE_BITS: u32 = 11;
const TIMEZONE_OFFSET: i32 = 14 * 64;
/// The most items a list of zero-width items (an n-bit type of one value) may have on
/// decoding; other lists are bounded by the bits left.
const MAX_ZERO_WIDTH_ITEMS: u64 = 1 << 16;

/// A value checked and parsed, ready to be written (so that nothing is written when some part
/// of it, a list item, cannot be represented).
enum Prepared<'a> {
    Binary(Vec<u8>),
    Boolean(bool),
    NBit(u32, u32),
    Decimal(Num<'a>),
    Float(i64, i64),
    Integer(Num<'a>),
    Unsigned(Num<'a>),
    DateTime(DateTimeKind, DateTimeValue),
    /// A String or restricted-character-set item of a list: through the string table.
    Item(&'a ExiType, &'a str),
    List(Vec<Prepared<'a>>),
}

/// The value string table as the String items of a list use it. EXIficient puts each String
/// (or restricted-character-set) item of a list through the string table of the attribute or
/// element, as it does whole values: a local or global hit, or the length + 2 and the literal
/// (7.1.11 says each item is represented "according to its type (see 7)", and section 7 sends
/// String values to the string table, 7.3); checked on EXIficient's bytes.
pub(crate) trait ItemStrings {
    /// Writes the String item `s` of representation `t` (`String` or `Restricted`): a hit, or
    /// a miss with [`encode_string_literal`] (and the table learns it).
    fn write_item(&mut self, t: &ExiType, s: &str, w: &mut BitWriter);
    /// Reads a String item (a hit or a literal, with [`decode_string_literal`]).
    fn read_item(&mut self, t: &ExiType, r: &mut BitReader, out: &mut String) -> Result<()>;
}

/// A list's String items through the stream's string table, in the value partitions of
/// `name` (the attribute's or the element's).
pub(crate) struct TableItems<'t> {
    pub(crate) t: &'t mut crate::tables::Tables,
    pub(crate) name: crate::tables::NameId,
    pub(crate) max_len: usize,
}

impl ItemStrings for TableItems<'_> {
    fn write_item(&mut self, t: &ExiType, s: &str, w: &mut BitWriter) {
        self.t
            .write_value_with(w, self.name, s, |w, s| encode_string_literal(t, s, w));
    }
    fn read_item(&mut self, t: &ExiType, r: &mut BitReader, out: &mut String) -> Result<()> {
        let v = self
            .t
            .read_value_string_with(r, self.name, self.max_len, |r, len, o| {
                decode_string_literal(t, len, r, o)
            })?;
        out.push_str(&v);
        Ok(())
    }
}

/// Whether `lexical` can be written in representation `t` (strings always can; a list of
/// String items is a list of strings).
pub(crate) fn representable(t: &ExiType, lexical: &str) -> bool {
    match t {
        ExiType::String | ExiType::Restricted(_) => true,
        _ if string_items(t) => true,
        _ => prepare(t, lexical).is_some(),
    }
}

/// No string table: a list of String items cannot be written or read without one.
struct NoTable;

impl ItemStrings for NoTable {
    fn write_item(&mut self, _: &ExiType, _: &str, _: &mut BitWriter) {
        unreachable!("prepare refuses String list items without a string table")
    }
    fn read_item(&mut self, _: &ExiType, r: &mut BitReader, _: &mut String) -> Result<()> {
        Err(r.error("a list of strings needs the string table"))
    }
}

/// Whether a list of `t` needs the string table.
fn string_items(t: &ExiType) -> bool {
    matches!(t, ExiType::List(item) if matches!(**item, ExiType::String | ExiType::Restricted(_)))
}

/// Writes `lexical` in representation `t` and returns true; returns false and writes nothing
/// when the value cannot be represented. `String` and `Restricted` values go through the
/// string table, which the caller handles (with [`encode_string_literal`] for a miss); given
/// them, this writes a String (length, then characters). A list of String items needs the
/// string table: [`encode_with`] (here it returns false).
pub(crate) fn encode(t: &ExiType, lexical: &str, w: &mut BitWriter) -> bool {
    !string_items(t) && encode_with(t, lexical, w, &mut NoTable, false)
}

/// [`encode`], with the string table for the String items of a list; `canonical` applies
/// Canonical EXI's value rule that the value codecs do not always follow ([`write_date_time`]).
pub(crate) fn encode_with(
    t: &ExiType,
    lexical: &str,
    w: &mut BitWriter,
    strings: &mut dyn ItemStrings,
    canonical: bool,
) -> bool {
    match prepare(t, lexical) {
        Some(p) => {
            write(&p, w, strings, canonical);
            true
        }
        None => false,
    }
}

/// The characters of a string literal (no length): code points for `String` (and any type
/// but `Restricted`), the restricted set's n-bit indices for `Restricted`, with `N` and the
/// code point for a character outside the set (7.1.10.1).
pub(crate) fn encode_string_literal(t: &ExiType, s: &str, w: &mut BitWriter) {
    match t {
        ExiType::Restricted(chars) => rcs_chars(chars, s, w),
        _ => w.chars(s),
    }
}

/// Reads a value of representation `t` and appends its lexical form to `out`. For `String`
/// and `Restricted` this reads a String (length and characters); the string-table forms are
/// the caller's, with [`decode_string_literal`]. A list of String items needs the string
/// table: [`decode_with`] (here it is an error).
pub(crate) fn decode(t: &ExiType, r: &mut BitReader, out: &mut String) -> Result<()> {
    decode_with(t, r, out, &mut NoTable)
}

/// [`decode`], with the string table for the String items of a list.
pub(crate) fn decode_with(
    t: &ExiType,
    r: &mut BitReader,
    out: &mut String,
    strings: &mut dyn ItemStrings,
) -> Result<()> {
    match t {
        ExiType::Base64 => {
            let bytes = read_binary(r)?;
            base64(&bytes, out);
        }
        ExiType::Hex => {
            let bytes = read_binary(r)?;
            for b in bytes {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
        ExiType::Boolean => out.push_str(if r.boolean()? { "true" } else { "false" }),
        ExiType::BooleanPattern => {
            out.push_str(["false", "0", "true", "1"][(r.nbit(2)? & 3) as usize]);
        }
        ExiType::Decimal => {
            let negative = r.boolean()?;
            // Both parts in 64 bits (nearly every decimal): no allocation; else (or at an
            // error) read again as digits of any length.
            let start = r.mark();
            if let Ok((int, frac)) = r.uint().and_then(|i| Ok((i, r.uint()?))) {
                if negative && !(int == 0 && frac == 0) {
                    out.push('-');
                }
                push_digits(out, int);
                out.push('.');
                // The fraction's digits come reversed.
                let mut buf = [0u8; 20];
                let d = digits(frac, &mut buf);
                out.extend(d.iter().rev().map(|&b| b as char));
                return Ok(());
            }
            r.reset(start);
            let mut int = String::new();
            r.uint_digits(&mut int)?;
            let mut frac = String::new();
            r.uint_digits(&mut frac)?;
            if negative && !(int == "0" && frac == "0") {
                out.push('-');
            }
            out.push_str(&int);
            out.push('.');
            out.extend(frac.chars().rev());
        }
        ExiType::Float => {
            let m = read_i64(r, "a float's mantissa")?;
            let e = read_i64(r, "a float's exponent")?;
            if e == SPECIAL_EXPONENT {
                out.push_str(match m {
                    1 => "INF",
                    -1 => "-INF",
                    _ => "NaN",
                });
            } else if m == 0 {
                out.push_str("0E0");
            } else {
                // An exponent beyond ±(2^14-1) is not one 7.1.4 allows, but EXIficient writes
                // one (10E16383 as 1E16384): read it as it is.
                let (mut m, mut e) = (m, e);
                while m % 10 == 0 {
                    m /= 10;
                    e = e.saturating_add(1);
                }
                push_i64(out, m);
                out.push('E');
                push_i64(out, e);
            }
        }
        ExiType::Integer => read_integer(r, out)?,
        ExiType::Unsigned => {
            let start = r.mark();
            match r.uint() {
                Ok(v) => push_digits(out, v),
                Err(_) => {
                    r.reset(start);
                    r.uint_digits(out)?;
                }
            }
        }
        ExiType::NBit { min, max } => {
            let at = r.mark();
            let n = nbit_width(*min, *max);
            let v = *min + i128::from(r.nbit(n)?);
            if v > *max {
                return Err(
                    r.error_at(at, format!("n-bit value {v} is past the range's end {max}"))
                );
            }
            match i64::try_from(v) {
                Ok(v) => push_i64(out, v),
                Err(_) => {
                    use std::fmt::Write;
                    let _ = write!(out, "{v}");
                }
            }
        }
        ExiType::DateTime(kind) => read_date_time(*kind, r, out)?,
        ExiType::String => {
            let len = read_literal_length(r)?;
            r.chars_into(len, out)?;
        }
        ExiType::Restricted(_) => {
            let len = read_literal_length(r)?;
            decode_string_literal(t, len, r, out)?;
        }
        ExiType::List(item) => {
            let at = r.mark();
            let count = r.uint_big()?.to_u64().unwrap_or(u64::MAX);
            let bound = if min_bits(item, r) == 0 {
                MAX_ZERO_WIDTH_ITEMS
            } else {
                r.remaining_bits() / min_bits(item, r)
            };
            if count > bound {
                return Err(r.error_at(
                    at,
                    format!("list of {count} items is longer than the input left can hold"),
                ));
            }
            // EXIficient writes a space after every item.
            for _ in 0..count {
                if matches!(**item, ExiType::String | ExiType::Restricted(_)) {
                    strings.read_item(item, r, out)?;
                } else {
                    decode_with(item, r, out, strings)?;
                }
                out.push(' ');
            }
        }
        ExiType::Enumeration { values, base } => {
            let at = r.mark();
            let i = r.nbit(width(values.len()))? as usize;
            let Some((_, lexical)) = values.get(i) else {
                return Err(r.error_at(
                    at,
                    format!("enumeration index {i} is past the {} values", values.len()),
                ));
            };
            canonical(base, lexical, out);
        }
    }
    Ok(())
}

/// Reads the `len` characters of a string literal (after its length): see
/// [`encode_string_literal`]. The length is checked against the input left first.
pub(crate) fn decode_string_literal(
    t: &ExiType,
    len: usize,
    r: &mut BitReader,
    out: &mut String,
) -> Result<()> {
    let ExiType::Restricted(chars) = t else {
        return r.chars_into(len, out);
    };
    let n = width(chars.len() + 1);
    let min = if r.is_aligned() {
        8
    } else {
        u64::from(n.max(1))
    };
    if (len as u64).saturating_mul(min) > r.remaining_bits() {
        return Err(r.error(format!(
            "string of {len} characters is longer than the input left can hold"
        )));
    }
    out.reserve(len);
    for _ in 0..len {
        let at = r.mark();
        let v = r.nbit(n)? as usize;
        if let Some(&c) = chars.get(v) {
            out.push(c);
        } else if v == chars.len() {
            let cp = r.uint()?;
            match u32::try_from(cp).ok().and_then(char::from_u32) {
                Some(c) => out.push(c),
                None => {
                    return Err(r.error_at(at, format!("{cp:#x} is not a Unicode scalar value")));
                }
            }
        } else {
            return Err(r.error_at(
                at,
                format!(
                    "restricted character {v} is past the set's {} characters",
                    chars.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Checks and parses `lexical` for `t`.
fn prepare<'a>(t: &'a ExiType, lexical: &'a str) -> Option<Prepared<'a>> {
    let parse = |b: Builtin| datatypes::parse(b, lexical, &NoNamespaces).ok();
    Some(match t {
        ExiType::Base64 => match parse(Builtin::Base64Binary)? {
            Value::Base64Binary(b) => Prepared::Binary(b),
            _ => return None,
        },
        ExiType::Hex => match parse(Builtin::HexBinary)? {
            Value::HexBinary(b) => Prepared::Binary(b),
            _ => return None,
        },
        ExiType::Boolean => match parse(Builtin::Boolean)? {
            Value::Boolean(b) => Prepared::Boolean(b),
            _ => return None,
        },
        ExiType::BooleanPattern => {
            let v = match collapse(lexical) {
                "false" => 0,
                "0" => 1,
                "true" => 2,
                "1" => 3,
                _ => return None,
            };
            Prepared::NBit(v, 2)
        }
        ExiType::Decimal => match Num::parse(lexical, true)? {
            d if d.fits() => Prepared::Decimal(d),
            _ => return None,
        },
        ExiType::Float => match parse(Builtin::Double)? {
            Value::Double(f) => {
                let (m, e) = f.exi_mantissa_exponent()?;
                Prepared::Float(m, e)
            }
            _ => return None,
        },
        ExiType::Integer => match Num::parse(lexical, false)? {
            d if d.fits() => Prepared::Integer(d),
            _ => return None,
        },
        ExiType::Unsigned => match Num::parse(lexical, false)? {
            d if d.fits() && !d.negative => Prepared::Unsigned(d),
            _ => return None,
        },
        ExiType::NBit { min, max } => {
            let v = Num::parse(lexical, false)?.to_i128()?;
            if v < *min || v > *max {
                return None;
            }
            Prepared::NBit(u32::try_from(v - min).ok()?, nbit_width(*min, *max))
        }
        ExiType::DateTime(kind) => match parse(builtin(*kind))? {
            Value::DateTime(v) if v.fraction_digits().len() <= MAX_BIG_DIGITS => {
                Prepared::DateTime(*kind, v)
            }
            _ => return None,
        },
        ExiType::String | ExiType::Restricted(_) => Prepared::Item(t, lexical),
        ExiType::List(item) => Prepared::List(
            datatypes::split_list(lexical)
                .map(|tok| prepare(item, tok))
                .collect::<Option<Vec<_>>>()?,
        ),
        ExiType::Enumeration { values, base } => {
            let i = enumeration_index(values, base, lexical)?;
            Prepared::NBit(i as u32, width(values.len()))
        }
    })
}

/// A value parsed for its representation once ([`prepare_value`]), written later with
/// [`write_prepared`]: what an encoder that must choose an event code by whether the value is
/// representable uses, so that it parses the value only once.
pub(crate) struct PreparedValue<'a>(Prepared<'a>);

/// The value of `lexical` in representation `t` (not `String` or `Restricted`, whose values go
/// through the string table), or `None` when it cannot be represented.
pub(crate) fn prepare_value<'a>(t: &'a ExiType, lexical: &'a str) -> Option<PreparedValue<'a>> {
    prepare(t, lexical).map(PreparedValue)
}

/// Writes a value from [`prepare_value`] (a list's String items through `strings`), in
/// Canonical EXI's form when `canonical`.
pub(crate) fn write_prepared(
    p: &PreparedValue<'_>,
    w: &mut BitWriter,
    strings: &mut dyn ItemStrings,
    canonical: bool,
) {
    write(&p.0, w, strings, canonical)
}

/// Writes a prepared value.
fn write(p: &Prepared<'_>, w: &mut BitWriter, strings: &mut dyn ItemStrings, canonical: bool) {
    match p {
        Prepared::Binary(b) => {
            w.uint(b.len() as u64);
            for &o in b {
                w.octet(o);
            }
        }
        Prepared::Boolean(b) => w.boolean(*b),
        Prepared::NBit(v, n) => w.nbit(*v, *n),
        Prepared::Decimal(d) => {
            w.boolean(d.negative);
            w.uint_digits(d.int);
            uint_digits_reversed(w, d.frac);
        }
        Prepared::Float(m, e) => {
            write_i64(w, *m);
            write_i64(w, *e);
        }
        Prepared::Integer(d) => match d.to_i64() {
            Some(v) => write_i64(w, v),
            None => {
                w.boolean(d.negative);
                if d.negative {
                    let mut b = Big::from_decimal(d.int);
                    b.sub_one();
                    w.uint_big(&b);
                } else {
                    w.uint_digits(d.int);
                }
            }
        },
        Prepared::Unsigned(d) => w.uint_digits(d.int),
        Prepared::DateTime(kind, v) => write_date_time(*kind, v, w, canonical),
        Prepared::Item(t, s) => {
            w.uint(char_len(s) as u64);
            encode_string_literal(t, s, w);
        }
        Prepared::List(items) => {
            w.uint(items.len() as u64);
            for i in items {
                match i {
                    Prepared::Item(t, s) => strings.write_item(t, s, w),
                    _ => write(i, w, strings, canonical),
                }
            }
        }
    }
}

/// XML whitespace collapsing for a single token: leading and trailing spaces removed (inner
/// ones make the value invalid for every type that collapses).
fn collapse(s: &str) -> &str {
    s.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// A decimal number (xs:decimal, or an integer) as its sign and digits, borrowed from its
/// lexical form and normalized as [`Decimal`](datatypes::Decimal) normalizes them: no leading zeros in `int`
/// (`"0"` when it has no other digit), no trailing zeros in `frac`, no negative zero. What an
/// encoder needs of a value it writes, without the two strings a `Decimal` allocates.
#[derive(Clone, Copy, Debug)]
struct Num<'a> {
    negative: bool,
    int: &'a str,
    frac: &'a str,
}

impl<'a> Num<'a> {
    /// Parses `lexical` as `datatypes::parse` parses an xs:decimal (`fraction_allowed`) or
    /// xs:integer: XML whitespace around it dropped (whitespace inside is refused here as it
    /// is there after collapsing, since a space is not a digit), `[+-]?` then digits with an
    /// optional `.` and fraction digits, at least one digit (see [`Decimal::parse`](datatypes::Decimal::parse)).
    fn parse(lexical: &'a str, fraction_allowed: bool) -> Option<Num<'a>> {
        let s = collapse(lexical);
        let (negative, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = match body.split_once('.') {
            Some(_) if !fraction_allowed => return None,
            Some((i, f)) => (i, f),
            None => (body, ""),
        };
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let zero = int.is_empty() && frac.is_empty();
        Some(Num {
            negative: negative && !zero,
            int: if int.is_empty() { "0" } else { int },
            frac,
        })
    }

    /// Whether its digits are few enough to be written (see [`MAX_BIG_DIGITS`]).
    fn fits(&self) -> bool {
        self.int.len() <= MAX_BIG_DIGITS && self.frac.len() <= MAX_BIG_DIGITS
    }

    /// The value as an `i128` when it is an integer in range ([`Decimal::to_i128`](datatypes::Decimal::to_i128)).
    fn to_i128(self) -> Option<i128> {
        if !self.frac.is_empty() || self.int.len() > 39 {
            return None;
        }
        let mag: u128 = self.int.parse().ok()?;
        if self.negative {
            0i128.checked_sub_unsigned(mag)
        } else {
            i128::try_from(mag).ok()
        }
    }

    /// The value as an `i64` when it is an integer in range ([`Decimal::to_i64`](datatypes::Decimal::to_i64)).
    fn to_i64(self) -> Option<i64> {
        if !self.frac.is_empty() || self.int.len() > 19 {
            return None;
        }
        // At most 19 digits: below 2^64.
        let mag: u64 = self.int.parse().ok()?;
        if self.negative {
            0i64.checked_sub_unsigned(mag)
        } else {
            i64::try_from(mag).ok()
        }
    }
}

/// Writes the digits of `digits` in reverse order as an Unsigned Integer (a decimal's or a
/// time's fraction, 7.1.3 and 7.1.8: reversed so that its leading zeros count).
fn uint_digits_reversed(w: &mut BitWriter, digits: &str) {
    let mut buf = [0u8; 40];
    if digits.len() <= buf.len() {
        let buf = &mut buf[..digits.len()];
        for (b, d) in buf.iter_mut().zip(digits.bytes().rev()) {
            *b = d;
        }
        w.uint_digits(std::str::from_utf8(buf).unwrap_or_default());
    } else {
        let rev: String = digits.chars().rev().collect();
        w.uint_digits(&rev);
    }
}

/// The width of an n-bit integer over `min..=max` (7.1.5, 7.1.9).
fn nbit_width(min: i128, max: i128) -> u32 {
    width(usize::try_from(max - min).map_or(usize::MAX, |r| r.saturating_add(1)))
}

/// The XML Schema type of a date-time representation.
fn builtin(kind: DateTimeKind) -> Builtin {
    match kind {
        DateTimeKind::DateTime => Builtin::DateTime,
        DateTimeKind::Time => Builtin::Time,
        DateTimeKind::Date => Builtin::Date,
        DateTimeKind::GYearMonth => Builtin::GYearMonth,
        DateTimeKind::GYear => Builtin::GYear,
        DateTimeKind::GMonthDay => Builtin::GMonthDay,
        DateTimeKind::GDay => Builtin::GDay,
        DateTimeKind::GMonth => Builtin::GMonth,
    }
}

/// An Integer (7.1.5) that fits in an `i64`.
fn write_i64(w: &mut BitWriter, v: i64) {
    if v < 0 {
        w.boolean(true);
        w.uint(!v as u64); // -v - 1
    } else {
        w.boolean(false);
        w.uint(v as u64);
    }
}

/// Reads an Integer that must fit in an `i64`.
fn read_i64(r: &mut BitReader, what: &str) -> Result<i64> {
    let at = r.mark();
    let negative = r.boolean()?;
    let mag = r
        .uint()
        .ok()
        .and_then(|m| i64::try_from(m).ok())
        .ok_or_else(|| r.error_at(at, format!("{what} does not fit in 64 bits")))?;
    Ok(if negative { !mag } else { mag })
}

/// The decimal digits of `v`, in the end of `buf`.
fn digits(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[i..];
        }
    }
}

/// Appends ASCII digits (as characters: no UTF-8 check of what is known to be ASCII).
#[inline]
fn push_ascii(out: &mut String, digits: &[u8]) {
    out.reserve(digits.len());
    for &d in digits {
        out.push(char::from(d));
    }
}

/// Appends the decimal digits of `v` (without the formatting machinery, which costs several
/// times as much on the short numbers of typical values).
#[inline]
fn push_digits(out: &mut String, v: u64) {
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
        return;
    }
    let mut buf = [0u8; 20];
    push_ascii(out, digits(v, &mut buf));
}

/// Appends the decimal digits of `v`, with leading zeros to at least `width` digits (`{v:0width$}`).
#[inline]
fn push_padded(out: &mut String, v: u64, width: usize) {
    if width == 2 && v < 100 {
        // A date-time's month, day, hours, minutes, seconds, timezone fields.
        let v = v as u8;
        push_ascii(out, &[b'0' + v / 10, b'0' + v % 10]);
        return;
    }
    if width == 4 && v < 10_000 {
        // A year.
        let v = v as u16;
        let d = |n: u16| b'0' + (n % 10) as u8;
        push_ascii(out, &[d(v / 1000), d(v / 100), d(v / 10), d(v)]);
        return;
    }
    let mut buf = [0u8; 20];
    let d = digits(v, &mut buf);
    for _ in d.len()..width {
        out.push('0');
    }
    push_ascii(out, d);
}

/// Appends `v` in decimal, with `-` when negative.
fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_digits(out, v.unsigned_abs());
}

/// Reads an Integer of any size as decimal digits.
fn read_integer(r: &mut BitReader, out: &mut String) -> Result<()> {
    let negative = r.boolean()?;
    let save = r.mark();
    match r.uint() {
        Ok(m) if !negative => push_digits(out, m),
        Ok(m) if m < u64::MAX => {
            out.push('-');
            push_digits(out, m + 1);
        }
        _ => {
            r.reset(save);
            let mut b = r.uint_big()?;
            if negative {
                b.add_one();
                out.push('-');
            }
            b.write_decimal(out);
        }
    }
    Ok(())
}

/// Reads a String's length, bounded by the input left.
fn read_literal_length(r: &mut BitReader) -> Result<usize> {
    let at = r.mark();
    let len = r.uint_big()?.to_u64().unwrap_or(u64::MAX);
    if len > r.remaining_bits() {
        return Err(r.error_at(
            at,
            format!("string of {len} characters is longer than the input left can hold"),
        ));
    }
    Ok(len as usize)
}

/// The fewest bits a value of `t` takes (to bound list lengths by the input left).
fn min_bits(t: &ExiType, r: &BitReader) -> u64 {
    let aligned = r.is_aligned();
    let nbit = |n: u32| -> u64 {
        if n == 0 {
            0
        } else if aligned {
            8
        } else {
            u64::from(n)
        }
    };
    match t {
        ExiType::NBit { min, max } => nbit(nbit_width(*min, *max)),
        ExiType::Enumeration { values, .. } => nbit(width(values.len())),
        ExiType::Boolean => nbit(1),
        ExiType::BooleanPattern => nbit(2),
        ExiType::DateTime(_) => nbit(1),
        // Everything else starts with an unsigned integer or a sign: at least a bit.
        _ => 1,
    }
}

/// Binary (7.1.1): a length, then the octets.
fn read_binary(r: &mut BitReader) -> Result<Vec<u8>> {
    let at = r.mark();
    let len = r.uint_big()?.to_u64().unwrap_or(u64::MAX);
    if len.saturating_mul(8) > r.remaining_bits() {
        return Err(r.error_at(
            at,
            format!(
                "binary value of {len} octets is longer than the {} octets left",
                r.remaining_bits() / 8
            ),
        ));
    }
    let mut b = Vec::with_capacity(len as usize);
    for _ in 0..len {
        b.push(r.bits(8)? as u8);
    }
    Ok(b)
}

/// Base64 without line breaks, with padding.
fn base64(bytes: &[u8], out: &mut String) {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(c.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(c.get(2).copied().unwrap_or(0));
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 {
            A[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if c.len() > 2 {
            A[n as usize & 63] as char
        } else {
            '='
        });
    }
}

/// Restricted characters (7.1.10.1): each character's index in the sorted set, in
/// ⌈log2(N+1)⌉ bits, or N followed by the code point.
fn rcs_chars(chars: &[char], s: &str, w: &mut BitWriter) {
    let n = width(chars.len() + 1);
    for c in s.chars() {
        match chars.binary_search(&c) {
            Ok(i) => w.nbit(i as u32, n),
            Err(_) => {
                w.nbit(chars.len() as u32, n);
                w.uint(c as u64);
            }
        }
    }
}

/// The index of `lexical` among an enumeration's values (7.2): the first value equal to it
/// in the value space of the enumeration's type; strings compare as written.
fn enumeration_index(values: &[(Value, String)], base: &ExiType, lexical: &str) -> Option<usize> {
    let parse = |b: Builtin| datatypes::parse(b, lexical, &NoNamespaces).ok();
    let v = match &values.first()?.0 {
        Value::String(_) | Value::AnyUri(_) => {
            return values.iter().position(|(v, _)| match v {
                Value::String(s) | Value::AnyUri(s) => s == lexical,
                _ => false,
            });
        }
        Value::Decimal(_) => parse(if matches!(base, ExiType::Decimal) {
            Builtin::Decimal
        } else {
            Builtin::Integer
        })?,
        Value::Float(_) => parse(Builtin::Float)?,
        Value::Double(_) => parse(Builtin::Double)?,
        Value::Boolean(_) => parse(Builtin::Boolean)?,
        Value::DateTime(d) => parse(d.kind())?,
        Value::Duration(_) => parse(Builtin::Duration)?,
        Value::HexBinary(_) => parse(Builtin::HexBinary)?,
        Value::Base64Binary(_) => parse(Builtin::Base64Binary)?,
        _ => return None,
    };
    values.iter().position(|(x, _)| x.same_value(&v))
}

/// The lexical form EXIficient gives an enumeration's value: its base type's decoded form
/// (what writing it and reading it back gives); strings as they are.
fn canonical(base: &ExiType, lexical: &str, out: &mut String) {
    if matches!(
        base,
        ExiType::String | ExiType::Restricted(_) | ExiType::Enumeration { .. } | ExiType::List(_)
    ) {
        out.push_str(lexical);
        return;
    }
    let mut w = BitWriter::new(false);
    if encode(base, lexical, &mut w) {
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, false, 0);
        let mark = out.len();
        if decode(base, &mut r, out).is_ok() {
            return;
        }
        out.truncate(mark);
    }
    out.push_str(lexical);
}

/// Date-Time (7.1.8, Table 7-4). EXI 1.0 allows an hour of 24 (`24:00:00`, the end of the
/// day); Canonical EXI 4.5.5 does not: with `canonical` it is written as 00:00:00 of the next
/// day (the day, month and year carried as the proleptic Gregorian calendar has them; a time
/// without a date just becomes 00:00:00).
fn write_date_time(kind: DateTimeKind, v: &DateTimeValue, w: &mut BitWriter, canonical: bool) {
    use DateTimeKind::*;
    let mut year = v.year().unwrap_or(YEAR_OFFSET);
    let mut month = u32::from(v.month().unwrap_or(0));
    let mut day = u32::from(v.day().unwrap_or(0));
    let mut h = u32::from(v.hour().unwrap_or(0));
    if canonical && h == 24 && matches!(kind, DateTime | Time) {
        h = 0;
        if kind == DateTime {
            day += 1;
            if day > days_in_month(year, month) {
                day = 1;
                month += 1;
                if month > 12 {
                    month = 1;
                    year = year.saturating_add(1);
                }
            }
        }
    }
    if matches!(kind, DateTime | Date | GYearMonth | GYear) {
        write_i64(w, year.saturating_sub(YEAR_OFFSET));
    }
    if matches!(
        kind,
        DateTime | Date | GYearMonth | GMonthDay | GDay | GMonth
    ) {
        w.nbit(month * 32 + day, MONTHDAY_BITS);
    }
    if matches!(kind, DateTime | Time) {
        let m = u32::from(v.minute().unwrap_or(0));
        let s = u32::from(v.second().unwrap_or(0));
        w.nbit((h * 64 + m) * 64 + s, TIME_BITS);
        let frac = v.fraction_digits();
        if frac.is_empty() {
            w.boolean(false);
        } else {
            w.boolean(true);
            uint_digits_reversed(w, frac);
        }
    }
    match v.timezone_minutes() {
        None => w.boolean(false),
        Some(tz) => {
            w.boolean(true);
            let tz = i32::from(tz);
            let (h, m) = (tz.abs() / 60, tz.abs() % 60);
            let code = tz.signum() * (h * 64 + m) + TIMEZONE_OFFSET;
            w.nbit(code as u32, TIMEZONE_BITS);
        }
    }
}

/// The days of `month` (1-12) in `year` of the proleptic Gregorian calendar.
fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Reads a Date-Time value and writes its lexical form.
fn read_date_time(kind: DateTimeKind, r: &mut BitReader, out: &mut String) -> Result<()> {
    use DateTimeKind::*;
    if matches!(kind, DateTime | Date | GYearMonth | GYear) {
        let at = r.mark();
        let year = read_i64(r, "a year")?
            .checked_add(YEAR_OFFSET)
            .ok_or_else(|| r.error_at(at, "year out of range"))?;
        if year < 0 {
            out.push('-');
        }
        push_padded(out, year.unsigned_abs(), 4);
    }
    if matches!(
        kind,
        DateTime | Date | GYearMonth | GMonthDay | GDay | GMonth
    ) {
        // No range checks on the fields: EXIficient writes what it was given (month 13,
        // February 30, hour 25, timezone +15:00, ...) and reads them back as they are.
        let md = r.nbit(MONTHDAY_BITS)?;
        let (month, day) = (md / 32, md % 32);
        match kind {
            GMonth => {
                out.push_str("--");
                push_padded(out, month.into(), 2);
            }
            // gDay's MonthDay is the day (month 0); EXIficient prints the whole field.
            GDay => {
                out.push_str("---");
                push_padded(out, md.into(), 2);
            }
            GMonthDay => {
                out.push_str("--");
                push_padded(out, month.into(), 2);
                out.push('-');
                push_padded(out, day.into(), 2);
            }
            GYearMonth => {
                out.push('-');
                push_padded(out, month.into(), 2);
            }
            _ => {
                out.push('-');
                push_padded(out, month.into(), 2);
                out.push('-');
                push_padded(out, day.into(), 2);
            }
        }
    }
    if matches!(kind, DateTime | Time) {
        let t = r.nbit(TIME_BITS)?;
        let (h, m, s) = (t / 4096, (t / 64) % 64, t % 64);
        if kind == DateTime {
            out.push('T');
        }
        push_padded(out, h.into(), 2);
        out.push(':');
        push_padded(out, m.into(), 2);
        out.push(':');
        push_padded(out, s.into(), 2);
        if r.boolean()? {
            let mut digits = String::new();
            r.uint_digits(&mut digits)?;
            if digits != "0" {
                out.push('.');
                out.extend(digits.chars().rev());
            }
        }
    }
    if r.boolean()? {
        let tz = r.nbit(TIMEZONE_BITS)? as i32 - TIMEZONE_OFFSET;
        let (h, m) = (tz.abs() / 64, tz.abs() % 64);
        if tz == 0 {
            out.push('Z');
        } else {
            out.push(if tz < 0 { '-' } else { '+' });
            push_padded(out, h.unsigned_abs().into(), 2);
            out.push(':');
            push_padded(out, m.unsigned_abs().into(), 2);
        }
    }
    Ok(())
}

/// For the integration tests (`tests/informed_values.rs`): a value after an EXI header and
/// event codes, as a whole stream.
#[doc(hidden)]
pub mod for_tests {
    use super::*;

    pub use crate::informed::datatype::{DateTimeKind, ExiType};

    /// The values of one element, as a fresh string table has them: local hits (0 and the
    /// id), misses (length + 2 and the literal, then learned when not empty).
    #[derive(Default)]
    struct Table(Vec<String>);

    impl ItemStrings for Table {
        fn write_item(&mut self, t: &ExiType, s: &str, w: &mut BitWriter) {
            match self.0.iter().position(|x| x == s) {
                Some(i) => {
                    w.uint(0);
                    w.nbit(i as u32, width(self.0.len()));
                }
                None => {
                    w.uint(char_len(s) as u64 + 2);
                    encode_string_literal(t, s, w);
                    if !s.is_empty() {
                        self.0.push(s.to_string());
                    }
                }
            }
        }
        fn read_item(&mut self, t: &ExiType, r: &mut BitReader, out: &mut String) -> Result<()> {
            match r.uint()? {
                0 => {
                    let i = r.nbit(width(self.0.len()))? as usize;
                    let v = self.0.get(i).ok_or_else(|| r.error("no such value"))?;
                    out.push_str(v);
                }
                1 => return Err(r.error("global hit")),
                n => {
                    let mut v = String::new();
                    decode_string_literal(t, (n - 2) as usize, r, &mut v)?;
                    out.push_str(&v);
                    if !v.is_empty() {
                        self.0.push(v);
                    }
                }
            }
            Ok(())
        }
    }

    fn start(aligned: bool, codes: &[(u32, u32)]) -> BitWriter {
        let mut w = BitWriter::new(false);
        w.bits(0x80, 8);
        w.set_aligned(aligned);
        for &(v, n) in codes {
            w.nbit(v, n);
        }
        w
    }

    /// The header `0x80`, the event codes (value, bits), then the value (`None` when it
    /// cannot be represented), padded.
    pub fn encode(
        t: &ExiType,
        lexical: &str,
        aligned: bool,
        codes: &[(u32, u32)],
    ) -> Option<Vec<u8>> {
        let mut w = start(aligned, codes);
        super::encode_with(t, lexical, &mut w, &mut Table::default(), false).then(|| w.finish())
    }

    /// As [`encode`], the value a string-table miss: length + 2, then the literal.
    pub fn encode_miss(t: &ExiType, lexical: &str, aligned: bool, codes: &[(u32, u32)]) -> Vec<u8> {
        let mut w = start(aligned, codes);
        w.uint(char_len(lexical) as u64 + 2);
        encode_string_literal(t, lexical, &mut w);
        w.finish()
    }

    fn skip<'a>(bytes: &'a [u8], aligned: bool, codes: &[(u32, u32)]) -> Result<BitReader<'a>> {
        let mut r = BitReader::new(bytes, false, 0);
        r.bits(8)?;
        r.set_aligned(aligned);
        for &(_, n) in codes {
            r.nbit(n)?;
        }
        Ok(r)
    }

    /// Reads the value of a stream [`encode`] writes.
    pub fn decode(
        t: &ExiType,
        bytes: &[u8],
        aligned: bool,
        codes: &[(u32, u32)],
    ) -> Result<String> {
        let mut r = skip(bytes, aligned, codes)?;
        let mut out = String::new();
        super::decode_with(t, &mut r, &mut out, &mut Table::default())?;
        Ok(out)
    }

    /// Reads the value of a stream [`encode_miss`] writes.
    pub fn decode_miss(
        t: &ExiType,
        bytes: &[u8],
        aligned: bool,
        codes: &[(u32, u32)],
    ) -> Result<String> {
        let mut r = skip(bytes, aligned, codes)?;
        let n = r.uint()?;
        let mut out = String::new();
        decode_string_literal(t, n.saturating_sub(2) as usize, &mut r, &mut out)?;
        Ok(out)
    }

    /// Random bytes into every decoder: errors, never a panic.
    pub fn decode_raw(t: &ExiType, bytes: &[u8], aligned: bool) -> Result<String> {
        let mut r = BitReader::new(bytes, aligned, 0);
        let mut out = String::new();
        super::decode_with(t, &mut r, &mut out, &mut Table::default())?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(t: &ExiType, s: &str) -> Option<Vec<u8>> {
        let mut w = BitWriter::new(false);
        encode(t, s, &mut w).then(|| w.finish())
    }

    fn round(t: &ExiType, s: &str) -> String {
        for aligned in [false, true] {
            let mut w = BitWriter::new(aligned);
            assert!(encode(t, s, &mut w), "{s:?} as {t:?}");
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes, aligned, 0);
            let mut out = String::new();
            decode(t, &mut r, &mut out).unwrap();
            if !aligned {
                return out;
            }
        }
        unreachable!()
    }

    /// `Num` (borrowed) accepts and normalizes what `datatypes::parse` makes a `Decimal` of.
    #[test]
    fn numbers_parse_as_the_schema_crate_parses_them() {
        let cases = [
            "0",
            "-0",
            "+0",
            "007",
            "-007.500",
            ".5",
            "5.",
            "-.0",
            "1.",
            ".",
            "",
            "-",
            "+",
            " 12 ",
            "\t-3.25\n",
            "1 2",
            "1.2.3",
            "1e5",
            "--1",
            "+-1",
            "0.000",
            "00.0100",
            "١",
            "12a",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "170141183460469231731687303715884105727",
            "-170141183460469231731687303715884105728",
            "340282366920938463463374607431768211456",
        ];
        for s in cases {
            for (b, frac) in [(Builtin::Decimal, true), (Builtin::Integer, false)] {
                let ours = Num::parse(s, frac);
                let theirs = match datatypes::parse(b, s, &NoNamespaces) {
                    Ok(Value::Decimal(d)) => Some(d),
                    _ => None,
                };
                assert_eq!(ours.is_some(), theirs.is_some(), "{s:?} as {b:?}");
                if let (Some(n), Some(d)) = (ours, theirs) {
                    assert_eq!(n.negative, d.is_negative(), "{s:?}");
                    assert_eq!(n.int, d.integral_digits(), "{s:?}");
                    assert_eq!(n.frac, d.fraction_digits(), "{s:?}");
                    assert_eq!(n.to_i64(), d.to_i64(), "{s:?}");
                    assert_eq!(n.to_i128(), d.to_i128(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn integers() {
        assert_eq!(enc(&ExiType::Integer, "0"), Some(vec![0, 0]));
        // -1: sign 1, magnitude - 1 = 0.
        assert_eq!(enc(&ExiType::Integer, " -1 "), Some(vec![0x80, 0]));
        assert_eq!(round(&ExiType::Integer, "+007"), "7");
        assert_eq!(round(&ExiType::Integer, "-0"), "0");
        for v in [
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551616",
            "-18446744073709551617",
            "-123456789012345678901234567890",
        ] {
            assert_eq!(round(&ExiType::Integer, v), v);
            if !v.starts_with('-') {
                assert_eq!(round(&ExiType::Unsigned, v), v);
            }
        }
        assert!(enc(&ExiType::Unsigned, "-1").is_none());
        assert!(enc(&ExiType::Integer, "1.0").is_none());
        assert!(enc(&ExiType::Integer, "1 2").is_none());
        let nbit = ExiType::NBit { min: -5, max: 10 };
        assert_eq!(enc(&nbit, "-5"), Some(vec![0]));
        assert_eq!(enc(&nbit, "10"), Some(vec![15 << 4]));
        assert!(enc(&nbit, "11").is_none());
        assert_eq!(round(&nbit, "-3"), "-3");
    }

    #[test]
    fn decimals_and_floats() {
        assert_eq!(round(&ExiType::Decimal, "1"), "1.0");
        assert_eq!(round(&ExiType::Decimal, "-0.050"), "-0.05");
        assert_eq!(round(&ExiType::Decimal, "-0"), "0.0");
        assert_eq!(round(&ExiType::Decimal, ".5"), "0.5");
        assert_eq!(round(&ExiType::Decimal, "1."), "1.0");
        assert_eq!(round(&ExiType::Float, "1500"), "15E2");
        assert_eq!(round(&ExiType::Float, "1.5"), "15E-1");
        assert_eq!(round(&ExiType::Float, "-0"), "0E0");
        assert_eq!(round(&ExiType::Float, "INF"), "INF");
        assert_eq!(round(&ExiType::Float, "NaN"), "NaN");
        assert!(enc(&ExiType::Float, "1E16384").is_none());
        assert!(enc(&ExiType::Float, "+INF").is_none());
    }

    #[test]
    fn dates() {
        let dt = ExiType::DateTime(DateTimeKind::DateTime);
        assert_eq!(
            round(&dt, "2001-02-03T04:05:06.070+01:30"),
            "2001-02-03T04:05:06.07+01:30"
        );
        assert_eq!(round(&dt, "-0044-03-15T12:00:00Z"), "-0044-03-15T12:00:00Z");
        assert_eq!(round(&dt, "12345-01-01T00:00:00"), "12345-01-01T00:00:00");
        assert_eq!(round(&dt, "2000-01-01T24:00:00"), "2000-01-01T24:00:00");
        let d = |k| ExiType::DateTime(k);
        assert_eq!(round(&d(DateTimeKind::GDay), "---05-14:00"), "---05-14:00");
        assert_eq!(round(&d(DateTimeKind::GMonth), "--12"), "--12");
        assert_eq!(round(&d(DateTimeKind::GMonthDay), "--02-29"), "--02-29");
        assert_eq!(round(&d(DateTimeKind::GYearMonth), "1999-12"), "1999-12");
        assert_eq!(round(&d(DateTimeKind::Time), "23:59:59.000"), "23:59:59");
        assert!(enc(&dt, "2001-13-01T00:00:00").is_none());
    }

    /// Canonical EXI 4.5.5: an hour of 24 is 00:00:00 of the next day, carried through month
    /// and year ends and February of leap years; without `canonical` it stays 24.
    #[test]
    fn canonical_hour_24() {
        let canon = |t: &ExiType, s: &str| {
            let mut w = BitWriter::new(false);
            assert!(encode_with(t, s, &mut w, &mut NoTable, true), "{s}");
            w.finish()
        };
        let dt = ExiType::DateTime(DateTimeKind::DateTime);
        for (a, b) in [
            ("2026-11-28T24:00:00Z", "2026-11-29T00:00:00Z"),
            ("2026-11-30T24:00:00", "2026-12-01T00:00:00"),
            ("2026-12-31T24:00:00+01:00", "2027-01-01T00:00:00+01:00"),
            ("2024-02-28T24:00:00", "2024-02-29T00:00:00"),
            ("2024-02-29T24:00:00", "2024-03-01T00:00:00"),
            ("2023-02-28T24:00:00", "2023-03-01T00:00:00"),
            ("1900-02-28T24:00:00", "1900-03-01T00:00:00"),
            ("2000-02-28T24:00:00", "2000-02-29T00:00:00"),
        ] {
            assert_eq!(canon(&dt, a), canon(&dt, b), "{a}");
            assert_ne!(enc(&dt, a), enc(&dt, b), "{a} without canonical");
        }
        let time = ExiType::DateTime(DateTimeKind::Time);
        assert_eq!(canon(&time, "24:00:00"), canon(&time, "00:00:00"));
        // Other values are written as without the option.
        for s in ["2026-11-28T23:59:59.5Z", "2026-11-28T00:00:00"] {
            assert_eq!(Some(canon(&dt, s)), enc(&dt, s));
        }
    }

    #[test]
    fn strings_booleans_binary_lists() {
        assert_eq!(round(&ExiType::Boolean, " 1 "), "true");
        assert_eq!(round(&ExiType::BooleanPattern, "0"), "0");
        assert_eq!(round(&ExiType::Hex, "0fa1"), "0FA1");
        assert_eq!(round(&ExiType::Base64, "QUJD\nREVG"), "QUJDREVG");
        let rcs = ExiType::Restricted(vec!['0', '1', '2']);
        // "1x2": length 3, then 01, 11 + 'x', 10 (2 bits each).
        let mut w = BitWriter::new(false);
        w.uint(3);
        encode_string_literal(&rcs, "1x😀", &mut w);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, false, 0);
        let mut out = String::new();
        decode(&rcs, &mut r, &mut out).unwrap();
        assert_eq!(out, "1x😀");
        let list = ExiType::List(Box::new(ExiType::Integer));
        assert_eq!(round(&list, " 1  -2\n3 "), "1 -2 3 ");
        assert!(enc(&list, "1 x").is_none());
        assert_eq!(round(&list, ""), "");
    }

    #[test]
    fn hostile_input_never_panics() {
        let types = [
            ExiType::Base64,
            ExiType::Hex,
            ExiType::Boolean,
            ExiType::BooleanPattern,
            ExiType::Decimal,
            ExiType::Float,
            ExiType::Integer,
            ExiType::Unsigned,
            ExiType::NBit { min: -3, max: 4000 },
            ExiType::DateTime(DateTimeKind::DateTime),
            ExiType::DateTime(DateTimeKind::GDay),
            ExiType::String,
            ExiType::Restricted(vec!['a', 'b']),
            ExiType::List(Box::new(ExiType::NBit { min: 0, max: 0 })),
            ExiType::List(Box::new(ExiType::String)),
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..3000 {
            let len = (seed % 40) as usize;
            let mut bytes = Vec::with_capacity(len);
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                bytes.push(seed as u8);
            }
            for t in &types {
                for aligned in [false, true] {
                    let mut r = BitReader::new(&bytes, aligned, 0);
                    let _ = decode(t, &mut r, &mut String::new());
                    let mut r = BitReader::new(&bytes, aligned, 0);
                    let _ = decode_string_literal(t, len * 3, &mut r, &mut String::new());
                }
            }
        }
    }
}
