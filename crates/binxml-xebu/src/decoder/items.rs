//! The hot items (element starts, namespace declarations, attributes, text) read from the bytes
//! after their discriminator: the one reading that the pull decoder (`read_event`) and the push
//! loop (`push.rs`) share, so that both give the same events, limits and errors.

use std::borrow::Cow;

use binxml_core::{Event, QName, Result};

use super::{Tables, XebuDecoder};
use crate::wire::{self, sel};

/// Whether an element start's flags and selector are valid.
#[inline(always)]
pub(super) fn start_element_ok(flags: u8, s: u8) -> bool {
    flags & wire::F_DEFINE == 0 && s != sel::VALUE
}

/// Whether an attribute's flags and selector are valid.
#[inline(always)]
pub(super) fn attribute_ok(flags: u8, s: u8) -> bool {
    !(s == sel::VALUE && flags & (wire::F_DEFINE | wire::F_PREFIX) != 0)
}

/// Whether a text item's flags and selector are valid.
#[inline(always)]
pub(super) fn text_ok(flags: u8, s: u8) -> bool {
    match s {
        sel::VALUE => flags & wire::F_DEFINE == 0,
        sel::LITERAL => true,
        _ => false,
    }
}

impl<'a> XebuDecoder<'a> {
    /// An element start (discriminator at `at`, checked by [`start_element_ok`]): its name,
    /// prefix resolved, with the element opened in the namespace scope.
    #[inline]
    pub(super) fn start_element_item(&mut self, at: usize, flags: u8, s: u8) -> Result<QName<'a>> {
        let mut q = self.name(s)?;
        let mark = self.queue_mark.take().unwrap_or(self.scope.len());
        self.scope.open(mark);
        self.prefix(at, flags & wire::F_PREFIX != 0, &mut q, false)?;
        Ok(q)
    }

    /// A namespace declaration (discriminator at `at`, flags checked): declared in the scope
    /// and queued, to be returned after the element start that follows.
    pub(super) fn namespace_item(&mut self, at: usize, s: u8) -> Result<()> {
        let uri = if s == sel::NS {
            self.fetch_ns()?
        } else {
            let t = self.byte()?;
            let uri = self.str()?;
            match &mut self.tables {
                Tables::Local(tb) => tb.set_ns(t, Cow::Borrowed(uri)),
                Tables::Shared(tb) => tb.set_ns(t, Cow::Owned(uri.to_owned())),
            }
            Cow::Borrowed(uri)
        };
        let prefix: Cow<'a, str> = Cow::Borrowed(self.str()?);
        if self.queue_mark.is_none() {
            self.queue_mark = Some(self.scope.len());
        }
        self.scope.declare(prefix.clone(), uri.clone());
        self.queue.push_back((at, Event::Namespace { prefix, uri }));
        Ok(())
    }

    /// An attribute (discriminator at `at`, checked by [`attribute_ok`]): its name, prefix
    /// resolved, and value.
    #[inline]
    pub(super) fn attribute_item(
        &mut self,
        at: usize,
        flags: u8,
        s: u8,
    ) -> Result<(QName<'a>, Cow<'a, str>)> {
        if s == sel::VALUE {
            let t_at = self.pos;
            let t = self.byte()?;
            let v = match &self.tables {
                Tables::Local(tb) => tb.value.get(t as usize).cloned().flatten(),
                Tables::Shared(tb) => tb.value.get(t as usize).cloned().flatten(),
            };
            let (mut name, value) = v.ok_or_else(|| self.undefined(t_at, "value", t))?;
            self.charge(name.local.len() + name.namespace.len() + value.len(), t_at)?;
            self.prefix(at, false, &mut name, true)?;
            return Ok((name, value));
        }
        let mut name = self.name(s)?;
        self.prefix(at, flags & wire::F_PREFIX != 0, &mut name, true)?;
        let tok = if flags & wire::F_DEFINE != 0 {
            Some(self.byte()?)
        } else {
            None
        };
        let value = self.str()?;
        if let Some(t) = tok {
            match &mut self.tables {
                Tables::Local(tb) => tb.set_value(t, (name.clone(), Cow::Borrowed(value))),
                Tables::Shared(tb) => {
                    tb.set_value(t, (name.clone().into_owned(), Cow::Owned(value.to_owned())))
                }
            }
        }
        Ok((name, Cow::Borrowed(value)))
    }

    /// A text item's string (flags and selector checked by [`text_ok`]).
    #[inline]
    pub(super) fn text_item(&mut self, flags: u8, s: u8) -> Result<Cow<'a, str>> {
        if s == sel::VALUE {
            let t_at = self.pos;
            let t = self.byte()?;
            let v = match &self.tables {
                Tables::Local(tb) => tb.content.get(t as usize).cloned().flatten(),
                Tables::Shared(tb) => tb.content.get(t as usize).cloned().flatten(),
            };
            let v = v.ok_or_else(|| self.undefined(t_at, "content", t))?;
            self.charge(v.len(), t_at)?;
            return Ok(v);
        }
        if flags & wire::F_DEFINE != 0 {
            let t = self.byte()?;
            let v = self.str()?;
            match &mut self.tables {
                Tables::Local(tb) => tb.set_content(t, Cow::Borrowed(v)),
                Tables::Shared(tb) => tb.set_content(t, Cow::Owned(v.to_owned())),
            }
            Ok(Cow::Borrowed(v))
        } else {
            Ok(Cow::Borrowed(self.str()?))
        }
    }
}
