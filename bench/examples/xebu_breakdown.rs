//! Where the bytes go: Xebu bytes per message by item kind and cache selector, for the
//! generated SOAP notifications (`-- stream` for stream mode, forget mode otherwise).
//!
//! ```text
//! cargo run --release -p binxml-bench --example xebu_breakdown [-- stream]
//! ```

use binxml_core::{Decoder, Encoder};
use binxml_xebu::notify::{NotifyOptions, messages};
use binxml_xebu::{XebuDecoder, XebuEncoder, XebuOptions};
fn main() {
    let forget = std::env::args().nth(1).as_deref() != Some("stream");
    let msgs = messages(698, &NotifyOptions::default());
    let mut e = XebuEncoder::with_options(
        Vec::new(),
        if forget {
            XebuOptions::forget()
        } else {
            XebuOptions::default()
        },
    );
    for m in &msgs {
        for ev in m {
            e.write_event(ev).unwrap();
        }
    }
    e.finish().unwrap();
    let b = e.into_inner();
    let mut d = XebuDecoder::new(&b);
    let mut stats = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut last = 0usize;
    let mut prev: Option<String> = None;
    loop {
        while let Some(ev) = d.next_event().unwrap() {
            let off = d.offset() as usize;
            if let Some(p) = prev.take() {
                let s = stats.entry(p).or_default();
                s.0 += 1;
                s.1 += off - last;
            }
            last = off;
            let k = match &ev {
                binxml_core::Event::StartElement(_) => format!("SE {:02X}", b[off] & 0xF0),
                binxml_core::Event::Attribute { .. } => format!("AT {:02X}", b[off] & 0xF0),
                binxml_core::Event::Characters { .. } => format!("TX {:02X}", b[off] & 0xF0),
                binxml_core::Event::Namespace { .. } => format!("NS {:02X}", b[off] & 0xF0),
                e => e.kind().to_string(),
            };
            prev = Some(k);
        }
        if !d.next_message() {
            break;
        }
    }
    if let Some(p) = prev {
        let s = stats.entry(p).or_default();
        s.0 += 1;
        s.1 += b.len() - last;
    }
    for (k, (n, bytes)) in stats {
        println!(
            "{k:20} {:8.1} events/msg {:8.1} bytes/msg",
            n as f64 / 698.0,
            bytes as f64 / 698.0
        );
    }
}
