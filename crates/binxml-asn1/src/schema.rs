//! The Appendix A module (`asn1/XML-Infoset.asn`) as a table of types that drives the generic
//! PER and BER codecs. Every anonymous inner type of the module has its own entry; identical
//! anonymous types share one (`CHOICE { URIOrIndex, NULL }` is spelled six times in the module).
//! Automatic tagging: component or alternative number `i` gets the context tag `[i]`, implicit
//! unless the component's type is a CHOICE (then explicit).

/// Index into [`TYPES`].
pub type TyId = usize;

#[derive(Debug)]
pub enum Ty {
    /// SEQUENCE: components (type, OPTIONAL). No extension markers in this module.
    Seq(&'static [(TyId, bool)]),
    /// SEQUENCE OF item. `None`: no size constraint. `Some((lb, ub))`: `SIZE(lb..ub, ..., ...)`,
    /// an extensible constraint whose extension (`lb..MAX`) PER ignores.
    SeqOf(TyId, Option<(u64, u64)>),
    /// CHOICE without extension marker.
    Choice(&'static [TyId]),
    /// `INTEGER (lo..hi, ..., 0..MAX)`.
    Int(u64, u64),
    /// ENUMERATED with this many root items, no extension marker.
    Enum(u64),
    Bool,
    Null,
    Utf8,
    Octets,
    RelOid,
}

pub const DOCUMENT: TyId = 0;
pub const DOC_CHILDREN: TyId = 1;
pub const DOC_CHILD: TyId = 2;
pub const NOTATIONS: TyId = 3;
pub const UNPARSEDS: TyId = 4;
pub const CS_LIST: TyId = 5;
pub const CS_ITEM: TyId = 6;
pub const CN_LIST: TyId = 7;
pub const CN_ITEM: TyId = 8;
/// `CHOICE { x URIOrIndex / NCNameOrIndex, y NULL }` (all spellings).
pub const IDX_OR_NULL: TyId = 9;
pub const ELEMENT: TyId = 10;
pub const EL_NAME: TyId = 11;
pub const EL_NAME_SEQ: TyId = 12;
pub const EL_CHILDREN: TyId = 13;
pub const EL_CHILD_LIST: TyId = 14;
pub const EL_CHILD: TyId = 15;
pub const ATTRS: TyId = 16;
pub const INSCOPE: TyId = 17;
pub const NS_LIST: TyId = 18;
pub const ATTRIBUTE: TyId = 19;
pub const AT_NAME: TyId = 20;
pub const AT_NAME_SEQ: TyId = 21;
pub const AT_NS: TyId = 22;
pub const AT_TYPE: TyId = 23;
pub const AT_REFS: TyId = 24;
pub const RELOID_LIST: TyId = 25;
pub const SMALL_LIST: TyId = 26;
pub const PI: TyId = 27;
pub const SMALL_OR_NULL: TyId = 28;
pub const UER: TyId = 29;
pub const CHARACTERS: TyId = 30;
pub const CHARS_CHOICE: TyId = 31;
pub const COMMENT: TyId = 32;
pub const DTD: TyId = 33;
pub const PI_LIST: TyId = 34;
pub const UNPARSED: TyId = 35;
pub const NOTATION: TyId = 36;
pub const NAMESPACE: TyId = 37;
/// StringOrIndex, URIOrIndex, NCNameOrIndex: `CHOICE { UTF8String, LargeIndex }`.
pub const STR_IDX: TyId = 38;
pub const SMALL: TyId = 39;
pub const LARGE: TyId = 40;
pub const ATTR_TYPE: TyId = 41;
pub const BOOL: TyId = 42;
pub const NULL: TyId = 43;
pub const UTF8: TyId = 44;
pub const OCTETS: TyId = 45;
pub const RELOID: TyId = 46;

use Ty::*;

pub static TYPES: [Ty; 47] = [
    // 0 Document
    Seq(&[
        (DOC_CHILDREN, false),
        (NOTATIONS, false),
        (UNPARSEDS, false),
        (STR_IDX, true),  // base-URI
        (STR_IDX, false), // character-encoding-scheme
        (BOOL, true),     // standalone
        (STR_IDX, true),  // version
        (BOOL, false),    // all-declarations-processed
        (CS_LIST, false),
        (CN_LIST, false),
    ]),
    SeqOf(DOC_CHILD, None),
    Choice(&[ELEMENT, PI, COMMENT, DTD]),
    SeqOf(NOTATION, None),
    SeqOf(UNPARSED, None),
    SeqOf(CS_ITEM, None),
    Seq(&[(UTF8, false), (OCTETS, false)]),
    SeqOf(CN_ITEM, None),
    Seq(&[(IDX_OR_NULL, true), (STR_IDX, false), (IDX_OR_NULL, true)]),
    Choice(&[STR_IDX, NULL]),
    // 10 Element
    Seq(&[
        (EL_NAME, false),
        (EL_CHILDREN, false),
        (ATTRS, true),
        (ATTRS, true),
        (INSCOPE, false),
        (IDX_OR_NULL, true),
    ]),
    Choice(&[EL_NAME_SEQ, SMALL]),
    Seq(&[(IDX_OR_NULL, true), (STR_IDX, false), (STR_IDX, true)]),
    Choice(&[STR_IDX, EL_CHILD_LIST]),
    SeqOf(EL_CHILD, Some((0, 3))),
    Choice(&[ELEMENT, PI, UER, CHARACTERS, COMMENT]),
    SeqOf(ATTRIBUTE, Some((1, 4))),
    Choice(&[NS_LIST, NULL]),
    SeqOf(NAMESPACE, None),
    // 19 Attribute
    Seq(&[
        (AT_NAME, false),
        (STR_IDX, false),
        (BOOL, true),
        (AT_TYPE, true),
        (AT_REFS, true),
    ]),
    Choice(&[AT_NAME_SEQ, SMALL]),
    Seq(&[(AT_NS, true), (STR_IDX, false), (STR_IDX, true)]),
    Choice(&[STR_IDX, NULL, NULL]),
    Choice(&[ATTR_TYPE, NULL]),
    Choice(&[RELOID_LIST, SMALL_LIST, SMALL, NULL]),
    SeqOf(RELOID, None),
    SeqOf(SMALL, None),
    // 27 ProcessingInstruction
    Seq(&[
        (STR_IDX, false),
        (STR_IDX, false),
        (IDX_OR_NULL, false),
        (SMALL_OR_NULL, true),
    ]),
    Choice(&[SMALL, NULL]),
    // 29 UnexpandedEntityReference
    Seq(&[
        (STR_IDX, false),
        (IDX_OR_NULL, true),
        (IDX_OR_NULL, true),
        (IDX_OR_NULL, true),
    ]),
    // 30 Characters
    Seq(&[(CHARS_CHOICE, false), (BOOL, false)]),
    Choice(&[STR_IDX, OCTETS]),
    // 32 Comment
    Seq(&[(STR_IDX, false)]),
    // 33 DocumentTypeDeclaration
    Seq(&[(STR_IDX, true), (STR_IDX, true), (PI_LIST, false)]),
    SeqOf(PI, None),
    // 35 UnparsedEntity
    Seq(&[
        (STR_IDX, false),
        (STR_IDX, true),
        (STR_IDX, true),
        (STR_IDX, true),
        (STR_IDX, false),
        (SMALL_OR_NULL, true),
    ]),
    // 36 Notation
    Seq(&[
        (STR_IDX, false),
        (STR_IDX, true),
        (STR_IDX, true),
        (STR_IDX, true),
    ]),
    // 37 Namespace
    Seq(&[(STR_IDX, true), (STR_IDX, false)]),
    // 38 StringOrIndex
    Choice(&[UTF8, LARGE]),
    Int(0, 15),
    Int(0, 2047),
    Enum(10),
    Bool,
    Null,
    Utf8,
    Octets,
    RelOid,
];
