// Reporters for scripts: one bare number (--output) and CSV (--csv).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
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
    columns.push_back("repeat");
    columns.push_back("repeats");
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
    fmt::print(out_, ",{},{}", r.repeat, std::max<std::uint32_t>(context_.parameters.repeats, 1));
    out_ << '\n';
    out_.flush();
  }

 private:
  std::ostream& out_;
  bool header_ = true;
  RunContext context_;
};

}  // namespace

std::unique_ptr<Reporter> make_bare_number_reporter(std::ostream& out, BareFigure figure) {
  return std::make_unique<BareNumberReporter>(out, figure);
}

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out, bool header) {
  return std::make_unique<CsvReporter>(out, header);
}

}  // namespace rdmabench
