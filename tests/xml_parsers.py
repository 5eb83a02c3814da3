#!/usr/bin/env python3
"""The independent readers of binxml's XML output: Python's expat (namespace-aware) and, where
the machine has it, libxml2 (through ctypes, no network). Neither reads anything external.

Input on stdin: one file path a line. Output: one line each, `ok`, or `ERROR <parser>: <why>`
naming the first parser that refuses the file. The request `parsers` answers `libxml2 yes` or
`libxml2 no` (whether libxml2 reads the files too). expat's namespace errors are fatal; libxml2
only reports its own (they are warnings to it), so it is asked for a document at all. libxml2
runs with XML_PARSE_HUGE: without it, it refuses elements nested deeper than 256 levels (a
resource bound, not well-formedness; expat has none, and binxml's own bound is set by its
Limits).
"""
import ctypes
import ctypes.util
import sys
import xml.parsers.expat as expat

try:
    lib = ctypes.CDLL(ctypes.util.find_library("xml2") or "libxml2.so.2")
    lib.xmlReadMemory.restype = ctypes.c_void_p
    lib.xmlReadMemory.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_char_p, ctypes.c_int]
    lib.xmlFreeDoc.argtypes = [ctypes.c_void_p]
except (OSError, AttributeError):
    lib = None
# XML_PARSE_NONET, XML_PARSE_NOERROR, XML_PARSE_NOWARNING, XML_PARSE_HUGE
NONET, NOERROR, NOWARNING, HUGE = 1 << 11, 1 << 5, 1 << 6, 1 << 19


def check(data):
    p = expat.ParserCreate(namespace_separator=" ")
    try:
        p.Parse(data, True)
    except expat.ExpatError as e:
        return "ERROR expat: %s" % e
    if lib:
        doc = lib.xmlReadMemory(data, len(data), b"doc.xml", None, NONET | NOERROR | NOWARNING | HUGE)
        if not doc:
            return "ERROR libxml2: refuses it"
        lib.xmlFreeDoc(doc)
    return "ok"


for line in sys.stdin:
    path = line.rstrip("\n")
    if path == "parsers":
        print("libxml2", "yes" if lib else "no", flush=True)
        continue
    with open(path, "rb") as f:
        print(check(f.read()), flush=True)
