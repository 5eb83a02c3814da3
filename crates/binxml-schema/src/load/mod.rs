//! Loading a schema: reading the schema documents (the root one and every document it includes,
//! imports or redefines, from local files only), registering their top-level components by
//! name, then resolving them into the [`Schema`] model (`resolve.rs`, `finish.rs`).

pub(crate) mod doc;
mod finish;
mod resolve;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use binxml_core::Limits;

pub use doc::XS;
use doc::{Elem, read};

use crate::error::SchemaError;
use crate::model::{Derivations, Name, Schema};

/// How a schema is loaded.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Limits on each schema document, as for any XML input.
    pub limits: Limits,
    /// Most schema documents one schema may read.
    pub max_documents: usize,
    /// Largest schema document read, in bytes.
    pub max_document_bytes: u64,
    /// Most states a content model may compile to (a `maxOccurs` of millions is refused
    /// rather than unrolled).
    pub max_content_states: usize,
    /// Schema locations mapped to local files (an exact location, or a prefix ending in `/`).
    pub locations: Vec<(String, PathBuf)>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            limits: Limits::default(),
            max_documents: 10_000,
            max_document_bytes: 64 << 20,
            max_content_states: 100_000,
            locations: Vec::new(),
        }
    }
}

impl LoadOptions {
    /// Maps a schema location (a URL, as written in `schemaLocation`) to a local file; a
    /// location ending in `/` maps every location under it to the same relative path under
    /// `path`.
    pub fn with_location(mut self, location: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        self.locations.push((location.into(), path.into()));
        self
    }

    /// Sets the limits on each schema document.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the most states a content model may compile to.
    pub fn with_max_content_states(mut self, n: usize) -> Self {
        self.max_content_states = n;
        self
    }
}

impl Schema {
    /// Loads the schema whose root document is the file at `path`, with default options.
    pub fn load(path: impl AsRef<Path>) -> Result<Schema, SchemaError> {
        Schema::load_with(path, &LoadOptions::default())
    }

    /// Loads the schema whose root document is the file at `path`.
    pub fn load_with(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Schema, SchemaError> {
        let path = path.as_ref();
        let bytes = read_file(path, options.max_document_bytes).map_err(|e| {
            SchemaError::new(path.display().to_string(), format!("cannot read: {e}"))
        })?;
        Schema::from_bytes_with(&bytes, path, options)
    }

    /// Loads a schema from the bytes of its root document; `location` names it in errors and
    /// is the base for its relative `schemaLocation`s.
    pub fn from_bytes_with(
        bytes: &[u8],
        location: impl AsRef<Path>,
        options: &LoadOptions,
    ) -> Result<Schema, SchemaError> {
        let mut loader = Loader {
            options,
            docs: Vec::new(),
            by_key: HashMap::new(),
            raw: Raw::default(),
            imports_xml: false,
        };
        loader.add_document(bytes.to_vec(), location.as_ref(), None)?;
        let mut schema = resolve::resolve(loader.docs, loader.raw, options)?;
        schema.imports_xml_namespace = loader.imports_xml;
        Ok(schema)
    }
}

/// A schema document read and classified.
pub(crate) struct Doc {
    pub elem: Elem,
    pub location: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// The target namespace (the includer's for a chameleon include).
    pub tns: String,
    /// A chameleon include: unqualified references mean the target namespace.
    pub chameleon: bool,
    pub element_qualified: bool,
    pub attribute_qualified: bool,
    pub block_default: Derivations,
    pub final_default: Derivations,
}

impl Doc {
    pub fn error(&self, offset: u64, message: impl Into<String>) -> SchemaError {
        SchemaError::new(&self.location, message).at(&self.bytes, offset)
    }
}

/// Where a top-level component is written: document, index among the `<schema>`'s children,
/// and, inside a `<redefine>`, the index among its children.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawRef {
    pub doc: u32,
    pub top: u32,
    pub sub: Option<u32>,
}

impl RawRef {
    pub fn elem<'d>(&self, docs: &'d [Doc]) -> &'d Elem {
        let top = &docs[self.doc as usize].elem.children[self.top as usize];
        match self.sub {
            Some(s) => &top.children[s as usize],
            None => top,
        }
    }
}

/// The top-level components of every document, by kind and name. `originals` keeps what a
/// `<redefine>` replaced, for the redefinition's references to itself.
#[derive(Default)]
pub(crate) struct Raw {
    pub elements: HashMap<Name, RawRef>,
    pub attributes: HashMap<Name, RawRef>,
    pub types: HashMap<Name, RawRef>,
    pub groups: HashMap<Name, RawRef>,
    pub attribute_groups: HashMap<Name, RawRef>,
    pub original_types: HashMap<Name, RawRef>,
    pub original_groups: HashMap<Name, RawRef>,
    pub original_attribute_groups: HashMap<Name, RawRef>,
}

struct Loader<'o> {
    options: &'o LoadOptions,
    docs: Vec<Doc>,
    /// (canonical path, target namespace) of each document read: a document included twice,
    /// or in a cycle, is read once.
    by_key: HashMap<(PathBuf, String), u32>,
    raw: Raw,
    /// A document imports the XML namespace (its attributes are built in).
    imports_xml: bool,
}

pub(crate) fn parse_derivations(value: Option<&str>, default: Derivations) -> Derivations {
    let Some(v) = value else { return default };
    let mut d = Derivations::default();
    for tok in v.split_ascii_whitespace() {
        match tok {
            "#all" => {
                d = Derivations {
                    extension: true,
                    restriction: true,
                    substitution: true,
                    list: true,
                    union: true,
                }
            }
            "extension" => d.extension = true,
            "restriction" => d.restriction = true,
            "substitution" => d.substitution = true,
            "list" => d.list = true,
            "union" => d.union = true,
            _ => {}
        }
    }
    d
}

impl Loader<'_> {
    /// Reads one document and, recursively, what it includes, imports and redefines.
    /// `chameleon_tns` is the includer's target namespace for an `<include>`/`<redefine>`.
    fn add_document(
        &mut self,
        bytes: Vec<u8>,
        path: &Path,
        chameleon_tns: Option<&str>,
    ) -> Result<u32, SchemaError> {
        let location = path.display().to_string();
        if self.docs.len() >= self.options.max_documents {
            return Err(SchemaError::new(
                location,
                format!("more than {} schema documents", self.options.max_documents),
            ));
        }
        let elem = read(&bytes, self.options.limits.clone())
            .map_err(|e| SchemaError::new(&location, format!("not well-formed XML: {e}")))?;
        if !elem.is("schema") {
            return Err(SchemaError::new(
                &location,
                format!(
                    "the root element is {{{}}}{}, not xs:schema",
                    elem.ns, elem.local
                ),
            )
            .at(&bytes, elem.offset));
        }
        let own_tns = elem.attr("targetNamespace").unwrap_or("").to_string();
        let (tns, chameleon) = match chameleon_tns {
            Some(t) if own_tns.is_empty() && !t.is_empty() => (t.to_string(), true),
            Some(t) if own_tns != t => {
                return Err(SchemaError::new(
                    &location,
                    format!("included with target namespace '{t}' but declares '{own_tns}'"),
                )
                .at(&bytes, elem.offset));
            }
            _ => (own_tns, false),
        };
        let key = (canonical(path), tns.clone());
        if let Some(&i) = self.by_key.get(&key) {
            return Ok(i);
        }
        let idx = self.docs.len() as u32;
        self.by_key.insert(key, idx);
        let block_default = parse_derivations(elem.attr("blockDefault"), Derivations::default());
        let final_default = parse_derivations(elem.attr("finalDefault"), Derivations::default());
        self.docs.push(Doc {
            element_qualified: elem.attr("elementFormDefault") == Some("qualified"),
            attribute_qualified: elem.attr("attributeFormDefault") == Some("qualified"),
            elem,
            location,
            path: path.to_path_buf(),
            bytes,
            tns,
            chameleon,
            block_default,
            final_default,
        });
        self.register(idx)?;
        Ok(idx)
    }

    /// Registers a document's top-level components and reads the documents it refers to.
    fn register(&mut self, idx: u32) -> Result<(), SchemaError> {
        let n = self.docs[idx as usize].elem.children.len();
        for top in 0..n {
            let (local, ns, offset) = {
                let c = &self.docs[idx as usize].elem.children[top];
                (c.local.clone(), c.ns.clone(), c.offset)
            };
            if ns != XS {
                continue;
            }
            let at = RawRef {
                doc: idx,
                top: top as u32,
                sub: None,
            };
            match local.as_str() {
                "include" | "redefine" | "import" => {
                    let target = self.referenced(idx, top, &local)?;
                    if local == "redefine" {
                        let Some(target) = target else { continue };
                        let m = self.docs[idx as usize].elem.children[top].children.len();
                        for sub in 0..m {
                            let r = RawRef {
                                doc: idx,
                                top: top as u32,
                                sub: Some(sub as u32),
                            };
                            self.redefine(r, target)?;
                        }
                    }
                }
                "element" | "attribute" | "complexType" | "simpleType" | "group"
                | "attributeGroup" => self.define(at, &local, offset)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn name_of(&self, at: RawRef) -> Result<Name, SchemaError> {
        let doc = &self.docs[at.doc as usize];
        let e = at.elem(&self.docs);
        let local = e.attr("name").ok_or_else(|| {
            doc.error(
                e.offset,
                format!("a top-level <{}> without a name", e.local),
            )
        })?;
        Ok(Name::new(doc.tns.clone(), local))
    }

    fn define(&mut self, at: RawRef, kind: &str, offset: u64) -> Result<(), SchemaError> {
        let name = self.name_of(at)?;
        let table = match kind {
            "element" => &mut self.raw.elements,
            "attribute" => &mut self.raw.attributes,
            "complexType" | "simpleType" => &mut self.raw.types,
            "group" => &mut self.raw.groups,
            _ => &mut self.raw.attribute_groups,
        };
        if table.insert(name.clone(), at).is_some() {
            let doc = &self.docs[at.doc as usize];
            return Err(doc.error(offset, format!("{kind} {name} is declared twice")));
        }
        Ok(())
    }

    /// A component inside `<redefine>` replaces the one of the same name; the replaced one is
    /// kept for the redefinition's references to itself.
    fn redefine(&mut self, at: RawRef, _target: u32) -> Result<(), SchemaError> {
        let e = at.elem(&self.docs);
        if e.ns != XS || e.local == "annotation" {
            return Ok(());
        }
        let kind = e.local.clone();
        let offset = e.offset;
        let name = self.name_of(at)?;
        let (table, originals) = match kind.as_str() {
            "complexType" | "simpleType" => (&mut self.raw.types, &mut self.raw.original_types),
            "group" => (&mut self.raw.groups, &mut self.raw.original_groups),
            "attributeGroup" => (
                &mut self.raw.attribute_groups,
                &mut self.raw.original_attribute_groups,
            ),
            _ => {
                let doc = &self.docs[at.doc as usize];
                return Err(doc.error(offset, format!("<{kind}> cannot be redefined")));
            }
        };
        match table.insert(name.clone(), at) {
            Some(original) => {
                originals.insert(name, original);
                Ok(())
            }
            None => {
                let doc = &self.docs[at.doc as usize];
                Err(doc.error(
                    offset,
                    format!("redefines {name}, which the redefined schema does not declare"),
                ))
            }
        }
    }

    /// Reads the document an `<include>`, `<redefine>` or `<import>` refers to; `None` for an
    /// import without a location (its components must come from elsewhere).
    fn referenced(&mut self, idx: u32, top: usize, kind: &str) -> Result<Option<u32>, SchemaError> {
        let (location, namespace, offset, tns, base) = {
            let d = &self.docs[idx as usize];
            let e = &d.elem.children[top];
            (
                e.attr("schemaLocation").map(str::to_string),
                e.attr("namespace").unwrap_or("").to_string(),
                e.offset,
                d.tns.clone(),
                d.path.clone(),
            )
        };
        let doc_error = |loader: &Self, msg: String| loader.docs[idx as usize].error(offset, msg);
        if kind == "import" {
            if namespace == tns {
                return Err(doc_error(
                    self,
                    format!("imports its own target namespace '{tns}'"),
                ));
            }
            if namespace == binxml_core::XML_NS {
                // The XML namespace's attributes (xml:lang, ...) are built in: schemas import
                // them from the W3C's web site, which is never fetched.
                self.imports_xml = true;
                return Ok(None);
            }
            // A namespace already read through another import needs no second copy.
            if location.is_none() || self.docs.iter().any(|d| d.tns == namespace) {
                return Ok(None);
            }
        }
        let Some(location) = location else {
            return Err(doc_error(self, format!("<{kind}> without schemaLocation")));
        };
        let path = self.locate(&location, &base).ok_or_else(|| {
            doc_error(
                self,
                format!("schemaLocation '{location}' is not a local file (map it to one: schemas are never fetched from the network)"),
            )
        })?;
        let bytes = read_file(&path, self.options.max_document_bytes).map_err(|e| {
            doc_error(
                self,
                format!("cannot read '{}' ({location}): {e}", path.display()),
            )
        })?;
        let chameleon = match kind {
            "import" => None,
            _ => Some(tns.as_str()),
        };
        let target = self.add_document(bytes, &path, chameleon)?;
        if kind == "import" && self.docs[target as usize].tns != namespace {
            let found = self.docs[target as usize].tns.clone();
            return Err(doc_error(
                self,
                format!(
                    "imports namespace '{namespace}' from '{location}', whose target namespace is '{found}'"
                ),
            ));
        }
        Ok(Some(target))
    }

    /// A schemaLocation as a local path: mapped by the options, else relative to the including
    /// document; never a URL.
    fn locate(&self, location: &str, base: &Path) -> Option<PathBuf> {
        for (from, to) in &self.options.locations {
            if location == from {
                return Some(to.clone());
            }
            if from.ends_with('/')
                && let Some(rest) = location.strip_prefix(from.as_str())
            {
                return Some(to.join(rest));
            }
        }
        if location.contains("://") {
            let file = location.strip_prefix("file://")?;
            return Some(PathBuf::from(file));
        }
        let dir = base.parent().unwrap_or(Path::new("."));
        Some(dir.join(location))
    }
}

/// Reads a schema document: a regular file (not a device or a pipe, which a hostile
/// schemaLocation could name), of at most `max` bytes.
pub(crate) fn read_file(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if meta.len() > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(bytes)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
