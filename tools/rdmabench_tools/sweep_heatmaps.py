"""sweep-heatmaps - a PNG heatmap beside each N x N CSV of an rdma_sweep
report: DIR/<test>-<figure>.csv gives DIR/<test>-<figure>.png.

Usage: tools/sweep-heatmaps DIR

Row is the client, column the server, as in the CSV. Green is the good end
of the figure (high bandwidth and message rate, low latency), red the bad
end; grey cells were not measured, black ones FAILED (no figure came).
A <test>-change_<figure>.csv (rdma_sweep --baseline) holds each pair's
change against the baseline sweep, in percent: its scale is centred on no
change, red for worse and green for better.
Cells carry their value when the matrix has 16 endpoints or fewer. Run it
before rdma_sweep writes report.html, or write the report again, for the
page to embed the PNGs.

Needs matplotlib (Debian: python3-matplotlib, which `tools/install-deps
test` installs); without it, it says so and exits 0, drawing nothing.
"""
import argparse
import csv
import glob
import os
import sys
import tempfile

from . import version

FAILED = "FAILED"
ANNOTATE_UP_TO = 16

# The figure keys of the report (lib/sweep/report_figures.cpp): name, unit, higher is better.
FIGURES = {
    "bw_average_Gbps": ("bandwidth", "Gb/s", True),
    "bw_peak_Gbps": ("peak bandwidth", "Gb/s", True),
    "bw_message_rate_Mpps": ("message rate", "Mpps", True),
    "lat_mean_us": ("average latency", "us", False),
    "lat_median_us": ("median latency", "us", False),
    "lat_p99_us": ("p99 latency", "us", False),
    "lat_p99_9_us": ("p99.9 latency", "us", False),
    "lat_max_us": ("maximum latency", "us", False),
}


def read_matrix(path):
    """(labels, cells) of one CSV: cells[row][column] is a float, None (not
    measured) or FAILED. Raises ValueError naming the file and the cell."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or len(rows) != len(rows[0]):
        raise ValueError(f"{path}: not an N x N matrix with a header row and column")
    labels = rows[0][1:]
    cells = []
    for r, row in enumerate(rows[1:], start=1):
        if len(row) != len(labels) + 1:
            raise ValueError(f"{path}: row {r} has {len(row) - 1} cells, the header {len(labels)}")
        cells.append([parse_cell(path, r, text) for text in row[1:]])
    return labels, cells


def parse_cell(path, row, text):
    if text == "":
        return None
    if text == FAILED:
        return FAILED
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{path}: row {row} holds {text!r}, which is no number, FAILED or empty") from None


CHANGE_PREFIX = "change_"


def describe(name):
    """(test, figure name, unit, higher is better) from '<test>-<figure>.csv'."""
    test, _, key = os.path.splitext(os.path.basename(name))[0].rpartition("-")
    if key.startswith(CHANGE_PREFIX):
        # The change of a figure against the baseline: better the figure's way.
        base = key[len(CHANGE_PREFIX):]
        figure, _, higher = FIGURES.get(base, (base, "", not base.startswith("lat_")))
        return test or key, f"change of {figure} against the baseline", "%", higher
    figure, unit, higher = FIGURES.get(key, (key, "", not key.startswith("lat_")))
    return test or key, figure, unit, higher


def is_change(name):
    return os.path.splitext(os.path.basename(name))[0].rpartition("-")[2].startswith(CHANGE_PREFIX)


def number_text(v):
    """As report.md writes a figure: 95.2, 41.1, 3.05, 120."""
    a = abs(v)
    return f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 0.1 else f"{v:.3g}"


def import_pyplot():
    """matplotlib.pyplot with the Agg backend, or None when it is missing.
    In a guest with a read-only or foreign home, matplotlib's config and
    font cache go to a fresh temporary folder instead of warning."""
    home = os.path.expanduser("~")
    if "MPLCONFIGDIR" not in os.environ and not os.access(home, os.W_OK):
        os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="sweep-heatmaps-mpl-")
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def draw(plt, csv_path, png_path):
    labels, cells = read_matrix(csv_path)
    test, figure, unit, higher = describe(csv_path)
    n = len(labels)
    values = [[v if isinstance(v, float) else float("nan") for v in row] for row in cells]
    size = max(4.0, 0.6 * n + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    cmap = plt.get_cmap("RdYlGn" if higher else "RdYlGn_r").copy()
    cmap.set_bad("#cccccc")  # not measured (and FAILED, drawn over in black)
    limits = {}
    if is_change(csv_path):
        # No change is the middle of the scale, whatever the pairs did.
        largest = max([abs(v) for row in cells for v in row if isinstance(v, float)] or [1.0]) or 1.0
        limits = {"vmin": -largest, "vmax": largest}
    image = ax.imshow(values, cmap=cmap, interpolation="nearest", **limits)
    for r, row in enumerate(cells):
        for c, v in enumerate(row):
            if v == FAILED:
                ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, color="black"))
                ax.text(c, r, FAILED if n <= ANNOTATE_UP_TO else "X", ha="center", va="center", color="white",
                        fontsize=7, fontweight="bold")
            elif isinstance(v, float) and n <= ANNOTATE_UP_TO:
                ax.text(c, r, number_text(v), ha="center", va="center", color="black", fontsize=8)
    ax.set_xticks(range(n), labels, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(n), labels, fontsize=8)
    ax.set_xlabel("server")
    ax.set_ylabel("client")
    ax.set_title(f"{test}: {figure}" + (f" ({unit})" if unit else ""))
    fig.colorbar(image, ax=ax, label=unit or figure, shrink=0.8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(prog="sweep-heatmaps", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    version.add_argument(p)
    p.add_argument("dir", help="the rdma_sweep output folder holding <test>-<figure>.csv")
    a = p.parse_args(argv)
    if not os.path.isdir(a.dir):
        print(f"sweep-heatmaps: '{a.dir}' is not a folder (give rdma_sweep's output folder)", file=sys.stderr)
        return 2
    csvs = sorted(glob.glob(os.path.join(a.dir, "*.csv")))
    if not csvs:
        print(f"sweep-heatmaps: no *.csv in '{a.dir}', nothing to draw")
        return 0
    plt = import_pyplot()
    if plt is None:
        print("sweep-heatmaps: matplotlib is not installed (Debian: python3-matplotlib), no heatmaps drawn")
        return 0
    try:
        for path in csvs:
            draw(plt, path, os.path.splitext(path)[0] + ".png")
    except ValueError as e:
        print(f"sweep-heatmaps: {e}", file=sys.stderr)
        return 1
    print(f"sweep-heatmaps: drew {len(csvs)} heatmaps in {a.dir}")
    return 0
