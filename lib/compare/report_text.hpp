#pragma once
// What the three reports share: the words of a row's cells, the short
// label of a test and the sentence on how the comparison was made.

#include <string>
#include <vector>

#include "rdmabench/compare/report.hpp"

namespace rdmabench::compare::detail {

/// "a.json, b.json", or "a.json, b.json, c.json and 7 more files".
std::string files_text(const std::vector<std::string>& files);
/// "50.1 [48.2-52.0] n=5", "50.1 (1 run)": a side's median, range and count.
std::string side_text(const SideFigures& side);
/// "-22.0% to -18.3%", or "none (single run)".
std::string interval_text(const Change& change);
/// "write_bw 65536 B client", with " [2]" where two matched tests would read the same.
std::vector<std::string> short_labels(const Comparison& comparison);
/// "bandwidth (MB/s)"
std::string figure_label(const FigureInfo& figure);
/// "Medians of the repeats, new against old; intervals: 95%, bootstrap of
/// 2000 resamples, seed 1; thresholds: the defaults, bw=5%."
std::string method_text(const ReportInputs& inputs);
/// The number of the test a row belongs to in short_labels (same order as
/// the matched tests are first met in the rows).
std::size_t test_index(const Comparison& comparison, const MatchKey& key);
/// The matched tests in the order short_labels numbers them.
std::vector<MatchKey> tests_in_order(const Comparison& comparison);
/// "iterations=5000": the parameters in which keys[i] differs from another
/// matched test of the same test name, size and side (what tells them
/// apart); empty when none does. Every test shares the rest.
std::string distinguishing_parameters(const std::vector<MatchKey>& keys, std::size_t i);

}  // namespace rdmabench::compare::detail
