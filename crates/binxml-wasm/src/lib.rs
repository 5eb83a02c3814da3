//! binxml for the browser (`web/`): the facade's detection, event listing, conversion and
//! sizes, exported to JavaScript with wasm-bindgen. A thin layer, as the command line is: the
//! listing is the library's [`binxml::Inspector`], the conversions [`binxml::convert_with`],
//! with the command line's default limits.
//!
//! Errors reach JavaScript as `Error` objects whose message is the decoder's (as `binxml`
//! prints it) and whose `offset` and `bitOffset` properties say where, when known.

use std::io::Write;

use binxml::{AnyDecoder, CountingSink, DecodeOptions, Decoder, EncodeOptions, Format};
use js_sys::{Array, Float64Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// Indentation of the XML view (`binxml convert -t xml --indent 2`).
pub const XML_INDENT: usize = 2;

fn format_named(name: &str) -> Result<Format, JsValue> {
    Format::from_name(name)
        .ok_or_else(|| js_sys::Error::new(&format!("unknown format {name:?}")).into())
}

fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a property of a plain object made here cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// The library's error as a JavaScript `Error` with `offset` and `bitOffset` (or `null`).
fn js_error(e: &binxml::Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    set(&err, "offset", e.offset().map(|o| o as f64));
    set(&err, "bitOffset", e.bit_offset().map(|o| o as f64));
    err.into()
}

/// The decoding options of `binxml inspect` and `binxml convert` with no options: the default
/// limits.
fn decode_options() -> DecodeOptions {
    DecodeOptions::default().with_positions(true)
}

/// Every format, in the registry's order: an array of `{name, extension, description}`.
#[wasm_bindgen]
pub fn formats() -> Array {
    Format::ALL
        .iter()
        .map(|f| {
            let o = Object::new();
            set(&o, "name", f.name());
            set(&o, "extension", f.extension());
            set(&o, "description", f.description());
            JsValue::from(o)
        })
        .collect()
}

/// The format of `bytes` (from its first bytes, then the extension of `file_name`), or
/// `undefined` when nothing matches.
#[wasm_bindgen]
pub fn detect(bytes: &[u8], file_name: Option<String>) -> Option<String> {
    let name = std::path::PathBuf::from(file_name.unwrap_or_default());
    binxml::detect_named(&name, bytes).map(|f| f.name().to_string())
}

/// The event listing of `binxml inspect`: an object with `lines` (the lines it prints after its
/// header), `bits` (where each event starts, in bits from the start of the input), `bitPacked`
/// (whether the format gives bit positions) and `error` (`null`, or the `Error` that stopped the
/// decoder after the events listed).
#[wasm_bindgen]
pub fn inspect(bytes: &[u8], format: &str) -> Result<Object, JsValue> {
    let format = format_named(format)?;
    let out = Object::new();
    let lines = Array::new();
    let mut bits = Vec::new();
    let mut bit_packed = false;
    let mut error = JsValue::NULL;
    match AnyDecoder::new(format, bytes, &decode_options()) {
        Err(e) => error = js_error(&e),
        Ok(dec) => {
            let mut inspector = binxml::Inspector::new(dec);
            loop {
                match inspector.next_line() {
                    Ok(Some(line)) => {
                        bits.push(match line.at {
                            binxml::Position::Byte(b) => (b * 8) as f64,
                            binxml::Position::Bit(b) => {
                                bit_packed = true;
                                b as f64
                            }
                        });
                        lines.push(&JsValue::from_str(&line.to_string()));
                    }
                    Ok(None) => break,
                    Err(e) => {
                        error = js_error(&e);
                        break;
                    }
                }
            }
        }
    }
    set(&out, "lines", lines);
    set(&out, "bits", Float64Array::from(&bits[..]));
    set(&out, "bitPacked", bit_packed);
    set(&out, "error", error);
    Ok(out)
}

/// Converts `bytes` (in format `from`) to `to` with the default options, XML and JSON indented
/// by two spaces as the page shows them.
pub fn convert_bytes(bytes: &[u8], from: Format, to: Format) -> binxml::Result<Vec<u8>> {
    let mut out = Vec::new();
    let eopts = EncodeOptions::default().with_indent(Some(XML_INDENT));
    binxml::convert_with(bytes, from, &decode_options(), to, &mut out, &eopts)?;
    Ok(out)
}

/// The document as indented XML (`binxml convert -t xml --indent 2`).
#[wasm_bindgen]
pub fn to_xml(bytes: &[u8], format: &str) -> Result<String, JsValue> {
    let from = format_named(format)?;
    let xml = convert_bytes(bytes, from, Format::Xml).map_err(|e| js_error(&e))?;
    // The XML writer writes UTF-8.
    String::from_utf8(xml).map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// Converts the document to `to` (XML and JSON indented by two spaces).
#[wasm_bindgen]
pub fn convert(bytes: &[u8], from: &str, to: &str) -> Result<Vec<u8>, JsValue> {
    convert_bytes(bytes, format_named(from)?, format_named(to)?).map_err(|e| js_error(&e))
}

/// The document's size in every format, plain and gzipped (as the bench's size tables use
/// default options, XML and JSON not indented).
pub fn sizes_of(bytes: &[u8], from: Format) -> Vec<(Format, binxml::Result<(usize, usize)>)> {
    Format::ALL
        .iter()
        .map(|&to| {
            let mut out = Vec::new();
            let r = binxml::convert_with(
                bytes,
                from,
                &decode_options(),
                to,
                &mut out,
                &EncodeOptions::default(),
            )
            .map(|_| (out.len(), gzipped_len(&out)));
            (to, r)
        })
        .collect()
}

fn gzipped_len(data: &[u8]) -> usize {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to memory cannot fail.
    let _ = gz.write_all(data);
    gz.finish().map(|v| v.len()).unwrap_or(0)
}

/// The document's size in every format: an array of `{format, bytes, gzip, error}` (`error`
/// the message when the document cannot be written in that format, sizes then `null`).
#[wasm_bindgen]
pub fn sizes(bytes: &[u8], format: &str) -> Result<Array, JsValue> {
    let from = format_named(format)?;
    Ok(sizes_of(bytes, from)
        .into_iter()
        .map(|(to, r)| {
            let row = Object::new();
            set(&row, "format", to.name());
            match r {
                Ok((n, gz)) => {
                    set(&row, "bytes", n as f64);
                    set(&row, "gzip", gz as f64);
                    set(&row, "error", JsValue::NULL);
                }
                Err(e) => {
                    set(&row, "bytes", JsValue::NULL);
                    set(&row, "gzip", JsValue::NULL);
                    set(&row, "error", e.to_string());
                }
            }
            JsValue::from(row)
        })
        .collect())
}

/// Push-decodes the whole document and counts its events: the decoding the speed comparison
/// times, in the page and natively.
pub fn count_events_of(bytes: &[u8], from: Format) -> binxml::Result<u64> {
    let mut sink = CountingSink::default();
    AnyDecoder::new(from, bytes, &DecodeOptions::default())?.read_into(&mut sink)?;
    Ok(sink.events)
}

/// [`count_events_of`] for JavaScript.
#[wasm_bindgen]
pub fn count_events(bytes: &[u8], format: &str) -> Result<f64, JsValue> {
    count_events_of(bytes, format_named(format)?)
        .map(|n| n as f64)
        .map_err(|e| js_error(&e))
}
