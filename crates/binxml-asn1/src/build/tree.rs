//! The builder's tree mode: events into an abstract value per element.

use std::borrow::Cow;

use binxml_core::{Event, Result, Typed, XML_NS, XMLNS_NS};

use super::{Builder, Frame, Val};
use crate::sentinel::INTERNAL_SUBSET_TARGET;
use crate::value::V;

impl Builder {
    fn push_child(&mut self, child: Val, el_alt: u8, doc_alt: Option<u8>) -> Result<()> {
        match self.stack.last_mut() {
            Some(f) => {
                f.children.push(V::choice(el_alt, child));
                Ok(())
            }
            None => match doc_alt {
                Some(a) => {
                    self.doc_children.push(V::choice(a, child));
                    Ok(())
                }
                None => Err(self.unsupported("this item cannot be a child of the document")),
            },
        }
    }

    pub(super) fn flush_text(&mut self) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.text);
        if self.stack.is_empty() {
            if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                return Ok(());
            }
            return Err(self.unsupported("character data outside an element"));
        }
        let v = self.s(&text);
        self.text = text;
        self.text.clear();
        self.push_child(
            V::Seq(vec![Some(V::choice(0, v)), Some(V::Bool(false))]),
            3,
            None,
        )
    }

    pub fn event(&mut self, ev: &Event<'_>) -> Result<()> {
        if self.flat.is_some() {
            return self.event_flat(ev);
        }
        match ev {
            Event::Characters { text, .. } => {
                self.text.push_str(text);
                return Ok(());
            }
            Event::Typed(Typed::Base64(b)) if !self.stack.is_empty() => {
                self.flush_text()?;
                let v = V::Seq(vec![
                    Some(V::choice(1, V::Bytes(Cow::Owned(b.to_vec())))),
                    Some(V::Bool(false)),
                ]);
                return self.push_child(v, 3, None);
            }
            Event::Typed(t) => {
                t.write_lexical(&mut self.text);
                return Ok(());
            }
            _ => self.flush_text()?,
        }
        match ev {
            Event::StartDocument {
                version,
                encoding,
                standalone,
            } => {
                self.version = version.as_ref().map(|s| s.to_string());
                self.encoding = encoding.as_ref().map(|s| s.to_string());
                self.standalone = *standalone;
            }
            Event::EndDocument | Event::Characters { .. } | Event::Typed(_) => {}
            Event::DocType(d) => {
                let sys = d.system_id.as_ref().map(|s| self.s(s));
                let public = d.public_id.as_ref().map(|s| self.s(s));
                let mut pis = vec![];
                if let Some(subset) = &d.internal_subset {
                    // binxml convention: the internal subset's text travels as a DTD processing
                    // instruction with the reserved target `xml-internal-subset`
                    let t = self.s(INTERNAL_SUBSET_TARGET);
                    let c = self.s(subset);
                    pis.push(V::Seq(vec![
                        Some(t),
                        Some(c),
                        Some(V::choice(1, V::Null)),
                        None,
                    ]));
                }
                self.doc_children
                    .push(V::choice(3, V::Seq(vec![sys, public, Some(V::List(pis))])));
            }
            Event::Notation {
                name,
                public_id,
                system_id,
            } => {
                let name = self.s(name);
                let sys = system_id.as_ref().map(|s| self.s(s));
                let public = public_id.as_ref().map(|s| self.s(s));
                self.notations
                    .push(V::Seq(vec![Some(name), sys, public, None]));
            }
            Event::UnparsedEntity {
                name,
                public_id,
                system_id,
                notation,
            } => {
                let name = self.s(name);
                let sys = Some(self.s(system_id));
                let public = public_id.as_ref().map(|s| self.s(s));
                let notation = self.s(notation);
                self.unparsed.push(V::Seq(vec![
                    Some(name),
                    sys,
                    public,
                    None,
                    Some(notation),
                    None,
                ]));
            }
            Event::StartElement(q) => {
                // namespace names and in-scope namespaces are kept only where the value needs
                // them (no names table; explicit in-scope namespaces)
                let parent_ns = match self.stack.last() {
                    Some(f) if !self.opts.names_table => f.ns.clone(),
                    _ => String::new(),
                };
                let in_scope = match self.stack.last() {
                    _ if self.opts.scoped_namespaces => Vec::new(),
                    Some(f) => f.in_scope.clone(),
                    None => vec![("xml".to_string(), XML_NS.to_string())],
                };
                let name = self.element_name(&q.namespace, &q.local, &q.prefix, &parent_ns);
                self.stack.push(Frame {
                    ns: if self.opts.names_table {
                        String::new()
                    } else {
                        q.namespace.to_string()
                    },
                    name,
                    attrs: vec![],
                    ns_attrs: vec![],
                    children: vec![],
                    prev_attr_ns: None,
                    prev_nsattr_ns: None,
                    in_scope,
                });
            }
            Event::Namespace { prefix, uri } => {
                let Some(f) = self.stack.last() else {
                    return Err(self.unsupported("namespace outside an element"));
                };
                let prev = f.prev_nsattr_ns.clone();
                let (local, p) = if prefix.is_empty() {
                    ("xmlns", "")
                } else {
                    (&prefix[..], "xmlns")
                };
                let a = self.attribute(XMLNS_NS, local, p, uri, "", prev.as_deref());
                let f = self.stack.last_mut().unwrap();
                f.ns_attrs.push(a);
                if !self.opts.names_table {
                    f.prev_nsattr_ns = Some(XMLNS_NS.to_string());
                }
                if !self.opts.scoped_namespaces {
                    f.in_scope.retain(|(p, _)| p != &prefix[..]);
                    if !uri.is_empty() {
                        f.in_scope.push((prefix.to_string(), uri.to_string()));
                    }
                }
            }
            Event::Attribute { name, value } => {
                let Some(f) = self.stack.last() else {
                    return Err(self.unsupported("attribute outside an element"));
                };
                let (owner, prev) = (f.ns.clone(), f.prev_attr_ns.clone());
                if name.namespace == XML_NS && name.local == "base" {
                    self.has_xml_base = true;
                }
                let a = self.attribute(
                    &name.namespace,
                    &name.local,
                    &name.prefix,
                    value,
                    &owner,
                    prev.as_deref(),
                );
                let f = self.stack.last_mut().unwrap();
                f.attrs.push(a);
                if !self.opts.names_table {
                    f.prev_attr_ns = Some(name.namespace.to_string());
                }
            }
            Event::EndElement => {
                let Some(f) = self.stack.pop() else {
                    return Err(self.unsupported("unbalanced EndElement"));
                };
                let children = if self.opts.element_content_characters
                    && f.children.len() == 1
                    && matches!(&f.children[0], V::Choice(3, c) if matches!(&**c, V::Seq(s) if matches!(&s[0], Some(V::Choice(0, _)))))
                {
                    let Some(V::Choice(3, c)) = f.children.into_iter().next() else {
                        unreachable!()
                    };
                    let V::Seq(mut s) = *c else { unreachable!() };
                    let Some(V::Choice(0, v)) = s[0].take() else {
                        unreachable!()
                    };
                    V::choice(0, *v)
                } else {
                    V::choice(1, V::List(f.children))
                };
                let in_scope = if self.opts.scoped_namespaces {
                    V::choice(1, V::Null)
                } else {
                    let mut list = Vec::with_capacity(f.in_scope.len());
                    for (p, u) in &f.in_scope {
                        let p = if p.is_empty() { None } else { Some(self.s(p)) };
                        let u = self.s(u);
                        list.push(V::Seq(vec![p, Some(u)]));
                    }
                    V::choice(0, V::List(list))
                };
                let attrs = if f.attrs.is_empty() {
                    None
                } else {
                    Some(V::List(f.attrs))
                };
                let ns_attrs = if f.ns_attrs.is_empty() {
                    None
                } else {
                    Some(V::List(f.ns_attrs))
                };
                let el = V::Seq(vec![
                    Some(f.name),
                    Some(children),
                    attrs,
                    ns_attrs,
                    Some(in_scope),
                    None,
                ]);
                self.push_child(el, 0, Some(0))?;
            }
            Event::Comment(c) => {
                let v = V::Seq(vec![Some(self.s(c))]);
                self.push_child(v, 4, Some(2))?;
            }
            Event::ProcessingInstruction { target, data } => {
                let t = self.s(target);
                let d = self.s(data);
                let v = V::Seq(vec![Some(t), Some(d), Some(V::choice(1, V::Null)), None]);
                self.push_child(v, 1, Some(1))?;
            }
            Event::EntityReference {
                name,
                public_id,
                system_id,
            } => {
                let name = self.s(name);
                let sys = system_id.as_ref().map(|s| V::choice(0, self.s(s)));
                let public = public_id.as_ref().map(|s| V::choice(0, self.s(s)));
                self.push_child(V::Seq(vec![Some(name), sys, public, None]), 2, None)?;
            }
            _ => return Err(self.unsupported("an event this encoder does not know")),
        }
        Ok(())
    }
}
