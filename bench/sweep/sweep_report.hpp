#pragma once
// Rank 0's outputs beyond results.jsonl: everything made from the records.

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/report.hpp"
#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

/// tools/sweep-heatmaps for the rdma_sweep binary at `self`:
/// $RDMABENCH_SWEEP_HEATMAPS, else rdmabench-sweep-heatmaps beside it
/// (installed, or the build tree's link into the source tree); empty when
/// neither is there.
std::string find_heatmap_tool(const std::filesystem::path& self);

/// Writes the reports into options.out_dir; `notes` head them (e.g. why the
/// sweep is incomplete). With `with_heatmaps`, tools/sweep-heatmaps draws
/// the PNGs too (seconds; a partial report written as the job is being
/// ended goes without). Returns what failures.txt counted.
sweep::ReportSummary write_sweep_report(const SweepOptions& options, std::span<const sweep::SweepRecord> records,
                                        std::span<const sweep::EndpointContext> endpoints,
                                        const std::vector<std::string>& notes, bool with_heatmaps);

}  // namespace rdmabench::sweep_cli
