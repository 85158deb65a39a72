#!/usr/bin/python3
"""Unit test of the tools' one pair runner (tools/rdmabench_tools/pair.py),
with stand-in servers and clients written in Python, no device: the client
starts once the server's --ready-file is there (or, for perftest-like
servers, once its port listens); a server that dies before it is ready, or
never gets ready, is reported with its output; and no server outlives the
runner, whatever happened."""
import os
import socket
import sys
import tempfile

from tool_test_helpers import check, finish, load_tool

pair = load_tool("pair")
PY = sys.executable
scratch = tempfile.mkdtemp(prefix="pair-test-")
marker = os.path.join(scratch, "client-ran")

# A server that writes its ready file, then waits for the client's marker.
READY_SERVER = """
import json, os, sys, time
path = sys.argv[sys.argv.index('--ready-file') + 1]
print('serving', flush=True)
open(path + '.partial', 'w').write(json.dumps({'ready': True, 'pid': os.getpid(), 'tcp_port': 1}) + '\\n')
os.rename(path + '.partial', path)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
"""
CLIENT = "import sys; open(sys.argv[1], 'w').close(); print('client done')"


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


r = pair.run_pair([PY, "-c", READY_SERVER, marker], [PY, "-c", CLIENT, marker])
check(r.ok and r.client_out.strip() == "client done", f"a ready-file pair runs and both exit 0 ({r.failure()})")
check("serving" in r.server_log, "the server's output is kept")

try:
    pair.run_pair([PY, "-c", "import sys; print('error: no such device'); sys.exit(1)"], [PY, "-c", "pass"])
    check(False, "a server that exits before it is ready fails the pair")
except pair.PairError as e:
    check("status 1" in str(e) and "no such device" in e.server_log, f"...and says why: {e}")

try:
    pair.run_pair([PY, "-c", "import time; time.sleep(60)"], [PY, "-c", "pass"], ready_limit=0.5)
    check(False, "a server that never gets ready fails the pair")
except pair.PairError as e:
    check("not ready after" in str(e), f"...within the limit: {e}")

# A server that stays after its client: killed and reaped, status None.
os.remove(marker)
stays = READY_SERVER + "\nimport time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n"
r = pair.run_pair([PY, "-c", stays, marker], [PY, "-c", CLIENT, marker], server_timeout=0.5)
pid = int(r.server_log.split()[-1])
check(r.server_status is None and not r.ok and "did not exit" in r.failure(), "a server that stays fails the pair")
check(gone(pid), "...and is killed and reaped")

# A client that fails: reported with its own words.
os.remove(marker)
r = pair.run_pair([PY, "-c", READY_SERVER, marker],
                  [PY, "-c", CLIENT + "; sys.exit('error: bad option')", marker])
check(r.client_status == 1 and "bad option" in r.failure(), f"a failed client is named: {r.failure()}")

# perftest-like: nothing machine-readable, only a listening port.
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
LISTENER = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[sys.argv.index('-p') + 1]))); s.listen(1)
c, _ = s.accept(); c.recv(10)
"""
CONNECTOR = "import socket, sys; c = socket.create_connection(('127.0.0.1', int(sys.argv[2]))); c.send(b'x')"
r = pair.run_pair([PY, "-c", LISTENER, "-p", str(port)], [PY, "-c", CONNECTOR, "-p", str(port)], ready="listen")
check(r.ok, f"a perftest-like server is ready once its port listens ({r.failure()})")
check(not pair.listening(port), "...and nothing listens there afterwards")
finish()
