#!/usr/bin/env python3
"""Derives deliberately invalid instances from the valid ones of the schema test sets
(tests/schemas/), for the schema validator's negative tests. Deterministic: the same inputs give
the same files.

Each kind of damage is tried at every candidate place of a source instance in document order,
and the first place where the XML Schema oracle (interop/xsd/validate.py's Oracle, PyPI
xmlschema) finds the damaged instance invalid, for a reason of that kind, is kept:

    wrong-enum            a text or attribute value replaced by a value no enumeration has
    missing-required      a child element removed
    extra-element         an undeclared element inserted as an element's first child
    out-of-range          a numeric value replaced by one outside its type's or facets' range
    bad-date              a date or dateTime given month 13
    pattern               a value replaced by one that breaks a pattern facet
    undeclared-attribute  an attribute no declaration allows added to an element
    bad-xsi-type          an xsi:type attribute naming a type the schema does not have

A kind that finds no place in a source is left out (the script says so). The files go to
tests/schemas/<set>/broken/<source stem>.<kind>.xml, and tests/schemas/<set>/broken/expected.tsv
records for each: file, source, kind, schema, catalog, xmlschema's reason. Every file recorded is
invalid per xmlschema (checked here, and again by binxml-testkit's tests/schema_oracles.rs).

The invoice set's source (inv1.xml) lives only in ../shared/corpus, whose files are not copied
into the repository: its broken files go to target/schemas-broken/invoice/ instead (expected.tsv
is still written to tests/schemas/invoice/broken/), and the test regenerates them when the shared
corpus is there.

    target/venv/bin/python interop/xsd/make_broken.py            # every set
    target/venv/bin/python interop/xsd/make_broken.py invoice    # one set
"""

import copy
import os
import re
import sys

from lxml import etree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import validate  # noqa: E402  (the oracle itself, so the verdicts are the oracle's)

C = "../shared/corpus/"
INV = C + "exi_w3c_testsuite/data/Invoice/"

# set -> (schema, catalog, sources, where the broken files go): repository-relative paths
SETS = {
    "invoice": (INV + "sm-inv.xsd", None, [INV + "inv1.xml"], "target/schemas-broken/invoice"),
    "ubl21": (
        "tests/schemas/ubl21/xsdrt/maindoc/UBL-Order-2.1.xsd",
        None,
        ["tests/schemas/ubl21/instances/UBL-Order-2.1-Example.xml"],
        "tests/schemas/ubl21/broken",
    ),
    "bbf-dm": (
        "tests/schemas/bbf-dm/bbf-dm.xsd",
        "tests/schemas/bbf-dm/catalog.tsv",
        ["tests/schemas/bbf-dm/instances/tr-181-2-15-0-selftest.xml"],
        "tests/schemas/bbf-dm/broken",
    ),
    "fpml4": (
        "tests/schemas/fpml4/fpml-main-4-0.xsd",
        None,
        ["tests/schemas/fpml4/instances/fx_ex01_fx_spot.xml"],
        "tests/schemas/fpml4/broken",
    ),
    "xmlschema": (
        C + "exi_exificient/XMLSchema.xsd",
        "tests/schemas/xmlschema/catalog.tsv",
        ["tests/schemas/bbf-dm/cwmp-datamodel-report-1-0.xsd"],
        "tests/schemas/xmlschema/broken",
    ),
}

# what xmlschema 4.3's reason says for each kind (read off its messages: "value must be one
# of", "Tag ... expected", "Unexpected child", "value must be non negative", "month must be in
# 1..12", "doesn't match any pattern", "attribute 'x' not allowed"): a damage that the oracle
# rejects for another reason (a pattern breaker that is not even a date) is not kept as that kind
REASONS = {
    "wrong-enum": r"value must be one of",
    "missing-required": r"not complete|expected|missing|required",
    "extra-element": r"[Uu]nexpected child|not an element of the schema",
    "out-of-range": r"non negative|must be (positive|negative)|greater|lesser|range|too (large|small)",
    "bad-date": r"month must be|[Ii]nvalid (date|datetime)",
    "pattern": r"doesn't match any pattern",
    "undeclared-attribute": r"attribute .*not allowed|not allowed for element",
    "bad-xsi-type": r"xsi:type|unknown type|not found",
}

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
EXTRA = "{urn:binxml:undeclared}Unexpected"
XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"


def path(rel):
    return os.path.join(ROOT, rel)


def elements(tree):
    return [e for e in tree.iter() if isinstance(e.tag, str)]


def values(tree):
    """(element index, attribute name or None, value) for every simple value in document order."""
    out = []
    for i, e in enumerate(elements(tree)):
        for a in sorted(e.attrib.keys()):
            out.append((i, a, e.attrib[a]))
        if len(e) == 0 and e.text and e.text.strip():
            out.append((i, None, e.text))
    return out


def set_value(tree, i, attr, v):
    e = elements(tree)[i]
    if attr is None:
        e.text = v
    else:
        e.attrib[attr] = v


def candidates(tree, kind):
    """Damaged copies of tree, in document order, for one kind: (description, tree)."""
    if kind in ("wrong-enum", "out-of-range", "bad-date", "pattern"):
        for i, attr, v in values(tree):
            s = v.strip()
            if kind == "wrong-enum":
                new = ["binxml-not-enumerated"]
            elif kind == "out-of-range":
                if not NUMBER.match(s):
                    continue
                new = ["-1", "99999999999999999999999", "-99999999999999999999999"]
            elif kind == "bad-date":
                if not DATE.match(s):
                    continue
                new = [s[:5] + "13" + s[7:]]
            else:
                new = ["!binxml!", s + "!"]
            for n in new:
                t = copy.deepcopy(tree)
                set_value(t, i, attr, n)
                yield f"{'@' + attr if attr else 'text'} of element #{i}: {s!r} -> {n!r}", t
    elif kind == "missing-required":
        for i, e in enumerate(elements(tree)):
            for j, child in enumerate(c for c in e if isinstance(c.tag, str)):
                t = copy.deepcopy(tree)
                p = elements(t)[i]
                kids = [c for c in p if isinstance(c.tag, str)]
                p.remove(kids[j])
                yield f"child {j} ({etree.QName(child).localname}) of element #{i} removed", t
    elif kind == "extra-element":
        for i, e in enumerate(elements(tree)):
            if not any(isinstance(c.tag, str) for c in e):
                continue
            t = copy.deepcopy(tree)
            p = elements(t)[i]
            x = etree.Element(EXTRA)
            x.tail = p.text
            p.insert(0, x)
            yield f"element #{i} got a first child {EXTRA}", t
    elif kind == "bad-xsi-type":
        for i, e in enumerate(elements(tree)):
            if XSI_TYPE not in e.attrib:
                continue
            t = copy.deepcopy(tree)
            elements(t)[i].attrib[XSI_TYPE] = "BinxmlNoSuchType"
            yield f"xsi:type of element #{i}: {e.attrib[XSI_TYPE]!r} -> 'BinxmlNoSuchType'", t
    elif kind == "undeclared-attribute":
        for i, e in enumerate(elements(tree)):
            t = copy.deepcopy(tree)
            elements(t)[i].attrib["binxmlUndeclared"] = "1"
            yield f"element #{i} got an attribute binxmlUndeclared", t


def main():
    names = sys.argv[1:] or list(SETS)
    oracle = validate.Oracle(False)
    import warnings
    import xmlschema

    warnings.simplefilter("error", xmlschema.XMLSchemaImportWarning)
    tmp = path("target/schemas-broken/tmp.xml")
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    for name in names:
        schema, catalog, sources, outdir = SETS[name]
        if not os.path.exists(path(schema)) or not all(os.path.exists(path(s)) for s in sources):
            print(f"{name}: skipped (its schema or sources are not here)", file=sys.stderr)
            continue
        os.makedirs(path(outdir), exist_ok=True)
        # the folder holds exactly what expected.tsv lists: files of an earlier run go
        for old in os.listdir(path(outdir)):
            if old.endswith(".xml"):
                os.remove(os.path.join(path(outdir), old))
        rows = []
        for src in sources:
            verdict = oracle.validate(path(schema), path(src), catalog and path(catalog))
            assert verdict == "valid", f"{src}: the source must be valid: {verdict}"
            tree = etree.parse(path(src), validate.instance_parser())
            stem = os.path.splitext(os.path.basename(src))[0]
            for kind, pattern in REASONS.items():
                found = None
                for what, t in candidates(tree, kind):
                    t.write(tmp, xml_declaration=True, encoding="UTF-8")
                    v = oracle.validate(path(schema), tmp, catalog and path(catalog))
                    if v.startswith("invalid\t") and re.search(pattern, v):
                        found = (what, t, v.split("\t", 1)[1])
                        break
                if not found:
                    print(f"{name}: {src}: no place found for {kind}", file=sys.stderr)
                    continue
                what, t, reason = found
                rel = f"{outdir}/{stem}.{kind}.xml"
                t.write(path(rel), xml_declaration=True, encoding="UTF-8")
                # checked once more on the file as written
                v = oracle.validate(path(schema), path(rel), catalog and path(catalog))
                assert v.startswith("invalid\t"), (rel, v)
                rows.append((rel, src, kind, schema, catalog or "-", v.split("\t", 1)[1]))
                print(f"{name}: {rel}: {what}: {reason}", file=sys.stderr)
        exp = path(f"tests/schemas/{name}/broken/expected.tsv")
        os.makedirs(os.path.dirname(exp), exist_ok=True)
        with open(exp, "w", encoding="utf-8") as f:
            f.write("file\tsource\tkind\tschema\tcatalog\treason\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
    os.remove(tmp)


if __name__ == "__main__":
    main()
