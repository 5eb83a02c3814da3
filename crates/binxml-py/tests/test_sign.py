"""Signatures from Python: XML Signature and CMS round trips, tampering, refusals."""

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
