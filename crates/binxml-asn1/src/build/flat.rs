//! The builder's flat mode: elements into flat operations ([`Flat`](crate::flat::Flat)), for
//! the encoders.

use std::borrow::Cow;

use binxml_core::{Error, Event, QName, Result, Typed, XML_NS, XMLNS_NS};

use super::{Builder, FFrame, Frame, ScopeList, Val};
use crate::flat::{FName, FNs, FOp};
use crate::sentinel::{INLINE, NO_STR};
use crate::value::V;

impl Builder {
    /// A string of [`Flat`](crate::flat::Flat) (as [`Builder::s`] decides).
    pub(super) fn sref(&mut self, text: &str) -> u32 {
        if self.opts.strings_table
            && !text.is_empty()
            && let Some(id) = self.strings.intern_text(text)
        {
            id
        } else {
            let flat = self.flat.as_mut().expect("flat mode");
            let i = flat.inline.len() as u32;
            flat.inline.push(text.into());
            INLINE | i
        }
    }

    /// A name of [`Flat`](crate::flat::Flat) written inline (as [`Builder::element_name`]
    /// and [`Builder::attribute`] decide): `same` when its namespace is the parent's (owner's),
    /// `prev` when it is the previous attribute's.
    fn flat_inline_name(
        &mut self,
        ns: &str,
        local: &str,
        prefix: &str,
        same: bool,
        prev: bool,
    ) -> u32 {
        let ns = if ns.is_empty() {
            FNs::None
        } else if same {
            FNs::Same
        } else if prev {
            FNs::Prev
        } else {
            FNs::Str(self.sref(ns))
        };
        let local = self.sref(local);
        let prefix = if prefix.is_empty() {
            NO_STR
        } else {
            self.sref(prefix)
        };
        let flat = self.flat.as_mut().expect("flat mode");
        let i = flat.names.len() as u32;
        flat.names.push(FName { ns, local, prefix });
        INLINE | i
    }

    /// The in-scope namespaces of an ending element (list `list`) as a range of
    /// `Flat::scopes`, their strings interned as [`Builder::event`] does at `EndElement`.
    fn flat_scope(&mut self, list: u32, own: bool) -> (u32, u32) {
        let l = list as usize;
        if let Some((s, n)) = self.scope_lists[l].refs {
            // the same strings again: one more use each
            if self.opts.strings_table {
                let flat = self.flat.as_ref().expect("flat mode");
                for &(p, u) in &flat.scopes[s as usize..(s + n) as usize] {
                    for r in [p, u] {
                        if r != NO_STR && r & INLINE == 0 {
                            self.strings.count_again(r);
                        }
                    }
                }
            }
            return (s, n);
        }
        let entries = std::mem::take(&mut self.scope_lists[l].entries);
        let start = self.flat.as_ref().expect("flat mode").scopes.len() as u32;
        for (p, u) in &entries {
            let p = if p.is_empty() { NO_STR } else { self.sref(p) };
            let u = self.sref(u);
            self.flat.as_mut().expect("flat mode").scopes.push((p, u));
        }
        let refs = (start, entries.len() as u32);
        let sl = &mut self.scope_lists[l];
        sl.refs = Some(refs);
        // a list of the element's own is used by no later element
        if !own {
            sl.entries = entries;
        }
        refs
    }
    /// [`Builder::flush_text`] in flat mode.
    pub(super) fn flush_text_flat(&mut self) -> Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        if self.fstack.is_empty() {
            let text = std::mem::take(&mut self.text);
            if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                return Ok(());
            }
            return Err(self.unsupported("character data outside an element"));
        }
        let text = std::mem::take(&mut self.text);
        let r = self.sref(&text);
        self.text = text;
        self.text.clear();
        self.fstack.last_mut().expect("a frame").children += 1;
        self.flat
            .as_mut()
            .expect("flat mode")
            .ops
            .push(FOp::Text(r));
        Ok(())
    }

    /// [`Builder::push_child`] in flat mode.
    fn flat_child(&mut self, v: Val, el_alt: u8, doc_alt: Option<u8>) -> Result<()> {
        let alt = match self.fstack.last_mut() {
            Some(f) => {
                f.children += 1;
                el_alt
            }
            None => match doc_alt {
                Some(a) => a,
                None => return Err(self.unsupported("this item cannot be a child of the document")),
            },
        };
        let flat = self.flat.as_mut().expect("flat mode");
        if self.fstack.is_empty() {
            flat.doc_items += 1;
        }
        let i = flat.values.len() as u32;
        flat.values.push(v);
        flat.ops.push(FOp::Child(alt, i));
        Ok(())
    }

    /// A `StartElement` in flat mode (pending text already recorded).
    fn flat_start(&mut self, q: &QName<'_>) -> Result<()> {
        let ns_start = self.fns.len();
        let name = if self.opts.names_table {
            self.name_id(&q.namespace, &q.local, &q.prefix)
        } else {
            // the parent's namespace name is the last in `fns`
            let parent = self.fstack.last().map_or(ns_start, |p| p.ns_start);
            let same = q.namespace == self.fns[parent..];
            self.fns.push_str(&q.namespace);
            self.prev_attr_ns = None;
            self.flat_inline_name(&q.namespace, &q.local, &q.prefix, same, false)
        };
        let scope = self.fstack.last().map_or(0, |p| p.scope);
        let flat = self.flat.as_mut().expect("flat mode");
        let op = flat.ops.len();
        flat.ops.push(FOp::Start {
            name,
            attrs: flat.attrs.len() as u32,
            n_ns: 0,
            n_attrs: 0,
            children: 0,
            ecc: false,
        });
        self.fstack.push(FFrame {
            op,
            children: 0,
            n_ns: 0,
            n_attrs: 0,
            ns_start,
            scope,
            own_scope: false,
        });
        Ok(())
    }

    /// A `Namespace` in flat mode.
    fn flat_namespace(&mut self, prefix: &str, uri: &str) -> Result<()> {
        match self.fstack.last() {
            None => return Err(self.unsupported("namespace outside an element")),
            Some(f) if f.children > 0 || f.n_attrs > 0 => {
                return Err(Error::invalid_events(
                    self.format,
                    "Namespace must follow StartElement, before its attributes",
                ));
            }
            _ => {}
        }
        let (local, p) = if prefix.is_empty() {
            ("xmlns", "")
        } else {
            (prefix, "xmlns")
        };
        let name = if self.opts.names_table {
            self.name_id(XMLNS_NS, local, p)
        } else {
            // owner: none (`""`); previous: `xmlns`'s namespace after the first
            let prev = self.fstack.last().is_some_and(|f| f.n_ns > 0);
            self.flat_inline_name(XMLNS_NS, local, p, false, prev)
        };
        let value = self.sref(uri);
        self.flat
            .as_mut()
            .expect("flat mode")
            .attrs
            .push((name, value));
        let f = self.fstack.last_mut().expect("a frame");
        f.n_ns += 1;
        if !self.opts.scoped_namespaces {
            if !f.own_scope {
                let entries = self.scope_lists[f.scope as usize].entries.clone();
                f.scope = self.scope_lists.len() as u32;
                f.own_scope = true;
                self.scope_lists.push(ScopeList {
                    entries,
                    refs: None,
                });
            }
            let list = &mut self.scope_lists[f.scope as usize].entries;
            list.retain(|(p, _)| **p != *prefix);
            if !uri.is_empty() {
                list.push((prefix[..].into(), uri[..].into()));
            }
        }
        Ok(())
    }

    /// An `Attribute` in flat mode.
    fn flat_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        match self.fstack.last() {
            None => return Err(self.unsupported("attribute outside an element")),
            Some(f) if f.children > 0 => {
                return Err(Error::invalid_events(
                    self.format,
                    "Attribute outside a start tag",
                ));
            }
            _ => {}
        }
        if name.namespace == XML_NS && name.local == "base" {
            self.has_xml_base = true;
        }
        let n = if self.opts.names_table {
            self.name_id(&name.namespace, &name.local, &name.prefix)
        } else {
            let f = self.fstack.last().expect("a frame");
            let same = name.namespace == self.fns[f.ns_start..];
            let prev = self.prev_attr_ns.as_deref() == Some(&name.namespace[..]);
            let n = self.flat_inline_name(&name.namespace, &name.local, &name.prefix, same, prev);
            let p = self.prev_attr_ns.get_or_insert_with(String::new);
            p.clear();
            p.push_str(&name.namespace);
            n
        };
        let v = self.sref(value);
        self.flat.as_mut().expect("flat mode").attrs.push((n, v));
        self.fstack.last_mut().expect("a frame").n_attrs += 1;
        Ok(())
    }

    /// An `EndElement` in flat mode (pending text already recorded).
    fn flat_end(&mut self) -> Result<()> {
        let Some(f) = self.fstack.pop() else {
            return Err(self.unsupported("unbalanced EndElement"));
        };
        if !self.opts.names_table {
            self.fns.truncate(f.ns_start);
        }
        let (scope, n_scope) = if self.opts.scoped_namespaces {
            (0, 0)
        } else {
            self.flat_scope(f.scope, f.own_scope)
        };
        let flat = self.flat.as_mut().expect("flat mode");
        let ecc = self.opts.element_content_characters
            && f.children == 1
            && matches!(flat.ops.last(), Some(FOp::Text(_)));
        if let FOp::Start {
            n_ns,
            n_attrs,
            children,
            ecc: e,
            ..
        } = &mut flat.ops[f.op]
        {
            (*n_ns, *n_attrs, *children, *e) = (f.n_ns, f.n_attrs, f.children, ecc);
        }
        flat.ops.push(FOp::End {
            start: f.op as u32,
            scope,
            n_scope,
        });
        match self.fstack.last_mut() {
            Some(p) => p.children += 1,
            None => flat.doc_items += 1,
        }
        Ok(())
    }

    /// [`Builder::event`] of a `StartElement` of `q`, from its parts.
    #[inline]
    pub(crate) fn part_start(&mut self, q: &QName<'_>) -> Result<()> {
        if self.flat.is_none() {
            return self.event(&Event::StartElement(q.clone()));
        }
        self.flush_text_flat()?;
        self.flat_start(q)
    }

    /// [`Builder::event`] of a `Namespace`, from its parts.
    #[inline]
    pub(crate) fn part_namespace(
        &mut self,
        prefix: &Cow<'_, str>,
        uri: &Cow<'_, str>,
    ) -> Result<()> {
        if self.flat.is_none() {
            return self.event(&Event::Namespace {
                prefix: prefix.clone(),
                uri: uri.clone(),
            });
        }
        self.flush_text_flat()?;
        self.flat_namespace(prefix, uri)
    }

    /// [`Builder::event`] of an `Attribute`, from its parts.
    #[inline]
    pub(crate) fn part_attribute(&mut self, name: &QName<'_>, value: &str) -> Result<()> {
        if self.flat.is_none() {
            return self.event(&Event::Attribute {
                name: name.clone(),
                value: Cow::Borrowed(value),
            });
        }
        self.flush_text_flat()?;
        self.flat_attribute(name, value)
    }

    /// [`Builder::event`] of an `EndElement`.
    #[inline]
    pub(crate) fn part_end(&mut self) -> Result<()> {
        if self.flat.is_none() {
            return self.event(&Event::EndElement);
        }
        self.flush_text_flat()?;
        self.flat_end()
    }

    /// [`Builder::event`] of `Characters` (either mode: character data is gathered until the
    /// next other event).
    #[inline]
    pub(crate) fn part_text(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// [`Builder::event`] in flat mode: the same strings and names interned in the same order.
    pub(super) fn event_flat(&mut self, ev: &Event<'_>) -> Result<()> {
        match ev {
            Event::Characters { text, .. } => {
                self.text.push_str(text);
                return Ok(());
            }
            Event::Typed(Typed::Base64(b)) if !self.fstack.is_empty() => {
                self.flush_text_flat()?;
                let v = V::Seq(vec![
                    Some(V::choice(1, V::Bytes(Cow::Owned(b.to_vec())))),
                    Some(V::Bool(false)),
                ]);
                return self.flat_child(v, 3, None);
            }
            Event::Typed(t) => {
                t.write_lexical(&mut self.text);
                return Ok(());
            }
            _ => self.flush_text_flat()?,
        }
        match ev {
            Event::StartElement(q) => self.flat_start(q)?,
            Event::Namespace { prefix, uri } => self.flat_namespace(prefix, uri)?,
            Event::Attribute { name, value } => self.flat_attribute(name, value)?,
            Event::EndElement => self.flat_end()?,
            Event::Comment(c) => {
                let v = V::Seq(vec![Some(self.s(c))]);
                self.flat_child(v, 4, Some(2))?;
            }
            Event::ProcessingInstruction { target, data } => {
                let t = self.s(target);
                let d = self.s(data);
                let v = V::Seq(vec![Some(t), Some(d), Some(V::choice(1, V::Null)), None]);
                self.flat_child(v, 1, Some(1))?;
            }
            Event::EntityReference { .. } => {
                if self.fstack.is_empty() {
                    return Err(self.unsupported("this item cannot be a child of the document"));
                }
                // the value as the generic path builds it
                self.flat_generic(ev, 2)?;
            }
            Event::DocType(_) => {
                if !self.fstack.is_empty() {
                    return Err(Error::invalid_events(
                        self.format,
                        "DocType inside an element",
                    ));
                }
                self.flat_generic(ev, 3)?;
            }
            Event::StartDocument { .. }
            | Event::Notation { .. }
            | Event::UnparsedEntity { .. }
            | Event::EndDocument
            | Event::Characters { .. }
            | Event::Typed(_) => {
                // not about elements: the generic path (which holds no elements in flat mode)
                let flat = self.flat.take();
                let r = self.event(ev);
                self.flat = flat;
                r?;
            }
            _ => return Err(self.unsupported("an event this encoder does not know")),
        }
        Ok(())
    }

    /// An entity reference (in an element) or a DOCTYPE (at document level) built by the
    /// generic path, moved into the flat operations as child alternative `alt`.
    fn flat_generic(&mut self, ev: &Event<'_>, alt: u8) -> Result<()> {
        let flat = self.flat.take();
        let saved = std::mem::take(&mut self.doc_children);
        // the generic path pushes an entity reference to its innermost element: give it one
        let pushed_frame = matches!(ev, Event::EntityReference { .. });
        if pushed_frame {
            self.stack.push(Frame {
                ns: String::new(),
                name: V::Null,
                attrs: vec![],
                ns_attrs: vec![],
                children: vec![],
                prev_attr_ns: None,
                prev_nsattr_ns: None,
                in_scope: vec![],
            });
        }
        let r = self.event(ev);
        let v = if pushed_frame {
            self.stack.pop().and_then(|f| f.children.into_iter().next())
        } else {
            self.doc_children.pop()
        };
        self.doc_children = saved;
        self.flat = flat;
        r?;
        let Some(V::Choice(_, v)) = v else {
            return Err(Error::invalid_events(self.format, "internal: flat child"));
        };
        self.flat_child(*v, alt, Some(alt))
    }
}
