//! The EXI datatype representation of each simple type (EXI 1.0 section 7, Table 7-1, 7.1.5's
//! integer choices, 7.1.10.1's restricted character sets and 7.2's enumerations).

use binxml_schema::Schema;
use binxml_schema::datatypes::{Builtin, Value};
use binxml_schema::model::{TypeDef, TypeId, Variety};

/// Which date-time type a Date-Time value is (7.1.8 encodes different fields for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateTimeKind {
    /// xs:dateTime.
    DateTime,
    /// xs:time.
    Time,
    /// xs:date.
    Date,
    /// xs:gYearMonth.
    GYearMonth,
    /// xs:gYear.
    GYear,
    /// xs:gMonthDay.
    GMonthDay,
    /// xs:gDay.
    GDay,
    /// xs:gMonth.
    GMonth,
}

/// A built-in EXI datatype representation, with what the schema adds to it.
#[derive(Clone, Debug, PartialEq)]
pub enum ExiType {
    /// Binary, base64 lexical form.
    Base64,
    /// Binary, hex lexical form.
    Hex,
    /// Boolean: one bit.
    Boolean,
    /// Boolean of a type with a pattern facet: two bits that keep the lexical form (7.1.2).
    BooleanPattern,
    /// Decimal.
    Decimal,
    /// Float (xs:float and xs:double).
    Float,
    /// Integer: sign and magnitude.
    Integer,
    /// Integer whose lower bound is 0 or more: Unsigned Integer.
    Unsigned,
    /// Integer with a bounded range of at most 4096 values: an n-bit offset from `min`.
    NBit {
        /// The lowest value.
        min: i128,
        /// The highest value.
        max: i128,
    },
    /// Date-Time.
    DateTime(DateTimeKind),
    /// String.
    String,
    /// String with a restricted character set (sorted code points).
    Restricted(Vec<char>),
    /// List of values of the item's representation.
    List(Box<ExiType>),
    /// Enumeration: the index of the value among the enumerated ones (schema order), whose
    /// values are those of `base`.
    Enumeration {
        /// The enumerated values with their lexical forms.
        values: Vec<(Value, String)>,
        /// The representation of the enumeration's base type.
        base: Box<ExiType>,
    },
}

/// The representation of a value of representation `t` when lexical values are preserved
/// (EXI 1.0, 7.1.10.1 and Table 7-2): its characters, as a String of the built-in restricted
/// character set of `t`'s datatype (a String for strings; a pattern's set stays; a list and
/// an enumeration take their item's or base's set).
pub fn lexical_type(t: &ExiType) -> ExiType {
    const WS: &str = "\t\n\r ";
    let set = |chars: &str| {
        let mut v: Vec<char> = WS.chars().chain(chars.chars()).collect();
        v.sort_unstable();
        v.dedup();
        ExiType::Restricted(v)
    };
    const DIGITS: &str = "0123456789";
    match t {
        ExiType::Base64 => set(&format!(
            "+/={DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        )),
        ExiType::Hex => set(&format!("{DIGITS}ABCDEFabcdef")),
        ExiType::Boolean | ExiType::BooleanPattern => set("01aeflrstu"),
        ExiType::Decimal => set(&format!("+-.{DIGITS}")),
        ExiType::Float => set(&format!("+-.{DIGITS}EFINae")),
        ExiType::Integer | ExiType::Unsigned | ExiType::NBit { .. } => set(&format!("+-{DIGITS}")),
        ExiType::DateTime(_) => set(&format!("+-.{DIGITS}:TZ")),
        ExiType::String => ExiType::String,
        ExiType::Restricted(chars) => ExiType::Restricted(chars.clone()),
        ExiType::List(item) => lexical_type(item),
        ExiType::Enumeration { base, .. } => lexical_type(base),
    }
}

/// Bounded integer ranges of at most this many values are n-bit integers (7.1.5).
const MAX_NBIT_RANGE: i128 = 4096;

/// The representation of simple type `t` (a complex type has none: `String`).
pub fn exi_type(schema: &Schema, t: TypeId) -> ExiType {
    let mut steps = 0;
    exi_type_at(schema, t, &[], &mut steps)
}

/// The representation of simple type `t` under a datatype representation map (EXI 1.0 7.4):
/// the map's representation of the closest of `t` and its ancestors that the map names, else
/// [`exi_type`]'s (a list's items follow the map too).
pub fn exi_type_mapped(schema: &Schema, t: TypeId, map: &[(TypeId, ExiType)]) -> ExiType {
    let mut steps = 0;
    exi_type_at(schema, t, map, &mut steps)
}

/// Whether `t` is one of the schema types of the built-in datatype representation map (EXI 1.0
/// Table 7-1), whose entries a closer user entry overrides and which stop the search for one.
fn has_builtin_entry(schema: &Schema, t: TypeId) -> bool {
    const ENTRIES: &[&str] = &[
        "base64Binary",
        "hexBinary",
        "boolean",
        "dateTime",
        "time",
        "date",
        "gYearMonth",
        "gYear",
        "gMonthDay",
        "gDay",
        "gMonth",
        "decimal",
        "double",
        "float",
        "integer",
        "string",
        "anySimpleType",
    ];
    schema
        .type_def(t)
        .name()
        .is_some_and(|n| n.ns == binxml_schema::XS && ENTRIES.contains(&n.local.as_str()))
}

/// The built-in representation an `exi:` local name names (EXI 1.0 7.4).
pub fn builtin_representation(local: &str) -> Option<ExiType> {
    Some(match local {
        "base64Binary" => ExiType::Base64,
        "hexBinary" => ExiType::Hex,
        "boolean" => ExiType::Boolean,
        "decimal" => ExiType::Decimal,
        "double" => ExiType::Float,
        "integer" => ExiType::Integer,
        "string" => ExiType::String,
        "dateTime" => ExiType::DateTime(DateTimeKind::DateTime),
        "time" => ExiType::DateTime(DateTimeKind::Time),
        "date" => ExiType::DateTime(DateTimeKind::Date),
        "gYearMonth" => ExiType::DateTime(DateTimeKind::GYearMonth),
        "gYear" => ExiType::DateTime(DateTimeKind::GYear),
        "gMonthDay" => ExiType::DateTime(DateTimeKind::GMonthDay),
        "gDay" => ExiType::DateTime(DateTimeKind::GDay),
        "gMonth" => ExiType::DateTime(DateTimeKind::GMonth),
        _ => return None,
    })
}

fn exi_type_at(
    schema: &Schema,
    t: TypeId,
    map: &[(TypeId, ExiType)],
    steps: &mut usize,
) -> ExiType {
    // Lists of lists and unions are refused by the loader; this only bounds the recursion.
    *steps += 1;
    if *steps > 64 {
        return ExiType::String;
    }
    let TypeDef::Simple(s) = schema.type_def(t) else {
        return ExiType::String;
    };
    if !map.is_empty() && !matches!(s.variety, Variety::List(_)) {
        // The closest of `t` and its ancestors with an entry, in the user's map or in the
        // built-in one (Table 7-1's schema types; the reading of EXI WG ISSUE-62 that
        // EXIficient follows): a built-in entry keeps the usual representation, a user's entry
        // gives its own (exi:integer with 7.1.5's choice of n-bit, unsigned or signed by the
        // type's range, EXI WG ISSUE-46).
        let mut cur = t;
        for _ in 0..256 {
            if let Some((_, r)) = map.iter().find(|(m, _)| *m == cur) {
                // Enumerated values keep their representation unless the entry is the type's
                // own (as EXIficient does).
                if cur != t && s.facets.enumeration().is_some() {
                    break;
                }
                return match r {
                    ExiType::Integer => integer(s),
                    r => r.clone(),
                };
            }
            if has_builtin_entry(schema, cur) {
                break;
            }
            match schema.type_def(cur).base() {
                Some(b) if b != cur => cur = b,
                _ => break,
            }
        }
    }
    match &s.variety {
        Variety::Union(_) => ExiType::String,
        Variety::List(item) => ExiType::List(Box::new(exi_type_at(schema, *item, map, steps))),
        Variety::Atomic(b) => {
            if let Some(values) = s.facets.enumeration() {
                let primitive = b.primitive();
                if primitive == Builtin::QName || primitive == Builtin::Notation {
                    return ExiType::String;
                }
                let base = atomic(schema, t, *b, false);
                return ExiType::Enumeration {
                    values: values.to_vec(),
                    base: Box::new(base),
                };
            }
            atomic(schema, t, *b, true)
        }
    }
}

fn atomic(schema: &Schema, t: TypeId, b: Builtin, own_facets: bool) -> ExiType {
    let TypeDef::Simple(s) = schema.type_def(t) else {
        return ExiType::String;
    };
    let _ = own_facets;
    match b.primitive() {
        Builtin::Base64Binary => ExiType::Base64,
        Builtin::HexBinary => ExiType::Hex,
        Builtin::Boolean if s.facets.patterns().is_empty() => ExiType::Boolean,
        Builtin::Boolean => ExiType::BooleanPattern,
        Builtin::Decimal if b.is_integer() => integer(s),
        Builtin::Decimal => ExiType::Decimal,
        Builtin::Float | Builtin::Double => ExiType::Float,
        Builtin::DateTime => ExiType::DateTime(DateTimeKind::DateTime),
        Builtin::Time => ExiType::DateTime(DateTimeKind::Time),
        Builtin::Date => ExiType::DateTime(DateTimeKind::Date),
        Builtin::GYearMonth => ExiType::DateTime(DateTimeKind::GYearMonth),
        Builtin::GYear => ExiType::DateTime(DateTimeKind::GYear),
        Builtin::GMonthDay => ExiType::DateTime(DateTimeKind::GMonthDay),
        Builtin::GDay => ExiType::DateTime(DateTimeKind::GDay),
        Builtin::GMonth => ExiType::DateTime(DateTimeKind::GMonth),
        Builtin::String => match s.facets.exi_char_set() {
            Some(ranges) => ExiType::Restricted(ranges.iter().flat_map(|&(a, z)| a..=z).collect()),
            None => ExiType::String,
        },
        // Duration, anyURI, QName, NOTATION and anySimpleType have no representation of their
        // own: String.
        _ => ExiType::String,
    }
}

/// 7.1.5: n-bit for a bounded range of at most 4096 values, Unsigned for a lower bound of 0 or
/// more, else Integer. Bounds beyond 128 bits count as unbounded.
fn integer(s: &binxml_schema::model::SimpleType) -> ExiType {
    let (lo, hi) = s.facets.integer_range();
    let lo = lo.and_then(|d| d.to_i128());
    let hi = hi.and_then(|d| d.to_i128());
    if let (Some(min), Some(max)) = (lo, hi)
        && max >= min
        && max.checked_sub(min).is_some_and(|r| r < MAX_NBIT_RANGE)
    {
        return ExiType::NBit { min, max };
    }
    match lo {
        Some(min) if min >= 0 => ExiType::Unsigned,
        _ => ExiType::Integer,
    }
}

impl ExiType {
    /// The datatype as the grammar oracle names it (EXIficient's built-in type names, with
    /// their parameters).
    pub fn label(&self) -> String {
        match self {
            ExiType::Base64 => "BINARY_BASE64".into(),
            ExiType::Hex => "BINARY_HEX".into(),
            ExiType::Boolean => "BOOLEAN".into(),
            ExiType::BooleanPattern => "BOOLEAN_FACET".into(),
            ExiType::Decimal => "DECIMAL".into(),
            ExiType::Float => "FLOAT".into(),
            ExiType::Integer => "INTEGER".into(),
            ExiType::Unsigned => "UNSIGNED_INTEGER".into(),
            ExiType::NBit { min, max } => format!("NBIT_UNSIGNED_INTEGER({min},{max})"),
            ExiType::DateTime(k) => format!(
                "DATETIME({})",
                match k {
                    DateTimeKind::DateTime => "dateTime",
                    DateTimeKind::Time => "time",
                    DateTimeKind::Date => "date",
                    DateTimeKind::GYearMonth => "gYearMonth",
                    DateTimeKind::GYear => "gYear",
                    DateTimeKind::GMonthDay => "gMonthDay",
                    DateTimeKind::GDay => "gDay",
                    DateTimeKind::GMonth => "gMonth",
                }
            ),
            ExiType::String => "STRING".into(),
            ExiType::Restricted(chars) => format!(
                "RCS_STRING({})",
                chars
                    .iter()
                    .map(|c| (*c as u32).to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            ExiType::List(item) => format!("LIST({})", item.label()),
            ExiType::Enumeration { values, .. } => format!(
                "ENUMERATION({})",
                values
                    .iter()
                    .map(|(_, l)| l.as_str())
                    .collect::<Vec<_>>()
                    .join("|")
            ),
        }
    }
}
