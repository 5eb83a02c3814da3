//! Resolution, second pass: types are completed base first (extension content, inherited
//! attribute uses and wildcards, simple types' variety and facets), elements without a type
//! take their substitution group head's, and substitution groups are collected.

use std::collections::{BTreeMap, HashMap};

use super::resolve::{ComplexSpec, Pending, RawFacet, SimpleSpec, union};
use super::{Doc, LoadOptions};
use crate::automaton::ContentModel;
use crate::datatypes::{Builtin, Facets};
use crate::error::SchemaError;
use crate::model::*;

pub(crate) struct Parts {
    pub elements: Vec<ElementDecl>,
    pub attributes: Vec<AttributeDecl>,
    pub types: Vec<TypeDef>,
    pub pending: Vec<Pending>,
    pub global_elements: HashMap<Name, ElemId>,
    pub global_attributes: HashMap<Name, AttrId>,
    pub global_types: HashMap<Name, TypeId>,
    pub typed_by_head: Vec<ElemId>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Todo,
    Busy,
    Done,
}

struct Finisher<'a> {
    parts: &'a mut Parts,
    docs: &'a [Doc],
    state: Vec<State>,
    /// Types being completed, each waiting on the next (a chain of bases, items, members).
    depth: usize,
}

/// The longest chain of types completed one inside the other (base of a base of ...): deeper
/// chains are refused, so that completing them stays within a thread's stack.
const MAX_DERIVATION_DEPTH: usize = 1000;

pub(crate) fn finish(
    mut parts: Parts,
    docs: Vec<Doc>,
    options: &LoadOptions,
) -> Result<Schema, SchemaError> {
    let n = parts.types.len();
    let state = parts
        .pending
        .iter()
        .map(|p| match p {
            Pending::Done => State::Done,
            _ => State::Todo,
        })
        .collect();
    let mut f = Finisher {
        parts: &mut parts,
        docs: &docs,
        state,
        depth: 0,
    };
    for i in 0..n {
        f.complete(TypeId(i as u32))?;
    }
    // Elements typed by their head: the head first (a chain of heads without types ends at
    // anyType; a cycle of heads is an error).
    let heads = std::mem::take(&mut parts.typed_by_head);
    for &id in &heads {
        let mut t = ANY_TYPE;
        let mut h = parts.elements[id.index()].substitution_head;
        let mut steps = 0;
        while let Some(head) = h {
            steps += 1;
            if head == id || steps > parts.elements.len() {
                return Err(element_error(
                    &docs,
                    &parts.elements[id.index()],
                    "its substitution group contains itself",
                ));
            }
            if !heads.contains(&head) {
                t = parts.elements[head.index()].type_def;
                break;
            }
            h = parts.elements[head.index()].substitution_head;
        }
        parts.elements[id.index()].type_def = t;
    }
    let (substitutes, substitution_groups) = substitution_groups(&parts.elements, &docs)?;
    for t in &mut parts.types {
        if let TypeDef::Complex(c) = t {
            let attrs = &parts.attributes;
            c.attributes.sort_by(|a, b| {
                let (a, b) = (&attrs[a.decl.index()].name, &attrs[b.decl.index()].name);
                (&a.local, &a.ns).cmp(&(&b.local, &b.ns))
            });
        }
    }
    let documents = docs
        .into_iter()
        .map(|d| SchemaDocument {
            location: d.location,
            target_namespace: d.tns,
            bytes: d.bytes,
        })
        .collect();
    let mut schema = Schema {
        elements: parts.elements,
        attributes: parts.attributes,
        types: parts.types,
        global_elements: parts
            .global_elements
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
        global_attributes: parts.global_attributes.into_iter().collect(),
        global_types: parts.global_types.into_iter().collect(),
        substitutes,
        substitution_groups,
        documents,
        models: Vec::new(),
        imports_xml_namespace: false,
    };
    compile_models(&mut schema, options.max_content_states)?;
    Ok(schema)
}

/// Compiles every element content model, so that one too large is refused when the schema is
/// loaded.
fn compile_models(schema: &mut Schema, max_states: usize) -> Result<(), SchemaError> {
    let mut models = Vec::with_capacity(schema.types.len());
    for (i, t) in schema.types.iter().enumerate() {
        let model = match t {
            TypeDef::Complex(c) => match &c.content {
                Content::Elements { particle, .. } => Some(
                    ContentModel::compile(schema, particle, max_states).map_err(|_| {
                        let name = c.name.as_ref().map_or("an anonymous type".to_string(), |n| n.to_string());
                        let message = format!(
                            "the content model of {name} needs more than {max_states} states (large maxOccurs values are refused rather than unrolled)"
                        );
                        match schema.documents.get(c.origin.doc as usize) {
                            Some(d) => SchemaError::new(&d.location, message).at(&d.bytes, c.origin.offset),
                            None => SchemaError::new("schema", message),
                        }
                    })?,
                ),
                _ => None,
            },
            TypeDef::Simple(_) => None,
        };
        let _ = i;
        models.push(model);
    }
    schema.models = models;
    Ok(())
}

fn element_error(docs: &[Doc], e: &ElementDecl, message: &str) -> SchemaError {
    match docs.get(e.origin.doc as usize) {
        Some(d) => d.error(e.origin.offset, format!("element {}: {message}", e.name)),
        None => SchemaError::new("schema", format!("element {}: {message}", e.name)),
    }
}

/// For every element: the declarations that may stand where it is expected in a valid
/// document (itself unless abstract, and its substitution group's members that are not abstract,
/// unless it blocks substitution), and its whole substitution group (every declaration that
/// reaches it through substitution group affiliations, abstract or not, and itself), which EXI's
/// grammars use (EXI 1.0, 8.5.4.1.6). Both sorted by local name, then namespace.
#[allow(clippy::type_complexity)]
fn substitution_groups(
    elements: &[ElementDecl],
    docs: &[Doc],
) -> Result<(Vec<Vec<ElemId>>, Vec<Vec<ElemId>>), SchemaError> {
    let mut members: Vec<Vec<ElemId>> = vec![Vec::new(); elements.len()];
    for (i, e) in elements.iter().enumerate() {
        if let Some(h) = e.substitution_head {
            members[h.index()].push(ElemId(i as u32));
        }
    }
    let order = |a: &ElemId, b: &ElemId| {
        let (x, y) = (&elements[a.index()].name, &elements[b.index()].name);
        (&x.local, &x.ns).cmp(&(&y.local, &y.ns))
    };
    // One visited mark per element, stamped with the walk's number: no per-walk allocation.
    let mut stamp = vec![0u32; elements.len()];
    let mut valid = Vec::with_capacity(elements.len());
    let mut groups = Vec::with_capacity(elements.len());
    for (i, e) in elements.iter().enumerate() {
        let me = ElemId(i as u32);
        if members[i].is_empty() {
            valid.push(if e.abstract_ { Vec::new() } else { vec![me] });
            groups.push(vec![me]);
            continue;
        }
        let walk = i as u32 + 1;
        stamp[i] = walk;
        let mut group = Vec::new();
        let mut stack = vec![me];
        while let Some(x) = stack.pop() {
            group.push(x);
            for &m in &members[x.index()] {
                if stamp[m.index()] == walk {
                    return Err(element_error(
                        docs,
                        &elements[m.index()],
                        "its substitution group contains itself",
                    ));
                }
                stamp[m.index()] = walk;
                stack.push(m);
            }
        }
        let mut ok: Vec<ElemId> = if e.block.substitution {
            if e.abstract_ { Vec::new() } else { vec![me] }
        } else {
            group
                .iter()
                .copied()
                .filter(|x| !elements[x.index()].abstract_)
                .collect()
        };
        ok.sort_by(order);
        group.sort_by(order);
        valid.push(ok);
        groups.push(group);
    }
    Ok((valid, groups))
}

impl Finisher<'_> {
    fn error_at(&self, origin: Origin, message: String) -> SchemaError {
        match self.docs.get(origin.doc as usize) {
            Some(d) => d.error(origin.offset, message),
            None => SchemaError::new("schema", message),
        }
    }

    fn type_name(&self, id: TypeId) -> String {
        match self.parts.types[id.index()].name() {
            Some(n) => n.to_string(),
            None => "an anonymous type".to_string(),
        }
    }

    fn origin(&self, id: TypeId) -> Origin {
        match &self.parts.types[id.index()] {
            TypeDef::Simple(s) => s.origin,
            TypeDef::Complex(c) => c.origin,
        }
    }

    /// Completes type `id` after its base (and, for lists and unions, their item and member
    /// types).
    fn complete(&mut self, id: TypeId) -> Result<(), SchemaError> {
        match self.state[id.index()] {
            State::Done => return Ok(()),
            State::Busy => {
                return Err(self.error_at(
                    self.origin(id),
                    format!("{} is derived from itself", self.type_name(id)),
                ));
            }
            State::Todo => {}
        }
        if self.depth >= MAX_DERIVATION_DEPTH {
            return Err(self.error_at(
                self.origin(id),
                format!(
                    "{} is derived through more than {MAX_DERIVATION_DEPTH} types",
                    self.type_name(id)
                ),
            ));
        }
        self.state[id.index()] = State::Busy;
        self.depth += 1;
        let pending = std::mem::replace(&mut self.parts.pending[id.index()], Pending::Done);
        let r = match pending {
            Pending::Simple(spec) => self.complete_simple(id, spec),
            Pending::Complex(spec) => self.complete_complex(id, spec),
            Pending::Done => Ok(()),
        };
        self.depth -= 1;
        r?;
        self.state[id.index()] = State::Done;
        Ok(())
    }

    fn simple(&self, id: TypeId) -> Option<&SimpleType> {
        match &self.parts.types[id.index()] {
            TypeDef::Simple(s) => Some(s),
            TypeDef::Complex(_) => None,
        }
    }

    fn complete_simple(&mut self, id: TypeId, spec: SimpleSpec) -> Result<(), SchemaError> {
        let origin = self.origin(id);
        let (base, variety, builtin, facets) = match spec {
            SimpleSpec::Restriction { base, facets } => {
                let Some(base) = base else {
                    return Err(self.error_at(
                        origin,
                        "a simple content restriction without a simple base".into(),
                    ));
                };
                self.complete(base)?;
                let Some(b) = self.simple(base) else {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "restricts {}, which is not a simple type",
                            self.type_name(base)
                        ),
                    ));
                };
                if b.final_.restriction {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "restricts {}, which is final for restriction",
                            self.type_name(base)
                        ),
                    ));
                }
                let facets = restrict(b, &facets, self.docs, &self.parts.types)?;
                (base, b.variety.clone(), b.builtin, facets)
            }
            SimpleSpec::List(item) => {
                self.complete(item)?;
                let Some(it) = self.simple(item) else {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "a list of {}, which is not a simple type",
                            self.type_name(item)
                        ),
                    ));
                };
                if matches!(it.variety, Variety::List(_)) {
                    return Err(self.error_at(origin, "a list of a list type".into()));
                }
                let list_facets = Facets::list(it.builtin);
                (
                    ANY_SIMPLE_TYPE,
                    Variety::List(item),
                    Builtin::AnySimpleType,
                    list_facets,
                )
            }
            SimpleSpec::Union(members) => {
                for &m in &members {
                    self.complete(m)?;
                    if self.simple(m).is_none() {
                        return Err(self.error_at(
                            origin,
                            format!("a union member {} is not a simple type", self.type_name(m)),
                        ));
                    }
                }
                (
                    ANY_SIMPLE_TYPE,
                    Variety::Union(members),
                    Builtin::AnySimpleType,
                    Facets::union(),
                )
            }
        };
        if let TypeDef::Simple(s) = &mut self.parts.types[id.index()] {
            s.base = Some(base);
            s.variety = variety;
            s.builtin = builtin;
            s.facets = facets;
        }
        Ok(())
    }

    fn complete_complex(&mut self, id: TypeId, spec: ComplexSpec) -> Result<(), SchemaError> {
        let origin = self.origin(id);
        self.complete(spec.base)?;
        let base = &self.parts.types[spec.base.index()];
        let base_final = match base {
            TypeDef::Simple(s) => s.final_,
            TypeDef::Complex(c) => c.final_,
        };
        match spec.derivation {
            Derivation::Extension if base_final.extension => {
                return Err(self.error_at(
                    origin,
                    format!(
                        "extends {}, which is final for extension",
                        self.type_name(spec.base)
                    ),
                ));
            }
            Derivation::Restriction if base_final.restriction && spec.base != ANY_TYPE => {
                return Err(self.error_at(
                    origin,
                    format!(
                        "restricts {}, which is final for restriction",
                        self.type_name(spec.base)
                    ),
                ));
            }
            _ => {}
        }
        let (base_content, base_attrs, base_wildcard) = match base {
            TypeDef::Simple(_) => (Content::Simple(spec.base), Vec::new(), None),
            TypeDef::Complex(c) => (
                c.content.clone(),
                c.attributes.clone(),
                c.attribute_wildcard.clone(),
            ),
        };
        let content = match spec.simple {
            Some(None) => match base_content {
                Content::Simple(s) => Content::Simple(s),
                _ => {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "simpleContent extends {}, which has no simple content",
                            self.type_name(spec.base)
                        ),
                    ));
                }
            },
            Some(Some(content)) => {
                let Content::Simple(base_simple) = base_content else {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "simpleContent restricts {}, which has no simple content",
                            self.type_name(spec.base)
                        ),
                    ));
                };
                // The anonymous content type restricts the base's content type unless it
                // names its own base (a <simpleType> child).
                if let Pending::Simple(SimpleSpec::Restriction { base, .. }) =
                    &mut self.parts.pending[content.index()]
                    && base.is_none()
                {
                    *base = Some(base_simple);
                }
                self.complete(content)?;
                Content::Simple(content)
            }
            None => {
                if matches!(self.parts.types[spec.base.index()], TypeDef::Simple(_))
                    && spec.base != ANY_TYPE
                {
                    return Err(self.error_at(
                        origin,
                        format!(
                            "complexContent derives from the simple type {}",
                            self.type_name(spec.base)
                        ),
                    ));
                }
                let own = effective(spec.particle, spec.mixed);
                match spec.derivation {
                    Derivation::Restriction => own,
                    Derivation::Extension => match (base_content, own) {
                        (Content::Simple(_), _) => {
                            return Err(self.error_at(
                                origin,
                                format!(
                                    "complexContent extends {}, which has simple content",
                                    self.type_name(spec.base)
                                ),
                            ));
                        }
                        (base, Content::Empty) => base,
                        (Content::Empty, own) => own,
                        (
                            Content::Elements { particle: bp, .. },
                            Content::Elements {
                                particle: op,
                                mixed,
                            },
                        ) => Content::Elements {
                            particle: Particle {
                                min: 1,
                                max: Max::Bounded(1),
                                term: Term::Group(ModelGroup {
                                    compositor: Compositor::Sequence,
                                    particles: vec![bp, op],
                                }),
                            },
                            mixed,
                        },
                        (_, own) => own,
                    },
                }
            }
        };
        let mut attributes = spec.attributes;
        let wildcard = match spec.derivation {
            Derivation::Extension => {
                for b in base_attrs {
                    let name = &self.parts.attributes[b.decl.index()].name;
                    if attributes
                        .iter()
                        .any(|a| self.parts.attributes[a.decl.index()].name == *name)
                    {
                        return Err(self.error_at(
                            origin,
                            format!("extension declares attribute {name} again"),
                        ));
                    }
                    attributes.push(b);
                }
                match (spec.wildcard, base_wildcard) {
                    (Some(w), Some(b)) => Some(union(&w, &b)),
                    (w, b) => w.or(b),
                }
            }
            Derivation::Restriction => {
                for b in base_attrs {
                    let name = &self.parts.attributes[b.decl.index()].name;
                    let redeclared = attributes
                        .iter()
                        .any(|a| self.parts.attributes[a.decl.index()].name == *name);
                    if !redeclared && !spec.prohibited.contains(name) {
                        attributes.push(b);
                    }
                }
                spec.wildcard
            }
        };
        if let TypeDef::Complex(c) = &mut self.parts.types[id.index()] {
            c.content = content;
            c.attributes = attributes;
            c.attribute_wildcard = wildcard;
        }
        Ok(())
    }
}

/// The content of a particle as a complex type declares it: no particle, or one that can only
/// match nothing, is empty content (unless mixed).
fn effective(particle: Option<Particle>, mixed: bool) -> Content {
    let empty_group = |p: &Particle| match &p.term {
        Term::Group(g) => g.particles.is_empty() && g.compositor != Compositor::Choice,
        _ => false,
    };
    match particle {
        Some(p) if !(p.max == Max::Bounded(0) || empty_group(&p)) => {
            Content::Elements { particle: p, mixed }
        }
        _ if mixed => Content::Elements {
            particle: Particle {
                min: 1,
                max: Max::Bounded(1),
                term: Term::Group(ModelGroup {
                    compositor: Compositor::Sequence,
                    particles: Vec::new(),
                }),
            },
            mixed,
        },
        _ => Content::Empty,
    }
}

/// The effective facets of a restriction of `base` by `facets` (a union's enumeration
/// values are read through its member types).
fn restrict(
    base: &SimpleType,
    facets: &[RawFacet],
    docs: &[Doc],
    types: &[TypeDef],
) -> Result<Facets, SchemaError> {
    let mut specs = Vec::new();
    for f in facets {
        let Some(kind) = crate::datatypes::FacetKind::from_local_name(&f.kind) else {
            let doc = &docs[f.doc as usize];
            return Err(doc.error(f.offset, format!("<{}> is not a facet", f.kind)));
        };
        specs.push(crate::datatypes::FacetSpec {
            kind,
            value: &f.value,
            fixed: f.fixed,
            ns: &*f.scope,
        });
    }
    let r = match &base.variety {
        Variety::Union(members) => {
            let member_value = |lexical: &str, ns: &dyn crate::datatypes::NamespaceResolver| {
                let mut first = None;
                for m in members {
                    match crate::simple::value(types, *m, lexical, ns) {
                        Ok(v) => return Ok(v),
                        Err(e) => {
                            first.get_or_insert(e);
                        }
                    }
                }
                Err(first.expect("a union has members"))
            };
            base.facets.restrict_union(&specs, &member_value)
        }
        _ => base.facets.restrict(&specs),
    };
    r.map_err(|e| {
        // The facet named by the error, else the restriction's first facet.
        let at = facets
            .iter()
            .find(|f| f.kind == e.subject())
            .or(facets.first());
        match at {
            Some(f) => docs[f.doc as usize].error(f.offset, e.to_string()),
            None => SchemaError::new("schema", e.to_string()),
        }
    })
}
