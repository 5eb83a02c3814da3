//! Speed: encode and decode throughput of every binxml format beside the peers users would
//! otherwise pick (quick-xml, roxmltree, libexpat, libxml2, the Java Fast Infoset reference,
//! EXIficient), all on the same documents with the same loop.

use std::fmt::Write as _;
use std::time::Duration;

use binxml::{Decoder, Format};

use crate::corpus::{self, Corpus, Doc, EXI_VARIANTS};
use crate::measure::{self, Config, Report, jn, js, row};
use crate::peers::{self, Job};
use crate::sizes::{self, ExtraSizes};
use crate::svg;

/// Documents below this size count as small (messages), reported as documents per second.
const SMALL: usize = 16 * 1024;

struct Subject {
    name: String,
    what: String,
    times: Result<Vec<Result<f64, String>>, String>,
}

fn quick_xml_writer_events(doc: &[u8]) -> Result<Vec<quick_xml::events::Event<'static>>, String> {
    let mut r = quick_xml::Reader::from_reader(doc);
    let mut v = Vec::new();
    loop {
        match r.read_event().map_err(|e| e.to_string())? {
            quick_xml::events::Event::Eof => return Ok(v),
            e => v.push(e.into_owned()),
        }
    }
}

/// quick-xml's writer given what binxml's XML writer is given: binxml's events, whose names and
/// strings are unescaped, turned into quick-xml's events in the timed code, each text and
/// attribute value escaped on the way (`BytesText::new`, `push_attribute`): how an application
/// writes its own data as XML with quick-xml. (quick-xml's own reader's events, the other
/// writer subject, hold the input's raw bytes, already escaped: writing them is a copy.)
fn quick_xml_write_escaping(events: &[binxml::Event<'_>], cap: usize) -> Result<usize, String> {
    use quick_xml::events::{BytesCData, BytesEnd, BytesPI, BytesStart, BytesText, Event as Q};
    use std::borrow::Cow;
    fn qualified<'e>(prefix: &'e str, local: &'e str) -> Cow<'e, str> {
        if prefix.is_empty() {
            Cow::Borrowed(local)
        } else {
            Cow::Owned(format!("{prefix}:{local}"))
        }
    }
    let mut w = quick_xml::Writer::new(Vec::with_capacity(cap));
    let mut names: Vec<Cow<'_, str>> = Vec::new();
    let mut open: Option<BytesStart<'_>> = None;
    for ev in events {
        match ev {
            binxml::Event::Namespace { prefix, uri } => {
                if let Some(s) = open.as_mut() {
                    let key = if prefix.is_empty() {
                        Cow::Borrowed("xmlns")
                    } else {
                        Cow::Owned(format!("xmlns:{prefix}"))
                    };
                    s.push_attribute((key.as_ref(), uri.as_ref()));
                }
                continue;
            }
            binxml::Event::Attribute { name, value } => {
                if let Some(s) = open.as_mut() {
                    let key = qualified(&name.prefix, &name.local);
                    s.push_attribute((key.as_ref(), value.as_ref()));
                }
                continue;
            }
            _ => {}
        }
        if let Some(s) = open.take() {
            w.write_event(Q::Start(s)).map_err(|e| e.to_string())?;
        }
        let q = match ev {
            binxml::Event::StartElement(q) => {
                let n = qualified(&q.prefix, &q.local);
                open = Some(BytesStart::new(n.clone()));
                names.push(n);
                continue;
            }
            binxml::Event::EndElement => Q::End(BytesEnd::new(names.pop().unwrap_or_default())),
            binxml::Event::Characters { text, cdata: true } => {
                Q::CData(BytesCData::new(text.as_ref()))
            }
            binxml::Event::Characters { text, .. } => Q::Text(BytesText::new(text)),
            binxml::Event::Comment(c) => Q::Comment(BytesText::from_escaped(c.as_ref())),
            binxml::Event::ProcessingInstruction { target, data } => {
                Q::PI(BytesPI::new(format!("{target} {data}")))
            }
            _ => continue,
        };
        w.write_event(q).map_err(|e| e.to_string())?;
    }
    Ok(w.into_inner().len())
}

/// Push decoding (`AnyDecoder::read_into`, the format's own `Decoder::read_into`) into a sink that
/// counts the events and the bytes of their strings: the SAX "empty handler".
fn push_events(f: Format, bytes: &[u8]) -> Result<usize, String> {
    push_events_with(f, bytes, &binxml::DecodeOptions::default())
}

fn push_events_with(
    f: Format,
    bytes: &[u8],
    opts: &binxml::DecodeOptions,
) -> Result<usize, String> {
    let mut sink = binxml::CountingSink::default();
    binxml::AnyDecoder::new(f, bytes, opts)
        .and_then(|mut d| d.read_into(&mut sink))
        .map_err(|e| e.to_string())?;
    std::hint::black_box(sink.bytes);
    Ok(sink.events as usize)
}

/// Push decoding of EXI by the codec's own loop (`ExiDecoder::read_into` called on the decoder,
/// not through `AnyDecoder`), into the same counting sink, by one decoder for every document
/// (`ExiDecoder::reset`: its tables and buffers kept), as the Java harness reuses one
/// EXIficient reader.
fn exi_push_direct<'d>(
    d: &mut binxml::exi::ExiDecoder<'d>,
    bytes: &'d [u8],
) -> Result<usize, String> {
    let mut sink = binxml::CountingSink::default();
    d.reset(bytes);
    d.read_into(&mut sink).map_err(|e| e.to_string())?;
    std::hint::black_box(sink.bytes);
    Ok(sink.events as usize)
}

fn decode_events(f: Format, bytes: &[u8]) -> Result<usize, String> {
    decode_events_with(f, bytes, &binxml::DecodeOptions::default())
}

fn decode_events_with(
    f: Format,
    bytes: &[u8],
    opts: &binxml::DecodeOptions,
) -> Result<usize, String> {
    let mut d = binxml::AnyDecoder::new(f, bytes, opts).map_err(|e| e.to_string())?;
    let mut n = 0;
    let mut batch = Vec::new();
    loop {
        batch.clear();
        let k = d.next_batch(&mut batch).map_err(|e| e.to_string())?;
        if k == 0 {
            break;
        }
        for e in &batch {
            std::hint::black_box(e);
        }
        n += k;
    }
    Ok(n)
}

/// Batched pull read as views (`AnyDecoder::next_lent`, each event a `LentEvent` over the
/// batch's records): the pull interface that borrows its strings, so that a decoder whose
/// strings are not in its input copies them into the batch rather than allocating each one.
/// The batch is the caller's and kept across documents, as a streaming consumer keeps it.
fn view_events<'a>(
    f: Format,
    bytes: &'a [u8],
    batch: &mut binxml_core::LentBatch<'a>,
) -> Result<usize, String> {
    view_events_with(f, bytes, &binxml::DecodeOptions::default(), batch)
}

fn view_events_with<'a>(
    f: Format,
    bytes: &'a [u8],
    opts: &binxml::DecodeOptions,
    batch: &mut binxml_core::LentBatch<'a>,
) -> Result<usize, String> {
    let mut d = binxml::AnyDecoder::new(f, bytes, opts).map_err(|e| e.to_string())?;
    let mut n = 0;
    loop {
        let k = d.next_lent(batch).map_err(|e| e.to_string())?;
        if k == 0 {
            break;
        }
        for e in batch.views() {
            std::hint::black_box(&e);
        }
        n += k;
    }
    Ok(n)
}

/// The documents of the speed runs: every document binxml's XML decoder, every format that works
/// on nine documents in ten or more, and roxmltree read.
fn speed_docs(corpus: &Corpus) -> (Vec<usize>, Vec<String>) {
    let ok_fmt = sizes::reliable(corpus);
    let mut picked = Vec::new();
    let mut left = Vec::new();
    for (i, d) in corpus.docs.iter().enumerate() {
        if d.elements == 0 {
            left.push(format!("`{}`: binxml cannot read it", d.name));
            continue;
        }
        if let Some(k) = (0..Format::ALL.len()).find(|&k| ok_fmt[k] && d.enc[k].is_err()) {
            left.push(format!("`{}`: {} fails", d.name, Format::ALL[k].name()));
            continue;
        }
        if crate::xmlread::roxmltree_parse(&d.xml).is_none() {
            left.push(format!("`{}`: roxmltree cannot parse it", d.name));
            continue;
        }
        picked.push(i);
    }
    (picked, left)
}

pub fn run(cfg: &Config, report: &mut Report, corpus: &Corpus) -> Vec<ExtraSizes> {
    let (picked, left_out) = speed_docs(corpus);
    let docs: Vec<&Doc> = picked.iter().map(|&i| &corpus.docs[i]).collect();
    let n = docs.len();
    let reps: Vec<u32> = docs
        .iter()
        .map(|d| {
            if cfg.smoke {
                1
            } else {
                (64 * 1024 / d.xml.len().max(1)).clamp(1, 64) as u32
            }
        })
        .collect();
    let passes = if cfg.smoke { 1 } else { 5 };
    let ok_fmt = sizes::reliable(corpus);
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .enumerate()
        .filter(|&(k, _)| ok_fmt[k])
        .map(|(_, f)| f)
        .collect();
    let skipped: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .enumerate()
        .filter(|&(k, _)| !ok_fmt[k])
        .map(|(_, f)| f)
        .collect();
    eprintln!("speed: {n} documents, {} formats", formats.len());

    // ---- decoding / parsing ----
    // Stage 1, interleaved: every format's decoder and the in-process XML peers.
    let budget = Duration::from_secs(if cfg.smoke { 0 } else { 60 });
    let mut subjects: Vec<measure::DocFn<'_>> = Vec::new();
    for &f in &formats {
        let docs = &docs;
        subjects.push(Box::new(move |i: usize| {
            decode_events(f, docs[i].encoded(f).map_err(|e| e.to_string())?)
        }));
    }
    for &f in &formats {
        let docs = &docs;
        subjects.push(Box::new(move |i: usize| {
            push_events(f, docs[i].encoded(f).map_err(|e| e.to_string())?)
        }));
    }
    for &f in &formats {
        let docs = &docs;
        let mut batch = binxml_core::LentBatch::new();
        subjects.push(Box::new(move |i: usize| {
            view_events(
                f,
                docs[i].encoded(f).map_err(|e| e.to_string())?,
                &mut batch,
            )
        }));
    }
    subjects.push(Box::new(|i: usize| {
        Ok(crate::xmlread::quick_xml_events(&docs[i].xml))
    }));
    subjects.push(Box::new(|i: usize| {
        Ok(crate::xmlread::quick_xml_full(&docs[i].xml))
    }));
    subjects.push(Box::new(|i: usize| {
        crate::xmlread::roxmltree_parse(&docs[i].xml)
            .ok_or_else(|| "roxmltree cannot parse it".to_string())
    }));
    // The EXI variants beyond the defaults (those are `Format::Exi` above): pull, push, views.
    let exi_on = formats.contains(&Format::Exi);
    let exi_more: Vec<usize> = if exi_on {
        (1..EXI_VARIANTS.len()).collect()
    } else {
        Vec::new()
    };
    for way in 0..3 {
        for &v in &exi_more {
            let docs = &docs;
            let opts = EXI_VARIANTS[v].decode_options();
            let mut batch = binxml_core::LentBatch::new();
            subjects.push(Box::new(move |i: usize| {
                let bytes = docs[i].exi(v).map_err(|e| e.to_string())?;
                match way {
                    0 => decode_events_with(Format::Exi, bytes, &opts),
                    1 => push_events_with(Format::Exi, bytes, &opts),
                    _ => view_events_with(Format::Exi, bytes, &opts, &mut batch),
                }
            }));
        }
    }
    // And every variant's push decoding by the codec's own `ExiDecoder::read_into`, called on
    // the decoder itself: `AnyDecoder::read_into` holds it in a `Box`, and the call there
    // resolves to the `Box`'s provided `read_into`, which pulls.
    let exi_all: Vec<usize> = if exi_on {
        (0..EXI_VARIANTS.len()).collect()
    } else {
        Vec::new()
    };
    for &v in &exi_all {
        let docs = &docs;
        let mut d = binxml::exi::ExiDecoder::with_options(
            &[],
            EXI_VARIANTS[v].options(),
            Default::default(),
        );
        subjects.push(Box::new(move |i: usize| {
            let doc: &Doc = docs[i];
            let bytes = doc.exi(v).map_err(|e| e.to_string())?;
            exi_push_direct(&mut d, bytes)
        }));
    }
    let mut stage1 = measure::time_many(n, &reps, passes, budget, &mut subjects).into_iter();
    drop(subjects);
    let mut dec: Vec<Subject> = Vec::new();
    for &f in &formats {
        dec.push(Subject {
            name: format!("binxml {}", f.name()),
            what: "events (pull: next_batch through AnyDecoder)".into(),
            times: Ok(stage1.next().unwrap()),
        });
    }
    for &f in &formats {
        dec.push(Subject {
            name: format!("binxml {}", f.name()),
            what: "push (read_into a counting sink)".into(),
            times: Ok(stage1.next().unwrap()),
        });
    }
    for &f in &formats {
        dec.push(Subject {
            name: format!("binxml {}", f.name()),
            what: VIEWS.into(),
            times: Ok(stage1.next().unwrap()),
        });
    }
    let exi_rows_at = dec.len();
    // Stage 2: tree building, for the formats whose decoder runs at a fifth of the XML
    // decoder's speed or more (for slower decoders the tree time is the decode time and little
    // else, and FI Mark times their tree life cycle anyway).
    let total = |t: &Result<Vec<Result<f64, String>>, String>| {
        t.as_ref()
            .ok()
            .map(|v| v.iter().filter_map(|r| r.as_ref().ok()).sum::<f64>())
    };
    let xml_secs = total(&dec[0].times).unwrap_or(f64::MAX);
    let mut no_tree = Vec::new();
    let mut tree_formats = Vec::new();
    for (k, &f) in formats.iter().enumerate() {
        if total(&dec[k].times).is_some_and(|s| s > 5.0 * xml_secs) {
            no_tree.push(f.name());
        } else {
            tree_formats.push(f);
        }
    }
    let mut subjects: Vec<measure::DocFn<'_>> = Vec::new();
    for &f in &tree_formats {
        let docs = &docs;
        subjects.push(Box::new(move |i: usize| {
            binxml::parse_tree(f, docs[i].encoded(f).map_err(|e| e.to_string())?)
                .map(|d| d.len())
                .map_err(|e| e.to_string())
        }));
    }
    let stage2 = measure::time_many(n, &reps, passes, budget, &mut subjects);
    drop(subjects);
    for (f, t) in tree_formats.iter().zip(stage2) {
        dec.push(Subject {
            name: format!("binxml {}", f.name()),
            what: "tree".into(),
            times: Ok(t),
        });
    }
    dec.push(Subject {
        name: "quick-xml".into(),
        what: "raw events (no namespaces, attributes not parsed)".into(),
        times: Ok(stage1.next().unwrap()),
    });
    dec.push(Subject {
        name: "quick-xml NsReader".into(),
        what: "events, namespaces resolved, attributes and text unescaped".into(),
        times: Ok(stage1.next().unwrap()),
    });
    dec.push(Subject {
        name: "roxmltree".into(),
        what: "tree".into(),
        times: Ok(stage1.next().unwrap()),
    });
    // The EXI variants' rows go after the push rows, beside binxml exi's own.
    let mut exi_dec: Vec<Subject> = Vec::new();
    for what in [
        "events (pull: next_batch through AnyDecoder)",
        "push (read_into a counting sink)",
        VIEWS,
    ] {
        for &v in &exi_more {
            exi_dec.push(Subject {
                name: format!("binxml {}", EXI_VARIANTS[v].name),
                what: what.into(),
                times: Ok(stage1.next().unwrap()),
            });
        }
    }
    let m = exi_more.len();
    for &v in &exi_all {
        exi_dec.push(Subject {
            name: format!("binxml {}", EXI_VARIANTS[v].name),
            what: "push (ExiDecoder::read_into, the codec's own loop, a counting sink; one \
                   decoder reset for every document)"
                .into(),
            times: Ok(stage1.next().unwrap()),
        });
    }
    let mut pulls: Vec<PullRows<'_>> = (0..formats.len())
        .map(|k| PullRows {
            name: formats[k].name().to_string(),
            pull: &dec[k],
            push: &dec[formats.len() + k],
            view: &dec[2 * formats.len() + k],
        })
        .collect();
    for (j, &v) in exi_more.iter().enumerate() {
        pulls.push(PullRows {
            name: EXI_VARIANTS[v].name.to_string(),
            pull: &exi_dec[j],
            push: &exi_dec[m + j],
            view: &exi_dec[2 * m + j],
        });
    }
    let pull_vs_push = pull_against_push(&pulls, &docs);
    drop(pulls);
    // Per-document times of the EXI comparison: [variant][pull, push through AnyDecoder, push
    // by ExiDecoder].
    let mut exi_dec_times: Vec<[Vec<Result<f64, String>>; 3]> = Vec::new();
    if exi_on {
        let k = formats.iter().position(|&f| f == Format::Exi).unwrap();
        let t = |s: &Subject| s.times.clone().unwrap();
        exi_dec_times.push([t(&dec[k]), t(&dec[formats.len() + k]), t(&exi_dec[3 * m])]);
        for j in 0..m {
            exi_dec_times.push([
                t(&exi_dec[j]),
                t(&exi_dec[m + j]),
                t(&exi_dec[3 * m + 1 + j]),
            ]);
        }
    }
    let tail = dec.split_off(exi_rows_at);
    dec.extend(exi_dec);
    dec.extend(tail);

    // External peers.
    let paths = corpus::write_peer_docs(&docs);
    let job = Job {
        paths: &paths,
        reps: &reps,
        passes,
        warmup_ms: if cfg.smoke { 0 } else { 300 },
        extra: &[],
    };
    let expat = peers::c_driver(cfg, "expat_peer", &["expat-empty", "expat-tree"], &job);
    let lx = peers::c_driver(
        cfg,
        "libxml2_peer",
        &["libxml2-sax", "libxml2-tree", "libxml2-serialize"],
        &job,
    );
    let jt = peers::JavaTiming::new(cfg);
    let java_job = Job {
        warmup_ms: 0,
        passes: jt.passes,
        ..job
    };
    let (java, java_info) = peers::java_with(
        cfg,
        &[
            "java-sax",
            "fi-decode",
            "exi-decode",
            "fi-encode",
            "exi-encode",
            "exi-decode-compression",
            "exi-encode-compression",
        ],
        &java_job,
        &[jt.jvm_arg()],
    );
    let times = |o: &peers::Outcome| o.as_ref().map(|r| r.times.clone()).map_err(|e| e.clone());
    dec.push(Subject {
        name: "libexpat".into(),
        what: "empty handlers (namespace processing on)".into(),
        times: times(&expat[0]),
    });
    dec.push(Subject {
        name: "libexpat".into(),
        what: "tree (elements, attributes, text, built in C)".into(),
        times: times(&expat[1]),
    });
    dec.push(Subject {
        name: "libxml2".into(),
        what: "SAX2, empty handlers".into(),
        times: times(&lx[0]),
    });
    dec.push(Subject {
        name: "libxml2".into(),
        what: "tree (xmlReadMemory + xmlFreeDoc)".into(),
        times: times(&lx[1]),
    });
    dec.push(Subject {
        name: "Java SAX (Xerces)".into(),
        what: "XML, empty handler (JAXP, warmed JVM)".into(),
        times: times(&java[0]),
    });
    dec.push(Subject {
        name: "Java FI reference".into(),
        what: "FI SAX parser, empty handler (warmed JVM)".into(),
        times: times(&java[1]),
    });
    dec.push(Subject {
        name: "EXIficient".into(),
        what: "EXI SAX reader, empty handler (warmed JVM)".into(),
        times: times(&java[2]),
    });
    dec.push(Subject {
        name: "EXIficient compression".into(),
        what: "EXI SAX reader, empty handler, compression mode (warmed JVM)".into(),
        times: times(&java[5]),
    });

    // ---- encoding ----
    let events: Vec<Vec<binxml::Event<'_>>> = docs
        .iter()
        .map(|d| corpus::xml_events(&d.xml).unwrap())
        .collect();
    let qx: Vec<_> = docs
        .iter()
        .map(|d| quick_xml_writer_events(&d.xml))
        .collect();
    let tapes: Vec<binxml_core::Tape<'_>> = events
        .iter()
        .map(|e| binxml_core::Tape::from_events(e))
        .collect();
    let mut subjects: Vec<measure::DocFn<'_>> = Vec::new();
    for &f in &formats {
        let tapes = &tapes;
        // one output buffer per subject, reused across documents (as the Java harness reuses
        // its 1 MB ByteArrayOutputStream)
        let mut out: Vec<u8> = Vec::with_capacity(1 << 20);
        subjects.push(Box::new(move |i: usize| {
            out.clear();
            corpus::encode_tape_into(f, &tapes[i], &mut out)
        }));
    }
    // Fast Infoset again, from the events in a Vec<Event> (104 octets an event)
    {
        let events = &events;
        let mut out: Vec<u8> = Vec::with_capacity(1 << 20);
        subjects.push(Box::new(move |i: usize| {
            out.clear();
            corpus::encode_into(Format::Fi, &events[i], &mut out)
        }));
    }
    subjects.push(Box::new(|i: usize| {
        let evs = qx[i].as_ref().map_err(|e| e.clone())?;
        let mut w = quick_xml::Writer::new(Vec::with_capacity(docs[i].xml.len()));
        for e in evs {
            w.write_event(e.borrow()).map_err(|e| e.to_string())?;
        }
        Ok(w.into_inner().len())
    }));
    {
        let (events, docs) = (&events, &docs);
        subjects.push(Box::new(move |i: usize| {
            quick_xml_write_escaping(&events[i], docs[i].xml.len())
        }));
    }
    // The bit-packed EXI variants by one encoder for every document (`ExiEncoder::reset`: its
    // tables and output buffer kept), as the Java harness keeps one EXIResult for every
    // document; the compression variants by a new encoder per document (into one reused output
    // buffer), as the Java harness makes a new EXIResult per document there (EXIficient's
    // compression writer cannot take a second document).
    for &v in &exi_all {
        let tapes = &tapes;
        let options = EXI_VARIANTS[v].options();
        if EXI_VARIANTS[v].compressed() {
            let mut out: Vec<u8> = Vec::with_capacity(1 << 20);
            subjects.push(Box::new(move |i: usize| {
                use binxml::core::Encoder as _;
                out.clear();
                let mut e = binxml::exi::ExiEncoder::with_options(&mut out, options.clone())
                    .map_err(|e| e.to_string())?;
                e.write_tape(&tapes[i]).map_err(|e| e.to_string())?;
                e.finish().map_err(|e| e.to_string())?;
                drop(e);
                Ok(out.len())
            }));
            continue;
        }
        let mut e = binxml::exi::ExiEncoder::with_options(Vec::with_capacity(1 << 20), options)
            .expect("the variants' options are valid");
        subjects.push(Box::new(move |i: usize| {
            use binxml::core::Encoder as _;
            e.reset();
            e.get_mut().clear();
            e.write_tape(&tapes[i]).map_err(|e| e.to_string())?;
            e.finish().map_err(|e| e.to_string())?;
            Ok(e.get_ref().len())
        }));
    }
    let mut stage3 = measure::time_many(n, &reps, passes, budget, &mut subjects).into_iter();
    drop(subjects);
    let mut enc: Vec<Subject> = Vec::new();
    for &f in &formats {
        enc.push(Subject {
            name: format!("binxml {}", f.name()),
            what: "recorded events (a Tape) -> bytes".into(),
            times: Ok(stage3.next().unwrap()),
        });
    }
    let exi_enc_at = enc.len();
    enc.push(Subject {
        name: "binxml fi".into(),
        what: "events in a Vec<Event> -> bytes (write_events)".into(),
        times: Ok(stage3.next().unwrap()),
    });
    let t = stage3.next().unwrap();
    enc.push(Subject {
        name: "quick-xml Writer".into(),
        what: "its own reader's events (raw, escaped bytes) -> XML".into(),
        times: Ok(t),
    });
    enc.push(Subject {
        name: "quick-xml Writer, escaping".into(),
        what: "binxml's events (unescaped) -> quick-xml events -> XML".into(),
        times: Ok(stage3.next().unwrap()),
    });
    let mut exi_enc: Vec<Subject> = Vec::new();
    for &v in &exi_all {
        exi_enc.push(Subject {
            name: format!("binxml {}", EXI_VARIANTS[v].name),
            what: if EXI_VARIANTS[v].compressed() {
                "recorded events (a Tape) -> bytes, a new ExiEncoder per document"
            } else {
                "recorded events (a Tape) -> bytes, one ExiEncoder reset for every document"
            }
            .into(),
            times: Ok(stage3.next().unwrap()),
        });
    }
    let mut exi_enc_times: Vec<Vec<Result<f64, String>>> = Vec::new();
    if exi_on {
        for s in &exi_enc {
            exi_enc_times.push(s.times.clone().unwrap());
        }
    }
    let tail = enc.split_off(exi_enc_at);
    enc.extend(exi_enc);
    enc.extend(tail);
    enc.push(Subject {
        name: "libxml2".into(),
        what: "tree -> XML (xmlDocDumpMemory)".into(),
        times: times(&lx[2]),
    });
    enc.push(Subject {
        name: "Java FI reference".into(),
        what: "SAX events -> FI (warmed JVM)".into(),
        times: times(&java[3]),
    });
    enc.push(Subject {
        name: "EXIficient".into(),
        what: "SAX events -> EXI (warmed JVM)".into(),
        times: times(&java[4]),
    });
    enc.push(Subject {
        name: "EXIficient compression".into(),
        what: "SAX events -> EXI, compression mode (warmed JVM)".into(),
        times: times(&java[6]),
    });

    let mut md = String::from("## Speed\n\n");
    let _ = writeln!(
        md,
        "{n} documents ({:.1} MB of XML), the same for every subject. Each subject processes every document {} per pass{}, up to {passes} passes after a warm-up pass (3 when a round of the subjects would exceed a minute); the binxml subjects and the in-process peers run interleaved, pass by pass, so that load changes fall on all alike (the JVM's peers as JMH would time them: {}); a document's time is the median over the passes. Totals sum the per-document medians. **MB/s** is megabytes of XML (the document's UTF-8 size) per second, whatever the format read or written; **docs/s** counts all documents, **small docs/s** those under 16 KB ({} documents); **× binxml xml** is the speed over binxml's own XML decoder (encoder) on the same documents (above 1: faster).\n",
        docs.iter().map(|d| d.xml.len()).sum::<usize>() as f64 / 1e6,
        if cfg.smoke {
            "once"
        } else {
            "several times in a row"
        },
        if cfg.smoke {
            ""
        } else {
            " (64 KB / its size times, at least once, at most 64: each timing covers about 64 KB)"
        },
        jt.describe(),
        docs.iter().filter(|d| d.xml.len() < SMALL).count()
    );
    if !skipped.is_empty() {
        for f in &skipped {
            if corpus::export_only(*f) {
                let _ = writeln!(
                    md,
                    "Not timed: {} ({}; its speed on JSON documents is in the JSON section).\n",
                    f.name(),
                    corpus::EXPORT_NOTE
                );
            } else {
                let _ = writeln!(
                    md,
                    "Not timed: {} (fails on more than a tenth of the documents, see the size section).\n",
                    f.name()
                );
            }
        }
    }
    if !no_tree.is_empty() {
        let _ = writeln!(
            md,
            "Tree building not timed for {} (decoding alone is more than five times slower than the XML decoder: the tree time would be the decode time; FI Mark below runs their tree life cycle).\n",
            no_tree.join(", ")
        );
    }
    if !left_out.is_empty() {
        let _ = writeln!(
            md,
            "<details><summary>{} corpus documents left out of the speed runs</summary>\n\n{}\n\n</details>\n",
            left_out.len(),
            left_out.join("\n")
        );
    }
    md.push_str("### Decoding and parsing\n\n");
    let (cats, vals) = table(&mut md, report, "decode", &dec, &docs);
    let line = |cats: &[String], vals: &[Option<f64>], keep: &dyn Fn(&str) -> bool| {
        cats.iter()
            .zip(vals)
            .filter(|(c, v)| v.is_some() && keep(c))
            .map(|(c, v)| format!("{c} {:.0}", v.unwrap()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    report.headlines.push(format!(
        "Decoding, MB of XML per second over {n} documents: {}.",
        line(&cats, &vals, &|c: &str| !c.contains("(tree")
            || c.starts_with("roxmltree")
            || c.starts_with("libxml2")
            || c.starts_with("binxml xml"))
    ));
    md.push_str(&report.svg(
        "decode",
        "decoding throughput",
        svg::bars(
            "Decoding / parsing throughput",
            "MB of XML per second (higher is faster)",
            &cats,
            &[("MB/s".into(), vals)],
            true,
            None,
        ),
    ));
    md.push_str(&pull_vs_push.0);
    report.headlines.push(pull_vs_push.1);
    md.push_str("### Encoding and serializing\n\n");
    let (cats, vals) = table(&mut md, report, "encode", &enc, &docs);
    report.headlines.push(format!(
        "Encoding, MB of XML per second: {}.",
        line(&cats, &vals, &|_: &str| true)
    ));
    md.push_str(&report.svg(
        "encode",
        "encoding throughput",
        svg::bars(
            "Encoding / serializing throughput",
            "MB of XML per second (higher is faster)",
            &cats,
            &[("MB/s".into(), vals)],
            true,
            None,
        ),
    ));
    if let Some(info) = &java_info {
        let _ = writeln!(
            md,
            "Java peers' JVM: {}; FastInfoset 2.1.1, EXIficient 1.0.7 (default options: schema-less, bit-packed, default fidelity).\n",
            info.trim()
        );
    }
    if exi_on {
        let peer = |k: usize| -> Result<&[Result<f64, String>], String> {
            java[k]
                .as_ref()
                .map(|r| r.times.as_slice())
                .map_err(|e| e.clone())
        };
        let mut rows: Vec<ExiCmp<'_>> = Vec::new();
        for (mode, z, dec_peer, enc_peer) in [
            ("bit-packed", false, 2usize, 4usize),
            ("compression", true, 5, 6),
        ] {
            for (v, var) in EXI_VARIANTS.iter().enumerate() {
                if var.compressed() != z {
                    continue;
                }
                for (p, how) in [
                    "pull (AnyDecoder::next_batch)",
                    "push through AnyDecoder (pulls)",
                    "push (ExiDecoder::read_into)",
                ]
                .iter()
                .enumerate()
                {
                    if p == 1 && !var.drops_whitespace() {
                        continue;
                    }
                    rows.push(ExiCmp {
                        mode,
                        op: "decode",
                        subject: format!(
                            "{how}, {}",
                            if var.drops_whitespace() {
                                "EXIficient's bytes (whitespace dropped)"
                            } else {
                                "binxml's default stream (whitespace kept)"
                            }
                        ),
                        like_for_like: var.drops_whitespace() && p == 2,
                        ours: &exi_dec_times[v][p],
                        theirs: peer(dec_peer),
                    });
                }
            }
            for (v, var) in EXI_VARIANTS.iter().enumerate() {
                if var.compressed() != z {
                    continue;
                }
                rows.push(ExiCmp {
                    mode,
                    op: "encode",
                    subject: format!(
                        "{}, {}",
                        if var.drops_whitespace() {
                            "Whitespace::DropBetweenTags (EXIficient's events and bytes)"
                        } else {
                            "Whitespace::Preserve (the default; more events than EXIficient)"
                        },
                        if var.compressed() {
                            "a new ExiEncoder per document"
                        } else {
                            "one ExiEncoder reset for every document"
                        }
                    ),
                    like_for_like: var.drops_whitespace(),
                    ours: &exi_enc_times[v],
                    theirs: peer(enc_peer),
                });
            }
        }
        exi_comparison(&mut md, report, &docs, &rows);
    }
    md.push_str("binxml encoders are timed from the events already in memory (the XML decoder's, collected once) and recorded on a `binxml_core::Tape` (each distinct qualified name kept once and referred to by number, character data and attribute values borrowed from the document: 24 octets an event), replayed into the encoder by one `Encoder::write_tape` call per document (the Fast Infoset encoder takes them through its push interface, `EventSink`, built on the stack one at a time; the others through `write_event`); the Java harness likewise records SAX events (names interned by the parser, character data copied) and replays them into the serializer's SAX interface. The row *events in a Vec<Event>* times the Fast Infoset encoder from the same events kept as a `Vec<Event>` instead (104 octets an event, handed over in one `Encoder::write_events` call, the events prefetched ahead): reading that array from memory costs about as much again as a pass over it that does nothing else. Each encoder writes into one output buffer of its own (1 MB to start with) that is cleared, not freed, between documents, and the Java encoders into one reused 1 MB `ByteArrayOutputStream`. Peer figures come from the peers' own loops (C: `bench/peers/c`, Java: `bench/peers/java/BenchPeers.java`) with the same passes and repetitions.\n\n");
    report.section(md);

    // Sizes the Java encoders produced, for the size table.
    let mut extra = Vec::new();
    for (k, name, after, note) in [
        (
            3usize,
            "FI (Java reference)",
            "fi",
            "FastInfoset 2.1.1's SAXDocumentSerializer, default options, from the JDK SAX parser's events",
        ),
        (
            4,
            "EXI (EXIficient)",
            EXI_VARIANTS[2].name,
            "EXIficient 1.0.7, default options: schema-less, bit-packed, comments, processing instructions, DTDs and prefixes not preserved, whitespace-only text between tags and xsi:schemaLocation dropped",
        ),
        (
            6,
            "EXI compression (EXIficient)",
            EXI_VARIANTS[3].name,
            "EXIficient 1.0.7, default options but CodingMode.COMPRESSION (DEFLATE by the JDK's zlib, level 6)",
        ),
    ] {
        if let Ok(r) = &java[k] {
            let mut s = vec![None; corpus.docs.len()];
            for (j, &i) in picked.iter().enumerate() {
                s[i] = r.sizes[j];
            }
            if s.iter().any(|x| x.is_some()) {
                extra.push(ExtraSizes {
                    name: name.into(),
                    sizes: s,
                    note: format!("{note}; the speed set's documents only"),
                    after: after.into(),
                });
            }
        }
    }
    extra
}

/// What the row `views` reads: batched pull into a lent batch.
const VIEWS: &str = "views (pull: next_lent through AnyDecoder, read as LentEvents)";

/// One format's (or EXI variant's) three decoding rows.
struct PullRows<'s> {
    name: String,
    pull: &'s Subject,
    push: &'s Subject,
    view: &'s Subject,
}

/// Pull decoding over push decoding, format by format (issue 26 asks at least 0.7): push time
/// over pull time summed over the documents both decoded, for `next_batch` (owned events) and
/// for `next_lent` views. Returns the table (markdown) and the headline.
fn pull_against_push(formats: &[PullRows<'_>], docs: &[&Doc]) -> (String, String) {
    let ratio = |pull: &Subject, push: &Subject| -> Option<(f64, f64)> {
        let (a, b) = (pull.times.as_ref().ok()?, push.times.as_ref().ok()?);
        let both: Vec<usize> = (0..docs.len())
            .filter(|&i| a[i].is_ok() && b[i].is_ok())
            .collect();
        let sum = |t: &[Result<f64, String>]| -> f64 {
            both.iter().map(|&i| *t[i].as_ref().unwrap()).sum()
        };
        let (pull_s, push_s) = (sum(a), sum(b));
        let bytes: usize = both.iter().map(|&i| docs[i].xml.len()).sum();
        (pull_s > 0.0 && !both.is_empty()).then(|| (push_s / pull_s, measure::mbps(bytes, pull_s)))
    };
    let mut md = String::from(
        "Pull against push decoding, format by format: push time over pull time on the documents both decoded (issue 26 asks at least 0.7). **next_batch** hands owned `Event`s (strings not in the input are allocated one by one); **views** is `next_lent`, a batch of `LentEvent` records whose strings borrow from the input or from the batch's own buffer.\n\n",
    );
    md.push_str(&row(&[
        "format".into(),
        "next_batch MB/s".into(),
        "next_batch / push".into(),
        "views MB/s".into(),
        "views / push".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 5]));
    let mut head = Vec::new();
    for f in formats {
        let pull = ratio(f.pull, f.push);
        let view = ratio(f.view, f.push);
        let cell = |r: Option<(f64, f64)>, mbps: bool| {
            r.map_or("-".into(), |(q, m)| {
                if mbps {
                    format!("{m:.1}")
                } else {
                    format!("{q:.2}")
                }
            })
        };
        md.push_str(&row(&[
            f.name.clone(),
            cell(pull, true),
            cell(pull, false),
            cell(view, true),
            cell(view, false),
        ]));
        if let Some((q, _)) = view {
            head.push(format!("{} {q:.2}", f.name));
        }
    }
    md.push('\n');
    let headline = format!(
        "Pull decoding by views (`next_lent`) over push decoding (target 0.7): {}.",
        head.join(", ")
    );
    (md, headline)
}

/// Writes one speed table; returns the chart's categories and MB/s values.
fn table(
    md: &mut String,
    report: &mut Report,
    bench: &str,
    subjects: &[Subject],
    docs: &[&Doc],
) -> (Vec<String>, Vec<Option<f64>>) {
    md.push_str(&row(&[
        "subject".into(),
        "what".into(),
        "docs".into(),
        "MB/s".into(),
        "docs/s".into(),
        "small docs/s".into(),
        "× binxml xml".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 7]));
    let base = subjects[0].times.as_ref().ok();
    let mut cats = Vec::new();
    let mut vals = Vec::new();
    for s in subjects {
        let label = format!(
            "{} ({})",
            s.name,
            s.what.split([',', '(']).next().unwrap_or("").trim()
        );
        match &s.times {
            Err(e) => {
                md.push_str(&row(&[
                    s.name.clone(),
                    s.what.clone(),
                    "-".into(),
                    e.to_string(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ]));
                report.raw_json(format!(
                    "{{\"bench\":{},\"subject\":{},\"what\":{},\"error\":{}}}",
                    js(bench),
                    js(&s.name),
                    js(&s.what),
                    js(e)
                ));
                cats.push(label);
                vals.push(None);
            }
            Ok(t) => {
                let ok: Vec<usize> = (0..docs.len()).filter(|&i| t[i].is_ok()).collect();
                let secs: f64 = ok.iter().map(|&i| *t[i].as_ref().unwrap()).sum();
                let bytes: usize = ok.iter().map(|&i| docs[i].xml.len()).sum();
                let small: Vec<usize> = ok
                    .iter()
                    .copied()
                    .filter(|&i| docs[i].xml.len() < SMALL)
                    .collect();
                let small_secs: f64 = small.iter().map(|&i| *t[i].as_ref().unwrap()).sum();
                let mbps = measure::mbps(bytes, secs);
                let rel = base.and_then(|b| {
                    let both: Vec<usize> = ok.iter().copied().filter(|&i| b[i].is_ok()).collect();
                    let bs: f64 = both.iter().map(|&i| *b[i].as_ref().unwrap()).sum();
                    let ss: f64 = both.iter().map(|&i| *t[i].as_ref().unwrap()).sum();
                    (ss > 0.0 && !both.is_empty()).then(|| bs / ss)
                });
                let mut docs_cell = format!("{}", ok.len());
                if ok.len() < docs.len() {
                    let first = t.iter().find_map(|r| r.as_ref().err()).unwrap();
                    docs_cell = format!(
                        "{} of {} (fails: {})",
                        ok.len(),
                        docs.len(),
                        first.chars().take(120).collect::<String>()
                    );
                }
                md.push_str(&row(&[
                    s.name.clone(),
                    s.what.clone(),
                    docs_cell,
                    if ok.is_empty() {
                        "-".into()
                    } else {
                        format!("{mbps:.1}")
                    },
                    if ok.is_empty() {
                        "-".into()
                    } else {
                        format!("{:.0}", ok.len() as f64 / secs)
                    },
                    if small.is_empty() {
                        "-".into()
                    } else {
                        format!("{:.0}", small.len() as f64 / small_secs)
                    },
                    rel.map_or("-".into(), |r| format!("{r:.2}")),
                ]));
                let per_doc: Vec<String> = t
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        format!(
                            "{{\"doc\":{},\"s\":{}}}",
                            js(&docs[i].name),
                            r.as_ref().map_or("null".into(), |v| jn(*v))
                        )
                    })
                    .collect();
                report.raw_json(format!(
                    "{{\"bench\":{},\"subject\":{},\"what\":{},\"docs\":{},\"mb_per_s\":{},\"docs_per_s\":{},\"relative_to_binxml_xml\":{},\"per_doc\":[{}]}}",
                    js(bench),
                    js(&s.name),
                    js(&s.what),
                    ok.len(),
                    jn(mbps),
                    jn(ok.len() as f64 / secs),
                    jn(rel.unwrap_or(f64::NAN)),
                    per_doc.join(",")
                ));
                cats.push(label);
                vals.push((!ok.is_empty()).then_some(mbps));
            }
        }
    }
    md.push('\n');
    (cats, vals)
}

/// One row of the EXI comparison: binxml's per-document times and EXIficient's in the same mode.
struct ExiCmp<'a> {
    mode: &'static str,
    op: &'static str,
    subject: String,
    /// The same input bytes (decode) or the same events (encode) as EXIficient's.
    like_for_like: bool,
    ours: &'a [Result<f64, String>],
    theirs: Result<&'a [Result<f64, String>], String>,
}

/// Per-document throughput ratios of binxml's EXI codec over EXIficient's (EXIficient's time
/// over binxml's, on the same document in the same mode): the table, the documents where binxml
/// is slowest relative to EXIficient, and the raw ratios in the JSON file.
fn exi_comparison(md: &mut String, report: &mut Report, docs: &[&Doc], rows: &[ExiCmp<'_>]) {
    md.push_str(
        "### EXI beside EXIficient

",
    );
    md.push_str("binxml's EXI codec over EXIficient 1.0.7 in the same run, per document: **ratio** = EXIficient's time / binxml's time on the same document (above 1: binxml is faster; the issue's target is 5). EXIficient decodes its own encoding of the document and encodes the SAX events it recorded, in its default options (bit-packed) or with `CodingMode.COMPRESSION`; it drops whitespace-only text between tags (and `xsi:schemaLocation`), so it has fewer events to handle than binxml's default encoder (`Whitespace::Preserve`). The like-for-like rows (**bold**) give binxml the same work: decoding the stream binxml writes with `Whitespace::DropBetweenTags` (EXIficient's bytes, except in documents with `xsi:schemaLocation`) by the codec's push loop, and encoding with `Whitespace::DropBetweenTags`. As the Java harness keeps one EXIficient reader for every document and run, the *push (ExiDecoder::read_into)* rows keep one `ExiDecoder` (`ExiDecoder::reset` onto each document) per option set for the whole run. The bit-packed encoders are likewise kept on both sides: the Java harness keeps one `EXIResult` (writer) for every document and run, giving it the output stream anew for each document (`setOutputStream` writes the header, `startDocument` clears EXIficient's string tables and learned grammars; the harness checks on every document that the bytes equal a new `EXIResult`'s), and the bit-packed encode rows keep one `ExiEncoder` (`ExiEncoder::reset`, its output buffer cleared). EXIficient's compression writer cannot take a second document (it closes its `Deflater` at the end of the stream), so the Java harness makes a new `EXIResult` per document there (from one shared `EXIFactory`), and the compression encode rows make a new `ExiEncoder` per document (into one reused output buffer). (binxml's bit-packed encoder made anew for each document is the *binxml exi, recorded events (a Tape) -> bytes* row of the speed table.) The pull and *through AnyDecoder* rows make a decoder per document, as `binxml::AnyDecoder` does. *Push through AnyDecoder* is what `binxml::AnyDecoder::read_into` (the generic *push* rows above) does with EXI: it holds the decoder in a `Box`, and the call there reaches the `Box`'s provided `read_into`, which pulls each event and dispatches it, not `ExiDecoder::read_into`. MB/s are totals over the documents both timed (MB of XML); *total* is the ratio of the summed times, *median*, *geo. mean*, *min* and *max* are over the per-document ratios.\n\n");
    md.push_str(&row(&[
        "mode".into(),
        "op".into(),
        "binxml".into(),
        "docs".into(),
        "binxml MB/s".into(),
        "EXIficient MB/s".into(),
        "total".into(),
        "median".into(),
        "geo. mean".into(),
        "min".into(),
        "max".into(),
        "docs ≥ 1x".into(),
        "docs ≥ 5x".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 13]));
    let short = |d: usize| docs[d].name.rsplit('/').next().unwrap_or("").to_string();
    let mut slow: Vec<String> = Vec::new();
    let mut headline: Vec<String> = Vec::new();
    for r in rows {
        let b = |x: String| {
            if r.like_for_like {
                format!("**{x}**")
            } else {
                x
            }
        };
        let theirs = match &r.theirs {
            Ok(t) => *t,
            Err(e) => {
                md.push_str(&row(&[
                    r.mode.into(),
                    r.op.into(),
                    b(r.subject.clone()),
                    "-".into(),
                    "-".into(),
                    format!("EXIficient: {}", e.chars().take(100).collect::<String>()),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ]));
                continue;
            }
        };
        let both: Vec<usize> = (0..docs.len())
            .filter(|&i| r.ours[i].is_ok() && theirs[i].is_ok())
            .collect();
        if both.is_empty() {
            continue;
        }
        let t = |v: &Result<f64, String>| *v.as_ref().unwrap();
        let (mut so, mut st, mut bytes) = (0.0, 0.0, 0usize);
        let mut ratios: Vec<(f64, usize)> = Vec::new();
        for &i in &both {
            so += t(&r.ours[i]);
            st += t(&theirs[i]);
            bytes += docs[i].xml.len();
            ratios.push((t(&theirs[i]) / t(&r.ours[i]), i));
        }
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let med = ratios[ratios.len() / 2].0;
        let gm = measure::geomean(ratios.iter().map(|x| x.0)).unwrap();
        let (lo, hi) = (ratios[0], ratios[ratios.len() - 1]);
        let at_least = |k: f64| ratios.iter().filter(|x| x.0 >= k).count();
        md.push_str(&row(&[
            r.mode.into(),
            r.op.into(),
            b(r.subject.clone()),
            both.len().to_string(),
            format!("{:.1}", measure::mbps(bytes, so)),
            format!("{:.1}", measure::mbps(bytes, st)),
            format!("{:.2}", st / so),
            format!("{med:.2}"),
            b(format!("{gm:.2}")),
            format!("{:.2} (`{}`)", lo.0, short(lo.1)),
            format!("{:.2} (`{}`)", hi.0, short(hi.1)),
            format!("{}/{}", at_least(1.0), both.len()),
            format!("{}/{}", at_least(5.0), both.len()),
        ]));
        let per_doc: Vec<String> = ratios
            .iter()
            .map(|(x, i)| format!("{{\"doc\":{},\"ratio\":{}}}", js(&docs[*i].name), jn(*x)))
            .collect();
        report.raw_json(format!(
            "{{\"bench\":\"exi-vs-exificient\",\"mode\":{},\"op\":{},\"subject\":{},\"like_for_like\":{},\"docs\":{},\"mb_per_s\":{},\"exificient_mb_per_s\":{},\"total_ratio\":{},\"median\":{},\"geomean\":{},\"min\":{},\"max\":{},\"at_least_5\":{},\"per_doc\":[{}]}}",
            js(r.mode),
            js(r.op),
            js(&r.subject),
            r.like_for_like,
            both.len(),
            jn(measure::mbps(bytes, so)),
            jn(measure::mbps(bytes, st)),
            jn(st / so),
            jn(med),
            jn(gm),
            jn(lo.0),
            jn(hi.0),
            at_least(5.0),
            per_doc.join(",")
        ));
        if r.like_for_like {
            headline.push(format!(
                "{} {} {gm:.2}x (total {:.2}x)",
                r.mode,
                r.op,
                st / so
            ));
            let list: Vec<String> = ratios
                .iter()
                .take(5)
                .map(|&(x, i)| {
                    format!(
                        "`{}` ({} KB: {:.3} ms, EXIficient {:.3} ms, {x:.2}x)",
                        docs[i].name,
                        docs[i].xml.len() / 1024,
                        t(&r.ours[i]) * 1e3,
                        t(&theirs[i]) * 1e3
                    )
                })
                .collect();
            slow.push(format!("- {} {}: {}", r.mode, r.op, list.join(", ")));
        }
    }
    md.push('\n');
    if !slow.is_empty() {
        md.push_str("Where binxml is slowest relative to EXIficient (like-for-like rows, the five lowest ratios):\n\n");
        for l in &slow {
            md.push_str(l);
            md.push('\n');
        }
        md.push('\n');
        report.headlines.push(format!(
            "EXI against EXIficient 1.0.7, like for like (the same bytes decoded by push, one decoder for every document on both sides; the same events encoded, one bit-packed encoder for every document on both sides, binxml's `ExiEncoder::reset` and EXIficient's `EXIResult` given a new output stream, and a new compression encoder per document on both sides), binxml's throughput over EXIficient's, geometric mean over the documents (target 5x): {}.",
            headline.join(", ")
        ));
    }
}
