//! `Facets::restrict`: the effective facets of a restriction step, and the schema component
//! constraints of Part 2 (section 4.3, "... valid restriction" and the facet consistency
//! rules) that make a restriction an error.

use std::cmp::Ordering::{self, Equal, Greater, Less};

use super::builtin::Builtin;
use super::error::{DatatypeError, ErrorKind};
use super::facets::{FacetKind, FacetSpec, Facets, Variety, applicable};
use super::parse::{parse, parse_normalized};
use super::pattern::Pattern;
use super::resolver::NamespaceResolver;
use super::value::Value;
use super::whitespace::WhiteSpace;

/// What validates a lexical form against a union's member types and gives its value.
pub type MemberValue<'a> = &'a dyn Fn(&str, &dyn NamespaceResolver) -> Result<Value, DatatypeError>;

/// A schema error about facet `kind` whose value is `value`.
fn schema(kind: FacetKind, value: &str, m: impl Into<String>) -> DatatypeError {
    DatatypeError::new(ErrorKind::Schema, kind.name(), value, m)
}

/// Whether `v` compared with `bound` is one of `bad`; `incomparable` says what a value that
/// the partial order cannot compare with the bound does (a dateTime without timezone within
/// 14 hours of one with). Against the base's bounds it violates: the facet's value must be in
/// the base type's value space, and a value the base's bound cannot be shown to admit is
/// not. Between the new lower and upper bound it does not: "greater than" is simply false.
fn violates(v: &Value, bound: Option<&Value>, bad: &[Ordering], incomparable: bool) -> bool {
    match bound {
        None => false,
        Some(b) => v.compare(b).map_or(incomparable, |o| bad.contains(&o)),
    }
}

impl Facets {
    /// The effective facets of a type derived by restriction from a type with these
    /// effective facets, given the facet elements of its `<xs:restriction>`.
    ///
    /// Refuses (with [`ErrorKind::Schema`]) what Part 2 makes an error: a facet that does not
    /// apply to the variety or primitive type; a facet other than pattern and enumeration
    /// given twice; a value outside the facet's own type or (enumeration, bounds) outside the
    /// base type's value space; a change to a fixed facet; length with minLength or maxLength
    /// in one step; minLength above maxLength, or a length outside them; a minLength below
    /// or a maxLength above the base's, a length different from the base's; a range wider
    /// than the base's; minInclusive with minExclusive (or the max pair) in one step; a lower
    /// bound above the upper; totalDigits or fractionDigits above the base's, fractionDigits
    /// above totalDigits; a whiteSpace looser than the base's.
    pub fn restrict(&self, specs: &[FacetSpec<'_>]) -> Result<Facets, DatatypeError> {
        self.restrict_with(specs, None)
    }

    /// [`Facets::restrict`] for a union type (whose facets came from [`Facets::union`]):
    /// only pattern and enumeration apply, and an enumeration value must be a value of the
    /// union, which only its member types can decide: `member_value` validates a lexical form
    /// against the members in order and returns the value of the first that accepts it (and
    /// the union's own earlier facets are then checked here).
    pub fn restrict_union(
        &self,
        specs: &[FacetSpec<'_>],
        member_value: MemberValue<'_>,
    ) -> Result<Facets, DatatypeError> {
        self.restrict_with(specs, Some(member_value))
    }

    fn restrict_with(
        &self,
        specs: &[FacetSpec<'_>],
        member_value: Option<MemberValue<'_>>,
    ) -> Result<Facets, DatatypeError> {
        let type_name = match self.variety {
            Variety::Atomic(b) => format!("xs:{}", b.name()),
            Variety::List(item) => format!("a list of xs:{}", item.name()),
            Variety::Union => "a union".to_string(),
        };
        let mut new = self.clone();
        let mut seen: Vec<FacetKind> = Vec::new();
        let mut patterns = Vec::new();
        let mut enumeration = Vec::new();
        let mut bounds: [Option<Value>; 4] = Default::default();
        for spec in specs {
            let (k, raw) = (spec.kind, spec.value);
            if !applicable(self.variety, k) {
                return Err(schema(k, raw, format!("does not apply to {type_name}")));
            }
            if !matches!(k, FacetKind::Pattern | FacetKind::Enumeration) && seen.contains(&k) {
                return Err(schema(k, raw, "given twice in one restriction"));
            }
            seen.push(k);
            // Facet values other than pattern and enumeration are of collapsed types.
            let collapsed = WhiteSpace::Collapse.apply(raw);
            match k {
                FacetKind::Length
                | FacetKind::MinLength
                | FacetKind::MaxLength
                | FacetKind::TotalDigits
                | FacetKind::FractionDigits => {
                    let t = if k == FacetKind::TotalDigits {
                        Builtin::PositiveInteger
                    } else {
                        Builtin::NonNegativeInteger
                    };
                    let n = match parse(t, &collapsed, spec.ns) {
                        // A count beyond u64 constrains nothing more than u64::MAX does.
                        Ok(Value::Decimal(d)) => d
                            .to_i128()
                            .map_or(u64::MAX, |n| u64::try_from(n).unwrap_or(u64::MAX)),
                        _ => return Err(schema(k, raw, format!("not an xs:{}", t.name()))),
                    };
                    let (slot, old) = match k {
                        FacetKind::Length => (&mut new.length, self.length),
                        FacetKind::MinLength => (&mut new.min_length, self.min_length),
                        FacetKind::MaxLength => (&mut new.max_length, self.max_length),
                        FacetKind::TotalDigits => (&mut new.total_digits, self.total_digits),
                        _ => (&mut new.fraction_digits, self.fraction_digits),
                    };
                    if self.is_fixed(k) && old != Some(n) {
                        return Err(schema(k, raw, "the base type fixes this facet"));
                    }
                    *slot = Some(n);
                }
                FacetKind::WhiteSpace => {
                    let ws = WhiteSpace::from_name(&collapsed)
                        .ok_or_else(|| schema(k, raw, "not preserve, replace or collapse"))?;
                    if ws < self.white_space {
                        return Err(schema(
                            k,
                            raw,
                            format!("looser than the base's {}", self.white_space.name()),
                        ));
                    }
                    if self.is_fixed(k) && ws != self.white_space {
                        return Err(schema(k, raw, "the base type fixes this facet"));
                    }
                    new.white_space = ws;
                }
                FacetKind::Pattern => patterns.push(Pattern::new(raw)?),
                FacetKind::Enumeration => {
                    let s = self.white_space.apply(raw);
                    let parsed = match (self.variety, member_value) {
                        (Variety::Union, Some(f)) => f(&s, spec.ns),
                        _ => self.parse_value(&s, spec.ns),
                    };
                    let v = parsed
                        .and_then(|v| self.check(&v, &s).map(|()| v))
                        .map_err(|e| {
                            schema(
                                k,
                                raw,
                                format!("not in the base type's value space: {}", e.message()),
                            )
                        })?;
                    enumeration.push((v, raw.to_string()));
                }
                FacetKind::MaxInclusive
                | FacetKind::MaxExclusive
                | FacetKind::MinInclusive
                | FacetKind::MinExclusive => {
                    let Variety::Atomic(b) = self.variety else {
                        return Err(schema(k, raw, format!("does not apply to {type_name}")));
                    };
                    let v = parse_normalized(b, &collapsed, spec.ns).map_err(|e| {
                        schema(
                            k,
                            raw,
                            format!("not in the base type's value space: {}", e.message()),
                        )
                    })?;
                    let i = bound_index(k);
                    if self.is_fixed(k) && !bound_of(self, k).is_some_and(|old| old.same_value(&v))
                    {
                        return Err(schema(k, raw, "the base type fixes this facet"));
                    }
                    bounds[i] = Some(v);
                }
            }
            if spec.fixed && !new.fixed.contains(&k) {
                new.fixed.push(k);
            }
        }
        let raw_of = |k: FacetKind| specs.iter().find(|s| s.kind == k).map_or("", |s| s.value);
        let has = |k: FacetKind| seen.contains(&k);

        // Lengths (4.3.1-4.3.3).
        if has(FacetKind::Length) && (has(FacetKind::MinLength) || has(FacetKind::MaxLength)) {
            return Err(schema(
                FacetKind::Length,
                raw_of(FacetKind::Length),
                "length cannot be given with minLength or maxLength in one restriction",
            ));
        }
        if let (Some(old), Some(l)) = (self.length, new.length)
            && old != l
        {
            return Err(schema(
                FacetKind::Length,
                raw_of(FacetKind::Length),
                format!("the base's length is {old}"),
            ));
        }
        if let (Some(old), Some(l)) = (self.min_length, new.min_length)
            && l < old
        {
            return Err(schema(
                FacetKind::MinLength,
                raw_of(FacetKind::MinLength),
                format!("below the base's minLength {old}"),
            ));
        }
        if let (Some(old), Some(l)) = (self.max_length, new.max_length)
            && l > old
        {
            return Err(schema(
                FacetKind::MaxLength,
                raw_of(FacetKind::MaxLength),
                format!("above the base's maxLength {old}"),
            ));
        }
        if let (Some(min), Some(max)) = (new.min_length, new.max_length)
            && min > max
        {
            return Err(schema(
                FacetKind::MinLength,
                raw_of(FacetKind::MinLength),
                format!("minLength {min} is above maxLength {max}"),
            ));
        }
        if let Some(l) = new.length
            && (new.min_length.is_some_and(|m| m > l) || new.max_length.is_some_and(|m| m < l))
        {
            return Err(schema(
                FacetKind::Length,
                raw_of(FacetKind::Length),
                "length is outside minLength..maxLength",
            ));
        }

        // Digits (4.3.11, 4.3.12).
        if let (Some(old), Some(t)) = (self.total_digits, new.total_digits)
            && t > old
        {
            return Err(schema(
                FacetKind::TotalDigits,
                raw_of(FacetKind::TotalDigits),
                format!("above the base's totalDigits {old}"),
            ));
        }
        if let (Some(old), Some(f)) = (self.fraction_digits, new.fraction_digits)
            && f > old
        {
            return Err(schema(
                FacetKind::FractionDigits,
                raw_of(FacetKind::FractionDigits),
                format!("above the base's fractionDigits {old}"),
            ));
        }
        if let (Some(t), Some(f)) = (new.total_digits, new.fraction_digits)
            && f > t
        {
            return Err(schema(
                FacetKind::FractionDigits,
                raw_of(FacetKind::FractionDigits),
                format!("fractionDigits {f} is above totalDigits {t}"),
            ));
        }

        // Bounds (4.3.7-4.3.10): each new bound against the base's, then the pairs.
        let [max_i, max_e, min_i, min_e] = &bounds;
        if max_i.is_some() && max_e.is_some() {
            return Err(schema(
                FacetKind::MaxInclusive,
                raw_of(FacetKind::MaxInclusive),
                "maxInclusive and maxExclusive in one restriction",
            ));
        }
        if min_i.is_some() && min_e.is_some() {
            return Err(schema(
                FacetKind::MinInclusive,
                raw_of(FacetKind::MinInclusive),
                "minInclusive and minExclusive in one restriction",
            ));
        }
        let base = [
            self.max_inclusive.as_ref(),
            self.max_exclusive.as_ref(),
            self.min_inclusive.as_ref(),
            self.min_exclusive.as_ref(),
        ];
        // For each new bound, what it may not be relative to each base bound, in the order
        // maxInclusive, maxExclusive, minInclusive, minExclusive.
        let rules: [[&[Ordering]; 4]; 4] = [
            [&[Greater], &[Greater, Equal], &[Less], &[Less, Equal]],
            [&[Greater], &[Greater], &[Less, Equal], &[Less, Equal]],
            [&[Greater], &[Greater, Equal], &[Less], &[Less, Equal]],
            [&[Greater], &[Greater, Equal], &[Less], &[Less]],
        ];
        for (i, v) in bounds.iter().enumerate() {
            let Some(v) = v else { continue };
            for (j, b) in base.iter().enumerate() {
                if violates(v, *b, rules[i][j], true) {
                    let k = BOUND_KINDS[i];
                    return Err(schema(
                        k,
                        raw_of(k),
                        format!("outside the base type's {}", BOUND_KINDS[j].name()),
                    ));
                }
            }
        }
        if let Some(v) = bounds[0].take() {
            (new.max_inclusive, new.max_exclusive) = (Some(v), None);
        }
        if let Some(v) = bounds[1].take() {
            (new.max_inclusive, new.max_exclusive) = (None, Some(v));
        }
        if let Some(v) = bounds[2].take() {
            (new.min_inclusive, new.min_exclusive) = (Some(v), None);
        }
        if let Some(v) = bounds[3].take() {
            (new.min_inclusive, new.min_exclusive) = (None, Some(v));
        }
        let lower = new.min_inclusive.as_ref().or(new.min_exclusive.as_ref());
        let upper = new.max_inclusive.as_ref().or(new.max_exclusive.as_ref());
        if let (Some(lo), Some(hi)) = (lower, upper) {
            let both_inclusive = new.min_inclusive.is_some() && new.max_inclusive.is_some();
            let both_exclusive = new.min_exclusive.is_some() && new.max_exclusive.is_some();
            let bad: &[Ordering] = if both_inclusive || both_exclusive {
                &[Greater]
            } else {
                &[Greater, Equal]
            };
            if violates(lo, Some(hi), bad, false) {
                let k = if new.min_inclusive.is_some() {
                    FacetKind::MinInclusive
                } else {
                    FacetKind::MinExclusive
                };
                return Err(schema(
                    k,
                    raw_of(k),
                    "the lower bound is above the upper bound",
                ));
            }
        }

        if !enumeration.is_empty() {
            new.enumeration = Some(enumeration);
        }
        if !patterns.is_empty() {
            new.patterns.push(patterns);
        }
        Ok(new)
    }
}

/// The bound facets in the order `restrict` keeps them.
const BOUND_KINDS: [FacetKind; 4] = [
    FacetKind::MaxInclusive,
    FacetKind::MaxExclusive,
    FacetKind::MinInclusive,
    FacetKind::MinExclusive,
];

fn bound_index(k: FacetKind) -> usize {
    BOUND_KINDS.iter().position(|&b| b == k).unwrap_or(0)
}

fn bound_of(f: &Facets, k: FacetKind) -> Option<&Value> {
    match k {
        FacetKind::MaxInclusive => f.max_inclusive.as_ref(),
        FacetKind::MaxExclusive => f.max_exclusive.as_ref(),
        FacetKind::MinInclusive => f.min_inclusive.as_ref(),
        _ => f.min_exclusive.as_ref(),
    }
}
