#pragma once
/// @file
/// Plain results of a run: what the reporters print. No formatting here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/pacing/achieved_rate.hpp"
#include "rdmabench/system/cpu_usage.hpp"
#include "rdmabench/stats/bandwidth_over_time.hpp"
#include "rdmabench/topology/path_ceiling.hpp"
#include "rdmabench/stats/stats.hpp"
#include "rdmabench/verbs/port_counters.hpp"

namespace rdmabench {

/// Bandwidth over the timed iterations. MB are 10^6 bytes.
struct BandwidthFigures {
  double seconds = 0;
  double peak_mb_per_s = 0;     ///< best window of tx-depth messages
  double average_mb_per_s = 0;  ///< all timed bytes / all timed seconds
  double message_rate_mpps = 0;
  std::uint64_t messages = 0;  ///< timed messages (with -D: those inside the window)
  std::vector<double> per_qp_mb_per_s;  ///< with -q: each QP's average, in QP order
  bool operator==(const BandwidthFigures&) const = default;
};

/// Both directions of a -b run together: rates and message counts add up;
/// the time is the longer of the two. Peaks add too, which bounds the best
/// combined moment from above; it is labeled as a sum where printed.
inline BandwidthFigures add_directions(const BandwidthFigures& a, const BandwidthFigures& b) {
  BandwidthFigures sum;
  sum.seconds = a.seconds > b.seconds ? a.seconds : b.seconds;
  sum.peak_mb_per_s = a.peak_mb_per_s + b.peak_mb_per_s;
  sum.average_mb_per_s = a.average_mb_per_s + b.average_mb_per_s;
  sum.message_rate_mpps = a.message_rate_mpps + b.message_rate_mpps;
  sum.messages = a.messages + b.messages;
  return sum;
}

/// What a UC or UD receiver of sends counted against what the sender posted:
/// both lose messages silently, and a figure without its loss would mislead.
struct Delivery {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t lost() const { return sent > received ? sent - received : 0; }
  /// lost() as a share of sent, in percent; 0 when nothing was sent.
  double loss_percent() const {
    return sent ? 100.0 * static_cast<double>(lost()) / static_cast<double>(sent) : 0.0;
  }
  bool operator==(const Delivery&) const = default;
};

/// One receiver of a multicast run (-g): a UD queue pair attached to the
/// group, which gets its own copy of every message sent to it.
struct ReceiverDelivery {
  std::uint32_t qp_number = 0;
  Delivery delivery;  ///< sent: the messages sent to the group; received: this QP's copies
  bool operator==(const ReceiverDelivery&) const = default;
};

/// An open-loop run (--rate): the schedule kept, what the fabric took, and
/// how late messages left. The size's `latency` is then the response time,
/// counted from each message's intended send time.
struct OpenLoopFigures {
  std::string target;               ///< as the report writes it: "2 kmsg/s"
  double target_per_s = 0;          ///< messages per second
  double achieved_per_s = 0;        ///< messages posted over the time they took to leave
  std::uint64_t burst = 1;
  LatencySummary service;           ///< completion - actual post
  std::uint64_t late = 0;           ///< posted more than late_threshold_us after their time
  double late_threshold_us = 0;
  std::optional<LatencySummary> lateness;  ///< post - intended, of the late ones
  /// -D: messages the schedule held that were not posted by the end (the
  /// poster fell that far behind); counted runs send every one.
  std::uint64_t not_sent = 0;
  double ratio() const { return target_per_s > 0 ? achieved_per_s / target_per_s : 0; }
};

/// A bandwidth run at a set rate (--rate): the target, what the timed part
/// carried in the target's unit, and their ratio. Kept beside the figures
/// rather than in them: BandwidthFigures also crosses the wire for -b, which
/// --rate excludes.
struct BandwidthRate {
  AchievedRate rate;
  std::uint64_t burst = 1;  ///< --burst: most messages one turn of the loop may release
};

/// One message of an open-loop run, in microseconds from the first
/// message's intended send time: enough to recompute any percentile.
struct MessageTimes {
  double intended_us = 0;
  double posted_us = 0;
  double completed_us = 0;
  bool operator==(const MessageTimes&) const = default;
};

/// --load-qps: the background load that ran while the latency was measured,
/// and its own bandwidth over the intervals inside the latency's loop.
struct LoadFigures {
  std::uint32_t queue_pairs = 0;
  std::string op;  ///< "write", "read"
  std::uint64_t bytes = 0;  ///< each load message
  double mean_gbps = 0;
  double stdev_gbps = 0;
  std::uint64_t intervals = 0;
  bool operator==(const LoadFigures&) const = default;
};

struct SizeResult {
  std::uint64_t bytes = 0;
  std::uint64_t iterations = 0;  ///< timed iterations (warmup excluded)
  std::uint32_t warmup = 0;      ///< untimed iterations run before them
  std::optional<LatencySummary> latency;
  std::vector<double> latency_samples_us;  ///< every sample behind `latency`
  std::optional<OpenLoopFigures> open_loop;  ///< --rate
  std::vector<MessageTimes> message_times;   ///< --rate, counted: each timed message
  std::optional<BandwidthFigures> bandwidth;
  std::optional<BandwidthRate> bandwidth_rate;  ///< --rate, bandwidth tests: the client's pace
  /// Bandwidth tests: this side's rate per --interval over the timed part
  /// (with -b, this side's sending alone); empty with fewer than two intervals.
  std::optional<BandwidthOverTime> over_time;
  std::optional<LoadFigures> load;  ///< --load-qps, the client's latency
  /// With --cpu-util: each side's CPU over this size's loop (warmup
  /// included; bytes counted the same way). The server's reaches the client.
  std::optional<CpuUsage> cpu_client;
  std::optional<CpuUsage> cpu_server;
  /// With -b: the server's own sending figures (the client's are
  /// `bandwidth`); reports add the two.
  std::optional<BandwidthFigures> server_bandwidth;
  /// With -D: percentiles come from a histogram whose relative error is at
  /// most this (exact count, min, max, mean and stdev).
  std::optional<double> histogram_relative_error;
  /// UC and UD send bandwidth, receiving side. With -g, the copies due to
  /// every receiver together: sent is the messages times the receivers.
  std::optional<Delivery> delivery;
  /// -g: each receiver's own figures, in QP order.
  std::vector<ReceiverDelivery> delivery_per_receiver;
  bool validated = false;  ///< --validate checked every byte of this size's untimed messages
  /// This side's port counters over this size (read before its start
  /// barrier and after its end barrier); empty where none could be read.
  std::optional<CounterDeltas> counters;
  /// --use-srq: the RNR NAKs over this size, where the device counts them.
  std::optional<ReceiverNotReady> receiver_not_ready;
  /// -D and soak runs with --interval: the same counters per interval, read
  /// on a thread of their own from the start barrier on.
  std::optional<CounterSeries> counters_per_interval;
  /// --run-infinitely: which period of the soak this is (1, 2, ...); 0:
  /// not a soak.
  std::uint64_t period = 0;
  /// A stop signal on this side ended the period before its -D seconds.
  bool period_cut_short = false;
  /// --repeat: which pass over the size list this is, 1..TestSpec::repeats.
  std::uint32_t repeat = 1;
};

/// The end of a soak (--run-infinitely): this side's periods together.
struct SoakSummary {
  std::uint64_t periods = 0;
  std::string stopped_by;  ///< "SIGINT on this side", "a stop signal on the peer"
  /// The whole run as one result: the bandwidth of every period's timed
  /// messages over their timed seconds (the peak: the best period's), every
  /// whole interval end to end, the counters summed; for latency tests the
  /// period with the highest p99 (percentiles of periods do not add up).
  SizeResult whole;
};

/// The GRH fields this side put in its address vectors: how ECMP hashes
/// and how far its packets may travel.
struct GrhSettings {
  /// The IPv4 TTL on RoCEv2 (the IP route's there); empty where unknown
  /// (UD on RoCE, whose address handles cannot be queried).
  std::optional<std::uint8_t> hop_limit;
  std::uint32_t flow_label = 0;  ///< 0: the kernel's (on RoCEv2 derived from the QP numbers)
  std::uint8_t traffic_class = 0;
};

/// RunContext::latency_kind of a write or send ping-pong (and the TCP
/// baseline's), whose samples are halved round trips.
inline constexpr const char* kOneWayLatency = "one-way (round trip / 2)";

/// Everything a reader needs to interpret the figures.
struct RunContext {
  std::uint64_t run_id = 0;  ///< TestSpec::run_id: the same in both sides' records of one run
  std::string started_utc;   ///< ISO 8601, when this side's run began
  std::string test;         ///< "write_lat"
  std::string title;        ///< "RDMA Write Latency Test"
  std::string role;         ///< "server" / "client"
  std::string version;
  std::string build_type;
  std::string host;
  std::string device;
  int port = 1;
  std::string transport;    ///< "RoCEv2"
  std::string link_layer;   ///< "Ethernet"
  int gid_index = 0;
  std::string gid;
  std::string gid_type;
  std::string gid_reason;
  /// The GRH of this side's packets, as the device holds it, where the
  /// attribute exchange set one (RoCE; InfiniBand with -x); empty where
  /// rdma_cm's route set it or packets carry none.
  std::optional<GrhSettings> grh;
  std::uint32_t mtu_bytes = 0;
  std::string connection;   ///< "out-of-band TCP" / "rdma_cm"
  std::string connection_type = "RC";  ///< the queue pair type, -c: RC, UC or UD
  /// -g: the group the client sends to and the server's receivers joined
  /// (as the fabric carries it: ::ffff:239.255.72.83 on RoCEv2); empty
  /// without multicast.
  std::string multicast_group;
  std::uint32_t multicast_receivers = 0;  ///< -g: the server's receiving QPs
  std::string peer;
  std::string local_memory;
  std::string local_memory_device;  ///< the GPU behind it ("NVIDIA H200, PCI 0000:3b:00.0"); empty for host
  std::string memory_registration = "host";  ///< how our buffers were registered: host, dmabuf, peermem
  std::string remote_memory;
  std::string clock;        ///< source and frequency
  std::uint32_t tx_depth = 0;
  std::uint32_t max_inline = 0;
  std::string inline_reason;  ///< why max_inline ("GPU memory cannot be inlined"); empty: not said
  /// PCIe relaxed ordering requested when registering each buffer, and why;
  /// an empty reason leaves it out of the header.
  bool relaxed_local = false;
  bool relaxed_exposed = false;
  std::string relaxed_ordering;
  std::string latency_kind; ///< kOneWayLatency, "round trip (one read)"...; empty for bandwidth
  /// How the idle server of a read or atomic latency test waits (--passive-wait);
  /// empty where the server takes part or the test is bandwidth.
  std::string passive_wait;
  /// How this side's timed loop waits for completions: "busy polling",
  /// "events" (-e: asleep on a completion channel) or "none" (the passive
  /// server of a one-sided test reaps none).
  std::string completions = "busy polling";
  std::uint32_t queue_pairs = 1;
  /// --use-srq: the receives the shared receive queue keeps posted for all
  /// queue_pairs, and how that depth was reached; 0: no shared queue.
  std::uint32_t srq_depth = 0;
  std::string srq_reason;
  std::uint32_t duration_s = 0;  ///< -D; 0 for a counted run
  bool bidirectional = false;
  bool report_gbits = false;
  std::optional<int> device_numa_node;  ///< empty: unknown (a soft device, or firmware says -1)
  std::string pinned_cpus;              ///< "0-3"; empty: the thread was not pinned
  std::string cpu_placement;            ///< why these CPUs: "CPUs 0-3 (NUMA node 0 of mlx5_0)"
  /// With GPU memory on this side: the GPU's relationship to the device
  /// ("PIX: ..."), from the topology. Empty without a GPU.
  std::string gpu_relationship;
  /// The most payload this path can carry: the port's rate and the local
  /// device's PCIe link (and the GPU's, with GPU memory), each less its
  /// overhead, and the links' warnings. Empty where sysfs was not read.
  PathCeiling achievable;
  /// The agreed test parameters, written by name from their table
  /// (control/test_parameters.hpp) as the JSON context's `parameters`.
  TestSpec parameters;
};

}  // namespace rdmabench
