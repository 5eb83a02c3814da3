#!/usr/bin/env python3
"""Writes fuzz/seeds/decode_exi_reuse/ from fuzz/seeds/decode_exi/: for each option selector,
pairs of its streams joined as selector + k + first + second, with k the cut octet of
`binxml_fuzz::decode_exi_reuse` that falls nearest the end of the first stream (and the same
pair with k odd, so that the first stream is also left part-way). Run from the repository
root after the decode_exi seeds change (crates/binxml-exi/tests/hostile.rs, write_fuzz_seeds)."""

import os
import shutil

src, dst = "fuzz/seeds/decode_exi", "fuzz/seeds/decode_exi_reuse"
shutil.rmtree(dst, ignore_errors=True)
os.makedirs(dst)
by_sel = {}
for name in sorted(os.listdir(src), key=lambda s: int(s[4:].split("-")[0])):
    data = open(os.path.join(src, name), "rb").read()
    if len(data) > 3:
        by_sel.setdefault(data[:3], []).append(data[3:])
n = 0
for sel, streams in by_sel.items():
    for a, b in zip(streams, streams[1:] + streams[:1]):
        if len(a) + len(b) > 2048:
            continue
        total = len(a) + len(b)
        k = min(range(256), key=lambda k: abs(total * k // 256 - len(a)))
        for kk in (k, k | 1):
            n += 1
            with open(os.path.join(dst, f"seed{n}"), "wb") as f:
                f.write(sel + bytes([kk]) + a + b)
print(f"{n} decode_exi_reuse seeds")
