//! The TSF paper's Tables 15-18 (Evans 2020): TSF -> TAM against libexpat on the paper's nine
//! files, in one process, runs interleaved, best CPU time of each. Needs libexpat (Debian
//! `libexpat1-dev`):
//!
//! `cargo run --release -p binxml-bench --features expat --example tsf_vs_expat`
//!
//! "expat-tree" builds a stripped-down DOM from the SAX callbacks (one allocation per node for
//! its strings, as the paper's driver); "expat-empty" parses with empty handlers. Run by
//! `scripts/bench` (full mode) beside the main harness, whose libexpat peer is the reference.

use binxml_core::transcode;
use std::ffi::{CStr, c_char, c_int, c_void};

#[repr(C)]
struct Timespec {
    s: i64,
    ns: i64,
}
#[link(name = "expat")]
unsafe extern "C" {
    fn clock_gettime(c: i32, t: *mut Timespec) -> i32;
    fn XML_ParserCreate(enc: *const c_char) -> *mut c_void;
    fn XML_ParserFree(p: *mut c_void);
    fn XML_SetUserData(p: *mut c_void, d: *mut c_void);
    fn XML_SetElementHandler(
        p: *mut c_void,
        s: Option<unsafe extern "C" fn(*mut c_void, *const c_char, *mut *const c_char)>,
        e: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    );
    fn XML_SetCharacterDataHandler(
        p: *mut c_void,
        h: Option<unsafe extern "C" fn(*mut c_void, *const c_char, c_int)>,
    );
    fn XML_SetCommentHandler(
        p: *mut c_void,
        h: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    );
    fn XML_Parse(p: *mut c_void, s: *const c_char, len: c_int, fin: c_int) -> c_int;
}
fn cpu() -> f64 {
    let mut t = Timespec { s: 0, ns: 0 };
    // SAFETY: CLOCK_PROCESS_CPUTIME_ID (2) and a valid pointer to a `timespec`-shaped struct.
    unsafe { clock_gettime(2, &mut t) };
    t.s as f64 * 1e6 + t.ns as f64 / 1e3
}

/// A stripped-down DOM: one allocation per node for its strings (as the paper's driver).
#[allow(dead_code)] // the strings are kept, as a DOM keeps them
struct Node {
    parent: usize,
    kids: Vec<usize>,
    data: Box<[u8]>,
    nattr: usize,
}
struct Tree {
    nodes: Vec<Node>,
    cur: usize,
}
/// Callbacks: `u` is the `Tree` that `expat` registered as user data (alive and not otherwise
/// borrowed during `XML_Parse`); the strings are expat's, NUL-terminated or with their length.
unsafe extern "C" fn st(u: *mut c_void, name: *const c_char, atts: *mut *const c_char) {
    // SAFETY: `u` is the parser's user data, the `Tree` of `expat`, borrowed nowhere else.
    let t = unsafe { &mut *(u as *mut Tree) };
    let mut buf = Vec::new();
    // SAFETY: expat passes the element name NUL-terminated.
    buf.extend_from_slice(unsafe { CStr::from_ptr(name) }.to_bytes_with_nul());
    let mut i = 0;
    let mut n = 0;
    // SAFETY: `atts` is expat's NULL-terminated array of NUL-terminated names and values.
    unsafe {
        while !(*atts.add(i)).is_null() {
            buf.extend_from_slice(CStr::from_ptr(*atts.add(i)).to_bytes_with_nul());
            i += 1;
            if i % 2 == 0 {
                n += 1;
            }
        }
    }
    let id = t.nodes.len();
    t.nodes.push(Node {
        parent: t.cur,
        kids: Vec::new(),
        data: buf.into_boxed_slice(),
        nattr: n,
    });
    let c = t.cur;
    if c != usize::MAX {
        t.nodes[c].kids.push(id);
    }
    t.cur = id;
}
unsafe extern "C" fn en(u: *mut c_void, _: *const c_char) {
    // SAFETY: as in `st`.
    let t = unsafe { &mut *(u as *mut Tree) };
    t.cur = t.nodes[t.cur].parent;
}
unsafe extern "C" fn ch(u: *mut c_void, s: *const c_char, len: c_int) {
    // SAFETY: as in `st`.
    let t = unsafe { &mut *(u as *mut Tree) };
    if t.cur == usize::MAX {
        return;
    }
    let data: Box<[u8]> =
        // SAFETY: expat passes `len` valid octets at `s`.
        unsafe { std::slice::from_raw_parts(s as *const u8, len as usize) }.into();
    let id = t.nodes.len();
    t.nodes.push(Node {
        parent: t.cur,
        kids: Vec::new(),
        data,
        nattr: 0,
    });
    let c = t.cur;
    t.nodes[c].kids.push(id);
}
unsafe extern "C" fn cm(u: *mut c_void, s: *const c_char) {
    // SAFETY: expat passes the comment NUL-terminated; `u` as in `st`.
    unsafe { ch(u, s, CStr::from_ptr(s).to_bytes().len() as c_int) }
}
unsafe extern "C" fn est(_: *mut c_void, _: *const c_char, _: *mut *const c_char) {}
unsafe extern "C" fn een(_: *mut c_void, _: *const c_char) {}
unsafe extern "C" fn ech(_: *mut c_void, _: *const c_char, _: c_int) {}

fn expat(xml: &[u8], tree: bool) -> usize {
    // SAFETY: the parser is created, used and freed here; the user data `t` outlives the
    // parse, and the handlers match expat's callback signatures; `xml` is valid for its length.
    unsafe {
        let p = XML_ParserCreate(std::ptr::null());
        let mut t = Tree {
            nodes: Vec::new(),
            cur: usize::MAX,
        };
        if tree {
            XML_SetUserData(p, &mut t as *mut Tree as *mut c_void);
            XML_SetElementHandler(p, Some(st), Some(en));
            XML_SetCharacterDataHandler(p, Some(ch));
            XML_SetCommentHandler(p, Some(cm));
        } else {
            XML_SetElementHandler(p, Some(est), Some(een));
            XML_SetCharacterDataHandler(p, Some(ech));
        }
        assert_eq!(
            XML_Parse(p, xml.as_ptr() as *const c_char, xml.len() as c_int, 1),
            1
        );
        XML_ParserFree(p);
        t.nodes.len() + t.nodes.iter().map(|n| n.nattr).sum::<usize>()
    }
}

fn main() {
    let files = [
        "future001.xml",
        "bpmnxpdl_40a.xsd.xml",
        "eric.map.osm.xml",
        "cshl.map.osm.xml",
        "sccc.map.osm.xml",
        "British_Royal_Family_Tree.xhtml",
        "csh_lirr_osm.xml",
        "exoplanet_catalog.vot.xml",
        "LARGEbasicXML.xml",
    ];
    let (mut ft, mut fe) = (0.0, 0.0);
    println!(
        "{:<32} {:>10} {:>10} {:>10} {:>7} {:>7}",
        "file", "expat-tree", "expat-empty", "TSF->TAM", "x tree", "x empty"
    );
    for f in files {
        let xml = std::fs::read(binxml_testkit::corpus_dir().join("tsf_paper").join(f)).unwrap();
        let mut enc = binxml_tsf::TsfEncoder::new(Vec::new());
        transcode(
            &mut binxml_xml::XmlDecoder::new(&binxml_xml::to_utf8(&xml).unwrap()),
            &mut enc,
        )
        .unwrap();
        let tsf = enc.into_inner();
        let (mut a, mut b, mut c) = (f64::MAX, f64::MAX, f64::MAX);
        let rounds = if xml.len() > 1_000_000 { 30 } else { 150 };
        for _ in 0..rounds {
            let t = cpu();
            std::hint::black_box(expat(&xml, true));
            a = a.min(cpu() - t);
            let t = cpu();
            std::hint::black_box(expat(&xml, false));
            b = b.min(cpu() - t);
            let t = cpu();
            std::hint::black_box(binxml_tsf::Tam::parse(&tsf).unwrap().len());
            c = c.min(cpu() - t);
        }
        ft += a / c;
        fe += b / c;
        println!(
            "{f:<32} {a:>10.0} {b:>10.0} {c:>10.0} {:>7.1} {:>7.1}",
            a / c,
            b / c
        );
    }
    println!(
        "mean factor: {:.1} vs expat building a tree, {:.1} vs expat with empty handlers",
        ft / 9.0,
        fe / 9.0
    );
}
