//! Hostile input to the datatypes module: every input gives a value or an error, never a
//! panic, a hang or an allocation out of proportion to the input.

use std::time::{Duration, Instant};

use binxml_schema::datatypes::{
    Builtin, FacetKind, FacetSpec, Facets, NoNamespaces, Pattern, parse, split_list,
};

/// Runs `f` and fails if it takes longer than `limit` (the debug build on a shared machine
/// is slow; the limits are generous, what they catch is quadratic or exponential work).
fn quick<T>(what: &str, limit: Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < limit, "{what} took {:?}", t.elapsed());
    r
}

#[test]
fn huge_and_odd_lexical_forms() {
    let megabyte_digits = "7".repeat(1 << 20);
    let inputs: Vec<String> = vec![
        megabyte_digits.clone(),
        format!("-{megabyte_digits}"),
        format!("{megabyte_digits}.{megabyte_digits}"),
        format!("1e{megabyte_digits}"),
        format!("{megabyte_digits}e-{megabyte_digits}"),
        format!("P{megabyte_digits}Y"),
        format!("PT1.{megabyte_digits}S"),
        format!("{megabyte_digits}-01-01T00:00:00"),
        format!("2000-01-01T00:00:00.{megabyte_digits}"),
        " ".repeat(1 << 20),
        "a ".repeat(1 << 19),
        "A".repeat(1 << 20),
        "=".repeat(1 << 20),
        ":".repeat(1 << 20),
        "\u{0}\u{FFFF}\u{10FFFF}\u{FEFF}".repeat(1000),
        "-".repeat(100_000),
        "--".to_string(),
        "---".to_string(),
        "P".to_string(),
        "T".to_string(),
        ".".to_string(),
        "e".to_string(),
        String::new(),
    ];
    for t in Builtin::ALL {
        for s in &inputs {
            let shown: String = s.chars().take(20).collect();
            quick(
                &format!("xs:{} {shown:?}", t.name()),
                Duration::from_secs(10),
                || {
                    if let Err(e) = parse(*t, s, &NoNamespaces) {
                        // The message quotes a short excerpt, never the megabyte.
                        assert!(e.to_string().len() < 1000, "{}", e.to_string().len());
                    }
                },
            );
        }
    }
    assert!(parse(Builtin::Integer, &megabyte_digits, &NoNamespaces).is_ok());
    assert!(parse(Builtin::Long, &megabyte_digits, &NoNamespaces).is_err());
    assert!(
        parse(
            Builtin::Duration,
            &format!("P{megabyte_digits}Y"),
            &NoNamespaces
        )
        .is_err()
    );
    assert!(parse(Builtin::GYear, &megabyte_digits, &NoNamespaces).is_err());
    assert_eq!(split_list(&"a ".repeat(1 << 19)).count(), 1 << 19);
}

#[test]
fn every_short_string_over_a_small_alphabet() {
    // Exhaustive over strings of up to four characters from the characters that matter to
    // the lexical grammars: no panic on any, for any type.
    let alphabet: Vec<char> = "019-+.:eETZP \tAa=/_\u{e9}".chars().collect();
    let mut strings = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for s in &frontier {
            for &c in &alphabet {
                let mut t = s.clone();
                t.push(c);
                next.push(t);
            }
        }
        strings.extend(next.iter().cloned());
        frontier = next;
    }
    for t in Builtin::ALL {
        for s in &strings {
            let _ = parse(*t, s, &NoNamespaces);
        }
    }
}

#[test]
fn hostile_patterns() {
    let cases = [
        format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000)),
        "((((a)))))".to_string(),
        "((((a)))))".repeat(10_000),
        format!("{}a", "[a-[".repeat(10_000)),
        "a{1000000}".to_string(),
        "a{4294967295}".to_string(),
        "a{4294967296}".to_string(),
        "(a{1000}){1000}".to_string(),
        "(((a{100}){100}){100}){100}".to_string(),
        "\\p{L}{100000}".to_string(),
        "[\\p{IsBasicLatin}\\p{IsGreek}]{100000}".to_string(),
        "(a|b|c|d)*".repeat(10_000),
        "\\".to_string(),
        "[".repeat(100_000),
        ")".repeat(100_000),
        "\u{10FFFF}".repeat(100_000),
    ];
    for src in &cases {
        let shown: String = src.chars().take(30).collect();
        quick(
            &format!("pattern {shown:?}"),
            Duration::from_secs(20),
            || {
                if let Err(e) = Pattern::new(src) {
                    assert!(e.to_string().len() < 1000);
                }
            },
        );
    }
    // A pattern that compiles matches long input in linear time.
    let p = Pattern::new("(a|aa)*b").expect("compiles");
    let long = "a".repeat(1 << 20);
    assert!(!quick("matching", Duration::from_secs(10), || p.is_match(&long)));
}

#[test]
fn hostile_facets() {
    let ns = NoNamespaces;
    let spec = |kind, value| FacetSpec {
        kind,
        value,
        fixed: false,
        ns: &ns,
    };
    let huge = "9".repeat(100_000);
    let base = Facets::builtin(Builtin::String);
    // A length beyond u64 is a length nothing reaches, not an overflow.
    let f = base
        .restrict(&[spec(FacetKind::MaxLength, &huge)])
        .expect("valid facet");
    assert!(f.validate("abc", &ns).is_ok());
    let dec = Facets::builtin(Builtin::Decimal);
    let f = dec
        .restrict(&[
            spec(FacetKind::TotalDigits, &huge),
            spec(FacetKind::MaxInclusive, &huge),
        ])
        .expect("valid facets");
    assert!(f.validate(&huge, &ns).is_ok());
    assert!(f.validate(&format!("{huge}0"), &ns).is_err());
    // Many enumeration values.
    let values: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
    let specs: Vec<FacetSpec<'_>> = values
        .iter()
        .map(|v| spec(FacetKind::Enumeration, v))
        .collect();
    let f = quick("10,000 enumeration values", Duration::from_secs(10), || {
        Facets::builtin(Builtin::Int)
            .restrict(&specs)
            .expect("valid")
    });
    assert_eq!(
        f.enumeration_index(&parse(Builtin::Int, "9999", &ns).expect("int")),
        Some(9999)
    );
}
