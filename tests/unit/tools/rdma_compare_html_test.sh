#!/bin/sh
# rdma_compare's HTML page renders: headless Chromium opens it (a file of
# its own, no network) and takes a screenshot. SKIPPED where no Chromium is
# installed (Debian: chromium; tools/install-deps does not install it).
# Usage: rdma_compare_html_test.sh RDMA_COMPARE DATA_DIR
# A cross build's binary runs through $RDMABENCH_TEST_EMULATOR (qemu-user).
set -u
[ $# -eq 2 ] || { echo "usage: $0 RDMA_COMPARE DATA_DIR" >&2; exit 2; }
browser=""
for name in chromium chromium-browser google-chrome; do
  command -v "$name" >/dev/null 2>&1 && { browser=$name; break; }
done
[ -n "$browser" ] || { echo "SKIPPED: no headless Chromium here (Debian: chromium) to render the page"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${RDMABENCH_TEST_EMULATOR:-} "$1" "$2/before" "$2/slower" --format html --out "$tmp/compare.html" 2>/dev/null
[ $? -eq 1 ] || { echo "FAIL: rdma_compare before slower did not exit 1"; exit 1; }
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --window-size=1300,2400 \
  --screenshot="$tmp/compare.png" "file://$tmp/compare.html" >"$tmp/browser.log" 2>&1
magic=$(head -c 8 "$tmp/compare.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
size=$(wc -c <"$tmp/compare.png" 2>/dev/null || echo 0)
# A page that failed to render is one colour: a few KB of PNG; this one's
# table and plots make well over 30 KB.
if [ "$magic" != 89504e470d0a1a0a ] || [ "$size" -lt 30000 ]; then
  echo "FAIL: no screenshot of the page (PNG of $size bytes):"
  cat "$tmp/browser.log"
  exit 1
fi
echo "ok: $browser rendered the page ($size bytes of PNG); all passed"
