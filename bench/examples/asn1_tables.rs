//! Reproduces the size figures of Tables 1-3 of the ASN.1 paper (OSS Nokalva 2003) for the given XML documents:
//! `cargo run --release -p binxml-bench --example asn1_tables -- [--paper] FILE...`
//! `--paper`: like the paper's test program, leave out comments, processing instructions and
//! the document type declaration (and so the internal subset) before writing XML and encoding,
//! and the XML declaration's version, encoding and standalone before encoding (its reference
//! XML kept the declaration).
//! Columns: XML (original bytes), XMLw (XML re-written by binxml-xml from the parsed events,
//! the paper's reference), APER, UPER, APER/C, UPER/C (bzip2 component-strings block), BER,
//! strings (uncompressed block), strings/C (bzip2), APER-s and UPER-s (minus the block as
//! carried), and "/Z" = DEFLATE level 9 of the file (standing in for WinZip 8.1).
use std::io::Write;

use binxml_asn1::reference::{build_value, encode_value};
use binxml_asn1::{Compression, Options, Rule};

fn zip(b: &[u8]) -> usize {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b).unwrap();
    e.finish().unwrap().len()
}

fn pct(x: usize, of: usize) -> String {
    format!("{}%", ((1.0 - x as f64 / of as f64) * 100.0).round())
}

fn main() {
    let paper = std::env::args().any(|a| a == "--paper");
    println!(
        "document\tXML\tXMLw\tXMLw/Z\tAPER\tAPER/Z\tUPER\tUPER/Z\tAPER/C\tAPER/C/Z\tUPER/C\tUPER/C/Z\tBER\tstrings\tstrings/C\tAPER-s\tUPER-s\tUPERcompact\tXMLw-CRLF\tUPER/XMLw-CRLF\tUPERcompact/XMLw-CRLF"
    );
    for f in std::env::args().skip(1).filter(|a| a != "--paper") {
        let raw = std::fs::read(&f).unwrap();
        let utf8 = binxml_xml::to_utf8(&raw).unwrap();
        let mut events = binxml_xml::decode(&utf8).unwrap();
        if paper {
            events.retain(|e| {
                !matches!(
                    e,
                    binxml_core::Event::Comment(_)
                        | binxml_core::Event::ProcessingInstruction { .. }
                        | binxml_core::Event::DocType(_)
                        | binxml_core::Event::Notation { .. }
                        | binxml_core::Event::UnparsedEntity { .. }
                )
            });
        }
        let xmlw = binxml_xml::encode(&events).unwrap();
        if paper {
            // the paper's program also ignored the character encoding scheme and version
            if let Some(binxml_core::Event::StartDocument {
                version,
                encoding,
                standalone,
            }) = events.first_mut()
            {
                (*version, *encoding, *standalone) = (None, None, None);
            }
        }
        let enc = |rule, c| {
            let (v, stats) =
                build_value(&events, Options::new(rule).with_compression(c).unwrap()).unwrap();
            (encode_value(rule, &v).unwrap(), stats)
        };
        let (aper, st) = enc(Rule::Aper, Compression::None);
        let (uper, _) = enc(Rule::Uper, Compression::None);
        let (aperc, stc) = enc(Rule::Aper, Compression::Bzip2);
        let (uperc, _) = enc(Rule::Uper, Compression::Bzip2);
        let (ber, _) = enc(Rule::Ber, Compression::None);
        let (v, _) = build_value(&events, Options::compact(Rule::Uper)).unwrap();
        let compact = encode_value(Rule::Uper, &v).unwrap();
        let name = std::path::Path::new(&f)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let x = xmlw.len();
        // the same XML with CR LF line ends (the paper's Win32 test program's, we assume)
        let crlf = x + xmlw.iter().filter(|&&b| b == b'\n').count();
        println!(
            "{name}\t{}\t{x}\t{} {}\t{} {}\t{}\t{} {}\t{}\t{} {}\t{}\t{} {}\t{}\t{}\t{}\t{}\t{}\t{}\t{} {}\t{}\t{:.2}%\t{:.2}%",
            raw.len(),
            zip(&xmlw),
            pct(zip(&xmlw), x),
            aper.len(),
            pct(aper.len(), x),
            zip(&aper),
            uper.len(),
            pct(uper.len(), x),
            zip(&uper),
            aperc.len(),
            pct(aperc.len(), x),
            zip(&aperc),
            uperc.len(),
            pct(uperc.len(), x),
            zip(&uperc),
            ber.len(),
            st.strings_block,
            stc.strings_carried,
            aper.len() - st.strings_carried,
            uper.len() - st.strings_carried,
            compact.len(),
            pct(compact.len(), x),
            crlf,
            100.0 * uper.len() as f64 / crlf as f64,
            100.0 * compact.len() as f64 / crlf as f64,
        );
    }
}
