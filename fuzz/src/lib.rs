//! Helpers for the fuzz targets: decode bytes to the end, and build well-formed documents (and
//! JSON texts) from the fuzzer's bytes for the round-trip targets.

pub mod model;

use arbitrary::{Result, Unstructured};
use binxml::{DecodeOptions, Decoder, Format};
use model::{Doc, Element, NAMES, NAMESPACES, Node, PI_TARGETS};

/// Decodes `data` as `format` to the end (or the first error). Panics, hangs and blow-ups are
/// what the fuzzer looks for; errors are the expected outcome.
pub fn decode_all(format: Format, data: &[u8]) {
    let Ok(mut dec) = binxml::AnyDecoder::new(format, data, &DecodeOptions::default()) else {
        return;
    };
    let mut n = 0u64;
    while let Ok(Some(ev)) = dec.next_event() {
        // Strings a decoder hands out unchecked (an ASCII fast path) must still be UTF-8.
        match &ev {
            binxml::Event::StartElement(q) | binxml::Event::Attribute { name: q, .. } => {
                assert!(
                    std::str::from_utf8(q.local.as_bytes()).is_ok()
                        && std::str::from_utf8(q.prefix.as_bytes()).is_ok()
                );
            }
            binxml::Event::Characters { text, .. } => {
                assert!(std::str::from_utf8(text.as_bytes()).is_ok())
            }
            _ => {}
        }
        std::hint::black_box(&ev);
        n += 1;
        assert!(
            n < 50_000_000,
            "{format}: more than 50 million events from {} bytes",
            data.len()
        );
    }
}

const PIECES: &[&str] = &[
    "<",
    "&",
    ">",
    "]]>",
    "\"",
    "'",
    "\r\n",
    "\r",
    "\n",
    "\t",
    " ",
    "  ",
    "\u{e9}",
    "\u{1F600}",
    "&amp;",
    "&#38;",
    "\u{85}",
    "\u{2028}",
    "\u{FEFF}",
    "a",
    "text",
    "--",
    "?>",
    "-",
    "<!--",
    "\u{FFFD}",
    "0",
    "1.5",
    "true",
];

/// A string mixing awkward pieces and arbitrary characters.
pub fn text(u: &mut Unstructured) -> Result<String> {
    let n = u.int_in_range(0..=12u8)?;
    let mut s = String::new();
    for _ in 0..n {
        if u.ratio(2, 3)? {
            s.push_str(u.choose(PIECES)?);
        } else {
            s.push(u.arbitrary::<char>()?);
        }
    }
    Ok(s)
}

fn misc(u: &mut Unstructured) -> Result<Node> {
    Ok(if u.arbitrary()? {
        Node::Comment(text(u)?)
    } else {
        Node::Pi(u.choose_index(PI_TARGETS.len())?, text(u)?)
    })
}

fn element(u: &mut Unstructured, depth: u32) -> Result<Element> {
    let name = u.choose_index(NAMES.len())?;
    let ns = u.choose_index(NAMESPACES.len())?;
    let mut attrs = Vec::new();
    for _ in 0..u.int_in_range(0..=4u8)? {
        attrs.push((
            u.choose_index(NAMES.len())?,
            u.choose_index(NAMESPACES.len())?,
            text(u)?,
        ));
    }
    let mut children = Vec::new();
    if depth < 10 {
        for _ in 0..u.int_in_range(0..=6u8)? {
            if u.is_empty() {
                break;
            }
            children.push(match u.int_in_range(0..=9u8)? {
                0..=3 => Node::Element(element(u, depth + 1)?),
                4..=6 => Node::Text(text(u)?),
                7 => Node::CData(text(u)?),
                _ => misc(u)?,
            });
        }
    }
    Ok(Element {
        name,
        ns,
        attrs,
        children,
    })
}

/// A well-formed document from the fuzzer's bytes.
pub fn doc(u: &mut Unstructured) -> Result<Doc> {
    let mut prolog = Vec::new();
    for _ in 0..u.int_in_range(0..=2u8)? {
        prolog.push(misc(u)?);
    }
    let root = element(u, 0)?;
    let mut epilog = Vec::new();
    for _ in 0..u.int_in_range(0..=2u8)? {
        epilog.push(misc(u)?);
    }
    Ok(Doc {
        prolog,
        root,
        epilog,
    })
}

/// A document through `format` and back: the events must be those given, up to what the format
/// keeps (`model::normalize`).
pub fn round_trip(format: Format, data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(d) = doc(&mut u) else { return };
    if let Err(e) = model::check(format, &d) {
        panic!("{e}\ndocument events: {:?}", d.events());
    }
}

/// A JSON text from the fuzzer's bytes.
pub fn json_value(u: &mut Unstructured, depth: u32, out: &mut String) -> Result<()> {
    let kind = if depth >= 8 {
        u.int_in_range(0..=3u8)?
    } else {
        u.int_in_range(0..=5u8)?
    };
    match kind {
        0 => out.push_str(u.choose(&["null", "true", "false"])?),
        1 => out.push_str(u.choose(&[
            "0",
            "-0",
            "1.50",
            "-12e+3",
            "1E400",
            "123456789012345678901234567890",
            "0.0000001",
            "7",
        ])?),
        2 => {
            let n: i64 = u.arbitrary()?;
            out.push_str(&n.to_string());
        }
        3 => json_string(u, out)?,
        4 => {
            out.push('[');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                json_value(u, depth + 1, out)?;
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                if u.arbitrary()? {
                    out.push_str(u.choose(&[
                        "\"a\"",
                        "\"\"",
                        "\"64th\"",
                        "\"a b\"",
                        "\"t\"",
                        "\"key\"",
                        "\"\\u00e9\"",
                        "\"x:y\"",
                    ])?);
                } else {
                    json_string(u, out)?;
                }
                out.push(':');
                json_value(u, depth + 1, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn json_string(u: &mut Unstructured, out: &mut String) -> Result<()> {
    out.push('"');
    for c in text(u)?.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

fn json_events(bytes: &[u8]) -> std::result::Result<Vec<binxml::Event<'static>>, binxml::Error> {
    let mut dec = binxml::AnyDecoder::new(Format::Json, bytes, &DecodeOptions::default())?;
    let mut v = Vec::new();
    while let Some(ev) = dec.next_event()? {
        v.push(ev.into_owned());
    }
    Ok(v)
}

/// JSON text -> events -> JSON -> events: the same events, and the JSON text re-encoded is
/// stable.
pub fn json_round_trip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut s = String::new();
    if json_value(&mut u, 0, &mut s).is_err() {
        return;
    }
    let first =
        json_events(s.as_bytes()).unwrap_or_else(|e| panic!("valid JSON rejected: {e}: {s}"));
    let Some((bytes, back)) =
        model::round_trip(Format::Json, &first).unwrap_or_else(|e| panic!("{e}: {s}"))
    else {
        return;
    };
    assert_eq!(
        model::normalize(&first, Format::Json),
        model::normalize(&back, Format::Json),
        "JSON {s} -> {}",
        String::from_utf8_lossy(&bytes)
    );
}

// ---------------------------------------------------------------------------------------------
// EXI: options picked by the input's first bytes.

use binxml::exi::{Alignment, DEFAULT_BLOCK_SIZE, ExiOptions};
use binxml::{Event, Limits};

/// Octets at the start of a `decode_exi` / `roundtrip_exi` input that pick the EXI options.
///
/// * byte 0: bits 0-1 the alignment (bit-packed, byte-aligned, pre-compression, compression),
///   bit 2 `fragment`, bit 3 `preserve.comments`, 4 `preserve.pis`, 5 `preserve.dtd`,
///   6 `preserve.prefixes`, 7 `preserve.lexicalValues`;
/// * byte 1: bits 0-1 `blockSize` (default, 1, 2, 101), bits 2-3 `valueMaxLength` (none, 0, 1,
///   8), bits 4-5 `valuePartitionCapacity` (none, 0, 1, 4), bit 6 `strict`, bit 7
///   `selfContained` (the encoder writes `item` and `{urn:p}b` elements self-contained);
/// * byte 2: bit 0 tight limits (depth 8, strings of 64 octets, 64 table entries; decoding
///   only), bit 1 the options written into the header (encoding only).
///
/// `crates/binxml-exi/tests/hostile.rs` (`write_fuzz_seeds`) writes seeds in this layout.
pub const EXI_SELECTOR: usize = 3;

/// The options and limits the selector octets name.
pub fn exi_options(sel: [u8; EXI_SELECTOR]) -> (ExiOptions, Limits) {
    let [a, b, c] = sel;
    let alignment = [
        Alignment::BitPacked,
        Alignment::ByteAligned,
        Alignment::PreCompression,
        Alignment::Compression,
    ][usize::from(a & 3)];
    let o = ExiOptions::default()
        .with_alignment(alignment)
        .with_fragment(a & 4 != 0)
        .with_comments(a & 8 != 0)
        .with_pis(a & 16 != 0)
        .with_dtd(a & 32 != 0)
        .with_prefixes(a & 64 != 0)
        .with_lexical_values(a & 128 != 0)
        .with_block_size([DEFAULT_BLOCK_SIZE, 1, 2, 101][usize::from(b & 3)])
        .with_value_max_length([None, Some(0), Some(1), Some(8)][usize::from((b >> 2) & 3)])
        .with_value_partition_capacity([None, Some(0), Some(1), Some(4)][usize::from((b >> 4) & 3)])
        .with_strict(b & 64 != 0)
        .with_include_options(c & 2 != 0);
    // selfContained: the encoder writes two of the document model's names self-contained.
    let o = if b & 128 != 0 {
        o.with_self_contained_elements(["item", "{urn:p}b"])
    } else {
        o
    };
    let limits = if c & 1 != 0 {
        Limits::default()
            .with_max_depth(8)
            .with_max_string_len(64)
            .with_max_table_entries(64)
    } else {
        Limits::default()
    };
    (o, limits)
}

/// `decode_exi`: the first [`EXI_SELECTOR`] octets pick the options (used when the stream's
/// header has none) and the limits, the rest is decoded to the end or the first error. Strings
/// must be UTF-8; every error must say where (byte and bit offset) it was found.
pub fn decode_exi(data: &[u8]) {
    let Some((sel, input)) = data.split_first_chunk::<EXI_SELECTOR>() else {
        return;
    };
    let (o, limits) = exi_options(*sel);
    let mut dec = binxml::exi::ExiDecoder::with_options(input, o, limits);
    let mut n = 0u64;
    loop {
        match dec.next_event() {
            Ok(Some(ev)) => {
                check_utf8(&ev);
                std::hint::black_box(&ev);
                n += 1;
                assert!(
                    n < 50_000_000,
                    "exi: more than 50 million events from {} bytes",
                    input.len()
                );
            }
            Ok(None) => break,
            Err(e) => {
                assert!(e.offset().is_some(), "exi: an error without an offset: {e}");
                assert!(
                    e.bit_offset().is_some(),
                    "exi: an error without a bit offset: {e}"
                );
                break;
            }
        }
    }
}

/// `decode_exi_reuse`: a reused decoder reads what a fresh one reads. After the options
/// selector (as in [`decode_exi`]), one octet `k` cuts the rest into two streams, the first
/// `len * k / 256` octets and the others. One decoder reads the first stream to its end or its
/// error (or stops part-way, after `k / 2` events, when `k` is odd), is reset onto the second
/// (`ExiDecoder::reset`) and must then give exactly the events and the error a new decoder gives
/// on the second stream.
pub fn decode_exi_reuse(data: &[u8]) {
    let Some((sel, rest)) = data.split_first_chunk::<EXI_SELECTOR>() else {
        return;
    };
    let Some((&k, input)) = rest.split_first() else {
        return;
    };
    let (a, b) = input.split_at(input.len() * usize::from(k) / 256);
    let (o, limits) = exi_options(*sel);
    let mut reused = binxml::exi::ExiDecoder::with_options(a, o.clone(), limits.clone());
    let stop = if k & 1 == 1 {
        u64::from(k >> 1)
    } else {
        u64::MAX
    };
    exi_outcome(&mut reused, stop);
    reused.reset(b);
    let mut fresh = binxml::exi::ExiDecoder::with_options(b, o, limits);
    let (theirs, ours) = (
        exi_outcome(&mut fresh, u64::MAX),
        exi_outcome(&mut reused, u64::MAX),
    );
    assert_eq!(
        ours,
        theirs,
        "exi: a reset decoder and a new one differ on the second stream ({} octets after {})",
        b.len(),
        a.len()
    );
}

/// What a decoder gives, up to `stop` events (and at most a million): the number of events, a
/// hash of them, and the error's text if it ended with one.
fn exi_outcome(dec: &mut binxml::exi::ExiDecoder<'_>, stop: u64) -> (u64, u64, Option<String>) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut n = 0u64;
    while n < stop.min(1_000_000) {
        match dec.next_event() {
            Ok(Some(ev)) => {
                format!("{ev:?}").hash(&mut h);
                n += 1;
            }
            Ok(None) => break,
            Err(e) => return (n, h.finish(), Some(e.to_string())),
        }
    }
    (n, h.finish(), None)
}

fn check_utf8(ev: &Event<'_>) {
    let ok = |s: &str| std::str::from_utf8(s.as_bytes()).is_ok();
    match ev {
        Event::StartElement(q) | Event::Attribute { name: q, .. } => {
            assert!(ok(&q.local) && ok(&q.prefix) && ok(&q.namespace))
        }
        Event::Characters { text, .. } => assert!(ok(text)),
        _ => {}
    }
}

/// What an EXI stream with options `o` keeps of `events` (schema-less EXI's data model):
/// comments and PIs only with their preserve flags, the DOCTYPE and entity references only with
/// `preserve.dtd`; without `preserve.prefixes` the decoder invents prefixes and declarations,
/// so names compare by namespace and local name and declarations are dropped (also with
/// `selfContained`, whose elements repeat declarations). Then
/// [`model::normalize`] (no CDATA flag, adjacent text merged, empty text dropped).
pub fn exi_normalize(events: &[Event<'_>], o: &ExiOptions) -> Vec<Event<'static>> {
    let kept: Vec<Event<'static>> = events
        .iter()
        .filter(|ev| match ev {
            Event::Comment(_) => o.comments,
            Event::ProcessingInstruction { .. } => o.pis,
            Event::DocType(_) | Event::EntityReference { .. } => o.dtd,
            // (a self-contained element repeats the declarations it needs)
            Event::Namespace { .. } => o.prefixes && !o.self_contained,
            _ => true,
        })
        .map(|ev| {
            let mut ev = ev.clone().into_owned();
            // Known and reported: with selfContained, a name inside a self-contained element
            // whose prefix is declared outside it comes back without its prefix (the fragment's
            // fresh table has no prefix for the URI and the encoder writes no NS event for it):
            // names compare by namespace and local name there too.
            if !o.prefixes || o.self_contained {
                match &mut ev {
                    Event::StartElement(q) | Event::Attribute { name: q, .. } => {
                        q.prefix = std::borrow::Cow::Borrowed("")
                    }
                    _ => {}
                }
            }
            ev
        })
        .collect();
    model::normalize(&kept, Format::Exi)
}

fn exi_encode(
    o: &ExiOptions,
    write: impl FnOnce(&mut binxml::exi::ExiEncoder<Vec<u8>>) -> binxml::Result<()>,
) -> binxml::Result<Vec<u8>> {
    use binxml::Encoder;
    let mut enc = binxml::exi::ExiEncoder::with_options(Vec::new(), o.clone())?;
    write(&mut enc)?;
    enc.finish()?;
    Ok(enc.into_inner())
}

/// `roundtrip_exi`: the first [`EXI_SELECTOR`] octets pick the options, the rest builds a
/// well-formed document ([`doc`]) that goes through the EXI encoder and decoder and must come
/// back as the same events up to what EXI keeps ([`exi_normalize`]). `write_event` on each
/// event, `write_events` and `write_tape` must write the same bytes. Streams with the options
/// in their header are decoded with the default options given (the header must win).
pub fn exi_round_trip(data: &[u8]) {
    use binxml::Encoder;
    let Some((sel, rest)) = data.split_first_chunk::<EXI_SELECTOR>() else {
        return;
    };
    let (o, _) = exi_options(*sel);
    let mut u = Unstructured::new(rest);
    let Ok(d) = doc(&mut u) else { return };
    let events = d.events();
    let bytes = match exi_encode(&o, |e| {
        for ev in &events {
            e.write_event(ev)?;
        }
        Ok(())
    }) {
        Ok(b) => b,
        // Options the encoder refuses (strict with a preserve flag or selfContained,
        // selfContained with (pre-)compression).
        Err(e)
            if matches!(
                e.kind(),
                binxml::ErrorKind::Unsupported | binxml::ErrorKind::InvalidOptions
            ) =>
        {
            return;
        }
        Err(e) => panic!("exi encoder ({}): {e}\nevents: {events:?}", o.to_text()),
    };
    for (how, other) in [
        ("write_events", exi_encode(&o, |e| e.write_events(&events))),
        (
            "write_tape",
            exi_encode(&o, |e| e.write_tape(&binxml::Tape::from_events(&events))),
        ),
    ] {
        let other = other.unwrap_or_else(|e| panic!("exi {how} ({}): {e}", o.to_text()));
        assert!(
            other == bytes,
            "exi ({}): {how} wrote other bytes than write_event on each ({} against {})",
            o.to_text(),
            other.len(),
            bytes.len()
        );
    }
    let given = if o.include_options {
        ExiOptions::default()
    } else {
        o.clone()
    };
    let back = binxml::exi::decode_with(&bytes, &given).unwrap_or_else(|e| {
        panic!(
            "exi decoder ({}): {e}\nevents: {events:?}\nbytes: {bytes:02x?}",
            o.to_text()
        )
    });
    let want = exi_normalize(&events, &o);
    let got = exi_normalize(&back, &o);
    if want != got {
        let i = want
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        panic!(
            "exi ({}): events differ at {i}: want {:?}, got {:?}\nwant {want:?}\ngot  {got:?}",
            o.to_text(),
            want.get(i),
            got.get(i)
        );
    }
}

/// Bytes -> a schema (one document; its includes and imports resolve relative to a directory
/// that does not exist) -> the EXI grammars of what loaded: never a panic, a hang, a stack
/// overflow or unbounded memory, and a load error names a place in the document.
pub fn load_schema(data: &[u8]) {
    use binxml::schema::{LoadOptions, Schema};
    let options = LoadOptions::default();
    match Schema::from_bytes_with(data, "/nonexistent/fuzz.xsd", &options) {
        Ok(schema) => {
            let _ = binxml::exi::informed::SchemaGrammars::new(std::sync::Arc::new(schema));
        }
        Err(e) => std::hint::black_box(e.to_string()).clear(),
    }
}

/// `schema NUL instance`: the schema loaded as [`load_schema`] does, then the instance (XML)
/// validated against it; never a panic, a hang or unbounded memory.
pub fn validate_schema(data: &[u8]) {
    use binxml::schema::{LoadOptions, Schema, Validator};
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (xsd, xml) = (&data[..split], &data[split + 1..]);
    let Ok(schema) = Schema::from_bytes_with(xsd, "/nonexistent/fuzz.xsd", &LoadOptions::default())
    else {
        return;
    };
    let mut dec = binxml::xml::XmlDecoder::new(xml);
    if let Ok(errors) = Validator::validate(&schema, &mut dec) {
        std::hint::black_box(errors);
    }
}

/// A schema with one of each kind of component the schema-informed EXI decoder handles:
/// attributes (required, optional, a wildcard), sequences, choices, `all`, repetition,
/// substitution groups, mixed and simple content of several datatypes, nillable elements,
/// named types for xsi:type.
const EXI_FUZZ_SCHEMA: &str = r###"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:f" targetNamespace="urn:f" elementFormDefault="qualified">
  <xs:complexType name="Base"><xs:sequence><xs:element name="a" type="xs:int" maxOccurs="3"/></xs:sequence>
    <xs:attribute name="id" type="xs:ID"/><xs:anyAttribute namespace="##other" processContents="lax"/></xs:complexType>
  <xs:complexType name="Derived"><xs:complexContent><xs:extension base="Base"><xs:choice>
    <xs:element name="d" type="xs:decimal"/><xs:element name="t" type="xs:dateTime"/><xs:element name="b" type="xs:base64Binary"/>
  </xs:choice></xs:extension></xs:complexContent></xs:complexType>
  <xs:simpleType name="Code"><xs:restriction base="xs:string"><xs:pattern value="[A-Z]{2}[0-9]*"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Color"><xs:restriction base="xs:token"><xs:enumeration value="red"/><xs:enumeration value="green"/></xs:restriction></xs:simpleType>
  <xs:element name="head" type="Base" abstract="true"/>
  <xs:element name="one" type="Base" substitutionGroup="head"/>
  <xs:element name="two" type="Derived" substitutionGroup="head"/>
  <xs:element name="root"><xs:complexType mixed="true"><xs:sequence>
    <xs:element ref="head" minOccurs="0" maxOccurs="unbounded"/>
    <xs:element name="bag" minOccurs="0"><xs:complexType><xs:all>
      <xs:element name="code" type="Code"/><xs:element name="color" type="Color" minOccurs="0"/>
      <xs:element name="n" type="xs:unsignedByte" nillable="true"/><xs:element name="f" type="xs:double" minOccurs="0"/>
    </xs:all></xs:complexType></xs:element>
    <xs:any namespace="##any" processContents="skip" minOccurs="0" maxOccurs="2"/>
  </xs:sequence><xs:attribute name="list"><xs:simpleType><xs:list itemType="xs:integer"/></xs:simpleType></xs:attribute>
  <xs:attribute name="flag" type="xs:boolean" use="required"/></xs:complexType></xs:element>
</xs:schema>"###;

fn exi_fuzz_grammars() -> std::sync::Arc<binxml::exi::informed::SchemaGrammars> {
    use std::sync::{Arc, OnceLock};
    static G: OnceLock<Arc<binxml::exi::informed::SchemaGrammars>> = OnceLock::new();
    G.get_or_init(|| {
        let s = binxml::schema::Schema::from_bytes_with(
            EXI_FUZZ_SCHEMA.as_bytes(),
            "fuzz.xsd",
            &binxml::schema::LoadOptions::default(),
        )
        .expect("the fuzz schema loads");
        Arc::new(binxml::exi::informed::SchemaGrammars::new(Arc::new(s)).expect("grammars"))
    })
    .clone()
}

/// Bytes -> schema-informed EXI events (with [`EXI_FUZZ_SCHEMA`]) to the end: never a panic,
/// hang or unbounded allocation, and every error with its bit offset. The first byte picks,
/// for a stream without options in its header, strict mode (bit 0), byte alignment (bit 1),
/// and without strict preserve.prefixes (bit 2), preserve.comments (bit 4), preserve.dtd
/// (bit 5) and selfContained (bit 6); bit 3 is lexical values.
pub fn decode_exi_schema(data: &[u8]) {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    // Strict excludes the fidelity options.
    let strict = sel & 1 == 1;
    let o = binxml::exi::ExiOptions::default()
        .with_strict(strict)
        .with_alignment(if sel & 2 == 2 {
            binxml::exi::Alignment::ByteAligned
        } else {
            binxml::exi::Alignment::BitPacked
        })
        .with_prefixes(!strict && sel & 4 == 4)
        .with_lexical_values(sel & 8 == 8)
        .with_comments(!strict && sel & 16 == 16)
        .with_dtd(!strict && sel & 32 == 32)
        .with_self_contained(!strict && sel & 64 == 64);
    let mut dec = binxml::exi::informed::SchemaDecoder::new(
        input,
        exi_fuzz_grammars(),
        o.clone(),
        binxml::Limits::default(),
    );
    // Pull decoding goes through the decoder's queue, push decoding hands each event on where
    // it is read: both must give the same events (the first ones kept) and the same error.
    const KEPT: usize = 100_000;
    let mut pulled: Vec<binxml::Event<'static>> = Vec::new();
    let mut pull_error = None;
    let mut n = 0u64;
    loop {
        match dec.next_event() {
            Ok(Some(ev)) => {
                if pulled.len() < KEPT {
                    pulled.push(ev.into_owned());
                }
                n += 1;
                assert!(
                    n < 50_000_000,
                    "exi+schema: more than 50 million events from {} bytes",
                    input.len()
                );
            }
            Ok(None) => break,
            Err(e) => {
                assert!(
                    e.bit_offset().is_some() || e.kind() != binxml::ErrorKind::Malformed,
                    "exi+schema: an error without a bit offset: {e}"
                );
                pull_error = Some(e.to_string());
                break;
            }
        }
    }
    let mut dec = binxml::exi::informed::SchemaDecoder::new(
        input,
        exi_fuzz_grammars(),
        o,
        binxml::Limits::default(),
    );
    let mut pushed = KeepFirst(Vec::new(), 0);
    let push_error = binxml::Decoder::read_into(&mut dec, &mut pushed)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        pull_error, push_error,
        "exi+schema: pull and push errors differ"
    );
    // Before an error, push may have handed on the events of the failing step that pull had
    // queued (a start tag flushed before the next element's depth check).
    let prefix = pull_error.is_some();
    assert!(
        pushed.1 == n || (prefix && pushed.1 > n),
        "exi+schema: pull and push event counts differ ({n} and {})",
        pushed.1
    );
    let k = pulled.len().min(pushed.0.len());
    assert!(
        pulled[..k] == pushed.0[..k] && (prefix || pulled.len() == pushed.0.len()),
        "exi+schema: pull and push events differ"
    );
}

/// A sink keeping the first 100,000 events (owned) and counting all.
struct KeepFirst(Vec<binxml::Event<'static>>, u64);

impl<'a> binxml::EventSink<'a> for KeepFirst {
    fn event(&mut self, event: binxml::Event<'a>) -> binxml::Result<()> {
        if self.0.len() < 100_000 {
            self.0.push(event.into_owned());
        }
        self.1 += 1;
        Ok(())
    }
}

fn x694_fuzz_module() -> std::sync::Arc<binxml::asn1::x694::X694> {
    use std::sync::{Arc, OnceLock};
    static M: OnceLock<Arc<binxml::asn1::x694::X694>> = OnceLock::new();
    M.get_or_init(|| {
        let s = binxml::schema::Schema::from_bytes_with(
            EXI_FUZZ_SCHEMA.as_bytes(),
            "fuzz.xsd",
            &binxml::schema::LoadOptions::default(),
        )
        .expect("the fuzz schema loads");
        let root =
            binxml::asn1::x694::Roots::Named(binxml::schema::model::Name::new("urn:f", "root"));
        Arc::new(binxml::asn1::x694::X694::with_roots(Arc::new(s), &root).expect("mapped"))
    })
    .clone()
}

/// Bytes -> X.694 PER or BER events (the module X.694 maps [`EXI_FUZZ_SCHEMA`]'s `root` to: a
/// substitution group, `xsi:type` derivations, `all`, lists, enumerations, numbers, mixed
/// content, a nillable element,
/// wildcards) to the end: never a panic, hang or unbounded allocation, and every error with
/// its bit offset. The first byte picks unaligned PER (0 mod 3), aligned PER (1) or BER (2).
pub fn decode_x694(data: &[u8]) {
    let Some((&sel, data)) = data.split_first() else {
        return;
    };
    let format = match sel % 3 {
        0 => binxml::Format::Asn1XsdUper,
        1 => binxml::Format::Asn1XsdAper,
        _ => binxml::Format::Asn1XsdBer,
    };
    let x = x694_fuzz_module();
    let mut dec = binxml::AnyDecoder::new(
        format,
        data,
        &binxml::DecodeOptions::default().with_x694(Some(x)),
    )
    .expect("a decoder");
    let mut n = 0u64;
    loop {
        match dec.next_event() {
            Ok(Some(ev)) => {
                std::hint::black_box(&ev);
                n += 1;
                assert!(
                    n <= data.len() as u64 * 128 + 4096,
                    "x694: {n} events from {} bytes",
                    data.len()
                );
            }
            Ok(None) => break,
            Err(e) => {
                assert!(
                    e.bit_offset().is_some(),
                    "x694: an error without a bit offset: {e}"
                );
                break;
            }
        }
    }
}

/// `flag schema NUL instance` -> the instance validated against the RELAX NG schema (compact
/// syntax when `flag` is odd, else the XML syntax): never a panic, hang or unbounded allocation.
pub fn validate_relaxng(data: &[u8]) {
    use binxml::schema::LoadOptions;
    use binxml::schema::relaxng::{RelaxNg, RngValidator};
    let Some((&flag, rest)) = data.split_first() else {
        return;
    };
    let Some(split) = rest.iter().position(|&b| b == 0) else {
        return;
    };
    let (rng, xml) = (&rest[..split], &rest[split + 1..]);
    let Ok(mut schema) = RelaxNg::from_bytes(rng, "fuzz", flag & 1 == 1, &LoadOptions::default())
    else {
        return;
    };
    schema.max_validation_patterns = 200_000;
    if let Ok(errors) = RngValidator::validate(&schema, &mut binxml::xml::XmlDecoder::new(xml)) {
        std::hint::black_box(errors);
    }
}

/// Bytes -> a XebuS decoder with the notification schema's omission automata
/// (`crates/binxml-xebu/schemas/notify.rnc`): errors, never a panic, hang or unbounded
/// allocation, however the bytes steer the automata.
pub fn decode_xebus(data: &[u8]) {
    use std::sync::OnceLock;
    static SCHEMA: OnceLock<binxml::xebu::XebuSchema> = OnceLock::new();
    let schema = SCHEMA.get_or_init(|| {
        let rnc = include_bytes!("../../crates/binxml-xebu/schemas/notify.rnc");
        let s = binxml::schema::relaxng::RelaxNg::from_bytes(
            rnc,
            "notify.rnc",
            true,
            &binxml::schema::LoadOptions::default(),
        )
        .expect("the notification schema loads");
        binxml::xebu::XebuSchema::new(s)
    });
    let mut d =
        binxml::xebu::XebuDecoder::with_schema(data, binxml::core::Limits::default(), schema);
    use binxml::Decoder as _;
    loop {
        match d.next_event() {
            Ok(Some(ev)) => {
                std::hint::black_box(ev);
            }
            Ok(None) => {
                if !d.next_message() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
}
