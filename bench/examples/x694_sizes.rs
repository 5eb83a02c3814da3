//! Seed 000 section 2 on binxml's schema sets: for each valid instance of
//! `tests/schemas/sets.tsv` that X.694 covers, the sizes of the XML, its zlib (deflate), the
//! X.694 PER and PER+zlib in the ALIGNED variant (the seed's "PER" columns: it encoded with
//! OSS's default, aligned PER), the UNALIGNED variant's (UPER, UPER+zlib) beside them, and BER,
//! with binxml's schema-less UPER (the infoset module) and schema-informed EXI; and the times
//! of decoding UPER and BER into events (push) against binxml's own XML push decoding, and of
//! encoding events into UPER (without and with the validation the format does first). After
//! the table, for each set: on how many documents PER+zlib (aligned) and UPER+zlib are smaller
//! than zlib, and the sums' ratios.
//!
//! `cargo run --release -p binxml-bench --example x694_sizes [-- [--sizes|--decode] [--cpu] [SUBSTRING]...]`
//! (prints a Markdown table): with substrings, only the instances whose path holds one of
//! them; with `--sizes`, no times; with `--decode`, only the decoding times (the encoding columns are left empty); with
//! `--cpu`, the times are the thread's CPU time (Linux), not wall-clock time, which on a
//! loaded machine counts the time other work holds the CPU. With `--profile=N`, no table: each
//! instance is push-decoded N times from XML (in `profile_xml`) and N times from unaligned
//! PER (in `profile_per`), for an instruction count per decoder under callgrind
//! (`valgrind --tool=callgrind`, then `callgrind_annotate --inclusive=yes`), which the load
//! of a shared machine does not change. With `--breakdown`, no table either: for each instance,
//! its PER size beside the bytes of its values (character data and attribute values as UTF-8,
//! trimmed, white space between elements left out) and their number, to see how much of the PER
//! is the values themselves.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use binxml::asn1::x694::{Roots, X694};
use binxml::schema::model::Name;
use binxml::schema::{LoadOptions, Schema};
use binxml::{AnyDecoder, AnyEncoder, DecodeOptions, Decoder, EncodeOptions, Event, Format};
use binxml_testkit::schema_sets;

fn zlib(b: &[u8]) -> usize {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b).unwrap();
    z.finish().unwrap().len()
}

fn load(row: &binxml_testkit::SchemaSetEntry) -> Schema {
    let mut o = LoadOptions::default();
    if let Some(c) = &row.catalog {
        let dir = c.parent().unwrap();
        for line in std::fs::read_to_string(c).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (url, file) = line.split_once('\t').unwrap();
            o = o.with_location(url, dir.join(file));
        }
    }
    Schema::load_with(row.schema.as_ref().unwrap(), &o).unwrap()
}

#[repr(C)]
struct Timespec {
    s: i64,
    ns: i64,
}

unsafe extern "C" {
    fn clock_gettime(c: i32, t: *mut Timespec) -> i32;
}

/// The CPU time this thread has run (POSIX `CLOCK_THREAD_CPUTIME_ID`, 3 on Linux): on a
/// machine shared with other work, the time a run spends off the CPU is not its own.
fn cpu_time() -> Option<f64> {
    let mut t = Timespec { s: 0, ns: 0 };
    // SAFETY: a valid clock id and a valid pointer to a `timespec`-shaped struct (64-bit Linux).
    let rc = unsafe { clock_gettime(3, &mut t) };
    (rc == 0).then(|| t.s as f64 + t.ns as f64 / 1e9)
}

/// Seconds per run of `f`, the median of 5 timings of enough runs for 50 ms each; with `cpu`,
/// of the thread's CPU time (wall-clock time otherwise).
fn time(cpu: bool, mut f: impl FnMut()) -> f64 {
    let now = || {
        if cpu && let Some(t) = cpu_time() {
            return t;
        }
        START.with(|s| s.elapsed().as_secs_f64())
    };
    let start = now();
    f();
    let once = (now() - start).max(1e-7);
    let reps = ((0.05 / once) as usize).max(1);
    let mut t: Vec<f64> = (0..5)
        .map(|_| {
            let s = now();
            for _ in 0..reps {
                f();
            }
            (now() - s) / reps as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[2]
}

thread_local! {
    static START: Instant = Instant::now();
}

fn push(format: Format, bytes: &[u8], opts: &DecodeOptions) -> u64 {
    let mut d = AnyDecoder::new(format, bytes, opts).unwrap();
    let mut c = binxml::CountingSink::default();
    d.read_into(&mut c).unwrap();
    c.events
}

/// `n` push decodings of the XML (a function of its own for callgrind).
#[inline(never)]
fn profile_xml(n: usize, xml: &[u8]) -> u64 {
    (0..n)
        .map(|_| push(Format::Xml, xml, &DecodeOptions::default()))
        .sum()
}

/// `n` push decodings of the unaligned PER (a function of its own for callgrind).
#[inline(never)]
fn profile_per(n: usize, per: &[u8], opts: &DecodeOptions) -> u64 {
    (0..n).map(|_| push(Format::Asn1XsdUper, per, opts)).sum()
}

fn main() {
    let mut mapped: HashMap<String, (Arc<Schema>, Arc<X694>)> = HashMap::new();
    println!(
        "| set | document | XML | zlib | PER (aligned) | PER+zlib (aligned) | PER/XML (aligned) | UPER | UPER+zlib | BER | UPER (infoset, schema-less) | EXI (schema) | XML push MB/s | UPER push MB/s | BER push MB/s | UPER encode MB/s | encode+validate MB/s |"
    );
    println!(
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    let decode_only = args.iter().any(|a| a == "--decode");
    let cpu = args.iter().any(|a| a == "--cpu");
    let sizes_only = args.iter().any(|a| a == "--sizes");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let breakdown = args.iter().any(|a| a == "--breakdown");
    let profile: Option<usize> = args
        .iter()
        .find_map(|a| a.strip_prefix("--profile="))
        .map(|n| n.parse().expect("--profile=N"));
    let mut seen = std::collections::HashSet::new();
    // For each set (in the table's order): documents, those whose aligned and unaligned
    // PER+zlib are smaller than zlib, and the sums of zlib, APER+zlib and UPER+zlib.
    let mut against_zlib: Vec<(String, [usize; 6])> = Vec::new();
    for row in schema_sets() {
        if !row.present() || !row.expected_valid {
            continue;
        }
        let instance = row.instance.clone().unwrap();
        let path = instance.to_string_lossy();
        if !filters.is_empty() && !filters.iter().any(|f| path.contains(f.as_str())) {
            continue;
        }
        if !seen.insert(instance.clone()) {
            continue;
        }
        let xml = std::fs::read(&instance).unwrap();
        let events = binxml_xml::decode(&xml).unwrap();
        let root = events
            .iter()
            .find_map(|e| match e {
                Event::StartElement(q) => Some(Name::new(&*q.namespace, &*q.local)),
                _ => None,
            })
            .unwrap();
        let key = format!("{} {root}", row.schema.as_ref().unwrap().display());
        let (schema, x) = mapped
            .entry(key)
            .or_insert_with(|| {
                let s = Arc::new(load(&row));
                let x = X694::with_roots(s.clone(), &Roots::Named(root.clone())).unwrap();
                (s, Arc::new(x))
            })
            .clone();
        let Ok(per) = x.encode_events(&events, Format::Asn1XsdUper) else {
            continue;
        };
        if breakdown {
            let (mut n, mut bytes) = (0usize, 0usize);
            for e in &events {
                let v = match e {
                    Event::Characters { text, .. } => text.trim(),
                    Event::Attribute { name, value } if name.local != "schemaLocation" => {
                        value.trim()
                    }
                    _ => continue,
                };
                if !v.is_empty() {
                    n += 1;
                    bytes += v.len();
                }
            }
            println!(
                "{} | {} | {} | {} ({:.1}%) | {} values | values + a length octet each: {:.1}% | the rest: {} bytes",
                instance.file_name().unwrap().to_string_lossy(),
                xml.len(),
                per.len(),
                bytes,
                100.0 * bytes as f64 / xml.len() as f64,
                n,
                100.0 * (bytes + n) as f64 / xml.len() as f64,
                per.len() as i64 - (bytes + n) as i64,
            );
            continue;
        }
        if let Some(n) = profile {
            let dopts = DecodeOptions::default().with_x694(Some(x.clone()));
            let (a, b) = (profile_xml(n, &xml), profile_per(n, &per, &dopts));
            eprintln!("{}: {a} XML events, {b} PER events", instance.display());
            continue;
        }
        let aper = x.encode_events(&events, Format::Asn1XsdAper).unwrap();
        let ber = x.encode_events(&events, Format::Asn1XsdBer).unwrap();
        let dopts = DecodeOptions::default().with_x694(Some(x.clone()));
        let eopts = EncodeOptions::default().with_x694(Some(x.clone()));
        let uper = binxml::convert(&xml, Some(Format::Xml), Format::Asn1Uper).unwrap();
        let grammars = binxml::exi::informed::SchemaGrammars::new(schema.clone())
            .ok()
            .map(Arc::new);
        let exi = grammars.map(|g| {
            let mut out = Vec::new();
            let o = EncodeOptions::default().with_exi_schema(Some(g));
            let mut d = AnyDecoder::new(Format::Xml, &xml, &DecodeOptions::default()).unwrap();
            AnyEncoder::new(Format::Exi, &mut out, &o)
                .encode_from(&mut d)
                .map(|_| out.len())
                .ok()
        });
        let (xml_t, per_t, ber_t) = if sizes_only {
            (f64::NAN, f64::NAN, f64::NAN)
        } else {
            (
                time(cpu, || {
                    push(Format::Xml, &xml, &DecodeOptions::default());
                }),
                time(cpu, || {
                    push(Format::Asn1XsdUper, &per, &dopts);
                }),
                time(cpu, || {
                    push(Format::Asn1XsdBer, &ber, &dopts);
                }),
            )
        };
        let (enc_t, val_t) = if decode_only || sizes_only {
            (f64::NAN, f64::NAN)
        } else {
            let enc_t = time(cpu, || {
                x.encode_events(&events, Format::Asn1XsdUper).unwrap();
            });
            let val_t = time(cpu, || {
                let mut out = Vec::new();
                let mut e = AnyEncoder::new(Format::Asn1XsdUper, &mut out, &eopts);
                binxml::Encoder::write_events(&mut e, &events).unwrap();
                binxml::Encoder::finish(&mut e).unwrap();
            });
            (enc_t, val_t)
        };
        let mb = xml.len() as f64 / 1e6;
        let name = instance.file_name().unwrap().to_string_lossy().into_owned();
        let (z, per_z, aper_z) = (zlib(&xml), zlib(&per), zlib(&aper));
        let i = match against_zlib.iter().position(|(s, _)| *s == row.set) {
            Some(i) => i,
            None => {
                against_zlib.push((row.set.to_string(), [0; 6]));
                against_zlib.len() - 1
            }
        };
        let t = &mut against_zlib[i].1;
        t[0] += 1;
        t[1] += usize::from(aper_z < z);
        t[2] += usize::from(per_z < z);
        t[3] += z;
        t[4] += aper_z;
        t[5] += per_z;
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.1}% | {} | {} | {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
            row.set,
            name,
            xml.len(),
            z,
            aper.len(),
            aper_z,
            100.0 * aper.len() as f64 / xml.len() as f64,
            per.len(),
            per_z,
            ber.len(),
            uper.len(),
            exi.flatten()
                .map(|n| n.to_string())
                .unwrap_or_else(|| "-".into()),
            mb / xml_t,
            mb / per_t,
            mb / ber_t,
            mb / enc_t,
            mb / val_t,
        );
    }
    if profile.is_some() || breakdown {
        return;
    }
    println!();
    println!(
        "| set | documents | PER+zlib (aligned) < zlib | UPER+zlib < zlib | sum PER+zlib (aligned) / sum zlib | sum UPER+zlib / sum zlib |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (set, t) in &against_zlib {
        println!(
            "| {set} | {} | {} of {} | {} of {} | {:.3} | {:.3} |",
            t[0],
            t[1],
            t[0],
            t[2],
            t[0],
            t[4] as f64 / t[3] as f64,
            t[5] as f64 / t[3] as f64,
        );
    }
}
