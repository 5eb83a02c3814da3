"""binxml's Python package beside lxml and xml.etree.ElementTree on the same documents, in the
same run: the time `parse` takes (each library reading the document from a file) and the peak
resident memory of a process that imports the library and parses once.

Every measurement runs in a fresh process (so that memory and caches of one do not weigh on
the next), `--runs` times; the report gives medians, the spread (min-max) and per-document
ratios against lxml. A document parsed in under 0.1 s is parsed again in the same process for
about half a second and the median of those parses is the run's time. Every binary format is
read (its file made by `binxml.convert` from the XML).

With `--cli PATH` (the release build of the command line), a second table compares reading and
writing every format through the Python API (`binxml.convert` of a file, in the process) with
the command line converting the same files (`binxml convert`, its whole run): the issue's
bound is the Python time within 20% of the Rust one.

Usage: bench_python.py OUT.md [--runs 3] [--mb 50] [--cli target/release/binxml] [FILE.xml ...]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import binxml

CHILD = r"""
import json, sys, time
lib, path, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
if lib == "lxml":
    import lxml.etree as m
    parse = m.parse
elif lib == "etree":
    import xml.etree.ElementTree as m
    parse = m.parse
else:
    import binxml as m
    parse = lambda p: m.parse(p, format=fmt)
c = time.process_time()
t = time.perf_counter()
tree = parse(path)
dt = time.perf_counter() - t
cpu = time.process_time() - c
root = tree.getroot()
assert root is not None
# VmHWM, not ru_maxrss: the latter carries the parent's peak over exec
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
del tree, root
# A parse of a few milliseconds is below what one timing of a loaded machine can tell (and
# process_time's tick): such a document is parsed again until 0.5 s have gone by, and the
# median of those parses is kept (the first, cold one only gave the peak memory).
reps = 1 if dt >= 0.1 else min(1000, max(5, int(0.5 / max(dt, 1e-4))))
if reps > 1:
    ws, cs = [], []
    for _ in range(reps):
        c = time.process_time()
        t = time.perf_counter()
        parse(path).getroot()
        ws.append(time.perf_counter() - t)
        cs.append(time.process_time() - c)
    ws.sort()
    dt = ws[len(ws) // 2]
    # process_time ticks coarsely: the mean CPU time of a parse, not a median of ticks
    cpu = sum(cs) / len(cs)
print(json.dumps({"s": dt, "cpu": cpu, "peak_mb": peak / 1024, "reps": reps}))
"""


def generate(path, mb):
    """A deterministic order book of about `mb` MB: namespaces, attributes, text, comments."""
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<orders xmlns="urn:example:orders" xmlns:x="urn:example:ext">\n')
        size, i = 0, 0
        states = ["open", "paid", "shipped"]
        while size < mb * 1_000_000:
            s = (
                f'  <order id="{i}" status="{states[i % 3]}">\n'
                f'    <customer x:ref="c{i % 977}">Customer &amp; Co {i}</customer>\n'
                f'    <line sku="A{i % 100}" qty="{i % 7 + 1}"><price currency="EUR">{i * 0.37:.2f}</price>'
                f"<desc>Item number {i} with some descriptive text</desc></line>\n"
                f'    <line sku="B{i % 50}" qty="1"><price currency="EUR">{i * 0.11:.2f}</price>'
                f"<desc>Second item</desc></line>\n"
                f"    <!-- note {i} -->\n  </order>\n"
            )
            f.write(s)
            size += len(s)
            i += 1
        f.write("</orders>\n")


def measure(lib, path, fmt):
    """One run in a fresh process: wall and CPU time of `parse`, peak memory."""
    r = subprocess.run([sys.executable, "-c", CHILD, lib, path, fmt], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{lib} {path}: {r.stderr}")
    return json.loads(r.stdout)


# The binary formats whose `parse` is set beside lxml's parse of the XML (the bound: 2x).
PARSE_FORMATS = ("fi", "exi", "tsf", "xebu", "asn1-uper", "asn1-aper", "asn1-ber")

# The formats compared with the command line: every codec, ASN.1 in two of its rules.
CLI_FORMATS = ("xml", "json", "fi", "tsf", "xebu", "asn1-uper", "asn1-ber", "exi")


def timed(f, runs):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return ts


def against_cli(cli, xml, work, runs):
    """For each format: (reading, writing) as (python times, cli times). Reading converts the
    format to XML, writing XML to the format; each side reads its input from a file (written
    once, before); Python keeps the output in memory as bytes, the command line writes it to a
    file beside the input (both make the whole output; run with TMPDIR on a tmpfs, both keep
    it in memory)."""
    out = {}
    for fmt in CLI_FORMATS:
        src = os.path.join(work, "cli." + fmt)
        with open(src, "wb") as f:
            f.write(binxml.convert(xml, fmt, from_="xml"))
        rows = []
        for path, frm, to in ((src, fmt, "xml"), (xml, "xml", fmt)):
            py = timed(lambda: binxml.convert(path, to, from_=frm), runs)
            cmd = [cli, "convert", path, "--from", frm, "--to", to, "-o", os.path.join(work, "cli.out")]
            rs = timed(lambda: subprocess.run(cmd, check=True), runs)
            rows.append((py, rs))
        out[fmt] = (os.path.getsize(src), rows)
        print("cli", fmt, [[round(statistics.median(x), 3) for x in r] for r in rows], file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--cli", help="the command line's release build, for the comparison with Rust")
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args()
    work = tempfile.mkdtemp(prefix="binxml-bench-py-")
    docs = []
    gen = os.path.join(work, "orders.xml")
    generate(gen, a.mb)
    docs.append(("generated orders (%d MB)" % a.mb, gen))
    for f in a.files:
        docs.append((os.path.basename(f), f))
    rows = []
    for name, xml in docs:
        data = open(xml, "rb").read()
        inputs = [("etree", "xml", xml), ("lxml", "xml", xml), ("binxml", "xml", xml)]
        for fmt in PARSE_FORMATS:
            p = os.path.join(work, os.path.basename(xml) + "." + fmt)
            with open(p, "wb") as f:
                f.write(binxml.convert(data, fmt, from_="xml"))
            inputs.append(("binxml", fmt, p))
        # Rounds of one run of each input, so that every library sees the same changes of the
        # machine's load (a shared VM) within a round.
        results = {(lib, fmt): ([], os.path.getsize(path)) for lib, fmt, path in inputs}
        for _ in range(a.runs):
            for lib, fmt, path in inputs:
                r = measure(lib, path, fmt)
                results[(lib, fmt)][0].append(r)
                print(name, lib, fmt, round(r["s"], 3), round(r["cpu"], 3), file=sys.stderr)
        rows.append((name, len(data), results))
    cli = against_cli(a.cli, gen, work, a.runs) if a.cli else None
    load = os.getloadavg()
    with open(a.out, "w") as f:
        f.write("# Python parse: binxml beside lxml and ElementTree\n\n")
        f.write(f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `scripts/bench-python` "
                f"(`bench/python/bench_python.py`), {a.runs} runs per cell, each in a fresh process.\n")
        f.write(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, a VM shared with other jobs "
                f"(load average {load[0]:.1f} at the end of the run: read the spread), Python "
                f"{platform.python_version()}, binxml {binxml.__version__} (release build), ")
        import lxml.etree
        f.write(f"lxml {lxml.etree.__version__} (libxml2 {'.'.join(map(str, lxml.etree.LIBXML_VERSION))}).\n\n")
        f.write("`parse` of the file, to a tree whose root is in hand; the runs alternate between the "
                "libraries (round after round). Time: wall clock; CPU: the process's CPU time during "
                "`parse` (all threads: binxml decodes with the GIL released), which a loaded machine "
                "stretches less. A parse under 0.1 s is repeated in the same process for about 0.5 s "
                "and its median wall time (mean CPU time) is the run's figure. "
                "Peak = peak resident memory of the process after its first parse (interpreter and library "
                "included). Ratios = lxml's median over this one's (above 1: faster than lxml).\n\n")
        for name, size, results in rows:
            f.write(f"## {name}: {size / 1e6:.1f} MB of XML\n\n")
            f.write("| library | input | input MB | median s | min-max s | vs lxml | median CPU s | "
                    "CPU vs lxml | peak MB (median) |\n")
            f.write("|---|---|---|---|---|---|---|---|---|\n")
            lx = statistics.median(r["s"] for r in results[("lxml", "xml")][0])
            lxc = statistics.median(r["cpu"] for r in results[("lxml", "xml")][0])
            for (lib, fmt), (rs, isize) in results.items():
                ts = [r["s"] for r in rs]
                med = statistics.median(ts)
                cpu = statistics.median(r["cpu"] for r in rs)
                peak = statistics.median(r["peak_mb"] for r in rs)
                f.write(f"| {lib} | {fmt} | {isize / 1e6:.1f} | {med:.4g} | {min(ts):.4g}-{max(ts):.4g} | "
                        f"{lx / med:.2f}x | {cpu:.4g} | {lxc / cpu:.2f}x | {peak:.0f} |\n")
            f.write("\n")
        if cli:
            f.write(f"## Python against the Rust command line ({rows[0][0]})\n\n")
            f.write("Reading: the format to XML; writing: XML to the format. Python: `binxml.convert(path, to, "
                    "from_=...)` in the process (the output kept as bytes); Rust: `binxml convert PATH --from F "
                    "--to T -o OUT`, the whole run, OUT a file in the benchmark's temporary directory "
                    f"(`{os.path.dirname(work)}`). Medians of "
                    f"{a.runs}; ratio = Rust's time over Python's (at least 0.80: within 20%).\n\n")
            f.write("| format | size MB | read: Python s | read: Rust s | read ratio | write: Python s | "
                    "write: Rust s | write ratio |\n|---|---|---|---|---|---|---|---|\n")
            for fmt, (size, ((rpy, rrs), (wpy, wrs))) in cli.items():
                m = statistics.median
                f.write(f"| {fmt} | {size / 1e6:.1f} | {m(rpy):.3f} | {m(rrs):.3f} | {m(rrs) / m(rpy):.2f} | "
                        f"{m(wpy):.3f} | {m(wrs):.3f} | {m(wrs) / m(wpy):.2f} |\n")
            f.write("\n")
    print(open(a.out).read())


if __name__ == "__main__":
    main()
