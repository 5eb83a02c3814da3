//! Reserved values: those of the `u32` indexes that the encoder's builder and the decoders'
//! pass 1 record in place of strings and names, and the PI target that carries an internal
//! subset. Defined once here; every module that tests for them imports them.

/// The flag bit of a string or name reference: set, the low 31 bits index the inline list
/// (inline strings, or names written inline) instead of the component-string or common-name
/// table. The encoder's flat operations (`Flat::inline`, `Flat::names`) and the decoder's
/// records (`Rec::inline`, `Rec::names`) alike.
pub(crate) const INLINE: u32 = 1 << 31;

/// No string: an absent optional string (a name's prefix), where a string reference is
/// expected. Tested before [`INLINE`] (its flag bit is set too).
pub(crate) const NO_STR: u32 = u32::MAX;

/// A table position that says "not in the table, written inline": in the encoder's map from
/// string id to component-string table position (`Refs::strings`, `V::resolve`). A whole
/// value rather than a flag bit, because a position is compared, never masked; distinct from
/// [`INLINE`], which marks a reference.
pub(crate) const NOT_IN_TABLE: u32 = u32::MAX;

/// The reserved PI target that carries a DOCTYPE's internal subset (written by the encoder's
/// builder, recognised by the decoder's emitter).
pub const INTERNAL_SUBSET_TARGET: &str = "xml-internal-subset";
