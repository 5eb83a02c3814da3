//! The bench harness's encoding stage for the FI encoder alone (bench/src/speed.rs with
//! bench/src/measure.rs `time_many`): every corpus document (or the files given), its events
//! from the XML decoder borrowing from the document, each document encoded `64 KB / size`
//! times in a row (1 to 64) per pass, 5 passes after a warm-up pass, a document's time its
//! median; the ways of calling the encoder below run interleaved, pass by pass.
//!
//! Ways: `fresh` (as the bench did: `Box<dyn Encoder>` over a `Box<dyn Write>` into a fresh
//! `Vec` per document), `reuse` (the same into one `Vec` kept across documents, cleared, as
//! the Java harness reuses its `ByteArrayOutputStream`), `direct` (a `FiEncoder<&mut Vec<u8>>`
//! into the reused `Vec`, no dynamic calls), `slice` (as the bench does now: `reuse` with the
//! document's events handed over in one `write_events` call). `FI_WAYS=fresh,reuse` picks some; `FI_WORST=n`
//! lists the n documents with the most time; `FI_COLD=1` writes 256 MB before each timing, so
//! that the document's events, strings and the encoder's memory come from DRAM, as they do in
//! the bench (which runs every other subject between two passes over a document); `FI_CPU=1`
//! times by the thread's CPU clock (time the machine gave to other processes left out: for
//! comparisons on a loaded machine) and takes the best pass, not the median.
//! `cargo run --release -p binxml-fi --example fi_enc_harness [-- files]`

use binxml_core::{Decoder, Encoder, Event};
use binxml_fi::FiEncoder;
use std::time::Instant;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

unsafe extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    fn getrusage(who: i32, usage: *mut [i64; 18]) -> i32;
}

/// Minor page faults of the process so far (struct rusage's ru_minflt, the 5th long after
/// the two timevals).
fn minor_faults() -> i64 {
    let mut u = [0i64; 18];
    // SAFETY: `u` is as large as struct rusage on 64-bit Linux (2 timevals + 14 longs).
    unsafe { getrusage(0, &mut u) };
    u[8]
}

/// The calling thread's CPU time in seconds (Linux: CLOCK_THREAD_CPUTIME_ID).
fn cpu_now() -> f64 {
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid timespec to write; clock 3 is CLOCK_THREAD_CPUTIME_ID on Linux.
    unsafe { clock_gettime(3, &mut t) };
    t.sec as f64 + t.nsec as f64 * 1e-9
}

#[inline(never)]
fn fresh(ev: &[Event<'_>]) -> usize {
    let mut out = Vec::new();
    {
        let w: Box<dyn std::io::Write + '_> = Box::new(&mut out);
        let mut e: Box<dyn Encoder + '_> = std::hint::black_box(Box::new(FiEncoder::new(w)));
        for x in ev {
            e.write_event(x).unwrap();
        }
        e.finish().unwrap();
    }
    out.len()
}

#[inline(never)]
fn reuse(ev: &[Event<'_>], out: &mut Vec<u8>) -> usize {
    out.clear();
    {
        let w: Box<dyn std::io::Write + '_> = Box::new(&mut *out);
        let mut e: Box<dyn Encoder + '_> = std::hint::black_box(Box::new(FiEncoder::new(w)));
        for x in ev {
            e.write_event(x).unwrap();
        }
        e.finish().unwrap();
    }
    out.len()
}

/// No encoding: reads every event and the first octet of each of its strings (the memory
/// traffic an encoder cannot avoid), for a floor under the encoders' times.
#[inline(never)]
fn touch(ev: &[Event<'_>]) -> usize {
    let f = |s: &str| s.len() + s.as_bytes().first().map_or(0, |&b| b as usize);
    let mut n = 0;
    for e in ev {
        n += match e {
            Event::StartElement(q) => f(&q.local) + f(&q.prefix) + f(&q.namespace),
            Event::Attribute { name, value } => f(&name.local) + f(&name.namespace) + f(value),
            Event::Characters { text, .. } => f(text),
            Event::Namespace { prefix, uri } => f(prefix) + f(uri),
            _ => 1,
        };
    }
    n
}

/// The document's events recorded on a `Tape` (24 octets an event against 104), replayed
/// into the encoder's push interface through one `write_tape` call.
#[inline(never)]
fn tape(t: &binxml_core::Tape<'_>, out: &mut Vec<u8>) -> usize {
    out.clear();
    {
        let w: Box<dyn std::io::Write + '_> = Box::new(&mut *out);
        let mut e: Box<dyn Encoder + '_> = std::hint::black_box(Box::new(FiEncoder::new(w)));
        e.write_tape(t).unwrap();
        e.finish().unwrap();
    }
    out.len()
}

/// As the bench does now: one `write_events` call with the document's events.
#[inline(never)]
fn slice(ev: &[Event<'_>], out: &mut Vec<u8>) -> usize {
    out.clear();
    {
        let w: Box<dyn std::io::Write + '_> = Box::new(&mut *out);
        let mut e: Box<dyn Encoder + '_> = std::hint::black_box(Box::new(FiEncoder::new(w)));
        e.write_events(ev).unwrap();
        e.finish().unwrap();
    }
    out.len()
}

#[inline(never)]
fn direct(ev: &[Event<'_>], out: &mut Vec<u8>) -> usize {
    out.clear();
    let mut e = FiEncoder::new(&mut *out);
    for x in ev {
        e.write_event(x).unwrap();
    }
    e.finish().unwrap();
    drop(e);
    out.len()
}

fn main() {
    let mut files: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    if files.is_empty() {
        files = binxml_testkit::corpus_xml_files();
        files.sort();
    }
    let ways: Vec<String> = std::env::var("FI_WAYS")
        .unwrap_or_else(|_| "fresh,reuse,direct,slice,tape".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let worst: usize = std::env::var("FI_WORST")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let docs: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| {
            let raw = std::fs::read(p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, binxml_xml::to_utf8(&raw).unwrap().into_owned())
        })
        .collect();
    let events: Vec<Vec<Event<'_>>> = docs
        .iter()
        .map(|(_, x)| {
            let mut d = binxml_xml::XmlDecoder::new(x);
            let mut v = Vec::new();
            while let Some(e) = d.next_event().unwrap() {
                v.push(e);
            }
            v
        })
        .collect();
    let tapes: Vec<binxml_core::Tape<'_>> = events
        .iter()
        .map(|e| binxml_core::Tape::from_events(e))
        .collect();
    let n = docs.len();
    eprintln!("size_of::<Event>() = {}", std::mem::size_of::<Event<'_>>());
    let reps: Vec<u32> = docs
        .iter()
        .map(|(_, x)| (64 * 1024 / x.len().max(1)).clamp(1, 64) as u32)
        .collect();
    let mut out = Vec::new();
    let cold = std::env::var_os("FI_COLD").is_some();
    let cpu = std::env::var_os("FI_CPU").is_some();
    let mut sweep = vec![1u8; if cold { 256 << 20 } else { 0 }];
    let run = |w: &str, i: usize, out: &mut Vec<u8>| -> usize {
        match w {
            "fresh" => fresh(&events[i]),
            "reuse" => reuse(&events[i], out),
            "direct" => direct(&events[i], out),
            "slice" => slice(&events[i], out),
            "touch" => touch(&events[i]),
            "tape" => tape(&tapes[i], out),
            _ => panic!("unknown way {w}"),
        }
    };
    for w in &ways {
        for i in 0..n {
            run(w, i, &mut out);
        }
    }
    let passes = 5;
    let faults_before = minor_faults();
    let mut encodes = 0u64;
    let mut per = vec![vec![Vec::new(); n]; ways.len()];
    for _ in 0..passes {
        for (k, w) in ways.iter().enumerate() {
            for i in 0..n {
                if cold {
                    // evict the caches: the harness runs every other subject between passes
                    for j in (0..sweep.len()).step_by(64) {
                        sweep[j] = sweep[j].wrapping_add(1);
                    }
                    std::hint::black_box(&sweep);
                }
                let t = Instant::now();
                let c = cpu_now();
                for _ in 0..reps[i] {
                    std::hint::black_box(run(w, i, &mut out));
                }
                encodes += reps[i] as u64;
                let secs = if cpu {
                    cpu_now() - c
                } else {
                    t.elapsed().as_secs_f64()
                };
                per[k][i].push(secs / reps[i] as f64);
            }
        }
    }
    let med: Vec<Vec<f64>> = per
        .iter_mut()
        .map(|d| {
            d.iter_mut()
                .map(|v| {
                    v.sort_by(|a, b| a.total_cmp(b));
                    if cpu { v[0] } else { v[v.len() / 2] }
                })
                .collect()
        })
        .collect();
    let faults = minor_faults() - faults_before;
    println!(
        "{faults} minor page faults in {encodes} encodings ({:.1} a document)",
        faults as f64 / encodes as f64
    );
    let bytes: usize = docs.iter().map(|(_, x)| x.len()).sum();
    for (k, w) in ways.iter().enumerate() {
        let s: f64 = med[k].iter().sum();
        println!(
            "{w:8} {:7.1} MB/s  {:8.3} ms total",
            bytes as f64 / s / 1e6,
            s * 1e3
        );
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| med[0][b].total_cmp(&med[0][a]));
    for &i in order.iter().take(worst) {
        let cells: Vec<String> = (0..ways.len())
            .map(|k| format!("{:7.3}", med[k][i] * 1e3))
            .collect();
        println!(
            "{:45} {:>8} KB {:>7} ev  ms: {}",
            docs[i].0,
            docs[i].1.len() / 1000,
            events[i].len(),
            cells.join(" ")
        );
    }
}
