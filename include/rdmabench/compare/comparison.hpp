#pragma once
/// @file
/// Two sides side by side: records matched by test, size, role, endpoints
/// and parameters; for every figure a matched test holds on both sides, the
/// change with its interval and verdict; the context that differs between
/// the sides; and what found no match.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/compare/bootstrap.hpp"
#include "rdmabench/compare/change.hpp"
#include "rdmabench/compare/figures.hpp"
#include "rdmabench/compare/measurement.hpp"
#include "rdmabench/compare/thresholds.hpp"

namespace rdmabench::compare {

struct CompareOptions {
  Thresholds thresholds;
  BootstrapOptions bootstrap;
};

/// One side's values of one figure of one matched test.
struct SideFigures {
  std::vector<double> values;        ///< one per repeat, in the order read
  double median = 0;
  std::optional<Interval> interval;  ///< of the median, with kRepeatsForInterval values or more
};

struct FigureComparison {
  MatchKey key;
  FigureInfo figure;
  SideFigures old_side, new_side;
  Change change;
};

/// Context that differs between the sides, for the tests it differs in.
struct ContextDrift {
  std::string item;        ///< "firmware", "MTU", "rate cap", ...
  std::string old_values;  ///< "16.35.1012", or "1024 / 4096" when the repeats differ among themselves
  std::string new_values;
  std::size_t tests = 0;   ///< matched tests it differs in
  std::string first_test;  ///< key_label() of the first of them
};

struct Comparison {
  std::vector<FigureComparison> rows;  ///< worst first: regressed, same, improved, each by badness()
  std::vector<ContextDrift> drift;
  /// One sentence per test or figure of a side that found no match on the
  /// other side, with what differs where a near match says it.
  std::vector<std::string> unmatched;
  std::size_t matched_tests = 0;
  std::size_t old_records = 0, new_records = 0;

  std::size_t count(Verdict verdict) const;
  bool regressed() const { return count(Verdict::regressed) > 0; }
};

/// Compares `new_side` with `old_side`. Throws rdmabench::Error when no test
/// of one side matches one of the other, naming what differs. (Not named
/// `compare`: with `using namespace rdmabench` that name is its namespace.)
Comparison compare_sides(const RecordSet& old_side, const RecordSet& new_side, const CompareOptions& options);

/// "firmware: 16.35.1012 -> 16.35.2000 (in 4 of 4 matched tests)": a
/// warning's words.
std::string drift_text(const ContextDrift& drift, std::size_t matched_tests);

}  // namespace rdmabench::compare
