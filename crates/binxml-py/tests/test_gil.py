"""The GIL is released while a document is decoded: parse, iterparse, events and convert let
another Python thread run while binxml's native code decodes.

A second thread samples, as often as it can run, where the main thread is: its innermost
Python frame and that frame's current line. While the main thread is inside a call into the
native module, that frame is the caller's, at the line of the call. If the call held the GIL,
no other thread could run until it returned, so no sample could ever see the main thread at
that line; with the GIL released, the sampler runs throughout the decoding. The test asks
for samples at the call's line spread over a good part of the call's duration, not merely
one (a call that released the GIL only briefly, for example around reading the file, would
give a few samples close together).
"""

import linecache
import sys
import threading
import time

import pytest

import binxml

# Records of the generated document; about 70 bytes of XML each.
RECORDS = 150_000


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """The generated document as files, in XML and in each binary format checked."""
    d = tmp_path_factory.mktemp("gil")
    body = "".join(
        f'<r id="{i}" k="k{i % 7}"><n>Name {i} &amp; co</n><v>{i * 3}</v></r>\n' for i in range(RECORDS)
    )
    xml = d / "doc.xml"
    xml.write_text(f'<?xml version="1.0"?>\n<doc xmlns="urn:g">\n{body}</doc>\n')
    out = {"xml": xml}
    for fmt in ("exi", "fi"):
        p = d / f"doc.{fmt}"
        p.write_bytes(binxml.convert(str(xml), fmt))
        out[fmt] = p
    return out


class Sampler(threading.Thread):
    """Records the time of every sample at which the main thread's innermost frame is at a
    line that contains `needle` (the call into the native module)."""

    def __init__(self, target_ident, needle, filename):
        super().__init__(daemon=True)
        self.target, self.needle, self.filename = target_ident, needle, filename
        self.hits = []
        self.samples = 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            frame = sys._current_frames().get(self.target)
            self.samples += 1
            # (a frame between two instructions may have no line)
            if frame is None or frame.f_lineno is None:
                continue
            line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
            if self.needle in line and frame.f_code.co_filename == self.filename:
                self.hits.append(time.perf_counter())


def sampled(needle, job, filename=binxml.__file__):
    """Runs `job` on this thread while a Sampler watches it; gives (duration of the job, times
    of the samples that saw this thread at the native call, a line of `filename`)."""
    s = Sampler(threading.get_ident(), needle, filename)
    s.start()
    # Let the sampler start before the job takes the interpreter.
    while s.samples == 0:
        time.sleep(0.001)
    t = time.perf_counter()
    job()
    dt = time.perf_counter() - t
    s.stop.set()
    s.join()
    return dt, s.hits


def seen_released(dt, hits):
    span = hits[-1] - hits[0] if hits else 0.0
    return len(hits) >= 10 and span >= dt / 3


def assert_released(needle, job, tries=3):
    """The job's native call let the sampler run over at least a third of the job's time (a
    call holding the GIL gives no sample at all). On a loaded machine the sampler may wait for
    a CPU through a whole short call: up to `tries` runs, one that shows it is enough."""
    for _ in range(tries):
        dt, hits = sampled(needle, job)
        if seen_released(dt, hits):
            return
    span = hits[-1] - hits[0] if hits else 0.0
    assert False, (
        f"the main thread was seen {len(hits)} times inside the native call, over {span:.3f} s "
        f"of a {dt:.3f} s call: the GIL is held while decoding"
    )


def test_the_check_fails_for_a_call_that_holds_the_gil():
    """The oracle itself: a long native call that keeps the GIL (sorting a large list, all in
    C) is not seen from the sampler."""
    data = [(i * 7919) % 3_000_017 for i in range(2_000_000)]
    dt, hits = sampled("sorted(data)", lambda: sorted(data), filename=__file__)
    assert dt > 0.01
    assert not seen_released(dt, hits), (len(hits), dt)


@pytest.mark.parametrize("fmt", ["xml", "exi", "fi"])
def test_parse_releases_the_gil(docs, fmt):
    path = str(docs[fmt])
    assert_released("_parse_file(", lambda: binxml.parse(path, format=fmt))
    data = docs[fmt].read_bytes()
    assert_released("_parse_tree(", lambda: binxml.fromstring(data, format=fmt))


@pytest.mark.parametrize("fmt", ["xml", "exi", "fi"])
def test_iterparse_and_events_release_the_gil(docs, fmt, monkeypatch):
    # Each batch of events is one native call; the sampler, waiting for the GIL, gets it as
    # soon as a batch's decoding releases it, so its samples at the call spread over the run.
    path = str(docs[fmt])
    # The sampler's last frame may be the one that holds the event stream, which must be
    # dropped on the thread that made it: the streams are kept here until the sampler is done.
    kept = []
    real = binxml._stream

    def keep(source, format):
        kept.append(real(source, format))
        return kept[-1]

    monkeypatch.setattr(binxml, "_stream", keep)

    def run_iterparse():
        n = 0
        for _, elem in binxml.iterparse(path, format=fmt):
            n += 1
            elem.clear()
        assert n == RECORDS * 3 + 1

    assert_released("next_batch(", run_iterparse)
    assert_released("next_batch(", lambda: sum(1 for _ in binxml.events(path, format=fmt)))
    kept.clear()


@pytest.mark.parametrize("frm,to", [("xml", "exi"), ("exi", "xml"), ("fi", "xml")])
def test_convert_releases_the_gil(docs, frm, to):
    path = str(docs[frm])
    assert_released("_convert_file(", lambda: binxml.convert(path, to, from_=frm))
    data = docs[frm].read_bytes()
    assert_released("_convert(", lambda: binxml.convert(data, to, from_=frm))
