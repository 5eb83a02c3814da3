//! The incremental decoder (`XmlReadDecoder`) against the whole-buffer one (`XmlDecoder` over
//! `to_utf8` of the document): documents fed in chunks of 1, 7 and 64 bytes (each `read`
//! giving at most that many, the decoder reading ahead by as little) give the same events at
//! the same offsets, or the same error (message, byte offset, line and column) after the same
//! events. On the corpus, on damaged copies of it, on the W3C XML Conformance Test Suite's
//! documents where the shared suite is present (most of them not well-formed), and on hand-made
//! documents whose tokens straddle every window boundary.

use std::io::Read;

use binxml_core::{Decoder, Error, Event, Limits};
use binxml_xml::{XmlDecoder, XmlReadDecoder, to_utf8};

/// A reader that gives at most `n` bytes a call.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(out.len()).min(self.data.len());
        out[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

type Outcome = (Vec<(u64, Event<'static>)>, Option<String>);

fn describe(e: &Error) -> String {
    format!("{e} [offset {:?}, line/col {:?}]", e.offset(), e.line_col())
}

fn drain(dec: &mut dyn Decoder<'_>) -> Outcome {
    let mut out = Vec::new();
    loop {
        match dec.next_event() {
            Ok(Some(ev)) => out.push((dec.offset(), ev.into_owned())),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(describe(&e))),
        }
    }
}

fn whole(doc: &[u8]) -> Outcome {
    match to_utf8(doc) {
        Ok(utf8) => drain(&mut XmlDecoder::with_limits(&utf8, Limits::default())),
        Err(e) => (Vec::new(), Some(describe(&e))),
    }
}

fn chunked(doc: &[u8], n: usize) -> Outcome {
    let reader = Trickle { data: doc, n };
    drain(&mut XmlReadDecoder::with_limits(reader, Limits::default()).with_chunk_size(n))
}

/// Whether the two outcomes agree; for input that is not UTF-8 (or not XML characters), which
/// the incremental decoder reports when it reaches it, only the error.
fn agree(doc: &[u8], n: usize) -> Result<(), String> {
    let a = whole(doc);
    let b = chunked(doc, n);
    if a == b {
        return Ok(());
    }
    let late_encoding_error = a.0.is_empty()
        && a.1.as_deref().is_some_and(|e| {
            e.contains("invalid UTF-8") || e.contains("a character not allowed in XML")
        });
    if late_encoding_error && a.1 == b.1 {
        return Ok(());
    }
    let first = a.0.iter().zip(&b.0).position(|(x, y)| x != y);
    Err(format!(
        "chunks of {n}: whole {} events, error {:?}; chunked {} events, error {:?}; first \
         difference at event {first:?}: {:?} / {:?}",
        a.0.len(),
        a.1,
        b.0.len(),
        b.1,
        first.map(|i| &a.0[i]),
        first.map(|i| &b.0[i]),
    ))
}

fn check_all(docs: &[(String, Vec<u8>)], sizes: &[usize]) {
    let mut failures = Vec::new();
    for (name, doc) in docs {
        for &n in sizes {
            if n == 1 && doc.len() > 300_000 {
                continue;
            }
            if let Err(e) = agree(doc, n) {
                failures.push(format!("{name}: {e}"));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} documents differ:\n{}",
        failures.len(),
        docs.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_in_tiny_chunks() {
    let docs: Vec<_> = binxml_testkit::corpus_xml_files()
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    check_all(&docs, &[1, 7, 64]);
    eprintln!(
        "{} corpus documents agree in chunks of 1, 7 and 64 bytes",
        docs.len()
    );
}

#[test]
fn damaged_corpus_documents() {
    // Each document cut short at a few places, and with a byte changed to '<', '&', '>', a quote
    // or an invalid UTF-8 byte: the errors (or events) agree.
    let mut docs = Vec::new();
    for p in binxml_testkit::corpus_xml_files() {
        let doc = std::fs::read(&p).unwrap();
        if doc.len() > 200_000 {
            continue;
        }
        let name = p.display().to_string();
        for k in 1..6 {
            let at = doc.len() * k / 6;
            docs.push((format!("{name} cut at {at}"), doc[..at].to_vec()));
            for b in [b'<', b'&', b'>', b'"', 0xFF] {
                let mut d = doc.clone();
                d[at] = b;
                docs.push((format!("{name} with {b:#x} at {at}"), d));
            }
        }
    }
    check_all(&docs, &[7, 64]);
}

#[test]
fn every_window_boundary() {
    // Small documents holding each kind of token, fed at every chunk size up to their length:
    // every token is cut at every place.
    let docs = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n<!DOCTYPE r [\n<!ENTITY e \
         'x&amp;<b>y</b>'>\n<!ATTLIST r d CDATA 'dv'>\n<!-- c > -->\n]>\n<r xmlns='urn:a' \
         xmlns:p='urn:p' p:x='1' y=\"2&lt;\">t&e;&#233;<![CDATA[<c>]]><!--k--><?p d?>\
         <p:s\u{e9} a='\t\r\n'/>\r\n\u{1F600}</r>\n<!--after-->",
        "\u{FEFF}<a>caf\u{e9}</a>",
        "<a><b></a>",
        "<a><!-- x -- y --></a>",
        "<a>x]]>y</a>",
        "<a b='1' b='2'/>",
        "<a b='x<y'/>",
        "<a><![CDATA[x</a>",
        "<a>&undefined;</a>",
        "<a/><b/>",
        "<a>",
        "<a></a></b>",
        "<?xml version='2.0'?><a/>",
        "<a>\n  <b x='1' x='2'/></a>",
        "<a>\u{1}</a>",
        "<?xml version='1.0' encoding='ISO-8859-1'?><a>\u{e9}</a>",
        "",
        "   ",
        "<a",
        "<a/",
        "<a b",
        "<a b=",
        "<a></a",
        "<?p",
        "<!-",
        "<!DOCTYPE a [",
    ];
    let mut all = Vec::new();
    for d in docs {
        let bytes = if d.contains("ISO-8859-1") {
            d.chars().map(|c| c as u32 as u8).collect()
        } else {
            d.as_bytes().to_vec()
        };
        all.push((format!("{d:?}"), bytes));
    }
    let mut bad = b"<a>ok</a>".to_vec();
    bad.splice(4..4, [0xC3]);
    all.push(("bad UTF-8".into(), bad));
    let mut failures = Vec::new();
    for (name, doc) in &all {
        for n in 1..=doc.len().max(1) {
            if let Err(e) = agree(doc, n) {
                failures.push(format!("{name}: {e}"));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn w3c_conformance_documents() {
    let Some(top) = binxml_testkit::shared_suite("conformance/xmlconf/xmlconf.xml") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![top.parent().unwrap().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let docs: Vec<_> = files
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    check_all(&docs, &[1, 7, 64]);
    eprintln!("{} conformance documents agree", docs.len());
}

#[test]
fn a_token_beyond_the_string_limit_is_refused_without_reading_on() {
    // A comment that never ends, in a reader that never ends: refused once it passes the limit.
    struct Endless(bool);
    impl Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let start = if self.0 { &b"<a><!--"[..] } else { b"" };
            self.0 = false;
            let k = start.len();
            out[..k].copy_from_slice(start);
            out[k..].fill(b'x');
            Ok(out.len())
        }
    }
    let limits = Limits::default().with_max_string_len(1 << 16);
    let mut dec = XmlReadDecoder::with_limits(Endless(true), limits);
    let e = loop {
        match dec.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("an endless comment ended"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.kind(), binxml_core::ErrorKind::Limit, "{e}");
    assert_eq!(e.offset(), Some(3), "{e}");
}
