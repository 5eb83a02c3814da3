//! Allocation counts: the streaming decoder allocates only its small stacks, the TAM only its
//! arena, whatever the document's size; strings are borrowed from the input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use binxml_core::{Decoder, Event, transcode};
use binxml_tsf::{Tam, TsfDecoder, TsfEncoder};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is handed to `System` with the caller's pointer, layout and size
// unchanged, so `System` upholds the `GlobalAlloc` contract for us; counting is one atomic
// add, which neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: our caller guarantees what `System.alloc` requires (`l` has a non-zero size).
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: our caller guarantees that `p` came from this allocator with layout `l`, and
        // this allocator's memory is `System`'s, allocated with the same layout.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: our caller guarantees that `p` is this allocator's (so `System`'s) with layout
        // `l`, and that `n` is non-zero and valid for `l`'s alignment, as `System.realloc` needs.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn tsf_of(path: &str) -> Vec<u8> {
    let xml = binxml_testkit::read_corpus_file(path);
    let utf8 = binxml_xml::to_utf8(&xml).unwrap().into_owned();
    let mut enc = TsfEncoder::new(Vec::new());
    transcode(&mut binxml_xml::XmlDecoder::new(&utf8), &mut enc).unwrap();
    enc.into_inner()
}

#[allow(clippy::ptr_arg)] // it inspects the Cow itself
fn borrowed(s: &Cow<'_, str>) -> bool {
    matches!(s, Cow::Borrowed(_))
}

#[test]
fn decoding_allocates_only_stacks_and_borrows_every_string() {
    // One test function: the counter is global and tests run in parallel threads otherwise.
    let paths: &[&str] = match binxml_testkit::corpus_kind() {
        binxml_testkit::CorpusKind::Shared => &[
            "tsf_paper/LARGEbasicXML.xml",
            "tsf_paper/exoplanet_catalog.vot.xml",
            "tsf_paper/csh_lirr_osm.xml",
        ],
        binxml_testkit::CorpusKind::Small => &["gen/table_invoices.xml", "gen/distinct_values.xml"],
    };
    for &path in paths {
        let tsf = tsf_of(path);

        let before = ALLOCS.load(Ordering::Relaxed);
        let mut d = TsfDecoder::new(&tsf);
        let mut events = 0usize;
        while let Some(ev) = d.next_event().unwrap() {
            events += 1;
            let ok = match &ev {
                Event::StartElement(q) => {
                    borrowed(&q.prefix) && borrowed(&q.local) && borrowed(&q.namespace)
                }
                Event::Attribute { name, value } => {
                    borrowed(&name.local) && borrowed(&name.namespace) && borrowed(value)
                }
                Event::Characters { text, .. } => borrowed(text),
                Event::Comment(c) => borrowed(c),
                _ => true,
            };
            assert!(ok, "{path}: an owned string in {ev:?}");
        }
        let n = ALLOCS.load(Ordering::Relaxed) - before;
        assert!(events > 10_000);
        assert!(
            n < 40,
            "{path}: the streaming decoder made {n} allocations for {events} events"
        );

        let before = ALLOCS.load(Ordering::Relaxed);
        let tam = Tam::parse(&tsf).unwrap();
        let n = ALLOCS.load(Ordering::Relaxed) - before;
        assert!(
            n <= 8,
            "{path}: Tam::parse made {n} allocations for {} units",
            tam.len()
        );
        eprintln!(
            "{path}: {events} events, Tam::parse {n} allocations for {} units",
            tam.len()
        );
        let v = tam
            .root()
            .unwrap()
            .descendants()
            .filter(|n| n.kind() == binxml_tsf::UnitKind::Attribute)
            .map(|a| a.value())
            .next();
        if let Some(v) = v {
            assert!(tsf.as_ptr_range().contains(&v.as_ptr()));
        }
    }
}
