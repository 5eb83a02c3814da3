"""binxml as a drop-in for xml.etree.ElementTree: one script runs against both modules on every
corpus document (../shared/corpus when it is beside the checkout, else tests/corpus) and the
outputs must be equal. The documents are also read from Fast Infoset, so the proxies are
checked over a binary format too."""

import collections.abc
import io
import pathlib
import re
import xml.etree.ElementTree as ET

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "corpus"
CORPUS = SHARED if SHARED.is_dir() else ROOT / "tests" / "corpus"


def documents():
    out = []
    for p in sorted(CORPUS.rglob("*.xml")):
        if p.stat().st_size > 400_000:
            continue
        data = p.read_bytes()
        try:
            ET.fromstring(data)
        except ET.ParseError:
            continue  # not for ElementTree (external entities, say): nothing to compare with
        out.append(p)
    return out


DOCS = documents()


def c14n(text):
    return ET.canonicalize(xml_data=text, strip_text=False)


def script(mod, root):
    """What an ElementTree user does; returns everything it observed."""
    seen = []
    ns = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    nsmap = {"d": ns} if ns else {}
    q = "d:" if ns else ""
    seen.append(("root", root.tag, sorted(root.items()), root.text, len(root)))
    for el in root.iter():
        seen.append((el.tag, sorted(el.attrib.items()), el.text, el.tail, len(el), el.keys()))
    seen.append(("itertext", list(root.itertext())))
    first = root[0] if len(root) else None
    if first is not None:
        local = first.tag.rpartition("}")[2]
        path = ".//" + q + local
        seen.append(("findall", [e.tag for e in root.findall(path, nsmap)]))
        seen.append(("iterfind", [e.text for e in root.iterfind(q + local, nsmap)]))
        seen.append(("find", root.find(q + local, nsmap) is not None, root.find("nope")))
        seen.append(("findtext", root.findtext(q + local, "dflt", nsmap)))
        seen.append(("star", [e.tag for e in root.findall("*")], [e.tag for e in root.findall(".//*")[:50]]))
        seen.append(("parent", [e.tag for e in root.findall(".//" + q + local + "/..", nsmap)]))
        seen.append(("slice", [e.tag for e in root[:2]], root[-1].tag))
        k = first.keys()[0] if first.keys() else "none"
        seen.append(("get", first.get(k), first.get("missing", "dflt")))
        first.set("added", "v&<'\"")
        first.set("{urn:binxml:test}n", "1")
        first.text = "new text é"
        first.tail = "\n tail "
        seen.append(("after set", sorted(first.items()), first.text, first.tail))
        sub = mod.SubElement(root, "{urn:binxml:test}sub", {"a": "1"})
        sub.text = "subtext"
        sub.tail = "subtail"
        if len(root) > 2:
            second = root[1]
            root.remove(second)
            root.insert(0, second)
        root.append(mod.fromstring("<plain x='1'>in<i/>after</plain>"))
        seen.append(("children", [(c.tag, c.text, c.tail) for c in root]))
    # what the tree is now, through ElementTree's serializer (it only reads the elements) and
    # through the module's own
    seen.append(("tostring", c14n(ET.tostring(root, encoding="unicode"))))
    own = mod.tostring(root, encoding="unicode")
    # binxml keeps comments and processing instructions; ElementTree's parser dropped them
    seen.append(("own tostring", c14n(ET.tostring(ET.fromstring(own), encoding="unicode"))))
    return seen


def test_the_corpus_is_there():
    assert len(DOCS) >= 4


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_same_script_same_outputs(path):
    data = path.read_bytes()
    expected = script(ET, ET.fromstring(data))
    assert script(binxml, binxml.fromstring(data)) == expected
    fi = binxml.convert(data, "fi", from_="xml")
    assert script(binxml, binxml.parse(io.BytesIO(fi)).getroot()) == expected


def test_parse_error_is_elementtree_parse_error():
    bad = "<a>\n  <b x=1/></a>"
    with pytest.raises(ET.ParseError) as e:
        binxml.fromstring(bad)
    assert isinstance(e.value, binxml.ParseError) and isinstance(e.value, binxml.BinxmlError)
    with pytest.raises(ET.ParseError) as theirs:
        ET.fromstring(bad)
    assert e.value.position == theirs.value.position == (2, 7)
    assert e.value.format == "xml"
    fi = bytearray(binxml.convert(b"<a><b>text</b></a>", "fi"))
    with pytest.raises(ET.ParseError) as e:
        binxml.fromstring(bytes(fi[:-3]), format="fi")
    assert e.value.format == "fi" and e.value.position[0] == 0 and e.value.offset is not None


def test_str_input_and_tostring_encodings():
    root = binxml.fromstring("<?xml version='1.0' encoding='latin-1'?><a>café</a>")
    assert root.text == "café"
    assert binxml.tostring(root, encoding="unicode") == "<a>café</a>"
    assert binxml.tostring(root) == "<a>café</a>".encode()
    assert binxml.tostring(root, encoding="us-ascii") == ET.tostring(ET.fromstring("<a>café</a>"))
    latin = binxml.tostring(root, encoding="latin-1")
    assert latin == ET.tostring(ET.fromstring("<a>café</a>"), encoding="latin-1")
    assert re.match(r"\d+\.\d+\.\d+", binxml.__version__)


def test_elements_of_one_tree_keep_their_identity():
    root = binxml.fromstring(b"<a><b/><c><b/></c></a>")
    assert root[0] is root.find("b") is next(root.iter("b"))
    assert [e.tag for e in root.findall(".//b/..")] == ["a", "c"]
    moved = root[1]
    root[0].append(moved)
    assert moved in list(root[0]) and len(root) == 1
    with pytest.raises(ValueError):
        moved.append(root)
    el = binxml.Element("x", {"k": "v"}, y="z")
    assert el.attrib == {"k": "v", "y": "z"}


def live_attrib_script(m):
    """Changes made through `attrib` (and through the element) as a program written for
    ElementTree makes them; the outputs it records, compared between the two."""
    root = m.fromstring('<r xmlns:p="urn:p"><e a="1" p:b="2"/><f/></r>')
    e, f = root[0], root[1]
    a = e.attrib
    out = [sorted(a.items()), len(a), "a" in a, "zz" in a, 5 in a, a.get("zz", "d"), a["{urn:p}b"]]
    a["c"] = "3"
    del a["a"]
    out += [e.get("c"), e.get("a"), sorted(e.keys())]
    e.set("d", "4")
    out += [a.get("d"), sorted(a), a.pop("d"), a.pop("d", "gone"), a.setdefault("s", "v")]
    a.update({"u": "5"}, w="6")
    a.update([("x", "7")])
    out += [sorted(e.items()), dict(a) == dict(e.attrib), isinstance(a, collections.abc.MutableMapping)]
    try:
        a["missing"]
    except KeyError as x:
        out.append(("KeyError", x.args))
    try:
        del a["missing"]
    except KeyError as x:
        out.append(("KeyError", x.args))
    f.attrib = {"n": "1", "{urn:q}m": "2"}
    out.append(sorted(f.attrib.items()))
    f.attrib.clear()
    out += [len(f.attrib), f.keys(), f.get("n")]
    out.append(sorted(m.Element("y", e.attrib).items()))
    out.append(sorted(e.makeelement("z", e.attrib).items()))
    copy = e.attrib.copy()
    copy["only-in-copy"] = "x"
    out.append(e.get("only-in-copy"))
    return out


def test_attrib_is_live_as_in_elementtree():
    assert live_attrib_script(binxml) == live_attrib_script(ET)
