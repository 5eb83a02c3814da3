//! One profiling harness for every format: times one or more operations of one or more formats
//! over XML documents, round robin as the bench harness runs them (each document repeated to
//! about 64 KB of XML per pass, a document's time its best over the passes), and prints MB/s of
//! XML and each format's time over the first format's. Built for the codec author's questions
//! between two full bench runs ("is FI push decoding still 3x XML?", "where does the tree's
//! time go?"); `scripts/bench` is the reference measurement.
//!
//! ```text
//! cargo run --release -p binxml-bench --example profile -- [OPTIONS] [FILE | SUBSTRING]...
//!   --formats xml,fi,asn1-uper   formats (binxml's names; default xml,fi,asn1-uper)
//!   --ops push,tree              operations (default push,tree), of:
//!       pull      every event pulled from the format's decoder in batches
//!                 (`Decoder::next_batch` into one reused vector), looked at and dropped
//!       lent      every event pulled in batches into one reused `LentBatch`
//!                 (`Decoder::next_lent`), each event built from it, looked at and dropped
//!       view      every event pulled in batches into one reused `LentBatch`, read as
//!                 `LentEvent`s (`LentBatch::views`: kind and string slices), looked at
//!       next      every event pulled one at a time (`Decoder::next_event`) and dropped
//!       push      push decoding into a counting sink (`AnyDecoder::read_into`)
//!       push-direct  EXI only: push decoding by the codec's own loop (`ExiDecoder::read_into`,
//!                 with --schema `SchemaDecoder::read_into`, on a new decoder for each
//!                 document, as `push` but without `AnyDecoder`)
//!       push-reuse   EXI only: `push-direct` by one decoder for every document and
//!                 repetition (`ExiDecoder::recycle`, with --schema `SchemaDecoder::recycle`),
//!                 as the bench's EXIficient rows
//!       tree      the tree (`binxml::parse_tree`)
//!       tree-in   the tree with a string arena (`binxml::parse_tree_in`, as the Python
//!                 package builds it): what EXI's transient strings are copied into
//!       encode    the document's events (parsed from the XML once) written by the encoder
//!       tape      the same events recorded on a `Tape`, written by one `write_tape` call (as
//!                 the bench's encoding stage does)
//!       tape-reuse   EXI only: `tape` by one `ExiEncoder` for every document and repetition
//!                 (`ExiEncoder::reset`), as the bench's EXIficient rows
//!       build     the tree built from those events (the builder's own cost; format ignored)
//!       quick-xml raw quick-xml events over the XML text (a peer; format ignored)
//!       roxmltree a roxmltree tree of the XML text (a peer; format ignored)
//!       quick-xml-full  quick-xml's NsReader: namespaces resolved, attributes and text
//!                 unescaped (the bench's peer; format ignored)
//!       quick-xml-write quick-xml's Writer over its own events of the document (the bench's
//!                 writer peer, beside `tape`; format ignored)
//!   --exi OPTIONS                EXI's options for every operation (`ExiOptions::parse_text`:
//!                                e.g. `compression`, `drop-whitespace`; default EXI's defaults)
//!   --schema XSD                 schema-informed EXI: the `exi` format with the grammars of
//!                                this schema (built once, before timing)
//!   --catalog TSV                before --schema: web schemaLocations mapped to files (lines
//!                                `URL<TAB>FILE`, FILE relative to the catalog's folder)
//!   --passes N                   passes over the documents (default 5)
//!   (environment BINXML_READ set: the pull, view consumers also sum the lengths of each
//!   event's strings, as the push operation's counting sink does)
//!   (environment BINXML_BATCH=N: `pull` runs `read_into` into batches of N, for the formats
//!   whose push loop pauses, instead of `next_batch`'s size)
//!   --once                       each document once per pass (no repetition to 64 KB)
//!   --verbose                    a line per document
//! ```
//!
//! Documents: the files named, or the corpus's XML documents whose path holds one of the
//! substrings given (all of them with none).
//!
//! For instruction counts on a loaded machine (stable where times are not), run one format and
//! one operation under callgrind, where the work is all in `run_subject`:
//! `valgrind --tool=callgrind --toggle-collect='*run_subject*' target/release/examples/profile
//! --formats fi --ops push --passes 1 --once FILE`.

use std::time::Instant;

use binxml::{DecodeOptions, EncodeOptions, Format};
use binxml_core::{CountingSink, Decoder, Encoder, Event};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Pull,
    Lent,
    View,
    Next,
    Push,
    PushDirect,
    PushReuse,
    Tree,
    TreeIn,
    Encode,
    Tape,
    TapeReuse,
    Build,
    QuickXml,
    QuickXmlFull,
    QuickXmlWrite,
    Roxmltree,
}

impl Op {
    fn parse(s: &str) -> Op {
        match s {
            "pull" => Op::Pull,
            "lent" => Op::Lent,
            "view" => Op::View,
            "next" => Op::Next,
            "push" => Op::Push,
            "push-direct" => Op::PushDirect,
            "push-reuse" => Op::PushReuse,
            "tree" => Op::Tree,
            "tree-in" => Op::TreeIn,
            "encode" => Op::Encode,
            "tape" => Op::Tape,
            "tape-reuse" => Op::TapeReuse,
            "build" => Op::Build,
            "quick-xml" => Op::QuickXml,
            "quick-xml-full" => Op::QuickXmlFull,
            "quick-xml-write" => Op::QuickXmlWrite,
            "roxmltree" => Op::Roxmltree,
            _ => panic!("unknown operation {s:?} (see the example's documentation)"),
        }
    }

    /// Operations that do not depend on the format run once, under the first format.
    fn format_free(self) -> bool {
        matches!(
            self,
            Op::Build | Op::QuickXml | Op::QuickXmlFull | Op::QuickXmlWrite | Op::Roxmltree
        )
    }

    fn name(self) -> &'static str {
        match self {
            Op::Pull => "pull",
            Op::Lent => "lent",
            Op::View => "view",
            Op::Next => "next",
            Op::Push => "push",
            Op::PushDirect => "push-direct",
            Op::PushReuse => "push-reuse",
            Op::Tree => "tree",
            Op::TreeIn => "tree-in",
            Op::Encode => "encode",
            Op::Tape => "tape",
            Op::TapeReuse => "tape-reuse",
            Op::Build => "build",
            Op::QuickXml => "quick-xml",
            Op::QuickXmlFull => "quick-xml-full",
            Op::QuickXmlWrite => "quick-xml-write",
            Op::Roxmltree => "roxmltree",
        }
    }
}

/// One document: its XML (UTF-8), its encoding in each format, and its events.
struct Doc<'x> {
    name: String,
    xml: &'x [u8],
    encoded: Vec<Vec<u8>>,
    events: Vec<Event<'x>>,
    tape: binxml_core::Tape<'x>,
    /// quick-xml's own events of the document, for its writer.
    qx: Vec<quick_xml::events::Event<'x>>,
    reps: u32,
}

/// The EXI decoder and encoder the `-reuse` operations keep for the whole run.
struct Reuse {
    exi: binxml::exi::ExiOptions,
    /// --schema's grammars: the `push-` operations decode schema-informed.
    grammars: Option<std::sync::Arc<binxml::exi::informed::SchemaGrammars>>,
    informed: Option<binxml::exi::informed::SchemaDecoder<'static>>,
    dec: Option<binxml::exi::ExiDecoder<'static>>,
    enc: Option<binxml::exi::ExiEncoder<Vec<u8>>>,
}

/// Runs one operation on one document `reps` times; returns a count so that nothing is
/// optimised away. Kept out of line so that a profiler can isolate it.
#[inline(never)]
fn run_subject(
    f: Format,
    op: Op,
    doc: &Doc<'_>,
    bytes: &[u8],
    out: &mut Vec<u8>,
    (dopts, eopts): (&DecodeOptions, &EncodeOptions),
    reuse: &mut Reuse,
) -> usize {
    if matches!(op, Op::PushDirect | Op::PushReuse | Op::TapeReuse) {
        assert_eq!(f, Format::Exi, "{} is an EXI operation", op.name());
    }
    let mut n = 0;
    // one batch vector for all the repetitions, as a consumer keeps one
    let mut batch = Vec::new();
    let mut lent = binxml_core::LentBatch::new();
    let read = std::env::var_os("BINXML_READ").is_some();
    let batch_size = std::env::var("BINXML_BATCH")
        .ok()
        .and_then(|s| s.parse::<usize>().ok());
    for _ in 0..doc.reps {
        n += match op {
            Op::Pull => {
                let mut d = binxml::AnyDecoder::new(f, bytes, dopts).unwrap();
                let mut k = 0;
                loop {
                    batch.clear();
                    let got = match batch_size {
                        // a batch size of one's own (formats whose push loop pauses only)
                        Some(size) => {
                            d.read_into(&mut binxml_core::BatchSink::new(&mut batch, size))
                                .unwrap();
                            batch.len()
                        }
                        None => d.next_batch(&mut batch).unwrap(),
                    };
                    if got == 0 {
                        break;
                    }
                    for e in &batch {
                        std::hint::black_box(e);
                        if read {
                            k += event_bytes(e);
                        }
                        k += 1;
                    }
                }
                k
            }
            Op::Lent => {
                let mut d = binxml::AnyDecoder::new(f, bytes, dopts).unwrap();
                let mut k = 0;
                while d.next_lent(&mut lent).unwrap() > 0 {
                    for e in lent.iter() {
                        std::hint::black_box(&e);
                        k += 1;
                    }
                }
                k
            }
            Op::View => {
                let mut d = binxml::AnyDecoder::new(f, bytes, dopts).unwrap();
                let mut k = 0;
                while d.next_lent(&mut lent).unwrap() > 0 {
                    for e in lent.views() {
                        std::hint::black_box(&e);
                        if read {
                            k += e.prefix().len()
                                + e.namespace().len()
                                + e.local().len()
                                + e.value().len()
                                + e.text().len();
                        }
                        k += 1;
                    }
                }
                k
            }
            Op::Next => {
                let mut d = binxml::AnyDecoder::new(f, bytes, dopts).unwrap();
                let mut k = 0;
                while let Some(e) = d.next_event().unwrap() {
                    std::hint::black_box(&e);
                    k += 1;
                }
                k
            }
            Op::Push => {
                let mut sink = CountingSink::default();
                binxml::AnyDecoder::new(f, bytes, dopts)
                    .and_then(|mut d| d.read_into(&mut sink))
                    .unwrap();
                sink.events as usize
            }
            Op::PushDirect if reuse.grammars.is_some() => {
                let mut sink = CountingSink::default();
                let g = reuse.grammars.clone().unwrap();
                let mut d = binxml::exi::informed::SchemaDecoder::new(
                    bytes,
                    g,
                    reuse.exi.clone(),
                    Default::default(),
                );
                d.read_into(&mut sink).unwrap();
                sink.events as usize
            }
            Op::PushReuse if reuse.grammars.is_some() => {
                let mut sink = CountingSink::default();
                let kept = reuse.informed.take().unwrap_or_else(|| {
                    binxml::exi::informed::SchemaDecoder::new(
                        &[],
                        reuse.grammars.clone().unwrap(),
                        reuse.exi.clone(),
                        Default::default(),
                    )
                });
                let mut d = kept.recycle(bytes);
                d.read_into(&mut sink).unwrap();
                reuse.informed = Some(d.recycle(&[]));
                sink.events as usize
            }
            Op::PushDirect => {
                let mut sink = CountingSink::default();
                let mut d = binxml::exi::ExiDecoder::with_options(
                    bytes,
                    reuse.exi.clone(),
                    Default::default(),
                );
                d.read_into(&mut sink).unwrap();
                sink.events as usize
            }
            Op::PushReuse => {
                let mut sink = CountingSink::default();
                let kept = reuse.dec.take().unwrap_or_else(|| {
                    binxml::exi::ExiDecoder::with_options(
                        &[],
                        reuse.exi.clone(),
                        Default::default(),
                    )
                });
                let mut d = kept.recycle(bytes);
                d.read_into(&mut sink).unwrap();
                reuse.dec = Some(d.recycle(&[]));
                sink.events as usize
            }
            Op::TapeReuse => {
                let e = reuse.enc.get_or_insert_with(|| {
                    binxml::exi::ExiEncoder::with_options(
                        Vec::with_capacity(1 << 20),
                        reuse.exi.clone(),
                    )
                    .unwrap()
                });
                e.reset();
                e.get_mut().clear();
                e.write_tape(&doc.tape).unwrap();
                e.finish().unwrap();
                e.get_ref().len()
            }
            Op::Tree => binxml::parse_tree_with(f, bytes, dopts).unwrap().len(),
            Op::TreeIn => {
                let strings = binxml::tree::Strings::new();
                binxml::parse_tree_in(f, bytes, dopts, &strings)
                    .unwrap()
                    .len()
            }
            Op::Encode => {
                out.clear();
                let mut e = binxml::AnyEncoder::new(f, &mut *out, eopts);
                e.write_events(&doc.events).unwrap();
                e.finish().unwrap();
                drop(e);
                out.len()
            }
            Op::Tape => {
                out.clear();
                let mut e = binxml::AnyEncoder::new(f, &mut *out, eopts);
                e.write_tape(&doc.tape).unwrap();
                e.finish().unwrap();
                drop(e);
                out.len()
            }
            Op::Build => {
                let mut r = binxml_core::Replay::new(&doc.events);
                binxml_tree::Document::parse(&mut r, doc.xml.len())
                    .unwrap()
                    .len()
            }
            Op::QuickXml => {
                let mut r = quick_xml::Reader::from_reader(doc.xml);
                let mut k = 0;
                while !matches!(r.read_event().unwrap(), quick_xml::events::Event::Eof) {
                    k += 1;
                }
                k
            }
            Op::QuickXmlFull => quick_xml_full(doc.xml),
            Op::QuickXmlWrite => {
                out.clear();
                let mut w = quick_xml::Writer::new(&mut *out);
                for e in &doc.qx {
                    w.write_event(e.borrow()).unwrap();
                }
                out.len()
            }
            Op::Roxmltree => {
                let o = roxmltree::ParsingOptions {
                    allow_dtd: true,
                    ..Default::default()
                };
                roxmltree::Document::parse_with_options(std::str::from_utf8(doc.xml).unwrap(), o)
                    .unwrap()
                    .descendants()
                    .count()
            }
        };
    }
    n
}

/// The length of an event's strings, as `CountingSink` counts them: what `BINXML_READ` makes
/// the pull operations' consumer read of each event.
fn event_bytes(e: &Event<'_>) -> usize {
    match e {
        Event::StartElement(n) => n.local.len() + n.prefix.len() + n.namespace.len(),
        Event::Namespace { prefix, uri } => prefix.len() + uri.len(),
        Event::Attribute { name: n, value } => {
            n.local.len() + n.prefix.len() + n.namespace.len() + value.len()
        }
        Event::Characters { text, cdata: false } => text.len(),
        _ => 0,
    }
}

/// quick-xml's NsReader with namespaces resolved and attributes and text unescaped, as the
/// bench's `quick-xml NsReader` row reads.
fn quick_xml_full(doc: &[u8]) -> usize {
    let mut r = quick_xml::NsReader::from_reader(doc);
    let mut n = 0;
    loop {
        match r.read_resolved_event().unwrap() {
            (_, quick_xml::events::Event::Eof) => return n,
            (_, quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)) => {
                for a in e.attributes() {
                    let a = a.unwrap();
                    let _ = r.resolver().resolve_attribute(a.key);
                    n += a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map(|v| v.len())
                        .unwrap_or(0);
                }
                n += 1;
            }
            (_, quick_xml::events::Event::Text(t)) => n += t.xml10_content().len(),
            _ => n += 1,
        }
    }
}

fn xml_documents(picks: &[String]) -> Vec<std::path::PathBuf> {
    let (files, subs): (Vec<&String>, Vec<&String>) = picks
        .iter()
        .partition(|p| std::path::Path::new(p).is_file());
    if !files.is_empty() && subs.is_empty() {
        return files.into_iter().map(Into::into).collect();
    }
    let mut all = binxml_testkit::corpus_xml_files();
    all.retain(|p| subs.is_empty() || subs.iter().any(|s| p.to_string_lossy().contains(*s)));
    all.extend(files.into_iter().map(Into::into));
    all.sort();
    all
}

fn main() {
    let mut formats = vec![Format::Xml, Format::Fi, Format::Asn1Uper];
    let mut ops = vec![Op::Push, Op::Tree];
    let (mut passes, mut once, mut verbose) = (5usize, false, false);
    let mut exi = binxml::exi::ExiOptions::default();
    let mut picks = Vec::new();
    let mut grammars = None;
    let mut load = binxml::schema::LoadOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--formats" => {
                formats = args
                    .next()
                    .expect("--formats LIST")
                    .split(',')
                    .map(|n| n.parse().expect("a format name"))
                    .collect()
            }
            "--ops" => {
                ops = args
                    .next()
                    .expect("--ops LIST")
                    .split(',')
                    .map(Op::parse)
                    .collect()
            }
            "--passes" => {
                passes = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--passes N")
            }
            "--exi" => {
                exi = exi
                    .parse_text(&args.next().expect("--exi OPTIONS"))
                    .expect("EXI options")
            }
            "--catalog" => {
                let c = std::path::PathBuf::from(args.next().expect("--catalog TSV"));
                let dir = c.parent().expect("a catalog's folder").to_path_buf();
                let text = std::fs::read_to_string(&c).expect("a catalog");
                for line in text.lines() {
                    if line.starts_with('#') || line.trim().is_empty() {
                        continue;
                    }
                    let (url, file) = line.split_once('\t').expect("URL<TAB>FILE");
                    load = load.with_location(url, dir.join(file));
                }
            }
            "--schema" => {
                let xsd = args.next().expect("--schema XSD");
                let schema = binxml::schema::Schema::load_with(&xsd, &load).expect("a schema");
                grammars = Some(std::sync::Arc::new(
                    binxml::exi::informed::SchemaGrammars::new(std::sync::Arc::new(schema))
                        .expect("EXI grammars"),
                ));
            }
            "--once" => once = true,
            "--verbose" => verbose = true,
            _ => picks.push(a),
        }
    }
    let need_events = ops
        .iter()
        .any(|o| matches!(o, Op::Encode | Op::Tape | Op::TapeReuse | Op::Build));
    let mut reuse = Reuse {
        exi: exi.clone(),
        grammars: grammars.clone(),
        informed: None,
        dec: None,
        enc: None,
    };
    let dopts = DecodeOptions::default()
        .with_exi(exi.clone())
        .with_exi_schema(grammars.clone());
    let eopts = EncodeOptions::default()
        .with_exi(exi)
        .with_exi_schema(grammars);

    // The XML texts first (the documents borrow from them), then the encodings and events.
    let mut texts: Vec<(String, Vec<u8>)> = Vec::new();
    for p in xml_documents(&picks) {
        let raw = std::fs::read(&p).unwrap();
        let Ok(xml) = binxml_xml::to_utf8(&raw) else {
            continue;
        };
        texts.push((
            p.file_name().unwrap().to_string_lossy().into_owned(),
            xml.into_owned(),
        ));
    }
    let mut docs = Vec::new();
    for (name, xml) in &texts {
        let encoded: Option<Vec<Vec<u8>>> = formats
            .iter()
            .map(|&f| {
                let mut out = Vec::new();
                binxml::convert_with(
                    xml,
                    Format::Xml,
                    &DecodeOptions::default(),
                    f,
                    &mut out,
                    &eopts,
                )
                .ok()
                .map(|_| out)
            })
            .collect();
        let Some(encoded) = encoded else {
            continue; // a format that cannot carry this document
        };
        let events = if need_events {
            match binxml_xml::decode(xml) {
                Ok(e) => e,
                Err(_) => continue,
            }
        } else {
            Vec::new()
        };
        let reps = if once {
            1
        } else {
            (64 * 1024 / xml.len().max(1)).clamp(1, 64) as u32
        };
        let tape = binxml_core::Tape::from_events(&events);
        let mut qx = Vec::new();
        if ops.contains(&Op::QuickXmlWrite) {
            let mut r = quick_xml::Reader::from_reader(&xml[..]);
            loop {
                match r.read_event() {
                    Ok(quick_xml::events::Event::Eof) | Err(_) => break,
                    Ok(e) => qx.push(e),
                }
            }
        }
        docs.push(Doc {
            name: name.clone(),
            xml: &xml[..],
            encoded,
            events,
            tape,
            qx,
            reps,
        });
    }
    let mb: f64 = docs.iter().map(|d| d.xml.len() as f64).sum::<f64>() / 1e6;
    println!(
        "{} documents, {mb:.1} MB of XML, best of {passes} passes",
        docs.len()
    );

    // subjects: (format index, operation), interleaved document by document
    let subjects: Vec<(usize, Op)> = (0..formats.len())
        .flat_map(|k| ops.iter().map(move |&o| (k, o)))
        .filter(|&(k, o)| k == 0 || !o.format_free())
        .collect();
    let mut best = vec![vec![f64::MAX; docs.len()]; subjects.len()];
    let mut out = Vec::new();
    for _ in 0..passes {
        for (i, doc) in docs.iter().enumerate() {
            for (s, &(k, op)) in subjects.iter().enumerate() {
                let t = Instant::now();
                let bytes = if matches!(
                    op,
                    Op::Pull
                        | Op::Lent
                        | Op::View
                        | Op::Next
                        | Op::Push
                        | Op::PushDirect
                        | Op::PushReuse
                        | Op::Tree
                        | Op::TreeIn
                ) {
                    &doc.encoded[k][..]
                } else {
                    doc.xml
                };
                std::hint::black_box(run_subject(
                    formats[k],
                    op,
                    doc,
                    bytes,
                    &mut out,
                    (&dopts, &eopts),
                    &mut reuse,
                ));
                let per = t.elapsed().as_secs_f64() / doc.reps as f64;
                best[s][i] = best[s][i].min(per);
            }
        }
    }

    let label = |&(k, op): &(usize, Op)| {
        if op.format_free() {
            op.name().to_string()
        } else {
            format!("{} {}", formats[k].name(), op.name())
        }
    };
    if verbose {
        for (i, doc) in docs.iter().enumerate() {
            print!(
                "{:<40} {:>9}",
                &doc.name[..doc.name.len().min(40)],
                doc.xml.len()
            );
            for times in &best {
                print!(" {:>8.0}", doc.xml.len() as f64 / times[i] / 1e6);
            }
            println!();
        }
        let names: Vec<String> = subjects.iter().map(label).collect();
        println!("(MB/s of XML per document: {})", names.join(", "));
    }
    let total = |s: usize| best[s].iter().sum::<f64>();
    println!(
        "{:<22} {:>10} {:>22}",
        "subject", "MB/s", "time vs first format"
    );
    for (s, subject) in subjects.iter().enumerate() {
        let first = subjects.iter().position(|&(_, o)| o == subject.1).unwrap();
        println!(
            "{:<22} {:>10.0} {:>21.2}x",
            label(subject),
            mb / total(s),
            total(s) / total(first)
        );
    }
}
