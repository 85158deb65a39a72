#pragma once
// One CSV line's cells, as a script reading our CSV would split it: by
// commas (our cells never hold one), a trailing comma giving an empty last
// cell. Shared by the unit and lab cases that read a CSV by its header.
#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}
