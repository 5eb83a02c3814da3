#!/usr/bin/env python3
"""Writes the web page as one self-contained HTML file that works when opened from file://.

Browsers refuse module workers and fetched WebAssembly on file:// pages, so this file carries
everything inline: the style sheet, the page script (app.js) as an inline module, and the
worker's source (wasm-bindgen's `no-modules` glue, the gzipped WebAssembly as base64, worker.js)
as a text block that the page turns into a Blob URL for its Worker. The worker inflates the
WebAssembly with the browser's DecompressionStream. Nothing is fetched at all.

Usage: bundle-web.py WEB_DIR NO_MODULES_GLUE.js MODULE.wasm OUT.html
"""

import base64
import gzip
import pathlib
import sys

# The two lines of worker.js that load the module build; replaced in the standalone worker.
WORKER_IMPORT = "import init, * as bx from './pkg/binxml_wasm.js';"
WORKER_INIT = "const ready = init();"
STANDALONE_INIT = """const bx = wasm_bindgen;
const ready = (async () => {
  const packed = Uint8Array.from(atob(WASM_GZ_BASE64), (c) => c.charCodeAt(0));
  const inflated = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
  await wasm_bindgen({ module_or_path: await new Response(inflated).arrayBuffer() });
})();"""

STYLE_LINK = '<link rel="stylesheet" href="style.css">'
APP_SCRIPT = '<script type="module" src="app.js"></script>'
WORKER_URL = """<script>
// app.js starts its worker from this URL when it is set (the standalone page).
globalThis.BINXML_WORKER_URL = URL.createObjectURL(new Blob(
  [document.getElementById('binxml-worker').textContent], { type: 'text/javascript' }));
</script>"""


def replace_once(text, old, new, what):
    if text.count(old) != 1:
        sys.exit(f"bundle-web: expected exactly one {old!r} in {what}")
    return text.replace(old, new)


def inline_safe(text, what):
    """Text placed inside a <script> or <style> element must not close it or open a comment."""
    low = text.lower()
    for bad in ("</script", "</style", "<!--"):
        if bad in low:
            sys.exit(f"bundle-web: {what} contains {bad!r} and cannot be inlined")
    return text


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    web, glue, wasm, out = (pathlib.Path(a) for a in sys.argv[1:])
    packed = base64.b64encode(gzip.compress(wasm.read_bytes(), 9, mtime=0)).decode()
    worker = (web / "worker.js").read_text()
    worker = replace_once(worker, WORKER_IMPORT, "", "worker.js")
    worker = replace_once(worker, WORKER_INIT, STANDALONE_INIT, "worker.js")
    worker_src = f'const WASM_GZ_BASE64 = "{packed}";\n{glue.read_text()}\n{worker}'
    page = (web / "index.html").read_text()
    page = replace_once(
        page, STYLE_LINK, f"<style>\n{inline_safe((web / 'style.css').read_text(), 'style.css')}</style>", "index.html"
    )
    page = replace_once(
        page,
        APP_SCRIPT,
        f'<script type="text/plain" id="binxml-worker">\n{inline_safe(worker_src, "the worker")}</script>\n'
        f"{WORKER_URL}\n"
        f'<script type="module">\n{inline_safe((web / "app.js").read_text(), "app.js")}</script>',
        "index.html",
    )
    out.write_text(page)
    print(f"{out}: {out.stat().st_size} bytes, one file (opens from file://)", file=sys.stderr)


if __name__ == "__main__":
    main()
