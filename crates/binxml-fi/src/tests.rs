use super::*;
use binxml_core::{Decoder, Event, QName};

#[test]
fn empty_element_bytes() {
    let ev = vec![Event::start_document(), Event::StartElement(QName::local("a")), Event::EndElement, Event::EndDocument];
    let b = encode_events(&ev, FiOptions::default()).unwrap();
    assert_eq!(b, [0xE0, 0x00, 0x00, 0x01, 0x00, 0x3C, 0x00, 0x61, 0xFF]);
    let back = decode_events(&b).unwrap();
    assert_eq!(back, ev);
}
