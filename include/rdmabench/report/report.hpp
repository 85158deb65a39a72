#pragma once
/// @file
/// Reporters: a console table with perftest's column names, and JSON Lines.

#include <chrono>
#include <ctime>
#include <functional>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>

#include "rdmabench/report/result.hpp"

namespace rdmabench {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunContext& context) = 0;
  /// Both sides are about to time this size (after its start barrier).
  virtual void size_started(std::uint64_t /*bytes*/) {}
  virtual void size_done(const SizeResult& result) = 0;
  /// --run-infinitely: after the last period's size_done, before end().
  virtual void soak_done(const SoakSummary& /*summary*/) {}
  virtual void end() {}
};

/// The header block and table, in perftest's layout so that habits carry
/// over, plus our extra columns (p50/p90/p99.99, Gb/s).
std::unique_ptr<Reporter> make_console_reporter(std::ostream& out);

/// One JSON object per message size, each with the context block.
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);

/// Raw samples, one microsecond value a line, each size preceded by a '#'
/// comment line naming it.
std::unique_ptr<Reporter> make_samples_reporter(std::ostream& out);

/// The one figure --output prints per size, for scripts.
enum class BareFigure { bandwidth, message_rate, latency };

/// One bare number a line: BW average (MB/s, or Gb/s with report_gbits),
/// message rate (Mpps) or median latency (usec). A size without that figure
/// (the passive side) prints nothing.
std::unique_ptr<Reporter> make_bare_number_reporter(std::ostream& out, BareFigure figure);

/// CSV: a header line (unless `header` is false: appending to a file that
/// has one), then one row per size with every figure; empty cells where a
/// figure does not apply.
std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out, bool header = true);

/// "[13/23] 4096 bytes done" on one rewritten line, for long sweeps on a
/// terminal, and "[1/1] 65536 bytes: timing for 60 s, until 14:02:10" as a
/// -D size starts, then "[1/1] 65536 bytes: 20 s of 60 s, 40 s left" every
/// `tick`; the line is cleared at the end. `clock` tells the time (default:
/// std::time), for tests.
std::unique_ptr<Reporter> make_progress_reporter(
    std::ostream& out, std::size_t total_sizes, std::function<std::time_t()> clock = {},
    std::chrono::milliseconds tick = std::chrono::seconds(10));

/// Forwards to several reporters.
std::unique_ptr<Reporter> make_tee_reporter(std::vector<std::unique_ptr<Reporter>> reporters);

/// The version of the pair JSON record's layout (docs/json-output.md): it
/// grows when a field changes meaning or goes away, not when one is added.
inline constexpr int kJsonSchemaVersion = 2;
/// A run id as records write it: 14 hex digits; empty for none.
std::string run_id_text(std::uint64_t run_id);
/// Now, as records write when a run started: ISO 8601 UTC, "2026-12-06T04:30:00Z".
std::string utc_now_text();

nlohmann::json to_json(const RunContext& context);
nlohmann::json to_json(const SizeResult& result, const RunContext& context);
nlohmann::json to_json(const BandwidthFigures& figures);

}  // namespace rdmabench
