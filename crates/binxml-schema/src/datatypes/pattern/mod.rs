//! `Pattern`: the pattern facet's XSD regular expressions (Part 2, appendix F), compiled to
//! the `regex` crate, and the restricted character sets EXI derives from them.

mod blocks;
mod charset;
mod translate;

use regex::{Regex, RegexBuilder};

use super::error::{DatatypeError, ErrorKind};

/// A compiled XSD regular expression: it matches a whole string (XSD patterns are implicitly
/// anchored), `^` and `$` are ordinary characters, `.` is any character but `\n` and `\r`.
/// Matching takes time linear in the string (the `regex` crate has no backtracking).
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    regex: Regex,
    chars: Option<Vec<(u32, u32)>>,
}

impl Pattern {
    /// The most memory one compiled pattern may take (the `regex` crate's size limit, here
    /// its default): a hostile `a{1000000}` or deep repetition of a large class is refused
    /// instead of compiled.
    pub const SIZE_LIMIT: usize = 10 << 20;

    /// The nesting depth of groups and subtracted classes beyond which a pattern is refused.
    pub const MAX_DEPTH: usize = translate::MAX_DEPTH;

    /// Compiles the XSD regular expression `source`. Refuses, with an error that says what,
    /// the syntax XSD does not have (back-references, lazy and possessive quantifiers,
    /// lookaround and other `(?` groups, anchors such as `\b`, unknown escapes, categories
    /// and blocks), and patterns nested deeper than [`Self::MAX_DEPTH`] or larger than
    /// [`Self::SIZE_LIMIT`] once compiled.
    pub fn new(source: &str) -> Result<Pattern, DatatypeError> {
        let err = |m: String| DatatypeError::new(ErrorKind::Pattern, "pattern", source, m);
        let t = translate::translate(source).map_err(err)?;
        let regex = RegexBuilder::new(&t.regex)
            .size_limit(Self::SIZE_LIMIT)
            .dfa_size_limit(Self::SIZE_LIMIT)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => {
                    err("the pattern is too large to compile".into())
                }
                // The translation only writes syntax the crate knows, so this is a limit of the
                // crate (its own nesting limit) rather than a mistake in the pattern.
                other => err(format!("cannot compile: {other}")),
            })?;
        Ok(Pattern {
            source: source.to_string(),
            regex,
            chars: t.chars,
        })
    }

    /// The pattern as written in the schema.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the whole of `s` matches.
    pub fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }

    /// The restricted character set EXI 1.0 (7.1.10.1 and appendix E) derives from this one
    /// pattern: the characters its atoms can produce, sorted by code point as (first, last)
    /// ranges, when that set is defined (no category escape, block escape or multi-character
    /// escape other than `\s`), has fewer than 256 characters and only BMP characters.
    /// `None` otherwise. For a type with several patterns in one derivation step use
    /// [`restricted_char_set`], which unions before applying the size rule.
    pub fn char_set(&self) -> Option<Vec<(char, char)>> {
        restricted_char_set(std::slice::from_ref(self))
    }
}

/// The restricted character set of EXI 1.0 7.1.10.1 for the pattern facets given in one
/// derivation step (the "target datatype definition"'s own patterns): the union of their sets,
/// when every one is defined, the union has fewer than 256 characters and all are in the BMP.
/// The caller decides the rest of 7.1.10.1: the type is derived from xs:string and the target
/// type is not built in.
pub fn restricted_char_set(patterns: &[Pattern]) -> Option<Vec<(char, char)>> {
    let mut set = Some(Vec::new());
    for p in patterns {
        set = charset::union(set, p.chars.clone());
    }
    let set = set?;
    if patterns.is_empty() || charset::count(&set) >= 256 || set.iter().any(|&(_, b)| b > 0xFFFF) {
        return None;
    }
    // Ranges below 256 characters in the BMP: split around the surrogates, which are not
    // characters.
    Some(
        set.iter()
            .flat_map(|&(a, b)| [(a, b.min(0xD7FF)), (a.max(0xE000), b)])
            .filter(|&(a, b)| a <= b)
            .filter_map(|(a, b)| Some((char::from_u32(a)?, char::from_u32(b)?)))
            .collect(),
    )
}

#[cfg(test)]
mod tests;
