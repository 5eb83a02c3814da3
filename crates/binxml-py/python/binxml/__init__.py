"""binxml: XML, JSON and binary infoset encodings, with an ElementTree-style API.

Documents of any binxml format parse into standard ``xml.etree.ElementTree`` elements, and
elements serialize into any format::

    import binxml
    tree = binxml.parse("invoice.fi")               # format detected
    root = tree.getroot()
    for item in root.iter("{urn:example:binxml:invoice}LineItem"):
        print(item.get("LineID"))
    data = binxml.tostring(root, format="tsf")
    xml = binxml.convert(data, to="xml")             # any format to any other, in Rust

The conversion work happens in Rust with the GIL released.
"""

import io
import os
import xml.etree.ElementTree as ET

from ._binxml import BinxmlError, detect, encode as _encode, events as _events, formats
from ._binxml import Schema
from ._binxml import sign_cms, sign_xml, verify_cms, verify_xml
from ._binxml import convert as _convert

__all__ = [
    "BinxmlError",
    "Schema",
    "convert",
    "detect",
    "formats",
    "events",
    "parse",
    "fromstring",
    "iterparse",
    "tostring",
    "write",
    "sign_xml",
    "verify_xml",
    "sign_cms",
    "verify_cms",
]


def _read(source):
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    if hasattr(source, "read"):
        data = source.read()
        return data.encode("utf-8") if isinstance(data, str) else data
    raise TypeError(f"cannot read a document from {type(source).__name__}")


def convert(data, to, from_=None, indent=None, exi=None, schema=None):
    """Converts a document (bytes, a path or a file object) to the format ``to``; returns bytes.

    ``from_`` names the input format; it is detected from the first bytes when absent. ``exi``:
    EXI options as the command line's ``--exi`` takes them (``"compression,preserve-all"``),
    for EXI output and for EXI input whose header carries none. ``schema``: a ``Schema``
    (``binxml.Schema("inv.xsd")``, loaded once) for schema-informed EXI, both ways.
    """
    return _convert(_read(data), to, from_, indent, exi, schema)


def events(source, format=None):
    """The document's events as tuples (see ``binxml._binxml.events``)."""
    return _events(_read(source), format)


def _tag(ns, local):
    return "{%s}%s" % (ns, local) if ns else local


def _build(evs, on_event=None):
    """Builds ElementTree elements from event tuples; returns the root element."""
    builder = ET.TreeBuilder(insert_comments=True, insert_pis=True)
    pending = None  # (tag, attrib) of a start tag whose attributes are still coming
    root = None
    depth = 0

    def flush():
        nonlocal pending, root
        if pending is not None:
            elem = builder.start(pending[0], pending[1])
            if root is None:
                root = elem
            if on_event:
                on_event("start", elem)
            pending = None

    for ev in evs:
        kind = ev[0]
        if kind == "attr":
            pending[1][_tag(ev[1], ev[2])] = ev[4]
            continue
        if kind == "ns":
            if on_event:
                on_event("start-ns", (ev[1], ev[2]))
            continue
        flush()
        if kind == "start":
            pending = (_tag(ev[1], ev[2]), {})
            depth += 1
        elif kind == "end":
            elem = builder.end(None)
            depth -= 1
            if on_event:
                on_event("end", elem)
        elif kind == "text":
            if depth > 0:
                builder.data(ev[1])
        elif kind == "comment":
            if depth > 0:
                builder.comment(ev[1])
        elif kind == "pi":
            if depth > 0:
                builder.pi(ev[1], ev[2])
    flush()
    builder.close()
    return root


def fromstring(data, format=None):
    """Parses a document of any format (bytes) into its root ``Element``."""
    return _build(_events(bytes(data), format))


def parse(source, format=None):
    """Parses a document of any format (bytes, a path or a file object) into an ``ElementTree``."""
    return ET.ElementTree(_build(_events(_read(source), format)))


def iterparse(source, events=("end",), format=None):
    """Yields ``(event, element)`` pairs as ``xml.etree.ElementTree.iterparse`` does
    ("start", "end", "start-ns"). The whole document is decoded first."""
    wanted = set(events or ("end",))
    out = []

    def on_event(kind, obj):
        if kind in wanted:
            out.append((kind, obj))

    _build(_events(_read(source), format), on_event)
    return iter(out)


def _element_events(elem, out, scope, counter):
    tag = elem.tag
    if tag is ET.Comment:
        out.append(("comment", elem.text or ""))
    elif tag is ET.ProcessingInstruction:
        target, _, data = (elem.text or "").partition(" ")
        out.append(("pi", target, data))
    else:
        ns, local = _split(tag)
        decls = []
        names = [(ns, True)] + [(_split(k)[0], False) for k in elem.attrib]
        for uri, is_element in names:
            if not uri:
                continue
            if uri not in scope:
                prefix = _prefix_for(uri, scope, counter)
                scope = dict(scope)
                scope[uri] = prefix
                decls.append((prefix, uri))
        out.append(("start", ns, local, scope.get(ns, "") if ns else ""))
        for prefix, uri in decls:
            out.append(("ns", prefix, uri))
        for key, value in elem.attrib.items():
            ans, alocal = _split(key)
            out.append(("attr", ans, alocal, scope.get(ans, "") if ans else "", value))
        if elem.text:
            out.append(("text", elem.text, False))
        for child in elem:
            _element_events(child, out, scope, counter)
        out.append(("end",))
    if elem.tail:
        out.append(("text", elem.tail, False))


def _split(tag):
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _prefix_for(uri, scope, counter):
    known = getattr(ET, "_namespace_map", {}).get(uri)
    used = set(scope.values())
    if known and known not in used:
        return known
    while True:
        p = "ns%d" % counter[0]
        counter[0] += 1
        if p not in used:
            return p


def tostring(element, format="xml", indent=None):
    """Serializes an ``Element`` (or ``ElementTree``) in any format; returns bytes."""
    if isinstance(element, ET.ElementTree):
        element = element.getroot()
    evs = [("start_document",)]
    body = []
    _element_events(element, body, {"http://www.w3.org/XML/1998/namespace": "xml"}, [0])
    # The root's tail is outside the document element.
    while body and body[-1][0] == "text":
        body.pop()
    evs.extend(body)
    evs.append(("end_document",))
    return _encode(evs, format, indent)


def write(element, file, format="xml", indent=None):
    """Serializes into a path or a binary file object."""
    data = tostring(element, format, indent)
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            f.write(data)
    else:
        file.write(data)
