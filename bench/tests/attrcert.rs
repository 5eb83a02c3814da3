//! Seed 002's DER attribute certificates (examples/attrcert) against OpenSSL: `openssl
//! asn1parse` reads each signed certificate and finds its attribute and times, `openssl dgst
//! -verify` accepts its signature over the DER of its `acinfo`; binxml's side refuses a changed
//! or truncated certificate. Their X.693 XER form (`tests/sign/xer/`) against asn1tools, which
//! makes it from the DER and reads it back to the same value, and xmlsec1, which verifies it
//! signed by binxml.

#[path = "../examples/attrcert/model.rs"]
#[allow(dead_code)]
mod model;

use std::path::{Path, PathBuf};
use std::process::Command;

use binxml::sign::keys::{DigestAlg, PrivateKey};
use der::{Decode, Encode};

fn openssl(args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl (interop/sign/setup.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scratch() -> PathBuf {
    let d = binxml_testkit::workspace_root().join("target/test-scratch/attrcert");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn der_certificates_are_read_and_verified_by_openssl() {
    let dir = scratch();
    let (key_pem, pub_pem) = (dir.join("aa.key"), dir.join("aa.pub"));
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        p(&key_pem),
    ]);
    openssl(&["pkey", "-in", p(&key_pem), "-pubout", "-out", p(&pub_pem)]);
    let key = PrivateKey::from_pem(&std::fs::read_to_string(&key_pem).unwrap()).unwrap();
    let public = key.public_key();
    let root = binxml_testkit::workspace_root();
    for (file, oid, records) in [
        ("ac-simple.xml", model::ALLOWED_ACCESS, 0),
        ("ac-prescription.xml", model::ETP_PRESCRIBE, 2),
        ("ac-audit.xml", model::AUDIT_CERTIFICATE, 40),
    ] {
        let xml = std::fs::read_to_string(root.join("tests/sign").join(file)).unwrap();
        let acinfo = model::from_xml(&xml).unwrap();
        let der = model::sign(&acinfo, |tbs| Ok(key.sign(DigestAlg::Sha256, tbs)?)).unwrap();
        let path = dir.join(format!("{file}.der"));
        std::fs::write(&path, &der).unwrap();

        // OpenSSL's view of the structure.
        let dump = openssl(&["asn1parse", "-inform", "DER", "-in", p(&path)]);
        assert!(
            dump.contains(oid),
            "{file}: asn1parse does not show the attribute type {oid}:\n{dump}"
        );
        assert!(
            dump.contains("GENERALIZEDTIME"),
            "{file}: no validity times:\n{dump}"
        );
        assert!(
            dump.contains("sha256WithRSAEncryption"),
            "{file}: no signature algorithm:\n{dump}"
        );
        // The two directory names hold 4 (CN and O); a prescription's people, codes and dates
        // 11 (the title is [0] IMPLICIT) and each item 4 more; an audit record 5.
        let utf8 = dump.matches("UTF8STRING").count();
        let expected = 4 + match records {
            0 => 0,
            2 => 11 + 2 * 4,
            n => 5 * n,
        };
        assert_eq!(utf8, expected, "{file}: UTF8Strings in asn1parse's dump");

        // OpenSSL checks the signature over the acinfo's DER.
        let ac = model::AttributeCertificate::from_der(&der).unwrap();
        let (tbs, sig) = (
            dir.join(format!("{file}.tbs")),
            dir.join(format!("{file}.sig")),
        );
        std::fs::write(&tbs, ac.acinfo.to_der().unwrap()).unwrap();
        std::fs::write(&sig, ac.signature_value.raw_bytes()).unwrap();
        let ok = openssl(&[
            "dgst",
            "-sha256",
            "-verify",
            p(&pub_pem),
            "-signature",
            p(&sig),
            p(&tbs),
        ]);
        assert!(ok.contains("Verified OK"), "{file}: {ok}");

        // binxml's side: the certificate decodes to what was signed; any changed byte of the
        // acinfo breaks the signature or the decoding; no prefix decodes.
        let verify = |b: &[u8]| {
            model::verify_and_decode(b, |t, s| Ok(public.verify(DigestAlg::Sha256, t, s)?))
        };
        let (back, values) = verify(&der).unwrap();
        assert_eq!(back.acinfo, acinfo);
        assert_eq!(values.len(), 1);
        // The borrowed decoding the benchmark times reads the same certificate.
        let verify_ref = |b: &[u8]| {
            model::verify_and_decode_ref(b, |t, s| Ok(public.verify(DigestAlg::Sha256, t, s)?))
                .map(|(ac, values)| (ac.acinfo.to_der().unwrap(), values.len()))
        };
        let (back_ref, n) = verify_ref(&der).unwrap();
        assert_eq!(back_ref, acinfo.to_der().unwrap());
        assert_eq!(n, 1);
        let (info_ref, values_ref) = model::decode_unsigned_ref(&back_ref).unwrap();
        assert_eq!(info_ref.attributes.len(), 1);
        assert_eq!(
            values_ref[0].to_der().unwrap(),
            values[0].to_der().unwrap(),
            "{file}: the borrowed attribute value differs"
        );
        let tbs_len = ac.acinfo.to_der().unwrap().len();
        for i in (4..4 + tbs_len).step_by(7) {
            let mut bad = der.clone();
            bad[i] ^= 0x01;
            assert!(
                verify(&bad).is_err(),
                "{file}: byte {i} changed and still verified"
            );
            assert!(
                verify_ref(&bad).is_err(),
                "{file}: byte {i} changed and still verified (borrowed)"
            );
        }
        for cut in [0, 1, der.len() / 2, der.len() - 1] {
            assert!(verify(&der[..cut]).is_err(), "{file}: {cut} bytes verified");
            assert!(
                verify_ref(&der[..cut]).is_err(),
                "{file}: {cut} bytes verified (borrowed)"
            );
        }
        // The unsigned DER: every prefix is refused by the borrowed decoding too.
        let unsigned = acinfo.to_der().unwrap();
        for cut in (0..unsigned.len()).step_by(11) {
            assert!(
                model::decode_unsigned_ref(&unsigned[..cut]).is_err(),
                "{file}: {cut}"
            );
        }
    }
}

/// The audit attribute's list, decoded record by record with flat readers (what the benchmark
/// times), agrees with the `der` crate's derived decoding of `Vec<AuditRecordRef>` on every
/// changed and cut form of it: the same records, or both refused.
#[test]
fn flat_audit_decoding_agrees_with_the_derived_one() {
    use der::asn1::AnyRef;
    let root = binxml_testkit::workspace_root();
    let xml = std::fs::read_to_string(root.join("tests/sign/ac-audit.xml")).unwrap();
    let unsigned = model::from_xml(&xml).unwrap().to_der().unwrap();
    let (info, _) = model::decode_unsigned_ref(&unsigned).unwrap();
    let value = info.attributes[0]
        .values
        .iter()
        .next()
        .unwrap()
        .to_der()
        .unwrap();
    type Decoded<'a> = Result<Vec<model::AuditRecordRef<'a>>, der::Error>;
    // The list decoded both ways, when its outer TLV still parses.
    fn both(b: &[u8]) -> Option<(Decoded<'_>, Decoded<'_>)> {
        let any = AnyRef::from_der(b).ok()?;
        Some((model::audit_records(&any), any.decode_as()))
    }
    let (flat, derived) = both(&value).unwrap();
    assert_eq!(flat.as_ref().unwrap().len(), 40);
    assert_eq!(flat.unwrap(), derived.unwrap());
    let (mut refused, mut compared) = (0, 0);
    let mut check = |b: &[u8], what: &str| {
        if let Some((flat, derived)) = both(b) {
            compared += 1;
            match (flat, derived) {
                (Ok(f), Ok(d)) => assert_eq!(f, d, "{what}: the decodings differ"),
                (Err(_), Err(_)) => refused += 1,
                (f, d) => panic!("{what}: flat {f:?}, derived {d:?}"),
            }
        }
    };
    for i in 0..value.len() {
        for mask in [0x01u8, 0x20, 0x80] {
            let mut bad = value.clone();
            bad[i] ^= mask;
            check(&bad, &format!("byte {i} ^ {mask:#04x}"));
        }
    }
    // Cut inside the contents, the outer length fixed up so the list itself still parses.
    let header = value.len()
        - info.attributes[0]
            .values
            .iter()
            .next()
            .unwrap()
            .value()
            .len();
    for cut in (header..value.len()).step_by(13) {
        let mut body = value[header..cut].to_vec();
        let b = AnyRef::new(der::Tag::Sequence, &body)
            .unwrap()
            .to_der()
            .unwrap();
        check(&b, &format!("cut at {cut}"));
        body.push(0);
        let b = AnyRef::new(der::Tag::Sequence, &body)
            .unwrap()
            .to_der()
            .unwrap();
        check(&b, &format!("cut at {cut}, a byte added"));
    }
    assert!(
        refused > 1000 && compared > refused,
        "{refused} of {compared}"
    );
}

/// The certificates in X.693 BASIC-XER (`tests/sign/xer/`, the benchmark's XER rows) are what an
/// independent encoder makes of the DER ones: `interop/sign/attrcert_xer.py` has asn1tools
/// decode each unsigned DER certificate, write it in BASIC-XER, decode that back to the same
/// value and encode it again to the same DER octets; its output must be the checked-in files.
/// binxml signs each (enveloped, as the benchmark does) and xmlsec1 and binxml verify it; a
/// changed value fails in both.
#[test]
fn xer_certificates_are_asn1tools_encodings_of_the_der_ones() {
    use binxml::sign::dsig::{KeySource, SignOptions, VerifyOptions, sign_xml, verify_xml};
    let root = binxml_testkit::workspace_root();
    let dir = scratch().join("xer");
    std::fs::create_dir_all(&dir).unwrap();
    let names = ["simple", "prescription", "audit"];
    let mut args = vec![root.join("interop/sign/attrcert_xer.py")];
    for name in names {
        let xml = std::fs::read_to_string(root.join(format!("tests/sign/ac-{name}.xml"))).unwrap();
        let der = model::encode_unsigned(&model::from_xml(&xml).unwrap()).unwrap();
        let (der_path, xer_path) = (
            dir.join(format!("{name}.der")),
            dir.join(format!("{name}.xml")),
        );
        std::fs::write(&der_path, &der).unwrap();
        let _ = std::fs::remove_file(&xer_path);
        args.extend([der_path, xer_path]);
    }
    let out = Command::new(binxml_testkit::python())
        .args(&args)
        .output()
        .expect("python (scripts/lib.sh ensure_venv; interop/asn1/setup.sh installs asn1tools)");
    assert!(
        out.status.success(),
        "attrcert_xer.py: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let (key_pem, pub_pem) = (dir.join("aa.key"), dir.join("aa.pub"));
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        p(&key_pem),
    ]);
    openssl(&["pkey", "-in", p(&key_pem), "-pubout", "-out", p(&pub_pem)]);
    let key = PrivateKey::from_pem(&std::fs::read_to_string(&key_pem).unwrap()).unwrap();
    let public = key.public_key();
    let xmlsec_verify = |path: &Path| {
        Command::new("xmlsec1")
            .args(["--verify", "--pubkey-pem", p(&pub_pem), p(path)])
            .output()
            .expect("xmlsec1 (interop/sign/setup.sh installs it)")
    };
    for name in names {
        let made = std::fs::read(dir.join(format!("{name}.xml"))).unwrap();
        let kept = std::fs::read(root.join(format!("tests/sign/xer/ac-{name}.xml"))).unwrap();
        assert!(
            made == kept,
            "tests/sign/xer/ac-{name}.xml is not what interop/sign/attrcert_xer.py makes of the \
             DER certificate now (regenerate it from {})",
            p(&dir.join(format!("{name}.der")))
        );
        let text = String::from_utf8(kept.clone()).unwrap();
        assert!(
            text.starts_with("<AttributeCertificateInfo><version>1</version><holder>"),
            "{name}: {}",
            &text[..80]
        );

        let signed = sign_xml(&kept, &key, None, &SignOptions::default()).unwrap();
        let path = dir.join(format!("{name}.signed.xml"));
        std::fs::write(&path, &signed).unwrap();
        verify_xml(
            &signed,
            KeySource::Given(&public),
            &VerifyOptions::default(),
        )
        .unwrap();
        let x = xmlsec_verify(&path);
        assert!(
            x.status.success(),
            "{name}: xmlsec1 rejects binxml's signature: {}",
            String::from_utf8_lossy(&x.stderr)
        );
        // One value changed: the serial number 100x becomes 200x.
        let tampered = String::from_utf8(signed).unwrap().replacen(
            "<serialNumber>100",
            "<serialNumber>200",
            1,
        );
        assert!(tampered.contains("<serialNumber>200"), "{name}");
        let bad = dir.join(format!("{name}.tampered.xml"));
        std::fs::write(&bad, &tampered).unwrap();
        assert!(
            verify_xml(
                tampered.as_bytes(),
                KeySource::Given(&public),
                &VerifyOptions::default()
            )
            .is_err(),
            "{name}: binxml accepts a changed serial number"
        );
        assert!(
            !xmlsec_verify(&bad).status.success(),
            "{name}: xmlsec1 accepts a changed serial number"
        );
    }
}
