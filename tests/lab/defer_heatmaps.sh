#!/usr/bin/env bash
# defer_heatmaps.sh DIR - a stand-in for tools/sweep-heatmaps, given to
# rdma_sweep inside the lab guest as RDMABENCH_SWEEP_HEATMAPS: instead of
# drawing (matplotlib takes about 10 s a heatmap under the guest's emulated
# CPU), it copies the sweep's folder to $RDMABENCH_DEFERRED_HEATMAPS, a
# folder the host shares, and lists it there. After the guest exits, the
# host's ctest case lab.sweep-heatmaps-on-host (draw_deferred_heatmaps.sh)
# draws every listed folder with the real tool and checks one PNG per CSV.
# The list's line is "SWEEP_FOLDER<TAB>COPY": the guest's sweep test checks
# that its folder was handed over (rdma_sweep ran the tool on it).
set -euo pipefail
dir=${1:?usage: defer_heatmaps.sh DIR}
queue=${RDMABENCH_DEFERRED_HEATMAPS:?defer_heatmaps.sh: RDMABENCH_DEFERRED_HEATMAPS is not set}
mkdir -p "$queue"
copy=$(mktemp -d "$queue/sweep.XXXXXX")
cp -r "$dir"/. "$copy"/
printf '%s\t%s\n' "$(cd "$dir" && pwd -P)" "$copy" >> "$queue/list"
echo "defer_heatmaps: $dir handed to the host to draw ($copy)"
