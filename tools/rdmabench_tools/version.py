"""--version of the tools: the same two lines as the binaries print,

    TOOL (rdmabench) VERSION
    built against rdma-core 44.0 (libibverbs 1.14.44.0, librdmacm 1.3.44.0)

TOOL being the name the tool was invoked as (rdmabench-run-pair installed,
run-pair in the tree); help2man reads the first line. Installed, both come
from _installed.py (VERSION, RDMA_CORE: written by tools/CMakeLists.txt),
else from the installed rdma_write_bw --version. From a source tree: the
version of the top CMakeLists.txt's project(), the rdma-core of the build's
rdma_write_bw --version if it is built, else this host's libibverbs
(pkg-config), else "unknown". tools/rdmabench_tools/usage.sh does the same
for the bash tools."""
import argparse
import os
import re
import shutil
import subprocess
import sys

from . import paths

HELP = "print the version and the rdma-core it was built against, and exit"


def _installed():
    try:
        from . import _installed as inst  # written by the install rules (tools/CMakeLists.txt)
    except ImportError:
        return None
    return inst


def version():
    """rdmabench's version, x.y.z ("unknown" if nothing says)."""
    inst = _installed()
    if inst is not None:
        if getattr(inst, "VERSION", None):
            return inst.VERSION
        first = _binary_lines(os.path.join(paths.installed_bin_dir(), "rdma_write_bw"))
        m = first and re.search(r"\(rdmabench\) (\S+)$", first[0])
        if m:
            return m.group(1)
    root = paths.source_root()
    if root:
        try:
            with open(os.path.join(root, "CMakeLists.txt")) as f:
                m = re.search(r"^\s*project\s*\(\s*rdmabench\s+VERSION\s+([0-9][0-9.]*)", f.read(), re.M)
            if m:
                return m.group(1)
        except OSError:
            pass
    return "unknown"


def _binary_lines(path):
    """The two lines of `path --version` (a binary's), or None."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None
    try:
        done = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines()]
    if done.returncode == 0 and len(lines) >= 2 and "rdma-core" in lines[1]:
        return lines[:2]
    return None


def _binary_line(path):
    """The second line of `path --version` (the binaries' rdma-core line), or None."""
    lines = _binary_lines(path)
    return lines[1] if lines else None


def _host_libibverbs():
    """The rdma-core of this host's libibverbs (1.14.44.0 -> 44.0), or None."""
    if not shutil.which("pkg-config"):
        return None
    try:
        done = subprocess.run(["pkg-config", "--modversion", "libibverbs"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = done.stdout.strip().split(".")
    if done.returncode != 0 or len(fields) < 2:
        return None
    return ".".join(fields[-2:])


def rdma_core():
    """The second line: the rdma-core the binaries were built against."""
    inst = _installed()
    if inst is not None:
        core = getattr(inst, "RDMA_CORE", None)
        if core:
            return core if "rdma-core" in core else f"built against rdma-core {core}"
        line = _binary_line(os.path.join(paths.installed_bin_dir(), "rdma_write_bw"))
        if line:
            return line
    build = paths.build_dir()
    if build:
        line = _binary_line(os.path.join(build, "bench", "rdma_write_bw"))
        if line:
            return line
    host = _host_libibverbs()
    if host:
        return f"rdma-core {host} (this host's libibverbs; not built yet)"
    return "rdma-core: unknown"


def text(prog=None):
    """The two lines of --version, without the final newline."""
    prog = prog or os.path.basename(sys.argv[0])
    return f"{prog} (rdmabench) {version()}\n{rdma_core()}"


def answer_or_run(main, argv=None):
    """What an entry point calls instead of main(): prints the version and
    returns 0 when the arguments are exactly --version, else main()'s result."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:
        print(text())
        return 0
    return main()


class _VersionAction(argparse.Action):
    """--version in an argparse parser: computed only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=HELP):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(text())
        parser.exit(0)


def add_argument(parser):
    """Adds --version to an argparse parser (shown in its --help); an entry
    point's answer_or_run answers a lone --version before the parser runs."""
    parser.add_argument("--version", action=_VersionAction)
