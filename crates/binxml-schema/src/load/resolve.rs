//! Resolution, first pass: every component reachable from the top level is given its id and
//! its own parts (what its declaration says, references turned into ids). Named types,
//! elements and attributes are referred to by id before they are built, so recursive content
//! models need nothing special; what depends on a base type's final form (extension content,
//! inherited attributes, facets) is left to `finish.rs`.

use std::collections::HashMap;
use std::rc::Rc;

use super::doc::{Elem, Scope, XS};
use super::{Doc, LoadOptions, Raw, RawRef, finish, parse_derivations};
use crate::datatypes::{Builtin, Facets};
use crate::error::SchemaError;
use crate::model::*;

/// A facet as written in a restriction, checked and combined in `finish.rs`.
pub(crate) struct RawFacet {
    pub kind: String,
    pub value: String,
    pub fixed: bool,
    pub scope: Rc<Scope>,
    pub doc: u32,
    pub offset: u64,
}

/// What a simple type's declaration says.
pub(crate) enum SimpleSpec {
    /// `<restriction>`; `base: None` is the content type of the complex base (a complex type's
    /// simple content restricted).
    Restriction {
        base: Option<TypeId>,
        facets: Vec<RawFacet>,
    },
    List(TypeId),
    Union(Vec<TypeId>),
}

/// What a complex type's declaration says, before its base is taken into account.
pub(crate) struct ComplexSpec {
    pub base: TypeId,
    pub derivation: Derivation,
    /// `Some` for `<simpleContent>`: `None` inside for an extension, the anonymous content type
    /// for a restriction.
    pub simple: Option<Option<TypeId>>,
    pub particle: Option<Particle>,
    pub mixed: bool,
    pub attributes: Vec<AttributeUse>,
    pub prohibited: Vec<Name>,
    pub wildcard: Option<Wildcard>,
}

/// A type being built: its model form (with placeholders) and what `finish.rs` needs.
pub(crate) enum Pending {
    Done,
    Simple(SimpleSpec),
    Complex(ComplexSpec),
}

pub(crate) struct Resolver<'d> {
    pub docs: &'d [Doc],
    pub raw: &'d Raw,
    pub elements: Vec<ElementDecl>,
    pub attributes: Vec<AttributeDecl>,
    pub types: Vec<TypeDef>,
    pub pending: Vec<Pending>,
    global_elements: HashMap<Name, ElemId>,
    global_attributes: HashMap<Name, AttrId>,
    global_types: HashMap<Name, TypeId>,
    /// Redefined originals already given an id.
    original_types: HashMap<Name, TypeId>,
    /// Named components whose declaration is still to be read.
    queue: Vec<Job>,
    /// Named groups being expanded (a group that contains itself is an error).
    expanding: Vec<Name>,
    /// Global elements whose type comes from their substitution group head.
    pub typed_by_head: Vec<ElemId>,
    /// How deep the particle being read is nested (named groups expanded in place), bounded
    /// so that the model, and every walk over it, stays within a thread's stack.
    particle_depth: usize,
    /// Each named model group read once: the term and its height. A group is one component
    /// (its local element declarations are the same wherever the group is used), so later
    /// references reuse it.
    groups: HashMap<(u32, u32, Option<u32>), (Term, usize)>,
    /// Each attribute group read once: its attribute uses, prohibitions and wildcard.
    attribute_groups: HashMap<(u32, u32, Option<u32>), AttributeGroupParts>,
    /// Particles in the model, copies of groups included (bounded: nested references can
    /// multiply them).
    particles: usize,
}

type AttributeGroupParts = (Vec<AttributeUse>, Vec<Name>, Option<Wildcard>);

/// The most particles a schema's content models may hold, copies of named groups included.
pub(crate) const MAX_PARTICLES: usize = 2_000_000;

fn key(r: RawRef) -> (u32, u32, Option<u32>) {
    (r.doc, r.top, r.sub)
}

/// The nesting height of a term's particles, and how many particles it holds.
fn measure(t: &Term) -> (usize, usize) {
    match t {
        Term::Group(g) => g.particles.iter().fold((1, 1), |(h, n), p| {
            let (ph, pn) = measure(&p.term);
            (h.max(ph + 1), n + pn)
        }),
        _ => (1, 1),
    }
}

/// The deepest particle nesting accepted, model groups expanded.
pub(crate) const MAX_PARTICLE_DEPTH: usize = 1000;

enum Job {
    Type(TypeId, RawRef),
    Element(ElemId, RawRef),
    Attribute(AttrId, RawRef),
}

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

pub(crate) fn resolve(
    docs: Vec<Doc>,
    raw: Raw,
    options: &LoadOptions,
) -> Result<Schema, SchemaError> {
    let mut r = Resolver {
        docs: &docs,
        raw: &raw,
        elements: Vec::new(),
        attributes: Vec::new(),
        types: Vec::new(),
        pending: Vec::new(),
        global_elements: HashMap::new(),
        global_attributes: HashMap::new(),
        global_types: HashMap::new(),
        original_types: HashMap::new(),
        queue: Vec::new(),
        expanding: Vec::new(),
        typed_by_head: Vec::new(),
        particle_depth: 0,
        groups: HashMap::new(),
        attribute_groups: HashMap::new(),
        particles: 0,
    };
    r.builtins();
    let mut names: Vec<&Name> = raw.types.keys().collect();
    names.sort();
    for n in names {
        r.named_type(n, None)?;
    }
    let mut names: Vec<&Name> = raw.elements.keys().collect();
    names.sort();
    for n in names {
        r.named_element(n, None)?;
    }
    let mut names: Vec<&Name> = raw.attributes.keys().collect();
    names.sort();
    for n in names {
        r.named_attribute(n, None)?;
    }
    while let Some(job) = r.queue.pop() {
        match job {
            Job::Type(id, at) => r.build_type(id, at)?,
            Job::Element(id, at) => r.build_global_element(id, at)?,
            Job::Attribute(id, at) => r.build_global_attribute(id, at)?,
        }
    }
    let Resolver {
        elements,
        attributes,
        types,
        pending,
        global_elements,
        global_attributes,
        global_types,
        typed_by_head,
        ..
    } = r;
    finish::finish(
        finish::Parts {
            elements,
            attributes,
            types,
            pending,
            global_elements,
            global_attributes,
            global_types,
            typed_by_head,
        },
        docs,
        options,
    )
}

fn placeholder_type() -> TypeDef {
    TypeDef::Simple(SimpleType {
        name: None,
        base: None,
        variety: Variety::Atomic(Builtin::AnySimpleType),
        builtin: Builtin::AnySimpleType,
        facets: Facets::default(),
        final_: Derivations::default(),
        origin: Origin::default(),
    })
}

/// Occurrence bounds of a particle's element.
fn occurs(doc: &Doc, e: &Elem) -> Result<(u32, Max), SchemaError> {
    let min = match e.attr("minOccurs") {
        None => 1,
        Some(v) => v.trim().parse::<u32>().map_err(|_| {
            doc.error(
                e.offset,
                format!("minOccurs '{v}' is not a number below 2^32"),
            )
        })?,
    };
    let max = match e.attr("maxOccurs").map(str::trim) {
        None => Max::Bounded(1),
        Some("unbounded") => Max::Unbounded,
        Some(v) => Max::Bounded(v.parse::<u32>().map_err(|_| {
            doc.error(
                e.offset,
                format!("maxOccurs '{v}' is not 'unbounded' or a number below 2^32"),
            )
        })?),
    };
    if let Max::Bounded(m) = max
        && m < min
    {
        return Err(doc.error(
            e.offset,
            format!("maxOccurs {m} is less than minOccurs {min}"),
        ));
    }
    Ok((min, max))
}

fn bool_attr(e: &Elem, name: &str) -> bool {
    matches!(e.attr(name).map(str::trim), Some("true" | "1"))
}

impl<'d> Resolver<'d> {
    fn doc(&self, at: RawRef) -> &'d Doc {
        &self.docs[at.doc as usize]
    }

    fn origin(at: u32, e: &Elem) -> Origin {
        Origin {
            doc: at,
            offset: e.offset,
        }
    }

    /// `anyType`, `anySimpleType` and the built-in simple types, at their fixed ids.
    fn builtins(&mut self) {
        let any_wildcard = Wildcard {
            namespaces: NamespaceConstraint::Any,
            process: ProcessContents::Lax,
        };
        self.types.push(TypeDef::Complex(ComplexType {
            name: Some(Name::new(XS, "anyType")),
            base: None,
            derivation: Derivation::Restriction,
            abstract_: false,
            content: Content::Elements {
                particle: Particle {
                    min: 1,
                    max: Max::Bounded(1),
                    term: Term::Group(ModelGroup {
                        compositor: Compositor::Sequence,
                        particles: vec![Particle {
                            min: 0,
                            max: Max::Unbounded,
                            term: Term::Wildcard(any_wildcard.clone()),
                        }],
                    }),
                },
                mixed: true,
            },
            attributes: Vec::new(),
            attribute_wildcard: Some(any_wildcard),
            block: Derivations::default(),
            final_: Derivations::default(),
            origin: Origin {
                doc: u32::MAX,
                offset: 0,
            },
        }));
        self.pending.push(Pending::Done);
        self.global_types.insert(Name::new(XS, "anyType"), ANY_TYPE);
        let mut ids: HashMap<Builtin, TypeId> = HashMap::new();
        for b in Builtin::all() {
            let id = TypeId(self.types.len() as u32);
            ids.insert(b, id);
            let (base, variety) = match (b.base(), b.list_item()) {
                (None, _) => (Some(ANY_TYPE), Variety::Atomic(b)),
                (Some(base), Some(item)) => (Some(ids[&base]), Variety::List(ids[&item])),
                (Some(base), None) => (Some(ids[&base]), Variety::Atomic(b)),
            };
            self.types.push(TypeDef::Simple(SimpleType {
                name: Some(Name::new(XS, b.name())),
                base,
                variety,
                builtin: b,
                facets: Facets::builtin(b),
                final_: Derivations::default(),
                origin: Origin {
                    doc: u32::MAX,
                    offset: 0,
                },
            }));
            self.pending.push(Pending::Done);
            self.global_types.insert(Name::new(XS, b.name()), id);
        }
        debug_assert_eq!(ids[&Builtin::AnySimpleType], ANY_SIMPLE_TYPE);
        self.builtin_xml_attributes(&ids);
    }

    /// The attributes of the XML namespace (xml:lang, xml:space, xml:base, xml:id), which
    /// schemas import from a location on the web that is never fetched.
    fn builtin_xml_attributes(&mut self, ids: &HashMap<Builtin, TypeId>) {
        use crate::datatypes::{FacetKind, FacetSpec, NoNamespaces};
        let xml = binxml_core::XML_NS;
        let builtin = Origin {
            doc: u32::MAX,
            offset: 0,
        };
        // The types of the W3C's xml.xsd: xml:lang is a language or the empty string,
        // xml:space one of two words.
        let restricted = |this: &mut Self, base: Builtin, values: &[&str]| -> TypeId {
            let specs: Vec<FacetSpec<'_>> = values
                .iter()
                .map(|v| FacetSpec {
                    kind: FacetKind::Enumeration,
                    value: v,
                    fixed: false,
                    ns: &NoNamespaces,
                })
                .collect();
            let facets = Facets::builtin(base)
                .restrict(&specs)
                .expect("the XML namespace's enumerations are valid");
            let id = TypeId(this.types.len() as u32);
            this.types.push(TypeDef::Simple(SimpleType {
                name: None,
                base: Some(ids[&base]),
                variety: Variety::Atomic(base),
                builtin: base,
                facets,
                final_: Derivations::default(),
                origin: builtin,
            }));
            this.pending.push(Pending::Done);
            id
        };
        let empty = restricted(self, Builtin::String, &[""]);
        let space = restricted(self, Builtin::NCName, &["default", "preserve"]);
        let lang = TypeId(self.types.len() as u32);
        self.types.push(TypeDef::Simple(SimpleType {
            name: None,
            base: Some(ANY_SIMPLE_TYPE),
            variety: Variety::Union(vec![ids[&Builtin::Language], empty]),
            builtin: Builtin::AnySimpleType,
            facets: Facets::union(),
            final_: Derivations::default(),
            origin: builtin,
        }));
        self.pending.push(Pending::Done);
        for (local, t) in [
            ("lang", lang),
            ("space", space),
            ("base", ids[&Builtin::AnyUri]),
            ("id", ids[&Builtin::Id]),
        ] {
            let id = AttrId(self.attributes.len() as u32);
            self.attributes.push(AttributeDecl {
                name: Name::new(xml, local),
                type_def: t,
                value: None,
                global: true,
                origin: builtin,
            });
            self.global_attributes.insert(Name::new(xml, local), id);
        }
    }

    /// A QName-valued attribute as an expanded name, resolved in the element's scope (an
    /// unprefixed name in a chameleon-included document means the includer's namespace).
    fn qname(&self, at: RawRef, e: &Elem, value: &str) -> Result<Name, SchemaError> {
        let doc = self.doc(at);
        let value = value.trim();
        let (prefix, local) = value.split_once(':').unwrap_or(("", value));
        let ns = e.scope.resolve(prefix).ok_or_else(|| {
            doc.error(
                e.offset,
                format!("the prefix '{prefix}' of '{value}' is not declared"),
            )
        })?;
        let ns = if ns.is_empty() && doc.chameleon {
            doc.tns.as_str()
        } else {
            ns
        };
        Ok(Name::new(ns, local))
    }

    /// The id of the named type, read later if new. `redefining` is the redefinition being
    /// read, whose reference to its own name means the original.
    fn named_type(
        &mut self,
        name: &Name,
        from: Option<(RawRef, &Elem)>,
    ) -> Result<TypeId, SchemaError> {
        if let Some(&id) = self.global_types.get(name) {
            return Ok(id);
        }
        let Some(&at) = self.raw.types.get(name) else {
            return Err(self.missing("type", name, from));
        };
        let id = self.new_type();
        self.global_types.insert(name.clone(), id);
        self.queue.push(Job::Type(id, at));
        Ok(id)
    }

    fn missing(&self, kind: &str, name: &Name, from: Option<(RawRef, &Elem)>) -> SchemaError {
        match from {
            Some((at, e)) => self.doc(at).error(
                e.offset,
                format!("refers to {kind} {name}, which is not declared"),
            ),
            None => SchemaError::new("schema", format!("{kind} {name} is not declared")),
        }
    }

    fn new_type(&mut self) -> TypeId {
        let id = TypeId(self.types.len() as u32);
        self.types.push(placeholder_type());
        self.pending.push(Pending::Done);
        id
    }

    fn named_element(
        &mut self,
        name: &Name,
        from: Option<(RawRef, &Elem)>,
    ) -> Result<ElemId, SchemaError> {
        if let Some(&id) = self.global_elements.get(name) {
            return Ok(id);
        }
        let Some(&at) = self.raw.elements.get(name) else {
            return Err(self.missing("element", name, from));
        };
        let id = ElemId(self.elements.len() as u32);
        self.elements.push(ElementDecl {
            name: name.clone(),
            type_def: ANY_TYPE,
            nillable: false,
            abstract_: false,
            global: true,
            substitution_head: None,
            value: None,
            block: Derivations::default(),
            origin: Origin::default(),
        });
        self.global_elements.insert(name.clone(), id);
        self.queue.push(Job::Element(id, at));
        Ok(id)
    }

    fn named_attribute(
        &mut self,
        name: &Name,
        from: Option<(RawRef, &Elem)>,
    ) -> Result<AttrId, SchemaError> {
        if let Some(&id) = self.global_attributes.get(name) {
            return Ok(id);
        }
        let Some(&at) = self.raw.attributes.get(name) else {
            return Err(self.missing("attribute", name, from));
        };
        let id = AttrId(self.attributes.len() as u32);
        self.attributes.push(AttributeDecl {
            name: name.clone(),
            type_def: ANY_SIMPLE_TYPE,
            value: None,
            global: true,
            origin: Origin::default(),
        });
        self.global_attributes.insert(name.clone(), id);
        self.queue.push(Job::Attribute(id, at));
        Ok(id)
    }

    /// A reference to a type from a declaration: `base` of a redefinition naming itself means
    /// the original it replaces.
    fn type_ref(
        &mut self,
        at: RawRef,
        e: &Elem,
        value: &str,
        own: Option<&Name>,
    ) -> Result<TypeId, SchemaError> {
        let name = self.qname(at, e, value)?;
        if own == Some(&name)
            && let Some(&orig) = self.raw.original_types.get(&name)
        {
            if let Some(&id) = self.original_types.get(&name) {
                return Ok(id);
            }
            let id = self.new_type();
            self.original_types.insert(name, id);
            self.queue.push(Job::Type(id, orig));
            return Ok(id);
        }
        self.named_type(&name, Some((at, e)))
    }

    fn build_type(&mut self, id: TypeId, at: RawRef) -> Result<(), SchemaError> {
        let e = at.elem(self.docs);
        let name = e
            .attr("name")
            .map(|n| Name::new(self.doc(at).tns.clone(), n));
        if e.is("simpleType") {
            self.simple_type(id, at, e, name)
        } else {
            self.complex_type(id, at, e, name)
        }
    }

    /// An anonymous type declared inside `e` (`simpleType` or `complexType` child).
    fn anonymous_type(&mut self, at: RawRef, e: &'d Elem) -> Result<TypeId, SchemaError> {
        let id = self.new_type();
        if e.is("simpleType") {
            self.simple_type(id, at, e, None)?;
        } else {
            self.complex_type(id, at, e, None)?;
        }
        Ok(id)
    }

    fn simple_type(
        &mut self,
        id: TypeId,
        at: RawRef,
        e: &'d Elem,
        name: Option<Name>,
    ) -> Result<(), SchemaError> {
        let doc = self.doc(at);
        let final_ = parse_derivations(e.attr("final"), doc.final_default);
        let Some(body) = e.xs_children().next() else {
            return Err(doc.error(e.offset, "a simpleType without restriction, list or union"));
        };
        let spec = match body.local.as_str() {
            "restriction" => {
                let base = match body.attr("base") {
                    Some(b) => self.type_ref(at, body, b, name.as_ref())?,
                    None => match body.child("simpleType") {
                        Some(inner) => self.anonymous_type(at, inner)?,
                        None => return Err(doc.error(body.offset, "a restriction without base")),
                    },
                };
                SimpleSpec::Restriction {
                    base: Some(base),
                    facets: self.facets(at, body),
                }
            }
            "list" => {
                let item = match body.attr("itemType") {
                    Some(t) => self.type_ref(at, body, t, None)?,
                    None => match body.child("simpleType") {
                        Some(inner) => self.anonymous_type(at, inner)?,
                        None => return Err(doc.error(body.offset, "a list without itemType")),
                    },
                };
                SimpleSpec::List(item)
            }
            "union" => {
                let mut members = Vec::new();
                if let Some(list) = body.attr("memberTypes") {
                    for m in list.split_ascii_whitespace() {
                        members.push(self.type_ref(at, body, m, None)?);
                    }
                }
                for inner in body.xs_children().filter(|c| c.local == "simpleType") {
                    members.push(self.anonymous_type(at, inner)?);
                }
                if members.is_empty() {
                    return Err(doc.error(body.offset, "a union without member types"));
                }
                SimpleSpec::Union(members)
            }
            other => {
                return Err(doc.error(
                    body.offset,
                    format!("<{other}> is not allowed in a simpleType"),
                ));
            }
        };
        self.types[id.index()] = TypeDef::Simple(SimpleType {
            name,
            base: None,
            variety: Variety::Atomic(Builtin::AnySimpleType),
            builtin: Builtin::AnySimpleType,
            facets: Facets::default(),
            final_,
            origin: Self::origin(at.doc, e),
        });
        self.pending[id.index()] = Pending::Simple(spec);
        Ok(())
    }

    fn facets(&self, at: RawRef, body: &Elem) -> Vec<RawFacet> {
        body.xs_children()
            .filter(|c| {
                !matches!(
                    c.local.as_str(),
                    "simpleType"
                        | "attribute"
                        | "attributeGroup"
                        | "anyAttribute"
                        | "sequence"
                        | "choice"
                        | "all"
                        | "group"
                )
            })
            .map(|c| RawFacet {
                kind: c.local.clone(),
                value: c.attr("value").unwrap_or("").to_string(),
                fixed: bool_attr(c, "fixed"),
                scope: c.scope.clone(),
                doc: at.doc,
                offset: c.offset,
            })
            .collect()
    }

    fn complex_type(
        &mut self,
        id: TypeId,
        at: RawRef,
        e: &'d Elem,
        name: Option<Name>,
    ) -> Result<(), SchemaError> {
        let doc = self.doc(at);
        let mut mixed = bool_attr(e, "mixed");
        let mut spec = ComplexSpec {
            base: ANY_TYPE,
            derivation: Derivation::Restriction,
            simple: None,
            particle: None,
            mixed,
            attributes: Vec::new(),
            prohibited: Vec::new(),
            wildcard: None,
        };
        let first = e.xs_children().next();
        let body = match first {
            Some(c) if c.local == "simpleContent" || c.local == "complexContent" => {
                if c.local == "complexContent" && c.attr("mixed").is_some() {
                    mixed = bool_attr(c, "mixed");
                }
                let Some(d) = c.xs_children().next() else {
                    return Err(doc.error(
                        c.offset,
                        format!("<{}> without restriction or extension", c.local),
                    ));
                };
                spec.derivation = match d.local.as_str() {
                    "extension" => Derivation::Extension,
                    "restriction" => Derivation::Restriction,
                    other => return Err(doc.error(d.offset, format!("<{other}> in <{}>", c.local))),
                };
                let base = d
                    .attr("base")
                    .ok_or_else(|| doc.error(d.offset, format!("<{}> without base", d.local)))?;
                spec.base = self.type_ref(at, d, base, name.as_ref())?;
                if c.local == "simpleContent" {
                    spec.simple = Some(match spec.derivation {
                        Derivation::Extension => None,
                        Derivation::Restriction => {
                            let inner = match d.child("simpleType") {
                                Some(s) => Some(self.anonymous_type(at, s)?),
                                None => None,
                            };
                            let content = self.new_type();
                            self.types[content.index()] = TypeDef::Simple(SimpleType {
                                name: None,
                                base: None,
                                variety: Variety::Atomic(Builtin::AnySimpleType),
                                builtin: Builtin::AnySimpleType,
                                facets: Facets::default(),
                                final_: Derivations::default(),
                                origin: Self::origin(at.doc, d),
                            });
                            self.pending[content.index()] =
                                Pending::Simple(SimpleSpec::Restriction {
                                    base: inner,
                                    facets: self.facets(at, d),
                                });
                            Some(content)
                        }
                    });
                }
                d
            }
            _ => e,
        };
        spec.mixed = mixed;
        for c in body.xs_children() {
            match c.local.as_str() {
                "sequence" | "choice" | "all" | "group" => {
                    if spec.particle.is_some() {
                        return Err(doc.error(c.offset, "a second content model"));
                    }
                    spec.particle = Some(self.particle(at, c)?);
                }
                _ => {}
            }
        }
        self.attribute_uses(
            at,
            body,
            &mut spec.attributes,
            &mut spec.prohibited,
            &mut spec.wildcard,
        )?;
        let block = parse_derivations(e.attr("block"), doc.block_default);
        let final_ = parse_derivations(e.attr("final"), doc.final_default);
        self.types[id.index()] = TypeDef::Complex(ComplexType {
            name,
            base: Some(spec.base),
            derivation: spec.derivation,
            abstract_: bool_attr(e, "abstract"),
            content: Content::Empty,
            attributes: Vec::new(),
            attribute_wildcard: None,
            block,
            final_,
            origin: Self::origin(at.doc, e),
        });
        self.pending[id.index()] = Pending::Complex(spec);
        Ok(())
    }

    /// A particle from `<element>`, `<group ref>`, `<sequence>`, `<choice>`, `<all>`, `<any>`.
    fn particle(&mut self, at: RawRef, e: &'d Elem) -> Result<Particle, SchemaError> {
        if self.particle_depth >= MAX_PARTICLE_DEPTH {
            return Err(self.doc(at).error(
                e.offset,
                format!(
                    "particles nested more than {MAX_PARTICLE_DEPTH} deep (model groups expanded)"
                ),
            ));
        }
        self.particle_depth += 1;
        self.particles += 1;
        if self.particles > MAX_PARTICLES {
            self.particle_depth -= 1;
            return Err(self.doc(at).error(
                e.offset,
                format!("content models hold more than {MAX_PARTICLES} particles (model groups expanded)"),
            ));
        }
        let p = self.particle_inner(at, e);
        self.particle_depth -= 1;
        p
    }

    fn particle_inner(&mut self, at: RawRef, e: &'d Elem) -> Result<Particle, SchemaError> {
        let doc = self.doc(at);
        let (min, max) = occurs(doc, e)?;
        let term = match e.local.as_str() {
            "element" => Term::Element(self.local_element(at, e)?),
            "any" => Term::Wildcard(self.wildcard(at, e)),
            "sequence" | "choice" | "all" => {
                let compositor = match e.local.as_str() {
                    "sequence" => Compositor::Sequence,
                    "choice" => Compositor::Choice,
                    _ => Compositor::All,
                };
                let mut particles = Vec::new();
                for c in e.xs_children() {
                    match c.local.as_str() {
                        "element" | "any" | "sequence" | "choice" | "all" | "group" => {
                            particles.push(self.particle(at, c)?)
                        }
                        other => {
                            return Err(
                                doc.error(c.offset, format!("<{other}> inside <{}>", e.local))
                            );
                        }
                    }
                }
                Term::Group(ModelGroup {
                    compositor,
                    particles,
                })
            }
            "group" => {
                let r = e.attr("ref").ok_or_else(|| {
                    doc.error(e.offset, "a <group> inside a content model needs ref")
                })?;
                let name = self.qname(at, e, r)?;
                let group = self.group(at, e, &name)?;
                return Ok(Particle {
                    min,
                    max,
                    term: group.term,
                });
            }
            other => return Err(doc.error(e.offset, format!("<{other}> is not a particle"))),
        };
        Ok(Particle { min, max, term })
    }

    /// A named model group, expanded at its point of use.
    fn group(&mut self, at: RawRef, e: &Elem, name: &Name) -> Result<Particle, SchemaError> {
        let own = self.expanding.last() == Some(name);
        let found = if own {
            self.raw
                .original_groups
                .get(name)
                .or(self.raw.groups.get(name))
        } else {
            self.raw.groups.get(name)
        };
        let Some(&def) = found else {
            return Err(self.missing("group", name, Some((at, e))));
        };
        if let Some((term, height)) = self.groups.get(&key(def)) {
            let (_, count) = measure(term);
            if self.particle_depth + height > MAX_PARTICLE_DEPTH {
                return Err(self.doc(at).error(
                    e.offset,
                    format!("particles nested more than {MAX_PARTICLE_DEPTH} deep (model groups expanded)"),
                ));
            }
            self.particles += count;
            if self.particles > MAX_PARTICLES {
                return Err(self.doc(at).error(
                    e.offset,
                    format!("content models hold more than {MAX_PARTICLES} particles (model groups expanded)"),
                ));
            }
            return Ok(Particle {
                min: 1,
                max: Max::Bounded(1),
                term: term.clone(),
            });
        }
        if self.expanding.iter().filter(|n| *n == name).count() > usize::from(own) {
            return Err(self
                .doc(at)
                .error(e.offset, format!("group {name} contains itself")));
        }
        if self.expanding.len() > 256 {
            return Err(self
                .doc(at)
                .error(e.offset, "model groups nested more than 256 deep"));
        }
        let ge = def.elem(self.docs);
        let Some(body) = ge
            .xs_children()
            .find(|c| matches!(c.local.as_str(), "sequence" | "choice" | "all"))
        else {
            return Err(self.doc(def).error(
                ge.offset,
                format!("group {name} has no sequence, choice or all"),
            ));
        };
        self.expanding.push(name.clone());
        let p = self.particle(def, body);
        self.expanding.pop();
        let p = p?;
        let (height, _) = measure(&p.term);
        self.groups.insert(key(def), (p.term.clone(), height));
        Ok(Particle {
            min: 1,
            max: Max::Bounded(1),
            term: p.term,
        })
    }

    fn wildcard(&self, at: RawRef, e: &Elem) -> Wildcard {
        let tns = &self.doc(at).tns;
        let namespaces = match e.attr("namespace").map(str::trim) {
            None | Some("##any") => NamespaceConstraint::Any,
            Some("##other") => NamespaceConstraint::Not(tns.clone()),
            Some(list) => NamespaceConstraint::Set(
                list.split_ascii_whitespace()
                    .map(|t| match t {
                        "##targetNamespace" => tns.clone(),
                        "##local" => String::new(),
                        other => other.to_string(),
                    })
                    .collect(),
            ),
        };
        let process = match e.attr("processContents").map(str::trim) {
            Some("lax") => ProcessContents::Lax,
            Some("skip") => ProcessContents::Skip,
            _ => ProcessContents::Strict,
        };
        Wildcard {
            namespaces,
            process,
        }
    }

    /// An `<element>` inside a content model: a reference to a global declaration or a local
    /// declaration.
    fn local_element(&mut self, at: RawRef, e: &'d Elem) -> Result<ElemId, SchemaError> {
        let doc = self.doc(at);
        if let Some(r) = e.attr("ref") {
            let name = self.qname(at, e, r)?;
            return self.named_element(&name, Some((at, e)));
        }
        let local = e
            .attr("name")
            .ok_or_else(|| doc.error(e.offset, "an <element> without name or ref"))?;
        let qualified = match e.attr("form") {
            Some(f) => f.trim() == "qualified",
            None => doc.element_qualified,
        };
        let ns = if qualified {
            doc.tns.clone()
        } else {
            String::new()
        };
        let id = ElemId(self.elements.len() as u32);
        self.elements.push(ElementDecl {
            name: Name::new(ns, local),
            type_def: ANY_TYPE,
            nillable: false,
            abstract_: false,
            global: false,
            substitution_head: None,
            value: None,
            block: Derivations::default(),
            origin: Self::origin(at.doc, e),
        });
        self.element_parts(id, at, e)?;
        Ok(id)
    }

    fn build_global_element(&mut self, id: ElemId, at: RawRef) -> Result<(), SchemaError> {
        let e = at.elem(self.docs);
        self.elements[id.index()].origin = Self::origin(at.doc, e);
        if let Some(h) = e.attr("substitutionGroup") {
            // XSD 1.0: one head.
            let name = self.qname(at, e, h.split_ascii_whitespace().next().unwrap_or(""))?;
            let head = self.named_element(&name, Some((at, e)))?;
            self.elements[id.index()].substitution_head = Some(head);
        }
        self.elements[id.index()].abstract_ = bool_attr(e, "abstract");
        self.element_parts(id, at, e)
    }

    /// What global and local element declarations share: type, nillable, value, block.
    fn element_parts(&mut self, id: ElemId, at: RawRef, e: &'d Elem) -> Result<(), SchemaError> {
        let doc = self.doc(at);
        let type_def = if let Some(t) = e.attr("type") {
            self.type_ref(at, e, t, None)?
        } else if let Some(inner) = e
            .xs_children()
            .find(|c| c.local == "complexType" || c.local == "simpleType")
        {
            self.anonymous_type(at, inner)?
        } else {
            if self.elements[id.index()].substitution_head.is_some() {
                self.typed_by_head.push(id);
            }
            ANY_TYPE
        };
        let value = match (e.attr("default"), e.attr("fixed")) {
            (Some(_), Some(_)) => {
                return Err(doc.error(e.offset, "an element with both default and fixed"));
            }
            (Some(d), None) => Some(ValueConstraint::Default(d.to_string())),
            (None, Some(f)) => Some(ValueConstraint::Fixed(f.to_string())),
            (None, None) => None,
        };
        let decl = &mut self.elements[id.index()];
        decl.type_def = type_def;
        decl.nillable = bool_attr(e, "nillable");
        decl.value = value;
        decl.block = parse_derivations(e.attr("block"), doc.block_default);
        Ok(())
    }

    fn build_global_attribute(&mut self, id: AttrId, at: RawRef) -> Result<(), SchemaError> {
        let e = at.elem(self.docs);
        self.attribute_parts(id, at, e)
    }

    fn attribute_parts(&mut self, id: AttrId, at: RawRef, e: &'d Elem) -> Result<(), SchemaError> {
        let doc = self.doc(at);
        let type_def = if let Some(t) = e.attr("type") {
            self.type_ref(at, e, t, None)?
        } else if let Some(inner) = e.child("simpleType") {
            self.anonymous_type(at, inner)?
        } else {
            ANY_SIMPLE_TYPE
        };
        let value = match (e.attr("default"), e.attr("fixed")) {
            (Some(_), Some(_)) => {
                return Err(doc.error(e.offset, "an attribute with both default and fixed"));
            }
            (Some(d), None) => Some(ValueConstraint::Default(d.to_string())),
            (None, Some(f)) => Some(ValueConstraint::Fixed(f.to_string())),
            (None, None) => None,
        };
        let decl = &mut self.attributes[id.index()];
        decl.type_def = type_def;
        decl.value = value;
        decl.origin = Self::origin(at.doc, e);
        Ok(())
    }

    /// The attribute uses, prohibitions and attribute wildcard of a complex type (or attribute
    /// group) body, attribute groups expanded.
    fn attribute_uses(
        &mut self,
        at: RawRef,
        body: &'d Elem,
        uses: &mut Vec<AttributeUse>,
        prohibited: &mut Vec<Name>,
        wildcard: &mut Option<Wildcard>,
    ) -> Result<(), SchemaError> {
        let doc = self.doc(at);
        // The complete wildcard: the local one intersected with the groups' (Part 1, 3.4.2).
        let mut local_wildcard: Option<Wildcard> = None;
        let mut group_wildcards: Vec<Wildcard> = Vec::new();
        for c in body.xs_children() {
            match c.local.as_str() {
                "attribute" => {
                    let use_ = c.attr("use").map(str::trim).unwrap_or("optional");
                    let id = if let Some(r) = c.attr("ref") {
                        let name = self.qname(at, c, r)?;
                        if use_ == "prohibited" {
                            prohibited.push(name);
                            continue;
                        }
                        self.named_attribute(&name, Some((at, c)))?
                    } else {
                        let local = c.attr("name").ok_or_else(|| {
                            doc.error(c.offset, "an <attribute> without name or ref")
                        })?;
                        let qualified = match c.attr("form") {
                            Some(f) => f.trim() == "qualified",
                            None => doc.attribute_qualified,
                        };
                        let ns = if qualified {
                            doc.tns.clone()
                        } else {
                            String::new()
                        };
                        let name = Name::new(ns, local);
                        if use_ == "prohibited" {
                            prohibited.push(name);
                            continue;
                        }
                        if name.ns == XSI {
                            return Err(doc.error(
                                c.offset,
                                "attributes in the xsi namespace cannot be declared",
                            ));
                        }
                        let id = AttrId(self.attributes.len() as u32);
                        self.attributes.push(AttributeDecl {
                            name,
                            type_def: ANY_SIMPLE_TYPE,
                            value: None,
                            global: false,
                            origin: Self::origin(at.doc, c),
                        });
                        self.attribute_parts(id, at, c)?;
                        id
                    };
                    let value = if c.attr("ref").is_some() {
                        match (c.attr("default"), c.attr("fixed")) {
                            (Some(d), _) => Some(ValueConstraint::Default(d.to_string())),
                            (None, Some(f)) => Some(ValueConstraint::Fixed(f.to_string())),
                            _ => None,
                        }
                    } else {
                        self.attributes[id.index()].value.clone()
                    };
                    let name = &self.attributes[id.index()].name;
                    if uses
                        .iter()
                        .any(|u| self.attributes[u.decl.index()].name == *name)
                    {
                        return Err(doc.error(c.offset, format!("attribute {name} is used twice")));
                    }
                    uses.push(AttributeUse {
                        decl: id,
                        required: use_ == "required",
                        value,
                    });
                }
                "attributeGroup" => {
                    let r = c.attr("ref").ok_or_else(|| {
                        doc.error(c.offset, "an <attributeGroup> inside a type needs ref")
                    })?;
                    let name = self.qname(at, c, r)?;
                    let own = self.expanding.last() == Some(&name);
                    let found = if own {
                        self.raw
                            .original_attribute_groups
                            .get(&name)
                            .or(self.raw.attribute_groups.get(&name))
                    } else {
                        self.raw.attribute_groups.get(&name)
                    };
                    let Some(&def) = found else {
                        return Err(self.missing("attribute group", &name, Some((at, c))));
                    };
                    if self.expanding.iter().filter(|n| **n == name).count() > usize::from(own)
                        || self.expanding.len() > 256
                    {
                        return Err(
                            doc.error(c.offset, format!("attribute group {name} contains itself"))
                        );
                    }
                    let parts = match self.attribute_groups.get(&key(def)) {
                        Some(parts) => parts.clone(),
                        None => {
                            self.expanding.push(name);
                            let (mut u, mut p, mut w) = (Vec::new(), Vec::new(), None);
                            let r = self.attribute_uses(
                                def,
                                def.elem(self.docs),
                                &mut u,
                                &mut p,
                                &mut w,
                            );
                            self.expanding.pop();
                            r?;
                            self.attribute_groups
                                .insert(key(def), (u.clone(), p.clone(), w.clone()));
                            (u, p, w)
                        }
                    };
                    let (group_uses, group_prohibited, group_wildcard) = parts;
                    for u in group_uses {
                        let n = &self.attributes[u.decl.index()].name;
                        if uses
                            .iter()
                            .any(|x| self.attributes[x.decl.index()].name == *n)
                        {
                            return Err(doc.error(c.offset, format!("attribute {n} is used twice")));
                        }
                        uses.push(u);
                    }
                    prohibited.extend(group_prohibited);
                    group_wildcards.extend(group_wildcard);
                }
                "anyAttribute" => local_wildcard = Some(self.wildcard(at, c)),
                _ => {}
            }
        }
        let mut complete = local_wildcard;
        for g in group_wildcards {
            complete = Some(match complete {
                None => g,
                Some(w) => intersect(&w, &g),
            });
        }
        *wildcard = complete;
        Ok(())
    }
}

/// The intersection of two wildcards' namespace constraints (Part 1, 3.10.6), with the first's
/// processContents.
pub(crate) fn intersect(a: &Wildcard, b: &Wildcard) -> Wildcard {
    use NamespaceConstraint::*;
    let namespaces = match (&a.namespaces, &b.namespaces) {
        (Any, x) | (x, Any) => x.clone(),
        (Set(s), Set(t)) => Set(s.iter().filter(|n| t.contains(n)).cloned().collect()),
        (Set(s), Not(n)) | (Not(n), Set(s)) => Set(s
            .iter()
            .filter(|x| *x != n && !x.is_empty())
            .cloned()
            .collect()),
        (Not(n), Not(m)) if n == m => Not(n.clone()),
        // Two different negations: XSD 1.0 says not expressible; nothing but absent names
        // would be left, which a negation already excludes.
        (Not(_), Not(_)) => Set(Vec::new()),
    };
    Wildcard {
        namespaces,
        process: a.process,
    }
}

/// The union of two wildcards' namespace constraints (Part 1, 3.10.6), with the first's
/// processContents.
pub(crate) fn union(a: &Wildcard, b: &Wildcard) -> Wildcard {
    use NamespaceConstraint::*;
    let namespaces = match (&a.namespaces, &b.namespaces) {
        (Any, _) | (_, Any) => Any,
        (Set(s), Set(t)) => {
            let mut u = s.clone();
            u.extend(t.iter().filter(|n| !s.contains(n)).cloned());
            Set(u)
        }
        (Set(s), Not(n)) | (Not(n), Set(s)) => {
            if s.contains(n) && s.iter().any(String::is_empty) {
                Any
            } else {
                Not(n.clone())
            }
        }
        (Not(n), Not(m)) if n == m => Not(n.clone()),
        (Not(_), Not(_)) => Not(String::new()),
    };
    Wildcard {
        namespaces,
        process: a.process,
    }
}
