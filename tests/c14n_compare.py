#!/usr/bin/env python3
"""The independent oracle: compares XML documents by their canonical form.

Canonical XML 2.0 with comments, as computed by Python's xml.etree.ElementTree.canonicalize
(expat underneath), an implementation independent of binxml's.

Input on stdin: one line per pair, `ORIGINAL<TAB>CANDIDATE` (file paths). Output: one line per
pair, `ok` or `DIFF <first differing offset>: <context>` or `ERROR <message>`.
"""
import sys
import xml.etree.ElementTree as ET


def canon(path):
    with open(path, "rb") as f:
        data = f.read()
    # canonicalize(xml_data=bytes) lets expat honour the encoding declaration.
    out = []
    parser = ET.XMLParser(target=ET.C14NWriterTarget(out.append, with_comments=True))
    parser.feed(data)
    parser.close()
    return "".join(out)


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        a, b = line.split("\t")
        try:
            ca = canon(a)
        except Exception as e:  # the original must parse
            print(f"ERROR original {a}: {e}", flush=True)
            continue
        try:
            cb = canon(b)
        except Exception as e:
            print(f"ERROR candidate {b}: {e}", flush=True)
            continue
        if ca == cb:
            print("ok", flush=True)
        else:
            i = next((k for k in range(min(len(ca), len(cb))) if ca[k] != cb[k]), min(len(ca), len(cb)))
            print(f"DIFF {i}: expected {ca[max(0, i-40):i+40]!r} got {cb[max(0, i-40):i+40]!r}", flush=True)


if __name__ == "__main__":
    main()
