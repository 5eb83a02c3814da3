#!/usr/bin/env python3
"""The independent oracle: compares XML documents by their canonical form.

Canonical XML 2.0 with comments, as computed by Python's xml.etree.ElementTree.canonicalize
(expat underneath), an implementation independent of binxml's.

Input on stdin: one line per pair, `ORIGINAL<TAB>CANDIDATE` (file paths), optionally followed by
`<TAB>FLAGS`, comma-separated:
  no-dtd-comments  comments inside the DOCTYPE's internal subset are not compared (expat reports
                   them like document comments, but they are not children of the document in the
                   infoset, and formats that drop the DOCTYPE drop them too).
  skipped-entities a reference to an entity expat cannot resolve (declared, if at all, in an
                   external subset, which is never read) compares as its own text `&name;`
                   instead of failing the parse: such a reference is an ER event of the infoset.
Output: one line per pair, `ok` or `DIFF <first differing offset>: <context>` or
`ERROR <message>`.
"""
import re
import sys
import xml.etree.ElementTree as ET

PREDEFINED = {b"lt", b"gt", b"amp", b"apos", b"quot"}


def blank_dtd_comments(data):
    """Replaces every comment inside the internal subset by spaces (same length, so offsets in
    error messages still point into the file)."""
    start = data.find(b"<!DOCTYPE")
    if start < 0:
        return data
    i = data.find(b"[", start)
    close = data.find(b">", start)
    if i < 0 or (0 <= close < i):
        return data
    out = bytearray(data)
    i += 1
    quote = None
    while i < len(data):
        c = data[i:i + 1]
        if quote:
            if c == quote:
                quote = None
            i += 1
        elif c in (b'"', b"'"):
            quote = c
            i += 1
        elif data.startswith(b"<!--", i):
            end = data.find(b"-->", i + 4)
            end = len(data) if end < 0 else end + 3
            out[i:end] = b" " * (end - i)
            i = end
        elif c == b"]":
            break
        else:
            i += 1
    return bytes(out)


def canon(path, flags=()):
    with open(path, "rb") as f:
        data = f.read()
    if "no-dtd-comments" in flags:
        data = blank_dtd_comments(data)
    # canonicalize(xml_data=bytes) lets expat honour the encoding declaration.
    out = []
    parser = ET.XMLParser(target=ET.C14NWriterTarget(out.append, with_comments=True))
    if "skipped-entities" in flags:
        # Expat expands the entities it knows; ElementTree consults this table only for the
        # others, which it otherwise reports as undefined.
        for name in set(re.findall(rb"&([^\s;&#<>]+);", data)) - PREDEFINED:
            n = name.decode("utf-8", "replace")
            parser.entity[n] = "&" + n + ";"
    parser.feed(data)
    parser.close()
    return "".join(out)


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        fields = line.split("\t")
        a, b = fields[0], fields[1]
        flags = fields[2].split(",") if len(fields) > 2 else ()
        try:
            ca = canon(a, flags)
        except Exception as e:  # the original must parse
            print(f"ERROR original {a}: {e}", flush=True)
            continue
        try:
            cb = canon(b, flags)
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
