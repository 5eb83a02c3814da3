#!/usr/bin/env bash
# Measures the Spark job (convert.py, local mode, 1 and 2 executor threads) beside the command
# line's batch mode (`binxml convert DIR --out-dir`, -j1 and -j2) on the same files: every XML
# document of ../shared/corpus (else tests/corpus), copied COPIES times (default 4) into a
# temporary directory, converted to Fast Infoset. Needs pyspark, pyarrow and pandas in
# $PYTHON's environment with binxml installed, and a release build of the command line in
# $BINXML (default target/release/binxml). Prints one line per run: seconds and MB/s of input.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
BINXML=${BINXML:-target/release/binxml}
copies=${COPIES:-4}
src=../shared/corpus
[ -d "$src" ] || src=tests/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for k in $(seq "$copies"); do
  (cd "$src" && find . -name '*.xml' -print0 | while IFS= read -r -d '' f; do
    mkdir -p "$work/in/$k/$(dirname "$f")"; cp "$f" "$work/in/$k/$f"; done)
done
mb=$(du -sb "$work/in" | awk '{print $1 / 1e6}')
n=$(find "$work/in" -name '*.xml' | wc -l)
echo "input: $n XML documents, $mb MB"
for j in 1 2; do
  rm -rf "$work/cli"
  t0=$(date +%s.%N)
  "$BINXML" convert "$work/in" -t fi --out-dir "$work/cli" -j "$j" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v mb="$mb" -v j="$j" 'BEGIN { printf "cli -j%d: %.2f s, %.1f MB/s\n", j, b - a, mb / (b - a) }'
done
for j in 1 2; do
  t0=$(date +%s.%N)
  "$PYTHON" examples/spark/convert.py "$work/in" "$work/spark$j" --to fi --glob '*.xml' --master "local[$j]" 2>/dev/null | tail -1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v mb="$mb" -v j="$j" 'BEGIN { printf "spark local[%d], whole process (JVM start included): %.2f s, %.1f MB/s\n", j, b - a, mb / (b - a) }'
done
