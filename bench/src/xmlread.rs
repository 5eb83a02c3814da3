//! Reading XML: binxml's XML decoder (events) and tree beside raw quick-xml events and
//! roxmltree, on every corpus document.

use binxml_core::Decoder;

use crate::measure::{self, Config, Report, mbps, row};

pub fn quick_xml_events(doc: &[u8]) -> usize {
    let mut r = quick_xml::Reader::from_reader(doc);
    let mut n = 0;
    loop {
        match r.read_event() {
            Ok(quick_xml::events::Event::Eof) => return n,
            Ok(_) => n += 1,
            Err(e) => panic!("quick-xml: {e}"),
        }
    }
}

/// quick-xml doing the work binxml's decoder does: namespaces resolved, every attribute parsed
/// and unescaped, text with line ends normalized.
pub fn quick_xml_full(doc: &[u8]) -> usize {
    let mut r = quick_xml::NsReader::from_reader(doc);
    let mut n = 0;
    loop {
        match r.read_resolved_event() {
            Ok((_, quick_xml::events::Event::Eof)) => return n,
            Ok((_, quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e))) => {
                for a in e.attributes() {
                    let a = a.expect("attribute");
                    let _ = r.resolver().resolve_attribute(a.key);
                    n += a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map(|v| v.len())
                        .unwrap_or(0);
                }
                n += 1;
            }
            Ok((_, quick_xml::events::Event::Text(t))) => n += t.xml10_content().len(),
            Ok(_) => n += 1,
            Err(e) => panic!("quick-xml: {e}"),
        }
    }
}

fn binxml_events(doc: &[u8]) -> usize {
    let mut d = binxml_xml::XmlDecoder::new(doc);
    let mut n = 0;
    while let Some(_ev) = d.next_event().unwrap() {
        n += 1;
    }
    n
}

/// Push decoding: every event handed to a sink that counts them (`Decoder::read_into`, the
/// path the tree and the converters use), the SAX "empty handler".
fn binxml_push(doc: &[u8]) -> usize {
    let mut d = binxml_xml::XmlDecoder::new(doc);
    let mut sink = binxml_core::CountingSink::default();
    d.read_into(&mut sink).unwrap();
    std::hint::black_box(sink.bytes);
    sink.events as usize
}

/// The XML -> tree API: the decoder pushes straight into the builder.
fn binxml_tree(doc: &[u8]) -> usize {
    binxml_tree::Document::parse(&mut binxml_xml::XmlDecoder::new(doc), doc.len())
        .unwrap()
        .len()
}

/// The tree built from a decoder's events pulled one at a time (here the XML decoder's).
fn binxml_tree_generic(doc: &[u8]) -> usize {
    /// The decoder with the trait's provided push decoding: `next_event` until the end.
    struct Pulled<'a>(binxml_xml::XmlDecoder<'a>);
    impl<'a> binxml_core::Decoder<'a> for Pulled<'a> {
        fn next_event(&mut self) -> binxml_core::Result<Option<binxml_core::Event<'a>>> {
            self.0.next_event()
        }
        fn offset(&self) -> u64 {
            self.0.offset()
        }
    }
    let mut d = Pulled(binxml_xml::XmlDecoder::new(doc));
    binxml_tree::Document::parse(&mut d, doc.len())
        .unwrap()
        .len()
}

pub fn roxmltree_parse(doc: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(doc).ok()?;
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, opts)
        .ok()
        .map(|d| d.descendants().count())
}

pub fn run(cfg: &Config, report: &mut Report) {
    let docs = measure::xml_documents(cfg);
    let mut md = String::from("## Reading XML: events and tree (issue 2 budget)\n\n");
    md.push_str("Throughput in MB/s of XML. `binxml pull` hands out one `Event` per call (`Decoder::next_event`); `binxml push` hands every event to a sink that counts them (`Decoder::read_into`, the SAX way: element starts and ends, attributes, namespace declarations and text as their parts). `pull ratio` and `push ratio` = that time / quick-xml raw events time (issue 2's budget: at most 1.25). Raw quick-xml events neither parse attributes nor resolve namespaces; `quick-xml full` is quick-xml doing the work binxml's decoder does (NsReader, every attribute parsed and unescaped, text normalized), and `full ratio` = binxml push time / that. `tree ratio` = binxml tree time / roxmltree time (budget: at most 1.0), the tree built by `Document::parse` over the XML decoder (pushing into the builder); `generic ratio` = the same for the tree built from the decoder's events pulled one at a time.\n\n");
    md.push_str(&row(&[
        "document".into(),
        "KB".into(),
        "quick-xml events".into(),
        "quick-xml full".into(),
        "binxml pull".into(),
        "binxml push".into(),
        "pull ratio".into(),
        "push ratio".into(),
        "full ratio".into(),
        "roxmltree".into(),
        "binxml tree".into(),
        "tree ratio".into(),
        "generic ratio".into(),
    ]));
    md.push_str(&row(&vec!["---".to_string(); 13]));
    let (mut tq, mut tf, mut tb, mut tr, mut tt, mut bytes_all, mut bytes_rox) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0usize, 0usize);
    let mut tg = 0.0;
    let mut tp = 0.0;
    for (name, doc) in &docs {
        let q = measure::time(cfg, || quick_xml_events(doc));
        let f = measure::time(cfg, || quick_xml_full(doc));
        let b = measure::time(cfg, || binxml_events(doc));
        let p = measure::time(cfg, || binxml_push(doc));
        assert_eq!(
            binxml_push(doc),
            binxml_events(doc),
            "{name}: push and pull disagree"
        );
        tp += p;
        report.raw("xmlread", "binxml push", name, "seconds", p);
        tf += f;
        report.raw("xmlread", "quick-xml full", name, "seconds", f);
        let t = measure::time(cfg, || binxml_tree(doc));
        let g = measure::time(cfg, || binxml_tree_generic(doc));
        let rox_ok = roxmltree_parse(doc).is_some();
        let r = if rox_ok {
            Some(measure::time(cfg, || roxmltree_parse(doc)))
        } else {
            None
        };
        tq += q;
        tb += b;
        bytes_all += doc.len();
        if let Some(r) = r {
            tr += r;
            tt += t;
            tg += g;
            bytes_rox += doc.len();
        }
        report.raw("xmlread", "quick-xml events", name, "seconds", q);
        report.raw("xmlread", "binxml events", name, "seconds", b);
        report.raw("xmlread", "binxml tree", name, "seconds", t);
        report.raw("xmlread", "binxml tree (events)", name, "seconds", g);
        if let Some(r) = r {
            report.raw("xmlread", "roxmltree", name, "seconds", r);
        }
        md.push_str(&row(&[
            name.clone(),
            format!("{:.0}", doc.len() as f64 / 1024.0),
            format!("{:.0}", mbps(doc.len(), q)),
            format!("{:.0}", mbps(doc.len(), f)),
            format!("{:.0}", mbps(doc.len(), b)),
            format!("{:.0}", mbps(doc.len(), p)),
            format!("{:.2}", b / q),
            format!("{:.2}", p / q),
            format!("{:.2}", p / f),
            r.map_or("cannot parse (DTD entities)".into(), |r| {
                format!("{:.0}", mbps(doc.len(), r))
            }),
            format!("{:.0}", mbps(doc.len(), t)),
            r.map_or("-".into(), |r| format!("{:.2}", t / r)),
            r.map_or("-".into(), |r| format!("{:.2}", g / r)),
        ]));
    }
    md.push_str(&row(&[
        "**all documents**".into(),
        format!("{:.0}", bytes_all as f64 / 1024.0),
        format!("{:.0}", mbps(bytes_all, tq)),
        format!("{:.0}", mbps(bytes_all, tf)),
        format!("{:.0}", mbps(bytes_all, tb)),
        format!("{:.0}", mbps(bytes_all, tp)),
        format!("**{:.2}**", tb / tq),
        format!("**{:.2}**", tp / tq),
        format!("**{:.2}**", tp / tf),
        format!("{:.0}", mbps(bytes_rox, tr)),
        format!("{:.0}", mbps(bytes_rox, tt)),
        format!("**{:.2}**", tt / tr),
        format!("**{:.2}**", tg / tr),
    ]));
    md.push_str("\nThe totals weigh each document by its time (sum of times over sum of bytes); the tree totals cover the documents roxmltree parses.\n");
    report.section(md);
}
