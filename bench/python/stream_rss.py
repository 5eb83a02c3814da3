"""Peak resident memory of iterparse with clear() over a large generated document, per format,
binxml beside lxml (XML only: lxml reads no other format). The XML is written to disk as it is
generated, and each binary format converted from it by binxml streaming to disk
(``convert(path, fmt, out=path)``). Each reading runs in a fresh process, which prints its
peak resident memory (VmHWM), what it had after the imports, and the seconds taken; the
inputs are the path, a file object over the file (``open(path, "rb")``) and a file object
with only read(). Prints a Markdown table; with --max-rss N, exits with status 1 when a
binxml reading peaked at N MB or more.

    python bench/python/stream_rss.py --mb 1000 [--formats xml,fi,exi,tsf,xebu] [--max-rss 64]
"""

import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, time
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024
lib, how, path = sys.argv[1:4]
if lib == "lxml":
    from lxml import etree as mod
else:
    import binxml as mod
class ReadOnly:
    def __init__(self, path):
        self.f = open(path, "rb")
    def read(self, n=-1):
        return self.f.read(n)
base = hwm()
t = time.perf_counter()
n = 0
root = None
source = {"path": path, "file": open(path, "rb"), "reader": ReadOnly(path)}[how]
for ev, el in mod.iterparse(source, events=("start", "end")):
    if root is None:
        root = el
    if ev == "end" and el.tag == "{urn:x}rec":
        n += 1
        el.clear()
        if lib == "lxml":
            while el.getprevious() is not None:
                del el.getparent()[0]
        else:
            root.clear()
print(n, base, hwm(), round(time.perf_counter() - t, 1))
"""


def generate(path, mb):
    rec = "".join(
        f'<rec id="{i}" kind="k{i % 5}"><name>Record {i} &amp; more</name><v>{i * 3}</v>'
        f"<!--c--><?p d?></rec>\n"
        for i in range(1000)
    )
    copies = mb * 1_000_000 // len(rec)
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<data xmlns="urn:x">\n')
        for _ in range(copies):
            f.write(rec)
        f.write("</data>\n")
    return copies * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--formats", default="xml,fi,exi,tsf,xebu")
    ap.add_argument("--inputs", default="path,file,reader")
    ap.add_argument("--pairs", default=None, help="format:input,... instead of --formats and --inputs")
    ap.add_argument("--max-rss", type=int, default=None)
    ap.add_argument("--dir", default=None, help="where the documents are made (default: TMPDIR)")
    args = ap.parse_args()
    over = []
    import binxml

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        xml = os.path.join(d, "big.xml")
        records = generate(xml, args.mb)
        print(f"{args.mb} MB of XML, {records} records; load average {os.getloadavg()[0]:.1f}")
        sys.stdout.flush()
        print()
        print("| format | library | input | size MB | peak RSS MB | after import MB | s |")
        print("|---|---|---|---|---|---|---|")
        pairs = None
        if args.pairs:
            pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
            args.formats = ",".join(dict.fromkeys(f for f, _ in pairs))
        for fmt in args.formats.split(","):
            doc = xml
            if fmt != "xml":
                doc = os.path.join(d, f"big.{fmt}")
                binxml.convert(xml, fmt, out=doc)
            runs = [("binxml", how) for how in args.inputs.split(",")]
            if pairs is not None:
                runs = [("binxml", how) for f, how in pairs if f == fmt]
            if fmt == "xml":
                runs.append(("lxml", "path"))
            for lib, how in runs:
                r = subprocess.run(
                    [sys.executable, "-c", CHILD, lib, how, doc],
                    capture_output=True,
                    text=True,
                )
                if r.returncode != 0:
                    print(f"| {fmt} | {lib} | {how} | failed: {r.stderr.strip()[-200:]} |")
                    over.append(f"{fmt} {lib} {how}: failed")
                    continue
                n, base, peak, secs = r.stdout.split()
                assert int(n) == records, (fmt, lib, how, n)
                size = os.path.getsize(doc) / 1e6
                print(f"| {fmt} | {lib} | {how} | {size:.0f} | {peak} | {base} | {secs} |")
                sys.stdout.flush()
                if lib == "binxml" and args.max_rss is not None and int(peak) >= args.max_rss:
                    over.append(f"{fmt} {how}: {peak} MB")
            if doc != xml:
                os.unlink(doc)
    if over:
        print(f"\nfailed, or peak resident memory at or over {args.max_rss} MB: " + ", ".join(over))
        sys.exit(1)


if __name__ == "__main__":
    main()
