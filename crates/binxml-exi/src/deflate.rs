//! Inflating the raw DEFLATE streams of the compression layout (EXI 1.0, section 9.3), within
//! a budget of decoded octets.

use std::cell::RefCell;

use binxml_core::{Error, Format, Result};

// zlib's state is made once per thread and kept between documents: a deflate state is a
// quarter megabyte that zlib zeroes as it makes it, which for a document of a few hundred
// octets is most of its encoding (EXIficient makes one per document). A state is handed back
// when its `Deflater` or `Inflater` is dropped; a thread keeps one of each (one per level for
// deflating), so two codecs alive at once make a second state, as before.
thread_local! {
    static SPARE_DEFLATE: RefCell<Option<(u32, flate2::Compress)>> = const { RefCell::new(None) };
    static SPARE_INFLATE: RefCell<Option<flate2::Decompress>> = const { RefCell::new(None) };
}

/// Inflates the raw DEFLATE stream that starts at `input[start..]`; returns the data and the
/// octets of input it used. At most `room` octets are inflated (`budget` and `input_len` name
/// the limit in the error).
pub(crate) fn inflate_stream(
    input: &[u8],
    start: usize,
    room: usize,
    budget: usize,
) -> Result<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let used = Inflater::default().inflate(input, start, room, budget, &mut out)?;
    Ok((out, used))
}

/// Inflates a stream's raw DEFLATE streams one after the other with one zlib state, made at
/// the first: a fresh state per stream costs its allocation and set-up each time (a block of
/// the compression layout has one stream per large channel).
#[derive(Default)]
pub(crate) struct Inflater {
    z: Option<flate2::Decompress>,
}

impl Drop for Inflater {
    fn drop(&mut self) {
        if let Some(z) = self.z.take() {
            // (`try_with`: nothing to keep while the thread ends.)
            let _ = SPARE_INFLATE.try_with(|s| *s.borrow_mut() = Some(z));
        }
    }
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inflater")
    }
}

impl Inflater {
    /// Inflates the raw DEFLATE stream that starts at `input[start..]` into `out` (emptied
    /// first, its capacity kept); returns the octets of input it used. At most `room` octets
    /// are inflated (`budget` and the input's length name the limit in the error).
    pub(crate) fn inflate(
        &mut self,
        input: &[u8],
        start: usize,
        room: usize,
        budget: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        let data = &input[start.min(input.len())..];
        let z = match &mut self.z {
            Some(z) => {
                z.reset(false);
                z
            }
            None => {
                let z = SPARE_INFLATE
                    .try_with(|s| s.borrow_mut().take())
                    .ok()
                    .flatten();
                match z {
                    Some(mut z) => {
                        z.reset(false);
                        self.z.insert(z)
                    }
                    None => self.z.insert(flate2::Decompress::new(false)),
                }
            }
        };
        out.clear();
        let first = (data.len() * 4).min(1 << 20).min(room);
        if out.capacity() < first {
            out.reserve_exact(first);
        }
        let past = || {
            Error::limit(
                Format::Exi,
                start as u64,
                format!(
                    "DEFLATE stream inflates past {budget} octets for {} octets of input \
                     (limit: max_expansion_ratio)",
                    input.len()
                ),
            )
            .at_bit(start as u64 * 8)
        };
        loop {
            let left = room.saturating_sub(out.len());
            if left == 0 {
                return Err(past());
            }
            if out.capacity() == out.len() {
                // Exact: an amortized reserve could double the capacity past the budget.
                out.reserve_exact(out.len().clamp(4096, left));
            }
            let before_in = z.total_in();
            let before_out = z.total_out();
            let status = z
                .decompress_vec(
                    &data[z.total_in() as usize..],
                    out,
                    flate2::FlushDecompress::None,
                )
                .map_err(|e| {
                    Error::malformed(
                        Format::Exi,
                        start as u64 + z.total_in(),
                        format!("corrupt DEFLATE stream: {e}"),
                    )
                    .at_bit((start as u64 + z.total_in()) * 8)
                })?;
            // A buffer kept from an earlier stream may hold more than `room`.
            if out.len() > room {
                return Err(past());
            }
            if status == flate2::Status::StreamEnd {
                return Ok(z.total_in() as usize);
            }
            if z.total_in() == before_in
                && z.total_out() == before_out
                && out.len() < out.capacity()
            {
                return Err(Error::malformed(
                    Format::Exi,
                    start as u64 + z.total_in(),
                    "truncated DEFLATE stream",
                )
                .at_bit((start as u64 + z.total_in()) * 8));
            }
        }
    }
}

/// Deflates the compression layout's streams (EXI 1.0, section 9.3) with one zlib state for
/// the whole document: each stream is a complete raw DEFLATE stream, as a fresh state writes
/// it, without allocating (and the allocator mapping) zlib's quarter megabyte per stream.
pub(crate) struct Deflater {
    /// `None` only while dropped.
    z: Option<flate2::Compress>,
    level: u32,
    /// The state is as zlib made it: no reset needed before the first stream.
    fresh: bool,
    out: Vec<u8>,
}

impl Drop for Deflater {
    fn drop(&mut self) {
        if let Some(z) = self.z.take() {
            let level = self.level;
            let _ = SPARE_DEFLATE.try_with(|s| *s.borrow_mut() = Some((level, z)));
        }
    }
}

impl std::fmt::Debug for Deflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deflater")
    }
}

impl Deflater {
    /// A deflater at `level` (0-9).
    pub(crate) fn new(level: u32) -> Self {
        let spare = SPARE_DEFLATE
            .try_with(|s| {
                let mut s = s.borrow_mut();
                match s.take() {
                    Some((l, z)) if l == level => Some(z),
                    other => {
                        *s = other;
                        None
                    }
                }
            })
            .ok()
            .flatten();
        let (z, fresh) = match spare {
            Some(z) => (z, false),
            None => (
                flate2::Compress::new(flate2::Compression::new(level), false),
                true,
            ),
        };
        Deflater {
            z: Some(z),
            level,
            fresh,
            out: Vec::new(),
        }
    }

    /// `input` as one raw DEFLATE stream.
    pub(crate) fn deflate(&mut self, input: &[u8]) -> &[u8] {
        let z = self.z.as_mut().expect("a deflater not dropped");
        if !std::mem::take(&mut self.fresh) {
            z.reset();
        }
        self.out.clear();
        self.out.reserve(input.len() / 2 + 64);
        loop {
            let read = z.total_in() as usize;
            let status = z
                .compress_vec(&input[read..], &mut self.out, flate2::FlushCompress::Finish)
                .expect("deflating memory to memory cannot fail");
            if status == flate2::Status::StreamEnd {
                return &self.out;
            }
            // The output is full: room for more.
            self.out.reserve(self.out.capacity().max(64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_deflate(data: &[u8]) -> Vec<u8> {
        Deflater::new(6).deflate(data).to_vec()
    }

    #[test]
    fn a_kept_buffer_does_not_lift_the_room() {
        let big = raw_deflate(&[b'a'; 100_000]);
        let small = raw_deflate(&[b'b'; 50_000]);
        let mut z = Inflater::default();
        let mut out = Vec::new();
        assert_eq!(
            z.inflate(&big, 0, 200_000, 200_000, &mut out).unwrap(),
            big.len()
        );
        assert_eq!(out.len(), 100_000);
        assert!(out.capacity() >= 100_000);
        // The second stream inflates to 50,000 octets, past its room of 10,000, though the
        // buffer kept from the first has room for all of it.
        let err = z.inflate(&small, 0, 10_000, 200_000, &mut out).unwrap_err();
        assert!(err.to_string().contains("inflates past"), "{err}");
        // With room enough, the kept state and buffer give the stream's data.
        assert_eq!(
            z.inflate(&small, 0, 50_000, 200_000, &mut out).unwrap(),
            small.len()
        );
        assert_eq!(out, vec![b'b'; 50_000]);
    }
}
