"""What the unit tests of the Python tools in tools/ share: the tools'
package on the import path, and checks that print each verdict and set the
exit status at the end."""
import importlib
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "tools"))
failures = []


def load_tool(module):
    """rdmabench_tools.MODULE, the code of a tool, without running its main()."""
    return importlib.import_module("rdmabench_tools." + module)


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def finish():
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)
