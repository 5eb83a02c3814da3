#!/usr/bin/env python3
"""Survey of EXIficient 1.0.7 (schema-less) on the corpus: sizes in the four alignments.

Usage: interop/exi/survey.py [--options LIST] [CORPUS_DIR] > survey.tsv

CORPUS_DIR defaults to ../shared/corpus beside the repository when it exists, else the small
tests/corpus. The documents are those of binxml_testkit::corpus_xml_files: every file under the
directory except *.tsf, *.tsv, *.md, *.py and the json/ folder, sorted by path.

Each document is encoded by EXIficient (interop/exi/ExiDriver.java, one JVM; run
interop/exi/setup.sh first) with its defaults in bitpacked, bytealigned, precompression and
compression, and each stream decoded again; --options adds the driver options LIST (say
"prefixes,comments,pis") to each mode. Columns of the TSV on stdout:

  document         path relative to the corpus directory
  xml_bytes        size of the XML file
  bitpacked ... compression   size of the EXI stream, or ERR
  decode_ok        yes when all four streams decoded
  reencode_same    yes when EXIficient's bit-packed decoding of its own bit-packed stream
                   encodes (bit-packed) to the same bytes again

The summary goes to stderr: the geometric mean of EXI/XML per mode over the documents every
mode encoded, and every failure with EXIficient's message.
"""

import math
import os
import subprocess
import sys
import tempfile

MODES = ["bitpacked", "bytealigned", "precompression", "compression"]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(ROOT, "interop", ".cache")


def corpus_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == "json" or rel_dir.startswith("json" + os.sep):
            dirnames[:] = []
            continue
        for f in filenames:
            if os.path.splitext(f)[1] in (".tsf", ".tsv", ".md", ".py"):
                continue
            out.append(os.path.join(dirpath, f))
    # the testkit sorts by path, component by component
    return sorted(out, key=lambda p: os.path.relpath(p, root).split(os.sep))


class Driver:
    def __init__(self):
        classes = os.path.join(CACHE, "exi-classes")
        jars_dir = os.path.join(CACHE, "exi-jars")
        if not os.path.isfile(os.path.join(classes, "ExiDriver.class")):
            sys.exit("survey.py: the EXI oracle is not set up: run interop/exi/setup.sh")
        jars = sorted(os.path.join(jars_dir, j) for j in os.listdir(jars_dir) if j.endswith(".jar"))
        cp = ":".join([classes] + jars)
        self.p = subprocess.Popen(
            ["java", "-Xss8m", "-Xmx2g", "-cp", cp, "ExiDriver"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, *fields):
        self.p.stdin.write("\t".join(fields) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline().rstrip("\n")
        if line == "ok" or line.startswith("ok "):
            return True, line[3:]
        return False, line or "the driver ended"

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    args = sys.argv[1:]
    extra = ""
    if len(args) >= 2 and args[0] == "--options":
        extra = "," + args[1]
        args = args[2:]
    if args:
        root = args[0]
    else:
        shared = os.path.join(ROOT, "..", "shared", "corpus")
        root = shared if os.path.isdir(shared) else os.path.join(ROOT, "tests", "corpus")
    root = os.path.realpath(root)
    files = corpus_files(root)
    print(f"survey.py: {len(files)} documents under {root}, options {extra[1:] or '(defaults)'}", file=sys.stderr)
    drv = Driver()
    failures = []
    logs = {m: [] for m in MODES}
    print("\t".join(["document", "xml_bytes"] + MODES + ["decode_ok", "reencode_same"]))
    with tempfile.TemporaryDirectory(prefix="exi-survey-") as tmp:
        for path in files:
            rel = os.path.relpath(path, root)
            size = os.path.getsize(path)
            sizes, decoded = {}, True
            for m in MODES:
                exi = os.path.join(tmp, f"out.{m}.exi")
                ok, msg = drv.ask("encode", path, exi, m + extra)
                if not ok:
                    failures.append(f"{rel}: encode {m}: {msg}")
                    sizes[m] = None
                    decoded = False
                    continue
                sizes[m] = os.path.getsize(exi)
                ok, msg = drv.ask("decode", exi, os.path.join(tmp, f"back.{m}.xml"), m + extra)
                if not ok:
                    failures.append(f"{rel}: decode {m}: {msg}")
                    decoded = False
            same = "no"
            if sizes["bitpacked"] is not None and os.path.exists(os.path.join(tmp, "back.bitpacked.xml")):
                again = os.path.join(tmp, "again.exi")
                ok, msg = drv.ask("encode", os.path.join(tmp, "back.bitpacked.xml"), again, "bitpacked" + extra)
                if ok:
                    with open(again, "rb") as a, open(os.path.join(tmp, "out.bitpacked.exi"), "rb") as b:
                        same = "yes" if a.read() == b.read() else "no"
                else:
                    failures.append(f"{rel}: re-encoding EXIficient's decoding: {msg}")
                if same == "no" and ok:
                    failures.append(f"{rel}: re-encoding EXIficient's decoding gives other bytes")
            for m in MODES:
                if os.path.exists(os.path.join(tmp, f"back.{m}.xml")):
                    os.remove(os.path.join(tmp, f"back.{m}.xml"))
            if all(sizes[m] is not None for m in MODES) and size > 0:
                for m in MODES:
                    logs[m].append(math.log(sizes[m] / size))
            cols = [rel, str(size)] + [str(sizes[m]) if sizes[m] is not None else "ERR" for m in MODES]
            cols += ["yes" if decoded else "no", same]
            print("\t".join(cols), flush=True)
    drv.close()
    n = len(logs[MODES[0]])
    print(f"survey.py: geometric mean of EXI/XML over the {n} documents every mode encoded:", file=sys.stderr)
    for m in MODES:
        if n:
            print(f"  {m:15} {math.exp(sum(logs[m]) / n):.3f}", file=sys.stderr)
    print(f"survey.py: {len(failures)} failures", file=sys.stderr)
    for f in failures:
        print("  " + f, file=sys.stderr)


if __name__ == "__main__":
    main()
