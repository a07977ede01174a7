#!/usr/bin/env python3
"""The include graph of src/ by room (directory): prints each room's
arrows and fails when the rooms make a circle, or when a room includes one
it must not (app/ is the top: no room includes it; stall/ sits on delay/)."""
import graphlib
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
rooms = {p.name for p in src.iterdir() if p.is_dir()}
include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)
arrows = {room: set() for room in rooms}
for path in src.rglob("*"):
    if path.suffix not in (".h", ".cpp") or path.parent == src:
        continue
    room = path.relative_to(src).parts[0]
    for target in include.findall(path.read_text()):
        if target in rooms and target != room:
            arrows[room].add(target)
forbidden = [(room, "app") for room in rooms if "app" in arrows[room]]
forbidden += [("delay", "stall")] if "stall" in arrows.get("delay", ()) else []
for room in sorted(rooms):
    print(f"{room:10} -> {' '.join(sorted(arrows[room])) or '(nothing)'}")
try:
    order = list(graphlib.TopologicalSorter(arrows).static_order())
except graphlib.CycleError as e:
    sys.exit(f"include_graph: the rooms make a circle: {' -> '.join(e.args[1])}")
if forbidden:
    sys.exit("include_graph: arrows back up: " + ", ".join(f"{a} -> {b}" for a, b in forbidden))
print("layers, bottom first:", " ".join(order))
