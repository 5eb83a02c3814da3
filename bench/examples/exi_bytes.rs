//! A fingerprint of the EXI encoder's output, for checking that a change to the encoder keeps
//! its bytes: every corpus XML document written as EXI under a set of option sets, through the
//! three ways of feeding the encoder (`write_events`, `write_tape`, `write_event` one event at a
//! time), one line per output with its length and a hash of its bytes. Run it before and after
//! the change and compare the two listings (`diff`); any line that differs names the document,
//! the options and the entry point.
//!
//! ```text
//! cargo run --release -p binxml-bench --example exi_bytes > before.txt
//! ```

use std::hash::{DefaultHasher, Hasher};

use binxml::{EncodeOptions, Format};
use binxml_core::{Encoder, Event};

/// The option sets (`ExiOptions::parse_text`): the alignments, the fidelity options, bounded
/// value tables (eviction), whitespace dropping, fragments and self-contained elements.
const OPTION_SETS: &[&str] = &[
    "-",
    "byte-aligned",
    "pre-compression",
    "compression",
    "prefixes,comments,pis,dtd",
    "compression,prefixes,comments,pis,dtd,lexical-values",
    "value-max-length=8,value-partition-capacity=50",
    "value-partition-capacity=3",
    "drop-whitespace",
    "byte-aligned,prefixes,lexical-values",
    "fragment",
    "pre-compression,block-size=64",
    "self-contained=item|entry|p|row|record",
    "prefixes,self-contained=item|entry|p|row|record",
];

fn fingerprint(out: &[u8]) -> String {
    let mut h = DefaultHasher::new();
    h.write(out);
    format!("{} {:016x}", out.len(), h.finish())
}

fn main() {
    let mut files = binxml_testkit::corpus_xml_files();
    files.sort();
    for p in files {
        let raw = std::fs::read(&p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        let Ok(events) = binxml_xml::decode(&xml) else {
            continue;
        };
        let tape = binxml_core::Tape::from_events(&events);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        for set in OPTION_SETS {
            let exi = binxml::exi::ExiOptions::default()
                .parse_text(set)
                .expect("option set");
            let opts = EncodeOptions::default().with_exi(exi);
            let run = |how: &str| -> String {
                let mut out = Vec::new();
                let mut e = binxml::AnyEncoder::new(Format::Exi, &mut out, &opts);
                let r = match how {
                    "events" => e.write_events(&events),
                    "tape" => e.write_tape(&tape),
                    _ => events
                        .iter()
                        .try_for_each(|ev: &Event<'_>| e.write_event(ev)),
                };
                let r = r.and_then(|()| e.finish());
                drop(e);
                match r {
                    Ok(()) => fingerprint(&out),
                    Err(err) => format!("error {err}"),
                }
            };
            for how in ["events", "tape", "event"] {
                println!("{name}\t{set}\t{how}\t{}", run(how));
            }
        }
    }
}
