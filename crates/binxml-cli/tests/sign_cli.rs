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

#[test]
fn cms_over_a_binary_document() {
    let dir = scratch_dir("cli-sign-cms");
    let (key, cert) = openssl_key_and_cert(
        &dir,
        "p256",
        &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
    );
    let doc = workspace_root().join("tests/sign/ac-audit.xml");
    let fi = dir.join("ac.fi");
    let out = run(bin()
        .arg("convert")
        .arg(&doc)
        .args(["-t", "fi", "-o"])
        .arg(&fi));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for detached in [false, true] {
        let p7s = dir.join(if detached { "ac.p7s" } else { "ac.fi.p7s" });
        let mut cmd = bin();
        cmd.arg("sign")
            .arg("--cms")
            .arg(&fi)
            .arg("--key")
            .arg(&key)
            .arg("--cert")
            .arg(&cert)
            .arg("-o")
            .arg(&p7s);
        if detached {
            cmd.arg("--detached");
        }
        let out = run(&mut cmd);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut cmd = bin();
        cmd.arg("verify").arg(&p7s).arg("--cert").arg(&cert);
        if detached {
            cmd.arg("--content").arg(&fi);
        }
        let out = run(&mut cmd);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains("valid: CMS SignedData (sha256)") && text.contains("over a fi document"),
            "{text}"
        );
        let mut ossl = Command::new("openssl");
        ossl.args([
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-out",
            "/dev/null",
            "-in",
        ])
        .arg(&p7s)
        .arg("-CAfile")
        .arg(&cert);
        if detached {
            ossl.arg("-content").arg(&fi);
        }
        let o = ossl.output().expect("openssl");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if detached {
            let mut changed = std::fs::read(&fi).unwrap();
            let n = changed.len();
            changed[n - 10] ^= 1;
            let bad = dir.join("changed.fi");
            std::fs::write(&bad, changed).unwrap();
            let out = run(bin().arg("verify").arg(&p7s).arg("--content").arg(&bad));
            assert_eq!(out.status.code(), Some(1));
            assert!(String::from_utf8_lossy(&out.stdout).contains("not valid"));
        }
    }
    // A file that is no document binxml reads is not signed.
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, [0xffu8, 0, 1, 2]).unwrap();
    let out = run(bin()
        .arg("sign")
        .arg("--cms")
        .arg(&junk)
        .arg("--key")
        .arg(&key)
        .arg("--cert")
        .arg(&cert)
        .arg("-o")
        .arg(dir.join("j.p7s")));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sign --detached` over a binary file, verified by `verify --content` and by xmlsec1 (its
/// `--url-map` naming the file); a changed file fails in both; `--rsa-pss` signs with PSS.
#[test]
fn detached_signature_of_a_file() {
    let dir = scratch_dir("cli-sign-detached");
    let (key, cert) = openssl_key_and_cert(&dir, "rsa", &["-newkey", "rsa:2048"]);
    let data = dir.join("report 1.bin");
    std::fs::write(&data, (0..=255u8).cycle().take(5000).collect::<Vec<_>>()).unwrap();
    let sig = dir.join("report.sig.xml");
    let out = run(bin()
        .arg("sign")
        .arg("--detached")
        .arg(&data)
        .arg("--key")
        .arg(&key)
        .arg("--cert")
        .arg(&cert)
        .arg("-o")
        .arg(&sig));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&sig).unwrap();
    // The file's name, escaped as a URI.
    assert!(text.contains("URI=\"report%201.bin\""), "{text}");

    let verify = |content: &Path| {
        run(bin()
            .arg("verify")
            .arg(&sig)
            .arg("--content")
            .arg(content)
            .arg("--cert")
            .arg(&cert))
    };
    let out = verify(&data);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("covering the detached file report%201.bin"),
        "{said}"
    );
    let xmlsec = |content: &Path| {
        Command::new("xmlsec1")
            .arg("--verify")
            .arg("--pubkey-cert-pem")
            .arg(&cert)
            // xmlsec1 looks its map up by the URI unescaped.
            .arg("--url-map:report 1.bin")
            .arg(content)
            .arg(&sig)
            .output()
            .expect("xmlsec1 (interop/sign/setup.sh installs it)")
            .status
            .success()
    };
    assert!(xmlsec(&data), "xmlsec1 rejects the detached signature");

    // Without the file: refused, nothing fetched.
    let out = run(bin().arg("verify").arg(&sig).arg("--cert").arg(&cert));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("never fetched"));

    // A changed file: not valid in both.
    let other = dir.join("changed.bin");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[100] ^= 0x80;
    std::fs::write(&other, bytes).unwrap();
    let out = verify(&other);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not valid"));
    assert!(!xmlsec(&other), "xmlsec1 accepts a changed file");

    // RSA-PSS, enveloped: valid, and named so.
    let doc = workspace_root().join("tests/sign/ac-simple.xml");
    let signed = dir.join("pss.xml");
    let out = run(bin()
        .arg("sign")
        .arg(&doc)
        .arg("--key")
        .arg(&key)
        .arg("--rsa-pss")
        .arg("-o")
        .arg(&signed));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(bin().arg("verify").arg(&signed).arg("--cert").arg(&cert));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("valid: sha256-rsa-MGF1"), "{said}");
}

/// A schema-informed EXI message signed over Canonical EXI (ISO 15118's form) from the command
/// line: `sign --schema` then `verify --schema`, another key and a changed message refused.
#[test]
fn exi_message_signed_over_canonical_exi() {
    let dir = scratch_dir("cli-sign-exi");
    let (key, cert) = openssl_key_and_cert(&dir, "rsa", &["-newkey", "rsa:2048"]);
    let (_, other) = openssl_key_and_cert(
        &dir,
        "ec",
        &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
    );
    let root = workspace_root();
    let schema = root.join("tests/sign/exi/meter.xsd");
    let message = dir.join("receipt.exi");
    let out = run(bin()
        .arg("convert")
        .arg(root.join("tests/sign/exi/receipt.xml"))
        .args(["-t", "exi", "--schema"])
        .arg(&schema)
        .arg("-o")
        .arg(&message));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let signed = dir.join("signed.exi");
    let out = run(bin()
        .arg("sign")
        .arg(&message)
        .arg("--schema")
        .arg(&schema)
        .arg("--key")
        .arg(&key)
        .arg("-o")
        .arg(&signed));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = run(bin()
        .arg("verify")
        .arg(&signed)
        .arg("--schema")
        .arg(&schema)
        .arg("--cert")
        .arg(&cert));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("valid: rsa-sha256 over Canonical EXI by the key of CN=cli rsa"),
        "{text}"
    );
    assert!(
        text.contains("covering the element MeteringReceipt"),
        "{text}"
    );

    // The signed message is EXI of the schema: it converts back to XML with a ds:Signature in
    // the Header.
    let out = run(bin()
        .arg("convert")
        .arg(&signed)
        .args(["-t", "xml", "--schema"])
        .arg(&schema)
        .args(["-o", "-"]));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        xml.contains("Signature") && xml.contains("SignatureValue"),
        "{xml}"
    );

    // Another key: not valid.
    let out = run(bin()
        .arg("verify")
        .arg(&signed)
        .arg("--schema")
        .arg(&schema)
        .arg("--cert")
        .arg(&other));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not valid"));

    // One bit of the signed message changed (a quarter in: the receipt's body, before the
    // signature): not valid, status 1.
    let tampered = dir.join("tampered.exi");
    let mut bytes = std::fs::read(&signed).unwrap();
    let mid = bytes.len() / 4;
    bytes[mid] ^= 0x10;
    std::fs::write(&tampered, &bytes).unwrap();
    let out = run(bin()
        .arg("verify")
        .arg(&tampered)
        .arg("--schema")
        .arg(&schema)
        .arg("--cert")
        .arg(&cert));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("not valid"));

    // Without --schema an EXI message is not taken for an XML document.
    let out = run(bin()
        .arg("sign")
        .arg(&message)
        .arg("--key")
        .arg(&key)
        .args(["-o", "-"]));
    assert!(!out.status.success());
}
