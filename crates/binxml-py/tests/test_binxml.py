"""The Python binding, checked against Python's own ElementTree and C14N."""

import io
import os
import pathlib
import xml.etree.ElementTree as ET

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "invoice.xml"
CORPUS = ROOT.parent / "shared" / "corpus"
BINARY = ["fi", "tsf", "xebu", "asn1-uper", "asn1-aper", "asn1-ber"]
NS = "{urn:example:binxml:invoice}"


def c14n(data):
    return ET.canonicalize(xml_data=data, with_comments=True)


def test_formats_and_detect():
    names = [f[0] for f in binxml.formats()]
    assert {"xml", "json", *BINARY} <= set(names)
    assert binxml.detect(b"<a/>") == "xml"
    assert binxml.detect(binxml.convert(b"<a/>", "fi")) == "fi"


@pytest.mark.parametrize("fmt", BINARY)
def test_convert_round_trip_is_c14n_equal(fmt):
    xml = EXAMPLE.read_bytes()
    enc = binxml.convert(xml, fmt)
    back = binxml.convert(enc, "xml", from_=fmt)
    assert c14n(back) == c14n(xml)


@pytest.mark.parametrize("fmt", ["xml"] + BINARY)
def test_parse_gives_elements_that_behave_as_elementtree_elements(fmt):
    data = binxml.convert(EXAMPLE, fmt)
    tree = binxml.parse(io.BytesIO(data), format=fmt)
    root = tree.getroot()
    assert isinstance(root, binxml.Element) and ET.iselement(root)
    assert root.tag == NS + "Invoice"
    assert root.get("Currency") == "EUR"
    ids = [li.get("LineID") for li in root.iter(NS + "LineItem")]
    assert ids == ["1", "2", "3"]
    assert root.find(f"{NS}LineItem/{NS}Description").text == "Smart meter, three-phase"
    # The same tree as Python's own parser builds (comments and processing instructions are
    # not children, as with its default parser), through C14N.
    ours = ET.tostring(root, encoding="unicode")
    theirs = ET.tostring(ET.fromstring(EXAMPLE.read_bytes()), encoding="unicode")
    assert c14n(ours) == c14n(theirs)
    # binxml's own serialization keeps them
    assert c14n(binxml.tostring(tree)) == c14n(binxml.convert(EXAMPLE, "xml"))


@pytest.mark.parametrize("fmt", ["xml"] + BINARY)
def test_tostring_from_a_modified_tree(fmt):
    root = binxml.fromstring(EXAMPLE.read_bytes())
    for price in root.iter(NS + "PriceAmount"):
        price.text = "%.2f" % (float(price.text) * 1.1)
    item = binxml.SubElement(root, NS + "LineItem", {"LineID": "4"})
    item.text = "new & <improved>"
    data = binxml.tostring(root, format=fmt)
    back = binxml.fromstring(data, format=fmt)
    assert [p.text for p in back.iter(NS + "PriceAmount")] == ["208.45", "79.20", "5.39"]
    assert back.findall(NS + "LineItem")[-1].text == "new & <improved>"
    assert c14n(ET.tostring(back, encoding="unicode")) == c14n(ET.tostring(root, encoding="unicode"))


def test_iterparse_like_elementtree():
    data = binxml.convert(EXAMPLE, "fi")
    seen = [(ev, el.tag) for ev, el in binxml.iterparse(io.BytesIO(data), events=("start", "end"))]
    expected = [(ev, el.tag) for ev, el in ET.iterparse(str(EXAMPLE), events=("start", "end"))]
    assert seen == expected


def test_json():
    data = b'{"a": [1, 2.50, true, null, "x"]}'
    xml = binxml.convert(data, "xml")
    assert binxml.convert(xml, "json").replace(b" ", b"").replace(b"\n", b"") == b'{"a":[1,2.50,true,null,"x"]}'


def test_errors_are_clear():
    with pytest.raises(binxml.BinxmlError, match=r"xml: .* at byte \d+"):
        binxml.convert(b"<a><b></a>", "fi")
    with pytest.raises(ValueError, match="unknown format"):
        binxml.convert(b"<a/>", "nope")
    with pytest.raises(binxml.BinxmlError):
        binxml.convert(b"\xe0\x00\x00\x01\x00\x3c", "xml")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the checkout")
def test_corpus_through_fi_is_c14n_equal():
    files = [p for p in sorted(CORPUS.rglob("*")) if p.is_file() and p.suffix not in (".tsf", ".tsv", ".md")
             and "json" not in p.relative_to(CORPUS).parts and p.stat().st_size < 300_000]
    assert len(files) > 40
    for p in files:
        original = p.read_bytes()
        back = binxml.convert(binxml.convert(original, "fi", from_="xml"), "xml", from_="fi")
        assert c14n(back) == c14n(original), p


def test_exi_options():
    data = b"<a x='1'><!--c--><b>t</b></a>"
    packed = binxml.convert(data, "exi", exi="compression,comments,header")
    assert binxml.detect(packed) == "exi"
    assert b"<!--c--><b>t</b>" in binxml.convert(packed, "xml")
    bare = binxml.convert(data, "exi", exi="byte-aligned,comments")
    assert b"<!--c-->" in binxml.convert(bare, "xml", exi="byte-aligned,comments")
    with pytest.raises(binxml.BinxmlError):
        binxml.convert(data, "exi", exi="compresion")


def test_schema_validate_and_schema_informed_exi(tmp_path):
    xsd = tmp_path / "order.xsd"
    xsd.write_text(
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        '<xs:element name="order"><xs:complexType><xs:sequence>'
        '<xs:element name="item" type="xs:string" maxOccurs="unbounded"/>'
        '</xs:sequence><xs:attribute name="id" use="required"/></xs:complexType></xs:element>'
        "</xs:schema>"
    )
    schema = binxml.Schema(str(xsd))
    good = b'<order id="7"><item>pen</item><item>ink</item></order>'
    assert schema.validate(good) == []
    errors = schema.validate(b"<order>\n<thing/></order>")
    assert [(e[0], e[3]) for e in errors] == [
        (1, "the required attribute id is missing"),
        (2, "element thing is not allowed here; expected item"),
        (2, "the content ends too early; expected item"),
    ]
    informed = binxml.convert(good, "exi", schema=schema)
    assert len(informed) < len(binxml.convert(good, "exi"))
    assert binxml.convert(informed, "xml", from_="exi", schema=schema) == good
    with pytest.raises(binxml.BinxmlError):
        binxml.Schema(str(tmp_path / "missing.xsd"))


def test_a_tree_goes_when_nothing_uses_it():
    """Proxies and trees make no reference cycle: without the garbage collector, parsing the
    same document many times does not pile the trees up."""
    import gc

    def rss_mb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024

    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs Linux's /proc")
    data = b"<r>" + b"<item a='1'>some text</item>" * 40000 + b"</r>"  # about 1.2 MB
    gc.disable()
    try:
        binxml.fromstring(data)
        before = rss_mb()
        for _ in range(60):
            root = binxml.fromstring(data)
            first = root[0]
            assert first.tag == "item"
            del root, first
        grown = rss_mb() - before
    finally:
        gc.enable()
    assert grown < 20, f"{grown:.0f} MB more after 60 parses"
