//! Every decoder enforces `binxml::Limits`: each limit, in each format where it applies, turns a
//! hand-crafted hostile input into an error of kind `Limit` (or `Malformed`, where the input is
//! also broken) that carries a byte offset, never into a panic or an allocation the input does
//! not justify.
//!
//! Inputs are built two ways: by hand (deep nesting, huge declared lengths and counts, billion
//! laughs) and by the encoders from hostile event streams (encoders do not limit what they
//! write; the decoders must). `huge_lengths_*` measures the memory a decode allocates on its
//! own thread with a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::borrow::Cow;
use std::cell::Cell;

use binxml::{
    DecodeOptions, Decoder, EncodeOptions, Encoder, Error, ErrorKind, Event, Format, Limits, QName,
};

// ---------------------------------------------------------------------------------------------
// A counting allocator, per thread (tests run in parallel threads).

struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn account(delta: isize) {
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + delta;
        c.set(now);
        let _ = PEAK.try_with(|p| {
            if now > p.get() {
                p.set(now)
            }
        });
    });
}

// SAFETY: every call is handed to `System` with the caller's pointer, layout and size
// unchanged, so `System` upholds the `GlobalAlloc` contract for us. The bookkeeping (`account`)
// touches only `const`-initialised thread-locals without destructors, through `try_with`, so it
// neither allocates nor unwinds, even while a thread is being torn down (its sums are byte
// counts of one test process, far from `isize`'s bounds).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: our caller guarantees what `System.alloc` requires (a non-zero size).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            account(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: our caller guarantees that `ptr` came from this allocator with `layout`, and
        // this allocator's memory is `System`'s, allocated with the same layout.
        unsafe { System.dealloc(ptr, layout) };
        account(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: our caller guarantees that `ptr` is this allocator's (so `System`'s) with
        // `layout`, and that `new_size` is non-zero and valid for its alignment.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result with the peak of bytes it held allocated on this thread.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(|c| c.get());
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(|p| p.get()) - base;
    (r, peak.max(0) as usize)
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn limits(f: impl FnOnce(&mut Limits)) -> Limits {
    let mut l = Limits::default();
    f(&mut l);
    l
}

/// Decodes to the end: `Ok(events)` or the first error.
fn decode(format: Format, input: &[u8], limits: &Limits) -> Result<usize, Error> {
    let mut dec = binxml::AnyDecoder::new(
        format,
        input,
        &DecodeOptions::default().with_limits(limits.clone()),
    )?;
    let mut n = 0;
    while dec.next_event()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// The input must be rejected with one of `kinds` and a byte offset inside the input; returns the
/// error for further checks.
#[track_caller]
fn rejected(format: Format, input: &[u8], limits: &Limits, kinds: &[ErrorKind]) -> Error {
    match decode(format, input, limits) {
        Ok(n) => panic!(
            "{format}: accepted ({n} events) an input of {} bytes that breaks a limit",
            input.len()
        ),
        Err(e) => {
            assert!(
                kinds.contains(&e.kind()),
                "{format}: wrong kind of error: {e} ({:?})",
                e.kind()
            );
            let off = e
                .offset()
                .unwrap_or_else(|| panic!("{format}: error without an offset: {e}"));
            assert!(
                off <= input.len() as u64,
                "{format}: offset {off} past the input's {} bytes: {e}",
                input.len()
            );
            e
        }
    }
}

const LIMIT: &[ErrorKind] = &[ErrorKind::Limit];
const LIMIT_OR_MALFORMED: &[ErrorKind] = &[ErrorKind::Limit, ErrorKind::Malformed];

fn s(x: &str) -> Cow<'static, str> {
    Cow::Owned(x.to_string())
}

fn el(name: &str) -> Event<'static> {
    Event::StartElement(QName::local(s(name)))
}

fn attr(name: &str, value: &str) -> Event<'static> {
    Event::Attribute {
        name: QName::local(s(name)),
        value: s(value),
    }
}

fn encode_with(format: Format, events: &[Event<'_>], opts: &EncodeOptions) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = binxml::AnyEncoder::new(format, &mut out, opts);
        for ev in events {
            enc.write_event(ev)
                .unwrap_or_else(|e| panic!("{format} encoder: {e}"));
        }
        enc.finish().unwrap();
    }
    out
}

/// With every item kept: EXI drops comments, PIs and prefixes unless told to keep them (its
/// options then go in the header, so the decoder needs none).
fn encode(format: Format, events: &[Event<'_>]) -> Vec<u8> {
    let opts = EncodeOptions::default()
        .with_exi(binxml::exi::ExiOptions::preserve_all().with_include_options(true));
    encode_with(format, events, &opts)
}

/// The binary and text formats that carry any XML document (JSON carries JSON-shaped events only).
fn xml_carriers() -> impl Iterator<Item = Format> {
    Format::ALL.iter().copied().filter(|&f| f != Format::Json)
}

/// `<a><a>...</a></a>`, `depth` elements.
fn deep(depth: usize) -> Vec<Event<'static>> {
    let mut v = vec![Event::start_document()];
    v.extend((0..depth).map(|_| el("a")));
    v.push(Event::text("x"));
    v.extend((0..depth).map(|_| Event::EndElement));
    v.push(Event::EndDocument);
    v
}

fn doc(content: Vec<Event<'static>>) -> Vec<Event<'static>> {
    let mut v = vec![Event::start_document(), el("r")];
    v.extend(content);
    v.push(Event::EndElement);
    v.push(Event::EndDocument);
    v
}

// ---------------------------------------------------------------------------------------------
// Depth.

#[test]
fn depth_limit_every_format() {
    // The default limit (1024) against 1100 levels.
    let events = deep(1100);
    for f in xml_carriers() {
        let bytes = encode(f, &events);
        let e = rejected(f, &bytes, &Limits::default(), LIMIT);
        assert!(
            e.message().contains("deeper")
                || e.message().contains("depth")
                || e.message().contains("nest"),
            "{f}: {e}"
        );
        // A lower limit stops a shallower document; a document at the limit passes.
        let l = limits(|l| l.max_depth = 20);
        rejected(f, &encode(f, &deep(21)), &l, LIMIT);
        decode(f, &encode(f, &deep(20)), &l)
            .unwrap_or_else(|e| panic!("{f}: 20 levels with a limit of 20: {e}"));
    }
    let json = format!("{}1{}", "[".repeat(1100), "]".repeat(1100));
    rejected(Format::Json, json.as_bytes(), &Limits::default(), LIMIT);
    let json = format!("{}1{}", "{\"k\":".repeat(30), "}".repeat(30));
    rejected(
        Format::Json,
        json.as_bytes(),
        &limits(|l| l.max_depth = 20),
        LIMIT,
    );
}

#[test]
fn very_deep_hand_made_inputs_do_not_overflow_the_stack() {
    // 200,000 levels: the decoders stop at the limit instead of recursing.
    let n = 200_000;
    let xml = "<a>".repeat(n);
    rejected(Format::Xml, xml.as_bytes(), &Limits::default(), LIMIT);
    rejected(
        Format::Json,
        "[".repeat(n).as_bytes(),
        &Limits::default(),
        LIMIT,
    );
    rejected(
        Format::Json,
        "{\"a\":".repeat(n).as_bytes(),
        &Limits::default(),
        LIMIT,
    );
    // TSF: an element of one child, nested.
    rejected(
        Format::Tsf,
        "1a<".repeat(n).as_bytes(),
        &Limits::default(),
        LIMIT_OR_MALFORMED,
    );
    // BER: nested constructed tags with indefinite length.
    rejected(
        Format::Asn1Ber,
        &[0x30, 0x80].repeat(n),
        &Limits::default(),
        LIMIT_OR_MALFORMED,
    );
    // Fast Infoset: header, then element starts (identifier bits 0, no attributes, literal name
    // `a`) without ends.
    let mut fi = vec![0xE0, 0x00, 0x00, 0x01, 0x00];
    for _ in 0..n {
        fi.extend([0x3C, 0x00, b'a']);
    }
    rejected(Format::Fi, &fi, &Limits::default(), LIMIT_OR_MALFORMED);
    // Every binary format: the encoding of a deep document, with the limit lifted only for the
    // encoder (which does not check): the decoder with the default limit stops it.
    for f in xml_carriers() {
        let bytes = encode(f, &deep(5000));
        rejected(f, &bytes, &Limits::default(), LIMIT);
    }
}

// ---------------------------------------------------------------------------------------------
// String length.

#[test]
fn string_length_limit_every_format() {
    let long = "0123456789".repeat(500); // 5,000 bytes
    let l = limits(|l| l.max_string_len = 1000);
    let cases: Vec<(&str, Vec<Event<'static>>)> = vec![
        ("text", doc(vec![Event::text(long.clone())])),
        ("attribute value", doc(vec![attr("k", &long)])),
        ("comment", doc(vec![Event::Comment(s(&long))])),
        (
            "element name",
            doc(vec![el(&format!("n{long}")), Event::EndElement]),
        ),
    ];
    let mut missed = Vec::new();
    for f in xml_carriers() {
        for (what, events) in &cases {
            let bytes = encode(f, events);
            match decode(f, &bytes, &l) {
                Err(e) if e.kind() == ErrorKind::Limit && e.offset().is_some() => {}
                other => missed.push(format!("{f} {what}: {other:?}")),
            }
            assert!(
                decode(f, &bytes, &Limits::default()).is_ok(),
                "{f} {what}: fine with the default limits"
            );
        }
    }
    assert!(
        missed.is_empty(),
        "string-length limit not enforced:\n{}",
        missed.join("\n")
    );
    let json = format!("{{\"k\":\"{long}\"}}");
    rejected(Format::Json, json.as_bytes(), &l, LIMIT);
    let json = format!("{{\"{long}\":1}}");
    rejected(Format::Json, json.as_bytes(), &l, LIMIT);
    // A number is kept as its text: 5,000 digits are a string too.
    let json = format!("[1{long}]");
    rejected(Format::Json, json.as_bytes(), &l, LIMIT);
    // XML text assembled from many short pieces (entity and character references) counts too.
    let xml = format!("<a>{}</a>", "x&amp;".repeat(600));
    rejected(Format::Xml, xml.as_bytes(), &l, LIMIT);
}

// ---------------------------------------------------------------------------------------------
// Huge declared lengths and counts: an error, not an allocation.

#[test]
fn huge_declared_lengths_hand_made() {
    let d = Limits::default();
    // Fast Infoset: a comment whose literal string declares 4 GiB (the 32-bit length form).
    let fi = [
        0xE0, 0x00, 0x00, 0x01, 0x00, 0xE2, 0x0C, 0xFF, 0xFF, 0xFF, 0xF0, b'x',
    ];
    let (e, peak) = peak_of(|| rejected(Format::Fi, &fi, &d, LIMIT_OR_MALFORMED));
    assert!(peak < 1 << 20, "fi: {peak} bytes allocated for {e}");
    // BER: the outer SEQUENCE declares 4 GiB of content (long form, four length octets).
    let ber = [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xF0, 0x30, 0x00];
    let (e, peak) = peak_of(|| rejected(Format::Asn1Ber, &ber, &d, LIMIT_OR_MALFORMED));
    assert!(peak < 1 << 20, "asn1-ber: {peak} bytes allocated for {e}");
    // BER: eight length octets (more than 2^64 / 256).
    let ber = [
        0x30, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00,
    ];
    rejected(Format::Asn1Ber, &ber, &d, LIMIT_OR_MALFORMED);
    // TSF: a text unit that declares 4 GiB of data, an element that declares 4 billion children,
    // and a length beyond 64 bits.
    for tsf in [
        "1a<4294967296[abc",
        "4294967295a<",
        "1a<99999999999999999999999999[abc",
        "18446744073709551615a<1[x",
    ] {
        let (e, peak) = peak_of(|| rejected(Format::Tsf, tsf.as_bytes(), &d, LIMIT_OR_MALFORMED));
        assert!(
            peak < 1 << 20,
            "tsf {tsf:?}: {peak} bytes allocated for {e}"
        );
    }
}

/// Overwrites every position of valid encodings with huge numbers in the shapes each format uses
/// for lengths and counts (big-endian words, BER long-form lengths, PER length determinants with
/// 16K fragments, varints, decimal digits): each damaged input decodes or fails, and the decode
/// allocates no more than the input can justify.
#[test]
fn huge_lengths_anywhere_allocate_nothing_unjustified() {
    let text = "t\u{e9}xt ".repeat(60);
    let events = doc(vec![
        attr("k", "value"),
        el("child"),
        Event::text(text.clone()),
        Event::EndElement,
        Event::Comment(s("a comment")),
        Event::ProcessingInstruction {
            target: s("pi"),
            data: s("data"),
        },
        el("child"),
        Event::text("short"),
        Event::EndElement,
    ]);
    let patterns: &[&[u8]] = &[
        &[0xFF, 0xFF, 0xFF, 0xFF],
        &[0x7F, 0xFF, 0xFF, 0xF0],
        &[0x84, 0xFF, 0xFF, 0xFF, 0xF0],
        &[0xC4],
        &[0xBF, 0xFF],
        &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        b"99999999999",
    ];
    let mut checked = 0;
    for f in Format::ALL.iter().copied() {
        let bytes = if f == Format::Json {
            br#"{"a":[1,2.5,"xyz",true,null],"b":{"c":"d"}}"#.to_vec()
        } else {
            encode(f, &events)
        };
        for i in 0..bytes.len() {
            for p in patterns {
                let mut v = bytes.clone();
                for (k, b) in p.iter().enumerate() {
                    match v.get_mut(i + k) {
                        Some(x) => *x = *b,
                        None => v.push(*b),
                    }
                }
                let (r, peak) = peak_of(|| decode(f, &v, &Limits::default()));
                // What a decoder may hold: tables, arenas and owned strings proportional to the
                // input, never what a declared length asks for.
                let budget = 64 * v.len() + (256 << 10);
                assert!(
                    peak <= budget,
                    "{f}: {peak} bytes allocated decoding {} bytes (pattern {p:02X?} at {i}): {r:?}",
                    v.len()
                );
                if let Err(e) = &r {
                    assert!(e.offset().is_some(), "{f}: error without an offset: {e}");
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} damaged inputs checked");
}

// ---------------------------------------------------------------------------------------------
// Table entries.

#[test]
fn table_entries_limit() {
    // Many distinct names and values: Fast Infoset's vocabulary tables, Xebu's caches, the ASN.1
    // component-strings and common-names tables.
    let mut content = Vec::new();
    for i in 0..300 {
        content.push(el(&format!("e{i}")));
        content.push(attr(&format!("a{i}"), &format!("v{i}")));
        content.push(Event::text(format!("t{i}")));
        content.push(Event::EndElement);
    }
    let events = doc(content);
    let l = limits(|l| l.max_table_entries = 100);
    for f in [
        Format::Fi,
        Format::Asn1Uper,
        Format::Asn1Aper,
        Format::Asn1Ber,
    ] {
        let bytes = encode(f, &events);
        rejected(f, &bytes, &l, LIMIT);
        decode(f, &bytes, &Limits::default()).unwrap();
    }
    // XML: namespace declarations on one element.
    let mut xml = String::from("<a");
    for i in 0..200 {
        xml.push_str(&format!(" xmlns:p{i}='urn:{i}'"));
    }
    xml.push_str("/>");
    rejected(Format::Xml, xml.as_bytes(), &l, LIMIT);
    decode(Format::Xml, xml.as_bytes(), &Limits::default()).unwrap();
    // Fast Infoset tables grown by the document itself beyond the default limit (2^20 entries)
    // cost at least a byte each, so the limit is reached only by inputs over 1 MiB: the default
    // limit is checked with a lower one above. Xebu's caches have a fixed number of slots (at
    // most 256 per cache, docs/xebu.md), JSON and TSF have no tables.
}

// ---------------------------------------------------------------------------------------------
// Decoded size relative to the input (references that repeat data).

#[test]
fn expansion_ratio_limit() {
    // One 60,000-character value, then 3,000 references to it: 180 MB decoded from well under
    // 1/1000 of that (BER spends about 30 bytes on each reference); the budget is
    // max(1000 x input, 64 MiB).
    let value = "v".repeat(60_000);
    let mut events: Vec<Event<'_>> = vec![Event::start_document(), el("r")];
    for _ in 0..3000 {
        events.push(el("e"));
        events.push(Event::Attribute {
            name: QName::local("k"),
            value: Cow::Borrowed(value.as_str()),
        });
        events.push(Event::EndElement);
    }
    events.extend([Event::EndElement, Event::EndDocument]);
    let mut opts = EncodeOptions::default();
    opts.fi.max_indexed_attribute_value = 100_000;
    opts.xebu.max_cached_len = 100_000;
    for f in [
        Format::Fi,
        Format::Xebu,
        Format::Asn1Uper,
        Format::Asn1Aper,
        Format::Asn1Ber,
    ] {
        let bytes = encode_with(f, &events, &opts);
        assert!(
            bytes.len() < 180_000,
            "{f}: the value is not referenced ({} bytes)",
            bytes.len()
        );
        let e = rejected(f, &bytes, &Limits::default(), LIMIT);
        // Unlimited, the same input decodes (it is valid).
        decode(f, &bytes, &limits(|l| l.max_expansion_ratio = 0))
            .unwrap_or_else(|e2| panic!("{f}: {e2} (limited: {e})"));
    }
}

// ---------------------------------------------------------------------------------------------
// Entities (XML).

#[test]
fn billion_laughs() {
    let mut xml = String::from("<?xml version='1.0'?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 'lol'>\n");
    for i in 1..10 {
        xml.push_str(&format!(
            "<!ENTITY lol{i} '{}'>\n",
            format!("&lol{};", i - 1).repeat(10)
        ));
    }
    xml.push_str("]>\n<lolz>&lol9;</lolz>");
    let (e, peak) = peak_of(|| rejected(Format::Xml, xml.as_bytes(), &Limits::default(), LIMIT));
    assert!(peak < 64 << 20, "{peak} bytes for {e}");
    // In an attribute value too.
    let xml = xml.replace("<lolz>&lol9;</lolz>", "<lolz a='&lol9;'/>");
    rejected(Format::Xml, xml.as_bytes(), &Limits::default(), LIMIT);
    // A lower expansion limit stops a small expansion.
    let small =
        "<!DOCTYPE a [<!ENTITY e 'xxxxxxxxxx'>]><a>&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;</a>";
    rejected(
        Format::Xml,
        small.as_bytes(),
        &limits(|l| l.max_entity_expansion = 100),
        LIMIT,
    );
    decode(Format::Xml, small.as_bytes(), &Limits::default()).unwrap();
    // Quadratic blow-up: one large entity referenced many times.
    let big = format!(
        "<!DOCTYPE a [<!ENTITY e '{}'>]><a>{}</a>",
        "x".repeat(50_000),
        "&e;".repeat(500)
    );
    rejected(
        Format::Xml,
        big.as_bytes(),
        &limits(|l| l.max_entity_expansion = 1 << 20),
        LIMIT,
    );
}

#[test]
fn entity_depth_limit() {
    let mut xml = String::from("<!DOCTYPE a [<!ENTITY e0 'x'>");
    for i in 1..30 {
        xml.push_str(&format!("<!ENTITY e{i} '&e{};'>", i - 1));
    }
    xml.push_str("]><a>&e29;</a>");
    rejected(
        Format::Xml,
        xml.as_bytes(),
        &Limits::default(),
        LIMIT_OR_MALFORMED,
    );
    rejected(
        Format::Xml,
        xml.as_bytes(),
        &limits(|l| l.max_entity_depth = 5),
        LIMIT_OR_MALFORMED,
    );
    // Recursive entities are malformed, not a hang.
    let rec = "<!DOCTYPE a [<!ENTITY a '&b;'><!ENTITY b '&a;'>]><a>&a;</a>";
    rejected(
        Format::Xml,
        rec.as_bytes(),
        &Limits::default(),
        LIMIT_OR_MALFORMED,
    );
    // External entities are never fetched.
    let ext = "<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>";
    if let Ok(n) = decode(Format::Xml, ext.as_bytes(), &Limits::default()) {
        let prepared = ext.as_bytes();
        let mut dec =
            binxml::AnyDecoder::new(Format::Xml, prepared, &DecodeOptions::default()).unwrap();
        let mut all = String::new();
        while let Some(ev) = dec.next_event().unwrap() {
            all.push_str(&format!("{ev:?}"));
        }
        assert!(
            !all.contains("root:"),
            "external entity fetched ({n} events): {all}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Regressions: every input the fuzzers found, kept under tests/regressions/<format>/.

#[test]
fn regression_inputs_decode_without_panic() {
    let root = binxml_testkit::workspace_root().join("tests/regressions");
    let mut n = 0;
    for &f in Format::ALL {
        let Ok(dir) = std::fs::read_dir(root.join(f.name())) else {
            continue;
        };
        for entry in dir {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let input = std::fs::read(&path).unwrap();
            let (r, peak) =
                peak_of(|| std::panic::catch_unwind(|| decode(f, &input, &Limits::default())));
            let r = r.unwrap_or_else(|_| panic!("{f}: {} panics", path.display()));
            assert!(
                peak <= 16 * input.len() + (64 << 20),
                "{f}: {}: {peak} bytes allocated",
                path.display()
            );
            if let Err(e) = r {
                assert!(
                    e.offset().is_some(),
                    "{f}: {}: error without an offset: {e}",
                    path.display()
                );
            }
            n += 1;
        }
    }
    eprintln!("{n} regression inputs");
}
