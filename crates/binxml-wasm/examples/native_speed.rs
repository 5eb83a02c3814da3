//! The native side of the web page's speed comparison (tests/web/test_page.py --bench): times
//! the very function the page times ([`binxml_wasm::count_events_of`]) on one document.
//!
//! Usage: `native_speed FILE FORMAT RUNS REPS`; prints `{"events": N, "ms": [per decode, ...]}`.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, format, runs, reps] = &args[..] else {
        eprintln!("usage: native_speed FILE FORMAT RUNS REPS");
        std::process::exit(2);
    };
    let data = std::fs::read(file).expect("readable file");
    let format = binxml::Format::from_name(format).expect("a format name");
    let (runs, reps): (usize, usize) = (runs.parse().expect("RUNS"), reps.parse().expect("REPS"));
    let mut events = 0;
    let mut ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        for _ in 0..reps {
            events = binxml_wasm::count_events_of(&data, format).expect("a valid document");
        }
        ms.push(t.elapsed().as_secs_f64() * 1000.0 / reps as f64);
    }
    let ms: Vec<String> = ms.iter().map(|m| format!("{m:.6}")).collect();
    println!("{{\"events\": {events}, \"ms\": [{}]}}", ms.join(", "));
}
