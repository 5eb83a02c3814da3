// Decodes in a Web Worker, so that a slow or hostile document never blocks the page: the page
// stops this worker when it takes too long (app.js, TIMEOUT_MS) and starts another.
import init, * as bx from './pkg/binxml_wasm.js';

const ready = init();
let doc = null; // { bytes, format } of the document open

function plainError(err) {
  return {
    message: String(err && err.message !== undefined ? err.message : err),
    offset: err && err.offset !== undefined ? err.offset : null,
    bitOffset: err && err.bitOffset !== undefined ? err.bitOffset : null,
  };
}

function attempt(f) {
  try {
    return { value: f(), error: null };
  } catch (err) {
    return { value: null, error: plainError(err) };
  }
}

const ops = {
  formats: () => bx.formats(),

  // Opens a document: its format (the one named, or detected), the event listing, the XML and
  // the sizes, each with its own error.
  open(bytes, name, format) {
    const detected = bx.detect(bytes, name) ?? null;
    const chosen = format || detected;
    if (!chosen) {
      throw new Error('cannot tell the format of this document: choose one');
    }
    doc = { bytes, format: chosen };
    const listing = bx.inspect(bytes, chosen);
    const events = {
      lines: listing.lines,
      bits: Array.from(listing.bits),
      bitPacked: listing.bitPacked,
      error: listing.error ? plainError(listing.error) : null,
    };
    const xml = attempt(() => bx.to_xml(bytes, chosen));
    const sizes = attempt(() => bx.sizes(bytes, chosen));
    return { format: chosen, detected, length: bytes.length, events, xml, sizes };
  },

  convert(to) {
    if (!doc) throw new Error('no document open');
    return bx.convert(doc.bytes, doc.format, to);
  },

  // Times push decoding of the open document (bench/results/2026-11-27-web.md): each of `runs`
  // runs decodes it `reps` times; returns the event count and each run's milliseconds per decode.
  bench(runs, reps) {
    if (!doc) throw new Error('no document open');
    let events = 0;
    const ms = [];
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) events = bx.count_events(doc.bytes, doc.format);
      ms.push((performance.now() - t0) / reps);
    }
    return { events, ms };
  },
};

onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    await ready;
    postMessage({ id, ok: true, result: ops[op](...args) });
  } catch (err) {
    postMessage({ id, ok: false, error: plainError(err) });
  }
};
