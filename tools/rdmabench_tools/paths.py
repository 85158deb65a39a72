"""Where things are: the tools, the source tree, its build, and our binaries.

The package lives in tools/ of a source tree, or installed under
<prefix>/<libdir>/rdmabench/tools/ beside a generated _installed.py that
says where <prefix>/bin is. Binaries come from the installed location first,
else from the build directory (RDMABENCH_BUILD, default <source>/build),
which is built on demand when a source tree is present."""
import os
import shutil
import subprocess
import sys

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


class MissingBinary(RuntimeError):
    """A binary is neither installed nor built; the message says how to get it."""


def source_root():
    """The repository root when the tools run from a source tree, else None."""
    root = os.path.dirname(TOOLS_DIR)
    if os.path.isfile(os.path.join(root, "CMakeLists.txt")) and os.path.isdir(os.path.join(root, "bench")):
        return root
    return None


def installed_bin_dir():
    """<prefix>/bin when the tools run from an install, else None."""
    try:
        from . import _installed  # written by the install rules (tools/CMakeLists.txt)
    except ImportError:
        return None
    return os.path.normpath(os.path.join(TOOLS_DIR, _installed.BINDIR_FROM_TOOLS))


def build_dir():
    """The build directory: RDMABENCH_BUILD, else build/ of the source tree (None without one)."""
    if os.environ.get("RDMABENCH_BUILD"):
        return os.path.abspath(os.environ["RDMABENCH_BUILD"])
    root = source_root()
    return os.path.join(root, "build") if root else None


def tool(name):
    """Path of another entry point of the tools (rdma-lab, run-pair, ...)."""
    return os.path.join(TOOLS_DIR, name)


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _candidates(name):
    inst = installed_bin_dir()
    if inst:
        yield os.path.join(inst, name)
    build = build_dir()
    if build:
        yield os.path.join(build, "bench", name)


def build_command(targets):
    """The command that builds `targets` in this source tree's build directory."""
    return ["cmake", "--build", build_dir(), "-j", str(os.cpu_count() or 2), "--target", *targets]


def how_to_get(name):
    """The exact command that builds or installs binary `name`, as text."""
    if source_root() and build_dir():
        return f"{name} is not built: run `cmake --build {build_dir()} --target {name}`"
    return (f"{name} is not installed in {installed_bin_dir() or '<prefix>/bin'}: install rdmabench "
            f"(`cmake --install build --prefix PREFIX` from a source tree, or its .deb)")


def build(targets, log=None):
    """Builds `targets` (configuring the build directory first if it has never
    been); raises MissingBinary naming the command when that fails."""
    root, build = source_root(), build_dir()
    if not root or not build:
        raise MissingBinary(how_to_get(targets[0]))
    say = log or (lambda m: print(m, file=sys.stderr, flush=True))
    steps = []
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        steps.append(["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
    steps.append(build_command(targets))
    for cmd in steps:
        say("building: " + " ".join(cmd))
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            tail = "\n".join(done.stdout.splitlines()[-15:])
            raise MissingBinary(f"`{' '.join(cmd)}` failed (status {done.returncode}):\n{tail}")


def binaries(names, build_missing=True, log=None):
    """{name: path} of our binaries; missing ones are built in one go when a
    source tree is present (and build_missing), else MissingBinary says how."""
    found, missing = {}, []
    for name in names:
        path = next((p for p in _candidates(name) if _executable(p)), None)
        if path:
            found[name] = path
        else:
            missing.append(name)
    if missing and build_missing and source_root() and not os.environ.get("RDMABENCH_LAB"):
        build(missing, log)  # (not inside the lab guest: the host builds before booting it)
        return binaries(names, build_missing=False)
    if missing:
        raise MissingBinary("; ".join(how_to_get(n) for n in missing))
    return found


def binary(name, build_missing=True, log=None):
    """Path of one of our binaries (see binaries())."""
    return binaries([name], build_missing, log)[name]


class OutputFolder:
    """A run's output folder, created (with its parents) at once; used as a
    context manager, it removes again what it created if no file was written
    in it, so that a run that failed leaves no empty folder behind."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.created = []
        d = self.path
        while not os.path.exists(d):
            self.created.append(d)
            d = os.path.dirname(d)
        os.makedirs(self.path, exist_ok=True)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.created and not any(files for _, _, files in os.walk(self.path)):
            shutil.rmtree(self.path, ignore_errors=True)
            for d in self.created[1:]:  # parents it created, if now empty
                try:
                    os.rmdir(d)
                except OSError:
                    break
        return False
