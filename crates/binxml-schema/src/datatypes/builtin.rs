//! `Builtin`: the built-in simple types of XML Schema 1.0 Part 2 and their derivation tree.

use super::whitespace::WhiteSpace;

/// Declares the enum, its XSD local names and its table of all variants in one place, so the
/// three cannot drift apart.
macro_rules! builtins {
    ($($variant:ident => $name:literal,)*) => {
        /// A built-in simple type of XML Schema 1.0 (Part 2, section 3), in the XSD namespace
        /// `http://www.w3.org/2001/XMLSchema`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)] // each variant is the XSD type of the same name
        pub enum Builtin {
            $($variant,)*
        }

        impl Builtin {
            /// Every built-in type: anySimpleType, the primitives in Part 2's order, then the
            /// derived ones, each after its base and each list after its item type (so a
            /// table built in this order can refer back to both).
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            /// Every built-in type, in the order of [`Builtin::ALL`].
            pub fn all() -> impl Iterator<Item = Builtin> {
                Builtin::ALL.iter().copied()
            }

            /// The type's local name in the XSD namespace (`int`, `gYearMonth`, `NCName`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }

            /// The built-in type whose local name in the XSD namespace is `name`.
            pub fn from_local_name(name: &str) -> Option<Builtin> {
                match name {
                    $($name => Some(Builtin::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

builtins! {
    AnySimpleType => "anySimpleType",
    String => "string",
    Boolean => "boolean",
    Decimal => "decimal",
    Float => "float",
    Double => "double",
    Duration => "duration",
    DateTime => "dateTime",
    Time => "time",
    Date => "date",
    GYearMonth => "gYearMonth",
    GYear => "gYear",
    GMonthDay => "gMonthDay",
    GDay => "gDay",
    GMonth => "gMonth",
    HexBinary => "hexBinary",
    Base64Binary => "base64Binary",
    AnyUri => "anyURI",
    QName => "QName",
    Notation => "NOTATION",
    NormalizedString => "normalizedString",
    Token => "token",
    Language => "language",
    NmToken => "NMTOKEN",
    NmTokens => "NMTOKENS",
    Name => "Name",
    NCName => "NCName",
    Id => "ID",
    IdRef => "IDREF",
    IdRefs => "IDREFS",
    Entity => "ENTITY",
    Entities => "ENTITIES",
    Integer => "integer",
    NonPositiveInteger => "nonPositiveInteger",
    NegativeInteger => "negativeInteger",
    Long => "long",
    Int => "int",
    Short => "short",
    Byte => "byte",
    NonNegativeInteger => "nonNegativeInteger",
    UnsignedLong => "unsignedLong",
    UnsignedInt => "unsignedInt",
    UnsignedShort => "unsignedShort",
    UnsignedByte => "unsignedByte",
    PositiveInteger => "positiveInteger",
}

impl Builtin {
    /// The type's {base type definition} (`int` -> `long` -> `integer` -> `decimal` ->
    /// `anySimpleType`). `None` for `anySimpleType`, whose base is `anyType` (a complex type,
    /// outside this module). The three list types are derived by list and their base is
    /// `anySimpleType`, as for every list type; their items are [`Builtin::list_item`].
    pub fn base(self) -> Option<Builtin> {
        use Builtin::*;
        Some(match self {
            AnySimpleType => return None,
            NmTokens | IdRefs | Entities => AnySimpleType,
            String | Boolean | Decimal | Float | Double | Duration | DateTime | Time | Date
            | GYearMonth | GYear | GMonthDay | GDay | GMonth | HexBinary | Base64Binary
            | AnyUri | QName | Notation => AnySimpleType,
            NormalizedString => String,
            Token => NormalizedString,
            Language | NmToken | Name => Token,
            NCName => Name,
            Id | IdRef | Entity => NCName,
            Integer => Decimal,
            NonPositiveInteger | Long | NonNegativeInteger => Integer,
            NegativeInteger => NonPositiveInteger,
            Int => Long,
            Short => Int,
            Byte => Short,
            UnsignedLong | PositiveInteger => NonNegativeInteger,
            UnsignedInt => UnsignedLong,
            UnsignedShort => UnsignedInt,
            UnsignedByte => UnsignedShort,
        })
    }

    /// The item type of the built-in list types (`NMTOKENS` -> `NMTOKEN`, `IDREFS` -> `IDREF`,
    /// `ENTITIES` -> `ENTITY`); `None` for the atomic ones.
    pub fn list_item(self) -> Option<Builtin> {
        match self {
            Builtin::NmTokens => Some(Builtin::NmToken),
            Builtin::IdRefs => Some(Builtin::IdRef),
            Builtin::Entities => Some(Builtin::Entity),
            _ => None,
        }
    }

    /// Whether this is one of the three built-in list types.
    pub fn is_list(self) -> bool {
        self.list_item().is_some()
    }

    /// Whether this is one of the 19 primitive types (Part 2, 3.2).
    pub fn is_primitive(self) -> bool {
        self.base() == Some(Builtin::AnySimpleType) && !self.is_list()
    }

    /// The primitive type this one is derived from (itself for a primitive). `anySimpleType`
    /// and the list types, which have no primitive, answer `AnySimpleType`.
    pub fn primitive(self) -> Builtin {
        if self.is_list() {
            return Builtin::AnySimpleType;
        }
        let mut t = self;
        // The chain is at most six steps (unsignedByte); the loop ends at a primitive or at
        // a type without base.
        while let Some(b) = t.base() {
            if b == Builtin::AnySimpleType {
                return t;
            }
            t = b;
        }
        Builtin::AnySimpleType
    }

    /// Whether this type is `other` or derived from it by restriction (every type is derived
    /// from `anySimpleType`, the list types included).
    pub fn is_derived_from(self, other: Builtin) -> bool {
        if other == Builtin::AnySimpleType {
            return true;
        }
        let mut t = Some(self);
        while let Some(x) = t {
            if x == other {
                return true;
            }
            t = x.base();
        }
        false
    }

    /// The whiteSpace facet the type fixes: `preserve` for `string` (and `anySimpleType`, which
    /// has no facets and keeps the text as written), `replace` for `normalizedString`,
    /// `collapse` for every other type.
    pub fn whitespace(self) -> WhiteSpace {
        match self {
            Builtin::AnySimpleType | Builtin::String => WhiteSpace::Preserve,
            Builtin::NormalizedString => WhiteSpace::Replace,
            _ => WhiteSpace::Collapse,
        }
    }

    /// Whether the type is `integer` or derived from it.
    pub fn is_integer(self) -> bool {
        self.is_derived_from(Builtin::Integer)
    }

    /// The built-in bounds of an integer type as decimal literals (`byte`: -128 and 127;
    /// `nonNegativeInteger`: 0 and none). `(None, None)` for other types.
    pub fn integer_bounds(self) -> (Option<&'static str>, Option<&'static str>) {
        use Builtin::*;
        match self {
            NonPositiveInteger => (None, Some("0")),
            NegativeInteger => (None, Some("-1")),
            Long => (Some("-9223372036854775808"), Some("9223372036854775807")),
            Int => (Some("-2147483648"), Some("2147483647")),
            Short => (Some("-32768"), Some("32767")),
            Byte => (Some("-128"), Some("127")),
            NonNegativeInteger => (Some("0"), None),
            UnsignedLong => (Some("0"), Some("18446744073709551615")),
            UnsignedInt => (Some("0"), Some("4294967295")),
            UnsignedShort => (Some("0"), Some("65535")),
            UnsignedByte => (Some("0"), Some("255")),
            PositiveInteger => (Some("1"), None),
            _ => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_count() {
        // 19 primitives, 25 derived, anySimpleType.
        assert_eq!(Builtin::ALL.len(), 45);
        for &b in Builtin::ALL {
            assert_eq!(Builtin::from_local_name(b.name()), Some(b));
        }
        assert_eq!(Builtin::from_local_name("Int"), None);
        assert_eq!(Builtin::ALL.iter().filter(|b| b.is_primitive()).count(), 19);
        let pos = |b: Builtin| Builtin::ALL.iter().position(|&x| x == b);
        for &b in Builtin::ALL {
            assert!(b.base().is_none_or(|base| pos(base) < pos(b)), "{b:?}");
            assert!(b.list_item().is_none_or(|i| pos(i) < pos(b)), "{b:?}");
        }
    }

    #[test]
    fn derivation() {
        assert_eq!(Builtin::Int.base(), Some(Builtin::Long));
        assert_eq!(Builtin::UnsignedByte.primitive(), Builtin::Decimal);
        assert_eq!(Builtin::Id.primitive(), Builtin::String);
        assert_eq!(Builtin::Date.primitive(), Builtin::Date);
        assert!(Builtin::Byte.is_derived_from(Builtin::Integer));
        assert!(!Builtin::Byte.is_derived_from(Builtin::UnsignedByte));
        assert!(Builtin::NmTokens.is_derived_from(Builtin::AnySimpleType));
        assert!(!Builtin::NmTokens.is_derived_from(Builtin::NmToken));
        assert_eq!(Builtin::NmTokens.base(), Some(Builtin::AnySimpleType));
        assert_eq!(Builtin::NmTokens.primitive(), Builtin::AnySimpleType);
        assert!(!Builtin::NmTokens.is_primitive());
        assert_eq!(Builtin::IdRefs.list_item(), Some(Builtin::IdRef));
        assert_eq!(Builtin::Token.whitespace(), WhiteSpace::Collapse);
    }
}
