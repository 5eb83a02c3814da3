//! `Facets`: the effective constraining facets of a simple type (Part 2, 4.3), how a
//! restriction derives them from its base's (with the schema component constraints that make
//! a restriction wrong), and how a value is checked against them.

use std::cmp::Ordering;

use super::builtin::Builtin;
use super::error::{DatatypeError, ErrorKind};
use super::number::Decimal;
use super::parse::{parse_list, parse_normalized};
use super::pattern::{Pattern, restricted_char_set};
use super::resolver::NamespaceResolver;
use super::value::Value;
use super::whitespace::WhiteSpace;

/// The facets of anySimpleType: none (its values are strings as written).
impl Default for Facets {
    fn default() -> Facets {
        Facets::builtin(Builtin::AnySimpleType)
    }
}

/// The variety of a simple type, with the built-in type that parses its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variety {
    /// An atomic type; the built-in is the nearest built-in ancestor (`byte` for a
    /// restriction of `byte`).
    Atomic(Builtin),
    /// A list type; the built-in is the nearest built-in ancestor of its item type. The item
    /// type's own facets are the caller's to check, item by item.
    List(Builtin),
    /// A union type: only pattern and enumeration apply (Part 2, 4.1.5). Its values come from
    /// its member types, which the caller tries in order; see [`Facets::restrict_union`].
    Union,
}

/// The kinds of constraining facet of XSD 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each is the facet of the same name
pub enum FacetKind {
    Length,
    MinLength,
    MaxLength,
    Pattern,
    Enumeration,
    WhiteSpace,
    MaxInclusive,
    MaxExclusive,
    MinInclusive,
    MinExclusive,
    TotalDigits,
    FractionDigits,
}

impl FacetKind {
    /// Every facet kind.
    pub const ALL: &'static [FacetKind] = &[
        FacetKind::Length,
        FacetKind::MinLength,
        FacetKind::MaxLength,
        FacetKind::Pattern,
        FacetKind::Enumeration,
        FacetKind::WhiteSpace,
        FacetKind::MaxInclusive,
        FacetKind::MaxExclusive,
        FacetKind::MinInclusive,
        FacetKind::MinExclusive,
        FacetKind::TotalDigits,
        FacetKind::FractionDigits,
    ];

    /// The facet's element name in the XSD namespace (`maxLength`).
    pub fn name(self) -> &'static str {
        match self {
            FacetKind::Length => "length",
            FacetKind::MinLength => "minLength",
            FacetKind::MaxLength => "maxLength",
            FacetKind::Pattern => "pattern",
            FacetKind::Enumeration => "enumeration",
            FacetKind::WhiteSpace => "whiteSpace",
            FacetKind::MaxInclusive => "maxInclusive",
            FacetKind::MaxExclusive => "maxExclusive",
            FacetKind::MinInclusive => "minInclusive",
            FacetKind::MinExclusive => "minExclusive",
            FacetKind::TotalDigits => "totalDigits",
            FacetKind::FractionDigits => "fractionDigits",
        }
    }

    /// The facet kind whose element name is `name`.
    pub fn from_local_name(name: &str) -> Option<FacetKind> {
        FacetKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// One facet element of an `<xs:restriction>`: its kind, its `value` attribute as written,
/// its `fixed` attribute, and the namespaces in scope at it (for QName and NOTATION values).
#[derive(Clone, Copy)]
pub struct FacetSpec<'a> {
    /// Which facet.
    pub kind: FacetKind,
    /// The `value` attribute.
    pub value: &'a str,
    /// The `fixed` attribute (false when absent).
    pub fixed: bool,
    /// The namespaces in scope at the facet element.
    pub ns: &'a dyn NamespaceResolver,
}

/// The effective facets of a simple type: those of its built-in ancestor, narrowed by each
/// restriction step. Built with [`Facets::builtin`] and [`Facets::restrict`].
#[derive(Debug, Clone)]
pub struct Facets {
    pub(super) variety: Variety,
    pub(super) length: Option<u64>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    pub(super) patterns: Vec<Vec<Pattern>>,
    pub(super) enumeration: Option<Vec<(Value, String)>>,
    pub(super) white_space: WhiteSpace,
    pub(super) max_inclusive: Option<Value>,
    pub(super) max_exclusive: Option<Value>,
    pub(super) min_inclusive: Option<Value>,
    pub(super) min_exclusive: Option<Value>,
    pub(super) total_digits: Option<u64>,
    pub(super) fraction_digits: Option<u64>,
    pub(super) fixed: Vec<FacetKind>,
}

/// The facets that apply to a variety (Part 2, 4.1.5 and the per-type "applicable facets").
pub(super) fn applicable(variety: Variety, kind: FacetKind) -> bool {
    use FacetKind::*;
    let lengths = matches!(kind, Length | MinLength | MaxLength);
    let common = matches!(kind, Pattern | Enumeration | WhiteSpace);
    let ranges = matches!(
        kind,
        MaxInclusive | MaxExclusive | MinInclusive | MinExclusive
    );
    let digits = matches!(kind, TotalDigits | FractionDigits);
    match variety {
        Variety::Union => matches!(kind, Pattern | Enumeration),
        Variety::List(_) => lengths || common,
        Variety::Atomic(b) => match b.primitive() {
            Builtin::String
            | Builtin::AnyUri
            | Builtin::HexBinary
            | Builtin::Base64Binary
            | Builtin::QName
            | Builtin::Notation => lengths || common,
            Builtin::Boolean => matches!(kind, Pattern | WhiteSpace),
            Builtin::Decimal => common || ranges || digits,
            Builtin::AnySimpleType => false,
            _ => common || ranges,
        },
    }
}

impl Facets {
    /// The facets a built-in type has of itself: its whiteSpace, the bounds of the integer
    /// types (with fractionDigits 0, fixed, from xs:integer), minLength 1 for the list types.
    /// Patterns that define built-in lexical spaces (language, Name, ...) are checked by
    /// [`parse`](super::parse()) and are not listed here, so [`Facets::patterns`] holds only a schema's own.
    pub fn builtin(b: Builtin) -> Facets {
        let mut f = Facets {
            variety: match b.list_item() {
                Some(item) => Variety::List(item),
                None => Variety::Atomic(b),
            },
            length: None,
            min_length: None,
            max_length: None,
            patterns: Vec::new(),
            enumeration: None,
            white_space: b.whitespace(),
            max_inclusive: None,
            max_exclusive: None,
            min_inclusive: None,
            min_exclusive: None,
            total_digits: None,
            fraction_digits: None,
            fixed: Vec::new(),
        };
        if b.is_list() {
            f.min_length = Some(1);
        }
        if b.is_integer() {
            f.fraction_digits = Some(0);
            f.fixed.push(FacetKind::FractionDigits);
            let (min, max) = b.integer_bounds();
            let v = |s: &str| Decimal::parse(s, false).map(Value::Decimal);
            f.min_inclusive = min.and_then(v);
            f.max_inclusive = max.and_then(v);
        }
        f
    }

    /// The facets of a list type made by `<xs:list>` from an item type whose nearest built-in
    /// ancestor is `item`: no facets but whiteSpace collapse (fixed, Part 2 4.3.6).
    pub fn list(item: Builtin) -> Facets {
        let mut f = Facets::builtin(Builtin::NmTokens);
        f.variety = Variety::List(item);
        f.min_length = None;
        f.fixed.push(FacetKind::WhiteSpace);
        f
    }

    /// The facets of a union type made by `<xs:union>`: none. Its text is not normalized here
    /// (each member type applies its own whiteSpace), so patterns see it as the caller
    /// passes it.
    pub fn union() -> Facets {
        let mut f = Facets::builtin(Builtin::AnySimpleType);
        f.variety = Variety::Union;
        f
    }

    /// The variety and the built-in that parses values.
    pub fn variety(&self) -> Variety {
        self.variety
    }
    /// The length facet.
    pub fn length(&self) -> Option<u64> {
        self.length
    }
    /// The minLength facet.
    pub fn min_length(&self) -> Option<u64> {
        self.min_length
    }
    /// The maxLength facet.
    pub fn max_length(&self) -> Option<u64> {
        self.max_length
    }
    /// The pattern facets: one list per derivation step that had patterns, oldest first. A
    /// value must match some pattern of every step.
    pub fn patterns(&self) -> &[Vec<Pattern>] {
        &self.patterns
    }
    /// The enumeration facet of the most derived step that has one: values with their lexical
    /// forms, in schema order (EXI 7.2 encodes an enumerated value as its index here).
    pub fn enumeration(&self) -> Option<&[(Value, String)]> {
        self.enumeration.as_deref()
    }
    /// The index of `value` in the enumeration (the first of equal values), if it is there.
    pub fn enumeration_index(&self, value: &Value) -> Option<usize> {
        self.enumeration
            .as_ref()?
            .iter()
            .position(|(v, _)| v.same_value(value))
    }
    /// The whiteSpace facet.
    pub fn white_space(&self) -> WhiteSpace {
        self.white_space
    }
    /// The maxInclusive facet.
    pub fn max_inclusive(&self) -> Option<&Value> {
        self.max_inclusive.as_ref()
    }
    /// The maxExclusive facet.
    pub fn max_exclusive(&self) -> Option<&Value> {
        self.max_exclusive.as_ref()
    }
    /// The minInclusive facet.
    pub fn min_inclusive(&self) -> Option<&Value> {
        self.min_inclusive.as_ref()
    }
    /// The minExclusive facet.
    pub fn min_exclusive(&self) -> Option<&Value> {
        self.min_exclusive.as_ref()
    }
    /// The totalDigits facet.
    pub fn total_digits(&self) -> Option<u64> {
        self.total_digits
    }
    /// The fractionDigits facet.
    pub fn fraction_digits(&self) -> Option<u64> {
        self.fraction_digits
    }
    /// Whether a facet of this kind was declared `fixed` (a restriction may not change it).
    pub fn is_fixed(&self, kind: FacetKind) -> bool {
        self.fixed.contains(&kind)
    }

    /// The inclusive bounds of an integer type (`integer` or derived from it), exclusive
    /// bounds moved in by one: what EXI 7.1.5 needs to choose the n-bit, unsigned or signed
    /// representation. `(None, None)` for other types or unbounded ends.
    pub fn integer_range(&self) -> (Option<Decimal>, Option<Decimal>) {
        let Variety::Atomic(b) = self.variety else {
            return (None, None);
        };
        if !b.is_integer() {
            return (None, None);
        }
        let dec = |v: Option<&Value>| match v {
            Some(Value::Decimal(d)) => Some(d.clone()),
            _ => None,
        };
        let lower = dec(self.min_inclusive.as_ref())
            .or_else(|| dec(self.min_exclusive.as_ref()).map(|d| d.next_integer()));
        let upper = dec(self.max_inclusive.as_ref())
            .or_else(|| dec(self.max_exclusive.as_ref()).map(|d| d.previous_integer()));
        (lower, upper)
    }

    /// The EXI 1.0 7.1.10.1 restricted character set of a type with these facets: from the
    /// patterns of the most derived step that has any, when the type is atomic and derived
    /// from xs:string. `None` when there is none.
    pub fn exi_char_set(&self) -> Option<Vec<(char, char)>> {
        match self.variety {
            Variety::Atomic(b) if b.primitive() == Builtin::String => {
                restricted_char_set(self.patterns.last()?)
            }
            _ => None,
        }
    }

    /// Parses a string already normalized by this type's whiteSpace into a value of the
    /// variety's built-in type (items of the item type for a list), without checking facets.
    /// A union's values come from its members: the caller's.
    pub(super) fn parse_value(
        &self,
        s: &str,
        ns: &dyn NamespaceResolver,
    ) -> Result<Value, DatatypeError> {
        match self.variety {
            Variety::Atomic(b) => parse_normalized(b, s, ns),
            Variety::List(item) => parse_list(item, s, ns),
            Variety::Union => Err(DatatypeError::new(
                ErrorKind::Schema,
                "union",
                s,
                "a union's value is parsed by its member types (validate through them, then check; restrict with restrict_union)",
            )),
        }
    }

    /// Validates a string from a document: applies the whiteSpace facet, parses (a list item
    /// by item), and checks every facet. Returns the value. Not for unions, whose value comes
    /// from the first member type that accepts the text: validate against the members, then
    /// [`Facets::check`] the union's own facets.
    pub fn validate(&self, text: &str, ns: &dyn NamespaceResolver) -> Result<Value, DatatypeError> {
        let s = self.white_space.apply(text);
        let v = self.parse_value(&s, ns)?;
        self.check(&v, &s)?;
        Ok(v)
    }

    /// Whether `value`, whose whiteSpace-normalized lexical form is `lexical`, satisfies the
    /// facets. Lengths count characters, octets or list items ([`Value::length`]); patterns
    /// apply to `lexical` (the whole list for a list type); enumeration compares in the value
    /// space; a bound that `value` is incomparable with (NaN, a date without timezone within
    /// 14 hours of it) is not satisfied.
    pub fn check(&self, value: &Value, lexical: &str) -> Result<(), DatatypeError> {
        let fail = |kind: FacetKind, m: String| {
            Err(DatatypeError::new(
                ErrorKind::Facet,
                kind.name(),
                lexical,
                m,
            ))
        };
        if let Some(len) = value.length() {
            let len = len as u64;
            if let Some(l) = self.length
                && len != l
            {
                return fail(FacetKind::Length, format!("length {len} is not {l}"));
            }
            if let Some(l) = self.min_length
                && len < l
            {
                return fail(FacetKind::MinLength, format!("length {len} is below {l}"));
            }
            if let Some(l) = self.max_length
                && len > l
            {
                return fail(FacetKind::MaxLength, format!("length {len} is above {l}"));
            }
        }
        for step in &self.patterns {
            if !step.iter().any(|p| p.is_match(lexical)) {
                let list: Vec<&str> = step.iter().map(Pattern::source).collect();
                return fail(
                    FacetKind::Pattern,
                    format!("does not match {}", list.join(" | ")),
                );
            }
        }
        if let Some(e) = &self.enumeration
            && !e.iter().any(|(v, _)| v.same_value(value))
        {
            return fail(
                FacetKind::Enumeration,
                "not one of the enumerated values".into(),
            );
        }
        let bounds = [
            (
                FacetKind::MaxInclusive,
                &self.max_inclusive,
                [Ordering::Less, Ordering::Equal],
            ),
            (
                FacetKind::MaxExclusive,
                &self.max_exclusive,
                [Ordering::Less, Ordering::Less],
            ),
            (
                FacetKind::MinInclusive,
                &self.min_inclusive,
                [Ordering::Greater, Ordering::Equal],
            ),
            (
                FacetKind::MinExclusive,
                &self.min_exclusive,
                [Ordering::Greater, Ordering::Greater],
            ),
        ];
        for (kind, bound, allowed) in bounds {
            if let Some(b) = bound {
                match value.compare(b) {
                    Some(o) if allowed.contains(&o) => {}
                    Some(_) => return fail(kind, "out of range".into()),
                    None => return fail(kind, "not comparable with the bound".into()),
                }
            }
        }
        if let Value::Decimal(d) = value {
            if let Some(t) = self.total_digits
                && d.total_digits() as u64 > t
            {
                return fail(FacetKind::TotalDigits, format!("more than {t} digits"));
            }
            if let Some(t) = self.fraction_digits
                && d.fraction_digits().len() as u64 > t
            {
                return fail(
                    FacetKind::FractionDigits,
                    format!("more than {t} fraction digits"),
                );
            }
        }
        Ok(())
    }
}
