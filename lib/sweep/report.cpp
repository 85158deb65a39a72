// write_report(): the model from the records, then every output from it.
// failures.txt comes last, so a run that stops part-way never leaves an
// empty failures.txt that would read as "all passed".

#include "rdmabench/verbs/error.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep {

namespace detail {

// Each output is written beside its final name and renamed over it when
// whole: a reader (a browser refreshing report.html, a script reading a CSV
// between rounds) sees the last round's file or this one's, never a torn
// one, and a sweep killed mid-write leaves the previous report intact.
std::filesystem::path partial_of(const std::filesystem::path& file) {
  auto partial = file;
  partial += ".partial";
  return partial;
}

std::ofstream open_output(const std::filesystem::path& file) {
  std::ofstream out(partial_of(file), std::ios::binary | std::ios::trunc);
  require(static_cast<bool>(out), "sweep report: cannot write '" + file.string() + "'",
          "the output folder must exist and be writable");
  return out;
}

void finish_output(std::ofstream& out, const std::filesystem::path& file) {
  out.close();
  require(!out.fail(), "sweep report: could not write all of '" + file.string() + "'",
          "check the free space of the output folder");
  std::error_code error;
  std::filesystem::rename(partial_of(file), file, error);
  require(!error, "sweep report: cannot replace '" + file.string() + "': " + error.message(),
          "the output folder must be writable");
}

}  // namespace detail

ReportSummary write_report(const std::filesystem::path& dir, std::span<const SweepRecord> records,
                           std::span<const Endpoint> endpoints, const ReportOptions& options) {
  validate_endpoints(endpoints);
  const detail::ReportModel model = detail::build_model(records, endpoints, options);
  std::filesystem::remove(dir / "failures.txt");
  detail::write_csvs(dir, model);
  detail::write_markdown(dir / "report.md", model, options);
  detail::write_html(dir, model, options);
  return detail::write_failures(dir / "failures.txt", model);
}

std::vector<TestVerdict> judge_records(std::span<const SweepRecord> records, std::span<const Endpoint> endpoints,
                                       const ReportOptions& options) {
  validate_endpoints(endpoints);
  const detail::ReportModel model = detail::build_model(records, endpoints, options);
  std::vector<TestVerdict> verdicts;
  for (const auto& test : model.tests) verdicts.push_back({test.test, test.verdict});
  return verdicts;
}

}  // namespace rdmabench::sweep
