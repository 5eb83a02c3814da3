"""The web page (web/) in headless Chromium, against the command line.

Serves web/ from a local static server, opens documents in every format in the page through its
file picker (the format left to detection; the first document also pasted as hex and as base64)
and checks that the event list and the XML
it shows equal what `binxml inspect` and `binxml convert -t xml --indent 2` print for the same
file, that clicking an event highlights the bytes from its offset and clicking a byte selects its
event, that a malformed document shows the command line's error line, and that a conversion gives
the command line's bytes, and that a document taking longer than the page's time limit stops
its worker and the next document opens. The same page built as one file (web/pkg/binxml.html)
is then opened from file:// and checked the same way on one document in every format.
Screenshots of each view go to --screenshots.

With --bench FILE it also times decoding of each document in the page against the native library
(crates/binxml-wasm/examples/native_speed.rs) and writes the figures as JSON.

Usage: test_page.py --binxml target/debug/binxml --screenshots target/web-screenshots
"""

import argparse
import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Small corpus documents (always in the repository): namespaces, mixed content, comments and
# processing instructions, a SOAP envelope.
SOURCES = ["hand/namespaces.xml", "hand/misc_nodes.xml", "hand/soap_envelope.xml", "gen/random_00.xml"]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def static_server():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "-d", os.path.join(ROOT, "web")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait()


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)


def formats(binxml):
    """(name, extension) of every format, from `binxml formats`."""
    out = run([binxml, "formats"], check=True, text=True).stdout
    return [(line.split()[0], line.split()[1].lstrip(".")) for line in out.splitlines()]


def open_in_page(drv, name, data, fmt=""):
    """Opens `data` through the page's own open path and waits until it has been decoded."""
    drv.execute_script("document.body.dataset.state = 'busy'")
    drv.execute_script(
        "const b = Uint8Array.from(atob(arguments[1]), c => c.charCodeAt(0));"
        "window.binxmlPage.open(arguments[0], b, arguments[2]);",
        name,
        base64.b64encode(data).decode(),
        fmt,
    )
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") in ("open", "error"))
    return drv.execute_script("return document.body.dataset.state")


def open_with_picker(drv, path):
    """Opens a file through the page's file picker, the format left to detection."""
    drv.execute_script("document.getElementById('format').value = ''; document.body.dataset.state = 'busy'")
    drv.find_element(By.ID, "file").send_keys(path)
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") in ("open", "error"))
    return drv.execute_script("return document.body.dataset.state")


def open_pasted(drv, text):
    """Opens pasted text (hex, base64 or the document itself) with the page's button."""
    drv.execute_script("document.getElementById('format').value = ''; document.body.dataset.state = 'busy'")
    box = drv.find_element(By.ID, "paste")
    box.clear()
    drv.execute_script("arguments[0].value = arguments[1]", box, text)
    drv.find_element(By.ID, "open-paste").click()
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") in ("open", "error"))
    return drv.execute_script("return document.body.dataset.state")


def page_events(drv):
    return drv.execute_script("return [...document.querySelectorAll('#events .ev')].map(e => e.textContent)")


def shot(drv, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    drv.save_screenshot(os.path.join(out_dir, f"{name}.png"))


def check_document(drv, binxml, path, fmt, out_dir, screenshots):
    name = os.path.basename(path)
    with open(path, "rb") as f:
        data = f.read()
    state = open_with_picker(drv, path)
    check(state == "open", f"{name}: the page shows an error: {drv.find_element(By.ID, 'error').text}")
    shown = drv.find_element(By.ID, "status").get_attribute("data-format")
    check(shown == fmt, f"{name}: the page detected {shown}, not {fmt}")

    cli = run([binxml, "inspect", "-f", fmt, path], check=True, text=True).stdout.splitlines()
    events = page_events(drv)
    check(events == cli[1:], f"{name}: the event list differs from binxml inspect ({len(events)} vs {len(cli) - 1} lines)")

    xml = run([binxml, "convert", "-f", fmt, "-t", "xml", "--indent", "2", path], check=True, text=True).stdout
    page_xml = drv.execute_script("return document.getElementById('xml').textContent")
    check(page_xml == xml, f"{name}: the XML view differs from binxml convert -t xml --indent 2")

    # Click an event: the highlighted bytes start at its offset. Click a byte: its event is selected.
    i = min(3, len(events) - 1)
    pos = events[i][:10].strip()
    start = int(pos.split()[1]) // 8 if pos.startswith("bit") else int(pos)
    drv.find_elements(By.CSS_SELECTOR, "#events .ev")[i].click()
    sel = drv.execute_script("return [...document.querySelectorAll('#hex .b.sel')].map(b => Number(b.dataset.o))")
    check(bool(sel) and sel[0] == min(start, len(data) - 1), f"{name}: event {i} at {pos} highlights bytes {sel[:3]}...")
    if sel:
        drv.find_element(By.CSS_SELECTOR, f"#hex .b[data-o='{sel[0]}']").click()
        chosen = drv.execute_script("const e = document.querySelector('#events .ev.sel'); return e && Number(e.dataset.i)")
        at = events[chosen][:10].strip() if chosen is not None else ""
        byte = int(at.split()[1]) // 8 if at.startswith("bit") else int(at or -1)
        check(byte == sel[0], f"{name}: clicking byte {sel[0]} selects event {chosen} at {at}")
    # The sizes table has a row per format; the document's own size is its length.
    rows = drv.execute_script(
        "return [...document.querySelectorAll('#sizes tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
    own = [r for r in rows if r[0] == fmt]
    check(len(own) == 1 and own[0][1].replace(",", "") == str(len(data)) if fmt not in ("xml", "json") else len(own) == 1,
          f"{name}: sizes row for {fmt}: {own}")
    if screenshots and fmt not in ("asn1-uper", "asn1-aper"):
        # Pasted as hex and as base64 (PER, with no signature, needs its file name to be told).
        for text in [data.hex(" "), base64.b64encode(data).decode()]:
            check(open_pasted(drv, text) == "open" and page_events(drv) == cli[1:], f"{name}: pasted {text[:20]}...")
        open_with_picker(drv, path)
    if screenshots:
        for view in ["events", "xml", "sizes", "convert"]:
            drv.execute_script("window.binxmlPage.showView(arguments[0])", view)
            shot(drv, out_dir, f"{fmt}-{view}")
        drv.execute_script("window.binxmlPage.showView('events')")
    return data


def check_conversion(drv, binxml, path, fmt, to):
    """The page's conversion (what its download button saves) equals the command line's."""
    out = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.binxmlPage.convert(arguments[0]).then(b => done(btoa(String.fromCharCode(...b))), e => done('ERR ' + e.message));",
        to,
    )
    indent = ["--indent", "2"] if to in ("xml", "json") else []
    cli = run([binxml, "convert", "-f", fmt, "-t", to, *indent, path, "-o", "-"])
    name = os.path.basename(path)
    if cli.returncode != 0:
        # Formats the command line cannot write without options the page does not take (the
        # X.694 encodings need a schema): the page refuses with the same message.
        expected = cli.stderr.decode().strip().replace(f"binxml: error: {path}: ", "")
        check(out == "ERR " + expected, f"{name}: conversion to {to}: page {out[:80]!r}, command line {expected!r}")
    else:
        check(not out.startswith("ERR") and base64.b64decode(out) == cli.stdout, f"{name}: conversion to {to} differs from the command line's")


def check_malformed(drv, binxml, path, fmt, out_dir):
    """A cut document: the events before the error and the command line's error line."""
    name = os.path.basename(path)
    cli = run([binxml, "inspect", "-f", fmt, path], text=True)
    check(cli.returncode == 1, f"{name}: binxml inspect accepted a malformed document")
    with open(path, "rb") as f:
        state = open_in_page(drv, name, f.read(), fmt)
    check(state == "error", f"{name}: the page shows no error")
    line = drv.find_element(By.ID, "error").text
    # The command line names the file; the page has no file name to give.
    expected = cli.stderr.strip().replace(f"{path}: ", "")
    check(line == expected, f"{name}: error line {line!r}, the command line's {expected!r}")
    check(page_events(drv) == cli.stdout.splitlines()[1:], f"{name}: the events before the error differ")
    marked = drv.execute_script("return document.querySelectorAll('#hex .b.err').length")
    check(marked == 1, f"{name}: the byte of the error is not highlighted")
    shot(drv, out_dir, f"error-{fmt}")


# Each timed run decodes about this many bytes: long enough for V8 to have tiered the module up
# to its optimising compiler (runs of a few milliseconds time its baseline code, up to 3x slower)
# and for performance.now()'s coarsened clock.
BENCH_BYTES_PER_RUN = 20_000_000


def check_timeout(drv, url, tmp, out_dir):
    """A document that takes too long stops its worker; the next document opens in a new one."""
    drv.get(url + "?timeout-ms=500")
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") == "ready")
    big = os.path.join(tmp, "big.xml")
    with open(big, "w") as f:
        f.write("<r>" + "<e a='1'>text</e>" * 1_000_000 + "</r>")
    state = open_with_picker(drv, big)
    line = drv.find_element(By.ID, "error").text
    check(state == "error" and line == "binxml: error: stopped after 0.5 s", f"big.xml: {state}, {line!r}")
    small = os.path.join(ROOT, "tests", "corpus", SOURCES[0])
    check(open_with_picker(drv, small) == "open" and len(page_events(drv)) > 10, "no document opens after a timeout")
    shot(drv, out_dir, "timeout")


def bench(drv, binxml, docs, native, out):
    results = []
    for path, fmt in docs:
        with open(path, "rb") as f:
            data = f.read()
        open_in_page(drv, os.path.basename(path), data, fmt)
        page = drv.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.binxmlPage.bench(7, arguments[0]).then(done, e => done({error: e.message}));",
            max(1, BENCH_BYTES_PER_RUN // max(len(data), 1)),
        )
        nat = json.loads(run([native, path, fmt, "7", str(max(1, BENCH_BYTES_PER_RUN // max(len(data), 1)))], check=True, text=True).stdout)
        check(page.get("events") == nat["events"], f"bench {path}: page {page} vs native {nat}")
        results.append({"document": os.path.relpath(path, ROOT), "format": fmt, "bytes": len(data),
                         "events": nat["events"], "page_ms": min(page["ms"]), "native_ms": min(nat["ms"])})
    with open(out, "w") as f:
        json.dump(results, f, indent=1)


def check_standalone(drv, binxml, fmts, tmp, out_dir):
    """The one-file page (web/pkg/binxml.html) opened from file://, with no server: the first
    document in every format, a conversion, a malformed document and the time limit."""
    page = os.path.join(ROOT, "web", "pkg", "binxml.html")
    check(os.path.exists(page), f"{page} was not built (scripts/build-web)")
    if not os.path.exists(page):
        return
    url = "file://" + page
    drv.get(url)
    WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") == "ready")
    stem = os.path.splitext(os.path.basename(SOURCES[0]))[0]
    opened = 0
    for fmt, ext in fmts:
        path = os.path.join(tmp, f"{stem}.{ext}")
        if os.path.exists(path):
            check_document(drv, binxml, path, fmt, out_dir, screenshots=False)
            opened += 1
    check(opened >= 8, f"file://: only {opened} formats opened")
    check_conversion(drv, binxml, os.path.join(tmp, f"{stem}.xml"), "xml", "exi")
    check_malformed(drv, binxml, os.path.join(tmp, "cut.exi"), "exi", out_dir)
    check_timeout(drv, url, tmp, out_dir)
    shot(drv, out_dir, "standalone")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binxml", required=True)
    ap.add_argument("--screenshots", required=True)
    ap.add_argument("--bench", help="also time decoding in the page and natively; write JSON here")
    ap.add_argument("--native", help="the native_speed example (with --bench)")
    ap.add_argument("--bench-docs", nargs="*", default=[], help="documents to time (FORMAT=PATH)")
    args = ap.parse_args()
    binxml = os.path.abspath(args.binxml)
    fmts = formats(binxml)
    tmp = tempfile.mkdtemp(prefix="binxml-web-")
    try:
        with static_server() as url, contextlib.closing(browser()) as drv:
            drv.get(url)
            WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") == "ready")
            for k, src in enumerate(SOURCES):
                src_path = os.path.join(ROOT, "tests", "corpus", src)
                stem = os.path.splitext(os.path.basename(src))[0]
                for fmt, ext in fmts:
                    path = os.path.join(tmp, f"{stem}.{ext}")
                    r = run([binxml, "convert", "-t", fmt, src_path, "-o", path])
                    if r.returncode != 0:
                        # JSON holds only documents of its mapping (no mixed content, no
                        # comments); the X.694 encodings need a schema.
                        check(fmt == "json" or b"needs the schema" in r.stderr, f"{src} -> {fmt}: {r.stderr.decode()}")
                        continue
                    check_document(drv, binxml, path, fmt, args.screenshots, screenshots=k == 0)
                    if k == 0:
                        for to, _ in fmts:
                            check_conversion(drv, binxml, path, fmt, to)
            # Malformed: each binary encoding of a document, cut in the middle.
            src_path = os.path.join(ROOT, "tests", "corpus", SOURCES[0])
            for fmt, ext in fmts:
                if fmt in ("xml", "json"):
                    continue
                whole = os.path.join(tmp, f"whole.{ext}")
                if run([binxml, "convert", "-t", fmt, src_path, "-o", whole]).returncode != 0:
                    continue
                with open(whole, "rb") as f:
                    data = f.read()
                cut = os.path.join(tmp, f"cut.{ext}")
                with open(cut, "wb") as f:
                    f.write(data[: len(data) // 2])
                check_malformed(drv, binxml, cut, fmt, args.screenshots)
            check_timeout(drv, url, tmp, args.screenshots)
            check_standalone(drv, binxml, fmts, tmp, args.screenshots)
            if args.bench:
                drv.get(url)
                WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.body.dataset.state") == "ready")
                docs = [(p.split("=", 1)[1], p.split("=", 1)[0]) for p in args.bench_docs]
                bench(drv, binxml, docs, args.native, args.bench)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
    print("web page: all checks passed", file=sys.stderr)


if __name__ == "__main__":
    main()
