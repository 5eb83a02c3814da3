//! The mapping of X.694: a loaded schema becomes an ASN.1 module model, the one that
//! `print.rs` writes out and that the PER codec (`per.rs`) walks. Each type keeps the XML
//! role of its components (attribute, element, character content, model group), so the codec
//! goes between events and bits with no other description of the document.

use std::collections::HashMap;

use binxml_core::QName;
use binxml_schema::Schema;
use binxml_schema::datatypes::{Builtin, Facets, Value, WhiteSpace};
use binxml_schema::model::{
    Compositor, Content, ElemId, Max, Name, NamespaceConstraint, Particle, Term, TypeDef, TypeId,
    Variety,
};

use super::names::{Scope, convert};

/// The XML namespace, bound to `xml` without a declaration.
pub const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// An index into [`Module::types`].
pub type TyId = usize;

/// The mapped module.
#[derive(Debug)]
pub struct Module {
    /// The module reference (from the root element's name).
    pub name: String,
    /// Every type, named (a type assignment) or inline.
    pub types: Vec<Ty>,
    /// The named types in the order they are printed (the roots first).
    pub assignments: Vec<TyId>,
    /// The root elements: name and type (the PDU types).
    pub roots: Vec<(Name, TyId)>,
    /// The namespaces of the element and attribute names, sorted (the decoder declares each
    /// with a prefix of its own on the root element).
    pub namespaces: Vec<String>,
    /// The prefix of each of `namespaces`: `ns1`, `ns2`, ..., `xml` for the XML namespace.
    pub prefixes: Vec<String>,
    /// For each type, whether it is a SEQUENCE with an attribute wildcard's component (the
    /// decoder holds such an element's start tag until it has read the wildcard's attributes,
    /// whose namespaces it may have to declare).
    pub any_attr: Vec<bool>,
    /// The names the decoders write that no component carries, with the module's prefixes:
    /// filled in with the components' (see [`Comp::qname`]).
    pub names: Names,
}

/// See [`Module::names`].
#[derive(Debug, Default)]
pub struct Names {
    /// `xsi:type`.
    pub xsi_type: QName<'static>,
    /// `xsi:nil`.
    pub xsi_nil: QName<'static>,
    /// Each root element's (as [`Module::roots`]).
    pub roots: Vec<QName<'static>>,
}

/// One ASN.1 type.
#[derive(Debug)]
pub struct Ty {
    /// Its type reference when it has a type assignment.
    pub name: Option<String>,
    /// What it is.
    pub kind: Kind,
}

/// The ASN.1 types the mapping uses.
#[derive(Debug)]
pub enum Kind {
    /// A type reference to another (`Element ::= ElementsType`).
    Ref(TyId),
    /// `BOOLEAN`.
    Boolean,
    /// `INTEGER (lo..hi)`, either end possibly absent (`MIN`, `MAX`).
    Integer {
        /// Lower bound.
        lo: Option<i128>,
        /// Upper bound.
        hi: Option<i128>,
    },
    /// `ENUMERATED`: identifiers and the XSD values they stand for.
    Enumerated(Vec<(String, String)>),
    /// `UTF8String (SIZE (min..max))` (the size is not PER-visible).
    Utf8 {
        /// minLength.
        min: u64,
        /// maxLength.
        max: Option<u64>,
        /// The type's whiteSpace facet, applied before encoding.
        ws: WhiteSpace,
    },
    /// `VisibleString (FROM (alphabet))`: the lexical form of a number, date or duration.
    Visible {
        /// The permitted characters, sorted.
        alphabet: Vec<char>,
    },
    /// `OCTET STRING (SIZE (min..max))`: hexBinary or base64Binary.
    Octets {
        /// hexBinary (else base64Binary).
        hex: bool,
        /// Lower size bound.
        min: u64,
        /// Upper size bound.
        max: Option<u64>,
    },
    /// An XSD list type: `SEQUENCE (SIZE (min..max)) OF item`, the items separated by spaces.
    List {
        /// The item type.
        item: TyId,
        /// Lower size bound.
        min: u64,
        /// Upper size bound.
        max: Option<u64>,
    },
    /// `SEQUENCE { ... }`.
    Sequence(Vec<Comp>),
    /// `CHOICE { ... }`.
    Choice(Vec<Comp>),
    /// X.694's `T-derivations`: a CHOICE of a type and every named type derived from it, the
    /// alternative named by `xsi:type` in the document (USE-TYPE).
    Derivations {
        /// The alternative of the declared type itself (none when it is abstract): the one
        /// an element without `xsi:type` has.
        declared: Option<usize>,
        /// The alternatives (role [`Role::Type`]).
        alts: Vec<Comp>,
    },
    /// `SEQUENCE (SIZE (min..max)) OF item`.
    SeqOf {
        /// The item (its identifier and type).
        item: Box<Comp>,
        /// Lower size bound.
        min: u64,
        /// Upper size bound (`None`: `MAX`).
        max: Option<u64>,
    },
}

/// A component of a SEQUENCE or an alternative of a CHOICE.
#[derive(Clone, Debug)]
pub struct Comp {
    /// Its identifier.
    pub ident: String,
    /// Its type.
    pub ty: TyId,
    /// `OPTIONAL`.
    pub optional: bool,
    /// What it stands for in the document.
    pub role: Role,
    /// The name the decoder writes for an attribute, an element or a type alternative: its
    /// namespace with the module's prefix for it (see [`Module::prefixes`]); empty for the other
    /// roles. Filled in once the module's namespaces are known, so that decoding looks nothing up.
    pub qname: QName<'static>,
}

/// What a component stands for in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// An attribute.
    Attr(Name),
    /// An element.
    Elem(Name),
    /// The character content of an element of simple content (X.694's `base`).
    Text,
    /// A model group, a repetition or a substitution group: no markup of its own.
    Group,
    /// An element wildcard (X.694's `elem` component, ANY-ELEMENT): a UTF8String holding the
    /// matched element's XML text; the namespaces it allows.
    Wildcard(NamespaceConstraint),
    /// An attribute wildcard (X.694's `attr` component, ANY-ATTRIBUTES), after the
    /// attributes' components: a SEQUENCE OF UTF8String, OPTIONAL (absent when no attribute
    /// matches), one string per attribute that no attribute component takes
    /// (`uri name="value"`, see `wild.rs`); the namespaces it allows.
    AnyAttr(NamespaceConstraint),
    /// An alternative of a [`Kind::Derivations`]: the element's content has this type, named
    /// by `xsi:type` when it is not the declared one.
    Type(Name),
    /// The content of a nillable element (X.694's USE-NIL): the last component of the
    /// element's SEQUENCE, OPTIONAL, absent when the element has `xsi:nil="true"`. Its type is
    /// the simple type of the element's text, or a SEQUENCE of its content's components.
    Nil,
    /// The character data of mixed content (X.694's `embed-values`, EMBED-VALUES): the first
    /// component of the element's SEQUENCE, a SEQUENCE OF UTF8String holding the text before
    /// each child element and after the last.
    Embed,
    /// The order of an `all` group's elements (X.694's `order` component, USE-ORDER): the
    /// first component of the SEQUENCE that holds the group's components, a SEQUENCE OF
    /// ENUMERATED whose items name, in document order, the content components present (the
    /// components with role [`Role::Elem`] or [`Role::Group`], the n-th enumeration value
    /// standing for the n-th of them).
    Order,
}

/// Why a schema cannot be mapped.
#[derive(Debug)]
pub struct MapError(pub String);

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which global elements become root (PDU) types.
#[derive(Clone, Debug)]
pub enum Roots {
    /// The one global element of the schema's first document (the file loaded); an error when
    /// it declares none or several.
    Main,
    /// Every global element of the schema.
    All,
    /// The global element of this name.
    Named(Name),
}

struct Mapper<'s> {
    schema: &'s Schema,
    types: Vec<Ty>,
    assignments: Vec<TyId>,
    scope: Scope,
    by_type: HashMap<TypeId, TyId>,
    by_global: HashMap<ElemId, TyId>,
    by_group: HashMap<ElemId, TyId>,
    by_derivations: HashMap<TypeId, Option<TyId>>,
    by_nil: HashMap<TypeId, TyId>,
    /// Each type's named direct derivations (built on first use).
    derived: Option<HashMap<TypeId, Vec<TypeId>>>,
    namespaces: std::collections::BTreeSet<String>,
}

/// The XML Schema instance namespace (`xsi:type`).
pub const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// Maps `schema` for `roots`.
pub fn map(schema: &Schema, roots: &Roots) -> Result<Module, MapError> {
    let elems: Vec<ElemId> = match roots {
        Roots::All => schema.global_elements().map(|(_, e)| e).collect(),
        Roots::Named(n) => vec![
            schema
                .global_element(&n.ns, &n.local)
                .ok_or_else(|| MapError(format!("no global element {n} in the schema")))?,
        ],
        Roots::Main => {
            let main: Vec<ElemId> = schema
                .global_elements()
                .map(|(_, e)| e)
                .filter(|e| schema.element(*e).origin.doc == 0)
                .collect();
            if main.len() != 1 {
                let names: Vec<String> = main
                    .iter()
                    .map(|e| schema.element(*e).name.to_string())
                    .collect();
                return Err(MapError(format!(
                    "the schema's main document declares {} global elements ({}): name the root element",
                    main.len(),
                    names.join(", ")
                )));
            }
            main
        }
    };
    let mut m = Mapper {
        schema,
        types: Vec::new(),
        assignments: Vec::new(),
        scope: Scope::default(),
        by_type: HashMap::new(),
        by_global: HashMap::new(),
        by_group: HashMap::new(),
        by_derivations: HashMap::new(),
        by_nil: HashMap::new(),
        derived: None,
        namespaces: Default::default(),
    };
    let mut out_roots = Vec::new();
    for e in &elems {
        let ty = m.global_element(*e);
        out_roots.push((schema.element(*e).name.clone(), ty));
        m.namespaces.insert(schema.element(*e).name.ns.clone());
    }
    let name = out_roots
        .first()
        .map(|(n, _)| convert(&n.local, true))
        .unwrap_or_else(|| "Empty".into());
    m.namespaces.remove("");
    let prefixes = m
        .namespaces
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if n == XML_NS {
                "xml".to_owned()
            } else {
                format!("ns{}", i + 1)
            }
        })
        .collect();
    let mut module = Module {
        any_attr: Vec::new(),
        prefixes,
        name: format!("{name}-X694"),
        types: m.types,
        assignments: m.assignments,
        roots: out_roots,
        namespaces: m.namespaces.into_iter().collect(),
        names: Names::default(),
    };
    module.fill_qnames();
    module.any_attr = module
        .types
        .iter()
        .map(|t| {
            matches!(&t.kind, Kind::Sequence(c) if c.iter().any(|c| matches!(c.role, Role::AnyAttr(_))))
        })
        .collect();
    Ok(module)
}

impl Mapper<'_> {
    /// Gives an `all` group's `order` component (first in `comps`, when there) its type: a
    /// SEQUENCE OF ENUMERATED of the identifiers of the content components that follow.
    fn finish_order(&mut self, comps: &mut [Comp]) {
        if comps.first().is_none_or(|c| c.role != Role::Order) {
            return;
        }
        let names: Vec<(String, String)> = comps
            .iter()
            .filter(|c| is_content(&c.role))
            .map(|c| (c.ident.clone(), c.ident.clone()))
            .collect();
        let item = self.new_ty(None, Kind::Enumerated(names));
        comps[0].ty = self.new_ty(
            None,
            Kind::List {
                item,
                min: 0,
                max: None,
            },
        );
    }

    fn new_ty(&mut self, name: Option<String>, kind: Kind) -> TyId {
        let id = self.types.len();
        let name = name.map(|n| self.scope.unique(n));
        if name.is_some() {
            self.assignments.push(id);
        }
        self.types.push(Ty { name, kind });
        id
    }

    /// A global element's type assignment: `Elem ::= Type` for a named type, the anonymous
    /// type itself named after the element otherwise.
    fn global_element(&mut self, e: ElemId) -> TyId {
        if let Some(t) = self.by_global.get(&e) {
            return *t;
        }
        let decl = self.schema.element(e);
        let tname = convert(&decl.name.local, true);
        let t = decl.type_def;
        let named = self.schema.type_def(t).name().is_some();
        if decl.nillable && self.derivations(t).is_none() {
            let id = self.new_ty(Some(tname), Kind::Sequence(Vec::new()));
            self.by_global.insert(e, id);
            self.types[id].kind = self.nil_kind(t);
            return id;
        }
        if named {
            let id = self.new_ty(Some(tname), Kind::Ref(usize::MAX));
            self.by_global.insert(e, id);
            let target = self.element_type(t);
            self.types[id].kind = Kind::Ref(target);
            id
        } else {
            let id = self.new_ty(Some(tname), Kind::Sequence(Vec::new()));
            self.by_global.insert(e, id);
            self.by_type.insert(t, id);
            self.types[id].kind = self.type_kind(t);
            id
        }
    }

    /// The type of an element whose declared type is `t`: `T-derivations` when named types
    /// derive from `t` (an instance may name one with `xsi:type`), else `t`'s own.
    fn element_type(&mut self, t: TypeId) -> TyId {
        match self.derivations(t) {
            Some(d) => d,
            None => self.type_ty(t),
        }
    }

    fn derivations(&mut self, t: TypeId) -> Option<TyId> {
        if let Some(d) = self.by_derivations.get(&t) {
            return *d;
        }
        let schema = self.schema;
        let children = self.derived.get_or_insert_with(|| {
            let mut map: HashMap<TypeId, Vec<TypeId>> = HashMap::new();
            for i in 0..schema.type_count() {
                let id = TypeId(i as u32);
                let def = schema.type_def(id);
                if let (Some(b), Some(_)) = (def.base(), def.name())
                    && b != id
                {
                    map.entry(b).or_default().push(id);
                }
            }
            map
        });
        let mut all = Vec::new();
        let mut stack = vec![t];
        while let Some(x) = stack.pop() {
            for &c in children.get(&x).map(Vec::as_slice).unwrap_or(&[]) {
                if !all.contains(&c) && c != t {
                    all.push(c);
                    stack.push(c);
                }
            }
        }
        let def = schema.type_def(t);
        let builtin = match def {
            TypeDef::Simple(s) => s.origin.doc == u32::MAX,
            TypeDef::Complex(c) => c.origin.doc == u32::MAX,
        };
        if all.is_empty() || def.name().is_none() || builtin {
            self.by_derivations.insert(t, None);
            return None;
        }
        let name = |id: TypeId| schema.type_def(id).name().cloned().expect("named");
        all.sort_by(|a, b| {
            let (x, y) = (name(*a), name(*b));
            (&x.local, &x.ns).cmp(&(&y.local, &y.ns))
        });
        let abstract_ = matches!(def, TypeDef::Complex(c) if c.abstract_);
        let mut members = Vec::new();
        if !abstract_ {
            members.push(t);
        }
        members.extend(
            all.into_iter()
                .filter(|d| !matches!(schema.type_def(*d), TypeDef::Complex(c) if c.abstract_)),
        );
        let id = self.new_ty(
            Some(format!("{}-derivations", convert(&name(t).local, true))),
            Kind::Choice(Vec::new()),
        );
        self.by_derivations.insert(t, Some(id));
        self.namespaces.insert(XSI.to_owned());
        let mut alts = Vec::new();
        for m in &members {
            let n = name(*m);
            if !n.ns.is_empty() {
                self.namespaces.insert(n.ns.clone());
            }
            let ty = self.type_ty(*m);
            alts.push(Comp {
                ident: convert(&n.local, false),
                ty,
                optional: false,
                role: Role::Type(n),
                qname: QName::default(),
            });
        }
        self.types[id].kind = Kind::Derivations {
            declared: if abstract_ { None } else { Some(0) },
            alts: unique_idents(alts),
        };
        Some(id)
    }

    /// The (inline) type of a local nillable element of type `t`.
    fn nil_ty(&mut self, t: TypeId) -> TyId {
        if let Some(id) = self.by_nil.get(&t) {
            return *id;
        }
        let id = self.new_ty(None, Kind::Sequence(Vec::new()));
        self.by_nil.insert(t, id);
        self.types[id].kind = self.nil_kind(t);
        id
    }

    /// X.694's type of a nillable element (USE-NIL): the attributes' components, then an
    /// OPTIONAL `content` component holding the rest (the text's simple type, or a SEQUENCE
    /// of the content's components), absent for `xsi:nil="true"`. Not used where `xsi:type`
    /// derivations apply.
    fn nil_kind(&mut self, t: TypeId) -> Kind {
        self.namespaces.insert(XSI.to_owned());
        let (mut comps, content) = match self.schema.type_def(t) {
            TypeDef::Simple(_) => (Vec::new(), self.type_ty(t)),
            TypeDef::Complex(_) => {
                let Kind::Sequence(all) = self.type_kind(t) else {
                    unreachable!("a complex type maps to a SEQUENCE")
                };
                let (attrs, rest): (Vec<Comp>, Vec<Comp>) = all
                    .into_iter()
                    .partition(|c| matches!(c.role, Role::Attr(_) | Role::AnyAttr(_)));
                let content = match rest.as_slice() {
                    [c] if c.role == Role::Text => c.ty,
                    _ => self.new_ty(None, Kind::Sequence(rest)),
                };
                (attrs, content)
            }
        };
        comps.push(Comp {
            ident: "content".into(),
            ty: content,
            optional: true,
            role: Role::Nil,
            qname: QName::default(),
        });
        Kind::Sequence(unique_idents(comps))
    }

    /// The type of an XSD type definition (named types get a type assignment; the built-ins
    /// and anonymous types are written inline).
    fn type_ty(&mut self, t: TypeId) -> TyId {
        if let Some(id) = self.by_type.get(&t) {
            return *id;
        }
        let def = self.schema.type_def(t);
        let origin = match def {
            TypeDef::Simple(s) => s.origin,
            TypeDef::Complex(c) => c.origin,
        };
        // The built-in types (no schema document of their own) are written inline.
        let name = def
            .name()
            .filter(|_| origin.doc != u32::MAX)
            .map(|n| convert(&n.local, true));
        let id = self.new_ty(name, Kind::Sequence(Vec::new()));
        self.by_type.insert(t, id);
        self.types[id].kind = self.type_kind(t);
        id
    }

    fn type_kind(&mut self, t: TypeId) -> Kind {
        match self.schema.type_def(t) {
            TypeDef::Simple(_) => self.simple_kind(t),
            TypeDef::Complex(c) => {
                let mut comps = Vec::new();
                for u in &c.attributes {
                    let a = self.schema.attribute(u.decl);
                    if !a.name.ns.is_empty() {
                        self.namespaces.insert(a.name.ns.clone());
                    }
                    let ty = self.type_ty(a.type_def);
                    comps.push(Comp {
                        ident: convert(&a.name.local, false),
                        ty,
                        optional: !u.required,
                        role: Role::Attr(a.name.clone()),
                        qname: QName::default(),
                    });
                }
                if let Some(w) = &c.attribute_wildcard {
                    // X.694: the attributes the wildcard matches, after the declared ones.
                    let item = self.new_ty(
                        None,
                        Kind::Utf8 {
                            min: 0,
                            max: None,
                            ws: WhiteSpace::Preserve,
                        },
                    );
                    let ty = self.new_ty(
                        None,
                        Kind::List {
                            item,
                            min: 0,
                            max: None,
                        },
                    );
                    // OPTIONAL: absent (one presence bit) when no attribute matches.
                    comps.push(Comp {
                        ident: "attr".into(),
                        ty,
                        optional: true,
                        role: Role::AnyAttr(w.namespaces.clone()),
                        qname: QName::default(),
                    });
                }
                if let Content::Elements { mixed: true, .. } = &c.content {
                    let item = self.new_ty(
                        None,
                        Kind::Utf8 {
                            min: 0,
                            max: None,
                            ws: WhiteSpace::Preserve,
                        },
                    );
                    let ty = self.new_ty(
                        None,
                        Kind::List {
                            item,
                            min: 0,
                            max: None,
                        },
                    );
                    comps.insert(
                        0,
                        Comp {
                            ident: "embed-values".into(),
                            ty,
                            optional: false,
                            role: Role::Embed,
                            qname: QName::default(),
                        },
                    );
                }
                match &c.content {
                    Content::Empty => {}
                    Content::Simple(s) => {
                        let ty = self.type_ty(*s);
                        comps.push(Comp {
                            ident: "base".into(),
                            ty,
                            optional: false,
                            role: Role::Text,
                            qname: QName::default(),
                        });
                    }
                    Content::Elements { particle, .. } => self.particle_into(particle, &mut comps),
                }
                let mut comps = unique_idents(comps);
                self.finish_order(&mut comps);
                Kind::Sequence(comps)
            }
        }
    }

    fn simple_kind(&mut self, t: TypeId) -> Kind {
        let TypeDef::Simple(s) = self.schema.type_def(t) else {
            unreachable!("a simple type")
        };
        let f = &s.facets;
        let (min, max) = lengths(f);
        match &s.variety {
            Variety::List(item) => Kind::List {
                item: self.type_ty(*item),
                min,
                max,
            },
            Variety::Union(_) => Kind::Utf8 {
                min: 0,
                max: None,
                ws: WhiteSpace::Collapse,
            },
            Variety::Atomic(b) => {
                let p = b.primitive();
                if let (Some(values), Builtin::String | Builtin::AnyUri) = (f.enumeration(), p) {
                    let mut scope = Scope::default();
                    let mut items: Vec<(String, String)> = Vec::new();
                    for (v, lexical) in values {
                        let value = match v {
                            Value::String(s) | Value::AnyUri(s) => s.clone(),
                            _ => lexical.clone(),
                        };
                        if items.iter().any(|(_, x)| *x == value) {
                            continue;
                        }
                        items.push((scope.unique(convert(&value, false)), value));
                    }
                    return Kind::Enumerated(items);
                }
                match p {
                    Builtin::Boolean => Kind::Boolean,
                    Builtin::Decimal if b.is_integer() => {
                        let (lo, hi) = f.integer_range();
                        Kind::Integer {
                            lo: lo.and_then(|d| d.to_i128()),
                            hi: hi.and_then(|d| d.to_i128()),
                        }
                    }
                    Builtin::Decimal => visible("+-.0123456789"),
                    Builtin::Float | Builtin::Double => visible("+-.0123456789EINFaeN"),
                    Builtin::Duration => visible("+-.0123456789PYMDTHS"),
                    Builtin::DateTime
                    | Builtin::Time
                    | Builtin::Date
                    | Builtin::GYearMonth
                    | Builtin::GYear
                    | Builtin::GMonthDay
                    | Builtin::GDay
                    | Builtin::GMonth => visible("+-.0123456789:TZ"),
                    Builtin::HexBinary | Builtin::Base64Binary => Kind::Octets {
                        hex: p == Builtin::HexBinary,
                        min,
                        max,
                    },
                    _ => Kind::Utf8 {
                        min,
                        max,
                        ws: f.white_space(),
                    },
                }
            }
        }
    }

    /// Adds the components of a particle to an enclosing SEQUENCE: a sequence or `all` group
    /// that occurs exactly once contributes its own components, anything else one component.
    fn particle_into(&mut self, p: &Particle, comps: &mut Vec<Comp>) {
        match &p.term {
            Term::Group(g)
                if g.compositor != Compositor::Choice && p.min == 1 && p.max == Max::Bounded(1) =>
            {
                if g.compositor == Compositor::All {
                    // X.694: the group's elements may come in any order, which `order`
                    // records; it goes first (the enumeration is made once the components'
                    // identifiers are final, see `finish_order`).
                    comps.insert(0, order_placeholder());
                }
                for q in &g.particles {
                    self.particle_into(q, comps);
                }
            }
            _ => {
                let c = self.particle_comp(p);
                comps.push(c);
            }
        }
    }

    /// One component for a particle: OPTIONAL for `minOccurs="0" maxOccurs="1"`, a
    /// `-list` SEQUENCE OF for any other repetition.
    fn particle_comp(&mut self, p: &Particle) -> Comp {
        let base = self.term_comp(&p.term);
        match (p.min, p.max) {
            (1, Max::Bounded(1)) => base,
            (0, Max::Bounded(1)) => Comp {
                optional: true,
                ..base
            },
            (min, max) => {
                let ident = format!("{}-list", base.ident);
                let max = match max {
                    Max::Bounded(n) => Some(n as u64),
                    Max::Unbounded => None,
                };
                let ty = self.new_ty(
                    None,
                    Kind::SeqOf {
                        item: Box::new(base),
                        min: min as u64,
                        max,
                    },
                );
                Comp {
                    ident,
                    ty,
                    optional: false,
                    role: Role::Group,
                    qname: QName::default(),
                }
            }
        }
    }

    fn term_comp(&mut self, term: &Term) -> Comp {
        match term {
            Term::Element(e) => self.element_comp(*e),
            Term::Group(g) => {
                let (ident, kind) = match g.compositor {
                    Compositor::Sequence | Compositor::All => {
                        let mut comps = Vec::new();
                        if g.compositor == Compositor::All {
                            comps.push(order_placeholder());
                        }
                        for q in &g.particles {
                            let c = self.particle_comp(q);
                            comps.push(c);
                        }
                        let ident = if g.compositor == Compositor::All {
                            "all"
                        } else {
                            "sequence"
                        };
                        let mut comps = unique_idents(comps);
                        self.finish_order(&mut comps);
                        (ident, Kind::Sequence(comps))
                    }
                    Compositor::Choice => {
                        let mut alts = Vec::new();
                        for q in &g.particles {
                            let c = self.particle_comp(q);
                            // An alternative cannot be OPTIONAL: one that may be absent is a
                            // SEQUENCE of one optional component.
                            let c = if c.optional {
                                let ident = c.ident.clone();
                                let ty = self.new_ty(None, Kind::Sequence(vec![c]));
                                Comp {
                                    ident,
                                    ty,
                                    optional: false,
                                    role: Role::Group,
                                    qname: QName::default(),
                                }
                            } else {
                                c
                            };
                            alts.push(c);
                        }
                        ("choice", Kind::Choice(unique_idents(alts)))
                    }
                };
                let ty = self.new_ty(None, kind);
                Comp {
                    ident: ident.into(),
                    ty,
                    optional: false,
                    role: Role::Group,
                    qname: QName::default(),
                }
            }
            Term::Wildcard(w) => {
                let ty = self.new_ty(
                    None,
                    Kind::Utf8 {
                        min: 0,
                        max: None,
                        ws: WhiteSpace::Preserve,
                    },
                );
                Comp {
                    ident: "elem".into(),
                    ty,
                    optional: false,
                    role: Role::Wildcard(w.namespaces.clone()),
                    qname: QName::default(),
                }
            }
        }
    }

    /// An element particle: the element itself, or, when other declarations may substitute
    /// for it, a CHOICE of every member of its substitution group (`Head-group`).
    fn element_comp(&mut self, e: ElemId) -> Comp {
        let decl = self.schema.element(e);
        let subs = self.schema.substitutes(e);
        if decl.global && !(subs.len() == 1 && subs[0] == e) {
            let ident = convert(&decl.name.local, false);
            let ty = if let Some(t) = self.by_group.get(&e) {
                *t
            } else {
                let name = format!("{}-group", convert(&decl.name.local, true));
                let id = self.new_ty(Some(name), Kind::Choice(Vec::new()));
                self.by_group.insert(e, id);
                let members: Vec<ElemId> = subs.to_vec();
                let alts: Vec<Comp> = members.iter().map(|m| self.single_element(*m)).collect();
                self.types[id].kind = Kind::Choice(unique_idents(alts));
                id
            };
            return Comp {
                ident,
                ty,
                optional: false,
                role: Role::Group,
                qname: QName::default(),
            };
        }
        self.single_element(e)
    }

    fn single_element(&mut self, e: ElemId) -> Comp {
        let decl = self.schema.element(e);
        let name = decl.name.clone();
        if !name.ns.is_empty() {
            self.namespaces.insert(name.ns.clone());
        }
        let ty = if decl.global {
            self.global_element(e)
        } else if decl.nillable && self.derivations(decl.type_def).is_none() {
            self.nil_ty(decl.type_def)
        } else {
            self.element_type(decl.type_def)
        };
        Comp {
            ident: convert(&name.local, false),
            ty,
            optional: false,
            role: Role::Elem(name),
            qname: QName::default(),
        }
    }
}

fn visible(chars: &str) -> Kind {
    let mut alphabet: Vec<char> = chars.chars().collect();
    alphabet.sort_unstable();
    alphabet.dedup();
    Kind::Visible { alphabet }
}

fn lengths(f: &Facets) -> (u64, Option<u64>) {
    match f.length() {
        Some(n) => (n, Some(n)),
        None => (f.min_length().unwrap_or(0), f.max_length()),
    }
}

/// X.694 10.3: identifiers in one SEQUENCE or CHOICE made distinct by suffixes.
/// Whether a component stands for content (an element or a group of elements): what an `all`
/// group's `order` enumerates.
pub fn is_content(role: &Role) -> bool {
    matches!(role, Role::Elem(_) | Role::Group)
}

/// The `order` component of an `all` group, its type made by [`Mapper::finish_order`].
fn order_placeholder() -> Comp {
    Comp {
        ident: "order".into(),
        ty: usize::MAX,
        optional: false,
        role: Role::Order,
        qname: QName::default(),
    }
}

fn unique_idents(mut comps: Vec<Comp>) -> Vec<Comp> {
    let mut scope = Scope::default();
    for c in &mut comps {
        c.ident = scope.unique(std::mem::take(&mut c.ident));
    }
    comps
}

impl Module {
    /// The name the decoder writes for `n`: the module's prefix for its namespace (none when
    /// the name has no namespace, or one the module does not declare).
    pub fn qname(&self, n: &Name) -> QName<'static> {
        if n.ns.is_empty() {
            return QName::local(n.local.clone());
        }
        match self.namespaces.binary_search_by(|x| x.as_str().cmp(&n.ns)) {
            Ok(i) => QName::new(self.prefixes[i].clone(), n.ns.clone(), n.local.clone()),
            Err(_) => QName::local(n.local.clone()),
        }
    }

    fn fill_qnames(&mut self) {
        let mut types = std::mem::take(&mut self.types);
        for t in &mut types {
            let comps: &mut [Comp] = match &mut t.kind {
                Kind::Sequence(c) | Kind::Choice(c) => c,
                Kind::Derivations { alts, .. } => alts,
                Kind::SeqOf { item, .. } => std::slice::from_mut(&mut **item),
                _ => continue,
            };
            for c in comps {
                if let Role::Attr(n) | Role::Elem(n) | Role::Type(n) = &c.role {
                    c.qname = self.qname(n);
                }
            }
        }
        self.types = types;
        self.names = Names {
            xsi_type: self.qname(&Name::new(XSI, "type")),
            xsi_nil: self.qname(&Name::new(XSI, "nil")),
            roots: self.roots.iter().map(|(n, _)| self.qname(n)).collect(),
        };
    }

    /// Follows type references to the type that is not one: its id.
    pub fn resolve_id(&self, mut t: TyId) -> TyId {
        for _ in 0..self.types.len() {
            match &self.types[t].kind {
                Kind::Ref(u) => t = *u,
                _ => return t,
            }
        }
        unreachable!("the mapping makes no cycle of bare type references")
    }

    /// Follows type references to the type that is not one.
    pub fn resolve(&self, mut t: TyId) -> &Kind {
        for _ in 0..self.types.len() {
            match &self.types[t].kind {
                Kind::Ref(u) => t = *u,
                k => return k,
            }
        }
        unreachable!("the mapping makes no cycle of bare type references")
    }

    /// Whether a component's value can hold no element at all (it never needs one to be
    /// present).
    pub fn emptiable(&self, c: &Comp) -> bool {
        c.optional || self.ty_emptiable(c.ty, &c.role, 0)
    }

    fn ty_emptiable(&self, t: TyId, role: &Role, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match role {
            Role::Attr(_)
            | Role::AnyAttr(_)
            | Role::Text
            | Role::Elem(_)
            | Role::Wildcard(_)
            | Role::Type(_)
            | Role::Nil
            | Role::Embed => false,
            Role::Order => true,
            Role::Group => match self.resolve(t) {
                Kind::Sequence(comps) => comps
                    .iter()
                    .all(|c| c.optional || self.ty_emptiable(c.ty, &c.role, depth + 1)),
                Kind::Choice(alts) => alts
                    .iter()
                    .any(|c| self.ty_emptiable(c.ty, &c.role, depth + 1)),
                Kind::SeqOf { item, min, .. } => {
                    *min == 0 || self.ty_emptiable(item.ty, &item.role, depth + 1)
                }
                _ => false,
            },
        }
    }

    /// Whether the component can start with an element named `ns`:`local`.
    pub fn starts_with(&self, c: &Comp, ns: &str, local: &str) -> bool {
        self.starts(c.ty, &c.role, ns, local, 0)
    }

    fn starts(&self, t: TyId, role: &Role, ns: &str, local: &str, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match role {
            Role::Elem(n) => n.ns == ns && n.local == local,
            Role::Wildcard(w) => w.allows(ns),
            Role::Attr(_)
            | Role::AnyAttr(_)
            | Role::Text
            | Role::Type(_)
            | Role::Nil
            | Role::Embed
            | Role::Order => false,
            Role::Group => match self.resolve(t) {
                // An `all` group: any of its elements may come first.
                Kind::Sequence(comps) if comps.first().is_some_and(|c| c.role == Role::Order) => {
                    comps
                        .iter()
                        .any(|c| self.starts(c.ty, &c.role, ns, local, depth + 1))
                }
                Kind::Sequence(comps) => {
                    for c in comps {
                        if self.starts(c.ty, &c.role, ns, local, depth + 1) {
                            return true;
                        }
                        if !(c.optional || self.ty_emptiable(c.ty, &c.role, depth + 1)) {
                            return false;
                        }
                    }
                    false
                }
                Kind::Choice(alts) => alts
                    .iter()
                    .any(|c| self.starts(c.ty, &c.role, ns, local, depth + 1)),
                Kind::SeqOf { item, .. } => self.starts(item.ty, &item.role, ns, local, depth + 1),
                _ => false,
            },
        }
    }
}
