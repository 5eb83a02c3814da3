//! `binxml sign` and `binxml verify`: exit statuses, messages, and xmlsec1 verifying what the
//! command signs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use binxml_testkit::{scratch_dir, workspace_root};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_binxml"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run")
}

fn openssl_key_and_cert(dir: &Path, name: &str, newkey: &[&str]) -> (PathBuf, PathBuf) {
    let key = dir.join(format!("{name}.key"));
    let cert = dir.join(format!("{name}.crt"));
    let out = Command::new("openssl")
        .args(["req", "-x509"])
        .args(newkey)
        .args(["-nodes", "-days", "2", "-subj", &format!("/CN=cli {name}")])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (interop/sign/setup.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (key, cert)
}

#[test]
fn sign_then_verify_and_tamper() {
    let dir = scratch_dir("cli-sign");
    let (key, cert) = openssl_key_and_cert(&dir, "rsa", &["-newkey", "rsa:2048"]);
    let (_, other) = openssl_key_and_cert(
        &dir,
        "ec",
        &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
    );
    let doc = workspace_root().join("tests/sign/ac-prescription.xml");
    let signed = dir.join("signed.xml");
    let out = run(bin()
        .arg("sign")
        .arg(&doc)
        .arg("--key")
        .arg(&key)
        .arg("--cert")
        .arg(&cert)
        .arg("--digest")
        .arg("sha512")
        .arg("-o")
        .arg(&signed));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = run(bin().arg("verify").arg(&signed).arg("--cert").arg(&cert));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("valid: rsa-sha512 by the key of CN=cli rsa"),
        "{text}"
    );
    assert!(text.contains("covering the whole document"), "{text}");

    // The certificate inside the signature: valid, and said to be untrusted.
    let out = run(bin().arg("verify").arg(&signed));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("not trusted"));

    // Another key: not valid, status 1.
    let out = run(bin().arg("verify").arg(&signed).arg("--cert").arg(&other));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not valid"));

    // A changed quantity: not valid, status 1, and the good one still valid in the same run.
    let tampered = dir.join("tampered.xml");
    let text = std::fs::read_to_string(&signed).unwrap();
    std::fs::write(&tampered, text.replace(">21<", ">210<")).unwrap();
    let out = run(bin()
        .arg("verify")
        .arg(&signed)
        .arg(&tampered)
        .arg("--cert")
        .arg(&cert));
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("signed.xml: valid"), "{text}");
    assert!(
        text.contains("tampered.xml: not valid: invalid signature: the digest"),
        "{text}"
    );

    // xmlsec1 agrees.
    let ok = Command::new("xmlsec1")
        .args(["--verify", "--pubkey-cert-pem"])
        .arg(&cert)
        .arg(&signed)
        .output()
        .expect("xmlsec1 (interop/sign/setup.sh installs it)");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    // A key that is not a key: a usage error.
    let out = run(bin().arg("sign").arg(&doc).arg("--key").arg(&doc));
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
