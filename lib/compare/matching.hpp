#pragma once
// Matching the two sides' measurements by key (matching.cpp): the tests
// both sides hold, the ones only one side holds (with what differs from
// the nearest test of the other side), and the context that differs.

#include <map>
#include <string>
#include <vector>

#include "rdmabench/compare/comparison.hpp"

namespace rdmabench::compare::detail {

/// A test (a key) with its repeats on each side.
struct MatchedTest {
  MatchKey key;
  std::vector<const Measurement*> old_repeats, new_repeats;
};

struct Matching {
  std::vector<MatchedTest> matched;    ///< in key order
  std::vector<std::string> unmatched;  ///< one sentence per test of a side with no match
};

Matching match_sides(const RecordSet& old_side, const RecordSet& new_side);

/// The context items whose values differ between the sides of the matched tests.
std::vector<ContextDrift> context_drift(const std::vector<MatchedTest>& matched);

}  // namespace rdmabench::compare::detail
