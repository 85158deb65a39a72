#pragma once
/// @file
/// The directional N x N matrix of one figure that a sweep gathers: row is
/// the client, column the server. A cell is either not measured (the
/// diagonal, pairs of different rails), a value, or a failure with its cause.

#include <string>
#include <vector>

#include "rdmabench/sweep/endpoint.hpp"

namespace rdmabench::sweep {

enum class CellState { not_measured, measured, failed };

struct Cell {
  CellState state = CellState::not_measured;
  double value = 0;   ///< when measured
  std::string cause;  ///< when failed: why no figure came (e.g. "connect timed out")
};

class PairMatrix {
 public:
  explicit PairMatrix(std::size_t endpoints);

  std::size_t size() const noexcept { return size_; }

  /// Records a figure; throws rdmabench::Error on the diagonal, an index out
  /// of range or a value that is not finite.
  void record(EndpointIndex client, EndpointIndex server, double value);
  /// Records that the pair was scheduled but gave no figure, and why.
  void record_failure(EndpointIndex client, EndpointIndex server, std::string cause);

  const Cell& at(EndpointIndex client, EndpointIndex server) const;

 private:
  Cell& cell(EndpointIndex client, EndpointIndex server);

  std::size_t size_;
  std::vector<Cell> cells_;
};

}  // namespace rdmabench::sweep
