//! Reproduces Table 1 of the Xebu paper (Kangasharju et al.) in one run: sizes and serialize/parse times of a
//! sequence of SOAP event-notification messages as XML, XML+gzip, Xebu (state kept across the
//! stream), Xebu forget (state reset per message), Fast Infoset (binxml-fi), each +gzip.
//!
//! ```text
//! cargo run --release -p binxml-bench --example xebu_table1 -- [--messages 698] [--iters 30] [--indent] [--out FILE]
//! ```
//!
//! Every message is serialized and gzipped on its own (as sent over a connection); sizes are
//! averages per message. Times are per message, the best of `--iters` passes over the whole
//! sequence (serialization: events -> bytes, parsing: bytes -> events, each +gzip where named).

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use binxml_core::{Decoder, Encoder, Event};
use binxml_xebu::notify::{NotifyOptions, messages};
use binxml_xebu::{XebuDecoder, XebuEncoder, XebuOptions, XebuSchema, XebuStreamDecoder};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

struct Row {
    name: &'static str,
    note: &'static str,
    bytes: Option<usize>,
    ser: Option<Duration>,
    parse: Option<Duration>,
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        Compression::default(),
    );
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip(data: &[u8], out: &mut Vec<u8>) {
    out.clear();
    GzDecoder::new(data).read_to_end(out).unwrap();
}

fn best<F: FnMut()>(iters: usize, mut f: F) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..iters {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

fn xml_serialize(msgs: &[Vec<Event<'static>>]) -> Vec<Vec<u8>> {
    msgs.iter()
        .map(|m| {
            let mut w = binxml_xml::XmlWriter::new(Vec::with_capacity(4096));
            for ev in m {
                w.write_event(ev).unwrap();
            }
            w.finish().unwrap();
            w.into_inner().unwrap()
        })
        .collect()
}

fn fi_serialize(msgs: &[Vec<Event<'static>>]) -> Vec<Vec<u8>> {
    msgs.iter()
        .map(|m| {
            let mut e = binxml_fi::FiEncoder::new(Vec::with_capacity(4096));
            for ev in m {
                e.write_event(ev).unwrap();
            }
            e.finish().unwrap();
            e.into_inner()
        })
        .collect()
}

fn xebu_serialize(msgs: &[Vec<Event<'static>>], opts: &XebuOptions) -> Vec<Vec<u8>> {
    let mut e = XebuEncoder::with_options(Vec::with_capacity(4096), opts.clone());
    msgs.iter()
        .map(|m| {
            for ev in m {
                e.write_event(ev).unwrap();
            }
            e.finish().unwrap();
            std::mem::take(e.get_mut())
        })
        .collect()
}

/// XebuS: one encoder with the schema's omission automata, kept across the messages.
fn xebus_serialize(
    msgs: &[Vec<Event<'static>>],
    opts: &XebuOptions,
    schema: &XebuSchema,
) -> Vec<Vec<u8>> {
    let mut e = XebuEncoder::with_schema(Vec::with_capacity(4096), opts.clone(), schema);
    msgs.iter()
        .map(|m| {
            for ev in m {
                e.write_event(ev).unwrap();
            }
            e.finish().unwrap();
            std::mem::take(e.get_mut())
        })
        .collect()
}

/// XebuS: the messages back to back, read by one decoder whose automata (and, without forget
/// mode, tokens) carry over from message to message.
fn xebus_parse(joined: &[u8], schema: &XebuSchema) -> usize {
    let mut d = XebuDecoder::with_schema(joined, binxml_core::Limits::default(), schema);
    let mut n = 0;
    loop {
        n += count_events(&mut d);
        if !d.next_message() {
            return n;
        }
    }
}

fn count_events<'a>(d: &mut dyn Decoder<'a>) -> usize {
    let mut n = 0;
    while let Some(ev) = d.next_event().unwrap() {
        black_box(&ev);
        n += 1;
    }
    n
}

fn xebu_parse(encoded: &[Vec<u8>]) -> usize {
    let mut d = XebuStreamDecoder::new();
    encoded
        .iter()
        .map(|m| count_events(&mut d.message(m)))
        .sum()
}

/// Forget-mode messages decode on their own, each with a fresh decoder.
fn xebu_parse_each(encoded: &[Vec<u8>]) -> usize {
    encoded
        .iter()
        .map(|m| count_events(&mut XebuDecoder::new(m)))
        .sum()
}

fn xml_parse(encoded: &[Vec<u8>]) -> usize {
    encoded
        .iter()
        .map(|m| count_events(&mut binxml_xml::XmlDecoder::new(m)))
        .sum()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut count, mut iters, mut indent, mut out) = (698usize, 30usize, false, None::<String>);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--messages" => count = args.next().unwrap().parse().unwrap(),
            "--iters" => iters = args.next().unwrap().parse().unwrap(),
            "--indent" => indent = true,
            "--out" => out = args.next(),
            _ => panic!("unknown argument {a}"),
        }
    }
    let genopts = NotifyOptions::default().with_indent(indent);
    let msgs = messages(count, &genopts);
    let n = msgs.len() as u32;
    let events: usize = msgs.iter().map(Vec::len).sum();

    // Correctness first: every format decodes back to the events (XML to their text form).
    let xml = xml_serialize(&msgs);
    let stream = xebu_serialize(&msgs, &XebuOptions::default());
    let forget = xebu_serialize(&msgs, &XebuOptions::forget());
    {
        let mut d = XebuStreamDecoder::new();
        for (m, b) in msgs.iter().zip(&stream) {
            assert_eq!(&d.decode_message(b).unwrap(), m);
        }
        for (m, b) in msgs.iter().zip(&forget) {
            assert_eq!(&binxml_xebu::decode(b).unwrap(), m);
        }
        for (m, b) in msgs.iter().zip(&xml) {
            let back = binxml_xml::decode(b).unwrap();
            assert_eq!(back.len(), m.len());
        }
    }

    let total = |v: &[Vec<u8>]| v.iter().map(Vec::len).sum::<usize>();
    let gz_total = |v: &[Vec<u8>]| v.iter().map(|m| gzip(m).len()).sum::<usize>();
    let xml_gz: Vec<Vec<u8>> = xml.iter().map(|m| gzip(m)).collect();
    let stream_gz: Vec<Vec<u8>> = stream.iter().map(|m| gzip(m)).collect();
    let forget_gz: Vec<Vec<u8>> = forget.iter().map(|m| gzip(m)).collect();

    let mut rows = Vec::new();
    let mut buf = Vec::new();

    // XML
    let ser = best(iters, || {
        black_box(xml_serialize(&msgs));
    });
    let parse = best(iters, || {
        black_box(xml_parse(&xml));
    });
    rows.push(Row {
        name: "XML",
        note: "binxml-xml writer / reader",
        bytes: Some(total(&xml)),
        ser: Some(ser),
        parse: Some(parse),
    });
    let ser = best(iters, || {
        for m in xml_serialize(&msgs) {
            black_box(gzip(&m));
        }
    });
    let parse = best(iters, || {
        for m in &xml_gz {
            gunzip(m, &mut buf);
            black_box(count_events(&mut binxml_xml::XmlDecoder::new(&buf)));
        }
    });
    rows.push(Row {
        name: "XMLZ",
        note: "gzip per message",
        bytes: Some(gz_total(&xml)),
        ser: Some(ser),
        parse: Some(parse),
    });

    // Fast Infoset (binxml-fi, default options: values and chunks under 32 characters indexed,
    // typed values through its encoding algorithms), one document per message.
    let fi = fi_serialize(&msgs);
    let fi_gz: Vec<Vec<u8>> = fi.iter().map(|m| gzip(m)).collect();
    for (m, b) in msgs.iter().zip(&fi) {
        // (FI's default options do not keep the XML declaration's version and encoding.)
        assert!(
            binxml_fi::decode(b).unwrap()[1..] == m[1..],
            "FI round trip"
        );
    }
    let ser = best(iters, || {
        black_box(fi_serialize(&msgs));
    });
    let parse = best(iters, || {
        black_box(
            fi.iter()
                .map(|m| count_events(&mut binxml_fi::FiDecoder::new(m)))
                .sum::<usize>(),
        );
    });
    rows.push(Row {
        name: "FI",
        note: "binxml-fi, default options",
        bytes: Some(total(&fi)),
        ser: Some(ser),
        parse: Some(parse),
    });
    let ser = best(iters, || {
        for m in fi_serialize(&msgs) {
            black_box(gzip(&m));
        }
    });
    let parse = best(iters, || {
        for m in &fi_gz {
            gunzip(m, &mut buf);
            black_box(count_events(&mut binxml_fi::FiDecoder::new(&buf)));
        }
    });
    rows.push(Row {
        name: "FIZ",
        note: "gzip per message",
        bytes: Some(gz_total(&fi)),
        ser: Some(ser),
        parse: Some(parse),
    });

    for (name, zname, opts, enc, enc_gz) in [
        (
            "XebuF",
            "XebuFZ",
            XebuOptions::forget(),
            &forget,
            &forget_gz,
        ),
        ("Xebu", "XebuZ", XebuOptions::default(), &stream, &stream_gz),
    ] {
        let ser = best(iters, || {
            black_box(xebu_serialize(&msgs, &opts));
        });
        let parse = best(iters, || {
            black_box(if opts.forget {
                xebu_parse_each(enc)
            } else {
                xebu_parse(enc)
            });
        });
        let note = if opts.forget {
            "state reset per message"
        } else {
            "state kept across the stream"
        };
        rows.push(Row {
            name,
            note,
            bytes: Some(total(enc)),
            ser: Some(ser),
            parse: Some(parse),
        });
        let ser = best(iters, || {
            for m in xebu_serialize(&msgs, &opts) {
                black_box(gzip(&m));
            }
        });
        let parse = best(iters, || {
            let mut d = XebuStreamDecoder::new();
            for m in enc_gz.iter() {
                gunzip(m, &mut buf);
                if opts.forget {
                    black_box(count_events(&mut XebuDecoder::new(&buf)));
                } else {
                    black_box(count_events(&mut d.message(&buf)));
                }
            }
        });
        rows.push(Row {
            name: zname,
            note: "gzip per message",
            bytes: Some(gz_total(enc)),
            ser: Some(ser),
            parse: Some(parse),
        });
    }
    // XebuFS and XebuS: the omission automata of the hand-written schema.
    let schema = XebuSchema::new(
        binxml::schema::relaxng::RelaxNg::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../crates/binxml-xebu/schemas/notify.rnc"
        ))
        .unwrap(),
    );
    for (name, opts, note) in [
        (
            "XebuFS",
            XebuOptions::forget(),
            "omission automata (schemas/notify.rnc), tokens reset per message",
        ),
        (
            "XebuS",
            XebuOptions::default(),
            "omission automata (schemas/notify.rnc), state kept across the stream",
        ),
    ] {
        let enc = xebus_serialize(&msgs, &opts, &schema);
        let joined: Vec<u8> = enc.concat();
        {
            let mut d = XebuDecoder::with_schema(&joined, binxml_core::Limits::default(), &schema);
            for m in &msgs {
                let mut back = Vec::new();
                while let Some(ev) = d.next_event().unwrap() {
                    back.push(ev);
                }
                assert_eq!(&back, m, "{name} round trip");
                d.next_message();
            }
        }
        let ser = best(iters, || {
            black_box(xebus_serialize(&msgs, &opts, &schema));
        });
        let parse = best(iters, || {
            black_box(xebus_parse(&joined, &schema));
        });
        rows.push(Row {
            name,
            note,
            bytes: Some(total(&enc)),
            ser: Some(ser),
            parse: Some(parse),
        });
    }

    let xml_bytes = total(&xml) as f64;
    let mut md = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        md,
        "{count} SOAP event-notification messages (seed {}, {}, typed integer content), {events} events; \
         sizes are per-message averages, times per message (best of {iters} passes).\n",
        genopts.seed,
        if indent { "indented" } else { "not indented" }
    );
    let _ = writeln!(
        md,
        "| Format | Size (B) | Size (%) | Ser. time (ms) | Ser. thr (1/s) | Parse time (ms) | Parse thr (1/s) | Notes |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---|");
    for r in &rows {
        let (size, pct) = match r.bytes {
            Some(b) => (
                format!("{}", b / n as usize),
                format!("{:.1}", 100.0 * b as f64 / xml_bytes),
            ),
            None => ("–".into(), "–".into()),
        };
        let t = |d: Option<Duration>| match d {
            Some(d) => {
                let per = d.as_secs_f64() / n as f64;
                (format!("{:.4}", per * 1e3), format!("{:.0}", 1.0 / per))
            }
            None => ("–".into(), "–".into()),
        };
        let (st, sthr) = t(r.ser);
        let (pt, pthr) = t(r.parse);
        let _ = writeln!(
            md,
            "| {} | {size} | {pct} | {st} | {sthr} | {pt} | {pthr} | {} |",
            r.name, r.note
        );
    }
    let pct = |name: &str| {
        let r = rows.iter().find(|r| r.name == name).unwrap();
        100.0 * r.bytes.unwrap() as f64 / xml_bytes
    };
    let (x, xf, xs) = (pct("Xebu"), pct("XebuF"), pct("XebuS"));
    let _ = writeln!(
        md,
        "\nTargets (the paper's figures): Xebu ≤ 26.6% of XML: {x:.1}% {}; XebuF ≤ 43.0%: {xf:.1}% {}; \
         XebuS ≤ 16.3%: {xs:.1}% {}",
        if x <= 26.6 { "PASS" } else { "FAIL" },
        if xf <= 43.0 { "PASS" } else { "FAIL" },
        if xs <= 16.3 { "PASS" } else { "FAIL" }
    );
    print!("{md}");
    if let Some(path) = out {
        std::fs::write(&path, &md).unwrap();
    }
}
