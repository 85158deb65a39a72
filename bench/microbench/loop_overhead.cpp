// loop_overhead: what our own bookkeeping costs per latency sample (the
// clock reads, the recorder, the watchdog, the completion handling around a
// poll), timed on a fake completion queue so that no device, provider or
// wire is in the figures. Each piece is measured alone and in the order a
// loop runs them, so the table says where the time goes; docs/methodology.md
// ("Our bookkeeping per sample") sets the figures against a real NIC's.
// A development benchmark: built with the others, never installed.
#include <boost/program_options.hpp>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "microbench/always_alive_peer.hpp"
#include "microbench/fake_completion_queue.hpp"
#include "microbench/loop_pieces.hpp"
#include "microbench/overhead_table.hpp"
#include "rdmabench/stats/histogram.hpp"
#include "rdmabench/system/clock.hpp"

namespace po = boost::program_options;
using namespace rdmabench;
using namespace rdmabench::microbench;
using detail::CountedRecorder;
using detail::TimedRecorder;

namespace {

/// What each fake receive says it carried: ib_send_lat's default message.
constexpr std::uint32_t kMessageBytes = 2;
/// Longer than any run of the pieces: the watchdog never times out, and a
/// TimedRecorder's window never closes.
constexpr std::uint32_t kNeverSeconds = 3600;

/// A -D recorder whose window is the whole run from the first stamp, so that
/// every stamp takes the dearer path into the histogram.
TimedRecorder recorder_keeping_all(Histogram& histogram, double ticks_per_us) {
  TimedRecorder recorder(histogram, kNeverSeconds, ticks_per_us, 0.1);
  recorder.margin_ticks = 0;
  return recorder;
}

OverheadRun measure(std::uint64_t iterations, unsigned repeats) {
  OverheadRun run;
  run.iterations = iterations;
  run.repeats = repeats;
  const ClockInfo counter = choose_clock(ClockChoice::tsc);
  run.counter_ticks_per_us = counter.ticks_per_us;
  run.clock_a_run_picks = choose_clock(ClockChoice::automatic).description;
  constexpr double kNsPerUs = 1000.0;  // MonotonicClock's ticks

  AlwaysAlivePeer peer;
  Watchdog dog(peer, Milliseconds(kNeverSeconds * 1000), "nothing (loop_overhead)");
  CompletionWait busy(nullptr);  // the loops' default: busy polling
  FakeCompletionQueue empty(FakeCompletionQueue::Holds::nothing);
  FakeCompletionQueue sends(FakeCompletionQueue::Holds::completions);
  FakeCompletionQueue receives(FakeCompletionQueue::Holds::completions, kMessageBytes);
  // Allocated before timing, as the loops' own are.
  std::vector<std::uint64_t> stamps(iterations + 1);
  Histogram histogram;
  // A ping-pong stamps once per round trip: about 1.6 us apart on a real NIC.
  const auto round_trip_ticks = static_cast<std::uint64_t>(std::lround(1.6 * counter.ticks_per_us));

  auto row = [&](std::string piece, auto&& body) {
    run.rows.push_back({std::move(piece), time_piece(body, iterations, repeats)});
  };
  const std::string tsc = kCounterName;
  row("loop itself (nothing)", EmptyIteration{});
  row("clock read: " + tsc, ClockRead<TscClock>{});
  row("clock read: clock_gettime", ClockRead<MonotonicClock>{});
  CountedRecorder counted{stamps.data(), 0, iterations};
  row("recorder: counted (-n), last + record",
      Recording<CountedRecorder>{counted, round_trip_ticks});
  TimedRecorder timed = recorder_keeping_all(histogram, counter.ticks_per_us);
  row("recorder: timed (-D), last + record", Recording<TimedRecorder>{timed, round_trip_ticks});
  row("try_reap_one: empty CQ", TryReap{empty.get(), dog});
  row("try_reap_one: one completion", TryReap{sends.get(), dog});
  row("reap_one: one completion", Reap{sends.get(), busy, dog});
  row("reap_receive: one completion", ReapReceive{receives.get(), kMessageBytes, busy, dog});
  row("watchdog: idle", WatchdogIdle{dog});
  row("watchdog: watch", WatchdogWatch{dog});
  row("spin turn: empty poll + idle", SpinTurn{empty.get(), busy, dog});

  run.whole_sample = "send_lat sample: " + tsc + ", -n";
  row(run.whole_sample, SendLatencySample<TscClock, CountedRecorder>{
                            counted, sends.get(), receives.get(), kMessageBytes, busy, dog});
  TimedRecorder timed_tsc = recorder_keeping_all(histogram, counter.ticks_per_us);
  row("send_lat sample: " + tsc + ", -D",
      SendLatencySample<TscClock, TimedRecorder>{timed_tsc, sends.get(), receives.get(),
                                                 kMessageBytes, busy, dog});
  row("send_lat sample: clock_gettime, -n",
      SendLatencySample<MonotonicClock, CountedRecorder>{counted, sends.get(), receives.get(),
                                                         kMessageBytes, busy, dog});
  TimedRecorder timed_ns = recorder_keeping_all(histogram, kNsPerUs);
  row("send_lat sample: clock_gettime, -D",
      SendLatencySample<MonotonicClock, TimedRecorder>{timed_ns, sends.get(), receives.get(),
                                                       kMessageBytes, busy, dog});
  row("read_lat sample: " + tsc + ", -n",
      RoundTripSample<TscClock, CountedRecorder>{counted, sends.get(), busy, dog});
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  // A latency run's default -n: the stamps then take the room they take
  // there (40 KiB, in cache). Short runs are seldom interrupted, and many
  // of them let the median pass over the ones that were.
  std::uint64_t iterations = 5000;
  unsigned repeats = 201;
  bool help = false;
  po::options_description options(
      "Usage: loop_overhead [--iterations M] [--repeat N]\n"
      "Times the latency loops' own bookkeeping (clock reads, recorders, watchdog,\n"
      "completion handling) on a fake completion queue: no device is used.\n"
      "Options");
  // clang-format off
  options.add_options()
      ("iterations", po::value(&iterations)->default_value(iterations),
       "iterations in each run of a piece")
      ("repeat", po::value(&repeats)->default_value(repeats),
       "runs of each piece; the table gives their median and quartiles")
      ("help,h", po::bool_switch(&help), "show this help");
  // clang-format on
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    po::notify(vm);
    if (iterations == 0 || repeats == 0)
      throw po::error("--iterations and --repeat must be at least 1");
  } catch (const po::error& e) {
    std::cerr << "loop_overhead: error: " << e.what() << "\nTry 'loop_overhead --help'.\n";
    return 2;
  }
  if (help) {
    std::cout << options;
    return 0;
  }
  try {
    print_overhead_table(std::cout, measure(iterations, repeats));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "loop_overhead: error: " << e.what() << "\n";
    return 1;
  }
}
