#!/usr/bin/env bash
# Configures and builds kdelay and its tests in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
# The flags are named, since scripts/demo.sh may have left the tree without -g.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" >/dev/null
cmake --build build -j"$(nproc)"
