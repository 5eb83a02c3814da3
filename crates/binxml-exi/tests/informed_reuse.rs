//! Schema-informed EXI: one decoder reused for every instance of a schema test set
//! (`SchemaDecoder::reset`, `SchemaDecoder::recycle`) reads, stream after stream, exactly what a
//! new decoder reads: the same events, the same errors (and the events before them), including
//! after a stream that was damaged, failed, or was left part way, in each alignment and with
//! the fidelity options, and with tight limits that stay in force from stream to stream.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Event, Limits};
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_exi::{ExiOptions, Whitespace};
use binxml_schema::{LoadOptions, Schema};
use binxml_testkit::schema_sets;

/// Option sets (`ExiOptions::parse_text`): each alignment, strict, the fidelity options, lexical
/// values, bounded value tables, and self-contained elements.
const MODES: &[&str] = &[
    "",
    "strict",
    "bytealigned",
    "precompression,blocksize=50",
    "compression",
    "comments,pis,prefixes",
    "lexical",
    "value-max-length=8,value-partition-capacity=50",
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

fn pull(d: &mut SchemaDecoder<'_>) -> Decoded {
    let mut out = Vec::new();
    loop {
        match d.next_event() {
            Ok(Some(e)) => out.push(e.into_owned()),
            Ok(None) => return Ok(out),
            Err(e) => return Err((e.to_string(), out)),
        }
    }
}

fn push(d: &mut SchemaDecoder<'_>) -> Decoded {
    let mut out: Vec<Event<'_>> = Vec::new();
    let r = d.read_into(&mut out);
    let out: Vec<Event<'static>> = out.into_iter().map(Event::into_owned).collect();
    match r {
        Ok(()) => Ok(out),
        Err(e) => Err((e.to_string(), out)),
    }
}

/// A stream damaged: cut short and with one octet flipped, so that the decoder fails (or
/// reads something else) part way.
fn damaged(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes[..bytes.len() * 2 / 3].to_vec();
    if let Some(x) = b.get_mut(bytes.len() / 3) {
        *x ^= 0x5a;
    }
    b
}

/// The sets' instances, by schema: the grammars and each instance's events.
#[allow(clippy::type_complexity)]
fn sets() -> Vec<(Arc<SchemaGrammars>, Vec<(String, Vec<Event<'static>>)>)> {
    let mut by_schema: BTreeMap<(PathBuf, Option<PathBuf>), Vec<(String, Vec<Event<'static>>)>> =
        BTreeMap::new();
    for entry in schema_sets() {
        if !entry.present() {
            continue;
        }
        let (Some(schema), Some(instance)) = (&entry.schema, &entry.instance) else {
            continue;
        };
        if std::fs::metadata(instance).map_or(true, |m| m.len() > MAX_INSTANCE) {
            continue;
        }
        let xml = std::fs::read(instance).unwrap();
        let Ok(utf8) = binxml_xml::to_utf8(&xml) else {
            continue;
        };
        let Ok(events) = binxml_xml::decode(&utf8) else {
            continue;
        };
        let events = events.into_iter().map(Event::into_owned).collect();
        by_schema
            .entry((schema.clone(), entry.catalog.clone()))
            .or_default()
            .push((entry.listed.clone(), events));
    }
    by_schema
        .into_iter()
        .map(|((schema, catalog), docs)| {
            let s = load(&schema, catalog.as_deref());
            (Arc::new(SchemaGrammars::new(Arc::new(s)).unwrap()), docs)
        })
        .collect()
}

#[test]
fn reused_schema_decoder_reads_what_a_new_one_reads() {
    let sets = sets();
    assert!(sets.len() >= 5, "{} schemas", sets.len());
    // Default limits, then tight ones (shallow nesting, short strings, a small expansion
    // ratio) that some streams run into: a reused decoder fails where a new one does.
    let mut tight = Limits::default();
    tight.max_depth = 9;
    tight.max_string_len = 60;
    tight.max_expansion_ratio = 4;
    let (mut streams, mut errors) = (0, 0);
    for text in MODES {
        let o = ExiOptions::default()
            .parse_text(text)
            .unwrap()
            .with_whitespace(Whitespace::DropBetweenTags);
        for limits in [Limits::default(), tight.clone()] {
            for (g, docs) in &sets {
                // Each stream, then a damaged copy of it.
                let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
                for (name, events) in docs {
                    let Some(s) = encode(g, events, &o) else {
                        continue;
                    };
                    inputs.push((format!("{name} [{text}]"), damaged(&s)));
                    inputs.push((format!("{name} [{text}]"), s));
                }
                fn fresh<'a>(
                    input: &'a [u8],
                    g: &Arc<SchemaGrammars>,
                    o: &ExiOptions,
                    limits: &Limits,
                ) -> SchemaDecoder<'a> {
                    SchemaDecoder::new(input, Arc::clone(g), o.clone(), limits.clone())
                }
                let new = |input| fresh(input, g, &o, &limits);
                let mut reset = new(&[]);
                let mut pushed = new(&[]);
                let mut kept: SchemaDecoder<'static> = fresh(&[], g, &o, &limits);
                for (i, (name, input)) in inputs.iter().enumerate() {
                    let want = pull(&mut new(input));
                    errors += usize::from(want.is_err());
                    streams += 1;
                    reset.reset(input);
                    assert_eq!(pull(&mut reset), want, "{name}: reset, pull");

                    let want_push = push(&mut new(input));
                    pushed.reset(input);
                    assert_eq!(push(&mut pushed), want_push, "{name}: reset, push");

                    let local = input.clone();
                    let mut d = kept.recycle(&local);
                    assert_eq!(push(&mut d), want_push, "{name}: recycle, push");
                    // Left part way, every few streams: the next one starts from there.
                    d.reset(&local);
                    for _ in 0..(i * 7) % 40 {
                        let _ = d.next_event();
                    }
                    kept = d.recycle(&[]);
                }
            }
        }
    }
    assert!(streams > 500, "{streams} streams checked");
    assert!(errors > 100, "{errors} errors checked");
}
