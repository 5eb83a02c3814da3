//! The push loop (`Decoder::read_into`): element starts and ends, attributes and text go from
//! the bytes to the sink's part methods, checked by the stream checker's fast paths, with no
//! event built and returned per item. Everything else (document start and end, namespace
//! declarations handed over after their element start, comments, typed content, damaged
//! input) goes through the pull decoder's `next_plain`, so both give the same events, limits
//! and errors (with the same offsets), which the tests check against each other.
//!
//! Between two items the whole state is in the decoder, so the loop stops when
//! [`EventSink::full`] says so and a later call (or `next_event`) goes on from there.

use binxml_core::{Decoder, Error, Event, EventSink, Result};

use super::{State, XebuDecoder, items};
use crate::FORMAT;
use crate::wire::{self, code, sel};

impl<'a> XebuDecoder<'a> {
    /// Hands the rest of the current message to `sink` (see `Decoder::read_into`).
    pub(super) fn push_into<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        if self.omit.is_some() {
            // XebuS: the omission automata restore the deleted events one at a time.
            while !sink.full() {
                match self.next_event()? {
                    Some(ev) => sink.dispatch(ev)?,
                    None => break,
                }
            }
            return Ok(());
        }
        let r = self.push_loop(sink);
        if r.is_err() && self.state == State::InMessage {
            self.fail();
        }
        r
    }

    /// An error of the stream checker on the item at `at`, as `next_plain` reports it.
    #[cold]
    fn misplaced(&self, at: usize, e: Error) -> Error {
        self.err(at, e.message())
    }

    #[inline]
    fn push_loop<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<()> {
        while !sink.full() {
            let at = self.pos;
            // Declarations read, their element start not yet: `read_event` would read on.
            let declared = self.queue_mark.is_some();
            let d = match self.input.get(at) {
                Some(&d)
                    if self.state == State::InMessage && (declared || self.queue.is_empty()) =>
                {
                    d
                }
                // Between messages, after the end or an error, an element start's declarations
                // to hand over, the end of the input.
                _ if !declared => {
                    if self.generic(sink)? {
                        return Ok(());
                    }
                    continue;
                }
                _ => return Err(self.refused(at)),
            };
            let (c, flags, s) = (d & 0x0F, d & 0xF0, d & sel::MASK);
            match c {
                code::START_ELEMENT if items::start_element_ok(flags, s) => {
                    self.pos = at + 1;
                    self.last = at;
                    let q = self.start_element_item(at, flags, s)?;
                    if let Err(e) = self.checker.start_element(FORMAT) {
                        return Err(self.misplaced(at, e));
                    }
                    if self.checker.depth() > self.limits.max_depth {
                        return Err(Error::limit(
                            FORMAT,
                            at as u64,
                            "element nesting exceeds the depth limit",
                        ));
                    }
                    sink.start_element(q)?;
                    // Its declarations (read before it) are handed over by `next_plain` at the
                    // next turns.
                }
                code::END_ELEMENT if flags == 0 && !declared => {
                    self.pos = at + 1;
                    self.last = at;
                    self.scope.close();
                    if let Err(e) = self.checker.end_element(FORMAT) {
                        return Err(self.misplaced(at, e));
                    }
                    sink.end_element()?;
                }
                code::ATTRIBUTE if items::attribute_ok(flags, s) && !declared => {
                    self.pos = at + 1;
                    self.last = at;
                    let (name, value) = self.attribute_item(at, flags, s)?;
                    if let Err(e) = self.checker.attribute(FORMAT) {
                        return Err(self.misplaced(at, e));
                    }
                    sink.attribute(name, value)?;
                }
                code::TEXT if items::text_ok(flags, s) && !declared => {
                    self.pos = at + 1;
                    self.last = at;
                    let text = self.text_item(flags, s)?;
                    let cdata = flags & wire::F_CDATA != 0;
                    if let Err(e) = self.checker.characters(FORMAT, &text, cdata) {
                        return Err(self.misplaced(at, e));
                    }
                    if cdata {
                        sink.event(Event::Characters { text, cdata })?;
                    } else {
                        sink.text(text)?;
                    }
                }
                code::NAMESPACE if flags & !sel::NS == 0 => {
                    self.pos = at + 1;
                    self.last = at;
                    self.namespace_item(at, s)?;
                }
                _ if declared => return Err(self.refused(at)),
                _ => {
                    if self.generic(sink)? {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// The next event through `next_plain`, handed to `sink`; whether the message ended.
    fn generic<S: EventSink<'a>>(&mut self, sink: &mut S) -> Result<bool> {
        match self.next_plain()? {
            Some(ev) => {
                let end = matches!(ev, Event::EndDocument);
                sink.dispatch(ev)?;
                Ok(end)
            }
            None => Ok(true),
        }
    }

    /// The error for what follows namespace declarations at `at` when it is not an element
    /// start or a declaration: `read_event`'s, which refuses it (`next_plain` would hand over
    /// the declarations first).
    #[cold]
    fn refused(&mut self, at: usize) -> Error {
        self.last = at;
        match self.read_event() {
            Err(e) => e,
            Ok(_) => self.err(
                at,
                "namespace declarations not followed by an element start",
            ),
        }
    }
}
