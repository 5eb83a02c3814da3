#![no_main]
//! Bytes -> the tree by the XML decoder's direct path (`Document::parse_xml_with`) and by the
//! generic path (`parse_sized` over the decoder's events): never a panic, and the same tree or
//! the same error from both.
use binxml::core::collect_events;
use binxml::{Event, Limits, tree::Document, xml::XmlDecoder};

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
    let generic = Document::parse_sized(
        &mut XmlDecoder::with_limits(&input, Limits::default()),
        input.len(),
    );
    let direct = Document::parse_xml_with(
        &mut XmlDecoder::with_limits(&input, Limits::default()),
        input.len(),
    );
    match (generic, direct) {
        (Ok(g), Ok(d)) => assert!(
            events(&g) == events(&d),
            "the two paths built different trees"
        ),
        (Err(g), Err(d)) => assert_eq!(
            (g.kind, &g.message, g.offset),
            (d.kind, &d.message, d.offset),
            "different errors"
        ),
        (g, d) => panic!(
            "one path failed: generic {:?}, direct {:?}",
            g.err(),
            d.err()
        ),
    }
});
