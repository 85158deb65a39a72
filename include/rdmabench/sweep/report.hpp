#pragma once
/// @file
/// A sweep's report, made from its records alone (results.jsonl), so that a
/// recorded sweep can be reported on again: per (test, figure) an N x N CSV,
/// report.md, a self-contained report.html, and failures.txt for scripts.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdmabench/compare/thresholds.hpp"
#include "rdmabench/sweep/counter_limits.hpp"
#include "rdmabench/sweep/endpoint.hpp"
#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/verdict.hpp"

namespace rdmabench::sweep {

/// An earlier sweep of the same fabric (rdma_sweep --baseline DIR): each
/// test's pairs are compared with the same pairs there (same hosts,
/// devices, addresses, size and pattern) on the test's judged figure, and the report
/// marks those that moved past the threshold (docs/sweep.md, "Against a
/// baseline").
struct Baseline {
  std::string dir;                   ///< as given, for the report's words
  std::vector<SweepRecord> records;  ///< its results.jsonl
  compare::Thresholds thresholds;    ///< --baseline-threshold over the defaults
};

struct ReportOptions {
  /// The tests in the order the report shows them; tests the records hold
  /// that are not named here follow in the order they first appear.
  std::vector<std::string> tests_in_order;
  /// Judged on bw_average_Gbps of the *_bw tests (Gb/s).
  Thresholds bandwidth;
  /// Judged on lat_p99_us of the *_lat tests (us).
  Thresholds latency;
  /// The watched counters, at either end of every test's pairs: a pair
  /// within its limits with one past these is a silent degrader.
  std::vector<CounterLimit> counter_limits = default_counter_limits();
  std::string title = "rdma_sweep";
  /// Said at the top of the report, e.g. "incomplete: rank 3 stopped
  /// answering in round 2 of 6".
  std::vector<std::string> notes;
  /// With a baseline: <test>-change_<figure>.csv (the change of each pair's
  /// judged figure, in percent), and a section per test in report.md and
  /// report.html with that heatmap and the pairs that moved.
  std::optional<Baseline> baseline;
};

/// What the report found, so that the binary can exit non-zero.
struct ReportSummary {
  std::size_t failing_pairs = 0;  ///< lines "FAIL ..." of failures.txt
  std::size_t suspects = 0;       ///< lines "SUSPECT ..." of failures.txt
  /// Lines "NOT REPRODUCED ...": pairs and suspects that failed in the
  /// sweep and passed their re-test. Reported, but they fail nothing: a
  /// burn-in that fails a healthy fabric on one hiccup is not trusted.
  std::size_t not_reproduced = 0;
  /// With a baseline: pairs whose judged figure moved past the threshold
  /// (reported; they fail nothing: rdma_compare gates on them).
  std::size_t regressed_pairs = 0, improved_pairs = 0;
  bool failed() const { return failing_pairs > 0 || suspects > 0; }
};

/// Writes, in `dir` (which must exist): <test>-<figure>.csv for every figure
/// a test's sweep records hold (and <test>-counter_<name>.csv for every
/// watched counter that moved in them), report.md, report.html (embedding
/// <test>-<figure>.png where tools/sweep-heatmaps has drawn them already)
/// and failures.txt (empty when everything passed).
///
/// The records' ranks must be those of `endpoints`; a rank that is not one
/// throws rdmabench::Error. Only pass=sweep records fill the matrices (a
/// pair measured twice keeps its last record); pass=retest records confirm
/// or clear the suspects. Throws rdmabench::Error when a file cannot be
/// written or a threshold does not fit its figure.
ReportSummary write_report(const std::filesystem::path& dir, std::span<const SweepRecord> records,
                           std::span<const Endpoint> endpoints, const ReportOptions& options);

/// Each test's verdict on its sweep records, judged as write_report judges
/// them (the re-test pass is planned from these).
struct TestVerdict {
  std::string test;
  Verdict verdict;
};
std::vector<TestVerdict> judge_records(std::span<const SweepRecord> records, std::span<const Endpoint> endpoints,
                                       const ReportOptions& options);

}  // namespace rdmabench::sweep
