"""XebuS from Python: a RELAX NG schema's omission automata, both ways."""

import pathlib
import xml.etree.ElementTree as ET

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCHEMAS = ROOT / "crates" / "binxml-xebu" / "schemas"
MESSAGES = sorted((ROOT / "tests" / "schemas" / "relaxng" / "notify").glob("message*.xml"))


@pytest.mark.parametrize("schema_file", ["notify.rnc", "notify.rng"])
def test_xebus_round_trip_and_size(schema_file):
    schema = binxml.XebuSchema(SCHEMAS / schema_file)
    assert MESSAGES
    for msg in MESSAGES:
        xml = msg.read_bytes()
        plain = binxml.convert(xml, "xebu")
        omitted = binxml.convert(xml, "xebu", xebu_schema=schema)
        assert len(omitted) < len(plain), msg.name
        back = binxml.convert(omitted, "xml", from_="xebu", xebu_schema=schema)
        assert ET.canonicalize(back.decode()) == ET.canonicalize(xml.decode()), msg.name
        # Without the schema the stream is refused, not misread.
        with pytest.raises(binxml.BinxmlError):
            binxml.convert(omitted, "xml", from_="xebu")


def test_a_missing_schema_file_is_an_error(tmp_path):
    with pytest.raises(binxml.BinxmlError):
        binxml.XebuSchema(tmp_path / "nothing.rnc")
