//! [`Strings`]: where a tree keeps the strings its decoder could not lend it.

/// An arena for the strings of a document whose decoder hands them over only for the length of
/// a call ([`EventSink::transient`](binxml_core::EventSink::transient): EXI, whose strings live
/// in its string tables, not in the input). [`Document::parse_in`](crate::Document::parse_in)
/// copies each such string here, one after another in large blocks, and the tree borrows it:
/// a copy without an allocation of its own per string (and without the allocator's per-block
/// overhead in memory), freed all at once with the arena.
///
/// Attribute and element names are copied once per distinct name (the builder finds an equal
/// name it already has), values and text once each.
#[derive(Debug, Default)]
pub struct Strings {
    bump: bumpalo::Bump,
}

impl Strings {
    /// An empty arena.
    pub fn new() -> Self {
        Strings::default()
    }

    /// Copies `s` into the arena; the copy lives as long as the arena.
    #[inline(always)]
    pub fn alloc<'s>(&'s self, s: &str) -> &'s str {
        self.bump.alloc_str(s)
    }

    /// Bytes the arena has taken from the allocator (its blocks, used or not).
    pub fn allocated_bytes(&self) -> usize {
        self.bump.allocated_bytes()
    }
}
