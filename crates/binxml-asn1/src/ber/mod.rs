//! X.690 Basic Encoding Rules (definite lengths, primitive strings when encoding; the decoder
//! also accepts constructed strings and indefinite lengths), driven by the schema table.
//! Tags follow AUTOMATIC TAGS: component / alternative `i` is `[i]`, explicit around a CHOICE.
//!
//! * [`enc`]: the writer of abstract values ([`BerWriter`]), and (`enc/flat.rs`) of the flat
//!   operations the encoder's builder records;
//! * [`dec`]: the reader of abstract values and of single headers ([`BerReader`]);
//! * [`pass1`]: the decoder, one pass over the octets into the event stream's records.

mod dec;
mod enc;
mod pass1;

use crate::schema::Ty;

pub(crate) use dec::{BerReader, Header};
pub(crate) use enc::BerWriter;
pub(crate) use pass1::open;

fn universal(ty: &Ty) -> u8 {
    match ty {
        Ty::Seq(_) | Ty::SeqOf(..) => 0x30,
        Ty::Int(..) => 0x02,
        Ty::Enum(_) => 0x0A,
        Ty::Bool => 0x01,
        Ty::Null => 0x05,
        Ty::Utf8 => 0x0C,
        Ty::Octets => 0x04,
        Ty::RelOid => 0x0D,
        Ty::Choice(_) => 0,
    }
}

fn constructed(ty: &Ty) -> bool {
    matches!(ty, Ty::Seq(_) | Ty::SeqOf(..))
}
