//! The EXI header (EXI 1.0, section 5): the optional `$EXI` cookie, the distinguishing bits
//! `10`, the options-present bit, the version (final, 1), and the options document.
//!
//! The options document is an EXI body of its own: the options schema (EXI 1.0, appendix C)
//! encoded schema-informed, strict and bit-packed. Its grammar is small and fixed, so it is
//! written out here by hand: each element's content is a sequence of optional child elements,
//! and in every state the event code picks one of the children still allowed, in schema order,
//! or the end of the element, which comes last.

use std::sync::Arc;

use crate::bits::{BitReader, BitWriter, width};
use crate::options::{Alignment, DEFAULT_BLOCK_SIZE, DatatypeRepresentation, EXI_NS, ExiOptions};
use crate::tables::{Base, NameId, Tables};
use binxml_core::{Error, Format, Result};

/// The built-in XML Schema types' local names, which pre-populate the XML Schema namespace of a
/// schema-informed string table (EXI 1.0, appendix D.3).
const XSD_TYPE_NAMES: &[&str] = &[
    "ENTITIES",
    "ENTITY",
    "ID",
    "IDREF",
    "IDREFS",
    "NCName",
    "NMTOKEN",
    "NMTOKENS",
    "NOTATION",
    "Name",
    "QName",
    "anySimpleType",
    "anyType",
    "anyURI",
    "base64Binary",
    "boolean",
    "byte",
    "date",
    "dateTime",
    "decimal",
    "double",
    "duration",
    "float",
    "gDay",
    "gMonth",
    "gMonthDay",
    "gYear",
    "gYearMonth",
    "hexBinary",
    "int",
    "integer",
    "language",
    "long",
    "negativeInteger",
    "nonNegativeInteger",
    "nonPositiveInteger",
    "normalizedString",
    "positiveInteger",
    "short",
    "string",
    "time",
    "token",
    "unsignedByte",
    "unsignedInt",
    "unsignedLong",
    "unsignedShort",
];

/// The options schema's names (appendix C), sorted: its elements and the simple types naming
/// EXI's datatype representations (`exi:integer`, ...), the string table partition of its
/// namespace.
const OPTION_NAMES: &[&str] = &[
    "alignment",
    "base64Binary",
    "blockSize",
    "boolean",
    "byte",
    "comments",
    "common",
    "compression",
    "datatypeRepresentationMap",
    "date",
    "dateTime",
    "decimal",
    "double",
    "dtd",
    "fragment",
    "gDay",
    "gMonth",
    "gMonthDay",
    "gYear",
    "gYearMonth",
    "header",
    "hexBinary",
    "ieeeBinary32",
    "ieeeBinary64",
    "integer",
    "lesscommon",
    "lexicalValues",
    "pis",
    "pre-compress",
    "prefixes",
    "preserve",
    "schemaId",
    "selfContained",
    "strict",
    "string",
    "time",
    "uncommon",
    "valueMaxLength",
    "valuePartitionCapacity",
];

/// The options document's string table (appendix D for the options schema).
fn options_table(encoding: bool) -> Tables {
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let base = Base::new(&[
        (binxml_schema::XS.to_string(), own(XSD_TYPE_NAMES)),
        (EXI_NS.to_string(), own(OPTION_NAMES)),
    ]);
    Tables::with_base(Arc::new(base), None, None, encoding)
}

/// The elements a datatypeRepresentationMap names (any names, so built-in element grammars
/// that learn their EE): those whose EE was learned.
#[derive(Default)]
struct Learned(Vec<NameId>);

impl Learned {
    /// Writes an empty element's content, EE: first-level once learned, else second-level of
    /// StartTagContent (EE, AT(*), SE(*), CH).
    fn write_ee(&mut self, w: &mut BitWriter, name: NameId) {
        if self.0.contains(&name) {
            code(w, 0, 2);
        } else {
            code(w, 0, 4);
            self.0.push(name);
        }
    }

    fn read_ee(&mut self, r: &mut BitReader<'_>, name: NameId) -> Result<()> {
        let at = r.clone();
        let ok = if self.0.contains(&name) {
            choice(r, 2)? == 0
        } else {
            self.0.push(name);
            choice(r, 4)? == 0
        };
        if ok {
            Ok(())
        } else {
            Err(unsupported_header(
                &at,
                "content in a datatypeRepresentationMap entry",
            ))
        }
    }
}

/// The cookie.
pub(crate) const COOKIE: &[u8; 4] = b"$EXI";

/// Whether a type's first start tag has a second level in strict mode because `xsi:type` may
/// cast it. The built-in sub-types of `xsd:unsignedInt` (the type of `valueMaxLength` and
/// `valuePartitionCapacity`) do not count: EXIficient writes their CH in 0 bits, so `xsi:type`
/// is not an option there (checked on its output).
const UNSIGNED_INT_CASTABLE: bool = false;

/// Writes an event code: choice `i` of `n`.
fn code(w: &mut BitWriter, i: usize, n: usize) {
    w.nbit(i as u32, width(n));
}

/// Writes the choice of child `i` (or the end, `None`) in a sequence of `n` optional children
/// of which the first `k` are behind.
fn seq(w: &mut BitWriter, k: usize, n: usize, i: Option<usize>) {
    let choices = n - k + 1;
    code(w, i.map_or(n - k, |i| i - k), choices);
}

/// Writes the header: cookie, bits, options, and the padding of byte-aligned layouts.
pub(crate) fn write(w: &mut BitWriter, o: &ExiOptions) {
    if o.include_cookie {
        for &b in COOKIE {
            w.bits(b as u32, 8);
        }
    }
    w.bits(0b10, 2);
    w.bits(o.include_options as u32, 1);
    w.bits(0, 1); // final version
    w.bits(0, 4); // version 1
    if o.include_options {
        write_options(w, o);
    }
}

fn write_options(w: &mut BitWriter, o: &ExiOptions) {
    // DocContent: SE(header) of SE(header), SE(*).
    code(w, 0, 2);
    let alignment = matches!(
        o.alignment,
        Alignment::ByteAligned | Alignment::PreCompression
    );
    let dtr = !o.datatype_representations.is_empty();
    let uncommon = alignment
        || o.self_contained
        || o.value_max_length.is_some()
        || o.value_partition_capacity.is_some()
        || dtr;
    let preserve = o.dtd || o.prefixes || o.lexical_values || o.comments || o.pis;
    let block = o.block_size != DEFAULT_BLOCK_SIZE;
    let lesscommon = uncommon || preserve || block;
    let compression = o.alignment == Alignment::Compression;
    let common = compression || o.fragment || o.schema_id.is_some();
    // header: lesscommon, common, strict
    let mut k = 0;
    if lesscommon {
        seq(w, k, 3, Some(0));
        k = 1;
        // lesscommon: uncommon, preserve, blockSize
        let mut j = 0;
        if uncommon {
            seq(w, j, 3, Some(0));
            j = 1;
            // uncommon: (SE(*) while nothing else came) alignment, selfContained,
            // valueMaxLength, valuePartitionCapacity, datatypeRepresentationMap
            let mut u = 0;
            let items = [
                alignment,
                o.self_contained,
                o.value_max_length.is_some(),
                o.value_partition_capacity.is_some(),
            ];
            for (i, &present) in items.iter().enumerate() {
                if !present {
                    continue;
                }
                uncommon_code(w, u, Some(i));
                u = i + 1;
                match i {
                    0 => {
                        // alignment: byte | pre-compress; then EE (0 bits)
                        code(w, usize::from(o.alignment == Alignment::PreCompression), 2);
                    }
                    1 => {}
                    2 => unsigned(w, o.value_max_length.unwrap_or(0), UNSIGNED_INT_CASTABLE),
                    _ => unsigned(
                        w,
                        o.value_partition_capacity.unwrap_or(0),
                        UNSIGNED_INT_CASTABLE,
                    ),
                }
            }
            if dtr {
                let mut t = options_table(true);
                let mut learned = Learned::default();
                for d in &o.datatype_representations {
                    uncommon_code(w, u, Some(4));
                    // datatypeRepresentationMap repeats: the same position again.
                    u = 4;
                    write_map_entry(w, &mut t, &mut learned, d);
                }
            }
            uncommon_code(w, u, None);
        }
        if preserve {
            seq(w, j, 3, Some(1));
            j = 2;
            let flags = [o.dtd, o.prefixes, o.lexical_values, o.comments, o.pis];
            let mut p = 0;
            for (i, &on) in flags.iter().enumerate() {
                if on {
                    seq(w, p, 5, Some(i));
                    p = i + 1;
                }
            }
            seq(w, p, 5, None);
        }
        if block {
            seq(w, j, 3, Some(2));
            j = 3;
            unsigned(w, o.block_size, false);
        }
        seq(w, j, 3, None);
    }
    if common {
        seq(w, k, 3, Some(1));
        k = 2;
        let mut c = 0;
        if compression {
            seq(w, c, 3, Some(0));
            c = 1;
        }
        if o.fragment {
            seq(w, c, 3, Some(1));
            c = 2;
        }
        if let Some(id) = &o.schema_id {
            seq(w, c, 3, Some(2));
            c = 3;
            // schemaId (xsd:string, nillable): CH of CH and the second level.
            code(w, 0, 2);
            // A value of the header's own string table: always a miss.
            w.uint(crate::bits::char_len(id) as u64 + 2);
            w.chars(id);
        }
        seq(w, c, 3, None);
    }
    if o.strict {
        seq(w, k, 3, Some(2));
        k = 3;
    }
    seq(w, k, 3, None);
    // DocEnd: ED, 0 bits.
}

/// One datatypeRepresentationMap: SE(*) the schema type's name, EE, SE(*) the representation's
/// name, EE, then the map's EE (each state has one production: no bits).
fn write_map_entry(
    w: &mut BitWriter,
    t: &mut Tables,
    learned: &mut Learned,
    d: &DatatypeRepresentation,
) {
    let name = t.write_qname(w, &d.type_ns, &d.type_local);
    learned.write_ee(w, name);
    let name = t.write_qname(w, &d.repr_ns, &d.repr_local);
    learned.write_ee(w, name);
}

fn read_map_entry(
    r: &mut BitReader<'_>,
    t: &mut Tables,
    learned: &mut Learned,
) -> Result<DatatypeRepresentation> {
    const MAX: usize = 4096;
    let ty = t.read_qname(r, MAX)?;
    learned.read_ee(r, ty)?;
    let repr = t.read_qname(r, MAX)?;
    learned.read_ee(r, repr)?;
    Ok(DatatypeRepresentation {
        type_ns: t.uri(t.name_uri(ty)).to_string(),
        type_local: t.local(ty).to_string(),
        repr_ns: t.uri(t.name_uri(repr)).to_string(),
        repr_local: t.local(repr).to_string(),
    })
}

/// uncommon's event code: position `u` (0 before any named child, where the wildcard SE(*)
/// is also allowed), child `i` of the four written here, or the end.
fn uncommon_code(w: &mut BitWriter, u: usize, i: Option<usize>) {
    // Named children: alignment, selfContained, valueMaxLength, valuePartitionCapacity,
    // datatypeRepresentationMap (5); then SE(*) at position 0 only; then EE.
    let named = 5 - u;
    let wildcard = usize::from(u == 0);
    let n = named + wildcard + 1;
    let idx = match i {
        Some(i) => i - u,
        None => named + wildcard,
    };
    code(w, idx, n);
}

/// An unsigned-integer element's content: CH (one bit when the type is castable), the value.
fn unsigned(w: &mut BitWriter, v: u32, castable: bool) {
    if castable {
        code(w, 0, 2);
    }
    w.uint(v as u64);
}

/// Reads the header; returns the options the body uses (those of the header if it has them,
/// else `given`), whether the stream had the cookie and whether its header had options.
pub(crate) fn read(r: &mut BitReader<'_>, given: &ExiOptions) -> Result<(ExiOptions, bool, bool)> {
    let mut cookie = false;
    if r.rest().starts_with(COOKIE) {
        cookie = true;
        let p = r.pos();
        r.seek(p + 4);
    }
    let at = r.clone();
    let bits = r.bits(2)?;
    if bits != 0b10 {
        return Err(at.error(
            "not an EXI stream: the distinguishing bits 10 (after the optional $EXI cookie) are missing",
        ));
    }
    let present = r.bits(1)? == 1;
    let preview = r.bits(1)? == 1;
    let mut version = 1u32;
    loop {
        let g = r.bits(4)?;
        version += g;
        if g != 15 {
            break;
        }
        if version > 1000 {
            return Err(at.error("EXI version number does not end"));
        }
    }
    if preview || version != 1 {
        return Err(Error::unsupported(
            Format::Exi,
            format!(
                "EXI {}version {version}: only the final version 1 (EXI 1.0) is supported",
                if preview { "preview " } else { "" }
            ),
        )
        .at_bit(at.bit_offset()));
    }
    let options = if present {
        read_options(r)?
    } else {
        given.clone()
    };
    options.validate().map_err(|e| {
        Error::malformed(
            Format::Exi,
            at.offset(),
            format!("EXI header: {}", e.message()),
        )
        .at_bit(at.bit_offset())
    })?;
    Ok((options, cookie, present))
}

/// Reads the choice among `n`.
fn choice(r: &mut BitReader<'_>, n: usize) -> Result<usize> {
    r.code(n)
}

/// Reads a sequence choice: `Some(i)` for child `i`, `None` for the end.
fn read_seq(r: &mut BitReader<'_>, k: usize, n: usize) -> Result<Option<usize>> {
    let c = choice(r, n - k + 1)?;
    Ok(if c == n - k { None } else { Some(c + k) })
}

fn read_unsigned(r: &mut BitReader<'_>, castable: bool) -> Result<u32> {
    if castable && choice(r, 2)? != 0 {
        return Err(unsupported_header(r, "xsi:type on an option value"));
    }
    let at = r.clone();
    let v = r.uint()?;
    u32::try_from(v).map_err(|_| at.error(format!("EXI header: option value {v} is past 2^32")))
}

#[cold]
fn unsupported_header(r: &BitReader<'_>, what: &str) -> Error {
    Error::unsupported(Format::Exi, format!("EXI header: {what} is not supported"))
        .at_bit(r.bit_offset())
}

fn read_options(r: &mut BitReader<'_>) -> Result<ExiOptions> {
    let mut o = ExiOptions::default();
    if choice(r, 2)? != 0 {
        return Err(r.error("EXI header: the options document does not start with <header>"));
    }
    let mut k = 0;
    while let Some(i) = read_seq(r, k, 3)? {
        k = i + 1;
        match i {
            0 => read_lesscommon(r, &mut o)?,
            1 => read_common(r, &mut o)?,
            _ => o.strict = true,
        }
    }
    Ok(o)
}

fn read_lesscommon(r: &mut BitReader<'_>, o: &mut ExiOptions) -> Result<()> {
    let mut j = 0;
    while let Some(i) = read_seq(r, j, 3)? {
        j = i + 1;
        match i {
            0 => read_uncommon(r, o)?,
            1 => {
                let mut p = 0;
                while let Some(f) = read_seq(r, p, 5)? {
                    p = f + 1;
                    match f {
                        0 => o.dtd = true,
                        1 => o.prefixes = true,
                        2 => o.lexical_values = true,
                        3 => o.comments = true,
                        _ => o.pis = true,
                    }
                }
            }
            _ => {
                o.block_size = read_unsigned(r, false)?;
            }
        }
    }
    Ok(())
}

fn read_uncommon(r: &mut BitReader<'_>, o: &mut ExiOptions) -> Result<()> {
    let mut u = 0;
    let mut table: Option<(Tables, Learned)> = None;
    loop {
        let named = 5 - u;
        let wildcard = usize::from(u == 0);
        let c = choice(r, named + wildcard + 1)?;
        if c == named + wildcard {
            return Ok(());
        }
        if c == named {
            return Err(unsupported_header(r, "a user-defined option (uncommon/*)"));
        }
        let i = c + u;
        u = i + 1;
        match i {
            0 => {
                o.alignment = if choice(r, 2)? == 0 {
                    Alignment::ByteAligned
                } else {
                    Alignment::PreCompression
                };
            }
            1 => o.self_contained = true,
            2 => o.value_max_length = Some(read_unsigned(r, UNSIGNED_INT_CASTABLE)?),
            3 => o.value_partition_capacity = Some(read_unsigned(r, UNSIGNED_INT_CASTABLE)?),
            _ => {
                // datatypeRepresentationMap repeats: the same position again.
                u = 4;
                if o.datatype_representations.len() >= 4096 {
                    return Err(r.error("EXI header: more than 4,096 datatypeRepresentationMaps"));
                }
                let (t, learned) =
                    table.get_or_insert_with(|| (options_table(false), Learned::default()));
                let d = read_map_entry(r, t, learned)?;
                o.datatype_representations.push(d);
            }
        }
    }
}

fn read_common(r: &mut BitReader<'_>, o: &mut ExiOptions) -> Result<()> {
    let mut c = 0;
    let mut compression = false;
    while let Some(i) = read_seq(r, c, 3)? {
        c = i + 1;
        match i {
            0 => compression = true,
            1 => o.fragment = true,
            _ => {
                // CH, or the second level: xsi:type (0), xsi:nil (1).
                if choice(r, 2)? == 0 {
                    let at = r.clone();
                    let v = r.uint()?;
                    if v < 2 {
                        return Err(at.error("EXI header: schemaId as a string-table hit"));
                    }
                    let len = usize::try_from(v - 2).unwrap_or(usize::MAX);
                    let id = r.chars(len)?;
                    o.schema_id = Some(id);
                } else {
                    match choice(r, 2)? {
                        1 => {
                            // xsi:nil: a boolean; nil means schema-less.
                            if !r.boolean()? {
                                return Err(unsupported_header(r, "schemaId with xsi:nil=false"));
                            }
                        }
                        _ => return Err(unsupported_header(r, "xsi:type on schemaId")),
                    }
                }
            }
        }
    }
    if compression {
        if o.alignment != Alignment::BitPacked {
            return Err(r.error(
                "EXI header: compression together with an alignment option (the Recommendation \
                 forbids both)",
            ));
        }
        o.alignment = Alignment::Compression;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_options_document_is_three_bits() {
        // `<a/>` with the options in the header: A0, then SE(header) 0, EE 11.
        let mut w = BitWriter::new(false);
        write(&mut w, &ExiOptions::default().with_include_options(true));
        assert_eq!(w.bit_len(), 8 + 3);
        let bytes = w.finish();
        assert_eq!(bytes, [0xA0, 0b0110_0000]);
    }

    #[test]
    fn options_round_trip() {
        for text in [
            "",
            "byte-aligned",
            "pre-compression,comments,pis",
            "compression,block-size=100",
            "fragment,prefixes,dtd,lexical-values",
            "value-max-length=8,value-partition-capacity=64",
            "self-contained,byte-aligned",
            "strict,lexical-values",
            "dtr=xsd:decimal=exi:string,dtr={urn:t}price=exi:integer,dtr=xsd:date=exi:string",
            "byte-aligned,value-max-length=8,dtr={urn:t}price=exi:integer",
        ] {
            let o = ExiOptions::default()
                .parse_text(text)
                .unwrap()
                .with_include_options(true)
                .with_include_cookie(true);
            let mut w = BitWriter::new(false);
            write(&mut w, &o);
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes, false, 0);
            let (back, cookie, present) = read(&mut r, &ExiOptions::default()).unwrap();
            assert!(present);
            assert!(cookie);
            assert_eq!(back.to_text(), o.to_text(), "{text}");
        }
    }
}
