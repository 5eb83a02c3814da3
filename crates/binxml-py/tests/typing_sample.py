"""Typical uses of binxml, type-checked with mypy --strict against the package's stubs."""

import io
from typing import List, Optional

import binxml


def prices(path: str) -> List[float]:
    root = binxml.parse(path).getroot()
    out: List[float] = []
    for el in root.iter("{urn:example:binxml:invoice}PriceAmount"):
        text: Optional[str] = el.text
        if text is not None:
            out.append(float(text))
    return out


def roundtrip(data: bytes) -> bytes:
    root = binxml.fromstring(data)
    child: binxml.Element = binxml.Element("x", {"k": "v"})
    root.append(child)
    first: Optional[binxml.Element] = root.find("x")
    assert first is not None
    first.set("a", "1")
    attrib: binxml.Attrib = first.attrib
    attrib["b"] = attrib.get("a", "0")
    del attrib["a"]
    first.attrib = {"c": "2", **attrib}
    return binxml.convert(binxml.tostring(root, format="fi"), to="xml")


def stream(data: bytes) -> int:
    n = 0
    for event, _ in binxml.iterparse(io.BytesIO(data), events=("start", "end")):
        n += event == "end"
    try:
        binxml.fromstring(b"<a>")
    except binxml.ParseError as e:
        line, column = e.position
        n += line + column
    return n


def to_disk(xml_path: str, fi_path: str) -> int:
    written: int = binxml.convert(xml_path, "fi", out=fi_path)
    with open(fi_path + ".exi", "wb") as f:
        written += binxml.convert(xml_path, "exi", out=f)
    return written


def sign_message(message: bytes, key: str, cert: str) -> List[str]:
    schema = binxml.Schema("meter.xsd")
    signed: bytes = binxml.sign_exi(message, key, schema=schema, exi="compression", id="id1")
    v = binxml.verify_exi(signed, cert, schema="meter.xsd", exi="compression")
    elements: List[str] = v["elements"]
    return elements


VERSION: str = binxml.__version__
