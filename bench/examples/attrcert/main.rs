//! Seed 002's experiment (Mundy, Chadwick, Smith: ASN.1 BER against XML for signed and unsigned
//! attribute certificates), Tables 1-7, with binxml's formats beside the paper's two:
//! `cargo run --release -p binxml-bench --example attrcert [-- --quick]`.
//!
//! The certificates: `tests/sign/ac-{simple,prescription,audit}.xml` (a Boolean, a prescription
//! and an audit attribute), each sent as
//! - **DER**: RFC 5755's `AttributeCertificate` built from the same content (`model.rs`), signed
//!   as an X.509 certificate is (sha256WithRSAEncryption over the DER of `acinfo`);
//! - **XML**: the file without its comment and indentation, signed with an enveloped XML
//!   Signature (exclusive C14N, SHA-256, RSA), by binxml and by xmlsec1;
//! - **X.693 XER**: the same certificate in the XML that ITU-T's XML Encoding Rules define for
//!   any ASN.1 value, BASIC-XER of RFC 5755's `AttributeCertificateInfo`
//!   (`tests/sign/xer/`, asn1tools' encoding of the DER certificate, made by
//!   `interop/sign/attrcert_xer.py` and checked against it by `tests/attrcert.rs`), signed as
//!   the XML is;
//! - **FI** and **EXI**: that XML in Fast Infoset and EXI (defaults), signed as a CMS
//!   SignedData (RFC 5652, the signer's certificate inside, as `binxml sign --cms` makes it).
//!
//! One RSA-2048 key (made by openssl) signs everything; the recipient is given its public key.
//! The sender encodes (and signs) from data in memory: the DER structure, the XML's events.
//! The recipient verifies and decodes into a structure it can read: the typed DER values
//! (borrowed from the received bytes, every field decoded and checked; the owned decoding's
//! times are printed after the tables), or binxml's tree. Times are CPU times, so that waiting
//! for a core on a shared machine counts on neither side: binxml's, the timing thread's
//! (medians of 15 batches of at least 20 ms each, after a warm-up); xmlsec1's, the child
//! process's user + system time of its command line with `--repeat 401` less `--repeat 1`, over
//! 400 (its start-up and key loading left out; each repeat parses the file and verifies or
//! signs it), best of three; xmlsec1's wall-clock times are printed last. Transmission: size ×
//! 8 / link speed, as the paper's Table 2.

mod model;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use binxml::sign::cms::{sign_cms, verify_cms};
use binxml::sign::dsig::{KeySource, SignOptions, VerifyOptions, sign_events, verify_events};
use binxml::sign::keys::{Certificate, DigestAlg, PrivateKey};
use binxml::{AnyEncoder, DecodeOptions, Document, EncodeOptions, Encoder, Event, Format};

type Error = Box<dyn std::error::Error>;

const CERTS: [(&str, &str); 3] = [
    ("simple", "tests/sign/ac-simple.xml"),
    ("semi-complex", "tests/sign/ac-prescription.xml"),
    ("complex", "tests/sign/ac-audit.xml"),
];

/// The calling thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`): on a machine shared
/// with other work, the time it ran, without the time it waited for a core.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The CPU time (user + system) of this process's waited-for children so far, in seconds.
fn children_cpu() -> f64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage; RUSAGE_CHILDREN is a constant Linux defines.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_CHILDREN) failed");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Median CPU time of `f` (this thread's), in microseconds.
fn time<T>(quick: bool, mut f: impl FnMut() -> T) -> f64 {
    let batch_min = if quick { 0.002 } else { 0.02 };
    let warm = thread_cpu();
    let mut reps = 0u32;
    while thread_cpu() - warm < batch_min * 5.0 || reps < 5 {
        std::hint::black_box(f());
        reps += 1;
    }
    let per_batch = (reps / 5).max(1);
    let mut samples: Vec<f64> = (0..if quick { 3 } else { 15 })
        .map(|_| {
            let t = thread_cpu();
            for _ in 0..per_batch {
                std::hint::black_box(f());
            }
            (thread_cpu() - t) * 1e6 / f64::from(per_batch)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn deflate(b: &[u8]) -> usize {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b).unwrap();
    e.finish().unwrap().len()
}

fn openssl(args: &[&str]) -> Result<(), Error> {
    let out = Command::new("openssl").args(args).output()?;
    if !out.status.success() {
        return Err(format!("openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(())
}

/// xmlsec1's time per operation in microseconds, as (CPU, wall clock): `--repeat 401` less
/// `--repeat 1`, over 400 (its start-up, key loading included, left out), best of three; the
/// CPU time is the child's user + system time, the clock binxml's side is timed with (`None`
/// when xmlsec1 is missing or refuses).
fn xmlsec1(args: &[&str], quick: bool) -> Option<(f64, f64)> {
    let n = if quick { 21 } else { 401 };
    let run = |repeat: u32| -> Option<(f64, f64)> {
        let (cpu, wall) = (children_cpu(), Instant::now());
        let out = Command::new("xmlsec1")
            .args(&args[..1])
            .args(["--repeat", &repeat.to_string()])
            .args(&args[1..])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| (children_cpu() - cpu, wall.elapsed().as_secs_f64()))
    };
    let per_op = |(a, b): (f64, f64)| (a - b) * 1e6 / f64::from(n - 1);
    let mut runs = Vec::new();
    for _ in 0..3 {
        let (many, one) = (run(n)?, run(1)?);
        runs.push((per_op((many.0, one.0)), per_op((many.1, one.1))));
    }
    let best = |f: fn(&(f64, f64)) -> f64| runs.iter().map(f).fold(f64::INFINITY, f64::min);
    Some((best(|r| r.0), best(|r| r.1)))
}

/// The XML certificate as a sender writes it: no comment, no indentation.
fn compact_events(xml: &[u8]) -> Result<Vec<Event<'static>>, Error> {
    let events = binxml::xml::decode(xml)?;
    Ok(events
        .into_iter()
        .filter(|e| match e {
            Event::Comment(_) => false,
            Event::Characters { text, .. } => !text.trim().is_empty(),
            _ => true,
        })
        .map(Event::into_owned)
        .collect())
}

fn encode(format: Format, events: &[Event<'_>]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut enc = AnyEncoder::new(format, &mut out, &EncodeOptions::default());
    enc.write_events(events)?;
    enc.finish()?;
    drop(enc);
    Ok(out)
}

/// A time per operation in µs as (CPU, wall clock).
type Clocks = (f64, f64);

/// One attribute's rows, with xmlsec1's sign and verify times (CPU) on each vocabulary's
/// signed XML beside them.
type Table = (&'static str, Vec<Row>, [Option<(f64, f64)>; 2]);

struct Row {
    name: &'static str,
    unsigned: usize,
    signed: usize,
    signed_zipped: usize,
    encode: f64,
    decode: f64,
    sign: f64,
    verify: f64,
}

/// The vocabularies the XML rows use, in the order of `Table`'s xmlsec1 times.
const VOCABULARIES: [&str; 2] = ["RFC 5755 names", "X.693 XER"];

/// An XML certificate signed with an enveloped XML Signature by binxml: its row and the signed
/// document.
fn xml_row(
    name: &'static str,
    events: &[Event<'_>],
    key: &PrivateKey,
    quick: bool,
) -> Result<(Row, Vec<u8>), Error> {
    let (sopts, vopts) = (SignOptions::default(), VerifyOptions::default());
    let public = key.public_key();
    let xml = binxml::xml::encode(events)?;
    let sign_xml = || -> Result<Vec<u8>, Error> {
        Ok(binxml::xml::encode(&sign_events(
            events, key, None, &sopts,
        )?)?)
    };
    let xml_signed = sign_xml()?;
    let verify_xml = |b: &[u8]| -> Result<Document<'static>, Error> {
        let ev = binxml::xml::decode(b)?;
        verify_events(&ev, KeySource::Given(&public), &vopts)?;
        Ok(Document::from_events(
            ev.into_iter().map(Event::into_owned),
        )?)
    };
    verify_xml(&xml_signed)?;
    let row = Row {
        name,
        unsigned: xml.len(),
        signed: xml_signed.len(),
        signed_zipped: deflate(&xml_signed),
        encode: time(quick, || binxml::xml::encode(events).unwrap()),
        decode: time(quick, || binxml::parse_tree(Format::Xml, &xml).unwrap()),
        sign: time(quick, || sign_xml().unwrap()),
        verify: time(quick, || verify_xml(&xml_signed).unwrap()),
    };
    Ok((row, xml_signed))
}

/// xmlsec1 on a document binxml signed: it signs binxml's signature as a template (values
/// emptied) and verifies binxml's signed document; (sign, verify) times, `None` when xmlsec1
/// is missing or refuses.
fn xmlsec_times(
    dir: &Path,
    tag: &str,
    xml_signed: &[u8],
    key_pem: &Path,
    cert_pem: &Path,
    quick: bool,
) -> Result<Option<(Clocks, Clocks)>, Error> {
    let signed_path = dir.join(format!("{tag}.signed.xml"));
    std::fs::write(&signed_path, xml_signed)?;
    let template = String::from_utf8(xml_signed.to_vec())?;
    let blank = |s: &str, tag: &str| -> String {
        let (open, close) = (format!("<ds:{tag}>"), format!("</ds:{tag}>"));
        match (s.find(&open), s.find(&close)) {
            (Some(a), Some(b)) => format!("{}{}", &s[..a + open.len()], &s[b..]),
            _ => s.to_string(),
        }
    };
    let template = blank(&blank(&template, "DigestValue"), "SignatureValue");
    let template_path = dir.join(format!("{tag}.template.xml"));
    std::fs::write(&template_path, template)?;
    let xs_sign = xmlsec1(
        &[
            "--sign",
            "--privkey-pem",
            key_pem.to_str().unwrap(),
            template_path.to_str().unwrap(),
        ],
        quick,
    );
    let xs_verify = xmlsec1(
        &[
            "--verify",
            "--pubkey-cert-pem",
            cert_pem.to_str().unwrap(),
            signed_path.to_str().unwrap(),
        ],
        quick,
    );
    Ok(xs_sign.zip(xs_verify))
}

fn main() -> Result<(), Error> {
    let quick = std::env::args().any(|a| a == "--quick");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::env::set_current_dir(&root)?;
    let dir = std::env::temp_dir().join(format!("binxml-attrcert-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (key_pem, cert_pem) = (dir.join("aa.key"), dir.join("aa.crt"));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "30",
        "-subj",
        "/CN=Attribute Authority/O=University of Salford/C=GB",
        "-keyout",
        key_pem.to_str().unwrap(),
        "-out",
        cert_pem.to_str().unwrap(),
    ])?;
    let key = PrivateKey::from_pem(&std::fs::read_to_string(&key_pem)?)?;
    let cert = Certificate::from_pem(&std::fs::read(&cert_pem)?)?;
    let public = key.public_key();
    let vopts = VerifyOptions::default();
    let dopts = DecodeOptions::default();

    let mut tables: Vec<Table> = Vec::new();
    // Per attribute: the DER decode and verify + decode times with owned values.
    let mut owned: Vec<(&str, f64, f64)> = Vec::new();
    // Per attribute and vocabulary: xmlsec1's sign and verify times, (CPU, wall clock).
    let mut xmlsec_clocks: Vec<(&str, usize, Clocks, Clocks)> = Vec::new();
    for (label, path) in CERTS {
        let events = compact_events(&std::fs::read(path)?)?;
        let xml = binxml::xml::encode(&events)?;
        let acinfo = model::from_xml(std::str::from_utf8(&xml)?)?;
        let mut rows = Vec::new();

        // DER.
        let der = model::encode_unsigned(&acinfo)?;
        let sign_der = || model::sign(&acinfo, |tbs| Ok(key.sign(DigestAlg::Sha256, tbs)?));
        let der_signed = sign_der()?;
        let verify_der = |b: &[u8]| {
            model::verify_and_decode(b, |tbs, sig| {
                Ok(public.verify(DigestAlg::Sha256, tbs, sig)?)
            })
        };
        let (ac, values) = verify_der(&der_signed)?;
        assert_eq!(
            ac.acinfo, acinfo,
            "{label}: the DER certificate does not decode to itself"
        );
        assert_eq!(values.len(), 1);
        // What the recipient reads: the borrowed decoding, the same certificate as the owned.
        let verify_der_ref = |b: &[u8]| {
            model::verify_and_decode_ref(b, |tbs, sig| {
                Ok(public.verify(DigestAlg::Sha256, tbs, sig)?)
            })
            // The decoded values borrow `b`: they are handed to black_box here.
            .map(|(ac, values)| std::hint::black_box((&ac, &values)).1.len())
        };
        {
            let (ac_ref, values_ref) = model::verify_and_decode_ref(&der_signed, |tbs, sig| {
                Ok(public.verify(DigestAlg::Sha256, tbs, sig)?)
            })?;
            assert_eq!(
                der::Encode::to_der(&ac_ref.acinfo)?,
                der::Encode::to_der(&acinfo)?,
                "{label}: the borrowed decoding differs from the owned"
            );
            assert_eq!(values_ref.len(), values.len());
            for (a, b) in values_ref.iter().zip(&values) {
                assert_eq!(a.to_der()?, b.to_der()?, "{label}: attribute values differ");
            }
        }
        owned.push((
            label,
            time(quick, || model::decode_unsigned(&der).unwrap()),
            time(quick, || verify_der(&der_signed).unwrap()),
        ));
        rows.push(Row {
            name: "DER (RFC 5755)",
            unsigned: der.len(),
            signed: der_signed.len(),
            signed_zipped: deflate(&der_signed),
            encode: time(quick, || model::encode_unsigned(&acinfo).unwrap()),
            decode: time(quick, || model::decode_unsigned_ref(&der).unwrap()),
            sign: time(quick, || sign_der().unwrap()),
            verify: time(quick, || verify_der_ref(&der_signed).unwrap()),
        });

        // XML with XML Signature, in two vocabularies: RFC 5755's field names (the files of
        // tests/sign/) and X.693 BASIC-XER (asn1tools' encoding of the DER certificate).
        let xer_events = compact_events(&std::fs::read(format!(
            "tests/sign/xer/{}",
            Path::new(path).file_name().unwrap().to_str().unwrap()
        ))?)?;
        let mut xmlsec = [None, None];
        for (i, (name, events)) in [
            ("XML, RFC 5755 names + XML Signature (binxml)", &events),
            ("X.693 XER + XML Signature (binxml)", &xer_events),
        ]
        .into_iter()
        .enumerate()
        {
            let (row, xml_signed) = xml_row(name, events, &key, quick)?;
            rows.push(row);
            let tag = format!("{label}-{i}");
            let clocks = xmlsec_times(&dir, &tag, &xml_signed, &key_pem, &cert_pem, quick)?;
            if let Some((s, v)) = clocks {
                xmlsec_clocks.push((label, i, s, v));
            }
            xmlsec[i] = clocks.map(|(s, v)| (s.0, v.0));
        }

        // Binary formats of the same XML, signed with CMS.
        for (name, format) in [
            ("Fast Infoset + CMS", Format::Fi),
            ("EXI + CMS", Format::Exi),
        ] {
            let bytes = encode(format, &events)?;
            let sign_bin = || -> Result<Vec<u8>, Error> {
                Ok(sign_cms(&encode(format, &events)?, &key, &cert, false)?)
            };
            let signed = sign_bin()?;
            let verify_bin = |b: &[u8]| -> Result<usize, Error> {
                let v = verify_cms(b, None, KeySource::Given(&public), &vopts)?;
                let doc = binxml::parse_tree_with(format, &v.content, &dopts)?;
                Ok(doc.root().map_or(0, |r| r.children().count()))
            };
            verify_bin(&signed)?;
            rows.push(Row {
                name,
                unsigned: bytes.len(),
                signed: signed.len(),
                signed_zipped: deflate(&signed),
                encode: time(quick, || encode(format, &events).unwrap()),
                decode: time(quick, || binxml::parse_tree(format, &bytes).unwrap()),
                sign: time(quick, || sign_bin().unwrap()),
                verify: time(quick, || verify_bin(&signed).unwrap()),
            });
        }
        tables.push((label, rows, xmlsec));
    }
    let _ = std::fs::remove_dir_all(&dir);
    print(&tables);
    println!("\n### DER decoded into owned values instead (µs; x509-cert's names, Strings)\n");
    println!("| attribute | decode | verify + decode | xmlsec1 verify / this |");
    println!("| --- | --- | --- | --- |");
    for ((label, decode, verify), (_, _, xmlsec)) in owned.iter().zip(&tables) {
        let ratio = xmlsec[0].map_or("-".into(), |(_, v)| format!("{:.1}x", v / verify));
        println!("| {label} | {decode:.1} | {verify:.1} | {ratio} |");
    }
    println!("\n### xmlsec1 per operation, CPU time (used above) and wall clock (µs)\n");
    println!("| attribute | vocabulary | sign, CPU | sign, wall | verify, CPU | verify, wall |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (label, i, (sc, sw), (vc, vw)) in &xmlsec_clocks {
        let vocabulary = VOCABULARIES[*i];
        println!("| {label} | {vocabulary} | {sc:.1} | {sw:.1} | {vc:.1} | {vw:.1} |");
    }
    Ok(())
}

fn print(tables: &[Table]) {
    let ms = |bytes: usize, kbit: f64| bytes as f64 * 8.0 / kbit;
    println!("### Table 1: sizes (bytes; zipped = DEFLATE level 9)\n");
    println!(
        "| attribute | representation | unsigned | signed | signed, zipped | signed / DER signed |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (label, rows, _) in tables {
        let der = rows[0].signed as f64;
        for r in rows {
            println!(
                "| {label} | {} | {} | {} | {} | {:.1}x |",
                r.name,
                r.unsigned,
                r.signed,
                r.signed_zipped,
                r.signed as f64 / der
            );
        }
    }
    println!("\n### Tables 2-3: transmission at 64 / 256 kbit/s (ms; signed, and signed zipped)\n");
    println!("| attribute | representation | signed 64 | signed 256 | zipped 64 | zipped 256 |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (label, rows, _) in tables {
        for r in rows {
            println!(
                "| {label} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
                r.name,
                ms(r.signed, 64.0),
                ms(r.signed, 256.0),
                ms(r.signed_zipped, 64.0),
                ms(r.signed_zipped, 256.0)
            );
        }
    }
    println!("\n### Tables 4-5: sender encoding and recipient decoding of unsigned data (µs)\n");
    println!("| attribute | representation | encode | decode |");
    println!("| --- | --- | --- | --- |");
    for (label, rows, _) in tables {
        for r in rows {
            println!(
                "| {label} | {} | {:.1} | {:.1} |",
                r.name, r.encode, r.decode
            );
        }
    }
    println!("\n### Tables 6-7: sender encode + sign, recipient verify + decode (µs)\n");
    println!(
        "(the ratios: xmlsec1's verification of the XML in each vocabulary over this row's)\n"
    );
    println!(
        "| attribute | representation | encode + sign | verify + decode | xmlsec1 {0} / this | xmlsec1 {1} / this |",
        VOCABULARIES[0], VOCABULARIES[1]
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (label, rows, xmlsec) in tables {
        let ratios =
            |t: f64| xmlsec.map(|x| x.map_or("-".into(), |(_, v)| format!("{:.1}x", v / t)));
        for r in rows {
            let [a, b] = ratios(r.verify);
            println!(
                "| {label} | {} | {:.1} | {:.1} | {a} | {b} |",
                r.name, r.sign, r.verify
            );
        }
        for (vocabulary, times) in VOCABULARIES.iter().zip(xmlsec) {
            match times {
                Some((s, v)) => {
                    let [a, b] = ratios(*v);
                    println!(
                        "| {label} | XML, {vocabulary} + XML Signature (xmlsec1 1.2) | {s:.1} | {v:.1} | {a} | {b} |"
                    )
                }
                None => println!("| {label} | xmlsec1, {vocabulary} | not available | | | |"),
            }
        }
    }
    println!("\n### End to end: sign + transmit + verify, signed (ms)\n");
    println!("| attribute | representation | at 64 kbit/s | at 256 kbit/s |");
    println!("| --- | --- | --- | --- |");
    for (label, rows, _) in tables {
        for r in rows {
            let cpu = (r.sign + r.verify) / 1000.0;
            println!(
                "| {label} | {} | {:.1} | {:.1} |",
                r.name,
                cpu + ms(r.signed, 64.0),
                cpu + ms(r.signed, 256.0)
            );
        }
    }
}
