//! What the PER decoder reads off the module for every value, computed once per module: each
//! type's target after its references, and each SEQUENCE's count of OPTIONAL components with a
//! flag byte per component. A SEQUENCE of UBL has dozens of components, most of them absent in
//! a document: its presence bits are read against these bytes, not against the components.

use binxml_core::QName;

use super::map::{Comp, Kind, Module, Role, TyId};

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
    /// For each type (by id): the steps of its components (a SEQUENCE's, in order), of its
    /// alternatives (a CHOICE's) or of its item (a SEQUENCE OF's, one step); empty for the
    /// other types.
    pub ops: Vec<Box<[Op]>>,
    /// For each type (by id): [`DERIVATIONS`], [`ANY_ATTR`], [`SEQUENCE`], what decoding an
    /// element of the type looks at before its content.
    pub elem: Vec<u8>,
}

/// [`Plan::elem`]: a `T-derivations` CHOICE (an `xsi:type` alternative comes first).
pub const DERIVATIONS: u8 = 1;
/// [`Plan::elem`]: a SEQUENCE with an attribute wildcard's component.
pub const ANY_ATTR: u8 = 2;
/// [`Plan::elem`]: a SEQUENCE (element content), not a simple type (text).
pub const SEQUENCE: u8 = 4;

/// One component of a SEQUENCE, alternative of a CHOICE or item of a SEQUENCE OF, as the
/// decoder reads it: its role in the document and its type's kind combined once, with its
/// type after references and the name it is written with, so that reading it looks at nothing
/// else of the module.
#[derive(Clone, Debug)]
pub struct Op {
    /// What is read and what is handed over.
    pub kind: OpKind,
    /// The component's type, after references.
    pub ty: TyId,
    /// The lower bound of a semi-constrained INTEGER ([`OpKind::AttrCount`],
    /// [`OpKind::TextCount`]).
    pub lo: i64,
    /// The size bounds of a SEQUENCE OF ([`OpKind::List`]): at least `min`, at most `max`.
    pub min: u64,
    /// See [`Op::min`] (`None`: `MAX`).
    pub max: Option<u64>,
    /// The attribute's or element's name (the component's [`Comp::qname`]).
    pub name: QName<'static>,
}

/// See [`Op::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// An attribute whose type is a UTF8String.
    AttrUtf8,
    /// An attribute whose type is `INTEGER (lo..MAX)` with `lo` within 2^62 (minOccurs).
    AttrCount,
    /// An attribute of another simple type.
    AttrSimple,
    /// Character content (an element of simple content) of a UTF8String.
    TextUtf8,
    /// Character content of `INTEGER (lo..MAX)`, as [`OpKind::AttrCount`].
    TextCount,
    /// Character content of another simple type.
    TextSimple,
    /// An element.
    Elem,
    /// A model group that is a SEQUENCE (no markup of its own).
    Seq,
    /// A model group that is a CHOICE (a `choice` group, a substitution group).
    Choice,
    /// A model group that is a SEQUENCE OF (a repetition).
    List,
    /// Any other role (nil content, mixed content's strings, wildcards, ...): read from the
    /// component itself.
    Rare,
}

impl Op {
    fn new(m: &Module, resolved: &[TyId], c: &Comp) -> Op {
        let ty = resolved[c.ty];
        let kind = &m.types[ty].kind;
        let count = match kind {
            Kind::Integer {
                lo: Some(lo),
                hi: None,
            } if lo.unsigned_abs() < 1 << 62 => Some(*lo as i64),
            _ => None,
        };
        let utf8 = matches!(kind, Kind::Utf8 { .. });
        let op = match &c.role {
            Role::Attr(_) if utf8 => OpKind::AttrUtf8,
            Role::Attr(_) if count.is_some() => OpKind::AttrCount,
            Role::Attr(_) => OpKind::AttrSimple,
            Role::Text if utf8 => OpKind::TextUtf8,
            Role::Text if count.is_some() => OpKind::TextCount,
            Role::Text => OpKind::TextSimple,
            Role::Elem(_) => OpKind::Elem,
            Role::Group => match kind {
                Kind::Sequence(_) => OpKind::Seq,
                Kind::Choice(_) => OpKind::Choice,
                Kind::SeqOf { .. } => OpKind::List,
                _ => OpKind::Rare,
            },
            _ => OpKind::Rare,
        };
        let (min, max) = match kind {
            Kind::SeqOf { min, max, .. } => (*min, *max),
            _ => (0, None),
        };
        Op {
            kind: op,
            ty,
            lo: count.unwrap_or(0),
            min,
            max,
            name: c.qname.clone(),
        }
    }
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
        let resolved: Vec<TyId> = (0..m.types.len())
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
        let op = |c: &Comp| Op::new(m, &resolved, c);
        let ops = m
            .types
            .iter()
            .map(|t| match &t.kind {
                Kind::Sequence(comps) | Kind::Choice(comps) => comps.iter().map(op).collect(),
                Kind::SeqOf { item, .. } => Box::new([op(item)]) as Box<[Op]>,
                _ => Box::default(),
            })
            .collect();
        let elem = m
            .types
            .iter()
            .enumerate()
            .map(|(id, t)| match &t.kind {
                Kind::Derivations { .. } => DERIVATIONS,
                Kind::Sequence(_) if m.any_attr.get(id) == Some(&true) => SEQUENCE | ANY_ATTR,
                Kind::Sequence(_) => SEQUENCE,
                _ => 0,
            })
            .collect();
        Plan {
            ops,
            elem,
            resolved,
            visible,
            seqs,
            jumps,
            any_attr_bit,
        }
    }
}
