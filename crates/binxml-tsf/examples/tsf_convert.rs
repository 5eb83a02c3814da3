//! Converts XML, JSON or TSF files:
//!
//! ```text
//! cargo run -p binxml-tsf --example tsf_convert -- (xml2tsf|json2tsf|tsf2xml|tsf2json|reftsf2xml) IN OUT
//! ```
//!
//! `reftsf2xml` reads the files of the TSF paper's reference converter (UTF-16 lengths). The
//! crate documentation's example shows the XML to TSF and back in memory.
use binxml_core::transcode;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let input = std::fs::read(&a[2]).unwrap();
    let out = match a[1].as_str() {
        "xml2tsf" => {
            let u = binxml_xml::to_utf8(&input).unwrap();
            let mut e = binxml_tsf::TsfEncoder::new(Vec::new());
            transcode(&mut binxml_xml::XmlDecoder::new(&u), &mut e).unwrap();
            e.into_inner()
        }
        "json2tsf" => {
            let mut e = binxml_tsf::TsfEncoder::new(Vec::new());
            transcode(&mut binxml_json::JsonDecoder::new(&input), &mut e).unwrap();
            e.into_inner()
        }
        "tsf2xml" | "reftsf2xml" => {
            let opts = binxml_tsf::TsfOptions::default().with_utf16_lengths(a[1] == "reftsf2xml");
            let mut w = binxml_xml::XmlWriter::new(Vec::new());
            transcode(
                &mut binxml_tsf::TsfDecoder::with_options(&input, opts),
                &mut w,
            )
            .unwrap();
            w.into_inner().unwrap()
        }
        "tsf2json" => {
            let mut w = binxml_json::JsonEncoder::new(Vec::new());
            transcode(&mut binxml_tsf::TsfDecoder::new(&input), &mut w).unwrap();
            w.into_inner()
        }
        m => panic!("unknown mode {m}"),
    };
    std::fs::write(&a[3], out).unwrap();
}
