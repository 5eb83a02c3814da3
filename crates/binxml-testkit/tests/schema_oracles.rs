//! The plumbing of the schema oracles, on the test sets of `tests/schemas/`:
//! * `XsdOracle` (PyPI xmlschema) gives every instance of `sets.tsv` the verdict recorded
//!   there, and every deliberately broken instance (`<set>/broken/expected.tsv`) "invalid" with
//!   the recorded reason; it fetches nothing from the network (a web import without the
//!   catalog is an error, not a download).
//! * `ExiOracle` (EXIficient 1.0.7) encodes each set's first instance with the set's schema in
//!   every alignment, non-strict and strict, decodes it again, and the decoded document is
//!   still valid per xmlschema and encodes to the same bytes; inv100.xml with the invoice
//!   schema is the 22,549 bytes. The schema options (`catalog=`, `schemaid=`, `xsdtypes`)
//!   answer as `interop/exi/ExiDriver.java` documents them, and a web import that is not in the
//!   catalog fails instead of being fetched.
//!
//! Rows whose files are only in `../shared/corpus` are skipped (with a line on stderr) when it is
//! absent; the sets kept in the repository (ubl21, bbf-dm) always run. Each test is skipped when
//! its oracle is not set up (`interop/xsd/setup.sh`, `interop/exi/setup.sh`), except under
//! `CI=true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use binxml_testkit::{
    ExiOracle, Verdict, XsdOracle, python, resolve_listed_path, schema_sets, scratch_dir,
    workspace_root,
};

fn note(line: &str) {
    eprintln!("schema_oracles: {line}");
}

#[test]
fn xsd_oracle_gives_the_recorded_verdicts() {
    let Some(mut xsd) = XsdOracle::start_or_skip() else {
        return;
    };
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for row in schema_sets() {
        let (Some(schema), Some(instance)) = (&row.schema, &row.instance) else {
            note(&format!(
                "skipped {} {} (its schema or instance is only in ../shared/corpus)",
                row.set, row.listed
            ));
            continue;
        };
        let v = xsd
            .validate_with(schema, instance, row.catalog.as_deref())
            .unwrap_or_else(|e| {
                panic!(
                    "{} {}: the oracle could not decide: {e}",
                    row.set, row.listed
                )
            });
        if v.is_valid() != row.expected_valid {
            failures.push(format!("{} {}: {v:?}", row.set, row.listed));
        }
        *checked.entry(row.set.clone()).or_default() += 1;
    }
    assert!(
        failures.is_empty(),
        "verdicts differ from sets.tsv:\n{}",
        failures.join("\n")
    );
    // the sets kept in the repository are always there
    assert!(
        checked.get("ubl21").copied().unwrap_or(0) >= 4,
        "{checked:?}"
    );
    assert!(
        checked.get("bbf-dm").copied().unwrap_or(0) >= 10,
        "{checked:?}"
    );
    note(&format!("instances checked per set: {checked:?}"));
}

#[test]
fn xsd_oracle_rejects_the_broken_instances() {
    let Some(mut xsd) = XsdOracle::start_or_skip() else {
        return;
    };
    let root = workspace_root();
    let mut sets: Vec<PathBuf> = std::fs::read_dir(root.join("tests/schemas"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("broken/expected.tsv"))
        .filter(|p| p.is_file())
        .collect();
    sets.sort();
    assert!(sets.len() >= 4, "{sets:?}");
    let mut checked = 0;
    for expected in sets {
        let set = expected
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(&expected).unwrap();
        // every broken file kept in the repository is listed (no stale file of an earlier run)
        for f in std::fs::read_dir(expected.parent().unwrap())
            .unwrap()
            .flatten()
        {
            let rel = f.path().strip_prefix(&root).unwrap().display().to_string();
            assert!(
                !rel.ends_with(".xml") || text.lines().any(|l| l.starts_with(&format!("{rel}\t"))),
                "{rel} is not listed in {}",
                expected.display()
            );
        }
        let mut regenerated = false;
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "{}: {line}", expected.display());
            let (file, source, schema, catalog, reason) = (f[0], f[1], f[3], f[4], f[5]);
            let (Some(schema), Some(_)) =
                (resolve_listed_path(schema), resolve_listed_path(source))
            else {
                note(&format!(
                    "skipped {file} (its schema or source is only in ../shared/corpus)"
                ));
                continue;
            };
            // Broken files derived from corpus-only sources are not in the repository (the
            // corpus's files are not copied into it): make_broken.py writes them under target/.
            if !root.join(file).is_file() && !regenerated {
                let status = Command::new(python())
                    .arg(root.join("interop/xsd/make_broken.py"))
                    .arg(&set)
                    .status()
                    .expect("run interop/xsd/make_broken.py");
                assert!(status.success(), "make_broken.py {set} failed");
                regenerated = true;
            }
            let v = xsd
                .validate_with(
                    &schema,
                    &root.join(file),
                    resolve_listed_path(catalog).as_deref(),
                )
                .unwrap_or_else(|e| panic!("{file}: the oracle could not decide: {e}"));
            assert_eq!(v, Verdict::Invalid(reason.to_string()), "{file}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} broken instances checked");
}

#[test]
fn xsd_oracle_reports_errors_and_fetches_nothing() {
    let Some(mut xsd) = XsdOracle::start_or_skip() else {
        return;
    };
    let root = workspace_root();
    let dm = root.join("tests/schemas/bbf-dm");
    let instance = dm.join("instances/tr-181-2-14-0-time.xml");
    // bbf-dm.xsd imports its two namespaces from https://www.broadband-forum.org/...: without
    // the catalog the imports are blocked, which is an error (no verdict), not a download
    let err = xsd.validate(&dm.join("bbf-dm.xsd"), &instance).unwrap_err();
    assert!(err.contains("remote resource"), "{err}");
    assert_eq!(
        xsd.validate_with(
            &dm.join("bbf-dm.xsd"),
            &instance,
            Some(&dm.join("catalog.tsv"))
        )
        .unwrap(),
        Verdict::Valid
    );
    // a missing schema is an error; an instance that is not well-formed is invalid
    assert!(xsd.validate(&dm.join("missing.xsd"), &instance).is_err());
    let dir = scratch_dir("xsd-oracle");
    let bad = dir.join("bad.xml");
    std::fs::write(&bad, "<document").unwrap();
    let v = xsd
        .validate_with(&dm.join("bbf-dm.xsd"), &bad, Some(&dm.join("catalog.tsv")))
        .unwrap();
    assert!(
        matches!(&v, Verdict::Invalid(r) if r.starts_with("not well-formed")),
        "{v:?}"
    );
}

#[test]
fn exificient_round_trips_each_sets_first_instance_with_its_schema() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let mut xsd = XsdOracle::start_or_skip();
    let dir = scratch_dir("exi-schema-oracle");
    let mut firsts: BTreeMap<String, binxml_testkit::SchemaSetEntry> = BTreeMap::new();
    for row in schema_sets() {
        if row.present() && row.expected_valid {
            firsts.entry(row.set.clone()).or_insert(row);
        }
    }
    assert!(
        firsts.contains_key("ubl21") && firsts.contains_key("bbf-dm"),
        "{firsts:?}"
    );
    for (set, row) in &firsts {
        let (schema, instance) = (row.schema.as_ref().unwrap(), row.instance.as_ref().unwrap());
        let mut grammar = format!("schema={}", schema.display());
        if let Some(c) = &row.catalog {
            grammar.push_str(&format!(",catalog={}", c.display()));
        }
        for strict in ["", ",strict"] {
            for mode in ["bitpacked", "bytealigned", "precompression", "compression"] {
                let opts = format!("{mode},{grammar}{strict}");
                let what = format!("{set} {} [{mode}{strict}]", row.listed);
                let exi_file = dir.join(format!("{set}.exi"));
                let back = dir.join(format!("{set}.back.xml"));
                exi.encode(instance, &exi_file, &opts)
                    .unwrap_or_else(|e| panic!("{what}: encode: {e}"));
                exi.decode(&exi_file, &back, &opts)
                    .unwrap_or_else(|e| panic!("{what}: decode: {e}"));
                // EXIficient's decoding is a fixed point of its encoding ...
                let again = dir.join(format!("{set}.again.exi"));
                exi.encode(&back, &again, &opts)
                    .unwrap_or_else(|e| panic!("{what}: re-encode: {e}"));
                assert_eq!(
                    std::fs::read(&exi_file).unwrap(),
                    std::fs::read(&again).unwrap(),
                    "{what}: the decoded document encodes differently"
                );
                // ... and what it decodes is still valid against the schema
                if let Some(xsd) = xsd.as_mut() {
                    let v = xsd
                        .validate_with(schema, &back, row.catalog.as_deref())
                        .unwrap();
                    assert_eq!(v, Verdict::Valid, "{what}: the decoded document");
                }
            }
        }
    }
    // the figure of the issue: inv100.xml with sm-inv.xsd, EXIficient's defaults
    if let Some(inv) = firsts.get("invoice") {
        let folder = inv.schema.as_ref().unwrap().parent().unwrap();
        let out = dir.join("inv100.exi");
        exi.encode(
            &folder.join("inv100.xml"),
            &out,
            &format!("schema={}", inv.schema.as_ref().unwrap().display()),
        )
        .unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 22_549);
    }
}

#[test]
fn exificient_schema_options_answer_as_documented() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let root = workspace_root();
    let dir = scratch_dir("exi-schema-options");
    let dm = root.join("tests/schemas/bbf-dm");
    let (xsd, cat) = (dm.join("bbf-dm.xsd"), dm.join("catalog.tsv"));
    let instance = dm.join("instances/tr-181-2-15-0-selftest.xml");
    let grammar = format!("schema={},catalog={}", xsd.display(), cat.display());
    let out = dir.join("out.exi");
    let back = dir.join("back.xml");
    // without the catalog the web imports are not fetched: the grammar load fails
    let err = exi
        .encode(&instance, &out, &format!("schema={}", xsd.display()))
        .unwrap_err();
    assert!(err.contains("schema_reference.4"), "{err}");
    // the schemaId goes into the header options; decoding finds the schema by it and answers
    // the options the stream was written with
    exi.encode(
        &instance,
        &out,
        &format!("{grammar},header,schemaid=urn:binxml:dm"),
    )
    .unwrap();
    let used = exi
        .request(&[
            "decode",
            &out.display().to_string(),
            &back.display().to_string(),
            &format!("{grammar},schemaid=urn:binxml:dm,header"),
        ])
        .unwrap();
    assert_eq!(used, "schema=urn:binxml:dm,header");
    // a stream whose schemaId is not the schema given is refused
    let err = exi
        .decode(&out, &back, &format!("{grammar},header,schemaid=urn:other"))
        .unwrap_err();
    assert!(err.contains("schemaId"), "{err}");
    // built-in types only, with the header's empty schemaId
    exi.encode(&instance, &out, "xsdtypes,header,schemaid")
        .unwrap();
    let used = exi
        .request(&[
            "decode",
            &out.display().to_string(),
            &back.display().to_string(),
            "xsdtypes",
        ])
        .unwrap();
    assert_eq!(used, "xsdtypes,header");
    // option errors
    for bad in [
        "xsdtypes,schema=a.xsd",
        "catalog=c.tsv",
        "schemaid",
        "schema=",
    ] {
        assert!(exi.request(&["options", bad]).is_err(), "{bad}");
    }
    // schema-less streams still describe themselves as before
    assert_eq!(
        exi.request(&["options", "bytealigned"]).unwrap(),
        "bytealigned"
    );
}
