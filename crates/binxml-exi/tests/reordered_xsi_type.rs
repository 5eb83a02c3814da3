//! A lexical `xsi:type` (lexical values preserved) in a reordered layout: it is read with the
//! block's structure, before the block's value channels, and must come back as written, not
//! as a value of the channels read after it.

use binxml_core::{Event, QName};
use binxml_exi::{Alignment, ExiOptions};

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

#[test]
fn lexical_xsi_type_survives_the_channels() {
    let events = vec![
        Event::start_document(),
        Event::StartElement(QName::local("r")),
        Event::Namespace {
            prefix: "xsi".into(),
            uri: XSI.into(),
        },
        Event::Attribute {
            name: QName::new("xsi", XSI, "type"),
            value: "DataDocument".into(),
        },
        Event::StartElement(QName::local("p")),
        Event::text("Party B"),
        Event::EndElement,
        Event::StartElement(QName::local("q")),
        Event::Attribute {
            name: QName::local("a"),
            value: "another value".into(),
        },
        Event::EndElement,
        Event::EndElement,
        Event::EndDocument,
    ];
    for alignment in [Alignment::PreCompression, Alignment::Compression] {
        let o = ExiOptions::default()
            .with_alignment(alignment)
            .with_lexical_values(true)
            .with_prefixes(true);
        let exi = binxml_exi::encode_with(&events, &o).unwrap();
        let back = binxml_exi::decode_with(&exi, &o).unwrap();
        let ty = back
            .iter()
            .find_map(|e| match e {
                Event::Attribute { name, value } if name.local == "type" => Some(value.to_string()),
                _ => None,
            })
            .unwrap();
        assert_eq!(ty, "DataDocument", "{alignment:?}");
    }
}
