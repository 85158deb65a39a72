#!/usr/bin/python3
"""slowest_cases - the slowest test cases of a run, from ctest's JUnit files.

Usage: slowest_cases.py [-n N] FILE.xml...

Each FILE is what `ctest --output-junit` wrote: the host's tiers, and the
lab guest's own ctest run (tests/CMakeLists.txt, lab.soft-RDMA-guest), so
the cases inside the guest are ranked beside the host's. A case that only
wraps others (lab.soft-RDMA-guest, the guest's whole run) is listed apart,
not ranked. Missing files are skipped with a note: a run stopped early has
fewer of them."""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

# Cases whose time is the sum of other cases' (the guest's ctest run).
WRAPPERS = {"lab.soft-RDMA-guest"}


def cases(path, where):
    """(seconds, name, status, where) for every case of one JUnit file."""
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        status = case.get("status", "run")
        if case.find("failure") is not None:
            status = "failed"
        elif case.find("skipped") is not None or status == "notrun":
            status = "skipped"
        else:
            status = "passed"
        yield float(case.get("time", "0")), case.get("name", "?"), status, where


def main(argv=None):
    p = argparse.ArgumentParser(prog="slowest_cases", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", type=int, default=10, help="how many cases to list (default 10)")
    p.add_argument("files", nargs="+", metavar="FILE.xml")
    args = p.parse_args(argv)
    ranked, wrappers = [], []
    for path in args.files:
        if not os.path.isfile(path):
            print(f"slowest_cases: no {path} (that tier did not run)", file=sys.stderr)
            continue
        where = "guest" if "guest" in os.path.basename(path) else "host"
        for c in cases(path, where):
            (wrappers if c[1] in WRAPPERS else ranked).append(c)
    ranked.sort(reverse=True)
    print(f"\nThe {min(args.n, len(ranked))} slowest of {len(ranked)} test cases (seconds, ctest's timings):")
    for seconds, name, status, where in ranked[:args.n]:
        print(f"  {seconds:8.1f}  {where:5}  {name}" + ("" if status == "passed" else f"  ({status})"))
    for seconds, name, _, where in wrappers:
        print(f"  {seconds:8.1f}  {where:5}  {name} (the guest's whole run: the guest cases above and the rest)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
