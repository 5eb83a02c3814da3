//! The simple types of XML Schema 1.0 Part 2: the built-in types, facets, values and patterns.
//! (Temporary stand-in while the module is written on its own branch.)

/// A built-in simple type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    AnySimpleType,
    String,
    NormalizedString,
    Token,
    Language,
    Name,
    NCName,
    Id,
    IdRef,
    IdRefs,
    Entity,
    Entities,
    NmToken,
    NmTokens,
    QName,
    Notation,
    AnyUri,
    Boolean,
    Decimal,
    Integer,
    NonPositiveInteger,
    NegativeInteger,
    Long,
    Int,
    Short,
    Byte,
    NonNegativeInteger,
    PositiveInteger,
    UnsignedLong,
    UnsignedInt,
    UnsignedShort,
    UnsignedByte,
    Float,
    Double,
    Duration,
    DateTime,
    Time,
    Date,
    GYearMonth,
    GYear,
    GMonthDay,
    GDay,
    GMonth,
    HexBinary,
    Base64Binary,
}

const NAMES: &[(&str, Builtin, Option<Builtin>)] = {
    use Builtin::*;
    &[
        ("anySimpleType", AnySimpleType, None),
        ("string", String, Some(AnySimpleType)),
        ("normalizedString", NormalizedString, Some(String)),
        ("token", Token, Some(NormalizedString)),
        ("language", Language, Some(Token)),
        ("Name", Name, Some(Token)),
        ("NCName", NCName, Some(Name)),
        ("ID", Id, Some(NCName)),
        ("IDREF", IdRef, Some(NCName)),
        ("IDREFS", IdRefs, Some(AnySimpleType)),
        ("ENTITY", Entity, Some(NCName)),
        ("ENTITIES", Entities, Some(AnySimpleType)),
        ("NMTOKEN", NmToken, Some(Token)),
        ("NMTOKENS", NmTokens, Some(AnySimpleType)),
        ("QName", QName, Some(AnySimpleType)),
        ("NOTATION", Notation, Some(AnySimpleType)),
        ("anyURI", AnyUri, Some(AnySimpleType)),
        ("boolean", Boolean, Some(AnySimpleType)),
        ("decimal", Decimal, Some(AnySimpleType)),
        ("integer", Integer, Some(Decimal)),
        ("nonPositiveInteger", NonPositiveInteger, Some(Integer)),
        ("negativeInteger", NegativeInteger, Some(NonPositiveInteger)),
        ("long", Long, Some(Integer)),
        ("int", Int, Some(Long)),
        ("short", Short, Some(Int)),
        ("byte", Byte, Some(Short)),
        ("nonNegativeInteger", NonNegativeInteger, Some(Integer)),
        ("positiveInteger", PositiveInteger, Some(NonNegativeInteger)),
        ("unsignedLong", UnsignedLong, Some(NonNegativeInteger)),
        ("unsignedInt", UnsignedInt, Some(UnsignedLong)),
        ("unsignedShort", UnsignedShort, Some(UnsignedInt)),
        ("unsignedByte", UnsignedByte, Some(UnsignedShort)),
        ("float", Float, Some(AnySimpleType)),
        ("double", Double, Some(AnySimpleType)),
        ("duration", Duration, Some(AnySimpleType)),
        ("dateTime", DateTime, Some(AnySimpleType)),
        ("time", Time, Some(AnySimpleType)),
        ("date", Date, Some(AnySimpleType)),
        ("gYearMonth", GYearMonth, Some(AnySimpleType)),
        ("gYear", GYear, Some(AnySimpleType)),
        ("gMonthDay", GMonthDay, Some(AnySimpleType)),
        ("gDay", GDay, Some(AnySimpleType)),
        ("gMonth", GMonth, Some(AnySimpleType)),
        ("hexBinary", HexBinary, Some(AnySimpleType)),
        ("base64Binary", Base64Binary, Some(AnySimpleType)),
    ]
};

impl Builtin {
    /// Every built-in.
    pub fn all() -> impl Iterator<Item = Builtin> {
        NAMES.iter().map(|n| n.1)
    }
    /// By local name.
    pub fn from_local_name(s: &str) -> Option<Builtin> {
        NAMES.iter().find(|n| n.0 == s).map(|n| n.1)
    }
    /// Local name.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|n| n.1 == self)
            .map(|n| n.0)
            .unwrap_or("")
    }
    /// Base.
    pub fn base(self) -> Option<Builtin> {
        NAMES.iter().find(|n| n.1 == self).and_then(|n| n.2)
    }
    /// Item type of the list built-ins.
    pub fn list_item(self) -> Option<Builtin> {
        match self {
            Builtin::IdRefs => Some(Builtin::IdRef),
            Builtin::Entities => Some(Builtin::Entity),
            Builtin::NmTokens => Some(Builtin::NmToken),
            _ => None,
        }
    }
}

/// Effective facets (stand-in).
#[derive(Clone, Debug, Default)]
pub struct Facets {
    /// Raw.
    pub raw: Vec<(String, String)>,
}
