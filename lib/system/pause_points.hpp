#pragma once
// A test seam for the fault matrix (tests/lab/fault_matrix.py): named points
// in a run where a process can be made to stop itself, so that a test can
// then kill it, leave it stopped, or cut its link and let it go on, at a
// phase it could not hit reliably from outside. Inert unless the
// environment asks: RDMABENCH_PAUSE_AT=<phase> stops the process there with
// SIGSTOP, after writing the phase's name to RDMABENCH_PAUSE_FILE (if set).

namespace rdmabench::detail {

/// The phases: "handshake" (hello accepted, queue pairs not yet connected),
/// "mid-run" (RDMABENCH_PAUSE_DELAY_MS, default 500, into the first size's
/// loops: a thread stops the whole process there), "end-of-size" (the first
/// size timed, its closing barrier not yet met) and "teardown" (every size
/// done and reported, before the connection closes); and rdma_sweep's
/// "sweep-end" (a rank other than 0 told the sweep is over, before the
/// ranks meet to finish).
void pause_point(const char* phase);

}  // namespace rdmabench::detail
