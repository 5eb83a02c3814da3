//! [`TreeEvents`]: the tree as a pull decoder of events.

use super::*;

/// The tree as a pull decoder of events.
pub struct TreeEvents<'d, 'a> {
    pub(crate) doc: &'d Document<'a>,
    /// (node, next child index)
    pub(crate) stack: Vec<(NodeId, usize)>,
    pub(crate) queue: std::collections::VecDeque<Event<'d>>,
    pub(crate) started: bool,
    pub(crate) done: bool,
    pub(crate) count: u64,
    /// The element whose subtree is written instead of the whole document
    /// ([`Document::element_events`]), and the namespace declarations in scope there that it
    /// must repeat.
    pub(crate) subtree: Option<(NodeId, Vec<NamespaceDecl<'d>>)>,
}

pub(crate) fn b(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

pub(crate) fn bo<'d>(s: &'d Option<Cow<'_, str>>) -> Option<Cow<'d, str>> {
    s.as_ref().map(|s| Cow::Borrowed(s.as_ref()))
}

impl<'d, 'a> TreeEvents<'d, 'a> {
    pub(crate) fn open(&mut self, id: NodeId) {
        let n = self.doc.node(id);
        let ev = match n.kind() {
            NodeKind::Element(e) => {
                self.queue.push_back(Event::StartElement(
                    self.doc.names[e.name.index()].borrowed(),
                ));
                for ns in n.namespaces() {
                    self.queue.push_back(Event::Namespace {
                        prefix: b(&ns.prefix),
                        uri: b(&ns.uri),
                    });
                }
                if let Some((root, inherited)) = &mut self.subtree
                    && *root == id
                {
                    for ns in inherited.drain(..) {
                        self.queue.push_back(Event::Namespace {
                            prefix: ns.prefix,
                            uri: ns.uri,
                        });
                    }
                }
                for a in n.attributes() {
                    self.queue.push_back(Event::Attribute {
                        name: a.name.borrowed(),
                        value: b(a.value),
                    });
                }
                self.stack.push((id, 0));
                return;
            }
            NodeKind::Text(text) => Event::Characters {
                text: b(text),
                cdata: false,
            },
            NodeKind::CData(text) => Event::Characters {
                text: b(text),
                cdata: true,
            },
            NodeKind::Typed(t) => Event::Typed(t.clone()),
            NodeKind::Comment(c) => Event::Comment(b(c)),
            NodeKind::ProcessingInstruction(p) => Event::ProcessingInstruction {
                target: b(&p.target),
                data: b(&p.data),
            },
            NodeKind::DocType(d) => Event::DocType(DocType {
                name: b(&d.name),
                public_id: bo(&d.public_id),
                system_id: bo(&d.system_id),
                internal_subset: bo(&d.internal_subset),
            }),
            NodeKind::Notation(n) => Event::Notation {
                name: b(&n.name),
                public_id: bo(&n.public_id),
                system_id: bo(&n.system_id),
            },
            NodeKind::UnparsedEntity(u) => Event::UnparsedEntity {
                name: b(&u.name),
                public_id: bo(&u.public_id),
                system_id: b(&u.system_id),
                notation: b(&u.notation),
            },
            NodeKind::EntityReference(r) => Event::EntityReference {
                name: b(&r.name),
                public_id: bo(&r.public_id),
                system_id: bo(&r.system_id),
            },
            NodeKind::Document => return,
        };
        self.queue.push_back(ev);
    }
}

impl<'d, 'a> Decoder<'d> for TreeEvents<'d, 'a> {
    fn next_event(&mut self) -> Result<Option<Event<'d>>> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                self.count += 1;
                return Ok(Some(ev));
            }
            if self.done {
                return Ok(None);
            }
            if !self.started {
                self.started = true;
                let d = self.doc;
                self.queue.push_back(Event::StartDocument {
                    version: bo(&d.version),
                    encoding: bo(&d.encoding),
                    standalone: d.standalone,
                });
                match &self.subtree {
                    Some((root, _)) => self.open(*root),
                    None => self.stack.push((NodeId(0), 0)),
                }
                continue;
            }
            let Some(&mut (id, ref mut next)) = self.stack.last_mut() else {
                self.done = true;
                continue;
            };
            let kids = self.doc.node(id).child_ids();
            if *next < kids.len() {
                let child = kids[*next];
                *next += 1;
                self.open(child);
            } else {
                self.stack.pop();
                if id == NodeId(0) {
                    self.queue.push_back(Event::EndDocument);
                    self.done = true;
                } else {
                    self.queue.push_back(Event::EndElement);
                    if self.stack.is_empty() {
                        self.queue.push_back(Event::EndDocument);
                        self.done = true;
                    }
                }
            }
        }
    }

    fn offset(&self) -> u64 {
        self.count.saturating_sub(1)
    }
}
