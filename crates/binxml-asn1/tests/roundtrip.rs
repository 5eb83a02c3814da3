//! XML -> ASN.1 -> XML on every corpus document, for UPER, APER and BER, with every feature off,
//! with every feature on, and with each compression of the strings block. All variants must
//! give byte-identical XML; that XML must be C14N-equal to the original (Python's C14N 2.0).

use binxml_asn1::{decode, encode, Compression, Options, Rule};
use binxml_testkit::{corpus_xml_files, scratch_dir, C14nOracle};

fn configs() -> Vec<(String, Options)> {
    let mut v = vec![];
    for rule in Rule::ALL {
        let n = rule.format_name();
        v.push((format!("{n}/plain"), Options::plain(rule)));
        v.push((format!("{n}/tables"), Options::new(rule)));
        let mut o = Options::new(rule);
        o.names_table = false;
        o.scoped_namespaces = false;
        v.push((format!("{n}/strings-only"), o));
        let mut o = Options::plain(rule);
        o.names_table = true;
        o.element_content_characters = true;
        v.push((format!("{n}/names-only"), o));
    }
    for c in [Compression::Bzip2, Compression::Deflate, Compression::Zstd] {
        v.push((format!("asn1-uper/{c:?}"), Options::new(Rule::Uper).with_compression(c)));
    }
    v.push(("asn1-aper/Bzip2".into(), Options::new(Rule::Aper).with_compression(Compression::Bzip2)));
    v.push(("asn1-ber/Bzip2".into(), Options::new(Rule::Ber).with_compression(Compression::Bzip2)));
    v
}

#[test]
fn corpus_round_trips_are_c14n_equal() {
    let scratch = scratch_dir("asn1-roundtrip");
    let mut oracle = C14nOracle::start();
    let mut failures = vec![];
    let configs = configs();
    let files = corpus_xml_files();
    for path in &files {
        let raw = std::fs::read(path).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap();
        let events = match binxml_xml::parse_events(&utf8) {
            Ok(e) => e,
            Err(e) => panic!("{}: XML parse: {e}", path.display()),
        };
        let mut first: Option<Vec<u8>> = None;
        for (name, opts) in &configs {
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
            let back: Vec<_> = back
                .into_iter()
                .map(|e| match e {
                    binxml_core::Event::StartDocument { version, standalone, .. } => {
                        binxml_core::Event::StartDocument { version, encoding: None, standalone }
                    }
                    e => e,
                })
                .collect();
            let xml = binxml_xml::write_events(&back).unwrap();
            match &first {
                None => first = Some(xml),
                Some(f) if *f != xml => failures.push(format!("{} {name}: XML differs from the first variant", path.display())),
                _ => {}
            }
        }
        if let Some(xml) = first {
            let out = scratch.join("out.xml");
            if let Err(e) = oracle.compare_bytes(path, &xml, &out) {
                failures.push(format!("{}: C14N differs: {e}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{} documents x {} variants round-tripped", files.len(), configs.len());
}
