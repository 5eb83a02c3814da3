//! X.690 BER building blocks for the X.694 codec: identifier octets (low and high tag
//! numbers), definite lengths (the short form, or the long form in the fewest octets) and
//! integers in the fewest two's complement octets. The writer reserves one length octet when it
//! opens a constructed value and widens it when the value turns out longer than 127 octets; the
//! reader checks every length against what is left of the value that encloses it.

use binxml_core::{Error, Format, Result};

/// A tag: its class (the identifier's top two bits: 0x00 universal, 0x80 context-specific)
/// and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// 0x00 or 0x80.
    pub class: u8,
    /// The tag number.
    pub number: u32,
}

/// A universal tag.
pub const fn universal(number: u32) -> Tag {
    Tag {
        class: 0x00,
        number,
    }
}

/// A context-specific tag (`[n]`, what AUTOMATIC TAGS gives the n-th component).
pub const fn context(number: usize) -> Tag {
    Tag {
        class: 0x80,
        number: number as u32,
    }
}

/// The universal tag of SEQUENCE and SEQUENCE OF.
pub const SEQUENCE: Tag = universal(16);

/// Writes BER into one buffer.
#[derive(Default)]
pub struct BerWriter {
    buf: Vec<u8>,
}

/// A constructed value being written: where its length octet is.
#[must_use]
pub struct Mark(usize);

impl BerWriter {
    fn identifier(&mut self, tag: Tag, constructed: bool) {
        let first = tag.class | if constructed { 0x20 } else { 0 };
        if tag.number < 31 {
            self.buf.push(first | tag.number as u8);
        } else {
            self.buf.push(first | 0x1F);
            let n = tag.number;
            let groups = (32 - n.leading_zeros()).div_ceil(7);
            for g in (0..groups).rev() {
                let more = if g > 0 { 0x80 } else { 0 };
                self.buf.push(more | ((n >> (7 * g)) & 0x7F) as u8);
            }
        }
    }

    fn length(&mut self, len: usize) {
        if len < 128 {
            self.buf.push(len as u8);
        } else {
            let n = (usize::BITS - len.leading_zeros()).div_ceil(8) as usize;
            self.buf.push(0x80 | n as u8);
            self.buf
                .extend_from_slice(&len.to_be_bytes()[size_of::<usize>() - n..]);
        }
    }

    /// A primitive value.
    pub fn primitive(&mut self, tag: Tag, content: &[u8]) {
        self.identifier(tag, false);
        self.length(content.len());
        self.buf.extend_from_slice(content);
    }

    /// Opens a constructed value; [`BerWriter::close`] writes its length.
    pub fn open(&mut self, tag: Tag) -> Mark {
        self.identifier(tag, true);
        self.buf.push(0);
        Mark(self.buf.len() - 1)
    }

    /// Closes a constructed value: its length in the reserved octet, widened to the long form
    /// when needed.
    pub fn close(&mut self, mark: Mark) {
        let at = mark.0;
        let len = self.buf.len() - at - 1;
        if len < 128 {
            self.buf[at] = len as u8;
        } else {
            let n = (usize::BITS - len.leading_zeros()).div_ceil(8) as usize;
            let mut head = vec![0x80 | n as u8];
            head.extend_from_slice(&len.to_be_bytes()[size_of::<usize>() - n..]);
            self.buf.splice(at..at + 1, head);
        }
    }

    /// The encoding.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// The content octets of an INTEGER or ENUMERATED value: two's complement, fewest octets.
pub fn integer_content(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut i = 0;
    while i < 15 && ((b[i] == 0 && b[i + 1] & 0x80 == 0) || (b[i] == 0xFF && b[i + 1] & 0x80 != 0))
    {
        i += 1;
    }
    b[i..].to_vec()
}

/// A value's identifier and length, read.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// The tag.
    pub tag: Tag,
    /// Constructed (else primitive).
    pub constructed: bool,
    /// The content's length in octets.
    pub len: usize,
}

/// Reads BER, reporting the offset of what it could not read.
pub struct BerReader<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
}

impl<'a> BerReader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8], format: Format) -> Self {
        BerReader {
            data,
            pos: 0,
            format,
        }
    }

    /// The offset of the next octet.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to byte offset `pos`, one this reader has been at (an `all` group's components
    /// are read in document order).
    pub fn seek(&mut self, pos: usize) {
        debug_assert!(pos <= self.data.len());
        self.pos = pos;
    }

    /// An error at the current offset.
    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::malformed(self.format, self.pos as u64, msg).at_bit(self.pos as u64 * 8)
    }

    /// The identifier at the current offset (not consumed) and its length in octets; `None`
    /// at `end`, the end of the enclosing value.
    fn identifier(&self, end: usize) -> Result<Option<(Tag, bool, usize)>> {
        if self.pos >= end {
            return Ok(None);
        }
        let first = self.data[self.pos];
        let class = first & 0xC0;
        if class == 0x40 || class == 0xC0 {
            return Err(self.err("an application or private tag (the module has none)"));
        }
        let constructed = first & 0x20 != 0;
        if first & 0x1F != 0x1F {
            let tag = Tag {
                class,
                number: (first & 0x1F) as u32,
            };
            return Ok(Some((tag, constructed, 1)));
        }
        let mut number: u32 = 0;
        let mut i = self.pos + 1;
        loop {
            let Some(&b) = self.data.get(i).filter(|_| i < end) else {
                return Err(self.err("the tag number runs past the value"));
            };
            if i == self.pos + 1 && b == 0x80 {
                return Err(self.err("a tag number with a leading zero group"));
            }
            if number > (u32::MAX >> 7) {
                return Err(self.err("a tag number beyond 32 bits"));
            }
            number = number << 7 | (b & 0x7F) as u32;
            i += 1;
            if b & 0x80 == 0 {
                break;
            }
        }
        let tag = Tag { class, number };
        Ok(Some((tag, constructed, i - self.pos)))
    }

    /// The tag of the next value before `end`, not consumed.
    pub fn peek(&self, end: usize) -> Result<Option<Tag>> {
        Ok(self.identifier(end)?.map(|(t, _, _)| t))
    }

    /// Reads the identifier and the (definite) length of the next value, which must end by
    /// `end`.
    pub fn header(&mut self, end: usize) -> Result<Header> {
        let Some((tag, constructed, n)) = self.identifier(end)? else {
            return Err(self.err("a value expected, the enclosing value ends"));
        };
        self.pos += n;
        let Some(&first) = self.data.get(self.pos).filter(|_| self.pos < end) else {
            return Err(self.err("the length runs past the value"));
        };
        self.pos += 1;
        let len = match first {
            0..=0x7F => first as usize,
            0x80 => {
                return Err(self
                    .err("an indefinite length (binxml reads the definite form that it writes)"));
            }
            0xFF => return Err(self.err("the reserved length octet 0xFF")),
            _ => {
                let k = (first & 0x7F) as usize;
                if k > size_of::<usize>() || self.pos + k > end {
                    return Err(self.err(format!("a length of {k} octets")));
                }
                let mut len = 0usize;
                for &b in &self.data[self.pos..self.pos + k] {
                    len = len << 8 | b as usize;
                }
                self.pos += k;
                len
            }
        };
        if len > end - self.pos {
            return Err(self.err(format!(
                "a length of {len} octets, {} left in the enclosing value",
                end - self.pos
            )));
        }
        Ok(Header {
            tag,
            constructed,
            len,
        })
    }

    /// Reads a header that must have this tag and form; the offset where its content ends.
    pub fn expect(&mut self, tag: Tag, constructed: bool, end: usize) -> Result<(usize, usize)> {
        let at = self.pos;
        let h = self.header(end)?;
        if h.tag != tag || h.constructed != constructed {
            self.pos = at;
            return Err(self.err(format!(
                "tag {} ({}) where {} ({}) is expected",
                show(h.tag),
                form(h.constructed),
                show(tag),
                form(constructed)
            )));
        }
        Ok((h.len, self.pos + h.len))
    }

    /// The next `n` octets (within the value, checked by the header).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        s
    }

    /// Checks that the value ending at `end` has no content left.
    pub fn at_end(&self, end: usize) -> Result<()> {
        if self.pos != end {
            return Err(self.err(format!(
                "{} octets of a value not read (a component the type does not have)",
                end.saturating_sub(self.pos)
            )));
        }
        Ok(())
    }
}

fn show(t: Tag) -> String {
    match t.class {
        0x80 => format!("[{}]", t.number),
        _ => format!("[UNIVERSAL {}]", t.number),
    }
}

fn form(constructed: bool) -> &'static str {
    if constructed {
        "constructed"
    } else {
        "primitive"
    }
}

/// The value of an INTEGER's or ENUMERATED's content octets (at most 128 bits, the fewest
/// octets as X.690 8.3.2 requires).
pub fn integer_value(content: &[u8]) -> std::result::Result<i128, &'static str> {
    match content {
        [] => Err("an integer without content octets"),
        [a, b, ..] if (*a == 0 && b & 0x80 == 0) || (*a == 0xFF && b & 0x80 != 0) => {
            Err("an integer not in the fewest octets")
        }
        c if c.len() > 16 => Err("an integer beyond 128 bits"),
        c => {
            let mut v: i128 = if c[0] & 0x80 != 0 { -1 } else { 0 };
            for &b in c {
                v = v << 8 | b as i128;
            }
            Ok(v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_tags_integers() {
        let mut w = BerWriter::default();
        let m = w.open(context(40));
        w.primitive(universal(4), &[7; 200]);
        w.close(m);
        let b = w.finish();
        // [40] constructed: 0xBF 0x28; the content is 3 + 200 octets, a long-form length.
        assert_eq!(&b[..6], &[0xBF, 40, 0x81, 203, 0x04, 0x81]);
        let mut r = BerReader::new(&b, Format::Asn1XsdBer);
        let (len, end) = r.expect(context(40), true, b.len()).unwrap();
        assert_eq!((len, end), (203, b.len()));
        let (len, _) = r.expect(universal(4), false, end).unwrap();
        assert_eq!(r.take(len), &[7; 200][..]);
        r.at_end(end).unwrap();
        for v in [
            0i128,
            1,
            127,
            128,
            255,
            256,
            -1,
            -128,
            -129,
            i128::MAX,
            i128::MIN,
        ] {
            let c = integer_content(v);
            assert_eq!(integer_value(&c), Ok(v), "{v}");
        }
        assert_eq!(integer_content(128), vec![0, 128]);
        assert_eq!(integer_content(-129), vec![0xFF, 0x7F]);
        assert!(integer_value(&[0, 1]).is_err());
    }
}
