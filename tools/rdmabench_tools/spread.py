"""Repeats of one cell: its median and min-max range, and whether two cells
differ by more than their noise.

The studies (gdr-affinity-study, transport-shootout) measure each cell
several times (--repeats, 3 by default) and report the median with its
range, never one run. The rule for "within noise" is the simplest one a
reader can check by eye: two cells are within noise of each other when
their min-max ranges overlap. With one run a cell has no range, and a
comparison says so instead of naming a winner.
"""
import statistics

RULE = "within noise: the two cells' min-max ranges over their repeats overlap"
NO_RANGE = "1 run: no range"


def summarize(values):
    """{'median', 'min', 'max', 'runs', 'values'} of one cell's repeats."""
    values = [float(v) for v in values]
    if not values:
        raise ValueError("a cell needs at least one measured value")
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": len(values), "values": values}


def cell_text(s, digits=2):
    """'52.60 (48.10-60.20)': the median and its range; one run: the value alone."""
    if s["runs"] < 2:
        return f"{s['median']:.{digits}f}"
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"


def overlap(a, b):
    """Whether the ranges of a and b share a value."""
    return a["min"] <= b["max"] and b["min"] <= a["max"]


def compare(a, b, name_a, name_b, higher_is_better=True):
    """One line on a pair of cells: '1 run: no range', 'within noise', or
    which is better and by how much (medians), when the ranges are apart."""
    if a["runs"] < 2 or b["runs"] < 2:
        return NO_RANGE
    if overlap(a, b):
        return "within noise"
    better, worse = (a, b) if (a["median"] > b["median"]) == higher_is_better else (b, a)
    name = name_a if better is a else name_b
    if worse["median"] == 0:
        return f"{name} better"
    change = abs(better["median"] - worse["median"]) / worse["median"] * 100
    return f"{name} better by {change:.0f}%"


def best_of(named, lower_is_better=False):
    """A row of several cells [(name, summary or None)]: the best against the
    runner-up, 'within noise' when their ranges overlap, else 'NAME ahead,
    ranges apart'; '1 run: no range' if a cell has one run; '-' with fewer
    than two cells. The text has no figures of its own."""
    cells = [(n, s) for n, s in named if s is not None]
    if len(cells) < 2:
        return "-"
    if any(s["runs"] < 2 for _, s in cells):
        return NO_RANGE
    cells.sort(key=lambda ns: ns[1]["median"], reverse=not lower_is_better)
    (best, a), (_, b) = cells[0], cells[1]
    return "within noise" if overlap(a, b) else f"{best} ahead, ranges apart"


def error_bars(cells):
    """matplotlib's yerr for bars at the medians: [[below...], [above...]];
    a missing cell (None) gets no bar."""
    below = [0.0 if s is None else s["median"] - s["min"] for s in cells]
    above = [0.0 if s is None else s["max"] - s["median"] for s in cells]
    return [below, above]
