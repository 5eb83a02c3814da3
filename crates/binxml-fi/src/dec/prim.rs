//! The decoder's primitives (Annex C): integers, lengths, strings, the string tables.

use super::*;

impl<'a, S: Src<'a>> Core<'a, S> {
    // ---- integers and lengths ----

    /// Integer starting on the 2nd bit (C.25/C.26), first octet `b`.
    #[inline(always)]
    pub(super) fn int_2nd(&mut self, b: u8) -> Result<u32> {
        if b & 0x40 == 0 {
            Ok((b & 0x3F) as u32 + 1)
        } else if b & 0x20 == 0 {
            Ok((((b & 0x1F) as u32) << 8 | self.src.byte()? as u32) + 65)
        } else if b & 0x10 == 0 {
            let b2 = self.src.byte()? as u32;
            let b3 = self.src.byte()? as u32;
            Ok((((b & 0x0F) as u32) << 16 | b2 << 8 | b3) + 8257)
        } else {
            Err(self.err(format!("bad integer octet {b:#04x}")))
        }
    }

    /// Integer starting on the 3rd bit (C.27); the caller has excluded the literal forms.
    #[inline(always)]
    pub(super) fn int_3rd(&mut self, b: u8) -> Result<u32> {
        if b & 0x20 == 0 {
            return Ok((b & 0x1F) as u32 + 1);
        }
        match b & 0x38 {
            0x00 | 0x08 | 0x10 | 0x18 => Ok((b & 0x1F) as u32 + 1),
            0x20 => Ok((((b & 0x07) as u32) << 8 | self.src.byte()? as u32) + 33),
            0x28 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                Ok((((b & 0x07) as u32) << 16 | b2 << 8 | b3) + 2081)
            }
            0x30 if b & 0x04 == 0 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                let b4 = self.src.byte()? as u32;
                let v = ((b2 & 0x0F) << 16 | b3 << 8 | b4) + 526_369;
                if v > 1 << 20 {
                    return Err(self.err("index past 2^20"));
                }
                Ok(v)
            }
            _ => Err(self.err(format!("bad qualified-name octet {b:#04x}"))),
        }
    }

    /// Integer starting on the 4th bit (C.28).
    #[inline(always)]
    pub(super) fn int_4th(&mut self, b: u8) -> Result<u32> {
        if b & 0x10 == 0 {
            return Ok((b & 0x0F) as u32 + 1);
        }
        match b & 0x1C {
            0x00 | 0x04 | 0x08 | 0x0C => Ok((b & 0x0F) as u32 + 1),
            0x10 => Ok((((b & 0x03) as u32) << 8 | self.src.byte()? as u32) + 17),
            0x14 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                Ok((((b & 0x03) as u32) << 16 | b2 << 8 | b3) + 1041)
            }
            0x18 => {
                let b2 = self.src.byte()? as u32;
                let b3 = self.src.byte()? as u32;
                let b4 = self.src.byte()? as u32;
                let v = ((b2 & 0x0F) << 16 | b3 << 8 | b4) + 263_185;
                if v > 1 << 20 {
                    return Err(self.err("index past 2^20"));
                }
                Ok(v)
            }
            _ => Err(self.err(format!("bad index octet {b:#04x}"))),
        }
    }

    pub(super) fn u32_len(&mut self) -> Result<usize> {
        let mut v = 0u32;
        for _ in 0..4 {
            v = v << 8 | self.src.byte()? as u32;
        }
        Ok(v as usize)
    }

    /// Length starting on the 2nd bit (C.22).
    #[inline(always)]
    pub(super) fn len_2nd(&mut self, b: u8) -> Result<usize> {
        if b & 0x40 == 0 {
            Ok((b & 0x3F) as usize + 1)
        } else if b & 0x7F == 0x40 {
            Ok(self.src.byte()? as usize + 65)
        } else if b & 0x7F == 0x60 {
            Ok(self.u32_len()? + 321)
        } else {
            Err(self.err(format!("bad length octet {b:#04x}")))
        }
    }

    /// Length starting on the 5th bit (C.23).
    #[inline(always)]
    pub(super) fn len_5th(&mut self, b: u8) -> Result<usize> {
        if b & 0x08 == 0 {
            Ok((b & 0x07) as usize + 1)
        } else if b & 0x0F == 0x08 {
            Ok(self.src.byte()? as usize + 9)
        } else if b & 0x0F == 0x0C {
            Ok(self.u32_len()? + 265)
        } else {
            Err(self.err(format!("bad length octet {b:#04x}")))
        }
    }

    /// Length starting on the 7th bit (C.24).
    #[inline(always)]
    pub(super) fn len_7th(&mut self, b: u8) -> Result<usize> {
        if b & 0x02 == 0 {
            Ok((b & 0x01) as usize + 1)
        } else if b & 0x01 == 0 {
            Ok(self.src.byte()? as usize + 3)
        } else {
            Ok(self.u32_len()? + 259)
        }
    }

    // ---- strings ----

    #[inline(always)]
    pub(super) fn octets(&mut self, len: usize) -> Result<Cow<'a, [u8]>> {
        if len > self.limits.max_string_len {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                format!("string of {len} octets exceeds the limit"),
            ));
        }
        self.src.bytes(len)
    }

    #[inline(always)]
    pub(super) fn utf8(&mut self, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        match self.octets(len)? {
            Cow::Borrowed(b) if b.len() <= 32 && is_ascii_short(b) => {
                // SAFETY: every octet is below 0x80, so the slice is ASCII and valid UTF-8.
                Ok(Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }))
            }
            Cow::Borrowed(b) => match std::str::from_utf8(b) {
                Ok(s) => Ok(Cow::Borrowed(s)),
                Err(e) => Err(self.err_at(at + e.valid_up_to() as u64, "invalid UTF-8")),
            },
            Cow::Owned(v) => match String::from_utf8(v) {
                Ok(s) => Ok(Cow::Owned(s)),
                Err(e) => {
                    Err(self.err_at(at + e.utf8_error().valid_up_to() as u64, "invalid UTF-8"))
                }
            },
        }
    }

    pub(super) fn utf16(&mut self, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        let b = self.octets(len)?;
        if b.len() % 2 != 0 {
            return Err(self.err_at(at, "UTF-16 string of an odd number of octets"));
        }
        let units = b.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]));
        let mut s = String::with_capacity(b.len() / 2);
        for c in char::decode_utf16(units) {
            match c {
                Ok(c) => s.push(c),
                Err(_) => return Err(self.err_at(at, "unpaired surrogate in a UTF-16 string")),
            }
        }
        Ok(Cow::Owned(s))
    }

    #[inline(always)]
    pub(super) fn table_get(&mut self, tab: StrTab, i: u32) -> Result<Cow<'a, str>> {
        let t = &self.t.strs[tab as usize];
        match t.get(i as usize - 1) {
            Some(Cow::Borrowed(s)) => {
                let s: &'a str = s;
                self.charge(s.len())?;
                Ok(Cow::Borrowed(s))
            }
            Some(Cow::Owned(s)) => {
                let s: Cow<'a, str> = Cow::Owned(s.clone());
                self.charge(s.len())?;
                Ok(s)
            }
            None => Err(self.err(format!(
                "index {i} past the end of the {} table ({} entries)",
                TABLE_NAMES[tab as usize],
                t.len()
            ))),
        }
    }

    #[inline(always)]
    pub(super) fn charge(&mut self, n: usize) -> Result<()> {
        self.expanded += n;
        if self.expanded > self.budget {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                "decoded data exceeds the expansion budget",
            ));
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn table_add(&mut self, tab: StrTab, s: Cow<'a, str>) -> Result<()> {
        let t = &mut self.t.strs[tab as usize];
        if t.len() >= self.limits.max_table_entries.min(1 << 20) {
            return Err(Error::limit(
                FORMAT,
                self.src.pos(),
                format!("the {} table is full", TABLE_NAMES[tab as usize]),
            ));
        }
        t.push(s);
        Ok(())
    }

    /// Identifying string or index on the first bit (C.13).
    #[inline(always)]
    pub(super) fn ident(&mut self, tab: StrTab) -> Result<Cow<'a, str>> {
        let b = self.src.byte()?;
        if b & 0x80 != 0 {
            let i = self.int_2nd(b)?;
            self.table_get(tab, i)
        } else {
            let len = self.len_2nd(b)?;
            let s = self.utf8(len)?;
            self.table_add(tab, s.clone())?;
            Ok(s)
        }
    }

    /// A non-empty octet string on the 2nd bit (C.22), first bit padding.
    pub(super) fn octet_string_2nd(&mut self) -> Result<Cow<'a, str>> {
        let b = self.src.byte()?;
        if b & 0x80 != 0 {
            return Err(self.err("padding bit set"));
        }
        let len = self.len_2nd(b)?;
        self.utf8(len)
    }

    pub(super) fn alphabet(&mut self, wire: u8) -> Result<&[char]> {
        if wire < 2 {
            let c = &mut self.alphabet_cache[wire as usize];
            if c.is_empty() {
                let a = if wire == 0 {
                    algo::NUMERIC
                } else {
                    algo::DATE_TIME
                };
                *c = a.chars().collect();
            }
            Ok(&self.alphabet_cache[wire as usize])
        } else if wire >= algo::APPLICATION_START {
            match self
                .t
                .alphabets
                .get((wire - algo::APPLICATION_START) as usize)
            {
                Some(a) => Ok(a),
                None => Err(self.err(format!(
                    "restricted alphabet {} is not in the vocabulary",
                    wire as u32 + 1
                ))),
            }
        } else {
            Err(self.err(format!(
                "restricted alphabet {} is reserved",
                wire as u32 + 1
            )))
        }
    }

    pub(super) fn alphabet_string(&mut self, wire: u8, len: usize) -> Result<Cow<'a, str>> {
        let at = self.src.pos();
        let data = self.octets(len)?;
        let a = self.alphabet(wire)?;
        match algo::alphabet_decode(a, &data) {
            Some(s) => Ok(Cow::Owned(s)),
            None => Err(self.err_at(at, "malformed restricted-alphabet string")),
        }
    }

    pub(super) fn algorithm_data(&mut self, wire: u8, len: usize) -> Result<NiStr<'a>> {
        let at = self.src.pos();
        if wire == algo::CDATA {
            return Ok(NiStr::Cdata(self.utf8(len)?));
        }
        if wire > algo::CDATA {
            let what = if wire >= algo::APPLICATION_START {
                match self
                    .t
                    .algorithms
                    .get((wire - algo::APPLICATION_START) as usize)
                {
                    Some(uri) => format!(
                        "application encoding algorithm {} ({uri}) is not supported",
                        wire as u32 + 1
                    ),
                    None => format!(
                        "encoding algorithm {} is not in the vocabulary",
                        wire as u32 + 1
                    ),
                }
            } else {
                format!("encoding algorithm {} is reserved", wire as u32 + 1)
            };
            return Err(self.err_at(at, what));
        }
        let data = self.octets(len)?;
        match algo::decode_builtin(wire, data) {
            Ok(t) => Ok(NiStr::Typed(t)),
            Err(m) => Err(self.err_at(at, m)),
        }
    }

    /// Non-identifying string on the first bit (C.14).
    #[inline]
    pub(super) fn nistring(&mut self, tab: StrTab) -> Result<NiStr<'a>> {
        let b = self.src.byte()?;
        self.nistring_b(b, tab)
    }

    /// [`Core::nistring`] after its first octet `b`.
    pub(super) fn nistring_b(&mut self, b: u8, tab: StrTab) -> Result<NiStr<'a>> {
        if b & 0x80 != 0 {
            if b == 0xFF {
                return Ok(NiStr::Str(Cow::Borrowed("")));
            }
            let i = self.int_2nd(b)?;
            return Ok(NiStr::Str(self.table_get(tab, i)?));
        }
        let add = b & 0x40 != 0;
        let v = match (b >> 4) & 3 {
            0 => {
                let len = self.len_5th(b)?;
                NiStr::Str(self.utf8(len)?)
            }
            1 => {
                let len = self.len_5th(b)?;
                NiStr::Str(self.utf16(len)?)
            }
            k => {
                let b2 = self.src.byte()?;
                let wire = (b & 0x0F) << 4 | b2 >> 4;
                let len = self.len_5th(b2)?;
                if k == 2 {
                    NiStr::Str(self.alphabet_string(wire, len)?)
                } else {
                    self.algorithm_data(wire, len)?
                }
            }
        };
        if add {
            let s = match &v {
                NiStr::Str(s) | NiStr::Cdata(s) => s.clone(),
                NiStr::Typed(t) => Cow::Owned(t.lexical()),
            };
            self.table_add(tab, s)?;
        }
        Ok(v)
    }

    #[inline(always)]
    pub(super) fn nistring_text(&mut self, tab: StrTab) -> Result<Cow<'a, str>> {
        Ok(match self.nistring(tab)? {
            NiStr::Str(s) | NiStr::Cdata(s) => s,
            NiStr::Typed(t) => Cow::Owned(t.lexical()),
        })
    }
}
