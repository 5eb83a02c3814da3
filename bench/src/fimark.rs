//! FI Mark (seed 004: Sun's XML Test, renamed): the life cycle of an invoice as transactions per
//! second, for every format, with 1 and 2 threads.
//!
//! - Tree (`inv100.xml`, 100 line items): parse into binxml's tree, access the currency
//!   attribute and the amount of every `*PriceAmount` of every line item, raise every such
//!   amount by 10%, delete the first N line items and insert N new ones after the last (copies of
//!   the first, with LineIDs continuing from the largest), serialize in the same format.
//! - Streaming (`inv1000.xml`, 1000 line items): pull every event and access the same values.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use binxml::tree::NodeId;
use binxml::{Decoder, Document, Event, Format};

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
            n.attributes().to_vec(),
            n.namespaces().to_vec(),
            n.child_ids().to_vec(),
        )
    };
    let id = doc.create(kind);
    for ns in nss {
        doc.declare_namespace(id, ns.prefix, ns.uri);
    }
    for a in attrs {
        doc.set_attribute(id, a.name, a.value);
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
}

impl Codec {
    fn of(f: Format) -> Codec {
        Codec {
            name: f.name().to_string(),
            f,
            dopts: binxml::DecodeOptions::default(),
            eopts: binxml::EncodeOptions::default(),
        }
    }
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
    });
    v
}

/// One tree transaction: parse, access, modify, serialize.
pub fn tree_txn(c: &Codec, input: &[u8], check: bool) -> Result<Seen, String> {
    let f = c.f;
    let mut doc = binxml::parse_tree_with(f, input, &c.dopts).map_err(|e| e.to_string())?;
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
        let back = binxml::parse_tree_with(f, &out, &c.dopts)
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

/// One streaming transaction: parse and access.
pub fn stream_txn(c: &Codec, input: &[u8]) -> Result<Seen, String> {
    let mut d = binxml::AnyDecoder::new(c.f, input, &c.dopts).map_err(|e| e.to_string())?;
    let mut seen = Seen::default();
    let mut depth = 0usize;
    let mut item_depth = 0usize;
    let mut price_depth = 0usize;
    let mut text = String::new();
    while let Some(ev) = d.next_event().map_err(|e| e.to_string())? {
        match ev {
            Event::StartElement(q) => {
                depth += 1;
                if item_depth == 0 && q.local == "LineItem" {
                    item_depth = depth;
                    seen.items += 1;
                } else if item_depth != 0 && price_depth == 0 && is_price(&q.local) {
                    price_depth = depth;
                    text.clear();
                }
            }
            Event::Attribute { name, value }
                if price_depth == depth && price_depth != 0 && name.local == "currencyId" =>
            {
                seen.currency_bytes += value.len();
            }
            Event::Characters { text: t, .. } if price_depth != 0 => text.push_str(&t),
            Event::Typed(t) if price_depth != 0 => t.write_lexical(&mut text),
            Event::EndElement => {
                if depth == price_depth {
                    seen.prices += 1;
                    seen.cents += cents(&text);
                    price_depth = 0;
                }
                if depth == item_depth {
                    item_depth = 0;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    Ok(seen)
}

/// Transactions per second with `threads` threads: each runs transactions until the sample's
/// time is up; the median of `samples` samples.
fn tps(threads: usize, sample: Duration, samples: usize, txn: &(dyn Fn() -> bool + Sync)) -> f64 {
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
    for c in codecs() {
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
        let stream = check(enc1000, false);
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
    for _ in 0..samples {
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
        "Transactions per second (median of {samples} samples of {} ms after {} ms of warm-up; the samples of all formats run interleaved, round by round), with 1 and 2 threads each running transactions on its own copy of the work. **Streaming** (`inv1000.xml`, {} bytes as XML): pull every event, read the `currencyId` attribute and the amount of every `*PriceAmount` element (gross and net unit price) of every line item. **Tree** (`inv100.xml`, {} bytes): parse into binxml's tree, the same access, raise every amount by 10%, delete the first {CHANGED} line items and insert {CHANGED} at the end (copies of the first, LineIDs continuing from the largest), serialize in the same format. The input is pre-encoded in each format (each format's default options; `exi compression` is EXI with `Alignment::Compression`, and EXI's defaults leave out prefixes, comments and processing instructions, which the invoices' transactions do not read); each transaction was checked once (the same prices, currencies and sums as text XML; the serialized output read back with the new LineIDs in order). `vs XML` is the increase in transactions per second over text XML, as seed 004's table 2 reports it (Fast Infoset there: +155% streaming, +31% tree on average).\n",
        sample.as_millis(),
        warm.as_millis(),
        inv1000.len(),
        inv100.len()
    );
    md.push_str(&row(&[
        "format".into(),
        "inv1000 bytes".into(),
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
    md.push_str(&row(&vec!["---".to_string(); 11]));
    let mut cats = Vec::new();
    let (mut c_s1, mut c_t1) = (Vec::new(), Vec::new());
    for (c, tree, stream, s100, s1000) in &rows {
        let mut cells = vec![c.name.clone(), s1000.to_string()];
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
