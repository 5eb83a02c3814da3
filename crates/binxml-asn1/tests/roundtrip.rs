//! XML -> ASN.1 -> XML on every corpus document, for UPER, APER and BER, with every feature off,
//! with every feature on, and with each compression of the strings block. All variants must
//! give byte-identical XML; that XML must be C14N-equal to the original (Python's C14N 2.0).

use binxml_asn1::{Compression, Options, Rule, decode, encode};
use binxml_testkit::{C14nOracle, corpus_xml_files, scratch_dir};

/// Every document: the three rules, with every feature off, and with every feature on plus a
/// compressed strings block.
fn base_configs() -> Vec<(String, Options)> {
    let mut v = vec![];
    for (rule, c) in [
        (Rule::Uper, Compression::Bzip2),
        (Rule::Aper, Compression::Deflate),
        (Rule::Ber, Compression::Zstd),
    ] {
        let n = rule.format();
        v.push((format!("{n}/plain"), Options::plain(rule)));
        v.push((
            format!("{n}/tables+{c:?}"),
            Options::new(rule).with_compression(c).unwrap(),
        ));
    }
    v
}

/// Documents up to 500 KB also: uncompressed tables, each feature alone, every compression.
fn extra_configs() -> Vec<(String, Options)> {
    let mut v = vec![];
    for rule in Rule::ALL {
        v.push((format!("{}/tables", rule.format()), Options::new(rule)));
    }
    let o = Options::plain(Rule::Uper).with_strings_table(true).unwrap();
    v.push(("asn1-uper/strings-table-only".into(), o));
    let o = Options::plain(Rule::Uper).with_names_table(true);
    v.push(("asn1-uper/names-table-only".into(), o));
    let o = Options::plain(Rule::Aper)
        .with_element_content_characters(true)
        .with_scoped_namespaces(true);
    v.push(("asn1-aper/ecc+scoped-only".into(), o));
    v.push(("asn1-uper/compact".into(), Options::compact(Rule::Uper)));
    v.push(("asn1-aper/compact".into(), Options::compact(Rule::Aper)));
    v.push((
        "asn1-uper/Zstd".into(),
        Options::new(Rule::Uper)
            .with_compression(Compression::Zstd)
            .unwrap(),
    ));
    v.push((
        "asn1-uper/Deflate".into(),
        Options::new(Rule::Uper)
            .with_compression(Compression::Deflate)
            .unwrap(),
    ));
    v
}

fn no_encoding(evs: Vec<binxml_core::Event<'_>>) -> Vec<binxml_core::Event<'_>> {
    evs.into_iter()
        .map(|e| match e {
            binxml_core::Event::StartDocument {
                version,
                standalone,
                ..
            } => binxml_core::Event::StartDocument {
                version,
                encoding: None,
                standalone,
            },
            e => e,
        })
        .collect()
}

#[test]
fn corpus_round_trips_are_c14n_equal() {
    let scratch = scratch_dir(&format!("asn1-roundtrip-{}", std::process::id()));
    let mut oracle = C14nOracle::start();
    let mut failures = vec![];
    let mut xml_codec_issues: Vec<String> = vec![];
    let base = base_configs();
    let extra = extra_configs();
    let files = corpus_xml_files();
    for path in &files {
        let raw = std::fs::read(path).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap();
        let events = match binxml_xml::decode(&utf8) {
            Ok(e) => e,
            Err(e) => panic!("{}: XML parse: {e}", path.display()),
        };
        let mut first: Option<Vec<u8>> = None;
        let configs: Vec<_> = if raw.len() <= 500 * 1024 {
            base.iter().chain(&extra).collect()
        } else {
            base.iter().collect()
        };
        for (name, opts) in configs {
            let bytes = match encode(&events, *opts) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} {name}: encode: {e}", path.display()));
                    continue;
                }
            };
            let back = match decode(&bytes, opts.rule) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} {name}: decode: {e}", path.display()));
                    continue;
                }
            };
            // The XML writer writes UTF-8: drop the declared encoding (kept by the codec) so that
            // the oracle reads the bytes as what they are.
            {
                // the fast path (PER's, BER's) and the generic value decoder give the same events
                let generic =
                    binxml_asn1::reference::decode_generic(&bytes, opts.rule, &Default::default())
                        .unwrap();
                if generic != back {
                    failures.push(format!(
                        "{} {name}: fast and generic {:?} decoders differ",
                        path.display(),
                        opts.rule
                    ));
                }
            }
            let back = no_encoding(back);
            let xml = binxml_xml::encode(&back).unwrap();
            match &first {
                None => first = Some(xml),
                Some(f) if *f != xml => failures.push(format!(
                    "{} {name}: XML differs from the first variant",
                    path.display()
                )),
                _ => {}
            }
        }
        if let Some(xml) = first {
            let out = scratch.join("out.xml");
            if let Err(e) = oracle.compare_bytes(path, &xml, &out) {
                // Is it binxml-xml's own round trip that fails (same XML from its own events)?
                let direct = binxml_xml::encode(&no_encoding(events.clone())).unwrap();
                if oracle.compare_bytes(path, &direct, &out).is_err() {
                    xml_codec_issues.push(format!("{}: {e:.160}", path.display()));
                } else {
                    failures.push(format!("{}: C14N differs: {e}", path.display()));
                }
            }
        }
    }
    if !xml_codec_issues.is_empty() {
        eprintln!(
            "binxml-xml's own XML -> XML round trip is not C14N-equal on these (not counted):"
        );
        for i in &xml_codec_issues {
            eprintln!("  {i}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{} documents round-tripped", files.len());
}
