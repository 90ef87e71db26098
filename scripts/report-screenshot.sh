#!/usr/bin/env bash
# Renders an acclab report page (acclab report ... --out REPORT.html) in headless Chromium and
# saves what a reader sees as a PNG, failing when the browser reports an error on the page's
# console or loads anything from the network (the page must open offline).
# usage: scripts/report-screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]
# Needs Debian's chromium (apt-get install chromium; scripts/setup.sh leaves it out: it is large,
# and CI checks the page's structure without a browser). Exit 2: bad usage or no chromium.
set -u

fail() {
  echo "report-screenshot: $1" >&2
  exit "${2:-1}"
}

(($# == 2 || $# == 3)) || fail "usage: report-screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]" 2
page=$1
out=$2
size=${3:-1400,2000}
[[ -f $page && -r $page ]] || fail "$page: no such readable file" 2
[[ $out == *.png ]] || fail "$out: expected a .png file name" 2
[[ -d $(dirname -- "$out") ]] || fail "$out: no directory $(dirname -- "$out")" 2
[[ $size =~ ^[0-9]+,[0-9]+$ ]] || fail "$size: expected WIDTH,HEIGHT in pixels" 2
browser=$(command -v chromium || command -v chromium-browser) ||
  fail "no chromium on this machine (apt-get install chromium)" 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The PNG is written beside OUT and renamed once whole: no half-written picture.
partial=$(mktemp -p "$(dirname -- "$out")" .report-screenshot-XXXXXX.png) ||
  fail "$out: cannot write there"
trap 'rm -rf "$work" "$partial"' EXIT

# No network: every fetch goes to a proxy that does not exist, so that a resource the page
# tried to load shows up as a failed request in the log below rather than loading.
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
  --hide-scrollbars --screenshot="$partial" --window-size="$size" \
  "file://$(realpath -- "$page")" > "$work/stdout" 2> "$work/log"
status=$?
((status == 0)) || fail "chromium exited with status $status: $(tail -n 1 "$work/log")"
if grep -E 'ERROR:CONSOLE|Uncaught|net::ERR_' "$work/log" > "$work/errors"; then
  fail "the page reported errors: $(head -n 1 "$work/errors") ($(wc -l < "$work/errors") lines)"
fi
[[ -s $partial ]] || fail "chromium wrote no picture"
chmod 644 "$partial"
mv -f -- "$partial" "$out" || fail "$out: cannot write"
echo "report-screenshot: $out"
