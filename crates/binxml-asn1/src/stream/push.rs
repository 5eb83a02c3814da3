//! Events pushed into a sink, all at once (the pull side's [`Stream::next_event`], unrolled).

use binxml_core::{Event, EventSink, Result};

use super::*;

impl<'a> Stream<'a> {
    /// Push decoding: everything [`Stream::next_event`] would still return, handed to `sink`
    /// in the same order with the same errors at the same points; element starts and ends,
    /// namespaces, attributes and text go to it as their parts, without an [`Event`]. `count`
    /// is increased by the number of events handed over. Returns early, between two items,
    /// once [`EventSink::full`] is true.
    pub(crate) fn push<S: EventSink<'a>>(&mut self, sink: &mut S, count: &mut u64) -> Result<()> {
        // what a pull left half done, and the document's start and declarations
        while self.attr_cur.is_some() || !self.pending.is_empty() {
            match self.next_event()? {
                Some(ev) => {
                    *count += 1;
                    sink.dispatch(ev)?;
                }
                None => return Ok(()),
            }
        }
        while let Some(&op) = self.ops.get(self.next) {
            // between items, every state in `self`: a later call resumes here
            if sink.full() {
                return Ok(());
            }
            self.next += 1;
            *count += 1;
            match op {
                Op::Start {
                    name,
                    attrs,
                    attrs_end,
                } => {
                    let parent = if self.track_ns {
                        self.ns_stack.last().cloned()
                    } else {
                        None
                    };
                    let (namespace, local, prefix) = self.name(name, parent.as_ref(), None)?;
                    if attrs == attrs_end {
                        if self.track_ns {
                            self.ns_stack.push(namespace.clone());
                        }
                        sink.start_element(QName {
                            prefix,
                            namespace,
                            local,
                        })?;
                        continue;
                    }
                    let all_common = self.attrs[attrs as usize..attrs_end as usize]
                        .iter()
                        .all(|a| a.name & INLINE == 0);
                    if !all_common {
                        // the same order of work (and of errors) as `next_event`
                        self.attributes(attrs, attrs_end, &namespace)?;
                    }
                    if self.track_ns {
                        self.ns_stack.push(namespace.clone());
                    }
                    sink.start_element(QName {
                        prefix,
                        namespace,
                        local,
                    })?;
                    if all_common {
                        self.push_common_attrs(attrs, attrs_end, sink, count)?;
                    } else {
                        while let Some(ev) = self.pending.pop_front() {
                            *count += 1;
                            sink.dispatch(ev)?;
                        }
                    }
                }
                Op::End => {
                    if self.track_ns {
                        self.ns_stack.pop();
                    }
                    sink.end_element()?;
                }
                Op::Text(s) => {
                    let text = self.s(s)?;
                    sink.text(text)?;
                }
                Op::Base64(i) => sink.event(Event::Typed(Typed::Base64(std::mem::take(
                    &mut self.bytes[i as usize],
                ))))?,
                Op::Comment(s) => {
                    let c = self.s(s)?;
                    sink.event(Event::Comment(c))?;
                }
                Op::Pi(t, d) => {
                    let target = self.s(t)?;
                    let data = self.s(d)?;
                    sink.event(Event::ProcessingInstruction { target, data })?;
                }
                Op::Uer(_) | Op::Dtd(_) => {
                    *count -= 1;
                    self.via_emitter(op)?;
                    while let Some(ev) = self.pending.pop_front() {
                        *count += 1;
                        sink.dispatch(ev)?;
                    }
                }
            }
        }
        if !self.ended {
            self.ended = true;
            *count += 1;
            sink.event(Event::EndDocument)?;
        }
        Ok(())
    }

    /// The namespace and attribute events of an element whose attribute names are all common
    /// names, in the order of [`Stream::next_attr`]: namespace declarations (from
    /// `namespace-attributes`, then from `attributes`), then attributes.
    #[inline]
    fn push_common_attrs<S: EventSink<'a>>(
        &mut self,
        a0: u32,
        a1: u32,
        sink: &mut S,
        count: &mut u64,
    ) -> Result<()> {
        for phase in 0..4u8 {
            for i in a0..a1 {
                let a = self.attrs[i as usize];
                let is_ns = self.xmlns_name[a.name as usize];
                if !in_phase(phase, a.ns_list, is_ns) {
                    continue;
                }
                let (ns, local, prefix) = self.name(a.name, None, None)?;
                let value = self.s(a.value)?;
                *count += 1;
                if !is_ns {
                    sink.attribute(
                        QName {
                            prefix,
                            namespace: ns,
                            local,
                        },
                        value,
                    )?;
                } else if prefix == "xmlns" {
                    sink.namespace(local, value)?;
                } else if prefix.is_empty() && local == "xmlns" {
                    sink.namespace(Cow::Borrowed(""), value)?;
                } else {
                    return Err(Error::malformed(
                        self.e.format(),
                        0,
                        format!("bad namespace attribute {prefix}:{local}"),
                    ));
                }
            }
        }
        Ok(())
    }
}
