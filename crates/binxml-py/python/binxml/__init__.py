"""binxml: XML, JSON and binary infoset encodings, with an ElementTree-style API.

Documents of any binxml format parse into a tree kept on the Rust side; the ``Element`` objects
Python sees are proxies made when an element is touched (lxml's design) and behave as
``xml.etree.ElementTree`` elements; elements serialize into any format::

    import binxml
    tree = binxml.parse("invoice.fi")               # format detected
    root = tree.getroot()
    for item in root.iter("{urn:example:binxml:invoice}LineItem"):
        print(item.get("LineID"))
    data = binxml.tostring(root, format="tsf")
    xml = binxml.convert(data, to="xml")             # any format to any other, in Rust

Decoding, building the tree, conversion and serialization run in Rust with the GIL released.
"""

import collections.abc
import io
import os
import re
import stat
import xml.etree.ElementTree as ET

from ._binxml import BinxmlError, detect, encode as _encode, events as _events, formats
from ._binxml import Schema, XebuSchema, Element, Attrib, Tree as _Tree
from ._binxml import sign_cms, sign_exi, sign_xml, verify_cms, verify_exi, verify_xml
from ._binxml import convert as _convert, convert_file as _convert_file
from ._binxml import parse_file as _parse_file, parse_tree as _parse_tree
from ._binxml import stream_bytes as _stream_bytes, stream_fd as _stream_fd, stream_file as _stream_file
from ._binxml import stream_reader as _stream_reader
from ._binxml import __version__

# `Element.attrib` is a live mapping over the element's attributes (ElementTree's is the
# element's own dict): a MutableMapping to isinstance and to code that asks.
collections.abc.MutableMapping.register(Attrib)

__all__ = [
    "BinxmlError",
    "ParseError",
    "Element",
    "Attrib",
    "ElementTree",
    "SubElement",
    "Schema",
    "XebuSchema",
    "convert",
    "detect",
    "formats",
    "events",
    "parse",
    "fromstring",
    "XML",
    "iterparse",
    "tostring",
    "write",
    "iselement",
    "sign_xml",
    "verify_xml",
    "sign_cms",
    "verify_cms",
    "sign_exi",
    "verify_exi",
    "__version__",
]


class ParseError(BinxmlError, ET.ParseError):
    """A document that could not be decoded: an ``xml.etree.ElementTree.ParseError`` (and a
    ``BinxmlError``). ``position`` is ``(line, column)`` for XML input (as ElementTree's: the
    column from 0) and
    ``(0, byte offset)`` for the binary formats; ``offset`` is the byte offset (or None),
    ``format`` the input format's name."""

    def __init__(self, message, format=None, offset=None, line_col=None):
        super().__init__(message)
        self.msg = message
        self.format = format
        self.offset = offset
        if line_col is not None:
            # ElementTree's columns count from 0
            self.position = (int(line_col[0]), int(line_col[1]) - 1)
        else:
            self.position = (0, int(offset or 0))
        self.code = None

    def __str__(self):
        return self.msg


def _parse_error(e):
    args = tuple(e.args) + (None, None, None)
    return ParseError(str(args[0]), args[1], args[2], args[3])


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


def convert(data, to, from_=None, indent=None, exi=None, schema=None, xebu_schema=None, out=None):
    """Converts a document (bytes, a path or a file object) to the format ``to``; returns bytes,
    or, with ``out`` (a path or a binary file object), writes them there as they are encoded
    and returns how many were written.

    ``from_`` names the input format; it is detected from the first bytes when absent. ``exi``:
    EXI options as the command line's ``--exi`` takes them (``"compression,preserve-all"``),
    for EXI output and for EXI input whose header carries none. ``schema``: a ``Schema``
    (``binxml.Schema("inv.xsd")``, loaded once) for schema-informed EXI, both ways.
    ``xebu_schema``: an ``XebuSchema`` (``binxml.XebuSchema("notify.rnc")``, RELAX NG) for
    XebuS, Xebu with the schema's omission automata, both ways.
    """
    if isinstance(data, (str, os.PathLike)):
        # Mapped by Rust, not read into a bytes object first.
        return _convert_file(os.fspath(data), to, from_, indent, exi, schema, xebu_schema, out)
    return _convert(_read(data), to, from_, indent, exi, schema, xebu_schema, out)


def _regular_file(source):
    """The descriptor and position of a binary file object over a regular file (``open(path,
    "rb")``, raw or buffered), else None. Only the io module's own file objects: others with a
    ``fileno()`` may read something else than their descriptor gives (``gzip.GzipFile``'s is
    the compressed file's)."""
    raw = source if isinstance(source, io.FileIO) else getattr(source, "raw", None)
    if not isinstance(raw, io.FileIO) or not isinstance(source, (io.FileIO, io.BufferedReader, io.BufferedRandom)):
        return None
    try:
        fd = source.fileno()
        if not isinstance(fd, int) or not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fd, source.tell()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None


def _stream(source, format):
    try:
        if isinstance(source, (str, os.PathLike)):
            return _stream_file(os.fspath(source), format)
        if isinstance(source, (bytes, bytearray, memoryview)):
            return _stream_bytes(bytes(source), format)
        regular = _regular_file(source)
        if regular is not None:
            # Read from its descriptor by Rust, from the object's position: XML as it is
            # decoded, a binary format mapped; the object itself is not read.
            return _stream_fd(regular[0], regular[1], format)
        if hasattr(source, "read"):
            if isinstance(source, io.TextIOBase):
                data = source.read()
                return _stream_bytes(_bytes(data), format)
            # XML and Fast Infoset are read as they are decoded; any other format is copied
            # into a temporary file first, which is mapped as a file on disk is.
            return _stream_reader(source, format)
    except BinxmlError as e:
        raise _parse_error(e) from None
    raise TypeError(f"cannot read a document from {type(source).__name__}")


_BATCH = 4096


def _batches(stream):
    while True:
        try:
            batch = stream.next_batch(_BATCH)
        except BinxmlError as e:
            if isinstance(e, ParseError):
                raise
            raise _parse_error(e) from None
        if not batch:
            return
        yield batch


def events(source, format=None):
    """The document's events, decoded as they are asked for (in batches, with the GIL
    released), as tuples: ``("start", namespace, local, prefix)``, ``("ns", prefix, uri)``,
    ``("attr", namespace, local, prefix, value)``, ``("text", text)``, ``("comment", text)``,
    ``("pi", target, data)``, ``("end",)``. ``source``: a path, bytes or a file object (an XML
    file on disk is read as it is decoded, a binary one mapped)."""
    for batch in _batches(_stream(source, format)):
        yield from batch


class _IterParse:
    """The iterator ``iterparse`` returns; ``root`` is the root element once it is done."""

    def __init__(self, source, events, format):
        self.root = None
        self._it = self._run(_stream(source, format), set(events or ("end",)))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def _run(self, stream, wanted):
        builder = ET.TreeBuilder()
        want_start, want_end = "start" in wanted, "end" in wanted
        want_ns, want_end_ns = "start-ns" in wanted, "end-ns" in wanted
        want_comment, want_pi = "comment" in wanted, "pi" in wanted
        pending = None  # (tag, attrib, namespace declarations) of a start tag being read
        ns_counts = []
        depth = 0
        out = []
        for batch in _batches(stream):
            for ev in batch:
                kind = ev[0]
                if kind == "attr":
                    pending[1][("{%s}%s" % (ev[1], ev[2])) if ev[1] else ev[2]] = ev[4]
                    continue
                if kind == "ns":
                    pending[2].append((ev[1], ev[2]))
                    continue
                if pending is not None:
                    if want_ns:
                        for decl in pending[2]:
                            out.append(("start-ns", decl))
                    ns_counts.append(len(pending[2]))
                    elem = builder.start(pending[0], pending[1])
                    if self.root is None:
                        self.root = elem
                    if want_start:
                        out.append(("start", elem))
                    pending = None
                if kind == "start":
                    pending = (("{%s}%s" % (ev[1], ev[2])) if ev[1] else ev[2], {}, [])
                    depth += 1
                elif kind == "text":
                    if depth:
                        builder.data(ev[1])
                elif kind == "end":
                    elem = builder.end(None)
                    depth -= 1
                    if want_end:
                        out.append(("end", elem))
                    n = ns_counts.pop()
                    if want_end_ns:
                        out.extend([("end-ns", None)] * n)
                elif kind == "comment":
                    if want_comment:
                        out.append(("comment", builder.comment(ev[1]) if depth else ET.Comment(ev[1])))
                elif kind == "pi":
                    if want_pi:
                        out.append(("pi", builder.pi(ev[1], ev[2]) if depth else ET.PI(ev[1], ev[2])))
            if out:
                yield from out
                out.clear()
        builder.close()


def iterparse(source, events=None, parser=None, format=None):
    """Yields ``(event, object)`` pairs as ``xml.etree.ElementTree.iterparse`` does: events
    ``"start"``, ``"end"`` (elements, ``xml.etree.ElementTree.Element``), ``"start-ns"``
    (``(prefix, uri)``), ``"end-ns"`` (None), ``"comment"``, ``"pi"``. The document is decoded
    as the iteration goes, with the GIL released; with ``elem.clear()`` on the elements done
    with, memory stays small however large the document (an XML file is read as it is decoded
    through a bounded window; a binary one is mapped and the pages read are given back). From
    a file object, XML and Fast Infoset are read as they are decoded; a document in another
    format is first copied whole into an unlinked temporary file, which is then mapped (those
    decoders need their whole input), so its first event comes after the whole object is read."""
    return _IterParse(source, events, format)


_DECL_ENCODING = re.compile(r"""^(\s*<\?xml[^>]*?encoding\s*=\s*)(["'])[^"']*\2""")


def _bytes(text):
    """A str document as UTF-8 bytes; an XML declaration's encoding is rewritten to match (as
    ElementTree, which reads the characters, ignores it)."""
    return _DECL_ENCODING.sub(r"\1\2utf-8\2", text, count=1).encode("utf-8")


def _tree_of(source, format):
    try:
        if isinstance(source, str) and format is None and source.lstrip()[:1] == "<":
            raise TypeError("a str is a path for parse(); use fromstring() for a document")
        if isinstance(source, (str, os.PathLike)):
            return _parse_file(os.fspath(source), format)
        if isinstance(source, (bytes, bytearray, memoryview)):
            return _parse_tree(bytes(source), format)
        if hasattr(source, "read"):
            data = source.read()
            return _parse_tree(_bytes(data) if isinstance(data, str) else data, format)
    except BinxmlError as e:
        if isinstance(e, ParseError):
            raise
        raise _parse_error(e) from None
    raise TypeError(f"cannot read a document from {type(source).__name__}")


def fromstring(text, format=None, parser=None):
    """Parses a document of any format (bytes, or a str of XML) into its root ``Element``.

    Raises ``ParseError`` (an ``xml.etree.ElementTree.ParseError``) on malformed input."""
    if isinstance(text, str):
        text = _bytes(text)
    root = _tree_of(bytes(text), format).root()
    if root is None:
        raise ParseError("no element found", format, 0, None)
    return root


XML = fromstring


class ElementTree(ET.ElementTree):
    """``xml.etree.ElementTree.ElementTree`` over a binxml tree: ``write`` serializes in any
    format, keeping what lies around the document element (comments, processing
    instructions, the document type declaration) when the root is a parsed document's."""

    def parse(self, source, parser=None, format=None):
        """Loads a document of any format (a path, bytes or a file object)."""
        self._root = _tree_of(source, format).root()
        return self._root

    def write(self, file_or_filename, encoding=None, xml_declaration=None,
              default_namespace=None, method=None, *, short_empty_elements=True,
              format="xml", indent=None):
        """Writes the tree in ``format`` (default XML) to a path or a binary file object."""
        root = self.getroot()
        if isinstance(root, Element):
            owner, is_root = root._owner()
            data = owner.serialize(format, indent) if is_root else root.serialize(format, indent)
            if format == "xml" and encoding not in (None, "utf-8", "UTF-8"):
                data = _reencode(data, encoding, xml_declaration is not False)
        else:
            data = tostring(root, format=format, indent=indent, encoding=encoding)
        _write_bytes(file_or_filename, data if isinstance(data, bytes) else data.encode("utf-8"))


def _write_bytes(file, data):
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            f.write(data)
    elif isinstance(file, io.TextIOBase):
        file.write(data.decode("utf-8"))
    else:
        file.write(data)


def parse(source, parser=None, format=None):
    """Parses a document of any format (a path, bytes or a file object) into an
    ``ElementTree``. The tree is built in Rust with the GIL released; the format is detected
    from the first bytes unless ``format`` names it. Raises ``ParseError`` on malformed input."""
    t = ElementTree()
    t.parse(source, format=format)
    return t


def SubElement(parent, tag, attrib={}, **extra):
    """Creates an element as the last child of ``parent``; returns it."""
    if isinstance(parent, Element):
        parent.append(Element(tag, dict(attrib), **extra))
        return parent[len(parent) - 1]
    return ET.SubElement(parent, tag, attrib, **extra)


def iselement(element):
    """Whether ``element`` looks like an element (as ElementTree's ``iselement``)."""
    return hasattr(element, "tag")


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


def _reencode(data, encoding, declaration):
    text = data.decode("utf-8")
    text = re.sub(r"^<\?xml[^>]*\?>\s*", "", text)
    if encoding.lower() == "unicode":
        return text
    if encoding.lower() == "us-ascii":
        return text.encode("ascii", "xmlcharrefreplace")
    head = "<?xml version='1.0' encoding='%s'?>\n" % encoding if declaration else ""
    return (head + text).encode(encoding, "xmlcharrefreplace")


def tostring(element, format="xml", indent=None, encoding=None, method=None, *,
             xml_declaration=None, **kwargs):
    """Serializes an ``Element`` (or a whole ``ElementTree``, with the comments, processing
    instructions and document type declaration around its root) in any format; returns bytes.

    For XML, ``encoding`` is as ElementTree's: None gives UTF-8 bytes (binxml's default),
    ``"unicode"`` a str, another name bytes in that encoding (characters it lacks as character
    references, with an XML declaration naming it unless ``xml_declaration=False``). An
    element is written without its tail."""
    whole = isinstance(element, ET.ElementTree)
    if whole:
        element = element.getroot()
    if isinstance(element, Element):
        owner, is_root = element._owner()
        if whole and is_root:
            data = owner.serialize(format, indent)
        else:
            data = element.serialize(format, indent)
    else:
        evs = [("start_document",)]
        body = []
        _element_events(element, body, {"http://www.w3.org/XML/1998/namespace": "xml"}, [0])
        # The root's tail is outside the document element.
        while body and body[-1][0] == "text":
            body.pop()
        evs.extend(body)
        evs.append(("end_document",))
        data = _encode(evs, format, indent)
    if format == "xml":
        # the XML encoder writes no declaration for a document without one
        data = re.sub(rb"^<\?xml[^>]*\?>\s*", b"", data)
        if encoding is not None and encoding.lower() not in ("utf-8", "utf8"):
            return _reencode(data, encoding, xml_declaration is not False)
        if xml_declaration:
            data = b"<?xml version='1.0' encoding='utf-8'?>\n" + data
    return data


def write(element, file, format="xml", indent=None):
    """Serializes into a path or a binary file object."""
    _write_bytes(file, tostring(element, format, indent))
