// A port's counters from recorded sysfs trees: an mlx5-like port (standard
// counters and hw_counters), an rxe-like one (hw_counters alone), and a
// device with none (siw), where the host's TCP counters stand in, host-wide.

#include "rdmabench/verbs/port_counters.hpp"
#include "rdmabench/verbs/counter_sampler.hpp"
#include <chrono>
#include <thread>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch2_compat.hpp"

using rdmabench::counter_deltas;
using rdmabench::read_port_counters;

namespace {

/// A scratch sysfs (and proc) root, removed with its contents.
struct CounterTree {
  std::filesystem::path root;
  CounterTree() {
    std::string name =
        (std::filesystem::temp_directory_path() / "rdmabench-counters-XXXXXX").string();
    root = ::mkdtemp(name.data());
  }
  ~CounterTree() { std::filesystem::remove_all(root); }
  void write(const std::string& relative, const std::string& text) const {
    const auto file = root / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  void snmp(std::uint64_t retransmitted) const {
    write("proc/net/snmp",
          "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
          "Tcp: RtoAlgorithm RtoMin ActiveOpens InSegs OutSegs RetransSegs InErrs OutRsts\n"
          "Tcp: 1 200 10 5000 6000 " +
              std::to_string(retransmitted) + " 0 2\n");
  }
};

}  // namespace

TEST_CASE(
    "port counters: an mlx5-like port gives its standard counters and its hw_counters by name",
    "[counters]") {
  CounterTree t;
  const std::string port = "sys/class/infiniband/mlx5_0/ports/1/";
  t.write(port + "counters/port_xmit_data", "1000\n");
  t.write(port + "counters/symbol_error", "0\n");
  t.write(port + "hw_counters/out_of_sequence", "7\n");
  t.write(port + "hw_counters/np_cnp_sent", "0\n");
  t.write(port + "hw_counters/lifespan", "10\n");  // a setting, not a count
  t.write(port + "hw_counters/not_a_count", "N/A\n");
  const auto before = read_port_counters("mlx5_0", 1, t.root / "sys", t.root / "proc");
  CHECK(before.source == "mlx5_0 port 1 counters and hw_counters");
  CHECK_FALSE(before.host_wide);
  CHECK(before.values.size() == 4);
  CHECK(before.values.count("lifespan") == 0);
  t.write(port + "counters/port_xmit_data", "5000\n");
  t.write(port + "hw_counters/out_of_sequence", "10\n");
  t.write(port + "hw_counters/np_cnp_sent", "0\n");
  t.write(port + "counters/symbol_error", "0\n");
  const auto d =
      counter_deltas(before, read_port_counters("mlx5_0", 1, t.root / "sys", t.root / "proc"));
  CHECK(d.counters_read == 4);
  CHECK(d.moved ==
        std::map<std::string, std::uint64_t>{{"out_of_sequence", 3}, {"port_xmit_data", 4000}});
  CHECK(rdmabench::describe_moved(d) == "out_of_sequence +3, port_xmit_data +4000");
}

TEST_CASE("port counters: an rxe-like port has hw_counters alone, and a counter reset is no delta",
          "[counters]") {
  CounterTree t;
  const std::string port = "sys/class/infiniband/rxe0/ports/1/hw_counters/";
  t.write(port + "rcvd_seq_err", "5\n");
  t.write(port + "retry_exceeded_err", "2\n");
  const auto before = read_port_counters("rxe0", 1, t.root / "sys", t.root / "proc");
  CHECK(before.source == "rxe0 port 1 hw_counters");
  t.write(port + "rcvd_seq_err", "1\n");  // went backwards: reset (or wrapped)
  const auto d =
      counter_deltas(before, read_port_counters("rxe0", 1, t.root / "sys", t.root / "proc"));
  CHECK(d.moved.empty());
  CHECK(d.went_backwards == std::vector<std::string>{"rcvd_seq_err"});
  CHECK(rdmabench::describe_moved(d) == "none moved");
}

TEST_CASE(
    "port counters: a device without counters (siw) is read as the host's TCP, labelled host-wide",
    "[counters]") {
  CounterTree t;
  t.write("sys/class/infiniband/siw0/ports/1/state", "4: ACTIVE\n");
  t.snmp(100);
  const auto before = read_port_counters("siw0", 1, t.root / "sys", t.root / "proc");
  CHECK(before.host_wide);
  CHECK(before.source == "host TCP, host-wide (siw0 has no counters of its own)");
  CHECK(before.values.at("tcp_RetransSegs") == 100);
  CHECK(before.values.at("tcp_OutRsts") == 2);
  t.snmp(103);
  const auto d =
      counter_deltas(before, read_port_counters("siw0", 1, t.root / "sys", t.root / "proc"));
  CHECK(d.host_wide);
  CHECK(d.moved == std::map<std::string, std::uint64_t>{{"tcp_RetransSegs", 3}});
  // Nothing at all to read: no source, so no counters in the report.
  CHECK(read_port_counters("siw0", 1, t.root / "sys", t.root / "nowhere").source.empty());
}

TEST_CASE("counter series: the deltas per interval of the counters that moved", "[counters]") {
  auto snapshot = [](std::uint64_t seq, std::uint64_t pkts, std::uint64_t quiet) {
    rdmabench::CounterSnapshot s;
    s.source = "rxe0 port 1 hw_counters";
    s.values = {{"rcvd_seq_err", seq}, {"sent_pkts", pkts}, {"link_downed", quiet}};
    return s;
  };
  const std::vector<rdmabench::CounterSnapshot> reads{snapshot(5, 100, 1), snapshot(5, 200, 1),
                                                      snapshot(8, 300, 1), snapshot(8, 350, 1)};
  const auto s = rdmabench::counter_series(reads, {0, 100, 200, 260}, 100);
  CHECK(s.interval_ms == 100);
  CHECK(s.ends_ms == std::vector<double>{100, 200, 260});
  CHECK(s.moved.at("rcvd_seq_err") == std::vector<std::uint64_t>{0, 3, 0});  // the stretch it fell in
  CHECK(s.moved.at("sent_pkts") == std::vector<std::uint64_t>{100, 100, 50});
  CHECK_FALSE(s.moved.contains("link_downed"));  // never moved

  // A counter reset between two reads gives no series; one read gives none at all.
  auto reset = reads;
  reset[2].values["sent_pkts"] = 10;
  CHECK_FALSE(rdmabench::counter_series(reset, {0, 100, 200, 260}, 100).moved.contains("sent_pkts"));
  CHECK(rdmabench::counter_series({reads[0]}, {0}, 100).moved.empty());
}

TEST_CASE("counter sampler: reads at its start, every interval and at its finish", "[counters]") {
  // Whatever this host has to read (a device that does not exist falls
  // back to the host's TCP counters), the sampler starts, ticks, stops.
  rdmabench::CounterSampler sampler("no_such_device_here", 1, std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(35));
  const auto s = sampler.finish();
  REQUIRE_FALSE(s.ends_ms.empty());  // at least the finishing read
  for (std::size_t k = 1; k < s.ends_ms.size(); ++k) CHECK(s.ends_ms[k] > s.ends_ms[k - 1]);
  for (const auto& [name, deltas] : s.moved) CHECK(deltas.size() == s.ends_ms.size());
}

TEST_CASE("receiver not ready: the RNR NAKs a device counts, zero included", "[counters][srq]") {
  using rdmabench::CounterSnapshot;
  using rdmabench::receiver_not_ready;
  const CounterSnapshot rxe_before{"rxe0 port 1 hw_counters", false,
                                   {{"send_rnr_err", 5}, {"rcvd_rnr_err", 7}, {"rcvd_seq_err", 1}}};
  CounterSnapshot rxe_after = rxe_before;
  const auto quiet = receiver_not_ready(rxe_before, rxe_after);
  REQUIRE(quiet.has_value());
  CHECK(quiet->naks_sent == 0u);
  CHECK(quiet->naks_received == 0u);
  CHECK(quiet->source == "rxe0 port 1 hw_counters");
  rxe_after.values["send_rnr_err"] = 9;
  rxe_after.values["rcvd_rnr_err"] = 10;
  const auto moved = receiver_not_ready(rxe_before, rxe_after);
  REQUIRE(moved.has_value());
  CHECK(moved->naks_sent == 4u);
  CHECK(moved->naks_received == 3u);
  // mlx5 counts only those it received, by another name.
  const CounterSnapshot mlx5_before{"mlx5_0 port 1 counters and hw_counters", false, {{"rnr_nak_retry_err", 2}}};
  CounterSnapshot mlx5_after = mlx5_before;
  mlx5_after.values["rnr_nak_retry_err"] = 12;
  const auto mlx5 = receiver_not_ready(mlx5_before, mlx5_after);
  REQUIRE(mlx5.has_value());
  CHECK_FALSE(mlx5->naks_sent.has_value());
  CHECK(mlx5->naks_received == 10u);
  // siw counts none (iWARP has no RNR): nothing to report, not zero.
  const CounterSnapshot siw{"host TCP, host-wide (siw0 has no counters of its own)", true, {{"tcp_RetransSegs", 3}}};
  CHECK_FALSE(receiver_not_ready(siw, siw).has_value());
  // A counter reset between the reads gives no delta.
  rxe_after.values["send_rnr_err"] = 1;
  rxe_after.values["rcvd_rnr_err"] = 1;
  CHECK_FALSE(receiver_not_ready(rxe_before, rxe_after).has_value());
}
