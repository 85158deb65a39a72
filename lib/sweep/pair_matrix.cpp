// The sweep's directional matrix: bounds and value checks on the way in.

#include <cmath>
#include <utility>

#include "rdmabench/sweep/pair_matrix.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep {

PairMatrix::PairMatrix(std::size_t endpoints) : size_(endpoints), cells_(endpoints * endpoints) {}

Cell& PairMatrix::cell(EndpointIndex client, EndpointIndex server) {
  return const_cast<Cell&>(std::as_const(*this).at(client, server));
}

const Cell& PairMatrix::at(EndpointIndex client, EndpointIndex server) const {
  require(client < size_ && server < size_,
          "sweep matrix: pair " + std::to_string(client) + "->" + std::to_string(server) +
              " is outside the " + std::to_string(size_) + " endpoints",
          "endpoint indices are positions in the endpoint list, 0 to N-1");
  return cells_[client * size_ + server];
}

void PairMatrix::record(EndpointIndex client, EndpointIndex server, double value) {
  require(client != server, "sweep matrix: endpoint " + std::to_string(client) + " paired with itself",
          "a pair is two different endpoints");
  require(std::isfinite(value), "sweep matrix: the figure of " + std::to_string(client) + "->" +
                                    std::to_string(server) + " is not a finite number",
          "record a failure with its cause instead of a figure that is not one");
  cell(client, server) = Cell{CellState::measured, value, {}};
}

void PairMatrix::record_failure(EndpointIndex client, EndpointIndex server, std::string cause) {
  require(client != server, "sweep matrix: endpoint " + std::to_string(client) + " paired with itself",
          "a pair is two different endpoints");
  if (cause.empty()) cause = "no cause given";
  cell(client, server) = Cell{CellState::failed, 0, std::move(cause)};
}

}  // namespace rdmabench::sweep
