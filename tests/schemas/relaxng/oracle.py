"""The independent RELAX NG oracle of binxml's reader: lxml's (libxml2's) validator.

usage: oracle.py SCHEMA.rng INSTANCE...   prints "INSTANCE<TAB>valid|invalid" per instance.
"""
import sys

from lxml import etree


def main():
    schema = etree.RelaxNG(etree.parse(sys.argv[1]))
    for path in sys.argv[2:]:
        ok = schema.validate(etree.parse(path))
        print(f"{path}\t{'valid' if ok else 'invalid'}")


if __name__ == "__main__":
    main()
