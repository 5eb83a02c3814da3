//! Message streams from the command line: many XML files (one message each) into one Xebu
//! stream, and back.
//!
//! ```text
//! cargo run -p binxml-xebu --example xebu_stream -- pack [--forget] [--seq] OUT.xebu IN1.xml IN2.xml ...
//! cargo run -p binxml-xebu --example xebu_stream -- unpack IN.xebu OUTDIR      # OUTDIR/000000.xml ...
//! cargo run -p binxml-xebu --example xebu_stream -- notify COUNT OUTDIR        # generated SOAP messages
//! ```

use binxml_xebu::{XebuEncoder, XebuOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("pack") => {
            let mut opts = XebuOptions::default();
            let mut rest = &args[1..];
            while let Some(flag) = rest.first().filter(|a| a.starts_with("--")) {
                match flag.as_str() {
                    "--forget" => opts.forget = true,
                    "--seq" => opts.sequence_numbers = true,
                    _ => return Err(format!("unknown option {flag}").into()),
                }
                rest = &rest[1..];
            }
            let [out, inputs @ ..] = rest else { return Err("pack OUT IN...".into()) };
            let mut enc = XebuEncoder::with_options(std::io::BufWriter::new(std::fs::File::create(out)?), opts);
            let mut xml_bytes = 0;
            for path in inputs {
                let xml = std::fs::read(path)?;
                xml_bytes += xml.len();
                let events = binxml_xml::decode(&xml).map_err(|e| format!("{path}: {e}"))?;
                enc.write_message(&events)?;
            }
            drop(enc.into_inner());
            let size = std::fs::metadata(out)?.len();
            eprintln!("{} messages, {xml_bytes} bytes of XML -> {size} bytes of Xebu", inputs.len());
        }
        Some("unpack") => {
            let [_, input, dir] = &args[..] else { return Err("unpack IN OUTDIR".into()) };
            let bytes = std::fs::read(input)?;
            std::fs::create_dir_all(dir)?;
            let messages = binxml_xebu::decode_stream(&bytes)?;
            for (i, events) in messages.iter().enumerate() {
                let xml = binxml_xml::encode(events)?;
                std::fs::write(std::path::Path::new(dir).join(format!("{i:06}.xml")), xml)?;
            }
            eprintln!("{} messages written to {dir}", messages.len());
        }
        Some("notify") => {
            let [_, count, dir] = &args[..] else { return Err("notify COUNT OUTDIR".into()) };
            std::fs::create_dir_all(dir)?;
            let opts = binxml_xebu::notify::NotifyOptions::default();
            for (i, events) in binxml_xebu::notify::messages(count.parse()?, &opts).iter().enumerate() {
                let xml = binxml_xml::encode(events)?;
                std::fs::write(std::path::Path::new(dir).join(format!("{i:06}.xml")), xml)?;
            }
        }
        _ => return Err("usage: xebu_stream pack [--forget] [--seq] OUT IN... | unpack IN OUTDIR | notify COUNT OUTDIR".into()),
    }
    Ok(())
}
