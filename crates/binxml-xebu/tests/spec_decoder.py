#!/usr/bin/env python3
"""An independent Xebu decoder written from docs/xebu.md alone (not from the Rust code).

Usage: spec_decoder.py STREAM.xebu > DUMP

Decodes a stream of messages in one buffer, with the token state kept across messages, and
prints one line per event; strings are printed as the hex of their UTF-8 bytes so the dump is
exact. The Rust test `spec_decoder` compares this dump with one made from the Rust decoder's
events and the encoder's input.
"""

import struct
import sys

XML_NS = "http://www.w3.org/XML/1998/namespace"


class Err(Exception):
    pass


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def byte(self):
        if self.p >= len(self.d):
            raise Err("end of input at %d" % self.p)
        b = self.d[self.p]
        self.p += 1
        return b

    def take(self, n):
        if self.p + n > len(self.d):
            raise Err("past the end at %d" % self.p)
        s = self.d[self.p:self.p + n]
        self.p += n
        return s

    def num(self, wide=False):
        b = self.byte()
        if b < 0x80:
            return b
        if b < 0xC0:
            return ((b & 0x3F) << 8) | self.byte()
        if b == 0xC0:
            return struct.unpack(">I", self.take(4))[0]
        if b == 0xC1 and wide:
            return struct.unpack(">Q", self.take(8))[0]
        raise Err("bad NUM")

    def string(self):
        return self.take(self.num()).decode("utf-8")

    def varint(self):
        v = 0
        for i in range(10):
            b = self.byte()
            v |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return v
        raise Err("varint too long")


def h(s):
    return s.encode("utf-8").hex()


class Scope:
    def __init__(self):
        self.frames = []  # per open element: list of (prefix, uri)
        self.pending = []

    def derive(self, uri, attribute):
        if uri == "":
            return ""
        if uri == XML_NS:
            return "xml"
        seen = set()
        for frame in reversed(self.frames):
            for prefix, u in reversed(frame):
                if prefix in seen:
                    continue
                seen.add(prefix)
                if u == uri and not (attribute and prefix == ""):
                    return prefix
        return None


def typed(r, d, out):
    t = d & 0xF0
    if t == 0x00:
        out.append("int %d" % r.varint())
    elif t == 0x10:
        out.append("int %d" % (-1 - r.varint()))
    elif t == 0x20:
        out.append("bool false")
    elif t == 0x30:
        out.append("bool true")
    elif t == 0x40:
        out.append("float %s" % r.take(4).hex())
    elif t == 0x50:
        out.append("double %s" % r.take(8).hex())
    elif t == 0x60:
        out.append("base64 %s" % r.take(r.num()).hex())
    elif t == 0x70:
        out.append("hex %s" % r.take(r.num()).hex())
    elif t == 0x80:
        out.append("uuid %s" % r.take(16).hex())
    elif t == 0x90:
        f = r.byte()
        s = ""
        if f & 0x01:
            y = r.num(True)
            m = r.byte()
            dd = r.byte()
            s += ("-" if f & 0x20 else "") + "%04d-%02d-%02d" % (y, m, dd)
            if f & 0x02:
                s += "T"
        if f & 0x02:
            hh, mm, ss = r.take(3)
            s += "%02d:%02d:%02d" % (hh, mm, ss)
            if f & 0x04:
                n = r.byte()
                v = r.num(True)
                s += "." + str(v).rjust(n, "0")
        if f & 0x08:
            s += "Z"
        elif f & 0x10:
            o = struct.unpack(">h", r.take(2))[0]
            s += "%s%02d:%02d" % ("-" if o < 0 else "+", abs(o) // 60, abs(o) % 60)
        out.append("datetime %s" % h(s))
    elif t == 0xA0:
        out.append("number %s" % h(r.string()))
    elif t == 0xB0:
        out.append("null")
    elif t == 0xC0:
        n = r.num()
        out.append("list %d" % n)
        for _ in range(n):
            typed(r, r.byte(), out)
    elif t == 0xD0:
        out.append("datetime %s" % h(r.string()))
    else:
        raise Err("bad typed subtype")


def opt(r, n):
    p = r.byte()
    name = r.string()
    vals = [r.string() if p & (1 << i) else None for i in range(n)]
    return name, vals


def o(v):
    return "-" if v is None else h(v)


def decode(data):
    r = Reader(data)
    ns, names, values, content = {}, {}, {}, {}
    out = []
    while r.p < len(data):
        d = r.byte()
        if d & 0x0F != 0x1:
            raise Err("no document start at %d" % (r.p - 1))
        if d & 0x10:
            ns, names, values, content = {}, {}, {}, {}
        if d & 0x40:
            r.num(True)
        version = encoding = standalone = None
        if d & 0x20:
            p = r.byte()
            if p & 0x01:
                version = r.string()
            elif p & 0x10:
                version = "1.0"
            if p & 0x02:
                encoding = r.string()
            elif p & 0x20:
                encoding = "UTF-8"
            if p & 0x04:
                standalone = "yes" if p & 0x08 else "no"
        out.append("SD %s %s %s" % (o(version), o(encoding), standalone or "-"))
        scope = Scope()
        queued = []
        while True:
            d = r.byte()
            c, f, sel = d & 0x0F, d & 0xF0, d & 0xC0
            if c == 0x0:
                out.append("ED")
                break
            elif c == 0x2:
                if sel == 0x40:
                    uri = ns[r.byte()]
                else:
                    t = r.byte()
                    uri = r.string()
                    ns[t] = uri
                prefix = r.string()
                scope.pending.append((prefix, uri))
                queued.append("NS %s %s" % (h(prefix), h(uri)))
            elif c in (0x3, 0x5):
                if c == 0x5 and sel == 0xC0:
                    uri, local, value = values[r.byte()]
                    prefix = scope.derive(uri, True)
                    out.append("AT %s %s %s %s" % (h(prefix), h(uri), h(local), h(value)))
                    continue
                if sel == 0x80:
                    uri, local = names[r.byte()]
                else:
                    if sel == 0x40:
                        uri = ns[r.byte()]
                    else:
                        t = r.byte()
                        uri = r.string()
                        ns[t] = uri
                    t = r.byte()
                    local = r.string()
                    names[t] = (uri, local)
                if c == 0x3:
                    scope.frames.append(scope.pending)
                    scope.pending = []
                prefix = r.string() if f & 0x10 else scope.derive(uri, c == 0x5)
                if prefix is None:
                    raise Err("no prefix")
                if c == 0x3:
                    out.append("SE %s %s %s" % (h(prefix), h(uri), h(local)))
                    out.extend(queued)
                    queued = []
                else:
                    tok = r.byte() if f & 0x20 else None
                    value = r.string()
                    if tok is not None:
                        values[tok] = (uri, local, value)
                    out.append("AT %s %s %s %s" % (h(prefix), h(uri), h(local), h(value)))
            elif c == 0x4:
                scope.frames.pop()
                out.append("EE")
            elif c == 0x7:
                if sel == 0xC0:
                    text = content[r.byte()]
                elif f & 0x20:
                    t = r.byte()
                    text = r.string()
                    content[t] = text
                else:
                    text = r.string()
                out.append("TX %d %s" % (1 if f & 0x10 else 0, h(text)))
            elif c == 0xC:
                parts = []
                typed(r, d, parts)
                out.append("TY " + " | ".join(parts))
            elif c == 0xF:
                if f == 0x00:
                    target = r.string()
                    out.append("PI %s %s" % (h(target), h(r.string())))
                elif f == 0x10:
                    out.append("CM %s" % h(r.string()))
                elif f == 0x20:
                    name, v = opt(r, 2)
                    out.append("ER %s %s %s" % (h(name), o(v[0]), o(v[1])))
                elif f == 0x30:
                    name, v = opt(r, 3)
                    out.append("DT %s %s %s %s" % (h(name), o(v[0]), o(v[1]), o(v[2])))
                elif f == 0x40:
                    name, v = opt(r, 2)
                    out.append("NT %s %s %s" % (h(name), o(v[0]), o(v[1])))
                elif f == 0x50:
                    name, v = opt(r, 1)
                    system = r.string()
                    notation = r.string()
                    out.append("UE %s %s %s %s" % (h(name), o(v[0]), h(system), h(notation)))
                else:
                    raise Err("bad special")
            else:
                raise Err("bad discriminator 0x%02X at %d" % (d, r.p - 1))
    return out


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as fh:
        data = fh.read()
    sys.stdout.write("\n".join(decode(data)) + "\n")
