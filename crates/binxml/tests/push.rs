//! Push decoding (`Decoder::read_into` of each codec and of `AnyDecoder`, `binxml::parse_tree`)
//! and batched pull (`Decoder::next_batch`, which runs the push loops into a batch, and
//! `Decoder::next_lent`, the same into a `LentBatch` whose strings borrow from it) give the
//! same events, the same tree and the same errors as pull decoding (`next_event`), for every
//! format, on every corpus XML document encoded in that format and on damaged copies of small
//! ones; a batch that ends in an error holds the events `next_event` gave before it.

use binxml::core::collect_events;
use binxml::tree::Document;
use binxml::{
    AnyDecoder, DecodeOptions, Decoder, Error, Event, Format, Limits, Result, parse_tree,
};
use binxml_testkit::mutate::{Rng, mutate};

fn owned(v: Vec<Event<'_>>) -> Vec<Event<'static>> {
    v.into_iter().map(Event::into_owned).collect()
}

/// The events `next_event` gives one at a time, and the error that ends them, if any.
fn pull_all(f: Format, input: &[u8], opts: &DecodeOptions) -> (Vec<Event<'static>>, Option<Error>) {
    let mut d = match AnyDecoder::new(f, input, opts) {
        Ok(d) => d,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut v = Vec::new();
    loop {
        match d.next_event() {
            Ok(Some(ev)) => v.push(ev.into_owned()),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e)),
        }
    }
}

/// The events of `next_batch` calls, and the error that ends them, if any.
fn batches(f: Format, input: &[u8], opts: &DecodeOptions) -> (Vec<Event<'static>>, Option<Error>) {
    let mut d = match AnyDecoder::new(f, input, opts) {
        Ok(d) => d,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut v = Vec::new();
    let mut batch = Vec::new();
    loop {
        batch.clear();
        let r = d.next_batch(&mut batch);
        v.extend(batch.drain(..).map(Event::into_owned));
        match r {
            Ok(0) => return (v, None),
            Ok(n) => assert!(n <= 4 * binxml::core::BATCH_EVENTS, "a batch of {n} events"),
            Err(e) => return (v, Some(e)),
        }
    }
}

/// The events of `next_lent` calls into one reused batch, and the error that ends them.
fn lent_batches(
    f: Format,
    input: &[u8],
    opts: &DecodeOptions,
) -> (Vec<Event<'static>>, Option<Error>) {
    let mut d = match AnyDecoder::new(f, input, opts) {
        Ok(d) => d,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut v = Vec::new();
    let mut batch = binxml::core::LentBatch::new();
    loop {
        let r = d.next_lent(&mut batch);
        v.extend(batch.iter().map(Event::into_owned));
        // the views give the same events, and their accessors the same strings
        for (view, ev) in batch.views().zip(batch.iter()) {
            // (compared as text: a NaN is not equal to itself)
            assert_eq!(format!("{:?}", view.to_event()), format!("{ev:?}"));
            match &ev {
                Event::StartElement(q) | Event::Attribute { name: q, .. } => assert_eq!(
                    (view.prefix(), view.namespace(), view.local()),
                    (&*q.prefix, &*q.namespace, &*q.local)
                ),
                Event::Characters { text, cdata: false } => assert_eq!(view.text(), &**text),
                _ => {}
            }
        }
        match r {
            Ok(0) => return (v, None),
            Ok(n) => assert!(n <= 4 * binxml::core::BATCH_EVENTS, "a batch of {n} events"),
            Err(e) => return (v, Some(e)),
        }
    }
}

fn pull(f: Format, input: &[u8], opts: &DecodeOptions) -> Result<Vec<Event<'static>>> {
    match pull_all(f, input, opts) {
        (v, None) => Ok(v),
        (_, Some(e)) => Err(e),
    }
}

/// Batched pull against pull one at a time: the same events, and the same error after them.
fn same_batches(f: Format, input: &[u8], opts: &DecodeOptions) -> std::result::Result<(), String> {
    let (a, ea) = pull_all(f, input, opts);
    let (b, eb) = batches(f, input, opts);
    if format!("{a:?}") != format!("{b:?}") {
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        return Err(format!(
            "batches: events differ at {at}: {:?} vs {:?}",
            a.get(at),
            b.get(at)
        ));
    }
    let key = |e: &Option<Error>| {
        e.as_ref()
            .map(|e| (e.kind(), e.message().to_string(), e.offset()))
    };
    if key(&ea) != key(&eb) {
        return Err(format!("batches: errors differ: {ea:?} vs {eb:?}"));
    }
    let (c, ec) = lent_batches(f, input, opts);
    if format!("{a:?}") != format!("{c:?}") {
        let at = a
            .iter()
            .zip(&c)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(c.len()));
        return Err(format!(
            "lent batches: events differ at {at}: {:?} vs {:?}",
            a.get(at),
            c.get(at)
        ));
    }
    if key(&ea) != key(&ec) {
        return Err(format!("lent batches: errors differ: {ea:?} vs {ec:?}"));
    }
    Ok(())
}

fn push(f: Format, input: &[u8], opts: &DecodeOptions) -> Result<Vec<Event<'static>>> {
    let mut v = Vec::new();
    AnyDecoder::new(f, input, opts)?.read_into(&mut v)?;
    Ok(owned(v))
}

fn tree_events(doc: &Document<'_>) -> Vec<Event<'static>> {
    owned(collect_events(&mut doc.events()).unwrap())
}

/// Pull and push on one input: the same events or the same error; and the tree built by push
/// equal to the tree built from the pulled events.
fn same(f: Format, input: &[u8], opts: &DecodeOptions) -> std::result::Result<(), String> {
    same_batches(f, input, opts)?;
    match (pull(f, input, opts), push(f, input, opts)) {
        // Compared by their Debug text: typed NaN values are equal there, not by `==`.
        (Ok(a), Ok(b)) => {
            if format!("{a:?}") != format!("{b:?}") {
                let at = a
                    .iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                return Err(format!(
                    "events differ at {at}: {:?} vs {:?}",
                    a.get(at),
                    b.get(at)
                ));
            }
        }
        (Err(a), Err(b)) => {
            // The push path may stop at the same error; a sink error would differ in kind.
            if (a.kind(), &a.message(), a.offset()) != (b.kind(), &b.message(), b.offset()) {
                return Err(format!("errors differ: {a} vs {b}"));
            }
            return Ok(());
        }
        (a, b) => {
            return Err(format!(
                "one path failed: pull {:?}, push {:?}",
                a.err(),
                b.err()
            ));
        }
    }
    let mut pulled = AnyDecoder::new(f, input, opts).unwrap();
    let mut pulled: &mut dyn Decoder<'_> = &mut pulled;
    let generic = Document::parse(&mut pulled, input.len());
    let pushed = if opts.limits == Limits::default() {
        parse_tree(f, input)
    } else {
        binxml::parse_tree_with(f, input, opts)
    };
    match (generic, pushed) {
        (Ok(g), Ok(p)) => {
            if format!("{:?}", tree_events(&g)) != format!("{:?}", tree_events(&p)) {
                return Err("trees differ".into());
            }
            Ok(())
        }
        (Err(g), Err(p))
            if (g.kind(), &g.message(), g.offset()) == (p.kind(), &p.message(), p.offset()) =>
        {
            Ok(())
        }
        (g, p) => Err(format!("tree: generic {:?}, push {:?}", g.err(), p.err())),
    }
}

fn encoded(f: Format, xml: &[u8]) -> Option<Vec<u8>> {
    binxml::convert(xml, Some(Format::Xml), f).ok()
}

#[test]
fn corpus_push_equals_pull_every_format() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        let xml = binxml::xml::to_utf8(&raw).unwrap().into_owned();
        for &f in Format::ALL {
            // JSON is a one-way export of XML; it is checked on its own documents below.
            if f == Format::Json {
                continue;
            }
            let Some(bytes) = (if f == Format::Xml {
                Some(xml.clone())
            } else {
                encoded(f, &xml)
            }) else {
                continue;
            };
            checked += 1;
            if let Err(e) = same(f, &bytes, &DecodeOptions::default()) {
                failures.push(format!("{} as {}: {e}", path.display(), f.name()));
            }
        }
    }
    for path in binxml_testkit::corpus_json_files("") {
        let bytes = std::fs::read(&path).unwrap();
        checked += 1;
        if let Err(e) = same(Format::Json, &bytes, &DecodeOptions::default()) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(checked > 500, "only {checked} documents checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn damaged_push_equals_pull_every_format() {
    let mut small: Vec<Vec<u8>> = binxml_testkit::corpus_xml_files()
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|d| d.len() < 4000)
        .take(12)
        .collect();
    small.push(b"<!DOCTYPE a [<!ENTITY e 'x<b y=\"1\"/>z'>]><a xmlns:p='urn:p' p:k='v'>&e;<![CDATA[c]]><!--k--><?p d?></a>".to_vec());
    let tight = DecodeOptions::default()
        .with_limits(Limits::default().with_max_depth(3).with_max_string_len(8));
    let mut failures = Vec::new();
    for &f in Format::ALL {
        if f == Format::Json {
            continue;
        }
        let seeds: Vec<Vec<u8>> = small
            .iter()
            .filter_map(|x| {
                if f == Format::Xml {
                    Some(x.clone())
                } else {
                    encoded(f, x)
                }
            })
            .collect();
        let mut rng = Rng(0x5eed ^ f.name().len() as u64);
        for i in 0..400 {
            let input = mutate(&mut rng, &seeds);
            let opts = if i % 4 == 0 {
                tight.clone()
            } else {
                DecodeOptions::default()
            };
            if let Err(e) = same(f, &input, &opts) {
                failures.push(format!("{} mutation {i}: {e}", f.name()));
            }
        }
        for s in &seeds {
            if let Err(e) = same(f, s, &tight) {
                failures.push(format!("{} with tight limits: {e}", f.name()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Inputs of the fuzz target `push_pull` kept under tests/regressions/push_pull/ (the first byte
/// picks the format, as in the target).
#[test]
fn push_pull_regressions() {
    let dir = binxml_testkit::workspace_root().join("tests/regressions/push_pull");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let Some((&pick, rest)) = data.split_first() else {
            continue;
        };
        let f = Format::ALL[pick as usize % Format::ALL.len()];
        same(f, rest, &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n > 0);
}

/// `binxml::convert_with` (push decoding into the target's encoder, the FI encoder as a sink of
/// parts) writes the bytes of `transcode` (pull decoding, `write_event`) for every pair of
/// formats from XML and from FI, on the corpus.
#[test]
fn convert_with_equals_transcode() {
    use binxml::core::transcode;
    use binxml::{AnyEncoder, EncodeOptions, convert_with};
    let mut failures = Vec::new();
    for path in binxml_testkit::corpus_xml_files() {
        let raw = std::fs::read(&path).unwrap();
        let xml = binxml::xml::to_utf8(&raw).unwrap().into_owned();
        let Some(fi) = encoded(Format::Fi, &xml) else {
            continue;
        };
        for (from, input) in [(Format::Xml, &xml), (Format::Fi, &fi)] {
            for &to in Format::ALL {
                let opts = DecodeOptions::default();
                let mut a = Vec::new();
                let ra = convert_with(input, from, &opts, to, &mut a, &EncodeOptions::default());
                let mut b = Vec::new();
                let rb = (|| {
                    let mut enc = AnyEncoder::new(to, &mut b, &EncodeOptions::default());
                    transcode(&mut AnyDecoder::new(from, input, &opts)?, &mut enc)
                })();
                match (ra, rb) {
                    (Ok(_), Ok(_)) if a == b => {}
                    (Err(x), Err(y)) if x.to_string() == y.to_string() => {}
                    (x, y) => failures.push(format!(
                        "{} {}->{}: {:?} / {:?}, bytes equal: {}",
                        path.display(),
                        from.name(),
                        to.name(),
                        x.err(),
                        y.err(),
                        a == b
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
