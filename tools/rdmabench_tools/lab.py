"""THE one "run this inside the soft-RDMA lab" helper: when this machine has
no RDMA device (or not the ones a tool wants), a tool re-runs itself inside
tools/rdma-lab, a qemu guest with kernel rxe0 (RoCEv2) and siw0 (iWARP).
Inside the guest RDMABENCH_LAB is set, so a tool never re-runs twice."""
import os
import subprocess
import sys

from . import paths

SYSFS = "/sys/class/infiniband"


def inside():
    """Whether this process runs inside the lab guest."""
    return bool(os.environ.get("RDMABENCH_LAB"))


def devices():
    """The RDMA devices of this machine, sorted (sysfs)."""
    try:
        return sorted(os.listdir(SYSFS))
    except OSError:
        return []


def missing(names=None):
    """The devices of `names` absent here; without names, [] when any device exists."""
    present = devices()
    if names is None:
        return [] if present else ["any RDMA device"]
    return [n for n in names if n not in present]


def shares_for(dirs):
    """The folders the guest must see: the tools' own tree (the source tree,
    or the install), the build, the installed binaries, and `dirs` (output
    folders, the current one); each once, parents before children."""
    wanted = [paths.source_root() or os.path.dirname(paths.TOOLS_DIR), paths.build_dir(),
              paths.installed_bin_dir(), *dirs]
    out = []
    for d in wanted:
        if d and os.path.isdir(d):
            d = os.path.realpath(d)
            if d not in out and d != "/":
                out.append(d)
    return out


def run(command, dirs=(), limit=900):
    """Runs argv `command` in the lab with `dirs` shared; its exit status."""
    cmd = [paths.tool("rdma-lab"), "-t", str(limit)]
    for d in shares_for(dirs):
        cmd += ["-s", d]
    return subprocess.call(cmd + ["--"] + list(command))


def rerun_self(prog, why, args=None, dirs=(), limit=900):
    """Re-runs the running entry point (its real path, by its own #! line:
    the guest shares the host's /usr, not a private Python) with `args`
    (default: this command line's) inside the lab, after saying `why`; its
    exit status. The packages do not ship the lab: installed, this says so."""
    if not os.path.exists(paths.tool("rdma-lab")):
        print(f"{prog}: {why}, and the soft-RDMA lab is not installed (it comes with a source tree, "
              "tools/rdma-lab); run on a machine with an RDMA device, or from a clone of rdmabench",
              file=sys.stderr, flush=True)
        return 1
    print(f"{prog}: {why}; running inside the soft-RDMA lab (tools/rdma-lab: rxe0 RoCEv2, siw0 iWARP)",
          file=sys.stderr, flush=True)
    entry = os.path.realpath(sys.argv[0])
    argv = sys.argv[1:] if args is None else list(args)
    return run([entry] + argv, [os.getcwd(), *dirs], limit)
