//! X.691 Packed Encoding Rules, aligned and unaligned, driven by the schema table.
//!
//! * [`enc`]: the writer of abstract values ([`PerWriter`]), and (`enc/flat.rs`) of the flat
//!   operations the encoder's builder records;
//! * [`size`]: the length of a value's UPER encoding, without writing it;
//! * [`dec`]: the reader of abstract values and of single fields ([`PerReader`]);
//! * [`pass1`]: the decoder, one pass over the bits into the event stream's records.

mod dec;
mod enc;
mod pass1;
mod size;

pub(crate) use dec::PerReader;
pub(crate) use enc::PerWriter;
pub(crate) use pass1::{decode, open};
pub(crate) use size::uper_bits;

const FRAG: usize = 16384;
