//! Unit tests of the pattern translation; the cross-check against xmlschema is in
//! `tests/datatypes_oracle.rs`.

use super::*;

fn p(src: &str) -> Pattern {
    Pattern::new(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn check(src: &str, yes: &[&str], no: &[&str]) {
    let pat = p(src);
    for s in yes {
        assert!(pat.is_match(s), "{src} should match {s:?}");
    }
    for s in no {
        assert!(!pat.is_match(s), "{src} should not match {s:?}");
    }
}

#[test]
fn anchoring_and_literals() {
    check("abc", &["abc"], &["xabc", "abcx", "ab", ""]);
    check("a|bc", &["a", "bc"], &["abc", "ac"]);
    check("^a$", &["^a$"], &["a"]);
    check("a.c", &["abc", "a c", "a\tc"], &["a\nc", "a\rc", "ac"]);
    check("", &[""], &["a"]);
    check("()", &[""], &["a"]);
    check("x{2,3}", &["xx", "xxx"], &["x", "xxxx"]);
    check("x{2}", &["xx"], &["xxx"]);
    check("x{2,}", &["xx", "xxxxx"], &["x"]);
    check("x{0}", &[""], &["x"]);
    assert!(Pattern::new("a{").is_err());
    check("{a}", &["{a}"], &[]);
}

#[test]
fn classes() {
    check("[a-z-[aeiou]]+", &["bcd", "xyz"], &["bad", "B"]);
    check("[^a-c]", &["d", "\n"], &["a", "b", ""]);
    check("[^a-z-[A]]", &["B", "1"], &["a", "A"]);
    check("[-a]+", &["-a-"], &["b"]);
    check("[a-]+", &["-a-"], &["b"]);
    check("[\\-\\[\\]\\^]+", &["-[]^"], &["a"]);
    check("[a^]+", &["^a"], &["b"]);
    check("[\\s]+", &[" \t\n\r"], &["a", "\u{a0}"]);
    check("[\\d-[5]]+", &["1234", "\u{663}"], &["5"]);
    assert!(Pattern::new("[a-c-[b]-[c]]").is_err());
}

#[test]
fn escapes() {
    check("\\d+", &["0123", "\u{663}\u{664}"], &["a", "\u{b2}"]);
    check(
        "\\w+",
        &["a\u{e9}1_".trim_end_matches('_')],
        &["!", " ", "a-b"],
    );
    check("\\i\\c*", &["a1", "_x.y-z", "a:b"], &["1a", "-a"]);
    check("\\I", &["1", "-"], &["a"]);
    check("\\C", &[" ", "!"], &["a", "1"]);
    check("\\S+", &["ab"], &["a b"]);
    check("\\p{Lu}\\P{Lu}", &["Ab"], &["AB", "ab"]);
    check("\\p{L}+", &["\u{e9}\u{3b1}"], &["1"]);
    check("\\p{IsBasicLatin}+", &["abc~"], &["\u{e9}"]);
    check("\\p{IsGreek}", &["\u{3b1}"], &["a"]);
    check("\\P{IsGreek}", &["a"], &["\u{3b1}"]);
    check("\\p{IsHighSurrogates}?", &[""], &["a"]);
    check("\\p{IsPrivateUse}", &["\u{e000}", "\u{f0000}"], &["a"]);
    check(
        "\\n\\r\\t\\|\\.\\?\\*\\+\\(\\)\\{\\}",
        &["\n\r\t|.?*+(){}"],
        &[],
    );
}

#[test]
fn refusals() {
    for bad in [
        "\\1",
        "(a)\\1",
        "a*?",
        "a+?",
        "a??",
        "a{1,2}?",
        "a*+",
        "(?:a)",
        "(?=a)",
        "(?i)a",
        "\\b",
        "\\A",
        "a**",
        "*a",
        "a|+",
        "[a-",
        "[z-a]",
        "[]",
        "[a-z-0]",
        "[a-\\d]",
        "\\p{Foo}",
        "\\p{IsFoo}",
        "\\p{Lu",
        "\\x41",
        "\\$",
        "a{2,1}",
        "a{x}",
        "a{99999999999}",
        "(a",
        "a)",
        "]",
        "[[a]]",
        "[a-z-[b]c]",
        "\\",
    ] {
        let e = Pattern::new(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad:?} accepted"));
        assert_eq!(e.kind(), ErrorKind::Pattern);
    }
    let e = Pattern::new("a*?").unwrap_err();
    assert!(e.to_string().contains("lazy"), "{e}");
    assert!(
        Pattern::new("(a)\\1")
            .unwrap_err()
            .to_string()
            .contains("back-references")
    );
}

#[test]
fn hostile_patterns_are_refused_quickly() {
    let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(Pattern::new(&deep).is_err());
    let deep_class = format!("{}a{}", "[a-[".repeat(10_000), "]]".repeat(10_000));
    assert!(Pattern::new(&deep_class).is_err());
    assert!(Pattern::new("a{1000000}").is_err());
    assert!(Pattern::new("((a{1000}){1000}){1000}").is_err());
    assert!(Pattern::new("\\p{L}{10000}").is_err());
    // Within the limits, nesting works.
    let ok = format!("{}a{}", "(".repeat(60), ")".repeat(60));
    assert!(p(&ok).is_match("a"));
}

#[test]
fn exi_char_sets() {
    let cs = |s: &str| p(s).char_set();
    assert_eq!(cs("[a-c]+"), Some(vec![('a', 'c')]));
    assert_eq!(cs("ab|ba"), Some(vec![('a', 'b')]));
    assert_eq!(cs("[a-z-[aeiou]]").map(|r| r.len()), Some(5));
    assert_eq!(
        cs("x\\s"),
        Some(vec![('\t', '\n'), ('\r', '\r'), (' ', ' '), ('x', 'x')])
    );
    assert_eq!(
        cs("[0-9]{3}-[A-Z]{2}"),
        Some(vec![('-', '-'), ('0', '9'), ('A', 'Z')])
    );
    // Defined but too large, or outside the BMP, or undefined.
    assert_eq!(cs("[\u{100}-\u{1ff}]"), None);
    assert_eq!(cs("[\u{100}-\u{1fe}]").map(|r| r.len()), Some(1));
    assert_eq!(cs("\u{10000}"), None);
    assert_eq!(cs("."), None);
    assert_eq!(cs("[^a]"), None);
    assert_eq!(cs("\\d"), None);
    assert_eq!(cs("a\\S"), None);
    assert_eq!(cs("\\p{IsBasicLatin}"), None);
    assert_eq!(cs("\\p{Lu}"), None);
    // The union of one step's patterns is what is limited.
    let two = [p("[\u{100}-\u{17f}]"), p("[\u{180}-\u{1ff}]")];
    assert!(two[0].char_set().is_some() && two[1].char_set().is_some());
    assert_eq!(restricted_char_set(&two), None);
}

#[test]
fn every_category_and_block_compiles() {
    for name in translate::CATEGORIES {
        for p in ["p", "P"] {
            let src = format!("\\{p}{{{name}}}");
            let pat = Pattern::new(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
            assert_eq!(pat.char_set(), None, "{src}");
            let inside = format!("[a\\{p}{{{name}}}-[b]]");
            Pattern::new(&inside).unwrap_or_else(|e| panic!("{inside}: {e}"));
        }
    }
    for (name, first, _) in blocks::BLOCKS {
        let pat = p(&format!("\\p{{Is{name}}}"));
        let neg = p(&format!("\\P{{Is{name}}}"));
        if let Some(c) = char::from_u32(*first) {
            assert!(
                pat.is_match(&c.to_string()) && !neg.is_match(&c.to_string()),
                "{name}"
            );
        }
        assert_eq!(pat.char_set(), None, "{name}");
    }
    // Multi-character escapes nest in classes, positive and negated.
    check("[\\w\\d]+", &["a1\u{663}"], &["!"]);
    check("[^\\i]", &["1", "-"], &["a", ":"]);
    check("[^\\W]", &["a"], &["!"]);
    check("[\\c-[\\d]]+", &["a.-"], &["a1"]);
}
