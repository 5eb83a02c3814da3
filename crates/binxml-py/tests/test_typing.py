"""The type stubs (python/binxml/__init__.pyi) describe the package: mypy --strict accepts a
sample of typical uses, and every public name has a stub and a docstring."""

import inspect
import pathlib
import subprocess
import sys

import pytest

import binxml

HERE = pathlib.Path(__file__).resolve().parent


def test_mypy_accepts_the_sample():
    pytest.importorskip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(HERE / "typing_sample.py")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_public_name_has_a_stub_and_a_docstring():
    stub = (pathlib.Path(binxml.__file__).parent / "__init__.pyi").read_text()
    for name in binxml.__all__:
        obj = getattr(binxml, name)
        if name != "__version__":
            assert f"def {name}(" in stub or f"class {name}(" in stub or f"class {name}:" in stub, name
            assert inspect.getdoc(obj), name
