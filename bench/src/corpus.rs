//! The documents every benchmark uses, each encoded once in every binxml format.

use std::path::PathBuf;

use binxml::{Decoder, Encoder, Event, Format};

use crate::measure::{self, Config, guarded};

pub struct Doc {
    /// Path relative to the corpus.
    pub name: String,
    /// The document as UTF-8 XML (transcoded where it was in another encoding).
    pub xml: Vec<u8>,
    /// One result per format of `Format::ALL`: the encoded bytes, or why encoding or decoding
    /// them back failed.
    pub enc: Vec<Result<Vec<u8>, String>>,
    /// Number of elements (from binxml's XML decoder), 0 if that failed.
    pub elements: usize,
}

impl Doc {
    pub fn encoded(&self, f: Format) -> Result<&[u8], &str> {
        let i = Format::ALL.iter().position(|&g| g == f).unwrap();
        self.enc[i].as_deref().map_err(|e| e.as_str())
    }
}

/// Formats that write XML outside their own data model as a one-way export: binxml's JSON
/// codec writes any XML that is not in its JSON mapping as JsonML, which reads back as the
/// mapping's events of the JsonML arrays, not as the original XML (docs/json-mapping.md). Their
/// sizes are reported; speed, FI Mark and memory, which need the same infoset back, leave them
/// out.
pub fn export_only(f: Format) -> bool {
    f == Format::Json
}

pub const EXPORT_NOTE: &str = "binxml's JSON codec writes XML outside its JSON mapping as JsonML, a one-way export: reading it back gives the JSON mapping's events of the JsonML arrays, not the original XML (docs/json-mapping.md)";

pub struct Corpus {
    pub docs: Vec<Doc>,
}

fn count_elements<'a>(dec: &mut dyn Decoder<'a>) -> Result<usize, String> {
    let mut n = 0;
    while let Some(ev) = dec.next_event().map_err(|e| e.to_string())? {
        if matches!(ev, Event::StartElement(_)) {
            n += 1;
        }
    }
    Ok(n)
}

/// Encodes events into `f`.
pub fn encode(f: Format, events: &[Event<'_>]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    encode_into(f, events, &mut out)?;
    Ok(out)
}

/// Encodes events into `f`, appending to `out`; returns the encoded length. The speed runs
/// pass one buffer per subject, cleared before each document (its capacity kept), as the Java
/// harness reuses one `ByteArrayOutputStream`.
pub fn encode_into(f: Format, events: &[Event<'_>], out: &mut Vec<u8>) -> Result<usize, String> {
    let start = out.len();
    {
        let mut enc = binxml::AnyEncoder::new(f, &mut *out, &binxml::EncodeOptions::default());
        enc.write_events(events).map_err(|e| e.to_string())?;
        enc.finish().map_err(|e| e.to_string())?;
    }
    Ok(out.len() - start)
}

/// Encodes a recorded document ([`binxml::Tape`]) in format `f` into `out` (appended), by one
/// `Encoder::write_tape` call; returns the number of bytes written.
pub fn encode_tape_into(
    f: Format,
    tape: &binxml_core::Tape<'_>,
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    let start = out.len();
    {
        let mut enc = binxml::AnyEncoder::new(f, &mut *out, &binxml::EncodeOptions::default());
        enc.write_tape(tape).map_err(|e| e.to_string())?;
        enc.finish().map_err(|e| e.to_string())?;
    }
    Ok(out.len() - start)
}

/// The XML decoded into events (borrowing from the document).
pub fn xml_events(xml: &[u8]) -> Result<Vec<Event<'_>>, String> {
    let mut d = binxml_xml::XmlDecoder::new(xml);
    binxml::core::collect_events(&mut d).map_err(|e| e.to_string())
}

pub fn load(cfg: &Config) -> Corpus {
    let mut docs = Vec::new();
    for (name, xml) in measure::xml_documents(cfg) {
        let (elements, enc) = match guarded(|| xml_events(&xml)) {
            Err(e) => (
                0,
                vec![Err(format!("binxml cannot read the XML: {e}")); Format::ALL.len()],
            ),
            Ok(events) => {
                let elements = events
                    .iter()
                    .filter(|e| matches!(e, Event::StartElement(_)))
                    .count();
                let enc = Format::ALL
                    .iter()
                    .map(|&f| {
                        guarded(|| {
                            let bytes = encode(f, &events).map_err(|e| format!("encode: {e}"))?;
                            let n = {
                                let mut dec = binxml::AnyDecoder::new(
                                    f,
                                    &bytes,
                                    &binxml::DecodeOptions::default(),
                                )
                                .map_err(|e| format!("decode: {e}"))?;
                                count_elements(&mut dec).map_err(|e| format!("decode: {e}"))?
                            };
                            if n != elements && !export_only(f) {
                                return Err(format!(
                                    "decoded {n} elements, the XML has {elements}"
                                ));
                            }
                            Ok(bytes)
                        })
                    })
                    .collect();
                (elements, enc)
            }
        };
        docs.push(Doc {
            name,
            xml,
            enc,
            elements,
        });
    }
    Corpus { docs }
}

/// The document with its XML declaration's encoding name changed to UTF-8 (the bytes are UTF-8
/// already), for parsers that honour the declaration.
pub fn utf8_declared(xml: &[u8]) -> Vec<u8> {
    if !xml.starts_with(b"<?xml") {
        return xml.to_vec();
    }
    let Some(end) = xml.windows(2).position(|w| w == b"?>") else {
        return xml.to_vec();
    };
    let decl = &xml[..end];
    let Some(at) = decl.windows(8).position(|w| w == b"encoding") else {
        return xml.to_vec();
    };
    let rest = &decl[at + 8..];
    let Some(q) = rest.iter().position(|&b| b == b'"' || b == b'\'') else {
        return xml.to_vec();
    };
    let quote = rest[q];
    let Some(len) = rest[q + 1..].iter().position(|&b| b == quote) else {
        return xml.to_vec();
    };
    let start = at + 8 + q + 1;
    let mut out = xml[..start].to_vec();
    out.extend_from_slice(b"UTF-8");
    out.extend_from_slice(&xml[start + len..]);
    out
}

/// Writes the documents (UTF-8, declaration adjusted) for the external peers; returns their
/// paths.
pub fn write_peer_docs(docs: &[&Doc]) -> Vec<PathBuf> {
    let dir = measure::peers_dir().join("work/docs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the peers' document directory");
    docs.iter()
        .enumerate()
        .map(|(i, d)| {
            let p = dir.join(format!("{i:03}.xml"));
            std::fs::write(&p, utf8_declared(&d.xml)).expect("write a document for the peers");
            p
        })
        .collect()
}
