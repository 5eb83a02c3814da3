//! Detached XML Signatures (a `ds:Signature` document over a separate file) against xmlsec1:
//! xmlsec1 verifies binxml's (its `--url-map:URI FILE` names the file the reference's URI
//! stands for), binxml verifies xmlsec1's with the data given, and a changed file fails in both;
//! binxml never fetches what the URI names, and refuses the detached forms it does not check.

mod common;

use std::path::Path;
use std::process::Command;

use binxml_sign::SignErrorKind;
use binxml_sign::c14n::{C14N10, C14n, EXC_C14N};
use binxml_sign::dsig::{
    DSIG_NS, KeySource, SignOptions, VerifyOptions, digest_uri, sign_detached_xml, signature_uri,
    verify_detached_xml, verify_xml,
};
use binxml_sign::keys::DigestAlg;
use binxml_testkit::{scratch_dir, workspace_root};
use common::{TestKey, make_keys};

fn xmlsec1(args: &[&str]) -> Result<(), String> {
    let out = Command::new("xmlsec1")
        .args(args)
        .output()
        .expect("xmlsec1 (interop/sign/setup.sh installs it)");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// xmlsec1's verification of the detached signature `sig` whose reference `uri` is the file
/// `data`.
fn xmlsec_verify(sig: &Path, uri: &str, data: &Path, key: &TestKey) -> Result<(), String> {
    xmlsec1(&[
        "--verify",
        "--pubkey-cert-pem",
        key.cert_pem.to_str().unwrap(),
        &format!("--url-map:{uri}"),
        data.to_str().unwrap(),
        sig.to_str().unwrap(),
    ])
}

fn binxml_verify(sig: &[u8], data: &[u8], key: &TestKey) -> Result<(), String> {
    verify_detached_xml(
        sig,
        data,
        KeySource::Given(key.cert.public_key()),
        &VerifyOptions::default(),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The data signed: a seed-002 certificate's XML (signed as octets) and binary bytes.
fn payloads() -> Vec<(&'static str, Vec<u8>)> {
    let xml = std::fs::read(workspace_root().join("tests/sign/ac-prescription.xml")).unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    vec![("ac-prescription.xml", xml), ("payload.bin", binary)]
}

fn opts(c14n: &str, digest: DigestAlg) -> SignOptions {
    SignOptions {
        c14n: C14n::from_uri(c14n).unwrap(),
        digest,
        ..SignOptions::default()
    }
}

/// The data with one byte changed.
fn changed(data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    let i = d.len() / 2;
    d[i] ^= 0x01;
    d
}

#[test]
fn binxml_signs_xmlsec1_verifies() {
    let dir = scratch_dir("sign-detached-binxml");
    let keys = make_keys(&dir);
    let mut n = 0;
    for (name, data) in payloads() {
        for key in &keys {
            for (c14n, digest) in [(EXC_C14N, DigestAlg::Sha256), (C14N10, DigestAlg::Sha384)] {
                let tag = format!("{name} {} {c14n} {}", key.name, digest.name());
                let sig =
                    sign_detached_xml(&data, name, &key.key, Some(&key.cert), &opts(c14n, digest))
                        .unwrap();
                let text = String::from_utf8(sig.clone()).unwrap();
                assert!(text.contains(&format!("URI=\"{name}\"")), "{tag}: {text}");
                let sig_path = dir.join(format!("{name}.sig.xml"));
                std::fs::write(&sig_path, &sig).unwrap();
                let data_path = dir.join(name);
                std::fs::write(&data_path, &data).unwrap();
                xmlsec_verify(&sig_path, name, &data_path, key)
                    .unwrap_or_else(|e| panic!("{tag}: xmlsec1 rejects binxml's signature: {e}"));
                let v = verify_detached_xml(
                    &sig,
                    &data,
                    KeySource::Given(key.cert.public_key()),
                    &VerifyOptions::default(),
                )
                .unwrap_or_else(|e| panic!("{tag}: binxml rejects its own signature: {e}"));
                assert!(v.covers_document && v.references[0].detached, "{tag}");
                assert_eq!(v.references[0].uri, name);
                // With the certificate in KeyInfo.
                verify_detached_xml(&sig, &data, KeySource::Embedded, &VerifyOptions::default())
                    .unwrap_or_else(|e| panic!("{tag}: with its certificate: {e}"));

                // The file changed: neither accepts.
                std::fs::write(&data_path, changed(&data)).unwrap();
                assert!(
                    xmlsec_verify(&sig_path, name, &data_path, key).is_err(),
                    "{tag}: xmlsec1 accepts a changed file"
                );
                assert!(
                    binxml_verify(&sig, &changed(&data), key).is_err(),
                    "{tag}: binxml accepts a changed file"
                );
                // Without the data, binxml refuses: it never fetches the URI.
                let e = verify_xml(
                    &sig,
                    KeySource::Given(key.cert.public_key()),
                    &VerifyOptions::default(),
                )
                .unwrap_err();
                assert_eq!(e.kind(), SignErrorKind::Refused, "{tag}: {e}");
                // The reference renamed (the signature no longer matches SignedInfo).
                let renamed = text.replace(&format!("URI=\"{name}\""), "URI=\"other.bin\"");
                assert!(
                    binxml_verify(renamed.as_bytes(), &data, key).is_err(),
                    "{tag}: binxml accepts a renamed reference"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 2 * 3 * 2);
}

/// A detached signature template for xmlsec1: one reference to `uri`, no transforms.
fn template(key: &TestKey, uri: &str, c14n: &str, digest: DigestAlg) -> String {
    format!(
        r#"<?xml version="1.0"?>
<ds:Signature xmlns:ds="{DSIG_NS}">
  <ds:SignedInfo>
    <ds:CanonicalizationMethod Algorithm="{c14n}"/>
    <ds:SignatureMethod Algorithm="{sm}"/>
    <ds:Reference URI="{uri}">
      <ds:DigestMethod Algorithm="{dm}"/>
      <ds:DigestValue/>
    </ds:Reference>
  </ds:SignedInfo>
  <ds:SignatureValue/>
  <ds:KeyInfo><ds:X509Data/></ds:KeyInfo>
</ds:Signature>
"#,
        sm = signature_uri(key.key.key_type(), digest),
        dm = digest_uri(digest),
    )
}

#[test]
fn xmlsec1_signs_binxml_verifies() {
    let dir = scratch_dir("sign-detached-xmlsec");
    let keys = make_keys(&dir);
    let mut n = 0;
    for (name, data) in payloads() {
        std::fs::write(dir.join(name), &data).unwrap();
        for key in &keys {
            for (c14n, digest) in [(EXC_C14N, DigestAlg::Sha512), (C14N10, DigestAlg::Sha256)] {
                let tag = format!("{name} {} {c14n} {}", key.name, digest.name());
                let tmpl = dir.join("template.xml");
                std::fs::write(&tmpl, template(key, name, c14n, digest)).unwrap();
                let out = dir.join("xmlsec-signed.xml");
                let keyspec = format!(
                    "{},{}",
                    key.key_pem.to_str().unwrap(),
                    key.cert_pem.to_str().unwrap()
                );
                xmlsec1(&[
                    "--sign",
                    "--privkey-pem",
                    &keyspec,
                    &format!("--url-map:{name}"),
                    dir.join(name).to_str().unwrap(),
                    "--output",
                    out.to_str().unwrap(),
                    tmpl.to_str().unwrap(),
                ])
                .unwrap_or_else(|e| panic!("{tag}: xmlsec1 --sign: {e}"));
                let sig = std::fs::read(&out).unwrap();
                binxml_verify(&sig, &data, key)
                    .unwrap_or_else(|e| panic!("{tag}: binxml rejects xmlsec1's signature: {e}"));
                verify_detached_xml(&sig, &data, KeySource::Embedded, &VerifyOptions::default())
                    .unwrap_or_else(|e| panic!("{tag}: with xmlsec1's X509Data: {e}"));
                assert!(
                    binxml_verify(&sig, &changed(&data), key).is_err(),
                    "{tag}: binxml accepts xmlsec1's signature over a changed file"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 2 * 3 * 2);
}

#[test]
fn detached_forms_not_checked_are_refused() {
    let dir = scratch_dir("sign-detached-hostile");
    let keys = make_keys(&dir);
    let key = &keys[0];
    let data = b"the detached data";
    let sig = String::from_utf8(
        sign_detached_xml(
            data,
            "data.bin",
            &key.key,
            None,
            &opts(EXC_C14N, DigestAlg::Sha256),
        )
        .unwrap(),
    )
    .unwrap();
    let check = |doc: &str| {
        verify_detached_xml(
            doc.as_bytes(),
            data,
            KeySource::Given(key.cert.public_key()),
            &VerifyOptions::default(),
        )
    };
    check(&sig).unwrap();
    let kind = |doc: &str| check(doc).unwrap_err().kind();

    // The signature value changed.
    let at = sig.find("<ds:SignatureValue>").unwrap() + "<ds:SignatureValue>".len();
    let mut bad = sig.clone().into_bytes();
    bad[at + 3] = if bad[at + 3] == b'A' { b'B' } else { b'A' };
    assert_eq!(
        kind(std::str::from_utf8(&bad).unwrap()),
        SignErrorKind::Invalid
    );

    // A transform on the detached reference (its digest would not be of the octets given).
    let with_transform = sig.replace(
        "<ds:DigestMethod",
        "<ds:Transforms><ds:Transform Algorithm=\"http://www.w3.org/TR/1999/REC-xslt-19991116\"/></ds:Transforms><ds:DigestMethod",
    );
    assert_eq!(kind(&with_transform), SignErrorKind::Unsupported);

    // The signature inside another document (not the document element).
    let body = sig.find("<ds:Signature").unwrap();
    let wrapped = format!("<Wrapper>{}</Wrapper>", &sig[body..]);
    assert_eq!(kind(&wrapped), SignErrorKind::Refused);

    // A second reference (the data given can answer for one only).
    let r = sig.find("<ds:Reference").unwrap();
    let r_end = sig.find("</ds:Reference>").unwrap() + "</ds:Reference>".len();
    let twice = format!("{}{}{}", &sig[..r_end], &sig[r..r_end], &sig[r_end..]);
    assert_eq!(kind(&twice), SignErrorKind::Refused);

    // Given data, a same-document reference is not what was asked for.
    let same_doc = sig.replace("URI=\"data.bin\"", "URI=\"\"");
    assert_eq!(kind(&same_doc), SignErrorKind::Refused);

    // URIs that are no relative reference to a file.
    for uri in ["", "#x", "a b", "a\"b"] {
        assert!(
            sign_detached_xml(data, uri, &key.key, None, &SignOptions::default()).is_err(),
            "{uri:?}"
        );
    }
}
