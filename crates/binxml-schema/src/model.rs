//! The schema components (XML Schema 1.0 Part 1 section 3), resolved: every reference by name
//! has become an index into the [`Schema`]'s tables, model groups and attribute groups are
//! expanded where they are used, and derived complex types carry their effective content and
//! attribute uses. This is the one model that the validator and the schema-informed codecs read.

use std::collections::BTreeMap;
use std::fmt;

use crate::datatypes::{Builtin, Facets};

/// An expanded name: namespace name (`""` for none) and local name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Name {
    /// The namespace name, `""` when absent.
    pub ns: String,
    /// The local name.
    pub local: String,
}

impl Name {
    /// A name from its parts.
    pub fn new(ns: impl Into<String>, local: impl Into<String>) -> Self {
        Name {
            ns: ns.into(),
            local: local.into(),
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ns.is_empty() {
            f.write_str(&self.local)
        } else {
            write!(f, "{{{}}}{}", self.ns, self.local)
        }
    }
}

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// An element declaration in [`Schema::element`].
    ElemId
);
id!(
    /// A type definition in [`Schema::type_def`].
    TypeId
);
id!(
    /// An attribute declaration in [`Schema::attribute`].
    AttrId
);

/// Where a declaration was written: the schema document and the byte offset of its element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// Index into [`Schema::documents`]; `u32::MAX` for the built-in components.
    pub doc: u32,
    /// Byte offset of the declaration's start tag.
    pub offset: u64,
}

/// A default or fixed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueConstraint {
    /// `default="..."`.
    Default(String),
    /// `fixed="..."`.
    Fixed(String),
}

/// An element declaration.
#[derive(Clone, Debug)]
pub struct ElementDecl {
    /// Its name (a local declaration is qualified according to `form`/`elementFormDefault`).
    pub name: Name,
    /// Its type definition.
    pub type_def: TypeId,
    /// `nillable="true"`.
    pub nillable: bool,
    /// `abstract="true"`.
    pub abstract_: bool,
    /// A global declaration (a child of `<schema>`), else local to a content model.
    pub global: bool,
    /// The head of the substitution group it belongs to.
    pub substitution_head: Option<ElemId>,
    /// `default` or `fixed`.
    pub value: Option<ValueConstraint>,
    /// Derivations blocked in instances (`block`, or `blockDefault`).
    pub block: Derivations,
    /// Where it was declared.
    pub origin: Origin,
}

/// An attribute declaration.
#[derive(Clone, Debug)]
pub struct AttributeDecl {
    /// Its name.
    pub name: Name,
    /// Its simple type.
    pub type_def: TypeId,
    /// `default` or `fixed` on the declaration.
    pub value: Option<ValueConstraint>,
    /// A global declaration.
    pub global: bool,
    /// Where it was declared.
    pub origin: Origin,
}

/// An attribute use of a complex type.
#[derive(Clone, Debug)]
pub struct AttributeUse {
    /// The declaration (its name, its type).
    pub decl: AttrId,
    /// `use="required"`.
    pub required: bool,
    /// `default` or `fixed` on the use (overrides the declaration's).
    pub value: Option<ValueConstraint>,
}

/// A set of derivation methods (`block`, `final`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Derivations {
    /// By extension.
    pub extension: bool,
    /// By restriction.
    pub restriction: bool,
    /// By substitution (elements' `block` only).
    pub substitution: bool,
    /// By list (simple types' `final`).
    pub list: bool,
    /// By union (simple types' `final`).
    pub union: bool,
}

/// A type definition.
#[derive(Clone, Debug)]
// The table of types is built once and read; boxing the larger variant would only add an
// indirection to every read.
#[allow(clippy::large_enum_variant)]
pub enum TypeDef {
    /// A simple type.
    Simple(SimpleType),
    /// A complex type.
    Complex(ComplexType),
}

impl TypeDef {
    /// Its name, `None` for an anonymous type.
    pub fn name(&self) -> Option<&Name> {
        match self {
            TypeDef::Simple(s) => s.name.as_ref(),
            TypeDef::Complex(c) => c.name.as_ref(),
        }
    }

    /// The base type definition (`None` only for `anyType`).
    pub fn base(&self) -> Option<TypeId> {
        match self {
            TypeDef::Simple(s) => s.base,
            TypeDef::Complex(c) => c.base,
        }
    }
}

/// The variety of a simple type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variety {
    /// An atomic type; the built-in it is derived from (a primitive or a derived built-in).
    Atomic(Builtin),
    /// A list of items of a simple type.
    List(TypeId),
    /// A union of member types, tried in order.
    Union(Vec<TypeId>),
}

/// A simple type definition.
#[derive(Clone, Debug)]
pub struct SimpleType {
    /// Its name, `None` when anonymous.
    pub name: Option<Name>,
    /// The base type (`anySimpleType`'s is `anyType`).
    pub base: Option<TypeId>,
    /// Atomic, list or union.
    pub variety: Variety,
    /// The built-in type this one is (for the built-ins) or restricts most closely.
    pub builtin: Builtin,
    /// The effective facets (its own and its bases').
    pub facets: Facets,
    /// `final`.
    pub final_: Derivations,
    /// Where it was declared.
    pub origin: Origin,
}

/// How a complex type was derived from its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derivation {
    /// By extension.
    Extension,
    /// By restriction.
    Restriction,
}

/// A complex type's content type.
#[derive(Clone, Debug)]
pub enum Content {
    /// No content.
    Empty,
    /// Character data of a simple type.
    Simple(TypeId),
    /// Elements, as a particle; `mixed` allows character data between them.
    Elements {
        /// The content model.
        particle: Particle,
        /// Character data allowed between the elements.
        mixed: bool,
    },
}

/// A complex type definition.
#[derive(Clone, Debug)]
pub struct ComplexType {
    /// Its name, `None` when anonymous.
    pub name: Option<Name>,
    /// The base type (`None` for `anyType` only).
    pub base: Option<TypeId>,
    /// Extension or restriction of the base.
    pub derivation: Derivation,
    /// `abstract="true"`.
    pub abstract_: bool,
    /// The content type.
    pub content: Content,
    /// Attribute uses, sorted by name (local name, then namespace, as EXI orders them).
    pub attributes: Vec<AttributeUse>,
    /// The attribute wildcard.
    pub attribute_wildcard: Option<Wildcard>,
    /// `block`.
    pub block: Derivations,
    /// `final`.
    pub final_: Derivations,
    /// Where it was declared.
    pub origin: Origin,
}

/// How many times a particle may occur at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Max {
    /// At most this many.
    Bounded(u32),
    /// `maxOccurs="unbounded"`.
    Unbounded,
}

/// A particle: a term with occurrence bounds.
#[derive(Clone, Debug)]
pub struct Particle {
    /// minOccurs.
    pub min: u32,
    /// maxOccurs.
    pub max: Max,
    /// What occurs.
    pub term: Term,
}

impl Particle {
    /// Whether the particle can match nothing (it is emptiable).
    pub fn emptiable(&self) -> bool {
        self.min == 0
            || match &self.term {
                Term::Element(_) | Term::Wildcard(_) => false,
                Term::Group(g) => match g.compositor {
                    Compositor::Choice => {
                        g.particles.is_empty() || g.particles.iter().any(Particle::emptiable)
                    }
                    Compositor::Sequence | Compositor::All => {
                        g.particles.iter().all(Particle::emptiable)
                    }
                },
            }
    }
}

/// The term of a particle.
#[derive(Clone, Debug)]
pub enum Term {
    /// An element declaration (global, by `ref`, or local).
    Element(ElemId),
    /// A model group.
    Group(ModelGroup),
    /// An element wildcard (`<any>`).
    Wildcard(Wildcard),
}

/// A model group's compositor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compositor {
    /// `<sequence>`.
    Sequence,
    /// `<choice>`.
    Choice,
    /// `<all>`.
    All,
}

/// A model group.
#[derive(Clone, Debug)]
pub struct ModelGroup {
    /// Sequence, choice or all.
    pub compositor: Compositor,
    /// The particles, in schema order.
    pub particles: Vec<Particle>,
}

/// Which namespaces a wildcard allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamespaceConstraint {
    /// `##any`.
    Any,
    /// `##other`: any namespace but this one (the target namespace) and no namespace.
    Not(String),
    /// An explicit list (`""` stands for no namespace: `##local`).
    Set(Vec<String>),
}

impl NamespaceConstraint {
    /// Whether a name in namespace `ns` is allowed.
    pub fn allows(&self, ns: &str) -> bool {
        match self {
            NamespaceConstraint::Any => true,
            NamespaceConstraint::Not(t) => !ns.is_empty() && ns != t,
            NamespaceConstraint::Set(set) => set.iter().any(|s| s == ns),
        }
    }
}

/// How a wildcard's matches are validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessContents {
    /// A declaration must exist and is used.
    Strict,
    /// A declaration is used when one exists.
    Lax,
    /// Not validated.
    Skip,
}

/// An element or attribute wildcard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wildcard {
    /// The namespaces allowed.
    pub namespaces: NamespaceConstraint,
    /// strict, lax or skip.
    pub process: ProcessContents,
}

/// A schema document that went into a [`Schema`].
#[derive(Clone, Debug)]
pub struct SchemaDocument {
    /// Where it was read from (a path, or the name it was given).
    pub location: String,
    /// Its target namespace (after chameleon inclusion).
    pub target_namespace: String,
    /// Its bytes, kept so that errors can give lines and columns.
    pub bytes: Vec<u8>,
}

/// A loaded, resolved schema: the components of every schema document of the set.
#[derive(Clone, Debug)]
pub struct Schema {
    pub(crate) elements: Vec<ElementDecl>,
    pub(crate) attributes: Vec<AttributeDecl>,
    pub(crate) types: Vec<TypeDef>,
    pub(crate) global_elements: BTreeMap<Name, ElemId>,
    pub(crate) global_attributes: BTreeMap<Name, AttrId>,
    pub(crate) global_types: BTreeMap<Name, TypeId>,
    /// For each element: the declarations that may substitute for it (itself included when not
    /// abstract), transitively, sorted by name.
    pub(crate) substitutes: Vec<Vec<ElemId>>,
    /// For each element: its whole substitution group, abstract members included, and itself.
    pub(crate) substitution_groups: Vec<Vec<ElemId>>,
    pub(crate) documents: Vec<SchemaDocument>,
    /// For each complex type with element content, its compiled content model.
    pub(crate) models: Vec<Option<crate::automaton::ContentModel>>,
    /// Some schema document imports the XML namespace.
    pub(crate) imports_xml_namespace: bool,
}

/// The built-in types' fixed ids: `anyType` first, then `anySimpleType`, then the built-in
/// simple types in [`Builtin::ALL`] order.
pub const ANY_TYPE: TypeId = TypeId(0);
/// `anySimpleType`.
pub const ANY_SIMPLE_TYPE: TypeId = TypeId(1);

impl Schema {
    /// An element declaration.
    pub fn element(&self, id: ElemId) -> &ElementDecl {
        &self.elements[id.index()]
    }

    /// An attribute declaration.
    pub fn attribute(&self, id: AttrId) -> &AttributeDecl {
        &self.attributes[id.index()]
    }

    /// A type definition.
    pub fn type_def(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }

    /// The global element declaration named `name`.
    pub fn global_element(&self, ns: &str, local: &str) -> Option<ElemId> {
        self.global_elements.get(&Name::new(ns, local)).copied()
    }

    /// The global attribute declaration named `name`.
    pub fn global_attribute(&self, ns: &str, local: &str) -> Option<AttrId> {
        self.global_attributes.get(&Name::new(ns, local)).copied()
    }

    /// The global (or built-in) type definition named `name`.
    pub fn global_type(&self, ns: &str, local: &str) -> Option<TypeId> {
        self.global_types.get(&Name::new(ns, local)).copied()
    }

    /// Global element declarations, sorted by name (namespace, then local name).
    pub fn global_elements(&self) -> impl Iterator<Item = (&Name, ElemId)> {
        self.global_elements.iter().map(|(n, id)| (n, *id))
    }

    /// Global attribute declarations, sorted by name.
    pub fn global_attributes(&self) -> impl Iterator<Item = (&Name, AttrId)> {
        self.global_attributes.iter().map(|(n, id)| (n, *id))
    }

    /// Named type definitions (the built-ins included), sorted by name.
    pub fn global_types(&self) -> impl Iterator<Item = (&Name, TypeId)> {
        self.global_types.iter().map(|(n, id)| (n, *id))
    }

    /// Every element declaration, global and local.
    pub fn element_count(&self) -> usize {
        self.elements.len()
    }

    /// Every attribute declaration, global and local (the XML namespace's built in).
    pub fn attribute_count(&self) -> usize {
        self.attributes.len()
    }

    /// Every type definition, named and anonymous, the built-ins included.
    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    /// The declarations that may appear where `head` is expected: `head` itself unless abstract,
    /// and the members of its substitution group that are not abstract, transitively, unless it
    /// blocks substitution (sorted by local name, then namespace).
    pub fn substitutes(&self, head: ElemId) -> &[ElemId] {
        &self.substitutes[head.index()]
    }

    /// `head` and every declaration that reaches it through substitution group affiliations,
    /// abstract or blocked or not (EXI 1.0 8.5.4.1.6's set *S*), sorted by local name, then
    /// namespace.
    pub fn substitution_group(&self, head: ElemId) -> &[ElemId] {
        &self.substitution_groups[head.index()]
    }

    /// The compiled content model of a complex type with element content.
    pub fn content_model(&self, t: TypeId) -> Option<&crate::automaton::ContentModel> {
        self.models.get(t.index()).and_then(Option::as_ref)
    }

    /// Whether the schema imports the XML namespace: its attributes (xml:lang, xml:space,
    /// xml:base, xml:id) are then declarations of the schema, not only known to the validator.
    pub fn imports_xml_namespace(&self) -> bool {
        self.imports_xml_namespace
    }

    /// The schema documents read, in the order they were loaded.
    pub fn documents(&self) -> &[SchemaDocument] {
        &self.documents
    }

    /// Whether `derived` is `base` or derived from it (by any chain of extensions and
    /// restrictions).
    pub fn derives_from(&self, derived: TypeId, base: TypeId) -> bool {
        let mut t = Some(derived);
        let mut steps = 0;
        while let Some(id) = t {
            if id == base {
                return true;
            }
            // The loader refuses circular derivations; the bound only guards the walk.
            steps += 1;
            if steps > self.types.len() {
                return false;
            }
            t = self.types[id.index()].base();
        }
        false
    }

    /// The derivation methods used on the way from `base` down to `derived` (`None` when
    /// `derived` does not derive from `base`).
    pub fn derivation_methods(&self, derived: TypeId, base: TypeId) -> Option<Derivations> {
        let mut used = Derivations::default();
        let mut t = derived;
        for _ in 0..=self.types.len() {
            if t == base {
                return Some(used);
            }
            let def = &self.types[t.index()];
            match def {
                TypeDef::Complex(c) => match c.derivation {
                    Derivation::Extension => used.extension = true,
                    Derivation::Restriction => used.restriction = true,
                },
                TypeDef::Simple(s) => match s.variety {
                    Variety::List(_) if s.base == Some(ANY_SIMPLE_TYPE) => used.list = true,
                    Variety::Union(_) if s.base == Some(ANY_SIMPLE_TYPE) => used.union = true,
                    _ => used.restriction = true,
                },
            }
            t = def.base()?;
        }
        None
    }

    /// The simple type of an element's character content: the type itself when simple, the
    /// content type of a complex type with simple content, else `None`.
    pub fn simple_content(&self, t: TypeId) -> Option<TypeId> {
        match &self.types[t.index()] {
            TypeDef::Simple(_) => Some(t),
            TypeDef::Complex(c) => match c.content {
                Content::Simple(s) => Some(s),
                _ => None,
            },
        }
    }

    /// Line and column (1-based) of a byte offset in schema document `doc`.
    pub fn line_col(&self, origin: Origin) -> Option<(u64, u64)> {
        let d = self.documents.get(origin.doc as usize)?;
        Some(binxml_core::error::line_col(
            &d.bytes,
            origin.offset as usize,
        ))
    }
}
