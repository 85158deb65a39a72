// What every output says the same way: pairs, suspects, the worst pairs
// and the failed ones.

#include <algorithm>

#include <fmt/format.h>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

std::string pair_text(const std::vector<Endpoint>& endpoints, const DirectedPair& pair) {
  return fmt::format("rank {} -> rank {}", endpoints.at(pair.client).rank, endpoints.at(pair.server).rank);
}

std::string suspect_label(const std::vector<Endpoint>& endpoints, const Suspect& s) {
  std::string label(kind_name(s.kind));
  for (std::size_t i = 0; i < s.endpoints.size(); ++i) {
    // A link names its two ends; unattributed suspects list theirs.
    const bool two_ends = s.kind == SuspectKind::link || s.kind == SuspectKind::silent_degrader;
    const char* separator = i == 0 ? " " : two_ends ? " - " : ", ";
    label += separator + describe(endpoints.at(s.endpoints[i]));
  }
  return label;
}

std::vector<PairJudgement> worst_pairs(const TestReport& t, std::size_t count) {
  std::vector<PairJudgement> measured;
  const PairMatrix& m = t.main_figure().matrix;
  for (EndpointIndex c = 0; c < m.size(); ++c)
    for (EndpointIndex s = 0; s < m.size(); ++s)
      if (m.at(c, s).state == CellState::measured) measured.push_back({{c, s}, CellState::measured, m.at(c, s).value, {}});
  const bool higher = t.main_figure().figure.better == Better::higher;
  std::stable_sort(measured.begin(), measured.end(), [higher](const PairJudgement& a, const PairJudgement& b) {
    return higher ? a.value < b.value : a.value > b.value;
  });
  if (measured.size() > count) measured.resize(count);
  return measured;
}

std::vector<PairJudgement> failed_pairs(const TestReport& t) {
  std::vector<PairJudgement> failed;
  const PairMatrix& m = t.main_figure().matrix;
  for (EndpointIndex c = 0; c < m.size(); ++c)
    for (EndpointIndex s = 0; s < m.size(); ++s)
      if (m.at(c, s).state == CellState::failed) failed.push_back({{c, s}, CellState::failed, 0, m.at(c, s).cause});
  return failed;
}

std::string basis_sentence(const TestReport& t) {
  if (t.basis.empty()) return {};
  return "Judged on the " + t.basis + (t.basis_why.empty() ? "" : ": " + t.basis_why) + ".";
}

}  // namespace rdmabench::sweep::detail
