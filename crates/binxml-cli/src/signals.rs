//! Temporary files are never left behind: every one is registered here while it exists, and
//! SIGINT, SIGTERM or SIGHUP removes them before the process ends by that signal. A closed
//! output pipe ends the process as SIGPIPE ends `cat`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM};

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the thread that cleans up on SIGINT, SIGTERM and SIGHUP.
pub fn install() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            for p in pending().drain(..) {
                let _ = std::fs::remove_file(p);
            }
            // Ends the process as the signal would have (the shell sees 128 + N).
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
}

/// Records a temporary file (before it is created).
pub fn register(path: &Path) {
    pending().push(path.to_path_buf());
}

/// Forgets a temporary file that was renamed into place or never created.
pub fn unregister(path: &Path) {
    let mut p = pending();
    if let Some(i) = p.iter().position(|q| q == path) {
        p.swap_remove(i);
    }
}

/// Removes a temporary file and forgets it.
pub fn unregister_and_remove(path: &Path) {
    let mut p = pending();
    let _ = std::fs::remove_file(path);
    if let Some(i) = p.iter().position(|q| q == path) {
        p.swap_remove(i);
    }
}

/// Ends the process as a closed pipe ends `cat` and `grep`: by SIGPIPE, saying nothing.
pub fn die_of_closed_pipe() -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(SIGPIPE);
    std::process::exit(128 + SIGPIPE);
}
