//! The encoder's strings: non-identifying strings and character chunks.

use super::*;
use binxml_core::hash::hash_bytes;

/// Chunks longer than this (octets) are not remembered for the repeat rule of `long_chunk`:
/// long texts rarely repeat, and hashing them would cost a pass over every long text.
const LONG_REPEAT_MAX: usize = 256;
/// Slots of the direct-mapped memory of long chunks (a power of two; 32 KiB): a chunk whose
/// slot a newer one took is forgotten, which only delays its indexing.
const LONG_SEEN_SLOTS: usize = 1 << 12;
/// The sighting of a long chunk at which it is added to the table (an entry that never
/// repeats again costs the later entries' indexes their width, so two sightings are not
/// enough evidence).
const LONG_ADD_AT: u8 = 3;

impl<W: Write> FiEncoder<W> {
    // ---- strings ----

    /// Non-identifying string on the first bit (C.14): index, or literal with add-to-table bit.
    #[inline(always)]
    pub(super) fn nistring_first(&mut self, s: &str, table: Table, max_chars: usize) {
        if s.is_empty() {
            self.buf.push(0xFF);
            return;
        }
        let tab = match table {
            Table::AttrValues => &mut self.t.attr_values,
            Table::OtherStrings => &mut self.t.other_strings,
        };
        let add = short_enough(s, max_chars) && !tab.full();
        if add && let Some(i) = tab.find_or_add(s) {
            int_2nd(&mut self.buf, 0x80, i);
            return;
        }
        let addbit = if add { 0x40 } else { 0 };
        if self.opts.utf16 {
            self.nistring_utf16(s, addbit);
        } else {
            len_5th(&mut self.buf, addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    #[inline(never)]
    pub(super) fn nistring_utf16(&mut self, s: &str, addbit: u8) {
        self.scratch.clear();
        for u in s.encode_utf16() {
            self.scratch.extend_from_slice(&u.to_be_bytes());
        }
        len_5th(&mut self.buf, addbit | 0x10, self.scratch.len());
        self.buf.extend_from_slice(&self.scratch);
    }

    #[inline(always)]
    pub(super) fn chunk(&mut self, s: &str) {
        let max = self.opts.max_indexed_chunk;
        let add = short_enough(s, max) && !self.t.chunks.full();
        if add && let Some(i) = self.t.chunks.find_or_add(s) {
            int_4th(&mut self.buf, 0xA0, i);
            return;
        }
        if !add && self.opts.split_text && !self.t.chunks.full() {
            self.long_chunk(s);
            return;
        }
        self.chunk_literal(s, add);
    }

    /// A literal chunk, added to the table or not.
    #[inline(always)]
    fn chunk_literal(&mut self, s: &str, add: bool) {
        self.literal_chunks = self.literal_chunks.wrapping_add(1);
        let addbit = if add { 0x10 } else { 0 };
        if self.opts.utf16 || self.opts.numeric_alphabet || self.opts.date_time_alphabet {
            self.chunk_literal_other(s, addbit);
        } else {
            len_7th(&mut self.buf, 0x80 | addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    /// A chunk too long for the table by the length rule (`split_text`). Two policies make
    /// repeated text indexes however the input was chunked (the reference indexes what its
    /// parser happened to cut short enough, binxml is often handed the whole text at once):
    ///
    /// * characters outside the Basic Multilingual Plane become chunks of their own, as the
    ///   JDK's parser reports them, so that the text between them may be short enough to index;
    /// * a chunk seen before (by hash, up to `LONG_REPEAT_MAX` octets) is added to the table
    ///   when written again, and is an index from then on. A hash collision only adds a chunk
    ///   that does not repeat: the output stays correct.
    #[inline(never)]
    fn long_chunk(&mut self, s: &str) {
        let b = s.as_bytes();
        if has_astral(b) {
            // every one of them, as the parser does (the text after the first may be short
            // enough as a whole, but its pieces are what repeats); 0xF0 and up is the lead
            // octet of a 4-octet UTF-8 sequence: always a whole character in a str
            let mut from = 0;
            while let Some(k) = b[from..].iter().position(|&c| c >= 0xF0) {
                let at = from + k;
                if at > from {
                    self.chunk(&s[from..at]);
                }
                self.chunk(&s[at..at + 4]);
                from = at + 4;
            }
            if from < s.len() {
                self.chunk(&s[from..]);
            }
            return;
        }
        if b.len() <= LONG_REPEAT_MAX {
            let h = hash_bytes(b);
            if self.long_seen.is_empty() {
                self.long_seen = vec![(0, 0); LONG_SEEN_SLOTS];
            }
            let slot = &mut self.long_seen[(h ^ (h >> 16)) as usize & (LONG_SEEN_SLOTS - 1)];
            let seen = if slot.0 == h { slot.1 } else { 0 };
            if seen + 1 >= LONG_ADD_AT {
                if let Some(i) = self.t.chunks.find_or_add(s) {
                    int_4th(&mut self.buf, 0xA0, i);
                } else {
                    self.chunk_literal(s, true);
                }
                return;
            }
            *slot = (h, seen + 1);
        }
        self.chunk_literal(s, false);
    }

    /// A literal chunk in a restricted alphabet or in UTF-16.
    #[inline(never)]
    pub(super) fn chunk_literal_other(&mut self, s: &str, addbit: u8) {
        if (self.opts.numeric_alphabet || self.opts.date_time_alphabet) && s.len() > 2 {
            for (on, wire, alphabet) in [
                (self.opts.numeric_alphabet, 0u8, algo::NUMERIC),
                (self.opts.date_time_alphabet, 1u8, algo::DATE_TIME),
            ] {
                if !on {
                    continue;
                }
                let chars: Vec<char> = alphabet.chars().collect();
                self.scratch.clear();
                if algo::alphabet_encode(&chars, s, &mut self.scratch) {
                    self.buf.push(0x80 | addbit | 0x08 | (wire >> 6));
                    len_7th(&mut self.buf, (wire & 0x3F) << 2, self.scratch.len());
                    self.buf.extend_from_slice(&self.scratch);
                    return;
                }
            }
        }
        if self.opts.utf16 {
            self.scratch.clear();
            for u in s.encode_utf16() {
                self.scratch.extend_from_slice(&u.to_be_bytes());
            }
            len_7th(&mut self.buf, 0x80 | addbit | 0x04, self.scratch.len());
            self.buf.extend_from_slice(&self.scratch);
        } else {
            len_7th(&mut self.buf, 0x80 | addbit, s.len());
            put(&mut self.buf, s.as_bytes());
        }
    }

    /// Multi-line content: chunks of two lines each (a line: its leading line breaks and the
    /// characters up to the next line break), where such a pair is short enough to be indexed;
    /// the runs of longer pairs between them stay one chunk.
    pub(super) fn chunk_lines(&mut self, s: &str, max: usize) {
        let b = s.as_bytes();
        let nl = |c: u8| c == b'\n' || c == b'\r';
        let line_end = |mut i: usize| {
            while i < b.len() && nl(b[i]) {
                i += 1;
            }
            next_line_break(b, i)
        };
        let mut start = 0; // start of the pending (long) run
        let mut i = 0;
        while i < b.len() {
            let end = line_end(line_end(i));
            if short_enough(&s[i..end], max) {
                if start < i {
                    self.chunk(&s[start..i]);
                }
                self.chunk(&s[i..end]);
                start = end;
            }
            i = end;
        }
        if start < b.len() {
            self.chunk(&s[start..]);
        }
    }

    pub(super) fn algorithm_chunk(&mut self, wire: u8, data_from_scratch: bool, data: &[u8]) {
        self.buf.push(0x80 | 0x0C | (wire >> 6));
        let d: &[u8] = if data_from_scratch {
            &self.scratch
        } else {
            data
        };
        len_7th(&mut self.buf, (wire & 0x3F) << 2, d.len());
        self.buf.extend_from_slice(d);
    }
}
