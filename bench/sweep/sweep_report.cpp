#include "sweep/sweep_report.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sweep/judging.hpp"

namespace rdmabench::sweep_cli {

bool write_sweep_report(const SweepOptions& options, std::span<const sweep::SweepRecord> records,
                        std::span<const sweep::EndpointContext> endpoints, const std::vector<std::string>& notes) {
  std::vector<sweep::Endpoint> ends;
  for (const auto& e : endpoints) ends.push_back(e.endpoint);
  std::ofstream md(std::filesystem::path(options.out_dir) / "report.md");
  md << "# rdma_sweep report\n\n";
  for (const auto& n : notes) md << "**" << n << "**\n\n";
  bool failed = false;
  for (const auto& test : options.tests) {
    const auto verdict = judge_test(records, ends, test, thresholds_for(test, options.limits, std::nullopt));
    md << fmt::format("## {}\n\n{} pairs, {} failing\n\n", test, verdict.pairs_judged, verdict.pairs_failing);
    for (const auto& s : verdict.suspects) md << "- " << s.sentence << "\n";
    failed = failed || verdict.pairs_failing > 0;
  }
  return failed || !notes.empty();
}

}  // namespace rdmabench::sweep_cli
