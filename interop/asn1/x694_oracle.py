#!/usr/bin/env python3
"""The independent oracle for binxml's X.694 codec (crates/binxml-asn1/src/x694): PyPI asn1tools
compiles the ASN.1 module that binxml printed for a schema, and Python's ElementTree compares
documents. One request per stdin line, fields separated by tabs; one answer line each:

  compile MODULE          compile the module text in file MODULE for UPER (replaces the previous
                          one); "ok <number of types>"
  check TYPE BIN          decode BIN (binxml's UPER) as TYPE with asn1tools, re-encode the value
                          and answer "ok" when the bytes are identical (else "ERR ...")
  same ORIGINAL DECODED   compare two XML files as infosets with the normalisations of the
                          mapping (docs/x694.md): namespace prefixes and declarations, comments,
                          processing instructions, whitespace-only text (between elements,
                          and as the whole content of an element of element-only content)
                          and xsi:schemaLocation are not compared; "ok" or "DIFF <path>: <what>"
"""
import sys
import xml.etree.ElementTree as ET

import asn1tools

sys.setrecursionlimit(100000)
XSI = '{http://www.w3.org/2001/XMLSchema-instance}'
SPEC = None


def compile_module(path):
    global SPEC
    SPEC = asn1tools.compile_files(path, 'uper')
    return 'ok %d' % len(SPEC.types)


def check(type_name, path):
    data = open(path, 'rb').read()
    value = SPEC.decode(type_name, data)
    again = SPEC.encode(type_name, value)
    if again != data:
        n = next((i for i, (a, b) in enumerate(zip(again, data)) if a != b), min(len(again), len(data)))
        return 'ERR re-encoding differs at byte %d (%d bytes vs %d)' % (n, len(again), len(data))
    return 'ok'


def blank(text):
    return text is None or text.strip(' \t\r\n') == ''


def compare(a, b, path):
    path = '%s/%s' % (path, a.tag)
    if a.tag != b.tag:
        return 'DIFF %s: element %s vs %s' % (path, a.tag, b.tag)
    attrs_a = {k: v for k, v in a.attrib.items() if k not in (XSI + 'schemaLocation', XSI + 'noNamespaceSchemaLocation')}
    if attrs_a != b.attrib:
        return 'DIFF %s: attributes %r vs %r' % (path, attrs_a, b.attrib)
    ca, cb = list(a), list(b)
    if len(ca) != len(cb):
        return 'DIFF %s: %d children vs %d' % (path, len(ca), len(cb))
    if ca:
        texts_a = [a.text] + [c.tail for c in ca]
        texts_b = [b.text] + [c.tail for c in cb]
        for x, y in zip(texts_a, texts_b):
            if not (blank(x) and blank(y)) and x != y:
                return 'DIFF %s: text %r vs %r' % (path, x, y)
    elif (a.text or '') != (b.text or '') and not (blank(a.text) and blank(b.text)):
        return 'DIFF %s: text %r vs %r' % (path, a.text, b.text)
    for x, y in zip(ca, cb):
        d = compare(x, y, path)
        if d:
            return d
    return None


def same(original, decoded):
    d = compare(ET.parse(original).getroot(), ET.parse(decoded).getroot(), '')
    return d or 'ok'


def main():
    for line in sys.stdin:
        f = line.rstrip('\n').split('\t')
        try:
            if f[0] == 'compile':
                out = compile_module(f[1])
            elif f[0] == 'check':
                out = check(f[1], f[2])
            elif f[0] == 'same':
                out = same(f[1], f[2])
            else:
                out = 'ERR unknown request %r' % f[0]
        except Exception as e:  # the answer carries the failure to the Rust test
            out = 'ERR %s: %s' % (type(e).__name__, str(e).replace('\n', ' ')[:500])
        sys.stdout.write(out + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
