"""examples/spark/convert.py run with pyspark in local mode on the small corpus (tests/corpus):
every row of the Parquet table it writes matches a direct conversion of its file. Skipped
where pyspark, pyarrow, pandas or a Java runtime is missing (scripts/test-python installs them)."""

import importlib.util
import pathlib
import shutil
import sys

import pytest

import binxml

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyspark") is None
    or importlib.util.find_spec("pyarrow") is None
    or importlib.util.find_spec("pandas") is None
    or shutil.which("java") is None,
    reason="needs pyspark, pyarrow, pandas and java",
)


def test_spark_job_matches_direct_conversion(tmp_path, monkeypatch):
    # the Python workers run this interpreter, where binxml is installed
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    sys.path.insert(0, str(ROOT / "examples" / "spark"))
    import convert
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("binxml-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        inp = tmp_path / "in"
        shutil.copytree(CORPUS, inp, ignore=shutil.ignore_patterns("*.py", "*.md"))
        (inp / "broken.xml").write_bytes(b"<a><b></a>")
        out = tmp_path / "out"
        n = convert.run(spark, str(inp), str(out), "fi", glob="*.xml")
    finally:
        spark.stop()
    files = sorted(p for p in inp.rglob("*.xml"))
    assert n == len(files) >= 5
    table = pq.read_table(str(out)).to_pylist()
    assert len(table) == len(files)
    for row in table:
        path = pathlib.Path(row["path"].removeprefix("file:"))
        data = path.read_bytes()
        assert row["input_size"] == len(data)
        assert row["format"] == binxml.detect(data)
        try:
            direct = binxml.convert(data, "fi")
        except binxml.BinxmlError as e:
            assert row["output"] is None and row["error"] == str(e), path
            continue
        assert row["error"] is None, (path, row["error"])
        assert row["output"] == direct, path
        assert row["output_size"] == len(direct)
    assert any(r["error"] for r in table), "the broken document gives a row with its error"
