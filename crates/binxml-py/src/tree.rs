//! The document tree kept on the Rust side (binxml-tree's arena), with Python element proxies
//! made only when an element is touched (lxml's design): parsing builds the arena alone, with
//! the GIL released, and strings stay borrowed from the input where the format allowed it.
//!
//! The proxies follow ElementTree's model on top of the arena's: an element's `text` is the
//! character data before its first child element, its `tail` the character data after it up
//! to the next sibling element; comments and processing instructions stay in the arena (and in
//! what is written) but are not children, as with ElementTree's default parser. One proxy per
//! element at a time, so that `is` holds between two reads of the same element (ElementPath
//! relies on it).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use binxml::tree::{Document, NodeId, NodeKind, Strings};
use binxml::{DecodeOptions, EncodeOptions, QName};
use pyo3::PyTraverseError;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice, PyString};

use crate::attrib::Attrib;
use crate::{err, format, resolve};

const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// Where the tree's borrowed strings point.
enum Source {
    None,
    Bytes(#[allow(dead_code)] Py<PyBytes>),
    Owned(#[allow(dead_code)] Vec<u8>),
}

/// The arena of the strings the decoder lent only for a call (EXI's), which the tree borrows:
/// held by pointer so that it never moves (nor is it reached again) once the tree borrows from
/// it; freed when the tree is.
struct Arena(std::ptr::NonNull<Strings>);

// SAFETY: the arena is owned (a leaked box) and `Strings` is Send; it is reached through the
// `&'static Strings` handed to the builder only while the tree is built, on one thread;
// afterwards nothing reaches it but `Drop`.
unsafe impl Send for Arena {}
// SAFETY: no method reaches the arena through a shared `Arena` (`strings` takes `&mut`).
unsafe impl Sync for Arena {}

impl Arena {
    fn new() -> Self {
        Arena(std::ptr::NonNull::from(Box::leak(Box::new(Strings::new()))))
    }

    /// The arena for the builder. SAFETY (of the callers' use): the document built from it
    /// must be dropped before the `Arena` (the `Tree` declares `doc` first).
    fn strings(&mut self) -> &'static Strings {
        // SAFETY: the pointer is the leaked box's, freed only by Drop.
        unsafe { self.0.as_ref() }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: made by Box::leak in `new`, freed only here.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

/// Hashes a node id by one multiplication: the standard hasher (SipHash) cost more than the
/// rest of a proxy's lookup, and node ids are not chosen by an adversary.
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IdMap<V> = HashMap<NodeId, V, std::hash::BuildHasherDefault<IdHasher>>;

/// A parsed document: the arena, the input it borrows from, and the live proxies.
#[pyclass(frozen, module = "binxml._binxml")]
pub struct Tree {
    // Declared before `source`, so dropped before it: its strings borrow from it.
    doc: RwLock<Document<'static>>,
    #[allow(dead_code)]
    source: Source,
    #[allow(dead_code)]
    arena: Option<Arena>,
    /// The live proxies, not owned (a `PyObject*` each): a proxy keeps its tree alive, and
    /// removes itself from here when it is freed ([`Element`]'s `Drop`), so that there is no
    /// reference cycle and a tree goes as soon as nothing uses it (lxml's back-pointers).
    proxies: Mutex<IdMap<usize>>,
    /// The tails of detached elements (ElementTree keeps an element's tail with it).
    tails: Mutex<HashMap<NodeId, Vec<NodeId>>>,
}

impl Tree {
    fn new(doc: Document<'static>, source: Source) -> Self {
        Tree::with_arena(doc, source, None)
    }

    fn with_arena(doc: Document<'static>, source: Source, arena: Option<Arena>) -> Self {
        Tree {
            doc: RwLock::new(doc),
            source,
            arena,
            proxies: Mutex::new(IdMap::default()),
            tails: Mutex::new(HashMap::new()),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Document<'static>> {
        self.doc.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Document<'static>> {
        self.doc.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl Tree {
    /// The document element's proxy, or None.
    fn root(slf: &Bound<'_, Self>) -> PyResult<Option<Py<Element>>> {
        let id = slf.get().read().root().map(|n| n.id());
        id.map(|id| proxy(slf, id)).transpose()
    }

    /// The whole document (comments and processing instructions around the document element,
    /// the document type declaration included) in a format.
    #[pyo3(signature = (to, indent=None))]
    fn serialize<'py>(
        slf: &Bound<'py, Self>,
        to: &str,
        indent: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let to = format(to)?;
        let py = slf.py();
        let tree = slf.get();
        let out = py
            .allow_threads(|| {
                let doc = tree.read();
                let mut out = Vec::new();
                let opts = EncodeOptions::default().with_indent(indent);
                let mut enc = binxml::AnyEncoder::new(to, &mut out, &opts);
                doc.write_to(&mut enc)?;
                Ok(out)
            })
            .map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Number of nodes in the arena.
    fn __len__(&self) -> usize {
        self.read().len()
    }
}

fn proxy(tree: &Bound<'_, Tree>, id: NodeId) -> PyResult<Py<Element>> {
    let py = tree.py();
    let known = tree
        .get()
        .proxies
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&id)
        .copied();
    if let Some(ptr) = known {
        // SAFETY: an entry is removed by its proxy's Drop, before the object is freed, and the
        // GIL is held, so the object is alive; taking a new reference keeps it so.
        return Ok(unsafe { Py::from_borrowed_ptr(py, ptr as *mut pyo3::ffi::PyObject) });
    }
    // Without the lock held: allocating may run the garbage collector, whose frees of other
    // proxies take the lock.
    let p = Py::new(
        py,
        Element {
            tree: tree.clone().unbind(),
            id,
        },
    )?;
    tree.get()
        .proxies
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, p.as_ptr() as usize);
    Ok(p)
}

/// Parses a document (bytes, with the GIL released) into a `Tree`.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
pub fn parse_tree(py: Python<'_>, data: Bound<'_, PyAny>, format: Option<&str>) -> PyResult<Tree> {
    let (source, bytes): (Source, &[u8]) = if let Ok(b) = data.downcast::<PyBytes>() {
        let bytes: &[u8] = b.as_bytes();
        // SAFETY: a bytes object is immutable and its buffer lives as long as the object; the
        // Tree keeps the object (in `source`) and drops the document before it.
        let bytes: &'static [u8] =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
        (Source::Bytes(b.clone().unbind()), bytes)
    } else {
        let v: Vec<u8> = data.extract()?;
        // SAFETY as above: the vector's heap buffer does not move when the vector does, and it
        // is never modified; the Tree drops the document before it.
        let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(v.as_ptr(), v.len()) };
        (Source::Owned(v), bytes)
    };
    build(py, bytes, format, source)
}

/// Builds the tree of `bytes` (which `source` keeps alive) with the GIL released.
fn build(
    py: Python<'_>,
    bytes: &'static [u8],
    format: Option<&str>,
    source: Source,
) -> PyResult<Tree> {
    let from = resolve(bytes, format)?;
    let mut arena = Arena::new();
    // The arena goes to the decoding thread and back.
    let (doc, arena) = py.allow_threads(move || {
        let strings = arena.strings();
        let doc = binxml::parse_tree_in(from, bytes, &DecodeOptions::default(), strings);
        (doc, arena)
    });
    Ok(Tree::with_arena(doc.map_err(err)?, source, Some(arena)))
}

/// Reads a file and parses it (both with the GIL released) into a `Tree`.
#[pyfunction]
#[pyo3(signature = (path, format=None))]
pub fn parse_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    format: Option<&str>,
) -> PyResult<Tree> {
    let v = py.allow_threads(|| std::fs::read(&path))?;
    // SAFETY: see parse_tree.
    let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(v.as_ptr(), v.len()) };
    build(py, bytes, format, Source::Owned(v))
}

/// The iterator `Element.iter` returns: the elements it found, each proxy made when reached.
#[pyclass(module = "binxml._binxml")]
pub struct ElementIter {
    tree: Py<Tree>,
    ids: std::vec::IntoIter<NodeId>,
}

#[pymethods]
impl ElementIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<Element>>> {
        match self.ids.next() {
            Some(id) => proxy(self.tree.bind(py), id).map(Some),
            None => Ok(None),
        }
    }
}

/// An element of a tree kept on the Rust side; behaves as `xml.etree.ElementTree.Element`.
#[pyclass(module = "binxml", name = "Element")]
pub struct Element {
    tree: Py<Tree>,
    id: NodeId,
}

impl Drop for Element {
    /// Takes the proxy out of its tree's table (see [`Tree`]'s `proxies`). An element made by
    /// `Element(...)` is not in the table, and may take out the entry of a later proxy of the
    /// same node: that costs identity (a second proxy may be made), never safety.
    fn drop(&mut self) {
        let mut map = self
            .tree
            .get()
            .proxies
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.remove(&self.id);
    }
}

impl Element {
    /// The value of the attribute with this namespace and local name.
    pub(crate) fn attribute(&self, ns: &str, local: &str) -> Option<String> {
        let doc = self.tree.get().read();
        doc.node(self.id)
            .attribute_ns(ns, local)
            .map(str::to_string)
    }

    /// The number of attributes.
    pub(crate) fn attribute_count(&self) -> usize {
        self.tree.get().read().node(self.id).attributes().len()
    }
}

/// An element's attributes as (`{namespace}local`, value) pairs, in document order.
pub(crate) fn attribute_items(e: &Element) -> Vec<(String, String)> {
    let doc = e.tree.get().read();
    doc.node(e.id)
        .attributes()
        .map(|a| (clark(a.name), a.value.to_string()))
        .collect()
}

/// Sets (or adds) an attribute by its `{namespace}local` name, declaring its namespace when it
/// has one.
pub(crate) fn set_attr(e: &Element, key: &str, value: String) -> PyResult<()> {
    let (ns, local) = split_clark(key)?;
    let mut doc = e.tree.get().write();
    let had_ns = !ns.is_empty();
    doc.set_attribute(e.id, QName::new("", ns, local), value);
    if had_ns {
        fix_namespaces(&mut doc, e.id, false);
    }
    Ok(())
}

/// Removes an attribute by its `{namespace}local` name; whether it was there.
pub(crate) fn remove_attr(e: &Element, key: &str) -> PyResult<bool> {
    let (ns, local) = split_clark(key)?;
    Ok(e.tree.get().write().remove_attribute(e.id, &ns, &local))
}

fn is_char(k: &NodeKind<'_>) -> bool {
    matches!(
        k,
        NodeKind::Text(_) | NodeKind::CData(_) | NodeKind::Typed(_)
    )
}

fn push_char(out: &mut Option<String>, k: &NodeKind<'_>) {
    let s = out.get_or_insert_with(String::new);
    match k {
        NodeKind::Text(t) | NodeKind::CData(t) => s.push_str(t),
        NodeKind::Typed(t) => t.write_lexical(s),
        _ => {}
    }
}

fn clark(q: &QName<'_>) -> String {
    if q.namespace.is_empty() {
        q.local.to_string()
    } else {
        format!("{{{}}}{}", q.namespace, q.local)
    }
}

pub(crate) fn split_clark(tag: &str) -> PyResult<(String, String)> {
    if let Some(rest) = tag.strip_prefix('{') {
        let (ns, local) = rest
            .split_once('}')
            .ok_or_else(|| PyValueError::new_err(format!("invalid tag {tag:?}")))?;
        Ok((ns.to_string(), local.to_string()))
    } else {
        Ok((String::new(), tag.to_string()))
    }
}

fn element_children(doc: &Document<'_>, id: NodeId) -> Vec<NodeId> {
    doc.node(id).elements().map(|n| n.id()).collect()
}

fn text_of(doc: &Document<'_>, id: NodeId) -> Option<String> {
    let mut out = None;
    for c in doc.node(id).children() {
        match c.kind() {
            NodeKind::Element(_) => break,
            k => push_char(&mut out, k),
        }
    }
    out.filter(|s| !s.is_empty())
}

fn position(doc: &Document<'_>, parent: NodeId, id: NodeId) -> usize {
    doc.node(parent)
        .child_ids()
        .iter()
        .position(|&c| c == id)
        .expect("a child of its parent")
}

fn tail_nodes(doc: &Document<'_>, tails: &HashMap<NodeId, Vec<NodeId>>, id: NodeId) -> Vec<NodeId> {
    match doc.node(id).parent() {
        None => tails.get(&id).cloned().unwrap_or_default(),
        Some(p) => {
            let kids = p.child_ids();
            let at = position(doc, p.id(), id);
            kids[at + 1..]
                .iter()
                .copied()
                .take_while(|&c| !doc.node(c).is_element())
                .collect()
        }
    }
}

/// Detaches an element together with its tail (the nodes up to the next sibling element);
/// returns them, the element first.
fn take(
    doc: &mut Document<'static>,
    tails: &mut HashMap<NodeId, Vec<NodeId>>,
    id: NodeId,
) -> Vec<NodeId> {
    let mut nodes = vec![id];
    match doc.node(id).parent() {
        None => nodes.extend(tails.remove(&id).unwrap_or_default()),
        Some(p) => {
            let p = p.id();
            let at = position(doc, p, id);
            doc.remove_child(p, at);
            while let Some(&c) = doc.node(p).child_ids().get(at) {
                if doc.node(c).is_element() {
                    break;
                }
                doc.remove_child(p, at);
                nodes.push(c);
            }
        }
    }
    nodes
}

/// Index among `parent`'s children (all kinds) at which an element inserted as the
/// `index`-th child element goes.
fn slot(doc: &Document<'_>, parent: NodeId, index: usize) -> usize {
    let kids = doc.node(parent).child_ids();
    let mut seen = 0;
    for (i, &c) in kids.iter().enumerate() {
        if doc.node(c).is_element() {
            if seen == index {
                return i;
            }
            seen += 1;
        }
    }
    kids.len()
}

fn put(doc: &mut Document<'static>, parent: NodeId, at: usize, nodes: &[NodeId]) {
    for (k, &n) in nodes.iter().enumerate() {
        doc.insert_child(parent, at + k, n);
    }
}

/// Makes every namespace name under `id` (the element alone unless `deep`) bound to a prefix in
/// scope there, declaring prefixes where needed (names set from Python carry a namespace and
/// no prefix; elements moved in from elsewhere may use prefixes declared elsewhere).
fn fix_namespaces(doc: &mut Document<'static>, id: NodeId, deep: bool) {
    let mut scope: Vec<(String, String)> = vec![("xml".into(), XML_NS.into())];
    let mut chain = Vec::new();
    let mut at = doc.node(id).parent();
    while let Some(n) = at {
        chain.push(n.id());
        at = n.parent();
    }
    for &a in chain.iter().rev() {
        for ns in doc.node(a).namespaces() {
            scope.push((ns.prefix.to_string(), ns.uri.to_string()));
        }
    }
    fix_in(doc, id, &mut scope, deep);
}

fn lookup<'s>(scope: &'s [(String, String)], prefix: &str) -> Option<&'s str> {
    scope
        .iter()
        .rev()
        .find(|(p, _)| p == prefix)
        .map(|(_, u)| u.as_str())
}

fn bind(
    doc: &mut Document<'static>,
    id: NodeId,
    scope: &mut Vec<(String, String)>,
    ns: &str,
    prefix: &str,
    attr: bool,
) -> String {
    if (!attr || !prefix.is_empty()) && lookup(scope, prefix) == Some(ns) {
        return prefix.to_string();
    }
    if ns.is_empty() {
        // an element in no namespace under a default namespace
        doc.declare_namespace(id, "", "");
        scope.push((String::new(), String::new()));
        return String::new();
    }
    let found = scope
        .iter()
        .rev()
        .find(|(p, u)| u == ns && (!attr || !p.is_empty()) && lookup(scope, p) == Some(ns))
        .map(|(p, _)| p.clone());
    if let Some(p) = found {
        return p;
    }
    let mut k = 0;
    let p = loop {
        let p = format!("ns{k}");
        if lookup(scope, &p).is_none() {
            break p;
        }
        k += 1;
    };
    doc.declare_namespace(id, p.clone(), ns.to_string());
    scope.push((p.clone(), ns.to_string()));
    p
}

fn fix_in(doc: &mut Document<'static>, id: NodeId, scope: &mut Vec<(String, String)>, deep: bool) {
    let mark = scope.len();
    for ns in doc.node(id).namespaces() {
        scope.push((ns.prefix.to_string(), ns.uri.to_string()));
    }
    let name = doc.node(id).name().expect("an element").clone();
    let is_default_clash = name.namespace.is_empty()
        && name.prefix.is_empty()
        && lookup(scope, "").is_some_and(|u| !u.is_empty());
    if is_default_clash
        || lookup(scope, &name.prefix) != Some(&name.namespace)
            && !(name.namespace.is_empty() && name.prefix.is_empty())
    {
        let p = bind(doc, id, scope, &name.namespace, &name.prefix, false);
        if p != name.prefix {
            doc.set_name(
                id,
                QName::new(p, name.namespace.clone(), name.local.clone()),
            );
        }
    }
    let n = doc.node(id).attributes().len();
    for i in 0..n {
        let Some(a) = doc.node(id).attributes().get(i).map(|a| a.name.clone()) else {
            break;
        };
        if a.namespace.is_empty() {
            continue;
        }
        if !a.prefix.is_empty() && lookup(scope, &a.prefix) == Some(&a.namespace) {
            continue;
        }
        let p = bind(doc, id, scope, &a.namespace, &a.prefix, true);
        doc.set_attribute_name(id, i, QName::new(p, a.namespace, a.local));
    }
    if deep {
        for c in element_children(doc, id) {
            fix_in(doc, c, scope, true);
        }
    }
    scope.truncate(mark);
}

/// Copies a foreign element (an ElementTree element, or any object with `tag`, `attrib`,
/// `text`, children and `tail`) into `doc`; returns its nodes (the element, then its tail).
fn import(
    py: Python<'_>,
    doc: &mut Document<'static>,
    obj: &Bound<'_, PyAny>,
    with_tail: bool,
) -> PyResult<Vec<NodeId>> {
    let et = py.import("xml.etree.ElementTree")?;
    import_in(
        doc,
        obj,
        with_tail,
        &et.getattr("Comment")?,
        &et.getattr("ProcessingInstruction")?,
    )
}

fn opt_str(obj: &Bound<'_, PyAny>, attr: &str) -> PyResult<Option<String>> {
    obj.getattr(attr)?.extract()
}

fn import_in(
    doc: &mut Document<'static>,
    obj: &Bound<'_, PyAny>,
    with_tail: bool,
    comment: &Bound<'_, PyAny>,
    pi: &Bound<'_, PyAny>,
) -> PyResult<Vec<NodeId>> {
    let tag = obj.getattr("tag")?;
    let id = if tag.is(comment) {
        doc.create(NodeKind::Comment(Cow::Owned(
            opt_str(obj, "text")?.unwrap_or_default(),
        )))
    } else if tag.is(pi) {
        let text = opt_str(obj, "text")?.unwrap_or_default();
        let (target, data) = text.split_once(' ').unwrap_or((&text, ""));
        doc.create(NodeKind::ProcessingInstruction(Box::new(
            binxml::tree::ProcessingInstruction {
                target: Cow::Owned(target.to_string()),
                data: Cow::Owned(data.to_string()),
            },
        )))
    } else {
        let tag: String = tag
            .extract()
            .map_err(|_| PyTypeError::new_err("an element's tag must be a str"))?;
        let (ns, local) = split_clark(&tag)?;
        let id = doc.create_element(QName::new("", ns, local));
        let attrib = obj.getattr("attrib")?;
        for item in attrib.call_method0("items")?.try_iter()? {
            let (k, v): (String, String) = item?.extract()?;
            let (ans, alocal) = split_clark(&k)?;
            doc.set_attribute(id, QName::new("", ans, alocal), v);
        }
        if let Some(t) = opt_str(obj, "text")?.filter(|t| !t.is_empty()) {
            let t = doc.create(NodeKind::Text(Cow::Owned(t)));
            doc.append_child(id, t);
        }
        for child in obj.try_iter()? {
            for n in import_in(doc, &child?, true, comment, pi)? {
                doc.append_child(id, n);
            }
        }
        id
    };
    let mut nodes = vec![id];
    if with_tail && let Some(t) = opt_str(obj, "tail")?.filter(|t| !t.is_empty()) {
        nodes.push(doc.create(NodeKind::Text(Cow::Owned(t))));
    }
    Ok(nodes)
}

impl Element {
    fn tree<'py>(&self, py: Python<'py>) -> &Bound<'py, Tree> {
        self.tree.bind(py)
    }

    /// The nodes to insert for `child` (taken out of wherever it is): an element of this tree
    /// moves; anything else is copied in.
    fn adopt(&self, py: Python<'_>, child: &Bound<'_, PyAny>) -> PyResult<Vec<NodeId>> {
        let tree = self.tree.get();
        if let Ok(el) = child.downcast::<Element>() {
            let (ctree, cid) = {
                let e = el.borrow();
                (e.tree.clone_ref(py), e.id)
            };
            if ctree.is(&self.tree) {
                let doc = tree.read();
                let mut at = Some(doc.node(self.id));
                while let Some(n) = at {
                    if n.id() == cid {
                        return Err(PyValueError::new_err(
                            "cannot insert an element into itself",
                        ));
                    }
                    at = n.parent();
                }
                drop(doc);
                let mut tails = tree.tails.lock().unwrap_or_else(|e| e.into_inner());
                return Ok(take(&mut tree.write(), &mut tails, cid));
            }
        }
        let nodes = import(py, &mut tree.write(), child, true)?;
        Ok(nodes)
    }

    fn attach(
        &self,
        py: Python<'_>,
        index: Option<usize>,
        child: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let nodes = self.adopt(py, child)?;
        let tree = self.tree.get();
        let mut doc = tree.write();
        let at = match index {
            Some(i) => slot(&doc, self.id, i),
            None => doc.node(self.id).child_ids().len(),
        };
        put(&mut doc, self.id, at, &nodes);
        if doc.node(nodes[0]).is_element() {
            fix_namespaces(&mut doc, nodes[0], true);
        }
        Ok(())
    }

    fn child_at(&self, py: Python<'_>, index: isize) -> PyResult<Py<Element>> {
        let kids = element_children(&self.tree.get().read(), self.id);
        let n = kids.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("child index out of range"));
        }
        proxy(self.tree(py), kids[i as usize])
    }
}

/// An element's text, then each child element's texts and tail (ElementTree's `itertext`).
fn texts(doc: &Document<'_>, id: NodeId, out: &mut Vec<String>) {
    let mut run: Option<String> = None;
    for c in doc.node(id).children() {
        if c.is_element() {
            out.extend(run.take().filter(|s| !s.is_empty()));
            texts(doc, c.id(), out);
        } else {
            push_char(&mut run, c.kind());
        }
    }
    out.extend(run.filter(|s| !s.is_empty()));
}

fn tag_matches(q: &QName<'_>, tag: Option<&str>) -> bool {
    match tag {
        None | Some("*") => true,
        Some(t) => {
            if let Some(rest) = t.strip_prefix('{') {
                match rest.split_once('}') {
                    Some((ns, "*")) => q.namespace == ns,
                    Some(("*", local)) => q.local == local,
                    Some((ns, local)) => q.namespace == ns && q.local == local,
                    None => false,
                }
            } else {
                q.namespace.is_empty() && q.local == t
            }
        }
    }
}

#[pymethods]
impl Element {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.tree)
    }

    /// A new element in a tree of its own; `attrib` and keyword arguments give attributes.
    #[new]
    #[pyo3(signature = (tag, attrib=None, **extra))]
    fn py_new(
        py: Python<'_>,
        tag: &str,
        attrib: Option<&Bound<'_, PyAny>>,
        extra: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut doc = Document::new();
        let (ns, local) = split_clark(tag)?;
        let id = doc.create_element(QName::new("", ns, local));
        // Any mapping (another element's `attrib` included), as a dict.
        let attrib = attrib
            .map(|a| -> PyResult<Bound<'_, PyDict>> {
                let d = PyDict::new(py);
                d.call_method1("update", (a,))?;
                Ok(d)
            })
            .transpose()?;
        for d in [attrib.as_ref(), extra].into_iter().flatten() {
            for (k, v) in d.iter() {
                let (ans, alocal) = split_clark(&k.extract::<String>()?)?;
                doc.set_attribute(id, QName::new("", ans, alocal), v.extract::<String>()?);
            }
        }
        let top = doc.document().id();
        doc.append_child(top, id);
        fix_namespaces(&mut doc, id, false);
        let tree = Py::new(py, Tree::new(doc, Source::None))?;
        Ok(Element { tree, id })
    }

    /// The name, `{namespace}local` or `local`.
    #[getter]
    fn tag(&self) -> String {
        clark(
            self.tree
                .get()
                .read()
                .node(self.id)
                .name()
                .expect("an element"),
        )
    }

    #[setter]
    fn set_tag(&self, tag: &str) -> PyResult<()> {
        let (ns, local) = split_clark(tag)?;
        let mut doc = self.tree.get().write();
        doc.set_name(self.id, QName::new("", ns, local));
        fix_namespaces(&mut doc, self.id, false);
        Ok(())
    }

    /// The character data before the first child element, or None.
    #[getter]
    fn text(&self) -> Option<String> {
        text_of(&self.tree.get().read(), self.id)
    }

    #[setter]
    fn set_text(&self, text: Option<String>) {
        let mut doc = self.tree.get().write();
        let mut i = 0;
        while let Some(&c) = doc.node(self.id).child_ids().get(i) {
            let k = doc.node(c).kind();
            if matches!(k, NodeKind::Element(_)) {
                break;
            }
            if is_char(k) {
                doc.remove_child(self.id, i);
            } else {
                i += 1;
            }
        }
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            let t = doc.create(NodeKind::Text(Cow::Owned(t)));
            doc.insert_child(self.id, 0, t);
        }
    }

    /// The character data after the element up to its next sibling element, or None.
    #[getter]
    fn tail(&self) -> Option<String> {
        let tree = self.tree.get();
        let doc = tree.read();
        let tails = tree.tails.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = None;
        for n in tail_nodes(&doc, &tails, self.id) {
            push_char(&mut out, doc.node(n).kind());
        }
        out.filter(|s| !s.is_empty())
    }

    #[setter]
    fn set_tail(&self, tail: Option<String>) {
        let tree = self.tree.get();
        let mut doc = tree.write();
        let mut tails = tree.tails.lock().unwrap_or_else(|e| e.into_inner());
        let new = tail
            .filter(|t| !t.is_empty())
            .map(|t| doc.create(NodeKind::Text(Cow::Owned(t))));
        match doc.node(self.id).parent().map(|p| p.id()) {
            None => {
                let list = tails.entry(self.id).or_default();
                list.retain(|&n| !is_char(doc.node(n).kind()));
                list.extend(new);
            }
            Some(p) => {
                let at = position(&doc, p, self.id) + 1;
                let mut i = at;
                while let Some(&c) = doc.node(p).child_ids().get(i) {
                    let k = doc.node(c).kind();
                    if matches!(k, NodeKind::Element(_)) {
                        break;
                    }
                    if is_char(k) {
                        doc.remove_child(p, i);
                    } else {
                        i += 1;
                    }
                }
                if let Some(t) = new {
                    doc.insert_child(p, at, t);
                }
            }
        }
    }

    /// The attributes, a live mapping (`{namespace}local` keys): changing it changes the
    /// element, as with ElementTree's `attrib` dict.
    #[getter]
    fn attrib(slf: Bound<'_, Self>) -> Attrib {
        Attrib::new(slf.unbind())
    }

    /// Replaces every attribute with those of a mapping.
    #[setter]
    fn set_attrib(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = PyDict::new(py);
        d.call_method1("update", (value,))?;
        let pairs: Vec<(String, String)> = d.items().extract()?;
        for (k, _) in attribute_items(self) {
            remove_attr(self, &k)?;
        }
        for (k, v) in pairs {
            set_attr(self, &k, v)?;
        }
        Ok(())
    }

    /// An attribute's value, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get(&self, py: Python<'_>, key: &str, default: Option<PyObject>) -> PyResult<PyObject> {
        let (ns, local) = split_clark(key)?;
        let doc = self.tree.get().read();
        match doc.node(self.id).attribute_ns(&ns, &local) {
            Some(v) => Ok(PyString::new(py, v).into_any().unbind()),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }

    /// Sets an attribute.
    fn set(&self, key: &str, value: String) -> PyResult<()> {
        set_attr(self, key, value)
    }

    /// The attribute names.
    fn keys(&self) -> Vec<String> {
        self.tree
            .get()
            .read()
            .node(self.id)
            .attributes()
            .map(|a| clark(a.name))
            .collect()
    }

    /// The attributes as (name, value) pairs.
    fn items(&self) -> Vec<(String, String)> {
        self.tree
            .get()
            .read()
            .node(self.id)
            .attributes()
            .map(|a| (clark(a.name), a.value.to_string()))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.tree.get().read().node(self.id).elements().count()
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        if let Ok(s) = index.downcast::<PySlice>() {
            let kids = element_children(&self.tree.get().read(), self.id);
            let ind = s.indices(kids.len() as isize)?;
            let list = PyList::empty(py);
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                list.append(proxy(self.tree(py), kids[i as usize])?)?;
                i += ind.step;
            }
            return Ok(list.into_any().unbind());
        }
        Ok(self.child_at(py, index.extract()?)?.into_any())
    }

    fn __delitem__(&self, py: Python<'_>, index: isize) -> PyResult<()> {
        let child = self.child_at(py, index)?;
        self.remove(py, child.bind(py).as_any())
    }

    fn __setitem__(&self, py: Python<'_>, index: isize, child: &Bound<'_, PyAny>) -> PyResult<()> {
        let old = self.child_at(py, index)?;
        let n = self.__len__() as isize;
        let i = if index < 0 { index + n } else { index } as usize;
        self.remove(py, old.bind(py).as_any())?;
        self.attach(py, Some(i), child)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let kids = element_children(&self.tree.get().read(), self.id);
        let list = PyList::empty(py);
        for k in kids {
            list.append(proxy(self.tree(py), k)?)?;
        }
        Ok(list.try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Element {:?} at {:#x}>",
            self.tag(),
            self as *const Self as usize
        )
    }

    /// Adds a subelement at the end (an element of this tree moves; others are copied in).
    fn append(&self, py: Python<'_>, child: &Bound<'_, PyAny>) -> PyResult<()> {
        self.attach(py, None, child)
    }

    /// Inserts a subelement at `index` among the child elements.
    fn insert(&self, py: Python<'_>, index: isize, child: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.__len__() as isize;
        let i = if index < 0 {
            (index + n).max(0)
        } else {
            index.min(n)
        };
        self.attach(py, Some(i as usize), child)
    }

    /// Appends every element of an iterable.
    fn extend(&self, py: Python<'_>, children: &Bound<'_, PyAny>) -> PyResult<()> {
        for c in children.try_iter()? {
            self.attach(py, None, &c?)?;
        }
        Ok(())
    }

    /// Removes a child element (with its tail); ValueError when it is not a child.
    fn remove(&self, py: Python<'_>, child: &Bound<'_, PyAny>) -> PyResult<()> {
        let el = child
            .downcast::<Element>()
            .map_err(|_| PyValueError::new_err("Element.remove(x): x not in list"))?
            .borrow();
        let tree = self.tree.get();
        let ok = el.tree.is(&self.tree)
            && tree.read().node(el.id).parent().map(|p| p.id()) == Some(self.id);
        if !ok {
            return Err(PyValueError::new_err("Element.remove(x): x not in list"));
        }
        let _ = py;
        let mut tails = tree.tails.lock().unwrap_or_else(|e| e.into_inner());
        let nodes = take(&mut tree.write(), &mut tails, el.id);
        tails.insert(el.id, nodes[1..].to_vec());
        Ok(())
    }

    /// Removes every child, the attributes, the text and the tail.
    fn clear(&self) {
        let tree = self.tree.get();
        let mut doc = tree.write();
        while doc.remove_child(self.id, 0).is_some() {}
        let names: Vec<(String, String)> = doc
            .node(self.id)
            .attributes()
            .map(|a| (a.name.namespace.to_string(), a.name.local.to_string()))
            .collect();
        for (ns, local) in names {
            doc.remove_attribute(self.id, &ns, &local);
        }
        drop(doc);
        self.set_tail(None);
    }

    /// This element and its descendants in document order whose tag matches (`None` or `"*"`:
    /// all; `{ns}*`, `{*}local` wildcards as ElementTree's).
    #[pyo3(signature = (tag=None))]
    fn iter(&self, py: Python<'_>, tag: Option<&str>) -> PyResult<Py<PyAny>> {
        let ids: Vec<NodeId> = {
            let doc = self.tree.get().read();
            let me = doc.node(self.id);
            std::iter::once(me)
                .chain(me.descendants())
                .filter(|n| n.name().is_some_and(|q| tag_matches(q, tag)))
                .map(|n| n.id())
                .collect()
        };
        // Proxies made as the iteration reaches them (a loop that lets go of each element
        // keeps one alive at a time, not one per element).
        let it = ElementIter {
            tree: self.tree.clone_ref(py),
            ids: ids.into_iter(),
        };
        Ok(Py::new(py, it)?.into_any())
    }

    /// The text of this element and its descendants, with the tails inside, in document order
    /// (each text and tail one string, as ElementTree's).
    fn itertext(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut out: Vec<String> = Vec::new();
        texts(&self.tree.get().read(), self.id, &mut out);
        Ok(PyList::new(py, out)?.try_iter()?.into_any().unbind())
    }

    /// The first matching subelement (ElementPath), or None.
    #[pyo3(signature = (path, namespaces=None))]
    fn find(
        slf: &Bound<'_, Self>,
        path: &Bound<'_, PyAny>,
        namespaces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        elementpath(slf, "find", (slf, path, namespaces))
    }

    /// Every matching subelement (ElementPath), in document order.
    #[pyo3(signature = (path, namespaces=None))]
    fn findall(
        slf: &Bound<'_, Self>,
        path: &Bound<'_, PyAny>,
        namespaces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        elementpath(slf, "findall", (slf, path, namespaces))
    }

    /// An iterator over the matching subelements (ElementPath).
    #[pyo3(signature = (path, namespaces=None))]
    fn iterfind(
        slf: &Bound<'_, Self>,
        path: &Bound<'_, PyAny>,
        namespaces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        elementpath(slf, "iterfind", (slf, path, namespaces))
    }

    /// The text of the first matching subelement ("" when it has none), or `default`.
    #[pyo3(signature = (path, default=None, namespaces=None))]
    fn findtext(
        slf: &Bound<'_, Self>,
        path: &Bound<'_, PyAny>,
        default: Option<&Bound<'_, PyAny>>,
        namespaces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        elementpath(slf, "findtext", (slf, path, default, namespaces))
    }

    /// A new element of the same kind (not attached).
    fn makeelement(
        &self,
        py: Python<'_>,
        tag: &str,
        attrib: &Bound<'_, PyAny>,
    ) -> PyResult<Element> {
        Element::py_new(py, tag, Some(attrib), None)
    }

    /// Serializes this element (without its tail) in a format; the bytes.
    #[pyo3(signature = (to, indent=None))]
    fn serialize<'py>(
        &self,
        py: Python<'py>,
        to: &str,
        indent: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let to = format(to)?;
        let tree = self.tree.get();
        let id = self.id;
        let out = py
            .allow_threads(|| {
                let doc = tree.read();
                let mut out = Vec::new();
                let opts = EncodeOptions::default().with_indent(indent);
                let mut enc = binxml::AnyEncoder::new(to, &mut out, &opts);
                binxml::core::transcode(&mut doc.element_events(id), &mut enc)?;
                Ok(out)
            })
            .map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// The `Tree` this element lives in, and whether it is that tree's document element.
    fn _owner(&self, py: Python<'_>) -> (Py<Tree>, bool) {
        let is_root = self.tree.get().read().root().map(|n| n.id()) == Some(self.id);
        (self.tree.clone_ref(py), is_root)
    }
}

fn elementpath<'py, A: pyo3::call::PyCallArgs<'py>>(
    slf: &Bound<'py, Element>,
    func: &str,
    args: A,
) -> PyResult<PyObject> {
    let ep = slf.py().import("xml.etree.ElementPath")?;
    Ok(ep.getattr(func)?.call1(args)?.unbind())
}
