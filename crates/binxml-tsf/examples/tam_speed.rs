//! Quick timing of TSF -> TAM (and the streaming decoder) on files given on the command line:
//! `cargo run --release -p binxml-tsf --example tam_speed -- FILE.tsf...` (UTF-8 lengths; add
//! `--utf16` before the files for the reference converter's files).
use std::time::Instant;

use binxml_core::Decoder;
use binxml_tsf::{Tam, TsfDecoder, TsfOptions};

fn best_of<F: FnMut()>(mut f: F) -> f64 {
    let mut best = f64::MAX;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 5 || (start.elapsed().as_secs_f64() < 1.0 && runs < 2000) {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
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
            std::path::Path::new(&arg).file_name().unwrap().to_string_lossy(),
            data.len(),
            units,
            t_tam,
            data.len() as f64 / t_tam,
            t_ev
        );
    }
}
