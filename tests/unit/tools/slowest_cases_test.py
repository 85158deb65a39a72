#!/usr/bin/python3
"""Unit test of tests/timing/slowest_cases.py, the list tools/run-tests ends
with: cases of the host's and the guest's JUnit files ranked together by
ctest's seconds, failures and skips marked, the guest's wrapper case listed
apart, and a missing file noted rather than fatal."""
import contextlib
import importlib.util
import io
import os
import tempfile

from tool_test_helpers import REPO, check, finish

spec = importlib.util.spec_from_file_location("slowest_cases", os.path.join(REPO, "tests/timing/slowest_cases.py"))
slowest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(slowest)

scratch = tempfile.mkdtemp(prefix="slowest-test-")
HOST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="host" tests="3">
  <testcase name="lab.soft-RDMA-guest" time="900.5" status="run"/>
  <testcase name="lab.no-ipv6" time="41.0" status="run"/>
  <testcase name="unit.quick" time="0.2" status="run"/>
</testsuite>"""
GUEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="guest" tests="3">
  <testcase name="lab.fault-matrix" time="300.0" status="run"/>
  <testcase name="lab.flaky" time="12.5" status="fail"><failure message="Failed"/></testcase>
  <testcase name="lab.needs-gpu" time="0.1" status="run"><skipped message="SKIPPED"/></testcase>
</testsuite>"""
for name, text in [("lab.xml", HOST), ("lab-guest.xml", GUEST)]:
    with open(os.path.join(scratch, name), "w") as f:
        f.write(text)

out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = slowest.main(["-n", "3", os.path.join(scratch, "lab.xml"), os.path.join(scratch, "lab-guest.xml"),
                       os.path.join(scratch, "unit.xml")])
lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
print(out.getvalue())
check(rc == 0, "exit 0 with one file missing")
check("no " + os.path.join(scratch, "unit.xml") in err.getvalue(), "the missing file is named")
check(lines[0].startswith("The 3 slowest of 5 test cases"), "the header counts the ranked cases, not the wrapper")
check(lines[1].split()[:3] == ["300.0", "guest", "lab.fault-matrix"], "the guest's slowest case ranks first")
check(lines[2].split()[:3] == ["41.0", "host", "lab.no-ipv6"], "a host case ranks beside the guest's")
check(lines[3].endswith("lab.flaky  (failed)"), "a failed case is marked")
check(len(lines) == 5 and "lab.soft-RDMA-guest" in lines[4] and "whole run" in lines[4],
      "the wrapper case is listed apart, after the ranking")
finish()
