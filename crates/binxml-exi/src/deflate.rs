//! Inflating the raw DEFLATE streams of the compression layout (EXI 1.0, section 9.3), within
//! a budget of decoded octets.

use binxml_core::{Error, Format, Result};

/// Inflates the raw DEFLATE stream that starts at `input[start..]`; returns the data and the
/// octets of input it used. At most `room` octets are inflated (`budget` and `input_len` name
/// the limit in the error).
pub(crate) fn inflate_stream(
    input: &[u8],
    start: usize,
    room: usize,
    budget: usize,
) -> Result<(Vec<u8>, usize)> {
    let data = &input[start.min(input.len())..];
    let mut z = flate2::Decompress::new(false);
    let mut out: Vec<u8> = Vec::with_capacity((data.len() * 4).min(1 << 20).min(room));
    loop {
        let left = room.saturating_sub(out.len());
        if left == 0 {
            return Err(Error::limit(
                Format::Exi,
                start as u64,
                format!(
                    "DEFLATE stream inflates past {budget} octets for {} octets of input \
                     (limit: max_expansion_ratio)",
                    input.len()
                ),
            )
            .at_bit(start as u64 * 8));
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
                &mut out,
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
        if status == flate2::Status::StreamEnd {
            return Ok((out, z.total_in() as usize));
        }
        if z.total_in() == before_in && z.total_out() == before_out && out.len() < out.capacity() {
            return Err(Error::malformed(
                Format::Exi,
                start as u64 + z.total_in(),
                "truncated DEFLATE stream",
            )
            .at_bit((start as u64 + z.total_in()) * 8));
        }
    }
}

/// Deflates the compression layout's streams (EXI 1.0, section 9.3) with one zlib state for
/// the whole document: each stream is a complete raw DEFLATE stream, as a fresh state writes
/// it, without allocating (and the allocator mapping) zlib's quarter megabyte per stream.
pub(crate) struct Deflater {
    z: flate2::Compress,
    out: Vec<u8>,
}

impl std::fmt::Debug for Deflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deflater")
    }
}

impl Deflater {
    /// A deflater at `level` (0-9).
    pub(crate) fn new(level: u32) -> Self {
        Deflater {
            z: flate2::Compress::new(flate2::Compression::new(level), false),
            out: Vec::new(),
        }
    }

    /// `input` as one raw DEFLATE stream.
    pub(crate) fn deflate(&mut self, input: &[u8]) -> &[u8] {
        self.z.reset();
        self.out.clear();
        self.out.reserve(input.len() / 2 + 64);
        loop {
            let read = self.z.total_in() as usize;
            let status = self
                .z
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
