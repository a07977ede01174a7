#!/usr/bin/env python3
"""Counts the #if lines (#if, #ifdef, #ifndef) inside function bodies in
the kernel side (bpf/, less bcc_tree/): a feature's work belongs in an
inline step of its part that is empty when the feature is off, not in
conditions inside the bodies. Prints each, and the count; with --max N,
fails when there are more than N."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "bpf"
limit = None
if len(sys.argv) == 3 and sys.argv[1] == "--max":
    limit = int(sys.argv[2])
strip = re.compile(r'//.*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
found = []
for path in sorted(root.rglob("*")):
    if "bcc_tree" in path.parts or path.suffix not in (".h", ".c"):
        continue
    text = strip.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text())
    depth = 0
    for n, line in enumerate(text.split("\n"), 1):
        if re.match(r"\s*#\s*if", line):
            if depth > 0:
                found.append(f"{path.relative_to(root.parent)}:{n}")
            continue
        if line.lstrip().startswith("#"):
            continue  # a macro's braces are not a body's
        depth += line.count("{") - line.count("}")
for where in found:
    print(where)
print(f"{len(found)} #if lines inside function bodies in bpf/")
if limit is not None and len(found) > limit:
    sys.exit(f"bpf_if_count: more than {limit}")
