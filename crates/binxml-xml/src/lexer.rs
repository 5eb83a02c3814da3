//! The XML tokenizer: one pass over UTF-8 text (already validated as a whole, so tokens are
//! `&str` slices without further checks), start tags and their attributes read in the same pass.
//!
//! It checks the well-formedness rules that are local to one token: names (ASCII bytes by a
//! table; a name holding a byte >= 0x80 is checked by the full rules from there on, off the common
//! path), attribute syntax (quotes, `=`, white space between attributes, no `<` in values, no
//! duplicate raw names), comments without `--`, terminated CDATA sections, processing
//! instructions and DOCTYPE declarations, and end tags matching their start tags. What needs the
//! document as a whole (references, namespaces, the DTD, the single root) is the decoder's.
//!
//! Every slice boundary is an ASCII delimiter byte or an end of the text, so slicing the `&str`
//! never falls inside a UTF-8 sequence (and never panics).

use std::collections::HashSet;

use crate::names;

/// An attribute as written in a start tag.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawAttr<'x> {
    pub name: &'x str,
    /// The value between the quotes, unnormalized.
    pub value: &'x str,
    /// The value holds `&`, tab, line feed or carriage return: it needs normalization.
    pub special: bool,
    /// `xmlns` or `xmlns:*`: a namespace declaration.
    pub xmlns: bool,
    /// The offset of the first colon in `name`.
    pub colon: Option<u32>,
}

#[derive(Debug)]
pub(crate) enum Token<'x> {
    /// Character data up to the next `<`; `amp`: it holds `&` (references to resolve), `cr`: it
    /// holds a carriage return (line ends to normalize).
    Text {
        raw: &'x str,
        amp: bool,
        cr: bool,
    },
    /// A start tag; its attributes are in [`Lexer::attrs`] until the next start tag.
    /// `colon`: the offset of the first colon in `name`.
    Start {
        name: &'x str,
        empty: bool,
        xmlns: bool,
        colon: Option<u32>,
    },
    End,
    Comment(&'x str),
    /// A processing instruction (`<?xml ...?>` too: the decoder decides where it is allowed).
    /// `data` starts after the target, white space included.
    Pi {
        target: &'x str,
        data: &'x str,
    },
    CData(&'x str),
    /// The text between `<!DOCTYPE` and the closing `>`.
    DocType(&'x str),
    Eof,
}

#[derive(Debug)]
pub(crate) struct LexError {
    pub pos: usize,
    pub msg: String,
    /// The text ended inside the token and more of the document is to come (the lexer is
    /// partial): not an error yet, the token is read again over a longer text.
    pub more: bool,
}

fn lex_err<T>(pos: usize, msg: impl Into<String>) -> Result<T, LexError> {
    Err(LexError {
        pos,
        msg: msg.into(),
        more: false,
    })
}

const fn name_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-';
        i += 1;
    }
    t
}

/// ASCII bytes that may continue a name, but the colon. A byte >= 0x80 ends the fast scan of a
/// name; the rest of the name is then checked character by character ([`crate::names`]).
static NAME: [bool; 256] = name_table();

/// Attribute value bytes: 0 plain, 1 needs normalization (`&`, tab, LF, CR), 2 `<`, 3 `"`, 4 `'`.
const fn value_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    t[b'&' as usize] = 1;
    t[b'\t' as usize] = 1;
    t[b'\n' as usize] = 1;
    t[b'\r' as usize] = 1;
    t[b'<' as usize] = 2;
    t[b'"' as usize] = 3;
    t[b'\'' as usize] = 4;
    t
}
static VALUE: [u8; 256] = value_table();

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of every zero byte of `v` set (and possibly of bytes above a zero byte, where
/// the subtraction borrows: the lowest flagged byte is always a true zero).
#[inline]
fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(LO) & !v & HI
}

/// Text runs are scanned 8 bytes at a time up to this length, beyond it by memchr.
const SHORT_TEXT: usize = 64;

/// The octets that the DOCTYPE scan stops at (quotes, brackets, markup delimiters).
const DOCTYPE_MARK: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t
};

/// The length of the text run at the start of `b` (up to the first `<`), and whether it holds
/// `&` and carriage returns.
#[inline]
pub(crate) fn scan_text(b: &[u8]) -> (usize, bool, bool) {
    let (mut amp, mut cr) = (false, false);
    let head = &b[..b.len().min(SHORT_TEXT)];
    let mut chunks = head.chunks_exact(8);
    let mut i = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        let lt = zero_bytes(x ^ (LO * b'<' as u64));
        let a = zero_bytes(x ^ (LO * b'&' as u64));
        let c = zero_bytes(x ^ (LO * b'\r' as u64));
        if lt != 0 {
            // Flags below the first '<' only (a flag there implies a true byte there).
            let below = (lt & lt.wrapping_neg()) - 1;
            return (
                i + (lt.trailing_zeros() / 8) as usize,
                amp | (a & below != 0),
                cr | (c & below != 0),
            );
        }
        amp |= a != 0;
        cr |= c != 0;
        i += 8;
    }
    for &c in chunks.remainder() {
        match c {
            b'<' => return (i, amp, cr),
            b'&' => amp = true,
            b'\r' => cr = true,
            _ => {}
        }
        i += 1;
    }
    if i == b.len() {
        return (i, amp, cr);
    }
    let end = memchr::memchr(b'<', &b[i..]).map_or(b.len(), |e| i + e);
    let tail = &b[i..end];
    (
        end,
        amp || memchr::memchr(b'&', tail).is_some(),
        cr || memchr::memchr(b'\r', tail).is_some(),
    )
}

/// Attribute values are scanned 8 bytes at a time up to this length, beyond it by memchr.
const SHORT_VALUE: usize = 64;

/// A byte that may start a name: an ASCII name-start character, or any byte >= 0x80 (the
/// character it starts is checked by [`crate::names`] when the name is scanned).
pub(crate) fn name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `s` is an XML name.
pub(crate) fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.is_ascii() {
        return names::is_name(s);
    }
    !b.is_empty() && name_start(b[0]) && b.iter().all(|&c| NAME[c as usize] || c == b':')
}

/// Whether `s` is an XML name without a colon (an NCName), in one pass over ASCII names.
pub(crate) fn is_ncname(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(&c) if c < 0x80 && c != b':' && name_start(c) => {}
        Some(&c) if c >= 0x80 => return names::is_name(s) && !s.contains(':'),
        _ => return false,
    }
    match b.iter().position(|&c| !NAME[c as usize]) {
        None => true,
        Some(i) => b[i] >= 0x80 && names::is_name(s) && !s.contains(':'),
    }
}

/// The number of attributes up to which duplicates are found by a linear scan.
const LINEAR_DUP_CHECK: usize = 16;

pub(crate) struct Lexer<'x> {
    src: &'x str,
    pos: usize,
    /// `src` is a window over a document whose rest is still to come: a token that reaches the
    /// end of `src` (or an error that the rest could change) is reported with `more` set.
    partial: bool,
    /// Names of the elements opened in earlier windows, still open (below `stack`).
    outer: Vec<String>,
    /// The attributes of the last start tag.
    pub attrs: Vec<RawAttr<'x>>,
    /// Attribute names of the current tag, used instead of a linear scan for tags with many.
    attr_set: HashSet<&'x str>,
    /// Names of the open elements (for matching end tags).
    stack: Vec<&'x str>,
}

impl<'x> Lexer<'x> {
    pub fn new(src: &'x str) -> Self {
        Lexer {
            src,
            pos: 0,
            partial: false,
            outer: Vec::new(),
            attrs: Vec::new(),
            attr_set: HashSet::new(),
            stack: Vec::new(),
        }
    }

    /// The text being tokenized.
    pub fn src(&self) -> &'x str {
        self.src
    }

    /// Whether the text is a window with more of the document to come.
    pub fn partial(&self) -> bool {
        self.partial
    }

    /// Goes on over the next window of the document (`src`, starting where the last token read
    /// ended; `partial`: more is to come): the names of the open elements are kept, as owned
    /// strings, since they belong to the window being left.
    pub fn into_window<'y>(self, src: &'y str, partial: bool) -> Lexer<'y> {
        let mut outer = self.outer;
        outer.extend(self.stack.iter().map(|s| s.to_string()));
        Lexer {
            src,
            pos: 0,
            partial,
            outer,
            attrs: Vec::new(),
            attr_set: HashSet::new(),
            stack: Vec::new(),
        }
    }

    /// An error that more input may turn into a token: reported with `more` when the lexer is
    /// partial and `at_end` (the condition that failed ran into the end of the text).
    #[cold]
    #[inline(never)]
    fn end_err<T>(&self, at_end: bool, pos: usize, msg: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            pos,
            msg: msg.into(),
            more: self.partial && at_end,
        })
    }

    /// The name of the innermost open element.
    fn open_name(&self) -> Option<&str> {
        match self.stack.last() {
            Some(&s) => Some(s),
            None => self.outer.last().map(String::as_str),
        }
    }

    fn pop_open(&mut self) {
        if self.stack.pop().is_none() {
            self.outer.pop();
        }
    }

    /// Offset of the next token.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Number of elements opened and not closed.
    pub fn depth(&self) -> usize {
        self.stack.len() + self.outer.len()
    }

    /// The end of the name starting at `i` (`i` itself when there is none) and the offset in it
    /// of its first colon.
    #[inline]
    fn name_end(&self, i: usize) -> (usize, Option<u32>) {
        let b = self.src.as_bytes();
        match b.get(i) {
            Some(&c) if name_start(c) => {}
            _ => return (i, None),
        }
        let mut colon = None;
        let mut j = i;
        loop {
            j += b[j..]
                .iter()
                .position(|&c| !NAME[c as usize])
                .unwrap_or(b.len() - j);
            match b.get(j) {
                Some(b':') => {
                    colon.get_or_insert((j - i) as u32);
                    j += 1;
                }
                Some(&c) if c >= 0x80 => return self.name_end_non_ascii(i, j, colon),
                _ => return (j, colon),
            }
        }
    }

    /// [`Self::name_end`] for the rest of a name from `j`, where a byte >= 0x80 stopped the
    /// ASCII scan: each non-ASCII character checked by the XML 1.0 Fifth Edition name rules,
    /// runs of ASCII name bytes by the table again.
    #[cold]
    #[inline(never)]
    fn name_end_non_ascii(
        &self,
        i: usize,
        mut j: usize,
        mut colon: Option<u32>,
    ) -> (usize, Option<u32>) {
        let b = self.src.as_bytes();
        loop {
            match b.get(j) {
                Some(&c) if c >= 0x80 => {
                    // `j` is at a character boundary: it only moves by whole characters.
                    let Some(ch) = self.src[j..].chars().next() else {
                        return (j, colon);
                    };
                    let ok = if j == i {
                        names::is_name_start_char(ch)
                    } else {
                        names::is_name_char(ch)
                    };
                    if !ok {
                        return (j, colon);
                    }
                    j += ch.len_utf8();
                }
                Some(b':') => {
                    colon.get_or_insert((j - i) as u32);
                    j += 1;
                }
                Some(&c) if NAME[c as usize] => {
                    j += 1 + b[j + 1..]
                        .iter()
                        .position(|&c| !NAME[c as usize])
                        .unwrap_or(b.len() - j - 1);
                }
                _ => return (j, colon),
            }
        }
    }

    #[inline]
    fn skip_ws(&self, i: usize) -> usize {
        let b = self.src.as_bytes();
        match b.get(i) {
            Some(&c) if is_ws(c) => {
                i + 1
                    + b[i + 1..]
                        .iter()
                        .position(|&c| !is_ws(c))
                        .unwrap_or(b.len() - i - 1)
            }
            _ => i,
        }
    }

    /// The end (the closing quote) of the attribute value starting at `vs`, quoted by `q`, and
    /// whether it needs normalization. Short values 8 bytes at a time; beyond [`SHORT_VALUE`]
    /// bytes, the quote by memchr and the rest checked 32 bytes at a time (branch-free,
    /// vectorized).
    #[inline]
    fn value_end(&self, vs: usize, q: u8, aname: &str) -> Result<(usize, bool), LexError> {
        let b = self.src.as_bytes();
        let rest = &b[vs..];
        let head = &rest[..rest.len().min(SHORT_VALUE)];
        let mut special = false;
        // 8 bytes at a time: the closing quote or '<' stops; '&' and bytes below 0x20 (tab, line
        // feed, carriage return: the only ones the input holds) need normalization.
        let mut chunks = head.chunks_exact(8);
        let mut i = 0;
        for chunk in &mut chunks {
            let x = u64::from_le_bytes([
                chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
            ]);
            let stop = zero_bytes(x ^ (LO * q as u64)) | zero_bytes(x ^ (LO * b'<' as u64));
            let norm = zero_bytes(x ^ (LO * b'&' as u64)) | (x.wrapping_sub(LO * 0x20) & !x & HI);
            if stop != 0 {
                let below = (stop & stop.wrapping_neg()) - 1;
                let k = vs + i + (stop.trailing_zeros() / 8) as usize;
                if b[k] == b'<' {
                    return lex_err(k, format!("'<' in the value of attribute {aname:?}"));
                }
                return Ok((k, special | (norm & below != 0)));
            }
            special |= norm != 0;
            i += 8;
        }
        for &c in chunks.remainder() {
            match VALUE[c as usize] {
                0 => {}
                1 => special = true,
                2 => return lex_err(vs + i, format!("'<' in the value of attribute {aname:?}")),
                3 if q == b'"' => return Ok((vs + i, special)),
                4 if q == b'\'' => return Ok((vs + i, special)),
                _ => {}
            }
            i += 1;
        }
        let short = i;
        let Some(e) = memchr::memchr(q, &rest[short..]).map(|e| short + e) else {
            return self.end_err(
                true,
                vs - 1,
                format!("unterminated value of attribute {aname:?}"),
            );
        };
        // Tab, line feed and carriage return are the only bytes below 0x20 in the input
        // (checked up front), so `< 0x20` finds them.
        let flag = |c: u8| (c < 0x20) | (c == b'&') | (c == b'<');
        let tail = &rest[short..e];
        let mut hit = false;
        let mut chunks = tail.chunks_exact(32);
        for chunk in &mut chunks {
            hit |= chunk.iter().fold(false, |acc, &c| acc | flag(c));
        }
        hit |= chunks.remainder().iter().any(|&c| flag(c));
        if hit {
            if let Some(k) = memchr::memchr(b'<', tail) {
                return lex_err(
                    vs + short + k,
                    format!("'<' in the value of attribute {aname:?}"),
                );
            }
            special = true;
        }
        Ok((vs + e, special))
    }

    // Inlined into the decoder's loops, which spend most of their time here: left to the
    // compiler, it is not inlined (it is large), and a call per token costs the loops.
    #[inline(always)]
    pub fn next_token(&mut self) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        let start = self.pos;
        match b.get(start) {
            None if self.partial => self.end_err(true, start, "the input ended"),
            None => Ok(Token::Eof),
            Some(b'<') => self.markup(start),
            Some(_) => {
                let (end, amp, cr) = scan_text(&b[start..]);
                let end = start + end;
                if end == b.len() && self.partial {
                    return self.end_err(true, start, "the input ended in character data");
                }
                // `]]>` may not appear in character data (XML 1.0, production [14]); a '>' is
                // rare in text, so the search for it is the whole cost in the common case.
                if let Some(gt) = memchr::memchr(b'>', &b[start..end])
                    && let Some(at) =
                        memchr::memmem::find(&b[start + gt.saturating_sub(2)..end], b"]]>")
                {
                    return lex_err(
                        start + gt.saturating_sub(2) + at,
                        "']]>' is not allowed in character data",
                    );
                }
                self.pos = end;
                Ok(Token::Text {
                    raw: &self.src[start..end],
                    amp,
                    cr,
                })
            }
        }
    }

    // Inlined into next_token for the same reason: most tokens are markup.
    #[inline(always)]
    fn markup(&mut self, start: usize) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        match b.get(start + 1) {
            Some(b'/') => self.end_tag(start),
            Some(b'?') => self.pi(start),
            Some(b'!') => {
                let rest = &b[start..];
                if rest.starts_with(b"<!--") {
                    let from = start + 4;
                    let Some(k) = memchr::memmem::find(&b[from..], b"--").map(|k| from + k) else {
                        return self.end_err(true, start, "unterminated comment");
                    };
                    if b.get(k + 2) != Some(&b'>') {
                        return self.end_err(k + 2 >= b.len(), k, "'--' inside a comment");
                    }
                    self.pos = k + 3;
                    Ok(Token::Comment(&self.src[from..k]))
                } else if rest.starts_with(b"<![CDATA[") {
                    let from = start + 9;
                    let Some(k) = memchr::memmem::find(&b[from..], b"]]>").map(|k| from + k) else {
                        return self.end_err(true, start, "unterminated CDATA section");
                    };
                    self.pos = k + 3;
                    Ok(Token::CData(&self.src[from..k]))
                } else if rest.starts_with(b"<!DOCTYPE") {
                    self.doctype(start)
                } else {
                    self.end_err(rest.len() < 9, start, "unknown markup after '<!'")
                }
            }
            Some(&c) if name_start(c) => self.start_tag(start),
            Some(_) => lex_err(start, "'<' not followed by a name"),
            None => self.end_err(true, start, "unexpected end of input after '<'"),
        }
    }

    fn end_tag(&mut self, start: usize) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        let ns = start + 2;
        // The common case: the name of the open element, compared at once (no name scan).
        if let Some(open) = self.open_name() {
            let ne = ns + open.len();
            if b[ns..].starts_with(open.as_bytes())
                && !b.get(ne).is_some_and(|&c| NAME[c as usize] || c == b':')
            {
                let i = self.skip_ws(ne);
                if b.get(i) == Some(&b'>') {
                    self.pop_open();
                    self.pos = i + 1;
                    return Ok(Token::End);
                }
            }
        }
        let (ne, _) = self.name_end(ns);
        if ne == ns {
            return self.end_err(ns >= b.len(), start, "end tag without a valid name");
        }
        let name = &self.src[ns..ne];
        let i = self.skip_ws(ne);
        if b.get(i) != Some(&b'>') {
            return self.end_err(
                i >= b.len(),
                i,
                format!("expected '>' to close the end tag </{name}>"),
            );
        }
        // Looked at, then popped: an error leaves the lexer as it was.
        match self.open_name() {
            Some(open) if open == name => self.pop_open(),
            Some(open) => {
                return lex_err(
                    start,
                    format!("mismatched end tag: expected `</{open}>`, found `</{name}>`"),
                );
            }
            None => {
                return lex_err(
                    start,
                    format!("end tag `</{name}>` without a matching start tag"),
                );
            }
        }
        self.pos = i + 1;
        Ok(Token::End)
    }

    fn pi(&mut self, start: usize) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        let ts = start + 2;
        let (te, _) = self.name_end(ts);
        if te == ts {
            return self.end_err(
                ts >= b.len(),
                start,
                "processing instruction without a valid target",
            );
        }
        let target = &self.src[ts..te];
        if b[te..].starts_with(b"?>") {
            self.pos = te + 2;
            return Ok(Token::Pi { target, data: "" });
        }
        if !b.get(te).is_some_and(|&c| is_ws(c)) {
            return self.end_err(
                te + 2 > b.len(),
                te,
                format!("unexpected character after the processing instruction target {target:?}"),
            );
        }
        let Some(end) = memchr::memmem::find(&b[te..], b"?>").map(|k| te + k) else {
            return self.end_err(true, start, "unterminated processing instruction");
        };
        self.pos = end + 2;
        Ok(Token::Pi {
            target,
            data: &self.src[te..end],
        })
    }

    /// The DOCTYPE declaration as one token: its end found past literals, comments and
    /// processing instructions of the internal subset (where a `>` or `]` does not end it).
    fn doctype(&mut self, start: usize) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        let from = start + 9;
        let mut i = from;
        let mut quote = 0u8;
        let mut subset = false;
        while i < b.len() {
            let c = b[i];
            if quote != 0 {
                // the literal's end at once
                match memchr::memchr(quote, &b[i..]) {
                    Some(k) => i += k + 1,
                    None => break,
                }
                quote = 0;
                continue;
            }
            if !DOCTYPE_MARK[c as usize] {
                i += 1;
                continue;
            }
            match c {
                b'"' | b'\'' => quote = c,
                b'[' if !subset => subset = true,
                b']' if subset => subset = false,
                b'<' if subset && b.get(i + 1..i + 4) == Some(b"!--") => {
                    match memchr::memmem::find(&b[i + 4..], b"-->") {
                        Some(k) => i += 4 + k + 3,
                        None => {
                            return self.end_err(true, i, "unterminated comment in the DOCTYPE");
                        }
                    }
                    continue;
                }
                b'<' if subset && b.get(i + 1) == Some(&b'?') => {
                    match memchr::memmem::find(&b[i + 2..], b"?>") {
                        Some(k) => i += 2 + k + 2,
                        None => {
                            return self.end_err(
                                true,
                                i,
                                "unterminated processing instruction in the DOCTYPE",
                            );
                        }
                    }
                    continue;
                }
                b'>' if !subset => {
                    self.pos = i + 1;
                    return Ok(Token::DocType(&self.src[from..i]));
                }
                _ => {}
            }
            i += 1;
        }
        self.end_err(true, start, "unterminated DOCTYPE declaration")
    }

    fn start_tag(&mut self, start: usize) -> Result<Token<'x>, LexError> {
        let b = self.src.as_bytes();
        let (ne, colon) = self.name_end(start + 1);
        let name = &self.src[start + 1..ne];
        self.attrs.clear();
        if !self.attr_set.is_empty() {
            self.attr_set.clear();
        }
        let mut xmlns = false;
        let mut i = ne;
        loop {
            let after_ws = self.skip_ws(i);
            let had_ws = after_ws > i;
            i = after_ws;
            match b.get(i) {
                Some(b'>') => {
                    self.pos = i + 1;
                    self.stack.push(name);
                    return Ok(Token::Start {
                        name,
                        empty: false,
                        xmlns,
                        colon,
                    });
                }
                Some(b'/') => {
                    if b.get(i + 1) != Some(&b'>') {
                        return self.end_err(
                            i + 1 >= b.len(),
                            i,
                            format!("expected '>' after '/' in the tag <{name}>"),
                        );
                    }
                    self.pos = i + 2;
                    return Ok(Token::Start {
                        name,
                        empty: true,
                        xmlns,
                        colon,
                    });
                }
                None => {
                    return self.end_err(true, start, format!("unterminated start tag <{name}>"));
                }
                Some(_) => {}
            }
            // An attribute.
            let an = i;
            let (ae, colon) = self.name_end(an);
            if ae == an {
                if name.is_empty() {
                    // A byte >= 0x80 after '<' that does not start a name character.
                    return lex_err(start, "'<' not followed by a name");
                }
                return lex_err(
                    an,
                    format!("unexpected character in the start tag <{name}>"),
                );
            }
            if !had_ws {
                return lex_err(
                    an,
                    format!("white space required before attribute in the start tag <{name}>"),
                );
            }
            let aname = &self.src[an..ae];
            i = self.skip_ws(ae);
            if b.get(i) != Some(&b'=') {
                return self.end_err(
                    i >= b.len(),
                    i,
                    format!("expected '=' after attribute {aname:?}"),
                );
            }
            i = self.skip_ws(i + 1);
            let q = match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => q,
                _ => {
                    return self.end_err(
                        i >= b.len(),
                        i,
                        format!("expected a quoted value for attribute {aname:?}"),
                    );
                }
            };
            let vs = i + 1;
            let (j, special) = self.value_end(vs, q, aname)?;
            let value = &self.src[vs..j];
            i = j + 1;
            let is_xmlns =
                aname.starts_with("xmlns") && (aname.len() == 5 || aname.as_bytes()[5] == b':');
            xmlns |= is_xmlns;
            if self.attrs.len() < LINEAR_DUP_CHECK {
                let (n, first) = (aname.len(), aname.as_bytes()[0]);
                if self
                    .attrs
                    .iter()
                    .any(|a| a.name.len() == n && a.name.as_bytes()[0] == first && a.name == aname)
                {
                    return lex_err(an, format!("duplicate attribute {aname:?}"));
                }
            } else {
                if self.attr_set.is_empty() {
                    self.attr_set.extend(self.attrs.iter().map(|a| a.name));
                }
                if !self.attr_set.insert(aname) {
                    return lex_err(an, format!("duplicate attribute {aname:?}"));
                }
            }
            self.attrs.push(RawAttr {
                name: aname,
                value,
                special,
                xmlns: is_xmlns,
                colon,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(s: &str) -> Result<Vec<String>, LexError> {
        let mut lx = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token()?;
            if matches!(t, Token::Eof) {
                return Ok(out);
            }
            let attrs: Vec<String> = lx
                .attrs
                .iter()
                .map(|a| format!("{}={}{}", a.name, a.value, if a.special { "*" } else { "" }))
                .collect();
            out.push(match t {
                Token::Start { name, empty, .. } => format!(
                    "<{name} {}{}>",
                    attrs.join(" "),
                    if empty { "/" } else { "" }
                ),
                other => format!("{other:?}"),
            });
        }
    }

    #[test]
    fn tokenizes() {
        let t = tokens("<?xml version='1.0'?><!DOCTYPE a [<!ENTITY x '>]'><!-- ] > -->]><a b = \"1\" c='2&amp;'>t<![CDATA[<x>]]><!--c--><?p d?><e/></a>").unwrap();
        assert_eq!(t[0], "Pi { target: \"xml\", data: \" version='1.0'\" }");
        assert!(t[1].starts_with("DocType(\" a [<!ENTITY"), "{}", t[1]);
        assert_eq!(t[2], "<a b=1 c=2&amp;*>");
        assert_eq!(t[3], "Text { raw: \"t\", amp: false, cr: false }");
        assert_eq!(t[4], "CData(\"<x>\")");
        assert_eq!(t[5], "Comment(\"c\")");
        assert_eq!(t[6], "Pi { target: \"p\", data: \" d\" }");
        assert_eq!(t[7], "<e />");
        assert_eq!(t[8], "End");
    }

    #[test]
    fn text_runs() {
        // Against a byte-by-byte scan, every length and position around the chunk boundaries.
        let naive = |b: &[u8]| {
            let end = b.iter().position(|&c| c == b'<').unwrap_or(b.len());
            (end, b[..end].contains(&b'&'), b[..end].contains(&b'\r'))
        };
        let fill = "ab\u{e9}\u{1F600}cd\n \t\u{1}\u{7f}\u{80}";
        for len in 0..140 {
            let base: Vec<u8> = fill.bytes().cycle().take(len).collect();
            assert_eq!(scan_text(&base), naive(&base), "{len}");
            for at in 0..len {
                for set in [
                    &[b'<'][..],
                    b"&",
                    b"\r",
                    b"&<",
                    b"<&",
                    b"\r<",
                    b"<\r",
                    b"\x00<",
                    b"<\x00&",
                ] {
                    let mut v = base.clone();
                    for (k, &c) in set.iter().enumerate() {
                        if at + k < len {
                            v[at + k] = c;
                        }
                    }
                    assert_eq!(scan_text(&v), naive(&v), "{len} {at} {set:?}");
                }
            }
        }
        let t = tokens("<a>x&amp;\r\n</a>").unwrap();
        assert_eq!(t[1], "Text { raw: \"x&amp;\\r\\n\", amp: true, cr: true }");
    }

    #[test]
    fn cdata_end_in_text_is_an_error() {
        for (doc, at) in [
            ("<a>x]]>y</a>", 4),
            ("<a>]]></a>", 3),
            ("<a>x]>]]>y</a>", 6),
        ] {
            let e = tokens(doc).unwrap_err();
            assert_eq!(
                (e.pos, e.msg.as_str()),
                (at, "']]>' is not allowed in character data"),
                "{doc}"
            );
        }
        for doc in [
            "<a>x>y]]</a>",
            "<a>]]&gt;</a>",
            "<a>]>]]</a>",
            "<a><![CDATA[]]]]><![CDATA[>]]></a>",
        ] {
            assert!(tokens(doc).is_ok(), "{doc}");
        }
    }

    #[test]
    fn attribute_values() {
        for len in [0, 1, 23, 24, 25, 31, 32, 33, 100, 200] {
            for (tail, special) in [
                ("", false),
                ("&amp;", true),
                ("\t", true),
                ("\n", true),
                ("\r", true),
                ("x'y", false),
                ("é", false),
            ] {
                let v = format!("{}{tail}", "a".repeat(len));
                let t = tokens(&format!("<a v=\"{v}\" w='1'/>")).unwrap();
                let star = if special { "*" } else { "" };
                assert_eq!(t[0], format!("<a v={v}{star} w=1/>"));
                assert!(tokens(&format!("<a v=\"{v}<\"/>")).is_err(), "{len}");
                assert!(tokens(&format!("<a v=\"<{v}\"/>")).is_err(), "{len}");
                assert!(tokens(&format!("<a v=\"{v}")).is_err(), "{len}");
            }
        }
    }

    #[test]
    fn attribute_values_against_a_byte_scan() {
        let fill = "ab\u{e9}\u{1F600}cd \u{80}x'";
        for len in 0..150 {
            let base: Vec<u8> = fill.bytes().cycle().take(len).collect();
            for at in 0..=len {
                for set in [
                    &[b'"'][..],
                    b"<",
                    b"&\"",
                    b"\t\"",
                    b"\n<",
                    b"\r",
                    b"\"&",
                    b"\"<",
                ] {
                    let mut v = base.clone();
                    for (k, &c) in set.iter().enumerate() {
                        if at + k < len {
                            v[at + k] = c;
                        }
                    }
                    let Ok(v) = String::from_utf8(v) else {
                        continue;
                    };
                    let doc = format!("\"{v}\"");
                    let bytes = v.as_bytes();
                    let end = bytes.iter().position(|&c| c == b'"').unwrap_or(bytes.len());
                    let expect = if bytes[..end].contains(&b'<') {
                        None
                    } else {
                        Some((
                            1 + end,
                            bytes[..end]
                                .iter()
                                .any(|c| matches!(c, b'&' | b'\t' | b'\n' | b'\r')),
                        ))
                    };
                    let got = Lexer::new(&doc).value_end(1, b'"', "v").ok();
                    assert_eq!(got, expect, "{doc:?}");
                }
            }
        }
    }

    #[test]
    fn non_ascii_names_by_the_name_rules() {
        for name in [
            "\u{e9}",
            "a\u{e9}",
            "\u{e9}a",
            "a\u{e9}b:c\u{e9}d",
            "a:\u{e9}",
            "a\u{d7}",
            "\u{d7}a",
            "a\u{b7}",
            "\u{b7}a",
            "a\u{300}b",
            "ab\u{10000}",
            "\u{10000}",
            "\u{e9}\u{f7}x",
        ] {
            let ok = names::is_name(name);
            for doc in [
                format!("<{name}/>"),
                format!("<{name}></{name}>"),
                format!("<a {name}='1'/>"),
                format!("<?{name} x?>"),
            ] {
                assert_eq!(tokens(&doc).is_ok(), ok, "{doc}");
            }
            if ok {
                let t = tokens(&format!("<{name} b='1'/>")).unwrap();
                assert_eq!(t[0], format!("<{name} b=1/>"));
            }
        }
    }

    #[test]
    fn rejects() {
        for doc in [
            "<a b='1' b='2'/>",
            "<a b='1'c='2'/>",
            "<a b=1/>",
            "<a b='<'/>",
            "<a b='1/>",
            "<a><!-- a -- b --></a>",
            "<a><!-- a ---></a>",
            "<a></b>",
            "</a>",
            "<a",
            "< a/>",
            "<1a/>",
            "<a><![CDATA[x</a>",
            "<?pi",
            "<!DOCTYPE a [",
            "<!FOO>",
            "<a/ >",
            "<ab></a>",
            "<a></ab>",
            "<a:b></a>",
            "<a></a:b>",
            "<a></a x>",
            "<a></a",
        ] {
            assert!(tokens(doc).is_err(), "{doc}");
        }
        let many: String = (0..40).map(|i| format!(" a{i}='x'")).collect();
        assert!(tokens(&format!("<r{many}/>")).is_ok());
        assert!(tokens(&format!("<r{many} a7='y'/>")).is_err());
    }
}
