//! XML text of one element carried inside another format's value: what X.694's element
//! wildcards (X.693's ANY-ELEMENT, a UTF8String holding the matched element as XML) need. A
//! codec crate does not import the XML codec; the facade, which has it, hands a codec an
//! implementation of [`XmlFragments`], and a codec given none refuses such content.

use crate::{Event, Limits, Result};

/// Writes one element's events as XML text and parses such text back into events.
pub trait XmlFragments: Send + Sync + std::fmt::Debug {
    /// Appends to `out` the XML text (no XML declaration) of `events`: one element, from its
    /// `StartElement` to its `EndElement`. The element must declare every namespace prefix
    /// that it and its descendants use, so that the text parses on its own.
    fn write_element(&self, events: &[Event<'_>], out: &mut String) -> Result<()>;

    /// Parses `text`, the XML text of one element, and hands its events (from its
    /// `StartElement` to its `EndElement`, nothing before or after) to `sink`. Text that is
    /// not one well-formed element (a prolog, a document type declaration, several elements,
    /// character data outside the element) is an error. `limits` bound what the text may make
    /// the parser hold.
    fn read_element(
        &self,
        text: &str,
        limits: &Limits,
        sink: &mut dyn FnMut(&Event<'_>) -> Result<()>,
    ) -> Result<()>;
}
