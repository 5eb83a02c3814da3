//! Xebu: a binary XML format that serializes the event sequence event by event, with explicit
//! token definitions in four 256-entry LRU caches (namespace URIs, names, attribute values, text
//! content), native typed content, and token state kept across the messages of a stream.
//!
//! After Kangasharju, Tarkoma and Lindholm, "Xebu: A Binary Format with Schema-based
//! Optimizations for XML Data" (WISE 2005). The byte layout is written down in `docs/xebu.md`.
//!
//! * [`XebuEncoder`] (an [`Encoder`]) writes one message or a stream of messages; with
//!   [`XebuOptions::forget`] every message is self-contained. [`XebuEncoder::checkpoint`] /
//!   [`XebuEncoder::rollback_to`] invalidate the tokens defined after a known good point, so a
//!   stream whose decoder lost some messages recovers without restarting.
//! * [`XebuDecoder`] (a [`Decoder`]) reads a message, or a stream of messages in one buffer with
//!   [`XebuDecoder::next_message`]; [`XebuStreamDecoder`] reads messages delivered one by one.
//! * [`notify`] generates the SOAP event-notification messages of the paper's benchmark.
//!
//! Two XML messages into one stream, and back (the `xebu_stream` example does the same with
//! files); the second message reuses the tokens the first defined:
//!
//! ```
//! use binxml_xebu::{XebuEncoder, decode_stream};
//!
//! let messages = [
//!     r#"<event kind="temp"><value>21.5</value></event>"#,
//!     r#"<event kind="temp"><value>21.7</value></event>"#,
//! ];
//! let mut enc = XebuEncoder::new(Vec::new());
//! for m in messages {
//!     enc.write_message(&binxml_xml::decode(m.as_bytes())?)?;
//! }
//! let stream = enc.into_inner();
//!
//! let back = decode_stream(&stream)?;
//! assert_eq!(back.len(), 2);
//! let xml = binxml_xml::encode(&back[1])?;
//! assert!(String::from_utf8(xml).unwrap().contains("21.7"));
//! # Ok::<(), binxml_core::Error>(())
//! ```

#![forbid(unsafe_code)]

mod datetime;
mod decoder;
mod encoder;
pub mod notify;
mod omit;
mod scope;
mod tables;
mod wire;

pub use decoder::{XebuDecoder, XebuStreamDecoder};
pub use encoder::{Checkpoint, XebuEncoder, XebuOptions};
pub use omit::XebuSchema;

use binxml_core::Format;
use binxml_core::{Decoder, Encoder, Event, Result};

/// Deepest nesting of typed lists.
pub(crate) const MAX_LIST_DEPTH: usize = 32;

/// The stream encoder is [`XebuEncoder`] itself: it carries its tokens from one message to the
/// next ([`XebuEncoder::write_message`]).
pub type XebuStreamEncoder<W> = XebuEncoder<W>;

/// The format's registry name.
pub const FORMAT: Format = Format::Xebu;

/// Whether `prefix` (the first bytes of a file, the more the better: 64 is plenty) looks like
/// Xebu. There is no magic number: the first byte must be a document start (`0x01`, `0x11`, …
/// `0x71`) and the prefix must decode without error for its first three events, or up to its
/// end; a XebuS document start (`0x81` … `0xF1`) is taken as it is. Try it after the formats that have magic numbers, and prefer a text format that also
/// matches (`1`, `a`, `A`, `q`, `Q` and `!` are document-start bytes).
pub fn detect(prefix: &[u8]) -> bool {
    match prefix.first() {
        Some(d) if d & 0x8F == 0x01 => {}
        // XebuS (a message written with omission automata): only its schema can read further.
        Some(d) if d & 0x8F == 0x81 => return prefix.len() > 1,
        _ => return false,
    }
    let mut d = XebuDecoder::new(prefix);
    for _ in 0..3 {
        match d.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => return true,
            // Truncated by the prefix's end: everything before it was valid.
            Err(e) => {
                return e.message().starts_with("unexpected end")
                    || e.message().contains("past the end");
            }
        }
    }
    true
}

/// Encodes one document.
pub fn encode(events: &[Event<'_>]) -> Result<Vec<u8>> {
    encode_with(events, XebuOptions::default())
}

/// Encodes one document (or several, back to back) with the given options.
pub fn encode_with(events: &[Event<'_>], opts: XebuOptions) -> Result<Vec<u8>> {
    let mut e = XebuEncoder::with_options(Vec::new(), opts);
    for ev in events {
        e.write_event(ev)?;
    }
    e.finish()?;
    Ok(e.into_inner())
}

/// Decodes one message.
pub fn decode(input: &[u8]) -> Result<Vec<Event<'_>>> {
    let mut d = XebuDecoder::new(input);
    let mut v = Vec::new();
    while let Some(ev) = d.next_event()? {
        v.push(ev);
    }
    if d.position() != input.len() {
        return Err(binxml_core::Error::malformed(
            FORMAT,
            d.position() as u64,
            "bytes after the end of the message (a stream? use decode_stream)",
        ));
    }
    Ok(v)
}

/// Encodes a stream of messages (each a complete document event sequence) into one buffer.
pub fn encode_stream<'e, I>(messages: I, opts: XebuOptions) -> Result<Vec<u8>>
where
    I: IntoIterator<Item = &'e [Event<'e>]>,
{
    let mut e = XebuEncoder::with_options(Vec::new(), opts);
    for m in messages {
        for ev in m {
            e.write_event(ev)?;
        }
    }
    e.finish()?;
    Ok(e.into_inner())
}

/// The byte ranges of the messages of a stream held in one buffer (decodes it all to find them;
/// Xebu has no framing).
pub fn message_ranges(input: &[u8]) -> Result<Vec<std::ops::Range<usize>>> {
    let mut d = XebuDecoder::new(input);
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        while d.next_event()?.is_some() {}
        out.push(start..d.position());
        start = d.position();
        if !d.next_message() {
            break;
        }
    }
    Ok(out)
}

/// Decodes every message of a stream held in one buffer.
pub fn decode_stream(input: &[u8]) -> Result<Vec<Vec<Event<'_>>>> {
    let mut d = XebuDecoder::new(input);
    let mut out = Vec::new();
    loop {
        let mut msg = Vec::new();
        while let Some(ev) = d.next_event()? {
            msg.push(ev);
        }
        out.push(msg);
        if !d.next_message() {
            break;
        }
    }
    Ok(out)
}
