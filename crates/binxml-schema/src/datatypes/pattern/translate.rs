//! Reads an XSD regular expression (Part 2 second edition, appendix F) and writes the same
//! language in the `regex` crate's syntax, together with the set of characters each part can
//! produce (EXI 1.0 appendix E, for restricted character sets).
//!
//! The translation is explicit rather than textual: every literal is written as `\x{..}`,
//! `.` as `[^\n\r]`, XSD's class subtraction `[a-z-[aeiou]]` as the crate's `[[a-z]--[aeiou]]`,
//! block escapes as ranges from `blocks.rs`. Everything XSD does not have (anchors, back
//! references, lazy quantifiers, `(?` groups, `\b`) is refused, not passed through.

use super::super::names::{NAME_EXTRA_RANGES, NAME_START_RANGES};
use super::blocks::block_ranges;
use super::charset::{self, Set};

/// Nesting of groups and of subtracted classes: deeper patterns are refused before they can
/// exhaust the stack (no real schema nests more than a handful).
pub(crate) const MAX_DEPTH: usize = 64;

/// The general categories XSD 1.0 names (F.1.1), each alone or as a one-letter group.
pub(crate) const CATEGORIES: &[&str] = &[
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc",
    "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Z", "Zs", "Zl", "Zp", "S", "Sm", "Sc", "Sk", "So", "C",
    "Cc", "Cf", "Co", "Cn",
];

/// The translation of a whole pattern: the regex (anchored) and its character set.
pub(crate) struct Translation {
    pub regex: String,
    pub chars: Set,
}

/// Translates `src`; the error is a message for the caller to wrap.
pub(crate) fn translate(src: &str) -> Result<Translation, String> {
    let mut p = Parser {
        s: src.chars().collect(),
        at: 0,
    };
    let (re, chars) = p.reg_exp(0)?;
    if let Some(c) = p.peek() {
        return Err(format!("unexpected {c:?} at character {}", p.at + 1));
    }
    Ok(Translation {
        // XSD patterns match the whole string: anchored at both ends, and `\A`/`\z` rather
        // than `^`/`$` so that no multi-line rule can apply.
        regex: format!(r"\A(?:{re})\z"),
        chars,
    })
}

/// What an escape stands for: one character, or a class (written as a complete class atom,
/// usable alone or inside another class).
enum Escape {
    Char(char),
    Class(String, Set),
}

struct Parser {
    s: Vec<char>,
    at: usize,
}

/// A literal character in the regex crate's syntax.
fn lit(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", u32::from(c))
    }
}

/// A class of the given ranges (scalar values only); a class that matches nothing when no
/// range holds a scalar value (the surrogate blocks).
fn class_of(ranges: &[(u32, u32)], negated: bool) -> String {
    let mut body = String::new();
    // Surrogate code points are not chars: keep the parts of each range around them.
    let parts = ranges.iter().flat_map(|&(a, b)| {
        [(a, b.min(0xD7FF)), (a.max(0xE000), b)]
            .into_iter()
            .filter(|&(x, y)| x <= y)
    });
    for (a, b) in parts {
        if let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) {
            body.push_str(&format!("{}-{}", lit(a), lit(b)));
        }
    }
    match (body.is_empty(), negated) {
        (true, false) => r"[^\x{0}-\x{10FFFF}]".to_string(),
        (true, true) => r"[\x{0}-\x{10FFFF}]".to_string(),
        (false, false) => format!("[{body}]"),
        (false, true) => format!("[^{body}]"),
    }
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.at).copied()
    }
    fn peek2(&self) -> Option<char> {
        self.s.get(self.at + 1).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn pos(&self) -> String {
        format!("at character {}", self.at + 1)
    }

    /// regExp ::= branch ( '|' branch )*
    fn reg_exp(&mut self, depth: usize) -> Result<(String, Set), String> {
        let (mut re, mut set) = self.branch(depth)?;
        while self.eat('|') {
            let (r, s) = self.branch(depth)?;
            re.push('|');
            re.push_str(&r);
            set = charset::union(set, s);
        }
        Ok((re, set))
    }

    /// branch ::= piece*
    fn branch(&mut self, depth: usize) -> Result<(String, Set), String> {
        let mut re = String::new();
        let mut set = Some(Vec::new());
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let (r, s) = self.piece(depth)?;
            re.push_str(&r);
            set = charset::union(set, s);
        }
        Ok((re, set))
    }

    /// piece ::= atom quantifier?
    fn piece(&mut self, depth: usize) -> Result<(String, Set), String> {
        let (mut re, set) = self.atom(depth)?;
        let quantified = match self.peek() {
            Some(q @ ('?' | '*' | '+')) => {
                self.at += 1;
                re.push(q);
                true
            }
            Some('{') => {
                self.at += 1;
                re.push_str(&self.quantity()?);
                true
            }
            _ => false,
        };
        if quantified && matches!(self.peek(), Some('?' | '*' | '+' | '{')) {
            return Err(format!(
                "a quantifier cannot follow a quantifier {} (XSD has no lazy or possessive quantifiers)",
                self.pos()
            ));
        }
        Ok((re, set))
    }

    /// quantity ::= n | n, | n,m  (after '{', through '}').
    fn quantity(&mut self) -> Result<String, String> {
        let number = |p: &mut Parser| -> Result<Option<u32>, String> {
            let start = p.at;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.at += 1;
            }
            if p.at == start {
                return Ok(None);
            }
            let digits: String = p.s[start..p.at].iter().collect();
            digits
                .parse::<u32>()
                .map(Some)
                .map_err(|_| format!("quantifier {digits} is too large"))
        };
        let min =
            number(self)?.ok_or_else(|| format!("expected a number after '{{' {}", self.pos()))?;
        let out = if self.eat(',') {
            match number(self)? {
                Some(max) if max < min => {
                    return Err(format!("quantifier {{{min},{max}}}: max below min"));
                }
                Some(max) => format!("{{{min},{max}}}"),
                None => format!("{{{min},}}"),
            }
        } else {
            format!("{{{min}}}")
        };
        if !self.eat('}') {
            return Err(format!("expected '}}' {}", self.pos()));
        }
        Ok(out)
    }

    /// atom ::= Char | charClass | '(' regExp ')'
    fn atom(&mut self, depth: usize) -> Result<(String, Set), String> {
        let Some(c) = self.peek() else {
            return Err("unexpected end of pattern".into());
        };
        self.at += 1;
        match c {
            '(' => {
                if depth + 1 > MAX_DEPTH {
                    return Err(format!("groups nested deeper than {MAX_DEPTH}"));
                }
                if self.peek() == Some('?') {
                    return Err(format!(
                        "'(?' {}: XSD has no non-capturing groups, lookaround or flags",
                        self.pos()
                    ));
                }
                let (re, set) = self.reg_exp(depth + 1)?;
                if !self.eat(')') {
                    return Err("unclosed '('".into());
                }
                Ok((format!("(?:{re})"), set))
            }
            '[' => self.class_expr(depth),
            '\\' => match self.escape()? {
                Escape::Char(c) => Ok((lit(c), charset::single(c))),
                Escape::Class(re, set) => Ok((re, set)),
            },
            '.' => Ok((
                r"[^\n\r]".into(),
                charset::complement(charset::of(&[(0xA, 0xA), (0xD, 0xD)])),
            )),
            '?' | '*' | '+' => Err(format!("quantifier '{c}' with nothing to repeat")),
            ']' => Err("unescaped ']'".into()),
            // Char ::= [^.\?*+()|#x5B#x5D]: every other character, `^`, `$`, `{` and `}`
            // included, is itself.
            c => Ok((lit(c), charset::single(c))),
        }
    }

    /// charClassExpr ::= '[' charGroup ']' (after '[').
    fn class_expr(&mut self, depth: usize) -> Result<(String, Set), String> {
        if depth + 1 > MAX_DEPTH {
            return Err(format!("classes nested deeper than {MAX_DEPTH}"));
        }
        let negated = self.eat('^');
        let mut body = String::new();
        let mut set: Set = Some(Vec::new());
        let mut first = true;
        let mut subtract = None;
        loop {
            let Some(c) = self.peek() else {
                return Err("unclosed '['".into());
            };
            match c {
                ']' if first => return Err("empty character class".into()),
                ']' => break,
                '[' => return Err(format!("unescaped '[' in a class {}", self.pos())),
                '-' if !first && self.peek2() == Some('[') => {
                    self.at += 2;
                    subtract = Some(self.class_expr(depth + 1)?);
                    if self.peek() != Some(']') {
                        return Err("a class subtraction must end its class".into());
                    }
                    break;
                }
                '-' if !first && self.peek2() != Some(']') => {
                    return Err(format!(
                        "'-' {} is allowed only first or last in a class",
                        self.pos()
                    ));
                }
                _ => {}
            }
            self.at += 1;
            let start = if c == '\\' {
                match self.escape()? {
                    Escape::Char(e) => e,
                    Escape::Class(re, s) => {
                        body.push_str(&re);
                        set = charset::union(set, s);
                        first = false;
                        continue;
                    }
                }
            } else {
                c
            };
            // seRange ::= charOrEsc '-' charOrEsc, unless the '-' ends the class or starts a
            // subtraction. A '-' that begins the class is itself (XmlCharIncDash).
            let is_range = c != '-'
                && self.peek() == Some('-')
                && !matches!(self.peek2(), Some(']' | '[') | None);
            if is_range {
                self.at += 1;
                let end = match self.peek() {
                    Some('\\') => {
                        self.at += 1;
                        match self.escape()? {
                            Escape::Char(e) => e,
                            Escape::Class(..) => {
                                return Err("a range cannot end with a class escape".into());
                            }
                        }
                    }
                    Some(e @ ('-' | '[')) => return Err(format!("range cannot end with {e:?}")),
                    Some(e) => {
                        self.at += 1;
                        e
                    }
                    None => return Err("unclosed '['".into()),
                };
                if end < start {
                    return Err(format!("range {start:?}-{end:?} is out of order"));
                }
                body.push_str(&format!("{}-{}", lit(start), lit(end)));
                set = charset::union(set, charset::of(&[(u32::from(start), u32::from(end))]));
            } else {
                body.push_str(&lit(start));
                set = charset::union(set, charset::single(start));
            }
            first = false;
        }
        self.at += 1; // the closing ']'
        let mut re = if negated {
            format!("[^{body}]")
        } else {
            format!("[{body}]")
        };
        if negated {
            set = charset::complement(set);
        }
        if let Some((sub_re, sub_set)) = subtract {
            re = format!("[{re}--{sub_re}]");
            set = charset::subtract(set, sub_set);
        }
        Ok((re, set))
    }

    /// The escape after a '\\'.
    fn escape(&mut self) -> Result<Escape, String> {
        let Some(c) = self.peek() else {
            return Err("'\\' at the end of the pattern".into());
        };
        self.at += 1;
        let ranges_class = |extra: bool, negated: bool| {
            let mut r: Vec<(u32, u32)> = NAME_START_RANGES
                .iter()
                .map(|&(a, b)| (u32::from(a), u32::from(b)))
                .collect();
            if extra {
                r.extend(
                    NAME_EXTRA_RANGES
                        .iter()
                        .map(|&(a, b)| (u32::from(a), u32::from(b))),
                );
                r.sort_unstable();
            }
            Escape::Class(class_of(&r, negated), None)
        };
        Ok(match c {
            'n' => Escape::Char('\n'),
            'r' => Escape::Char('\r'),
            't' => Escape::Char('\t'),
            '\\' | '|' | '.' | '?' | '*' | '+' | '(' | ')' | '{' | '}' | '-' | '[' | ']' | '^' => {
                Escape::Char(c)
            }
            // EXI appendix E: \s is the one multi-character escape with a restricted set.
            's' => Escape::Class(
                r"[\x{20}\x{9}\x{A}\x{D}]".into(),
                charset::of(&[(0x9, 0xA), (0xD, 0xD), (0x20, 0x20)]),
            ),
            'S' => Escape::Class(r"[^\x{20}\x{9}\x{A}\x{D}]".into(), None),
            'i' => ranges_class(false, false),
            'I' => ranges_class(false, true),
            'c' => ranges_class(true, false),
            'C' => ranges_class(true, true),
            // Unicode-based, as XSD defines them: \d is every decimal digit (Nd), \w every
            // character but punctuation, separators and "other".
            'd' => Escape::Class(r"\p{Nd}".into(), None),
            'D' => Escape::Class(r"\P{Nd}".into(), None),
            'w' => Escape::Class(r"[^\p{P}\p{Z}\p{C}]".into(), None),
            'W' => Escape::Class(r"[\p{P}\p{Z}\p{C}]".into(), None),
            'p' | 'P' => self.property(c == 'P')?,
            '0'..='9' => {
                return Err("back-references are not part of XSD regular expressions".into());
            }
            'b' | 'B' | 'A' | 'z' | 'Z' | 'G' => {
                return Err(format!(
                    "\\{c} (an anchor or word boundary) is not part of XSD"
                ));
            }
            _ => return Err(format!("unknown escape \\{c}")),
        })
    }

    /// `\p{..}` or `\P{..}` (after the 'p'): a category or an `Is` block.
    fn property(&mut self, negated: bool) -> Result<Escape, String> {
        if !self.eat('{') {
            return Err("expected '{' after \\p".into());
        }
        let start = self.at;
        while self.peek().is_some_and(|c| c != '}') {
            self.at += 1;
        }
        if !self.eat('}') {
            return Err("unclosed \\p{".into());
        }
        let name: String = self.s[start..self.at - 1].iter().collect();
        if let Some(block) = name.strip_prefix("Is") {
            let ranges =
                block_ranges(block).ok_or_else(|| format!("unknown block \\p{{{name}}}"))?;
            return Ok(Escape::Class(class_of(&ranges, negated), None));
        }
        if !CATEGORIES.contains(&name.as_str()) {
            return Err(format!("unknown category \\p{{{name}}}"));
        }
        let p = if negated { 'P' } else { 'p' };
        Ok(Escape::Class(format!("\\{p}{{{name}}}"), None))
    }
}
