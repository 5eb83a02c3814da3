#!/usr/bin/env bash
# Installs the independent ASN.1 oracle (PyPI asn1tools, pinned) for crates/binxml-asn1's
# interop tests into the project's virtual environment, target/venv (created when missing; the
# tests run its Python). Idempotent: does nothing when the pinned version is already importable.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../../scripts/lib.sh"
ensure_venv
py="$BINXML_PYTHON"
ASN1TOOLS_VERSION=0.169.0
# pycrate: second opinion (decode only) where asn1tools cannot decode fragmented counts
PYCRATE_VERSION=0.8.1
if "$py" -c "import asn1tools, pycrate_asn1c, importlib.metadata as m; assert m.version('asn1tools') == '$ASN1TOOLS_VERSION' and m.version('pycrate') == '$PYCRATE_VERSION'" 2>/dev/null; then
  exit 0
fi
cache="$here/../.cache/pip"
mkdir -p "$cache"
"$py" -m pip install --quiet --cache-dir "$cache" "asn1tools==$ASN1TOOLS_VERSION" "pycrate==$PYCRATE_VERSION"
"$py" -c "import asn1tools, pycrate_asn1c"
