//! Push decoding (`TsfDecoder::read_into`, the XML-vocabulary push loop) against pulling one
//! event at a time: the same events on the corpus, the same events and errors on damaged
//! input, the same limits, and the `EventSink::full` pause.

use std::borrow::Cow;

use binxml_core::{
    Decoder, Error, ErrorKind, Event, EventSink, Limits, QName, Result, collect_events, transcode,
};
use binxml_testkit::corpus_xml_files;
use binxml_tsf::{TsfDecoder, TsfEncoder, TsfOptions};
use binxml_xml::{XmlDecoder, to_utf8};

fn xml_to_tsf(xml: &[u8]) -> Vec<u8> {
    let utf8 = to_utf8(xml).unwrap();
    let mut enc = TsfEncoder::new(Vec::new());
    transcode(&mut XmlDecoder::new(&utf8), &mut enc).unwrap();
    enc.into_inner()
}

fn corpus_tsf() -> Vec<(String, Vec<u8>)> {
    corpus_xml_files()
        .iter()
        .map(|f| {
            (
                f.display().to_string(),
                xml_to_tsf(&std::fs::read(f).unwrap()),
            )
        })
        .collect()
}

/// Every event by `next_event` until the end or the first error.
fn pull(input: &[u8], opts: &TsfOptions) -> (Vec<Event<'static>>, Option<Error>) {
    let mut d = TsfDecoder::with_options(input, opts.clone());
    let mut v = Vec::new();
    loop {
        match d.next_event() {
            Ok(Some(ev)) => v.push(ev.into_owned()),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e)),
        }
    }
}

/// A sink that records which method each event came through, so that a push loop handing an
/// item to the wrong method (a CDATA section as plain text) shows.
#[derive(Default)]
struct Parts {
    events: Vec<Event<'static>>,
    /// Stops the decoder once `events` holds this many (0: never).
    pause_at: usize,
}

impl<'a> EventSink<'a> for Parts {
    fn event(&mut self, event: Event<'a>) -> Result<()> {
        assert!(
            !matches!(
                event,
                Event::StartElement(_)
                    | Event::EndElement
                    | Event::Attribute { .. }
                    | Event::Namespace { .. }
                    | Event::Characters { cdata: false, .. }
            ),
            "a hot item as a whole event: {event:?}"
        );
        self.events.push(event.into_owned());
        Ok(())
    }
    fn start_element(&mut self, name: QName<'a>) -> Result<()> {
        self.events.push(Event::StartElement(name).into_owned());
        Ok(())
    }
    fn namespace(&mut self, prefix: Cow<'a, str>, uri: Cow<'a, str>) -> Result<()> {
        self.events
            .push(Event::Namespace { prefix, uri }.into_owned());
        Ok(())
    }
    fn attribute(&mut self, name: QName<'a>, value: Cow<'a, str>) -> Result<()> {
        self.events
            .push(Event::Attribute { name, value }.into_owned());
        Ok(())
    }
    fn end_element(&mut self) -> Result<()> {
        self.events.push(Event::EndElement);
        Ok(())
    }
    fn text(&mut self, text: Cow<'a, str>) -> Result<()> {
        self.events
            .push(Event::Characters { text, cdata: false }.into_owned());
        Ok(())
    }
    fn full(&self) -> bool {
        self.pause_at != 0 && self.events.len() >= self.pause_at
    }
}

/// Every event by one `read_into` call, and its error.
fn push(input: &[u8], opts: &TsfOptions) -> (Vec<Event<'static>>, Option<Error>) {
    let mut d = TsfDecoder::with_options(input, opts.clone());
    let mut sink = Parts::default();
    let r = d.read_into(&mut sink);
    (sink.events, r.err())
}

fn key(e: &Option<Error>) -> Option<(ErrorKind, String, Option<u64>)> {
    e.as_ref()
        .map(|e| (e.kind(), e.message().to_string(), e.offset()))
}

/// Push and pull agree on `input`: the same events, then the same error or none. Returns
/// whether it decoded.
fn agree(input: &[u8], opts: &TsfOptions, what: &str) -> bool {
    let (pe, perr) = pull(input, opts);
    let (se, serr) = push(input, opts);
    assert_eq!(key(&perr), key(&serr), "{what}: errors");
    assert_eq!(pe, se, "{what}: events");
    if let Some(e) = &serr {
        assert!(
            e.offset().is_some(),
            "{what}: an error without an offset: {e}"
        );
    }
    serr.is_none()
}

#[test]
fn push_equals_pull_on_the_corpus() {
    let opts = TsfOptions::default();
    let docs = corpus_tsf();
    for (name, tsf) in &docs {
        let (pulled, err) = pull(tsf, &opts);
        assert!(err.is_none(), "{name}: {err:?}");
        let (pushed, err) = push(tsf, &opts);
        assert!(err.is_none(), "{name}: {err:?}");
        assert_eq!(pulled, pushed, "{name}");
        // Batched pull runs the push loop into batches.
        let batched = collect_events(&mut TsfDecoder::new(tsf)).unwrap();
        assert_eq!(pulled.len(), batched.len(), "{name}");
        assert!(pulled == batched, "{name}: batched pull");
    }
}

#[test]
fn full_pauses_push_and_pull_follows() {
    let opts = TsfOptions::default();
    let docs = corpus_tsf();
    for (name, tsf) in docs.iter().take(40) {
        let (pulled, _) = pull(tsf, &opts);
        for step in [1, 2, 7, 128] {
            let mut d = TsfDecoder::new(tsf);
            let mut sink = Parts::default();
            let mut calls = 0;
            while sink.events.last() != Some(&Event::EndDocument) {
                let before = sink.events.len();
                sink.pause_at = before + step;
                d.read_into(&mut sink).unwrap();
                calls += 1;
                let got = sink.events.len() - before;
                assert!(got > 0, "{name}: a call that delivered nothing");
                if sink.events.last() != Some(&Event::EndDocument) {
                    assert!(sink.full(), "{name}: stopped before full or the end");
                }
                // It stops once full, past that only to finish a start tag.
                let past = sink.events.get(before + step..).unwrap_or_default();
                assert!(
                    past.iter().all(|e| matches!(
                        e,
                        Event::Namespace { .. } | Event::Attribute { .. } | Event::EndDocument
                    )),
                    "{name}: went on after full: {} events, from {:?}",
                    past.len(),
                    &past[..past.len().min(3)]
                );
                assert!(calls <= pulled.len(), "{name}: no progress");
            }
            assert_eq!(pulled, sink.events, "{name}: paused every {step}");
            // After the end nothing more.
            sink.pause_at = 0;
            d.read_into(&mut sink).unwrap();
            assert_eq!(pulled.len(), sink.events.len());
        }
        // A sink already full gets nothing.
        let mut d = TsfDecoder::new(tsf);
        let mut sink = Parts {
            pause_at: 1,
            ..Parts::default()
        };
        d.read_into(&mut sink).unwrap();
        assert_eq!(sink.events, [Event::start_document()], "{name}");
        d.read_into(&mut sink).unwrap();
        assert_eq!(sink.events.len(), 1, "{name}: a full sink took more");
        // Push a few events, then pull the rest one at a time, then push again.
        let mut d = TsfDecoder::new(tsf);
        let mut sink = Parts {
            pause_at: 3,
            ..Parts::default()
        };
        d.read_into(&mut sink).unwrap();
        let mut all = sink.events;
        for _ in 0..5 {
            match d.next_event().unwrap() {
                Some(ev) => all.push(ev.into_owned()),
                None => break,
            }
        }
        let mut rest = Parts::default();
        d.read_into(&mut rest).unwrap();
        all.extend(rest.events);
        assert_eq!(pulled, all, "{name}: push, pull, push");
    }
}

/// Small documents with every XML-vocabulary item: namespaces, quoted names, a doctype,
/// comments, processing instructions, CDATA, entity references, empty text.
const SEEDS: &[&[u8]] = &[
    b"5=9?peri rset12+Introduction1project<7[content6+Epilog9?peri sset",
    b"3ns:personnel<1=7xmlns:ns[urn:foo1ns:person<1=4id[Boss1ns:person<1=6id[worker",
    b"3=9+ comment 31!doc [<!ELEMENT doc (#PCDATA)>\n]4doc<3]a<b3&amp0[2[xy",
    b"2r<3=5xmlns[urn:d5xmlns:p[urn:p1p:a[v1\"x\\<y<1=2xml:lang[en",
];

#[test]
fn damaged_input_push_and_pull_agree() {
    let opts = TsfOptions::default();
    let mut docs: Vec<Vec<u8>> = SEEDS.iter().map(|s| s.to_vec()).collect();
    let mut corpus = corpus_tsf();
    corpus.sort_by_key(|(_, t)| t.len());
    docs.extend(corpus.into_iter().take(3).map(|(_, t)| t));
    let mut errors = 0;
    for (i, doc) in docs.iter().enumerate() {
        assert!(
            agree(doc, &opts, &format!("doc {i}")),
            "doc {i} decodes: {:?}",
            pull(doc, &opts).1
        );
        for cut in 0..doc.len() {
            if !agree(&doc[..cut], &opts, &format!("doc {i} cut at {cut}")) {
                errors += 1;
            }
        }
        for at in 0..doc.len() {
            for flip in [b'0', b'9', b'<', b'=', b'[', b']', b'"', b'\\', b':', 0x80] {
                let mut m = doc.clone();
                m[at] = flip;
                if !agree(&m, &opts, &format!("doc {i} byte {at} set to {flip}")) {
                    errors += 1;
                }
            }
        }
    }
    // The damage was seen: most truncations are errors.
    assert!(errors > 100, "{errors} errors");
}

fn nested(depth: usize) -> Vec<u8> {
    let mut d = Vec::new();
    for _ in 1..depth {
        d.extend_from_slice(b"1a<");
    }
    d.extend_from_slice(b"0a<");
    d
}

#[test]
fn depth_limit_in_push() {
    let limits = Limits::default()
        .with_max_depth(10)
        .with_max_string_len(1 << 30);
    let opts = TsfOptions::default().with_limits(limits);
    assert!(agree(&nested(10), &opts, "depth 10"));
    let (events, err) = push(&nested(11), &opts);
    let err = err.expect("depth 11 past the limit of 10");
    assert_eq!(err.kind(), ErrorKind::Limit);
    // The eleventh element, three bytes a level.
    assert_eq!(err.offset(), Some(30));
    assert_eq!(events.len(), 11, "StartDocument and ten starts");
    assert!(!agree(&nested(11), &opts, "depth 11"));
    assert!(!agree(&nested(500), &opts, "depth 500"));
}

#[test]
fn string_limit_in_push() {
    let small = TsfOptions::default().with_limits(Limits::default().with_max_string_len(1000));
    let long_text = format!("2r<1=1a[v3000[{}", "x".repeat(3000));
    let (events, err) = push(long_text.as_bytes(), &small);
    let err = err.expect("text past the limit");
    assert_eq!((err.kind(), err.offset()), (ErrorKind::Limit, Some(9)));
    assert_eq!(
        events.len(),
        3,
        "StartDocument, the start and its attribute"
    );
    assert!(!agree(long_text.as_bytes(), &small, "long text"));
    let long_name = format!("1r<1=1{}[v", "n".repeat(3000));
    assert!(!agree(long_name.as_bytes(), &small, "long attribute name"));
    // Within the limit both decode it.
    let opts = TsfOptions::default().with_limits(Limits::default().with_max_string_len(5000));
    assert!(agree(
        long_text.as_bytes(),
        &opts,
        "long text within the limit"
    ));
}
