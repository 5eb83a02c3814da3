#!/usr/bin/env python3
"""Seed 002's attribute certificates in X.693 BASIC-XER, by an independent encoder (PyPI
asn1tools), from their DER (bench/examples/attrcert/model.rs builds that DER).

    attrcert_xer.py IN.der OUT.xml [IN.der OUT.xml ...]

IN.der is an unsigned certificate, the DER of an RFC 5755 AttributeCertificateInfo. asn1tools
decodes it with interop/sign/attrcert.asn (RFC 5755's and RFC 5280's 1988 syntax, where an
attribute's value and a name's attribute value are ANY), each open-type value is decoded as
the type its object identifier names, and the value is written in BASIC-XER to OUT.xml. Then
the other way: asn1tools decodes OUT.xml back, the value must equal the one decoded from the
DER, and encoding it again in DER (the open types' values encoded as their types) must give
IN.der's octets exactly. Any difference is an error (exit status 1).

Open types. RFC 5755's attribute values and RFC 5280's name attribute values are open types
(ANY DEFINED BY in 1988 syntax, an information object class field in RFC 5912's). X.681's
XML value notation for an open type (XMLOpenTypeFieldVal) writes a known open-type value in XML as an XMLTypedValue,
`<TypeName>value</TypeName>` (the other form, a hex string of its encoding, says nothing an
XML reader could use). asn1tools' XER has no open types, so the module is compiled for XER
with each ANY replaced by a CHOICE of the types the certificates use, and the CHOICE's
alternatives are then named after those types, which makes asn1tools write exactly the typed
value: `<values><AllowedAccess><true/></AllowedAccess></values>`.
"""

import os
import re
import sys

import asn1tools
import asn1tools.codecs as asn1codecs
import asn1tools.codecs.xer as xer_codec


# A GeneralizedTime is a character string type: its XER is the string itself, which for these
# certificates is the DER's, `20260101000000Z` (UTC, seconds written). asn1tools decodes the
# DER string into a datetime without a time zone and writes that in XER as a local time
# without its zero seconds (`202601010000`), another value; its XER GeneralizedTime is made to
# write and read the string as DER has it.
def _generalized_time_encode(self, data):
    element = xer_codec.ElementTree.Element(self.name)
    element.text = asn1codecs.restricted_generalized_time_from_datetime(data)
    return element


def _generalized_time_decode(self, element):
    return asn1codecs.restricted_generalized_time_to_datetime(element.text)


xer_codec.GeneralizedTime.encode = _generalized_time_encode
xer_codec.GeneralizedTime.decode = _generalized_time_decode

HERE = os.path.dirname(os.path.abspath(__file__))

# Object identifier -> the type its open-type value has (RFC 5280 Appendix A.1 for the name
# attributes, bench/examples/attrcert/model.rs for the experiment's attribute types).
ATTRIBUTE_TYPES = {
    '1.3.6.1.4.1.7289.1.1': 'AllowedAccess',
    '1.3.6.1.4.1.7289.1.2': 'EtpPrescribe',
    '1.3.6.1.4.1.7289.1.3': 'AuditCertificate',
}
NAME_TYPES = {
    '2.5.4.3': 'X520CommonName',
    '2.5.4.10': 'X520OrganizationName',
    '2.5.4.6': 'X520countryName',
}
# sha256WithRSAEncryption's parameters: NULL (RFC 4055).
NULL_DER = b'\x05\x00'

# The open types, as CHOICEs of the types they hold here (alternatives renamed after
# compilation: asn1tools' grammar wants identifiers in lower case).
OPEN_TYPES = {
    'AttributeValue': list(ATTRIBUTE_TYPES.values()),
    'AttributeTypeValue': list(NAME_TYPES.values()),
    'AlgorithmParameters': ['NULL'],
}


def specs():
    with open(os.path.join(HERE, 'attrcert.asn'), encoding='utf-8') as f:
        text = f.read()
    der = asn1tools.compile_string(text, 'der')
    xer_text = text
    for name, types in OPEN_TYPES.items():
        choice = 'CHOICE { %s }' % ', '.join('%s %s' % (alt_id(t), t) for t in types)
        xer_text, n = re.subn(r'^%s ::= ANY$' % name, '%s ::= %s' % (name, choice), xer_text,
                              flags=re.M)
        assert n == 1, name
    xer = asn1tools.compile_string(xer_text, 'xer')
    for name, types in OPEN_TYPES.items():
        rename_alternatives(xer, name, {alt_id(t): t for t in types})
    return der, xer


def alt_id(type_name):
    return 'alt-' + type_name.lower() if type_name == 'NULL' else type_name[0].lower() + type_name[1:]


def rename_alternatives(spec, choice_name, names):
    """Renames the alternatives of every compiled CHOICE whose alternatives are `names`' keys
    (the type `choice_name` itself and each member or element of that type in the others)."""
    seen = set()

    def walk(t):
        if id(t) in seen:
            return
        seen.add(id(t))
        # Compiled types share members: a member may have been renamed through another.
        if isinstance(t, xer_codec.Choice) and set(t.name_to_member) in (set(names), set(names.values())):
            for m in t.members:
                m.name = names.get(m.name, m.name)
            t.name_to_member = {m.name: m for m in t.members}
        for m in getattr(t, 'members', None) or []:
            walk(m)
        if hasattr(t, 'element_type'):
            walk(t.element_type)

    for compiled in spec.types.values():
        walk(compiled._type)


def resolve(der, value):
    """The DER module's value with each open type (bytes) decoded as its type: the XER
    module's value."""
    for attribute in value['attributes']:
        type_name = ATTRIBUTE_TYPES[attribute['type']]
        attribute['values'] = [(type_name, der.decode(type_name, v)) for v in attribute['values']]
    for names in general_names(value):
        for name in names:
            resolve_name(der, name)
    params = value['signature'].get('parameters')
    if params is not None:
        if params != NULL_DER:
            raise ValueError('signature parameters are not NULL: %r' % params)
        value['signature']['parameters'] = ('NULL', None)
    return value


def resolve_name(der, general_name):
    kind, name = general_name
    if kind != 'directoryName':
        return
    for rdn in name[1]:
        for atv in rdn:
            type_name = NAME_TYPES[atv['type']]
            atv['value'] = (type_name, der.decode(type_name, atv['value']))


def unresolve(der, value):
    """The inverse of `resolve`: each open-type value encoded in DER again."""
    for attribute in value['attributes']:
        attribute['values'] = [der.encode(t, v) for t, v in attribute['values']]
    for names in general_names(value):
        for kind, name in names:
            if kind == 'directoryName':
                for rdn in name[1]:
                    for atv in rdn:
                        atv['value'] = der.encode(*atv['value'])
    if 'parameters' in value['signature']:
        assert value['signature']['parameters'] == ('NULL', None)
        value['signature']['parameters'] = NULL_DER
    return value


def general_names(value):
    """Every GeneralNames of an AttributeCertificateInfo that these certificates use."""
    out = []
    base = value['holder'].get('baseCertificateID')
    if base:
        out.append(base['issuer'])
    kind, issuer = value['issuer']
    if kind == 'v2Form' and 'issuerName' in issuer:
        out.append(issuer['issuerName'])
    elif kind == 'v1Form':
        out.append(issuer)
    return out


def convert(der, xer, der_bytes):
    value = resolve(der, der.decode('AttributeCertificateInfo', der_bytes))
    # asn1tools' type checker is compiled apart and keeps the alternatives' compiled names;
    # the decoding back below checks the value instead.
    xml = xer.encode('AttributeCertificateInfo', value, check_types=False)
    back = xer.decode('AttributeCertificateInfo', xml)
    if back != value:
        raise ValueError('the XER decodes to another value:\n%r\n%r' % (back, value))
    again = der.encode('AttributeCertificateInfo', unresolve(der, back))
    if again != der_bytes:
        raise ValueError('the value decoded from the XER encodes to other DER')
    return xml


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    der, xer = specs()
    for src, dst in zip(argv[::2], argv[1::2]):
        with open(src, 'rb') as f:
            der_bytes = f.read()
        try:
            xml = convert(der, xer, der_bytes)
        except Exception as e:  # noqa: BLE001 - reported with the file's name
            sys.exit('%s: %s: %s' % (src, type(e).__name__, e))
        with open(dst, 'wb') as f:
            f.write(xml)
        print('%s: %d bytes of DER, %d of XER' % (src, len(der_bytes), len(xml)))


if __name__ == '__main__':
    main(sys.argv[1:])
