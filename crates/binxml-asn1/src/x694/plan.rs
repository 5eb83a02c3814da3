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
    /// For each SEQUENCE type of at most 64 OPTIONAL components without an `order` component
    /// (by id; empty for the others): where its components are, so that the decoder jumps from
    /// present component to present component with the presence bits as a mask.
    pub jumps: Vec<Jumps>,
    /// For each SEQUENCE type with an OPTIONAL attribute wildcard component: that component's
    /// presence bit (which of the SEQUENCE's presence bits it is). The decoder looks at it
    /// before the element's start tag and holds the tag only when wildcard attributes follow.
    pub any_attr_bit: Vec<Option<u32>>,
    /// For each VisibleString type whose permitted alphabet is ASCII (by id; `None` for the
    /// others), its characters' codes in each variant of PER, unaligned then aligned.
    pub visible: Vec<Option<Box<[Visible; 2]>>>,
}

/// How the characters of a VisibleString with an ASCII permitted alphabet are read: each code
/// of `bits` bits (at most 8) stands for the octet `table[code]`, or for none (`INVALID`).
#[derive(Debug)]
pub struct Visible {
    /// Bits per character.
    pub bits: u32,
    /// Characters read at once (as many as 56 bits hold).
    pub per_read: u32,
    /// The character of each code, `INVALID` for a code outside the alphabet.
    pub table: [u8; 256],
}

/// A code that stands for no character of the alphabet.
pub const INVALID: u8 = 0xFF;

impl Visible {
    /// The codes of `alphabet` (sorted) in one variant of PER, when they are ASCII and take at
    /// most 8 bits (X.691 30.5: indexes into the alphabet, or the characters' own codes when
    /// the largest fits in the bits).
    fn new(alphabet: &[char], aligned: bool) -> Option<Visible> {
        let (bits, direct) = super::simple::char_coding(alphabet, aligned);
        if bits > 8 || !alphabet.iter().all(char::is_ascii) {
            return None;
        }
        let mut table = [INVALID; 256];
        for (i, &c) in alphabet.iter().enumerate() {
            table[if direct { c as usize } else { i }] = c as u8;
        }
        Some(Visible {
            bits,
            per_read: (56 / bits.max(1)).max(1),
            table,
        })
    }
}

/// Where a SEQUENCE's components are, by kind: the decoder takes the next OPTIONAL component
/// that is present (or absent with USE-NIL) from the presence mask and reads the mandatory
/// components that come before it.
#[derive(Debug, Default)]
pub struct Jumps {
    /// Whether the SEQUENCE is decoded this way (not when it has an `order` component or more
    /// than 64 OPTIONAL components).
    pub on: bool,
    /// Its number of presence bits.
    pub bits: u32,
    /// The component of each presence bit, in order.
    pub optional: Box<[u16]>,
    /// The components without a presence bit, in order.
    pub mandatory: Box<[u16]>,
    /// The presence bits of the USE-NIL components (absent means `xsi:nil="true"`), in the
    /// decoder's mask layout: the first presence bit is the mask's highest bit.
    pub nil: u64,
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
        let jumps = m
            .types
            .iter()
            .map(|t| match &t.kind {
                Kind::Sequence(comps)
                    if comps.len() <= u16::MAX as usize
                        && comps.iter().filter(|c| c.optional).count() <= 64
                        && !comps.iter().any(|c| c.role == Role::Order) =>
                {
                    let (mut optional, mut mandatory, mut nil) = (Vec::new(), Vec::new(), 0u64);
                    for (k, c) in comps.iter().enumerate() {
                        if c.optional {
                            if c.role == Role::Nil {
                                nil |= 1u64 << (63 - optional.len());
                            }
                            optional.push(k as u16);
                        } else {
                            mandatory.push(k as u16);
                        }
                    }
                    Jumps {
                        on: true,
                        bits: optional.len() as u32,
                        optional: optional.into(),
                        mandatory: mandatory.into(),
                        nil,
                    }
                }
                _ => Jumps::default(),
            })
            .collect();
        let any_attr_bit = m
            .types
            .iter()
            .map(|t| match &t.kind {
                Kind::Sequence(comps) => comps
                    .iter()
                    .filter(|c| c.optional)
                    .position(|c| matches!(c.role, Role::AnyAttr(_)))
                    .map(|b| b as u32),
                _ => None,
            })
            .collect();
        let visible = m
            .types
            .iter()
            .map(|t| match &t.kind {
                Kind::Visible { alphabet } => Some(Box::new([
                    Visible::new(alphabet, false)?,
                    Visible::new(alphabet, true)?,
                ])),
                _ => None,
            })
            .collect();
        Plan {
            resolved,
            visible,
            seqs,
            jumps,
            any_attr_bit,
        }
    }
}
