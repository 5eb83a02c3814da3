//! CMS SignedData against OpenSSL: `openssl cms -verify` accepts binxml's signatures (detached
//! and enveloping, RSA, P-256, P-384), binxml accepts `openssl cms -sign`'s, a changed content
//! fails in both, and a truncated or mangled SignedData is refused without a panic.

mod common;

use std::path::Path;
use std::process::Command;

use binxml_sign::SignErrorKind;
use binxml_sign::cms::{is_cms, sign_cms, verify_cms};
use binxml_sign::dsig::{KeySource, VerifyOptions};
use binxml_testkit::{scratch_dir, workspace_root};
use common::{TestKey, make_keys, openssl};

fn openssl_verify(p7s: &Path, content: Option<&Path>, key: &TestKey) -> bool {
    let mut cmd = Command::new("openssl");
    cmd.args(["cms", "-verify", "-binary", "-inform", "DER", "-in"])
        .arg(p7s)
        .arg("-CAfile")
        .arg(&key.cert_pem)
        .args(["-out", "/dev/null"]);
    if let Some(c) = content {
        cmd.arg("-content").arg(c);
    }
    cmd.output().expect("openssl").status.success()
}

fn contents() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for f in ["ac-simple.xml", "ac-audit.xml"] {
        out.push((
            f.to_string(),
            std::fs::read(workspace_root().join("tests/sign").join(f)).unwrap(),
        ));
    }
    // Bytes that are no text at all, as a binary format's are.
    out.push(("binary".into(), (0..=255u8).cycle().take(5000).collect()));
    out
}

#[test]
fn openssl_verifies_binxml_and_binxml_verifies_openssl() {
    let dir = scratch_dir("sign-cms");
    let keys = make_keys(&dir);
    let opts = VerifyOptions::default();
    let mut n = 0;
    for key in &keys {
        for (name, content) in contents() {
            let content_path = dir.join("content.bin");
            std::fs::write(&content_path, &content).unwrap();
            let mut changed = content.clone();
            changed[content.len() / 2] ^= 1;
            let changed_path = dir.join("changed.bin");
            std::fs::write(&changed_path, &changed).unwrap();
            for detached in [false, true] {
                let tag = format!("{} {name} detached={detached}", key.name);
                // binxml signs.
                let p7s = sign_cms(&content, &key.key, &key.cert, detached).unwrap();
                assert!(is_cms(&p7s), "{tag}");
                let p7s_path = dir.join("binxml.p7s");
                std::fs::write(&p7s_path, &p7s).unwrap();
                let given = detached.then_some(content.as_slice());
                assert!(
                    openssl_verify(&p7s_path, detached.then_some(&content_path), key),
                    "{tag}: openssl rejects binxml's signature"
                );
                let v = verify_cms(&p7s, given, KeySource::Given(key.cert.public_key()), &opts)
                    .unwrap_or_else(|e| panic!("{tag}: {e}"));
                assert_eq!(v.content, content);
                let v = verify_cms(&p7s, given, KeySource::Embedded, &opts).unwrap();
                assert_eq!(v.certificate.unwrap().subject(), key.cert.subject());
                if detached {
                    assert!(
                        !openssl_verify(&p7s_path, Some(&changed_path), key),
                        "{tag}"
                    );
                    let e =
                        verify_cms(&p7s, Some(&changed), KeySource::Embedded, &opts).unwrap_err();
                    assert_eq!(e.kind(), SignErrorKind::Invalid, "{tag}: {e}");
                }

                // OpenSSL signs.
                let theirs = dir.join("openssl.p7s");
                let mut args = vec![
                    "cms",
                    "-sign",
                    "-binary",
                    "-md",
                    "sha256",
                    "-outform",
                    "DER",
                    "-in",
                    content_path.to_str().unwrap(),
                    "-signer",
                    key.cert_pem.to_str().unwrap(),
                    "-inkey",
                    key.key_pem.to_str().unwrap(),
                    "-out",
                    theirs.to_str().unwrap(),
                ];
                if !detached {
                    args.push("-nodetach");
                }
                openssl(&args);
                let der = std::fs::read(&theirs).unwrap();
                let v = verify_cms(&der, given, KeySource::Given(key.cert.public_key()), &opts)
                    .unwrap_or_else(|e| panic!("{tag}: binxml rejects openssl's signature: {e}"));
                assert_eq!(v.content, content);
                verify_cms(&der, given, KeySource::Embedded, &opts).unwrap();
                if detached {
                    let e =
                        verify_cms(&der, Some(&changed), KeySource::Embedded, &opts).unwrap_err();
                    assert_eq!(e.kind(), SignErrorKind::Invalid, "{tag}: {e}");
                } else {
                    // The enveloped content changed in place: its bytes are in the DER as they are.
                    let at = der
                        .windows(content.len().min(64))
                        .position(|w| w == &content[..content.len().min(64)])
                        .expect("the content in the SignedData");
                    let mut bad = der.clone();
                    bad[at + 3] ^= 1;
                    let bad_path = dir.join("tampered.p7s");
                    std::fs::write(&bad_path, &bad).unwrap();
                    assert!(!openssl_verify(&bad_path, None, key), "{tag}");
                    assert!(
                        verify_cms(&bad, None, KeySource::Embedded, &opts).is_err(),
                        "{tag}"
                    );
                }
                n += 1;
            }
        }
    }
    assert_eq!(n, 3 * 3 * 2);
}

#[test]
fn truncated_and_mangled_signed_data_is_refused() {
    let dir = scratch_dir("sign-cms-hostile");
    let keys = make_keys(&dir);
    let key = &keys[0];
    let content = b"<a>signed</a>";
    let p7s = sign_cms(content, &key.key, &key.cert, false).unwrap();
    let opts = VerifyOptions::default();
    for cut in 0..p7s.len() {
        assert!(
            verify_cms(&p7s[..cut], None, KeySource::Embedded, &opts).is_err(),
            "a prefix of {cut} bytes accepted"
        );
    }
    for i in 0..p7s.len() {
        let mut bad = p7s.clone();
        bad[i] ^= 0x55;
        // A changed byte may fall where DER is lenient (none here is), never a panic; a
        // verification that succeeds must have returned the original content.
        if let Ok(v) = verify_cms(&bad, None, KeySource::Given(key.cert.public_key()), &opts) {
            assert_eq!(v.content, content, "byte {i} changed the content unnoticed");
        }
    }
    // Content given to a signature that carries its own, and none to a detached one.
    assert!(verify_cms(&p7s, Some(content), KeySource::Embedded, &opts).is_err());
    let detached = sign_cms(content, &key.key, &key.cert, true).unwrap();
    assert!(verify_cms(&detached, None, KeySource::Embedded, &opts).is_err());
}
