//! Schema-informed EXI: the grammars of section 8.5 built from a [`Schema`], once, and shared
//! by the encoders and decoders that use it.

mod build;
pub mod datatype;
mod dec;
mod enc;
pub mod grammar;
pub(crate) mod values;

use std::sync::Arc;

use binxml_core::{Error, Format, Result};
use binxml_schema::Schema;
use binxml_schema::model::{ElemId, Name, TypeDef, TypeId, Variety};

pub use datatype::{DateTimeKind, ExiType};
pub use dec::SchemaDecoder;
pub use enc::SchemaEncoder;
pub use grammar::{Grammar, GrammarId, Kind, Production, Terminal};

/// The most grammar states one schema may compile to.
pub const MAX_GRAMMAR_STATES: usize = 4_000_000;

/// An element's grammar: its type's grammar, and what the element adds to it.
#[derive(Clone, Copy, Debug)]
pub struct ElementGrammar {
    /// The first state (`Type_i,0` of the element's type).
    pub start: GrammarId,
    /// The type's `TypeEmpty` grammar, for `xsi:nil="true"`.
    pub empty: GrammarId,
    /// The declaration is nillable.
    pub nillable: bool,
    /// The type has named subtypes or is a union: `xsi:type` may change it (strict mode).
    pub castable: bool,
}

/// Each simple type's representation under a stream's datatype representation map.
#[derive(Debug, Clone)]
pub struct Representations {
    plain: Vec<Option<ExiType>>,
    lexical: Vec<Option<ExiType>>,
}

/// String tables that streams with one schema's grammars have finished with.
pub(crate) struct TablePool {
    base: Arc<crate::tables::Base>,
    free: std::sync::Mutex<Vec<crate::tables::Tables>>,
}

/// Tables kept for reuse at most (one per encoder and decoder running at once, in practice).
const POOL_TABLES: usize = 8;

/// A stream's string table, which goes back to its schema's pool when dropped.
pub(crate) struct TableLease {
    t: crate::tables::Tables,
    pool: Option<Arc<TablePool>>,
}

impl TableLease {
    /// A table of no pool (appendix D's, before a header says which table a stream has).
    pub(crate) fn unpooled(t: crate::tables::Tables) -> TableLease {
        TableLease { t, pool: None }
    }
}

impl std::ops::Deref for TableLease {
    type Target = crate::tables::Tables;
    #[inline(always)]
    fn deref(&self) -> &crate::tables::Tables {
        &self.t
    }
}

impl std::ops::DerefMut for TableLease {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut crate::tables::Tables {
        &mut self.t
    }
}

impl Drop for TableLease {
    fn drop(&mut self) {
        let Some(pool) = &self.pool else {
            return;
        };
        if !self.t.reusable(&pool.base) {
            return;
        }
        if let Ok(mut free) = pool.free.lock()
            && free.len() < POOL_TABLES
        {
            free.push(std::mem::replace(
                &mut self.t,
                crate::tables::Tables::husk(),
            ));
        }
    }
}

/// The schema-informed grammars of one schema.
pub struct SchemaGrammars {
    schema: Arc<Schema>,
    grammars: Vec<Grammar>,
    type_grammar: Vec<GrammarId>,
    type_empty: Vec<GrammarId>,
    castable: Vec<bool>,
    /// Each simple type's EXI representation (`None` for complex types).
    datatypes: Vec<Option<ExiType>>,
    /// Each simple type's representation when lexical values are preserved.
    lexical: Vec<Option<ExiType>>,
    /// Global element declarations in the order of the document grammar (local name, then
    /// namespace).
    document: Vec<ElemId>,
    /// Every element name declared, sorted as the fragment grammar lists them, with the
    /// declaration whose grammar applies (`None` when declarations of that name disagree:
    /// the element fragment grammar applies).
    fragment: Vec<(Name, Option<ElemId>)>,
    /// The element fragment grammar (section 8.5.3): its first state and its `TypeEmpty`,
    /// when some element name is declared with different types.
    element_fragment: Option<(GrammarId, GrammarId)>,
    /// The string table's pre-population (section 7.3.1, appendix D): each URI in order with
    /// its local names in order.
    table: Vec<(String, Vec<String>)>,
    /// The string table every stream starts with.
    base: Arc<crate::tables::Base>,
    /// The tables of finished streams, for the next ones.
    pool: Arc<TablePool>,
    /// Per state, per production: the number of an AT(qname) or relaxed SE(qname)
    /// production's name in a fresh string table (`NONE` for the others).
    prod_names: Vec<Box<[crate::tables::NameId]>>,
    /// Each element declaration's name's number in a fresh string table.
    elem_names: Vec<crate::tables::NameId>,
    /// Each element declaration's grammar (what [`SchemaGrammars::element`] gives), made once:
    /// a decoder looks it up for every element it starts.
    elements: Vec<ElementGrammar>,
    /// The global element declared for each name of a fresh string table (by number): SE(*)
    /// looks it up for every element it starts, so by number rather than by strings. A name
    /// that a stream adds to the table is never one the schema declares.
    global_by_name: Vec<Option<ElemId>>,
}

impl std::fmt::Debug for SchemaGrammars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaGrammars")
            .field("states", &self.grammars.len())
            .field("global_elements", &self.document.len())
            .finish()
    }
}

impl SchemaGrammars {
    /// Builds the grammars of `schema`.
    pub fn new(schema: Arc<Schema>) -> Result<SchemaGrammars> {
        let built = build::build(&schema, MAX_GRAMMAR_STATES).map_err(|e| {
            let name = schema
                .type_def(e.type_def)
                .name()
                .map_or("an anonymous type".to_string(), |n| n.to_string());
            Error::limit(
                Format::Exi,
                0,
                format!("the grammar of {name} needs more than {MAX_GRAMMAR_STATES} states"),
            )
        })?;
        let castable = castable_types(&schema);
        let datatypes = (0..schema.type_count() as u32)
            .map(TypeId)
            .map(|t| match schema.type_def(t) {
                TypeDef::Simple(_) => Some(datatype::exi_type(&schema, t)),
                TypeDef::Complex(_) => None,
            })
            .collect::<Vec<_>>();
        let lexical = datatypes
            .iter()
            .map(|d| d.as_ref().map(datatype::lexical_type))
            .collect();
        let mut document: Vec<ElemId> = schema.global_elements().map(|(_, e)| e).collect();
        document.sort_by(|a, b| name_order(&schema.element(*a).name, &schema.element(*b).name));
        let mut fragment: Vec<(Name, Option<ElemId>)> = Vec::new();
        let mut all: Vec<ElemId> = (0..schema.element_count() as u32).map(ElemId).collect();
        all.sort_by(|a, b| name_order(&schema.element(*a).name, &schema.element(*b).name));
        for e in all {
            let d = schema.element(e);
            match fragment.last_mut() {
                Some((n, first)) if *n == d.name => {
                    // One grammar serves them all when they have the same named type and
                    // nillable; an anonymous type is never the same (section 8.5.2).
                    if let Some(f) = *first {
                        let fd = schema.element(f);
                        let named = |t: TypeId| schema.type_def(t).name().is_some();
                        if fd.type_def != d.type_def
                            || !named(d.type_def)
                            || fd.nillable != d.nillable
                        {
                            *first = None;
                        }
                    }
                }
                _ => fragment.push((d.name.clone(), Some(e))),
            }
        }
        let mut grammars = built.grammars;
        let element_fragment = fragment
            .iter()
            .any(|(_, e)| e.is_none())
            .then(|| element_fragment(&schema, &fragment, &mut grammars));
        let table = string_table_entries(&schema);
        // The string table is pre-populated in a fixed order, so every declared name has the
        // same number in every stream: found once here, not per event.
        let base = Arc::new(crate::tables::Base::new(&table));
        let mut name_ids = std::collections::HashMap::new();
        for (uri, local, id) in base.names() {
            name_ids.insert(Name::new(uri, local), id);
        }
        // The name of every AT(qname) and relaxed SE(qname) production, by state and
        // event code, so that no event looks a name up.
        let prod_names = grammars
            .iter()
            .map(|st| {
                st.productions
                    .iter()
                    .map(|p| match &p.terminal {
                        Terminal::At { name, .. } | Terminal::SeRelaxed(name) => {
                            name_ids.get(name).copied().unwrap_or(crate::tables::NONE)
                        }
                        _ => crate::tables::NONE,
                    })
                    .collect()
            })
            .collect();
        let elem_names = (0..schema.element_count() as u32)
            .map(|e| name_ids[&schema.element(ElemId(e)).name])
            .collect();
        let elements = (0..schema.element_count() as u32)
            .map(|e| {
                let d = schema.element(ElemId(e));
                let t = d.type_def.index();
                ElementGrammar {
                    start: built.type_grammar[t],
                    empty: built.type_empty[t],
                    nillable: d.nillable,
                    castable: castable[t],
                }
            })
            .collect();
        let mut global_by_name = vec![None; name_ids.values().max().map_or(0, |m| *m as usize + 1)];
        for (name, e) in schema.global_elements() {
            global_by_name[name_ids[name] as usize] = Some(e);
        }
        Ok(SchemaGrammars {
            table,
            pool: Arc::new(TablePool {
                base: Arc::clone(&base),
                free: std::sync::Mutex::new(Vec::new()),
            }),
            base,
            prod_names,
            elem_names,
            elements,
            global_by_name,
            schema,
            element_fragment,
            grammars,
            type_grammar: built.type_grammar,
            type_empty: built.type_empty,
            castable,
            datatypes,
            lexical,
            document,
            fragment,
        })
    }

    /// The schema the grammars were built from.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The simple type of the global attribute declaration named `ns`/`local`, which types
    /// an attribute that AT(*) or AT(uri:*) matches (section 8.5.4.4.1). The XML namespace's
    /// attributes (`xml:space`, ...), which the schema model always knows, count only when
    /// the schema imports that namespace: otherwise the schema declares no such attribute and
    /// its value is a string (as EXIficient writes it).
    pub fn global_attribute_type(&self, ns: &str, local: &str) -> Option<TypeId> {
        if ns == binxml_core::XML_NS && !self.schema.imports_xml_namespace() {
            return None;
        }
        let a = self.schema.global_attribute(ns, local)?;
        Some(self.schema.attribute(a).type_def)
    }

    /// A grammar state.
    pub fn grammar(&self, id: GrammarId) -> &Grammar {
        &self.grammars[id.index()]
    }

    /// Every state, in id order.
    pub fn grammars(&self) -> &[Grammar] {
        &self.grammars
    }

    /// The first state of a type's grammar (`Type_i,0`).
    pub fn type_grammar(&self, t: TypeId) -> GrammarId {
        self.type_grammar[t.index()]
    }

    /// The first state of a type's `TypeEmpty` grammar.
    pub fn type_empty(&self, t: TypeId) -> GrammarId {
        self.type_empty[t.index()]
    }

    /// An element declaration's grammar.
    #[inline]
    pub fn element(&self, e: ElemId) -> ElementGrammar {
        self.elements[e.index()]
    }

    /// The global elements, in the order of the document grammar's `SE` productions.
    pub fn document_elements(&self) -> &[ElemId] {
        &self.document
    }

    /// The element fragment grammar (section 8.5.3) for an element whose name is declared with
    /// different types: nillable, and castable.
    pub fn element_fragment(&self) -> Option<ElementGrammar> {
        self.element_fragment.map(|(start, empty)| ElementGrammar {
            start,
            empty,
            nillable: true,
            castable: true,
        })
    }

    /// The string table's pre-population: the URIs in order (`""`, the XML namespace, XML
    /// Schema instance, XML Schema, then the schema's namespaces sorted), each with its local
    /// names sorted (section 7.3.1, appendix D).
    pub fn string_table_entries(&self) -> &[(String, Vec<String>)] {
        &self.table
    }

    /// A fresh string table for a stream with these grammars: one a finished stream left,
    /// reset (its memory kept: a schema's tables start with a slot per declared name), else a
    /// new one. It goes back to the pool when the stream's coder drops it.
    pub(crate) fn string_table(
        &self,
        max_len: Option<usize>,
        capacity: Option<usize>,
        encoding: bool,
    ) -> TableLease {
        let reused = self.pool.free.lock().ok().and_then(|mut free| {
            let i = free.iter().rposition(|t| t.encoding() == encoding)?;
            Some(free.swap_remove(i))
        });
        let t = match reused {
            Some(mut t) => {
                t.reset(max_len, capacity);
                t
            }
            None => crate::tables::Tables::with_base(
                Arc::clone(&self.base),
                max_len,
                capacity,
                encoding,
            ),
        };
        TableLease {
            t,
            pool: Some(Arc::clone(&self.pool)),
        }
    }

    /// A decoder's [`string_table`](Self::string_table) for its next stream, made in `lease`:
    /// the table it holds reset in place when it is one of these grammars' tables and worth
    /// keeping (as the pool would reset it), else replaced by
    /// [`string_table`](Self::string_table)'s.
    pub(crate) fn renew_table(
        &self,
        lease: &mut TableLease,
        max_len: Option<usize>,
        capacity: Option<usize>,
    ) {
        if lease
            .pool
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, &self.pool))
            && !lease.t.encoding()
            && lease.t.reusable(&self.base)
        {
            lease.t.reset(max_len, capacity);
        } else {
            *lease = self.string_table(max_len, capacity, false);
        }
    }

    /// The number of an element declaration's name in a fresh string table.
    pub(crate) fn elem_name(&self, e: ElemId) -> crate::tables::NameId {
        self.elem_names[e.index()]
    }

    /// The global element declaration of the name numbered `name` in the string table.
    #[inline]
    pub(crate) fn global_element(&self, name: crate::tables::NameId) -> Option<ElemId> {
        self.global_by_name.get(name as usize).copied().flatten()
    }

    /// The number of the name of production `i` of `state` (an AT(qname) or relaxed
    /// SE(qname)) in a fresh string table, `None` if it has none.
    #[inline]
    pub(crate) fn prod_name(&self, state: GrammarId, i: usize) -> Option<crate::tables::NameId> {
        let n = self.prod_names[state.index()][i];
        (n != crate::tables::NONE).then_some(n)
    }

    /// The element names of the fragment grammar, in order.
    pub fn fragment_elements(&self) -> &[(Name, Option<ElemId>)] {
        &self.fragment
    }

    /// The EXI representation of a simple type's values (`String` for a complex type).
    pub fn datatype(&self, t: TypeId) -> &ExiType {
        self.datatypes[t.index()]
            .as_ref()
            .unwrap_or(&ExiType::String)
    }

    /// The representation of type `t`'s values: [`datatype`](Self::datatype)'s, or with
    /// `lexical` (preserve.lexicalValues) its lexical form as a string of the type's
    /// characters.
    pub fn value_type(&self, t: TypeId, lexical: bool) -> &ExiType {
        let v = if lexical {
            &self.lexical
        } else {
            &self.datatypes
        };
        v[t.index()].as_ref().unwrap_or(&ExiType::String)
    }

    /// Each simple type's representation under a datatype representation map (EXI 1.0 7.4),
    /// plain and with lexical values; `None` when the map is empty. A map that names a type the
    /// schema does not define is an error.
    pub fn representations(
        &self,
        map: &[crate::options::DatatypeRepresentation],
    ) -> Result<Option<Representations>> {
        if map.is_empty() {
            return Ok(None);
        }
        let mut resolved = Vec::new();
        for d in map {
            let t = self
                .schema
                .global_type(&d.type_ns, &d.type_local)
                .ok_or_else(|| {
                    Error::new(
                        binxml_core::ErrorKind::InvalidOptions,
                        Format::Exi,
                        format!(
                            "datatypeRepresentationMap names {{{}}}{}, which the schema does not \
                             define",
                            d.type_ns, d.type_local
                        ),
                    )
                })?;
            let r = (d.repr_ns == crate::options::EXI_NS)
                .then(|| datatype::builtin_representation(&d.repr_local))
                .flatten()
                .ok_or_else(|| {
                    Error::unsupported(
                        Format::Exi,
                        format!(
                            "datatypeRepresentationMap: {{{}}}{} is not a built-in representation",
                            d.repr_ns, d.repr_local
                        ),
                    )
                })?;
            // A later entry for the same type replaces an earlier one.
            resolved.retain(|(x, _): &(TypeId, ExiType)| *x != t);
            resolved.push((t, r));
        }
        let plain: Vec<Option<ExiType>> = (0..self.schema.type_count() as u32)
            .map(TypeId)
            .map(|t| match self.schema.type_def(t) {
                TypeDef::Simple(_) => Some(datatype::exi_type_mapped(&self.schema, t, &resolved)),
                TypeDef::Complex(_) => None,
            })
            .collect();
        let lexical = plain
            .iter()
            .map(|d| d.as_ref().map(datatype::lexical_type))
            .collect();
        Ok(Some(Representations { plain, lexical }))
    }

    /// [`value_type`](Self::value_type) under a stream's datatype representation map.
    pub(crate) fn value_type_in<'x>(
        &'x self,
        reps: Option<&'x Representations>,
        t: TypeId,
        lexical: bool,
    ) -> &'x ExiType {
        match reps {
            Some(r) => {
                let v = if lexical { &r.lexical } else { &r.plain };
                v[t.index()].as_ref().unwrap_or(&ExiType::String)
            }
            None => self.value_type(t, lexical),
        }
    }

    /// Whether a type is castable: named types derive from it, or it is a union.
    pub fn castable(&self, t: TypeId) -> bool {
        self.castable[t.index()]
    }
}

/// Builds the element fragment grammar (section 8.5.3): every attribute name declared (typed
/// when all its declarations share a type, else a string), then every element name; returns
/// its first state and its `TypeEmpty`.
fn element_fragment(
    schema: &Schema,
    fragment: &[(Name, Option<ElemId>)],
    grammars: &mut Vec<Grammar>,
) -> (GrammarId, GrammarId) {
    let string = schema
        .global_type(binxml_schema::XS, "string")
        .expect("the built-in types are in every schema");
    let mut attributes: Vec<(Name, TypeId)> = Vec::new();
    for i in 0..schema.attribute_count() {
        let a = schema.attribute(binxml_schema::model::AttrId(i as u32));
        // The XML namespace's attributes count when the schema imports that namespace.
        if a.name.ns == binxml_core::XML_NS && !schema.imports_xml_namespace() {
            continue;
        }
        match attributes.iter_mut().find(|(n, _)| *n == a.name) {
            Some((_, t)) if *t != a.type_def => *t = string,
            Some(_) => {}
            None => attributes.push((a.name.clone(), a.type_def)),
        }
    }
    attributes.sort_by(|a, b| name_order(&a.0, &b.0));
    let first = GrammarId(grammars.len() as u32);
    let content = GrammarId(first.0 + 1);
    let empty = GrammarId(first.0 + 2);
    let mut elements: Vec<Production> = fragment
        .iter()
        .map(|(name, e)| Production {
            terminal: match e {
                Some(e) => Terminal::Se(*e),
                None => Terminal::SeRelaxed(name.clone()),
            },
            next: Some(content),
        })
        .collect();
    elements.push(Production {
        terminal: Terminal::SeAny,
        next: Some(content),
    });
    elements.push(Production {
        terminal: Terminal::Ee,
        next: None,
    });
    elements.push(Production {
        terminal: Terminal::ChMixed,
        next: Some(content),
    });
    let attrs = |to: GrammarId| -> Vec<Production> {
        let mut v: Vec<Production> = attributes
            .iter()
            .map(|(name, t)| Production {
                terminal: Terminal::At {
                    name: name.clone(),
                    type_def: *t,
                },
                next: Some(to),
            })
            .collect();
        v.push(Production {
            terminal: Terminal::AtAny,
            next: Some(to),
        });
        v
    };
    let mut start = attrs(first);
    start.extend(elements.iter().cloned());
    grammars.push(Grammar::new(Kind::FirstStartTag, start, Some(content)));
    grammars.push(Grammar::new(Kind::Content, elements, None));
    let mut empty_prods = attrs(empty);
    empty_prods.push(Production {
        terminal: Terminal::Ee,
        next: None,
    });
    grammars.push(Grammar::new(Kind::FirstStartTag, empty_prods, None));
    (first, empty)
}

/// The string table's pre-population of a schema (section 7.3.1, appendix D): the four fixed
/// URIs, then every namespace the schema declares components in or names in a wildcard,
/// sorted; each URI's local names are those of its fixed entries and every element, attribute
/// and named type declared in it, sorted.
fn string_table_entries(s: &Schema) -> Vec<(String, Vec<String>)> {
    use binxml_schema::model::{AttrId, Content, NamespaceConstraint, Term};
    use std::collections::BTreeSet;
    const XML: &str = "http://www.w3.org/XML/1998/namespace";
    const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
    let mut names: Vec<(String, String)> = Vec::new();
    for i in 0..s.element_count() {
        let n = &s.element(ElemId(i as u32)).name;
        names.push((n.ns.clone(), n.local.clone()));
    }
    for i in 0..s.attribute_count() {
        let n = &s.attribute(AttrId(i as u32)).name;
        if n.ns != XML {
            names.push((n.ns.clone(), n.local.clone()));
        }
    }
    for (n, _) in s.global_types() {
        names.push((n.ns.clone(), n.local.clone()));
    }
    let mut uris: BTreeSet<String> = names.iter().map(|(u, _)| u.clone()).collect();
    for d in s.documents() {
        uris.insert(d.target_namespace.clone());
    }
    fn wildcard_uris(t: &Term, out: &mut BTreeSet<String>) {
        match t {
            Term::Wildcard(w) => {
                if let NamespaceConstraint::Set(set) = &w.namespaces {
                    out.extend(set.iter().cloned());
                }
            }
            Term::Group(g) => {
                for p in &g.particles {
                    wildcard_uris(&p.term, out);
                }
            }
            Term::Element(_) => {}
        }
    }
    for t in 0..s.type_count() {
        if let TypeDef::Complex(c) = s.type_def(TypeId(t as u32)) {
            if let Some(w) = &c.attribute_wildcard
                && let NamespaceConstraint::Set(set) = &w.namespaces
            {
                uris.extend(set.iter().cloned());
            }
            if let Content::Elements { particle, .. } = &c.content {
                wildcard_uris(&particle.term, &mut uris);
            }
        }
    }
    let mut table: Vec<(String, Vec<String>)> = vec![
        (String::new(), vec![]),
        (
            XML.into(),
            ["base", "id", "lang", "space"].map(String::from).to_vec(),
        ),
        (XSI.into(), ["nil", "type"].map(String::from).to_vec()),
        (binxml_schema::XS.into(), vec![]),
    ];
    for u in uris {
        if !table.iter().any(|(x, _)| *x == u) {
            table.push((u, vec![]));
        }
    }
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, (u, _)) in table.iter().enumerate() {
        index.insert(u.clone(), i);
    }
    for (u, l) in names {
        let entry = &mut table[index[&u]].1;
        entry.push(l);
    }
    for (_, locals) in &mut table {
        locals.sort();
        locals.dedup();
    }
    table
}

/// EXI's name order: local name, then namespace.
pub(crate) fn name_order(a: &Name, b: &Name) -> std::cmp::Ordering {
    (&a.local, &a.ns).cmp(&(&b.local, &b.ns))
}

/// For each type: a named type has it as its base, or it is a union (section 8.5.4.4.2).
fn castable_types(schema: &Schema) -> Vec<bool> {
    let mut castable = vec![false; schema.type_count()];
    for (_, t) in schema.global_types() {
        if let Some(b) = schema.type_def(t).base() {
            castable[b.index()] = true;
        }
    }
    for (i, c) in castable.iter_mut().enumerate() {
        if let TypeDef::Simple(s) = schema.type_def(TypeId(i as u32))
            && matches!(s.variety, Variety::Union(_))
        {
            *c = true;
        }
    }
    castable
}
