#!/usr/bin/env python3
"""Replace one benchmark's section of bench/RESULTS.md.

usage: section.py RESULTS NAME < TEXT

The section is the text between the lines <!-- NAME:begin --> and
<!-- NAME:end -->; it is added at the end when the file has none yet. Each
benchmark script owns its section, so running one never drops another's
figures.
"""
import os
import sys

path, name = sys.argv[1], sys.argv[2]
begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->\n"
body = sys.stdin.read()
if not body.endswith("\n"):
    body += "\n"
text = begin + body + end
try:
    old = open(path).read()
except FileNotFoundError:
    old = "# Benchmark results\n\nEach section is written by the script it names (see bench/README.md).\n\n"
b, e = old.find(begin), old.find(end)
if b >= 0 and e > b:
    new = old[:b] + text + old[e + len(end):]
else:
    new = old.rstrip("\n") + "\n\n" + text
tmp = path + ".tmp"
with open(tmp, "w") as f:
    f.write(new)
os.replace(tmp, path)
