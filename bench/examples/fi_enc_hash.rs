//! Hashes the encoder's output for every corpus document under several option sets, to check
//! that a change to the encoder leaves its bytes alone: run it before and after and compare.
//! `cargo run --release -p binxml-bench --example fi_enc_hash > before.txt`
//!
//! Events come from the XML parser (and, for one set, re-borrowed from a decoded FI document,
//! whose strings are shared); each line is `option-set  file  length  hash`, the last line a
//! hash over all lines.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use binxml_core::{Encoder, Event};
use binxml_fi::{FiEncoder, FiOptions, VocabularyBuilder};

fn encode(ev: &[Event<'_>], opts: FiOptions) -> Vec<u8> {
    let mut enc = FiEncoder::with_options(Vec::new(), opts);
    for e in ev {
        if let Err(e) = enc.write_event(e) {
            return format!("error: {e}").into_bytes();
        }
    }
    if let Err(e) = enc.finish() {
        return format!("error: {e}").into_bytes();
    }
    enc.into_inner()
}

fn main() {
    let root = binxml_testkit::corpus_dir();
    let mut all = DefaultHasher::new();
    for path in binxml_testkit::corpus_xml_files() {
        let input = std::fs::read(&path).unwrap();
        let Ok(ev) = binxml_xml::decode(&input) else {
            continue;
        };
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let mut vb = VocabularyBuilder::new();
        vb.add_events(&ev);
        let vocab = Arc::new(vb.build());
        let sets: Vec<(&str, FiOptions)> = vec![
            ("default", FiOptions::default()),
            (
                "utf16-decl",
                FiOptions::default()
                    .with_utf16(true)
                    .with_xml_declaration(true),
            ),
            (
                "alphabets-nosplit",
                FiOptions::default()
                    .with_numeric_alphabet(true)
                    .with_date_time_alphabet(true)
                    .with_split_text(false)
                    .with_max_indexed_attribute_value(64)
                    .with_document_properties(true),
            ),
            (
                "noindex",
                FiOptions::default()
                    .with_max_indexed_attribute_value(0)
                    .with_max_indexed_chunk(0),
            ),
            (
                "external-vocab",
                FiOptions::default()
                    .with_external_vocabulary(Some(("urn:v".into(), vocab.clone())))
                    .with_max_indexed_chunk(7),
            ),
            (
                "initial-vocab",
                FiOptions::default().with_initial_vocabulary(Some(vocab.clone())),
            ),
        ];
        let mut default_out = Vec::new();
        for (name, opts) in sets {
            let out = encode(&ev, opts);
            let mut h = DefaultHasher::new();
            out.hash(&mut h);
            let line = format!("{name}\t{rel}\t{}\t{:016x}", out.len(), h.finish());
            line.hash(&mut all);
            println!("{line}");
            if name == "default" {
                default_out = out;
            }
        }
        // events decoded from the FI document (shared strings, and the decoder's own chunks)
        if let Ok(back) = binxml_core::collect_events(&mut binxml_fi::FiDecoder::new(&default_out))
        {
            let out = encode(&back, FiOptions::default());
            let mut h = DefaultHasher::new();
            out.hash(&mut h);
            let line = format!("from-fi\t{rel}\t{}\t{:016x}", out.len(), h.finish());
            line.hash(&mut all);
            println!("{line}");
        }
    }
    println!("all\t{:016x}", all.finish());
}
