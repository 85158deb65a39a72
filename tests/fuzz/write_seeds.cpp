// Writes the seed corpus of the fuzz targets: a few valid messages of every
// type, encoded by this build (so a hello carries this build's table).
//
//   fuzz_write_seeds DIR   writes DIR/wire/, DIR/control_channel/, DIR/hello/
//
// tests/fuzz/corpus/ is its output, committed; rerun it there after a change
// to the wire format or the table of test parameters (CI also adds a fresh
// set to the copy each run fuzzes).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "rdmabench/control/wire.hpp"

namespace fs = std::filesystem;
namespace wire = rdmabench::wire;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::vector<std::pair<std::string, wire::Message>> sample_messages() {
  using namespace rdmabench;
  std::vector<std::pair<std::string, wire::Message>> out;
  out.emplace_back("hello-write-bw", wire::Hello{TestSpec{}});
  TestSpec send_lat;
  send_lat.operation = Operation::send;
  send_lat.measurement = Measurement::latency;
  send_lat.sizes = all_sizes();
  send_lat.rx_depth = 64;
  send_lat.qp_type = QpType::ud;
  send_lat.cpu_util = true;
  out.emplace_back("hello-send-lat-all-sizes", wire::Hello{send_lat});
  TestSpec read_bw;
  read_bw.operation = Operation::read;
  read_bw.connect = ConnectMethod::rdma_cm;
  read_bw.queue_pairs = 4;
  read_bw.duration_s = 5;
  read_bw.post_list = 8;
  read_bw.cq_mod = 16;
  read_bw.bidirectional = true;
  read_bw.validate = true;
  read_bw.warmup_each_size = false;
  out.emplace_back("hello-read-bw-cm-q4-D5", wire::Hello{read_bw});
  TestSpec atomic_lat;
  atomic_lat.operation = Operation::atomic;
  atomic_lat.measurement = Measurement::latency;
  atomic_lat.sizes = {kAtomicBytes};
  atomic_lat.atomic = AtomicOp::compare_and_swap;
  atomic_lat.passive_wait = PassiveWait::spin;
  atomic_lat.iterations = 1'000'000'000;
  atomic_lat.qp_timeout = 31;
  out.emplace_back("hello-atomic-lat-cas", wire::Hello{atomic_lat});

  out.emplace_back("reject", wire::Reject{"mismatched -c/--connection: the server uses RC queue "
                                          "pairs, the client UD; give the same -c on both sides"});
  out.emplace_back("abort-empty", wire::Abort{""});
  out.emplace_back("abort", wire::Abort{"timed out after 5000 ms waiting for client 10.0.2.15:4242"});
  wire::Endpoint endpoint;
  endpoint.qp_number = 0x11;
  endpoint.packet_sequence = 0xabcdef;
  endpoint.lid = 0;
  endpoint.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15};
  endpoint.mtu_bytes = 1024;
  endpoint.read_responders = 16;
  endpoint.rkey = 0x1234;
  endpoint.address = 0x7f0000001000;
  endpoint.length = 65536;
  endpoint.memory = "host";
  out.emplace_back("endpoint", endpoint);
  out.emplace_back("barrier-0", wire::Barrier{0});
  out.emplace_back("barrier-7", wire::Barrier{7});
  CpuUsage usage;
  usage.wall_s = 1.5;
  usage.resolution_s = 0.01;
  usage.process_cpu_s = 1.4;
  usage.process_cores = 0.93;
  usage.process_user_cores = 0.9;
  usage.process_system_cores = 0.03;
  usage.process_cpu_s_per_gb = 0.2;
  usage.machine_cpus = 2;
  usage.machine_cores = 1.1;
  usage.machine_iowait_cores = 0.0;
  out.emplace_back("cpu-report", wire::CpuReport{usage});
  out.emplace_back("cpu-report-empty", wire::CpuReport{});
  BandwidthFigures figures;
  figures.seconds = 2.0;
  figures.peak_mb_per_s = 1200.5;
  figures.average_mb_per_s = 1100.25;
  figures.message_rate_mpps = 0.0168;
  figures.messages = 33000;
  figures.per_qp_mb_per_s = {275.0, 275.1, 275.2, 274.9};
  out.emplace_back("heartbeat", wire::Heartbeat{});
  out.emplace_back("bandwidth-report-q4", wire::BandwidthReport{figures});
  return out;
}

void write_file(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    for (const char* target : {"wire", "control_channel", "hello"})
      fs::create_directories(dir / target);
    const auto messages = sample_messages();
    for (const auto& [name, message] : messages) {
      const auto frame = wire::encode(message);
      write_file(dir / "wire" / (name + ".bin"), frame);
      if (std::holds_alternative<wire::Hello>(message))
        write_file(dir / "hello" / (name + ".bin"), Bytes(frame.begin() + wire::kHeaderSize, frame.end()));
    }
    // The control channel: conversations as one side hears them.
    const auto frame = [&](std::size_t i) { return wire::encode(messages.at(i).second); };
    const auto find = [&](const std::string& name) {
      for (std::size_t i = 0; i < messages.size(); ++i)
        if (messages[i].first == name) return frame(i);
      throw std::runtime_error("no sample " + name);
    };
    const auto channel = dir / "control_channel";
    write_file(channel / "server-hears.bin",
               concat({find("hello-write-bw"), find("endpoint"), find("barrier-0"),
                       find("barrier-7")}));
    write_file(channel / "client-hears.bin",
               concat({find("endpoint"), find("barrier-0"), find("cpu-report"),
                       find("bandwidth-report-q4"), find("barrier-7")}));
    write_file(channel / "abort-first.bin", concat({find("abort"), find("barrier-0")}));
    write_file(channel / "reject.bin", find("reject"));
    const auto hello = find("hello-send-lat-all-sizes");
    write_file(channel / "cut-frame.bin", Bytes(hello.begin(), hello.begin() + hello.size() / 2));
    std::printf("wrote %zu messages' seeds under %s\n", messages.size(), dir.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_write_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
