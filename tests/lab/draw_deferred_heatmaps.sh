#!/usr/bin/env bash
# draw_deferred_heatmaps.sh QUEUE - on the host, after the lab guest: draw
# the heatmaps of every sweep folder that defer_heatmaps.sh handed over in
# the guest, with tools/sweep-heatmaps, and check that each folder has one
# PNG (a real one) per CSV. The queue is emptied afterwards, so a stale
# folder cannot pass a later run. Exits 77 (skipped) when no sweep handed
# anything over (the guest's sweep cases did not run) or without matplotlib.
# (The tools run on /usr/bin/python3, Debian's, which has it.)
set -uo pipefail
queue=${1:?usage: draw_deferred_heatmaps.sh QUEUE}
HERE=$(cd "$(dirname "$0")" && pwd -P)
tool=$HERE/../../tools/sweep-heatmaps
if [ ! -s "$queue/list" ]; then
  echo "SKIPPED: no sweep handed its heatmaps over in $queue (the lab guest's rdma_sweep cases did not run)"
  exit 77
fi
/usr/bin/python3 -c "import matplotlib" 2>/dev/null ||
  { echo "SKIPPED: no matplotlib (tools/install-deps test installs python3-matplotlib)"; exit 77; }
status=0
while IFS=$'\t' read -r origin copy; do
  "$tool" "$copy" > /dev/null || { echo "FAIL: $tool $copy exited non-zero (the guest's $origin)"; status=1; continue; }
  csvs=0 pngs=0
  for csv in "$copy"/*.csv; do
    [ -e "$csv" ] || continue
    csvs=$((csvs + 1))
    png=${csv%.csv}.png
    if [ "$(head -c 4 "$png" 2>/dev/null | tail -c 3)" = PNG ]; then  # the PNG signature
      pngs=$((pngs + 1))
    else
      echo "FAIL: no PNG heatmap for $(basename "$csv") (the guest's $origin)"; status=1
    fi
  done
  echo "$( [ "$csvs" -gt 0 ] && [ "$pngs" = "$csvs" ] && echo ok || echo FAIL ): $origin: $csvs CSVs, $pngs PNGs"
  [ "$csvs" -gt 0 ] || status=1
done < "$queue/list"
rm -rf "$queue"
exit "$status"
