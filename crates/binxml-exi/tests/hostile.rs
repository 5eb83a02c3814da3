//! Hostile EXI input: crafted and damaged streams must each decode to the end or fail with an
//! error that says where (byte and bit offset), never panic, hang or allocate more than the
//! input justifies.
//!
//! * truncations of corpus encodings at every length, in every alignment and option set;
//! * event codes past the grammar, string-table ids past each partition (URI, local name,
//!   prefix, local and global value) and a local value id naming an evicted value;
//! * lengths past the input and past `Limits::max_string_len`;
//! * a DEFLATE bomb (time and peak allocation measured by a counting allocator);
//! * options headers that contradict themselves;
//! * nesting past `Limits::max_depth`, tables past `Limits::max_table_entries`;
//! * inputs the fuzzers (`fuzz/fuzz_targets/decode_exi.rs`) found, kept in
//!   `tests/regressions/exi/`.
//!
//! `write_fuzz_seeds` (ignored) writes the seeds of the `decode_exi`, `roundtrip_exi` and
//! `push_pull` fuzz targets.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

use binxml_core::{Decoder, Error, ErrorKind, Event, Limits};
use binxml_exi::{Alignment, DEFAULT_BLOCK_SIZE, ExiDecoder, ExiOptions};

// ---------------------------------------------------------------------------------------------
// A counting allocator, per thread (tests run in parallel threads), as in
// crates/binxml/tests/limits.rs.

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

// SAFETY: every method forwards to `System` with the arguments it was given and only counts
// sizes; the contract of `GlobalAlloc` is `System`'s.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `layout` is valid for `alloc`, as `GlobalAlloc` requires.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            account(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        account(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller guarantees `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f`; returns its result, the peak of bytes it held allocated on this thread, and the
/// time it took.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize, Duration) {
    let base = CURRENT.with(|c| c.get());
    PEAK.with(|p| p.set(base));
    let t = Instant::now();
    let r = f();
    let took = t.elapsed();
    let peak = PEAK.with(|p| p.get()) - base;
    (r, peak.max(0) as usize, took)
}

// ---------------------------------------------------------------------------------------------
// Option sets and seeds.

/// The options the fuzz targets' selector octets name: a copy of `exi_options` in
/// `fuzz/src/lib.rs` (keep the two in step), returned with the tight-limits flag.
fn from_selector(sel: [u8; 3]) -> (ExiOptions, bool) {
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
    (o, c & 1 != 0)
}

/// Selector octets of the option sets the seeds are encoded with: every alignment plain and
/// with every preserve flag (DTD, prefixes, lexical values, comments, PIs), each with and
/// without the options in the header, and the string-table bounds, small blocks and fragments.
fn selectors() -> Vec<[u8; 3]> {
    let mut v = Vec::new();
    for align in 0..4u8 {
        for preserve in [0u8, 0b1111_1000] {
            for header in [0u8, 2] {
                v.push([align | preserve, 0, header]);
            }
        }
    }
    // fragment; valueMaxLength 1 and capacity 1; valueMaxLength 8 and capacity 4; blockSize 1,
    // 2 and 101 (with capacity 4); lexical values and prefixes with capacity 1
    for (a, b) in [
        (0b0000_0100u8, 0u8),
        (0, 0b0001_1000),
        (1, 0b0011_1100),
        (2, 0b0000_0001),
        (3, 0b0000_0010),
        (3, 0b0011_0011),
        (0b1100_0010, 0b0001_0000),
        (0b0000_0111, 0b0000_0100),
    ] {
        v.push([a, b, 0]);
        v.push([a, b, 2]);
    }
    v
}

fn corpus_doc(rel: &str) -> Option<Vec<u8>> {
    let root = binxml_testkit::workspace_root();
    [
        root.join("tests/corpus").join(rel),
        root.join("../shared/corpus").join(rel),
    ]
    .into_iter()
    .find_map(|p| std::fs::read(p).ok())
}

/// Small corpus documents (under 12 KB) and the example invoice, as events.
fn seed_documents() -> Vec<(String, Vec<Event<'static>>)> {
    let mut docs: Vec<(String, Vec<u8>)> = binxml_testkit::corpus_xml_files()
        .into_iter()
        .filter_map(|p| {
            let len = std::fs::metadata(&p).ok()?.len();
            let name = p.file_name()?.to_string_lossy().into_owned();
            (len < 12_000).then(|| std::fs::read(&p).ok().map(|b| (name, b)))?
        })
        .take(6)
        .collect();
    let root = binxml_testkit::workspace_root();
    docs.push((
        "invoice.xml".into(),
        std::fs::read(root.join("examples/invoice.xml")).unwrap(),
    ));
    let _ = corpus_doc;
    docs.into_iter()
        .filter_map(|(n, b)| {
            let utf8 = binxml_xml::to_utf8(&b).ok()?;
            Some((n, binxml_xml::decode(&utf8).ok()?))
        })
        .collect()
}

/// Every seed document in every option set of [`selectors`]: (selector, options, bytes).
fn seeds() -> Vec<([u8; 3], ExiOptions, Vec<u8>)> {
    let docs = seed_documents();
    assert!(docs.len() >= 4, "too few seed documents");
    let mut out = Vec::new();
    for sel in selectors() {
        let (o, _) = from_selector(sel);
        for (_, events) in &docs {
            let bytes = binxml_exi::encode_with(events, &o)
                .unwrap_or_else(|e| panic!("encode ({}): {e}", o.to_text()));
            out.push((sel, o.clone(), bytes));
        }
    }
    out
}

/// Writes the fuzz targets' seeds: `fuzz/seeds/decode_exi/` (selector + stream), and for
/// `push_pull` four streams with their options in the header (first byte: EXI's index in
/// `Format::ALL`), and `fuzz/seeds/roundtrip_exi/` (selector + bytes for the document model).
#[test]
#[ignore = "writes fuzz/seeds; run by hand when the seeds should change"]
fn write_fuzz_seeds() {
    let root = binxml_testkit::workspace_root().join("fuzz/seeds");
    let dec = root.join("decode_exi");
    let _ = std::fs::remove_dir_all(&dec);
    std::fs::create_dir_all(&dec).unwrap();
    let mut n = 0;
    for (sel, o, bytes) in seeds() {
        if bytes.len() > 4096 {
            continue;
        }
        n += 1;
        let mut v = sel.to_vec();
        v.extend_from_slice(&bytes);
        std::fs::write(
            dec.join(format!("seed{n}-{}", o.to_text().replace([',', '='], "-"))),
            v,
        )
        .unwrap();
    }
    let pp = root.join("push_pull");
    let exi_index = binxml_core::Format::ALL
        .iter()
        .position(|&f| f == binxml_core::Format::Exi)
        .unwrap() as u8;
    let docs = seed_documents();
    for (i, align) in [
        Alignment::BitPacked,
        Alignment::ByteAligned,
        Alignment::PreCompression,
        Alignment::Compression,
    ]
    .into_iter()
    .enumerate()
    {
        let o = ExiOptions::preserve_all()
            .with_alignment(align)
            .with_include_options(true);
        let mut v = vec![exi_index];
        v.extend(binxml_exi::encode_with(&docs[i % docs.len()].1, &o).unwrap());
        std::fs::write(pp.join(format!("exi-seed{}", i + 1)), v).unwrap();
    }
    let rt = root.join("roundtrip_exi");
    let _ = std::fs::remove_dir_all(&rt);
    std::fs::create_dir_all(&rt).unwrap();
    let text =
        std::fs::read(binxml_testkit::workspace_root().join("examples/invoice.xml")).unwrap();
    for (i, sel) in selectors().into_iter().enumerate() {
        let mut v = sel.to_vec();
        v.extend_from_slice(&text[(i * 37) % 512..][..256]);
        std::fs::write(rt.join(format!("seed{}", i + 1)), v).unwrap();
    }
    eprintln!("{n} decode_exi seeds");
}

// ---------------------------------------------------------------------------------------------
// Found by the fuzzers.

/// `roundtrip_exi`, at once (on 64dad15; main fixed it too in 1fc6bb6): in fragment mode
/// without comments or PIs the encoder wrote FragmentContent's first-level codes one choice
/// too wide (as if the CM/PI group were there), so the decoder (and EXIficient) read another
/// stream. The bytes are EXIficient 1.0.7's for
/// the same documents with `fragment` (`interop/exi/ExiDriver.java`).
#[test]
fn fragment_codes_without_comments_or_pis() {
    for (xml, exificient, opts) in [
        (&b"<a/>"[..], &[0x80u8, 0x20, 0x4c, 0x24][..], "fragment"),
        (
            b"<a><b/><b/></a>",
            &[0x80, 0x20, 0x4c, 0x32, 0x04, 0xc4, 0x48, 0x04, 0xc0],
            "fragment",
        ),
        (
            b"<a><b/><b/></a>",
            &[0x80, 0x10, 0x26, 0x14, 0x81, 0x31, 0x08, 0x80, 0x4c],
            "fragment,comments",
        ),
    ] {
        let o = ExiOptions::default().parse_text(opts).unwrap();
        let events = binxml_xml::decode(xml).unwrap();
        let bytes = binxml_exi::encode_with(&events, &o).unwrap();
        assert_eq!(
            bytes,
            exificient,
            "{opts}: {}",
            String::from_utf8_lossy(xml)
        );
        let back = binxml_exi::decode_with(&bytes, &o).unwrap();
        let names: Vec<_> = back
            .iter()
            .filter_map(|e| match e {
                Event::StartElement(q) => Some(q.local.to_string()),
                _ => None,
            })
            .collect();
        let starts = xml
            .windows(2)
            .filter(|w| w[0] == b'<' && w[1] != b'/')
            .count();
        assert_eq!(names.len(), starts);
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding helpers.

/// Decodes to the end under `o` and `limits`: the number of events, or the first error.
fn decode(input: &[u8], o: &ExiOptions, limits: Limits) -> Result<usize, Error> {
    let mut d = ExiDecoder::with_options(input, o.clone(), limits);
    let mut n = 0;
    while d.next_event()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// `input` must fail with `kind`, a byte and a bit offset (within the input unless the error is
/// in a DEFLATE stream's output) and a message holding `says`; returns the error.
#[track_caller]
fn fails(input: &[u8], o: &ExiOptions, limits: Limits, kind: ErrorKind, says: &str) -> Error {
    let e = match decode(input, o, limits) {
        Ok(n) => panic!("accepted ({n} events): {input:02x?}"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), kind, "{e}");
    assert!(e.message().contains(says), "{e} (expected {says:?})");
    well_placed(&e, input.len());
    e
}

/// An error has a byte and a bit offset, inside the input unless it counts in a DEFLATE
/// stream's output.
#[track_caller]
fn well_placed(e: &Error, len: usize) {
    let off = e
        .offset()
        .unwrap_or_else(|| panic!("error without an offset: {e}"));
    let bit = e
        .bit_offset()
        .unwrap_or_else(|| panic!("error without a bit offset: {e}"));
    assert_eq!(bit / 8, off, "{e}");
    if !e.message().contains("DEFLATE stream") {
        assert!(off <= len as u64, "offset {off} past the {len} octets: {e}");
    }
}

/// Hand-written bit-packed streams: most significant bit first.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// Starts with the header `10 0 0 0000` (no options: the decoder is given them).
    fn plain() -> Self {
        let mut b = Bits::default();
        b.put(0x80, 8);
        b
    }
    /// Starts with the header `10 1 0 0000`: an options document follows.
    fn with_options() -> Self {
        let mut b = Bits::default();
        b.put(0xA0, 8);
        b
    }
    fn put(&mut self, v: u64, n: u32) -> &mut Self {
        for i in (0..n).rev() {
            self.acc = (self.acc << 1) | ((v >> i) & 1);
            self.n += 1;
            if self.n == 8 {
                self.out.push(self.acc as u8);
                self.acc = 0;
                self.n = 0;
            }
        }
        self
    }
    /// An unsigned integer in 7-bit groups, least significant first.
    fn uint(&mut self, mut v: u64) -> &mut Self {
        loop {
            let low = v & 0x7F;
            v >>= 7;
            if v == 0 {
                return self.put(low, 8);
            }
            self.put(low | 0x80, 8);
        }
    }
    /// ASCII characters, one octet each.
    fn chars(&mut self, s: &str) -> &mut Self {
        for b in s.bytes() {
            self.put(u64::from(b), 8);
        }
        self
    }
    /// A string: length, then characters.
    fn string(&mut self, s: &str) -> &mut Self {
        self.uint(s.len() as u64).chars(s)
    }
    /// SE(*) of an element in no namespace with a new local name, from DocContent with
    /// `doc_bits` bits of first-level code (0 without DTD, comments and PIs).
    fn root(&mut self, doc_bits: u32, local: &str) -> &mut Self {
        self.put(0, doc_bits)
            .put(1, 2)
            .uint(local.len() as u64 + 1)
            .chars(local)
    }
    fn bytes(&mut self) -> Vec<u8> {
        let mut v = self.out.clone();
        if self.n > 0 {
            v.push((self.acc << (8 - self.n)) as u8);
        }
        v
    }
}

fn opts(text: &str) -> ExiOptions {
    ExiOptions::default().parse_text(text).unwrap()
}

fn tight() -> Limits {
    Limits::default()
        .with_max_depth(8)
        .with_max_string_len(64)
        .with_max_table_entries(64)
}

// ---------------------------------------------------------------------------------------------
// Truncations.

/// The first seed documents in every option set, cut at every length: an error with its
/// offsets or (where only padding was cut) the document; never a panic, never slow, memory
/// bounded.
#[test]
fn truncations_at_every_length() {
    let all = seeds();
    let docs = seed_documents().len();
    let mut cuts = 0;
    for (i, (sel, o, bytes)) in all.iter().enumerate() {
        // two documents per option set
        if i % docs >= 2 || bytes.len() > 6000 {
            continue;
        }
        let given = if o.include_options {
            ExiOptions::default()
        } else {
            o.clone()
        };
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            let (r, peak, took) = measured(|| decode(cut, &given, Limits::default()));
            cuts += 1;
            assert!(
                took < Duration::from_secs(1),
                "{sel:?} cut at {len}: {took:?}"
            );
            assert!(
                peak <= 16 * bytes.len() + (4 << 20),
                "{sel:?} cut at {len}: {peak} bytes"
            );
            match r {
                Err(e) => well_placed(&e, len),
                Ok(_) => assert!(
                    len + 2 >= bytes.len(),
                    "{} cut at {len} of {} decodes",
                    o.to_text(),
                    bytes.len()
                ),
            }
        }
    }
    eprintln!("{cuts} truncated streams");
    assert!(cuts > 10_000);
}

// ---------------------------------------------------------------------------------------------
// Event codes and table ids past what the grammar and the tables hold.

#[test]
fn event_codes_past_the_grammar() {
    // comments: <a>'s start tag has five second-level choices (EE, AT, SE, CH, CM) in 3 bits.
    let s = Bits::plain().root(1, "a").put(7, 3).bytes();
    let e = fails(
        &s,
        &opts("comments"),
        Limits::default(),
        ErrorKind::Malformed,
        "past the grammar",
    );
    assert!(
        e.message().contains("7") && e.message().contains("5 choices"),
        "{e}"
    );
    // After CH learned in <a>'s content, the first level has EE, CH and the escape: 2 bits, 3 is
    // past.
    let s = Bits::plain()
        .root(0, "a")
        .put(3, 2) // CH (second level)
        .uint(3)
        .chars("x")
        .put(1, 1) // content: escape
        .put(1, 1) // CH
        .uint(3)
        .chars("y")
        .put(3, 2)
        .bytes();
    fails(
        &s,
        &ExiOptions::default(),
        Limits::default(),
        ErrorKind::Malformed,
        "past the grammar",
    );
    // The options document: uncommon has 7 choices in 3 bits.
    let s = Bits::with_options()
        .put(0, 1)
        .put(0, 2)
        .put(0, 2)
        .put(7, 3)
        .bytes();
    fails(
        &s,
        &ExiOptions::default(),
        Limits::default(),
        ErrorKind::Malformed,
        "past the grammar",
    );
    // Byte-aligned: a whole octet for the start tag's four choices.
    let mut s = vec![0x80, 0x01, 0x02, b'a', 0x04];
    fails(
        &s,
        &opts("byte-aligned"),
        Limits::default(),
        ErrorKind::Malformed,
        "past the grammar",
    );
    s[4] = 0xFF;
    fails(
        &s,
        &opts("byte-aligned"),
        Limits::default(),
        ErrorKind::Malformed,
        "past the grammar",
    );
}

#[test]
fn string_table_ids_past_a_partition() {
    let d = ExiOptions::default();
    let l = Limits::default;
    // URI: after a fourth URI the id takes 3 bits; 7 names URI 6 of 4.
    let s = Bits::plain()
        .put(0, 2)
        .string("u")
        .uint(2)
        .chars("a")
        .put(2, 2) // SE(*)
        .put(7, 3)
        .bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "URI id 6 is past the 4 URIs",
    );
    // Local name: URI "" has none yet.
    let s = Bits::plain().put(1, 2).uint(0).bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "local-name id 0 is past the 0 local names",
    );
    // Prefix of an NS event: xsi has "xsi" and "p"; id 2 (code 3) is past.
    let p = opts("prefixes");
    let ns_p = |b: &mut Bits| {
        b.put(2, 3).put(3, 2).put(0, 1).string("p").put(0, 1);
    };
    let mut b = Bits::plain();
    b.root(0, "a");
    ns_p(&mut b);
    b.put(2, 3).put(3, 2).put(3, 2);
    fails(
        &b.bytes(),
        &p,
        l(),
        ErrorKind::Malformed,
        "prefix id 2 is past the 2 prefixes",
    );
    // Prefix of a qualified name: xsi has xsi, p, q; AT(xsi:nil) with prefix id 3.
    let mut b = Bits::plain();
    b.root(0, "a");
    ns_p(&mut b);
    b.put(2, 3).put(3, 2).put(0, 2).string("q").put(0, 1);
    b.put(1, 3).put(3, 2).uint(0).put(0, 1).put(3, 2);
    fails(
        &b.bytes(),
        &p,
        l(),
        ErrorKind::Malformed,
        "prefix id 3 is past the 3 prefixes",
    );
    // Local value: <a> has no values yet.
    let s = Bits::plain().root(0, "a").put(3, 2).uint(0).bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "local value id 0 is past the 0 values",
    );
    // Global value: the table has none.
    let s = Bits::plain().root(0, "a").put(3, 2).uint(1).bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "global value id 0 is past the 0 values",
    );
    // Evicted: capacity 1, "x" then "y" for <a>; local id 0 ("x") is gone.
    let s = Bits::plain()
        .root(0, "a")
        .put(3, 2)
        .uint(3)
        .chars("x")
        .put(1, 1)
        .put(1, 1)
        .uint(3)
        .chars("y")
        .put(0, 2) // CH, learned
        .uint(0)
        .put(0, 1)
        .bytes();
    let cap = opts("value-partition-capacity=1");
    fails(&s, &cap, l(), ErrorKind::Malformed, "evicted");
    // Local id 1 ("y") is still there: the stream then only ends too early (inside <a>).
    let mut b = Bits::plain();
    b.root(0, "a")
        .put(3, 2)
        .uint(3)
        .chars("x")
        .put(1, 1)
        .put(1, 1)
        .uint(3)
        .chars("y");
    b.put(0, 2).uint(0).put(1, 1);
    let e = decode(&b.bytes(), &cap, l()).unwrap_err();
    assert!(e.message().contains("truncated"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Lengths past the input and the limits.

#[test]
fn lengths_past_the_input_or_the_limits() {
    let d = ExiOptions::default();
    let l = Limits::default;
    // A local name of 2^40 characters: past max_string_len before anything is read.
    let s = Bits::plain()
        .put(1, 2)
        .uint((1 << 40) + 1)
        .chars("ab")
        .bytes();
    fails(&s, &d, l(), ErrorKind::Limit, "max_string_len");
    // One of 1000 characters with 2 left: malformed, nothing allocated for it.
    let s = Bits::plain().put(1, 2).uint(1001).chars("ab").bytes();
    let (r, peak, _) = measured(|| decode(&s, &d, l()));
    let e = r.unwrap_err();
    assert!(e.message().contains("longer than"), "{e}");
    well_placed(&e, s.len());
    assert!(peak < 64 << 10, "{peak}");
    // A URI of 2^40 characters, and of 10^6 under tight limits.
    let s = Bits::plain().put(0, 2).uint(1 << 40).bytes();
    fails(&s, &d, l(), ErrorKind::Limit, "max_string_len");
    let s = Bits::plain().put(0, 2).uint(1_000_000).chars("u").bytes();
    fails(&s, &d, tight(), ErrorKind::Limit, "max_string_len");
    // A value of 2^40 characters.
    let s = Bits::plain()
        .root(0, "a")
        .put(3, 2)
        .uint((1 << 40) + 2)
        .bytes();
    fails(&s, &d, l(), ErrorKind::Limit, "max_string_len");
    // A value of 10^5 characters with 1 left.
    let s = Bits::plain()
        .root(0, "a")
        .put(3, 2)
        .uint(100_002)
        .chars("x")
        .bytes();
    fails(&s, &d, l(), ErrorKind::Malformed, "longer than");
    // An unsigned integer of eleven octets.
    let mut b = Bits::plain();
    b.put(1, 2);
    for _ in 0..11 {
        b.put(0xFF, 8);
    }
    fails(&b.bytes(), &d, l(), ErrorKind::Malformed, "64 bits");
    // A comment of 2^40 characters (preserve.comments: DocContent's CM is 1, then 0 bits).
    let s = Bits::plain().put(1, 1).uint(1 << 40).bytes();
    fails(
        &s,
        &opts("comments"),
        l(),
        ErrorKind::Limit,
        "max_string_len",
    );
    // A code point past Unicode.
    let s = Bits::plain().put(1, 2).uint(2).uint(0x11_0000).bytes();
    fails(&s, &d, l(), ErrorKind::Malformed, "Unicode");
    // The header's schemaId of 2^40 characters: common (01), schemaId (10), CH (0).
    let s = Bits::with_options()
        .put(0, 1)
        .put(1, 2)
        .put(2, 2)
        .put(0, 1)
        .uint((1 << 40) + 2)
        .bytes();
    fails(&s, &d, l(), ErrorKind::Malformed, "longer than");
    // Byte-aligned and pre-compression: the same huge local name.
    for a in ["byte-aligned", "pre-compression"] {
        let s = [
            &[0x80u8, 0x01][..],
            &[0x81, 0x80, 0x80, 0x80, 0x80, 0x20],
            b"ab",
        ]
        .concat();
        fails(&s, &opts(a), l(), ErrorKind::Limit, "max_string_len");
    }
}

// ---------------------------------------------------------------------------------------------
// Options headers that contradict themselves.

#[test]
fn contradictory_options_headers() {
    let d = ExiOptions::default();
    let l = Limits::default;
    // header: lesscommon (00); lesscommon: uncommon (00); uncommon: alignment (000), byte (0),
    // end (100); lesscommon: end (10); header: common (00); common: compression (00), end (10);
    // header: end (1).
    let s = Bits::with_options()
        .put(0, 1)
        .put(0, 2)
        .put(0, 2)
        .put(0, 3)
        .put(0, 1)
        .put(4, 3)
        .put(2, 2)
        .put(0, 2)
        .put(0, 2)
        .put(2, 2)
        .put(1, 1)
        .bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "compression together with an alignment",
    );
    // header: lesscommon (00); lesscommon: preserve (01); preserve: comments (011), end (1);
    // lesscommon: end (1); header: strict (01).
    let s = Bits::with_options()
        .put(0, 1)
        .put(0, 2)
        .put(1, 2)
        .put(3, 3)
        .put(1, 1)
        .put(1, 1)
        .put(1, 2)
        .bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "strict cannot be combined",
    );
    // header: lesscommon (00); lesscommon: blockSize (10) = 0; header: end (10).
    let s = Bits::with_options()
        .put(0, 1)
        .put(0, 2)
        .put(2, 2)
        .uint(0)
        .put(2, 2)
        .bytes();
    fails(
        &s,
        &d,
        l(),
        ErrorKind::Malformed,
        "blockSize must be at least 1",
    );
    // The same hand-written headers with the contradiction left out are what the encoder
    // writes: blockSize 5, and comments alone.
    let s5 = Bits::with_options()
        .put(0, 1)
        .put(0, 2)
        .put(2, 2)
        .uint(5)
        .put(2, 2)
        .bytes();
    let ours = binxml_exi::encode_with(
        &binxml_xml::decode(b"<a/>").unwrap(),
        &ExiOptions::default()
            .with_block_size(5)
            .with_include_options(true),
    )
    .unwrap();
    assert_eq!(&ours[..s5.len() - 1], &s5[..s5.len() - 1]);
    // Contradictions given by the caller for a stream without options.
    for bad in [
        ExiOptions::default().with_strict(true).with_comments(true),
        ExiOptions::default().with_block_size(0),
    ] {
        let s = Bits::plain().root(0, "a").put(0, 2).bytes();
        fails(&s, &bad, l(), ErrorKind::Malformed, "EXI header");
    }
    // A version other than 1 and a preview version.
    fails(&[0x81], &d, l(), ErrorKind::Unsupported, "version");
    fails(&[0x90], &d, l(), ErrorKind::Unsupported, "preview");
    fails(
        &[0x40],
        &d,
        l(),
        ErrorKind::Malformed,
        "distinguishing bits",
    );
}

// ---------------------------------------------------------------------------------------------
// Depth and table limits, in every alignment.

const ALIGNMENTS: [Alignment; 4] = [
    Alignment::BitPacked,
    Alignment::ByteAligned,
    Alignment::PreCompression,
    Alignment::Compression,
];

#[test]
fn nesting_past_max_depth() {
    let d = || Event::StartElement(binxml_core::QName::local("d"));
    let mut events = vec![Event::start_document()];
    events.extend((0..1100).map(|_| d()));
    events.extend((0..1100).map(|_| Event::EndElement));
    events.push(Event::EndDocument);
    for a in ALIGNMENTS {
        let o = ExiOptions::default().with_alignment(a);
        let s = binxml_exi::encode_with(&events, &o).unwrap();
        let e = fails(&s, &o, Limits::default(), ErrorKind::Limit, "max_depth");
        assert!(e.message().contains("1024"), "{e}");
        fails(&s, &o, tight(), ErrorKind::Limit, "deeper than 8");
    }
}

#[test]
fn tables_past_max_table_entries() {
    let mut xml = String::from("<r>");
    for i in 0..300 {
        xml.push_str(&format!("<e{} v='{i}'/>", i % 7));
    }
    xml.push_str("</r>");
    let events = binxml_xml::decode(xml.as_bytes()).unwrap();
    for a in ALIGNMENTS {
        let o = ExiOptions::default().with_alignment(a);
        let s = binxml_exi::encode_with(&events, &o).unwrap();
        assert!(decode(&s, &o, Limits::default()).is_ok());
        let lim = Limits::default().with_max_table_entries(100);
        fails(&s, &o, lim, ErrorKind::Limit, "max_table_entries");
    }
}

// ---------------------------------------------------------------------------------------------
// Memory: references that repeat long strings, block structure, DEFLATE bombs.

/// The most a decode of `len` octets may hold: the crate's budget floor (64 MiB of decoded
/// data) plus 16 times the input, as crates/binxml/tests/hostile.rs allows every decoder.
fn allowed(len: usize) -> usize {
    16 * len + (64 << 20)
}

/// What a decode may hold when references repeat strings: the decoded budget
/// (`max_expansion_ratio` x the input, at least 64 MiB) and 16 x the input.
fn within_budget(len: usize) -> usize {
    Limits::default().decoded_budget(len) + 16 * len
}

/// A URI of 20,000 characters, then 20,000 NS events on one start tag declaring it with a new
/// prefix each (about 9 octets each): 180 KB of input whose declarations held 800 MB of copies
/// of the URI. (The same declaration repeated is one declaration.)
#[test]
fn repeated_namespace_declarations_of_a_long_uri() {
    let uri = "u".repeat(20_000);
    let n: usize = 20_000;
    let mut b = Bits::plain();
    b.root(0, "a");
    // NS (010): a new URI, a new prefix, not the element's
    b.put(2, 3).put(0, 2).string(&uri).string("p").put(0, 1);
    for i in 1..n {
        // NS: URI 3 of 4 (3 bits), a new prefix (0 in width(i + 1) bits), not local
        let w = usize::BITS - i.leading_zeros();
        b.put(2, 3)
            .put(4, 3)
            .put(0, w)
            .string(&format!("p{i:05}"))
            .put(0, 1);
    }
    b.put(0, 3); // EE
    let s = b.bytes();
    let (r, peak, took) = measured(|| decode(&s, &opts("prefixes"), Limits::default()));
    eprintln!(
        "{n} NS events on one tag: {} octets, {:?}, peak {peak} bytes, {took:?}",
        s.len(),
        r.as_ref().map_err(|e| e.to_string())
    );
    assert!(
        peak <= within_budget(s.len()),
        "peak {peak} bytes for {} octets",
        s.len()
    );
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    well_placed(&e, s.len());
}

/// An attribute whose name is in a URI of 20,000 characters, then 20,000 more of it on the
/// same start tag (9 bits each: the learned AT code and an empty value).
#[test]
fn repeated_attributes_with_a_long_name() {
    let s = long_name_attributes();
    let (r, peak, took) = measured(|| decode(&s, &ExiOptions::default(), Limits::default()));
    eprintln!(
        "20,001 attributes on one tag: {:?}, peak {peak} bytes, {took:?}",
        r.as_ref().map_err(|e| e.to_string())
    );
    assert!(
        peak <= allowed(s.len()),
        "peak {peak} bytes for {} octets",
        s.len()
    );
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    well_placed(&e, s.len());
}

/// The stream of [`repeated_attributes_with_a_long_name`] (bit-packed).
fn long_name_attributes() -> Vec<u8> {
    let uri = "u".repeat(20_000);
    let mut b = Bits::plain();
    b.root(0, "a");
    // AT(*) (01): a new URI, local name "b", the empty value
    b.put(1, 2)
        .put(0, 2)
        .string(&uri)
        .uint(2)
        .chars("b")
        .uint(2);
    for _ in 0..20_000 {
        // AT(b) learned: 1 of 2 first-level choices (code 0), the empty value
        b.put(0, 1).uint(2);
    }
    b.put(1, 1).put(0, 2); // escape, EE
    b.bytes()
}

/// Compression: one block of 4 million empty elements is 8 MB of structure that DEFLATE
/// packs into 8 KB; the decoder holds a block's structure as events (about 100 octets each)
/// before it reads the block's values, and must stop at the budget (the 64 MiB floor here)
/// with a limit error. Before the fix it held 821 MB.
///
/// Pre-compression: the same 8 MB uncompressed decodes, holding ~100 octets per event of
/// the block (805 MB at the peak): within the budget (1,000 x the input), over the 16 x the
/// input of the workspace's hostile campaign, which the reordered layouts cannot meet while
/// a block's events are held this way. Bounded here at 128 x the input, to catch growth.
#[test]
fn block_structure_of_millions_of_events() {
    let n = 4_000_000;
    let a = || Event::StartElement(binxml_core::QName::local("a"));
    let mut events = vec![Event::start_document(), a()];
    for _ in 0..n {
        events.push(a());
        events.push(Event::EndElement);
    }
    events.push(Event::EndElement);
    events.push(Event::EndDocument);
    for (align, factor) in [
        (Alignment::Compression, 16),
        (Alignment::PreCompression, 128),
    ] {
        let o = ExiOptions::default().with_alignment(align);
        let s = binxml_exi::encode_with(&events, &o).unwrap();
        let (r, peak, took) = measured(|| decode(&s, &o, Limits::default()));
        eprintln!(
            "{}: {} octets: {:?}, peak {peak} bytes, {took:?}",
            align.name(),
            s.len(),
            r.as_ref().map_err(|e| e.to_string())
        );
        assert!(
            peak <= factor * s.len() + (64 << 20),
            "{}: peak {peak} bytes for {} octets",
            align.name(),
            s.len()
        );
        match r {
            Err(e) => {
                assert_eq!(align, Alignment::Compression, "{e}");
                assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
                assert!(e.message().contains("structure of one block"), "{e}");
                well_placed(&e, s.len());
            }
            Ok(k) => {
                assert_eq!(align, Alignment::PreCompression);
                assert_eq!(k, 2 * n + 5);
            }
        }
    }
}

/// `n` zero octets as raw DEFLATE, made a megabyte at a time.
fn deflated_zeros(n: usize) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len());
        z.write_all(&chunk[..k]).unwrap();
        left -= k;
    }
    z.finish().unwrap()
}

/// A DEFLATE bomb in compression mode: the structure stream inflates to far more than the
/// budget (64 MiB, the floor, for these inputs): the decoder stops there with a limit error,
/// fast, without holding much more than the budget.
#[test]
fn deflate_bomb() {
    let o = ExiOptions::default().with_alignment(Alignment::Compression);
    // 1 GiB of zeros in ~1 MB: under a ratio of 10 the budget is the 64 MiB floor.
    let bomb = [&[0x80u8][..], &deflated_zeros(1 << 30)].concat();
    let ratio10 = Limits::default().with_max_expansion_ratio(10);
    // 80 MiB of zeros in ~80 KB: with the default limits the budget is the floor too.
    let small = [&[0x80u8][..], &deflated_zeros(80 << 20)].concat();
    for (what, s, limits) in [
        ("1 GiB bomb, ratio 10", &bomb, ratio10),
        ("80 MiB bomb, default limits", &small, Limits::default()),
    ] {
        let (r, peak, took) = measured(|| decode(s, &o, limits));
        let e = r.unwrap_err();
        eprintln!(
            "{what}: {} octets: {e}; peak {peak} bytes, {took:?}",
            s.len()
        );
        assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
        assert!(e.message().contains("max_expansion_ratio"), "{e}");
        well_placed(&e, s.len());
        assert!(
            peak <= 2 * (64 << 20) + 16 * s.len(),
            "{what}: peak {peak} bytes"
        );
        assert!(took < Duration::from_secs(5), "{what}: {took:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations and the fuzzers' inputs.

/// The mutation engine of `binxml-testkit` over the seeds of every option set (as
/// crates/binxml/tests/hostile.rs does for every format with its default options):
/// `BINXML_EXI_MUTATIONS` inputs in all (default 16,000), each decoded with the options its
/// seed was written with. No panic, no decode over a second, memory within 16 x the input +
/// 64 MiB, every error placed.
#[test]
fn mutated_streams_in_every_option_set() {
    let total: usize = std::env::var("BINXML_EXI_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16_000);
    let all = seeds();
    let sets = selectors();
    let per_set = total.div_ceil(sets.len());
    let (mut ok, mut err) = (0usize, 0usize);
    let mut slowest = Duration::ZERO;
    for sel in sets {
        let group: Vec<Vec<u8>> = all
            .iter()
            .filter(|(s, _, _)| *s == sel)
            .map(|(_, _, b)| b.clone())
            .collect();
        let (o, _) = from_selector(sel);
        let given = if o.include_options {
            ExiOptions::default()
        } else {
            o.clone()
        };
        let mut rng = binxml_testkit::mutate::Rng(
            0x9E37_79B9_7F4A_7C15 ^ u64::from_le_bytes([sel[0], sel[1], sel[2], 1, 0, 0, 0, 0]),
        );
        for i in 0..per_set {
            let input = binxml_testkit::mutate::mutate(&mut rng, &group);
            let (r, peak, took) =
                measured(|| std::panic::catch_unwind(|| decode(&input, &given, Limits::default())));
            let r = r.unwrap_or_else(|_| panic!("{sel:?} #{i} panics: {input:02x?}"));
            slowest = slowest.max(took);
            assert!(took < Duration::from_secs(1), "{sel:?} #{i}: {took:?}");
            assert!(
                peak <= allowed(input.len()),
                "{sel:?} #{i}: {peak} bytes for {} octets",
                input.len()
            );
            match r {
                Ok(_) => ok += 1,
                Err(e) => {
                    err += 1;
                    well_placed(&e, input.len());
                }
            }
        }
    }
    eprintln!(
        "{} mutated streams: {ok} decoded, {err} rejected, slowest {slowest:?}",
        ok + err
    );
}

/// Inputs of the `decode_exi` fuzz target kept in `tests/regressions/decode_exi/` (three
/// selector octets, then the stream): decoded as the target does, no panic, memory within
/// 16 x the input + 64 MiB, every error placed.
#[test]
fn fuzz_regressions() {
    let dir = binxml_testkit::workspace_root().join("tests/regressions/decode_exi");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let Some((sel, input)) = data.split_first_chunk::<3>() else {
            continue;
        };
        let (o, tight_limits) = from_selector(*sel);
        let limits = if tight_limits {
            tight()
        } else {
            Limits::default()
        };
        let (r, peak, took) = measured(|| std::panic::catch_unwind(|| decode(input, &o, limits)));
        let r = r.unwrap_or_else(|_| panic!("{} panics", path.display()));
        assert!(
            took < Duration::from_secs(1),
            "{}: {took:?}",
            path.display()
        );
        assert!(
            peak <= allowed(input.len()),
            "{}: {peak} bytes",
            path.display()
        );
        if let Err(e) = r {
            well_placed(&e, input.len());
        }
        n += 1;
    }
    assert!(n >= 1);
    eprintln!("{n} regression inputs");
}

// ---------------------------------------------------------------------------------------------
// Time.

/// A root with `k` attributes in `k` namespaces and `m` children, each with an attribute in
/// the root's first namespace: without `preserve.prefixes` the decoder looks the prefix of
/// each name's URI up in the declarations in scope.
fn many_namespaces(k: usize, m: usize) -> Vec<Event<'static>> {
    use binxml_core::QName;
    let uri = |i: usize| format!("urn:{i:07}");
    let mut ev = vec![
        Event::start_document(),
        Event::StartElement(QName::local("r")),
    ];
    for i in 0..k {
        ev.push(Event::Namespace {
            prefix: format!("p{i}").into(),
            uri: uri(i).into(),
        });
    }
    for i in 0..k {
        ev.push(Event::Attribute {
            name: QName::new(format!("p{i}"), uri(i), "a"),
            value: "".into(),
        });
    }
    for _ in 0..m {
        ev.push(Event::StartElement(QName::local("c")));
        ev.push(Event::Attribute {
            name: QName::new("p0", uri(0), "a"),
            value: "".into(),
        });
        ev.push(Event::EndElement);
    }
    ev.push(Event::EndElement);
    ev.push(Event::EndDocument);
    ev
}

/// Decoding time must grow with the input, not with its square.
#[test]
fn prefix_lookups_in_a_wide_scope() {
    let mut times = Vec::new();
    for (k, m) in [(5_000, 20_000), (20_000, 80_000)] {
        let s = binxml_exi::encode(&many_namespaces(k, m)).unwrap();
        // The best of three: one run can be stretched by a busy machine, and a quadratic
        // lookup shows in every run.
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let (r, _, took) = measured(|| decode(&s, &ExiOptions::default(), Limits::default()));
            eprintln!(
                "{k} namespaces, {m} children: {} octets, {r:?}, {took:?}",
                s.len()
            );
            r.unwrap();
            best = best.min(took);
        }
        times.push((s.len(), best));
    }
    let (small, large) = (times[0], times[1]);
    let grew = large.1.as_secs_f64() / small.1.as_secs_f64().max(1e-4);
    let input = large.0 as f64 / small.0 as f64;
    assert!(
        grew < 3.0 * input,
        "input x{input:.1}, time x{grew:.1}: {times:?}"
    );
}

/// Compression with one value per block: a DEFLATE stream per block. Decoding time must stay
/// in proportion to the input (each inflation once reserved up to 1 MiB up front).
#[test]
fn many_small_compressed_blocks() {
    use binxml_core::QName;
    let mut times = Vec::new();
    for n in [10_000, 40_000] {
        let mut ev = vec![
            Event::start_document(),
            Event::StartElement(QName::local("r")),
        ];
        for i in 0..n {
            ev.push(Event::StartElement(QName::local("a")));
            ev.push(Event::Characters {
                text: format!("{}", i % 97).into(),
                cdata: false,
            });
            ev.push(Event::EndElement);
        }
        ev.push(Event::EndElement);
        ev.push(Event::EndDocument);
        let o = ExiOptions::default()
            .with_alignment(Alignment::Compression)
            .with_block_size(1);
        let s = binxml_exi::encode_with(&ev, &o).unwrap();
        let (r, peak, took) = measured(|| decode(&s, &o, Limits::default()));
        eprintln!(
            "{n} one-value blocks: {} octets, {r:?}, peak {peak}, {took:?}",
            s.len()
        );
        assert_eq!(r.unwrap(), 3 * n + 5);
        times.push((s.len(), took));
    }
    let grew = times[1].1.as_secs_f64() / times[0].1.as_secs_f64().max(1e-4);
    let input = times[1].0 as f64 / times[0].0 as f64;
    assert!(
        grew < 3.0 * input,
        "input x{input:.1}, time x{grew:.1}: {times:?}"
    );
}

/// `decode_exi` (`tests/regressions/decode_exi/sc-after-an-attribute`, a nested self-contained
/// element): the open tag's prefix, an entry of the outer string table, was looked up in the
/// fragment's fresh table when SC was handed on (index out of bounds, or another prefix's
/// text). A valid stream does it too: a prefixed element whose prefix the table knows, written
/// self-contained with preserve.prefixes.
#[test]
fn self_contained_element_with_a_known_prefix() {
    let xml = br#"<p:r xmlns:p="urn:p"><p:e a="1"/><p:e a="2"><p:e/></p:e></p:r>"#;
    let events = binxml_xml::decode(xml).unwrap();
    for align in [Alignment::BitPacked, Alignment::ByteAligned] {
        let o = ExiOptions::default()
            .with_alignment(align)
            .with_prefixes(true)
            .with_self_contained_elements(["{urn:p}e"]);
        let bytes = binxml_exi::encode_with(&events, &o).unwrap();
        let back = binxml_exi::decode_with(&bytes, &o).unwrap();
        let out = String::from_utf8(binxml_xml::encode(&back).unwrap()).unwrap();
        // (each self-contained element repeats its declaration)
        assert_eq!(out.matches("<p:e xmlns:p=\"urn:p\"").count(), 3, "{out}");
        assert!(out.ends_with("</p:e></p:r>"), "{out}");
    }
}

/// Known, found by `roundtrip_exi` (kept as `tests/regressions/roundtrip_exi/`): with
/// preserve.prefixes, a name inside a self-contained element whose prefix is declared outside
/// it comes back without its prefix: the fragment's fresh string table has no prefix for the
/// URI, and the encoder writes no NS event for it (only for the self-contained element's own
/// prefix), so the decoder has none to give. Ignored until the encoder (or the decoder) keeps
/// it; `roundtrip_exi` compares such names without prefixes meanwhile.
#[test]
#[ignore = "known: prefixes declared outside a self-contained element are lost inside it"]
fn prefix_declared_outside_a_self_contained_element() {
    let xml = br#"<r xmlns:p="urn:p"><item><p:x/></item></r>"#;
    let events = binxml_xml::decode(xml).unwrap();
    let o = ExiOptions::default()
        .with_prefixes(true)
        .with_self_contained_elements(["item"]);
    let bytes = binxml_exi::encode_with(&events, &o).unwrap();
    let back = binxml_exi::decode_with(&bytes, &o).unwrap();
    let x = back
        .iter()
        .find_map(|e| match e {
            Event::StartElement(q) if q.local == "x" => Some(q.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!((&*x.prefix, &*x.namespace), ("p", "urn:p"));
}

// ---------------------------------------------------------------------------------------------
// A reused decoder (`ExiDecoder::reset`, `ExiDecoder::recycle`).

/// One decoder, reset from stream to stream, meets each hostile stream as a new decoder does:
/// the same events or the same error at the same offset, its limits counted for that stream
/// only (the decoded-size budget from its own length; depth and table entries from zero),
/// after streams that grew its tables, failed part way, used up their budget or inflated to
/// it.
#[test]
fn reused_decoder_keeps_the_limits() {
    let compression = ExiOptions::default().with_alignment(Alignment::Compression);
    // 70 MiB of zeros (past the 64 MiB budget floor of a small input, within a ratio of 100
    // for the 40 MiB one's ~40 KB, whose budget is the floor as well): a limit error each.
    let bomb = [&[0x80u8][..], &deflated_zeros(70 << 20)].concat();
    let deep = {
        let d = || Event::StartElement(binxml_core::QName::local("d"));
        let mut events = vec![Event::start_document()];
        events.extend((0..40).map(|_| d()));
        events.extend((0..40).map(|_| Event::EndElement));
        events.push(Event::EndDocument);
        events
    };
    let wide = {
        let mut xml = String::from("<r>");
        for i in 0..300 {
            xml.push_str(&format!("<e{} v='{i}'/>", i % 7));
        }
        xml.push_str("</r>");
        binxml_xml::decode(xml.as_bytes()).unwrap()
    };
    let docs: Vec<Vec<Event<'static>>> = seed_documents().into_iter().map(|(_, e)| e).collect();
    // (stream, options) in the order the decoder meets them.
    let mut inputs: Vec<(Vec<u8>, ExiOptions)> = Vec::new();
    for align in ALIGNMENTS {
        let o = ExiOptions::default().with_alignment(align);
        for events in [&docs[0], &deep, &wide, &docs[1], &wide, &deep] {
            let s = binxml_exi::encode_with(events, &o).unwrap();
            inputs.push((s[..s.len() * 3 / 4].to_vec(), o.clone()));
            inputs.push((s, o.clone()));
        }
    }
    // Decoded to the budget (400 MB of names from the table), then a document.
    let bit_packed = ExiOptions::default();
    inputs.push((long_name_attributes(), bit_packed.clone()));
    inputs.push((
        binxml_exi::encode_with(&docs[2], &bit_packed).unwrap(),
        bit_packed,
    ));
    inputs.push((bomb.clone(), compression.clone()));
    inputs.push((
        binxml_exi::encode_with(&docs[2], &compression).unwrap(),
        compression.clone(),
    ));
    inputs.push((bomb, compression.clone()));
    let limits = [
        Limits::default(),
        tight(),
        Limits::default().with_max_table_entries(100),
        Limits::default().with_max_depth(30),
    ];
    for lim in limits {
        let mut failures = 0;
        for align in ALIGNMENTS {
            let o = ExiOptions::default().with_alignment(align);
            let mut d = ExiDecoder::with_options(&[], o.clone(), lim.clone());
            for (s, so) in inputs.iter().filter(|(_, so)| so.alignment == o.alignment) {
                let fresh = decode(s, so, lim.clone()).map_err(|e| e.to_string());
                failures += usize::from(fresh.is_err());
                d.reset(s);
                let mut n = 0;
                let reused = loop {
                    match d.next_event() {
                        Ok(Some(_)) => n += 1,
                        Ok(None) => break Ok(n),
                        Err(e) => break Err(e.to_string()),
                    }
                };
                assert_eq!(reused, fresh, "{} octets, {lim:?}", s.len());
            }
        }
        assert!(failures >= 6, "{lim:?}: {failures} failures");
    }
}
