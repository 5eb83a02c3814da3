//! The grammar oracle on the test sets of `tests/schemas/sets.tsv`: for every schema present
//! (and for `xsdtypes`), EXIficient's grammars are dumped with Grammars2JSON
//! (`ExiOracle::grammars`), parsed (`parse_grammars2json`), and their canonical text is
//! non-empty and stable: the same for the same graph twice, for a second dump of the same
//! grammars, and for the graph with its states numbered the other way round. Prints per
//! schema the states before and after merging, the productions and the times; with
//! `BINXML_GRAMMARS_OUT=DIR` it also writes each canonical text to `DIR/<set>-<schema>.txt`.
//!
//! Schemas only in `../shared/corpus` are skipped (with a line on stderr) when it is absent;
//! the test is skipped when the EXI oracle is not set up (`interop/exi/setup.sh`), except under
//! `CI=true`.

use std::collections::BTreeSet;
use std::time::Instant;

use binxml_testkit::exi_grammars::{
    GlobalName, GrammarGraph, canonical, canonical_with_stats, parse_grammars2json,
};
use binxml_testkit::{ExiOracle, schema_sets, scratch_dir};

fn note(line: &str) {
    eprintln!("exi_grammars: {line}");
}

/// The same graph with its states in reverse order.
fn reversed(g: &GrammarGraph) -> GrammarGraph {
    let n = g.states.len();
    let m = |i: usize| n - 1 - i;
    let mut states = g.states.clone();
    states.reverse();
    for s in &mut states {
        for p in &mut s.productions {
            p.next = p.next.map(m);
            p.element = p.element.map(m);
        }
    }
    GrammarGraph {
        uris: g.uris.clone(),
        states,
        document: m(g.document),
        fragment: m(g.fragment),
        globals: g
            .globals
            .iter()
            .map(|x| GlobalName {
                element: x.element.map(m),
                type_grammar: x.type_grammar.map(m),
                ..x.clone()
            })
            .collect(),
    }
}

#[test]
fn exificient_grammars_parse_and_have_a_stable_canonical_text() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let scratch = scratch_dir("exi_grammars");
    // each schema once (a set lists one row per instance), then the built-in types alone
    let mut seen = BTreeSet::new();
    let mut jobs: Vec<(String, String)> = Vec::new();
    for row in schema_sets() {
        let Some(schema) = &row.schema else {
            if seen.insert(format!("{} missing", row.set)) {
                note(&format!(
                    "skipped {}: its schema is only in ../shared/corpus",
                    row.set
                ));
            }
            continue;
        };
        let mut options = format!("schema={}", schema.display());
        if let Some(c) = &row.catalog {
            options.push_str(&format!(",catalog={}", c.display()));
        }
        if seen.insert(options.clone()) {
            let name = schema
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("?")
                .to_string();
            jobs.push((format!("{} {name}", row.set), options));
        }
    }
    jobs.push(("xsdtypes".to_string(), "xsdtypes".to_string()));

    let mut texts = Vec::new();
    for (k, (name, options)) in jobs.iter().enumerate() {
        let out = scratch.join(format!("grammars-{k}.json"));
        let t0 = Instant::now();
        exi.grammars(&out, options)
            .unwrap_or_else(|e| panic!("{name}: EXIficient: {e}"));
        let dump = t0.elapsed();
        let json =
            std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        let t1 = Instant::now();
        let g = parse_grammars2json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let parse = t1.elapsed();
        let t2 = Instant::now();
        let (text, stats) = canonical_with_stats(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
        let canon = t2.elapsed();
        assert!(
            !text.is_empty() && stats.merged > 0,
            "{name}: empty canonical text"
        );
        assert_eq!(text, canonical(&g), "{name}: canonical() is not stable");
        assert_eq!(
            text,
            canonical(&reversed(&g)),
            "{name}: canonical() depends on the numbering of the states"
        );
        // a second dump of the same (cached) grammars
        let again = scratch.join(format!("grammars-{k}-again.json"));
        let t3 = Instant::now();
        exi.grammars(&again, options)
            .unwrap_or_else(|e| panic!("{name}: EXIficient, again: {e}"));
        let dump2 = t3.elapsed();
        let json2 = std::fs::read_to_string(&again).unwrap();
        let g2 = parse_grammars2json(&json2).unwrap_or_else(|e| panic!("{name}: again: {e}"));
        assert_eq!(
            text,
            canonical(&g2),
            "{name}: a second dump gives another text"
        );
        // the document grammar is the first state written, its content the second
        assert!(
            text.contains("\ns0 document: SD->s1\ns1 docContent: "),
            "{name}: {}",
            &text[..text.len().min(2000)]
        );
        note(&format!(
            "{name}: {} states ({} reachable, {} after merging), {} productions ({} after \
             merging), {} URIs, {} global names; {} bytes of JSON; load and dump {:.2} s, dump \
             again {:.2} s, parse {:.3} s, canonical {:.3} s",
            stats.states,
            stats.reachable,
            stats.merged,
            stats.productions,
            stats.merged_productions,
            g.uris.len(),
            g.globals.len(),
            json.len(),
            dump.as_secs_f64(),
            dump2.as_secs_f64(),
            parse.as_secs_f64(),
            canon.as_secs_f64(),
        ));
        if let Some(dir) = std::env::var_os("BINXML_GRAMMARS_OUT") {
            let file = std::path::Path::new(&dir).join(format!("{}.txt", name.replace(' ', "-")));
            std::fs::write(&file, &text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&again);
        texts.push((name.clone(), text));
    }
    // different schemas give different grammars
    for (i, (a, ta)) in texts.iter().enumerate() {
        for (b, tb) in &texts[i + 1..] {
            assert_ne!(ta, tb, "{a} and {b} have the same canonical text");
        }
    }
}

#[test]
fn the_grammars_request_takes_only_the_schema_options() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let out = scratch_dir("exi_grammars").join("refused.json");
    for options in ["", "strict", "xsdtypes,strict", "bytealigned,xsdtypes"] {
        let e = exi.grammars(&out, options).unwrap_err();
        assert!(e.starts_with("err "), "{options:?}: {e}");
    }
    let e = exi
        .grammars(&out, "schema=/nonexistent/none.xsd")
        .unwrap_err();
    assert!(e.contains("none.xsd"), "{e}");
}
