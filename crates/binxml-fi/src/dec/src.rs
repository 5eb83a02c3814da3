//! Where the decoder's octets come from: a byte slice ([`SliceSrc`]) or a reader
//! ([`ReadSrc`]), behind [`Src`].

use std::borrow::Cow;
use std::io::Read;

use binxml_core::{Error, Result};

use crate::FORMAT;

/// Where the decoder's octets come from.
pub(crate) trait Src<'a> {
    /// Offset of the next octet.
    fn pos(&self) -> u64;
    fn byte(&mut self) -> Result<u8>;
    /// `n` octets; errors (without allocating) when fewer are left.
    fn bytes(&mut self, n: usize) -> Result<Cow<'a, [u8]>>;
    /// Up to `n` octets from the current position, without consuming them.
    fn peek(&mut self, n: usize) -> Result<&[u8]>;
    fn skip(&mut self, n: usize);
    fn at_end(&mut self) -> Result<bool>;
}

/// True when the (short) slice is all ASCII; word at a time, no call.
#[inline(always)]
pub(super) fn is_ascii_short(b: &[u8]) -> bool {
    let mut acc = 0u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        acc |= u64::from_ne_bytes(c.try_into().unwrap());
    }
    for &x in chunks.remainder() {
        acc |= x as u64;
    }
    acc & 0x8080_8080_8080_8080 == 0
}

#[cold]
#[inline(never)]
fn eof(pos: u64) -> Error {
    Error::malformed(FORMAT, pos, "unexpected end of input")
}

#[cold]
#[inline(never)]
fn past_end(pos: usize, n: usize, left: usize) -> Error {
    Error::malformed(
        FORMAT,
        pos as u64,
        format!("length {n} runs past the end of the input ({left} octets left)"),
    )
}

pub(crate) struct SliceSrc<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Src<'a> for SliceSrc<'a> {
    #[inline(always)]
    fn pos(&self) -> u64 {
        self.pos as u64
    }
    #[inline(always)]
    fn byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(eof(self.pos as u64)),
        }
    }
    #[inline(always)]
    fn bytes(&mut self, n: usize) -> Result<Cow<'a, [u8]>> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(Cow::Borrowed(s))
            }
            None => Err(past_end(self.pos, n, self.data.len() - self.pos)),
        }
    }
    fn peek(&mut self, n: usize) -> Result<&[u8]> {
        let end = (self.pos + n).min(self.data.len());
        Ok(&self.data[self.pos..end])
    }
    fn skip(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.pos >= self.data.len())
    }
}

pub(crate) struct ReadSrc<R: Read> {
    pub(super) r: R,
    pub(super) buf: Vec<u8>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) consumed: u64,
    pub(super) eof: bool,
}

pub(super) const READ_CHUNK: usize = 64 * 1024;

impl<R: Read> ReadSrc<R> {
    /// Makes at least `n` octets available if the input has them; returns how many are.
    fn fill(&mut self, n: usize) -> Result<usize> {
        while self.end - self.start < n && !self.eof {
            if self.start > 0 && (self.start == self.end || self.buf.len() - self.end < READ_CHUNK)
            {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.buf.len() - self.end < READ_CHUNK {
                self.buf.resize(self.end + READ_CHUNK, 0);
            }
            let got = loop {
                match self.r.read(&mut self.buf[self.end..]) {
                    Ok(g) => break g,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(FORMAT, e).at(self.consumed)),
                }
            };
            if got == 0 {
                self.eof = true;
            }
            self.end += got;
        }
        Ok(self.end - self.start)
    }
}

impl<R: Read> Src<'static> for ReadSrc<R> {
    fn pos(&self) -> u64 {
        self.consumed
    }
    #[inline]
    fn byte(&mut self) -> Result<u8> {
        if self.start == self.end && self.fill(1)? == 0 {
            return Err(eof(self.consumed));
        }
        let b = self.buf[self.start];
        self.start += 1;
        self.consumed += 1;
        Ok(b)
    }
    fn bytes(&mut self, n: usize) -> Result<Cow<'static, [u8]>> {
        // read in steps so that a huge claimed length costs no more memory than the input has
        let mut out = Vec::with_capacity(n.min(READ_CHUNK));
        while out.len() < n {
            let want = (n - out.len()).min(READ_CHUNK);
            let have = self.fill(want)?;
            if have == 0 {
                return Err(Error::malformed(
                    FORMAT,
                    self.consumed,
                    format!("length {n} runs past the end of the input"),
                ));
            }
            let take = have.min(want);
            out.extend_from_slice(&self.buf[self.start..self.start + take]);
            self.start += take;
            self.consumed += take as u64;
        }
        Ok(Cow::Owned(out))
    }
    fn peek(&mut self, n: usize) -> Result<&[u8]> {
        let have = self.fill(n)?;
        Ok(&self.buf[self.start..self.start + have.min(n)])
    }
    fn skip(&mut self, n: usize) {
        let k = n.min(self.end - self.start);
        self.start += k;
        self.consumed += k as u64;
    }
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.fill(1)? == 0)
    }
}
