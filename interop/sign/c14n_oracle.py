"""The canonical-XML oracle for crates/binxml-sign's tests: libxml2's canonicaliser, through lxml.

One request a line on standard input, tab-separated: the document's path, the method (`c14n`,
`c14n-comments`, `exc`, `exc-comments`), the number in document order of the element whose
subtree is canonicalized (`-` for the whole document), and the path the canonical form is
written to. The answer line is `ok`, or `error <message>`.
"""
import sys

from lxml import etree

MODES = {
    "c14n": (False, False),
    "c14n-comments": (False, True),
    "exc": (True, False),
    "exc-comments": (True, True),
}


def canonical(path, mode, element):
    exclusive, comments = MODES[mode]
    parser = etree.XMLParser(resolve_entities=True, no_network=True, huge_tree=True,
                             attribute_defaults=False, load_dtd=False, remove_blank_text=False)
    doc = etree.parse(path, parser)
    if element == "-":
        return etree.tostring(doc, method="c14n", exclusive=exclusive, with_comments=comments)
    node = list(doc.getroot().iter(tag=etree.Element))[int(element)]
    return etree.tostring(node, method="c14n", exclusive=exclusive, with_comments=comments)


for line in sys.stdin:
    path, mode, element, out = line.rstrip("\n").split("\t")
    try:
        data = canonical(path, mode, element)
        with open(out, "wb") as f:
            f.write(data)
        print("ok", flush=True)
    except Exception as e:  # the test reports the oracle's failure with the document
        print("error " + str(e).replace("\n", " "), flush=True)
