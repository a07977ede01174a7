#!/usr/bin/env bash
# Builds dist/kdelay_VERSION_ARCH.deb for the Debian release this runs on:
# kdelay, kdelay-bpf.so and the man page, with the dependencies computed by
# dpkg-shlibdeps from the binaries (CPack's DEB generator). Builds only what
# the package holds, in build/ (shared with scripts/build.sh).
#   scripts/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
    bash scripts/setup.sh
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target kdelay kdelay-bpf
mkdir -p dist
(cd build && cpack -G DEB -B "$PWD/../dist/.cpack" >/dev/null)
mv dist/.cpack/kdelay_*.deb dist/
rm -rf dist/.cpack
ls dist/kdelay_*.deb
