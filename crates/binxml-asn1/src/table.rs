//! The component-strings block: how the strings table travels inside
//! `Document.component-strings`.
//!
//! Each item of `component-strings` is `(compression-algorithm URI, block)`. The decompressed
//! block is a concatenation of strings, each an unsigned LEB128 length (in bytes) followed by
//! that many bytes of UTF-8. The table is the concatenation of all items' strings, in order.
//! An uncompressed table uses the algorithm URI [`IDENTITY`].

use std::io::{Read, Write};

use binxml_core::{Error, Limits, Result};

/// The block is the strings themselves, not compressed.
pub const IDENTITY: &str = "urn:binxml:asn1:identity";
/// bzip2 (as in the paper), block size 900k.
pub const BZIP2: &str = "urn:binxml:asn1:bzip2";
/// Raw DEFLATE (RFC 1951), level 9.
pub const DEFLATE: &str = "urn:binxml:asn1:deflate";
/// A Zstandard frame (RFC 8878), level 19.
pub const ZSTD: &str = "urn:binxml:asn1:zstd";

/// Compression of the component-strings block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compression {
    #[default]
    None,
    Bzip2,
    Deflate,
    Zstd,
}

impl Compression {
    pub fn uri(self) -> &'static str {
        match self {
            Compression::None => IDENTITY,
            Compression::Bzip2 => BZIP2,
            Compression::Deflate => DEFLATE,
            Compression::Zstd => ZSTD,
        }
    }

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
        let mut n = s.len();
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
        out.extend_from_slice(s.as_bytes());
    }
    out
}

pub fn compress(format: &'static str, c: Compression, block: Vec<u8>) -> Result<Vec<u8>> {
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
        Compression::Zstd => zstd::bulk::compress(&block, 19).map_err(io)?,
    })
}

/// Decompresses one block, reading at most `budget` bytes.
pub fn decompress(format: &'static str, uri: &str, block: &[u8], budget: usize, at: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let cap = (budget as u64).saturating_add(1);
    let bad = |e: std::io::Error| Error::malformed(format, at, format!("corrupt {uri} block: {e}"));
    match uri {
        IDENTITY => return Ok(block.to_vec()),
        BZIP2 => {
            bzip2::read::BzDecoder::new(block).take(cap).read_to_end(&mut out).map_err(bad)?;
        }
        DEFLATE => {
            flate2::read::DeflateDecoder::new(block).take(cap).read_to_end(&mut out).map_err(bad)?;
        }
        ZSTD => {
            let d = zstd::stream::read::Decoder::with_buffer(block).map_err(bad)?;
            d.take(cap).read_to_end(&mut out).map_err(bad)?;
        }
        _ => {
            return Err(Error::unsupported(format, format!("unknown compression-algorithm {uri:?}")).at(at));
        }
    }
    if out.len() > budget {
        return Err(Error::limit(format, at, "component-strings block decompresses past the size limit"));
    }
    Ok(out)
}

/// Splits a decompressed block into its strings, appending them to `table`.
pub fn parse_block(format: &'static str, block: &[u8], table: &mut Vec<String>, limits: &Limits, at: u64) -> Result<()> {
    let mut p = 0;
    let bad = |m: String| Error::malformed(format, at, m);
    while p < block.len() {
        let mut n: usize = 0;
        let mut shift = 0;
        loop {
            let b = *block.get(p).ok_or_else(|| bad(format!("component-strings block truncated at {p}")))?;
            p += 1;
            if shift > 56 {
                return Err(bad(format!("string length overflow at block offset {p}")));
            }
            n |= ((b & 0x7f) as usize) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        if n > block.len() - p {
            return Err(bad(format!("string of {n} bytes runs past the end of the block (offset {p})")));
        }
        if n > limits.max_string_len {
            return Err(Error::limit(format, at, "component string exceeds the length limit"));
        }
        let s = std::str::from_utf8(&block[p..p + n]).map_err(|_| bad(format!("invalid UTF-8 at block offset {p}")))?;
        if table.len() >= limits.max_table_entries {
            return Err(Error::limit(format, at, "too many component strings"));
        }
        table.push(s.to_owned());
        p += n;
    }
    Ok(())
}
