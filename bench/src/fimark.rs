//! FI Mark (seed 004: Sun's XML Test, renamed): the life cycle of an invoice as transactions per
//! second, for every format, with 1 and 2 threads.
//!
//! - Tree (`inv100.xml`, 100 line items): parse into binxml's tree, access the currency
//!   attribute and the amount of every `*PriceAmount` of every line item, raise every such
//!   amount by 10%, delete the first N line items and insert N new ones after the last (copies of
//!   the first, with LineIDs continuing from the largest), serialize in the same format.
//! - Streaming (`inv1000.xml`, 1000 line items): pull every event and access the same values.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use binxml::tree::NodeId;
use binxml::{Decoder, Document, Event, EventSink, Format, QName};

use crate::measure::{self, Config, Report, guarded, jn, js, row};
use crate::svg;

/// Line items deleted and inserted per tree transaction.
const CHANGED: usize = 10;

fn is_price(local: &str) -> bool {
    local.ends_with("PriceAmount")
}

fn deep_copy<'a>(doc: &mut Document<'a>, src: NodeId) -> NodeId {
    let (kind, attrs, nss, kids) = {
        let n = doc.node(src);
        (
            n.kind().clone(),
            n.attributes()
                .map(|a| (a.name.clone(), a.value.clone()))
                .collect::<Vec<_>>(),
            n.namespaces().to_vec(),
            n.child_ids().to_vec(),
        )
    };
    let id = doc.create(kind);
    for ns in nss {
        doc.declare_namespace(id, ns.prefix, ns.uri);
    }
    for (name, value) in attrs {
        doc.set_attribute(id, name, value);
    }
    for k in kids {
        let c = deep_copy(doc, k);
        doc.append_child(id, c);
    }
    id
}

/// What a transaction saw, to check that every format did the same work.
#[derive(Debug, PartialEq, Default, Clone)]
pub struct Seen {
    prices: usize,
    currency_bytes: usize,
    /// Sum of the amounts in cents (after the raise, for the tree transaction).
    cents: i64,
    items: usize,
    out_bytes: usize,
}

fn cents(s: &str) -> i64 {
    (s.trim().parse::<f64>().unwrap_or(0.0) * 100.0).round() as i64
}

/// A codec of FI Mark: a format and its options (the EXI compression row is `Format::Exi` with
/// `Alignment::Compression`).
pub struct Codec {
    pub name: String,
    pub f: Format,
    pub dopts: binxml::DecodeOptions,
    pub eopts: binxml::EncodeOptions,
    /// FI-D: the external vocabulary both sides were given (the decoder reads through
    /// `FiDecoder::with_vocabularies`, borrowing its input, as plain FI does).
    pub fi_vocab: Option<Arc<binxml_fi::Vocabularies>>,
}

impl Codec {
    fn of(f: Format) -> Codec {
        Codec {
            name: f.name().to_string(),
            f,
            dopts: binxml::DecodeOptions::default(),
            eopts: binxml::EncodeOptions::default(),
            fi_vocab: None,
        }
    }

    /// Push-decodes `input` into `sink`, as seed 004's SAX test parsed.
    fn read_into<'a, S: EventSink<'a>>(
        &'a self,
        input: &'a [u8],
        sink: &mut S,
    ) -> Result<(), String> {
        match &self.fi_vocab {
            Some(v) => binxml_fi::FiDecoder::new(input)
                .with_vocabularies(v)
                .read_into(sink),
            None => binxml::AnyDecoder::new(self.f, input, &self.dopts)
                .and_then(|mut d| d.read_into(sink)),
        }
        .map_err(|e| e.to_string())
    }

    /// The tree of `input`, by push decoding.
    fn tree<'a>(&'a self, input: &'a [u8]) -> Result<Document<'a>, String> {
        match &self.fi_vocab {
            Some(v) => Document::parse(
                &mut binxml_fi::FiDecoder::new(input).with_vocabularies(v),
                input.len().saturating_mul(3),
            ),
            None => binxml::parse_tree_with(self.f, input, &self.dopts),
        }
        .map_err(|e| e.to_string())
    }
}

/// The URI FI-D's documents name their external vocabulary by.
const FID_URI: &str = "urn:binxml:bench:fimark:invoices";

/// FI-D (seed 004's Fast Infoset with an external vocabulary): the vocabulary built from the
/// sample invoices `inv1.xml` and `inv10.xml` (not the documents the transactions read), given
/// to the encoder and to the decoder.
fn fi_d(samples: &[Vec<u8>]) -> Result<Codec, String> {
    let mut vb = binxml_fi::VocabularyBuilder::new();
    for s in samples {
        let ev = binxml_xml::decode(s).map_err(|e| e.to_string())?;
        vb.add_events(ev.iter());
    }
    let voc = Arc::new(vb.build());
    let mut vocabs = binxml_fi::Vocabularies::new();
    vocabs.insert(FID_URI.to_string(), (*voc).clone());
    let vocabs = Arc::new(vocabs);
    Ok(Codec {
        name: "fi-d (external vocabulary)".into(),
        f: Format::Fi,
        dopts: binxml::DecodeOptions::default().with_fi_vocabularies(Some(vocabs.clone())),
        eopts: binxml::EncodeOptions::default().with_fi(
            binxml_fi::FiOptions::default()
                .with_external_vocabulary(Some((FID_URI.to_string(), voc))),
        ),
        fi_vocab: Some(vocabs),
    })
}

/// Every format with its default options, and EXI in compression mode.
pub fn codecs() -> Vec<Codec> {
    let mut v: Vec<Codec> = Format::ALL.iter().map(|&f| Codec::of(f)).collect();
    let z = &crate::corpus::EXI_VARIANTS[1];
    v.push(Codec {
        name: z.name.to_string(),
        f: Format::Exi,
        dopts: z.decode_options(),
        eopts: z.encode_options(),
        fi_vocab: None,
    });
    v
}

/// One tree transaction: parse, access, modify, serialize.
pub fn tree_txn(c: &Codec, input: &[u8], check: bool) -> Result<Seen, String> {
    let f = c.f;
    let mut doc = c.tree(input)?;
    let root = doc.root().ok_or("no root element")?.id();
    let items: Vec<NodeId> = doc
        .node(root)
        .elements()
        .filter(|e| e.local_name() == "LineItem")
        .map(|e| e.id())
        .collect();
    if items.len() < CHANGED {
        return Err(format!("{} line items", items.len()));
    }
    let mut seen = Seen::default();
    // Access.
    let mut prices: Vec<(NodeId, f64)> = Vec::with_capacity(items.len() * 2);
    for &it in &items {
        for p in doc
            .node(it)
            .descendants()
            .filter(|n| is_price(n.local_name()))
        {
            seen.currency_bytes += p.attribute("currencyId").map_or(0, |c| c.len());
            let v: f64 = p
                .text()
                .trim()
                .parse()
                .map_err(|_| "a price is not a number")?;
            prices.push((p.id(), v));
        }
    }
    seen.prices = prices.len();
    // Content modification: every amount up by 10%.
    for (id, v) in prices {
        let raised = format!("{:.2}", v * 1.1);
        if check {
            seen.cents += cents(&raised);
        }
        doc.set_text(id, raised);
    }
    // Structure modification: N new line items after the last one, LineIDs increasing from the
    // largest; the first N deleted.
    let max_id = items
        .iter()
        .filter_map(|&it| {
            doc.node(it)
                .child("LineID")
                .and_then(|l| l.text().trim().parse::<u64>().ok())
        })
        .max()
        .unwrap_or(0);
    let template = items[0];
    let after_last = doc
        .node(root)
        .child_ids()
        .iter()
        .position(|&c| c == *items.last().unwrap())
        .unwrap()
        + 1;
    for (at, k) in (after_last..).zip(1..=CHANGED as u64) {
        let c = deep_copy(&mut doc, template);
        let line_id = doc.node(c).child("LineID").ok_or("no LineID")?.id();
        doc.set_text(line_id, (max_id + k).to_string());
        doc.insert_child(root, at, c);
    }
    for &it in &items[..CHANGED] {
        doc.detach(it);
    }
    // Serialize.
    let mut out = Vec::with_capacity(input.len() + input.len() / 4);
    {
        let mut enc = binxml::AnyEncoder::new(f, &mut out, &c.eopts);
        doc.write_to(&mut enc).map_err(|e| e.to_string())?;
    }
    seen.out_bytes = out.len();
    if check {
        // Read the output back: as many line items, LineIDs of the new ones in order.
        let back = c
            .tree(&out)
            .map_err(|e| format!("reading the output back: {e}"))?;
        let r = back.root().ok_or("output: no root")?;
        let ids: Vec<u64> = r
            .elements()
            .filter(|e| e.local_name() == "LineItem")
            .filter_map(|e| e.child("LineID").and_then(|l| l.text().trim().parse().ok()))
            .collect();
        seen.items = ids.len();
        let tail: Vec<u64> = ids[ids.len() - CHANGED..].to_vec();
        let want: Vec<u64> = (1..=CHANGED as u64).map(|k| max_id + k).collect();
        if tail != want {
            return Err(format!("output LineIDs {tail:?}, expected {want:?}"));
        }
        seen.out_bytes = 0; // sizes differ between formats
    }
    Ok(seen)
}

/// What a streaming transaction keeps while the events go by.
#[derive(Default)]
struct StreamAccess {
    seen: Seen,
    depth: usize,
    item_depth: usize,
    price_depth: usize,
    text: String,
}

impl StreamAccess {
    fn start(&mut self, local: &str) {
        self.depth += 1;
        if self.item_depth == 0 && local == "LineItem" {
            self.item_depth = self.depth;
            self.seen.items += 1;
        } else if self.item_depth != 0 && self.price_depth == 0 && is_price(local) {
            self.price_depth = self.depth;
            self.text.clear();
        }
    }

    fn attribute(&mut self, local: &str, value: &str) {
        if self.price_depth == self.depth && self.price_depth != 0 && local == "currencyId" {
            self.seen.currency_bytes += value.len();
        }
    }

    fn text(&mut self, t: &str) {
        if self.price_depth != 0 {
            self.text.push_str(t);
        }
    }

    fn end(&mut self) {
        if self.depth == self.price_depth {
            self.seen.prices += 1;
            self.seen.cents += cents(&self.text);
            self.price_depth = 0;
        }
        if self.depth == self.item_depth {
            self.item_depth = 0;
        }
        self.depth -= 1;
    }

    fn other(&mut self, ev: &Event<'_>) {
        match ev {
            Event::StartElement(q) => self.start(&q.local),
            Event::Attribute { name, value } => self.attribute(&name.local, value),
            Event::Characters { text, .. } => self.text(text),
            Event::Typed(t) if self.price_depth != 0 => t.write_lexical(&mut self.text),
            Event::EndElement => self.end(),
            _ => {}
        }
    }
}

/// The push interface: each item as it is decoded, as a SAX handler gets it.
impl<'a> EventSink<'a> for StreamAccess {
    fn event(&mut self, event: Event<'a>) -> binxml::core::Result<()> {
        self.other(&event);
        Ok(())
    }
    fn start_element(&mut self, name: QName<'a>) -> binxml::core::Result<()> {
        self.start(&name.local);
        Ok(())
    }
    fn namespace(&mut self, _: Cow<'a, str>, _: Cow<'a, str>) -> binxml::core::Result<()> {
        Ok(())
    }
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> binxml::core::Result<()> {
        StreamAccess::attribute(self, &name.local, &value);
        Ok(())
    }
    fn end_element(&mut self) -> binxml::core::Result<()> {
        self.end();
        Ok(())
    }
    fn text(&mut self, text: Cow<'a, str>) -> binxml::core::Result<()> {
        StreamAccess::text(self, &text);
        Ok(())
    }
    fn transient(&mut self, event: &Event<'_>) -> binxml::core::Result<()> {
        self.other(event);
        Ok(())
    }
}

/// One streaming transaction: parse and access, by push decoding (seed 004's streaming test
/// is a SAX parse).
pub fn stream_txn(c: &Codec, input: &[u8]) -> Result<Seen, String> {
    let mut a = StreamAccess::default();
    c.read_into(input, &mut a)?;
    Ok(a.seen)
}

/// The same transaction by pulling the events one by one (`next_event`), as `binxml inspect`
/// and a pull consumer read: shown beside the push figures.
pub fn stream_pull_txn(c: &Codec, input: &[u8]) -> Result<Seen, String> {
    let mut a = StreamAccess::default();
    match &c.fi_vocab {
        Some(v) => {
            let mut d = binxml_fi::FiDecoder::new(input).with_vocabularies(v);
            while let Some(ev) = d.next_event().map_err(|e| e.to_string())? {
                a.other(&ev);
            }
        }
        None => {
            let mut d = binxml::AnyDecoder::new(c.f, input, &c.dopts).map_err(|e| e.to_string())?;
            while let Some(ev) = d.next_event().map_err(|e| e.to_string())? {
                a.other(&ev);
            }
        }
    }
    Ok(a.seen)
}

/// Transactions per second with `threads` threads: each runs transactions until the sample's
/// time is up; the median of `samples` samples.
fn tps(threads: usize, sample: Duration, samples: usize, txn: &(dyn Fn() -> bool + Sync)) -> f64 {
    if threads == 1 {
        // one thread: per second of the thread's CPU time, so that the time this shared
        // machine's other processes take from it is not counted
        let mut v: Vec<f64> = (0..samples)
            .map(|_| {
                let start = measure::thread_cpu_secs();
                let mut n = 0usize;
                loop {
                    std::hint::black_box(txn());
                    n += 1;
                    let spent = measure::thread_cpu_secs() - start;
                    if spent >= sample.as_secs_f64() {
                        return n as f64 / spent;
                    }
                }
            })
            .collect();
        return measure::median(&mut v);
    }
    let mut v: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            let total: usize = std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(|| {
                            let mut n = 0usize;
                            loop {
                                std::hint::black_box(txn());
                                n += 1;
                                if start.elapsed() >= sample {
                                    return n;
                                }
                            }
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).sum()
            });
            total as f64 / start.elapsed().as_secs_f64()
        })
        .collect();
    measure::median(&mut v)
}

/// One codec's figures for both kinds of transaction: (codec, tree, streaming, size of
/// `inv100.xml`, size of `inv1000.xml` in the format), each kind's figures or why it did not run.
type PerFormat<C, T> = (C, Result<T, String>, Result<T, String>, usize, usize);

pub fn run(cfg: &Config, report: &mut Report) {
    let dir = measure::corpus().join("exi_w3c_testsuite/data/Invoice");
    let (Ok(inv100), Ok(inv1000)) = (
        std::fs::read(dir.join("inv100.xml")),
        std::fs::read(dir.join("inv1000.xml")),
    ) else {
        report.section(
            "## FI Mark (seed 004)\n\nNot run: the invoice documents are not in the corpus.\n"
                .into(),
        );
        return;
    };
    let (sample, samples, warm) = if cfg.smoke {
        (Duration::ZERO, 1, Duration::ZERO)
    } else {
        (Duration::from_millis(400), 5, Duration::from_millis(200))
    };
    let threads = [1usize, 2];
    let mut reference: (Seen, Seen) = (Seen::default(), Seen::default());
    // Prepare and check every (format, kind) first: (format, tree input, stream input).
    let mut prepared: Vec<PerFormat<Codec, Vec<u8>>> = Vec::new();
    let mut all = codecs();
    let samples_fid: Result<Vec<Vec<u8>>, String> = ["inv1.xml", "inv10.xml"]
        .iter()
        .map(|n| std::fs::read(dir.join(n)).map_err(|e| format!("{n}: {e}")))
        .collect();
    let fid = samples_fid.and_then(|s| fi_d(&s));
    let fid_error = fid.as_ref().err().cloned();
    if let Ok(c) = fid {
        // beside plain FI
        let at = all
            .iter()
            .position(|c| c.f == Format::Fi)
            .map_or(all.len(), |k| k + 1);
        all.insert(at, c);
    }
    for c in all {
        let f = c.f;
        if crate::corpus::export_only(f) {
            let why = Err("not applicable: JsonML export (see the size section)".to_string());
            prepared.push((c, why.clone(), why, 0, 0));
            continue;
        }
        let convert = |xml: &[u8]| {
            let mut out = Vec::new();
            binxml::convert_with(
                xml,
                Format::Xml,
                &binxml::DecodeOptions::default(),
                f,
                &mut out,
                &c.eopts,
            )
            .map(|_| out)
            .map_err(|e| e.to_string())
        };
        let enc100 = convert(&inv100);
        let enc1000 = convert(&inv1000);
        let (s100, s1000) = (
            enc100.as_ref().map_or(0, |b| b.len()),
            enc1000.as_ref().map_or(0, |b| b.len()),
        );
        let mut check = |input: Result<Vec<u8>, String>, tree: bool| -> Result<Vec<u8>, String> {
            let input = input?;
            // Run the transaction once and compare what it saw with text XML's.
            let seen = guarded(|| {
                if tree {
                    tree_txn(&c, &input, true)
                } else {
                    stream_txn(&c, &input)
                }
            })?;
            let r = if tree {
                &mut reference.0
            } else {
                &mut reference.1
            };
            if f == Format::Xml {
                *r = seen;
            } else if *r != Seen::default() && *r != seen {
                return Err(format!(
                    "the transaction saw other values than text XML's: {seen:?} against {r:?}"
                ));
            }
            Ok(input)
        };
        let tree = check(enc100, true);
        let stream = check(enc1000, false).and_then(|input| {
            // pulling sees what pushing saw
            let pulled = guarded(|| stream_pull_txn(&c, &input))?;
            if pulled != guarded(|| stream_txn(&c, &input))? {
                return Err("pulling saw other values than pushing".into());
            }
            Ok(input)
        });
        prepared.push((c, tree, stream, s100, s1000));
    }
    // Measure interleaved: each sample round runs every (format, kind, threads) in turn, so
    // that load changes on this shared machine fall on all alike.
    let txn_of = |c: &Codec, input: &[u8], tree: bool| {
        if tree {
            tree_txn(c, input, false).is_ok()
        } else {
            stream_txn(c, input).is_ok()
        }
    };
    for (c, tree, stream, _, _) in &prepared {
        for (input, is_tree) in [(tree, true), (stream, false)] {
            if let Ok(input) = input {
                let t0 = Instant::now();
                while t0.elapsed() < warm {
                    txn_of(c, input, is_tree);
                }
            }
        }
    }
    // samples[p][kind][threads] -> Vec<f64>
    let mut got: Vec<[Vec<Vec<f64>>; 2]> = prepared
        .iter()
        .map(|_| {
            [
                vec![Vec::new(); threads.len()],
                vec![Vec::new(); threads.len()],
            ]
        })
        .collect();
    // streaming by pulling, 1 thread: [p] -> samples
    let mut pulled: Vec<Vec<f64>> = vec![Vec::new(); prepared.len()];
    for _ in 0..samples {
        for (p, (c, _, stream, _, _)) in prepared.iter().enumerate() {
            if let Ok(input) = stream {
                let txn = || stream_pull_txn(c, input).is_ok();
                pulled[p].push(tps(1, sample, 1, &txn));
            }
        }
        for (p, (c, tree, stream, _, _)) in prepared.iter().enumerate() {
            for (kind, (input, is_tree)) in [(tree, true), (stream, false)].into_iter().enumerate()
            {
                if let Ok(input) = input {
                    for (t, &th) in threads.iter().enumerate() {
                        let txn = || txn_of(c, input, is_tree);
                        got[p][kind][t].push(tps(th, sample, 1, &txn));
                    }
                }
            }
        }
    }
    let mut rows: Vec<PerFormat<&Codec, Vec<f64>>> = Vec::new();
    let mut pull_rows: Vec<Option<f64>> = Vec::new();
    for (p, (c, tree, stream, s100, s1000)) in prepared.iter().enumerate() {
        let res = |kind: usize, input: &Result<Vec<u8>, String>| -> Result<Vec<f64>, String> {
            input.as_ref().map_err(|e| e.clone())?;
            Ok(got[p][kind]
                .iter()
                .map(|v| measure::median(&mut v.clone()))
                .collect())
        };
        let (t, s) = (res(0, tree), res(1, stream));
        let tps_of = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let threads_list = threads
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" / ");
        match (&t, &s) {
            (Ok(tv), Ok(sv)) => eprintln!(
                "fimark {}: tree {}, streaming {} transactions/s ({threads_list} threads)",
                c.name,
                tps_of(tv),
                tps_of(sv)
            ),
            (Err(e), _) | (_, Err(e)) => eprintln!("fimark {}: not run ({e})", c.name),
        }
        rows.push((c, t, s, *s100, *s1000));
        pull_rows.push(
            stream
                .as_ref()
                .ok()
                .map(|_| measure::median(&mut pulled[p].clone())),
        );
    }
    let base = rows
        .iter()
        .find(|r| r.0.f == Format::Xml)
        .map(|r| (r.1.clone().ok(), r.2.clone().ok()));
    let pct = |v: f64, b: Option<f64>| {
        b.map_or("-".into(), |b| format!("{:+.0}%", (v / b - 1.0) * 100.0))
    };

    let mut md = String::from("## FI Mark (seed 004: Sun's XML Test)\n\n");
    let _ = writeln!(
        md,
        "Transactions per second (median of {samples} samples of {} ms after {} ms of warm-up; the samples of all formats run interleaved, round by round), with 1 and 2 threads each running transactions on its own copy of the work (1 thread: transactions per second of the thread's CPU time, so that time taken by the shared machine's other processes is not counted; 2 threads: per second of wall-clock time, which that load lowers). **Streaming** (`inv1000.xml`, {} bytes as XML): push decoding (`read_into` a handler that gets each item as it is decoded, as seed 004's SAX test parsed), read the `currencyId` attribute and the amount of every `*PriceAmount` element (gross and net unit price) of every line item. **Tree** (`inv100.xml`, {} bytes): parse into binxml's tree, the same access, raise every amount by 10%, delete the first {CHANGED} line items and insert {CHANGED} at the end (copies of the first, LineIDs continuing from the largest), serialize in the same format (the tree is built by push decoding too). **Pull** is the streaming transaction with the events pulled one by one (`next_event`), 1 thread. **fi-d** is Fast Infoset with an external vocabulary (seed 004's FI-D) built by `VocabularyBuilder` from the sample invoices `inv1.xml` and `inv10.xml` (not the documents read here) and given to both the encoder and the decoder (`FiDecoder::with_vocabularies`); the interop test `crates/binxml-fi/tests/interop_sizes.rs` checks that the Java reference decodes such documents with the same vocabulary. The input is pre-encoded in each format (each format's default options; `exi compression` is EXI with `Alignment::Compression`, and EXI's defaults leave out prefixes, comments and processing instructions, which the invoices' transactions do not read); each transaction was checked once (the same prices, currencies and sums as text XML; the serialized output read back with the new LineIDs in order). `vs XML` is the increase in transactions per second over text XML, as seed 004's table 2 reports it (Fast Infoset there: +155% streaming, +31% tree on average).\n",
        sample.as_millis(),
        warm.as_millis(),
        inv1000.len(),
        inv100.len()
    );
    if let Some(e) = &fid_error {
        let _ = writeln!(md, "fi-d not run: {e}.\n");
    }
    md.push_str(&row(&[
        "format".into(),
        "inv1000 bytes".into(),
        "pull 1 thread".into(),
        "vs XML".into(),
        "streaming 1 thread".into(),
        "vs XML".into(),
        "streaming 2 threads".into(),
        "vs XML".into(),
        "inv100 bytes".into(),
        "tree 1 thread".into(),
        "vs XML".into(),
        "tree 2 threads".into(),
        "vs XML".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 13]));
    let pull_base = rows
        .iter()
        .zip(&pull_rows)
        .find(|(r, _)| r.0.f == Format::Xml)
        .and_then(|(_, p)| *p);
    let mut cats = Vec::new();
    let (mut c_s1, mut c_t1) = (Vec::new(), Vec::new());
    for (k, (c, tree, stream, s100, s1000)) in rows.iter().enumerate() {
        let mut cells = vec![c.name.clone(), s1000.to_string()];
        match pull_rows[k] {
            Some(x) => {
                cells.push(format!("{x:.0}"));
                cells.push(pct(x, pull_base));
            }
            None => cells.extend(["-".to_string(), "-".into()]),
        }
        for (res, b, size) in [
            (stream, base.as_ref().and_then(|b| b.1.clone()), None),
            (tree, base.as_ref().and_then(|b| b.0.clone()), Some(*s100)),
        ] {
            if let Some(s) = size {
                cells.push(s.to_string());
            }
            match res {
                Ok(v) => {
                    for (t, x) in v.iter().enumerate() {
                        cells.push(format!("{x:.0}"));
                        cells.push(pct(*x, b.as_ref().map(|b| b[t])));
                    }
                }
                Err(e) => {
                    cells.push(format!(
                        "fails: {}",
                        e.chars().take(150).collect::<String>()
                    ));
                    cells.extend(["-".to_string(), "-".into(), "-".into()]);
                }
            }
        }
        md.push_str(&row(&cells));
        let tj = |r: &Result<Vec<f64>, String>| {
            r.as_ref().map_or("null".into(), |v| {
                format!(
                    "[{}]",
                    v.iter().map(|x| jn(*x)).collect::<Vec<_>>().join(",")
                )
            })
        };
        report.raw_json(format!(
            "{{\"bench\":\"fimark\",\"subject\":{},\"threads\":[1,2],\"stream_tps\":{},\"tree_tps\":{},\"inv100_bytes\":{s100},\"inv1000_bytes\":{s1000}}}",
            js(&c.name),
            tj(stream),
            tj(tree)
        ));
        cats.push(c.name.clone());
        c_s1.push(stream.as_ref().ok().map(|v| v[0]));
        c_t1.push(tree.as_ref().ok().map(|v| v[0]));
    }
    md.push('\n');
    // Seed 004's summary: the average increase over text across the tests of each kind.
    md.push_str("Average increase over text XML (over the 1- and 2-thread tests), as seed 004 summarizes:\n\n");
    md.push_str(&row(&["format".into(), "streaming".into(), "tree".into()]));
    md.push_str(&row(&vec!["---".to_string(); 3]));
    for (c, tree, stream, _, _) in &rows {
        if c.f == Format::Xml {
            continue;
        }
        let avg = |r: &Result<Vec<f64>, String>, b: Option<Vec<f64>>| match (r, b) {
            (Ok(v), Some(b)) => format!(
                "{:+.0}%",
                v.iter()
                    .zip(&b)
                    .map(|(x, y)| (x / y - 1.0) * 100.0)
                    .sum::<f64>()
                    / v.len() as f64
            ),
            _ => "-".into(),
        };
        md.push_str(&row(&[
            c.name.clone(),
            avg(stream, base.as_ref().and_then(|b| b.1.clone())),
            avg(tree, base.as_ref().and_then(|b| b.0.clone())),
        ]));
    }
    md.push('\n');
    let mut hl = Vec::new();
    for (c, tree, stream, _, _) in &rows {
        if c.f == Format::Xml || crate::corpus::export_only(c.f) {
            continue;
        }
        let one = |r: &Result<Vec<f64>, String>, b: Option<Vec<f64>>| match (r, b) {
            (Ok(v), Some(b)) => format!("{:+.0}%", (v[0] / b[0] - 1.0) * 100.0),
            _ => "fails".into(),
        };
        hl.push(format!(
            "{} {} / {}",
            c.name,
            one(stream, base.as_ref().and_then(|b| b.1.clone())),
            one(tree, base.as_ref().and_then(|b| b.0.clone()))
        ));
    }
    report.headlines.push(format!("FI Mark (seed 004), transactions per second over text XML with 1 thread, streaming / tree: {} (seed 004's Fast Infoset: +155% / +31%).", hl.join(", ")));
    md.push_str(&report.svg(
        "fimark",
        "FI Mark transactions per second",
        svg::bars(
            "FI Mark: transactions per second, 1 thread",
            "transactions per second (higher is faster)",
            &cats,
            &[
                ("streaming inv1000".into(), c_s1),
                ("tree inv100".into(), c_t1),
            ],
            true,
            None,
        ),
    ));
    report.section(md);
}
