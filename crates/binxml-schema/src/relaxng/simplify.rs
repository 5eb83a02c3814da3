//! Simplification (RELAX NG specification, section 4) of the documents' element trees into a
//! [`Grammar`]: foreign elements dropped, `ns` and `datatypeLibrary` inherited, `include`,
//! `externalRef`, `div` and nested `grammar`s resolved with their scopes, `define`s combined
//! (`combine="choice"` / `"interleave"`), `mixed`, `optional` and `zeroOrMore` rewritten,
//! references inlined except through elements (each element's content is a slot, compiled once;
//! a reference loop that does not pass through an element is an error, section 4.19), and
//! `notAllowed` / `empty` propagated by the arena's constructors (4.20).

use std::collections::HashMap;

use super::load::Docs;
use super::pattern::*;
use super::{RNG, XSD_DATATYPES};
use crate::SchemaError;
use crate::datatypes::{Builtin, FacetKind, FacetSpec, Facets};
use crate::load::doc::Elem;

/// What a pattern inherits from its ancestors.
#[derive(Clone, Debug)]
struct Ctx {
    doc: usize,
    ns: String,
    dtlib: String,
    scope: Option<usize>,
}

impl Ctx {
    /// The context below `e`: its own `ns` and `datatypeLibrary` override the inherited ones.
    fn enter(&self, e: &Elem) -> Ctx {
        let mut c = self.clone();
        if let Some(ns) = e.attr("ns") {
            c.ns = ns.to_string();
        }
        if let Some(d) = e.attr("datatypeLibrary") {
            c.dtlib = d.to_string();
        }
        c
    }
}

/// A `start` or `define` of a grammar, with its context.
struct Comp<'d> {
    elem: &'d Elem,
    combine: Option<String>,
    ctx: Ctx,
}

#[derive(Default)]
struct Scope<'d> {
    parent: Option<usize>,
    start: Vec<Comp<'d>>,
    defines: HashMap<String, Vec<Comp<'d>>>,
}

enum Def {
    InProgress,
    Done(P),
}

struct Compiler<'d> {
    docs: &'d Docs,
    g: Grammar,
    scopes: Vec<Scope<'d>>,
    defs: HashMap<(usize, String), Def>,
    queue: Vec<(u32, &'d Elem, Ctx)>,
    nc_ids: HashMap<NameClass, u32>,
    depth: usize,
    /// The documents being compiled through `externalRef` (a loop is an error).
    external: Vec<usize>,
}

/// Deepest nesting of patterns, name classes and grammars followed while compiling.
const MAX_DEPTH: usize = 2_000;

const START: &str = "\u{0}start";

/// Simplifies the documents into a grammar.
pub(crate) fn simplify(docs: &Docs, max_patterns: usize) -> Result<Grammar, SchemaError> {
    let mut c = Compiler {
        docs,
        g: Grammar {
            arena: Arena::new(max_patterns),
            start: NOT_ALLOWED,
            contents: Vec::new(),
            name_classes: Vec::new(),
            datatypes: Vec::new(),
            values: Vec::new(),
        },
        scopes: Vec::new(),
        defs: HashMap::new(),
        queue: Vec::new(),
        nc_ids: HashMap::new(),
        depth: 0,
        external: vec![0],
    };
    let root = &docs.docs[0].elem;
    let ctx = Ctx {
        doc: 0,
        ns: String::new(),
        dtlib: String::new(),
        scope: None,
    };
    c.g.start = c.pattern(root, &ctx)?;
    while let Some((slot, e, ctx)) = c.queue.pop() {
        let p = c.element_content(e, &ctx)?;
        c.g.contents[slot as usize] = p;
    }
    Ok(c.g)
}

fn rng_children(e: &Elem) -> impl Iterator<Item = &Elem> {
    e.children.iter().filter(|c| c.ns == RNG)
}

impl<'d> Compiler<'d> {
    fn err(&self, ctx: &Ctx, e: &Elem, msg: impl Into<String>) -> SchemaError {
        self.docs.docs[ctx.doc].error(e.offset, msg)
    }

    fn too_big(&self, ctx: &Ctx, e: &Elem) -> SchemaError {
        self.err(
            ctx,
            e,
            format!(
                "the schema simplifies to more than {} patterns",
                self.g.arena_limit()
            ),
        )
    }

    fn pattern(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(ctx, e, format!("patterns nest deeper than {MAX_DEPTH}")));
        }
        let r = self.pattern_inner(e, ctx);
        self.depth -= 1;
        r
    }

    fn pattern_inner(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        if e.ns != RNG {
            return Err(self.err(ctx, e, format!("'{}' is not a RELAX NG pattern", e.local)));
        }
        let ctx = &ctx.enter(e);
        let map = |s: &Self, r: Result<P, TooBig>| r.map_err(|_| s.too_big(ctx, e));
        match e.local.as_str() {
            "element" => {
                let (nc, rest) = self.name_class_of(e, ctx, false)?;
                if rest.is_empty() {
                    return Err(self.err(ctx, e, "an element needs a pattern"));
                }
                let slot = self.g.contents.len() as u32;
                self.g.contents.push(NOT_ALLOWED);
                self.queue.push((slot, e, ctx.clone()));
                {
                    let r = self.g.arena.make(Node::Element(nc, slot));
                    map(self, r)
                }
            }
            "attribute" => {
                let (nc, rest) = self.name_class_of(e, ctx, true)?;
                let p = if rest.is_empty() {
                    TEXT
                } else {
                    self.fold(&rest, ctx, e, Arena::group)?
                };
                {
                    let r = self.g.arena.make(Node::Attribute(nc, p));
                    map(self, r)
                }
            }
            "group" | "define" | "start" => self.children(e, ctx, Arena::group),
            "interleave" => self.children(e, ctx, Arena::interleave),
            "choice" => self.children(e, ctx, Arena::choice),
            "optional" => {
                let p = self.children(e, ctx, Arena::group)?;
                {
                    let r = self.g.arena.choice(p, EMPTY);
                    map(self, r)
                }
            }
            "zeroOrMore" => {
                let p = self.children(e, ctx, Arena::group)?;
                let p = {
                    let r = self.g.arena.one_or_more(p);
                    map(self, r)?
                };
                {
                    let r = self.g.arena.choice(p, EMPTY);
                    map(self, r)
                }
            }
            "oneOrMore" => {
                let p = self.children(e, ctx, Arena::group)?;
                {
                    let r = self.g.arena.one_or_more(p);
                    map(self, r)
                }
            }
            "mixed" => {
                let p = self.children(e, ctx, Arena::group)?;
                {
                    let r = self.g.arena.interleave(p, TEXT);
                    map(self, r)
                }
            }
            "list" => {
                let p = self.children(e, ctx, Arena::group)?;
                {
                    let r = self.g.arena.make(Node::List(p));
                    map(self, r)
                }
            }
            "empty" => Ok(EMPTY),
            "text" => Ok(TEXT),
            "notAllowed" => Ok(NOT_ALLOWED),
            "ref" | "parentRef" => {
                let name = self.name_attr(e, ctx)?;
                let mut scope = ctx.scope;
                if e.local == "parentRef" {
                    scope = scope.and_then(|s| self.scopes[s].parent);
                }
                let Some(scope) = scope else {
                    return Err(self.err(ctx, e, format!("'{name}': no grammar to refer into")));
                };
                self.define(scope, &name, e, ctx)
            }
            "externalRef" => {
                let doc = self.href(e, ctx)?;
                if self.external.contains(&doc) {
                    return Err(self.err(ctx, e, "externalRef loop"));
                }
                let root = &self.docs.docs[doc].elem;
                let sub = Ctx {
                    doc,
                    ns: ctx.ns.clone(),
                    dtlib: String::new(),
                    scope: None,
                };
                self.external.push(doc);
                let r = self.pattern(root, &sub);
                self.external.pop();
                r
            }
            "grammar" => {
                let scope = self.grammar(e, ctx)?;
                self.define(scope, START, e, ctx)
            }
            "data" => self.data(e, ctx),
            "value" => self.value(e, ctx),
            other => Err(self.err(ctx, e, format!("'{other}' is not a RELAX NG pattern"))),
        }
    }

    fn children(
        &mut self,
        e: &'d Elem,
        ctx: &Ctx,
        op: fn(&mut Arena, P, P) -> Result<P, TooBig>,
    ) -> Result<P, SchemaError> {
        let kids: Vec<&'d Elem> = rng_children(e).collect();
        if kids.is_empty() {
            return Err(self.err(ctx, e, format!("'{}' needs at least one pattern", e.local)));
        }
        self.fold(&kids, ctx, e, op)
    }

    fn fold(
        &mut self,
        kids: &[&'d Elem],
        ctx: &Ctx,
        at: &Elem,
        op: fn(&mut Arena, P, P) -> Result<P, TooBig>,
    ) -> Result<P, SchemaError> {
        let mut acc: Option<P> = None;
        for k in kids {
            let p = self.pattern(k, ctx)?;
            acc = Some(match acc {
                None => p,
                Some(a) => op(&mut self.g.arena, a, p).map_err(|_| self.too_big(ctx, at))?,
            });
        }
        Ok(acc.unwrap_or(EMPTY))
    }

    fn element_content(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        let (_, rest) = self.name_class_of(e, ctx, false)?;
        self.fold(&rest, ctx, e, Arena::group)
    }

    fn name_attr(&self, e: &Elem, ctx: &Ctx) -> Result<String, SchemaError> {
        e.attr("name")
            .map(|n| n.trim().to_string())
            .ok_or_else(|| self.err(ctx, e, format!("'{}' needs a name", e.local)))
    }

    fn href(&self, e: &Elem, ctx: &Ctx) -> Result<usize, SchemaError> {
        let href = e.attr("href").map(str::trim).unwrap_or_default();
        self.docs
            .by_href
            .get(&(ctx.doc, href.to_string()))
            .copied()
            .ok_or_else(|| self.err(ctx, e, format!("'{href}' was not read")))
    }

    // --- grammars ---

    /// A new scope for a `grammar` element, with its components collected.
    fn grammar(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<usize, SchemaError> {
        let id = self.scopes.len();
        self.scopes.push(Scope {
            parent: ctx.scope,
            ..Scope::default()
        });
        let inner = Ctx {
            scope: Some(id),
            ..ctx.clone()
        };
        let mut s = Scope::default();
        self.collect(e, &inner, &mut s, 0)?;
        self.scopes[id].start = s.start;
        self.scopes[id].defines = s.defines;
        Ok(id)
    }

    fn collect(
        &mut self,
        e: &'d Elem,
        ctx: &Ctx,
        into: &mut Scope<'d>,
        depth: usize,
    ) -> Result<(), SchemaError> {
        if depth > 64 {
            return Err(self.err(ctx, e, "includes and divs nest deeper than 64"));
        }
        for c in rng_children(e) {
            let cctx = ctx.enter(c);
            let combine = c.attr("combine").map(|s| s.trim().to_string());
            match c.local.as_str() {
                "start" => into.start.push(Comp {
                    elem: c,
                    combine,
                    ctx: cctx,
                }),
                "define" => {
                    let name = self.name_attr(c, ctx)?;
                    into.defines.entry(name).or_default().push(Comp {
                        elem: c,
                        combine,
                        ctx: cctx,
                    });
                }
                "div" => self.collect(c, &cctx, into, depth + 1)?,
                "include" => {
                    let doc = self.href(c, ctx)?;
                    let root = &self.docs.docs[doc].elem;
                    if root.ns != RNG || root.local != "grammar" {
                        return Err(self.err(ctx, c, "an included document must be a grammar"));
                    }
                    let sub_ctx = Ctx {
                        doc,
                        ns: cctx.ns.clone(),
                        dtlib: String::new(),
                        scope: ctx.scope,
                    }
                    .enter(root);
                    let mut sub = Scope::default();
                    self.collect(root, &sub_ctx, &mut sub, depth + 1)?;
                    let mut own = Scope::default();
                    self.collect(c, &cctx, &mut own, depth + 1)?;
                    if !own.start.is_empty() {
                        if sub.start.is_empty() {
                            return Err(self.err(
                                ctx,
                                c,
                                "the include overrides a start the grammar does not have",
                            ));
                        }
                        sub.start.clear();
                    }
                    for name in own.defines.keys() {
                        if sub.defines.remove(name).is_none() {
                            return Err(self.err(
                                ctx,
                                c,
                                format!("the include overrides '{name}', which the grammar does not define"),
                            ));
                        }
                    }
                    for s in [sub, own] {
                        into.start.extend(s.start);
                        for (n, v) in s.defines {
                            into.defines.entry(n).or_default().extend(v);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The pattern of a define (or the start) of a scope, compiled once.
    fn define(&mut self, scope: usize, name: &str, at: &Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        let key = (scope, name.to_string());
        match self.defs.get(&key) {
            Some(Def::Done(p)) => return Ok(*p),
            Some(Def::InProgress) => {
                return Err(self.err(
                    ctx,
                    at,
                    format!("'{name}' refers to itself other than through an element"),
                ));
            }
            None => {}
        }
        self.defs.insert(key.clone(), Def::InProgress);
        let comps: Vec<(&'d Elem, Option<String>, Ctx)> = {
            let s = &self.scopes[scope];
            let list = if name == START {
                Some(&s.start)
            } else {
                s.defines.get(name)
            };
            match list {
                Some(l) if !l.is_empty() => l
                    .iter()
                    .map(|c| (c.elem, c.combine.clone(), c.ctx.clone()))
                    .collect(),
                _ => {
                    let what = if name == START {
                        "a start".to_string()
                    } else {
                        format!("'{name}'")
                    };
                    return Err(self.err(ctx, at, format!("the grammar has no {what}")));
                }
            }
        };
        let mut combine: Option<&str> = None;
        let mut bare = 0;
        for (e, c, cctx) in &comps {
            match c.as_deref() {
                None => bare += 1,
                Some(k @ ("choice" | "interleave")) => {
                    if combine.is_some_and(|x| x != k) {
                        return Err(self.err(
                            cctx,
                            e,
                            format!("'{name}' is combined both by choice and by interleave"),
                        ));
                    }
                    combine = Some(k);
                }
                Some(k) => {
                    return Err(self.err(
                        cctx,
                        e,
                        format!("combine=\"{k}\" is neither choice nor interleave"),
                    ));
                }
            }
        }
        if comps.len() > 1 && (bare > 1 || combine.is_none()) {
            let (e, _, cctx) = &comps[1];
            return Err(self.err(
                cctx,
                e,
                format!("'{name}' is defined more than once without combine"),
            ));
        }
        let op = if combine == Some("interleave") {
            Arena::interleave
        } else {
            Arena::choice
        };
        let mut acc: Option<P> = None;
        for (e, _, cctx) in &comps {
            let p = self.children(e, cctx, Arena::group)?;
            acc = Some(match acc {
                None => p,
                Some(a) => op(&mut self.g.arena, a, p).map_err(|_| self.too_big(cctx, e))?,
            });
        }
        let p = acc.unwrap_or(NOT_ALLOWED);
        self.defs.insert(key, Def::Done(p));
        Ok(p)
    }

    // --- name classes ---

    /// The name class of an `element` or `attribute` and the patterns after it.
    fn name_class_of(
        &mut self,
        e: &'d Elem,
        ctx: &Ctx,
        attribute: bool,
    ) -> Result<(u32, Vec<&'d Elem>), SchemaError> {
        let mut kids: Vec<&'d Elem> = rng_children(e).collect();
        let nc = if let Some(n) = e.attr("name") {
            let own_ns = if attribute {
                e.attr("ns").unwrap_or("").to_string()
            } else {
                ctx.ns.clone()
            };
            self.qname(n, e, ctx, &own_ns)?
        } else {
            if kids.is_empty() {
                return Err(self.err(ctx, e, format!("'{}' needs a name", e.local)));
            }
            let first = kids.remove(0);
            self.name_class(first, ctx)?
        };
        let id = match self.nc_ids.get(&nc) {
            Some(&i) => i,
            None => {
                let i = self.g.name_classes.len() as u32;
                self.nc_ids.insert(nc.clone(), i);
                self.g.name_classes.push(nc);
                i
            }
        };
        Ok((id, kids))
    }

    fn qname(
        &self,
        text: &str,
        e: &Elem,
        ctx: &Ctx,
        default_ns: &str,
    ) -> Result<NameClass, SchemaError> {
        let text = text.trim();
        match text.split_once(':') {
            Some((prefix, local)) => {
                let ns = e.scope.resolve(prefix).ok_or_else(|| {
                    self.err(ctx, e, format!("prefix '{prefix}' is not declared"))
                })?;
                Ok(NameClass::Name(ns.to_string(), local.to_string()))
            }
            None => Ok(NameClass::Name(default_ns.to_string(), text.to_string())),
        }
    }

    fn name_class(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<NameClass, SchemaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(ctx, e, format!("name classes nest deeper than {MAX_DEPTH}")));
        }
        let ctx = &ctx.enter(e);
        let except = |s: &mut Self| -> Result<Option<Box<NameClass>>, SchemaError> {
            match rng_children(e).find(|c| c.local == "except") {
                None => Ok(None),
                Some(x) => Ok(Some(Box::new(s.name_class_choice(x, ctx)?))),
            }
        };
        let r = match e.local.as_str() {
            "name" => self.qname(&e.text, e, ctx, &ctx.ns),
            "anyName" => Ok(NameClass::AnyName(except(self)?)),
            "nsName" => Ok(NameClass::NsName(ctx.ns.clone(), except(self)?)),
            "choice" => self.name_class_choice(e, ctx),
            other => Err(self.err(ctx, e, format!("'{other}' is not a name class"))),
        };
        self.depth -= 1;
        r
    }

    fn name_class_choice(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<NameClass, SchemaError> {
        let mut acc: Option<NameClass> = None;
        for c in rng_children(e) {
            let n = self.name_class(c, ctx)?;
            acc = Some(match acc {
                None => n,
                Some(a) => NameClass::Choice(Box::new(a), Box::new(n)),
            });
        }
        acc.ok_or_else(|| self.err(ctx, e, format!("'{}' needs a name class", e.local)))
    }

    // --- datatypes ---

    fn datatype(
        &self,
        e: &Elem,
        ctx: &Ctx,
        ty: &str,
        params: &[(&str, &str)],
    ) -> Result<Datatype, SchemaError> {
        match ctx.dtlib.as_str() {
            "" => {
                if !params.is_empty() {
                    return Err(self.err(ctx, e, "the built-in datatypes take no parameters"));
                }
                match ty {
                    "string" => Ok(Datatype::String),
                    "token" => Ok(Datatype::Token),
                    _ => Err(self.err(
                        ctx,
                        e,
                        format!("'{ty}' is not a built-in datatype (string, token)"),
                    )),
                }
            }
            XSD_DATATYPES => {
                let b = Builtin::from_local_name(ty)
                    .filter(|b| !matches!(b, Builtin::AnySimpleType))
                    .ok_or_else(|| {
                        self.err(ctx, e, format!("'{ty}' is not an XML Schema datatype"))
                    })?;
                let mut specs = Vec::new();
                for (name, value) in params {
                    let kind = FacetKind::from_local_name(name)
                        .filter(|k| !matches!(k, FacetKind::Enumeration | FacetKind::WhiteSpace))
                        .ok_or_else(|| {
                            self.err(ctx, e, format!("'{name}' is not a parameter of {ty}"))
                        })?;
                    specs.push(FacetSpec {
                        kind,
                        value,
                        fixed: false,
                        ns: &*e.scope,
                    });
                }
                let facets = Facets::builtin(b)
                    .restrict(&specs)
                    .map_err(|err| self.err(ctx, e, format!("{ty}: {err}")))?;
                Ok(Datatype::Xsd(b, Box::new(facets)))
            }
            lib => Err(self.err(ctx, e, format!("datatype library '{lib}' is not supported"))),
        }
    }

    fn data(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        let ty = e
            .attr("type")
            .map(str::trim)
            .unwrap_or_default()
            .to_string();
        let params: Vec<(String, String)> = rng_children(e)
            .filter(|c| c.local == "param")
            .map(|c| {
                (
                    c.attr("name").unwrap_or_default().trim().to_string(),
                    c.text.clone(),
                )
            })
            .collect();
        let pr: Vec<(&str, &str)> = params
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dt = self.datatype(e, ctx, &ty, &pr)?;
        let idx = self.g.datatypes.len() as u32;
        self.g.datatypes.push(dt);
        let node = match rng_children(e).find(|c| c.local == "except") {
            None => Node::Data(idx),
            Some(x) => {
                let p = self.children(x, &ctx.enter(x), Arena::choice)?;
                Node::DataExcept(idx, p)
            }
        };
        self.g.arena.make(node).map_err(|_| self.too_big(ctx, e))
    }

    fn value(&mut self, e: &'d Elem, ctx: &Ctx) -> Result<P, SchemaError> {
        let (ty, vctx) = match e.attr("type") {
            Some(t) => (t.trim().to_string(), ctx.clone()),
            None => (
                "token".to_string(),
                Ctx {
                    dtlib: String::new(),
                    ..ctx.clone()
                },
            ),
        };
        let dt = self.datatype(e, &vctx, &ty, &[])?;
        let value = match &dt {
            Datatype::Xsd(_, f) => Some(
                f.validate(&e.text, &*e.scope)
                    .map_err(|err| self.err(ctx, e, format!("value '{}': {err}", e.text)))?,
            ),
            _ => None,
        };
        let idx = self.g.datatypes.len() as u32;
        self.g.datatypes.push(dt);
        let v = self.g.values.len() as u32;
        self.g.values.push(ValuePattern {
            datatype: idx,
            lexical: e.text.clone(),
            value,
        });
        self.g
            .arena
            .make(Node::Value(v))
            .map_err(|_| self.too_big(ctx, e))
    }
}

impl Grammar {
    fn arena_limit(&self) -> usize {
        self.arena.limit()
    }
}
