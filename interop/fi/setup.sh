#!/usr/bin/env bash
# Idempotent setup for the Fast Infoset interop tests: fetches the Java reference
# (com.sun.xml.fastinfoset:FastInfoset:2.1.1) with Maven into interop/.cache/ and compiles
# the driver FiDriver.java into interop/.cache/fi-classes/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/../.cache"
mkdir -p "$cache/fi-jars" "$cache/fi-classes"
jar="$cache/fi-jars/FastInfoset-2.1.1.jar"
if [ ! -s "$jar" ]; then
  # Batch mode, no progress and no colour; Debian's Maven 3.8 still writes an ANSI reset code
  # at start and exit unless jansi is told not to (jansi.noreset, a JVM property).
  MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true" \
  mvn -q -B --no-transfer-progress -Dstyle.color=never -Dmaven.repo.local="$cache/m2" \
    org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact=com.sun.xml.fastinfoset:FastInfoset:2.1.1:jar \
    -DoutputDirectory="$cache/fi-jars" >&2
fi
test -s "$jar"
stamp="$cache/fi-classes/.stamp"
if [ ! -f "$stamp" ] || [ "$here/FiDriver.java" -nt "$stamp" ]; then
  javac -nowarn -cp "$jar" -d "$cache/fi-classes" "$here/FiDriver.java" >&2
  touch "$stamp"
fi
echo "fi interop ready: $jar"
