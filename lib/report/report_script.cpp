// Reporters for scripts: one bare number (--output) and CSV (--csv).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <fmt/chrono.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "rdmabench/report/figure_names.hpp"
#include "rdmabench/report/report.hpp"

namespace rdmabench {

namespace {

/// With -b, --output prints both directions together, as perftest does.
BandwidthFigures total(const SizeResult& r) {
  return r.server_bandwidth ? add_directions(*r.bandwidth, *r.server_bandwidth) : *r.bandwidth;
}

class BareNumberReporter final : public Reporter {
 public:
  BareNumberReporter(std::ostream& out, BareFigure figure) : out_(out), figure_(figure) {}
  void begin(const RunContext& c) override { gbits_ = c.report_gbits; }
  void size_done(const SizeResult& r) override {
    if (figure_ == BareFigure::latency && r.latency) {
      fmt::print(out_, "{:.2f}\n", r.latency->median);
    } else if (figure_ == BareFigure::bandwidth && r.bandwidth) {
      fmt::print(out_, "{:.2f}\n", total(r).average_mb_per_s * (gbits_ ? 8.0 / 1000.0 : 1.0));
    } else if (figure_ == BareFigure::message_rate && r.bandwidth) {
      fmt::print(out_, "{:.6f}\n", total(r).message_rate_mpps);
    }
    out_.flush();
  }

 private:
  std::ostream& out_;
  BareFigure figure_;
  bool gbits_ = false;
};

/// Columns named as figure_names.hpp says: the JSON record's field with its
/// group's prefix (`lat_p99_9_us` is `latency.p99_9_us`). Under -b, `bw_*`
/// is this side's direction, as the JSON's `bandwidth`; the client adds the
/// server's and both directions' (`bandwidth_server`, `bandwidth_both`).
class CsvReporter final : public Reporter {
 public:
  CsvReporter(std::ostream& out, bool header) : out_(out), header_(header) {}
  void begin(const RunContext& c) override {
    context_ = c;
    if (!header_) return;  // appended to a file that has one
    namespace names = figure_names;
    const auto lat = [](const char* name) { return names::flat(names::kLatencyPrefix, name); };
    const auto bw = [](const std::string& name) { return names::flat(names::kBandwidthPrefix, name.c_str()); };
    std::vector<std::string> columns{"schema_version", "run_id", "started_utc", "host", "test", "role",
                                     "device", "transport", "bytes", "iterations", "warmup_iterations",
                                     lat(names::kLatencySamples)};
    for (const auto& figure : names::kLatencyFigures) columns.push_back(lat(figure.name));
    for (const char* name : {names::kBandwidthSeconds, names::kPeakMBps, names::kAverageMBps,
                             names::kAverageGbps, names::kMessageRateMpps})
      columns.push_back(bw(name));
    columns.push_back(bw(std::string("server_") + names::kAverageMBps));
    columns.push_back(bw(std::string("both_") + names::kAverageMBps));
    columns.push_back(bw(std::string("both_") + names::kMessageRateMpps));
    for (const char* name : {"queue_pairs", "op", "bytes", "mean_Gbps", "stdev_Gbps", "intervals"})
      columns.push_back(names::flat(names::kLoadPrefix, name));
    out_ << fmt::format("{}\n", fmt::join(columns, ","));
  }
  void size_done(const SizeResult& r) override {
    fmt::print(out_, "{},{},{},{},{},{},{},{},{},{},{},", kJsonSchemaVersion, run_id_text(context_.run_id),
               context_.started_utc, context_.host, context_.test, context_.role, context_.device,
               context_.transport, r.bytes, r.iterations, r.warmup);
    if (const auto& l = r.latency) {
      fmt::print(out_, "{}", l->count);
      for (const auto& figure : figure_names::kLatencyFigures) fmt::print(out_, ",{}", (*l).*figure.member);
      out_ << ',';
    } else {
      out_ << std::string(figure_names::kLatencyFigures.size() + 1, ',');
    }
    if (const auto& b = r.bandwidth)
      fmt::print(out_, "{},{},{},{},{}", b->seconds, b->peak_mb_per_s, b->average_mb_per_s,
                 figure_names::gbps_from_mbps(b->average_mb_per_s), b->message_rate_mpps);
    else
      out_ << ",,,,";
    if (r.bandwidth && r.server_bandwidth) {
      const auto both = add_directions(*r.bandwidth, *r.server_bandwidth);
      fmt::print(out_, ",{},{},{}", r.server_bandwidth->average_mb_per_s, both.average_mb_per_s,
                 both.message_rate_mpps);
    } else {
      out_ << ",,,";
    }
    if (const auto& l = r.load)
      fmt::print(out_, ",{},{},{},{},{},{}", l->queue_pairs, l->op, l->bytes, l->mean_gbps, l->stdev_gbps,
                 l->intervals);
    else
      out_ << ",,,,,,";
    out_ << '\n';
    out_.flush();
  }

 private:
  std::ostream& out_;
  bool header_ = true;
  RunContext context_;
};

class ProgressReporter final : public Reporter {
 public:
  using Clock = std::function<std::time_t()>;
  ProgressReporter(std::ostream& out, std::size_t total, Clock clock)
      : out_(out), total_(total), clock_(std::move(clock)) {}
  void begin(const RunContext& c) override { duration_s_ = c.duration_s; }
  void size_started(std::uint64_t bytes) override {
    if (!duration_s_) return;  // a counted size: only its end is known
    // A -D size is silent for its whole duration otherwise.
    const std::time_t until = clock_() + static_cast<std::time_t>(duration_s_);
    show(fmt::format("[{}/{}] {} bytes: timing for {} s, until {:%H:%M:%S}", done_ + 1, total_, bytes,
                     duration_s_, fmt::localtime(until)));
  }
  void size_done(const SizeResult& r) override { show(fmt::format("[{}/{}] {} bytes done", ++done_, total_, r.bytes)); }
  void end() override {
    fmt::print(out_, "\r{:{}}\r", "", shown_);
    out_.flush();
  }

 private:
  void show(const std::string& line) {
    // Blanks over the rest of a longer line shown before.
    fmt::print(out_, "\r{:{}}", line, std::max(shown_, line.size()));
    shown_ = line.size();
    out_.flush();
  }

  std::ostream& out_;
  std::size_t total_;
  Clock clock_;
  std::size_t done_ = 0;
  std::size_t shown_ = 0;
  std::uint32_t duration_s_ = 0;
};

}  // namespace

std::unique_ptr<Reporter> make_progress_reporter(std::ostream& out, std::size_t total_sizes,
                                                 std::function<std::time_t()> clock) {
  if (!clock) clock = [] { return std::time(nullptr); };
  return std::make_unique<ProgressReporter>(out, total_sizes, std::move(clock));
}

std::unique_ptr<Reporter> make_bare_number_reporter(std::ostream& out, BareFigure figure) {
  return std::make_unique<BareNumberReporter>(out, figure);
}

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out, bool header) {
  return std::make_unique<CsvReporter>(out, header);
}

}  // namespace rdmabench
