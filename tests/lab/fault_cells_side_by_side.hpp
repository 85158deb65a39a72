#pragma once
// The fault matrix's cells, side by side: most of a cell's time is a wait
// (a survivor's --timeout, a paused side), so independent cells share the
// guest. Each cell runs in a forked child of its own, with its own ports
// (use_port_slot), processes and temporary files; a cut-link cell drops
// only its own ports' packets (PairLinkCut), so it shares the guest too.

#include <cstddef>
#include <functional>
#include <vector>

#include "fault_matrix.hpp"

namespace lab::faults {

/// How many cells run at once: $RDMABENCH_FAULT_MATRIX_CELLS, else one per
/// online CPU (a cell's survivor may busy-poll, and more would share a CPU).
/// The lab tier sets 4 on its 2 vCPUs: measured, the matrix took 192 s
/// instead of 274 s, and the survivors' seconds stayed within 0.2 s.
int cells_at_once();

/// Runs every cell, `at_once` at a time, and
/// returns their outcomes in the cells' order. `finished(index, outcome)`
/// is called in the order they end. A cell that does not end within
/// kCellLimit is killed with everything it started, and failed.
std::vector<Outcome> run_cells_side_by_side(const std::vector<Cell>& cells, int at_once,
                                            const std::function<void(std::size_t, const Outcome&)>& finished);

}  // namespace lab::faults
