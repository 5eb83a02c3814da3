//! Stand-in for the typed value codecs (written on their own branch).

use super::datatype::ExiType;
use crate::bits::BitWriter;

/// Writes `lexical` in representation `t`; false (nothing written) when it cannot be.
pub(crate) fn encode(_t: &ExiType, _lexical: &str, _w: &mut BitWriter) -> bool {
    false
}

/// Writes a string literal's characters.
pub(crate) fn encode_string_literal(_t: &ExiType, s: &str, w: &mut BitWriter) {
    w.chars(s);
}

/// Reads a value in representation `t`, writing its lexical form.
pub(crate) fn decode(
    _t: &ExiType,
    r: &mut crate::bits::BitReader<'_>,
    _out: &mut String,
) -> binxml_core::Result<()> {
    Err(r.error("typed values are not decoded yet"))
}

/// Reads a string literal's `len` characters.
pub(crate) fn decode_string_literal(
    _t: &ExiType,
    len: usize,
    r: &mut crate::bits::BitReader<'_>,
    out: &mut String,
) -> binxml_core::Result<()> {
    r.chars_into(len, out)
}
