//! RELAX NG on the command line (`binxml validate --schema x.rng|x.rnc`) and XebuS
//! (`convert -t xebu --xebu-schema`), with Xebu streams of several messages.

use std::process::Command;

use binxml_testkit::{scratch_dir, workspace_root};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_binxml"))
}

#[test]
fn validate_with_relaxng_in_both_syntaxes() {
    let root = workspace_root();
    let notify = root.join("tests/schemas/relaxng/notify");
    for schema in ["notify.rng", "notify.rnc"] {
        let out = bin()
            .args(["validate", "--schema"])
            .arg(root.join("crates/binxml-xebu/schemas").join(schema))
            .arg(notify.join("message0.xml"))
            .arg(notify.join("bad-not-an-int.xml"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("message0.xml: valid"), "{stdout}");
        assert!(
            stdout.contains(
                "bad-not-an-int.xml: 15:41: /Envelope/Body/Notify/Event/Priority: text 'high' is not allowed here"
            ),
            "{stdout}"
        );
        assert!(
            stdout.contains("bad-not-an-int.xml: invalid (1 error)"),
            "{stdout}"
        );
    }
    // A schema that does not load names its line and column.
    let dir = scratch_dir("cli-relaxng");
    let bad = dir.join("bad.rnc");
    std::fs::write(&bad, "start = element a {\n  nope }").unwrap();
    let out = bin()
        .args(["validate", "--schema"])
        .arg(&bad)
        .arg(notify.join("message0.xml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.rnc:1:17: the grammar has no 'nope'")
            || stderr.contains("bad.rnc:2:3"),
        "{stderr}"
    );
}
