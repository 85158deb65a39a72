"""The options our study tools share, spelled alike (docs/tools.md):
-d/--devices DEV[:ADDR],... for the devices (and the address to reach each
by, found from the device's netdev when left out), --tests A,B for what
to run, -n/--iters N (and -D/--duration S where a tool can time its runs)
for how long each run is, and --out DIR for where the results go: by default a new folder
./TOOL-YYYYmmdd-HHMMSS in the current folder, never under build/, which a
clean build deletes. A wrong value is a usage error (exit 2) naming what
would be right, as in the pair binaries."""

import argparse
import datetime
import os


def device_list(text):
    """'rxe0,siw0:10.0.3.15' -> [('rxe0', None), ('siw0', '10.0.3.15')]."""
    wanted = []
    for item in text.split(","):
        name, _, addr = item.strip().partition(":")
        if not name:
            raise argparse.ArgumentTypeError(
                f"'{text}': an empty device name; expected DEV[:ADDR],... e.g. rxe0,siw0:10.0.3.15")
        wanted.append((name, addr or None))
    return wanted


def add_devices(parser, default, one=False):
    """-d/--devices DEV[:ADDR],... (with one=True: a single DEV[:ADDR]); -d
    as the pair binaries spell it."""
    metavar = "DEV[:ADDR]" if one else "DEV[:ADDR],..."
    parser.add_argument("-d", "--devices", metavar=metavar, type=device_list,
                        help=f"RDMA device{'' if one else 's'}, each with the IP address to reach it by "
                             f"(default address: its netdev's); default: {default}")


def positive_int(text):
    """An argparse type: a whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a whole number of 1 or more")
    return value


def add_run_length(parser, default_iters, duration=True):
    """-n/--iters N, and (with duration) -D/--duration S, as the pair
    binaries take them: how long each run of the tool is. One or the other."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-n", "--iters", type=positive_int, metavar="N",
                       help=f"iterations per run, as the binaries' -n (default: {default_iters})")
    if duration:
        group.add_argument("-D", "--duration", type=positive_int, metavar="S",
                           help="time each run for S seconds instead, as the binaries' -D")


def run_length_args(args, iters):
    """The binaries' options for one run: -D S when --duration was given,
    else -n with `iters` (the tool's own count where -n was not given)."""
    if getattr(args, "duration", None):
        return ["-D", str(args.duration)]
    return ["-n", str(iters)]


def add_tests(parser, choices, default=None):
    """--tests A,B: a comma list of `choices` (default: `default`, else all)."""
    default = list(default or choices)

    def test_list(text):
        tests = [t.strip() for t in text.split(",") if t.strip()]
        unknown = [t for t in tests if t not in choices]
        if unknown or not tests:
            raise argparse.ArgumentTypeError(
                f"'{text}': {'unknown ' + ','.join(unknown) if unknown else 'empty'}; "
                f"choose from {','.join(choices)}")
        return tests

    parser.add_argument("--tests", metavar="A,B", type=test_list, default=default,
                        help=f"which of {','.join(choices)} to run (default: {','.join(default)})")


def add_out(parser, prog):
    parser.add_argument("--out", metavar="DIR",
                        help=f"output folder, made if new (default: ./{prog}-YYYYmmdd-HHMMSS)")


def out_folder(args, prog):
    """--out's folder as an absolute path, or the default one named for now."""
    return os.path.abspath(args.out or datetime.datetime.now().strftime(f"{prog}-%Y%m%d-%H%M%S"))


def seconds_text(seconds):
    """'40 s' below 90 s, else '3 min'."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def time_left(done, total, elapsed_s):
    """'3 min in, about 4 min left' from the pace so far; the estimate comes
    once a step has ended, and goes once all have."""
    so_far = f"{seconds_text(elapsed_s)} in"
    if done <= 0 or done >= total:
        return so_far
    return f"{so_far}, about {seconds_text(elapsed_s / done * (total - done))} left"
