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
    /// The EXI encodings of [`EXI_VARIANTS`] after the first (the first is `Format::Exi` in
    /// `enc`, EXI's default options), each decoded back like `enc`.
    pub exi: Vec<Result<Vec<u8>, String>>,
}

impl Doc {
    pub fn encoded(&self, f: Format) -> Result<&[u8], &str> {
        let i = Format::ALL.iter().position(|&g| g == f).unwrap();
        self.enc[i].as_deref().map_err(|e| e.as_str())
    }

    /// The document in EXI variant `v` of [`EXI_VARIANTS`] (0: `Format::Exi`'s encoding).
    pub fn exi(&self, v: usize) -> Result<&[u8], &str> {
        if v == 0 {
            self.encoded(Format::Exi)
        } else {
            self.exi[v - 1].as_deref().map_err(|e| e.as_str())
        }
    }
}

/// An EXI option set the benchmarks measure besides EXI's defaults: the layout (bit-packed or
/// compression) and the whitespace policy (binxml keeps whitespace-only text by default;
/// EXIficient drops it between tags, and with `Whitespace::DropBetweenTags` binxml writes
/// EXIficient's bytes).
pub struct ExiVariant {
    /// The row's name in the tables (`exi` for the defaults).
    pub name: &'static str,
    pub alignment: binxml::exi::Alignment,
    pub whitespace: binxml::exi::Whitespace,
}

impl ExiVariant {
    pub fn options(&self) -> binxml::exi::ExiOptions {
        binxml::exi::ExiOptions::default()
            .with_alignment(self.alignment)
            .with_whitespace(self.whitespace)
    }
    pub fn encode_options(&self) -> binxml::EncodeOptions {
        binxml::EncodeOptions::default().with_exi(self.options())
    }
    pub fn decode_options(&self) -> binxml::DecodeOptions {
        binxml::DecodeOptions::default().with_exi(self.options())
    }
    /// Whether whitespace-only text between tags is dropped (as EXIficient does).
    pub fn drops_whitespace(&self) -> bool {
        self.whitespace == binxml::exi::Whitespace::DropBetweenTags
    }
    pub fn compressed(&self) -> bool {
        self.alignment == binxml::exi::Alignment::Compression
    }
}

/// The EXI variants, the first being EXI's defaults (bit-packed, whitespace kept), which is
/// `Format::Exi` everywhere else in the benchmarks.
pub const EXI_VARIANTS: [ExiVariant; 4] = [
    ExiVariant {
        name: "exi",
        alignment: binxml::exi::Alignment::BitPacked,
        whitespace: binxml::exi::Whitespace::Preserve,
    },
    ExiVariant {
        name: "exi compression",
        alignment: binxml::exi::Alignment::Compression,
        whitespace: binxml::exi::Whitespace::Preserve,
    },
    ExiVariant {
        name: "exi, whitespace dropped",
        alignment: binxml::exi::Alignment::BitPacked,
        whitespace: binxml::exi::Whitespace::DropBetweenTags,
    },
    ExiVariant {
        name: "exi compression, whitespace dropped",
        alignment: binxml::exi::Alignment::Compression,
        whitespace: binxml::exi::Whitespace::DropBetweenTags,
    },
];

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
    encode_tape_with(f, &binxml::EncodeOptions::default(), tape, out)
}

/// [`encode_tape_into`] with encoder options (the EXI variants).
pub fn encode_tape_with(
    f: Format,
    opts: &binxml::EncodeOptions,
    tape: &binxml_core::Tape<'_>,
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    let start = out.len();
    {
        let mut enc = binxml::AnyEncoder::new(f, &mut *out, opts);
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
        let (elements, enc, exi) = match guarded(|| xml_events(&xml)) {
            Err(e) => (
                0,
                vec![Err(format!("binxml cannot read the XML: {e}")); Format::ALL.len()],
                vec![Err(format!("binxml cannot read the XML: {e}")); EXI_VARIANTS.len() - 1],
            ),
            Ok(events) => {
                let elements = events
                    .iter()
                    .filter(|e| matches!(e, Event::StartElement(_)))
                    .count();
                let round_trip = |f: Format,
                                  eopts: &binxml::EncodeOptions,
                                  dopts: &binxml::DecodeOptions| {
                    guarded(|| {
                        let mut bytes = Vec::new();
                        {
                            let mut enc = binxml::AnyEncoder::new(f, &mut bytes, eopts);
                            enc.write_events(&events)
                                .and_then(|()| enc.finish())
                                .map_err(|e| format!("encode: {e}"))?;
                        }
                        let n = {
                            let mut dec = binxml::AnyDecoder::new(f, &bytes, dopts)
                                .map_err(|e| format!("decode: {e}"))?;
                            count_elements(&mut dec).map_err(|e| format!("decode: {e}"))?
                        };
                        if n != elements && !export_only(f) {
                            return Err(format!("decoded {n} elements, the XML has {elements}"));
                        }
                        Ok(bytes)
                    })
                };
                let enc = Format::ALL
                    .iter()
                    .map(|&f| {
                        round_trip(
                            f,
                            &binxml::EncodeOptions::default(),
                            &binxml::DecodeOptions::default(),
                        )
                    })
                    .collect();
                let exi = EXI_VARIANTS[1..]
                    .iter()
                    .map(|v| round_trip(Format::Exi, &v.encode_options(), &v.decode_options()))
                    .collect();
                (elements, enc, exi)
            }
        };
        docs.push(Doc {
            name,
            xml,
            enc,
            elements,
            exi,
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
