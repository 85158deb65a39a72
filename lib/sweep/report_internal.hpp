#pragma once
// The pieces behind write_report(), one file each: which figures a test has
// (report_figures.cpp), the limits a pair is held to (report_limits.cpp),
// the model built from the records (report_model.cpp, report_retests.cpp),
// and one writer per output (report_csv.cpp, report_markdown.cpp,
// report_html*.cpp, report_failures.cpp).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdmabench/compare/change.hpp"
#include "rdmabench/sweep/report.hpp"
#include "rdmabench/sweep/retest_outcome.hpp"
#include "value_text.hpp"
#include "verdict_internal.hpp"
#include "report/html_escape.hpp"

namespace rdmabench::sweep::detail {

// --- figures (report_figures.cpp) ---

/// How the report names a figure key: {"bandwidth", "Gb/s", higher} for
/// bw_average_Gbps, {"p99 latency", "us", lower} for lat_p99_us, ...
Figure describe_figure(std::string_view key);
/// The figure a test is judged on: bw_average_Gbps for *_bw, lat_p99_us for
/// *_lat; for any other test, the first of `present` (bw_average_Gbps when none).
std::string main_figure_key(std::string_view test, const std::vector<std::string>& present);
/// The fewest latency samples a p99 is judged on: with fewer, it is one of
/// the 10 worst samples, which the scheduler's hiccups decide more than the
/// fabric, and a *_lat test is judged on its median instead.
inline constexpr std::uint64_t kSamplesForP99 = 1000;
/// "rank:host:device", the CSV's and the tables' header of an endpoint.
std::string endpoint_label(const Endpoint& e);
/// "write_bw-bw_average_Gbps", the name of a figure's CSV and PNG without the
/// extension; throws rdmabench::Error for a test name that is no file name.
std::string figure_file_stem(std::string_view test, std::string_view key);

// --- limits (report_limits.cpp) ---

/// The limits one matrix's pairs are held to, and the words for a miss.
class PairLimits {
 public:
  PairLimits() = default;
  PairLimits(const PairMatrix& matrix, const Figure& figure, const Thresholds& thresholds);

  /// Why `value` misses the limits ("12.3 Gb/s below 0.5 x median 40.1"),
  /// or nothing when it passes. With `count_absolute` false only the limit
  /// relative to the other pairs counts (the fabric-slow rule).
  std::optional<std::string> miss(double value, bool count_absolute = true) const;

 private:
  Figure figure_;
  Thresholds thresholds_;
  Limits limits_;
};

// --- the model (report_model.cpp, report_retests.cpp) ---

struct FigureMatrix {
  std::string key;  ///< "bw_average_Gbps"
  Figure figure;
  PairMatrix matrix{0};
};

/// A pass=retest record, judged against its sweep's limits.
struct RetestRow {
  DirectedPair pair;
  std::optional<double> value;  ///< of the test's main figure
  std::string error;
  std::optional<std::string> miss;  ///< why it fails; empty when it passes
  bool failing() const { return !error.empty() || miss.has_value(); }
};

/// A pair whose judged figure moved past the baseline's threshold.
struct BaselineMove {
  DirectedPair pair;
  double old_value = 0;  ///< the baseline's (the median, where it measured the pair more than once)
  double new_value = 0;
  compare::Change change;
};

/// A test against the baseline sweep (report_baseline.cpp).
struct BaselineReport {
  std::string dir;
  /// "change_bw_average_Gbps": each pair's change of the judged figure, in
  /// percent (new / old - 1, x 100); empty where either sweep has no figure.
  FigureMatrix change;
  std::vector<BaselineMove> moved;   ///< regressed first, then improved, each worst first
  std::size_t compared = 0;          ///< pairs with the figure in both sweeps
  std::size_t without_baseline = 0;  ///< measured pairs the baseline does not hold
  double threshold = 0;              ///< a fraction
};

struct TestReport {
  std::string test;
  std::vector<FigureMatrix> figures;  ///< every figure its records hold, in figure_fields() order
  std::size_t main = 0;               ///< the judged one, an index into figures
  Verdict verdict;
  PairLimits limits;
  bool fabric_slow = false;  ///< absolute misses are no fault of single pairs
  std::vector<RetestRow> retests;
  std::vector<RetestFinding> findings;  ///< one per verdict.suspects
  /// What a latency verdict rests on, for a person: "p99 latency, of 1000
  /// to 5000 samples a pair"; empty for other tests.
  std::string basis;
  std::string basis_why;  ///< why not the p99, when the median is judged
  std::vector<CounterLimit> counter_limits;  ///< ReportOptions::counter_limits
  /// Every sweep pair with a watched counter past its limit, failing its
  /// figure's limits or not (those that pass are the silent degraders).
  std::vector<DegradedPair> past_counter_limits;
  /// One per watched counter that moved in a sweep record: each pair's
  /// delta, both ends added ("counter_rcvd_seq_err"; report_counters.cpp).
  std::vector<FigureMatrix> counter_figures;
  /// Against ReportOptions::baseline, when there is one.
  std::optional<BaselineReport> baseline;

  const FigureMatrix& main_figure() const { return figures.at(main); }
};

struct ReportModel {
  std::vector<Endpoint> endpoints;
  std::vector<EndpointContext> contexts;  ///< per endpoint: what the records say of it
  std::vector<TestReport> tests;
  std::string first_started, last_started;  ///< ISO 8601 of the records, empty when none say
};

/// Position of `rank` in `endpoints`; throws rdmabench::Error naming the rank.
EndpointIndex index_of_rank(std::span<const Endpoint> endpoints, int rank);

ReportModel build_model(std::span<const SweepRecord> records, std::span<const Endpoint> endpoints,
                        const ReportOptions& options);

/// The test's pass=retest records judged, and a finding per suspect.
void assess_retests(TestReport& test, std::span<const SweepRecord> records, std::span<const Endpoint> endpoints);

// --- against a baseline (report_baseline.cpp) ---

/// Fills test.baseline from the baseline's records of the same test.
void compare_with_baseline(TestReport& test, const std::vector<const SweepRecord*>& sweep,
                           std::span<const Endpoint> endpoints, const Baseline& baseline);
/// "One run a side: ... 12 pairs compared: 2 regressed, 1 improved." for the report's text.
std::string baseline_summary(const TestReport& test);
/// A change cell's background: red the worse it is, green the better, pale
/// within the threshold.
std::string change_colour(double change_percent, Better better, double threshold);

// --- counters (report_counters.cpp) ---

/// The pairs past their counter limits, and a matrix per watched counter
/// that moved, from the test's sweep records (the last record of a pair wins).
void fill_counter_findings(TestReport& test, const std::vector<const SweepRecord*>& sweep,
                           std::span<const Endpoint> endpoints);
/// The counters `pair` has past their limits, when it has any.
std::optional<std::string> counters_past(const TestReport& test, const DirectedPair& pair);
/// Whether the verdict holds `pair` as a silent degrader (within its limits).
bool is_silent_degrader(const TestReport& test, const DirectedPair& pair);
/// A re-test record's counters past their limits, when it has any.
std::optional<std::string> record_counters_past(const TestReport& test, const SweepRecord& record);

// --- what the outputs share (report_text.cpp, report_retests.cpp) ---

/// Why a judged pair fails ("failed to measure: <cause>", "12.3 Gb/s below
/// 0.5 x median 40.1"), or nothing when it passes.
std::optional<std::string> pair_failure(const TestReport& test, const PairJudgement& j);
/// pair_failure's words, "passes", or the failure marked "(did not
/// reproduce on re-test)", for the tables.
std::string pair_verdict(const TestReport& test, const PairJudgement& j);
/// "12 pairs judged, 3 failing (2 of them did not reproduce on re-test)".
std::string failing_count_text(const TestReport& test);
/// "rank 1 -> rank 3"
std::string pair_text(const std::vector<Endpoint>& endpoints, const DirectedPair& pair);
/// "node rank 3 (host-c mlx5_0, rail 0)", "link rank 0 (...) - rank 1 (...)"
std::string suspect_label(const std::vector<Endpoint>& endpoints, const Suspect& suspect);
/// The `count` worst measured pairs of the main figure, worst first.
std::vector<PairJudgement> worst_pairs(const TestReport& test, std::size_t count);
/// The pairs of the main figure that gave no figure, in matrix order.
std::vector<PairJudgement> failed_pairs(const TestReport& test);
/// "Judged on the median latency, of 300 samples a pair: a p99 of ...",
/// the verdict's first sentence for a latency test; empty for others.
std::string basis_sentence(const TestReport& test);
/// Whether the re-test cleared every suspect whose evidence holds `pair`
/// (and there is one): its failure did not reproduce, and does not fail the sweep.
bool did_not_reproduce(const TestReport& test, const DirectedPair& pair);

// --- HTML pieces (report_html_cells.cpp) ---

using report::html_escape;
/// The style attribute's background of a measured cell: green at the best
/// end of the matrix's range, red at the worst (by the figure's direction).
std::string heat_colour(double value, double worst, double best);
/// `bytes` as base64, for data: URIs.
std::string base64(std::string_view bytes);

// --- writers ---

void write_csvs(const std::filesystem::path& dir, const ReportModel& model);
void write_markdown(const std::filesystem::path& file, const ReportModel& model, const ReportOptions& options);
void write_html(const std::filesystem::path& dir, const ReportModel& model, const ReportOptions& options);
/// report.html's worst and failed pairs, and its verdict and re-test
/// sections (report_html_sections.cpp).
void write_html_pairs(std::ostream& out, const ReportModel& model, const TestReport& test);
void write_html_verdict(std::ostream& out, const ReportModel& model, const TestReport& test);
/// Returns what it counted, for the binary's exit status.
ReportSummary write_failures(const std::filesystem::path& file, const ReportModel& model);

/// Opens FILE.partial, where `file` is written, or throws rdmabench::Error
/// naming `file`.
std::ofstream open_output(const std::filesystem::path& file);
/// Closes `out`, throws rdmabench::Error naming `file` if anything written
/// to it was lost (a full disk), and renames FILE.partial over `file`.
void finish_output(std::ofstream& out, const std::filesystem::path& file);

}  // namespace rdmabench::sweep::detail
