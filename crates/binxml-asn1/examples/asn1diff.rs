//! Debug helper: `asn1diff FILE [uper|aper|ber] [plain|tables]` prints the first event where
//! XML -> ASN.1 -> events differs from the XML parser's events (after merging text).
use binxml_asn1::{Options, Rule, decode, encode};
use binxml_core::Event;

fn norm(evs: &[Event<'_>]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut text = String::new();
    for e in evs {
        match e {
            Event::Characters { text: t, .. } => text.push_str(t),
            Event::Typed(t) => text.push_str(&t.lexical()),
            _ => {
                if !text.is_empty() {
                    out.push(format!("Text {:?}", text));
                    text.clear();
                }
                match e {
                    Event::DocType(d) => {
                        out.push(format!("DocType {:?} {:?}", d.public_id, d.system_id))
                    }
                    e => out.push(format!("{e:?}")),
                }
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).unwrap();
    let utf8 = binxml_xml::to_utf8(&raw).unwrap();
    let events = binxml_xml::parse_events(&utf8).unwrap();
    let rule = match args.get(2).map(|s| s.as_str()) {
        Some("aper") => Rule::Aper,
        Some("ber") => Rule::Ber,
        _ => Rule::Uper,
    };
    let opts = if args.get(3).map(|s| s.as_str()) == Some("plain") {
        Options::plain(rule)
    } else {
        Options::new(rule)
    };
    let bytes = encode(&events, opts).unwrap();
    if let Ok(p) = std::env::var("ASN1DIFF_BIN") {
        std::fs::write(p, &bytes).unwrap();
    }
    let back = decode(&bytes, rule).unwrap();
    if let Ok(p) = std::env::var("ASN1DIFF_OUT") {
        std::fs::write(p, binxml_xml::write_events(&back).unwrap()).unwrap();
    }
    let (a, b) = (norm(&events), norm(&back));
    println!("{} bytes; {} vs {} events", bytes.len(), a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        if x != y {
            println!("first difference at {i}:\n  xml:  {x}\n  asn1: {y}");
            let from = i.saturating_sub(3);
            for (j, line) in a.iter().enumerate().skip(from).take(i + 3 - from) {
                println!("  ctx xml {j}: {line}");
            }
            return;
        }
    }
    println!("same prefix; lengths {} {}", a.len(), b.len());
}
#[allow(dead_code)]
fn unused() {}
