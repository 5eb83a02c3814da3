#!/usr/bin/env python3
"""The independent oracle for binxml's X.694 codec (crates/binxml-asn1/src/x694): PyPI asn1tools
compiles the ASN.1 module that binxml printed for a schema, and Python's ElementTree compares
documents. One request per stdin line, fields separated by tabs; one answer line each:

  compile MODULE          compile the module text in file MODULE for UPER, APER and BER (replaces the
                          previous one); "ok <number of types>". MODULE may end with binxml's XER encoding
                          control section: asn1tools compiles the part before it, and `make`
                          reads its instructions.
  make RULE TYPE XML OUT  build a value of TYPE from the XML file by this script's own mapping
                          (the module's types as asn1tools parses them, the XER instructions
                          ATTRIBUTE, UNTAGGED, LIST, BASE64, USE-TYPE, USE-NIL, EMBED-VALUES,
                          USE-ORDER, ANY-ELEMENT (the element's XML text, ElementTree's
                          serialization), ANY-ATTRIBUTES (`uri name="value"` strings) and
                          NAME AS, the X.694 name
                          conversion of enumeration values) and write its RULE encoding to OUT;
                          "ok"
  check RULE TYPE BIN     decode BIN (binxml's encoding) as TYPE with
                          asn1tools, re-encode the value and answer "ok" when the bytes are
                          identical (RULE uper, aper or ber) (else "ERR ...")
  selfcheck               the oracle's rule for semi-constrained integers (see
                          semi_constrained_integers) against pycrate's encodings; "ok"
  same TYPE ORIGINAL DECODED
                          compare two XML files, documents of TYPE, as infosets with the
                          mapping's normalisations (docs/x694.md): both are walked as `make`
                          walks a document (which tells mixed content from element-only
                          content), normalised, and written as Canonical XML (C14N 2.0,
                          prefixes rewritten), which must be equal. Not compared: namespace
                          prefixes and declarations, comments, processing instructions, the
                          prolog, xsi:schemaLocation, the original's white space in
                          element-only content; compared with white space collapsed: the text
                          of an element without children of element-only or simple content
                          (the whiteSpace facets); xsi:type values as expanded names, xsi:nil
                          "1" as "true" and "false" as absent. Mixed content's character data
                          is compared exactly, between, before and after child elements, and
                          so is everything in an element a wildcard matched.
                          "ok" or "DIFF <where>: <what>"
"""
import sys
import xml.etree.ElementTree as ET

import asn1tools
import asn1tools.codecs.per as per
import asn1tools.codecs.uper as uper

sys.setrecursionlimit(100000)


def semi_constrained_integers():
    """asn1tools 0.169 writes an INTEGER (lb..MAX) as an unconstrained (signed) whole number;
    X.691 10.7 writes n - lb as a non-negative binary integer in the fewest octets after a
    length (pycrate does, and so does binxml). The oracle uses X.691's rule for that case and
    keeps asn1tools' own code for every other integer; `selfcheck` compares it with pycrate."""
    for cls in (uper.Integer, per.Integer):
        patch_integer(cls)


def patch_integer(cls):
    plain_range = cls.set_restricted_to_range
    plain_encode = cls.encode
    plain_decode = cls.decode

    def set_restricted_to_range(self, minimum, maximum, has_extension_marker):
        self.semi = minimum if (maximum == 'MAX' and minimum != 'MIN' and not has_extension_marker) else None
        plain_range(self, minimum, maximum, has_extension_marker)

    def encode(self, data, encoder):
        lb = getattr(self, 'semi', None)
        if lb is None:
            return plain_encode(self, data, encoder)
        v = data - lb
        if v < 0:
            raise asn1tools.EncodeError('%d below %d' % (data, lb))
        n = max(1, (v.bit_length() + 7) // 8)
        if cls is per.Integer:
            encoder.align()
        encoder.append_length_determinant(n)
        encoder.append_non_negative_binary_integer(v, 8 * n)

    def decode(self, decoder):
        lb = getattr(self, 'semi', None)
        if lb is None:
            return plain_decode(self, decoder)
        if cls is per.Integer:
            decoder.align()
        n = decoder.read_length_determinant()
        return decoder.read_non_negative_binary_integer(8 * n) + lb

    cls.set_restricted_to_range = set_restricted_to_range
    cls.encode = encode
    cls.decode = decode


semi_constrained_integers()
XSI = '{http://www.w3.org/2001/XMLSchema-instance}'
SPEC = None


def compile_module(path):
    global SPEC, TYPES, INSTR
    text = open(path, encoding='utf-8').read()
    asn1, _, control = text.partition('ENCODING-CONTROL XER')
    if control:
        asn1 += 'END\n'
    SPEC = {'uper': asn1tools.compile_string(asn1, 'uper'),
            'aper': asn1tools.compile_string(asn1, 'per'),
            'ber': asn1tools.compile_string(asn1, 'ber')}
    TYPES = list(asn1tools.parse_string(asn1).values())[0]['types']
    INSTR = {}
    for line in control.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] in ('ATTRIBUTE', 'UNTAGGED', 'LIST', 'BASE64', 'USE-TYPE', 'USE-NIL',
                                         'EMBED-VALUES', 'USE-ORDER'):
            INSTR.setdefault(f[1], {})[f[0]] = True
        elif len(f) >= 2 and f[0] in ('ANY-ELEMENT', 'ANY-ATTRIBUTES'):
            # The namespace restriction: FROM or EXCEPT a list of "uri" and ABSENT.
            allowed = None
            if len(f) > 2:
                allowed = (f[2], {'' if x == 'ABSENT' else x.strip('"') for x in f[3:]})
            INSTR.setdefault(f[1], {})[f[0]] = allowed
        elif len(f) == 4 and f[0] == 'NAMESPACE' and f[2] == 'AS' and '.' in f[1]:
            # A qualified attribute's namespace.
            INSTR.setdefault(f[1], {})['NAMESPACE'] = f[3].strip('"')
        elif len(f) == 4 and f[0] == 'NAME' and f[2] == 'AS':
            INSTR.setdefault(f[1], {})['NAME'] = f[3].strip('"')
    return 'ok %d' % len(SPEC['uper'].types)


TYPES = {}
INSTR = {}


def convert(name):
    """X.694's name conversion of an identifier (docs/x694.md): letters and digits kept, `_`
    `.` `-` as `-`, others dropped, hyphens squeezed, none trailing, lower-case first."""
    out = ''
    for c in name:
        if c.isascii() and c.isalnum():
            out += c
        elif c in '_.-' and out and not out.endswith('-'):
            out += '-'
    out = out.rstrip('-')
    if not out or not out[0].isalpha():
        out = 'x' + out
    return out[0].lower() + out[1:]


def local(tag):
    return tag.rsplit('}', 1)[-1]


class Refused(Exception):
    pass


class Builder:
    """The value of a document, from its ElementTree and the module's parsed types."""

    def resolve(self, t, path):
        seen = 0
        while t['type'] in TYPES and seen < 1000:
            path = t['type']
            t = TYPES[t['type']]
            seen += 1
        return t, path

    def instr(self, path):
        return INSTR.get(path, {})

    def role(self, member, path):
        i = self.instr(path)
        if 'ATTRIBUTE' in i:
            return 'attr'
        if 'ANY-ATTRIBUTES' in i:
            return 'anyattr'
        if 'ANY-ELEMENT' in i:
            return 'any'
        if 'UNTAGGED' in i:
            return 'text' if member.get('name') == 'base' else 'group'
        return 'elem'

    def allows(self, path, el):
        """Whether element `el` is in a namespace the wildcard at `path` allows."""
        allowed = self.instr(path).get('ANY-ELEMENT')
        ns = el.tag[1:].split('}', 1)[0] if el.tag.startswith('{') else ''
        if allowed is None:
            return True
        kind, uris = allowed
        return (ns in uris) == (kind == 'FROM')

    def fragment(self, el):
        """An element a wildcard matched: its XML text (ElementTree declares the namespaces it
        uses on it)."""
        tail, el.tail = el.tail, None
        text = ET.tostring(el, encoding='unicode')
        el.tail = tail
        return text

    def any_attributes(self, el, taken):
        """The attributes no attribute component took, as ANY-ATTRIBUTES strings."""
        out = []
        for k, v in el.attrib.items():
            if k in taken or k.startswith(XSI):
                continue
            ns, name = (k[1:].split('}', 1) if k.startswith('{') else ('', k))
            v = (v.replace('&', '&amp;').replace('<', '&lt;').replace('"', '&quot;')
                 .replace('\t', '&#9;').replace('\n', '&#10;').replace('\r', '&#13;'))
            out.append('%s%s="%s"' % (ns + ' ' if ns else '', name, v))
        return out

    def xml_name(self, ident, path):
        return self.instr(path).get('NAME', ident)

    def simple(self, t, path, text, base64=False):
        t, path = self.resolve(t, path)
        kind = t['type']
        if kind == 'INTEGER':
            return int(text.strip())
        if kind == 'BOOLEAN':
            return text.strip() in ('true', '1')
        if kind == 'ENUMERATED':
            names = [v[0] for v in t['values']]
            want = convert(' '.join(text.split()))
            if want not in names:
                raise Refused('enumeration value %r' % text)
            return want
        if kind == 'OCTET STRING':
            compact = ''.join(text.split())
            return __import__('base64').b64decode(compact) if base64 else bytes.fromhex(compact)
        if kind == 'SEQUENCE OF':
            return [self.simple(t['element'], path, x) for x in text.split()]
        if kind == 'VisibleString':
            return ' '.join(text.split())
        return text

    def starts(self, member, path, kids, i, depth=0):
        if i >= len(kids) or depth > 64:
            return False
        role = self.role(member, path)
        if role == 'elem':
            return local(kids[i].tag) == self.xml_name(member.get('name') or member.get('element_name'), path)
        if role == 'any':
            return self.allows(path, kids[i])
        if role != 'group':
            return False
        t, tpath = self.resolve(member, path)
        if t is not member:
            path = tpath
        kind = t['type']
        if kind == 'SEQUENCE' and 'USE-ORDER' in self.instr(path):
            # An all group: any of its elements may come first.
            return any(self.starts(m, path + '.' + m['name'], kids, i, depth + 1) for m in t['members'][1:])
        if kind == 'SEQUENCE':
            for m in t['members']:
                mp = path + '.' + m['name']
                if self.starts(m, mp, kids, i, depth + 1):
                    return True
                if not (m.get('optional') or self.emptiable(m, mp, depth + 1)):
                    return False
            return False
        if kind == 'CHOICE':
            return any(self.starts(m, path + '.' + m['name'], kids, i, depth + 1) for m in t['members'])
        if kind == 'SEQUENCE OF':
            e = dict(t['element'], name=t['element_name'])
            return self.starts(e, path + '.' + t['element_name'], kids, i, depth + 1)
        return False

    def emptiable(self, member, path, depth=0):
        if depth > 64 or self.role(member, path) != 'group':
            return False
        t, tpath = self.resolve(member, path)
        if t is not member:
            path = tpath
        kind = t['type']
        if kind == 'SEQUENCE' and 'USE-ORDER' in self.instr(path):
            return all(m.get('optional') for m in t['members'][1:])
        if kind == 'SEQUENCE':
            return all(m.get('optional') or self.emptiable(m, path + '.' + m['name'], depth + 1) for m in t['members'])
        if kind == 'CHOICE':
            return any(self.emptiable(m, path + '.' + m['name'], depth + 1) for m in t['members'])
        if kind == 'SEQUENCE OF':
            lo = t.get('size', [[0]])[0][0] if t.get('size') else 0
            return lo == 0
        return False

    def element(self, t, path, el):
        """The value of element `el` whose type is `t`."""
        rt, rpath = self.resolve(t, path)
        if rt['type'] == 'CHOICE' and 'USE-TYPE' in self.instr(rpath):
            # xsi:type names the alternative (its local name, converted); none: the first,
            # the declared type.
            named = el.get(XSI + 'type')
            alts = rt['members']
            pick = alts[0]
            if named is not None:
                want = convert(named.split(':')[-1])
                pick = next((m for m in alts if m['name'] == want), None)
                if pick is None:
                    raise Refused('xsi:type %r' % named)
            return (pick['name'], self.element(pick, rpath + '.' + pick['name'], el))
        if rt['type'] != 'SEQUENCE':
            return self.simple(rt, rpath, el.text or '', 'BASE64' in self.instr(path))
        kids = list(el)
        if 'USE-NIL' in self.instr(rpath):
            # The last component is the content, absent when the element is nil; the others
            # are its attributes.
            *attrs, content = rt['members']
            value, _ = self.sequence(attrs, rpath, el, [], 0)
            if (el.get(XSI + 'nil') or '').strip() in ('true', '1'):
                return value
            cp = rpath + '.' + content['name']
            ct, ctp = self.resolve(content, cp)
            if ct['type'] == 'SEQUENCE':
                value[content['name']], i = self.sequence(ct['members'], cp if ct is content else ctp, el, kids, 0)
                if i != len(kids):
                    raise Refused('element %s not expected in %s' % (kids[i].tag, el.tag))
            else:
                value[content['name']] = self.simple(content, cp, el.text or '', 'BASE64' in self.instr(cp))
            return value
        value, i = self.sequence(rt['members'], rpath, el, kids, 0)
        if i != len(kids):
            raise Refused('element %s not expected in %s' % (kids[i].tag, el.tag))
        return value

    def sequence(self, members, path, el, kids, i):
        value = {}
        order = None
        if members and 'USE-ORDER' in self.instr(path):
            # An all group (X.694 USE-ORDER): the first component lists the group's elements
            # in document order; they come in any order.
            order = members[0]['name']
            value[order] = []
            members = members[1:]
        if members and 'EMBED-VALUES' in self.instr(path):
            # Mixed content: the first component holds the text before each child element
            # and after the last.
            value[members[0]['name']] = [el.text or ''] + [k.tail or '' for k in kids]
            members = members[1:]
        if order is not None:
            content = [m for m in members if self.role(m, path + '.' + m['name']) in ('elem', 'group')]
            while True:
                hit = next((m for m in content if m['name'] not in value
                            and self.starts(m, path + '.' + m['name'], kids, i)), None)
                if hit is None:
                    break
                mp = path + '.' + hit['name']
                if self.role(hit, mp) == 'elem':
                    value[hit['name']] = self.element(hit, mp, kids[i])
                    i += 1
                else:
                    value[hit['name']], i = self.group(hit, mp, el, kids, i)
                value[order].append(hit['name'])
            for m in content:
                if m['name'] not in value and not m.get('optional'):
                    raise Refused('element %s missing in %s' % (m['name'], el.tag))
            members = [m for m in members if m not in content]
        taken = set()
        for m in members:
            mp = path + '.' + m['name']
            role = self.role(m, mp)
            name = self.xml_name(m['name'], mp)
            if role == 'attr':
                ns = self.instr(mp).get('NAMESPACE')
                key = '{%s}%s' % (ns, name) if ns else name
                hit = [(k, v) for k, v in el.attrib.items() if k == key]
                if hit:
                    taken.add(hit[0][0])
                    value[m['name']] = self.simple(m, mp, hit[0][1], 'BASE64' in self.instr(mp))
            elif role == 'anyattr':
                # OPTIONAL: absent when no attribute matches.
                matched = self.any_attributes(el, taken)
                if matched:
                    value[m['name']] = matched
            elif role == 'any':
                if i < len(kids) and self.allows(mp, kids[i]):
                    value[m['name']] = self.fragment(kids[i])
                    i += 1
                elif not m.get('optional'):
                    raise Refused('an element for wildcard %s missing in %s' % (mp, el.tag))
            elif role == 'text':
                value[m['name']] = self.simple(m, mp, el.text or '', 'BASE64' in self.instr(mp))
            elif role == 'elem':
                if i < len(kids) and local(kids[i].tag) == name:
                    value[m['name']] = self.element(m, mp, kids[i])
                    i += 1
                elif not m.get('optional'):
                    raise Refused('element %s missing in %s' % (name, el.tag))
            else:
                if m.get('optional') and not self.starts(m, mp, kids, i):
                    continue
                value[m['name']], i = self.group(m, mp, el, kids, i)
        return value, i

    def group(self, member, path, el, kids, i):
        t, tpath = self.resolve(member, path)
        if t is not member:
            path = tpath
        kind = t['type']
        if kind == 'SEQUENCE':
            return self.sequence(t['members'], path, el, kids, i)
        if kind == 'CHOICE':
            alts = t['members']
            pick = next((m for m in alts if self.starts(m, path + '.' + m['name'], kids, i)), None)
            if pick is None:
                pick = next((m for m in alts if self.emptiable(m, path + '.' + m['name'])), None)
            if pick is None:
                raise Refused('no alternative of a choice in %s' % el.tag)
            mp = path + '.' + pick['name']
            if self.role(pick, mp) == 'elem':
                v = self.element(pick, mp, kids[i])
                return (pick['name'], v), i + 1
            if self.role(pick, mp) == 'any':
                return (pick['name'], self.fragment(kids[i])), i + 1
            v, i = self.group(pick, mp, el, kids, i)
            return (pick['name'], v), i
        if kind == 'SEQUENCE OF':
            e = dict(t['element'], name=t['element_name'])
            ep = path + '.' + t['element_name']
            hi = t['size'][0][1] if t.get('size') else None
            items = []
            while (hi in (None, 'MAX') or len(items) < hi) and self.starts(e, ep, kids, i):
                if self.role(e, ep) == 'elem':
                    items.append(self.element(e, ep, kids[i]))
                    i += 1
                elif self.role(e, ep) == 'any':
                    items.append(self.fragment(kids[i]))
                    i += 1
                else:
                    before = i
                    v, i = self.group(e, ep, el, kids, i)
                    items.append(v)
                    if i == before:
                        break
            return items, i
        raise Refused('a simple type as a group at %s' % path)


def make(rule, type_name, xml_path, out_path):
    root = ET.parse(xml_path).getroot()
    value = Builder().element({'type': type_name}, type_name, root)
    with open(out_path, 'wb') as f:
        f.write(SPEC[rule].encode(type_name, value))
    return 'ok'


def check(rule, type_name, path):
    data = open(path, 'rb').read()
    value = SPEC[rule].decode(type_name, data)
    again = SPEC[rule].encode(type_name, value)
    if again != data:
        n = next((i for i, (a, b) in enumerate(zip(again, data)) if a != b), min(len(again), len(data)))
        return 'ERR re-encoding differs at byte %d (%d bytes vs %d)' % (n, len(again), len(data))
    return 'ok'


def blank(text):
    return text is None or text.strip(' \t\r\n') == ''


def expand(value, namespaces):
    """An xsi:type value as {namespace}local, by the document's prefix bindings."""
    prefix, _, name = value.strip().rpartition(':')
    return '{%s}%s' % (namespaces.get(prefix, ''), name)


class Shape(Builder):
    """Builder's walk of a document, kept for what it learns on the way: which elements have
    mixed content (their type's SEQUENCE carries EMBED-VALUES), where every character of
    character data is part of the value."""

    def __init__(self):
        self.mixed = set()
        self.verbatim = set()

    def fragment(self, el):
        self.verbatim.add(id(el))
        return super().fragment(el)

    def sequence(self, members, path, el, kids, i):
        if members and 'EMBED-VALUES' in self.instr(path):
            self.mixed.add(id(el))
        return super().sequence(members, path, el, kids, i)


def normalise(el, mixed, namespaces, original, verbatim=frozenset()):
    """Applies the mapping's normalisations (docs/x694.md) to `el` and its subtree, in place.

    Character data is kept exactly in mixed content (text before, between and after child
    elements, white space included). In element-only content it must be white space (the
    original's is dropped; the decoded document must have none: kept, so that any shows up
    as a difference). The text of an element of simple content is compared with its white
    space collapsed (the whiteSpace facets). An element a wildcard matched is compared as it
    is, with everything in it."""
    if id(el) in verbatim:
        return
    attrs = {k: v for k, v in el.attrib.items()
             if k not in (XSI + 'schemaLocation', XSI + 'noNamespaceSchemaLocation')}
    if XSI + 'type' in attrs:
        attrs[XSI + 'type'] = expand(attrs[XSI + 'type'], namespaces)
    # xsi:nil: "1" is "true", and "false" is no attribute (the content is there).
    nil = attrs.pop(XSI + 'nil', None)
    if nil is not None and nil.strip() in ('true', '1'):
        attrs[XSI + 'nil'] = 'true'
    el.attrib.clear()
    el.attrib.update(attrs)
    kids = list(el)
    if id(el) in mixed:
        pass
    elif kids:
        if original:
            if blank(el.text):
                el.text = None
            for k in kids:
                if blank(k.tail):
                    k.tail = None
    else:
        el.text = ' '.join((el.text or '').split())
    if el.text == '':
        el.text = None
    for k in kids:
        if k.tail == '':
            k.tail = None
        normalise(k, mixed, namespaces, original, verbatim)


def canonical(path, type_name, original):
    """The file's infoset after the mapping's normalisations, as Canonical XML (C14N 2.0 with
    prefixes rewritten: prefixes are not part of the value; comments, processing instructions
    and the prolog are not kept by ElementTree's parser)."""
    tree = ET.parse(path)
    root = tree.getroot()
    shape = Shape()
    shape.element({'type': type_name}, type_name, root)
    normalise(root, shape.mixed, namespaces(path), original, shape.verbatim)
    root.tail = None
    return ET.canonicalize(ET.tostring(root, encoding='unicode'), rewrite_prefixes=True)


def namespaces(path):
    """The document's prefix bindings (the test documents bind each prefix once)."""
    return {p: u for _, (p, u) in ET.iterparse(path, events=('start-ns',))}


def same(type_name, original, decoded):
    a = canonical(original, type_name, True)
    try:
        b = canonical(decoded, type_name, False)
    except Refused as e:
        return 'DIFF the decoded document is not a value of %s: %s' % (type_name, e)
    if a == b:
        return 'ok'
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return 'DIFF at character %d of the canonical form: %r vs %r' % (
        n, a[max(0, n - 80):n + 80], b[max(0, n - 80):n + 80])


def selfcheck():
    """The semi-constrained integers as pycrate (the second opinion) encodes them."""
    import os
    import tempfile
    from pycrate_asn1c.asnproc import compile_text, generate_modules, PycrateGenerator
    text = ('M DEFINITIONS AUTOMATIC TAGS ::= BEGIN\nA ::= INTEGER (1..MAX)\nB ::= INTEGER (0..MAX)\n'
            'C ::= SEQUENCE { b BOOLEAN, i INTEGER (1..MAX) }\nEND\n')
    compile_text(text)
    d = tempfile.mkdtemp()
    generate_modules(PycrateGenerator, os.path.join(d, 'selfcheck_mod.py'))
    sys.path.insert(0, d)
    import selfcheck_mod
    for codec, to in (('uper', 'to_uper'), ('per', 'to_aper')):
        ours = asn1tools.compile_string(text, codec)
        cases = (('A', (1, 127, 128, 184, 256, 70000)), ('B', (0, 127, 128, 255, 65536)),
                 ('C', ({'b': True, 'i': 184}, {'b': False, 'i': 70000})))
        for name, values in cases:
            t = getattr(selfcheck_mod.M, name)
            for v in values:
                t.set_val(v)
                theirs = getattr(t, to)()
                if ours.encode(name, v) != theirs or ours.decode(name, theirs) != v:
                    return 'ERR %s %s %r: pycrate %s, asn1tools as patched %s' % (
                        codec, name, v, theirs.hex(), ours.encode(name, v).hex())
    return 'ok'


def main():
    for line in sys.stdin:
        f = line.rstrip('\n').split('\t')
        try:
            if f[0] == 'compile':
                out = compile_module(f[1])
            elif f[0] == 'check':
                out = check(f[1], f[2], f[3])
            elif f[0] == 'selfcheck':
                out = selfcheck()
            elif f[0] == 'make':
                out = make(f[1], f[2], f[3], f[4])
            elif f[0] == 'same':
                out = same(f[1], f[2], f[3])
            else:
                out = 'ERR unknown request %r' % f[0]
        except Exception as e:  # the answer carries the failure to the Rust test
            out = 'ERR %s: %s' % (type(e).__name__, str(e).replace('\n', ' ')[:500])
        sys.stdout.write(out + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
