#!/bin/sh
# The table of issue 25, re-measured: every peer scenario pass or fail,
# with req/s where it applies (ab -k, ab, wrk if installed), and nginx on
# the same machine as the reference. Not a test: numbers for a note.
#
#   tests/peers/measure.sh [BUILD]
#
# BUILD is a top-level build folder (default: build-bench, the optimised
# one; then build) in which peer_get and peer_serve are built, e.g.
#   cmake --preset bench && cmake --build build-bench --target peer_get peer_serve
# Takes about a minute; run it on an otherwise idle machine.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-}
if [ -z "$build" ]; then
  for candidate in "$root/build-bench" "$root/build"; do
    if [ -x "$candidate/tests/peers/peer_get" ]; then build=$candidate; break; fi
  done
fi
get=${build:-.}/tests/peers/peer_get
serve=${build:-.}/tests/peers/peer_serve
if [ ! -x "$get" ] || [ ! -x "$serve" ]; then
  echo "measure.sh: no peer_get and peer_serve in '${build:-}/tests/peers';" \
       "build them: cmake --build BUILD --target peer_get peer_serve" >&2
  exit 2
fi
echo "peers: $build, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')" >&2
exec python3 "$root/tests/peers/peers.py" measure --get "$get" --serve "$serve"
