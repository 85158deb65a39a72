"""gpu-check - on a machine with an NVIDIA GPU, check GPUDirect RDMA memory in
one go: build, allocate on the GPU through rdmabench's CUDA plug-in, export
a dma-buf, validate patterns with device copies, register the memory by
dma-buf and by peer memory on the first RDMA device, and, when that device
has an IP address, run real pairs with GPU memory on one side and
--validate: large messages, and 2 B and 64 B ones with GPU memory on the
sending and on the receiving side (where a provider would copy an inline
send or a small receive with the CPU). Prints PASS/FAIL/SKIP per check.

Usage: tools/gpu-check [--no-build] [--standin] [MEM]
  MEM        the GPU memory to check (default cuda:0)
  --no-build use build/ as it is
  --standin  run against the test stand-in driver (host memory, NOT a
             GPU, which the CPU cannot touch once registered, as a GPU's):
             checks this script and the plug-in on any machine
  --version  print the version and the rdma-core it was built against
Exit: 0 all passed; 1 a check failed; 77 no CUDA driver or GPU here.
Env: RDMABENCH_BUILD (default build/), RDMABENCH_CUDA_DRIVER (the driver)."""
import os
import re
import subprocess
import sys

from . import devices, pair, paths

SKIP = 77


def build(build_dir):
    """Configures and builds everything; SKIP when the build has no CUDA plug-in."""
    print(f"INFO building into {build_dir}", flush=True)
    log_path = build_dir + ".gpu-check.log"
    with open(log_path, "w") as log:
        ok = subprocess.call(["cmake", "-S", paths.source_root(), "-B", build_dir, "-DRDMABENCH_LAB_TESTS=OFF"],
                             stdout=log, stderr=subprocess.STDOUT) == 0
        ok = ok and subprocess.call(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2)],
                                    stdout=log, stderr=subprocess.STDOUT) == 0
    if not ok:
        print(f"FAIL build (see {log_path})")
        return 1
    with open(log_path) as f:
        if "CUDA memory plug-in: on" not in f.read():
            print("SKIP this build has no CUDA plug-in: no CUDA Toolkit (cuda.h) found; "
                  "install it or set CUDAToolkit_ROOT")
            return SKIP
    return 0


def gpu_pair(binary, device, address, server_mem, client_mem, client_options, both_options=()):
    """One pair with GPU memory on one side and --validate; 0 when it passed."""
    exe = os.path.join(paths.build_dir(), "bench", binary)
    port = str(pair.Ports().next())
    common = [exe, "-d", device, "-p", port] + list(both_options)
    size = client_options[client_options.index("-s") + 1] + " B " if "-s" in client_options else ""
    what = f"{binary} {size}server {server_mem}, client {client_mem} on {device}"
    try:
        r = pair.run_pair(common + ["--timeout", "60", "--mem", server_mem],
                          common + ["--mem", client_mem, "--validate"] + client_options + [address])
        output, ok, why = r.server_log + r.client_out + r.client_err, r.ok, r.failure()
    except pair.PairError as e:
        output, ok, why = e.server_log, False, str(e)
    if ok:
        registrations = sorted(set(re.findall(r"registration: [a-z]*", output)))
        print(f"PASS {what}: {' '.join(registrations)}")
        return 0
    print(f"FAIL {what}: {why}")
    print("\n".join("     " + line for line in output.splitlines()))
    return 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    build_dir, do_build, mem = paths.build_dir(), True, "cuda:0"
    for arg in argv:
        if arg == "--no-build":
            do_build = False
        elif arg == "--standin":
            standin = os.path.join(build_dir, "tests", "libcuda-standin.so")
            # Preloaded as well, so that it can take the CPU's access to its
            # "device memory" away once registered (tests/cuda_standin).
            os.environ.update(RDMABENCH_CUDA_DRIVER=standin, LD_PRELOAD=standin, CUDA_STANDIN_CPU_ACCESS="none")
            # In a sanitizer build its runtime must come first, and a preload is before it.
            os.environ["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
        elif arg in ("-h", "--help"):
            print(__doc__)
            return 0
        elif arg.startswith("-"):
            print(f"gpu-check: unknown option {arg} (see --help)", file=sys.stderr)
            return 2
        else:
            mem = arg
    if do_build:
        status = build(build_dir)
        if status:
            return status
    checker = os.path.join(build_dir, "tests", "gpu_check")
    if not os.access(checker, os.X_OK):
        print(f"FAIL {checker} is not built (CUDA Toolkit missing?)")
        return 1
    if not os.environ.get("RDMABENCH_CUDA_DRIVER") and \
            "libcuda.so.1 " not in (devices.command_output(["ldconfig", "-p"]) or ""):
        print("INFO ldconfig knows no libcuda.so.1: this machine has no NVIDIA driver installed")
    status = subprocess.call([checker, mem])
    if status == SKIP:
        print("SKIP no GPU here: nothing GPU-side could be checked (the plug-in builds and says so clearly)")
        return SKIP
    if status:
        return status
    found = devices.first_with_address(active_only=False)
    if not found:
        print("SKIP GPU memory pairs: no RDMA device with an IPv4 address (rdma link show)")
        return 0
    failed = gpu_pair("rdma_write_bw", *found, mem, "host", ["-a", "-n", "10", "--timeout", "60"])
    failed |= gpu_pair("rdma_read_bw", *found, mem, "host", ["-s", "1M", "-n", "100"])
    failed |= gpu_pair("rdma_send_lat", *found, "host", mem, ["-s", "4096", "-n", "1000"])
    for binary, both in SMALL_MESSAGE_TESTS:
        for size in ("2", "64"):
            options = ["-s", size, "-n", "1000"]
            failed |= gpu_pair(binary, *found, mem, "host", options, both)
            failed |= gpu_pair(binary, *found, "host", mem, options, both)
    return 1 if failed else 0


# Small messages with GPU memory on either side: the sizes where providers
# inline sends and scatter receives into completions (CPU copies both).
SMALL_MESSAGE_TESTS = [("rdma_write_bw", []), ("rdma_send_bw", []), ("rdma_send_lat", []),
                       ("rdma_write_lat", ["--write-with-imm"]), ("rdma_read_lat", [])]
