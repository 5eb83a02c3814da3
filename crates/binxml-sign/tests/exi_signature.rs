//! XML Signature over Canonical EXI (`binxml_sign::exi_dsig`), as ISO 15118 signs its messages:
//! a message of `tests/sign/exi/meter.xsd` signed in its header over its body's receipt.
//!
//! - Every key (RSA, P-256, P-384) × digest signs, and the signature verifies on the events,
//!   and again after the signed message went through schema-informed EXI (encoded whole,
//!   decoded: what a charger receives).
//! - Canonical EXI is of values, not of their lexical forms: the same receipt written with other
//!   lexical forms of its typed values and other indentation verifies; a changed value, in the
//!   XML or in the EXI stream, does not.
//! - The refused forms: another transform, a second signature, a duplicated id, a reference
//!   to a missing element or to one holding the signature, SHA-1.
//! - EXIficient 1.0.7 in its Canonical EXI mode (`interop/exi/ExiDriver.java`, `canonical`,
//!   `omitoptions`) writes the same octets for `SignedInfo` and for the receipt, and the
//!   signature and digest binxml wrote check against EXIficient's octets.

mod common;

use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Event, Limits};
use binxml_exi::ExiOptions;
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_schema::Schema;
use binxml_sign::SignErrorKind;
use binxml_sign::dsig::{KeySource, VerifyOptions};
use binxml_sign::exi_dsig::{
    CANONICAL_EXI, ExiC14n, ExiSignOptions, SignaturePlace, sign_exi_events, verify_exi_events,
};
use binxml_sign::keys::{DigestAlg, RsaPadding};
use binxml_testkit::{ExiOracle, scratch_dir, workspace_root};
use common::make_keys;

const METER_NS: &str = "urn:binxml:test:meter";

fn grammars() -> (Arc<SchemaGrammars>, Arc<SchemaGrammars>) {
    let root = workspace_root();
    let load = |p: &str| {
        let schema = Schema::load(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        Arc::new(SchemaGrammars::new(Arc::new(schema)).unwrap())
    };
    (
        load("tests/sign/exi/meter.xsd"),
        load("tests/schemas/fpml4/xmldsig-core-schema.xsd"),
    )
}

/// The grammars, built once for the whole test binary.
fn c14n_grammars() -> &'static (Arc<SchemaGrammars>, Arc<SchemaGrammars>) {
    static G: std::sync::OnceLock<(Arc<SchemaGrammars>, Arc<SchemaGrammars>)> =
        std::sync::OnceLock::new();
    G.get_or_init(grammars)
}

fn receipt_xml() -> String {
    std::fs::read_to_string(workspace_root().join("tests/sign/exi/receipt.xml")).unwrap()
}

fn opts(digest: DigestAlg) -> ExiSignOptions {
    ExiSignOptions {
        references: vec!["id1".into()],
        place: SignaturePlace {
            namespace: METER_NS.into(),
            local: "Header".into(),
        },
        digest,
        rsa_padding: RsaPadding::Pkcs1v15,
    }
}

/// The document encoded whole as schema-informed EXI (bit-packed) and decoded again.
fn through_exi(events: &[Event<'_>], g: &Arc<SchemaGrammars>) -> (Vec<u8>, Vec<Event<'static>>) {
    let mut bytes = Vec::new();
    let mut enc = SchemaEncoder::new(&mut bytes, g.clone(), ExiOptions::default()).unwrap();
    for e in events {
        enc.write_event(e).unwrap();
    }
    enc.finish().unwrap();
    drop(enc);
    (bytes.clone(), decode_exi(&bytes, g))
}

fn decode_exi(bytes: &[u8], g: &Arc<SchemaGrammars>) -> Vec<Event<'static>> {
    let mut dec = SchemaDecoder::new(bytes, g.clone(), ExiOptions::default(), Limits::default());
    let mut out = Vec::new();
    while let Some(e) = dec.next_event().unwrap() {
        out.push(e.into_owned());
    }
    out
}

/// The events with the text of the element `local` inside the receipt replaced.
fn with_text(events: &[Event<'_>], local: &str, text: &str) -> Vec<Event<'static>> {
    let mut out: Vec<Event<'static>> = events.iter().map(|e| e.clone().into_owned()).collect();
    let receipt = out
        .iter()
        .position(|e| matches!(e, Event::StartElement(q) if q.local == "MeteringReceipt"))
        .unwrap();
    let at = receipt
        + out[receipt..]
            .iter()
            .position(|e| matches!(e, Event::StartElement(q) if q.local == local))
            .unwrap_or_else(|| panic!("no {local}"));
    let t = at
        + out[at..]
            .iter()
            .position(|e| matches!(e, Event::Characters { .. } | Event::Typed(_)))
            .unwrap();
    out[t] = Event::text(text.to_string());
    out
}

#[test]
fn signs_and_verifies_over_canonical_exi_in_every_key_and_digest() {
    let dir = scratch_dir("sign-exi");
    let keys = make_keys(&dir);
    let (doc, sig) = grammars();
    let c14n = ExiC14n::new(doc.clone(), sig);
    let events = binxml_xml::decode(receipt_xml().as_bytes()).unwrap();
    for k in &keys {
        for d in [DigestAlg::Sha256, DigestAlg::Sha384, DigestAlg::Sha512] {
            let tag = format!("{} {d:?}", k.name);
            let signed = sign_exi_events(&events, &c14n, &k.key, Some(&k.cert), &opts(d)).unwrap();
            let public = k.cert.public_key();
            let v = verify_exi_events(
                &signed,
                &c14n,
                KeySource::Given(public),
                &VerifyOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert_eq!(v.references.len(), 1, "{tag}");
            assert_eq!(v.references[0].uri, "#id1");
            assert!(
                matches!(&signed[v.references[0].element], Event::StartElement(q) if q.local == "MeteringReceipt"),
                "{tag}: the reference covers the receipt"
            );
            // The message as a charger receives it: schema-informed EXI, decoded.
            let (_, received) = through_exi(&signed, &doc);
            verify_exi_events(
                &received,
                &c14n,
                KeySource::Given(public),
                &VerifyOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{tag} through EXI: {e}"));
            // With the certificate the signature carries.
            let v = verify_exi_events(
                &received,
                &c14n,
                KeySource::Embedded,
                &VerifyOptions::default(),
            )
            .unwrap();
            assert!(v.certificate.is_some());
            // Another key does not verify it.
            let other = keys.iter().find(|o| o.name != k.name).unwrap();
            assert!(
                verify_exi_events(
                    &received,
                    &c14n,
                    KeySource::Given(other.cert.public_key()),
                    &VerifyOptions::default(),
                )
                .is_err(),
                "{tag}: another key"
            );
        }
    }
}

#[test]
fn lexical_forms_do_not_matter_values_do() {
    let dir = scratch_dir("sign-exi-values");
    let keys = make_keys(&dir);
    let (doc, sig) = grammars();
    let c14n = ExiC14n::new(doc.clone(), sig);
    let k = &keys[1];
    let events = binxml_xml::decode(receipt_xml().as_bytes()).unwrap();
    let signed = sign_exi_events(&events, &c14n, &k.key, None, &opts(DigestAlg::Sha256)).unwrap();
    let key = KeySource::Given(k.cert.public_key());
    let vo = VerifyOptions::default();
    verify_exi_events(&signed, &c14n, key, &vo).unwrap();

    // The same values in other lexical forms: Canonical EXI writes the value, so these verify.
    for (local, same) in [
        ("Reading", "+01234567"),
        ("Price", "0.315"),
        ("Price", " 00.31500 "),
        ("Power", "1.1E4"),
        ("Power", "11000"),
        ("Tariff", "02"),
        ("SessionID", "4a6f7e0102030405"),
        ("TimeStamp", "2026-11-28T04:30:15.25+01:00"),
    ] {
        let changed = with_text(&signed, local, same);
        verify_exi_events(&changed, &c14n, key, &vo)
            .unwrap_or_else(|e| panic!("{local} = {same:?}: {e}"));
    }
    // Canonical EXI 4.5.5: an hour of 24 is 00:00:00 of the next day.
    let midnight = with_text(&events, "TimeStamp", "2026-11-30T24:00:00Z");
    let signed_midnight =
        sign_exi_events(&midnight, &c14n, &k.key, None, &opts(DigestAlg::Sha256)).unwrap();
    verify_exi_events(
        &with_text(&signed_midnight, "TimeStamp", "2026-12-01T00:00:00Z"),
        &c14n,
        key,
        &vo,
    )
    .unwrap();
    // Other indentation: whitespace in element content is not content.
    let reindented = receipt_xml().replace("\n      ", "\n\t");
    let re_events = binxml_xml::decode(reindented.as_bytes()).unwrap();
    let re_signed = {
        // the signature moved into the re-indented document
        let tree_sig: Vec<Event<'static>> = {
            let s = signed
                .iter()
                .position(|e| matches!(e, Event::StartElement(q) if q.local == "Signature"))
                .unwrap();
            let mut depth = 0;
            let mut end = s;
            for (i, e) in signed.iter().enumerate().skip(s) {
                match e {
                    Event::StartElement(_) => depth += 1,
                    Event::EndElement => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            signed[s..=end].to_vec()
        };
        let header_end = {
            let h = re_events
                .iter()
                .position(|e| matches!(e, Event::StartElement(q) if q.local == "Header"))
                .unwrap();
            let mut depth = 0;
            let mut end = h;
            for (i, e) in re_events.iter().enumerate().skip(h) {
                match e {
                    Event::StartElement(_) => depth += 1,
                    Event::EndElement => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        };
        let mut d: Vec<Event<'static>> = re_events[..header_end].to_vec();
        d.extend(tree_sig);
        d.extend(re_events[header_end..].iter().cloned());
        d
    };
    verify_exi_events(&re_signed, &c14n, key, &vo).unwrap();

    // Changed values fail, in the events and in the EXI stream.
    for (local, other) in [
        ("Reading", "1234568"),
        ("Price", "0.316"),
        ("Power", "11001"),
        ("Tariff", "3"),
        ("Status", "Fault"),
        ("MeterID", "DE-BXM-0043"),
        ("Note", "receipt for session 43"),
        ("SessionID", "4A6F7E0102030406"),
        ("TimeStamp", "2026-11-28T04:30:15.250+02:00"),
    ] {
        let changed = with_text(&signed, local, other);
        let e = verify_exi_events(&changed, &c14n, key, &vo).unwrap_err();
        assert_eq!(e.kind(), SignErrorKind::Invalid, "{local} = {other:?}: {e}");
        let (_, received) = through_exi(&changed, &doc);
        let e = verify_exi_events(&received, &c14n, key, &vo).unwrap_err();
        assert_eq!(e.kind(), SignErrorKind::Invalid, "{local} through EXI: {e}");
    }
    // One value changed in the EXI octets themselves: the Tariff (an unsignedByte, 8 bits)
    // is found by encoding the message with two Tariff values and comparing the streams.
    let (bytes, _) = through_exi(&signed, &doc);
    let (bytes3, _) = through_exi(&with_text(&signed, "Tariff", "3"), &doc);
    assert_eq!(bytes.len(), bytes3.len());
    assert_ne!(bytes, bytes3);
    let e = verify_exi_events(&decode_exi(&bytes3, &doc), &c14n, key, &vo).unwrap_err();
    assert_eq!(e.kind(), SignErrorKind::Invalid, "a changed EXI value: {e}");
    // A changed SignatureValue byte fails too.
    let mut bad = signed.clone();
    let sv = bad
        .iter()
        .position(|e| matches!(e, Event::StartElement(q) if q.local == "SignatureValue"))
        .unwrap();
    if let Event::Characters { text, .. } = &bad[sv + 1] {
        let mut b = binxml_core::base64::decode(text).unwrap();
        b[5] ^= 1;
        bad[sv + 1] = Event::text(binxml_core::base64::encode(&b));
    }
    let e = verify_exi_events(&bad, &c14n, key, &vo).unwrap_err();
    assert_eq!(e.kind(), SignErrorKind::Invalid, "{e}");
}

#[test]
fn refuses_what_canonical_exi_signatures_do_not_use() {
    let dir = scratch_dir("sign-exi-refused");
    let keys = make_keys(&dir);
    let (doc, sig) = grammars();
    let c14n = ExiC14n::new(doc, sig);
    let k = &keys[0];
    let key = KeySource::Given(k.cert.public_key());
    let vo = VerifyOptions::default();
    let events = binxml_xml::decode(receipt_xml().as_bytes()).unwrap();
    let signed = sign_exi_events(&events, &c14n, &k.key, None, &opts(DigestAlg::Sha256)).unwrap();
    let xml = String::from_utf8(binxml_xml::encode(&signed).unwrap()).unwrap();
    let check = |xml: &str, kind: SignErrorKind, what: &str| {
        let ev = binxml_xml::decode(xml.as_bytes()).unwrap();
        let e = verify_exi_events(&ev, &c14n, key, &vo).unwrap_err();
        assert_eq!(e.kind(), kind, "{what}: {e}");
    };
    // The XML text round trip keeps it valid.
    verify_exi_events(
        &binxml_xml::decode(xml.as_bytes()).unwrap(),
        &c14n,
        key,
        &vo,
    )
    .unwrap();
    let exc = "http://www.w3.org/2001/10/xml-exc-c14n#";
    let t = format!("Transform Algorithm=\"{CANONICAL_EXI}\"");
    assert!(xml.contains(&t));
    check(
        &xml.replace(&t, &format!("Transform Algorithm=\"{exc}\"")),
        SignErrorKind::Refused,
        "another transform",
    );
    check(
        &xml.replacen(
            &format!("CanonicalizationMethod Algorithm=\"{CANONICAL_EXI}\""),
            &format!("CanonicalizationMethod Algorithm=\"{exc}\""),
            1,
        ),
        SignErrorKind::Unsupported,
        "another canonicalization",
    );
    check(
        &xml.replace("URI=\"#id1\"", "URI=\"#id2\""),
        SignErrorKind::Refused,
        "a missing id",
    );
    check(
        &xml.replace("URI=\"#id1\"", "URI=\"\""),
        SignErrorKind::Refused,
        "the whole document",
    );
    // Signature wrapping: a second element with the same id.
    check(
        &xml.replace(
            "<Body>",
            "<Body><MeteringReceipt Id=\"id1\"><SessionID>00</SessionID></MeteringReceipt>",
        ),
        SignErrorKind::Refused,
        "a duplicated id",
    );
    // A reference to the element holding the signature (the message element has no Id in the
    // schema, but the signature check comes first).
    check(
        &xml.replacen("<Message ", "<Message Id=\"m\" ", 1)
            .replace("URI=\"#id1\"", "URI=\"#m\""),
        SignErrorKind::Refused,
        "a reference holding the signature",
    );
    // SHA-1 is refused unless allowed.
    let sha1 = "http://www.w3.org/2000/09/xmldsig#sha1";
    check(
        &xml.replace("http://www.w3.org/2001/04/xmlenc#sha256", sha1),
        SignErrorKind::Refused,
        "SHA-1",
    );
    // An Object in the signature.
    check(
        &xml.replace(
            "</ds:Signature>",
            "<ds:Object Id=\"o\">x</ds:Object></ds:Signature>",
        ),
        SignErrorKind::Refused,
        "an Object",
    );
    // Two signatures.
    let s = xml.find("<ds:Signature").unwrap();
    let e = xml.find("</ds:Signature>").unwrap() + "</ds:Signature>".len();
    let twice = format!("{}{}{}", &xml[..e], &xml[s..e], &xml[e..]);
    check(&twice, SignErrorKind::Refused, "two signatures");
    // A part that is not an element, or not a whole one, is an error, not a panic.
    let receipt = events
        .iter()
        .position(|e| matches!(e, Event::StartElement(q) if q.local == "MeteringReceipt"))
        .unwrap();
    assert!(c14n.element(&events, receipt + 1).is_err());
    assert!(c14n.element(&events, events.len()).is_err());
    assert!(c14n.element(&events[..receipt + 3], receipt).is_err());
    // Signing refuses to put the signature inside what it signs.
    let mut o = opts(DigestAlg::Sha256);
    o.place.local = "MeteringReceipt".into();
    assert!(sign_exi_events(&events, &c14n, &k.key, None, &o).is_err());
    // Options Canonical EXI excludes.
    let (doc, sig) = grammars();
    for bad in [
        ExiOptions::default()
            .with_fragment(true)
            .with_include_cookie(true),
        ExiOptions::default()
            .with_fragment(true)
            .with_lexical_values(true),
        ExiOptions::default()
            .with_fragment(true)
            .with_alignment(binxml_exi::Alignment::Compression),
        ExiOptions::default(),
    ] {
        assert!(
            ExiC14n::new(doc.clone(), sig.clone())
                .with_options(bad.clone())
                .is_err(),
            "{bad:?}"
        );
    }
}

/// EXIficient in its Canonical EXI mode writes the octets binxml digests and signs, and the
/// signed message crosses EXIficient's schema-informed EXI both ways with its signature valid.
#[test]
fn exificient_canonical_exi_gives_the_same_octets() {
    let Some(mut oracle) = ExiOracle::start_or_skip() else {
        return;
    };
    let dir = scratch_dir("sign-exi-exificient");
    let keys = make_keys(&dir);
    let root = workspace_root();
    let (doc, sig) = grammars();
    let c14n = ExiC14n::new(doc, sig);
    let events = binxml_xml::decode(receipt_xml().as_bytes()).unwrap();
    let meter = root.join("tests/sign/exi/meter.xsd");
    let dsig = root.join("tests/schemas/fpml4/xmldsig-core-schema.xsd");
    let options = |schema: &std::path::Path| {
        format!(
            "bitpacked,fragment,canonical,omitoptions,schema={}",
            schema.display()
        )
    };
    let mut compared = 0;
    for k in &keys {
        for d in [DigestAlg::Sha256, DigestAlg::Sha512] {
            let signed = sign_exi_events(&events, &c14n, &k.key, None, &opts(d)).unwrap();
            let find = |local: &str| {
                signed
                    .iter()
                    .position(|e| matches!(e, Event::StartElement(q) if q.local == local))
                    .unwrap()
            };
            let subtree = |start: usize| {
                let mut depth = 0;
                for (i, e) in signed.iter().enumerate().skip(start) {
                    match e {
                        Event::StartElement(_) => depth += 1,
                        Event::EndElement => {
                            depth -= 1;
                            if depth == 0 {
                                return &signed[start..=i];
                            }
                        }
                        _ => {}
                    }
                }
                unreachable!()
            };
            // Each part as an XML fragment (its namespace declared on it), for EXIficient.
            let as_xml = |part: &[Event<'_>], ns: (&str, &str)| {
                let mut ev = vec![Event::start_document(), part[0].clone()];
                ev.push(Event::Namespace {
                    prefix: ns.0.into(),
                    uri: ns.1.into(),
                });
                ev.extend(part[1..].iter().cloned());
                ev.push(Event::EndDocument);
                binxml_xml::encode(&ev).unwrap()
            };
            let receipt = find("MeteringReceipt");
            let info = find("SignedInfo");
            let ours_receipt = c14n.element(&signed, receipt).unwrap();
            let ours_info = c14n.signed_info(&signed, info).unwrap();
            let theirs_receipt = oracle
                .encode_bytes(
                    &as_xml(subtree(receipt), ("", METER_NS)),
                    &options(&meter),
                    &dir,
                )
                .unwrap();
            let theirs_info = oracle
                .encode_bytes(
                    &as_xml(subtree(info), ("ds", binxml_sign::dsig::DSIG_NS)),
                    &options(&dsig),
                    &dir,
                )
                .unwrap();
            assert_eq!(
                ours_receipt, theirs_receipt,
                "{} {d:?}: the receipt",
                k.name
            );
            assert_eq!(ours_info, theirs_info, "{} {d:?}: SignedInfo", k.name);
            assert_eq!(ours_info[0], 0x80, "no cookie, no options");
            // The digest and the signature check against EXIficient's octets.
            let text_after = |local: &str| match &signed[find(local) + 1] {
                Event::Characters { text, .. } => binxml_core::base64::decode(text).unwrap(),
                e => panic!("{e:?}"),
            };
            assert_eq!(text_after("DigestValue"), d.digest(&theirs_receipt));
            k.cert
                .public_key()
                .verify_with(
                    RsaPadding::Pkcs1v15,
                    d,
                    &theirs_info,
                    &text_after("SignatureValue"),
                )
                .unwrap();
            compared += 1;

            // The signed message through EXIficient both ways: binxml's EXI stream decoded by
            // EXIficient to XML, and the signed XML encoded by EXIficient as schema-informed
            // EXI and decoded by binxml; the signature verifies after each.
            let doc_opts = format!("bitpacked,schema={}", meter.display());
            let (ours_exi, _) = through_exi(&signed, &c14n_grammars().0);
            let their_xml = oracle.decode_bytes(&ours_exi, &doc_opts, &dir).unwrap();
            let ev = binxml_xml::decode(&their_xml).unwrap();
            verify_exi_events(
                &ev,
                &c14n,
                KeySource::Given(k.cert.public_key()),
                &VerifyOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{} {d:?}: after EXIficient's decoding: {e}", k.name));
            let their_exi = oracle
                .encode_bytes(&binxml_xml::encode(&signed).unwrap(), &doc_opts, &dir)
                .unwrap();
            let ev = decode_exi(&their_exi, &c14n_grammars().0);
            verify_exi_events(
                &ev,
                &c14n,
                KeySource::Given(k.cert.public_key()),
                &VerifyOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{} {d:?}: EXIficient's EXI: {e}", k.name));
        }
    }
    assert_eq!(compared, 6);
}

/// The byte-level path the command line and Python take: the XML Signature grammars found
/// through the message schema's import, a schema-informed EXI message signed and verified as
/// octets, the ids and the place found from the message; a changed octet fails.
#[test]
fn signs_and_verifies_exi_octets_with_the_imported_signature_schema() {
    use binxml_sign::exi_dsig::{
        SignaturePlace, decode_message, encode_message, has_exi_signature, ids_outside, sign_exi,
        verify_exi,
    };
    let dir = scratch_dir("sign-exi-octets");
    let keys = make_keys(&dir);
    let (doc, _) = grammars();
    let c14n = ExiC14n::for_message_schema(doc, &binxml_schema::LoadOptions::default()).unwrap();
    let exi = ExiOptions::default();
    let events = binxml_xml::decode(receipt_xml().as_bytes()).unwrap();
    let message = encode_message(&events, &c14n, &exi).unwrap();
    let place = SignaturePlace::find(&events, "Header").unwrap();
    assert_eq!(place.namespace, METER_NS);
    let ids = ids_outside(&events, &place).unwrap();
    assert_eq!(ids, vec!["id1".to_string()]);
    for k in &keys {
        let o = ExiSignOptions {
            references: ids.clone(),
            place: place.clone(),
            digest: DigestAlg::Sha256,
            rsa_padding: RsaPadding::Pkcs1v15,
        };
        let signed = sign_exi(&message, &c14n, &exi, &k.key, Some(&k.cert), &o).unwrap();
        assert!(has_exi_signature(
            &decode_message(&signed, &c14n, &exi, Limits::default()).unwrap()
        ));
        let v = verify_exi(
            &signed,
            &c14n,
            &exi,
            KeySource::Given(k.cert.public_key()),
            &VerifyOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", k.name));
        assert_eq!(v.elements, vec!["MeteringReceipt".to_string()]);
        // SignedInfo's grammars from the import are those of the schema loaded alone: the
        // signature verifies with the latter too.
        let (doc, sig) = grammars();
        let events_signed = decode_message(&signed, &c14n, &exi, Limits::default()).unwrap();
        verify_exi_events(
            &events_signed,
            &ExiC14n::new(doc, sig),
            KeySource::Given(k.cert.public_key()),
            &VerifyOptions::default(),
        )
        .unwrap();
        // One flipped bit in the last octets (the receipt's values) fails, as invalid or as
        // a stream the decoder refuses, never as valid.
        let mut bad = signed.clone();
        let n = bad.len();
        bad[n - 3] ^= 0x10;
        assert!(
            verify_exi(
                &bad,
                &c14n,
                &exi,
                KeySource::Given(k.cert.public_key()),
                &VerifyOptions::default()
            )
            .is_err(),
            "{}: a changed octet",
            k.name
        );
    }
    assert!(!has_exi_signature(&events));
}
