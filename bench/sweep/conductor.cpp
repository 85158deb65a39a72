#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "sweep/coordination.hpp"
#include "sweep/judging.hpp"
#include "sweep/out_folder.hpp"
#include "sweep/results_file.hpp"
#include "sweep/sweep_report.hpp"

namespace rdmabench::sweep_cli {

namespace {

using Clock = std::chrono::steady_clock;
std::atomic<bool> termination_requested{false};

extern "C" void on_termination(int) { termination_requested.store(true); }

/// How long a rank may say nothing before the sweep ends: past --timeout,
/// by which its partner's pair has failed, and a beat or two of its own.
Clock::duration silence_limit(const SweepOptions& options) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s + 3.0));
}

class Conductor {
 public:
  Conductor(const SweepRank& rank, Mailbox& mail, const std::function<void()>& meet_at_the_end)
      : rank_(rank), mail_(mail), meet_at_the_end_(meet_at_the_end) {
    for (const auto& e : rank.everyone) endpoints_.push_back(e.endpoint);
    last_heard_.assign(static_cast<std::size_t>(rank.world.size), Clock::now());
    done_.assign(last_heard_.size(), std::nullopt);
  }

  int run();

 private:
  void load_earlier_results();
  void run_orders(const std::vector<RoundOrder>& orders);
  void run_round(const RoundOrder& order);
  void tend();
  void take(const Letter& letter);
  void keep(const std::vector<sweep::SweepRecord>& records);
  /// Adds a rank's part of the round; the records are kept once the round
  /// is done, when every server's counters have come.
  void gather(MyPairs part);
  void keep_gathered();
  void show_progress(const RoundOrder& order);
  std::vector<RoundOrder> plan_retests();
  /// The latency tests whose pairs run one at a time: all of them when a
  /// pairwise sweep's host has more ranks than CPUs (busy-polling pairs at
  /// once would measure the scheduler), none otherwise.
  std::set<std::string> tests_run_alone() const;
  [[noreturn]] void give_up(const std::string& why);
  sweep::ReportSummary report(const std::vector<std::string>& notes, bool with_heatmaps) {
    return write_sweep_report(rank_.options, records_, rank_.everyone, notes, with_heatmaps);
  }

  const SweepRank& rank_;
  Mailbox& mail_;
  const std::function<void()>& meet_at_the_end_;
  std::vector<sweep::Endpoint> endpoints_;  ///< by rank
  std::optional<ResultsFile> results_;
  std::vector<sweep::SweepRecord> records_;
  MyPairs round_;  ///< this round's records and served counters so far
  std::set<std::string> alone_;  ///< tests_run_alone()
  std::vector<Clock::time_point> last_heard_;
  std::vector<std::optional<std::uint32_t>> done_;  ///< the epoch each rank last finished
  Clock::time_point last_ping_{};
  Clock::time_point started_ = Clock::now();
  std::size_t pairs_planned_ = 0, pairs_done_ = 0;
  std::uint32_t epoch_ = 0;
};

void Conductor::load_earlier_results() {
  refuse_mixing_sweeps(rank_.options.out_dir, rank_.options.resume);
  const auto path = std::filesystem::path(rank_.options.out_dir) / "results.jsonl";
  if (!rank_.options.resume || !std::filesystem::exists(path)) return;
  std::ifstream in(path);
  std::size_t torn = 0;
  records_ = sweep::read_records(in, &torn);
  if (torn) {
    in.close();
    const auto cut = sweep_cli::cut_last_line(path);
    std::cerr << fmt::format("rdma_sweep: --resume: the last line of {} was cut short ({} bytes, a crash or a "
                             "full disk mid-write): cut it from the file ({} bytes), kept {} records; its pair "
                             "is measured again\n",
                             path.string(), torn, cut, records_.size());
  }
  for (const auto& r : records_)
    for (const auto* end : {&r.client, &r.server}) {
      const auto rank = static_cast<std::size_t>(end->endpoint.rank);
      const auto& now = rank < rank_.everyone.size() ? rank_.everyone[rank].endpoint : sweep::Endpoint{};
      if (rank >= rank_.everyone.size() || now.host != end->endpoint.host || now.device != end->endpoint.device)
        throw Error(fmt::format("--resume: {} recorded rank {} as {} {}, but this job's rank {} is {}",
                                path.string(), rank, end->endpoint.host, end->endpoint.device, rank,
                                rank < rank_.everyone.size() ? sweep::describe(now) : "absent"),
                    "resume with the same hosts, devices and rank placement as the first run");
    }
  std::cerr << fmt::format("rdma_sweep: resuming: {} records already in {}\n", records_.size(), path.string());
}

void Conductor::keep(const std::vector<sweep::SweepRecord>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) lines.push_back(sweep::to_json_line(r));
  results_->append(lines);  // written and synced before the round counts as done
  records_.insert(records_.end(), records.begin(), records.end());
  pairs_done_ += records.size();
}

void Conductor::gather(MyPairs part) {
  for (auto& r : part.records) round_.records.push_back(std::move(r));
  for (auto& s : part.served) round_.served.push_back(std::move(s));
}

void Conductor::keep_gathered() {
  join_server_counters(round_.records, round_.served);
  const MyPairs round = std::exchange(round_, {});
  if (!round.records.empty()) keep(round.records);
}

void Conductor::take(const Letter& letter) {
  const auto from = static_cast<std::size_t>(letter.from);
  if (from >= last_heard_.size()) return;
  last_heard_[from] = Clock::now();
  try {
    const auto j = nlohmann::json::parse(letter.text);
    if (j.at("kind") != "done") return;
    std::uint32_t epoch = 0;
    gather(decode_done(letter.text, letter.from, epoch));
    done_[from] = epoch;
  } catch (const std::exception& e) {
    give_up(fmt::format("rank {} sent a report that does not parse: {}", letter.from, e.what()));
  }
}

void Conductor::tend() {
  if (termination_requested.load())
    give_up("the job was ended from outside (mpirun or srun ends every rank when one of them dies; "
            "its message above names the rank)");
  while (auto letter = mail_.poll()) take(*letter);
  const auto now = Clock::now();
  if (now - last_ping_ > std::chrono::seconds(1)) {
    for (int r = 1; r < rank_.world.size; ++r) mail_.post(r, R"({"kind":"alive"})");
    last_ping_ = now;
  }
  for (std::size_t r = 1; r < last_heard_.size(); ++r)
    if (now - last_heard_[r] > silence_limit(rank_.options))
      give_up(fmt::format("{} stopped answering: nothing from it for {:.0f} s (killed, stopped, or cut off)",
                          sweep::describe(rank_.everyone[r].endpoint),
                          std::chrono::duration<double>(now - last_heard_[r]).count()));
}

void Conductor::show_progress(const RoundOrder& order) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
  const double left = pairs_done_ ? elapsed / static_cast<double>(pairs_done_) *
                                        static_cast<double>(pairs_planned_ - std::min(pairs_planned_, pairs_done_))
                                  : 0;
  std::cerr << fmt::format("rdma_sweep: {}{} round {} of {} done: {} of {} pairs, {:.0f} s so far, about {:.0f} s left\n",
                           order.test, order.pass == sweep::SweepPass::retest ? " re-test" : "", order.round + 1,
                           order.rounds, pairs_done_, pairs_planned_, elapsed, left);
}

void Conductor::run_round(const RoundOrder& order) {
  const std::string text = encode_order(order);
  for (int r = 1; r < rank_.world.size; ++r) mail_.post(r, text);
  gather(run_my_pairs(rank_, order, [this] { tend(); }));
  auto everyone_done = [&] {
    for (std::size_t r = 1; r < done_.size(); ++r)
      if (done_[r] != order.epoch) return false;
    return true;
  };
  while (!everyone_done()) {
    tend();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  keep_gathered();
  show_progress(order);
  // A report after every round, so that a sweep ended from outside (a rank
  // died, the job's time ran out) leaves one of what finished; the final
  // report replaces it.
  report({fmt::format("Incomplete sweep: {} of {} planned pairs finished when this was written, after {} "
                      "round {} of {}; the sweep was still running.",
                      pairs_done_, pairs_planned_, order.test, order.round + 1, order.rounds)},
         /*with_heatmaps=*/false);
}

void Conductor::run_orders(const std::vector<RoundOrder>& orders) {
  for (const auto& o : orders) pairs_planned_ += o.pairs.size();
  for (const auto& order : orders) run_round(order);
}

std::set<std::string> Conductor::tests_run_alone() const {
  std::set<std::string> alone;
  if (rank_.options.schedule.pattern != sweep::Pattern::pairwise) return alone;  // the pattern wants them at once
  const auto crowded = crowded_host(rank_.everyone);
  if (!crowded) return alone;
  for (const auto& test : rank_.options.tests)
    if (test.ends_with("_lat")) alone.insert(test);
  if (!alone.empty())
    std::cerr << fmt::format("rdma_sweep: {}: latency pairs run one at a time, since busy-polling pairs at once "
                             "would share CPUs and measure the scheduler\n", *crowded);
  return alone;
}

std::vector<RoundOrder> Conductor::plan_retests() {
  std::vector<RoundOrder> orders;
  for (const auto& [test, verdict] :
       sweep::judge_records(records_, endpoints_, report_options(rank_.options, rank_.everyone, {}))) {
    const auto first = epoch_ + static_cast<std::uint32_t>(orders.size());
    auto rounds = one_pair_per_round(plan_retest(test, verdict.retest, first), alone_, first);
    orders.insert(orders.end(), rounds.begin(), rounds.end());
  }
  return orders;
}

void Conductor::give_up(const std::string& why) {
  std::cerr << "rdma_sweep: error: " << why << "\n";
  if (termination_requested.load()) {
    // The launcher kills us a moment after its SIGTERM: rewriting the report
    // now could leave it half-written. The one of the last finished round
    // stays, and says the sweep was incomplete then.
    std::cerr << fmt::format("rdma_sweep: the report of the rounds that finished is in {}\n", rank_.options.out_dir);
    std::cerr.flush();
    std::_Exit(3);
  }
  try {
    // What the round gathered so far, without the counters still to come.
    if (results_) keep_gathered();
  } catch (const std::exception& e) {
    std::cerr << "rdma_sweep: error: the round's records could not be written: " << e.what() << "\n";
  }
  const std::string note = fmt::format("Incomplete sweep: {}. {} of {} planned pairs finished.", why,
                                       pairs_done_, pairs_planned_);
  try {
    report({note}, rank_.options.heatmaps);
    std::cerr << fmt::format("rdma_sweep: wrote the partial report of {} pairs to {}\n", records_.size(),
                             rank_.options.out_dir);
  } catch (const std::exception& e) {
    std::cerr << "rdma_sweep: error: the partial report failed too: " << e.what() << "\n";
  }
  std::cerr.flush();
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

int Conductor::run() {
  load_earlier_results();
  results_.emplace(std::filesystem::path(rank_.options.out_dir) / "results.jsonl");
  const auto schedule = sweep::build_schedule(endpoints_, rank_.options.schedule);
  alone_ = tests_run_alone();
  const auto orders = one_pair_per_round(plan_sweep(rank_.options.tests, schedule, measured_pairs(records_), 0),
                                         alone_, 0);
  epoch_ = static_cast<std::uint32_t>(orders.size());
  // A report before the first round as well as after each: a job ended from
  // outside during round one (mpirun's SIGTERM when a rank dies) then still
  // leaves one, saying the sweep was incomplete.
  std::size_t planned = 0;
  for (const auto& o : orders) planned += o.pairs.size();
  report({fmt::format("Incomplete sweep: none of {} planned pairs had finished when this was written{}; the "
                      "sweep was still running.",
                      planned, records_.empty() ? "" : fmt::format(" ({} from the run resumed)", records_.size()))},
         /*with_heatmaps=*/false);
  run_orders(orders);
  if (rank_.options.retest) {
    const auto retests = plan_retests();
    if (!retests.empty())
      std::cerr << fmt::format("rdma_sweep: re-testing the failing pairs' ends against known-good partners "
                               "({} rounds)\n", retests.size());
    run_orders(retests);
  }
  for (int r = 1; r < rank_.world.size; ++r) mail_.post(r, R"({"kind":"finish"})");
  const sweep::ReportSummary summary = report({}, /*with_heatmaps=*/false);
  const bool failed = summary.failed();
  const std::string unconfirmed =
      summary.not_reproduced == 0
          ? ""
          : fmt::format(" ({} failures did not reproduce on re-test and fail nothing: see failures.txt)",
                        summary.not_reproduced);
  const std::string against_baseline =
      rank_.options.baseline_dir.empty()
          ? ""
          : fmt::format("; against the baseline {}: {} pairs regressed, {} improved", rank_.options.baseline_dir,
                        summary.regressed_pairs, summary.improved_pairs);
  std::cerr << fmt::format("rdma_sweep: {} pairs in {:.1f} s; {}{}{}; reports in {}\n", pairs_done_,
                           std::chrono::duration<double>(Clock::now() - started_).count(),
                           failed ? "FAILED (see failures.txt)" : "all passed", unconfirmed, against_baseline,
                           rank_.options.out_dir);
  mail_.drain(rank_.options.timeout_s);
  meet_at_the_end_();
  if (rank_.options.heatmaps) report({}, /*with_heatmaps=*/true);
  return failed ? 1 : 0;
}

}  // namespace

void install_termination_handler() { std::signal(SIGTERM, on_termination); }

int conduct(const SweepRank& rank, Mailbox& mail, const std::function<void()>& meet_at_the_end) {
  Conductor conductor(rank, mail, meet_at_the_end);
  return conductor.run();
}

}  // namespace rdmabench::sweep_cli
