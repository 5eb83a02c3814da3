//! The date and time types: `DateTimeValue` (dateTime, time, date and the five gregorian
//! types) and `DurationValue`, their lexical forms (Part 2, 3.2.6 to 3.2.14, second edition)
//! and their partial orders (3.2.7.4 and 3.2.6.2).

use std::cmp::Ordering;

use super::builtin::Builtin;
use super::error::{DatatypeError, ErrorKind, lexical};

/// Year digits this module keeps: years are i64 values, and a limit well inside that keeps
/// the timeline arithmetic (in i128 seconds) exact. Longer years are refused as out of range.
const MAX_YEAR_DIGITS: usize = 16;

/// A value of one of the date/time types. The fields are as written (a `24:00:00` keeps hour
/// 24, a `+01:00` keeps its offset): they are what EXI 7.1.8 encodes. Comparisons go through
/// the timeline: UTC seconds, with missing fields taken from a reference date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTimeValue {
    kind: Builtin,
    year: Option<i64>,
    month: Option<u8>,
    day: Option<u8>,
    hour: Option<u8>,
    minute: Option<u8>,
    second: Option<u8>,
    fraction: String,
    timezone: Option<i16>,
}

impl DateTimeValue {
    /// The primitive type (`DateTime`, `Time`, `Date`, `GYearMonth`, `GYear`, `GMonthDay`,
    /// `GDay` or `GMonth`): values of different kinds are never comparable.
    pub fn kind(&self) -> Builtin {
        self.kind
    }
    /// The year as written (negative for BCE; never 0 in XSD 1.0), when the type has one.
    pub fn year(&self) -> Option<i64> {
        self.year
    }
    /// The month, 1 to 12.
    pub fn month(&self) -> Option<u8> {
        self.month
    }
    /// The day of the month, 1 to 31.
    pub fn day(&self) -> Option<u8> {
        self.day
    }
    /// The hour, 0 to 24 (24 only as `24:00:00`, which means the next day's midnight).
    pub fn hour(&self) -> Option<u8> {
        self.hour
    }
    /// The minute, 0 to 59.
    pub fn minute(&self) -> Option<u8> {
        self.minute
    }
    /// The whole seconds, 0 to 59.
    pub fn second(&self) -> Option<u8> {
        self.second
    }
    /// The fractional seconds digits without trailing zeros (`"05"` for `.050`); empty when
    /// none. EXI 7.1.8 writes them reversed as an unsigned integer.
    pub fn fraction_digits(&self) -> &str {
        &self.fraction
    }
    /// The timezone offset in minutes east of UTC (`Z` and `-00:00` are 0); `None` when the
    /// value has no timezone.
    pub fn timezone_minutes(&self) -> Option<i16> {
        self.timezone
    }

    /// Parses the lexical form of `kind` (one of the eight date/time primitives), already
    /// white-space collapsed.
    pub(crate) fn parse(kind: Builtin, s: &str) -> Result<DateTimeValue, DatatypeError> {
        let err = |m: &str| lexical(&format!("xs:{}", kind.name()), s, m);
        let mut c = Cursor {
            s: s.as_bytes(),
            at: 0,
        };
        let mut v = DateTimeValue {
            kind,
            year: None,
            month: None,
            day: None,
            hour: None,
            minute: None,
            second: None,
            fraction: String::new(),
            timezone: None,
        };
        use Builtin as B;
        let (has_year, has_month, has_day, has_time) = match kind {
            B::DateTime => (true, true, true, true),
            B::Time => (false, false, false, true),
            B::Date => (true, true, true, false),
            B::GYearMonth => (true, true, false, false),
            B::GYear => (true, false, false, false),
            B::GMonthDay => (false, true, true, false),
            B::GDay => (false, false, true, false),
            B::GMonth => (false, true, false, false),
            _ => return Err(err("not a date/time type")),
        };
        if has_year {
            v.year = Some(parse_year(&mut c, kind, s)?);
        } else if has_month || has_day {
            // The gregorian types without a year start with "--" ("---" for gDay).
            if !c.eat(b'-') {
                return Err(err("expected '--'"));
            }
        }
        if has_month {
            if !c.eat(b'-') {
                return Err(err("expected '-' before the month"));
            }
            let m = c
                .two_digits()
                .ok_or_else(|| err("expected a two-digit month"))?;
            if !(1..=12).contains(&m) {
                return Err(err("month out of range 01..12"));
            }
            v.month = Some(m);
        }
        if has_day {
            if !has_month && !c.eat(b'-') {
                return Err(err("expected '---' before the day"));
            }
            if !c.eat(b'-') {
                return Err(err("expected '-' before the day"));
            }
            let d = c
                .two_digits()
                .ok_or_else(|| err("expected a two-digit day"))?;
            let max = match v.month {
                Some(m) => days_in_month(v.year, m),
                None => 31,
            };
            if d < 1 || d > max {
                return Err(err("day out of range for the month"));
            }
            v.day = Some(d);
        }
        if has_time {
            if has_day && !c.eat(b'T') {
                return Err(err("expected 'T' before the time"));
            }
            let h = c
                .two_digits()
                .ok_or_else(|| err("expected a two-digit hour"))?;
            let ok = c.eat(b':');
            let mi = c
                .two_digits()
                .filter(|_| ok)
                .ok_or_else(|| err("expected ':mm'"))?;
            let ok = c.eat(b':');
            let sec = c
                .two_digits()
                .filter(|_| ok)
                .ok_or_else(|| err("expected ':ss'"))?;
            if c.eat(b'.') {
                let digits = c.digits();
                if digits.is_empty() {
                    return Err(err("expected digits after '.'"));
                }
                v.fraction = digits.trim_end_matches('0').to_string();
            }
            if h > 24 || mi > 59 || sec > 59 {
                return Err(err("time field out of range"));
            }
            // Second edition: 24:00:00 is allowed (the end of the day); 24:00:01 is not.
            if h == 24 && (mi != 0 || sec != 0 || !v.fraction.is_empty()) {
                return Err(err("hour 24 is allowed only as 24:00:00"));
            }
            (v.hour, v.minute, v.second) = (Some(h), Some(mi), Some(sec));
        }
        if !c.done() {
            v.timezone = Some(parse_timezone(&mut c).ok_or_else(|| err("bad timezone"))?);
        }
        if !c.done() {
            return Err(err("unexpected characters"));
        }
        Ok(v)
    }

    /// The position on the timeline: UTC seconds (floor) and the fraction digits, with the
    /// value's own timezone, or `tz` minutes when it has none. Missing fields come from
    /// 2000-01-01T00:00:00 (2000 is a leap year, so `--02-29` has a place).
    fn timeline(&self, tz: i16) -> (i128, &str) {
        let days = days_from_civil(
            i128::from(self.year.unwrap_or(2000)),
            self.month.unwrap_or(1),
            self.day.unwrap_or(1),
        );
        // A time of 24:00:00 is midnight of a daily recurring instant: the same as 00:00:00.
        let hour = match (self.kind, self.hour) {
            (Builtin::Time, Some(24)) => 0,
            (_, h) => h.unwrap_or(0),
        };
        let secs = days * 86400
            + i128::from(hour) * 3600
            + i128::from(self.minute.unwrap_or(0)) * 60
            + i128::from(self.second.unwrap_or(0))
            - i128::from(self.timezone.unwrap_or(tz)) * 60;
        (secs, &self.fraction)
    }

    /// The partial order of Part 2, 3.2.7.4: values with and without timezone compare only
    /// when they differ by more than the 14 hours a timezone can shift. `None` when they are
    /// incomparable (or of different kinds).
    pub fn cmp_value(&self, other: &DateTimeValue) -> Option<Ordering> {
        if self.kind != other.kind {
            return None;
        }
        match (self.timezone.is_some(), other.timezone.is_some()) {
            (true, true) | (false, false) => Some(self.timeline(0).cmp(&other.timeline(0))),
            (true, false) => {
                let p = self.timeline(0);
                if p < other.timeline(14 * 60) {
                    Some(Ordering::Less)
                } else if p > other.timeline(-14 * 60) {
                    Some(Ordering::Greater)
                } else {
                    None
                }
            }
            (false, true) => other.cmp_value(self).map(Ordering::reverse),
        }
    }
}

/// A byte cursor for the fixed-format date/time literals.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn eat(&mut self, b: u8) -> bool {
        if self.s.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn two_digits(&mut self) -> Option<u8> {
        let d = self.s.get(self.at..self.at + 2)?;
        if d.iter().all(u8::is_ascii_digit) {
            self.at += 2;
            Some((d[0] - b'0') * 10 + (d[1] - b'0'))
        } else {
            None
        }
    }
    fn digits(&mut self) -> &str {
        let start = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        // ASCII digits only: valid UTF-8.
        std::str::from_utf8(&self.s[start..self.at]).unwrap_or("")
    }
    fn done(&self) -> bool {
        self.at == self.s.len()
    }
}

/// `-?yyyy+`: four digits or more, no leading zero beyond four, not 0000 (XSD 1.0).
fn parse_year(c: &mut Cursor<'_>, kind: Builtin, s: &str) -> Result<i64, DatatypeError> {
    let subject = || format!("xs:{}", kind.name());
    let negative = c.eat(b'-');
    let digits = c.digits();
    if digits.len() < 4 || (digits.len() > 4 && digits.starts_with('0')) {
        return Err(lexical(
            &subject(),
            s,
            "the year needs 4 digits, more without leading zero",
        ));
    }
    if digits.len() > MAX_YEAR_DIGITS {
        return Err(DatatypeError::new(
            ErrorKind::Range,
            &subject(),
            s,
            format!("years of more than {MAX_YEAR_DIGITS} digits are not supported"),
        ));
    }
    let y: i64 = digits.parse().unwrap_or(0);
    if y == 0 {
        return Err(lexical(
            &subject(),
            s,
            "year 0000 is not allowed in XSD 1.0",
        ));
    }
    Ok(if negative { -y } else { y })
}

/// `Z` or `(+|-)hh:mm` with hh 00..14, mm 00..59 and 14:00 at most.
fn parse_timezone(c: &mut Cursor<'_>) -> Option<i16> {
    if c.eat(b'Z') {
        return Some(0);
    }
    let sign = if c.eat(b'+') {
        1
    } else if c.eat(b'-') {
        -1
    } else {
        return None;
    };
    let h = c.two_digits()?;
    if !c.eat(b':') {
        return None;
    }
    let m = c.two_digits()?;
    if h > 14 || m > 59 || (h == 14 && m != 0) {
        return None;
    }
    Some(sign * (i16::from(h) * 60 + i16::from(m)))
}

/// Days in `month` of `year` (February of an unknown year has 29). The leap-year rule is
/// applied to the year as written, as Part 2 appendix E (maximumDayInMonthFor) does.
fn days_in_month(year: Option<i64>, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 => match year {
            Some(y) if !(y.rem_euclid(400) == 0 || (y.rem_euclid(4) == 0 && y % 100 != 0)) => 28,
            _ => 29,
        },
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the year used as written: XSD 1.0
/// has no year 0, which only leaves a gap in a timeline used for ordering).
fn days_from_civil(y: i128, m: u8, d: u8) -> i128 {
    let (m, d) = (i128::from(m), i128::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// A value of xs:duration: a signed number of months and of seconds (Part 2, 3.2.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationValue {
    negative: bool,
    months: i128,
    seconds: i128,
    fraction: String,
}

/// Digits a duration component may have: enough for any real use, and small enough that
/// months and seconds stay exact in i128.
const MAX_DURATION_DIGITS: usize = 18;

impl DurationValue {
    /// Whether the duration is negative (`-P...`, and not zero).
    pub fn is_negative(&self) -> bool {
        self.negative
    }
    /// The magnitude's months (years × 12 + months).
    pub fn months(&self) -> i128 {
        self.months
    }
    /// The magnitude's whole seconds (days, hours and minutes included).
    pub fn seconds(&self) -> i128 {
        self.seconds
    }
    /// The magnitude's fractional seconds digits, without trailing zeros.
    pub fn fraction_digits(&self) -> &str {
        &self.fraction
    }

    /// Parses `-?P(nY)?(nM)?(nD)?(T(nH)?(nM)?(n(.n+)?S)?)?` with at least one component and,
    /// after `T`, at least one time component.
    pub(crate) fn parse(s: &str) -> Result<DurationValue, DatatypeError> {
        let err = |m: &str| lexical("xs:duration", s, m);
        let (negative, rest) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let rest = rest.strip_prefix('P').ok_or_else(|| err("expected 'P'"))?;
        let (date, time) = match rest.split_once('T') {
            Some((d, t)) => {
                if t.is_empty() {
                    return Err(err("'T' must be followed by a time component"));
                }
                (d, Some(t))
            }
            None => (rest, None),
        };
        let mut v = DurationValue {
            negative,
            months: 0,
            seconds: 0,
            fraction: String::new(),
        };
        let mut any = false;
        // Each designator in its order, at most once, with what one unit of it adds to the
        // months and to the seconds; only the last (S) may carry a fraction.
        let mut take = |part: &str, designators: &[(u8, i128, i128)], v: &mut DurationValue| {
            let mut p = part.as_bytes();
            let mut next = 0;
            while !p.is_empty() {
                let n = p.iter().take_while(|b| b.is_ascii_digit()).count();
                let (num, after) = p.split_at(n);
                let (frac, after) = if after.first() == Some(&b'.') {
                    let f = after[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    (Some(&after[1..1 + f]), &after[1 + f..])
                } else {
                    (None, after)
                };
                let Some((&d, after)) = after.split_first() else {
                    return Err(err("number without designator"));
                };
                let Some(i) = designators[next..].iter().position(|&(x, _, _)| x == d) else {
                    return Err(err("unexpected or repeated designator"));
                };
                let (_, months, seconds) = designators[next + i];
                next += i + 1;
                if num.is_empty() {
                    return Err(err("designator without number"));
                }
                if num.len() > MAX_DURATION_DIGITS {
                    return Err(DatatypeError::new(
                        ErrorKind::Range,
                        "xs:duration",
                        s,
                        "component too large for this implementation",
                    ));
                }
                let n: i128 = std::str::from_utf8(num)
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                if let Some(f) = frac {
                    if d != b'S' || f.is_empty() {
                        return Err(err("a fraction is allowed only on seconds, with digits"));
                    }
                    let f = std::str::from_utf8(f).unwrap_or("");
                    v.fraction = f.trim_end_matches('0').to_string();
                }
                // At most 18 digits times 86400: far inside i128.
                v.months += n * months;
                v.seconds += n * seconds;
                any = true;
                p = after;
            }
            Ok(())
        };
        take(
            date,
            &[(b'Y', 12, 0), (b'M', 1, 0), (b'D', 0, 86400)],
            &mut v,
        )?;
        if let Some(t) = time {
            // `t` is not empty, so this reads at least one component or fails.
            take(t, &[(b'H', 0, 3600), (b'M', 0, 60), (b'S', 0, 1)], &mut v)?;
        }
        if !any {
            return Err(err("a duration needs at least one component"));
        }
        if v.months == 0 && v.seconds == 0 && v.fraction.is_empty() {
            v.negative = false;
        }
        Ok(v)
    }

    /// The signed seconds as (floor, fraction digits of the non-negative remainder).
    fn signed_seconds(&self) -> (i128, String) {
        if !self.negative {
            (self.seconds, self.fraction.clone())
        } else if self.fraction.is_empty() {
            (-self.seconds, String::new())
        } else {
            (-self.seconds - 1, complement(&self.fraction))
        }
    }

    /// The partial order of Part 2, 3.2.6.2: both durations added to four reference
    /// dateTimes; the order holds when all four agree, else the two are incomparable.
    pub fn cmp_value(&self, other: &DurationValue) -> Option<Ordering> {
        const REFS: [(i128, u8); 4] = [(1696, 9), (1697, 2), (1903, 3), (1903, 7)];
        let at = |d: &DurationValue, (y, m): (i128, u8)| {
            let months = if d.negative { -d.months } else { d.months };
            let total = y * 12 + i128::from(m) - 1 + months;
            let month = u8::try_from(total.rem_euclid(12) + 1).unwrap_or(1);
            let days = days_from_civil(total.div_euclid(12), month, 1);
            let (secs, frac) = d.signed_seconds();
            (days * 86400 + secs, frac)
        };
        let mut result = None;
        for r in REFS {
            let o = at(self, r).cmp(&at(other, r));
            match result {
                None => result = Some(o),
                Some(prev) if prev != o => return None,
                _ => {}
            }
        }
        result
    }
}

/// 1 - 0.f as fraction digits: the non-negative remainder of a negative fractional amount.
fn complement(f: &str) -> String {
    let b = f.as_bytes();
    let mut out: Vec<u8> = b.iter().map(|&d| b'9' - (d - b'0')).collect();
    // f has no trailing zero, so its last digit is 1..9 and becomes 10 - d.
    if let Some(last) = out.last_mut() {
        *last += 1;
    }
    let s = String::from_utf8(out).unwrap_or_default();
    s.trim_end_matches('0').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(kind: Builtin, s: &str) -> DateTimeValue {
        DateTimeValue::parse(kind, s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn lexical() {
        use Builtin::*;
        let ok = [
            (DateTime, "2000-02-29T12:00:00"),
            (DateTime, "-0001-01-01T00:00:00Z"),
            (DateTime, "12345-01-01T00:00:00.5+14:00"),
            (DateTime, "1999-12-31T24:00:00"),
            (DateTime, "1999-12-31T24:00:00.000-00:00"),
            (Time, "24:00:00"),
            (Time, "23:59:59.999999999999"),
            (Date, "2004-02-29"),
            (Date, "1600-02-29Z"),
            (GYearMonth, "2001-12"),
            (GYear, "-12345"),
            (GMonthDay, "--02-29"),
            (GDay, "---31+01:30"),
            (GMonth, "--12"),
        ];
        for (k, s) in ok {
            dt(k, s);
        }
        let bad = [
            (DateTime, "1900-02-29T00:00:00"),
            (DateTime, "0000-01-01T00:00:00"),
            (DateTime, "01999-01-01T00:00:00"),
            (DateTime, "999-01-01T00:00:00"),
            (DateTime, "2000-01-01T24:00:01"),
            (DateTime, "2000-01-01T24:30:00"),
            (DateTime, "2000-01-01T00:00:60"),
            (DateTime, "2000-01-01T00:00:00."),
            (DateTime, "2000-01-01T00:00:00+14:01"),
            (DateTime, "2000-01-01T00:00:00+15:00"),
            (DateTime, "2000-01-01T00:00:00+0100"),
            (DateTime, "2000-01-01"),
            (DateTime, "2000-1-01T00:00:00"),
            (Date, "2000-13-01"),
            (Date, "2000-04-31"),
            (Date, "+2000-01-01"),
            (Time, "1:00:00"),
            (Time, "10:00"),
            (GMonth, "--12--"),
            (GMonthDay, "--02-30"),
            (GDay, "--31"),
            (GYear, "20000000000000000000"),
        ];
        for (k, s) in bad {
            assert!(DateTimeValue::parse(k, s).is_err(), "{s}");
        }
        let v = dt(DateTime, "2001-10-26T21:32:52.12679-05:30");
        assert_eq!(v.fraction_digits(), "12679");
        assert_eq!(v.timezone_minutes(), Some(-330));
    }

    #[test]
    fn order() {
        use Builtin::DateTime as D;
        let cmp = |a: &str, b: &str| dt(D, a).cmp_value(&dt(D, b));
        assert_eq!(
            cmp("2000-01-01T12:00:00+01:00", "2000-01-01T11:00:00Z"),
            Some(Ordering::Equal)
        );
        assert_eq!(
            cmp("1999-12-31T24:00:00", "2000-01-01T00:00:00"),
            Some(Ordering::Equal)
        );
        assert_eq!(
            cmp("2000-01-01T00:00:00.5", "2000-01-01T00:00:00.45"),
            Some(Ordering::Greater)
        );
        // Part 2's own examples of incomparable and comparable mixed values.
        assert_eq!(
            cmp("2000-01-15T12:00:00", "2000-01-16T12:00:00Z"),
            Some(Ordering::Less)
        );
        assert_eq!(cmp("2000-01-01T12:00:00", "1999-12-31T23:00:00Z"), None);
        assert_eq!(cmp("2000-01-16T12:00:00", "2000-01-16T12:00:00Z"), None);
        assert_eq!(
            cmp("-0001-12-31T00:00:00", "0001-01-01T00:00:00"),
            Some(Ordering::Less)
        );
        assert_eq!(
            dt(Builtin::Date, "2000-01-01").cmp_value(&dt(Builtin::GYear, "2000")),
            None
        );
    }

    #[test]
    fn durations() {
        let p = |s: &str| DurationValue::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        for bad in [
            "P", "PT", "P1Y2", "P1S", "PT1D", "P1M1Y", "-P", "P-1Y", "1Y", "P1.5Y", "PT1.S", "P1YT",
        ] {
            assert!(DurationValue::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(p("P1Y").cmp_value(&p("P12M")), Some(Ordering::Equal));
        assert_eq!(p("P1D").cmp_value(&p("PT24H")), Some(Ordering::Equal));
        assert_eq!(p("P1M").cmp_value(&p("P30D")), None);
        assert_eq!(p("P1M").cmp_value(&p("P32D")), Some(Ordering::Less));
        assert_eq!(p("-PT0.5S").cmp_value(&p("-PT0.25S")), Some(Ordering::Less));
        assert_eq!(p("-PT1S").cmp_value(&p("PT0S")), Some(Ordering::Less));
        assert_eq!(p("-P0D"), p("PT0S"));
        assert_eq!(
            p("P1Y2M3DT4H5M6.70S").seconds(),
            3 * 86400 + 4 * 3600 + 5 * 60 + 6
        );
        assert_eq!(complement("25"), "75");
        assert_eq!(complement("05"), "95");
        assert_eq!(complement("5"), "5");
    }
}
