//! The datatypes API as the schema model, the validator and the schema-informed codecs use
//! it: restriction errors, values for EXI, enumeration indexes, lists, error messages.

use binxml_schema::datatypes::{
    Builtin, DatatypeError, ErrorKind, FacetKind, FacetSpec, Facets, NamespaceResolver,
    NoNamespaces, Value, Variety, WhiteSpace, parse, parse_list,
};

fn spec<'a>(kind: FacetKind, value: &'a str, ns: &'a dyn NamespaceResolver) -> FacetSpec<'a> {
    FacetSpec {
        kind,
        value,
        fixed: false,
        ns,
    }
}

fn restrict(base: &Facets, facets: &[(FacetKind, &str)]) -> Result<Facets, DatatypeError> {
    let specs: Vec<FacetSpec<'_>> = facets
        .iter()
        .map(|&(k, v)| spec(k, v, &NoNamespaces))
        .collect();
    base.restrict(&specs)
}

fn v(t: Builtin, s: &str) -> Value {
    parse(t, s, &NoNamespaces).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn restriction_errors_name_the_facet() {
    use FacetKind::*;
    let string = Facets::builtin(Builtin::String);
    // (base type, the facets of one restriction, the facet the error must name)
    type Case<'a> = (Builtin, &'a [(FacetKind, &'a str)], FacetKind);
    let cases: &[Case<'_>] = &[
        (Builtin::Decimal, &[(Length, "1")], Length),
        (Builtin::Boolean, &[(Enumeration, "true")], Enumeration),
        (Builtin::String, &[(MaxInclusive, "a")], MaxInclusive),
        (
            Builtin::String,
            &[(MinLength, "3"), (MaxLength, "2")],
            MinLength,
        ),
        (Builtin::String, &[(Length, "2"), (MaxLength, "2")], Length),
        (Builtin::String, &[(Length, "-1")], Length),
        (Builtin::String, &[(Length, "1"), (Length, "1")], Length),
        (Builtin::Byte, &[(MaxInclusive, "128")], MaxInclusive),
        (Builtin::Byte, &[(MinExclusive, "-129")], MinExclusive),
        (Builtin::Int, &[(Enumeration, "x")], Enumeration),
        (Builtin::Integer, &[(FractionDigits, "1")], FractionDigits),
        (Builtin::Decimal, &[(TotalDigits, "0")], TotalDigits),
        (
            Builtin::Decimal,
            &[(TotalDigits, "2"), (FractionDigits, "3")],
            FractionDigits,
        ),
        (Builtin::Token, &[(WhiteSpace, "replace")], WhiteSpace),
        (
            Builtin::Int,
            &[(MaxInclusive, "5"), (MaxExclusive, "6")],
            MaxInclusive,
        ),
        (
            Builtin::Int,
            &[(MinInclusive, "5"), (MaxInclusive, "4")],
            MinInclusive,
        ),
        (Builtin::String, &[(Pattern, "a**")], Pattern),
    ];
    for (t, facets, kind) in cases {
        let e = restrict(&Facets::builtin(*t), facets).expect_err("a schema error");
        assert_eq!(e.subject(), kind.name(), "{e}");
        if *kind != Pattern {
            assert_eq!(e.kind(), ErrorKind::Schema, "{e}");
        }
    }
    // Across steps: wider ranges, longer lengths, a changed fixed facet.
    let two = |first: &[(FacetKind, &str)], second: &[(FacetKind, &str)], t: Builtin| {
        restrict(
            &restrict(&Facets::builtin(t), first).expect("first step"),
            second,
        )
    };
    assert!(two(&[(MaxLength, "5")], &[(MaxLength, "6")], Builtin::String).is_err());
    assert!(two(&[(MaxLength, "5")], &[(MaxLength, "4")], Builtin::String).is_ok());
    assert!(
        two(
            &[(TotalDigits, "5")],
            &[(TotalDigits, "6")],
            Builtin::Decimal
        )
        .is_err()
    );
    assert!(
        two(
            &[(MaxInclusive, "10")],
            &[(MaxExclusive, "10")],
            Builtin::Int
        )
        .is_ok()
    );
    assert!(
        two(
            &[(MaxExclusive, "10")],
            &[(MaxInclusive, "10")],
            Builtin::Int
        )
        .is_err()
    );
    assert!(
        two(
            &[(Enumeration, "1"), (Enumeration, "2")],
            &[(Enumeration, "3")],
            Builtin::Int
        )
        .is_err()
    );
    let fixed = string
        .restrict(&[FacetSpec {
            kind: MaxLength,
            value: "5",
            fixed: true,
            ns: &NoNamespaces,
        }])
        .expect("fixed maxLength");
    assert!(fixed.is_fixed(MaxLength));
    assert!(restrict(&fixed, &[(MaxLength, "4")]).is_err());
    assert!(restrict(&fixed, &[(MaxLength, "5")]).is_ok());
}

#[test]
fn effective_facets_accumulate() {
    use FacetKind::*;
    let f = restrict(
        &Facets::builtin(Builtin::Int),
        &[(MinInclusive, "1"), (Pattern, "[0-9]+")],
    )
    .and_then(|f| restrict(&f, &[(MaxExclusive, "100"), (Pattern, "..")]))
    .expect("valid restrictions");
    assert_eq!(f.variety(), Variety::Atomic(Builtin::Int));
    assert_eq!(f.patterns().len(), 2);
    assert_eq!(f.min_inclusive(), Some(&v(Builtin::Int, "1")));
    assert_eq!(f.max_exclusive(), Some(&v(Builtin::Int, "100")));
    assert_eq!(
        f.max_inclusive(),
        None,
        "the new upper bound replaces int's own"
    );
    assert_eq!(f.fraction_digits(), Some(0));
    assert!(f.validate("42", &NoNamespaces).is_ok());
    for bad in ["7", "100", "0", "+42"] {
        let e = f.validate(bad, &NoNamespaces).expect_err(bad);
        assert_eq!(
            e.kind(),
            if bad == "100" {
                ErrorKind::Facet
            } else {
                e.kind()
            }
        );
    }
    assert_eq!(
        f.white_space(),
        binxml_schema::datatypes::WhiteSpace::Collapse
    );
}

#[test]
fn enumeration_keeps_schema_order_and_value_space() {
    use FacetKind::*;
    let f = restrict(
        &Facets::builtin(Builtin::Decimal),
        &[
            (Enumeration, "2.50"),
            (Enumeration, "1"),
            (Enumeration, "1.0"),
        ],
    )
    .expect("valid");
    let e = f.enumeration().expect("enumeration");
    let lexical: Vec<&str> = e.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(lexical, ["2.50", "1", "1.0"]);
    assert_eq!(f.enumeration_index(&v(Builtin::Decimal, "2.5")), Some(0));
    assert_eq!(f.enumeration_index(&v(Builtin::Decimal, "01.00")), Some(1));
    assert_eq!(f.enumeration_index(&v(Builtin::Decimal, "3")), None);
}

#[test]
fn lists() {
    use FacetKind::*;
    let list = Facets::list(Builtin::Int);
    let f = restrict(&list, &[(MaxLength, "2"), (Pattern, r"\d+( \d+)*")]).expect("valid");
    assert_eq!(
        f.validate("  1   2 ", &NoNamespaces).map(|v| v.length()),
        Ok(Some(2))
    );
    assert!(f.validate("1 2 3", &NoNamespaces).is_err());
    assert!(f.validate("1 x", &NoNamespaces).is_err());
    assert!(restrict(&list, &[(MaxInclusive, "3")]).is_err());
    let items = parse_list(Builtin::Date, "2000-01-01 2000-01-02Z", &NoNamespaces).expect("dates");
    assert_eq!(items.length(), Some(2));
    assert_eq!(Facets::builtin(Builtin::IdRefs).min_length(), Some(1));
}

#[test]
fn values_for_exi() {
    // Integer: sign and magnitude of any size.
    let Value::Decimal(d) = v(Builtin::Integer, "-000123456789012345678901234567890") else {
        panic!("not a decimal")
    };
    assert!(d.is_negative());
    assert_eq!(d.integral_digits(), "123456789012345678901234567890");
    // Decimal: sign, integral part, fraction digits (leading zeros kept).
    let Value::Decimal(d) = v(Builtin::Decimal, "-12.0340") else {
        panic!()
    };
    assert_eq!(
        (d.is_negative(), d.integral_digits(), d.fraction_digits()),
        (true, "12", "034")
    );
    // Float: decimal mantissa and exponent from the literal.
    let Value::Double(f) = v(Builtin::Double, "-1.250E-3") else {
        panic!()
    };
    assert_eq!(f.exi_mantissa_exponent(), Some((-125, -5)));
    let Value::Float(f) = v(Builtin::Float, "123456789012345678901234567890") else {
        panic!()
    };
    assert_eq!(
        f.exi_mantissa_exponent(),
        None,
        "the mantissa does not fit in an i64"
    );
    // Date-time fields as written, timezone in minutes.
    let Value::DateTime(t) = v(Builtin::DateTime, "-2001-10-26T24:00:00+05:30") else {
        panic!()
    };
    assert_eq!(t.kind(), Builtin::DateTime);
    assert_eq!(
        (t.year(), t.month(), t.day()),
        (Some(-2001), Some(10), Some(26))
    );
    assert_eq!(
        (t.hour(), t.minute(), t.second()),
        (Some(24), Some(0), Some(0))
    );
    assert_eq!((t.fraction_digits(), t.timezone_minutes()), ("", Some(330)));
    let Value::DateTime(t) = v(Builtin::Time, "23:00:00.0100-00:00") else {
        panic!()
    };
    assert_eq!((t.fraction_digits(), t.timezone_minutes()), ("01", Some(0)));
    let Value::DateTime(t) = v(Builtin::GMonthDay, "--02-29") else {
        panic!()
    };
    assert_eq!(
        (t.year(), t.month(), t.day(), t.hour()),
        (None, Some(2), Some(29), None)
    );
    assert_eq!(v(Builtin::Boolean, "0"), Value::Boolean(false));
    assert_eq!(
        v(Builtin::HexBinary, "CAFE"),
        Value::HexBinary(vec![0xCA, 0xFE])
    );
    let ns: &[(&str, &str)] = &[("p", "urn:p")];
    match parse(Builtin::QName, "p:x", &ns) {
        Ok(Value::QName(q)) => assert_eq!(
            (q.namespace.as_str(), q.local.as_str(), q.prefix.as_str()),
            ("urn:p", "x", "p")
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn exi_restricted_character_sets() {
    use FacetKind::*;
    let step = |base: &Facets, p: &[&str]| {
        let facets: Vec<(FacetKind, &str)> = p.iter().map(|p| (Pattern, *p)).collect();
        restrict(base, &facets).expect("valid")
    };
    let s = Facets::builtin(Builtin::String);
    let two = step(&s, &["[a-c]+", "[x-z]+"]);
    assert_eq!(two.exi_char_set(), Some(vec![('a', 'c'), ('x', 'z')]));
    // The most derived step with patterns decides, not the union of all steps.
    let later = step(&two, &["[0-1]*"]);
    assert_eq!(later.exi_char_set(), Some(vec![('0', '1')]));
    assert_eq!(step(&s, &["\\d+"]).exi_char_set(), None);
    assert_eq!(Facets::builtin(Builtin::Language).exi_char_set(), None);
    assert_eq!(
        step(&Facets::builtin(Builtin::Int), &["[0-9]+"]).exi_char_set(),
        None
    );
}

#[test]
fn builtins() {
    assert_eq!(
        Builtin::from_local_name("unsignedLong"),
        Some(Builtin::UnsignedLong)
    );
    let chain: Vec<&str> = std::iter::successors(Some(Builtin::Int), |b| b.base())
        .map(Builtin::name)
        .collect();
    assert_eq!(
        chain,
        ["int", "long", "integer", "decimal", "anySimpleType"]
    );
    assert_eq!(Builtin::Byte.primitive(), Builtin::Decimal);
    assert!(Builtin::Id.is_derived_from(Builtin::Token));
    assert_eq!(Builtin::Entities.list_item(), Some(Builtin::Entity));
    assert_eq!(Builtin::NormalizedString.whitespace(), WhiteSpace::Replace);
}

#[test]
fn error_messages() {
    let e = parse(Builtin::Byte, "300", &NoNamespaces).expect_err("out of range");
    assert_eq!(e.kind(), ErrorKind::Range);
    assert_eq!(e.to_string(), "xs:byte \"300\": out of range -128..127");
    let long = "x".repeat(10_000);
    let e = parse(Builtin::Int, &long, &NoNamespaces).expect_err("not an int");
    assert_eq!(e.value().chars().count(), DatatypeError::MAX_QUOTE + 3);
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().starts_with("xs:int \"xxx"));
}

#[test]
fn unions() {
    use FacetKind::*;
    // <xs:union memberTypes="xs:int xs:token"/>: the first member that accepts decides.
    let member_value = |s: &str, ns: &dyn NamespaceResolver| -> Result<Value, DatatypeError> {
        Facets::builtin(Builtin::Int)
            .validate(s, ns)
            .or_else(|_| Facets::builtin(Builtin::Token).validate(s, ns))
    };
    let union = Facets::union();
    assert_eq!(union.variety(), Variety::Union);
    let specs = [
        spec(Enumeration, "01", &NoNamespaces),
        spec(Enumeration, "unbounded", &NoNamespaces),
        spec(Pattern, "[0-9a-z]+", &NoNamespaces),
    ];
    let f = union.restrict_union(&specs, &member_value).expect("valid");
    // The validator takes the value from the members, then checks the union's facets.
    let one = member_value(" 1 ", &NoNamespaces).expect("an int");
    assert_eq!(f.enumeration_index(&one), Some(0));
    assert!(f.check(&one, "1").is_ok());
    let two = member_value("2", &NoNamespaces).expect("an int");
    assert!(f.check(&two, "2").is_err());
    assert!(
        f.validate("1", &NoNamespaces).is_err(),
        "unions validate through their members"
    );
    assert!(restrict(&union, &[(MaxLength, "3")]).is_err());
    assert!(
        restrict(&union, &[(Enumeration, "1")]).is_err(),
        "enumeration needs the members"
    );
    assert!(restrict(&union, &[(Pattern, "a")]).is_ok());
}

#[test]
fn integer_ranges_for_exi() {
    use FacetKind::*;
    let range = |f: &Facets| {
        let (lo, hi) = f.integer_range();
        (lo.map(|d| d.to_string()), hi.map(|d| d.to_string()))
    };
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        range(&Facets::builtin(Builtin::Byte)),
        (s("-128"), s("127"))
    );
    assert_eq!(
        range(&Facets::builtin(Builtin::NonNegativeInteger)),
        (s("0"), None)
    );
    assert_eq!(range(&Facets::builtin(Builtin::Integer)), (None, None));
    let f = restrict(
        &Facets::builtin(Builtin::Int),
        &[(MinExclusive, "-1"), (MaxExclusive, "4096")],
    )
    .expect("valid");
    assert_eq!(range(&f), (s("0"), s("4095")));
    let big = restrict(
        &Facets::builtin(Builtin::Integer),
        &[(MaxExclusive, "100000000000000000000000000000000000000000")],
    )
    .expect("valid");
    assert_eq!(
        range(&big),
        (None, s("99999999999999999999999999999999999999999"))
    );
    assert_eq!(range(&Facets::builtin(Builtin::Decimal)), (None, None));
}
