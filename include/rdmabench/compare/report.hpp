#pragma once
/// @file
/// A comparison written out: a markdown table (worst first) for people and
/// CI logs, JSON for machines, and a self-contained HTML page with one plot
/// per figure (old against new, with intervals) as inline SVG.

#include <ostream>
#include <string>
#include <vector>

#include "rdmabench/compare/comparison.hpp"

namespace rdmabench::compare {

/// What the reports say of how the comparison was made.
struct ReportInputs {
  std::vector<std::string> old_files, new_files;  ///< what each side read
  std::vector<std::string> old_notes, new_notes;  ///< RecordSet::notes
  CompareOptions options;
};

void write_markdown(std::ostream& out, const Comparison& comparison, const ReportInputs& inputs);
void write_json(std::ostream& out, const Comparison& comparison, const ReportInputs& inputs);
void write_html(std::ostream& out, const Comparison& comparison, const ReportInputs& inputs);

/// "-20.1%", "+3.2%", "0%", "from 0": a relative change as the reports write it.
std::string change_text(double change);

/// "1 regressed, 12 same, 0 improved"
std::string verdict_counts(const Comparison& comparison);

}  // namespace rdmabench::compare
