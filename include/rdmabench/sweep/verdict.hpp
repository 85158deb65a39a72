#pragma once
/// @file
/// From a sweep's matrix to a verdict: which pairs fail the thresholds, and
/// whom to blame (a node, a link, the whole fabric), with the evidence, a
/// sentence per suspect and a re-test plan.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmabench/sweep/pair_matrix.hpp"

namespace rdmabench::sweep {

enum class Better { higher, lower };

/// What the matrix holds, e.g. {"bandwidth", "Gb/s", Better::higher} or
/// {"p99 latency", "us", Better::lower}.
struct Figure {
  std::string name;
  std::string unit;
  Better better = Better::higher;
};

/// Pass/fail limits; any left empty is not checked. judge() throws
/// rdmabench::Error for a limit that does not fit the figure's direction.
struct Thresholds {
  /// Higher-is-better: the least acceptable figure (e.g. min Gb/s).
  /// Lower-is-better: the most acceptable figure (e.g. max p99 us).
  std::optional<double> absolute;
  /// Higher-is-better: the least share of `port_rate` (same unit as the
  /// figure) a pair must reach; combined with `absolute`, the stricter wins.
  std::optional<double> min_share_of_line_rate;
  double port_rate = 0;
  /// Higher-is-better: a pair below this share of the median pair fails.
  std::optional<double> min_share_of_median;
  /// Lower-is-better: a pair above this multiple of the best pair fails.
  std::optional<double> max_multiple_of_best;
};

/// One directed pair as judged.
struct PairJudgement {
  DirectedPair pair;
  CellState state = CellState::measured;
  double value = 0;
  std::string cause;            ///< when the measurement itself failed
  bool fails_absolute = false;  ///< beyond the absolute or line-rate limit
  bool fails_relative = false;  ///< beyond the limit relative to the other pairs
  bool failing = false;         ///< counts against its ends (see judge())
  /// Within its limits, but a watched counter moved past its limit (see
  /// DegradedPair); a pair that fails its limits is never one.
  bool silent_degrader = false;
};

/// A pair whose watched counters moved past their limits, and which
/// (counter_limits.hpp's excesses_text()), for the verdict to weigh.
struct DegradedPair {
  DirectedPair pair;
  std::string counters;  ///< "out_of_seq_request +512 at the server end (...): ..."
};

enum class SuspectKind {
  node,          ///< most of its pairs fail while its partners pass elsewhere
  link,          ///< one pair fails while both ends pass elsewhere
  fabric_slow,   ///< every pair misses the absolute limit, none stands out
  unattributed,  ///< failing pairs that fit neither a node nor a link
  /// A link whose pairs pass their limits while their counters say the path
  /// loses, repeats or congests packets: a fault the figures do not show yet.
  silent_degrader,
};
std::string_view kind_name(SuspectKind kind);

struct Suspect {
  SuspectKind kind = SuspectKind::node;
  std::vector<EndpointIndex> endpoints;  ///< the node, the link's two ends, or none
  std::vector<PairJudgement> evidence;   ///< the failing pairs it explains
  std::string sentence;                  ///< the verdict for a person to read
};

struct Verdict {
  std::size_t pairs_judged = 0;  ///< measured or failed cells
  std::size_t pairs_failing = 0;
  std::optional<double> median;  ///< of the measured figures
  std::vector<Suspect> suspects;
  /// Directed pairs to measure next: each failing pair's ends with
  /// known-good partners, so the suspect is confirmed (or cleared).
  std::vector<DirectedPair> retest;
};

/// Judges `matrix` (whose indices are positions in `endpoints`).
///
/// When an absolute limit is set and every measured pair misses it, the
/// verdict is one fabric_slow suspect and those absolute misses no longer
/// count against single nodes or links: N bad nodes would send someone to
/// replace N cables for what is a configuration or a speed setting. Pairs
/// that fail relatively or fail to measure still do.
///
/// A pair of `degraded` that passes its limits is a silent degrader: it
/// counts as failing (pairs_failing, the re-test) but not against its ends'
/// node or link tallies, and each link with such pairs is one
/// silent_degrader suspect naming the counters.
Verdict judge(const PairMatrix& matrix, std::span<const Endpoint> endpoints, const Figure& figure,
              const Thresholds& thresholds, std::span<const DegradedPair> degraded = {});

}  // namespace rdmabench::sweep
