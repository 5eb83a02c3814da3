//! The `binxml` command on damaged inputs of every format: each run either succeeds or prints
//! exactly one `binxml: error: ...` line and exits with status 1: never a panic's status (101), a
//! signal, a caught panic ("internal error"), or a partial output file.
//!
//! `BINXML_CLI_MUTATIONS` sets the number of damaged inputs per format (default 40, so 320 runs).

use std::path::Path;
use std::process::Command;

use binxml::Format;

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// Bit flips, truncation, a duplicated chunk, overwritten bytes or a huge length.
fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    if v.is_empty() {
        return v;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
        }
        1 => v.truncate(rng.below(v.len())),
        2 => {
            let a = rng.below(v.len());
            let b = (a + 1 + rng.below(32)).min(v.len());
            let chunk = v[a..b].to_vec();
            let at = rng.below(v.len());
            v.splice(at..at, chunk);
        }
        3 => {
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(v.len());
                v[i] = [0x00, 0xFF, 0x7F, 0x80, 0xFE, b'<', b'9'][rng.below(7)];
            }
        }
        _ => {
            let i = rng.below(v.len());
            for (k, b) in [0x7F, 0xFF, 0xFF, 0xF0].iter().enumerate() {
                if let Some(x) = v.get_mut(i + k) {
                    *x = *b;
                }
            }
        }
    }
    v
}

fn seeds(format: Format) -> Vec<Vec<u8>> {
    if format == Format::Json {
        return vec![
            br#"{"a":[1,2.5e3,true,null,"x\u00e9"],"b":{"c":"d"},"":[]}"#.to_vec(),
            b"[[[[1]]],{\"k\":-0.0,\"64th\":\"\\ud83d\\ude00\"}]".to_vec(),
        ];
    }
    let root = binxml_testkit::workspace_root();
    let mut docs = vec![
        std::fs::read(root.join("examples/invoice.xml")).unwrap(),
        br#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "ent">]><!--c--><r xmlns="urn:r" xmlns:p="urn:p" p:a="1&amp;2"><p:x>t&e;<![CDATA[<cd>]]></p:x><?pi data?><y/></r>"#.to_vec(),
    ];
    if let Some(small) = binxml_testkit::corpus_xml_files().into_iter().find(|p| std::fs::metadata(p).map(|m| m.len() < 6000).unwrap_or(false)) {
        docs.push(std::fs::read(small).unwrap());
    }
    docs.iter().filter_map(|d| binxml::convert(d, Some(Format::Xml), format).ok()).collect()
}

fn check_run(what: &str, out: &std::process::Output, output_file: Option<&Path>) -> Result<(), String> {
    use std::os::unix::process::ExitStatusExt;
    let err = String::from_utf8_lossy(&out.stderr);
    if let Some(sig) = out.status.signal() {
        return Err(format!("{what}: killed by signal {sig}: {err}"));
    }
    match out.status.code() {
        Some(0) => {
            if err.contains("panicked") {
                return Err(format!("{what}: success but a panic message: {err}"));
            }
        }
        Some(1) => {
            let lines: Vec<&str> = err.lines().collect();
            if lines.len() != 1 || !lines[0].starts_with("binxml: error: ") {
                return Err(format!("{what}: exit 1 without exactly one error line: {err:?}"));
            }
            if lines[0].contains("internal error") || lines[0].contains("panicked") {
                return Err(format!("{what}: a panic, caught: {}", lines[0]));
            }
            if let Some(f) = output_file {
                if f.exists() {
                    return Err(format!("{what}: failed but left {}", f.display()));
                }
            }
        }
        other => return Err(format!("{what}: exit status {other:?}: {err}")),
    }
    Ok(())
}

#[test]
fn damaged_inputs_get_one_error_line_and_status_1() {
    let per_format: usize = std::env::var("BINXML_CLI_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let dir = binxml_testkit::scratch_dir("cli-hostile");
    let bin = env!("CARGO_BIN_EXE_binxml");
    let mut failures = Vec::new();
    let (mut runs, mut errors) = (0, 0);
    for &format in Format::ALL {
        let seeds = seeds(format);
        assert!(!seeds.is_empty(), "{format}: no seed encodings");
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B ^ (format as u64 + 1));
        for i in 0..per_format {
            let input = mutate(&mut rng, &seeds[i % seeds.len()]);
            let path = dir.join(format!("{}-{i}.{}", format.name(), format.extension()));
            std::fs::write(&path, &input).unwrap();
            // Alternate: convert to a file, convert to stdout, inspect; named format or detected.
            let to = if format == Format::Xml { Format::Fi } else { Format::Xml };
            let target = dir.join(format!("{}-{i}.out", format.name()));
            let _ = std::fs::remove_file(&target);
            let mut cmd = Command::new(bin);
            let output_file = match i % 3 {
                0 => {
                    cmd.arg("convert").arg(&path).args(["-f", format.name(), "-t", to.name(), "-o"]).arg(&target);
                    Some(target.as_path())
                }
                1 => {
                    cmd.arg("convert").arg(&path).args(["-t", "json", "-o", "-"]);
                    None
                }
                _ => {
                    cmd.arg("inspect").arg(&path).args(["-f", format.name()]);
                    None
                }
            };
            let out = cmd.output().unwrap();
            runs += 1;
            if out.status.code() == Some(1) {
                errors += 1;
            }
            match check_run(&format!("{format} #{i} ({})", path.display()), &out, output_file) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!("{runs} runs, {errors} rejected with one error line");
    assert!(errors > runs / 4, "too few damaged inputs were rejected ({errors} of {runs}): is the damage real?");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
