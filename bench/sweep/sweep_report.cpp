#include "sweep/sweep_report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "rdmabench/sweep/report.hpp"
#include "sweep/judging.hpp"

namespace rdmabench::sweep_cli {

namespace {

std::string this_binary() {
  char self[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// PNGs beside the CSVs; a missing tool or matplotlib is said, not fatal.
void draw_heatmaps(const std::string& dir) {
  const std::string tool = find_heatmap_tool(this_binary());
  if (tool.empty()) {
    std::cerr << "rdma_sweep: heatmap PNGs not drawn: tools/sweep-heatmaps not found (install rdmabench's tools, "
                 "or set RDMABENCH_SWEEP_HEATMAPS); report.html still shows the matrices\n";
    return;
  }
  const int status = std::system(fmt::format("timeout 300 {} {}", shell_quoted(tool), shell_quoted(dir)).c_str());
  if (status != 0)
    std::cerr << fmt::format("rdma_sweep: {} {} failed (status {}); report.html still shows the matrices\n", tool,
                             dir, status);
}

}  // namespace

std::string find_heatmap_tool(const std::filesystem::path& self) {
  if (const char* given = std::getenv("RDMABENCH_SWEEP_HEATMAPS")) return given;
  if (self.empty()) return {};
  const auto beside = self.parent_path() / "rdmabench-sweep-heatmaps";
  return ::access(beside.c_str(), X_OK) == 0 ? beside.string() : std::string();
}

sweep::ReportSummary write_sweep_report(const SweepOptions& options, std::span<const sweep::SweepRecord> records,
                                        std::span<const sweep::EndpointContext> endpoints,
                                        const std::vector<std::string>& notes, bool with_heatmaps) {
  std::vector<sweep::Endpoint> ends;
  for (const auto& e : endpoints) ends.push_back(e.endpoint);
  const auto report = report_options(options, endpoints, notes);
  auto summary = sweep::write_report(options.out_dir, records, ends, report);
  if (with_heatmaps) {
    draw_heatmaps(options.out_dir);
    summary = sweep::write_report(options.out_dir, records, ends, report);  // now with the PNGs
  }
  return summary;
}

}  // namespace rdmabench::sweep_cli
