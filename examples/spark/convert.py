"""Converts a directory of documents (any binxml format) with Apache Spark.

Spark's `binaryFile` source reads every file under the input directory as a row (path, bytes);
`mapInArrow` hands the executors Arrow record batches of those rows, and binxml converts each
document there (in Rust, with the GIL released); the result, one row per input file with its
path, detected format, input size, converted bytes, output size and error (or null), is written
as a Parquet table. A document that fails to convert gives a row with its error, never a failed
job.

    spark-submit examples/spark/convert.py INPUT_DIR OUTPUT_DIR --to fi [--from xml] [--glob '*.xml']
    python examples/spark/convert.py ... --master 'local[2]'      # without a cluster

On a cluster, the executors need binxml: ship the wheel (scripts/test-python builds it into
target/wheels-py/) with the job, e.g. `spark-submit --py-files` does not install wheels, so use
a packed environment (`venv-pack`/`conda-pack` with `--archives env.tar.gz#env` and
`PYSPARK_PYTHON=./env/bin/python`) or install the wheel on every node's Python.
"""

import argparse
import time

SCHEMA_FIELDS = [
    ("path", "string"),
    ("format", "string"),
    ("input_size", "int64"),
    ("output", "binary"),
    ("output_size", "int64"),
    ("error", "string"),
]


def spark_schema():
    return ", ".join(f"{n} {'bigint' if t == 'int64' else t}" for n, t in SCHEMA_FIELDS)


def converter(to, from_=None, indent=None):
    """The function `mapInArrow` runs on the executors: record batches of (path, content) in,
    record batches of SCHEMA_FIELDS out."""

    def convert_batches(batches):
        import pyarrow as pa

        import binxml

        schema = pa.schema([(n, getattr(pa, t)()) for n, t in SCHEMA_FIELDS])
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content").to_pylist()
            cols = {n: [] for n, _ in SCHEMA_FIELDS}
            for path, data in zip(paths, contents):
                fmt = from_ or binxml.detect(data)
                try:
                    out = binxml.convert(data, to, from_=fmt, indent=indent)
                    err = None
                except (binxml.BinxmlError, ValueError) as e:
                    out, err = None, str(e)
                cols["path"].append(path)
                cols["format"].append(fmt)
                cols["input_size"].append(len(data))
                cols["output"].append(out)
                cols["output_size"].append(None if out is None else len(out))
                cols["error"].append(err)
            yield pa.RecordBatch.from_pydict(cols, schema=schema)

    return convert_batches


def run(spark, input_dir, output_dir, to, from_=None, glob=None):
    """Reads every file under `input_dir`, converts it to `to` and writes the Parquet table to
    `output_dir`; returns the number of rows written."""
    reader = spark.read.format("binaryFile").option("recursiveFileLookup", "true")
    if glob:
        reader = reader.option("pathGlobFilter", glob)
    files = reader.load(input_dir).select("path", "content")
    out = files.mapInArrow(converter(to, from_), spark_schema())
    out.write.mode("overwrite").parquet(output_dir)
    return spark.read.parquet(output_dir).count()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--to", required=True, help="output format (binxml.formats())")
    ap.add_argument("--from", dest="from_", help="input format (detected per file when absent)")
    ap.add_argument("--glob", help="only files whose name matches, e.g. '*.xml'")
    ap.add_argument("--master", help="e.g. local[2]; spark-submit's when absent")
    a = ap.parse_args()
    import os
    import sys

    from pyspark.sql import SparkSession

    # local mode: the Python workers run this interpreter (where binxml is installed)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    b = SparkSession.builder.appName("binxml-convert")
    if a.master:
        b = b.master(a.master)
    spark = b.getOrCreate()
    t = time.perf_counter()
    n = run(spark, a.input, a.output, a.to, a.from_, a.glob)
    print(f"{n} documents in {time.perf_counter() - t:.2f} s")
    spark.stop()


if __name__ == "__main__":
    main()
