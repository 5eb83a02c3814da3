#!/usr/bin/env bash
# Installs the XML Schema oracle for the schema work (issue 22) into the project's virtual
# environment, target/venv (created when missing; the tests run its Python): PyPI xmlschema
# (pure Python, XSD 1.0 and 1.1, validation with the path and line of the first error) and its
# XPath engine elementpath, pinned; lxml (libxml2's validator) as the second opinion that
# interop/xsd/validate.py consults with "--lxml". Idempotent: does nothing when the pinned
# versions are already importable.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../../scripts/lib.sh"
ensure_venv
py="$BINXML_PYTHON"
XMLSCHEMA_VERSION=4.3.2
ELEMENTPATH_VERSION=5.1.4
LXML_VERSION=6.1.3
if "$py" -c "import xmlschema, elementpath, lxml, importlib.metadata as m; assert (m.version('xmlschema'), m.version('elementpath'), m.version('lxml')) == ('$XMLSCHEMA_VERSION', '$ELEMENTPATH_VERSION', '$LXML_VERSION')" 2>/dev/null; then
  exit 0
fi
cache="$here/../.cache/pip"
mkdir -p "$cache"
"$py" -m pip install --quiet --cache-dir "$cache" \
  "xmlschema==$XMLSCHEMA_VERSION" "elementpath==$ELEMENTPATH_VERSION" "lxml==$LXML_VERSION"
"$py" -c "import xmlschema, elementpath, lxml.etree"
