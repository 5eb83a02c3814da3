"""Streaming: iterparse and events decode as they go, yield what ElementTree's iterparse
yields, and read a large document in little memory."""

import io
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "corpus"
CORPUS = SHARED if SHARED.is_dir() else ROOT / "tests" / "corpus"
ALL = ("start", "end", "start-ns", "end-ns", "comment", "pi")


def documents():
    out = []
    for p in sorted(CORPUS.rglob("*.xml")):
        if p.stat().st_size > 400_000:
            continue
        try:
            ET.fromstring(p.read_bytes())
        except ET.ParseError:
            continue
        out.append(p)
    return out


def seen(pairs):
    out = []
    for ev, obj in pairs:
        if ev in ("start", "end"):
            out.append((ev, obj.tag, sorted(obj.attrib.items())))
        elif ev in ("comment", "pi"):
            out.append((ev, obj.text))
        else:
            out.append((ev, obj))
    return out


def known_differences(data, events):
    """ElementTree's parser (expat) reports the comments and processing instructions of a
    DOCTYPE's internal subset, which binxml keeps inside the document type declaration; and it
    reports an explicit declaration of the prefix xml, which binxml's decoders leave out (it
    is bound in every document)."""
    if b"<!DOCTYPE" in data and b"[" in data.split(b"<!DOCTYPE", 1)[1].split(b">", 1)[0]:
        first = next(i for i, e in enumerate(events) if e[0] in ("start", "start-ns"))
        events = [e for e in events[:first] if e[0] not in ("comment", "pi")] + events[first:]
    if b"xmlns:xml=" in data:
        events = [e for e in events if e[0] not in ("start-ns", "end-ns")]
    return events


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_iterparse_yields_what_elementtree_yields(path):
    data = path.read_bytes()
    expected = known_differences(data, seen(ET.iterparse(str(path), events=ALL)))
    assert known_differences(data, seen(binxml.iterparse(str(path), events=ALL))) == expected
    with open(path, "rb") as f:
        assert known_differences(data, seen(binxml.iterparse(f, events=ALL))) == expected
    fi = binxml.convert(data, "fi", from_="xml")
    assert known_differences(data, seen(binxml.iterparse(io.BytesIO(fi), events=ALL))) == expected


# Every binary format, with the options that keep comments and processing instructions (EXI's
# preserve-all, the options in the header for the decoder), so that its events are those of
# ElementTree's iterparse of the XML.
BINARY = {
    "fi": None,
    "exi": "preserve-all,header",
    "exi-compressed": "compression,preserve-all,header",
    "tsf": None,
    "xebu": None,
}


class ReadOnly:
    """A file object with nothing but read(): never a file on disk, never mapped."""

    def __init__(self, data):
        self.f = io.BytesIO(data)

    def read(self, n=-1):
        return self.f.read(n)


@pytest.mark.parametrize("fmt", BINARY)
def test_every_format_streams_what_elementtree_yields(fmt):
    """Each corpus document in each binary format, from bytes and from a read()-only file
    object, gives the events of ElementTree's iterparse of the XML."""
    checked = 0
    for path in documents()[:40]:
        data = path.read_bytes()
        expected = known_differences(data, seen(ET.iterparse(str(path), events=ALL)))
        encoded = binxml.convert(data, fmt.split("-")[0], from_="xml", exi=BINARY[fmt])
        got = seen(binxml.iterparse(encoded, events=ALL))
        assert known_differences(data, got) == expected, path
        got = seen(binxml.iterparse(ReadOnly(encoded), events=ALL))
        assert known_differences(data, got) == expected, path
        checked += 1
    assert checked > 0


def test_compressed_exi_with_lexical_values_keeps_xsi_type():
    """Compressed EXI with lexical values (preserve-all): the lexical xsi:type, read with the
    block's structure, comes back as written, not as a string of the value channels read
    after it (it did, before the decoder kept it apart)."""
    data = (
        b'<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="DataDocument">'
        b"<p>Party B</p></r>"
    )
    exi = binxml.convert(data, "exi", from_="xml", exi="compression,preserve-all,header")
    assert binxml.fromstring(exi).attrib == ET.fromstring(data).attrib


def test_iterparse_root_and_default_events():
    it = binxml.iterparse(io.BytesIO(b"<a><b>t</b><c/></a>"))
    assert [(ev, el.tag) for ev, el in it] == [("end", "b"), ("end", "c"), ("end", "a")]
    assert it.root.tag == "a" and it.root[0].text == "t"


def test_decoding_is_incremental():
    """Events come before the error at the end of a document is reached."""
    body = b"<r>" + b"<i>x</i>" * 20000 + b"</oops>"
    it = binxml.events(body)
    first = [next(it) for _ in range(3)]
    assert first[0][0] == "start" and first[0][2] == "r"
    with pytest.raises(binxml.ParseError):
        for _ in it:
            pass
    ends = 0
    with pytest.raises(ET.ParseError):
        for ev, _ in binxml.iterparse(io.BytesIO(body)):
            ends += 1
    assert ends >= 10000


class Counting(io.RawIOBase):
    """A file object that is not a file on disk, and counts what was read from it."""

    def __init__(self, data):
        self.data = io.BytesIO(data)
        self.taken = 0

    def readable(self):
        return True

    def read(self, n=-1):
        b = self.data.read(n)
        self.taken += len(b)
        return b


def test_xml_from_a_file_object_is_read_as_it_is_decoded():
    """An XML file object that is not a file on disk is read as the events are asked for, not
    whole first; the events are those of the document read whole."""
    body = b"<?xml version='1.0'?><r xmlns='urn:r'>" + b"<i a='1'>x &amp; y</i><!--c-->" * 200_000 + b"</r>"
    src = Counting(body)
    it = binxml.iterparse(src, events=ALL)
    first = [next(it) for _ in range(10)]
    assert src.taken < len(body) // 4, f"{src.taken} of {len(body)} bytes read for 10 events"
    rest = list(it)
    assert src.taken == len(body)
    assert seen(first + rest) == seen(ET.iterparse(io.BytesIO(body), events=ALL))
    # A file object's errors and a document's, as ParseError.
    with pytest.raises(ET.ParseError):
        list(binxml.iterparse(Counting(body[:-2])))


def test_fast_infoset_from_a_file_object_is_read_as_it_is_decoded():
    """A Fast Infoset file object is read as the events are asked for, as XML is; a document in
    another binary format from a file object gives the events of the same document read whole."""
    body = b"<?xml version='1.0'?><r xmlns='urn:r'>" + b"<i a='1'>x &amp; y</i><!--c-->" * 200_000 + b"</r>"
    fi = binxml.convert(body, "fi", from_="xml")
    src = Counting(fi)
    it = binxml.iterparse(src, events=ALL)
    first = [next(it) for _ in range(10)]
    assert src.taken < len(fi) // 4, f"{src.taken} of {len(fi)} bytes read for 10 events"
    rest = list(it)
    assert src.taken == len(fi)
    expected = seen(ET.iterparse(io.BytesIO(body), events=ALL))
    assert seen(first + rest) == expected
    for fmt in ("exi", "tsf"):
        data = binxml.convert(body, fmt, from_="xml")
        whole = seen(binxml.iterparse(data, events=ALL))
        assert len(whole) > 400_000, fmt
        assert seen(binxml.iterparse(Counting(data), events=ALL)) == whole, fmt
    with pytest.raises(ET.ParseError):
        list(binxml.iterparse(Counting(fi[:-3])))
    with pytest.raises(ET.ParseError):
        list(binxml.iterparse(Counting(binxml.convert(body, "exi", from_="xml")[:-3])))


STREAM_CHILD = r"""
import sys, binxml
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024
class Unseekable:
    def __init__(self, path):
        self.f = open(path, "rb")
    def read(self, n=-1):
        return self.f.read(n)
base = hwm()
n = 0
root = None
source = Unseekable(sys.argv[1]) if sys.argv[2] == "reader" else sys.argv[1]
for ev, el in binxml.iterparse(source, events=("start", "end")):
    if root is None:
        root = el
    if ev == "end" and el.tag == "{urn:x}rec":
        n += 1
        el.clear()
        root.clear()
print(n, base, hwm())
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    "fmt,how",
    [("xml", "path"), ("fi", "path"), ("fi", "reader"), ("exi", "reader"), ("tsf", "reader")],
)
def test_a_large_document_streams_in_little_memory(tmp_path, fmt, how):
    """A generated document of BINXML_STREAM_MB MB of XML (default 200), as XML text, in Fast
    Infoset, in EXI and in TSF, read with iterparse and clear() in a fresh process, from its
    path or from a file object that has only read(): its peak resident memory stays under 64
    MB (XML and Fast Infoset are read as they are decoded, or mapped; EXI and TSF from a file
    object are copied into a temporary file, which is mapped; TSF's UTF-8 is checked a piece at
    a time)."""
    mb = int(os.environ.get("BINXML_STREAM_MB", "200"))
    rec = "".join(
        f'<rec id="{i}" kind="k{i % 5}"><name>Record {i} &amp; more</name><v>{i * 3}</v>'
        f"<!--c--><?p d?></rec>\n"
        for i in range(1000)
    )
    xml = tmp_path / "big.xml"
    copies = mb * 1_000_000 // len(rec)
    with open(xml, "w") as f:
        f.write('<?xml version="1.0"?>\n<data xmlns="urn:x">\n')
        for _ in range(copies):
            f.write(rec)
        f.write("</data>\n")
    doc = xml
    if fmt != "xml":
        doc = tmp_path / f"big.{fmt}"
        doc.write_bytes(binxml.convert(str(xml), fmt))
        xml.unlink()
    r = subprocess.run(
        [sys.executable, "-c", STREAM_CHILD, str(doc), how], capture_output=True, text=True, check=True
    )
    n, base, peak = map(int, r.stdout.split())
    assert n == copies * 1000
    assert peak < 64, f"peak resident memory {peak} MB (after import: {base} MB)"
