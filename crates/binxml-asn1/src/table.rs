//! The component-strings block: how the strings table travels inside
//! `Document.component-strings`.
//!
//! Each item of `component-strings` is `(compression-algorithm URI, block)`. The decompressed
//! block is a concatenation of strings, each UTF-8 followed by one zero byte (U+0000 is no XML
//! character, so no infoset string holds one; the encoder keeps any string that does inline).
//! The table is the concatenation of all items' strings, in order. An uncompressed table uses
//! the empty algorithm URI [`NONE`] (earlier versions wrote [`IDENTITY`], still read).

use binxml_core::Format;
use std::io::{Read, Write};

use binxml_core::{Error, Limits, Result};

/// No compression algorithm: the block is the strings themselves (what the encoder writes).
pub const NONE: &str = "";
/// The same, as written by earlier versions (read, not written: 24 bytes more than [`NONE`]).
pub const IDENTITY: &str = "urn:binxml:asn1:identity";

/// Whether `uri` names an uncompressed block.
pub fn is_uncompressed(uri: &str) -> bool {
    uri == NONE || uri == IDENTITY
}
/// bzip2 (as in the paper), block size 900k.
pub const BZIP2: &str = "urn:binxml:asn1:bzip2";
/// Raw DEFLATE (RFC 1951), level 9.
pub const DEFLATE: &str = "urn:binxml:asn1:deflate";
/// A Zstandard frame (RFC 8878), level 19.
pub const ZSTD: &str = "urn:binxml:asn1:zstd";

/// Compression of the component-strings block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compression {
    /// Uncompressed: the block is the strings themselves.
    #[default]
    None,
    /// bzip2 (as in the paper), block size 900k.
    Bzip2,
    /// Raw DEFLATE (RFC 1951), level 9.
    Deflate,
    /// A Zstandard frame (RFC 8878), level 19.
    Zstd,
}

impl Compression {
    /// The algorithm URI written before a block compressed this way: empty for `None`,
    /// `urn:binxml:asn1:bzip2`, `urn:binxml:asn1:deflate`, `urn:binxml:asn1:zstd`.
    pub fn uri(self) -> &'static str {
        match self {
            Compression::None => NONE,
            Compression::Bzip2 => BZIP2,
            Compression::Deflate => DEFLATE,
            Compression::Zstd => ZSTD,
        }
    }

    /// The compression named `none` (or `identity`), `bzip2`, `deflate` or `zstd`; `None` for
    /// any other name.
    pub fn from_name(name: &str) -> Option<Compression> {
        Some(match name {
            "none" | "identity" => Compression::None,
            "bzip2" => Compression::Bzip2,
            "deflate" => Compression::Deflate,
            "zstd" => Compression::Zstd,
            _ => return None,
        })
    }
}

/// Serialises the strings (uncompressed block).
pub fn build_block<'s>(strings: impl Iterator<Item = &'s str>) -> Vec<u8> {
    let mut out = Vec::new();
    for s in strings {
        debug_assert!(!s.contains('\0'));
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    out
}

/// Compresses a block written by [`build_block`] with `c` (`Compression::None` returns it
/// unchanged). Errors: the compressor's, reported as I/O errors of `format`.
pub fn compress(format: Format, c: Compression, block: Vec<u8>) -> Result<Vec<u8>> {
    let io = |e| Error::io(format, e);
    Ok(match c {
        Compression::None => block,
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(&block).map_err(io)?;
            e.finish().map_err(io)?
        }
        Compression::Deflate => {
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(&block).map_err(io)?;
            e.finish().map_err(io)?
        }
        #[cfg(not(target_arch = "wasm32"))]
        Compression::Zstd => zstd::bulk::compress(&block, 19).map_err(io)?,
        #[cfg(target_arch = "wasm32")]
        Compression::Zstd => return Err(no_zstd(format)),
    })
}

/// zstd is a C library, left out of WebAssembly builds.
#[cfg(target_arch = "wasm32")]
fn no_zstd(format: Format) -> Error {
    Error::unsupported(format, "zstd compression is not in the WebAssembly build")
}

/// Decompresses one block, reading at most `budget` bytes.
pub fn decompress(
    format: Format,
    uri: &str,
    block: &[u8],
    budget: usize,
    at: u64,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let cap = (budget as u64).saturating_add(1);
    let bad = |e: std::io::Error| Error::malformed(format, at, format!("corrupt {uri} block: {e}"));
    match uri {
        NONE | IDENTITY => return Ok(block.to_vec()),
        BZIP2 => {
            bzip2::read::BzDecoder::new(block)
                .take(cap)
                .read_to_end(&mut out)
                .map_err(bad)?;
        }
        DEFLATE => {
            flate2::read::DeflateDecoder::new(block)
                .take(cap)
                .read_to_end(&mut out)
                .map_err(bad)?;
        }
        #[cfg(not(target_arch = "wasm32"))]
        ZSTD => {
            let d = zstd::stream::read::Decoder::with_buffer(block).map_err(bad)?;
            d.take(cap).read_to_end(&mut out).map_err(bad)?;
        }
        #[cfg(target_arch = "wasm32")]
        ZSTD => return Err(no_zstd(format).at(at)),
        _ => {
            return Err(Error::unsupported(
                format,
                format!("unknown compression-algorithm {uri:?}"),
            )
            .at(at));
        }
    }
    if out.len() > budget {
        return Err(Error::limit(
            format,
            at,
            "component-strings block decompresses past the size limit",
        ));
    }
    Ok(out)
}

/// Splits a decompressed block into its strings, appending them to `table`.
pub fn parse_block(
    format: Format,
    block: &[u8],
    table: &mut Vec<String>,
    limits: &Limits,
    at: u64,
) -> Result<()> {
    split_block(format, block, limits, table, at, str::to_owned)
}

/// Like [`parse_block`], borrowing the strings when the block is borrowed (an uncompressed
/// block of an octet-aligned encoding).
pub(crate) fn parse_block_cow<'a>(
    format: Format,
    block: std::borrow::Cow<'a, [u8]>,
    table: &mut Vec<std::borrow::Cow<'a, str>>,
    limits: &Limits,
    at: u64,
) -> Result<()> {
    use std::borrow::Cow;
    match block {
        Cow::Borrowed(b) => split_block(format, b, limits, table, at, Cow::Borrowed),
        Cow::Owned(v) => split_block(format, &v, limits, table, at, |s| Cow::Owned(s.to_owned())),
    }
}

/// The strings of `block` appended to `table` (as `conv` makes them). The whole block is validated as UTF-8 once: a zero
/// byte is a character of its own, so the block is valid exactly when each string is.
fn split_block<'b, T>(
    format: Format,
    block: &'b [u8],
    limits: &Limits,
    table: &mut Vec<T>,
    at: u64,
    conv: impl Fn(&'b str) -> T,
) -> Result<()> {
    let bad = |m: String| Error::malformed(format, at, m);
    let Some((&last, body)) = block.split_last() else {
        return Ok(());
    };
    if last != 0 {
        return Err(bad(
            "component-strings block does not end with a zero byte".into()
        ));
    }
    let text = std::str::from_utf8(body).map_err(|e| {
        // the offset of the string that holds the error
        let p = body[..e.valid_up_to()]
            .iter()
            .rposition(|&b| b == 0)
            .map_or(0, |z| z + 1);
        bad(format!("invalid UTF-8 at block offset {p}"))
    })?;
    // room for a string every 16 octets (the table's strings are short): fewer regrowths of a
    // list of thousands
    table.reserve((body.len() / 16).min(limits.max_table_entries).min(1 << 20));
    split_zeros(text, |s| {
        if s.len() > limits.max_string_len {
            return Err(Error::limit(
                format,
                at,
                "component string exceeds the length limit",
            ));
        }
        if table.len() >= limits.max_table_entries {
            return Err(Error::limit(format, at, "too many component strings"));
        }
        table.push(conv(s));
        Ok(())
    })
}

/// Calls `f` with each piece of `text` between zero octets (as `text.split('\0')`), finding
/// the zeros 8 octets at a time: the table's strings are short, a search call per string cost
/// more than the search.
#[inline]
pub(crate) fn split_zeros<'a>(
    text: &'a str,
    mut f: impl FnMut(&'a str) -> Result<()>,
) -> Result<()> {
    const LO: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // the top bit of each zero octet of `w` (no carry crosses octets)
    let zeros = |w: u64| !(((w & LO) + LO) | w | LO);
    let b = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    // 16 octets at a time, past the runs without a zero (most of a long string)
    while i + 16 <= b.len() {
        let z0 = zeros(u64::from_le_bytes(
            b[i..i + 8].try_into().expect("8 octets"),
        ));
        let z1 = zeros(u64::from_le_bytes(
            b[i + 8..i + 16].try_into().expect("8 octets"),
        ));
        if z0 | z1 != 0 {
            for (base, mut z) in [(i, z0), (i + 8, z1)] {
                while z != 0 {
                    let at = base + (z.trailing_zeros() / 8) as usize;
                    // a zero octet is a character boundary
                    f(&text[start..at])?;
                    start = at + 1;
                    z &= z - 1;
                }
            }
        }
        i += 16;
    }
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 octets"));
        // the top bit of each zero octet (no carry crosses octets)
        let mut z = !(((w & LO) + LO) | w | LO);
        while z != 0 {
            let at = i + (z.trailing_zeros() / 8) as usize;
            // a zero octet is a character boundary
            f(&text[start..at])?;
            start = at + 1;
            z &= z - 1;
        }
        i += 8;
    }
    while i < b.len() {
        if b[i] == 0 {
            f(&text[start..i])?;
            start = i + 1;
        }
        i += 1;
    }
    f(&text[start..])
}
