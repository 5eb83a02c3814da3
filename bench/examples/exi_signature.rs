//! XML Signature over Canonical EXI (ISO 15118's form) beside the same message signed with an
//! enveloped XML Signature (exclusive C14N): the octets each canonicalization digests and
//! signs, the size of the signed message as schema-informed EXI and as XML, and the sender's
//! and the recipient's times. `cargo run --release -p binxml-bench --example exi_signature
//! [-- --quick]`; the message is `tests/sign/exi/receipt.xml` of `tests/sign/exi/meter.xsd`,
//! one P-256 key (ISO 15118's curve) and one RSA-2048 key, SHA-256. Times are medians of 15
//! batches of at least 20 ms each after a warm-up (the attrcert example's method); the
//! recipient's include decoding the message (schema-informed EXI, or XML).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use binxml::exi::ExiOptions;
use binxml::exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml::schema::Schema;
use binxml::sign::c14n::{self, C14n, Subset, canonicalize_subset};
use binxml::sign::dsig::{
    KeySource, SignOptions, Target, VerifyOptions, sign_events, verify_events,
};
use binxml::sign::exi_dsig::{
    ExiC14n, ExiSignOptions, SignaturePlace, sign_exi_events, verify_exi_events,
};
use binxml::sign::keys::{DigestAlg, PrivateKey, RsaPadding};
use binxml::{Decoder, Encoder, Event, Limits};

type Error = Box<dyn std::error::Error>;

fn time<T>(quick: bool, mut f: impl FnMut() -> T) -> f64 {
    let batch_min = Duration::from_millis(if quick { 2 } else { 20 });
    let warm = Instant::now();
    let mut reps = 0u32;
    while warm.elapsed() < batch_min * 5 || reps < 5 {
        std::hint::black_box(f());
        reps += 1;
    }
    let per_batch = (reps / 5).max(1);
    let mut samples: Vec<f64> = (0..if quick { 3 } else { 15 })
        .map(|_| {
            let t = Instant::now();
            for _ in 0..per_batch {
                std::hint::black_box(f());
            }
            t.elapsed().as_secs_f64() * 1e6 / f64::from(per_batch)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn exi_encode(events: &[Event<'_>], g: &Arc<SchemaGrammars>) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut enc = SchemaEncoder::new(&mut out, g.clone(), ExiOptions::default())?;
    for e in events {
        enc.write_event(e)?;
    }
    enc.finish()?;
    drop(enc);
    Ok(out)
}

fn exi_decode(bytes: &[u8], g: &Arc<SchemaGrammars>) -> Result<Vec<Event<'static>>, Error> {
    let mut dec = SchemaDecoder::new(bytes, g.clone(), ExiOptions::default(), Limits::default());
    let mut out = Vec::new();
    while let Some(e) = dec.next_event()? {
        out.push(e.into_owned());
    }
    Ok(out)
}

fn openssl_key(dir: &Path, name: &str, args: &[&str]) -> Result<PrivateKey, Error> {
    let path = dir.join(name);
    let mut a = vec!["genpkey"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-out", path.to_str().unwrap()]);
    let out = std::process::Command::new("openssl").args(&a).output()?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    Ok(PrivateKey::from_pem(&std::fs::read_to_string(path)?)?)
}

fn main() -> Result<(), Error> {
    let quick = std::env::args().any(|a| a == "--quick");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::env::set_current_dir(&root)?;
    let dir = std::env::temp_dir().join(format!("binxml-exi-signature-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let load = |p: &str| -> Result<Arc<SchemaGrammars>, Error> {
        Ok(Arc::new(SchemaGrammars::new(Arc::new(Schema::load(p)?))?))
    };
    let doc = load("tests/sign/exi/meter.xsd")?;
    let dsig = load("tests/schemas/fpml4/xmldsig-core-schema.xsd")?;
    let ec = ExiC14n::new(doc.clone(), dsig);
    // The message as sent: no indentation (XML and EXI carry the same events).
    let events: Vec<Event<'static>> =
        binxml::xml::decode(&std::fs::read("tests/sign/exi/receipt.xml")?)?
            .into_iter()
            .filter(|e| !matches!(e, Event::Characters { text, .. } if text.trim().is_empty()))
            .collect();
    let keys = [
        (
            "P-256",
            openssl_key(
                &dir,
                "p256.key",
                &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
            )?,
        ),
        (
            "RSA-2048",
            openssl_key(
                &dir,
                "rsa.key",
                &["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
            )?,
        ),
    ];
    let eopts = ExiSignOptions {
        references: vec!["id1".into()],
        place: SignaturePlace {
            namespace: "urn:binxml:test:meter".into(),
            local: "Header".into(),
        },
        digest: DigestAlg::Sha256,
        rsa_padding: RsaPadding::Pkcs1v15,
    };
    let xopts = SignOptions {
        target: Target::Id("id1".into()),
        ..SignOptions::default()
    };
    let vopts = VerifyOptions {
        require_document_element: false,
        ..VerifyOptions::default()
    };
    let exc = C14n::from_uri(c14n::EXC_C14N).unwrap();

    println!(
        "| key | canonicalization | SignedInfo octets | receipt octets | signed message | sign | verify + decode |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, key) in &keys {
        let public = key.public_key();
        // Canonical EXI, the message sent as schema-informed EXI.
        let signed = sign_exi_events(&events, &ec, key, None, &eopts)?;
        let find = |ev: &[Event<'_>], local: &str| {
            ev.iter()
                .position(|e| matches!(e, Event::StartElement(q) if q.local == local))
                .unwrap()
        };
        let info = ec.signed_info(&signed, find(&signed, "SignedInfo"))?.len();
        let receipt = ec.element(&signed, find(&signed, "MeteringReceipt"))?.len();
        let wire = exi_encode(&signed, &doc)?;
        let sign = time(quick, || {
            exi_encode(
                &sign_exi_events(&events, &ec, key, None, &eopts).unwrap(),
                &doc,
            )
            .unwrap()
        });
        let verify = time(quick, || {
            let ev = exi_decode(&wire, &doc).unwrap();
            verify_exi_events(&ev, &ec, KeySource::Given(&public), &vopts).unwrap();
        });
        println!(
            "| {name} | Canonical EXI (message in EXI) | {info} | {receipt} | {} | {sign:.0} µs | {verify:.0} µs |",
            wire.len()
        );
        // Exclusive C14N, the same message as XML, the signature enveloped in the receipt.
        let signed = sign_events(&events, key, None, &xopts)?;
        let subset = |ev: &[Event<'_>], local: &str, exclude: &[usize]| {
            canonicalize_subset(
                ev,
                &Subset {
                    apex: Some(find(ev, local)),
                    exclude,
                },
                &exc,
            )
            .unwrap()
            .len()
        };
        let sig_at = find(&signed, "Signature");
        let info = subset(&signed, "SignedInfo", &[]);
        let receipt = subset(&signed, "MeteringReceipt", &[sig_at]);
        let wire = binxml::xml::encode(&signed)?;
        let sign = time(quick, || {
            binxml::xml::encode(&sign_events(&events, key, None, &xopts).unwrap()).unwrap()
        });
        let verify = time(quick, || {
            let ev = binxml::xml::decode(&wire).unwrap();
            verify_events(&ev, KeySource::Given(&public), &vopts).unwrap();
        });
        println!(
            "| {name} | exclusive C14N (message in XML) | {info} | {receipt} | {} | {sign:.0} µs | {verify:.0} µs |",
            wire.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
