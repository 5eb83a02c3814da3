#!/usr/bin/env python3
"""Writes binxml's small test corpus: tests/corpus/gen/ (XML) and tests/corpus/json/ (JSON).

The tests use this corpus when ../shared/corpus (47 MB of real documents by others) is not beside
the repository, or when BINXML_CORPUS=small asks for it (see crates/binxml-testkit). Everything
here is made up by this script from a fixed seed, so its output is the same on every run and
every machine; the output is committed next to it. The hand-written documents in
tests/corpus/hand/ are not touched.

    python3 tests/corpus/generate.py          # rewrite gen/ and json/
    python3 tests/corpus/generate.py --check  # exit 1 if the committed files differ

Standard library only. Every XML document is checked with expat (through ElementTree's C14N
writer, the test oracle's parser) and every JSON file under json/bench with the json module.
"""

import io
import json
import os
import random
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261122

# Names and values the random documents draw from: repeated often, as in real documents.
WORDS = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega harbour meter invoice line item price quantity total "
    "north south east west river bridge station signal grid cable valve sensor pump relay"
).split()
UNICODE_WORDS = [
    "café", "naïve", "Grüße", "smørrebrød", "Ærø", "€uro", "Ελλάδα", "Москва", "東京",
    "中文", "한국어", "שלום", "مرحبا", "हिन्दी", "ไทย", "😀", "𝄞", "𠜎", "🚀🌍", "a\u0301",
]
BMP_WORDS = [w for w in UNICODE_WORDS if all(ord(c) < 0x10000 for c in w)]
ELEMENT_NAMES = [
    "item", "entry", "record", "row", "field", "value", "name", "title", "note", "part",
    "section", "group", "list", "data", "info", "ref", "link", "meta", "node", "leaf",
]
ATTR_NAMES = ["id", "type", "ref", "lang", "unit", "code", "status", "href", "class", "key"]
NAMESPACES = [
    ("a", "urn:example:alpha"),
    ("b", "urn:example:beta"),
    ("c", "http://example.org/ns/gamma"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("xs", "http://www.w3.org/2001/XMLSchema"),
]


def esc_text(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def esc_attr(s):
    return (
        esc_text(s)
        .replace('"', "&quot;")
        .replace("\t", "&#9;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
    )


class Rand:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def int(self, a, b):
        return self.r.randint(a, b)

    def number_text(self):
        k = self.r.randrange(9)
        if k == 0:
            return str(self.r.randint(0, 9))
        if k == 1:
            return str(self.r.randint(-100000, 100000))
        if k == 2:
            return "%.2f" % (self.r.random() * 10000)
        if k == 3:
            return "%de%d" % (self.r.randint(1, 9), self.r.randint(-20, 20))
        if k == 4:
            return str(self.r.randint(0, 2**64))
        if k == 5:
            return "%04d-%02d-%02d" % (self.r.randint(1990, 2030), self.r.randint(1, 12), self.r.randint(1, 28))
        if k == 6:
            return self.pick(["true", "false", "0", "1", "-0", "0.0", "NaN", "INF"])
        if k == 7:
            return " %d " % self.r.randint(0, 999)
        return "%08x-%04x-%04x-%04x-%012x" % tuple(self.r.getrandbits(b) for b in (32, 16, 16, 16, 48))

    def words(self, n, unicode_share=0.1):
        out = []
        for _ in range(n):
            out.append(self.pick(UNICODE_WORDS) if self.chance(unicode_share) else self.pick(WORDS))
        return " ".join(out)

    def text(self):
        k = self.r.randrange(10)
        if k < 3:
            return self.words(self.int(1, 12))
        if k < 5:
            return self.number_text()
        if k == 5:
            return self.words(self.int(1, 4)) + " & <" + self.pick(WORDS) + "> \"q\" 'a' ]]>"
        if k == 6:
            return self.words(self.int(20, 80), 0.2)
        if k == 7:
            return self.pick(["", " ", "\n", "\n    ", "\t", "  \n  \t "])
        if k == 8:
            return self.pick(UNICODE_WORDS) * self.int(1, 3)
        return self.pick(WORDS).upper()


def char_ref(rand, s):
    """`s` with a few characters written as decimal or hexadecimal references."""
    out = []
    for ch in s:
        if ch not in "<>&\"'" and rand.chance(0.08):
            out.append("&#%d;" % ord(ch) if rand.chance(0.5) else "&#x%X;" % ord(ch))
        else:
            out.append(esc_text(ch))
    return "".join(out)


class DocWriter:
    """A random well-formed document drawing on every feature the codecs carry."""

    def __init__(self, rand, budget, features):
        self.r = rand
        self.budget = budget  # approximate size in characters
        self.f = features
        self.out = io.StringIO()
        self.entities = []

    def size(self):
        return self.out.tell()

    def w(self, s):
        self.out.write(s)

    def prolog(self, root):
        r = self.r
        decl = r.pick([
            '<?xml version="1.0" encoding="UTF-8"?>\n',
            '<?xml version="1.0"?>\n',
            "<?xml version='1.0' encoding='utf-8' standalone='no'?>\n",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
            "",
        ])
        self.w(decl)
        if "pi" in self.f and r.chance(0.5):
            self.w('<?xml-stylesheet type="text/xsl" href="view.xsl"?>\n')
        if "comment" in self.f and r.chance(0.5):
            self.w("<!-- generated by tests/corpus/generate.py -->\n")
        if "dtd" in self.f:
            names = ["ent%d" % i for i in range(r.int(1, 5))]
            subset = []
            for n in names:
                kind = r.int(0, 2)
                if kind == 0:
                    val = " ".join(r.pick(WORDS if r.chance(0.9) else BMP_WORDS) for _ in range(r.int(1, 4)))
                    self.entities.append((n, True))
                elif kind == 1:
                    # BMP characters only: the JDK's parser, under the Fast Infoset reference's
                    # serializer in the interop test, drops astral characters that come from an
                    # entity's replacement text.
                    val = "&#169; %s &amp; %s" % (r.pick(WORDS), r.pick(BMP_WORDS))
                    self.entities.append((n, True))
                else:
                    val = "<%s>%s</%s> tail" % ("em", r.pick(WORDS), "em")
                    self.entities.append((n, False))  # markup: not usable in attributes
                subset.append('  <!ENTITY %s "%s">\n' % (n, val))
            subset.append('  <!ATTLIST %s defaulted CDATA "%s">\n' % (root, r.pick(WORDS)))
            subset.append('  <!ATTLIST %s fixed CDATA #FIXED "yes" optional CDATA #IMPLIED>\n' % "item")
            ext = r.pick(["", ' SYSTEM "doc.dtd"', ' PUBLIC "-//binxml//DTD Test//EN" "http://example.invalid/test.dtd"'])
            self.w("<!DOCTYPE %s%s [\n%s]>\n" % (root, ext, "".join(subset)))
        elif "doctype" in self.f:
            self.w(r.pick([
                '<!DOCTYPE %s SYSTEM "http://example.invalid/%s.dtd">\n' % (root, root),
                '<!DOCTYPE %s PUBLIC "-//binxml//DTD %s 1.0//EN" "%s.dtd">\n' % (root, root, root),
            ]))

    def attrs(self, depth, scope):
        r = self.r
        out = []
        used = set()
        for _ in range(r.int(0, 4)):
            name = r.pick(ATTR_NAMES)
            ns = ""
            if "ns" in self.f and scope and r.chance(0.25):
                prefix, uri = r.pick(sorted(scope.items()))
                if prefix:
                    ns = uri
                    name_q = "%s:%s" % (prefix, name)
                else:
                    name_q = name
            else:
                name_q = name
            key = (ns, name)
            if key in used:
                continue
            used.add(key)
            k = r.int(0, 9)
            if k < 4:
                val = r.number_text()
            elif k < 7:
                val = r.pick(WORDS)
            elif k == 7:
                val = r.words(r.int(1, 5), 0.3)
            elif k == 8:
                val = r.pick(["", " ", "a\tb", "x\ny", "<&>\"'"])
            else:
                val = r.pick(WORDS) + "-" + str(r.int(0, 50))
            if "dtd" in self.f and r.chance(0.1):
                usable = [n for n, ok in self.entities if ok]
                if usable:
                    out.append(' %s="%s &%s;"' % (name_q, esc_attr(val), r.pick(usable)))
                    continue
            out.append(' %s="%s"' % (name_q, esc_attr(val)))
        return "".join(out)

    def element(self, depth, scope, space_preserve=False):
        r = self.r
        decls = []
        scope = dict(scope)
        prefix = ""
        if "ns" in self.f:
            if r.chance(0.15):
                p, uri = r.pick(NAMESPACES)
                if r.chance(0.3):  # the same prefix, another namespace name (redeclared)
                    uri = uri + "/v%d" % r.int(2, 3)
                decls.append(' xmlns:%s="%s"' % (p, uri))
                scope[p] = uri
            if r.chance(0.05):
                p, uri = r.pick(NAMESPACES)
                decls.append(' xmlns:unused%d="%s"' % (depth, uri))  # declared, never used
            if r.chance(0.06):
                if scope.get("") and r.chance(0.3):
                    decls.append(' xmlns=""')
                    scope.pop("", None)
                else:
                    uri = r.pick(NAMESPACES)[1]
                    decls.append(' xmlns="%s"' % uri)
                    scope[""] = uri
            prefixed = [p for p in scope if p]
            if prefixed and r.chance(0.3):
                prefix = r.pick(sorted(prefixed)) + ":"
        name = prefix + r.pick(ELEMENT_NAMES)
        extra = ""
        if "space" in self.f and r.chance(0.05):
            space_preserve = r.chance(0.6)
            extra = ' xml:space="%s"' % ("preserve" if space_preserve else "default")
        if "lang" in self.f and r.chance(0.04):
            extra += ' xml:lang="%s"' % r.pick(["en", "de-CH", "fr", "ja", ""])
        self.w("<%s%s%s%s" % (name, "".join(decls), extra, self.attrs(depth, scope)))
        if depth > 14 or self.size() > self.budget or r.chance(0.12):
            if r.chance(0.7):
                self.w("/>")
            else:
                self.w("></%s>" % name)
            return
        self.w(">")
        n = r.int(1, 6 if depth > 2 else 12)
        indent = r.chance(0.7)
        for i in range(n):
            if self.size() > self.budget:
                break
            if indent:
                self.w("\n" + "  " * (depth + 1))
            k = r.int(0, 19)
            if k < 10:
                self.element(depth + 1, scope, space_preserve)
            elif k < 14:
                t = r.text()
                self.w(char_ref(r, t) if "charref" in self.f and r.chance(0.3) else esc_text(t))
            elif k == 14 and "comment" in self.f:
                self.w("<!--%s-->" % r.pick([" ", " note: %s " % r.words(3), "", "x-y", " <not> & markup "]))
            elif k == 15 and "pi" in self.f:
                self.w("<?%s %s?>" % (r.pick(["proc", "app-data", "php", "render"]), r.pick(["", "a=1", r.words(2)])))
            elif k == 16 and "cdata" in self.f:
                self.w("<![CDATA[%s]]>" % r.pick(["", "x < y && y > z", r.words(4), "]]", "<tag attr='v'/>", "line\nbreak"]))
            elif k == 17 and "dtd" in self.f and self.entities:
                self.w("&%s;" % r.pick(self.entities)[0])
            elif k == 18:
                self.w(r.pick(["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#10;", "&#x9;", "&#xA0;", "&#x1F680;"]))
            else:
                self.w(esc_text(r.number_text()))
        if indent:
            self.w("\n" + "  " * depth)
        self.w("</%s>" % name)

    def document(self):
        r = self.r
        root = r.pick(["doc", "feed", "catalog", "message", "dataset", "config"])
        self.prolog(root)
        scope = {}
        decls = ""
        if "ns" in self.f:
            chosen = r.r.sample(NAMESPACES, r.int(1, 3))
            for p, uri in chosen:
                decls += ' xmlns:%s="%s"' % (p, uri)
                scope[p] = uri
            if r.chance(0.5):
                uri = "urn:example:default:%d" % r.int(1, 3)
                decls += ' xmlns="%s"' % uri
                scope[""] = uri
        self.w("<%s%s%s>" % (root, decls, self.attrs(0, scope)))
        while self.size() < self.budget:
            self.w("\n  ")
            self.element(1, scope)
        self.w("\n</%s>\n" % root)
        if "comment" in self.f and r.chance(0.3):
            self.w("<!-- end -->\n")
        return self.out.getvalue()


ALL_FEATURES = {"ns", "pi", "comment", "cdata", "charref", "dtd", "space", "lang"}


def random_documents(rand):
    docs = {}
    for i in range(48):
        feats = set(f for f in sorted(ALL_FEATURES) if rand.chance(0.6))
        if i % 6 == 0:
            feats.discard("dtd")
            feats.add("doctype")
        if i % 8 == 1:
            feats = set()  # plain elements, attributes and text
        if i < 6:
            budget = rand.int(200, 900)
        elif i < 30:
            budget = rand.int(1000, 12000)
        else:
            budget = rand.int(10000, 22000)
        docs["random_%02d.xml" % i] = DocWriter(rand, budget, feats).document()
    return docs


def table_document(rand, rows):
    """An invoice-like table: a few names repeated thousands of times, values from small sets
    (codes, units, currencies) and unique ones (ids, amounts): the ~600 KB document."""
    out = io.StringIO()
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w("<!-- A generated invoice batch: many rows of the same few names (tests/corpus/generate.py) -->\n")
    w('<Invoices xmlns="urn:example:binxml:invoice" xmlns:m="urn:example:binxml:meter" '
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" batch="2026-11">\n')
    units = ["EA", "HUR", "MON", "KGM", "MTR", "LTR"]
    currencies = ["EUR", "GBP", "USD", "CHF", "NOK"]
    products = ["Smart meter, three-phase", "Installation & commissioning", "Data plan <12 months>",
                "Cable, 4 mm²", "Relay módulo", "Sensor 温度", "Valve DN50", "Support contract"]
    n = 0
    inv = 0
    while n < rows:
        inv += 1
        cur = rand.pick(currencies)
        w('  <Invoice Currency="%s" m:region="%s">\n' % (cur, rand.pick(["north", "south", "east", "west"])))
        w("    <Header><ID>INV-2026-%05d</ID><IssueDate>2026-%02d-%02d</IssueDate>"
          "<Seller>%s</Seller><Buyer>%s</Buyer></Header>\n"
          % (inv, rand.int(1, 12), rand.int(1, 28), rand.pick(["North Grid Ltd.", "Harbour Metering", "Østfold Energi"]),
             esc_text(rand.pick(["Harbour Street Cooperative", "Müller & Söhne", "City of Springfield"]))))
        total = 0.0
        k = rand.int(1, 12)
        for line in range(1, k + 1):
            q = rand.int(1, 500) if rand.chance(0.8) else rand.int(1, 40) / 2
            price = rand.int(10, 99999) / 100
            total += q * price
            w('    <LineItem LineID="%d">' % line)
            w("<Description>%s</Description>" % esc_text(rand.pick(products)))
            w('<Quantity unit="%s">%s</Quantity>' % (rand.pick(units), q))
            w("<PriceAmount>%.2f</PriceAmount>" % price)
            if rand.chance(0.3):
                w("<m:Serial>NG-%s-%06d</m:Serial>" % (rand.pick(["3P", "1P", "HV"]), rand.int(0, 999999)))
            if rand.chance(0.05):
                w('<Note xsi:nil="true"/>')
            w("</LineItem>\n")
            n += 1
        if rand.chance(0.1):
            w('    <?approval status="%s"?>\n' % rand.pick(["pending", "granted"]))
        w("    <Summary><LineCount>%d</LineCount><TotalAmount>%.2f</TotalAmount></Summary>\n" % (k, total))
        w("  </Invoice>\n")
    w("</Invoices>\n")
    return out.getvalue()


def distinct_values_document(rand):
    """More distinct names and values than Fast Infoset's and the ASN.1 tables' small index
    ranges (64, 8256, ...): 8,600 distinct attribute values, 2,000 distinct element names."""
    out = io.StringIO()
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n<registry xmlns="urn:example:registry">\n')
    for i in range(8600):
        name = "e%d" % (i % 2000) if i % 4 == 0 else "r"
        w('<%s k="%d">%d</%s>%s' % (name, i, i * 7919 % 10007, name, "\n" if i % 8 == 7 else ""))
    w("</registry>\n")
    return out.getvalue()


def deep_document():
    """Nesting 400 deep, namespace declarations every 50 levels, text at every level."""
    out = io.StringIO()
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    depth = 400
    for i in range(depth):
        decl = ' xmlns:n%d="urn:example:depth:%d"' % (i // 50, i // 50) if i % 50 == 0 else ""
        w('<n%d:level%s d="%d">%s' % (i // 50, decl, i, "t%d " % i if i % 3 else ""))
    w("bottom")
    for i in reversed(range(depth)):
        w("</n%d:level>%s" % (i // 50, "\n" if i % 10 == 0 else ""))
    return out.getvalue()


def long_text_document(rand):
    """One text of ~150 KB, a 20 KB attribute value, a long comment and a long CDATA section."""
    words = rand.words(14000, 0.05)
    attr = rand.words(2000, 0.1)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- %s -->\n"
        '<book title="%s">\n<chapter>%s</chapter>\n<code><![CDATA[%s]]></code>\n<short>x</short>\n</book>\n'
        % (rand.words(1000), esc_attr(attr), esc_text(words), rand.words(2000).replace(" ", "\n"))
    )


def wide_document():
    """Elements with many attributes and many namespace declarations, and many siblings."""
    out = io.StringIO()
    w = out.write
    w("<wide")
    for i in range(60):
        w(' xmlns:p%d="urn:example:wide:%d"' % (i, i))
    for i in range(200):
        w(' a%d="%d"' % (i, i * i))
    w(">\n")
    for i in range(60):
        w('  <p%d:x p%d:k="%d" p%d:k="%d"/>\n' % (i, i, i, (i + 1) % 60, i + 1))
    for i in range(3000):
        w("<s/>" if i % 100 else "<s/>\n")
    w("</wide>\n")
    return out.getvalue()


def mixed_content_document(rand):
    """Prose with inline markup: text and elements interleaved, as in documentation."""
    out = io.StringIO()
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n<article xmlns="http://docbook.org/ns/docbook" version="5.0">\n')
    for s in range(40):
        w("<section xml:id=\"s%d\"><title>%s</title>\n" % (s, esc_text(rand.words(4))))
        for _ in range(rand.int(2, 6)):
            w("<para>")
            for _ in range(rand.int(3, 12)):
                k = rand.int(0, 5)
                t = esc_text(rand.words(rand.int(1, 8), 0.1))
                if k == 0:
                    w("<emphasis>%s</emphasis> " % t)
                elif k == 1:
                    w('<link xlink:href="http://example.com/%d" xmlns:xlink="http://www.w3.org/1999/xlink">%s</link> ' % (rand.int(0, 99), t))
                elif k == 2:
                    w("<code>%s</code>" % esc_text("a < b && c"))
                else:
                    w(t + " ")
            w("</para>\n")
        w("</section>\n")
    w("</article>\n")
    return out.getvalue()


# ---------------------------------------------------------------------------------------- JSON


def json_bench(rand):
    """Nine files in the style of the standard JSON benchmarks (made up, not copies)."""
    files = {}

    def text(n, share=0.1):
        return rand.words(n, share)

    # statuses: social-media posts: unicode text, nested user objects, nulls, entity lists
    statuses = []
    for i in range(80):
        statuses.append({
            "id": 505874924095815681 + i * 7919,
            "id_str": str(505874924095815681 + i * 7919),
            "text": text(rand.int(3, 20), 0.3) + (" \"quoted\" \\ slash/ \t tab" if i % 10 == 0 else ""),
            "truncated": i % 7 == 0,
            "in_reply_to_status_id": None if i % 3 else 505874924095815000 + i,
            "user": {"id": 1000 + i % 17, "name": rand.pick(UNICODE_WORDS) + " " + rand.pick(WORDS),
                     "screen_name": rand.pick(WORDS) + str(i % 17), "followers_count": rand.int(0, 100000),
                     "verified": False, "profile_background_color": "C0DEED", "lang": rand.pick(["en", "ja", "es"])},
            "entities": {"hashtags": [{"text": rand.pick(WORDS), "indices": [rand.int(0, 9), rand.int(10, 20)]}
                                      for _ in range(rand.int(0, 2))],
                         "urls": [], "user_mentions": []},
            "retweet_count": rand.int(0, 50), "favorited": False, "lang": "en",
            "geo": None, "coordinates": None,
        })
    files["statuses.json"] = json.dumps({"statuses": statuses, "search_metadata": {"count": 80, "max_id": 0.0}},
                                        ensure_ascii=True, indent=1)
    # catalog: events and prices in maps keyed by numbers, like a ticketing catalogue
    catalog = {"areaNames": {str(205705993 + i): "Area " + rand.pick(WORDS) for i in range(60)},
               "events": {}, "performances": []}
    for i in range(50):
        eid = str(138586341 + i * 3)
        catalog["events"][eid] = {"description": None, "id": int(eid), "logo": None if i % 4 else "/images/%d.jpg" % i,
                                  "name": text(3), "subTopicIds": [337184269, 337184283], "subjectCode": None,
                                  "subtitle": None, "topicIds": [324846099, 107888604 + i % 5]}
        catalog["performances"].append({"eventId": int(eid), "id": 339887544 + i,
                                        "prices": [{"amount": rand.int(5, 300) * 500, "audienceSubCategoryId": 337100890,
                                                    "seatCategoryId": 338937295 + k} for k in range(rand.int(1, 5))],
                                        "seatCategories": [], "start": 1372701600000 + i * 86400000, "venueCode": "PLEYEL_PLEYEL"})
    files["catalog.json"] = json.dumps(catalog, indent=4, ensure_ascii=False)
    # events: repository events: URLs, timestamps, booleans, deep payloads
    events = []
    for i in range(60):
        events.append({"type": rand.pick(["PushEvent", "IssuesEvent", "WatchEvent", "CreateEvent"]),
                       "created_at": "2026-%02d-%02dT%02d:00:00Z" % (rand.int(1, 12), rand.int(1, 28), rand.int(0, 23)),
                       "actor": {"id": rand.int(1, 9999999), "login": rand.pick(WORDS) + str(i), "gravatar_id": "",
                                 "url": "https://api.example.com/users/%d" % i, "avatar_url": "https://avatars.example.com/u/%d?" % i},
                       "repo": {"id": rand.int(1, 9999999), "name": "%s/%s" % (rand.pick(WORDS), rand.pick(WORDS))},
                       "payload": {"push_id": 536863970 + i, "size": 1, "distinct_size": 1, "ref": "refs/heads/main",
                                   "commits": [{"sha": "%040x" % rand.r.getrandbits(160), "author": {"email": "a@example.com", "name": rand.pick(UNICODE_WORDS)},
                                                "message": text(rand.int(2, 15)) + "\n\n" + text(5), "distinct": True}]},
                       "public": True, "id": str(2489651045 + i), "org": None if i % 2 else {"id": 9919, "login": "example"}})
    files["events.json"] = json.dumps(events, indent=2, ensure_ascii=False)
    # builds: a CI server's job list: many objects of the same few keys
    builds = {"assignedLabels": [{}], "mode": "EXCLUSIVE", "nodeDescription": "the master node", "nodeName": "",
              "numExecutors": 0, "description": None,
              "jobs": [{"name": "%s-%s" % (rand.pick(WORDS), rand.pick(WORDS)), "url": "http://ci.example.com/job/%d/" % i,
                        "color": rand.pick(["blue", "red", "disabled", "blue_anime"])} for i in range(400)],
              "overallLoad": {}, "primaryView": {"name": "All", "url": "http://ci.example.com/"},
              "quietingDown": False, "slaveAgentPort": 0, "unlabeledLoad": {}, "useCrumbs": False, "useSecurity": True,
              "views": [{"name": v, "url": "http://ci.example.com/view/%s/" % v} for v in ("All", "Nightly", "Ünïcode")]}
    files["builds.json"] = json.dumps(builds, separators=(",", ":"))
    # instruments: a music tracker's instruments: arrays of small integers, nulls
    instruments = {"instruments": [{"comment": "", "name": "instr %d" % i, "fadeout": rand.int(0, 2048),
                                    "volume_envelope": {"loop_start": 0, "points": [[rand.int(0, 64), rand.int(0, 64)] for _ in range(12)]},
                                    "samples": [{"data": [rand.int(-128, 127) for _ in range(80)], "finetune": 0, "loop": None}]}
                                   for i in range(16)], "patterns": [[None, [1, 2, 3], []] for _ in range(30)],
                   "title": "a tune", "tempo": 125, "restart_position": 0}
    files["instruments.json"] = json.dumps(instruments)
    # mesh: a 3D mesh: long arrays of floats and integers
    mesh = {"batches": [{"indexRange": [0, 3000], "usedBones": [], "vertexRange": [0, 1000]}],
            "colors": [], "indices": [rand.int(0, 999) for _ in range(3000)],
            "influences": [], "morphTargets": {}, "normals": [round(rand.r.uniform(-1, 1), 6) for _ in range(1500)],
            "positions": [round(rand.r.uniform(-100, 100), 5) for _ in range(3000)],
            "tex0": [round(rand.r.random(), 7) for _ in range(1000)]}
    files["mesh.json"] = json.dumps(mesh, separators=(",", ":"))
    # numbers: every form of number text, kept as written
    forms = ["0", "-0", "1", "-1", "0.5", "-0.0", "1e3", "1E3", "1e+3", "1E-3", "-1.5e-10", "123456789012345678901234567890",
             "-9223372036854775808", "18446744073709551615", "3.141592653589793", "2.2250738585072014e-308",
             "1.7976931348623157e308", "0.1", "100", "1.0", "1.50", "4.9e-324", "0e0", "0.000001"]
    nums = list(forms)
    for _ in range(2500):
        k = rand.int(0, 3)
        if k == 0:
            nums.append(str(rand.int(-10**6, 10**6)))
        elif k == 1:
            nums.append(repr(rand.r.uniform(-1000, 1000)))
        elif k == 2:
            nums.append("%.3e" % rand.r.uniform(-1e20, 1e20))
        else:
            nums.append(repr(rand.r.random()))
    files["numbers.json"] = "[" + ",\n".join(nums) + "]\n"
    # random: random keys and strings, escapes, surrogate pairs, empty keys and containers
    def rand_value(d):
        k = rand.int(0, 9 if d < 4 else 5)
        if k == 0:
            return None
        if k == 1:
            return rand.chance(0.5)
        if k == 2:
            return rand.int(-10**9, 10**9)
        if k == 3:
            return rand.r.uniform(-1e6, 1e6)
        if k <= 5:
            return rand.pick(UNICODE_WORDS + WORDS + ["", " ", "a\"b", "back\\slash", "tab\there", "line\nend", "€", "<xml & stuff>"])
        if k <= 7:
            return [rand_value(d + 1) for _ in range(rand.int(0, 5))]
        keys = [rand.pick(WORDS + ["", "a b", "64th", "with-dash", "ключ", "🔑", "xml", "_", "$ref"]) for _ in range(rand.int(0, 6))]
        return {key: rand_value(d + 1) for key in keys}
    rnd = {"id": 1, "jsonrpc": "2.0", "total": 500, "result": [rand_value(0) for _ in range(500)]}
    files["random.json"] = json.dumps(rnd, ensure_ascii=rand.chance(0.5), indent=None)
    # updates: a plugin update centre: a big map of long strings
    updates = {"connectionCheckUrl": "http://www.example.com/", "core": {"buildDate": "Dec 31, 2026", "name": "core",
               "sha1": "%040x" % rand.r.getrandbits(160), "url": "http://updates.example.com/core.war", "version": "2.1"},
               "id": "default", "plugins": {}}
    for i in range(90):
        name = "%s-%s-%d" % (rand.pick(WORDS), rand.pick(WORDS), i)
        updates["plugins"][name] = {"buildDate": "Jan %02d, 2026" % rand.int(1, 28), "dependencies": [
            {"name": rand.pick(WORDS), "optional": rand.chance(0.3), "version": "1.%d" % rand.int(0, 40)} for _ in range(rand.int(0, 4))],
            "developers": [{"developerId": rand.pick(WORDS), "email": "dev@example.com", "name": rand.pick(UNICODE_WORDS)}],
            "excerpt": text(rand.int(5, 40), 0.05) + " <a href='http://example.com'>link</a>",
            "gav": "org.example:%s:1.%d" % (name, i), "labels": [rand.pick(WORDS)], "name": name,
            "requiredCore": "1.%d" % rand.int(400, 600), "sha1": "%040x" % rand.r.getrandbits(160),
            "title": text(3), "url": "http://updates.example.com/%s.hpi" % name, "version": "1.%d" % i,
            "wiki": "https://wiki.example.com/display/%s" % name}
    files["updates.json"] = json.dumps(updates, indent=None, ensure_ascii=False)
    return files


# Conformance cases of our own: y_ must parse, n_ must be rejected, i_ may go either way.
CONFORMANCE = {
    # --- y_: valid JSON texts
    "y_array_empty.json": b"[]",
    "y_array_empty_string.json": b'[""]',
    "y_array_nested_empty.json": b"[[[]],[{}],{}]",
    "y_array_mixed.json": b'[1, "two", 3.0, true, false, null, {"k": []}]',
    "y_array_with_whitespace.json": b" \t\r\n[ 1 ,\n 2 ]\r\n ",
    "y_array_heterogeneous_deep.json": b'[[[[[[[[[[{"deep":[[[1]]]}]]]]]]]]]]',
    "y_object_empty.json": b"{}",
    "y_object_simple.json": b'{"a":"b"}',
    "y_object_empty_key.json": b'{"":0}',
    "y_object_duplicated_key.json": b'{"a":1,"a":2}',
    "y_object_key_with_spaces.json": b'{"a b c":1," leading":2,"trailing ":3}',
    "y_object_key_digits.json": b'{"1":1,"64th":2,"0x10":3}',
    "y_object_key_unicode.json": '{"ключ":"значение","鍵":"値","🔑":"🚪"}'.encode(),
    "y_object_key_escaped.json": b'{"\\u0061\\n\\"":"x"}',
    "y_object_nested.json": b'{"a":{"b":{"c":{"d":[1,{"e":null}]}}}}',
    "y_object_many_keys.json": ("{" + ",".join('"k%d":%d' % (i, i) for i in range(200)) + "}").encode(),
    "y_number_zero.json": b"[0]",
    "y_number_minus_zero.json": b"[-0]",
    "y_number_int.json": b"[123]",
    "y_number_negative_int.json": b"[-123]",
    "y_number_real.json": b"[1.5]",
    "y_number_real_exponent.json": b"[1.5e10]",
    "y_number_capital_e.json": b"[1E22]",
    "y_number_capital_e_plus.json": b"[1E+2]",
    "y_number_exponent_minus.json": b"[1e-2]",
    "y_number_zero_exponent.json": b"[0e0]",
    "y_number_big_int.json": b"[123456789012345678901234567890123456789]",
    "y_number_long_fraction.json": b"[0.12345678901234567890123456789]",
    "y_number_tiny.json": b"[4.9e-324]",
    "y_number_huge_exponent.json": b"[1e400]",
    "y_number_simple_top_level.json": b"42",
    "y_string_simple.json": b'["abc"]',
    "y_string_empty_top_level.json": b'""',
    "y_string_escapes.json": b'["\\"\\\\\\/\\b\\f\\n\\r\\t"]',
    "y_string_unicode_escape.json": b'["\\u00e9\\u20AC\\u4e2d"]',
    "y_string_surrogate_pair.json": b'["\\ud83d\\ude00"]',
    "y_string_utf8.json": '["café € 中文 😀 𝄞"]'.encode(),
    "y_string_escaped_nul.json": b'["a\\u0000b"]',
    "y_string_escaped_control.json": b'["\\u0001\\u001f"]',
    "y_string_u_plus_2028.json": '["\u2028\u2029"]'.encode(),
    "y_string_markup.json": b'["<a href=\\"x\\">&amp;</a>", "]]>"]',
    "y_string_long.json": ('["' + "x" * 20000 + '"]').encode(),
    "y_string_whitespace.json": b'["  ", "\\t", "\\r\\n", " a "]',
    "y_literals.json": b"[true, false, null]",
    "y_literal_true_top_level.json": b"true",
    "y_literal_null_top_level.json": b"null",
    "y_structure_trailing_newline.json": b'["a"]\n',
    "y_structure_whitespace_everywhere.json": b' { "a" : [ 1 , 2 ] , "b" : { } } ',
    # --- n_: invalid JSON texts
    "n_empty.json": b"",
    "n_only_whitespace.json": b" \n\t ",
    "n_array_trailing_comma.json": b"[1,]",
    "n_array_leading_comma.json": b"[,1]",
    "n_array_double_comma.json": b"[1,,2]",
    "n_array_unclosed.json": b"[1, 2",
    "n_array_unclosed_empty.json": b"[",
    "n_array_extra_close.json": b"[1]]",
    "n_array_colon.json": b'["a": 1]',
    "n_array_missing_comma.json": b"[1 2]",
    "n_array_just_comma.json": b"[,]",
    "n_array_mismatched.json": b"[1}",
    "n_object_trailing_comma.json": b'{"a":1,}',
    "n_object_unquoted_key.json": b"{a:1}",
    "n_object_single_quoted_key.json": b"{'a':1}",
    "n_object_missing_colon.json": b'{"a" 1}',
    "n_object_missing_value.json": b'{"a":}',
    "n_object_number_key.json": b"{1:1}",
    "n_object_unclosed.json": b'{"a":1',
    "n_object_double_colon.json": b'{"a"::1}',
    "n_object_comma_instead_of_colon.json": b'{"a",1}',
    "n_object_mismatched.json": b'{"a":1]',
    "n_object_key_not_string.json": b"{null:1}",
    "n_number_leading_zero.json": b"[01]",
    "n_number_plus.json": b"[+1]",
    "n_number_dot_start.json": b"[.5]",
    "n_number_dot_end.json": b"[5.]",
    "n_number_exponent_empty.json": b"[1e]",
    "n_number_exponent_sign_only.json": b"[1e+]",
    "n_number_hex.json": b"[0x10]",
    "n_number_nan.json": b"[NaN]",
    "n_number_infinity.json": b"[Infinity]",
    "n_number_minus_infinity.json": b"[-Infinity]",
    "n_number_minus_only.json": b"[-]",
    "n_number_double_minus.json": b"[--1]",
    "n_number_letter_after.json": b"[1a]",
    "n_number_comma_decimal.json": b"[1,5.]",
    "n_string_single_quotes.json": b"['a']",
    "n_string_unclosed.json": b'["abc',
    "n_string_bad_escape.json": b'["\\x41"]',
    "n_string_escape_upper_u.json": b'["\\U0041"]',
    "n_string_short_unicode_escape.json": b'["\\u12"]',
    "n_string_non_hex_escape.json": b'["\\u00zz"]',
    "n_string_raw_newline.json": b'["a\nb"]',
    "n_string_raw_tab.json": b'["a\tb"]',
    "n_string_raw_control.json": b'["a\x01b"]',
    "n_string_backslash_at_end.json": b'["\\"]',
    "n_literal_capital_true.json": b"[True]",
    "n_literal_truncated_null.json": b"[nul]",
    "n_literal_undefined.json": b"[undefined]",
    "n_structure_two_values.json": b"[1] [2]",
    "n_structure_trailing_garbage.json": b'{"a":1}x',
    "n_structure_comment_line.json": b"[1] // comment",
    "n_structure_comment_block.json": b"[1 /* comment */]",
    "n_structure_lone_close.json": b"]",
    "n_structure_lone_colon.json": b":",
    "n_structure_angle_bracket.json": b"<a/>",
    "n_structure_unclosed_nested.json": b'{"a":[{"b":[',
    "n_structure_nul_after.json": b"[1]\x00",
    "n_structure_open_object_comma.json": b"{,",
    "n_structure_object_in_key.json": b'{{"a":1}:2}',
    "n_structure_array_as_key.json": b'{["a"]:2}',
    "n_incomplete_true.json": b"[tru]",
    "n_incomplete_false.json": b"[fals",
    # --- i_: implementation-defined (never a panic either way)
    "i_string_lone_high_surrogate.json": b'["\\ud800"]',
    "i_string_lone_low_surrogate.json": b'["\\udc00"]',
    "i_string_reversed_surrogates.json": b'["\\udc00\\ud800"]',
    "i_string_invalid_utf8.json": b'["\xff\xfe"]',
    "i_string_overlong_utf8.json": b'["\xc0\xaf"]',
    "i_string_truncated_utf8.json": b'["\xe2\x82"]',
    "i_string_utf8_bom.json": b'\xef\xbb\xbf["bom"]',
    "i_string_utf16le.json": '["a"]'.encode("utf-16-le"),
    "i_number_huge_exponent.json": b"[1e999999999999]",
    "i_number_very_long.json": ("[" + "9" * 5000 + "]").encode(),
    "i_structure_deep_500.json": b"[" * 500 + b"]" * 500,
    "i_structure_deep_20000.json": b"[" * 20000,
}


# -------------------------------------------------------------------------------------- output


def xml_files():
    rand = Rand(SEED)
    files = random_documents(rand)
    files["table_invoices.xml"] = table_document(Rand(SEED + 1), 3000)
    files["distinct_values.xml"] = distinct_values_document(Rand(SEED + 2))
    files["deep_nesting.xml"] = deep_document()
    files["long_text.xml"] = long_text_document(Rand(SEED + 3))
    files["wide.xml"] = wide_document()
    files["mixed_content.xml"] = mixed_content_document(Rand(SEED + 4))
    return {"gen/" + k: v.encode("utf-8") for k, v in files.items()}


def json_files():
    out = {"json/bench/" + k: v.encode("utf-8") for k, v in json_bench(Rand(SEED + 5)).items()}
    out.update({"json/conformance/" + k: v for k, v in CONFORMANCE.items()})
    return out


def check_xml(name, data):
    out = []
    p = ET.XMLParser(target=ET.C14NWriterTarget(out.append, with_comments=True))
    try:
        p.feed(data)
        p.close()
    except ET.ParseError as e:
        sys.exit("generate.py: %s is not well-formed: %s" % (name, e))


def main():
    check = "--check" in sys.argv[1:]
    files = {}
    files.update(xml_files())
    files.update(json_files())
    for name, data in sorted(files.items()):
        if name.startswith("gen/"):
            check_xml(name, data)
        elif name.startswith("json/bench/"):
            json.loads(data)
    managed = ["gen", "json/bench", "json/conformance"]
    differ = []
    for d in managed:
        path = os.path.join(HERE, d)
        os.makedirs(path, exist_ok=True)
        for existing in sorted(os.listdir(path)):
            if d + "/" + existing not in files:
                differ.append(d + "/" + existing + " (not generated)")
                if not check:
                    os.remove(os.path.join(path, existing))
    for name, data in sorted(files.items()):
        path = os.path.join(HERE, name)
        try:
            with open(path, "rb") as f:
                same = f.read() == data
        except FileNotFoundError:
            same = False
        if not same:
            differ.append(name)
            if not check:
                with open(path, "wb") as f:
                    f.write(data)
    total = sum(len(v) for v in files.values())
    if check:
        if differ:
            print("generate.py --check: differs from the committed corpus: " + ", ".join(differ))
            sys.exit(1)
        print("generate.py --check: %d files, %d bytes, as committed" % (len(files), total))
    else:
        print("generate.py: %d files, %d bytes (%d rewritten)" % (len(files), total, len(differ)))


if __name__ == "__main__":
    main()
