#!/usr/bin/env python3
"""Survey of EXIficient 1.0.7 *schema-informed* on the schema test sets (tests/schemas/sets.tsv):
the sizes binxml's schema-informed EXI encoder must reproduce byte for byte.

Usage: target/venv/bin/python interop/exi/survey_schema.py > interop/exi/survey-exificient-schema.tsv

Every instance of sets.tsv, then every broken instance of tests/schemas/<set>/broken/ (set
"<set>/broken"; the invoice set's are in target/schemas-broken/, made by
interop/xsd/make_broken.py or the testkit's tests), that is present (corpus-only rows are skipped without
../shared/corpus) and at most MAX_BYTES long is encoded by EXIficient (interop/exi/ExiDriver.java,
one JVM; run interop/exi/setup.sh first) with the row's schema (and catalog) in the four
alignments, non-strict and strict, and schema-less bit-packed for comparison. Each schema-informed
stream is decoded again with the same options, and the decoded document must encode to the same
bytes (EXIficient's decoding is a fixed point of its encoding). Columns of the TSV on stdout:

  set, instance        as in sets.tsv (the instance as listed there)
  xsd_verdict          xmlschema's recorded verdict (sets.tsv "expected"; "invalid:<kind>"
                       for the broken instances)
  xml_bytes            size of the XML file
  schemaless           schema-less, bit-packed, EXIficient's defaults
  bitpacked ... compression                  schema-informed, non-strict
  strict_bitpacked ... strict_compression    schema-informed, strict
                       each the size of the stream, or "ERR" (EXIficient refused: the reason
                       is in the last column)
  roundtrip            "yes" when every schema-informed stream decoded and re-encoded to the
                       same bytes, else what failed
  notes                EXIficient's first refusal, if any

The summary goes to stderr: per set, the geometric mean of EXI/XML per column over the instances
every column encoded, and the refusals.
"""

import math
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from survey import Driver  # noqa: E402  (the same driver process, interop/exi/survey.py)

MODES = ["bitpacked", "bytealigned", "precompression", "compression"]
MAX_BYTES = 4 << 20  # every instance of the sets today; a cap for larger ones added later


def resolve(listed):
    if listed in ("", "-"):
        return None
    for alt in listed.split("|"):
        p = os.path.join(ROOT, alt)
        if os.path.exists(p):
            return p
    return None


def rows():
    with open(os.path.join(ROOT, "tests/schemas/sets.tsv"), encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    for line in lines:
        s, schema, catalog, _ns, instance, expected = line.split("\t")
        yield s, resolve(schema), resolve(catalog), instance, resolve(instance), expected
    # then the broken instances (tests/schemas/<set>/broken/expected.tsv), as set "<set>/broken":
    # what strict mode refuses, and what non-strict mode does with values the schema rejects
    base = os.path.join(ROOT, "tests/schemas")
    for name in sorted(os.listdir(base)):
        exp = os.path.join(base, name, "broken", "expected.tsv")
        if not os.path.isfile(exp):
            continue
        with open(exp, encoding="utf-8") as f:
            for line in f.read().splitlines()[1:]:
                file, _src, kind, schema, catalog, _reason = line.split("\t")
                yield (name + "/broken", resolve(schema), resolve(catalog), file, resolve(file),
                       "invalid:" + kind)


def short(msg):
    # EXIficient's messages name the schema by the path it was given: keep them machine-free
    msg = " ".join(msg.split()).replace(ROOT + "/", "")
    # and Java object hashes (ElementContext@4be0a27d) differ from run to run
    msg = re.sub(r"@[0-9a-f]{4,8}\b", "@", msg)
    return msg[:300]


def main():
    d = Driver()
    tmp = tempfile.mkdtemp(prefix="exi-schema-survey-")
    out = os.path.join(tmp, "out.exi")
    back = os.path.join(tmp, "back.xml")
    again = os.path.join(tmp, "again.exi")
    cols = ["schemaless"] + MODES + ["strict_" + m for m in MODES]
    print("\t".join(["set", "instance", "xsd_verdict", "xml_bytes"] + cols + ["roundtrip", "notes"]))
    ratios = {}
    refusals = []
    for s, schema, catalog, listed, inst, expected in rows():
        if not schema or not inst:
            print(f"skipped {s} {listed}: not here (../shared/corpus absent?)", file=sys.stderr)
            continue
        size = os.path.getsize(inst)
        if size > MAX_BYTES:
            print(f"skipped {s} {listed}: {size} bytes", file=sys.stderr)
            continue
        grammar = "schema=" + schema + (",catalog=" + catalog if catalog else "")
        sizes, notes, roundtrip = [], [], []
        for col in cols:
            if col == "schemaless":
                opts = "-"
            elif col.startswith("strict_"):
                opts = col[len("strict_"):] + "," + grammar + ",strict"
            else:
                opts = col + "," + grammar
            ok, ans = d.ask("encode", inst, out, opts)
            if not ok:
                sizes.append("ERR")
                notes.append(f"{col}: {short(ans)}")
                refusals.append(f"{s} {listed} {col}: {short(ans)}")
                continue
            sizes.append(ans)
            if col == "schemaless":
                continue
            ok, ans = d.ask("decode", out, back, opts)
            if not ok:
                roundtrip.append(f"{col} decode: {short(ans)}")
                continue
            ok, ans = d.ask("encode", back, again, opts)
            with open(out, "rb") as a:
                first = a.read()
            if not ok or open(again, "rb").read() != first:
                roundtrip.append(f"{col} re-encode differs" if ok else f"{col} re-encode: {short(ans)}")
        print("\t".join([s, listed, expected, str(size)] + sizes
                        + ["yes" if not roundtrip else "; ".join(roundtrip), notes[0] if notes else ""]),
              flush=True)
        if "ERR" not in sizes:
            ratios.setdefault(s, []).append([int(x) / size for x in sizes])
    d.close()
    print("\ngeometric mean of EXI/XML, instances every column encoded:", file=sys.stderr)
    print("set\tn\t" + "\t".join(cols), file=sys.stderr)
    for s, rs in ratios.items():
        means = [math.exp(sum(math.log(r[i]) for r in rs) / len(rs)) for i in range(len(cols))]
        print(f"{s}\t{len(rs)}\t" + "\t".join(f"{m:.3f}" for m in means), file=sys.stderr)
    print(f"\nrefusals: {len(refusals)}", file=sys.stderr)
    for r in refusals:
        print("  " + r, file=sys.stderr)


if __name__ == "__main__":
    main()
