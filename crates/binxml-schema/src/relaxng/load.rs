//! Reading a RELAX NG schema's documents: the root, then every document an `include` or
//! `externalRef` names, from local files only, each read once. A `.rnc` file is the compact
//! syntax, translated to the element tree of the XML syntax (`compact.rs`), so one
//! simplification serves both.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::load::doc::{self, Elem};
use crate::{LoadOptions, SchemaError};

use super::RNG;

/// One schema document, read.
pub(crate) struct Doc {
    /// Its path (or name) for messages.
    pub location: String,
    /// Its bytes (for line and column).
    pub bytes: Vec<u8>,
    /// Its element tree.
    pub elem: Elem,
    /// The directory relative references resolve against (none: a schema given as bytes
    /// cannot include).
    pub dir: Option<PathBuf>,
}

impl Doc {
    pub fn error(&self, offset: u64, message: impl Into<String>) -> SchemaError {
        SchemaError::new(&self.location, message).at(&self.bytes, offset)
    }
}

/// Every document of a schema; `by_href` maps (document, href) to the document it names.
pub(crate) struct Docs {
    pub docs: Vec<Doc>,
    pub by_href: HashMap<(usize, String), usize>,
}

/// Whether a path names the compact syntax.
pub(crate) fn is_compact(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("rnc"))
}

fn parse(
    bytes: &[u8],
    compact: bool,
    location: &str,
    opts: &LoadOptions,
) -> Result<Elem, SchemaError> {
    if compact {
        super::compact::parse(bytes, location)
    } else {
        doc::read(bytes, opts.limits.clone()).map_err(|e| {
            SchemaError::new(location, e.message().to_string()).at(bytes, e.offset().unwrap_or(0))
        })
    }
}

/// Reads the root document (`bytes`, from `path` when it is a file) and all it references.
pub(crate) fn read_all(
    bytes: Vec<u8>,
    location: String,
    dir: Option<PathBuf>,
    compact: bool,
    opts: &LoadOptions,
) -> Result<Docs, SchemaError> {
    let elem = parse(&bytes, compact, &location, opts)?;
    let mut docs = Docs {
        docs: vec![Doc {
            location,
            bytes,
            elem,
            dir,
        }],
        by_href: HashMap::new(),
    };
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut next = 0;
    while next < docs.docs.len() {
        let mut refs = Vec::new();
        hrefs(&docs.docs[next].elem, &mut refs);
        for (href, offset) in refs {
            if docs.by_href.contains_key(&(next, href.clone())) {
                continue;
            }
            let d = &docs.docs[next];
            if href.contains("://") || href.starts_with("urn:") {
                return Err(d.error(
                    offset,
                    format!("'{href}' is not a local file: nothing is fetched"),
                ));
            }
            let Some(dir) = &d.dir else {
                return Err(d.error(
                    offset,
                    format!("'{href}': a schema read from bytes cannot reference files"),
                ));
            };
            let rel = href.strip_prefix("file:").unwrap_or(&href);
            let path = dir.join(rel);
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            let idx = match by_path.get(&canonical) {
                Some(&i) => i,
                None => {
                    if docs.docs.len() >= opts.max_documents {
                        return Err(d.error(
                            offset,
                            format!("more than {} schema documents", opts.max_documents),
                        ));
                    }
                    let bytes =
                        crate::load::read_file(&path, opts.max_document_bytes).map_err(|e| {
                            d.error(offset, format!("cannot read '{}': {e}", path.display()))
                        })?;
                    let location = path.display().to_string();
                    let elem = parse(&bytes, is_compact(&path), &location, opts)?;
                    docs.docs.push(Doc {
                        location,
                        bytes,
                        elem,
                        dir: path.parent().map(Path::to_path_buf),
                    });
                    by_path.insert(canonical, docs.docs.len() - 1);
                    docs.docs.len() - 1
                }
            };
            docs.by_href.insert((next, href), idx);
        }
        next += 1;
    }
    Ok(docs)
}

/// The `href`s of the `include` and `externalRef` elements of a tree (iteratively: the tree
/// may be as deep as the XML limits allow).
fn hrefs(root: &Elem, out: &mut Vec<(String, u64)>) {
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if e.ns == RNG
            && (e.local == "include" || e.local == "externalRef")
            && let Some(h) = e.attr("href")
        {
            out.push((h.trim().to_string(), e.offset));
        }
        stack.extend(e.children.iter());
    }
}
