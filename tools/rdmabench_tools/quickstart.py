"""quickstart - from a fresh clone: install what is missing (Debian
packages), build every binary the user tools need, and run an rdma_write_bw
and an rdma_write_lat server/client pair. On a machine with an active RDMA
device the pairs run on it (loopback through the device); otherwise inside
the soft-RDMA lab (tools/rdma-lab), on rxe0 (RoCEv2) and siw0 (iWARP).
Afterwards tools/transport-shootout, tools/gdr-affinity-study and the rest
find everything they need already built.

It installs (tools/install-deps) only the group "build", what compiling
needs, and the group "lab" (qemu, perftest, ...) only when it is about to
use the lab; never Open MPI or Slurm (tools/run-tests' group "test").

Usage: tools/quickstart [--lab] [--dry-run]
  --lab      use the lab even if a device exists
  --dry-run  print the groups and packages it would install (the missing
             ones marked) and whether it would use a device or the lab;
             install, build and run nothing
  --version  print the version and the rdma-core it was built against

Environment: RDMABENCH_QUICKSTART_DEVICE replaces the search for an active
RDMA device (for tests): "none" behaves as if there were none, DEV:ADDRESS
(e.g. mlx5_0:192.0.2.1) as if port DEV with IPv4 ADDRESS had been found."""
import os
import subprocess
import sys

from . import devices, lab, paths, run_pair

PROG = "quickstart"
# What the user tools run: the benchmarks, rdma_topo (gdr-affinity-study),
# rdma_devices and tcp_baseline (transport-shootout).
TARGETS = [f"rdma_{op}_{kind}" for op in ("write", "read", "send", "atomic") for kind in ("bw", "lat")]
TARGETS += ["rdma_topo", "rdma_devices", "tcp_baseline"]


def log(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def pairs(device, address):
    """The two pairs on one device; 0 when both passed."""
    return (run_pair.run("rdma_write_bw", device, address, ["-n", "5000", "--report-gbits"]) or
            run_pair.run("rdma_write_lat", device, address, ["-n", "5000"]))


def in_lab():
    """The guest's half: both pairs on rxe0, then on siw0."""
    for title, dev, ip in (("rxe0 (RoCEv2)", "RXE_DEV", "RXE_IP"), ("siw0 (iWARP)", "SIW_DEV", "SIW_IP")):
        print(f"=== {title} ===", flush=True)
        status = pairs(os.environ[dev], os.environ[ip])
        if status:
            return status
    return 0


def find_device():
    """(device, IPv4 address) to run on, or None: RDMABENCH_QUICKSTART_DEVICE
    when set, else the first active port with an address."""
    forced = os.environ.get("RDMABENCH_QUICKSTART_DEVICE")
    if forced is None or forced == "":
        return devices.first_with_address()
    if forced == "none":
        return None
    device, sep, address = forced.partition(":")
    if not sep or not device or not address:
        raise ValueError(f"RDMABENCH_QUICKSTART_DEVICE={forced!r}: expected none or DEV:ADDRESS")
    return device, address


def install(groups, dry_run=False):
    """tools/install-deps for `groups`; its exit status."""
    return subprocess.run([paths.tool("install-deps"), *(["--dry-run"] if dry_run else []), *groups]).returncode


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if not set(argv) <= {"--lab", "--dry-run"} or len(set(argv)) != len(argv):
        print(__doc__, file=sys.stderr)
        return 2
    if lab.inside():
        return in_lab()
    use_lab = "--lab" in argv
    dry_run = "--dry-run" in argv
    try:
        found = None if use_lab else find_device()
    except ValueError as e:
        log(f"error: {e}")
        return 2
    groups = ["build"] if found else ["build", "lab"]
    if dry_run:
        status = install(groups, dry_run=True)
        where = (f"on {found[0]} ({found[1]})" if found else
                 f"in the soft-RDMA lab ({'--lab' if use_lab else 'no active RDMA device here'})")
        log(f"would install the missing packages of the groups [{' '.join(groups)}], then build and run {where}")
        return status
    root = paths.source_root()
    if install(["build"]) != 0:
        log("error: tools/install-deps build failed")
        return 1
    log(f"building in {paths.build_dir()}")
    try:
        # No tests: the build group has no Catch2 (tools/run-tests configures them back ON).
        subprocess.run(["cmake", "-S", root, "-B", paths.build_dir(), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        "-DRDMABENCH_BUILD_TESTS=OFF"], check=True, stdout=subprocess.DEVNULL)
        paths.build(TARGETS, log)
    except (subprocess.CalledProcessError, paths.MissingBinary) as e:
        log(f"error: {e}")
        return 1
    if found:
        log(f"running on {found[0]} ({found[1]})")
        return pairs(*found)
    if install(["lab"]) != 0:
        log("error: tools/install-deps lab failed")
        return 1
    why = "--lab" if use_lab else "no active RDMA device here"
    return lab.rerun_self(PROG, f"{why} (first run downloads ~220 MB)", args=[])
