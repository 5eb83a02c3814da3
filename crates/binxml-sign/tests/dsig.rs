//! Enveloped signatures made and checked by binxml: every key type, canonicalization and
//! digest; and the documents verification must refuse or find invalid.

mod common;

use binxml_sign::SignErrorKind;
use binxml_sign::c14n::{C14N10, C14N10_COMMENTS, C14n, EXC_C14N, EXC_C14N_COMMENTS};
use binxml_sign::dsig::{KeySource, SignOptions, Target, VerifyOptions, sign_xml, verify_xml};
use binxml_sign::keys::DigestAlg;
use binxml_testkit::scratch_dir;
use common::{TestKey, make_keys};

const DOC: &str = r#"<?xml version="1.0"?>
<!-- before -->
<inv:Invoice xmlns:inv="urn:example:invoice" xmlns:x="urn:unused" xml:lang="en" Id="inv-1">
  <inv:Party role="seller"><Name xmlns="urn:names">Acme &amp; Co</Name></inv:Party>
  <inv:Line n="1" price="9.50">Widgets<!-- note --></inv:Line>
  <inv:Line n="2" price="3.25"><?keep this?>Gadgets</inv:Line>
  <Item Id="item-1">loose</Item>
</inv:Invoice>
"#;

/// The keys, made once: the tests run in parallel and share them (and their directory).
fn keys() -> &'static [TestKey] {
    static KEYS: std::sync::OnceLock<Vec<TestKey>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| make_keys(&scratch_dir("sign-dsig-keys")))
}

fn sign(key: &TestKey, opts: &SignOptions) -> String {
    String::from_utf8(sign_xml(DOC.as_bytes(), &key.key, Some(&key.cert), opts).unwrap()).unwrap()
}

fn verify(doc: &str, key: &TestKey) -> Result<binxml_sign::dsig::Verified, binxml_sign::SignError> {
    verify_xml(
        doc.as_bytes(),
        KeySource::Given(key.cert.public_key()),
        &VerifyOptions::default(),
    )
}

#[test]
fn every_key_canonicalization_and_digest_round_trips() {
    let mut n = 0;
    for key in keys() {
        for c in [C14N10, C14N10_COMMENTS, EXC_C14N, EXC_C14N_COMMENTS] {
            for digest in [DigestAlg::Sha256, DigestAlg::Sha384, DigestAlg::Sha512] {
                let opts = SignOptions {
                    c14n: C14n::from_uri(c).unwrap(),
                    digest,
                    target: Target::Document,
                    ..SignOptions::default()
                };
                let signed = sign(key, &opts);
                let v = verify(&signed, key)
                    .unwrap_or_else(|e| panic!("{} {c} {digest:?}: {e}\n{signed}", key.name));
                assert!(v.covers_document);
                assert_eq!(v.references.len(), 1);
                let embedded = verify_xml(
                    signed.as_bytes(),
                    KeySource::Embedded,
                    &VerifyOptions::default(),
                )
                .unwrap();
                assert_eq!(embedded.certificate.unwrap().subject(), key.cert.subject());
                n += 1;
            }
        }
    }
    assert_eq!(n, 36);
}

#[test]
fn a_signature_by_id_covers_its_element_only() {
    let keys = keys();
    let key = &keys[0];
    let opts = SignOptions {
        target: Target::Id("item-1".into()),
        ..SignOptions::default()
    };
    let signed = sign(key, &opts);
    // The default policy wants the document element covered.
    let e = verify(&signed, key).unwrap_err();
    assert_eq!(e.kind(), SignErrorKind::Refused, "{e}");
    let partial = VerifyOptions {
        require_document_element: false,
        ..VerifyOptions::default()
    };
    let v = verify_xml(
        signed.as_bytes(),
        KeySource::Given(key.cert.public_key()),
        &partial,
    )
    .unwrap();
    assert!(!v.covers_document);
    assert_eq!(v.references[0].uri, "#item-1");
    // Content outside the signed element may change; inside it may not.
    let outside = signed.replace("Widgets", "Gizmos");
    verify_xml(
        outside.as_bytes(),
        KeySource::Given(key.cert.public_key()),
        &partial,
    )
    .unwrap();
    let inside = signed.replace("loose", "tight");
    let e = verify_xml(
        inside.as_bytes(),
        KeySource::Given(key.cert.public_key()),
        &partial,
    )
    .unwrap_err();
    assert_eq!(e.kind(), SignErrorKind::Invalid, "{e}");
    // The root's id covers the document element.
    let opts = SignOptions {
        target: Target::Id("inv-1".into()),
        ..SignOptions::default()
    };
    assert!(verify(&sign(key, &opts), key).unwrap().covers_document);
}

fn expect(doc: &str, key: &TestKey, kind: SignErrorKind, what: &str) {
    match verify(doc, key) {
        Ok(_) => panic!("{what}: accepted\n{doc}"),
        Err(e) => assert_eq!(e.kind(), kind, "{what}: {e}"),
    }
}

#[test]
fn tampered_documents_fail() {
    let keys = keys();
    let key = &keys[1];
    let signed = sign(key, &SignOptions::default());
    verify(&signed, key).unwrap();
    expect(
        &signed.replace("9.50", "0.50"),
        key,
        SignErrorKind::Invalid,
        "changed attribute",
    );
    expect(
        &signed.replace("Widgets", "Widgetz"),
        key,
        SignErrorKind::Invalid,
        "changed text",
    );
    // A moved element: the second line before the first.
    let l1 = r#"<inv:Line n="1" price="9.50">Widgets<!-- note --></inv:Line>"#;
    let l2 = r#"<inv:Line n="2" price="3.25"><?keep this?>Gadgets</inv:Line>"#;
    let moved = signed
        .replace(l1, "@L1@")
        .replace(l2, l1)
        .replace("@L1@", l2);
    assert_ne!(moved, signed);
    expect(&moved, key, SignErrorKind::Invalid, "moved element");
    // Wrapping: the signed document inside a new document element next to forged content.
    let body = signed.split_once("-->\n").unwrap().1;
    let wrapped = format!("<Wrapper><Forged>pay 1000</Forged>{body}</Wrapper>");
    expect(&wrapped, key, SignErrorKind::Invalid, "wrapped document");
    // An Object in the signature is where wrapping hides content.
    let with_object = signed.replace(
        "</ds:Signature>",
        "<ds:Object><inv:Line n=\"9\">Free</inv:Line></ds:Object></ds:Signature>",
    );
    expect(&with_object, key, SignErrorKind::Refused, "ds:Object");
    // Another key.
    let other = &keys[2];
    assert_eq!(
        verify(&signed, other).unwrap_err().kind(),
        SignErrorKind::Invalid
    );
    let rsa = &keys[0];
    assert_eq!(
        verify(&signed, rsa).unwrap_err().kind(),
        SignErrorKind::Invalid
    );
    // A comment added where it is outside the node-set changes nothing (same-document
    // references drop comments), as in xmlsec1.
    verify(&signed.replace("Widgets", "Widgets<!-- new -->"), key).unwrap();
}

#[test]
fn refused_constructions() {
    let keys = keys();
    let key = &keys[0];
    let signed = sign(key, &SignOptions::default());
    let enveloped =
        r#"<ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>"#;
    assert!(signed.contains(enveloped), "{signed}");
    let cases: Vec<(String, SignErrorKind, &str)> = vec![
        (
            signed.replace(r#"URI="""#, r#"URI="http://example.com/doc.xml""#),
            SignErrorKind::Refused,
            "external URI",
        ),
        (
            signed.replace(r#"URI="""#, r##"URI="#xpointer(/)""##),
            SignErrorKind::Refused,
            "XPointer",
        ),
        (
            signed.replace(r#"URI="""#, r##"URI="#nowhere""##),
            SignErrorKind::Refused,
            "missing id",
        ),
        (
            signed.replace(r#"URI="""#, "").replace("<Item Id=\"item-1\">", "<Item Id=\"inv-1\">"),
            SignErrorKind::Refused,
            "no URI",
        ),
        (
            signed
                .replace(r#"URI="""#, r##"URI="#inv-1""##)
                .replace("<Item Id=\"item-1\">", "<Item Id=\"inv-1\">"),
            SignErrorKind::Refused,
            "duplicate id",
        ),
        (
            signed
                .replace(r#"URI="""#, r##"URI="#inv-1""##)
                .replace(r#"<Item Id="item-1">"#, r#"<Item id="x" Id="inv-1">"#),
            SignErrorKind::Refused,
            "duplicate id behind another id attribute",
        ),
        (
            signed.replace(
                enveloped,
                &format!(
                    r#"{enveloped}<ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116"><xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0"/></ds:Transform>"#
                ),
            ),
            SignErrorKind::Refused,
            "XSLT",
        ),
        (
            signed.replace(
                enveloped,
                &format!(
                    r#"{enveloped}<ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116"><ds:XPath>1</ds:XPath></ds:Transform>"#
                ),
            ),
            SignErrorKind::Refused,
            "XPath",
        ),
        (
            signed.replace(
                "http://www.w3.org/2001/04/xmlenc#sha256",
                "http://www.w3.org/2000/09/xmldsig#sha1",
            ),
            SignErrorKind::Refused,
            "SHA-1 digest",
        ),
        (
            signed.replace(
                "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
                "http://www.w3.org/2000/09/xmldsig#hmac-sha1",
            ),
            SignErrorKind::Refused,
            "HMAC",
        ),
    ];
    for (doc, kind, what) in &cases {
        assert_ne!(doc, &signed, "{what}: the case did not change the document");
        expect(doc, key, *kind, what);
    }
    // Too many references.
    let reference = {
        let a = signed.find("<ds:Reference").unwrap();
        let b = signed.find("</ds:Reference>").unwrap() + "</ds:Reference>".len();
        signed[a..b].to_string()
    };
    let many = signed.replace(&reference, &reference.repeat(5));
    expect(&many, key, SignErrorKind::Refused, "5 references");
    // Two signatures.
    let sig = {
        let a = signed.find("<ds:Signature").unwrap();
        let b = signed.find("</ds:Signature>").unwrap() + "</ds:Signature>".len();
        signed[a..b].to_string()
    };
    let two = signed.replace(&sig, &sig.repeat(2));
    expect(&two, key, SignErrorKind::Refused, "two signatures");
}

#[test]
fn hostile_documents_are_refused_without_panic() {
    let keys = keys();
    let key = &keys[0];
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz>&lol9;<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/></lolz>"#;
    let e = verify(laughs, key).unwrap_err();
    assert_eq!(e.kind(), SignErrorKind::Decode, "{e}");
    let signed = sign(key, &SignOptions::default());
    // Every prefix of a signed document: refused (never accepted, never a panic).
    for cut in (0..signed.len()).step_by(7) {
        if !signed.is_char_boundary(cut) {
            continue;
        }
        assert!(
            verify(&signed[..cut], key).is_err(),
            "prefix of {cut} bytes accepted"
        );
    }
    // Every byte changed in turn: never a panic, and never accepted unless the change is one
    // a canonical form does not see: a comment, the XML declaration, the namespace declaration
    // no element uses (exclusive canonicalization, the default, leaves it out), and KeyInfo
    // (not signed; the key is given here); and the last base64 digit before padding, whose
    // low bits the decoding drops.
    let bytes = signed.as_bytes();
    let mut accepted = 0;
    for i in 0..bytes.len() {
        let mut bad = bytes.to_vec();
        bad[i] = if bad[i] == b'A' { b'B' } else { b'A' };
        if let Ok(text) = std::str::from_utf8(&bad)
            && verify(text, key).is_ok()
        {
            accepted += 1;
            let at = &signed[i.saturating_sub(20)..(i + 20).min(signed.len())];
            let unused = signed.find(r#"xmlns:x="urn:unused""#).unwrap();
            let harmless = signed[..i].rfind("<!--") > signed[..i].rfind("-->")
                || !signed[..i].contains("?>")
                || (unused..unused + 20).contains(&i)
                || bytes.get(i + 1) == Some(&b'=')
                || signed[..i].contains("<ds:KeyInfo>") && !signed[..i].contains("</ds:KeyInfo>");
            assert!(harmless, "byte {i} changed and still valid: ...{at}...");
        }
    }
    assert!(accepted > 0, "the KeyInfo bytes at least are not signed");
    for bad in [
        "<a/>",
        "<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"/>",
        "<a><ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:SignedInfo/></ds:Signature></a>",
    ] {
        assert!(verify(bad, key).is_err(), "{bad}");
    }
}
