//! The XML pull decoder: our tokenizer ([`crate::lexer`]) underneath, plus namespace
//! resolution, the internal DTD subset (entities, attribute defaults), well-formedness checks on
//! the document as a whole, and bounded entity expansion.
//!
//! The common path returns each event straight from the token it comes from: a start tag gives
//! its `StartElement`, then (over the following calls) its namespace declarations and attributes
//! read from the tokenizer's attribute list, then `EndElement` for an empty-element tag. Only the
//! rare cases (the DOCTYPE's declarations, entity replacement text holding markup, DTD attribute
//! defaults, text with references) go through the queue of pending events.

use binxml_core::Format;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use binxml_core::{
    DocType, Error, Event, EventSink, Limits, QName, Result, XML_NS, XMLNS_NS, error::line_col,
};

use crate::dtd::{AttList, AttListCache, Dtd, Entity, split_doctype};
use crate::lexer::{LexError, Lexer, RawAttr, Token, is_name};

const FMT: Format = Format::Xml;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Before the first call: StartDocument not yet produced.
    Start,
    Prolog,
    Root,
    Epilog,
    Done,
}

/// A pull decoder of XML text. Strings borrow from the input unless escapes, entity expansion or
/// line-end normalization changed them.
///
/// The input must be UTF-8 (see [`crate::to_utf8`] for other encodings). External entities and
/// DTDs are never fetched: a reference to an external parsed entity becomes
/// [`Event::EntityReference`].
pub struct XmlDecoder<'a> {
    input: &'a [u8],
    /// Offset of `input` in the caller's buffer (a stripped byte-order mark).
    base: u64,
    lex: Lexer<'a>,
    limits: Limits,
    phase: Phase,
    pending: VecDeque<(u64, Event<'a>)>,
    /// Character data read but not yet emitted (adjacent text, references and CDATA merge).
    text: Option<(u64, Cow<'a, str>)>,
    ns: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// For each open element that declared namespaces: (its depth, `ns.len()` before them).
    ns_marks: Vec<(usize, usize)>,
    depth: usize,
    dtd: Rc<Dtd>,
    /// The attribute declarations of the element whose start tag is being read.
    atts: Option<Rc<AttList>>,
    /// The element names looked up in the DTD's attribute declarations.
    att_cache: AttListCache,
    external_dtd: bool,
    doctype_seen: bool,
    standalone: bool,
    expanded: usize,
    entity_stack: Vec<String>,
    last_offset: u64,
    utf8_error: Option<(usize, &'static str)>,
    /// The start tag whose namespace and attribute events are being produced.
    tag: TagState,
    /// Namespaced attributes of the current tag, for the duplicate check.
    nsattrs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// Raw attribute names of the current tag, kept when the DTD declares defaults for it.
    seen_raw: Vec<Cow<'a, str>>,
    /// Line and column of `input`'s first byte in the document (it is a window of it when
    /// read by [`crate::XmlReadDecoder`]).
    line_at: (u64, u64),
    /// Set when the window ended inside a token and more of the document is to come: the
    /// error returned with it is not one (see [`crate::XmlReadDecoder`]).
    need_more: Cell<bool>,
    /// Invalid input past the end of the window's text: the error once the decoder gets there.
    deferred: Option<(usize, &'static str)>,
}

/// A start tag of the document being turned into events one at a time; its attributes are the
/// tokenizer's `attrs`.
#[derive(Default)]
struct TagState {
    active: bool,
    pos: u64,
    /// Namespace declarations still to produce: `ns[ns_next..ns_end]`.
    ns_next: usize,
    ns_end: usize,
    /// The next attribute of the tokenizer's list.
    attr_next: usize,
    /// An empty-element tag: EndElement follows the attributes.
    empty: bool,
}

/// The offset of the first character that XML 1.0 does not allow anywhere (control characters
/// other than tab, line feed and carriage return; U+FFFE and U+FFFF).
pub(crate) fn first_non_xml_char(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    // Control characters other than tab, line feed and carriage return, 64 bytes at a time
    // (branch-free, so the compiler vectorizes it); the exact position only on a hit.
    let bad = |c: u8| (c < 0x20) & (c != b'\t') & (c != b'\n') & (c != b'\r');
    let mut chunks = b.chunks_exact(64);
    let mut base = 0;
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, &c| acc | bad(c)) {
            return chunk.iter().position(|&c| bad(c)).map(|k| base + k);
        }
        base += 64;
    }
    if let Some(k) = chunks.remainder().iter().position(|&c| bad(c)) {
        return Some(base + k);
    }
    // U+FFFE and U+FFFF. Short strings (the writer checks every name and value) by a plain
    // scan: building a substring searcher costs more than searching them.
    if b.len() < 64 {
        return b
            .windows(3)
            .position(|w| w[0] == 0xEF && w[1] == 0xBF && w[2] >= 0xBE);
    }
    memchr::memmem::find_iter(b, b"\xEF\xBF").find(|&p| matches!(b.get(p + 2), Some(0xBE | 0xBF)))
}

/// The replacement text of the five predefined entities.
fn predefined(name: &str) -> Option<&'static str> {
    Some(match name {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "apos" => "'",
        "quot" => "\"",
        _ => return None,
    })
}

/// The character of a character reference's body (`#38`, `#x26`), if it is a valid XML
/// character.
fn char_ref(body: &str) -> Option<char> {
    let num = body.strip_prefix('#')?;
    let code = match num.strip_prefix('x') {
        Some(h) if !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()) => {
            u32::from_str_radix(h, 16).ok()?
        }
        None if !num.is_empty() && num.bytes().all(|c| c.is_ascii_digit()) => {
            num.parse::<u32>().ok()?
        }
        _ => return None,
    };
    char::from_u32(code).filter(|&c| crate::dtd::is_xml_char(c))
}

/// Line ends normalized (XML 1.0 section 2.11): CR LF and a lone CR become LF.
fn normalize_newlines(s: Cow<'_, str>) -> Cow<'_, str> {
    let Some(first) = memchr::memchr(b'\r', s.as_bytes()) else {
        return s;
    };
    if let Some(ws) = static_line_indent(&s) {
        return Cow::Borrowed(ws);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest: &str = &s;
    let mut i = first;
    loop {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if rest.as_bytes().first() == Some(&b'\n') {
            rest = &rest[1..];
        }
        match memchr::memchr(b'\r', rest.as_bytes()) {
            Some(k) => i = k,
            None => break,
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

const LINE_SPACES: &str = concat!(
    "\n",
    "                                                                ",
    "                                                                "
);
const LINE_TABS: &str = "\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

/// Indentation after a CR LF line end (`\r\n` and then only spaces, or only tabs), normalized, as
/// a static string: documents with CR LF line ends need no allocation per indentation.
fn static_line_indent(s: &str) -> Option<&'static str> {
    let rest = s.strip_prefix("\r\n")?;
    let table = match rest.as_bytes().first() {
        None | Some(b' ') => LINE_SPACES,
        Some(b'\t') => LINE_TABS,
        _ => return None,
    };
    let fill = table.as_bytes()[table.len() - 1];
    (rest.len() < table.len() && rest.bytes().all(|c| c == fill)).then(|| &table[..1 + rest.len()])
}

/// `raw` (which holds no `&`, CR or `<`) with every tab and line feed turned into a space.
fn spaces_for_tabs_and_line_feeds(raw: &str) -> String {
    let mut bytes = raw.as_bytes().to_vec();
    for c in bytes.iter_mut() {
        if matches!(*c, b'\t' | b'\n') {
            *c = b' ';
        }
    }
    // ASCII bytes replaced by an ASCII byte: still UTF-8 (the check cannot fail).
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn split_qname(raw: &str) -> (&str, &str) {
    match memchr::memchr(b':', raw.as_bytes()) {
        Some(i) => (&raw[..i], &raw[i + 1..]),
        None => ("", raw),
    }
}

fn is_xml_ws(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The pseudo-attributes of an XML declaration (the text after `<?xml`).
fn parse_decl(data: &str) -> std::result::Result<(String, Option<String>, Option<bool>), String> {
    let mut rest = data;
    let mut take = |name: &str| -> std::result::Result<Option<String>, String> {
        let t = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        let had_ws = t.len() < rest.len();
        let Some(after) = t.strip_prefix(name) else {
            return Ok(None);
        };
        if !had_ws {
            return Err(format!(
                "white space required before {name} in the XML declaration"
            ));
        }
        let after = after.trim_start_matches([' ', '\t', '\r', '\n']);
        let after = after
            .strip_prefix('=')
            .ok_or_else(|| format!("expected '=' after {name} in the XML declaration"))?;
        let after = after.trim_start_matches([' ', '\t', '\r', '\n']);
        let q = match after.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => q as char,
            _ => {
                return Err(format!(
                    "expected a quoted value for {name} in the XML declaration"
                ));
            }
        };
        let end = after[1..]
            .find(q)
            .ok_or_else(|| format!("unterminated value of {name} in the XML declaration"))?;
        let value = after[1..1 + end].to_string();
        rest = &after[end + 2..];
        Ok(Some(value))
    };
    let version = take("version")?.ok_or("XML declaration without version")?;
    let encoding = take("encoding")?;
    let standalone = match take("standalone")?.as_deref() {
        None => None,
        Some("yes") => Some(true),
        Some("no") => Some(false),
        Some(other) => return Err(format!("bad standalone value {other:?}")),
    };
    if !is_xml_ws(rest) {
        return Err(format!(
            "unexpected text in the XML declaration: {:?}",
            rest.trim()
        ));
    }
    // VersionNum ([26], Fifth Edition): '1.' and digits; a 1.x document is read as XML 1.0.
    if !version
        .strip_prefix("1.")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
    {
        return Err(format!("unsupported XML version {version:?}"));
    }
    if let Some(e) = &encoding {
        let ok = e
            .as_bytes()
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && e.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
        if !ok {
            return Err(format!("bad encoding name {e:?}"));
        }
    }
    Ok((version, encoding, standalone))
}

impl<'a> XmlDecoder<'a> {
    /// A decoder of the XML document in `input`, with the default [`Limits`].
    pub fn new(input: &'a [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A decoder of the XML document in `input` that refuses documents beyond `limits` (depth,
    /// string lengths, entity expansion) with an error. A leading UTF-8 byte order mark is
    /// skipped; input that is not UTF-8, or holds a character XML does not allow, is reported by
    /// [`Decoder::next_event`](binxml_core::Decoder::next_event) as an error at its byte offset.
    pub fn with_limits(input: &'a [u8], limits: Limits) -> Self {
        let (input, base) = match input.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => (rest, 3),
            None => (input, 0),
        };
        let (text_input, utf8_error) = match std::str::from_utf8(input) {
            Ok(s) => match first_non_xml_char(s) {
                None => (s, None),
                Some(at) => ("", Some((at, "a character not allowed in XML"))),
            },
            Err(e) => ("", Some((e.valid_up_to(), "invalid UTF-8"))),
        };
        XmlDecoder {
            input,
            base,
            lex: Lexer::new(text_input),
            limits,
            phase: Phase::Start,
            pending: VecDeque::new(),
            text: None,
            ns: Vec::new(),
            ns_marks: Vec::new(),
            depth: 0,
            dtd: Rc::new(Dtd::default()),
            atts: None,
            att_cache: AttListCache::default(),
            external_dtd: false,
            doctype_seen: false,
            standalone: false,
            expanded: 0,
            entity_stack: Vec::new(),
            last_offset: base,
            utf8_error,
            tag: TagState::default(),
            nsattrs: Vec::new(),
            seen_raw: Vec::new(),
            line_at: (1, 1),
            need_more: Cell::new(false),
            deferred: None,
        }
    }

    /// The decoder's state with nothing borrowed from the window it read: possible between
    /// tokens only (after [`Self::needs_more`] or the end), which is where it is called.
    pub(crate) fn detach(self) -> XmlDecoder<'static> {
        let owned =
            |(p, u): (Cow<'a, str>, Cow<'a, str>)| -> (Cow<'static, str>, Cow<'static, str>) {
                (Cow::Owned(p.into_owned()), Cow::Owned(u.into_owned()))
            };
        XmlDecoder {
            input: &[],
            base: self.base,
            lex: self.lex.into_window("", true),
            limits: self.limits,
            phase: self.phase,
            pending: self
                .pending
                .into_iter()
                .map(|(p, e)| (p, e.into_owned()))
                .collect(),
            text: self.text.map(|(p, t)| (p, Cow::Owned(t.into_owned()))),
            ns: self.ns.into_iter().map(owned).collect(),
            ns_marks: self.ns_marks,
            depth: self.depth,
            dtd: self.dtd,
            atts: self.atts,
            att_cache: self.att_cache,
            external_dtd: self.external_dtd,
            doctype_seen: self.doctype_seen,
            standalone: self.standalone,
            expanded: self.expanded,
            entity_stack: self.entity_stack,
            last_offset: self.last_offset,
            utf8_error: None,
            tag: TagState::default(),
            nsattrs: Vec::new(),
            seen_raw: Vec::new(),
            line_at: self.line_at,
            need_more: Cell::new(false),
            deferred: None,
        }
    }

    /// Goes on over the next window of the document: `window` starts where the last token
    /// read ended, at byte `base` of the document, at line and column `line_at`; `partial`:
    /// more of the document is to come. The window is checked as UTF-8 here; invalid input
    /// in it is reported when the decoder reaches it (at once in the first window, as
    /// [`Self::with_limits`] does).
    pub(crate) fn attach(
        prev: XmlDecoder<'static>,
        window: &'a [u8],
        base: u64,
        line_at: (u64, u64),
        partial: bool,
    ) -> XmlDecoder<'a> {
        let (text, mut bad) = match std::str::from_utf8(window) {
            Ok(s) => (s, None),
            Err(e) => {
                let v = e.valid_up_to();
                let s = std::str::from_utf8(&window[..v]).unwrap_or_default();
                // A character cut by the end of a partial window is no error.
                let cut = partial && e.error_len().is_none();
                (s, (!cut).then_some((v, "invalid UTF-8")))
            }
        };
        let text = match first_non_xml_char(text) {
            Some(at) => {
                bad = Some((at, "a character not allowed in XML"));
                &text[..at]
            }
            None => text,
        };
        let first = prev.phase == Phase::Start;
        let mut dec: XmlDecoder<'a> = prev;
        dec.input = window;
        dec.base = base;
        dec.line_at = line_at;
        dec.lex = std::mem::replace(&mut dec.lex, Lexer::new(""))
            .into_window(text, partial || bad.is_some());
        dec.need_more.set(false);
        if first && bad.is_some() {
            dec.utf8_error = bad;
        } else {
            dec.deferred = bad;
        }
        dec
    }

    /// The last call stopped at the end of the window, in a token that more of the document
    /// may complete: the error it returned is not one.
    pub(crate) fn needs_more(&self) -> bool {
        self.need_more.get()
    }

    /// The offset in the window of the first byte not read yet (the next token's).
    pub(crate) fn consumed(&self) -> usize {
        self.lex.pos()
    }

    /// Line and column in the document of byte `pos` of the window.
    fn line_col(&self, pos: u64) -> (u64, u64) {
        let (l, c) = line_col(self.input, pos as usize);
        match (l, self.line_at) {
            (1, (l0, c0)) => (l0, c0 + c - 1),
            (l, (l0, _)) => (l0 + l - 1, c),
        }
    }

    #[cold]
    #[inline(never)]
    fn err(&self, pos: u64, msg: impl Into<String>) -> Error {
        let (l, c) = self.line_col(pos);
        Error::malformed(FMT, pos + self.base, msg).with_line_col(l, c)
    }

    #[cold]
    #[inline(never)]
    fn limit_err(&self, pos: u64, msg: impl Into<String>) -> Error {
        let (l, c) = self.line_col(pos);
        Error::limit(FMT, pos + self.base, msg).with_line_col(l, c)
    }

    #[cold]
    #[inline(never)]
    fn lex_err(&self, e: LexError) -> Error {
        if e.more {
            // The token runs into the end of the window's text: the document goes on after it,
            // or the text stops at input that is not XML, which is the error then.
            if let Some((at, what)) = self.deferred {
                return self.err(at as u64, what);
            }
            self.need_more.set(true);
        }
        self.err(e.pos as u64, e.msg)
    }

    fn push(&mut self, pos: u64, ev: Event<'a>) {
        self.pending.push_back((pos, ev));
    }

    fn flush_text(&mut self) {
        if let Some((pos, text)) = self.text.take() {
            self.pending
                .push_back((pos, Event::Characters { text, cdata: false }));
        }
    }

    fn add_text(&mut self, pos: u64, piece: Cow<'a, str>) -> Result<()> {
        if self.depth == 0 {
            if is_xml_ws(&piece) {
                return Ok(());
            }
            return Err(self.err(pos, "character data outside the root element"));
        }
        match &mut self.text {
            None => self.text = Some((pos, piece)),
            Some((_, acc)) => {
                let s = acc.to_mut();
                if s.len() + piece.len() > self.limits.max_string_len {
                    return Err(self.limit_err(pos, "text longer than the string-length limit"));
                }
                s.push_str(&piece);
            }
        }
        Ok(())
    }

    #[inline]
    fn lookup_ns(&self, prefix: &str) -> Option<Cow<'a, str>> {
        let found = if prefix.is_empty() {
            self.ns.iter().rev().find(|(p, _)| p.is_empty())
        } else {
            self.ns
                .iter()
                .rev()
                .find(|(p, _)| p.len() == prefix.len() && p == prefix)
        };
        match found {
            Some((_, Cow::Borrowed(u))) => Some(Cow::Borrowed(u)),
            Some((_, Cow::Owned(u))) => Some(Cow::Owned(u.clone())),
            None => (prefix == "xml").then_some(Cow::Borrowed(XML_NS)),
        }
    }

    /// The first call: StartDocument, from the XML declaration when there is one.
    fn start(&mut self) -> Result<Event<'a>> {
        if let Some((at, what)) = self.utf8_error {
            return Err(self.err(at as u64, what));
        }
        let src = self.lex.src();
        let b = src.as_bytes();
        if b.len() < 6 && self.lex.partial() {
            // Too little of the document to tell whether it starts with an XML declaration.
            return Err(self.lex_err(LexError {
                pos: 0,
                msg: "the input ended".into(),
                more: true,
            }));
        }
        self.phase = Phase::Prolog;
        if b.starts_with(b"<?xml") && matches!(b.get(5), Some(b' ' | b'\t' | b'\r' | b'\n' | b'?'))
        {
            let tok = match self.lex.next_token() {
                Ok(t) => t,
                Err(e) => {
                    self.phase = Phase::Start;
                    return Err(self.lex_err(e));
                }
            };
            if let Token::Pi {
                target: "xml",
                data,
            } = tok
            {
                let (version, encoding, standalone) =
                    parse_decl(data).map_err(|m| self.err(0, m))?;
                self.standalone = standalone == Some(true);
                self.last_offset = self.base;
                return Ok(Event::StartDocument {
                    version: Some(Cow::Owned(version)),
                    encoding: encoding.map(Cow::Owned),
                    standalone,
                });
            }
            return Err(self.err(0, "malformed XML declaration"));
        }
        self.last_offset = self.base;
        Ok(Event::start_document())
    }

    /// Character data up to a `<`: references resolved (and expanded), line ends normalized,
    /// accumulated into `self.text`. `exact`: `pos` is the offset of `raw` in the document, so
    /// errors point into it (in replacement text they point at the reference).
    fn text_run<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &mut self,
        pos: u64,
        raw: &'x str,
        exact: bool,
        lift: &L,
    ) -> Result<()> {
        let mut rest = raw;
        let at = |rest: &str, i: usize| {
            if exact {
                pos + (rest.as_ptr() as usize - raw.as_ptr() as usize + i) as u64
            } else {
                pos
            }
        };
        loop {
            let Some(i) = memchr::memchr(b'&', rest.as_bytes()) else {
                if !rest.is_empty() {
                    self.add_text(at(rest, 0), lift(normalize_newlines(Cow::Borrowed(rest))))?;
                }
                return Ok(());
            };
            if i > 0 {
                self.add_text(
                    at(rest, 0),
                    lift(normalize_newlines(Cow::Borrowed(&rest[..i]))),
                )?;
            }
            let rpos = at(rest, i);
            let after = &rest[i + 1..];
            let Some(end) = memchr::memchr(b';', after.as_bytes()) else {
                return Err(self.err(rpos, "'&' not starting a reference (write &amp;)"));
            };
            let name = &after[..end];
            if self.depth == 0 {
                return Err(self.err(rpos, format!("reference &{name}; outside the root element")));
            }
            if name.starts_with('#') {
                let c = char_ref(name)
                    .ok_or_else(|| self.err(rpos, format!("bad character reference &{name};")))?;
                let mut buf = [0u8; 4];
                let piece: &str = c.encode_utf8(&mut buf);
                self.add_text(rpos, Cow::Owned(piece.to_string()))?;
            } else if !is_name(name) {
                return Err(self.err(rpos, "'&' not starting a reference (write &amp;)"));
            } else {
                self.reference(rpos, name)?;
            }
            rest = &after[end + 1..];
        }
    }

    /// Handles one token read from an entity's replacement text (all its events are queued),
    /// or a rare token of the document.
    fn process<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &mut self,
        tok: Token<'x>,
        pos: u64,
        attrs: &[RawAttr<'x>],
        exact: bool,
        lift: &L,
    ) -> Result<()> {
        match tok {
            Token::Text { raw, .. } => self.text_run(pos, raw, exact, lift)?,
            Token::CData(c) => {
                if self.depth == 0 {
                    return Err(self.err(pos, "CDATA section outside the root element"));
                }
                self.flush_text();
                let text = lift(normalize_newlines(Cow::Borrowed(c)));
                self.push(pos, Event::Characters { text, cdata: true });
            }
            Token::Start {
                name,
                empty,
                xmlns,
                colon,
            } => {
                self.flush_text();
                let qname = self.open_tag(name, colon, attrs, xmlns, pos, lift)?;
                self.push(pos, Event::StartElement(qname));
                let from = self
                    .ns_marks
                    .last()
                    .filter(|m| m.0 == self.depth)
                    .map_or(self.ns.len(), |m| m.1);
                for i in from..self.ns.len() {
                    let (p, u) = self.ns[i].clone();
                    self.push(pos, Event::Namespace { prefix: p, uri: u });
                }
                for &a in attrs {
                    if !a.xmlns {
                        let ev = self.tag_attr(a, pos, lift)?;
                        self.push(pos, ev);
                    }
                }
                self.tag_defaults(pos)?;
                if empty {
                    self.end_tag(pos);
                }
            }
            Token::End => {
                self.flush_text();
                self.end_tag(pos);
            }
            Token::Comment(c) => {
                self.flush_text();
                let text = lift(normalize_newlines(Cow::Borrowed(c)));
                self.push(pos, Event::Comment(text));
            }
            Token::Pi { target, data } => {
                self.flush_text();
                let ev = self.pi(pos, target, data, lift)?;
                self.push(pos, ev);
            }
            Token::DocType(d) => {
                if self.phase != Phase::Prolog || !self.entity_stack.is_empty() {
                    return Err(self.err(pos, "DOCTYPE after the root element started"));
                }
                self.doctype(pos, lift(Cow::Borrowed(d)))?;
            }
            Token::Eof => {}
        }
        Ok(())
    }

    fn pi<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &self,
        pos: u64,
        target: &'x str,
        data: &'x str,
        lift: &L,
    ) -> Result<Event<'a>> {
        if target.eq_ignore_ascii_case("xml") {
            return Err(self.err(
                pos,
                "the XML declaration is only allowed at the start of the document",
            ));
        }
        if target.contains(':') {
            return Err(self.err(
                pos,
                format!("processing instruction target {target:?} contains a colon"),
            ));
        }
        let data = normalize_newlines(Cow::Borrowed(
            data.trim_start_matches([' ', '\t', '\r', '\n']),
        ));
        Ok(Event::ProcessingInstruction {
            target: lift(Cow::Borrowed(target)),
            data: lift(data),
        })
    }

    fn doctype(&mut self, pos: u64, content: Cow<'a, str>) -> Result<()> {
        if self.doctype_seen {
            return Err(self.err(pos, "a second DOCTYPE"));
        }
        self.doctype_seen = true;
        let owned;
        let text: &str = match &content {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => {
                owned = s.clone();
                &owned
            }
        };
        let parts = split_doctype(text).map_err(|m| self.err(pos, m))?;
        self.external_dtd = parts.system_id.is_some();
        let dtd = match parts.internal_subset {
            Some(subset) => Dtd::parse(
                subset,
                self.standalone,
                self.external_dtd,
                self.limits.max_entity_expansion,
            )
            .map_err(|e| {
                // The DOCTYPE's text follows `<!DOCTYPE` in the input: the error's offset in the
                // subset is placed in the document.
                let at =
                    pos + 9 + (subset.as_ptr() as usize - text.as_ptr() as usize + e.offset) as u64;
                self.err(at, format!("in the internal DTD subset: {}", e.message))
            })?,
            None => Dtd::default(),
        };
        // Borrow the parts from the input when the DOCTYPE text is borrowed.
        let conv = |s: &str| -> Cow<'a, str> {
            match &content {
                Cow::Borrowed(b) => {
                    let start = s.as_ptr() as usize - b.as_ptr() as usize;
                    Cow::Borrowed(&b[start..start + s.len()])
                }
                Cow::Owned(_) => Cow::Owned(s.to_string()),
            }
        };
        let doctype = DocType {
            name: conv(parts.name),
            public_id: parts.public_id.map(conv),
            system_id: parts.system_id.map(conv),
            internal_subset: parts.internal_subset.map(conv),
        };
        self.push(pos, Event::DocType(doctype));
        for (name, public_id, system_id) in &dtd.notations {
            self.pending.push_back((
                pos,
                Event::Notation {
                    name: Cow::Owned(name.clone()),
                    public_id: public_id.clone().map(Cow::Owned),
                    system_id: system_id.clone().map(Cow::Owned),
                },
            ));
        }
        let mut unparsed: Vec<_> = dtd
            .entities
            .iter()
            .filter_map(|(name, e)| match e {
                Entity::Unparsed {
                    public_id,
                    system_id,
                    notation,
                } => Some((
                    name.clone(),
                    public_id.clone(),
                    system_id.clone(),
                    notation.clone(),
                )),
                _ => None,
            })
            .collect();
        unparsed.sort();
        for (name, public_id, system_id, notation) in unparsed {
            self.pending.push_back((
                pos,
                Event::UnparsedEntity {
                    name: Cow::Owned(name),
                    public_id: public_id.map(Cow::Owned),
                    system_id: Cow::Owned(system_id),
                    notation: Cow::Owned(notation),
                },
            ));
        }
        self.dtd = Rc::new(dtd);
        self.att_cache = AttListCache::default();
        Ok(())
    }

    /// Whether an undeclared general entity may be declared where binxml does not read (an
    /// external subset or parameter entity): it is then not a well-formedness error (WFC:
    /// Entity Declared).
    fn undeclared_entities_allowed(&self) -> bool {
        !self.standalone
            && (self.external_dtd || self.dtd.skipped_declarations || self.dtd.parameter_references)
    }

    /// A general entity reference in content.
    fn reference(&mut self, pos: u64, name: &str) -> Result<()> {
        if let Some(t) = predefined(name) {
            return self.add_text(pos, Cow::Borrowed(t));
        }
        if self.depth == 0 {
            return Err(self.err(
                pos,
                format!("entity reference &{name}; outside the root element"),
            ));
        }
        let dtd = self.dtd.clone();
        match dtd.entities.get(name) {
            Some(Entity::Internal(text)) => {
                if self.entity_stack.iter().any(|n| n == name) {
                    return Err(self.err(pos, format!("recursive entity reference &{name};")));
                }
                if self.entity_stack.len() >= self.limits.max_entity_depth {
                    return Err(self.limit_err(
                        pos,
                        format!(
                            "entity references nested deeper than {}",
                            self.limits.max_entity_depth
                        ),
                    ));
                }
                self.expanded = self.expanded.saturating_add(text.len());
                if self.expanded > self.limits.max_entity_expansion {
                    return Err(self.limit_err(
                        pos,
                        format!(
                            "entity expansion exceeds the limit of {} bytes (at &{name};)",
                            self.limits.max_entity_expansion
                        ),
                    ));
                }
                if !text.contains(['<', '&']) {
                    return self.add_text(pos, Cow::Owned(text.clone()));
                }
                self.entity_stack.push(name.to_string());
                let mut lx = Lexer::new(text);
                let owned = |c: Cow<'_, str>| -> Cow<'a, str> { Cow::Owned(c.into_owned()) };
                loop {
                    let tok = lx.next_token().map_err(|e| {
                        self.err(
                            pos,
                            format!("in the replacement text of &{name};: {}", e.msg),
                        )
                    })?;
                    match tok {
                        Token::Eof => break,
                        Token::DocType(_) => {
                            return Err(self.err(
                                pos,
                                format!("markup not allowed in the replacement text of &{name};"),
                            ));
                        }
                        _ => {}
                    }
                    self.process(tok, pos, &lx.attrs, false, &owned)?;
                }
                if lx.depth() != 0 {
                    return Err(self.err(
                        pos,
                        format!("the replacement text of &{name}; leaves an element open"),
                    ));
                }
                self.entity_stack.pop();
                Ok(())
            }
            Some(Entity::External {
                public_id,
                system_id,
            }) => {
                self.flush_text();
                self.push(
                    pos,
                    Event::EntityReference {
                        name: Cow::Owned(name.to_string()),
                        public_id: public_id.clone().map(Cow::Owned),
                        system_id: Some(Cow::Owned(system_id.clone())),
                    },
                );
                Ok(())
            }
            Some(Entity::Unparsed { .. }) => {
                Err(self.err(pos, format!("reference to the unparsed entity &{name};")))
            }
            None => {
                if self.undeclared_entities_allowed() {
                    // Possibly declared in the external subset, which is never read.
                    self.flush_text();
                    self.push(
                        pos,
                        Event::EntityReference {
                            name: Cow::Owned(name.to_string()),
                            public_id: None,
                            system_id: None,
                        },
                    );
                    Ok(())
                } else {
                    Err(self.err(pos, format!("undeclared entity &{name};")))
                }
            }
        }
    }

    /// Normalizes an attribute value (XML 1.0 section 3.3.3): references replaced, white space
    /// characters turned into spaces, and for non-CDATA declared types, spaces collapsed.
    fn attr_value<'x>(&mut self, pos: u64, raw: &'x str, cdata: bool) -> Result<Cow<'x, str>> {
        let value: Cow<'x, str> = if !raw
            .bytes()
            .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r'))
        {
            Cow::Borrowed(raw)
        } else if !raw.bytes().any(|b| matches!(b, b'&' | b'\r' | b'<')) {
            // Only tabs and line feeds to turn into spaces: byte for byte.
            Cow::Owned(spaces_for_tabs_and_line_feeds(raw))
        } else {
            let mut out = String::with_capacity(raw.len());
            self.normalize_into(pos, raw, &mut out, 0)?;
            Cow::Owned(out)
        };
        if cdata || tokens_collapsed(&value) {
            return Ok(value);
        }
        let collapsed: Vec<&str> = value.split(' ').filter(|s| !s.is_empty()).collect();
        Ok(Cow::Owned(collapsed.join(" ")))
    }

    fn normalize_into(
        &mut self,
        pos: u64,
        raw: &str,
        out: &mut String,
        level: usize,
    ) -> Result<()> {
        let mut rest = raw;
        while let Some(i) = rest
            .bytes()
            .position(|c| matches!(c, b'&' | b'\t' | b'\n' | b'\r' | b'<'))
        {
            out.push_str(&rest[..i]);
            let c = rest.as_bytes()[i];
            match c {
                b'<' => return Err(self.err(pos, "'<' in an attribute value")),
                b'\r' | b'\t' | b'\n' => {
                    // A run of white space at once: a space for each character (a CR LF pair of
                    // the document counts as one, its line end normalized first).
                    let bytes = rest.as_bytes();
                    let (mut j, mut n) = (i, 0usize);
                    while let Some(&c) = bytes.get(j) {
                        match c {
                            b'\r' => {
                                j += 1;
                                if level == 0 && bytes.get(j) == Some(&b'\n') {
                                    j += 1;
                                }
                            }
                            b'\t' | b'\n' => j += 1,
                            _ => break,
                        }
                        n += 1;
                    }
                    const SPACES: &str = "                                ";
                    while n > 0 {
                        let k = n.min(SPACES.len());
                        out.push_str(&SPACES[..k]);
                        n -= k;
                    }
                    rest = &rest[j..];
                }
                _ => {
                    let after = &rest[i + 1..];
                    let end = memchr::memchr(b';', after.as_bytes())
                        .ok_or_else(|| self.err(pos, "'&' without ';' in an attribute value"))?;
                    let name = &after[..end];
                    rest = &after[end + 1..];
                    if name.starts_with('#') {
                        let ch = char_ref(name).ok_or_else(|| {
                            self.err(pos, format!("bad character reference &{name};"))
                        })?;
                        out.push(ch);
                    } else if let Some(t) = predefined(name) {
                        out.push_str(t);
                    } else {
                        let dtd = self.dtd.clone();
                        match dtd.entities.get(name) {
                            Some(Entity::Internal(text)) => {
                                if level >= self.limits.max_entity_depth {
                                    return Err(self.limit_err(pos, "entity references in an attribute value nested too deeply"));
                                }
                                self.expanded = self.expanded.saturating_add(text.len());
                                if self.expanded > self.limits.max_entity_expansion {
                                    return Err(self.limit_err(pos, format!("entity expansion exceeds the limit of {} bytes", self.limits.max_entity_expansion)));
                                }
                                self.normalize_into(pos, text, out, level + 1)?;
                            }
                            Some(_) => return Err(self.err(pos, format!("reference to the external entity &{name}; in an attribute value"))),
                            // Possibly declared where binxml does not read: left out of the
                            // value (an attribute value cannot hold a reference), as expat does.
                            None if self.undeclared_entities_allowed() => {}
                            None => return Err(self.err(pos, format!("undeclared entity &{name}; in an attribute value"))),
                        }
                    }
                    if out.len() > self.limits.max_string_len {
                        return Err(self.limit_err(
                            pos,
                            "attribute value longer than the string-length limit",
                        ));
                    }
                }
            }
        }
        out.push_str(rest);
        Ok(())
    }

    /// Opens an element: depth and root checks, namespace declarations (explicit, then
    /// defaulted from the DTD), and the element's resolved name.
    fn open_tag<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &mut self,
        raw_name: &'x str,
        colon: Option<u32>,
        attrs: &[RawAttr<'x>],
        xmlns: bool,
        pos: u64,
        lift: &L,
    ) -> Result<QName<'a>> {
        if self.depth == 0 {
            match self.phase {
                Phase::Epilog => return Err(self.err(pos, "a second root element")),
                _ => self.phase = Phase::Root,
            }
        }
        if self.depth >= self.limits.max_depth {
            return Err(self.limit_err(
                pos,
                format!("elements nested deeper than {}", self.limits.max_depth),
            ));
        }
        self.depth += 1;
        if !self.nsattrs.is_empty() {
            self.nsattrs.clear();
        }
        if !self.seen_raw.is_empty() {
            self.seen_raw.clear();
        }
        // One lookup per tag: the attributes, the defaults and the namespace defaults of the
        // tag are found through it. None where the tag has no attributes and no element has
        // defaults (nothing to find).
        self.atts = if self.dtd.attlists.is_empty()
            || (attrs.is_empty() && !self.dtd.attlists.any_defaults())
        {
            None
        } else {
            self.att_cache.get(&self.dtd.attlists, raw_name).cloned()
        };
        let default_xmlns = self.atts.as_ref().is_some_and(|l| l.default_xmlns);
        if xmlns || default_xmlns {
            let first_ns = self.ns.len();
            self.ns_marks.push((self.depth, first_ns));
            for a in attrs.iter().filter(|a| a.xmlns) {
                if a.name.len() == 6 {
                    return Err(
                        self.err(pos, "namespace declaration with an empty prefix (xmlns:)")
                    );
                }
                // Normalized by its declared type, as any attribute (a NMTOKEN declaration
                // drops the spaces around the namespace name).
                let cdata = self.atts.as_ref().is_none_or(|l| l.is_cdata(a.name));
                let value = if a.special || !cdata {
                    self.attr_value(pos, a.value, cdata)?
                } else {
                    Cow::Borrowed(a.value)
                };
                let prefix: &'x str = if a.name.len() == 5 { "" } else { &a.name[6..] };
                self.declare_ns(pos, lift(Cow::Borrowed(prefix)), lift(value))?;
            }
            if let Some(list) = self.atts.clone().filter(|l| l.default_xmlns) {
                for a in list.defs.iter().filter(|a| is_xmlns_name(&a.name)) {
                    let Some(default) = &a.default else { continue };
                    let prefix = if a.name == "xmlns" { "" } else { &a.name[6..] };
                    if self.ns[first_ns..].iter().any(|(p, _)| p == prefix) {
                        continue;
                    }
                    let value = self.attr_value(pos, default, true)?.into_owned();
                    self.declare_ns(pos, Cow::Owned(prefix.to_string()), Cow::Owned(value))?;
                }
            }
        }

        let (prefix, local) = match colon {
            None => ("", raw_name),
            Some(c) => {
                let (prefix, local) = (&raw_name[..c as usize], &raw_name[c as usize + 1..]);
                if prefix.is_empty() || local.is_empty() || local.contains(':') {
                    return Err(self.err(
                        pos,
                        format!("element name {raw_name:?} is not a valid qualified name"),
                    ));
                }
                (prefix, local)
            }
        };
        let namespace = match self.lookup_ns(prefix) {
            Some(u) => u,
            None if prefix.is_empty() => Cow::Borrowed(""),
            None => {
                return Err(self.err(
                    pos,
                    format!("undeclared namespace prefix {prefix:?} on element <{raw_name}>"),
                ));
            }
        };
        Ok(QName {
            prefix: lift(Cow::Borrowed(prefix)),
            namespace,
            local: lift(Cow::Borrowed(local)),
        })
    }

    /// One explicit attribute (not a namespace declaration) of the open tag as an event.
    #[inline]
    fn tag_attr<'x, L: Fn(Cow<'x, str>) -> Cow<'a, str>>(
        &mut self,
        a: RawAttr<'x>,
        pos: u64,
        lift: &L,
    ) -> Result<Event<'a>> {
        // `defaulted`: the tag's given attributes are noted, so that a default does not
        // repeat one of them.
        let (cdata, defaulted) = match &self.atts {
            None => (true, false),
            Some(l) => (l.is_cdata(a.name), l.defaults),
        };
        // A value without references, tabs or line ends is its own normalisation as CDATA,
        // and as tokens too unless its spaces need collapsing (an `ID` most often).
        let value = if !a.special && (cdata || tokens_collapsed(a.value)) {
            lift(Cow::Borrowed(a.value))
        } else {
            lift(self.attr_value(pos, a.value, cdata)?)
        };
        let key = lift(Cow::Borrowed(a.name));
        if defaulted {
            self.seen_raw.push(key.clone());
        }
        if a.colon.is_none() {
            // No prefix: no namespace, and distinct from the other attributes in no namespace
            // (the tokenizer checked the raw names).
            return Ok(Event::Attribute {
                name: QName {
                    prefix: Cow::Borrowed(""),
                    namespace: Cow::Borrowed(""),
                    local: key,
                },
                value,
            });
        }
        let name = self.attr_name(pos, key)?;
        self.check_dup(pos, &name)?;
        Ok(Event::Attribute { name, value })
    }

    /// Attributes in no namespace have distinct raw names (the tokenizer checks that), so only
    /// namespaced ones can collide by expanded name.
    fn check_dup(&mut self, pos: u64, name: &QName<'a>) -> Result<()> {
        if name.namespace.is_empty() {
            return Ok(());
        }
        if self
            .nsattrs
            .iter()
            .any(|(ns, l)| *ns == name.namespace && *l == name.local)
        {
            return Err(self.err(pos, format!("duplicate attribute {}", name.qualified())));
        }
        self.nsattrs
            .push((name.namespace.clone(), name.local.clone()));
        Ok(())
    }

    /// Queues the attributes the DTD defaults and the tag did not give.
    fn tag_defaults(&mut self, pos: u64) -> Result<()> {
        let Some(list) = self.atts.clone().filter(|l| l.defaults) else {
            return Ok(());
        };
        for a in &list.defs {
            let Some(default) = &a.default else { continue };
            if a.name == "xmlns"
                || a.name.starts_with("xmlns:")
                || self.seen_raw.iter().any(|k| *k == a.name)
            {
                continue;
            }
            let value = self.attr_value(pos, default, a.cdata)?.into_owned();
            let name = self.attr_name(pos, Cow::Owned(a.name.clone()))?;
            self.check_dup(pos, &name)?;
            self.push(
                pos,
                Event::Attribute {
                    name,
                    value: Cow::Owned(value),
                },
            );
        }
        Ok(())
    }

    /// An element start read from an entity's replacement text: all its events are queued.
    fn declare_ns(&mut self, pos: u64, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        if prefix == "xmlns" {
            return Err(self.err(pos, "the prefix xmlns must not be declared"));
        }
        if (prefix == "xml") != (uri == XML_NS) {
            return Err(self.err(pos, "the prefix xml is bound only to the XML namespace"));
        }
        if uri == XMLNS_NS {
            return Err(self.err(pos, "the xmlns namespace must not be declared"));
        }
        if !prefix.is_empty() && uri.is_empty() {
            return Err(self.err(
                pos,
                format!("prefix {prefix:?} bound to the empty namespace name"),
            ));
        }
        // open_tag pushed the mark of the element being opened.
        let mark = self.ns_marks.last().map_or(0, |m| m.1);
        if self.ns[mark..].iter().any(|(p, _)| *p == prefix) {
            return Err(self.err(
                pos,
                format!("namespace prefix {prefix:?} declared twice on one element"),
            ));
        }
        if self.ns.len() - mark >= self.limits.max_table_entries {
            return Err(self.limit_err(pos, "too many namespace declarations"));
        }
        self.ns.push((prefix, uri));
        Ok(())
    }

    fn attr_name(&self, pos: u64, key: Cow<'a, str>) -> Result<QName<'a>> {
        // The common case: an unprefixed name borrowed from the input.
        if let Cow::Borrowed(k) = key
            && !k.is_empty()
            && !k.as_bytes().contains(&b':')
        {
            return Ok(QName {
                prefix: Cow::Borrowed(""),
                namespace: Cow::Borrowed(""),
                local: Cow::Borrowed(k),
            });
        }
        let (prefix, local) = match &key {
            Cow::Borrowed(k) => {
                let (p, l) = split_qname(k);
                (Cow::Borrowed(p), Cow::Borrowed(l))
            }
            Cow::Owned(k) => {
                let (p, l) = split_qname(k);
                (Cow::Owned(p.to_string()), Cow::Owned(l.to_string()))
            }
        };
        if local.is_empty() || local.contains(':') {
            return Err(self.err(
                pos,
                format!("attribute name {key:?} is not a valid qualified name"),
            ));
        }
        let namespace = if prefix.is_empty() {
            Cow::Borrowed("")
        } else {
            self.lookup_ns(&prefix).ok_or_else(|| {
                self.err(
                    pos,
                    format!("undeclared namespace prefix {prefix:?} on attribute {key:?}"),
                )
            })?
        };
        Ok(QName {
            prefix,
            namespace,
            local,
        })
    }

    fn end_tag(&mut self, pos: u64) {
        self.close_element();
        self.push(pos, Event::EndElement);
    }

    #[inline]
    fn close_element(&mut self) {
        if let Some(&(d, mark)) = self.ns_marks.last()
            && d == self.depth
        {
            self.ns_marks.pop();
            self.ns.truncate(mark);
        }
        self.depth -= 1;
        if self.depth == 0 {
            self.phase = Phase::Epilog;
        }
    }

    /// The next event of the open start tag, or `None` when it is done.
    fn next_in_tag(&mut self) -> Result<Option<Event<'a>>> {
        let pos = self.tag.pos;
        if self.tag.ns_next < self.tag.ns_end {
            let (p, u) = self.ns[self.tag.ns_next].clone();
            self.tag.ns_next += 1;
            return Ok(Some(Event::Namespace { prefix: p, uri: u }));
        }
        while let Some(&a) = self.lex.attrs.get(self.tag.attr_next) {
            self.tag.attr_next += 1;
            if !a.xmlns {
                return self.tag_attr(a, pos, &|c| c).map(Some);
            }
        }
        self.tag.active = false;
        if self.atts.as_ref().is_some_and(|l| l.defaults) {
            self.tag_defaults(pos)?;
        }
        if self.tag.empty {
            if self.pending.is_empty() {
                self.close_element();
                return Ok(Some(Event::EndElement));
            }
            self.end_tag(pos);
        }
        Ok(None)
    }

    /// A start tag of the document: produces StartElement now, its namespace declarations and
    /// attributes on the following calls.
    fn lazy_open(
        &mut self,
        name: &'a str,
        colon: Option<u32>,
        empty: bool,
        xmlns: bool,
        pos: u64,
    ) -> Result<QName<'a>> {
        let attrs = std::mem::take(&mut self.lex.attrs);
        let r = self.open_tag(name, colon, &attrs, xmlns, pos, &|c| c);
        self.lex.attrs = attrs;
        let qname = r?;
        let ns_end = self.ns.len();
        let ns_next = match self.ns_marks.last() {
            Some(&(d, m)) if d == self.depth => m,
            _ => ns_end,
        };
        let active = empty
            || ns_next < ns_end
            || !self.lex.attrs.is_empty()
            || self.atts.as_ref().is_some_and(|l| l.defaults);
        self.tag = TagState {
            active,
            pos,
            ns_next,
            ns_end,
            attr_next: 0,
            empty,
        };
        self.last_offset = pos + self.base;
        Ok(qname)
    }

    #[inline(always)]
    fn next(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            if let Some((pos, ev)) = self.pending.pop_front() {
                self.last_offset = pos + self.base;
                return Ok(Some(ev));
            }
            if self.tag.active {
                if let Some(ev) = self.next_in_tag()? {
                    return Ok(Some(ev));
                }
                continue;
            }
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Start => return self.start().map(Some),
                _ => {}
            }
            let pos = self.lex.pos() as u64;
            let tok = match self.lex.next_token() {
                Ok(t) => t,
                Err(e) => return Err(self.lex_err(e)),
            };
            if let Some(ev) = self.token(pos, tok)? {
                return Ok(Some(ev));
            }
        }
    }

    /// Handles one token of the document: its event when it has one of its own, `None` when it
    /// queued its events (or has none).
    #[inline(always)]
    fn token(&mut self, pos: u64, tok: Token<'a>) -> Result<Option<Event<'a>>> {
        match tok {
            Token::Start {
                name,
                empty,
                xmlns,
                colon,
            } => {
                return self
                    .lazy_open(name, colon, empty, xmlns, pos)
                    .map(|q| Some(Event::StartElement(q)));
            }
            Token::End => {
                self.close_element();
                self.last_offset = pos + self.base;
                return Ok(Some(Event::EndElement));
            }
            Token::Text { raw, amp, cr } => {
                if self.depth > 0 && !amp {
                    self.last_offset = pos + self.base;
                    let text = if cr {
                        normalize_newlines(Cow::Borrowed(raw))
                    } else {
                        Cow::Borrowed(raw)
                    };
                    return Ok(Some(Event::Characters { text, cdata: false }));
                }
                if self.depth == 0 && is_xml_ws(raw) {
                    return Ok(None);
                }
                self.text_run(pos, raw, true, &|c| c)?;
                self.flush_text();
            }
            Token::Eof => {
                if self.depth > 0 {
                    return Err(self.err(
                        pos,
                        format!(
                            "unexpected end of input: {} element(s) not closed",
                            self.depth
                        ),
                    ));
                }
                if self.phase != Phase::Epilog {
                    return Err(self.err(pos, "no root element"));
                }
                self.phase = Phase::Done;
                self.push(pos, Event::EndDocument);
            }
            other => self.process(other, pos, &[], true, &|c| c)?,
        }
        Ok(None)
    }

    /// Pushes the whole document into `sink`: the same events in the same order, and the same
    /// errors, as [`Decoder::next_event`](binxml_core::Decoder::next_event) would give, but
    /// without building an [`Event`] for element starts and ends, namespace declarations,
    /// attributes and plain text on the common path (the input within the string length
    /// limit); everything else (text with references, DTD attribute defaults, comments, ...)
    /// goes through `next_event` and is handed over as events.
    ///
    /// A DOCTYPE keeps the fast path: element names and plain text are slices of the input,
    /// attribute values and namespace names that references lengthen are held to the length
    /// limit as they are expanded (text with references takes the pull path, which checks
    /// every string once an entity is declared), and the attributes that the DTD defaults are
    /// queued and handed over from the queue, as the pull path does.
    ///
    /// Returns early, between two tokens, once [`EventSink::full`] is true (batched pull).
    pub fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        use binxml_core::Decoder as _;
        loop {
            // between tokens, every state in `self`: a later call resumes here
            if sink.full() {
                return Ok(());
            }
            let fast = self.pending.is_empty()
                && !self.tag.active
                && matches!(self.phase, Phase::Prolog | Phase::Root | Phase::Epilog)
                && self.input.len() <= self.limits.max_string_len;
            if !fast {
                match self.next_event()? {
                    Some(ev) => {
                        dispatch(sink, ev)?;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let pos = self.lex.pos() as u64;
            let tok = match self.lex.next_token() {
                Ok(t) => t,
                Err(e) => return Err(self.lex_err(e)),
            };
            match tok {
                Token::Start {
                    name,
                    empty,
                    xmlns,
                    colon,
                } => {
                    let qname = self.lazy_open(name, colon, empty, xmlns, pos)?;
                    sink.start_element(qname)?;
                    if !self.tag.active {
                        continue;
                    }
                    while self.tag.ns_next < self.tag.ns_end {
                        let (p, u) = self.ns[self.tag.ns_next].clone();
                        self.tag.ns_next += 1;
                        sink.namespace(p, u)?;
                    }
                    while let Some(&a) = self.lex.attrs.get(self.tag.attr_next) {
                        self.tag.attr_next += 1;
                        if !a.xmlns
                            && let Event::Attribute { name, value } =
                                self.tag_attr(a, pos, &|c| c)?
                        {
                            sink.attribute(name, value)?;
                        }
                    }
                    self.tag.active = false;
                    if self.atts.as_ref().is_some_and(|l| l.defaults) {
                        self.tag_defaults(pos)?;
                        if !self.pending.is_empty() {
                            // Defaults queued: handed over from the queue, then the end of an
                            // empty tag, as `next_in_tag` does.
                            if self.tag.empty {
                                self.end_tag(pos);
                            }
                            continue;
                        }
                    }
                    if self.tag.empty {
                        self.close_element();
                        sink.end_element()?;
                    }
                }
                Token::End => {
                    self.close_element();
                    sink.end_element()?;
                }
                Token::Text {
                    raw,
                    amp: false,
                    cr,
                } if self.depth > 0 => {
                    sink.text(if cr {
                        normalize_newlines(Cow::Borrowed(raw))
                    } else {
                        Cow::Borrowed(raw)
                    })?;
                }
                other => {
                    if let Some(ev) = self.token(pos, other)? {
                        dispatch(sink, ev)?;
                    }
                }
            }
        }
    }
}

fn dispatch<'a, S: EventSink<'a>>(sink: &mut S, ev: Event<'a>) -> Result<()> {
    sink.dispatch(ev)
}

/// Whether a value (spaces its only white space) is already normalised as tokens: no space at
/// either end, none doubled.
#[inline]
fn tokens_collapsed(v: &str) -> bool {
    let b = v.as_bytes();
    b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && !b.windows(2).any(|w| w[0] == b' ' && w[1] == b' ')
}

fn is_xmlns_name(name: &str) -> bool {
    name == "xmlns" || name.starts_with("xmlns:")
}

impl<'a> binxml_core::Decoder<'a> for XmlDecoder<'a> {
    fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        // `Limits::max_string_len` for every string, also those borrowed from the input. Without
        // entity expansion no string is longer than the input (references and normalization
        // only shorten what they replace), so short inputs need no check while no entity is
        // declared (a call that reads the DOCTYPE returns its events before any reference is
        // read). The common case returns the event as it comes.
        if self.input.len() <= self.limits.max_string_len
            && self.expanded == 0
            && self.dtd.entities.is_empty()
        {
            return self.next();
        }
        let ev = self.next()?;
        if self.input.len() <= self.limits.max_string_len && self.expanded == 0 {
            return Ok(ev);
        }
        if let Some(e) = &ev
            && e.longest_string() > self.limits.max_string_len
        {
            return Err(self.limit_err(
                self.last_offset,
                format!(
                    "string longer than the limit of {} bytes",
                    self.limits.max_string_len
                ),
            ));
        }
        Ok(ev)
    }

    fn offset(&self) -> u64 {
        self.last_offset
    }

    fn read_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        XmlDecoder::read_into(self, sink)
    }

    fn next_batch(&mut self, out: &mut Vec<Event<'a>>) -> Result<usize> {
        binxml_core::next_batch_by_push(self, out)
    }

    /// Batched pull into a lent batch: the push loop into it.
    fn next_lent(&mut self, batch: &mut binxml_core::LentBatch<'a>) -> Result<usize> {
        binxml_core::next_lent_by_push(self, batch)
    }
}
