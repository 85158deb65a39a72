"""What the unit tests of the Python tools in tools/ share: loading a tool
(a script without .py) as a module, and checks that print each verdict and
set the exit status at the end."""
import importlib.machinery
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
failures = []


def load_tool(name):
    """tools/NAME as a module, without running its main()."""
    module = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module, os.path.join(REPO, "tools", name))
    tool = importlib.util.module_from_spec(importlib.util.spec_from_loader(module, loader))
    loader.exec_module(tool)
    return tool


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def finish():
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)
