//! Limits every decoder enforces on hostile input.

/// Bounds a decoder enforces. The defaults admit every real document in the test corpus with a
/// wide margin and stop hostile input long before it exhausts memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Maximum element nesting depth.
    pub max_depth: usize,
    /// Maximum length in bytes of any one string (name, value, text chunk).
    pub max_string_len: usize,
    /// Maximum number of entries in any one table (vocabulary, string table, token cache).
    pub max_table_entries: usize,
    /// Maximum total bytes of text produced by expanding entity references (XML), counted over
    /// the whole document.
    pub max_entity_expansion: usize,
    /// Maximum depth of nested entity references (XML).
    pub max_entity_depth: usize,
    /// Maximum ratio of decoded bytes (text, names, values) to input bytes, for formats where
    /// references can repeat data (table indexes, token caches). `0` disables the check.
    pub max_expansion_ratio: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1024,
            max_string_len: 64 << 20,
            max_table_entries: 1 << 20,
            max_entity_expansion: 8 << 20,
            max_entity_depth: 16,
            max_expansion_ratio: 1000,
        }
    }
}

impl Limits {
    /// No limits beyond what the formats themselves impose. For trusted input only.
    pub fn unlimited() -> Self {
        Limits {
            max_depth: usize::MAX,
            max_string_len: usize::MAX,
            max_table_entries: usize::MAX,
            max_entity_expansion: usize::MAX,
            max_entity_depth: usize::MAX,
            max_expansion_ratio: 0,
        }
    }

    /// The budget of decoded bytes for an input of `input_len` bytes (at least 64 MiB).
    pub fn decoded_budget(&self, input_len: usize) -> usize {
        if self.max_expansion_ratio == 0 {
            usize::MAX
        } else {
            input_len
                .saturating_mul(self.max_expansion_ratio)
                .max(64 << 20)
        }
    }
}
