"""Rewrite a CloudFormation JSON template without whitespace (`python infra/compact.py sam.json`).

chalice writes the template indented; every route becomes a path with one integration per
method, so the indented file outgrows CloudFormation's 1 MB template limit long before the
compact one does. `make package` and the packaging test both compact it.
"""
import json
import sys


def compact(path):
    with open(path) as handle:
        template = json.load(handle)
    with open(path, "w") as handle:
        json.dump(template, handle, separators=(",", ":"))


if __name__ == "__main__":
    compact(sys.argv[1])
