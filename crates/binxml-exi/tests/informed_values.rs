//! Typed values (EXI 1.0 sections 7.1, 7.2) against EXIficient 1.0.7: for each simple type a
//! schema declaring `<v>` of that type, EXIficient encodes `<v>VALUE</v>` in strict mode (the
//! header `0x80`, SE(v) as 1 bit of DocContent's two choices, CH as the only choice, EE and ED
//! in 0 bits), bit-packed and byte-aligned; binxml writes the same header and codes, then the
//! value, and the streams must be equal. Where EXIficient refuses a value (strict: it cannot
//! write it typed), binxml's `encode` must refuse it too. binxml's decoder must give the text
//! EXIficient's decoder writes. Known departures (binxml follows the Recommendation) are
//! listed in `DEPARTURES` with their clause, and each must still differ.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use binxml_exi::__values_for_tests::{self as values, ExiType};
use binxml_exi::informed::{SchemaGrammars, Terminal};
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::ExiOracle;

/// (test, value, what EXIficient does): values where binxml may differ from EXIficient in any
/// type, following the Recommendation (the clause in the section comment); each must differ
/// for at least one type of its test.
const DEPARTURES: &[(&str, &str, &str)] = &[
    // Integers (7.1.5; the lexical space of xs:integer, XSD 1.0 Part 2 3.3.13).
    (
        "integers",
        "++1",
        "EXIficient strips one `+` and Java's parser takes another: typed 1",
    ),
    (
        "integers",
        "+-1",
        "EXIficient strips the `+`: typed -1 (refused where unsigned)",
    ),
    // Decimals (7.1.3; xs:decimal, Part 2 3.2.3).
    (
        "decimals",
        "1.",
        "EXIficient refuses `1.` (no fraction digits), a valid xs:decimal",
    ),
    (
        "decimals",
        "1 .5",
        "EXIficient trims each part: typed 1.5; not an xs:decimal",
    ),
    (
        "decimals",
        "- 1",
        "EXIficient trims each part: typed -1; not an xs:decimal",
    ),
    (
        "decimals",
        "-98765432109876543210987654321.000000000000000000000000000001",
        "EXIficient's decoder drops the sign and writes a NUL for an integral part beyond \
         64 bits (DecimalValue.getCharacters writes the digits at offset 0)",
    ),
    // Floats (7.1.4; xs:double, Part 2 3.2.5).
    (
        "floats",
        "12345678901234567890",
        "EXIficient's mantissa overflows while reading digits: refused; binxml moves the \
         trailing zero to the exponent (1234567890123456789E1, in range)",
    ),
    (
        "floats",
        "10E16383",
        "EXIficient checks the exponent before moving the mantissa's zeros into it and \
         writes exponent 16384, which 7.1.4 forbids; binxml: untyped",
    ),
    (
        "floats",
        "0E99999",
        "EXIficient refuses the exponent; the value is 0, typed 0E0",
    ),
    (
        "floats",
        ".",
        "EXIficient: typed 0; not an xs:double literal",
    ),
    (
        "floats",
        "-",
        "EXIficient: typed 0; not an xs:double literal",
    ),
    (
        "floats",
        "1E",
        "EXIficient: typed 1 (empty exponent); not an xs:double literal",
    ),
    (
        "floats",
        "1E+",
        "EXIficient: typed 1; not an xs:double literal",
    ),
    (
        "floats",
        "1E5-",
        "EXIficient takes a `-` anywhere in the exponent: 1E-5; not a literal",
    ),
    // Date-Time (7.1.8; the XSD 1.0 second edition lexical spaces, Part 2 3.2.7-3.2.14).
    (
        "dates",
        "0000-01-01",
        "EXIficient: typed year 0, which XSD 1.0 has not",
    ),
    (
        "dates",
        "0000",
        "EXIficient: typed year 0, which XSD 1.0 has not",
    ),
    (
        "dates",
        "10000-01-01T00:00:00",
        "EXIficient refuses 5-digit years; Year is an Integer",
    ),
    (
        "dates",
        "10000",
        "EXIficient refuses 5-digit years; Year is an Integer",
    ),
    (
        "dates",
        "-10000",
        "EXIficient refuses 5-digit years; Year is an Integer",
    ),
    (
        "dates",
        "-12345-06-28T23:11:41.947+01:00",
        "EXIficient refuses 5-digit years",
    ),
    (
        "dates",
        "2000-01-01T00:00:00.1234567891234",
        "EXIficient reads the reversed fraction digits into a 32-bit int: refused; \
         FractionalSecs is an Unsigned Integer",
    ),
    (
        "dates",
        "2000-01-31T24:00:00",
        "EXIficient rewrites hour 24 as the next day's 00 without month carry (January 32); \
         binxml writes hour 24 (7.1.8: hour 0-24)",
    ),
    (
        "dates",
        "2000-12-31T24:00:00Z",
        "EXIficient: hour 24 rewritten (December 32)",
    ),
    (
        "dates",
        "24:00:00",
        "EXIficient: 24:00:00 written as 00:00:00; binxml keeps hour 24",
    ),
    (
        "dates",
        "2000-01-01T24:00:01",
        "EXIficient: typed; XSD allows hour 24 only as 24:00:00",
    ),
    (
        "dates",
        "24:00:01",
        "EXIficient: typed; XSD allows hour 24 only as 24:00:00",
    ),
    (
        "dates",
        "25:00:00",
        "EXIficient has no range checks: typed hour 25",
    ),
    ("dates", "12:60:00", "EXIficient: typed minute 60"),
    (
        "dates",
        "2000-01-01T23:59:60",
        "EXIficient: typed second 60; XSD 1.0 seconds stop at 59",
    ),
    ("dates", "2000-13-01T00:00:00", "EXIficient: typed month 13"),
    ("dates", "2000-01-32T00:00:00", "EXIficient: typed day 32"),
    (
        "dates",
        "1999-02-29T12:00:00Z",
        "EXIficient: typed February 29 of a common year",
    ),
    (
        "dates",
        "2001-02-29",
        "EXIficient: typed February 29 of a common year",
    ),
    ("dates", "2000-00-01", "EXIficient: typed month 0"),
    ("dates", "2000-13", "EXIficient: typed month 13"),
    ("dates", "2000-00", "EXIficient: typed month 0"),
    ("dates", "--02-30", "EXIficient: typed February 30"),
    ("dates", "--04-31", "EXIficient: typed April 31"),
    ("dates", "--13-01", "EXIficient: typed month 13"),
    ("dates", "---32", "EXIficient: typed day 32"),
    ("dates", "---00", "EXIficient: typed day 0"),
    ("dates", "--13", "EXIficient: typed month 13"),
    ("dates", "--00", "EXIficient: typed month 0"),
    (
        "dates",
        "--05--",
        "EXIficient takes the first edition's gMonth form --MM--",
    ),
    (
        "dates",
        "2000-01-01T00:00:00+15:00",
        "EXIficient: typed timezone +15:00 (XSD: ±14:00)",
    ),
    (
        "dates",
        "2000-01-01T00:00:00+14:01",
        "EXIficient: typed timezone +14:01",
    ),
    (
        "dates",
        "2000-01-01T00:00:00+05:00x",
        "EXIficient ignores what follows the timezone",
    ),
    // Restricted character sets (7.1.10.1): characters, not UTF-16 units.
    (
        "strings",
        "😀",
        "EXIficient counts UTF-16 units and writes a character outside the BMP as the escape \
         and its code point, then the escape and its low surrogate",
    ),
    ("strings", "a😀b", "EXIficient: UTF-16 units (see 😀)"),
    // Enumerations (7.2).
    (
        "enumerations",
        " red",
        "xs:string enumeration: EXIficient trims before matching (the value is not red, and \
         decodes as red), binxml writes it untyped; xs:token enumeration: binxml matches the \
         value as written, since ExiType::Enumeration does not carry its base type's whiteSpace \
         facet, while EXIficient and XSD collapse it (the index of red)",
    ),
    ("enumerations", "red ", "as \" red\""),
    (
        "enumerations",
        "0",
        "EXIficient finds 0 equal to NaN (mantissa 0 at any exponent) and writes NaN's index",
    ),
    ("enumerations", "-0", "as \"0\""),
    (
        "enumerations",
        "2000-01-02",
        "EXIficient: equal to 2000-01-02Z; dates with and without timezone are not equal \
         (Part 2 3.2.7.4): binxml writes it untyped",
    ),
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\r', "&#13;")
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#13;", "\r")
        .replace("&#xD;", "\r")
        .replace("&amp;", "&")
}

struct Bench {
    oracle: ExiOracle,
    dir: PathBuf,
    failures: Vec<String>,
    /// For each entry of DEPARTURES, whether some type showed the difference.
    departures_seen: Vec<bool>,
    group: &'static str,
    /// Values both refuse, checked untyped in EXIficient's non-strict mode.
    untyped: usize,
    checked: usize,
}

/// The schema of `<v>` with the given simple type content, and v's EXI datatype.
/// With `attr`, `<v>` has an optional attribute `a` of that type and no content.
fn schema(dir: &Path, name: &str, simple: &str, attr: bool) -> (PathBuf, ExiType) {
    let xsd = if attr {
        format!(
            r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="v"><xs:complexType><xs:attribute name="a"><xs:simpleType>{simple}</xs:simpleType></xs:attribute></xs:complexType></xs:element>
</xs:schema>
"#
        )
    } else {
        format!(
            r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="v"><xs:simpleType>{simple}</xs:simpleType></xs:element>
</xs:schema>
"#
        )
    };
    let path = dir.join(format!("{name}.xsd"));
    std::fs::write(&path, &xsd).unwrap();
    let s = Schema::from_bytes_with(xsd.as_bytes(), "t.xsd", &LoadOptions::default()).unwrap();
    let g = SchemaGrammars::new(Arc::new(s)).unwrap();
    let e = g.document_elements()[0];
    let start = g.grammar(g.element(e).start);
    let t = start
        .productions
        .iter()
        .find_map(|p| match &p.terminal {
            Terminal::Ch(t) => Some(g.datatype(*t).clone()),
            Terminal::At { type_def, .. } => Some(g.datatype(*type_def).clone()),
            _ => None,
        })
        .expect("v has a CH or AT production");
    (path, t)
}

impl Bench {
    fn new(name: &'static str) -> Option<Bench> {
        let oracle = ExiOracle::start_or_skip()?;
        let dir = binxml_testkit::scratch_dir(&format!("informed-values-{name}"));
        Some(Bench {
            oracle,
            dir,
            failures: Vec::new(),
            departures_seen: vec![false; DEPARTURES.len()],
            group: name,
            untyped: 0,
            checked: 0,
        })
    }

    /// Checks every value of one type, bit-packed and byte-aligned, as element text.
    fn check(&mut self, name: &str, simple: &str, vals: &[String]) {
        self.check_as(name, simple, vals, false);
    }

    /// As [`check`](Self::check), as the value of an attribute (`<v a="VALUE"/>`: the event
    /// codes are SE(v) and AT(a), 1 bit each).
    fn check_attr(&mut self, name: &str, simple: &str, vals: &[String]) {
        self.check_as(name, simple, vals, true);
    }

    fn check_as(&mut self, name: &str, simple: &str, vals: &[String], attr: bool) {
        let (xsd, t) = schema(&self.dir, name, simple, attr);
        let label = t.label();
        let string_like = matches!(t, ExiType::String | ExiType::Restricted(_));
        let (mut equal, mut departed) = (0, 0);
        for v in vals {
            let xml = if attr {
                format!("<v a=\"{}\"/>", escape(v))
            } else {
                format!("<v>{}</v>", escape(v))
            };
            // What the XML parser hands over: attribute values have their line ends and tabs
            // replaced by spaces.
            let normalized;
            let v = if attr {
                normalized = v.replace(['\t', '\n', '\r'], " ");
                &normalized
            } else {
                v
            };
            let mut differs = Vec::new();
            for aligned in [false, true] {
                let opts = format!(
                    "schema={},strict{}",
                    xsd.display(),
                    if aligned { ",bytealigned" } else { "" }
                );
                let theirs = self
                    .oracle
                    .encode_bytes(xml.as_bytes(), &opts, &self.dir)
                    .ok();
                // A union is castable: its first state has AT(xsi:type) too.
                let codes: &[(u32, u32)] = if simple.contains("xs:union") || attr {
                    &[(0, 1), (0, 1)]
                } else {
                    &[(0, 1)]
                };
                let ours = if string_like {
                    Some(values::encode_miss(&t, v, aligned, codes))
                } else {
                    values::encode(&t, v, aligned, codes)
                };
                if ours != theirs {
                    differs.push(format!(
                        "{}: binxml {} EXIficient {}",
                        if aligned { "aligned" } else { "bitpacked" },
                        hex(ours.as_deref()),
                        hex(theirs.as_deref())
                    ));
                }
                if ours.is_none() && theirs.is_none() && !aligned {
                    // Refused by both: EXIficient's non-strict encoder writes it untyped (a
                    // string), and it decodes to the value; element text with leading and
                    // trailing white space removed (EXIficient trims the text of an element of
                    // simple type that it writes untyped, and drops it when nothing is left;
                    // attribute values stay as they are: the caller's business, noted here).
                    let lax = format!("schema={}", xsd.display());
                    let back = self
                        .oracle
                        .encode_bytes(xml.as_bytes(), &lax, &self.dir)
                        .and_then(|b| self.oracle.decode_bytes(&b, &lax, &self.dir))
                        .map(|x| String::from_utf8(x).unwrap())
                        .map(|x| if attr { attr_of(&x) } else { text_of(&x) });
                    let trimmed = if attr {
                        v.as_str()
                    } else {
                        v.trim_matches([' ', '\t', '\n', '\r'])
                    };
                    if back.as_deref() != Ok(trimmed) {
                        differs.push(format!("non-strict: EXIficient gives {back:?}"));
                    }
                    self.untyped += 1;
                }
                // EXIficient's stream, also where binxml writes another: binxml reads it as
                // EXIficient does.
                let Some(bytes) = theirs else { continue };
                let back = self
                    .oracle
                    .decode_bytes(&bytes, &opts, &self.dir)
                    .map(|x| String::from_utf8(x).unwrap());
                let theirs_text = back.map(|x| if attr { attr_of(&x) } else { text_of(&x) });
                let ours_text = if string_like {
                    values::decode_miss(&t, &bytes, aligned, codes)
                } else {
                    values::decode(&t, &bytes, aligned, codes)
                }
                .map_err(|e| e.to_string());
                if ours_text != theirs_text {
                    differs.push(format!(
                        "{} decode: binxml {ours_text:?} EXIficient {theirs_text:?}",
                        if aligned { "aligned" } else { "bitpacked" },
                    ));
                }
            }
            self.checked += 1;
            let departure = DEPARTURES.iter().position(|(_, x, _)| *x == v.as_str());
            if differs.is_empty() {
                equal += 1;
            } else if let Some(i) = departure {
                self.departures_seen[i] = true;
                departed += 1;
                if std::env::var_os("BINXML_VALUES_VERBOSE").is_some() {
                    eprintln!("departure {name} {v:?}: {}", differs.join("; "));
                }
            } else {
                self.failures
                    .push(format!("{name} [{label}] {v:?}: {}", differs.join("; ")));
            }
        }
        eprintln!(
            "{name} [{label}]: {equal} of {} values equal, {departed} listed departures",
            vals.len()
        );
    }

    /// Fails on any difference not listed, and on a listed departure `values` holds that no
    /// type showed.
    fn finish(mut self) {
        for (i, (group, v, why)) in DEPARTURES.iter().enumerate() {
            if *group == self.group && !self.departures_seen[i] {
                self.failures
                    .push(format!("{v:?}: listed as a departure ({why}) but equal"));
            }
        }
        eprintln!(
            "{}: {} values refused by both, all written untyped by EXIficient's non-strict mode",
            self.group, self.untyped
        );
        for f in &self.failures {
            eprintln!("FAIL {f}");
        }
        assert!(
            self.failures.is_empty(),
            "{} of {} values differ from EXIficient",
            self.failures.len(),
            self.checked
        );
    }
}

/// The text of `<v>` in EXIficient's decoded document (`<v ...>TEXT</v>` or `<v .../>`).
fn text_of(xml: &str) -> String {
    let start = xml.find("<v").expect("a v element");
    let rest = &xml[start..];
    let gt = rest.find('>').unwrap();
    if rest[..gt].ends_with('/') {
        return String::new();
    }
    let end = rest.find("</v>").unwrap();
    unescape(&rest[gt + 1..end])
}

/// The value of `a` in EXIficient's decoded document.
fn attr_of(xml: &str) -> String {
    let start = xml.find(" a=\"").expect("an a attribute") + 4;
    let end = start + xml[start..].find('"').unwrap();
    unescape(&xml[start..end])
}

fn hex(b: Option<&[u8]>) -> String {
    match b {
        None => "refused".into(),
        Some(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

/// A deterministic stream of pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn restriction(base: &str, facets: &str) -> String {
    format!(r#"<xs:restriction base="xs:{base}">{facets}</xs:restriction>"#)
}

fn integer_values(rng: &mut Rng) -> Vec<String> {
    let mut v = strings(&[
        "0",
        "-0",
        "+0",
        "1",
        "-1",
        "+1",
        "007",
        "-007",
        " 42 ",
        "\n42\t",
        "63",
        "64",
        "127",
        "128",
        "-128",
        "-129",
        "4095",
        "4096",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551616",
        "-18446744073709551617",
        "340282366920938463463374607431768211456",
        "-123456789012345678901234567890123456789012345678901234567890",
        "",
        " ",
        "1.0",
        "1.",
        "1e3",
        "abc",
        "1 2",
        "--1",
        "+-1",
        "++1",
        "0x10",
    ]);
    for _ in 0..150 {
        let bits = rng.below(64) as u32 + 1;
        let x = rng.next() >> (64 - bits);
        let neg = rng.below(2) == 0;
        v.push(format!("{}{x}", if neg { "-" } else { "" }));
    }
    for _ in 0..20 {
        let digits = 20 + rng.below(40) as usize;
        let mut s = String::new();
        s.push(char::from(b'1' + rng.below(9) as u8));
        for _ in 1..digits {
            s.push(char::from(b'0' + rng.below(10) as u8));
        }
        v.push(s.clone());
        v.push(format!("-{s}"));
    }
    v
}

#[test]
fn integers_against_exificient() {
    let Some(mut b) = Bench::new("integers") else {
        return;
    };
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let vals = integer_values(&mut rng);
    for base in [
        "integer",
        "int",
        "long",
        "unsignedLong",
        "byte",
        "unsignedByte",
        "short",
    ] {
        b.check(base, &restriction(base, ""), &vals);
    }
    b.check(
        "nbit-neg",
        &restriction(
            "integer",
            r#"<xs:minInclusive value="-100"/><xs:maxInclusive value="3995"/>"#,
        ),
        &vals,
    );
    b.check(
        "nbit-one",
        &restriction(
            "int",
            r#"<xs:minInclusive value="7"/><xs:maxInclusive value="7"/>"#,
        ),
        &vals,
    );
    b.check(
        "nbit-excl",
        &restriction(
            "long",
            r#"<xs:minExclusive value="-3"/><xs:maxExclusive value="1000"/>"#,
        ),
        &vals,
    );
    b.check(
        "unsigned-min0",
        &restriction("integer", r#"<xs:minInclusive value="0"/>"#),
        &vals,
    );
    b.check(
        "unsigned-min5",
        &restriction("long", r#"<xs:minInclusive value="5"/>"#),
        &vals,
    );
    b.check(
        "nonNegativeInteger",
        &restriction("nonNegativeInteger", ""),
        &vals,
    );
    b.finish();
}

fn decimal_values(rng: &mut Rng) -> Vec<String> {
    let mut v = strings(&[
        "0",
        "-0",
        "+0",
        "0.0",
        "-0.0",
        "1",
        "1.0",
        "1.",
        ".5",
        "-.5",
        "+.5",
        "-1.5",
        "1.50",
        "0.05",
        "0.050",
        "-0.001",
        "007.700",
        "123456789.987654321",
        " 3.25 ",
        "18446744073709551616.18446744073709551616",
        "-98765432109876543210987654321.000000000000000000000000000001",
        "",
        ".",
        "-",
        "+",
        "1e3",
        "1.2.3",
        "1,5",
        "abc",
        "1 .5",
        "INF",
        "NaN",
        "- 1",
    ]);
    for _ in 0..150 {
        let int = rng.next() >> (1 + rng.below(63));
        let frac = rng.next() >> rng.below(64);
        let zeros = "0".repeat(rng.below(4) as usize);
        let sign = ["", "-", "+"][rng.below(3) as usize];
        v.push(format!("{sign}{int}.{zeros}{frac}"));
    }
    v
}

#[test]
fn decimals_against_exificient() {
    let Some(mut b) = Bench::new("decimals") else {
        return;
    };
    let vals = decimal_values(&mut Rng(0xDEC1_4A15_0000_0001));
    b.check("decimal", &restriction("decimal", ""), &vals);
    b.check(
        "decimal-facets",
        &restriction("decimal", r#"<xs:fractionDigits value="3"/>"#),
        &vals,
    );
    b.finish();
}

fn float_values(rng: &mut Rng) -> Vec<String> {
    let mut v = strings(&[
        "0",
        "-0",
        "0.0",
        "0E0",
        "-0E5",
        "1",
        "-1",
        "1.5",
        "1500",
        "1.5E3",
        "15E2",
        "1E10",
        "1e-10",
        "1.0E+2",
        "12.50E1",
        "100",
        ".5",
        "5.",
        "-.5E-5",
        "INF",
        "-INF",
        "NaN",
        "+INF",
        "inf",
        "nan",
        "Infinity",
        "1.7976931348623157E308",
        "4.9E-324",
        "-1.7976931348623157E308",
        "3.4028235E38",
        "1.4E-45",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "12345678901234567890",
        "1E16383",
        "1E-16383",
        "1E16384",
        "1E-16384",
        "10E16383",
        "0E99999",
        " 2.5 ",
        "",
        ".",
        "-",
        "E5",
        "1E",
        "1E+",
        "1.2.3",
        "1E5.5",
        "1E5-",
        "1d",
        "0x1p3",
        "1 E5",
    ]);
    for _ in 0..150 {
        let m = (rng.next() >> rng.below(64)) as i64;
        let e = rng.below(80) as i64 - 40;
        let form = rng.below(3);
        v.push(match form {
            0 => format!("{m}E{e}"),
            1 => format!("{}", f64::from_bits(rng.next() >> 2)),
            _ => format!("{}.{}e{e}", m % 1000, rng.below(100000)),
        });
    }
    v
}

#[test]
fn floats_against_exificient() {
    let Some(mut b) = Bench::new("floats") else {
        return;
    };
    let vals = float_values(&mut Rng(0xF10A_7000_0000_0001));
    b.check("double", &restriction("double", ""), &vals);
    b.check("float", &restriction("float", ""), &vals);
    b.finish();
}

#[test]
fn booleans_against_exificient() {
    let Some(mut b) = Bench::new("booleans") else {
        return;
    };
    let vals = strings(&[
        "true",
        "false",
        "1",
        "0",
        " true ",
        "\n0\n",
        "TRUE",
        "True",
        "yes",
        "",
        "2",
        "t",
        "true false",
        "01",
    ]);
    b.check("boolean", &restriction("boolean", ""), &vals);
    b.check(
        "boolean-pattern",
        &restriction("boolean", r#"<xs:pattern value="true|false|0|1"/>"#),
        &vals,
    );
    b.finish();
}

fn date_values(kind: &str, rng: &mut Rng) -> Vec<String> {
    let tz = [
        "", "Z", "+00:00", "-00:00", "+01:00", "-05:30", "+14:00", "-14:00", "+13:59",
    ];
    let mut v = Vec::new();
    let years = ["2000", "1999", "0001", "-0001", "-0044", "9999"];
    let mut push = |s: String| v.push(s);
    for _ in 0..120 {
        let y = if rng.below(4) == 0 {
            years[rng.below(years.len() as u64) as usize].to_string()
        } else {
            format!("{:04}", 1900 + rng.below(200))
        };
        let mo = 1 + rng.below(12);
        let d = 1 + rng.below(28);
        let h = rng.below(24);
        let mi = rng.below(60);
        let s = rng.below(60);
        let frac = match rng.below(4) {
            0 => String::new(),
            1 => format!(".{}", rng.below(1000)),
            2 => format!(".{:03}", rng.below(1000)),
            _ => format!(".{}", rng.below(1_000_000_000)),
        };
        let z = tz[rng.below(tz.len() as u64) as usize];
        push(match kind {
            "dateTime" => format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{z}"),
            "time" => format!("{h:02}:{mi:02}:{s:02}{frac}{z}"),
            "date" => format!("{y}-{mo:02}-{d:02}{z}"),
            "gYearMonth" => format!("{y}-{mo:02}{z}"),
            "gYear" => format!("{y}{z}"),
            "gMonthDay" => format!("--{mo:02}-{d:02}{z}"),
            "gDay" => format!("---{d:02}{z}"),
            _ => format!("--{mo:02}{z}"),
        });
    }
    let extra: &[&str] = match kind {
        "dateTime" => &[
            "2000-01-01T00:00:00",
            "2000-02-29T12:00:00Z",
            "1999-02-29T12:00:00Z",
            "2000-01-31T24:00:00",
            "2000-12-31T24:00:00Z",
            "2000-01-01T24:00:01",
            "2000-01-01T23:59:60",
            "2000-13-01T00:00:00",
            "2000-01-32T00:00:00",
            "2000-01-01T00:00:00.0",
            "2000-01-01T00:00:00.000",
            "2000-01-01T00:00:00.5",
            "2000-01-01T00:00:00.50",
            "2000-01-01T00:00:00.05",
            "2000-01-01T00:00:00.123456789",
            "10000-01-01T00:00:00",
            "-12345-06-28T23:11:41.947+01:00",
            "2000-01-01T00:00:00.1234567891234",
            "2000-01-01T00:00:00.",
            "2000-01-01T00:00:00+15:00",
            "2000-01-01T00:00:00+14:01",
            "2000-01-01T00:00:00+05:00x",
            "2000-01-01T00:00:00 ",
            " 2000-01-01T00:00:00Z ",
            "2000-01-01",
            "2000-1-01T00:00:00",
            "",
        ],
        "time" => &[
            "00:00:00",
            "24:00:00",
            "23:59:59.999",
            "12:00:00Z",
            "12:00:00+01:00",
            "24:00:01",
            "25:00:00",
            "12:60:00",
            "12:00",
            "",
        ],
        "date" => &[
            "2000-02-29",
            "2001-02-29",
            "0000-01-01",
            "2000-01-01+14:00",
            "2000-00-01",
            "",
        ],
        "gYear" => &["2000", "0000", "10000", "-10000", "999", "+2000", ""],
        "gMonth" => &["--01", "--12", "--13", "--00", "--05--", "--05Z", ""],
        "gDay" => &["---01", "---31", "---32", "---00", "---5", ""],
        "gMonthDay" => &["--02-29", "--02-30", "--04-31", "--13-01", ""],
        _ => &["2000-13", "2000-00", ""],
    };
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn dates_against_exificient() {
    let Some(mut b) = Bench::new("dates") else {
        return;
    };
    let mut all = Vec::new();
    for (i, kind) in [
        "dateTime",
        "time",
        "date",
        "gYearMonth",
        "gYear",
        "gMonthDay",
        "gDay",
        "gMonth",
    ]
    .iter()
    .enumerate()
    {
        let vals = date_values(kind, &mut Rng(0xDA7E_0000_0000_0001 + i as u64));
        b.check(kind, &restriction(kind, ""), &vals);
        all.extend(vals);
    }
    b.finish();
}

#[test]
fn binary_against_exificient() {
    let Some(mut b) = Bench::new("binary") else {
        return;
    };
    let mut rng = Rng(0xB1_0000_0001);
    let mut hexes = strings(&[
        "", "00", "ff", "FF", "0fA1", " 0a ", "abc", "zz", "0 a", "a",
    ]);
    let mut b64 = strings(&[
        "",
        "AA==",
        "AAA=",
        "AAAA",
        "QUJD",
        "QUJDRA==",
        "QU JD",
        "QUJD\nREVG",
        " QUJD ",
        "QUJ",
        "QUJD=",
        "Q===",
        "QR==",
        "AB=A",
        "####",
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
    ]);
    for _ in 0..100 {
        let n = rng.below(80) as usize;
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        hexes.push(bytes.iter().map(|x| format!("{x:02x}")).collect());
        let mut s = String::new();
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for c in bytes.chunks(3) {
            let n = (c[0] as u32) << 16
                | (*c.get(1).unwrap_or(&0) as u32) << 8
                | *c.get(2).unwrap_or(&0) as u32;
            s.push(A[(n >> 18) as usize & 63] as char);
            s.push(A[(n >> 12) as usize & 63] as char);
            s.push(if c.len() > 1 {
                A[(n >> 6) as usize & 63] as char
            } else {
                '='
            });
            s.push(if c.len() > 2 {
                A[n as usize & 63] as char
            } else {
                '='
            });
        }
        b64.push(s);
    }
    b.check("hexBinary", &restriction("hexBinary", ""), &hexes);
    b.check("base64Binary", &restriction("base64Binary", ""), &b64);
    hexes.extend(b64);
    b.finish();
}

#[test]
fn strings_against_exificient() {
    let Some(mut b) = Bench::new("strings") else {
        return;
    };
    let vals = strings(&[
        "",
        "a",
        "abc",
        " a b ",
        "héllo",
        "€",
        "😀",
        "a😀b",
        "123",
        "ABC",
        "A1",
        "x\ny",
        "\t",
        "0123456789",
        "ZZZ",
        "AZ",
        "a-b",
        "http://example.com/x?y=1",
        "p:local",
    ]);
    b.check("string", &restriction("string", ""), &vals);
    // EXIficient applies the whiteSpace facet of token and anyURI (collapse) to the string
    // before the string table: the caller's business; values without such spaces here.
    let collapsed: Vec<String> = vals
        .iter()
        .filter(|v| !v.contains(['\t', '\n']) && v.trim() == v.as_str())
        .cloned()
        .collect();
    b.check("token", &restriction("token", ""), &collapsed);
    b.check("anyURI", &restriction("anyURI", ""), &collapsed);
    b.check(
        "duration",
        &restriction("duration", ""),
        &strings(&["P1Y", "-PT1.5S", "x", ""]),
    );
    b.check(
        "QName",
        &restriction("QName", ""),
        &strings(&["local", "a:b", "x y", ""]),
    );
    b.check("ID", &restriction("ID", ""), &strings(&["id1", "x y", ""]));
    b.check(
        "digits3",
        &restriction("string", r#"<xs:pattern value="[0-9]{3}"/>"#),
        &vals,
    );
    b.check(
        "upper",
        &restriction("string", r#"<xs:pattern value="[A-Z]*"/>"#),
        &vals,
    );
    b.check(
        "union",
        r#"<xs:union memberTypes="xs:int xs:date"/>"#,
        &strings(&["1", "2000-01-01", "x", ""]),
    );
    b.finish();
}

#[test]
fn enumerations_against_exificient() {
    let Some(mut b) = Bench::new("enumerations") else {
        return;
    };
    let e = |vals: &[&str]| -> String {
        vals.iter()
            .map(|v| format!(r#"<xs:enumeration value="{v}"/>"#))
            .collect()
    };
    let words = strings(&["red", "green", "blue", " red", "red ", "Red", "", "yellow"]);
    b.check(
        "enum-string",
        &restriction("string", &e(&["red", "green", "blue"])),
        &words,
    );
    b.check(
        "enum-token",
        &restriction("token", &e(&["red", "green", "blue"])),
        &words,
    );
    b.check(
        "enum-one",
        &restriction("string", &e(&["only"])),
        &strings(&["only", "x"]),
    );
    let ints = strings(&["1", "01", "+1", " 1 ", "10", "-5", "100", "2", "x", ""]);
    b.check(
        "enum-int",
        &restriction("int", &e(&["1", "10", "-5", "+100"])),
        &ints,
    );
    let decs = strings(&["1.5", "1.50", "01.5", "2", "2.0", "x"]);
    b.check(
        "enum-decimal",
        &restriction("decimal", &e(&["1.5", "2"])),
        &decs,
    );
    let floats = strings(&["1.5", "15E-1", "1.50", "INF", "NaN", "0", "-0", "2"]);
    b.check(
        "enum-double",
        &restriction("double", &e(&["1.5", "INF", "NaN", "0"])),
        &floats,
    );
    let dates = strings(&[
        "2000-01-01",
        "2000-01-02Z",
        "2000-01-02+00:00",
        "2000-01-03+01:00",
        "2000-01-02",
        "x",
    ]);
    b.check(
        "enum-date",
        &restriction(
            "date",
            &e(&["2000-01-01", "2000-01-02Z", "2000-01-03+01:00"]),
        ),
        &dates,
    );
    let mut all = words;
    all.extend(ints);
    all.extend(decs);
    all.extend(floats);
    all.extend(dates);
    b.finish();
}

#[test]
fn lists_against_exificient() {
    let Some(mut b) = Bench::new("lists") else {
        return;
    };
    let ints = strings(&[
        "",
        "1",
        "1 2 3",
        "  -1\t\n2  ",
        "1 x",
        "99999999999999999999 -3",
    ]);
    b.check("list-int", r#"<xs:list itemType="xs:int"/>"#, &ints);
    let words = strings(&["", "a", "a b", "a a", "a b a", "  x  y ", "😀 a"]);
    b.check("list-string", r#"<xs:list itemType="xs:string"/>"#, &words);
    b.check("NMTOKENS", &restriction("NMTOKENS", ""), &words);
    let colors = strings(&["red", "red blue", "red x", ""]);
    b.check(
        "list-enum",
        r#"<xs:list><xs:simpleType><xs:restriction base="xs:string"><xs:enumeration value="red"/><xs:enumeration value="blue"/></xs:restriction></xs:simpleType></xs:list>"#,
        &colors,
    );
    let dates = strings(&["2000-01-01 2001-02-03Z", "x"]);
    b.check("list-date", r#"<xs:list itemType="xs:date"/>"#, &dates);
    let mut all = ints;
    all.extend(words);
    all.extend(colors);
    all.extend(dates);
    b.finish();
}

#[test]
fn attributes_against_exificient() {
    let Some(mut b) = Bench::new("attributes") else {
        return;
    };
    let mut rng = Rng(0xA77_0000_0001);
    let ints: Vec<String> = integer_values(&mut rng).into_iter().take(60).collect();
    b.check_attr("attr-int", &restriction("int", ""), &ints);
    b.check_attr(
        "attr-nbit",
        &restriction(
            "integer",
            r#"<xs:minInclusive value="-10"/><xs:maxInclusive value="10"/>"#,
        ),
        &ints,
    );
    let decs: Vec<String> = decimal_values(&mut rng).into_iter().take(60).collect();
    b.check_attr("attr-decimal", &restriction("decimal", ""), &decs);
    let floats: Vec<String> = float_values(&mut rng).into_iter().take(80).collect();
    b.check_attr("attr-double", &restriction("double", ""), &floats);
    let dates: Vec<String> = date_values("dateTime", &mut rng)
        .into_iter()
        .take(60)
        .collect();
    b.check_attr("attr-dateTime", &restriction("dateTime", ""), &dates);
    b.check_attr(
        "attr-boolean",
        &restriction("boolean", ""),
        &strings(&["true", "0", " 1 ", "x"]),
    );
    b.check_attr(
        "attr-hex",
        &restriction("hexBinary", ""),
        &strings(&["", "0fa1", "x"]),
    );
    b.check_attr(
        "attr-enum",
        &restriction(
            "string",
            r#"<xs:enumeration value="a"/><xs:enumeration value="b"/><xs:enumeration value="c"/>"#,
        ),
        &strings(&["a", "b", "c", "d"]),
    );
    b.check_attr(
        "attr-rcs",
        &restriction("string", r#"<xs:pattern value="[0-9]{3}"/>"#),
        &strings(&["123", "12x", ""]),
    );
    b.check_attr(
        "attr-list-string",
        r#"<xs:list itemType="xs:string"/>"#,
        &strings(&["a b a", "", "x\ty"]),
    );
    b.finish();
}

/// Random bytes into the decoder of every representation, bit-packed and byte-aligned:
/// errors, never a panic (the lengths are bounded by the input left).
#[test]
fn hostile_input() {
    use values::DateTimeKind as K;
    let dir = binxml_testkit::scratch_dir("informed-values-hostile");
    let (_, e) = schema(
        &dir,
        "e",
        &restriction(
            "date",
            r#"<xs:enumeration value="2000-01-01"/><xs:enumeration value="2001-01-01Z"/>"#,
        ),
        false,
    );
    let types = vec![
        ExiType::Base64,
        ExiType::Hex,
        ExiType::Boolean,
        ExiType::BooleanPattern,
        ExiType::Decimal,
        ExiType::Float,
        ExiType::Integer,
        ExiType::Unsigned,
        ExiType::NBit {
            min: -100,
            max: 3995,
        },
        ExiType::NBit { min: 7, max: 7 },
        ExiType::DateTime(K::DateTime),
        ExiType::DateTime(K::Time),
        ExiType::DateTime(K::Date),
        ExiType::DateTime(K::GYearMonth),
        ExiType::DateTime(K::GYear),
        ExiType::DateTime(K::GMonthDay),
        ExiType::DateTime(K::GDay),
        ExiType::DateTime(K::GMonth),
        ExiType::String,
        ExiType::Restricted(vec!['0', '1', '2', '3']),
        ExiType::List(Box::new(ExiType::Integer)),
        ExiType::List(Box::new(ExiType::String)),
        ExiType::List(Box::new(ExiType::Restricted(vec!['a']))),
        ExiType::List(Box::new(ExiType::NBit { min: 0, max: 0 })),
        ExiType::List(Box::new(e.clone())),
        e,
    ];
    let mut rng = Rng(0x0BAD_F00D_0000_0001);
    let mut decoded = 0;
    for round in 0..4000 {
        let len = rng.below(48) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if round % 4 == 0 {
            // Long unsigned integers and lengths.
            for b in bytes.iter_mut().take(len / 2) {
                *b |= 0x80;
            }
        }
        for t in &types {
            for aligned in [false, true] {
                if values::decode_raw(t, &bytes, aligned).is_ok() {
                    decoded += 1;
                }
            }
        }
    }
    eprintln!(
        "hostile input: {decoded} of {} decodes succeeded",
        4000 * types.len() * 2
    );
}
