#include "sweep/pair_run.hpp"

#include "rdmabench/engine/engine.hpp"

namespace rdmabench::sweep_cli {

namespace {

/// Keeps the bandwidth figure of the (single) size the pair ran.
class FigureKeeper : public Reporter {
 public:
  void begin(const RunContext&) override {}
  void size_done(const SizeResult& result) override {
    if (result.bandwidth) gbits_ = result.bandwidth->average_mb_per_s * 8.0 / 1000.0;
  }
  std::optional<double> gbits() const { return gbits_; }

 private:
  std::optional<double> gbits_;
};

std::optional<double> measure(Session& session, const ClockInfo& clock) {
  FigureKeeper keeper;
  run_benchmark(session, clock, describe_run(session, clock), keeper);
  return keeper.gbits();
}

}  // namespace

PairServer::PairServer(const SideConfig& config, const TestSpec& spec, Notice notice) {
  try {
    server_ = std::make_unique<Server>(config, spec, std::move(notice));
  } catch (const std::exception& e) {
    listen_error_ = std::string("server side: ") + e.what();
  }
}

PairServer::~PairServer() = default;

PairOutcome PairServer::run(const ClockInfo& clock) {
  if (!server_) return {std::nullopt, listen_error_};
  try {
    Session session = server_->accept_client();
    measure(session, clock);
    return {};
  } catch (const std::exception& e) {
    return {std::nullopt, std::string("server side: ") + e.what()};
  }
}

PairOutcome run_pair_client(const SideConfig& config, const TestSpec& spec, const Notice& notice,
                            const ClockInfo& clock) {
  try {
    Session session = connect_to_server(config, spec, notice);
    const auto figure = measure(session, clock);
    if (!figure) return {std::nullopt, "the run gave no bandwidth figure"};
    return {figure, {}};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace rdmabench::sweep_cli
