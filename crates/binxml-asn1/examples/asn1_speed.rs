//! Table 4 style timings (milliseconds, best of N runs): read XML into events, read PER into
//! events, write XML from events, write PER from events, without and with bzip2 compression of
//! the component-strings block; and reading XML and UPER into the tree (`binxml-tree`, what
//! `binxml::parse_tree` does: push decoding), the "reading PER into the tree" target.
//! `cargo run --release -p binxml-asn1 --example asn1_speed -- FILE...`
//! `TREE_ONLY=1`: only the tree columns; `RUNS=n`: best of n; `PROFILE=convert-uper|convert-uper-dyn|xml|uper|uper-events|uper-drain|uper-pull|ber|write-ber|write-aper|uper-count|xml-count|xml-drain|tree-replay|write-uper`:
//! one operation only (for a profiler); `PROFILE=write-OPTS-RULE` / `read-OPTS-RULE` writes /
//! reads into the tree with another option set (OPTS: plain, nonames, nostrings, noscope,
//! compact; RULE: uper, aper, ber).
use std::time::Instant;

use binxml_asn1::{Asn1Decoder, Compression, Options, Rule, decode, encode};
use binxml_core::Limits;
use binxml_tree::Document;

fn best<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..n {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    best
}

// The tree columns do what `binxml::parse_tree` does (this crate cannot depend on the facade):
// the format's decoder with default limits, pushed into `Document::parse_push` with the facade's
// size hint (the input's length for XML, three times it for binary formats).
fn xml_tree(utf8: &[u8]) -> usize {
    let mut d = binxml_xml::XmlDecoder::with_limits(utf8, Limits::default());
    Document::parse_push(&mut d, utf8.len()).unwrap().len()
}

fn per_tree(bytes: &[u8], rule: Rule) -> usize {
    let mut d = Asn1Decoder::with_limits(bytes, rule, Limits::default());
    Document::parse_push(&mut d, bytes.len().saturating_mul(3))
        .unwrap()
        .len()
}

/// The pull path into the tree (every event built, then taken apart by the tree builder).
fn per_tree_pull(bytes: &[u8], rule: Rule) -> usize {
    let mut d = Asn1Decoder::new(bytes, rule);
    Document::parse_sized(&mut d, bytes.len()).unwrap().len()
}

/// The decoder alone: every event pulled and dropped.
fn drain(bytes: &[u8], rule: Rule) -> usize {
    let mut d = Asn1Decoder::new(bytes, rule);
    let mut k = 0;
    while let Some(ev) = binxml_core::Decoder::next_event(&mut d).unwrap() {
        std::hint::black_box(&ev);
        k += 1;
    }
    k
}

/// `PROFILE=write-OPTS-RULE` / `read-OPTS-RULE` (see `main`): best time, or `None` for
/// another profile.
fn opts_profile(what: &str, events: &[binxml_core::Event<'_>], n: usize) -> Option<f64> {
    let mut parts = what.split('-');
    let (op, set, rule) = (parts.next()?, parts.next()?, parts.next()?);
    let rule = match rule {
        "uper" => Rule::Uper,
        "aper" => Rule::Aper,
        "ber" => Rule::Ber,
        _ => return None,
    };
    let opts = match set {
        "plain" => Options::plain(rule),
        "nonames" => Options {
            names_table: false,
            ..Options::new(rule)
        },
        "nostrings" => Options {
            strings_table: false,
            ..Options::new(rule)
        },
        "noscope" => Options {
            scoped_namespaces: false,
            ..Options::new(rule)
        },
        "compact" => Options::compact(rule),
        _ => return None,
    };
    match op {
        "write" => Some(best(n, || encode(events, opts).unwrap().len())),
        "read" => {
            let bytes = encode(events, opts).unwrap();
            Some(best(n, || per_tree(&bytes, rule)))
        }
        _ => None,
    }
}

fn name(f: &str) -> String {
    std::path::Path::new(f)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string()
}

fn main() {
    let n: usize = std::env::var("RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let tree_only = std::env::var("TREE_ONLY").is_ok();
    if tree_only {
        println!(
            "document\ttreeXML\ttreeUPER\ttreeAPER\tratio(treeXML/treeUPER)\tMB/s(XML)\tMB/s(UPER)\ttreeUPERpull"
        );
    } else {
        println!(
            "document\treadXML\treadUPER\treadAPER\twriteXML\twriteUPER\treadUPER/C\twriteUPER/C\tratio(readXML/readUPER)\ttreeXML\ttreeUPER\tratio(treeXML/treeUPER)"
        );
    }
    for f in std::env::args().skip(1) {
        let raw = std::fs::read(&f).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap().into_owned();
        let events = binxml_xml::parse_events(&utf8).unwrap();
        let uper = encode(&events, Options::new(Rule::Uper)).unwrap();
        let aper = encode(&events, Options::new(Rule::Aper)).unwrap();
        if let Ok(what) = std::env::var("PROFILE") {
            // other option sets: `write-OPTS-RULE` writes, `read-OPTS-RULE` reads into the
            // tree (OPTS: plain, nonames, nostrings, noscope, compact; RULE: uper, aper, ber)
            if let Some(t) = opts_profile(&what, &events, n) {
                println!("{} {what} {t:.3}", name(&f));
                continue;
            }
            // for `perf record`: only one operation, many times
            let t = match what.as_str() {
                "xml" => best(n, || xml_tree(&utf8)),
                "uper-xmlsize" => best(n, || {
                    // experiment: the tree reserving for the XML's size instead of the input's
                    let mut d = Asn1Decoder::new(&uper, Rule::Uper);
                    Document::parse_sized(&mut d, utf8.len()).unwrap().len()
                }),
                "uper-first" => best(n, || {
                    // pass 1 and the tables: the time to the first event
                    let mut d = Asn1Decoder::new(&uper, Rule::Uper);
                    binxml_core::Decoder::next_event(&mut d).unwrap().is_some()
                }),
                "uper-drain" => best(n, || drain(&uper, Rule::Uper)),
                "xml-drain" => best(n, || {
                    let mut d = binxml_xml::XmlDecoder::with_limits(&utf8, Limits::default());
                    let mut k = 0usize;
                    while let Some(ev) = binxml_core::Decoder::next_event(&mut d).unwrap() {
                        std::hint::black_box(&ev);
                        k += 1;
                    }
                    k
                }),
                "uper-events" => best(n, || decode(&uper, Rule::Uper).unwrap().len()),
                "tree-from-events" => {
                    // the tree's own share: building from events already in memory
                    let mut best_t = f64::MAX;
                    for _ in 0..n {
                        let evs = events.clone();
                        let t = Instant::now();
                        std::hint::black_box(Document::from_events(evs).unwrap().len());
                        best_t = best_t.min(t.elapsed().as_secs_f64() * 1000.0);
                    }
                    println!("events: {}", events.len());
                    best_t
                }
                "tree-replay" => {
                    // the tree's own share: a decoder that hands out events already decoded
                    struct Replay<'a>(std::vec::IntoIter<binxml_core::Event<'a>>);
                    impl<'a> binxml_core::Decoder<'a> for Replay<'a> {
                        fn next_event(
                            &mut self,
                        ) -> binxml_core::Result<Option<binxml_core::Event<'a>>>
                        {
                            Ok(self.0.next())
                        }
                        fn offset(&self) -> u64 {
                            0
                        }
                    }
                    let mut best_t = f64::MAX;
                    for _ in 0..n {
                        let evs = decode(&uper, Rule::Uper).unwrap();
                        let t = Instant::now();
                        let mut d = Replay(evs.into_iter());
                        std::hint::black_box(
                            Document::parse_sized(&mut d, uper.len()).unwrap().len(),
                        );
                        best_t = best_t.min(t.elapsed().as_secs_f64() * 1000.0);
                    }
                    best_t
                }
                "write-ber" => best(n, || {
                    encode(&events, Options::new(Rule::Ber)).unwrap().len()
                }),
                "write-aper" => best(n, || {
                    encode(&events, Options::new(Rule::Aper)).unwrap().len()
                }),
                "ber" => {
                    let ber = encode(&events, Options::new(Rule::Ber)).unwrap();
                    best(n, || per_tree(&ber, Rule::Ber))
                }
                // XML -> UPER by push decoding: into the encoder as a sink, or through a
                // `dyn Encoder` (what `binxml::convert_to` did before the encoder was a sink)
                "convert-uper" | "convert-uper-dyn" => {
                    let dynamic = what.ends_with("-dyn");
                    best(n, || {
                        let mut out = Vec::new();
                        let mut enc =
                            binxml_asn1::Asn1Encoder::new(&mut out, Options::new(Rule::Uper));
                        let mut d = binxml_xml::XmlDecoder::with_limits(&utf8, Limits::default());
                        if dynamic {
                            let e: &mut dyn binxml_core::Encoder = &mut enc;
                            let mut sink = binxml_core::EncoderSink::new(e);
                            binxml_core::Decoder::read_into(&mut d, &mut sink).unwrap();
                        } else {
                            binxml_core::Decoder::read_into(&mut d, &mut enc).unwrap();
                        }
                        binxml_core::Encoder::finish(&mut enc).unwrap();
                        drop(enc);
                        out.len()
                    })
                }
                "write-uper" => best(n, || {
                    encode(&events, Options::new(Rule::Uper)).unwrap().len()
                }),
                "xml-count" => best(n, || {
                    // push into a sink that only counts: the decoder's share of XML -> tree
                    let mut d = binxml_xml::XmlDecoder::with_limits(&utf8, Limits::default());
                    let mut c = binxml_core::CountingSink::default();
                    binxml_core::Decoder::read_into(&mut d, &mut c).unwrap();
                    c.events
                }),
                "uper-count" => best(n, || {
                    let mut d = Asn1Decoder::new(&uper, Rule::Uper);
                    let mut c = binxml_core::CountingSink::default();
                    binxml_core::Decoder::read_into(&mut d, &mut c).unwrap();
                    c.events
                }),
                "uper-hint1" => best(n, || {
                    // experiment: the tree reserving for the input's size instead of 3x
                    let mut d = Asn1Decoder::new(&uper, Rule::Uper);
                    Document::parse_push(&mut d, uper.len()).unwrap().len()
                }),
                "uper-pull" => best(n, || per_tree_pull(&uper, Rule::Uper)),
                _ => best(n, || per_tree(&uper, Rule::Uper)),
            };
            println!("{} {what} {t:.3}", name(&f));
            continue;
        }
        if tree_only {
            let tx = best(n, || xml_tree(&utf8));
            let tu = best(n, || per_tree(&uper, Rule::Uper));
            let ta = best(n, || per_tree(&aper, Rule::Aper));
            let tp = best(n, || per_tree_pull(&uper, Rule::Uper));
            // MB of the document's XML (UTF-8) per second
            let mbs = |ms: f64| utf8.len() as f64 / 1e3 / ms;
            println!(
                "{}\t{tx:.3}\t{tu:.3}\t{ta:.3}\t{:.2}\t{:.0}\t{:.0}\t{tp:.3}",
                name(&f),
                tx / tu,
                mbs(tx),
                mbs(tu)
            );
            continue;
        }
        let uperc = encode(
            &events,
            Options::new(Rule::Uper).with_compression(Compression::Bzip2),
        )
        .unwrap();
        if std::env::var("ONLY_DECODE").is_ok() {
            let t = best(300, || decode(&uper, Rule::Uper).unwrap().len());
            eprintln!("decode UPER best {t:.3} ms");
            continue;
        }
        let rx = best(n, || binxml_xml::parse_events(&utf8).unwrap().len());
        let ru = best(n, || decode(&uper, Rule::Uper).unwrap().len());
        let ra = best(n, || decode(&aper, Rule::Aper).unwrap().len());
        let wx = best(n, || binxml_xml::write_events(&events).unwrap().len());
        let wu = best(n, || {
            encode(&events, Options::new(Rule::Uper)).unwrap().len()
        });
        let ruc = best(n, || decode(&uperc, Rule::Uper).unwrap().len());
        let wuc = best(n, || {
            encode(
                &events,
                Options::new(Rule::Uper).with_compression(Compression::Bzip2),
            )
            .unwrap()
            .len()
        });
        let tx = best(n, || xml_tree(&utf8));
        let tu = best(n, || per_tree(&uper, Rule::Uper));
        println!(
            "{}\t{rx:.2}\t{ru:.2}\t{ra:.2}\t{wx:.2}\t{wu:.2}\t{ruc:.2}\t{wuc:.2}\t{:.2}\t{tx:.2}\t{tu:.2}\t{:.2}",
            name(&f),
            rx / ru,
            tx / tu
        );
    }
}
