#!/usr/bin/env bash
# Installs the peers of crates/binxml-sign's interop tests: xmlsec1 (Debian package, the C
# library behind most XML Signature stacks) and openssl (keys and certificates made in the
# tests), and the canonical-XML oracle lxml (libxml2's canonicaliser) in the project's virtual
# environment, target/venv; and asn1tools (interop/asn1/setup.sh), which writes the seed-002
# certificates in X.693 XER for bench/tests/attrcert.rs. Idempotent: installs only what is
# missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../../scripts/lib.sh"
ensure_xmlsec1
ensure_venv
"$here/../asn1/setup.sh"
py="$BINXML_PYTHON"
LXML_VERSION=6.1.3
if "$py" -c "import lxml, importlib.metadata as m; assert m.version('lxml') == '$LXML_VERSION'" 2>/dev/null; then
  exit 0
fi
cache="$here/../.cache/pip"
mkdir -p "$cache"
"$py" -m pip install --quiet --cache-dir "$cache" "lxml==$LXML_VERSION"
"$py" -c "import lxml.etree"
