//! Hostile input to the schema-informed decoder: truncated and corrupted streams (every layout,
//! compression included), and random bytes, decode to an error (with a bit offset) or to events,
//! never a panic, a hang, or memory beyond the input's measure.

use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Limits};
use binxml_exi::ExiOptions;
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_schema::{LoadOptions, Schema};

fn grammars() -> Arc<SchemaGrammars> {
    let xsd = br#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="r"><xs:complexType><xs:sequence>
        <xs:element name="i" type="xs:int" maxOccurs="unbounded"/>
        <xs:element name="s" type="xs:string" minOccurs="0"/>
        <xs:any processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence><xs:attribute name="d" type="xs:date"/><xs:anyAttribute/></xs:complexType></xs:element>
    </xs:schema>"#;
    let s = Schema::from_bytes_with(xsd, "h.xsd", &LoadOptions::default()).unwrap();
    Arc::new(SchemaGrammars::new(Arc::new(s)).unwrap())
}

fn decode(g: &Arc<SchemaGrammars>, bytes: &[u8], o: &ExiOptions) -> Result<usize, String> {
    let mut d = SchemaDecoder::new(bytes, Arc::clone(g), o.clone(), Limits::default());
    let mut n = 0;
    loop {
        match d.next_event() {
            Ok(Some(_)) => {
                n += 1;
                assert!(n < 1_000_000, "{} events from {} bytes", n, bytes.len());
            }
            Ok(None) => return Ok(n),
            Err(e) => {
                assert!(e.bit_offset().is_some() || e.offset().is_none(), "{e}");
                return Err(e.to_string());
            }
        }
    }
}

#[test]
fn truncated_corrupted_and_random_streams_are_refused_cleanly() {
    let g = grammars();
    let xml = br#"<r d="2020-02-29" other="x" xmlns:x="http://www.w3.org/2001/XMLSchema-instance"><i>1</i><i>-7</i><s>text</s><extra xmlns:p="urn:p" xmlns="urn:d" p:a="1" a="2"><deep>t</deep><p:deep x:type="p:t"/></extra></r>"#;
    let events = binxml_xml::decode(xml).unwrap();
    for o in [
        ExiOptions::default(),
        ExiOptions::default().with_alignment(binxml_exi::Alignment::ByteAligned),
        ExiOptions::default().with_alignment(binxml_exi::Alignment::PreCompression),
        ExiOptions::default()
            .with_alignment(binxml_exi::Alignment::PreCompression)
            .with_block_size(2),
        ExiOptions::default().with_alignment(binxml_exi::Alignment::Compression),
        ExiOptions::default().with_prefixes(true),
        ExiOptions::default()
            .with_prefixes(true)
            .with_lexical_values(true)
            .with_alignment(binxml_exi::Alignment::PreCompression)
            .with_block_size(2),
    ] {
        truncate_and_flip(&g, &events, &o);
    }
    // preserve.dtd (DT, ER) and self-contained elements (SC: a fragment with its own string
    // table inside the stream).
    let xml = br#"<!DOCTYPE r SYSTEM "r.dtd" [<!ENTITY e "ent"> ]><r><i>1</i><s>a&e;b&u;</s><extra xmlns:p="urn:p"><p:deep>&u;t</p:deep><i>2</i></extra></r>"#;
    let events = binxml_xml::decode(xml).unwrap();
    for o in [
        ExiOptions::default().with_dtd(true),
        ExiOptions::default()
            .with_dtd(true)
            .with_comments(true)
            .with_alignment(binxml_exi::Alignment::Compression),
        ExiOptions::default().with_self_contained_elements(["extra", "s", "{urn:p}deep"]),
        ExiOptions::default()
            .with_self_contained_elements(["r", "i"])
            .with_dtd(true)
            .with_prefixes(true)
            .with_alignment(binxml_exi::Alignment::ByteAligned),
    ] {
        truncate_and_flip(&g, &events, &o);
    }
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..2000 {
        let len = (x % 64) as usize;
        let mut b = vec![0x80u8];
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.push(x as u8);
        }
        let _ = decode(&g, &b, &ExiOptions::default());
        let _ = decode(&g, &b, &ExiOptions::default().with_strict(true));
        let _ = decode(&g, &b, &ExiOptions::default().with_prefixes(true));
        let all = ExiOptions::default()
            .with_dtd(true)
            .with_self_contained(true)
            .with_comments(true)
            .with_pis(true);
        let _ = decode(&g, &b, &all);
    }
}

/// Encodes `events` with `o`, checks the stream decodes, then decodes every truncation and
/// every one-bit corruption of it.
fn truncate_and_flip(g: &Arc<SchemaGrammars>, events: &[binxml_core::Event<'_>], o: &ExiOptions) {
    let mut e = SchemaEncoder::new(Vec::new(), Arc::clone(g), o.clone()).unwrap();
    e.write_events(events).unwrap();
    e.finish().unwrap();
    let bytes = e.into_inner();
    decode(g, &bytes, o).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    for cut in 0..bytes.len() {
        let _ = decode(g, &bytes[..cut], o);
    }
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            let _ = decode(g, &b, o);
        }
    }
}
