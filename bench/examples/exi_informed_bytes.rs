//! A fingerprint of schema-informed EXI, for checking that a change to the informed encoder or
//! decoder keeps its output: every instance of the schema test sets (`tests/schemas/sets.tsv`)
//! written with its schema under a set of option sets, through the encoder's three entry
//! points (`write_events`, `write_tape`, `write_event` one event at a time), one line per
//! output with its length and a hash of its bytes; then the `write_events` stream decoded
//! again, by push (`read_into`) and by pull (`next_event`), a hash of the events' debug text.
//! Run it before and after the change and compare the two listings (`diff`).
//!
//! ```text
//! cargo run --release -p binxml-bench --example exi_informed_bytes > before.txt
//! ```

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use binxml::exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml::exi::{Alignment, ExiOptions};
use binxml::schema::{LoadOptions, Schema};
use binxml_core::{Decoder, Encoder, Event, EventSink, Limits};

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

fn modes() -> Vec<(&'static str, ExiOptions)> {
    let d = ExiOptions::default;
    vec![
        ("-", d()),
        ("strict", d().with_strict(true)),
        ("byte-aligned", d().with_alignment(Alignment::ByteAligned)),
        (
            "pre-compression",
            d().with_alignment(Alignment::PreCompression),
        ),
        (
            "pre-compression,block-size=50",
            d().with_alignment(Alignment::PreCompression)
                .with_block_size(50),
        ),
        ("compression", d().with_alignment(Alignment::Compression)),
        ("comments,pis", d().with_comments(true).with_pis(true)),
        (
            "strict,byte-aligned",
            d().with_strict(true).with_alignment(Alignment::ByteAligned),
        ),
        ("lexical", d().with_lexical_values(true)),
        (
            "lexical,strict",
            d().with_lexical_values(true).with_strict(true),
        ),
        ("prefixes", d().with_prefixes(true)),
        (
            "drop-whitespace",
            d().parse_text("drop-whitespace").expect("options"),
        ),
        (
            "value-partition-capacity=3",
            d().parse_text("value-partition-capacity=3")
                .expect("options"),
        ),
        (
            "value-max-length=8",
            d().parse_text("value-max-length=8").expect("options"),
        ),
    ]
}

fn fingerprint(out: &[u8]) -> String {
    let mut h = DefaultHasher::new();
    h.write(out);
    format!("{} {:016x}", out.len(), h.finish())
}

/// Hashes every event it is handed (their debug text).
struct Hashing(DefaultHasher, usize);

impl<'a> EventSink<'a> for Hashing {
    fn event(&mut self, event: Event<'a>) -> binxml_core::Result<()> {
        self.0.write(format!("{event:?}").as_bytes());
        self.1 += 1;
        Ok(())
    }
}

fn main() {
    let mut grammars: HashMap<PathBuf, Arc<SchemaGrammars>> = HashMap::new();
    let modes = modes();
    for row in binxml_testkit::schema_sets() {
        let (Some(schema), Some(instance)) = (&row.schema, &row.instance) else {
            continue;
        };
        let g = grammars
            .entry(schema.clone())
            .or_insert_with(|| {
                Arc::new(
                    SchemaGrammars::new(Arc::new(load(schema, row.catalog.as_deref())))
                        .expect("grammars"),
                )
            })
            .clone();
        let raw = std::fs::read(instance).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let Ok(events) = binxml_xml::decode(&xml) else {
            continue;
        };
        let tape = binxml_core::Tape::from_events(&events);
        for (set, o) in &modes {
            let name = format!("{}\t{}\t{set}", row.set, row.listed);
            let mut first = None;
            for how in ["events", "tape", "event"] {
                let r =
                    SchemaEncoder::new(Vec::new(), Arc::clone(&g), o.clone()).and_then(|mut e| {
                        match how {
                            "events" => e.write_events(&events),
                            "tape" => e.write_tape(&tape),
                            _ => events
                                .iter()
                                .try_for_each(|ev: &Event<'_>| e.write_event(ev)),
                        }?;
                        e.finish()?;
                        Ok(e.into_inner())
                    });
                match r {
                    Ok(out) => {
                        println!("{name}\t{how}\t{}", fingerprint(&out));
                        if first.is_none() {
                            first = Some(out);
                        }
                    }
                    Err(err) => println!("{name}\t{how}\terror {err}"),
                }
            }
            let Some(out) = first else { continue };
            let mut push = Hashing(DefaultHasher::new(), 0);
            let mut d = SchemaDecoder::new(&out, Arc::clone(&g), o.clone(), Limits::default());
            let r = d.read_into(&mut push);
            println!(
                "{name}\tpush\t{:?} {} {:016x}",
                r.err().map(|e| e.to_string()),
                push.1,
                push.0.finish()
            );
            let mut pull = Hashing(DefaultHasher::new(), 0);
            let mut d = SchemaDecoder::new(&out, Arc::clone(&g), o.clone(), Limits::default());
            let r = loop {
                match d.next_event() {
                    Ok(Some(ev)) => pull.event(ev).unwrap(),
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            println!(
                "{name}\tpull\t{:?} {} {:016x}",
                r.err().map(|e| e.to_string()),
                pull.1,
                pull.0.finish()
            );
        }
    }
}
