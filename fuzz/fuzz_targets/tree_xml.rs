#![no_main]
//! Bytes -> the tree by the XML decoder's push path (`Document::parse` over the decoder) and by
//! the pull path (`parse` over a `&mut dyn Decoder`, its events pulled one at a time): never a panic, and the same tree or
//! the same error from both.
use binxml::core::collect_events;
use binxml::{Decoder, Event, Limits, tree::Document, xml::XmlDecoder};

fn events<'a>(d: &Document<'a>) -> Vec<Event<'static>> {
    collect_events(&mut d.events())
        .expect("a built tree replays")
        .into_iter()
        .map(Event::into_owned)
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(input) = binxml::xml::to_utf8(data) else {
        return;
    };
    let mut pulled = XmlDecoder::with_limits(&input, Limits::default());
    let mut pulled: &mut dyn Decoder<'_> = &mut pulled;
    let generic = Document::parse(&mut pulled, input.len());
    let direct = Document::parse(
        &mut XmlDecoder::with_limits(&input, Limits::default()),
        input.len(),
    );
    match (generic, direct) {
        (Ok(g), Ok(d)) => assert!(
            events(&g) == events(&d),
            "the two paths built different trees"
        ),
        (Err(g), Err(d)) => assert_eq!(
            (g.kind(), g.message(), g.offset()),
            (d.kind(), d.message(), d.offset()),
            "different errors"
        ),
        (g, d) => panic!(
            "one path failed: generic {:?}, direct {:?}",
            g.err(),
            d.err()
        ),
    }
});
