//! One decoder and one encoder reused for a whole corpus (`ExiDecoder::reset`,
//! `ExiDecoder::recycle`, `ExiEncoder::reset`) give, document after document, exactly what a
//! new one gives: the same bytes, the same events, the same errors, including after a stream
//! that failed or was left unfinished.

use binxml_core::{Decoder, Encoder, Event, Limits, Tape};
use binxml_exi::{ExiDecoder, ExiEncoder, ExiOptions};

/// The option sets: the alignments, the fidelity options, bounded value tables (eviction),
/// whitespace dropping, fragments and self-contained elements (as `exi_bytes` has them).
const OPTION_SETS: &[&str] = &[
    "-",
    "byte-aligned",
    "compression",
    "prefixes,comments,pis,dtd",
    "pre-compression,prefixes,comments,pis,dtd,lexical-values,block-size=64",
    "value-max-length=8,value-partition-capacity=50",
    "drop-whitespace",
    "fragment",
    "prefixes,self-contained=item|entry|p|row|record",
];

/// Every corpus document binxml's XML decoder reads, as events (name, events).
fn corpus() -> Vec<(String, Vec<Event<'static>>)> {
    binxml_testkit::corpus_xml_files()
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let utf8 = binxml_xml::to_utf8(&bytes).ok()?;
            let events = binxml_xml::decode(&utf8).ok()?;
            Some((p.display().to_string(), events))
        })
        .collect()
}

/// A new encoder's stream.
fn fresh_encode(events: &[Event<'_>], o: &ExiOptions) -> Result<Vec<u8>, String> {
    let mut e = ExiEncoder::with_options(Vec::new(), o.clone()).map_err(|e| e.to_string())?;
    e.write_events(events).map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())?;
    Ok(e.into_inner())
}

/// The reused encoder's stream (written by `write_tape` when `tape` is given).
fn reused_encode(
    e: &mut ExiEncoder<Vec<u8>>,
    events: &[Event<'_>],
    tape: Option<&Tape<'_>>,
) -> Result<Vec<u8>, String> {
    e.reset();
    e.get_mut().clear();
    match tape {
        Some(t) => e.write_tape(t),
        None => e.write_events(events),
    }
    .map_err(|e| e.to_string())?;
    e.finish().map_err(|e| e.to_string())?;
    Ok(e.get_ref().clone())
}

/// Every event pulled, or the error.
fn pull<'a>(d: &mut ExiDecoder<'a>) -> Result<Vec<Event<'a>>, String> {
    let mut out = Vec::new();
    while let Some(ev) = d.next_event().map_err(|e| e.to_string())? {
        out.push(ev);
    }
    Ok(out)
}

/// Every event pushed, and the error if there was one.
fn push<'a>(d: &mut ExiDecoder<'a>) -> (Vec<Event<'a>>, Option<String>) {
    let mut out = Vec::new();
    let r = d.read_into(&mut out).err().map(|e| e.to_string());
    (out, r)
}

/// A stream damaged: cut short and with one octet flipped, so that the decoder fails (or
/// reads something else) part way.
fn damaged(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes[..bytes.len() * 2 / 3].to_vec();
    if let Some(x) = b.get_mut(bytes.len() / 3) {
        *x ^= 0x5a;
    }
    b
}

#[test]
fn reused_encoder_writes_a_new_ones_bytes() {
    let docs = corpus();
    assert!(docs.len() > 50, "{} documents", docs.len());
    for text in OPTION_SETS {
        let o = ExiOptions::default().parse_text(text).unwrap();
        let mut e = ExiEncoder::with_options(Vec::new(), o.clone()).unwrap();
        let mut failed = 0;
        for (i, (name, events)) in docs.iter().enumerate() {
            let want = fresh_encode(events, &o);
            let tape = Tape::from_events(events);
            assert_eq!(
                reused_encode(&mut e, events, None),
                want,
                "{name} ({text}): write_events"
            );
            assert_eq!(
                reused_encode(&mut e, events, Some(&tape)),
                want,
                "{name} ({text}): write_tape"
            );
            // Left behind, every few documents: a stream cut off in the middle of the
            // document's elements (unfinished), or one that fails (an end tag too many).
            let half = &events[..events.len() / 2];
            match i % 3 {
                0 => {
                    e.reset();
                    let _ = e.write_events(half);
                }
                1 => {
                    let mut bad = half.to_vec();
                    bad.extend(std::iter::repeat_n(Event::EndElement, events.len()));
                    let fresh = fresh_encode(&bad, &o);
                    assert!(fresh.is_err(), "{name}: {bad:?} accepted");
                    failed += 1;
                    e.reset();
                    e.get_mut().clear();
                    let r = e
                        .write_events(&bad)
                        .and_then(|()| e.finish())
                        .map_err(|e| e.to_string());
                    assert_eq!(r.map(|()| e.get_ref().clone()), fresh, "{name}: bad events");
                }
                _ => {}
            }
        }
        assert!(failed > 10, "{text}: {failed} failures checked");
    }
}

#[test]
fn reused_decoder_reads_what_a_new_one_reads() {
    let docs = corpus();
    for text in OPTION_SETS {
        let o = ExiOptions::default().parse_text(text).unwrap();
        let streams: Vec<(&str, Vec<u8>)> = docs
            .iter()
            .filter_map(|(n, ev)| Some((n.as_str(), binxml_exi::encode_with(ev, &o).ok()?)))
            .collect();
        assert!(streams.len() > 50, "{text}: {} streams", streams.len());
        // Each stream, then a damaged copy of it.
        let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
        for (n, s) in &streams {
            inputs.push((n.to_string(), s.clone()));
            inputs.push((format!("{n} (damaged)"), damaged(s)));
        }
        let mut reset = ExiDecoder::with_options(&[], o.clone(), Limits::default());
        let mut pushed = ExiDecoder::with_options(&[], o.clone(), Limits::default());
        let mut kept: ExiDecoder<'static> =
            ExiDecoder::with_options(&[], o.clone(), Limits::default());
        let mut errors = 0;
        for (name, input) in &inputs {
            let want = pull(&mut ExiDecoder::with_options(
                input,
                o.clone(),
                Limits::default(),
            ));
            errors += usize::from(want.is_err());
            reset.reset(input);
            assert_eq!(pull(&mut reset), want, "{name} ({text}): reset, pull");

            let want_push = push(&mut ExiDecoder::with_options(
                input,
                o.clone(),
                Limits::default(),
            ));
            pushed.reset(input);
            assert_eq!(push(&mut pushed), want_push, "{name} ({text}): reset, push");

            let local = input.clone();
            let mut d = kept.recycle(&local);
            assert_eq!(pull(&mut d), want, "{name} ({text}): recycle");
            kept = d.recycle(&[]);
        }
        assert!(errors > 10, "{text}: {errors} errors checked");
    }
}

/// A decoder that is given a stream part way through another's (the one before abandoned
/// after a few events) reads the new one as a new decoder does.
#[test]
fn reset_in_the_middle_of_a_stream() {
    let docs = corpus();
    for text in &OPTION_SETS[..4] {
        let o = ExiOptions::default().parse_text(text).unwrap();
        let mut d = ExiDecoder::with_options(&[], o.clone(), Limits::default());
        let streams: Vec<Vec<u8>> = docs
            .iter()
            .filter_map(|(_, ev)| binxml_exi::encode_with(ev, &o).ok())
            .collect();
        for (i, s) in streams.iter().enumerate() {
            let want = pull(&mut ExiDecoder::with_options(
                s,
                o.clone(),
                Limits::default(),
            ));
            d.reset(s);
            assert_eq!(pull(&mut d), want, "stream {i} ({text})");
            d.reset(s);
            for _ in 0..(i * 7) % 40 {
                let _ = d.next_event();
            }
        }
    }
}
