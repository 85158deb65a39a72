#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "sweep/coordination.hpp"
#include "system/pause_points.hpp"

namespace rdmabench::sweep_cli {

namespace {

using Clock = std::chrono::steady_clock;

class Player {
 public:
  Player(const SweepRank& rank, Mailbox& mail) : rank_(rank), mail_(mail) {}
  int run();

 private:
  /// Keeps rank 0 hearing from us, and watches that we hear from it.
  void tend();
  [[noreturn]] void give_up(const std::string& why);

  const SweepRank& rank_;
  Mailbox& mail_;
  Clock::time_point last_heard_ = Clock::now();
  Clock::time_point last_ping_{};
  std::optional<std::string> order_;  ///< the next order, once it came
};

void Player::give_up(const std::string& why) {
  std::cerr << fmt::format("rdma_sweep rank {}: error: {}\n", rank_.world.rank, why);
  std::cerr.flush();
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

void Player::tend() {
  const auto now = Clock::now();
  if (now - last_ping_ > std::chrono::seconds(1)) {
    mail_.post(0, R"({"kind":"alive"})");
    last_ping_ = now;
  }
  while (auto letter = mail_.poll()) {
    if (letter->from != 0) continue;  // only rank 0 gives orders
    last_heard_ = now;
    if (letter->text.find(R"("kind":"alive")") == std::string::npos) order_ = letter->text;
  }
  const double silent = std::chrono::duration<double>(now - last_heard_).count();
  if (silent > rank_.options.timeout_s + 3.0)
    give_up(fmt::format("rank 0 ({}) stopped answering: nothing from it for {:.0f} s",
                        rank_.everyone.front().endpoint.host, silent));
}

int Player::run() {
  for (;;) {
    while (!order_) {
      tend();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const std::string text = std::move(*order_);
    order_.reset();
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      give_up(fmt::format("rank 0 sent an order that does not parse: {}", e.what()));
    }
    if (j.value("kind", "") == "finish") {
      rdmabench::detail::pause_point("sweep-end");  // a test stops a rank here (rdma_sweep_test.sh)
      return 0;
    }
    RoundOrder order;
    try {
      order = decode_order(text, rank_.everyone.size());
    } catch (const std::exception& e) {
      give_up(e.what());
    }
    mail_.post(0, encode_done(order.epoch, run_my_pairs(rank_, order, [this] { tend(); })));
  }
}

}  // namespace

int play(const SweepRank& rank, Mailbox& mail) {
  Player player(rank, mail);
  return player.run();
}

}  // namespace rdmabench::sweep_cli
