#!/usr/bin/env python3
"""The XML Schema oracle: decides whether an XML instance is valid against an XSD, with PyPI's
xmlschema (pinned by interop/xsd/setup.sh), an implementation independent of binxml-schema.

One process serves a whole batch. Each request is one line on stdin, fields separated by tabs:

    <schema.xsd> TAB <instance.xml> [TAB <catalog.tsv>]

and each answer one line on stdout:

    valid
    invalid TAB <the first reason: "line N: /xpath/of/element: reason">
    error TAB <why the schema (or the catalog) could not be used>

An instance that is not well-formed is "invalid" (reason "not well-formed: ..."); a schema that
does not load is "error", never "invalid", so that a broken test set is not taken for a broken
instance.

Nothing is fetched from the network: resources load with allow="local" (xmlschema refuses any
non-file URL) and the schema's own xsi/xml/xlink imports use xmlschema's bundled copies. A
schemaLocation that points at the web resolves through the optional catalog: a TSV file of
`URL TAB local path` lines (the path relative to the catalog file; '#' starts a comment), the
same file ExiDriver's "catalog=" option reads, so both oracles see the same schema documents.
An entry whose URL is a bare file name ("xml.xsd") stands for that relative reference from any
document (it matches every URL ending in "/xml.xsd").
Instances are validated against the schema given, never against their own xsi:schemaLocation
hints (use_location_hints=False).

With --lxml on the command line every answer gets one more field, libxml2's verdict through
lxml (a second opinion; "lxml:valid" or "lxml:invalid: <first message>" or "lxml:error: ...").
Loaded schemas are cached for the life of the process (keyed by path, catalog and mtimes).
"""

import os
import sys
import warnings
import urllib.parse
import urllib.request

import xmlschema
from lxml import etree


def read_catalog(path):
    """The catalog as {url: absolute local path}."""
    base = os.path.dirname(os.path.abspath(path))
    mapping = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 2:
                raise ValueError(f"{path}:{n}: expected 'URL<TAB>local path'")
            mapping[parts[0]] = os.path.normpath(os.path.join(base, parts[1]))
    return mapping


def lookup(mapping, url):
    """The local file for url: an exact entry, or for an entry that is a bare file name (a
    relative schemaLocation or DTD system id as written, "xml.xsd") any URL ending in
    "/" + that name, i.e. the reference resolved against whichever document made it."""
    if url in mapping:
        return mapping[url]
    for key, path in mapping.items():
        if "/" not in key and ":" not in key and url.endswith("/" + key):
            return path
    return None


def file_url(path):
    return urllib.parse.urljoin("file:", urllib.request.pathname2url(os.path.abspath(path)))


class Oracle:
    def __init__(self, use_lxml):
        self.schemas = {}
        self.lxml_schemas = {}
        self.use_lxml = use_lxml

    def key(self, schema, catalog):
        stamp = os.stat(schema).st_mtime_ns
        cstamp = os.stat(catalog).st_mtime_ns if catalog else 0
        return (os.path.abspath(schema), catalog and os.path.abspath(catalog), stamp, cstamp)

    def schema(self, schema, catalog):
        key = self.key(schema, catalog)
        if key not in self.schemas:
            mapping = read_catalog(catalog) if catalog else {}

            def mapper(url):
                # the catalog maps the URL as written in schemaLocation (and as resolved
                # against the importing document, which for an absolute URL is the same)
                local = lookup(mapping, url)
                return file_url(local) if local else url

            cls = xmlschema.XMLSchema10
            self.schemas[key] = cls(schema, allow="local", defuse="remote", uri_mapper=mapper)
        return self.schemas[key]

    def validate(self, schema, instance, catalog):
        try:
            xs = self.schema(schema, catalog)
        except Exception as e:  # the schema does not load: not the instance's fault
            return "error\t" + one_line(f"{type(e).__name__}: {e}")
        # The instance is parsed by lxml (no network, no external DTD) only so that the errors
        # carry line numbers: xmlschema reports lines for lxml elements and not for
        # ElementTree's; the validation itself is xmlschema's.
        try:
            tree = etree.parse(instance, instance_parser())
        except etree.XMLSyntaxError as e:
            return "invalid\t" + one_line(f"not well-formed: {e}")
        except OSError as e:
            return "error\t" + one_line(f"{type(e).__name__}: {e}")
        for err in xs.iter_errors(tree):
            return "invalid\t" + one_line(describe(err))
        return "valid"

    def lxml_verdict(self, schema, instance, catalog):
        try:
            key = self.key(schema, catalog)
            if key not in self.lxml_schemas:
                mapping = read_catalog(catalog) if catalog else {}

                class Catalog(etree.Resolver):
                    def resolve(self, url, pubid, context):
                        local = lookup(mapping, url)
                        return self.resolve_filename(local, context) if local else None

                parser = etree.XMLParser(no_network=True, resolve_entities=True)
                parser.resolvers.add(Catalog())
                doc = etree.parse(schema, parser)
                self.lxml_schemas[key] = etree.XMLSchema(doc)
            xs = self.lxml_schemas[key]
        except Exception as e:
            return "lxml:error: " + one_line(f"{type(e).__name__}: {e}")
        try:
            doc = etree.parse(instance, instance_parser())
        except etree.XMLSyntaxError as e:
            return "lxml:invalid: " + one_line(f"not well-formed: {e}")
        if xs.validate(doc):
            return "lxml:valid"
        e = xs.error_log[0]
        return "lxml:invalid: " + one_line(f"line {e.line}: {e.path}: {e.message}")


def instance_parser():
    # entities of the internal subset are expanded, the external subset is never read
    return etree.XMLParser(no_network=True, load_dtd=False, resolve_entities=True, huge_tree=True)


def describe(err):
    """line N: /path: reason (the reason without xmlschema's multi-line report)."""
    reason = err.reason or err.message
    line = getattr(err, "sourceline", None)
    where = f"line {line}: " if line else ""
    return f"{where}{err.path or '/'}: {reason}"


def one_line(s):
    return " ".join(str(s).split())


def main():
    # A failed import (a blocked web address, a missing file) leaves the schema without the
    # components it needed; xmlschema only warns, the oracle answers "error" instead.
    warnings.simplefilter("error", xmlschema.XMLSchemaImportWarning)
    warnings.simplefilter("error", xmlschema.XMLSchemaIncludeWarning)
    use_lxml = "--lxml" in sys.argv[1:]
    oracle = Oracle(use_lxml)
    for line in sys.stdin:
        line = line.rstrip("\r\n")
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            print("error\texpected 'schema<TAB>instance[<TAB>catalog]'", flush=True)
            continue
        schema, instance = fields[0], fields[1]
        catalog = fields[2] if len(fields) == 3 and fields[2] not in ("", "-") else None
        answer = oracle.validate(schema, instance, catalog)
        if use_lxml:
            answer += "\t" + oracle.lxml_verdict(schema, instance, catalog)
        print(answer, flush=True)


if __name__ == "__main__":
    main()
