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


class CountingFile(io.FileIO):
    """A file object over a file on disk that counts the calls to its read()."""

    reads = 0

    def read(self, n=-1):
        self.reads += 1
        return super().read(n)

    def readinto(self, b):
        self.reads += 1
        return super().readinto(b)


@pytest.mark.parametrize("fmt", ["xml", "fi", "exi", "tsf", "xebu"])
def test_a_file_object_over_a_file_is_read_from_its_position_not_copied(tmp_path, fmt):
    """A file object over a file on disk, positioned after other bytes: the document from
    that position is read through the file's descriptor (by position, or mapped), never
    through the object's read() and never copied, and gives the events of the document
    read whole; the object's position is left where it was."""
    body = b"<?xml version='1.0'?><r xmlns='urn:r'>" + b"<i a='1'>x &amp; y</i><!--c-->" * 20_000 + b"</r>"
    doc = body if fmt == "xml" else binxml.convert(body, fmt, from_="xml")
    path = tmp_path / "doc"
    junk = b"\0junk\xff" * 1000 + b"!"  # not on a page boundary
    path.write_bytes(junk + doc)
    whole = seen(binxml.iterparse(doc, events=ALL))
    assert len(whole) > 40_000
    with CountingFile(path, "rb") as f:
        f.seek(len(junk))
        assert seen(binxml.iterparse(f, events=ALL)) == whole
        assert f.reads == 0 and f.tell() == len(junk)
    with open(path, "rb") as f:
        f.read(len(junk))  # buffered: the object has read ahead of its position
        assert seen(binxml.iterparse(f, events=ALL)) == whole
    with open(path, "rb") as f:
        f.seek(len(junk) + 1)
        with pytest.raises(ET.ParseError):
            list(binxml.iterparse(f, format=fmt))


def test_a_compressed_file_object_is_read_through_read():
    """gzip's file object has the compressed file's descriptor: it is read through read()."""
    import gzip

    body = b"<r>" + b"<i>x</i>" * 1000 + b"</r>"
    for fmt in ("xml", "exi", "xebu"):
        doc = body if fmt == "xml" else binxml.convert(body, fmt, from_="xml")
        packed = io.BytesIO()
        with gzip.GzipFile(fileobj=packed, mode="wb") as g:
            g.write(doc)
        packed.seek(0)
        with gzip.GzipFile(fileobj=packed, mode="rb") as g:
            assert seen(binxml.iterparse(g, events=ALL)) == seen(binxml.iterparse(doc, events=ALL))


def test_convert_writes_its_output_as_it_goes(tmp_path):
    """convert(out=...) writes to a path or a binary file object what convert returns, and
    returns the number of bytes written."""
    body = b"<r xmlns='urn:r'>" + b"<i a='1'>x &amp; y</i>" * 50_000 + b"</r>"
    src = tmp_path / "in.xml"
    src.write_bytes(body)
    for fmt in ("fi", "exi", "xebu", "xml"):
        expected = binxml.convert(body, fmt)
        assert binxml.convert(str(src), fmt, out=tmp_path / "out") == len(expected)
        assert (tmp_path / "out").read_bytes() == expected
        sink = io.BytesIO()
        assert binxml.convert(body, fmt, out=sink) == len(expected)
        assert sink.getvalue() == expected
    with pytest.raises(binxml.BinxmlError):
        binxml.convert(body[:-3], "fi", out=io.BytesIO())
    with pytest.raises(TypeError):
        binxml.convert(body, "fi", out=42)


def test_convert_returns_what_it_writes_whatever_the_expansion(tmp_path):
    """The bytes convert returns are what it writes to a file, for outputs smaller and larger
    than the input: a compressed EXI stream of a repetitive document expands to XML thousands
    of times (past the room reserved for the result up front), and a failed conversion raises
    without returning part of it."""
    body = b"<r>" + b"".join(b'<item n="%d">hello world</item>' % (i % 10) for i in range(100_000)) + b"</r>"
    exi = binxml.convert(body, "exi", exi="compression,header")
    assert len(exi) * 1000 < len(body)
    for data, frm, to, kw in (
        (body, "xml", "fi", {}),
        (exi, "exi", "xml", {}),
        (exi, "exi", "xml", {"indent": 2}),
        (exi, "exi", "json", {}),
        (b"<a/>", "xml", "xml", {}),
    ):
        got = binxml.convert(data, to, from_=frm, **kw)
        assert isinstance(got, bytes)
        assert binxml.convert(data, to, from_=frm, out=tmp_path / "out", **kw) == len(got)
        assert (tmp_path / "out").read_bytes() == got
    back = binxml.convert(exi, "xml")
    assert ET.canonicalize(xml_data=back) == ET.canonicalize(xml_data=body)
    with pytest.raises(binxml.BinxmlError):
        binxml.convert(exi[:-40], "xml")


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
how = sys.argv[2]
source = {"path": sys.argv[1], "file": open(sys.argv[1], "rb"), "reader": Unseekable(sys.argv[1])}[how]
for ev, el in binxml.iterparse(source, events=("start", "end")):
    if root is None:
        root = el
    if ev == "end" and el.tag == "{urn:x}rec":
        n += 1
        el.clear()
        root.clear()
print(n, base, hwm())
"""

STREAM_MB = int(os.environ.get("BINXML_STREAM_MB", "100"))


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A generated document of BINXML_STREAM_MB MB of XML (default 100; 1000 for the 1 GB
    check), written to disk as it is made; each binary format converted from it by the
    package, streaming to disk (``convert(path, fmt, out=path)``), on first use. Gives
    ``(path of the document in fmt, records)``."""
    d = tmp_path_factory.mktemp("big")
    rec = "".join(
        f'<rec id="{i}" kind="k{i % 5}"><name>Record {i} &amp; more</name><v>{i * 3}</v>'
        f"<!--c--><?p d?></rec>\n"
        for i in range(1000)
    )
    xml = d / "big.xml"
    copies = STREAM_MB * 1_000_000 // len(rec)
    with open(xml, "w") as f:
        f.write('<?xml version="1.0"?>\n<data xmlns="urn:x">\n')
        for _ in range(copies):
            f.write(rec)
        f.write("</data>\n")
    made = {"xml": xml}

    def get(fmt):
        if fmt not in made:
            path = d / f"big.{fmt}"
            written = binxml.convert(str(xml), fmt, out=str(path))
            assert written == path.stat().st_size > 0
            made[fmt] = path
        return made[fmt], copies * 1000

    return get


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    "fmt,how",
    [("xml", "path"), ("fi", "reader"), ("xebu", "file"), ("exi", "reader")],
)
def test_a_large_document_streams_in_little_memory(big, fmt, how):
    """The generated document (``big``) read with iterparse and clear() in a fresh process:
    XML from its path (read as it is decoded), Xebu from a file object over the file
    (``open(path, "rb")``: mapped through its descriptor), Fast Infoset and EXI from a file
    object that has only read() (Fast Infoset read as it is decoded, EXI copied into a
    temporary file, which is mapped). Its peak resident memory stays under 64 MB.
    BINXML_STREAM_MB=1000 makes it the 1 GB check; scripts/bench-python-stream runs every
    format and input on 1 GB."""
    doc, records = big(fmt)
    r = subprocess.run(
        [sys.executable, "-c", STREAM_CHILD, str(doc), how], capture_output=True, text=True, check=True
    )
    n, base, peak = map(int, r.stdout.split())
    assert n == records
    assert peak < 64, f"peak resident memory {peak} MB (after import: {base} MB)"
