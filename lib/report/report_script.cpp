// Reporters for scripts: one bare number (--output) and CSV (--csv).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "rdmabench/report/report.hpp"

namespace rdmabench {

namespace {

/// With -b, scripts get both directions together, as perftest prints them.
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

class CsvReporter final : public Reporter {
 public:
  CsvReporter(std::ostream& out, bool header) : out_(out), header_(header) {}
  void begin(const RunContext& c) override {
    context_ = c;
    if (!header_) return;  // appended to a file that has one
    out_ << "test,role,device,transport,bytes,iterations,warmup,"
            "lat_samples,lat_min_us,lat_max_us,lat_median_us,lat_mean_us,lat_stdev_us,"
            "lat_p90_us,lat_p99_us,lat_p99_9_us,lat_p99_99_us,"
            "bw_seconds,bw_peak_MBps,bw_average_MBps,msg_rate_Mpps,"
            "load_queue_pairs,load_op,load_bytes,load_mean_Gbps,load_stdev_Gbps,load_intervals\n";
  }
  void size_done(const SizeResult& r) override {
    fmt::print(out_, "{},{},{},{},{},{},{},", context_.test, context_.role, context_.device,
               context_.transport, r.bytes, r.iterations, r.warmup);
    if (const auto& l = r.latency)
      fmt::print(out_, "{},{},{},{},{},{},{},{},{},{},", l->count, l->min, l->max, l->median,
                 l->mean, l->stdev, l->p90, l->p99, l->p99_9, l->p99_99);
    else
      out_ << ",,,,,,,,,,";
    if (r.bandwidth) {
      const auto b = total(r);
      fmt::print(out_, "{},{},{},{}", b.seconds, b.peak_mb_per_s, b.average_mb_per_s,
                 b.message_rate_mpps);
    }
    else
      out_ << ",,,";
    // --load-qps: the load's own figures, last so that no older column moves.
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
  ProgressReporter(std::ostream& out, std::size_t total) : out_(out), total_(total) {}
  void begin(const RunContext&) override {}
  void size_done(const SizeResult& r) override {
    fmt::print(out_, "\r[{}/{}] {} bytes done", ++done_, total_, r.bytes);
    out_.flush();
  }
  void end() override {
    fmt::print(out_, "\r{:40}\r", "");
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::size_t total_;
  std::size_t done_ = 0;
};

}  // namespace

std::unique_ptr<Reporter> make_progress_reporter(std::ostream& out, std::size_t total_sizes) {
  return std::make_unique<ProgressReporter>(out, total_sizes);
}

std::unique_ptr<Reporter> make_bare_number_reporter(std::ostream& out, BareFigure figure) {
  return std::make_unique<BareNumberReporter>(out, figure);
}

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out, bool header) {
  return std::make_unique<CsvReporter>(out, header);
}

}  // namespace rdmabench
