# Shared by the scripts: make sure the tools they need are there, installing what is missing.

ensure_rust() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: installing Debian's rust toolchain" >&2
    as_root apt-get update -qq && as_root apt-get install -y -qq cargo rustc >/dev/null
  fi
}

ensure_python() {
  if ! command -v python3 >/dev/null 2>&1; then
    as_root apt-get update -qq && as_root apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
  fi
}

# The project's own Python environment, target/venv (created with `python3 -m venv`): the tests'
# Python tools are installed there, never into the system's Python. Exports BINXML_PYTHON, the
# interpreter the tests start (binxml-testkit's `python()`; without the variable the tests use
# target/venv when it exists, else python3).
ensure_venv() {
  ensure_python
  local venv
  venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/venv"
  if ! "$venv/bin/python3" -c 'import pip' >/dev/null 2>&1; then
    if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
      echo "python3 cannot create virtual environments: installing python3-venv" >&2
      as_root apt-get update -qq && as_root apt-get install -y -qq python3-venv >/dev/null
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  export BINXML_PYTHON="$venv/bin/python3"
  export PIP_DISABLE_PIP_VERSION_CHECK=1
}

ensure_valgrind() {
  if ! command -v valgrind >/dev/null 2>&1; then
    as_root apt-get update -qq && as_root apt-get install -y -qq valgrind >/dev/null
  fi
}

# xmlsec1 (the XML Signature peer of crates/binxml-sign's interop tests) and openssl (the keys
# and certificates those tests make).
ensure_xmlsec1() {
  if ! command -v xmlsec1 >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
    as_root apt-get update -qq && as_root apt-get install -y -qq xmlsec1 openssl >/dev/null
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# What scripts/build-web needs: Rust's wasm32 target and the wasm-bindgen command of the very
# version of the wasm-bindgen crate in Cargo.lock (the two must match exactly).
ensure_wasm_tools() {
  ensure_rust
  if command -v rustup >/dev/null 2>&1; then
    rustup target list --installed | grep -qx wasm32-unknown-unknown ||
      rustup target add wasm32-unknown-unknown
  fi
  local root version
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock")
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    echo "installing wasm-bindgen-cli $version" >&2
    cargo install --quiet wasm-bindgen-cli --version "$version"
  fi
}

# Debian's headless Chromium and its WebDriver, for the web page's test (scripts/test-web).
ensure_chromium() {
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    as_root apt-get update -qq && as_root apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}
