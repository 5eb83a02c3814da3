//! Helpers for the fuzz targets: decode bytes to the end, and build well-formed documents (and
//! JSON texts) from the fuzzer's bytes for the round-trip targets.

pub mod model;

use arbitrary::{Result, Unstructured};
use binxml::{DecodeOptions, Decoder, Format};
use model::{Doc, Element, NAMES, NAMESPACES, Node, PI_TARGETS};

/// Decodes `data` as `format` to the end (or the first error). Panics, hangs and blow-ups are
/// what the fuzzer looks for; errors are the expected outcome.
pub fn decode_all(format: Format, data: &[u8]) {
    let Ok(mut dec) = binxml::AnyDecoder::new(format, data, &DecodeOptions::default()) else {
        return;
    };
    let mut n = 0u64;
    while let Ok(Some(ev)) = dec.next_event() {
        // Strings a decoder hands out unchecked (an ASCII fast path) must still be UTF-8.
        match &ev {
            binxml::Event::StartElement(q) | binxml::Event::Attribute { name: q, .. } => {
                assert!(
                    std::str::from_utf8(q.local.as_bytes()).is_ok()
                        && std::str::from_utf8(q.prefix.as_bytes()).is_ok()
                );
            }
            binxml::Event::Characters { text, .. } => {
                assert!(std::str::from_utf8(text.as_bytes()).is_ok())
            }
            _ => {}
        }
        std::hint::black_box(&ev);
        n += 1;
        assert!(
            n < 50_000_000,
            "{format}: more than 50 million events from {} bytes",
            data.len()
        );
    }
}

const PIECES: &[&str] = &[
    "<",
    "&",
    ">",
    "]]>",
    "\"",
    "'",
    "\r\n",
    "\r",
    "\n",
    "\t",
    " ",
    "  ",
    "\u{e9}",
    "\u{1F600}",
    "&amp;",
    "&#38;",
    "\u{85}",
    "\u{2028}",
    "\u{FEFF}",
    "a",
    "text",
    "--",
    "?>",
    "-",
    "<!--",
    "\u{FFFD}",
    "0",
    "1.5",
    "true",
];

/// A string mixing awkward pieces and arbitrary characters.
pub fn text(u: &mut Unstructured) -> Result<String> {
    let n = u.int_in_range(0..=12u8)?;
    let mut s = String::new();
    for _ in 0..n {
        if u.ratio(2, 3)? {
            s.push_str(u.choose(PIECES)?);
        } else {
            s.push(u.arbitrary::<char>()?);
        }
    }
    Ok(s)
}

fn misc(u: &mut Unstructured) -> Result<Node> {
    Ok(if u.arbitrary()? {
        Node::Comment(text(u)?)
    } else {
        Node::Pi(u.choose_index(PI_TARGETS.len())?, text(u)?)
    })
}

fn element(u: &mut Unstructured, depth: u32) -> Result<Element> {
    let name = u.choose_index(NAMES.len())?;
    let ns = u.choose_index(NAMESPACES.len())?;
    let mut attrs = Vec::new();
    for _ in 0..u.int_in_range(0..=4u8)? {
        attrs.push((
            u.choose_index(NAMES.len())?,
            u.choose_index(NAMESPACES.len())?,
            text(u)?,
        ));
    }
    let mut children = Vec::new();
    if depth < 10 {
        for _ in 0..u.int_in_range(0..=6u8)? {
            if u.is_empty() {
                break;
            }
            children.push(match u.int_in_range(0..=9u8)? {
                0..=3 => Node::Element(element(u, depth + 1)?),
                4..=6 => Node::Text(text(u)?),
                7 => Node::CData(text(u)?),
                _ => misc(u)?,
            });
        }
    }
    Ok(Element {
        name,
        ns,
        attrs,
        children,
    })
}

/// A well-formed document from the fuzzer's bytes.
pub fn doc(u: &mut Unstructured) -> Result<Doc> {
    let mut prolog = Vec::new();
    for _ in 0..u.int_in_range(0..=2u8)? {
        prolog.push(misc(u)?);
    }
    let root = element(u, 0)?;
    let mut epilog = Vec::new();
    for _ in 0..u.int_in_range(0..=2u8)? {
        epilog.push(misc(u)?);
    }
    Ok(Doc {
        prolog,
        root,
        epilog,
    })
}

/// A document through `format` and back: the events must be those given, up to what the format
/// keeps (`model::normalize`).
pub fn round_trip(format: Format, data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = doc(&mut u) else { return };
    if let Err(e) = model::check(format, &d) {
        panic!("{e}\ndocument events: {:?}", d.events());
    }
}

/// A JSON text from the fuzzer's bytes.
pub fn json_value(u: &mut Unstructured, depth: u32, out: &mut String) -> Result<()> {
    let kind = if depth >= 8 {
        u.int_in_range(0..=3u8)?
    } else {
        u.int_in_range(0..=5u8)?
    };
    match kind {
        0 => out.push_str(u.choose(&["null", "true", "false"])?),
        1 => out.push_str(u.choose(&[
            "0",
            "-0",
            "1.50",
            "-12e+3",
            "1E400",
            "123456789012345678901234567890",
            "0.0000001",
            "7",
        ])?),
        2 => {
            let n: i64 = u.arbitrary()?;
            out.push_str(&n.to_string());
        }
        3 => json_string(u, out)?,
        4 => {
            out.push('[');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                json_value(u, depth + 1, out)?;
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                if u.arbitrary()? {
                    out.push_str(u.choose(&[
                        "\"a\"",
                        "\"\"",
                        "\"64th\"",
                        "\"a b\"",
                        "\"t\"",
                        "\"key\"",
                        "\"\\u00e9\"",
                        "\"x:y\"",
                    ])?);
                } else {
                    json_string(u, out)?;
                }
                out.push(':');
                json_value(u, depth + 1, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn json_string(u: &mut Unstructured, out: &mut String) -> Result<()> {
    out.push('"');
    for c in text(u)?.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

fn json_events(bytes: &[u8]) -> std::result::Result<Vec<binxml::Event<'static>>, binxml::Error> {
    let mut dec = binxml::AnyDecoder::new(Format::Json, bytes, &DecodeOptions::default())?;
    let mut v = Vec::new();
    while let Some(ev) = dec.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}

/// JSON text -> events -> JSON -> events: the same events, and the JSON text re-encoded is
/// stable.
pub fn json_round_trip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut s = String::new();
    if json_value(&mut u, 0, &mut s).is_err() {
        return;
    }
    let first =
        json_events(s.as_bytes()).unwrap_or_else(|e| panic!("valid JSON rejected: {e}: {s}"));
    let Some((bytes, back)) =
        model::round_trip(Format::Json, &first).unwrap_or_else(|e| panic!("{e}: {s}"))
    else {
        return;
    };
    assert_eq!(
        model::normalize(&first, Format::Json),
        model::normalize(&back, Format::Json),
        "JSON {s} -> {}",
        String::from_utf8_lossy(&bytes)
    );
}
