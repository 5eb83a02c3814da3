#!/usr/bin/env python3
"""Runs the test binaries that `cargo test --no-run --message-format=json` built, several at a
time, the way `cargo test` runs them one after another: each from its package's directory, with
the package's CARGO_* variables set. Part of scripts/test.

Many of the suite's binaries spend most of their time in one test that waits on an oracle (a
Python or Java process answering line by line), which keeps one core of two busy; running two
binaries at once uses the other. Each binary's output is printed in one piece when it ends, with
its time; the run fails if any binary fails, and lists them.

Usage: run-test-binaries.py CARGO_JSON_MESSAGES [--jobs N] [-- ARGS FOR EVERY BINARY]
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time


def binaries(messages_path):
    """The test executables in the order cargo built them, with their packages' directories."""
    out, seen = [], set()
    with open(messages_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            m = json.loads(line)
            if m.get("reason") != "compiler-artifact" or not m.get("executable"):
                continue
            if not m.get("profile", {}).get("test"):
                continue
            exe = m["executable"]
            if exe in seen:
                continue
            seen.add(exe)
            target = m["target"]
            kind = "unittests" if "lib" in target["kind"] or "bin" in target["kind"] else "tests"
            out.append(
                {
                    "exe": exe,
                    "dir": os.path.dirname(m["manifest_path"]),
                    "package": m["package_id"],
                    "name": f"{kind} {target['src_path']}",
                }
            )
    return out


def package_env(b):
    """What cargo sets when it runs a test binary (the ones tests read at run time)."""
    env = dict(os.environ)
    env["CARGO_MANIFEST_DIR"] = b["dir"]
    env["CARGO_MANIFEST_PATH"] = os.path.join(b["dir"], "Cargo.toml")
    pid = b["package"]
    # "path+file:///dir/crate#name@version" or "path+file:///dir/crate#version"
    frag = pid.rsplit("#", 1)[-1]
    name, _, version = frag.rpartition("@")
    if not name:
        name = os.path.basename(b["dir"])
    env["CARGO_PKG_NAME"] = name
    env["CARGO_PKG_VERSION"] = version
    return env


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        k = args.index("--")
        args, extra = args[:k], args[k + 1 :]
    jobs = max(2, os.cpu_count() or 2)
    if "--jobs" in args:
        k = args.index("--jobs")
        jobs = int(args[k + 1])
        del args[k : k + 2]
    todo = binaries(args[0])
    if not todo:
        print("run-test-binaries: no test binaries in the messages", file=sys.stderr)
        return 1
    lock = threading.Lock()
    failed = []
    start = time.monotonic()

    def run(b):
        t = time.monotonic()
        with tempfile.TemporaryFile() as log:
            code = subprocess.call(
                [b["exe"], *extra],
                cwd=b["dir"],
                env=package_env(b),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            log.seek(0)
            text = log.read().decode("utf-8", "replace")
        with lock:
            print(f"     Running {b['name']} ({b['exe']}): {time.monotonic() - t:.1f} s", flush=True)
            sys.stdout.write(text)
            sys.stdout.flush()
            if code != 0:
                failed.append(f"{b['name']} (exit status {code})")

    queue = list(todo)

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                b = queue.pop(0)
            run(b)

    threads = [threading.Thread(target=worker) for _ in range(min(jobs, len(todo)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(
        f"run-test-binaries: {len(todo)} binaries, {jobs} at a time, "
        f"{time.monotonic() - start:.0f} s; {len(failed)} failed",
        file=sys.stderr,
    )
    for f in failed:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
