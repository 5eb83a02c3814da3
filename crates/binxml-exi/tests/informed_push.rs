//! Schema-informed EXI: push decoding (`read_into`, which hands each event on where it is read
//! in the in-order layouts) and pull decoding (`next_event`, through the decoder's queue) give
//! the same events, for every instance of `tests/schemas/sets.tsv` under each alignment and
//! fidelity option, and the same events or the same error for damaged streams.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Event, Limits};
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_exi::{ExiOptions, Whitespace};
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::schema_sets;

/// Option sets (`ExiOptions::parse_text`): each alignment, strict, the fidelity options, lexical
/// values, and self-contained elements (SC may come in every start tag).
const MODES: &[&str] = &[
    "",
    "strict",
    "bytealigned",
    "precompression",
    "precompression,blocksize=50",
    "compression",
    "comments,pis,prefixes",
    "prefixes,bytealigned",
    "lexical",
    "selfcontained",
    "selfcontained,prefixes,bytealigned",
];

/// Instances larger than this are left out (debug builds; the smaller ones cover each set).
const MAX_INSTANCE: u64 = 300_000;

fn load(schema: &Path, catalog: Option<&Path>) -> Schema {
    let mut o = LoadOptions::default();
    if let Some(c) = catalog {
        let dir = c.parent().unwrap();
        for line in std::fs::read_to_string(c).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (url, file) = line.split_once('\t').unwrap();
            o = o.with_location(url, dir.join(file));
        }
    }
    Schema::load_with(schema, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// The events decoded, or the error and the events before it.
type Decoded = Result<Vec<Event<'static>>, (String, Vec<Event<'static>>)>;

fn encode(g: &Arc<SchemaGrammars>, events: &[Event<'_>], o: &ExiOptions) -> Option<Vec<u8>> {
    let mut e = SchemaEncoder::new(Vec::new(), Arc::clone(g), o.clone()).ok()?;
    e.write_events(events).ok()?;
    e.finish().ok()?;
    Some(e.into_inner())
}

fn pull(g: &Arc<SchemaGrammars>, exi: &[u8], o: &ExiOptions) -> Decoded {
    let mut d = SchemaDecoder::new(exi, Arc::clone(g), o.clone(), Limits::default());
    let mut out = Vec::new();
    loop {
        match d.next_event() {
            Ok(Some(e)) => out.push(e.into_owned()),
            Ok(None) => return Ok(out),
            Err(e) => return Err((e.to_string(), out)),
        }
    }
}

fn push(g: &Arc<SchemaGrammars>, exi: &[u8], o: &ExiOptions) -> Decoded {
    let mut d = SchemaDecoder::new(exi, Arc::clone(g), o.clone(), Limits::default());
    let mut out: Vec<Event<'_>> = Vec::new();
    let r = d.read_into(&mut out);
    let out: Vec<Event<'static>> = out.into_iter().map(Event::into_owned).collect();
    match r {
        Ok(()) => Ok(out),
        Err(e) => Err((e.to_string(), out)),
    }
}

#[test]
fn push_and_pull_decoding_agree() {
    let mut grammars: HashMap<PathBuf, Arc<SchemaGrammars>> = HashMap::new();
    let mut compared = 0;
    let mut damaged = 0;
    for entry in schema_sets() {
        if !entry.present() || !entry.expected_valid {
            continue;
        }
        let (Some(schema), Some(instance)) = (&entry.schema, &entry.instance) else {
            continue;
        };
        if std::fs::metadata(instance).map_or(true, |m| m.len() > MAX_INSTANCE) {
            continue;
        }
        let g = grammars
            .entry(schema.clone())
            .or_insert_with(|| {
                let s = load(schema, entry.catalog.as_deref());
                Arc::new(SchemaGrammars::new(Arc::new(s)).unwrap())
            })
            .clone();
        let xml = std::fs::read(instance).unwrap();
        let events = binxml_xml::decode(&xml).unwrap();
        for mode in MODES {
            let o = ExiOptions::default()
                .parse_text(mode)
                .unwrap()
                .with_whitespace(Whitespace::DropBetweenTags);
            let Some(exi) = encode(&g, &events, &o) else {
                continue;
            };
            let what = format!("{} [{mode}]", entry.listed);
            let p = pull(&g, &exi, &o).unwrap_or_else(|e| panic!("{what}: pull: {}", e.0));
            let q = push(&g, &exi, &o).unwrap_or_else(|e| panic!("{what}: push: {}", e.0));
            assert_eq!(p, q, "{what}: push and pull decoding differ");
            compared += 1;
            // Damaged streams: a byte changed at a few places past the header.
            let step = (exi.len() / 7).max(1);
            for at in (4..exi.len()).step_by(step) {
                let mut bad = exi.clone();
                bad[at] ^= 0x5a;
                let (p, q) = (pull(&g, &bad, &o), push(&g, &bad, &o));
                assert_eq!(
                    p, q,
                    "{what}, octet {at} changed: push and pull decoding differ"
                );
                damaged += 1;
            }
        }
    }
    assert!(compared >= 50, "only {compared} streams compared");
    assert!(damaged > 0);
}
