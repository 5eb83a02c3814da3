//! Keys and certificates for the signature tests, made by openssl in a scratch directory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use binxml_sign::keys::{Certificate, PrivateKey};

/// A key pair with its self-signed certificate, and the files openssl wrote them to.
pub struct TestKey {
    pub name: &'static str,
    pub key: PrivateKey,
    pub cert: Certificate,
    pub key_pem: PathBuf,
    pub cert_pem: PathBuf,
}

/// Runs openssl, panicking with its standard error when it fails.
pub fn openssl(args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl (interop/sign/setup.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An RSA 2048, a P-256 and a P-384 key, each with a certificate, in `dir`.
pub fn make_keys(dir: &Path) -> Vec<TestKey> {
    let specs: [(&str, &[&str]); 3] = [
        ("rsa", &["-newkey", "rsa:2048"]),
        (
            "p256",
            &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
        ),
        (
            "p384",
            &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384"],
        ),
    ];
    specs
        .iter()
        .map(|(name, newkey)| {
            let key_pem = dir.join(format!("{name}.key"));
            let cert_pem = dir.join(format!("{name}.crt"));
            let subject = format!("/CN=binxml test {name}/O=binxml");
            let mut args = vec!["req", "-x509"];
            args.extend_from_slice(newkey);
            args.extend_from_slice(&[
                "-nodes",
                "-days",
                "30",
                "-subj",
                &subject,
                "-keyout",
                key_pem.to_str().unwrap(),
                "-out",
                cert_pem.to_str().unwrap(),
            ]);
            openssl(&args);
            let key = PrivateKey::from_pem(&std::fs::read_to_string(&key_pem).unwrap()).unwrap();
            let cert = Certificate::from_pem(&std::fs::read(&cert_pem).unwrap()).unwrap();
            TestKey {
                name,
                key,
                cert,
                key_pem,
                cert_pem,
            }
        })
        .collect()
}
