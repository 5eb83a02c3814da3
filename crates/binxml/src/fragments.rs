//! The XML text of one element inside another format's value (X.694's element wildcards),
//! written and parsed by the XML codec: the facade hands it to the codecs that need it, which
//! cannot import the XML codec themselves.

use binxml_core::{Decoder, Encoder, Error, Event, Format, Limits, Result, XmlFragments};

/// [`XmlFragments`] by binxml's XML writer and reader.
#[derive(Clone, Copy, Debug, Default)]
pub struct XmlText;

impl XmlFragments for XmlText {
    fn write_element(&self, events: &[Event<'_>], out: &mut String) -> Result<()> {
        if !matches!(events.first(), Some(Event::StartElement(_))) {
            return Err(Error::invalid_events(Format::Xml, "an element expected"));
        }
        let mut w = binxml_xml::XmlWriter::new(Vec::new());
        // A document without a declaration, of this one element.
        w.write_event(&Event::StartDocument {
            version: None,
            encoding: None,
            standalone: None,
        })?;
        for ev in events {
            w.write_event(ev)?;
        }
        w.write_event(&Event::EndDocument)?;
        w.finish()?;
        let bytes = w.into_inner()?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Error::invalid_events(Format::Xml, "the XML writer wrote no UTF-8"))?;
        out.push_str(text);
        Ok(())
    }

    fn read_element(
        &self,
        text: &str,
        limits: &Limits,
        sink: &mut dyn FnMut(&Event<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut d = binxml_xml::XmlDecoder::with_limits(text.as_bytes(), limits.clone());
        let mut depth = 0usize;
        let mut seen = false;
        while let Some(ev) = d.next_event()? {
            let inside = depth > 0;
            match &ev {
                Event::StartDocument { .. } | Event::EndDocument => continue,
                Event::StartElement(_) if !inside && seen => {
                    return Err(malformed(&d, "more than one element"));
                }
                Event::StartElement(_) => {
                    seen = true;
                    depth += 1;
                }
                Event::EndElement => depth -= 1,
                _ if inside => {}
                _ => {
                    return Err(malformed(
                        &d,
                        "something other than the element (a comment, a processing instruction, a document type declaration)",
                    ));
                }
            }
            sink(&ev)?;
        }
        if !seen {
            return Err(malformed(&d, "no element"));
        }
        Ok(())
    }
}

fn malformed(d: &binxml_xml::XmlDecoder<'_>, what: &str) -> Error {
    Error::malformed(
        Format::Xml,
        d.offset(),
        format!("the XML text of an element holds {what}"),
    )
}
