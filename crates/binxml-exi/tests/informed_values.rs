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

/// (type name in these tests or `*` for every type, value, what differs and the clause binxml
/// follows). Each entry must differ for at least one type.
const DEPARTURES: &[(&str, &str, &str)] = &[
    (
        "*",
        "++1",
        "EXIficient strips one `+` and lets Java's parser take another: typed 1; binxml: not an \
         integer literal (XSD 1.0 Part 2 3.3.13), untyped (EXI 8.5.4.4.1)",
    ),
    (
        "*",
        "+-1",
        "EXIficient strips the `+`: typed -1; binxml: not an integer literal, untyped",
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
    checked: usize,
}

/// The schema of `<v>` with the given simple type content, and v's EXI datatype.
fn schema(dir: &Path, name: &str, simple: &str) -> (PathBuf, ExiType) {
    let xsd = format!(
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="v"><xs:simpleType>{simple}</xs:simpleType></xs:element>
</xs:schema>
"#
    );
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
            _ => None,
        })
        .expect("v has a CH production");
    (path, t)
}

impl Bench {
    fn new(name: &str) -> Option<Bench> {
        let oracle = ExiOracle::start_or_skip()?;
        let dir = binxml_testkit::scratch_dir(&format!("informed-values-{name}"));
        Some(Bench {
            oracle,
            dir,
            failures: Vec::new(),
            departures_seen: vec![false; DEPARTURES.len()],
            checked: 0,
        })
    }

    /// Checks every value of one type, bit-packed and byte-aligned.
    fn check(&mut self, name: &str, simple: &str, vals: &[String]) {
        let (xsd, t) = schema(&self.dir, name, simple);
        let label = t.label();
        let string_like = matches!(t, ExiType::String | ExiType::Restricted(_));
        let mut equal = 0;
        for v in vals {
            let xml = format!("<v>{}</v>", escape(v));
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
                let codes = [(0, 1)];
                let ours = if string_like {
                    Some(values::encode_miss(&t, v, aligned, &codes))
                } else {
                    values::encode(&t, v, aligned, &codes)
                };
                if ours != theirs {
                    differs.push(format!(
                        "{}: binxml {} EXIficient {}",
                        if aligned { "aligned" } else { "bitpacked" },
                        hex(ours.as_deref()),
                        hex(theirs.as_deref())
                    ));
                    continue;
                }
                let Some(bytes) = theirs else { continue };
                let back = self
                    .oracle
                    .decode_bytes(&bytes, &opts, &self.dir)
                    .map(|x| String::from_utf8(x).unwrap());
                let theirs_text = back.map(|x| text_of(&x));
                let ours_text = if string_like {
                    values::decode_miss(&t, &bytes, aligned, &codes)
                } else {
                    values::decode(&t, &bytes, aligned, &codes)
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
            let departure = DEPARTURES
                .iter()
                .position(|(l, x, _)| (*l == "*" || *l == name) && *x == v.as_str());
            if let Some(i) = departure {
                if !differs.is_empty() {
                    self.departures_seen[i] = true;
                }
            } else if differs.is_empty() {
                equal += 1;
            } else {
                self.failures
                    .push(format!("{name} [{label}] {v:?}: {}", differs.join("; ")));
            }
        }
        eprintln!("{name} [{label}]: {equal} of {} values equal", vals.len());
    }

    /// Fails on any difference not listed, and on a listed departure `values` holds that no
    /// type showed.
    fn finish(mut self, values: &[String]) {
        for (i, (_, v, why)) in DEPARTURES.iter().enumerate() {
            if values.iter().any(|x| x == v) && !self.departures_seen[i] {
                self.failures
                    .push(format!("{v:?}: listed as a departure ({why}) but equal"));
            }
        }
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
    b.finish(&vals);
}
