//! Values of the model's simple types: atomic types through the datatypes module, lists item by
//! item through the item type, unions through the first member that accepts the value (Part 2,
//! 2.5.1.3), each checked against the type's own effective facets.

use crate::datatypes::{DatatypeError, FnResolver, NamespaceResolver, Value, split_list};
use crate::model::{SimpleType, TypeDef, TypeId, Variety};

/// Resolves a prefix in the instance's scope (QName and NOTATION values).
pub type Resolver<'r> = dyn Fn(&str) -> Option<String> + 'r;

/// The types a value is checked against: the schema's table (a whole schema, or the loader's
/// table while it completes types).
pub(crate) trait Types {
    fn simple(&self, t: TypeId) -> Option<&SimpleType>;
}

impl Types for crate::model::Schema {
    fn simple(&self, t: TypeId) -> Option<&SimpleType> {
        match self.type_def(t) {
            TypeDef::Simple(s) => Some(s),
            TypeDef::Complex(_) => None,
        }
    }
}

impl Types for [TypeDef] {
    fn simple(&self, t: TypeId) -> Option<&SimpleType> {
        match self.get(t.index())? {
            TypeDef::Simple(s) => Some(s),
            TypeDef::Complex(_) => None,
        }
    }
}

/// Unions of unions nest no deeper than this (the loader refuses cycles; this bounds the walk).
const MAX_UNION_DEPTH: usize = 64;

/// The value of `lexical` in simple type `t`, or why it is not one.
pub(crate) fn value<T: Types + ?Sized>(
    types: &T,
    t: TypeId,
    lexical: &str,
    ns: &dyn NamespaceResolver,
) -> Result<Value, DatatypeError> {
    value_at(types, t, lexical, ns, 0)
}

fn value_at<T: Types + ?Sized>(
    types: &T,
    t: TypeId,
    lexical: &str,
    ns: &dyn NamespaceResolver,
    depth: usize,
) -> Result<Value, DatatypeError> {
    let Some(s) = types.simple(t) else {
        return Ok(Value::String(lexical.to_string()));
    };
    match &s.variety {
        Variety::Atomic(_) => s.facets.validate(lexical, ns),
        Variety::List(item) => {
            let list = s.facets.validate(lexical, ns)?;
            for v in split_list(lexical) {
                value_at(types, *item, v, ns, depth)?;
            }
            Ok(list)
        }
        Variety::Union(members) => {
            let mut first_error = None;
            if depth < MAX_UNION_DEPTH {
                for m in members {
                    match value_at(types, *m, lexical, ns, depth + 1) {
                        Ok(v) => {
                            s.facets.check(&v, lexical)?;
                            return Ok(v);
                        }
                        Err(e) => {
                            first_error.get_or_insert(e);
                        }
                    }
                }
            }
            Err(first_error.unwrap_or_else(|| {
                DatatypeError::new(
                    crate::datatypes::ErrorKind::Lexical,
                    "union",
                    lexical,
                    "not a value of any member type",
                )
            }))
        }
    }
}

/// Whether `value` is valid for simple type `t`; the error says why not.
pub fn check(
    schema: &crate::model::Schema,
    t: TypeId,
    value: &str,
    resolve: &Resolver<'_>,
) -> Result<(), String> {
    let ns = FnResolver(|p: &str| resolve(p));
    self::value(schema, t, value, &ns)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Whether two values of type `t` are equal (fixed values compare in the value space).
pub fn equal(
    schema: &crate::model::Schema,
    t: TypeId,
    a: &str,
    b: &str,
    resolve: &Resolver<'_>,
) -> bool {
    let ns = FnResolver(|p: &str| resolve(p));
    match (value(schema, t, a, &ns), value(schema, t, b, &ns)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
