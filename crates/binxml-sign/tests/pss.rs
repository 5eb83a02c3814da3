//! RSA-PSS XML Signatures (RFC 6931's `...#sha256-rsa-MGF1` and siblings) against OpenSSL and
//! libxml2. xmlsec1 1.2 has no PSS, so the two halves of a signature are checked apart: the
//! canonical `SignedInfo` binxml signs equals libxml2's canonical form of it (lxml,
//! `interop/sign/c14n_oracle.py`), `openssl dgst` verifies binxml's signature value over that
//! canonical form with PSS (MGF1 over the same digest, a salt as long as the digest), and binxml
//! verifies a signature value OpenSSL made over it. Changed content fails every way.

mod common;

use std::path::Path;
use std::process::Command;

use binxml_core::{Event, base64};
use binxml_sign::c14n::{C14N10, C14n, EXC_C14N, Subset, canonicalize_subset};
use binxml_sign::dsig::{DSIG_NS, KeySource, SignOptions, VerifyOptions, sign_xml, verify_xml};
use binxml_sign::keys::{DigestAlg, RsaPadding};
use binxml_testkit::{LineOracle, python, scratch_dir, workspace_root};
use common::{make_keys, openssl};

fn openssl_ok(args: &[&str]) -> bool {
    Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl (interop/sign/setup.sh installs it)")
        .status
        .success()
}

/// The text between `<ds:{tag}>` and its end tag, and where it lies.
fn element_text<'d>(doc: &'d str, tag: &str) -> (usize, usize, &'d str) {
    let (open, close) = (format!("<ds:{tag}>"), format!("</ds:{tag}>"));
    let a = doc.find(&open).expect("the element") + open.len();
    let b = doc[a..].find(&close).expect("its end") + a;
    (a, b, &doc[a..b])
}

/// `openssl dgst`'s PSS options for `digest`: MGF1 over the same digest, salt as long as it.
fn pss_opts(digest: DigestAlg) -> Vec<String> {
    let len = match digest {
        DigestAlg::Sha256 => 32,
        DigestAlg::Sha384 => 48,
        _ => 64,
    };
    vec![
        format!("-{}", digest.name()),
        "-sigopt".into(),
        "rsa_padding_mode:pss".into(),
        "-sigopt".into(),
        format!("rsa_pss_saltlen:{len}"),
        "-sigopt".into(),
        format!("rsa_mgf1_md:{}", digest.name()),
    ]
}

#[test]
fn rsa_pss_with_openssl_over_libxml2_canonical_signed_info() {
    let dir = scratch_dir("sign-pss");
    let keys = make_keys(&dir);
    let key = keys.iter().find(|k| k.name == "rsa").unwrap();
    let pubkey = dir.join("rsa.pub");
    openssl(&[
        "x509",
        "-in",
        key.cert_pem.to_str().unwrap(),
        "-pubkey",
        "-noout",
        "-out",
        pubkey.to_str().unwrap(),
    ]);
    let mut lxml = LineOracle::spawn(
        Command::new(python()).arg(workspace_root().join("interop/sign/c14n_oracle.py")),
    )
    .expect("start the C14N oracle");
    let p = |p: &Path| p.to_str().unwrap().to_string();
    let verify = |doc: &[u8]| {
        verify_xml(
            doc,
            KeySource::Given(key.cert.public_key()),
            &VerifyOptions::default(),
        )
    };
    let mut n = 0;
    for file in ["ac-simple.xml", "ac-audit.xml"] {
        let bytes = std::fs::read(workspace_root().join("tests/sign").join(file)).unwrap();
        for (mode, c14n_uri) in [("exc", EXC_C14N), ("c14n", C14N10)] {
            for digest in [DigestAlg::Sha256, DigestAlg::Sha384, DigestAlg::Sha512] {
                let tag = format!("{file} {mode} {}", digest.name());
                let c14n = C14n::from_uri(c14n_uri).unwrap();
                let opts = SignOptions {
                    c14n: c14n.clone(),
                    digest,
                    rsa_padding: RsaPadding::Pss,
                    ..SignOptions::default()
                };
                let signed = sign_xml(&bytes, &key.key, None, &opts).unwrap();
                let text = String::from_utf8(signed.clone()).unwrap();
                assert!(
                    text.contains(&format!("xmldsig-more#{}-rsa-MGF1", digest.name())),
                    "{tag}"
                );
                let v = verify(&signed).unwrap_or_else(|e| panic!("{tag}: binxml: {e}"));
                assert!(v.signature_method.ends_with("-rsa-MGF1"), "{tag}");

                // binxml's canonical SignedInfo against libxml2's.
                let doc_path = dir.join("pss-signed.xml");
                std::fs::write(&doc_path, &signed).unwrap();
                let events = binxml_xml::decode(&signed).unwrap();
                let starts: Vec<usize> = events
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| matches!(e, Event::StartElement(_)))
                    .map(|(i, _)| i)
                    .collect();
                let (nth, &apex) = starts
                    .iter()
                    .enumerate()
                    .find(|(_, i)| {
                        matches!(&events[**i], Event::StartElement(q)
                            if q.namespace == DSIG_NS && q.local == "SignedInfo")
                    })
                    .unwrap();
                let ours = canonicalize_subset(
                    &events,
                    &Subset {
                        apex: Some(apex),
                        exclude: &[],
                    },
                    &c14n,
                )
                .unwrap();
                let info_path = dir.join("signed-info.c14n");
                let answer = lxml.ask(&[&p(&doc_path), mode, &nth.to_string(), &p(&info_path)]);
                assert_eq!(answer, "ok", "{tag}: lxml: {answer}");
                let theirs = std::fs::read(&info_path).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&theirs),
                    "{tag}: binxml's canonical SignedInfo is not libxml2's"
                );

                // OpenSSL verifies binxml's signature value over libxml2's canonical form.
                let (a, b, value) = element_text(&text, "SignatureValue");
                let sig_path = dir.join("pss.sig");
                std::fs::write(&sig_path, base64::decode(value).unwrap()).unwrap();
                let mut args: Vec<String> = vec!["dgst".into()];
                args.extend(pss_opts(digest));
                args.extend([
                    "-verify".into(),
                    p(&pubkey),
                    "-signature".into(),
                    p(&sig_path),
                ]);
                let with = |file: &Path| {
                    let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
                    let f = p(file);
                    a.push(&f);
                    openssl_ok(&a)
                };
                assert!(
                    with(&info_path),
                    "{tag}: openssl rejects binxml's PSS signature"
                );
                let changed_info = dir.join("signed-info-changed.c14n");
                let mut bad = theirs.clone();
                *bad.last_mut().unwrap() ^= 1;
                std::fs::write(&changed_info, bad).unwrap();
                assert!(!with(&changed_info), "{tag}: openssl accepts a change");

                // OpenSSL signs the same canonical SignedInfo with PSS; binxml verifies the
                // document carrying that value, and refuses it with a changed text.
                let ossl_sig = dir.join("openssl-pss.sig");
                let mut sign_args: Vec<String> = vec!["dgst".into()];
                sign_args.extend(pss_opts(digest));
                sign_args.extend([
                    "-sign".into(),
                    p(&key.key_pem),
                    "-out".into(),
                    p(&ossl_sig),
                    p(&info_path),
                ]);
                openssl(&sign_args.iter().map(String::as_str).collect::<Vec<_>>());
                let theirs_value = base64::encode(&std::fs::read(&ossl_sig).unwrap());
                assert_ne!(theirs_value, value, "{tag}: PSS is randomized");
                let with_theirs = format!("{}{theirs_value}{}", &text[..a], &text[b..]);
                verify(with_theirs.as_bytes())
                    .unwrap_or_else(|e| panic!("{tag}: binxml rejects OpenSSL's PSS: {e}"));
                let tampered =
                    with_theirs.replacen("<Version>v2</Version>", "<Version>v3</Version>", 1);
                assert_ne!(tampered, with_theirs);
                assert!(
                    verify(tampered.as_bytes()).is_err(),
                    "{tag}: tampered accepted"
                );
                // The same value under the PKCS#1 v1.5 method: refused.
                let as_pkcs1 = with_theirs.replace(
                    &format!(
                        "http://www.w3.org/2007/05/xmldsig-more#{}-rsa-MGF1",
                        digest.name()
                    ),
                    &format!(
                        "http://www.w3.org/2001/04/xmldsig-more#rsa-{}",
                        digest.name()
                    ),
                );
                assert!(
                    verify(as_pkcs1.as_bytes()).is_err(),
                    "{tag}: as PKCS#1 accepted"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 2 * 2 * 3);
}

#[test]
fn pss_needs_an_rsa_key() {
    let dir = scratch_dir("sign-pss-ec");
    let keys = make_keys(&dir);
    let bytes = std::fs::read(workspace_root().join("tests/sign/ac-simple.xml")).unwrap();
    for key in keys.iter().filter(|k| k.name != "rsa") {
        let opts = SignOptions {
            rsa_padding: RsaPadding::Pss,
            ..SignOptions::default()
        };
        assert!(
            sign_xml(&bytes, &key.key, None, &opts).is_err(),
            "{}",
            key.name
        );
    }
}
