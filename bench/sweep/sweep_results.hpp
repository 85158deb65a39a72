#pragma once
// A sweep's results on rank 0: the directed pairs' records, the matrix and
// verdict they make, and the files they are written to. MPI-free.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdmabench/sweep/verdict.hpp"

namespace rdmabench::sweep_cli {

/// One directed pair as its client rank recorded it.
struct PairRecord {
  std::size_t round = 0;  ///< 0-based
  sweep::DirectedPair pair;
  std::optional<double> gbits_per_s;
  std::string error;  ///< why no figure came; empty when measured
};

/// Records as one JSON array (how ranks ship theirs to rank 0), and back.
std::string encode_records(std::span<const PairRecord> records);
std::vector<PairRecord> decode_records(const std::string& text);

/// The matrix of the records (figures and failures).
sweep::PairMatrix to_matrix(std::span<const PairRecord> records, std::size_t endpoints);

/// The figure a write_bw sweep judges.
sweep::Figure write_bandwidth_figure();

/// DIR/results.jsonl: one line per directed pair, in round order.
void write_results_jsonl(const std::filesystem::path& file, std::span<const sweep::Endpoint> endpoints,
                         std::span<const PairRecord> records);

/// DIR/report.md: the endpoints, the N x N table (row client, column server)
/// and the verdict's sentences.
void write_report_md(const std::filesystem::path& file, std::span<const sweep::Endpoint> endpoints,
                     const sweep::PairMatrix& matrix, const sweep::Verdict& verdict);

}  // namespace rdmabench::sweep_cli
