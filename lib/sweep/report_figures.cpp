// What the report calls each figure, which one a test is judged on, and
// the one way numbers and endpoints are written.

#include <fmt/format.h>

#include <cmath>

#include "rdmabench/verbs/error.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

struct KnownFigure {
  std::string_view key;
  Figure figure;
};

const KnownFigure kKnownFigures[] = {
    {"bw_average_Gbps", {"bandwidth", "Gb/s", Better::higher}},
    {"bw_peak_Gbps", {"peak bandwidth", "Gb/s", Better::higher}},
    {"bw_message_rate_Mpps", {"message rate", "Mpps", Better::higher}},
    {"lat_mean_us", {"average latency", "us", Better::lower}},
    {"lat_median_us", {"median latency", "us", Better::lower}},
    {"lat_p99_us", {"p99 latency", "us", Better::lower}},
    {"lat_p99_9_us", {"p99.9 latency", "us", Better::lower}},
    {"lat_max_us", {"maximum latency", "us", Better::lower}},
};

}  // namespace

Figure describe_figure(std::string_view key) {
  for (const KnownFigure& k : kKnownFigures)
    if (k.key == key) return k.figure;
  return {std::string(key), "", Better::higher};
}

std::string main_figure_key(std::string_view test, const std::vector<std::string>& present) {
  if (test.ends_with("_bw")) return "bw_average_Gbps";
  if (test.ends_with("_lat")) return "lat_p99_us";
  // A test of another name with no figure at all (every pair failed) still
  // gets one matrix to show its failures in.
  return present.empty() ? std::string("bw_average_Gbps") : present.front();
}

std::string value_text(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 0.1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string endpoint_label(const Endpoint& e) { return fmt::format("{}:{}:{}", e.rank, e.host, e.device); }

std::string figure_file_stem(std::string_view test, std::string_view key) {
  const bool plain = !test.empty() && test.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
                                          std::string_view::npos && test[0] != '.';
  require(plain, "sweep report: the test name '" + std::string(test) + "' cannot be part of a file name",
          "test names are letters, digits, '_' and '.', like write_bw");
  return std::string(test) + "-" + std::string(key);
}

}  // namespace rdmabench::sweep::detail
