"""Signatures from Python: XML Signature and CMS round trips, tampering, refusals."""

import os
import pathlib
import subprocess

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
CERT_DOC = ROOT / "tests" / "sign" / "ac-prescription.xml"


@pytest.fixture(scope="module", params=["rsa:2048", "ec"])
def keypair(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    args = ["openssl", "req", "-x509", "-newkey", request.param]
    if request.param == "ec":
        args += ["-pkeyopt", "ec_paramgen_curve:P-256"]
    args += ["-nodes", "-days", "2", "-subj", "/CN=python test",
             "-keyout", str(d / "k.pem"), "-out", str(d / "c.pem")]
    subprocess.run(args, check=True, capture_output=True)
    return (d / "k.pem").read_text(), (d / "c.pem").read_text()


def test_xml_signature_round_trip_and_tamper(keypair):
    key, cert = keypair
    doc = CERT_DOC.read_bytes()
    signed = binxml.sign_xml(doc, key, cert, c14n="c14n", digest="sha384")
    v = binxml.verify_xml(signed, cert)
    assert v["covers_document"] and v["references"] == [""]
    assert v["signature_method"].endswith("sha384")
    assert v["certificate"] is None
    assert binxml.verify_xml(signed)["certificate"] == "CN=python test"
    with pytest.raises(binxml.BinxmlError, match="digest"):
        binxml.verify_xml(signed.replace(b">21<", b">22<"), cert)
    by_id = binxml.sign_xml(doc, key, cert, id="aci-prescription")
    with pytest.raises(binxml.BinxmlError, match="document element"):
        binxml.verify_xml(by_id, cert)
    assert binxml.verify_xml(by_id, cert, allow_partial=True)["references"] == ["#aci-prescription"]


def test_c14n11_and_enveloping(keypair):
    key, cert = keypair
    doc = CERT_DOC.read_bytes()
    for c14n in ("c14n11", "c14n11-comments"):
        assert binxml.verify_xml(binxml.sign_xml(doc, key, cert, c14n=c14n), cert)["covers_document"]
    env = binxml.sign_xml(doc, key, cert, enveloping="content")
    assert env.index(b"<ds:Signature") < env.index(b"<ds:Object")
    v = binxml.verify_xml(env, cert)
    assert v["covers_document"] and v["references"] == ["#content"]
    with pytest.raises(binxml.BinxmlError, match="digest"):
        binxml.verify_xml(env.replace(b">21<", b">22<"), cert)
    with pytest.raises(ValueError):
        binxml.sign_xml(doc, key, cert, id="x", enveloping="y")


def test_cms_over_a_binary_document(keypair):
    key, cert = keypair
    fi = binxml.convert(CERT_DOC.read_bytes(), "fi")
    p7s = binxml.sign_cms(fi, key, cert)
    assert binxml.verify_cms(p7s, cert) == fi
    detached = binxml.sign_cms(fi, key, cert, detached=True)
    assert binxml.verify_cms(detached, content=fi) == fi
    changed = bytearray(fi)
    changed[-5] ^= 1
    with pytest.raises(binxml.BinxmlError):
        binxml.verify_cms(detached, cert, content=bytes(changed))
    with pytest.raises(binxml.BinxmlError):
        binxml.verify_cms(p7s[:-3], cert)


def test_detached_signature_and_rsa_pss(keypair, tmp_path):
    key, cert = keypair
    data = bytes(range(256)) * 10
    sig = binxml.sign_xml(data, key, cert, detached="data.bin", digest="sha512")
    assert b'URI="data.bin"' in sig
    v = binxml.verify_xml(sig, cert, content=data)
    assert v["detached"] and v["references"] == ["data.bin"]
    with pytest.raises(binxml.BinxmlError, match="digest"):
        binxml.verify_xml(sig, cert, content=data[:-1] + b"x")
    # Without the data: refused, never fetched.
    with pytest.raises(binxml.BinxmlError, match="never fetched"):
        binxml.verify_xml(sig, cert)
    # xmlsec1 agrees, the file named through --url-map.
    (tmp_path / "sig.xml").write_bytes(sig)
    (tmp_path / "data.bin").write_bytes(data)
    (tmp_path / "c.pem").write_text(cert)
    ok = subprocess.run(["xmlsec1", "--verify", "--pubkey-cert-pem", str(tmp_path / "c.pem"),
                         "--url-map:data.bin", str(tmp_path / "data.bin"),
                         str(tmp_path / "sig.xml")], capture_output=True)
    assert ok.returncode == 0, ok.stderr
    doc = CERT_DOC.read_bytes()
    is_rsa = "#rsa-" in binxml.verify_xml(binxml.sign_xml(doc, key, cert), cert)["signature_method"]
    if not is_rsa:
        with pytest.raises(binxml.BinxmlError, match="RSA"):
            binxml.sign_xml(doc, key, cert, rsa_pss=True)
    else:
        pss = binxml.sign_xml(doc, key, cert, rsa_pss=True)
        assert binxml.verify_xml(pss, cert)["signature_method"].endswith("sha256-rsa-MGF1")
        with pytest.raises(binxml.BinxmlError):
            binxml.verify_xml(pss.replace(b">21<", b">22<"), cert)


# Schema-informed EXI messages signed over Canonical EXI (ISO 15118's form): the receipt of
# the library's and the command line's tests, in the schema that imports the XML Signature one.
METER_XSD = ROOT / "tests" / "sign" / "exi" / "meter.xsd"
RECEIPT = ROOT / "tests" / "sign" / "exi" / "receipt.xml"


@pytest.fixture(scope="module")
def meter():
    return binxml.Schema(METER_XSD)


def _message(meter, exi=None):
    return binxml.convert(RECEIPT.read_bytes(), "exi", exi=exi, schema=meter)


def _other_key(tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384",
                    "-nodes", "-days", "2", "-subj", "/CN=someone else",
                    "-keyout", str(tmp_path / "o.pem"), "-out", str(tmp_path / "oc.pem")],
                   check=True, capture_output=True)
    return (tmp_path / "o.pem").read_text(), (tmp_path / "oc.pem").read_text()


def test_exi_message_signed_over_canonical_exi(keypair, meter, tmp_path):
    key, cert = keypair
    message = _message(meter)
    signed = binxml.sign_exi(message, key, schema=meter)
    v = binxml.verify_exi(signed, cert, schema=meter)
    assert v["references"] == ["#id1"] and v["elements"] == ["MeteringReceipt"]
    assert v["signature_method"].endswith(("#rsa-sha256", "#ecdsa-sha256")), v
    assert v["certificate"] is None
    # The signed message is EXI of the schema, the signature in the Header, beside the body.
    root = binxml.fromstring(binxml.convert(signed, "xml", schema=meter))
    ds = "{http://www.w3.org/2000/09/xmldsig#}"
    header = root.find("{urn:binxml:test:meter}Header")
    assert header.find(ds + "Signature/" + ds + "SignatureValue") is not None
    # A path for the schema; the certificate in KeyInfo, used when none is given.
    with_cert = binxml.sign_exi(message, key, cert, schema=str(METER_XSD), digest="sha512")
    v = binxml.verify_exi(with_cert, schema=meter)
    assert v["certificate"] == "CN=python test" and v["signature_method"].endswith("sha512")
    assert binxml.verify_exi(with_cert, cert, schema=METER_XSD)["elements"] == ["MeteringReceipt"]

    # One bit changed a quarter in (inside the signature): refused.
    changed = bytearray(signed)
    changed[len(changed) // 4] ^= 0x10
    with pytest.raises(binxml.BinxmlError):
        binxml.verify_exi(bytes(changed), cert, schema=meter)
    # A value changed and the message encoded again (well-formed, so the digest is what fails).
    xml = binxml.convert(signed, "xml", schema=meter)
    assert xml.count(b"1234567") == 1
    edited = binxml.convert(xml.replace(b"1234567", b"1234568"), "exi", schema=meter)
    with pytest.raises(binxml.BinxmlError, match="digest"):
        binxml.verify_exi(edited, cert, schema=meter)
    # Another key: refused.
    _, other_cert = _other_key(tmp_path)
    with pytest.raises(binxml.BinxmlError):
        binxml.verify_exi(signed, other_cert, schema=meter)


def _receipt_events(message, meter):
    """The events of the signed MeteringReceipt, less whitespace-only text (which Canonical EXI
    drops from element content)."""
    out, depth = [], 0
    for ev in binxml.events(binxml.convert(message, "fi", schema=meter)):
        if depth == 0 and not (ev[0] == "start" and ev[2] == "MeteringReceipt"):
            continue
        depth += {"start": 1, "end": -1}.get(ev[0], 0)
        if not (ev[0] == "text" and not ev[1].strip()):
            out.append(ev)
    return out


def test_exi_signature_every_bit(keypair, meter):
    """Each bit of a signed message flipped in turn: a changed message verifies only where the
    change is outside the receipt the signature covers (the header's session id, the whitespace
    between unsigned elements), and then the receipt decodes unchanged."""
    key, cert = keypair
    signed = binxml.sign_exi(_message(meter), key, schema=meter)
    receipt = _receipt_events(signed, meter)
    assert len(receipt) > 20
    refused = 0
    for bit in range(len(signed) * 8):
        changed = bytearray(signed)
        changed[bit // 8] ^= 0x80 >> (bit % 8)
        try:
            binxml.verify_exi(bytes(changed), cert, schema=meter)
        except binxml.BinxmlError:
            refused += 1
            continue
        assert _receipt_events(bytes(changed), meter) == receipt, bit
    # Most of a message is its signature and the receipt.
    assert refused > 0.9 * len(signed) * 8, (refused, len(signed) * 8)


def test_exi_signature_options_and_refusals(keypair, meter, tmp_path):
    key, cert = keypair
    # The message's own EXI options (compression here) are the caller's, as for convert; the
    # canonical form of what is signed does not depend on them.
    packed = _message(meter, exi="compression")
    signed = binxml.sign_exi(packed, key, schema=meter, exi="compression", id="id1",
                             signature_in="{urn:binxml:test:meter}Header")
    assert binxml.verify_exi(signed, cert, schema=meter, exi="compression")["references"] == ["#id1"]
    with pytest.raises(binxml.BinxmlError):
        binxml.verify_exi(signed, cert, schema=meter)
    message = _message(meter)
    # No schema: a plain ValueError naming the argument, before anything is decoded.
    for call in (lambda: binxml.sign_exi(message, key), lambda: binxml.verify_exi(message, cert)):
        with pytest.raises(ValueError, match="schema=") as e:
            call()
        assert not isinstance(e.value, binxml.BinxmlError)
    # A schema without the XML Signature schema has no grammars for SignedInfo.
    plain = tmp_path / "plain.xsd"
    plain.write_text(
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:binxml:test:meter">'
        '<xs:element name="Message" type="xs:anyType"/></xs:schema>')
    with pytest.raises(binxml.BinxmlError, match="XML Signature schema"):
        binxml.sign_exi(message, key, schema=plain)
    with pytest.raises(binxml.BinxmlError, match="no element Trailer"):
        binxml.sign_exi(message, key, schema=meter, signature_in="Trailer")
    with pytest.raises(binxml.BinxmlError, match="give id="):
        binxml.sign_exi(message, key, schema=meter, signature_in="Body")
    with pytest.raises(binxml.BinxmlError, match="id2"):
        binxml.sign_exi(message, key, schema=meter, id="id2")
    with pytest.raises(binxml.BinxmlError, match="no ds:Signature"):
        binxml.verify_exi(message, cert, schema=meter)
    with pytest.raises(binxml.BinxmlError, match="already has"):
        binxml.sign_exi(binxml.sign_exi(message, key, schema=meter), key, schema=meter)
    with pytest.raises(ValueError, match="digest"):
        binxml.sign_exi(message, key, schema=meter, digest="sha1")
    other_key, _ = _other_key(tmp_path)
    with pytest.raises(binxml.BinxmlError):
        binxml.sign_exi(message, other_key, cert, schema=meter)


def _cli():
    """The binxml command: BINXML_CLI (scripts/test-python builds it and sets it), else a debug
    build in the target directory. Required in CI; the test is skipped without one elsewhere."""
    if os.environ.get("BINXML_CLI"):
        return os.environ["BINXML_CLI"]
    for d in (os.environ.get("CARGO_TARGET_DIR"), ROOT / "target"):
        if d and (pathlib.Path(d) / "debug" / "binxml").is_file():
            return str(pathlib.Path(d) / "debug" / "binxml")
    if os.environ.get("CI"):
        pytest.fail("no binxml command: set BINXML_CLI")
    pytest.skip("no binxml command: set BINXML_CLI or build binxml-cli")


@pytest.mark.parametrize("exi", [None, "compression"])
def test_exi_signature_crosses_the_command_line(keypair, meter, tmp_path, exi):
    cli = _cli()
    key, cert = keypair
    (tmp_path / "k.pem").write_text(key)
    (tmp_path / "c.pem").write_text(cert)
    message = tmp_path / "receipt.exi"
    message.write_bytes(_message(meter, exi=exi))
    exi_args = ["--exi", exi] if exi else []

    # Signed in Python, verified by `binxml verify`.
    py_signed = binxml.sign_exi(message.read_bytes(), key, schema=meter, exi=exi)
    (tmp_path / "py.exi").write_bytes(py_signed)
    r = subprocess.run([cli, "verify", str(tmp_path / "py.exi"), "--schema", str(METER_XSD),
                        "--cert", str(tmp_path / "c.pem")] + exi_args, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "over Canonical EXI by the key of CN=python test" in r.stdout, r.stdout
    assert "covering the element MeteringReceipt" in r.stdout, r.stdout
    changed = bytearray(py_signed)
    changed[len(changed) // 4] ^= 0x10
    (tmp_path / "changed.exi").write_bytes(bytes(changed))
    r = subprocess.run([cli, "verify", str(tmp_path / "changed.exi"), "--schema", str(METER_XSD),
                        "--cert", str(tmp_path / "c.pem")] + exi_args, capture_output=True, text=True)
    assert r.returncode == 1 and "not valid" in r.stdout, r.stdout + r.stderr

    # Signed by `binxml sign`, verified in Python.
    r = subprocess.run([cli, "sign", str(message), "--schema", str(METER_XSD),
                        "--key", str(tmp_path / "k.pem"), "-o", str(tmp_path / "cli.exi")] + exi_args,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli_signed = (tmp_path / "cli.exi").read_bytes()
    v = binxml.verify_exi(cli_signed, cert, schema=meter, exi=exi)
    assert v["references"] == ["#id1"] and v["elements"] == ["MeteringReceipt"]
    if "#rsa-" in v["signature_method"]:
        # RSA PKCS#1 v1.5 is deterministic: the two paths give the same message byte for byte
        # (ECDSA's signature values are randomized).
        assert cli_signed == py_signed
