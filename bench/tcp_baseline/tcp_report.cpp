#include "tcp_baseline/tcp_report.hpp"

#include <fmt/format.h>

#include <iostream>

#include "cli/output_file.hpp"
#include "rdmabench/report/report.hpp"

namespace rdmabench::tcp {

std::string summary_line(const Measurement& m) {
  const SizeResult& r = m.result;
  if (r.latency)
    return fmt::format("tcp pingpong {} B: median {:.2f} usec, p99 {:.2f}, p99.9 {:.2f} ({} samples)\n", r.bytes,
                       r.latency->median, r.latency->p99, r.latency->p99_9, r.iterations);
  return fmt::format("tcp stream {} B x {}: {:.1f} MB/s average, {:.1f} MB/s best interval\n", r.bytes, m.streams,
                     r.bandwidth->average_mb_per_s, r.bandwidth->peak_mb_per_s);
}

nlohmann::json result_json(const Measurement& m) {
  nlohmann::json j = to_json(m.result, m.context);
  j["cpu"]["server"] = m.server_cpu;
  if (m.intervals) {
    j["streams"] = m.streams;
    j["intervals"] = *m.intervals;
    j["bandwidth"]["average_note"] = "bytes the server received / seconds from the first send to its summary";
  }
  return j;
}

Outputs::Outputs(const Options& o) : json_path_(o.json_path), json_on_stdout_(o.json_path == "-") {
  const auto existing = cli::existing_output(o.force, o.append);
  if (!o.json_path.empty() && !json_on_stdout_) json_ = cli::open_output(o.json_path, "--json", existing).stream;
  if (!o.csv_path.empty()) {
    auto csv = cli::open_output(o.csv_path, "--csv", existing);
    csv_header_ = !csv.appended;
    csv_ = std::move(csv.stream);
  }
  if (!o.samples_path.empty()) samples_ = cli::open_output(o.samples_path, "--dump-samples", existing).stream;
}

void Outputs::report(const Measurement& m) {
  (json_on_stdout_ ? std::cerr : std::cout) << summary_line(m) << std::flush;
  std::ostream* json = json_on_stdout_ ? &std::cout : json_.get();
  if (json && !(*json << result_json(m).dump() << '\n' << std::flush))
    throw Error(fmt::format("cannot write --json file '{}'", json_path_));
  std::vector<std::unique_ptr<Reporter>> reporters;
  if (csv_) reporters.push_back(make_csv_reporter(*csv_, csv_header_));
  if (samples_) reporters.push_back(make_samples_reporter(*samples_));
  const auto tee = make_tee_reporter(std::move(reporters));
  tee->begin(m.context);
  tee->size_done(m.result);
  tee->end();
}

}  // namespace rdmabench::tcp
