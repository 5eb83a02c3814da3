// The page: reads a document (file, drop, paste), hands it to the worker, shows what comes back.
// All decoding is in worker.js (the library compiled to WebAssembly).

// A document that takes longer than this to open stops its worker (hostile input cannot hang
// the tab); the library's own limits are the command line's defaults.
// `?timeout-ms=N` in the page's address sets another (the browser test's).
const TIMEOUT_MS = Number(new URLSearchParams(location.search).get('timeout-ms')) || 20000;
// The event list shows at most this many lines, the hex view this many bytes around the focus.
const MAX_LINES = 20000;
const HEX_WINDOW = 4096;
const ROW = 16;

const $ = (id) => document.getElementById(id);

let worker = null;
let nextId = 1;
const pending = new Map();

function startWorker() {
  // The standalone page (scripts/bundle-web.py) carries its worker inline, as a Blob URL.
  worker = globalThis.BINXML_WORKER_URL
    ? new Worker(globalThis.BINXML_WORKER_URL)
    : new Worker(new URL('worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => {
    const p = pending.get(e.data.id);
    if (!p) return;
    pending.delete(e.data.id);
    clearTimeout(p.timer);
    if (e.data.ok) p.resolve(e.data.result);
    else p.reject(e.data.error);
  };
  worker.onerror = (e) => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject({ message: `the decoder stopped: ${e.message || 'worker error'}`, offset: null, bitOffset: null });
    }
    pending.clear();
  };
}

function call(op, ...args) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      pending.delete(id);
      worker.terminate();
      startWorker();
      reject({ message: `stopped after ${TIMEOUT_MS / 1000} s`, offset: null, bitOffset: null });
    }, TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    worker.postMessage({ id, op, args });
  });
}

// The open document.
let state = null; // { name, bytes, format, events: {lines, bits, ...}, ranges, selected }

function setStatus(text) { $('status').textContent = text; }

function showError(err) {
  const box = $('error');
  if (!err) { box.hidden = true; box.textContent = ''; return; }
  box.hidden = false;
  box.textContent = `binxml: error: ${err.message}`;
}

// Event i covers the bytes from its start to the next position any event starts at (at least
// one byte). Positions are not in event order everywhere (Xebu writes an element's namespaces
// before it), hence the sorted list of starts.
function rangesOf(bits, length) {
  const order = bits.map((b, i) => i).sort((x, y) => bits[x] - bits[y] || x - y);
  const starts = order.map((i) => bits[i]);
  const out = [];
  for (let i = 0; i < bits.length; i++) {
    const start = Math.floor(bits[i] / 8);
    const k = upperBound(starts, bits[i]);
    const nextBit = k < starts.length ? starts[k] : length * 8;
    const end = Math.max(start + 1, Math.ceil(nextBit / 8));
    out.push([Math.min(start, Math.max(length - 1, 0)), Math.min(end, length)]);
  }
  return { ranges: out, order };
}

// The first index of sorted `a` whose value is above `v`.
function upperBound(a, v) {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function renderEvents() {
  const box = $('events');
  box.textContent = '';
  const { lines } = state.events;
  const frag = document.createDocumentFragment();
  const n = Math.min(lines.length, MAX_LINES);
  for (let i = 0; i < n; i++) {
    const div = document.createElement('div');
    div.className = 'ev';
    div.dataset.i = i;
    div.textContent = lines[i];
    frag.appendChild(div);
  }
  if (lines.length > n) {
    const note = document.createElement('div');
    note.className = 'note';
    note.textContent = `(the first ${n} of ${lines.length} events)`;
    frag.appendChild(note);
  }
  box.appendChild(frag);
}

// The hex view shows HEX_WINDOW bytes around `focus`; `marks` maps a byte to a class.
function renderHex(focus, marks) {
  const box = $('hex');
  box.textContent = '';
  const { bytes } = state;
  const first = Math.max(0, Math.floor((focus - HEX_WINDOW / 2) / ROW) * ROW);
  const last = Math.min(bytes.length, first + HEX_WINDOW);
  const frag = document.createDocumentFragment();
  let target = null;
  for (let row = first; row < last; row += ROW) {
    const line = document.createElement('span');
    line.className = 'row';
    const addr = document.createElement('span');
    addr.className = 'addr';
    addr.textContent = row.toString(16).padStart(8, '0') + '  ';
    line.appendChild(addr);
    let text = '';
    for (let i = row; i < Math.min(row + ROW, last); i++) {
      const b = document.createElement('span');
      b.className = 'b';
      const cls = marks(i);
      if (cls) b.classList.add(cls);
      b.dataset.o = i;
      b.textContent = bytes[i].toString(16).padStart(2, '0');
      line.appendChild(b);
      line.appendChild(document.createTextNode(' '));
      text += bytes[i] >= 0x20 && bytes[i] < 0x7f ? String.fromCharCode(bytes[i]) : '.';
      if (i === focus) target = line;
    }
    line.appendChild(document.createTextNode(' '.repeat(3 * (ROW - Math.min(ROW, last - row)) + 1) + text));
    frag.appendChild(line);
  }
  box.appendChild(frag);
  if (target) target.scrollIntoView({ block: 'center' });
}

function selectEvent(i, scrollList) {
  state.selected = i;
  for (const el of $('events').querySelectorAll('.ev.sel')) el.classList.remove('sel');
  const el = $('events').querySelector(`.ev[data-i="${i}"]`);
  if (el) {
    el.classList.add('sel');
    if (scrollList) el.scrollIntoView({ block: 'center' });
  }
  const [start, end] = state.ranges[i];
  renderHex(start, (o) => (o >= start && o < end ? 'sel' : null));
}

// The event a byte belongs to: the one starting last at or before it (the first in document
// order of those starting there).
function eventAt(offset) {
  const { order, ranges } = state;
  let lo = 0, hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[order[mid]][0] <= offset) lo = mid + 1; else hi = mid;
  }
  if (lo === 0) return -1;
  const start = ranges[order[lo - 1]][0];
  while (lo > 1 && ranges[order[lo - 2]][0] === start) lo--;
  return order[lo - 1];
}

function showDecodeError(err) {
  showError(err);
  if (err && err.offset !== null && err.offset !== undefined && state.bytes.length) {
    const at = Math.min(err.offset, state.bytes.length - 1);
    renderHex(at, (o) => (o === at ? 'err' : Math.abs(o - at) <= 8 ? 'near' : null));
  }
}

function renderSizes(sizes) {
  const body = $('sizes').querySelector('tbody');
  body.textContent = '';
  if (sizes.error) {
    const tr = body.insertRow();
    const td = tr.insertCell();
    td.colSpan = 4;
    td.textContent = sizes.error.message;
    return;
  }
  const xml = sizes.value.find((r) => r.format === 'xml');
  for (const r of sizes.value) {
    const tr = body.insertRow();
    if (r.format === state.format) tr.className = 'this';
    tr.insertCell().textContent = r.format;
    if (r.error) {
      const td = tr.insertCell();
      td.colSpan = 3;
      td.textContent = r.error;
      continue;
    }
    tr.insertCell().textContent = r.bytes.toLocaleString('en');
    tr.insertCell().textContent = r.gzip.toLocaleString('en');
    tr.insertCell().textContent = xml && xml.bytes ? `${((100 * r.bytes) / xml.bytes).toFixed(1)} %` : '';
  }
}

async function open(name, bytes) {
  state = { name, bytes, format: null, events: { lines: [], bits: [] }, ranges: [], order: [], selected: -1 };
  showError(null);
  setStatus(`${name}: ${bytes.length} bytes, decoding…`);
  $('events').textContent = '';
  $('hex').textContent = '';
  $('xml').textContent = '';
  let r;
  try {
    r = await call('open', bytes, name, $('format').value);
  } catch (err) {
    setStatus(`${name}: ${bytes.length} bytes`);
    showDecodeError(err);
    document.body.dataset.state = 'error';
    return;
  }
  state.format = r.format;
  state.events = r.events;
  ({ ranges: state.ranges, order: state.order } = rangesOf(r.events.bits, bytes.length));
  const how = $('format').value ? 'chosen' : 'detected';
  setStatus(`${name}: ${bytes.length} bytes, ${r.format} (${how}), ${r.events.lines.length} events`);
  $('status').dataset.format = r.format;
  renderEvents();
  if (r.xml.error) $('xml').textContent = `binxml: error: ${r.xml.error.message}`;
  else $('xml').textContent = r.xml.value;
  renderSizes(r.sizes);
  if (r.events.error) showDecodeError(r.events.error);
  else if (state.ranges.length) selectEvent(0, false);
  else renderHex(0, () => null);
  document.body.dataset.state = r.events.error ? 'error' : 'open';
}

// Pasted text: hex when it is only hex digits (spaces, `0x` allowed), else base64 when it
// decodes as such, else the text itself (UTF-8).
function parsePasted(text) {
  const hex = text.replace(/0x/gi, '').replace(/[\s,:]/g, '');
  if (hex.length && hex.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(hex)) {
    return Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
  }
  const b64 = text.replace(/\s/g, '');
  if (b64.length && /^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) {
    try {
      const bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/'));
      return Uint8Array.from(bin, (c) => c.charCodeAt(0));
    } catch (_) { /* not base64 */ }
  }
  return new TextEncoder().encode(text);
}

async function openFile(file) {
  open(file.name, new Uint8Array(await file.arrayBuffer()));
}

function showView(name) {
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.view === name);
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== `view-${name}`;
}

let formats = [];

async function main() {
  startWorker();
  formats = await call('formats');
  for (const f of formats) {
    $('format').add(new Option(`${f.name} (${f.description})`, f.name));
    $('convert-to').add(new Option(`${f.name} (.${f.extension})`, f.name));
  }
  $('file').addEventListener('change', (e) => {
    const f = e.target.files[0];
    // Cleared, so that choosing the same file again opens it again.
    e.target.value = '';
    if (f) openFile(f);
  });
  const drop = $('drop');
  document.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  document.addEventListener('dragleave', () => drop.classList.remove('over'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]);
  });
  $('open-paste').addEventListener('click', () => open('pasted', parsePasted($('paste').value)));
  $('format').addEventListener('change', () => { if (state) open(state.name, state.bytes); });
  $('events').addEventListener('click', (e) => {
    const el = e.target.closest('.ev');
    if (el) selectEvent(Number(el.dataset.i), false);
  });
  $('hex').addEventListener('click', (e) => {
    const b = e.target.closest('.b');
    if (!b || !state || !state.ranges.length) return;
    const i = eventAt(Number(b.dataset.o));
    if (i >= 0) selectEvent(i, true);
  });
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => showView(b.dataset.view));
  $('convert').addEventListener('click', async () => {
    if (!state || !state.format) return;
    const to = $('convert-to').value;
    const f = formats.find((x) => x.name === to);
    try {
      const out = await call('convert', to);
      const base = state.name.replace(/\.[^.]*$/, '') || 'document';
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([out]));
      a.download = `${base}.${f.extension}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
      $('convert-status').textContent = `${a.download}: ${out.length} bytes`;
    } catch (err) {
      $('convert-status').textContent = `binxml: error: ${err.message}`;
    }
  });
  document.body.dataset.state = 'ready';
}

// For the browser test and the bench (tests/web): open bytes and time decoding, as the user's
// actions do.
window.binxmlPage = {
  open: (name, bytes, format) => { $('format').value = format || ''; return open(name, bytes); },
  convert: (to) => call('convert', to),
  bench: (runs, reps) => call('bench', runs, reps),
  showView,
};

main();
