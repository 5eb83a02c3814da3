//! The native form of xs:dateTime / xs:date / xs:time values.
//!
//! A value is encoded natively only when formatting the parsed fields reproduces the lexical
//! form exactly; anything else goes as text, so the round trip is always exact.

use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DateTimeFields {
    pub date: Option<(bool, u64, u8, u8)>,
    pub time: Option<(u8, u8, u8)>,
    /// (digit count, value)
    pub fraction: Option<(u8, u64)>,
    pub tz: Tz,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tz {
    #[default]
    None,
    Z,
    /// Offset in minutes.
    Offset(i16),
}

pub const F_DATE: u8 = 0x01;
pub const F_TIME: u8 = 0x02;
pub const F_FRACTION: u8 = 0x04;
pub const F_TZ_Z: u8 = 0x08;
pub const F_TZ_OFFSET: u8 = 0x10;
pub const F_NEG_YEAR: u8 = 0x20;

fn digits(s: &[u8], n: usize) -> Option<(u64, &[u8])> {
    if s.len() < n || !s[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = s[..n]
        .iter()
        .fold(0u64, |a, &d| a * 10 + u64::from(d - b'0'));
    Some((v, &s[n..]))
}

fn expect(s: &[u8], c: u8) -> Option<&[u8]> {
    if s.first() == Some(&c) {
        Some(&s[1..])
    } else {
        None
    }
}

/// Parses `[-]YYYY-MM-DD[THH:MM:SS[.f]][tz]` or `HH:MM:SS[.f][tz]`.
pub fn parse(text: &str) -> Option<DateTimeFields> {
    let mut s = text.as_bytes();
    let mut f = DateTimeFields::default();
    let is_time_only = s.len() >= 3 && s[2] == b':';
    if !is_time_only {
        let neg = s.first() == Some(&b'-');
        if neg {
            s = &s[1..];
        }
        let ylen = s.iter().take_while(|c| c.is_ascii_digit()).count();
        if !(4..=18).contains(&ylen) {
            return None;
        }
        let (year, r) = digits(s, ylen)?;
        let r = expect(r, b'-')?;
        let (month, r) = digits(r, 2)?;
        let r = expect(r, b'-')?;
        let (day, r) = digits(r, 2)?;
        f.date = Some((neg, year, month as u8, day as u8));
        s = r;
        if s.first() == Some(&b'T') {
            s = &s[1..];
        } else {
            return finish_tz(s, f, text);
        }
    }
    let (h, r) = digits(s, 2)?;
    let r = expect(r, b':')?;
    let (m, r) = digits(r, 2)?;
    let r = expect(r, b':')?;
    let (sec, mut r) = digits(r, 2)?;
    f.time = Some((h as u8, m as u8, sec as u8));
    if r.first() == Some(&b'.') {
        let n = r[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=18).contains(&n) {
            return None;
        }
        let (v, rest) = digits(&r[1..], n)?;
        f.fraction = Some((n as u8, v));
        r = rest;
    }
    finish_tz(r, f, text)
}

fn finish_tz(s: &[u8], mut f: DateTimeFields, text: &str) -> Option<DateTimeFields> {
    match s {
        [] => {}
        [b'Z'] => f.tz = Tz::Z,
        [sign @ (b'+' | b'-'), ..] => {
            let (h, r) = digits(&s[1..], 2)?;
            let r = expect(r, b':')?;
            let (m, r) = digits(r, 2)?;
            if !r.is_empty() {
                return None;
            }
            let mins = (h * 60 + m) as i16;
            f.tz = Tz::Offset(if *sign == b'-' { -mins } else { mins });
        }
        _ => return None,
    }
    // Only forms that format back to the same text are encoded natively.
    if format(&f) == text { Some(f) } else { None }
}

pub fn format(f: &DateTimeFields) -> String {
    let mut out = String::new();
    if let Some((neg, y, m, d)) = f.date {
        if neg {
            out.push('-');
        }
        let _ = write!(out, "{y:04}-{m:02}-{d:02}");
        if f.time.is_some() {
            out.push('T');
        }
    }
    if let Some((h, m, s)) = f.time {
        let _ = write!(out, "{h:02}:{m:02}:{s:02}");
        if let Some((n, v)) = f.fraction {
            let _ = write!(out, ".{v:0width$}", width = n as usize);
        }
    }
    match f.tz {
        Tz::None => {}
        Tz::Z => out.push('Z'),
        Tz::Offset(o) => {
            let sign = if o < 0 { '-' } else { '+' };
            let a = o.unsigned_abs();
            let _ = write!(out, "{sign}{:02}:{:02}", a / 60, a % 60);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            "2005-03-01T12:00:00Z",
            "2005-03-01",
            "-0044-03-15",
            "12:30:05.0012+02:00",
            "2026-11-22T00:05:14.123456-05:30",
            "123456-01-01T00:00:00",
        ] {
            let f = parse(s).unwrap_or_else(|| panic!("{s}"));
            assert_eq!(format(&f), s);
        }
        for s in [
            "2005-3-01",
            "x",
            "2005-03-01T12:00",
            "2005-03-01+2:00",
            "",
            "0044-03-15 ",
            "12:30:05.",
        ] {
            assert!(parse(s).is_none(), "{s}");
        }
    }
}
