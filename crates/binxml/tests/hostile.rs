//! The mutation campaign: valid encodings of corpus documents in every format, damaged by bit
//! flips, truncations, splices, duplicated chunks and overwritten bytes, must each decode to the
//! end or fail with an error: no panic, no decode longer than one second, and no peak memory
//! above 16 x the input + 64 MiB (measured by a counting allocator).
//!
//! `BINXML_MUTATIONS` sets the number of mutated inputs per format (default 10,000). Inputs that
//! fail are written to `target/test-scratch/hostile/` to be kept as regression tests.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use binxml::{DecodeOptions, Decoder, Format};
use binxml_testkit::mutate::{Rng, mutate};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is handed to `System` with the caller's pointer, layout and size
// unchanged, so `System` upholds the `GlobalAlloc` contract for us; the bookkeeping is atomic
// counters updated only after `System` succeeded (no overflow: they count live bytes), which
// neither allocate nor unwind.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: our caller guarantees what `System.alloc` requires (a non-zero size).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: our caller guarantees that `ptr` came from this allocator with `layout`, and
        // this allocator's memory is `System`'s, allocated with the same layout.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: our caller guarantees that `ptr` is this allocator's (so `System`'s) with
        // `layout`, and that `new_size` is non-zero and valid for its alignment.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                    - layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Set while a mutated input is decoded: the panic hook stays quiet then.
static QUIET_PANICS: AtomicBool = AtomicBool::new(false);

/// Small corpus documents (and the example) to damage.
fn seed_documents() -> Vec<Vec<u8>> {
    let mut docs: Vec<Vec<u8>> = binxml_testkit::corpus_xml_files()
        .into_iter()
        .filter_map(|p| {
            let len = std::fs::metadata(&p).ok()?.len();
            (len < 12_000).then(|| std::fs::read(&p).ok()).flatten()
        })
        .take(8)
        .collect();
    docs.push(
        std::fs::read(binxml_testkit::workspace_root().join("examples/invoice.xml")).unwrap(),
    );
    docs
}

fn decode_all(format: Format, input: &[u8]) -> Result<usize, String> {
    let mut dec = binxml::AnyDecoder::new(format, input, &DecodeOptions::default())
        .map_err(|e| e.to_string())?;
    let mut n = 0;
    while dec.next_event().map_err(|e| e.to_string())?.is_some() {
        n += 1;
        if n > 50_000_000 {
            return Err("more than 50 million events".into());
        }
    }
    Ok(n)
}

#[test]
fn mutated_inputs_never_panic_hang_or_balloon() {
    let per_format: usize = std::env::var("BINXML_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let out_dir = binxml_testkit::scratch_dir("hostile");
    // The seeds first, while panics still print: a missing corpus says so.
    let docs = seed_documents();
    // Panics of the decoders under test are caught and counted, quietly; any other panic (an
    // assertion of this test) prints as usual.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !QUIET_PANICS.load(Ordering::SeqCst) {
            default_hook(info)
        }
    }));
    // A watchdog: a decode that runs for 20 s is a hang; abort with the evidence on disk.
    let started = std::sync::Arc::new(AtomicU64::new(0));
    let busy = std::sync::Arc::new(AtomicBool::new(false));
    {
        let (started, busy) = (started.clone(), busy.clone());
        let epoch = Instant::now();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                if busy.load(Ordering::SeqCst) {
                    let s = started.load(Ordering::SeqCst);
                    if epoch.elapsed().as_millis() as u64 - s > 20_000 {
                        eprintln!(
                            "a decode hung for 20 s; its input is target/test-scratch/hostile/current.bin"
                        );
                        std::process::abort();
                    }
                }
            }
        });
    }
    let epoch = Instant::now();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    for &format in Format::ALL {
        let seeds: Vec<Vec<u8>> = docs
            .iter()
            .filter_map(|d| binxml::convert(d, Some(Format::Xml), format).ok())
            .collect();
        if format != Format::Json {
            assert!(
                seeds.len() >= docs.len() - 1,
                "{format}: too few seed encodings"
            );
        }
        let seeds = if seeds.is_empty() {
            // JSON carries only JSON-shaped events: use JSON texts.
            vec![
                br#"{"a":[1,2.5e3,true,null,"x\u00e9"],"b":{"c":"d"}}"#.to_vec(),
                b"[[[[1]]],{\"k\":-0.0}]".to_vec(),
            ]
        } else {
            seeds
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ format.name().len() as u64);
        let (mut ok, mut err) = (0usize, 0usize);
        let mut slowest = Duration::ZERO;
        for i in 0..per_format {
            let input = mutate(&mut rng, &seeds);
            std::fs::write(out_dir.join("current.bin"), &input).ok();
            let before = CURRENT.load(Ordering::SeqCst);
            PEAK.store(before, Ordering::SeqCst);
            started.store(epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
            busy.store(true, Ordering::SeqCst);
            let t = Instant::now();
            QUIET_PANICS.store(true, Ordering::SeqCst);
            let r = std::panic::catch_unwind(|| decode_all(format, &input));
            QUIET_PANICS.store(false, Ordering::SeqCst);
            let took = t.elapsed();
            busy.store(false, Ordering::SeqCst);
            let peak = PEAK.load(Ordering::SeqCst).saturating_sub(before);
            slowest = slowest.max(took);
            let budget = 16 * input.len() + (64 << 20);
            let problem = match &r {
                Err(p) => Some(format!(
                    "panic: {}",
                    p.downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_default()
                )),
                Ok(_) if took > Duration::from_secs(1) => Some(format!("took {took:?}")),
                Ok(_) if peak > budget => Some(format!(
                    "peak memory {peak} bytes for {} input bytes",
                    input.len()
                )),
                Ok(Ok(_)) => {
                    ok += 1;
                    None
                }
                Ok(Err(e)) => {
                    err += 1;
                    if !e.contains(" at byte ") && !e.contains(" at event ") {
                        Some(format!("error without a position: {e}"))
                    } else {
                        None
                    }
                }
            };
            if let Some(p) = problem {
                let path = out_dir.join(format!("{}-{i}.bin", format.name()));
                std::fs::write(&path, &input).unwrap();
                failures.push(format!("{format} #{i}: {p} ({})", path.display()));
            }
        }
        summary.push(format!(
            "{format}: {per_format} inputs, {ok} decoded, {err} rejected, slowest {slowest:?}"
        ));
    }
    let _ = std::fs::remove_file(out_dir.join("current.bin"));
    eprintln!("{}", summary.join("\n"));
    let shown: Vec<_> = failures.iter().take(40).cloned().collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        shown.join("\n")
    );
}
