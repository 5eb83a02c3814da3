//! Quick timing of TSF -> TAM (and the streaming decoder) on files given on the command line:
//! `cargo run --release -p binxml-tsf --example tam_speed -- FILE.tsf...` (UTF-8 lengths; add
//! `--utf16` before the files for the reference converter's files).
use std::time::Instant;

use binxml_core::Decoder;
use binxml_tsf::{Tam, TsfDecoder, TsfOptions};

/// CPU time of the process in seconds (as the paper measured, with getrusage), wall time off
/// Linux.
#[cfg(target_os = "linux")]
fn cpu_now() -> f64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: CLOCK_PROCESS_CPUTIME_ID (2) and a valid out pointer.
    unsafe { clock_gettime(2, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
fn cpu_now() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Best CPU time of repeated runs, in microseconds.
fn best_of<F: FnMut()>(mut f: F) -> f64 {
    let mut best = f64::MAX;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 5 || (start.elapsed().as_secs_f64() < 1.0 && runs < 2000) {
        let t = cpu_now();
        f();
        best = best.min(cpu_now() - t);
        runs += 1;
    }
    best * 1e6
}

fn main() {
    let mut opts = TsfOptions::default();
    for arg in std::env::args().skip(1) {
        if arg == "--utf16" {
            opts.utf16_lengths = true;
            continue;
        }
        let data = std::fs::read(&arg).unwrap();
        let tam = Tam::parse_with(&data, opts.clone()).unwrap();
        let units = tam.len();
        let t_tam = best_of(|| {
            let t = Tam::parse_with(&data, opts.clone()).unwrap();
            std::hint::black_box(t.len());
        });
        let t_ev = best_of(|| {
            let mut d = TsfDecoder::with_options(&data, opts.clone());
            let mut n = 0u64;
            while let Some(e) = d.next_event().unwrap() {
                std::hint::black_box(&e);
                n += 1;
            }
            std::hint::black_box(n);
        });
        println!(
            "{:<40} {:>9} bytes {:>7} units  TAM {:>9.1} us ({:>6.0} MB/s)  events {:>9.1} us",
            std::path::Path::new(&arg)
                .file_name()
                .unwrap()
                .to_string_lossy(),
            data.len(),
            units,
            t_tam,
            data.len() as f64 / t_tam,
            t_ev
        );
    }
}
