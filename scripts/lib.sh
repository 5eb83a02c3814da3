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
    as_root apt-get update -qq && as_root apt-get install -y -qq python3 python3-pip >/dev/null
  fi
}

ensure_valgrind() {
  if ! command -v valgrind >/dev/null 2>&1; then
    as_root apt-get update -qq && as_root apt-get install -y -qq valgrind >/dev/null
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
