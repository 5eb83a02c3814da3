//! Nested elements that each claim 16000 children but hold one: the decoder's memory grows
//! with what the input holds, not with the counts it claims. A counting allocator measures
//! the peak (this file holds one test so that nothing else allocates meanwhile).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use binxml_asn1::{Rule, decode};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every allocation and deallocation is done by `System` with the caller's pointer and
// layout unchanged, so `System` upholds the `GlobalAlloc` contract for us. The bookkeeping, two
// atomic counters, neither allocates nor unwinds: `NOW` is at most the live bytes plus one
// request `System` refused (the test aborts then), each below `isize::MAX`, so `+` cannot
// overflow.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(n, Relaxed);
        // SAFETY: our caller guarantees what `System.alloc` requires (`l` has a non-zero size).
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        // SAFETY: our caller guarantees that `p` came from this allocator with layout `l`, and
        // this allocator's memory is `System`'s, allocated with the same layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

struct Bits(Vec<u8>, u32);
impl Bits {
    fn put(&mut self, v: u64, n: u32) {
        for i in (0..n).rev() {
            if self.1 & 7 == 0 {
                self.0.push(0);
            }
            if (v >> i) & 1 == 1 {
                *self.0.last_mut().unwrap() |= 0x80 >> (self.1 % 8);
            }
            self.1 += 1;
        }
    }
}

#[test]
fn claimed_counts_do_not_reserve_memory() {
    let depth = 1000;
    let mut b = Bits(vec![], 0);
    b.put(0, 3); // Document: no base-URI, standalone, version
    b.put(1, 8); // one child
    b.put(0, 2); // element
    for level in 0..depth {
        b.put(0, 3); // no attributes, namespace attributes, base-URI
        b.put(0, 1); // name: SEQUENCE
        b.put(0, 2); // no namespace, no prefix
        b.put(0, 1); // local-name: NCName
        b.put(1, 8);
        b.put(b'd' as u64, 8);
        b.put(1, 1); // children: SEQUENCE OF
        if level + 1 < depth {
            b.put(1, 1); // count outside the root
            b.put(0x8000 | 16000, 16); // claims 16000 children
            b.put(0, 3); // first child: element
        } else {
            b.put(0, 3); // root range, 0 children
            b.put(1, 1); // in-scope: same-as-parent-element
        }
    }
    let bytes = b.0;
    let before = NOW.load(Relaxed);
    PEAK.store(before, Relaxed);
    let e = decode(&bytes, Rule::Uper).unwrap_err();
    let peak = PEAK.load(Relaxed) - before;
    assert!(e.offset().is_some(), "{e}");
    assert!(
        peak < 32 << 20,
        "peak {peak} bytes for {} bytes of input",
        bytes.len()
    );
}
