//! XML through TSF: the corpus round trip (C14N oracle), the paper's nine reference files, and
//! JSON through TSF.

use std::path::{Path, PathBuf};

use binxml_core::{Decoder, Event, collect_events, transcode};
use binxml_testkit::{
    C14nOracle, CorpusKind, corpus_kind, corpus_xml_files, read_corpus_file, scratch_dir,
    shared_corpus_file,
};
use binxml_tsf::{Tam, TsfDecoder, TsfEncoder, TsfOptions};
use binxml_xml::{XmlDecoder, XmlWriter, to_utf8};

fn xml_to_tsf(xml: &[u8]) -> Vec<u8> {
    let utf8 = to_utf8(xml).unwrap();
    let mut dec = XmlDecoder::new(&utf8);
    let mut enc = TsfEncoder::new(Vec::new());
    transcode(&mut dec, &mut enc).unwrap();
    enc.into_inner()
}

fn events_to_xml<'a>(dec: &mut dyn Decoder<'a>) -> Vec<u8> {
    let mut w = XmlWriter::new(Vec::new());
    transcode(dec, &mut w).unwrap();
    w.into_inner().unwrap()
}

#[test]
fn corpus_roundtrip_c14n() {
    let files = corpus_xml_files();
    let scratch = scratch_dir("binxml-tsf-corpus");
    let mut oracle = C14nOracle::start();
    let mut failures = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let xml = std::fs::read(f).unwrap();
        let tsf = xml_to_tsf(&xml);
        // Streaming decoder and TAM give the same events.
        let streamed = collect_events(&mut TsfDecoder::new(&tsf))
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let tam = Tam::parse(&tsf).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let from_tam = collect_events(&mut tam.events()).unwrap();
        assert_eq!(streamed, from_tam, "{}", f.display());
        let out = events_to_xml(&mut TsfDecoder::new(&tsf));
        let cand = scratch.join(format!("{i}.xml"));
        if let Err(d) = oracle.compare_bytes(f, &out, &cand) {
            failures.push(format!("{}: {d}", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// The nine files of the TSF paper beside the `.tsf` its author's converter made: only the shared
/// corpus has them (`None`, reported as skipped, on the small one).
fn paper_files() -> Option<Vec<(PathBuf, PathBuf)>> {
    let dir = shared_corpus_file("tsf_paper")?;
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsf"))
        .map(|t| {
            let stem = t.file_stem().unwrap().to_str().unwrap().to_string();
            let xml = if stem == "British_Royal_Family_Tree" {
                dir.join(format!("{stem}.xhtml"))
            } else {
                dir.join(format!("{stem}.xml"))
            };
            (xml, t)
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 9, "the reference files in {}", dir.display());
    Some(v)
}

/// The infoset for comparison: top-level whitespace, the XML declaration and the DTD-derived
/// notation/entity events dropped, adjacent character data merged (CDATA or not), attributes
/// and namespace declarations of each start tag sorted.
fn normalize(events: Vec<Event<'static>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut text = String::new();
    let mut tag: Vec<String> = Vec::new();
    let flush_tag = |tag: &mut Vec<String>, out: &mut Vec<String>| {
        tag.sort();
        out.append(tag);
    };
    for ev in events {
        if !matches!(ev, Event::Characters { .. }) && !text.is_empty() {
            flush_tag(&mut tag, &mut out);
            out.push(format!("text {text:?}"));
            text.clear();
        }
        match ev {
            Event::StartDocument { .. } | Event::Notation { .. } | Event::UnparsedEntity { .. } => {
            }
            Event::Characters { text: t, .. } => {
                if depth > 0 {
                    text.push_str(&t);
                }
            }
            Event::Attribute { name, value } => tag.push(format!("attr {name} {value:?}")),
            Event::Namespace { prefix, uri } => tag.push(format!("ns {prefix} {uri}")),
            Event::StartElement(q) => {
                flush_tag(&mut tag, &mut out);
                depth += 1;
                out.push(format!("start {q}"));
            }
            Event::EndElement => {
                flush_tag(&mut tag, &mut out);
                depth -= 1;
                out.push("end".into());
            }
            Event::DocType(d) => out.push(format!(
                "doctype {} {:?} {:?}",
                d.name, d.public_id, d.system_id
            )),
            other => {
                flush_tag(&mut tag, &mut out);
                out.push(other.to_string());
            }
        }
    }
    out
}

#[test]
fn paper_reference_files_decode_to_the_xml_infoset() {
    let Some(files) = paper_files() else { return };
    for (xml, tsf) in files {
        let xml_bytes = std::fs::read(&xml).unwrap();
        let tsf_bytes = std::fs::read(&tsf).unwrap();
        let want = normalize(binxml_xml::decode(&xml_bytes).unwrap());
        let got = collect_events(&mut TsfDecoder::with_options(
            &tsf_bytes,
            TsfOptions::reference(),
        ))
        .unwrap_or_else(|e| panic!("{}: {e}", tsf.display()));
        let got = normalize(got.into_iter().map(|e| e.into_owned()).collect());
        if got != want {
            let i = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            panic!(
                "{}: event {i} differs:\n tsf: {:?}\n xml: {:?}",
                tsf.display(),
                &got[i..(i + 3).min(got.len())],
                &want[i..(i + 3).min(want.len())]
            );
        }
        // The TAM reads them too, to the same events.
        let tam = Tam::parse_with(&tsf_bytes, TsfOptions::reference()).unwrap();
        assert!(tam.root().is_some());
        let streamed = collect_events(&mut TsfDecoder::with_options(
            &tsf_bytes,
            TsfOptions::reference(),
        ))
        .unwrap();
        assert_eq!(
            collect_events(&mut tam.events()).unwrap(),
            streamed,
            "{}",
            tsf.display()
        );
    }
}

#[test]
fn our_tsf_of_the_nine_is_no_larger_than_the_reference() {
    let Some(files) = paper_files() else { return };
    let mut report = String::new();
    for (xml, tsf) in files {
        let ours = xml_to_tsf(&std::fs::read(&xml).unwrap());
        let theirs = std::fs::metadata(&tsf).unwrap().len() as usize;
        report.push_str(&format!(
            "{}: ours {} reference {}\n",
            name(&xml),
            ours.len(),
            theirs
        ));
        assert!(ours.len() <= theirs, "{report}");
        // And it decodes (UTF-8 lengths) to the XML's infoset.
        let want = normalize(binxml_xml::decode(&std::fs::read(&xml).unwrap()).unwrap());
        let got = normalize(binxml_tsf::decode(&ours).unwrap());
        assert_eq!(got, want, "{}", xml.display());
    }
    eprintln!("{report}");
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn json_bench_through_tsf_value_for_value() {
    let mut pairs = Vec::new();
    for f in binxml_testkit::corpus_json_files("bench") {
        let data = std::fs::read(&f).unwrap();
        let mut dec = binxml_json::JsonDecoder::new(&data);
        let mut enc = TsfEncoder::new(Vec::new());
        transcode(&mut dec, &mut enc).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let tsf = enc.into_inner();
        // Streaming and TAM agree.
        let streamed = collect_events(&mut TsfDecoder::new(&tsf)).unwrap();
        let tam = Tam::parse(&tsf).unwrap();
        assert!(tam.is_json());
        assert_eq!(streamed, collect_events(&mut tam.events()).unwrap());
        // And the events are the JSON reader's, exactly.
        assert_eq!(
            streamed,
            binxml_json::decode(&data).unwrap(),
            "{}",
            f.display()
        );
        let mut back = binxml_json::JsonEncoder::new(Vec::new());
        transcode(&mut TsfDecoder::new(&tsf), &mut back).unwrap();
        let json = back.into_inner();
        // TSF -> XML (section 3.2 export) -> events -> JSON as well.
        let xml = events_to_xml(&mut TsfDecoder::new(&tsf));
        let xml_events = binxml_xml::decode(&xml).unwrap();
        let json_via_xml =
            binxml_json::encode(&xml_events).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(json, json_via_xml, "{}", f.display());
        pairs.push((f.display().to_string(), data, json));
    }
    assert_eq!(pairs.len(), 9);
    binxml_testkit::python_json_equal(&pairs, "binxml-tsf-json-values");
}

#[test]
fn json_conformance_y_files_through_tsf() {
    let mut n = 0;
    for f in binxml_testkit::corpus_json_files("conformance") {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("y_") {
            continue;
        }
        let data = std::fs::read(&f).unwrap();
        let events = binxml_json::decode(&data).unwrap();
        let tsf = binxml_tsf::encode(&events).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = binxml_tsf::decode(&tsf)
            .unwrap_or_else(|e| panic!("{name}: {e} in {:?}", String::from_utf8_lossy(&tsf)));
        assert_eq!(back, events, "{name}");
        let tam = Tam::parse(&tsf).unwrap();
        assert_eq!(collect_events(&mut tam.events()).unwrap(), events, "{name}");
        n += 1;
    }
    assert_eq!(n, binxml_testkit::expected(95, 48));
}

#[test]
fn mutated_real_documents_never_panic() {
    let (xml, json) = match corpus_kind() {
        CorpusKind::Shared => ("tsf_paper/future001.xml", "json/bench/github_events.json"),
        CorpusKind::Small => ("gen/random_20.xml", "json/bench/events.json"),
    };
    let xml = read_corpus_file(xml);
    let mut seeds = vec![xml_to_tsf(&xml)];
    let json = read_corpus_file(json);
    let mut enc = TsfEncoder::new(Vec::new());
    transcode(&mut binxml_json::JsonDecoder::new(&json), &mut enc).unwrap();
    seeds.push(enc.into_inner());
    let mut rng = 0x9E3779B97F4A7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let alphabet = b"0123456789<=[]!+?&{'#~\"\\ax\xc3\xa9";
    for seed in &seeds {
        for round in 0..300 {
            let mut m = seed.clone();
            if round % 3 == 0 {
                m.truncate((next() as usize) % m.len());
            } else {
                for _ in 0..1 + next() % 4 {
                    let i = (next() as usize) % m.len();
                    m[i] = alphabet[(next() as usize) % alphabet.len()];
                }
            }
            let a = collect_events(&mut TsfDecoder::new(&m)).map(|v| v.len());
            let b = Tam::parse(&m).and_then(|t| collect_events(&mut t.events()).map(|v| v.len()));
            // The tree and the stream agree on what is valid.
            match (&a, &b) {
                (Ok(x), Ok(y)) => assert_eq!(x, y),
                (Err(e), Err(f)) => {
                    assert!(e.offset().is_some() && f.offset().is_some(), "{e} / {f}")
                }
                _ => panic!("stream {a:?} but tree {b:?}"),
            }
            let _ = collect_events(&mut TsfDecoder::with_options(&m, TsfOptions::reference()));
        }
    }
}

#[test]
fn detection_hints() {
    assert!(binxml_tsf::detect(b"0project<"));
    assert!(binxml_tsf::detect(b"5=9?peri rset"));
    assert!(binxml_tsf::detect(b"25specification<1[\n"));
    assert!(binxml_tsf::detect(b"2{4a[1#1"));
    assert!(binxml_tsf::detect(b"2#42"));
    assert!(binxml_tsf::detect(b"4~true"));
    assert!(!binxml_tsf::detect(b"<?xml version='1.0'?><a/>"));
    assert!(!binxml_tsf::detect(b"{\"a\":1}"));
    assert!(!binxml_tsf::detect(b"12345"));
    assert!(!binxml_tsf::detect(b"12.5"));
    for (xml, tsf) in paper_files().unwrap_or_default() {
        let _ = xml;
        assert!(binxml_tsf::detect(&std::fs::read(tsf).unwrap()[..64]));
    }
}

#[test]
fn reference_converter_compatible_output() {
    // With UTF-16 lengths and sorted attributes our encoder writes the reference converter's
    // files byte for byte (the British royals' doctype aside: the converter rewrote its internal
    // subset).
    let opts = binxml_tsf::TsfEncoderOptions::reference();
    let Some(files) = paper_files() else { return };
    for (xml, tsf) in files {
        let data = std::fs::read(&xml).unwrap();
        let utf8 = to_utf8(&data).unwrap();
        let mut enc = TsfEncoder::with_options(Vec::new(), opts.clone());
        transcode(&mut XmlDecoder::new(&utf8), &mut enc).unwrap();
        let ours = enc.into_inner();
        let theirs = std::fs::read(&tsf).unwrap();
        if name(&xml).starts_with("British") {
            let cut = |b: &[u8]| b.windows(6).position(|w| w == b"5html<").unwrap();
            assert_eq!(
                &ours[cut(&ours)..],
                &theirs[cut(&theirs)..],
                "{}",
                xml.display()
            );
        } else if ours != theirs {
            let i = ours
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(theirs.len()));
            panic!(
                "{}: differs at byte {i}: ours {:?} reference {:?}",
                xml.display(),
                String::from_utf8_lossy(&ours[i.saturating_sub(40)..(i + 40).min(ours.len())]),
                String::from_utf8_lossy(&theirs[i.saturating_sub(40)..(i + 40).min(theirs.len())])
            );
        }
        // And they read back with the UTF-16 option.
        let back = collect_events(&mut TsfDecoder::with_options(
            &ours,
            TsfOptions::reference(),
        ))
        .unwrap();
        assert!(back.len() > 10);
    }
}
