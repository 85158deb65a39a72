#!/usr/bin/python3
"""Unit test of tools/sweep-heatmaps: reading the report's CSV matrices
(values, empty cells, FAILED, a bad cell named), the figure's direction from
the file name, the notice without matplotlib, and, where matplotlib is
installed, one PNG per CSV. Without matplotlib the drawing is SKIPPED
(exit 77) after the checks that need none."""
import contextlib
import io
import os
import sys
import tempfile

from tool_test_helpers import check, failures, load_tool

hm = load_tool("sweep_heatmaps")

MATRIX = ("client\\server,0:host-a:mlx5_0,1:host-b:mlx5_0,2:host-c:mlx5_0\n"
          "0:host-a:mlx5_0,,FAILED,95.1\n"
          "1:host-b:mlx5_0,95.3,,41.1\n"
          "2:host-c:mlx5_0,95.4,41.2,\n")

with tempfile.TemporaryDirectory() as out:
    bw = os.path.join(out, "write_bw-bw_average_Gbps.csv")
    with open(bw, "w") as f:
        f.write(MATRIX)
    with open(os.path.join(out, "write_lat-lat_p99_us.csv"), "w") as f:
        f.write(MATRIX.replace("95.", "3.").replace("41.", "9."))
    labels, cells = hm.read_matrix(bw)
    check(labels == ["0:host-a:mlx5_0", "1:host-b:mlx5_0", "2:host-c:mlx5_0"], f"labels from the header: {labels}")
    check(cells[0] == [None, hm.FAILED, 95.1], f"empty, FAILED and a value: {cells[0]}")
    check(cells[2][1] == 41.2, "row is the client, column the server")
    check(hm.describe(bw) == ("write_bw", "bandwidth", "Gb/s", True), "bandwidth: higher is better")
    check(hm.describe("x/send_lat-lat_p99_us.csv") == ("send_lat", "p99 latency", "us", False),
          "p99 latency: lower is better")
    check(hm.number_text(41.14) == "41.1" and hm.number_text(3.051) == "3.05", "numbers as report.md writes them")
    # rdma_sweep --baseline: the change in percent, better the figure's way.
    change = os.path.join(out, "write_bw-change_bw_average_Gbps.csv")
    with open(change, "w") as f:
        f.write(MATRIX.replace("95.1", "-20.5").replace("95.3", "1.5").replace("95.4", "0.2"))
    check(hm.describe(change) == ("write_bw", "change of bandwidth against the baseline", "%", True),
          f"a bandwidth's change: higher is better, in %: {hm.describe(change)}")
    check(hm.describe("x/write_lat-change_lat_p99_us.csv")[3] is False, "a p99's change: lower is better")
    check(hm.is_change(change) and not hm.is_change(bw), "a change matrix is told by its name")

    bad = os.path.join(out, "bad.csv.txt")
    with open(bad, "w") as f:
        f.write(MATRIX.replace("41.1", "slow"))
    try:
        hm.read_matrix(bad)
        check(False, "a cell that is no number is refused")
    except ValueError as e:
        check("row 2 holds 'slow'" in str(e), f"a bad cell is named: {e}")

    # Without matplotlib: a one-line notice, exit 0, nothing drawn.
    saved = sys.modules.get("matplotlib")
    sys.modules["matplotlib"] = None  # makes `import matplotlib` raise ImportError
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        status = hm.main([out])
    if saved is None:
        del sys.modules["matplotlib"]
    else:
        sys.modules["matplotlib"] = saved
    check(status == 0 and "matplotlib is not installed" in said.getvalue(), f"no matplotlib: {said.getvalue()!r}")
    check(not os.path.exists(os.path.join(out, "write_bw-bw_average_Gbps.png")), "and no PNG")
    check(hm.main([os.path.join(out, "absent")]) == 2, "a folder that is not there is refused")

    try:
        import matplotlib  # noqa: F401
        have_matplotlib = True
    except ImportError:
        have_matplotlib = False
    if have_matplotlib:
        os.remove(bad)
        with contextlib.redirect_stdout(io.StringIO()):
            status = hm.main([out])
        check(status == 0, "draws with matplotlib")
        for name in ("write_bw-bw_average_Gbps.png", "write_lat-lat_p99_us.png", "write_bw-change_bw_average_Gbps.png"):
            png = os.path.join(out, name)
            with open(png, "rb") as f:
                check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name} is a PNG")

print(f"{len(failures)} failed" if failures else "all passed")
if failures:
    sys.exit(1)
if not have_matplotlib:
    print("SKIPPED: matplotlib is not installed here (python3-matplotlib), so no heatmap was drawn")
    sys.exit(77)
