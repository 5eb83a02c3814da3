//! PKCS#12 key files written by OpenSSL (`openssl pkcs12 -export`, its defaults and the variants
//! people meet): the key and certificate come out, sign, and verify; a wrong password, a changed
//! byte and a cut file are refused with an error.

mod common;

use binxml_sign::dsig::{KeySource, SignOptions, VerifyOptions, sign_xml, verify_xml};
use binxml_sign::pkcs12::read_pkcs12;
use binxml_testkit::scratch_dir;
use common::{make_keys, openssl};

#[test]
fn openssl_pkcs12_files() {
    let dir = scratch_dir("sign-pkcs12");
    let keys = make_keys(&dir);
    let doc = b"<order xmlns='urn:o'><item n='1'>bolt</item></order>";
    let variants: [(&str, &[&str]); 4] = [
        ("default", &[]),
        ("mac-sha1", &["-macalg", "sha1"]),
        (
            "aes128",
            &["-keypbe", "AES-128-CBC", "-certpbe", "AES-128-CBC"],
        ),
        ("unencrypted", &["-keypbe", "NONE", "-certpbe", "NONE"]),
    ];
    let mut n = 0;
    for key in &keys {
        for (name, extra) in variants {
            let tag = format!("{} {name}", key.name);
            let p12 = dir.join(format!("{}-{name}.p12", key.name));
            let mut args = vec![
                "pkcs12",
                "-export",
                "-inkey",
                key.key_pem.to_str().unwrap(),
                "-in",
                key.cert_pem.to_str().unwrap(),
                "-passout",
                "pass:s3cret pass",
                "-out",
                p12.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            openssl(&args);
            let der = std::fs::read(&p12).unwrap();
            let (k, certs) =
                read_pkcs12(&der, "s3cret pass").unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert_eq!(k.public_key(), key.key.public_key(), "{tag}: another key");
            assert_eq!(certs.len(), 1, "{tag}");
            assert_eq!(certs[0].der(), key.cert.der(), "{tag}: another certificate");
            let signed = sign_xml(doc, &k, Some(&certs[0]), &SignOptions::default()).unwrap();
            verify_xml(
                &signed,
                KeySource::Given(key.cert.public_key()),
                &VerifyOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{tag}: {e}"));

            let wrong = read_pkcs12(&der, "s3cret")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                wrong.contains("wrong password"),
                "{tag}: a wrong password gave {wrong:?}"
            );
            for i in (0..der.len()).step_by(97) {
                let mut bad = der.clone();
                bad[i] ^= 0x20;
                assert!(
                    read_pkcs12(&bad, "s3cret pass").is_err(),
                    "{tag}: byte {i} changed and read"
                );
            }
            for cut in [0, 10, der.len() / 2, der.len() - 1] {
                assert!(
                    read_pkcs12(&der[..cut], "s3cret pass").is_err(),
                    "{tag}: {cut} bytes read"
                );
            }
            n += 1;
        }
    }
    assert_eq!(n, 12);
}
