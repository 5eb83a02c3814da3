//! Push decoding (`XebuDecoder::read_into`, the push loop) against pulling one event at a time:
//! the same events on the corpus (one message each, a stream, tiny caches), the same events and
//! errors on truncated and damaged input, the same limits, the `EventSink::full` pause, and the
//! stream decoder's state after a message that fails half-way.

use std::borrow::Cow;

use binxml_core::{
    Decoder, Encoder, Error, ErrorKind, Event, EventSink, Limits, QName, Result, collect_events,
};
use binxml_testkit::corpus_xml_files;
use binxml_xebu::{XebuDecoder, XebuEncoder, XebuOptions, XebuStreamDecoder};

fn to_xebu(events: &[Event<'_>], opts: XebuOptions) -> Vec<u8> {
    binxml_xebu::encode_with(events, opts).unwrap()
}

/// The corpus's documents as XML events (those the XML codec reads).
fn corpus_events() -> Vec<(String, Vec<Event<'static>>)> {
    corpus_xml_files()
        .iter()
        .filter_map(|f| {
            let xml = std::fs::read(f).unwrap();
            let ev = binxml_xml::decode(&xml).ok()?;
            Some((
                f.display().to_string(),
                ev.into_iter().map(Event::into_owned).collect(),
            ))
        })
        .collect()
}

/// Every event by `next_event` until the end or the first error.
fn pull(input: &[u8], limits: &Limits) -> (Vec<Event<'static>>, Option<Error>) {
    pull_from(XebuDecoder::with_limits(input, limits.clone()))
}

fn pull_from(mut d: XebuDecoder<'_>) -> (Vec<Event<'static>>, Option<Error>) {
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
fn push(input: &[u8], limits: &Limits) -> (Vec<Event<'static>>, Option<Error>) {
    push_from(XebuDecoder::with_limits(input, limits.clone()))
}

fn push_from(mut d: XebuDecoder<'_>) -> (Vec<Event<'static>>, Option<Error>) {
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
fn agree(input: &[u8], limits: &Limits, what: &str) -> bool {
    let (pe, perr) = pull(input, limits);
    let (se, serr) = push(input, limits);
    assert_eq!(key(&perr), key(&serr), "{what}: errors");
    // (Compared as written out: a damaged double may be a NaN, unequal to itself.)
    assert_eq!(format!("{pe:?}"), format!("{se:?}"), "{what}: events");
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
    let limits = Limits::default();
    let tiny = XebuOptions::default()
        .with_cache_size(3)
        .unwrap()
        .with_max_cached_len(1 << 20);
    let docs = corpus_events();
    assert!(!docs.is_empty());
    for (name, events) in &docs {
        for (opts, what) in [(XebuOptions::default(), "default"), (tiny.clone(), "tiny")] {
            let xebu = to_xebu(events, opts);
            let (pulled, err) = pull(&xebu, &limits);
            assert!(err.is_none(), "{name} ({what}): {err:?}");
            assert!(pulled == *events, "{name} ({what}): pulled");
            let (pushed, err) = push(&xebu, &limits);
            assert!(err.is_none(), "{name} ({what}): {err:?}");
            assert!(pulled == pushed, "{name} ({what}): pushed");
            // Batched pull runs the push loop into batches.
            let batched = collect_events(&mut XebuDecoder::new(&xebu)).unwrap();
            assert!(pulled == batched, "{name} ({what}): batched pull");
        }
    }
}

/// The corpus as the messages of one stream, in one buffer and delivered one by one: the
/// push loop reads each message with the tokens the earlier ones defined.
#[test]
fn push_equals_pull_on_a_stream() {
    let docs = corpus_events();
    let stream = binxml_xebu::encode_stream(
        docs.iter().map(|(_, e)| e.as_slice()),
        XebuOptions::default(),
    )
    .unwrap();
    let ranges = binxml_xebu::message_ranges(&stream).unwrap();
    assert_eq!(ranges.len(), docs.len());
    let mut d = XebuDecoder::new(&stream);
    let mut sd = XebuStreamDecoder::new();
    for (i, (name, events)) in docs.iter().enumerate() {
        if i > 0 {
            assert!(d.next_message(), "{name}");
        }
        let mut sink = Parts::default();
        d.read_into(&mut sink).unwrap();
        assert!(sink.events == *events, "{name}: in one buffer");
        // After the message's end, nothing until `next_message`.
        d.read_into(&mut sink).unwrap();
        assert_eq!(sink.events.len(), events.len(), "{name}");
        let mut sink = Parts::default();
        sd.message(&stream[ranges[i].clone()])
            .read_into(&mut sink)
            .unwrap();
        assert!(sink.events == *events, "{name}: delivered alone");
    }
    assert!(!d.next_message());
}

#[test]
fn full_pauses_push_and_pull_follows() {
    let limits = Limits::default();
    for (name, events) in corpus_events().iter().take(40) {
        let xebu = to_xebu(events, XebuOptions::default());
        let (pulled, _) = pull(&xebu, &limits);
        for step in [1, 2, 7, 128] {
            let mut d = XebuDecoder::new(&xebu);
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
                    assert_eq!(sink.events.len(), before + step, "{name}: not where full");
                }
                assert!(calls <= pulled.len(), "{name}: no progress");
            }
            assert_eq!(pulled, sink.events, "{name}: paused every {step}");
            sink.pause_at = 0;
            d.read_into(&mut sink).unwrap();
            assert_eq!(
                pulled.len(),
                sink.events.len(),
                "{name}: more after the end"
            );
        }
        // Push a few events, then pull some one at a time, then push the rest.
        for first in [1, 2, 3, 5] {
            let mut d = XebuDecoder::new(&xebu);
            let mut sink = Parts {
                pause_at: first,
                ..Parts::default()
            };
            d.read_into(&mut sink).unwrap();
            let mut all = sink.events;
            for _ in 0..3 {
                match d.next_event().unwrap() {
                    Some(ev) => all.push(ev.into_owned()),
                    None => break,
                }
            }
            let mut rest = Parts::default();
            d.read_into(&mut rest).unwrap();
            all.extend(rest.events);
            assert_eq!(pulled, all, "{name}: push {first}, pull, push");
        }
    }
}

/// Small documents with every kind of item: namespace declarations (default, prefixed,
/// redeclared, several on one element), prefixes that must be written, reused names and values,
/// CDATA, comments, processing instructions, a doctype, an XML declaration.
const SEEDS: &[&str] = &[
    r#"<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE r [<!ENTITY e "x">]><r><!--c--><?p d?><a x="1" y="2">t</a><a x="1" y="3">t</a><![CDATA[<c>]]></r>"#,
    r#"<p:r xmlns:p="urn:p" xmlns="urn:d" xmlns:q="urn:q"><a q:x="1" p:y="v"/><p:a><q:b xmlns:q="urn:p" q:z="w">u</q:b></p:a><a xmlns="">v</a></p:r>"#,
    r#"<r xmlns:a="urn:a" xmlns:b="urn:a"><a:e a:x="1"/><b:e b:x="1">t</b:e><e xml:lang="en">t</e></r>"#,
];

fn damaged_docs() -> Vec<Vec<u8>> {
    let mut docs: Vec<Vec<u8>> = SEEDS
        .iter()
        .map(|s| {
            to_xebu(
                &binxml_xml::decode(s.as_bytes()).unwrap(),
                XebuOptions::default(),
            )
        })
        .collect();
    let mut corpus: Vec<Vec<u8>> = corpus_events()
        .iter()
        .map(|(_, e)| to_xebu(e, XebuOptions::default()))
        .collect();
    corpus.sort_by_key(Vec::len);
    docs.extend(corpus.into_iter().take(3));
    // Typed content (no XML document has it).
    let typed = [
        Event::start_document(),
        Event::StartElement(QName::local("n")),
        Event::Typed(binxml_core::Typed::Int(-5)),
        Event::Typed(binxml_core::Typed::List(vec![
            binxml_core::Typed::Double(1.5),
            binxml_core::Typed::Bool(true),
        ])),
        Event::EndElement,
        Event::EndDocument,
    ];
    docs.push(to_xebu(&typed, XebuOptions::default()));
    docs
}

#[test]
fn damaged_input_push_and_pull_agree() {
    let limits = Limits::default();
    let mut errors = 0;
    for (i, doc) in damaged_docs().iter().enumerate() {
        assert!(
            agree(doc, &limits, &format!("doc {i}")),
            "doc {i} decodes: {:?}",
            pull(doc, &limits).1
        );
        for cut in 0..doc.len() {
            if !agree(&doc[..cut], &limits, &format!("doc {i} cut at {cut}")) {
                errors += 1;
            }
        }
        for at in 0..doc.len() {
            for flip in [
                0x00, 0x01, 0x02, 0x42, 0x03, 0x13, 0x23, 0x43, 0x83, 0xC3, 0x04, 0x14, 0x05, 0x15,
                0x25, 0x45, 0x85, 0xC5, 0xE5, 0x06, 0x07, 0x17, 0x27, 0x37, 0xC7, 0xE7, 0x0C, 0x0F,
                0x1F, 0x7F, 0x80, 0xC0, 0xFF,
            ] {
                let mut m = doc.clone();
                m[at] = flip;
                if !agree(
                    &m,
                    &limits,
                    &format!("doc {i} byte {at} set to {flip:#04x}"),
                ) {
                    errors += 1;
                }
            }
        }
    }
    // The damage was seen: most truncations are errors.
    assert!(errors > 1000, "{errors} errors");
}

fn nested(depth: usize) -> Vec<u8> {
    let mut events = vec![Event::start_document()];
    for _ in 0..depth {
        events.push(Event::StartElement(QName::local("a")));
    }
    events.extend(std::iter::repeat_n(Event::EndElement, depth));
    events.push(Event::EndDocument);
    to_xebu(&events, XebuOptions::default())
}

#[test]
fn limits_in_push() {
    let limits = Limits::default().with_max_depth(10);
    assert!(agree(&nested(10), &limits, "depth 10"));
    let (events, err) = push(&nested(11), &limits);
    let err = err.expect("depth 11 past the limit of 10");
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(events.len(), 11, "StartDocument and ten starts");
    assert!(!agree(&nested(11), &limits, "depth 11"));
    assert!(!agree(&nested(500), &limits, "depth 500"));

    let doc = format!(r#"<r a="{}">{}</r>"#, "v".repeat(300), "x".repeat(3000));
    let xebu = to_xebu(
        &binxml_xml::decode(doc.as_bytes()).unwrap(),
        XebuOptions::default(),
    );
    let small = Limits::default().with_max_string_len(1000);
    let (events, err) = push(&xebu, &small);
    assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::Limit));
    assert_eq!(
        events.len(),
        3,
        "StartDocument, the start and its attribute"
    );
    assert!(!agree(&xebu, &small, "long text"));
    assert!(agree(&xebu, &Limits::default(), "within the limits"));

    // Fetched tokens count toward the expansion limit (at least 64 MiB): a long text defined
    // once and fetched 1200 times.
    let text = "t".repeat(60_000);
    let mut events = vec![
        Event::start_document(),
        Event::StartElement(QName::local("r")),
    ];
    events.extend(std::iter::repeat_n(
        Event::Characters {
            text: Cow::Borrowed(&text),
            cdata: false,
        },
        1200,
    ));
    events.extend([Event::EndElement, Event::EndDocument]);
    let xebu = to_xebu(&events, XebuOptions::default().with_max_cached_len(1 << 20));
    assert!(xebu.len() < 70_000);
    let (pushed, err) = push(&xebu, &Limits::default());
    assert_eq!(err.map(|e| e.kind()), Some(ErrorKind::Limit));
    assert!(pushed.len() < 1200);
    assert!(!agree(&xebu, &Limits::default(), "expansion"));
    let unlimited = Limits::default().with_max_expansion_ratio(0);
    assert!(agree(&xebu, &unlimited, "expansion unchecked"));
}

/// A stream decoder's message that fails half-way in the push loop leaves the token state of
/// the last good message: the next good message decodes as if the bad one never came.
#[test]
fn a_failed_pushed_message_leaves_the_stream_state() {
    let docs = corpus_events();
    let mut enc = XebuEncoder::new(Vec::new());
    let mut msgs = Vec::new();
    for (_, events) in docs.iter().take(6) {
        for ev in events {
            enc.write_event(ev).unwrap();
        }
        enc.finish().unwrap();
        msgs.push(std::mem::take(enc.get_mut()));
    }
    let mut sd = XebuStreamDecoder::new();
    for (i, msg) in msgs.iter().enumerate() {
        let (_, err) = push_from(sd.message(&msg[..msg.len() * 2 / 3]));
        assert!(err.is_some(), "message {i} cut");
        let (pushed, err) = push_from(sd.message(msg));
        assert!(err.is_none(), "message {i}: {err:?}");
        assert!(pushed == docs[i].1, "message {i}");
    }
}

/// `one_document`: a stream's second message is an error in place of the first one's end,
/// pushed or pulled.
#[test]
fn one_document_refuses_a_stream() {
    let docs = corpus_events();
    let stream = binxml_xebu::encode_stream(
        docs.iter().take(2).map(|(_, e)| e.as_slice()),
        XebuOptions::default(),
    )
    .unwrap();
    let (pe, perr) = pull_from(XebuDecoder::new(&stream).one_document());
    let (se, serr) = push_from(XebuDecoder::new(&stream).one_document());
    assert_eq!(key(&perr), key(&serr));
    assert!(perr.unwrap().message().contains("more messages follow"));
    assert_eq!(pe, se);
    assert_eq!(pe[..], docs[0].1[..docs[0].1.len() - 1]);
    let one = to_xebu(&docs[0].1, XebuOptions::default());
    let (pe, perr) = pull_from(XebuDecoder::new(&one).one_document());
    assert!(perr.is_none() && pe == docs[0].1);
}

/// The encoder's push interface (`write_tape`, the sink's part methods) writes the same bytes
/// as `write_event`, in stream mode (tokens carried across the documents) and with tiny caches.
#[test]
fn tape_and_events_write_the_same_bytes() {
    let tiny = XebuOptions::default().with_cache_size(3).unwrap();
    for opts in [XebuOptions::default(), tiny] {
        let mut by_event = XebuEncoder::with_options(Vec::new(), opts.clone());
        let mut by_tape = XebuEncoder::with_options(Vec::new(), opts);
        for (name, events) in corpus_events() {
            let tape = binxml_core::Tape::from_events(&events);
            by_event.write_events(&events).unwrap();
            by_tape.write_tape(&tape).unwrap();
            by_event.finish().unwrap();
            by_tape.finish().unwrap();
            assert!(by_event.get_ref() == by_tape.get_ref(), "{name}");
        }
    }
}
