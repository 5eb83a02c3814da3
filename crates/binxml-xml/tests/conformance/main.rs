//! The W3C XML Conformance Test Suite (`../shared/conformance/xmlconf`), binxml as a
//! non-validating, namespace-aware parser that reads nothing external.
//!
//! Scored on the XML 1.0 Fifth Edition tests (the Namespaces collections aside):
//! - every `not-wf` test that needs no external entity must be refused;
//! - every `valid` and `invalid` test must be accepted (a non-validating parser accepts invalid
//!   documents), and where an accepted test that needs no external entity gives an expected
//!   output, binxml's events written in James Clark's canonical form must equal it.
//!
//! The tests binxml is allowed to fail are listed in `expected-failures.txt`, each with its
//! reason; a failure not listed fails this test, and so does a listed one that now passes (so the
//! list stays exact). Every other test of the suite (XML 1.1, earlier editions, namespaces,
//! `error` tests, tests that need external entities) is run too and must end without a panic or
//! a hang. Every document binxml accepts, of any test, must also come out of binxml's XML writer
//! in a form that binxml reads again (or be refused by the writer with an error). The scores
//! are checked against the floor too (at least 925/927 not-wf refused, 921/927 accepted,
//! every canonical output but one equal), so that a catalogue read short cannot pass. Without the
//! suite (a fresh clone with nothing beside it) the test says so and passes; in CI beside the
//! shared corpus its absence fails (`binxml_testkit::shared_suite`).

mod canonical;
mod catalogue;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catalogue::Test;

/// A test still running after this long is taken as a hang (the largest test file is a few
/// kilobytes).
const HANG: Duration = Duration::from_secs(60);

/// How binxml did on one test.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Failure {
    /// A `not-wf` document accepted.
    Accepted,
    /// A `valid` or `invalid` document refused; the error.
    Rejected(String),
    /// The canonical form differs from the test's output.
    Output,
}

impl Failure {
    fn key(&self) -> &'static str {
        match self {
            Failure::Accepted => "accepted",
            Failure::Rejected(_) => "rejected",
            Failure::Output => "output",
        }
    }
}

fn note(line: &str) {
    // Straight to stderr: the harness does not capture it, so it shows for a passing test.
    let _ = writeln!(std::io::stderr(), "xmlconf: {line}");
}

/// The document's events, or the decoder's error, or the panic's message.
fn parse(bytes: &[u8]) -> Result<Result<Vec<binxml_core::Event<'static>>, String>, String> {
    std::panic::catch_unwind(|| binxml_xml::decode(bytes).map_err(|e| e.to_string())).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

/// `expected-failures.txt`: `ID KIND: reason` a line (`#` starts a comment).
fn expected_failures() -> BTreeMap<(String, String), String> {
    let text = include_str!("expected-failures.txt");
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, rest) = line.split_once(' ').expect("ID KIND: reason");
        let (kind, reason) = rest.split_once(':').expect("ID KIND: reason");
        assert!(
            matches!(kind, "accepted" | "rejected" | "output"),
            "unknown kind in {line:?}"
        );
        assert!(!reason.trim().is_empty(), "no reason in {line:?}");
        let old = out.insert(
            (id.to_string(), kind.to_string()),
            reason.trim().to_string(),
        );
        assert!(old.is_none(), "listed twice: {line:?}");
    }
    out
}

#[derive(Default)]
struct Score {
    not_wf: (usize, usize),
    accepted: (usize, usize),
    output: (usize, usize),
    /// The Namespaces 1.0 tests (not scored): not-wf refused, valid and invalid accepted.
    ns_not_wf: (usize, usize),
    ns_accepted: (usize, usize),
    others: usize,
}

#[test]
fn w3c_xml_conformance_suite() {
    let Some(top) = binxml_testkit::shared_suite("conformance/xmlconf/xmlconf.xml") else {
        return;
    };
    let suite = top.parent().unwrap().canonicalize().unwrap();
    let tests = catalogue::read(&suite.join("xmlconf.xml")).unwrap();
    assert!(tests.len() > 2500, "only {} tests read", tests.len());

    // The watchdog: a hang aborts the run, naming the test.
    let current: Arc<Mutex<(String, Instant)>> =
        Arc::new(Mutex::new((String::new(), Instant::now())));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (current, done) = (current.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let (id, since) = current.lock().unwrap().clone();
                if since.elapsed() > HANG {
                    note(&format!("HANG: test {id} still running after {HANG:?}"));
                    std::process::abort();
                }
            }
        })
    };

    let mut score = Score::default();
    let mut failures: BTreeMap<(String, String), (Failure, &Test)> = BTreeMap::new();
    let mut crashes = Vec::new();
    // Documents whose written form binxml refuses.
    let mut unreadable = Vec::new();
    for t in &tests {
        *current.lock().unwrap() = (t.id.clone(), Instant::now());
        let bytes = std::fs::read(&t.file).unwrap_or_else(|e| panic!("{}: {e}", t.file.display()));
        let result = match parse(&bytes) {
            Ok(r) => r,
            Err(panic) => {
                crashes.push(format!("{} ({}): panic: {panic}", t.id, t.file.display()));
                continue;
            }
        };
        if let Ok(events) = &result
            && let Ok(written) = binxml_xml::encode(events)
            && let Err(e) = binxml_xml::decode(&written)
        {
            unreadable.push(format!(
                "{}: binxml's writer wrote what binxml refuses ({e}): {:?}",
                t.id,
                String::from_utf8_lossy(&written)
            ));
        }
        let scored = t.xml10_5e();
        let failure = match (scored, t.kind.as_str(), &result) {
            (true, "not-wf", _) if t.entities == "none" => {
                score.not_wf.1 += 1;
                match result {
                    Ok(_) => Some(Failure::Accepted),
                    Err(_) => {
                        score.not_wf.0 += 1;
                        None
                    }
                }
            }
            (true, "valid" | "invalid", Err(e)) => {
                score.accepted.1 += 1;
                Some(Failure::Rejected(e.clone()))
            }
            (true, "valid" | "invalid", Ok(events)) => {
                score.accepted.1 += 1;
                score.accepted.0 += 1;
                match &t.output {
                    // With external entities unread, the output cannot be compared.
                    Some(out) if t.entities == "none" => {
                        score.output.1 += 1;
                        let want =
                            std::fs::read(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
                        if canonical::write(events).as_bytes() == want {
                            score.output.0 += 1;
                            None
                        } else {
                            Some(Failure::Output)
                        }
                    }
                    _ => None,
                }
            }
            _ => {
                score.others += 1;
                if t.recommendation.starts_with("NS1.0") && t.entities == "none" {
                    let (count, good) = match t.kind.as_str() {
                        "not-wf" => (&mut score.ns_not_wf, result.is_err()),
                        "valid" | "invalid" => (&mut score.ns_accepted, result.is_ok()),
                        _ => continue,
                    };
                    count.1 += 1;
                    count.0 += usize::from(good);
                }
                None
            }
        };
        if let Some(f) = failure {
            failures.insert((t.id.clone(), f.key().to_string()), (f, t));
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    watchdog.join().unwrap();

    note(&format!(
        "XML 1.0 5th edition: not-wf rejected {}/{}, valid and invalid accepted {}/{}, \
         canonical output equal {}/{}; {} other tests run (Namespaces 1.0: not-wf rejected \
         {}/{}, valid and invalid accepted {}/{}); {} crashes",
        score.not_wf.0,
        score.not_wf.1,
        score.accepted.0,
        score.accepted.1,
        score.output.0,
        score.output.1,
        score.others,
        score.ns_not_wf.0,
        score.ns_not_wf.1,
        score.ns_accepted.0,
        score.ns_accepted.1,
        crashes.len()
    ));
    if std::env::var_os("BINXML_XMLCONF_LIST").is_some() {
        // Every failure in the form of expected-failures.txt, to write its entries from.
        for ((id, kind), (f, t)) in &failures {
            let detail = match f {
                Failure::Rejected(e) => format!(" ({e})"),
                _ => String::new(),
            };
            let ns = if t.namespace { "" } else { "NAMESPACE=\"no\" " };
            println!("{id} {kind}: {ns}{}{detail}", rel(&suite, &t.file));
        }
    }

    let expected = expected_failures();
    let mut problems = crashes;
    problems.append(&mut unreadable);
    for (key, (f, t)) in &failures {
        if !expected.contains_key(key) {
            let detail = match f {
                Failure::Rejected(e) => format!(": {e}"),
                _ => String::new(),
            };
            problems.push(format!(
                "{} {} (not in expected-failures.txt): {}{detail}",
                key.0,
                key.1,
                rel(&suite, &t.file)
            ));
        }
    }
    let failed: BTreeSet<_> = failures.keys().collect();
    for key in expected.keys() {
        if !failed.contains(key) {
            problems.push(format!(
                "{} {}: listed in expected-failures.txt but passes now (remove it)",
                key.0, key.1
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The suite's own counts (xmlts20130923), and the floor binxml must reach on them.
    assert_eq!(
        (score.not_wf.1, score.accepted.1, score.output.1),
        (927, 927, 261),
        "the catalogue did not give the suite's XML 1.0 Fifth Edition tests"
    );
    assert!(
        score.not_wf.0 >= 925 && score.accepted.0 >= 921 && score.output.0 >= 260,
        "below the floor: not-wf rejected {}/927, accepted {}/927, outputs equal {}/261",
        score.not_wf.0,
        score.accepted.0,
        score.output.0
    );
}

/// A test file's path relative to the suite.
fn rel(suite: &Path, p: &Path) -> String {
    p.strip_prefix(suite).unwrap_or(p).display().to_string()
}
