//! Limits every decoder enforces on hostile input.

/// Bounds a decoder enforces. The defaults admit every real document in the test corpus with a
/// wide margin and stop hostile input long before it exhausts memory.
///
/// Build them from [`Limits::default`] (or [`Limits::unlimited`]) and the `with_...` setters;
/// the fields can be read and changed, and every value of each is valid. The struct is
/// `#[non_exhaustive]`, so new limits can be added without breaking callers.
///
/// ```
/// use binxml_core::Limits;
///
/// let limits = Limits::default().with_max_depth(64).with_max_string_len(1 << 20);
/// assert_eq!(limits.max_depth, 64);
/// assert_eq!(limits.max_table_entries, Limits::default().max_table_entries);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
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

    /// The same limits with [`max_depth`](Limits::max_depth), the maximum element nesting
    /// depth, set to `n`.
    pub fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// The same limits with [`max_string_len`](Limits::max_string_len), the maximum length in
    /// bytes of one string, set to `n`.
    pub fn with_max_string_len(mut self, n: usize) -> Self {
        self.max_string_len = n;
        self
    }

    /// The same limits with [`max_table_entries`](Limits::max_table_entries), the maximum
    /// number of entries in one table, set to `n`.
    pub fn with_max_table_entries(mut self, n: usize) -> Self {
        self.max_table_entries = n;
        self
    }

    /// The same limits with [`max_entity_expansion`](Limits::max_entity_expansion), the
    /// maximum bytes of text from expanding entity references (XML), set to `n`.
    pub fn with_max_entity_expansion(mut self, n: usize) -> Self {
        self.max_entity_expansion = n;
        self
    }

    /// The same limits with [`max_entity_depth`](Limits::max_entity_depth), the maximum
    /// nesting of entity references (XML), set to `n`.
    pub fn with_max_entity_depth(mut self, n: usize) -> Self {
        self.max_entity_depth = n;
        self
    }

    /// The same limits with [`max_expansion_ratio`](Limits::max_expansion_ratio), the maximum
    /// ratio of decoded bytes to input bytes, set to `n` (`0` turns the check off).
    pub fn with_max_expansion_ratio(mut self, n: usize) -> Self {
        self.max_expansion_ratio = n;
        self
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setter_sets_its_field() {
        let l = Limits::default()
            .with_max_depth(1)
            .with_max_string_len(2)
            .with_max_table_entries(3)
            .with_max_entity_expansion(4)
            .with_max_entity_depth(5)
            .with_max_expansion_ratio(6);
        let want = (1, 2, 3, 4, 5, 6);
        let got = (
            l.max_depth,
            l.max_string_len,
            l.max_table_entries,
            l.max_entity_expansion,
            l.max_entity_depth,
            l.max_expansion_ratio,
        );
        assert_eq!(got, want);
        assert_eq!(Limits::unlimited().decoded_budget(10), usize::MAX);
    }
}
