//! The event listing of `binxml inspect` (and of the web page): one line per event, with where
//! it starts in the input and its depth, written the same way by every front end.

use std::fmt;

use binxml_core::{Decoder, Event, Result};

use crate::AnyDecoder;

/// Where an event starts in its input: a byte, or a bit in the bit-packed formats (PER,
/// bit-packed EXI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// Byte offset.
    Byte(u64),
    /// Bit offset.
    Bit(u64),
}

impl Position {
    /// The byte the position falls in.
    pub fn byte(self) -> u64 {
        match self {
            Position::Byte(b) => b,
            Position::Bit(b) => b / 8,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Byte(b) => write!(f, "{b}"),
            Position::Bit(b) => write!(f, "bit {b}"),
        }
    }
}

/// One event of the listing: where it starts, how deep it is, and the event as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InspectLine {
    /// Where the event starts in the input.
    pub at: Position,
    /// Elements open around it (an end tag at its start tag's depth).
    pub depth: usize,
    /// The event as its `Display` writes it.
    pub event: String,
}

/// Deeper nesting is shown at this indentation, so that a hostile document cannot make one
/// line grow with its depth.
const MAX_INDENT: usize = 40;

impl fmt::Display for InspectLine {
    /// The line as `binxml inspect` prints it: the position right-aligned in ten columns, two
    /// spaces, two more per level of depth, the event.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>10}  {}{}",
            self.at.to_string(),
            "  ".repeat(self.depth.min(MAX_INDENT)),
            self.event
        )
    }
}

/// Pulls the listing's lines out of a decoder (made with
/// [`DecodeOptions::with_positions`](crate::DecodeOptions::with_positions), so that the formats
/// that read their whole input first give each event's own position).
///
/// ```
/// use binxml::{AnyDecoder, DecodeOptions, Format, Inspector};
/// let opts = DecodeOptions::default().with_positions(true);
/// let mut lines = Inspector::new(AnyDecoder::new(Format::Xml, b"<a>hi</a>", &opts)?);
/// let mut shown = Vec::new();
/// while let Some(line) = lines.next_line()? {
///     shown.push(line.to_string());
/// }
/// assert_eq!(shown[1], "         0  StartElement a");
/// assert_eq!(shown[2], "         3    Characters \"hi\"");
/// # Ok::<(), binxml::Error>(())
/// ```
pub struct Inspector<'a> {
    decoder: AnyDecoder<'a>,
    depth: usize,
}

impl<'a> Inspector<'a> {
    /// Lists the events of `decoder`.
    pub fn new(decoder: AnyDecoder<'a>) -> Inspector<'a> {
        Inspector { decoder, depth: 0 }
    }

    /// The next event's line, or `None` after the last. After an error (the decoder's, with
    /// its offset) do not call it again.
    pub fn next_line(&mut self) -> Result<Option<InspectLine>> {
        let Some(ev) = self.decoder.next_event()? else {
            return Ok(None);
        };
        if matches!(ev, Event::EndElement) {
            self.depth = self.depth.saturating_sub(1);
        }
        let at = match self.decoder.bit_offset() {
            Some(bit) => Position::Bit(bit),
            None => Position::Byte(self.decoder.offset()),
        };
        let line = InspectLine {
            at,
            depth: self.depth,
            event: ev.to_string(),
        };
        if matches!(ev, Event::StartElement(_)) {
            self.depth += 1;
        }
        Ok(Some(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DecodeOptions, Format};

    fn listing(format: Format, doc: &[u8]) -> Vec<InspectLine> {
        let opts = DecodeOptions::default().with_positions(true);
        let mut ins = Inspector::new(AnyDecoder::new(format, doc, &opts).unwrap());
        let mut out = Vec::new();
        while let Some(l) = ins.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    #[test]
    fn an_end_tag_at_its_start_tags_depth_and_bit_positions_for_per() {
        let xml = b"<a><b>t</b><c/></a>";
        let per = crate::convert(xml, Some(Format::Xml), Format::Asn1Uper).unwrap();
        for (format, doc) in [(Format::Xml, &xml[..]), (Format::Asn1Uper, &per[..])] {
            let lines = listing(format, doc);
            let mut open = Vec::new();
            for l in &lines {
                if l.event.starts_with("StartElement") {
                    open.push(l.depth);
                } else if l.event == "EndElement" {
                    assert_eq!(Some(l.depth), open.pop(), "{format}: {l}");
                }
                let bit = matches!(l.at, Position::Bit(_));
                assert_eq!(bit, format == Format::Asn1Uper, "{format}: {l}");
                assert!(l.at.byte() <= doc.len() as u64, "{format}: {l}");
                assert!(
                    l.to_string()
                        .starts_with(&format!("{:>10}  ", l.at.to_string()))
                );
            }
            assert!(open.is_empty() && lines.len() == 9, "{format}: {lines:?}");
        }
    }
}
