//! Converts between XML and Fast Infoset files:
//!
//! ```text
//! cargo run -p binxml-fi --example fi_convert -- xml2fi IN.xml OUT.fi
//! cargo run -p binxml-fi --example fi_convert -- fi2xml IN.fi OUT.xml
//! ```
//!
//! The same code, in memory, is the crate documentation's example.

use binxml_core::transcode;
use binxml_fi::{FiDecoder, FiEncoder};
use binxml_xml::{XmlDecoder, XmlWriter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, input, output] = &args[..] else {
        return Err("usage: fi_convert (xml2fi|fi2xml) IN OUT".into());
    };
    let input = std::fs::read(input)?;
    let out = match mode.as_str() {
        "xml2fi" => {
            // XML in any encoding it declares becomes UTF-8 first
            let xml = binxml_xml::to_utf8(&input)?;
            let mut fi = FiEncoder::new(Vec::new());
            transcode(&mut XmlDecoder::new(&xml), &mut fi)?;
            fi.into_inner()
        }
        "fi2xml" => {
            let mut xml = XmlWriter::new(Vec::new());
            transcode(&mut FiDecoder::new(&input), &mut xml)?;
            xml.into_inner()?
        }
        m => return Err(format!("unknown mode {m} (xml2fi or fi2xml)").into()),
    };
    std::fs::write(output, out)?;
    Ok(())
}
