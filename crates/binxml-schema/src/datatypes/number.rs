//! Numbers: `Decimal` (xs:decimal and every integer type, of any size) and `FloatValue`
//! (xs:float and xs:double, with what EXI 1.0 section 7.1.4 encodes).

use std::cmp::Ordering;
use std::fmt;

/// A decimal number of any size, held as its digits: xs:integer is unbounded, so no machine
/// integer would do. Normalized so that equal values are equal structs: no leading zeros in
/// the integral part (which is `"0"` when zero), no trailing zeros in the fraction, and no
/// negative zero.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal {
    negative: bool,
    integral: String,
    fraction: String,
}

impl Decimal {
    /// Parses the lexical form of xs:decimal (`fraction_allowed`) or xs:integer (not):
    /// `[+-]?` then digits with an optional `.` and fraction digits (`1.`, `.5` and `+1` are
    /// decimals; at least one digit is needed). `None` when `s` is not such a literal.
    pub fn parse(s: &str, fraction_allowed: bool) -> Option<Decimal> {
        let (negative, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = match body.split_once('.') {
            Some(_) if !fraction_allowed => return None,
            Some((i, f)) => (i, f),
            None => (body, ""),
        };
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        Some(Decimal::from_parts(negative, int, frac))
    }

    /// The number from its sign and digit strings (ASCII digits, checked by the caller).
    pub(crate) fn from_parts(negative: bool, int: &str, frac: &str) -> Decimal {
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let zero = int.is_empty() && frac.is_empty();
        Decimal {
            negative: negative && !zero,
            integral: if int.is_empty() { "0" } else { int }.to_string(),
            fraction: frac.to_string(),
        }
    }

    /// Whether the number is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// Whether the number is zero.
    pub fn is_zero(&self) -> bool {
        self.integral == "0" && self.fraction.is_empty()
    }

    /// Whether the number has no fractional part.
    pub fn is_integer(&self) -> bool {
        self.fraction.is_empty()
    }

    /// The digits of the integral part of the magnitude: no leading zeros, `"0"` when zero.
    /// With [`Decimal::is_negative`] this is the sign and magnitude EXI's Integer and
    /// Decimal representations (7.1.5, 7.1.3) start from.
    pub fn integral_digits(&self) -> &str {
        &self.integral
    }

    /// The digits of the fractional part, without trailing zeros (empty for an integer).
    /// EXI 7.1.3 writes them reversed as an unsigned integer so that leading zeros survive.
    pub fn fraction_digits(&self) -> &str {
        &self.fraction
    }

    /// The number of significant digits, as the totalDigits facet counts them (Part 2,
    /// 4.3.11): integral digits plus fraction digits, leading and trailing zeros not counted.
    pub fn total_digits(&self) -> usize {
        let int = if self.integral == "0" {
            0
        } else {
            self.integral.len()
        };
        int + self.fraction.len()
    }

    /// The integer after this one, for an integer (any fraction is ignored).
    pub fn next_integer(&self) -> Decimal {
        if self.negative {
            Decimal::from_parts(true, &decrement(&self.integral), "")
        } else {
            Decimal::from_parts(false, &increment(&self.integral), "")
        }
    }

    /// The integer before this one, for an integer (any fraction is ignored).
    pub fn previous_integer(&self) -> Decimal {
        if self.negative || self.is_zero() {
            Decimal::from_parts(true, &increment(&self.integral), "")
        } else {
            Decimal::from_parts(false, &decrement(&self.integral), "")
        }
    }

    /// The value as an `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        i64::try_from(self.to_i128()?).ok()
    }

    /// The value as an `i128` when it is an integer in range.
    pub fn to_i128(&self) -> Option<i128> {
        if !self.is_integer() || self.integral.len() > 39 {
            return None;
        }
        let mag: u128 = self.integral.parse().ok()?;
        if self.negative {
            0i128.checked_sub_unsigned(mag)
        } else {
            i128::try_from(mag).ok()
        }
    }

    /// The nearest `f64`, for callers that want an approximation (never used for checks).
    pub fn to_f64(&self) -> f64 {
        let s = format!(
            "{}{}.{}",
            if self.negative { "-" } else { "" },
            self.integral,
            self.fraction
        );
        s.parse().unwrap_or(f64::NAN)
    }

    /// The order of the value space: exact, whatever the number of digits.
    pub fn cmp_value(&self, other: &Decimal) -> Ordering {
        let magnitude = || {
            self.integral
                .len()
                .cmp(&other.integral.len())
                .then_with(|| self.integral.cmp(&other.integral))
                // Without trailing zeros, fractions compare as strings ("5" > "45").
                .then_with(|| self.fraction.cmp(&other.fraction))
        };
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(),
            (true, true) => magnitude().reverse(),
        }
    }
}

impl fmt::Display for Decimal {
    /// The canonical form of Part 2: `-1.5`, `0`, `12`, no exponent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        f.write_str(&self.integral)?;
        if !self.fraction.is_empty() {
            write!(f, ".{}", self.fraction)?;
        }
        Ok(())
    }
}

/// Adds one to a string of decimal digits.
fn increment(digits: &str) -> String {
    let mut d = digits.as_bytes().to_vec();
    for b in d.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return String::from_utf8(d).unwrap_or_default();
        }
    }
    format!("1{}", String::from_utf8(d).unwrap_or_default())
}

/// Subtracts one from a string of decimal digits that is not zero.
fn decrement(digits: &str) -> String {
    let mut d = digits.as_bytes().to_vec();
    for b in d.iter_mut().rev() {
        if *b == b'0' {
            *b = b'9';
        } else {
            *b -= 1;
            break;
        }
    }
    String::from_utf8(d).unwrap_or_default()
}

/// The exponent EXI 7.1.4 reserves for INF, -INF and NaN.
pub const EXI_SPECIAL_EXPONENT: i64 = -(1 << 14);
/// The largest magnitude of an ordinary exponent in EXI 7.1.4.
pub const EXI_MAX_EXPONENT: i64 = (1 << 14) - 1;

/// A value of xs:float or xs:double: the IEEE number (rounded once, from the literal, to
/// single precision for xs:float) for comparisons, and the decimal mantissa and exponent that
/// EXI 1.0 section 7.1.4 encodes, computed from the literal's digits rather than from the
/// rounded binary value.
#[derive(Debug, Clone, Copy)]
pub struct FloatValue {
    value: f64,
    exi: Option<(i64, i64)>,
}

impl FloatValue {
    /// Parses the lexical form of XSD 1.0 float and double:
    /// `[+-]?(digits(.digits?)?|.digits)([eE][+-]?digits)?`, `INF`, `-INF` or `NaN`
    /// (`+INF` is XSD 1.1 only). `single` rounds to xs:float's precision. A literal beyond
    /// the type's range is accepted and rounds to an infinity (or to zero), as IEEE 754
    /// rounding does. `None` when `s` is not such a literal.
    pub fn parse(s: &str, single: bool) -> Option<FloatValue> {
        let special = |value: f64, mantissa: i64| FloatValue {
            value,
            exi: Some((mantissa, EXI_SPECIAL_EXPONENT)),
        };
        match s {
            "INF" => return Some(special(f64::INFINITY, 1)),
            "-INF" => return Some(special(f64::NEG_INFINITY, -1)),
            "NaN" => return Some(special(f64::NAN, 0)),
            _ => {}
        }
        let (mantissa, exponent) = match s.find(['e', 'E']) {
            Some(at) => (&s[..at], Some(&s[at + 1..])),
            None => (s, None),
        };
        let dec = Decimal::parse(mantissa, true)?;
        let exp_value = match exponent {
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                // An exponent too long for i64 is still a literal (its value is 0 or INF);
                // it only has no EXI form.
                e.parse::<i64>().ok()
            }
            None => Some(0),
        };
        // The lexical form is checked; Rust's parsers accept all of it and round correctly,
        // each straight from the decimal string (no double rounding for xs:float).
        let value = if single {
            f64::from(s.parse::<f32>().ok()?)
        } else {
            s.parse::<f64>().ok()?
        };
        let exi = exp_value.and_then(|e| exi_mantissa_exponent(&dec, e));
        Some(FloatValue { value, exi })
    }

    /// The number (for xs:float, the single-precision value widened exactly).
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The EXI 1.0 7.1.4 representation: mantissa and base-10 exponent, from the literal's
    /// digits with trailing zeros moved into the exponent (`12.50E1` is 125 and 0). INF, -INF
    /// and NaN are mantissa 1, -1 and 0 with exponent -(2^14). `None` when the mantissa does
    /// not fit in an i64 or the exponent is beyond ±(2^14-1): EXI forbids those in its Float
    /// representation and the encoder must then write the value as an untyped string.
    pub fn exi_mantissa_exponent(&self) -> Option<(i64, i64)> {
        self.exi
    }

    /// The value-space order of XSD 1.0: numeric order with 0 = -0; NaN equals itself and is
    /// incomparable with every other value.
    pub fn cmp_value(&self, other: &FloatValue) -> Option<Ordering> {
        match (self.value.is_nan(), other.value.is_nan()) {
            (true, true) => Some(Ordering::Equal),
            (false, false) => self.value.partial_cmp(&other.value),
            _ => None,
        }
    }
}

/// The EXI mantissa and exponent of `dec` × 10^`exp`, if they are in EXI's ranges.
fn exi_mantissa_exponent(dec: &Decimal, exp: i64) -> Option<(i64, i64)> {
    let digits = format!("{}{}", dec.integral_digits(), dec.fraction_digits());
    let mut exp = exp.checked_sub(i64::try_from(dec.fraction_digits().len()).ok()?)?;
    let trimmed = digits.trim_end_matches('0');
    let digits = if trimmed.trim_start_matches('0').is_empty() {
        exp = 0;
        "0"
    } else {
        exp = exp.checked_add(i64::try_from(digits.len() - trimmed.len()).ok()?)?;
        trimmed.trim_start_matches('0')
    };
    if digits.len() > 19 || exp.abs() > EXI_MAX_EXPONENT {
        return None;
    }
    let mag: u64 = digits.parse().ok()?;
    let mantissa = if dec.is_negative() {
        0i64.checked_sub_unsigned(mag)?
    } else {
        i64::try_from(mag).ok()?
    };
    Some((mantissa, exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s, true).unwrap()
    }

    #[test]
    fn decimal_lexical() {
        for ok in ["1.", ".5", "+1", "-0", "007", "0.0", "-.0"] {
            assert!(Decimal::parse(ok, true).is_some(), "{ok}");
        }
        for bad in [
            "", ".", "+", "-.", "1e5", "1.2.3", " 1", "1,5", "++1", "INF", "0x1",
        ] {
            assert!(Decimal::parse(bad, true).is_none(), "{bad}");
        }
        assert!(Decimal::parse("1.0", false).is_none());
        assert!(Decimal::parse("+1", false).is_some());
    }

    #[test]
    fn decimal_value() {
        assert_eq!(d("1.0"), d("1"));
        assert_eq!(d("-0.0"), d("0"));
        assert_eq!(d("-007.50").to_string(), "-7.5");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("0.045").fraction_digits(), "045");
        let big = "123456789012345678901234567890123456789012345678901234567890";
        assert_eq!(d(big).integral_digits(), big);
        assert_eq!(d(big).to_i64(), None);
        assert_eq!(d("-9223372036854775808").to_i64(), Some(i64::MIN));
        let ordered = [
            "-100", "-99.5", "-1", "-0.5", "0", "0.045", "0.5", "1", "99", big,
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                assert_eq!(d(a).cmp_value(&d(b)), i.cmp(&j), "{a} {b}");
            }
        }
        assert_eq!(d("00120.0300").total_digits(), 5);
        let pairs = [
            ("-1000", "-999"),
            ("-10", "-9"),
            ("-1", "0"),
            ("0", "1"),
            ("9", "10"),
            ("99", "100"),
        ];
        for (a, b) in pairs {
            assert_eq!(d(a).next_integer(), d(b), "{a} {b}");
            assert_eq!(d(b).previous_integer(), d(a), "{a} {b}");
        }
        assert_eq!(d("0").total_digits(), 0);
    }

    #[test]
    fn float_lexical_and_exi() {
        let f = |s: &str| FloatValue::parse(s, false);
        for bad in [
            "", "+INF", "inf", "Infinity", "nan", "1e", "e5", "1.5e+", "1d5", ". 5",
        ] {
            assert!(f(bad).is_none(), "{bad}");
        }
        assert_eq!(
            f("12.50E1").unwrap().exi_mantissa_exponent(),
            Some((125, 0))
        );
        assert_eq!(f("-0.001").unwrap().exi_mantissa_exponent(), Some((-1, -3)));
        assert_eq!(f("1e5").unwrap().exi_mantissa_exponent(), Some((1, 5)));
        assert_eq!(f("100").unwrap().exi_mantissa_exponent(), Some((1, 2)));
        assert_eq!(f("0.0e7").unwrap().exi_mantissa_exponent(), Some((0, 0)));
        assert_eq!(f("INF").unwrap().exi_mantissa_exponent(), Some((1, -16384)));
        assert_eq!(f("NaN").unwrap().exi_mantissa_exponent(), Some((0, -16384)));
        // 20 significant digits: no EXI form, but a valid double.
        let long = f("12345678901234567891").unwrap();
        assert_eq!(long.exi_mantissa_exponent(), None);
        assert_eq!(long.value(), 12345678901234567891.0);
        assert_eq!(f("1e16384").unwrap().exi_mantissa_exponent(), None);
        assert_eq!(f("1e16383").unwrap().value(), f64::INFINITY);
        assert_eq!(
            f("-9223372036854775808").unwrap().exi_mantissa_exponent(),
            Some((i64::MIN, 0))
        );
        assert!(f("1e99999999999999999999999").is_some());
        // xs:float rounds once, from the literal.
        let single = FloatValue::parse("0.1", true).unwrap().value();
        assert_eq!(single, f64::from(0.1f32));
        assert_eq!(
            FloatValue::parse("1e39", true).unwrap().value(),
            f64::INFINITY
        );
    }

    #[test]
    fn float_order() {
        let f = |s: &str| FloatValue::parse(s, false).unwrap();
        assert_eq!(f("0").cmp_value(&f("-0")), Some(Ordering::Equal));
        assert_eq!(f("NaN").cmp_value(&f("NaN")), Some(Ordering::Equal));
        assert_eq!(f("NaN").cmp_value(&f("INF")), None);
        assert_eq!(f("-INF").cmp_value(&f("-1e308")), Some(Ordering::Less));
    }
}
