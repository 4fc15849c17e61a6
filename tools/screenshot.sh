#!/bin/sh
# screenshot.sh SVG PNG [WIDTH HEIGHT] -- look at a timeline as a person would.
#
# Renders SVG in headless Chromium and saves what the window shows as PNG,
# so that a change to svg.c can be checked by eye: rows aligned, labels
# clear of each other, the legend readable. The window is 1000 x 400
# unless WIDTH and HEIGHT are given (at least 200 high); a larger picture
# is cut at the window's edges.
#
# Needs Chromium (Debian: apt-get install chromium). Nothing in the build
# or the tests depends on this script.
set -eu

if [ $# -ne 2 ] && [ $# -ne 4 ]; then
  echo "usage: $0 SVG PNG [WIDTH HEIGHT]" >&2
  exit 2
fi
svg=$1
png=$2
width=${3:-1000}
height=${4:-400}
# Headless Chromium leaves the bottom of a very short window blank: ask
# for at least 200 pixels.
if [ "$height" -lt 200 ]; then
  height=200
fi

browser=
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$candidate
    break
  fi
done
if [ -z "$browser" ]; then
  echo "$0: no Chromium found (Debian: apt-get install chromium)" >&2
  exit 1
fi

case $svg in
  /*) url=file://$svg ;;
  *) url=file://$(pwd)/$svg ;;
esac
case $png in
  /*) out=$png ;;
  *) out=$(pwd)/$png ;;
esac

# A fresh profile each time, and everything that would reach the network
# switched off: the picture must render from the file alone.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$profile" --screenshot="$out" \
  --window-size="$width,$height" "$url" >/dev/null 2>&1
test -s "$out"
echo "$out"
