#!/usr/bin/env bash
# Prints the URI of this machine's Debian mirror (the first one apt uses), so
# that other releases' packages come from the same place.
uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$uri" ] || uri=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
echo "${uri:-http://deb.debian.org/debian}"
