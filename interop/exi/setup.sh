#!/usr/bin/env bash
# Idempotent setup for the EXI interop oracle: fetches EXIficient 1.0.7 and its runtime
# dependencies (interop/exi/pom.xml: exificient, exificient-core, exificient-grammars,
# xercesImpl, xml-apis, ...) with Maven into interop/.cache/exi-jars/ and compiles the driver
# ExiDriver.java into interop/.cache/exi-classes/. Needs a JDK (javac, java) and Maven, as
# interop/fi/setup.sh does.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$(cd "$here/.." && pwd)/.cache"
jars="$cache/exi-jars"
classes="$cache/exi-classes"
for tool in mvn javac; do
  command -v "$tool" >/dev/null 2>&1 || { echo "interop/exi/setup.sh: $tool not found (needs a JDK and Maven)" >&2; exit 1; }
done
mkdir -p "$jars" "$classes"
jar="$jars/exificient-1.0.7.jar"
# .stamp lists the jars Maven copied: a missing one (or a newer pom.xml) fetches them again
jstamp="$jars/.stamp"
complete() {
  [ -s "$jar" ] && [ -s "$jstamp" ] && [ ! "$here/pom.xml" -nt "$jstamp" ] || return 1
  local j
  while read -r j; do [ -s "$jars/$j" ] || return 1; done <"$jstamp"
}
if ! complete; then
  rm -f "$jars"/*.jar
  # Batch mode, no progress and no colour; Debian's Maven 3.8 still writes an ANSI reset code
  # at start and exit unless jansi is told not to (jansi.noreset, a JVM property).
  MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true" \
  mvn -q -B --no-transfer-progress -Dstyle.color=never -Dmaven.repo.local="$cache/m2" \
    -f "$here/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$jars" >&2
  (cd "$jars" && ls -- *.jar) >"$jstamp"
fi
test -s "$jar"
cp=$(find "$jars" -name '*.jar' | sort | tr '\n' ':')
stamp="$classes/.stamp"
if [ ! -f "$stamp" ] || [ "$here/ExiDriver.java" -nt "$stamp" ] || [ "$jstamp" -nt "$stamp" ]; then
  javac -nowarn -cp "$cp" -d "$classes" "$here/ExiDriver.java" >&2
  touch "$stamp"
fi
echo "exi interop ready: $jars ($(ls "$jars" | grep -c '\.jar$') jars), $classes"
