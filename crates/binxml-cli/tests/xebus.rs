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

#[test]
fn convert_with_a_xebu_schema_and_back() {
    let root = workspace_root();
    let schema = root.join("crates/binxml-xebu/schemas/notify.rnc");
    let msg = root.join("tests/schemas/relaxng/notify/message0.xml");
    let dir = scratch_dir("cli-xebus");
    let (s, p) = (dir.join("m.xebus"), dir.join("m.xebu"));
    for (path, extra) in [(&s, true), (&p, false)] {
        let mut c = bin();
        c.args(["convert", "-t", "xebu", "-o"]).arg(path).arg(&msg);
        if extra {
            c.arg("--xebu-schema").arg(&schema);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (ls, lp) = (
        std::fs::metadata(&s).unwrap().len(),
        std::fs::metadata(&p).unwrap().len(),
    );
    assert!(ls * 10 < lp * 9, "XebuS {ls} bytes, Xebu {lp}");
    let back = bin()
        .args(["convert", "-f", "xebu", "-t", "xml", "--xebu-schema"])
        .arg(&schema)
        .arg(&s)
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let xml = String::from_utf8(back.stdout).unwrap();
    assert!(
        xml.contains(r#"<ev:Priority xsi:type="xsd:int">2</ev:Priority>"#),
        "{xml}"
    );
    // Without the schema: refused, not misread.
    let out = bin()
        .args(["convert", "-f", "xebu", "-t", "xml"])
        .arg(&s)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("decode it with its schema"));
}

#[test]
fn streams_are_packed_and_unpacked_never_cut() {
    let root = workspace_root();
    let schema = root.join("crates/binxml-xebu/schemas/notify.rnc");
    let notify = root.join("tests/schemas/relaxng/notify");
    let docs = ["message0.xml", "message1.xml", "bad-extra-element.xml"];
    let dir = scratch_dir("cli-xebu-stream");
    for with_schema in [false, true] {
        let stream = dir.join(format!("s{with_schema}.xebu"));
        let mut c = bin();
        c.args(["xebu", "pack", "-o"]).arg(&stream);
        for d in docs {
            c.arg(notify.join(d));
        }
        if with_schema {
            c.arg("--xebu-schema").arg(&schema);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Reading it as one document is an error naming the rest, never a silent first message.
        let mut c = bin();
        c.args(["convert", "-f", "xebu", "-t", "xml"]).arg(&stream);
        if with_schema {
            c.arg("--xebu-schema").arg(&schema);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("more messages follow"));
        let un = dir.join(format!("un{with_schema}"));
        let mut c = bin();
        c.args(["xebu", "unpack", "--out-dir"])
            .arg(&un)
            .arg(&stream);
        if with_schema {
            c.arg("--xebu-schema").arg(&schema);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("3 messages"));
        for (i, d) in docs.iter().enumerate() {
            let got = std::fs::read(un.join(format!("s{with_schema}-{}.xml", i + 1))).unwrap();
            let want = std::fs::read(notify.join(d)).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{d}"
            );
        }
    }
}
