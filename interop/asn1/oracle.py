#!/usr/bin/env python3
"""The independent ASN.1 oracle for crates/binxml-asn1: PyPI asn1tools compiles the module
(crates/binxml-asn1/asn1/XML-Infoset.asn, RELATIVE-OID read as OCTET STRING) for UPER, APER
and BER, and answers one request per stdin line (fields separated by tabs):

  check RULE BIN        decode BIN (our encoding) with asn1tools, re-encode the decoded value and
                        answer "ok" when the bytes are identical (else "ERR ...")
  make RULE XML OUT     build a Document value from the UTF-8 XML file with Python's expat (an
                        independent mapping: inline strings, explicit namespace names and
                        in-scope namespaces, no tables), encode it with asn1tools into OUT, "ok"

RULE is uper, aper or ber. One process serves a whole test batch.
"""
import os
import sys
import time
import xml.parsers.expat

import asn1tools

sys.setrecursionlimit(200000)
HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.join(HERE, '..', '..', 'crates', 'binxml-asn1', 'asn1', 'XML-Infoset.asn')
XMLNS = 'http://www.w3.org/2000/xmlns/'
XML_NS = 'http://www.w3.org/XML/1998/namespace'


def load_spec():
    """asn1tools compiles the module once RELATIVE-OID is replaced by OCTET STRING (asn1tools
    has no RELATIVE-OID; PER encodes both as a length and contents octets; binxml never emits
    the `references` component that uses it)."""
    text = open(MODULE, encoding='utf-8').read().replace('RELATIVE-OID', 'OCTET STRING')
    return {rule: asn1tools.compile_string(text, codec)
            for rule, codec in (('uper', 'uper'), ('aper', 'per'), ('ber', 'ber'))}


SPECS = load_spec()


def decode(rule, data):
    return SPECS[rule].decode('Document', data)


def encode(rule, val):
    return SPECS[rule].encode('Document', val)


PYCRATE_DOC = None


def pycrate_decodes(rule, data):
    """Second opinion for what asn1tools 0.169 cannot decode: a SEQUENCE OF whose count is
    fragmented (16K items or more; asn1tools cannot even decode its own encoding of one).
    pycrate (0.8.1) decodes such values, but cannot re-encode this recursive module, so this
    check is decode-only. Returns the number of bytes pycrate consumed, or raises."""
    global PYCRATE_DOC
    if PYCRATE_DOC is None:
        import glob
        import importlib.util
        import hashlib
        from pycrate_asn1c.asnproc import compile_text, generate_modules, PycrateGenerator
        text = open(MODULE, encoding='utf-8').read()
        cache = os.path.join(HERE, '..', '.cache', 'asn1')
        os.makedirs(cache, exist_ok=True)
        gen = os.path.join(cache, 'infoset_%s.py' % hashlib.sha256(text.encode()).hexdigest()[:16])
        if not os.path.exists(gen):
            compile_text(text)
            generate_modules(PycrateGenerator, gen + '.tmp')
            os.replace(gen + '.tmp', gen)
        spec = importlib.util.spec_from_file_location('infoset_pycrate', gen)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        PYCRATE_DOC = mod.Infoset.Document
    getattr(PYCRATE_DOC, 'from_' + rule)(data)
    return len(data)


def S(s):
    return ('string', s)


def U(s):
    return ('uri', s)


def N(s):
    return ('ncname', s)


def split(name):
    """expat with namespace_prefixes: 'uri local prefix', 'uri local' or 'local'."""
    parts = name.split(' ')
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], parts[1], ''
    return '', parts[0], ''


def qname_value(ns, local, prefix):
    v = {'local-name': N(local)}
    if ns:
        v['namespace-name'] = ('namespace-name', U(ns))
    if prefix:
        v['prefix'] = N(prefix)
    return ('name', v)


def xml_to_value(path):
    data = open(path, 'rb').read()
    p = xml.parsers.expat.ParserCreate(encoding='UTF-8', namespace_separator=' ')
    p.namespace_prefixes = True
    p.ordered_attributes = True
    doc = {'children': [], 'notations': [], 'unparsed-entities': [],
           'character-encoding-scheme': S(''), 'all-declarations-processed': True,
           'component-strings': [], 'common-names': []}
    stack = []  # (element dict, children list, in-scope dict)
    dtd = []  # the open DOCTYPE's value while expat is inside it
    text = []
    pending_ns = []

    def flush():
        if text and stack:
            s = ''.join(text)
            if s:
                stack[-1][1].append(('characters', {'characters': ('characters', S(s)),
                                                     'element-content-whitespace': False}))
        text.clear()

    def add(kind_el, kind_doc, v):
        flush()
        if stack:
            stack[-1][1].append((kind_el, v))
        elif kind_doc:
            doc['children'].append((kind_doc, v))

    def xmldecl(version, encoding, standalone):
        if version:
            doc['version'] = S(version)
        doc['character-encoding-scheme'] = S(encoding or '')
        if standalone != -1:
            doc['standalone'] = bool(standalone)

    def doctype(name, sysid, pubid, has_internal):
        v = {'children': []}
        if sysid is not None:
            v['system-identifier'] = U(sysid)
        if pubid is not None:
            v['public-identifier'] = U(pubid)
        doc['children'].append(('document-type-declaration', v))
        dtd.append(v)

    def end_doctype():
        dtd.clear()

    def notation(name, base, sysid, pubid):
        v = {'name': N(name)}
        if sysid is not None:
            v['system-identifier'] = U(sysid)
        if pubid is not None:
            v['public-identifier'] = U(pubid)
        doc['notations'].append(v)

    def unparsed(name, base, sysid, pubid, notation_name):
        v = {'name': N(name), 'system-identifier': U(sysid), 'notation-name': N(notation_name)}
        if pubid is not None:
            v['public-identifier'] = U(pubid)
        doc['unparsed-entities'].append(v)

    def start_ns(prefix, uri):
        pending_ns.append((prefix or '', uri or ''))

    def start(name, attrs):
        flush()
        ns, local, prefix = split(name)
        scope = dict(stack[-1][2]) if stack else {'xml': XML_NS}
        ns_attrs = []
        for (pfx, uri) in pending_ns:
            an = {'namespace-name': ('namespace-name', U(XMLNS)),
                  'local-name': N(pfx if pfx else 'xmlns')}
            if pfx:
                an['prefix'] = N('xmlns')
            ns_attrs.append({'name': ('name', an), 'normalized-value': S(uri)})
            if uri:
                scope[pfx] = uri
            else:
                scope.pop(pfx, None)
        pending_ns.clear()
        children = []
        el = {'name': qname_value(ns, local, prefix), 'children': ('children', children),
              'in-scope-namespaces': ('in-scope-namespaces',
                                      [dict([('namespace-name', U(u))] + ([('prefix', N(k))] if k else []))
                                       for k, u in scope.items()])}
        at = []
        for i in range(0, len(attrs), 2):
            ans, alocal, aprefix = split(attrs[i])
            at.append({'name': qname_value(ans, alocal, aprefix), 'normalized-value': S(attrs[i + 1])})
        if at:
            el['attributes'] = at
        if ns_attrs:
            el['namespace-attributes'] = ns_attrs
        stack.append((el, children, scope))

    def end(name):
        flush()
        el, _, _ = stack.pop()
        add('element', 'element', el)

    def chars(s):
        if stack:
            text.append(s)

    def comment(c):
        if dtd:  # comments of the internal subset are no information items
            return
        add('comment', 'comment', {'content': S(c)})

    def pi(target, data):
        v = {'target': N(target), 'content': S(data), 'base-URI': ('same-as-parent', None)}
        if dtd:
            dtd[-1]['children'].append(v)
        else:
            add('processing-instruction', 'processing-instruction', v)

    p.XmlDeclHandler = xmldecl
    p.StartDoctypeDeclHandler = doctype
    p.EndDoctypeDeclHandler = end_doctype
    p.NotationDeclHandler = notation
    p.UnparsedEntityDeclHandler = unparsed
    p.StartNamespaceDeclHandler = start_ns
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.CommentHandler = comment
    p.ProcessingInstructionHandler = pi
    p.Parse(data, True)
    return doc


def main():
    for line in sys.stdin:
        parts = line.rstrip('\n').split('\t')
        try:
            if parts[0] == 'check':
                rule, path = parts[1], parts[2]
                data = open(path, 'rb').read()
                try:
                    val = decode(rule, data)
                except Exception as e:
                    if rule == 'ber':
                        raise
                    try:
                        pycrate_decodes(rule, data)
                    except Exception as e2:
                        # pycrate 0.8.1 misreads APER octet strings of three or more fragments
                        # (a 196,005-byte block that asn1tools decodes and re-encodes exactly)
                        sys.stdout.write('skip neither oracle decodes it (asn1tools: %s; pycrate: %s)\n'
                                         % (str(e)[:80], str(e2)[:80]))
                        sys.stdout.flush()
                        continue
                    sys.stdout.write('ok pycrate-decode-only (asn1tools: %s)\n' % str(e)[:120])
                    sys.stdout.flush()
                    continue
                again = encode(rule, val)
                if again == data:
                    answer = 'ok'
                else:
                    n = next((i for i in range(min(len(data), len(again))) if data[i] != again[i]),
                             min(len(data), len(again)))
                    answer = 'ERR re-encoding differs at byte %d (ours %d bytes, asn1tools %d)' % (n, len(data), len(again))
            elif parts[0] == 'make':
                rule, src, out = parts[1], parts[2], parts[3]
                val = xml_to_value(src)
                data = encode(rule, val)
                try:
                    decode(rule, data)
                    answer = 'ok'
                except Exception as e:
                    answer = 'skip asn1tools cannot decode its own encoding (%s)' % str(e)[:120]
                open(out, 'wb').write(data)
            elif parts[0] == 'ping':
                answer = 'ok'
            else:
                answer = 'ERR unknown request'
        except Exception as e:  # report, keep serving
            answer = 'ERR %s: %s' % (type(e).__name__, str(e).replace('\n', ' ')[:300])
        sys.stdout.write(answer + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
