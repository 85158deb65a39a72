"""The options our study tools share, spelled alike (docs/tools.md):
--devices DEV[:ADDR],... for the devices (and the address to reach each
by, found from the device's netdev when left out), --tests A,B for what
to run, and --out DIR for where the results go: by default a new folder
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
    """--devices DEV[:ADDR],... (with one=True: a single DEV[:ADDR])."""
    metavar = "DEV[:ADDR]" if one else "DEV[:ADDR],..."
    parser.add_argument("--devices", metavar=metavar, type=device_list,
                        help=f"RDMA device{'' if one else 's'}, each with the IP address to reach it by "
                             f"(default address: its netdev's); default: {default}")


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


def time_left(done, total, elapsed_s):
    """'about 3 min left' from the pace so far; '' before the first step ends."""
    if done <= 0 or done >= total:
        return ""
    left = elapsed_s / done * (total - done)
    return f"about {left / 60:.0f} min left" if left >= 90 else f"about {left:.0f} s left"
