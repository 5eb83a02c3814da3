//! What the PER decoder reads off the module for every value, computed once per module: each
//! type's target after its references, and each SEQUENCE's count of OPTIONAL components with a
//! flag byte per component. A SEQUENCE of UBL has dozens of components, most of them absent in
//! a document: its presence bits are read against these bytes, not against the components.

use super::map::{Kind, Module, Role, TyId};

/// A component that is OPTIONAL (has a presence bit).
pub const OPTIONAL: u8 = 1;
/// A component whose absence is `xsi:nil="true"` (USE-NIL).
pub const NIL: u8 = 2;
/// An `all` group's `order` component (USE-ORDER), first in its SEQUENCE.
pub const ORDER: u8 = 4;

/// The decoding plan of a module.
#[derive(Debug, Default)]
pub struct Plan {
    /// For each type, the type its references lead to.
    pub resolved: Vec<TyId>,
    /// For each SEQUENCE type (by id; empty for the other types): how many of its components
    /// are OPTIONAL, and the flags of each component.
    pub seqs: Vec<(usize, Box<[u8]>)>,
}

impl Plan {
    /// The plan of `m`.
    pub fn new(m: &Module) -> Plan {
        let resolved = (0..m.types.len())
            .map(|t| {
                let mut t = t;
                for _ in 0..m.types.len() {
                    match m.types[t].kind {
                        Kind::Ref(u) => t = u,
                        _ => break,
                    }
                }
                t
            })
            .collect();
        let seqs = m
            .types
            .iter()
            .map(|t| match &t.kind {
                Kind::Sequence(comps) => {
                    let flags: Box<[u8]> = comps
                        .iter()
                        .map(|c| {
                            (if c.optional { OPTIONAL } else { 0 })
                                | (if c.role == Role::Nil { NIL } else { 0 })
                                | (if c.role == Role::Order { ORDER } else { 0 })
                        })
                        .collect();
                    (comps.iter().filter(|c| c.optional).count(), flags)
                }
                _ => (0, Box::default()),
            })
            .collect();
        Plan { resolved, seqs }
    }
}
