//! The `binxml` command on damaged inputs of every format: each run either succeeds or prints
//! exactly one `binxml: error: ...` line and exits with status 1: never a panic's status (101), a
//! signal, a caught panic ("internal error"), or a partial output file.
//!
//! `BINXML_CLI_MUTATIONS` sets the number of damaged inputs per format (default 40, so 320 runs).

use std::path::Path;
use std::process::Command;

use binxml::Format;
use binxml_testkit::mutate::{Rng, mutate};

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
    if let Some(small) = binxml_testkit::corpus_xml_files().into_iter().find(|p| {
        std::fs::metadata(p)
            .map(|m| m.len() < 6000)
            .unwrap_or(false)
    }) {
        docs.push(std::fs::read(small).unwrap());
    }
    docs.iter()
        .filter_map(|d| binxml::convert(d, Some(Format::Xml), format).ok())
        .collect()
}

fn check_run(
    what: &str,
    out: &std::process::Output,
    output_file: Option<&Path>,
) -> Result<(), String> {
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
                return Err(format!(
                    "{what}: exit 1 without exactly one error line: {err:?}"
                ));
            }
            if lines[0].contains("internal error") || lines[0].contains("panicked") {
                return Err(format!("{what}: a panic, caught: {}", lines[0]));
            }
            if let Some(f) = output_file
                && f.exists()
            {
                return Err(format!("{what}: failed but left {}", f.display()));
            }
        }
        other => return Err(format!("{what}: exit status {other:?}: {err}")),
    }
    Ok(())
}

#[test]
fn damaged_inputs_get_one_error_line_and_status_1() {
    let per_format: usize = std::env::var("BINXML_CLI_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let dir = binxml_testkit::scratch_dir("cli-hostile");
    let bin = env!("CARGO_BIN_EXE_binxml");
    let mut failures = Vec::new();
    let (mut runs, mut errors) = (0, 0);
    for &format in Format::ALL {
        let seeds = seeds(format);
        assert!(!seeds.is_empty(), "{format}: no seed encodings");
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B ^ (format as u64 + 1));
        for i in 0..per_format {
            let input = mutate(&mut rng, std::slice::from_ref(&seeds[i % seeds.len()]));
            let path = dir.join(format!("{}-{i}.{}", format.name(), format.extension()));
            std::fs::write(&path, &input).unwrap();
            // Alternate: convert to a file, convert to stdout, inspect; named format or detected.
            let to = if format == Format::Xml {
                Format::Fi
            } else {
                Format::Xml
            };
            let target = dir.join(format!("{}-{i}.out", format.name()));
            let _ = std::fs::remove_file(&target);
            let mut cmd = Command::new(bin);
            let output_file = match i % 3 {
                0 => {
                    cmd.arg("convert")
                        .arg(&path)
                        .args(["-f", format.name(), "-t", to.name(), "-o"])
                        .arg(&target);
                    Some(target.as_path())
                }
                1 => {
                    cmd.arg("convert")
                        .arg(&path)
                        .args(["-t", "json", "-o", "-"]);
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
            match check_run(
                &format!("{format} #{i} ({})", path.display()),
                &out,
                output_file,
            ) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!("{runs} runs, {errors} rejected with one error line");
    assert!(
        errors > runs / 4,
        "too few damaged inputs were rejected ({errors} of {runs}): is the damage real?"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
