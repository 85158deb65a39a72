// The console table. Column names follow perftest where it has them. Every
// line that is not a row of figures starts with '#', as OSU's and
// nccl-tests' do, so that awk and gnuplot read the table as it is.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <ostream>

#include "rdmabench/report/figure_names.hpp"
#include "rdmabench/report/report.hpp"

namespace rdmabench {

namespace {

constexpr const char* kRule =
    "#--------------------------------------------------------------------------------------";
/// Where a note under a row begins: '#', then the indent that sets it apart.
constexpr const char* kNote = "#         ";

/// A counted write or send ping-pong's server stamps each of its n answers:
/// its samples are the n-1 spans between them, one fewer than the client's
/// (whose last span ends at the last answer), so its row says n-1 and this
/// says why.
bool server_of_counted_ping_pong(const RunContext& c) {
  return c.role == "server" && c.latency_kind == kOneWayLatency && !c.duration_s;
}
constexpr const char* kServerSpans = "; a server's samples are the n-1 spans between its n answers";

/// "64 KiB", "1 MiB", "1000 B": a load message's size as people say it.
std::string size_words(std::uint64_t bytes) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

/// Under the latency row of a loaded run: what loaded it, at what rate.
std::string load_line(const LoadFigures& l) {
  return fmt::format("{}load: {} x {} {} QP{}, {:.3f} \u00b1 {:.3f} Gb/s over {} interval{}",
                     kNote, l.queue_pairs, l.op, size_words(l.bytes), l.queue_pairs == 1 ? "" : "s",
                     l.mean_gbps, l.stdev_gbps, l.intervals, l.intervals == 1 ? "" : "s");
}

/// "0 RNR NAKs sent, 2 received", or the one the device counts.
std::string rnr_words(const ReceiverNotReady& n) {
  if (n.naks_sent && n.naks_received)
    return fmt::format("{} RNR NAKs sent, {} received", *n.naks_sent, *n.naks_received);
  if (n.naks_sent) return fmt::format("{} RNR NAKs sent (those received are not counted)", *n.naks_sent);
  return fmt::format("{} RNR NAKs received (those sent are not counted)", n.naks_received.value_or(0));
}

class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out) : out_(out) {}

  void begin(const RunContext& c) override {
    context_ = c;
    auto line = [&](const char* label, const std::string& value) {
      fmt::print(out_, "# {:<16}: {}\n", label, value);
    };
    fmt::print(out_, "{}\n#{:^86}\n", kRule,
               fmt::format("{} (rdmabench {}, {})", c.title, c.version, c.role));
    line("Device", fmt::format("{}, port {}", c.device, c.port));
    line("Transport", fmt::format("{} (link layer {})", c.transport, c.link_layer));
    line("GID", fmt::format("index {}, {}, {} ({})", c.gid_index, c.gid_type, c.gid, c.gid_reason));
    if (c.grh)
      line("GRH", fmt::format("hop limit {}, flow label {}, traffic class {}",
                              c.grh->hop_limit ? std::to_string(*c.grh->hop_limit) : "the IP route's",
                              c.grh->flow_label ? std::to_string(c.grh->flow_label)
                                                : "0 (the kernel's: from the QP numbers on RoCEv2)",
                              c.grh->traffic_class));
    line("MTU", fmt::format("{} bytes", c.mtu_bytes));
    line("Connection", fmt::format("{} queue pairs, {}, peer {}", c.connection_type, c.connection, c.peer));
    if (!c.multicast_group.empty())
      line("Multicast", fmt::format("group {}: the client sends to it, {} receiving QP{} on the server",
                                    c.multicast_group, c.multicast_receivers,
                                    c.multicast_receivers == 1 ? "" : "s"));
    const std::string device = c.local_memory_device.empty() ? "" : " [" + c.local_memory_device + "]";
    line("Memory", fmt::format("local {}{} (registration: {}), remote {}", c.local_memory, device,
                               c.memory_registration, c.remote_memory));
    if (!c.relaxed_ordering.empty()) line("PCIe ordering", c.relaxed_ordering);
    const std::string inline_reason = c.inline_reason.empty() ? "" : " (" + c.inline_reason + ")";
    line("Queue", fmt::format("{} QP{}, tx depth {} each, max inline {} bytes{}{}", c.queue_pairs,
                              c.queue_pairs == 1 ? "" : "s", c.tx_depth, c.max_inline,
                              inline_reason, c.bidirectional ? ", bidirectional" : ""));
    if (c.srq_depth)
      line("SRQ", fmt::format("depth {} shared by {} QP{} ({})", c.srq_depth, c.queue_pairs,
                              c.queue_pairs == 1 ? "" : "s", c.srq_reason));
    if (c.parameters.run_infinitely)
      line("Duration", fmt::format("soak: until SIGINT or SIGTERM on either side, a record every {} s, "
                                   "each period timed whole",
                                   c.duration_s));
    else if (c.duration_s)
      line("Duration", fmt::format("{} s per size; the first and last tenth are not timed", c.duration_s));
    if (c.parameters.repeats > 1)
      line("Repeats", fmt::format("{} passes over the sizes on one connection, one run_id",
                                  c.parameters.repeats));
    line("Clock", c.clock);
    if (!c.cpu_placement.empty()) line("CPU placement", c.cpu_placement);
    if (!c.gpu_relationship.empty()) line("GPU to device", c.gpu_relationship);
    if (c.achievable.device_found) {
      line("Achievable", describe(c.achievable));
      if (c.achievable.device_link) line("PCIe link", fmt::format("{} {}", c.device, describe(*c.achievable.device_link)));
      if (c.achievable.gpu_link)
        line("GPU PCIe link", fmt::format("{} {}", c.achievable.gpu_address, describe(*c.achievable.gpu_link)));
      for (const auto& warning : c.achievable.warnings) line("Warning", warning);
    }
    if (!c.passive_wait.empty()) line("Server wait", c.passive_wait);
    if (c.completions == "events") line("Completions", "events: asleep on a completion channel until each arrives (-e)");
    else if (c.completions == "busy polling") line("Completions", "busy polling (-e sleeps instead)");
    if (!c.latency_kind.empty())
      line("Latency", c.latency_kind + (c.duration_s ? "; percentiles from a log-linear histogram"
                                                     : "; every sample kept, warmup excluded and counted") +
                          (server_of_counted_ping_pong(c) ? kServerSpans : ""));
    else
      line("Units", c.report_gbits ? "Gb/sec = 10^9 bit/s, MsgRate in 10^6 msg/s"
                                   : "MB/sec = 10^6 bytes/s (perftest's is 2^20), MsgRate in 10^6 msg/s");
    fmt::print(out_, "{}\n", kRule);
    if (!c.latency_kind.empty()) {
      fmt::print(out_, "#{:>8} {:>11} {:>14} {:>14} {:>16} {:>14} {:>16} {:>22} {:>24} {:>14} {:>25} {:>8}\n",
                 "#bytes", "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]",
                 "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]",
                 "99.9% percentile[usec]", "t_p90[usec]", "99.99% percentile[usec]", "#warmup");
    } else {
      const char* unit = c.report_gbits ? "Gb/sec" : "MB/sec";
      // "%achievable" goes last, and only where a ceiling is known, so that
      // scripts that read perftest's first columns read the same ones.
      fmt::print(out_, "#{:>8} {:>14} {:>19} {:>22} {:>15} {:>8}{}\n", "#bytes", "#iterations",
                 fmt::format("BW peak[{}]", unit), fmt::format("BW average[{}]", unit),
                 "MsgRate[Mpps]", "#warmup", c.achievable.ceiling ? fmt::format(" {:>12}", "%achievable") : "");
    }
    out_.flush();
  }

  void size_done(const SizeResult& r) override {
    // --repeat: a marker where each pass over the size list begins.
    if (context_.parameters.repeats > 1 && r.repeat != repeat_marked_) {
      fmt::print(out_, "{}repeat {} of {}\n", kNote, r.repeat, context_.parameters.repeats);
      repeat_marked_ = r.repeat;
    }
    if (r.period)
      fmt::print(out_, "{}soak period {}{}\n", kNote, r.period,
                 r.period_cut_short ? " (cut short by the stop signal)" : "");
    if (r.latency) {
      const auto& l = *r.latency;
      fmt::print(out_,
                 " {:>8} {:>11} {:>14.2f} {:>14.2f} {:>16.2f} {:>14.2f} {:>16.2f} {:>22.2f} "
                 "{:>24.2f} {:>14.2f} {:>25.2f} {:>8}\n",
                 r.bytes, l.count, l.min, l.max, l.median, l.mean, l.stdev, l.p99, l.p99_9, l.p90,
                 l.p99_99, r.warmup);
      if (r.histogram_relative_error)
        fmt::print(out_, "{}percentiles within {:.2f}% (histogram); min, max, mean exact\n", kNote,
                   *r.histogram_relative_error * 100);
      if (r.open_loop) print_open_loop(*r.open_loop);
      if (r.load) fmt::print(out_, "{}\n", load_line(*r.load));
    } else if (r.bandwidth && r.server_bandwidth) {
      // Both directions together against both directions' ceilings: every
      // link on the path is full duplex.
      print_bandwidth(r, add_directions(*r.bandwidth, *r.server_bandwidth), "  both directions (peak: sum)", 2);
      print_bandwidth(r, *r.bandwidth, "  client -> server");
      print_bandwidth(r, *r.server_bandwidth, "  server -> client");
    } else if (r.bandwidth) {
      print_bandwidth(r, *r.bandwidth, "");
      if (r.bandwidth_rate)
        fmt::print(out_, "{}rate: {}, burst {}\n", kNote, format_achieved(r.bandwidth_rate->rate),
                   r.bandwidth_rate->burst);
    } else if (!r.delivery) {
      fmt::print(out_, "#{:>8} {:>14}   (measured by the peer)\n", r.bytes, r.iterations);
    }
    if (r.over_time) print_over_time(*r.over_time, r.server_bandwidth.has_value());
    if (r.delivery) print_delivery(*r.delivery, r.delivery_per_receiver);
    if (r.validated)
      fmt::print(out_, "{}validated: every byte of 2 untimed messages of this size\n", kNote);
    print_cpu("client", r.cpu_client);
    print_cpu("server", r.cpu_server);
    // With a shared receive queue, whether it ran dry: said even when not.
    if (const auto& n = r.receiver_not_ready)
      fmt::print(out_, "{}receiver not ready: {} ({})\n", kNote, rnr_words(*n), n->source);
    // Only counters that moved: a quiet port says nothing.
    if (const auto& k = r.counters; k && (!k->moved.empty() || !k->went_backwards.empty()))
      fmt::print(out_, "{}counters ({}): {}{}\n", kNote, k->source, describe_moved(*k),
                 k->went_backwards.empty() ? ""
                                           : fmt::format("; reset during the run: {}",
                                                         fmt::join(k->went_backwards, ", ")));
    out_.flush();
  }

  /// The whole soak, under its periods, in the same rows.
  void soak_done(const SoakSummary& s) override {
    fmt::print(out_, "{}soak: {} period{}, stopped by {}; the whole run{}:\n", kNote, s.periods,
               s.periods == 1 ? "" : "s", s.stopped_by,
               s.whole.latency ? " (latency: the period with the highest p99)" : "");
    size_done(s.whole);
  }

  void end() override { fmt::print(out_, "{}\n", kRule); }

 private:
  std::uint32_t repeat_marked_ = 0;  ///< the repeat whose marker was printed last
  void print_bandwidth(const SizeResult& r, const BandwidthFigures& b, const char* label, int directions = 1) {
    const double scale = context_.report_gbits ? 8.0 / 1000.0 : 1.0;  // MB/s -> Gb/s
    const auto& ceiling = context_.achievable.ceiling;
    const std::string share =
        ceiling ? fmt::format(" {:>12.1f}", percent_of(*ceiling, figure_names::gbps_from_mbps(b.average_mb_per_s) / directions)) : "";
    fmt::print(out_, " {:>8} {:>14} {:>19.2f} {:>22.2f} {:>15.6f} {:>8}{}{}\n", r.bytes, b.messages,
               b.peak_mb_per_s * scale, b.average_mb_per_s * scale, b.message_rate_mpps, r.warmup,
               share, label);
    if (b.per_qp_mb_per_s.size() > 1) {
      std::string each;
      for (double v : b.per_qp_mb_per_s) each += fmt::format(" {:.2f}", v * scale);
      fmt::print(out_, "{}per QP average[{}]:{}\n", kNote, context_.report_gbits ? "Gb/sec" : "MB/sec", each);
    }
  }

  /// What an unreliable receiver counted; with -g, the copies of every
  /// receiver together, then each receiver's.
  void print_delivery(const Delivery& d, const std::vector<ReceiverDelivery>& receivers) {
    if (receivers.empty()) {
      fmt::print(out_, "{}delivery: {} of {} messages sent arrived ({} lost, {:.2f}%)\n", kNote, d.received,
                 d.sent, d.lost(), d.loss_percent());
      return;
    }
    const std::uint64_t sent = receivers.front().delivery.sent;
    fmt::print(out_, "{}delivery: {} of {} copies arrived ({} messages sent to the group x {} receiver{}; {} lost, "
                     "{:.2f}%)\n",
               kNote, d.received, d.sent, sent, receivers.size(), receivers.size() == 1 ? "" : "s", d.lost(),
               d.loss_percent());
    for (std::size_t i = 0; i < receivers.size(); ++i) {
      const Delivery& own = receivers[i].delivery;
      fmt::print(out_, "{}  receiver {} (QP {:#08x}): {} of {} arrived ({} lost, {:.2f}%)\n", kNote, i + 1,
                 receivers[i].qp_number, own.received, own.sent, own.lost(), own.loss_percent());
    }
  }

  /// Under the bandwidth rows: the spread of the interval rates, which an
  /// average hides, and what was left out of them.
  void print_over_time(const BandwidthOverTime& t, bool one_direction) {
    const double scale = context_.report_gbits ? 8.0 / 1000.0 : 1.0;  // MB/s -> Gb/s
    std::string left_out;
    if (t.cut_short)
      left_out = fmt::format(", the last {:.0f} ms left out (the series is full)", t.tail_ms);
    else if (t.tail_ms > 0)
      left_out = fmt::format(", the last {:.0f} ms (partial) left out", t.tail_ms);
    fmt::print(out_, "{}over time{}: {} x {:g} ms{}: min {:.2f} p1 {:.2f} p50 {:.2f} {}, CV {:.1f}%\n",
               kNote, one_direction ? " (this side's sending)" : "", t.mb_per_s.size(), t.interval_ms,
               left_out, t.min_mb_per_s * scale, t.p1_mb_per_s * scale, t.p50_mb_per_s * scale,
               context_.report_gbits ? "Gb/sec" : "MB/sec", t.cv * 100);
  }

  /// Under the response-time row: the schedule kept, the service time, and
  /// how many messages left late.
  void print_open_loop(const OpenLoopFigures& o) {
    fmt::print(out_, "{}open loop: target {}, achieved {:.6g} msg/s ({:.2f}% of target), burst {}\n",
               kNote, o.target, o.achieved_per_s, o.ratio() * 100, o.burst);
    const LatencySummary& v = o.service;
    fmt::print(out_,
               "{}service time (from the post) [usec]: min {:.2f} median {:.2f} p99 {:.2f} "
               "p99.9 {:.2f} p99.99 {:.2f} max {:.2f}\n",
               kNote, v.min, v.median, v.p99, v.p99_9, v.p99_99, v.max);
    if (o.lateness)
      fmt::print(out_, "{}late: {} messages left more than {:.2f} usec after their time "
                       "(by median {:.2f}, max {:.2f} usec)\n",
                 kNote, o.late, o.late_threshold_us, o.lateness->median, o.lateness->max);
    else
      fmt::print(out_, "{}late: none left more than {:.2f} usec after its time\n", kNote, o.late_threshold_us);
    if (o.not_sent)
      fmt::print(out_, "{}not sent: {} messages of the window's schedule were still unsent when -D ended\n",
                 kNote, o.not_sent);
  }

  void print_cpu(const char* side, const std::optional<CpuUsage>& cpu) {
    if (!cpu) return;
    const auto per_gb = cpu->process_cpu_s_per_gb
                            ? fmt::format("{:.3f} CPU-s/GB", *cpu->process_cpu_s_per_gb)
                            : std::string("no bytes moved");
    fmt::print(out_,
               "{}CPU {}: {:.2f} cores (user {:.2f}, system {:.2f}), {}; machine {:.2f} of "
               "{} cores busy\n",
               kNote, side, cpu->process_cores, cpu->process_user_cores, cpu->process_system_cores,
               per_gb, cpu->machine_cores, cpu->machine_cpus);
  }

  std::ostream& out_;
  RunContext context_;
};

class TeeReporter final : public Reporter {
 public:
  explicit TeeReporter(std::vector<std::unique_ptr<Reporter>> r) : reporters_(std::move(r)) {}
  void begin(const RunContext& c) override {
    for (auto& r : reporters_) r->begin(c);
  }
  void size_started(std::uint64_t bytes) override {
    for (auto& r : reporters_) r->size_started(bytes);
  }
  void size_done(const SizeResult& s) override {
    for (auto& r : reporters_) r->size_done(s);
  }
  void soak_done(const SoakSummary& s) override {
    for (auto& r : reporters_) r->soak_done(s);
  }
  void end() override {
    for (auto& r : reporters_) r->end();
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

class SamplesReporter final : public Reporter {
 public:
  explicit SamplesReporter(std::ostream& out) : out_(out) {}
  void begin(const RunContext& c) override { context_ = c; }
  void size_done(const SizeResult& r) override {
    if (!r.message_times.empty()) return print_message_times(r);
    if (r.latency_samples_us.empty()) return;
    fmt::print(out_, "# {} {}: {} bytes, {} samples, {} in usec\n", context_.test, context_.role,
               r.bytes, r.latency_samples_us.size(), context_.latency_kind);
    for (double v : r.latency_samples_us) fmt::print(out_, "{:.6f}\n", v);
    out_.flush();
  }

 private:
  /// An open-loop run: each message's three times, so that any percentile,
  /// CDF or time series can be recomputed (docs/methodology.md shows how).
  void print_message_times(const SizeResult& r) {
    fmt::print(out_,
               "# {} {}: {} bytes, {} messages, open loop; usec from the first message's intended "
               "send: intended posted completed (response = completed - intended, service = "
               "completed - posted)\n",
               context_.test, context_.role, r.bytes, r.message_times.size());
    for (const MessageTimes& m : r.message_times)
      fmt::print(out_, "{:.3f} {:.3f} {:.3f}\n", m.intended_us, m.posted_us, m.completed_us);
    out_.flush();
  }

  std::ostream& out_;
  RunContext context_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out) {
  return std::make_unique<ConsoleReporter>(out);
}
std::unique_ptr<Reporter> make_samples_reporter(std::ostream& out) {
  return std::make_unique<SamplesReporter>(out);
}
std::unique_ptr<Reporter> make_tee_reporter(std::vector<std::unique_ptr<Reporter>> reporters) {
  return std::make_unique<TeeReporter>(std::move(reporters));
}

}  // namespace rdmabench
