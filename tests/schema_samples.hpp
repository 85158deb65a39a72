#pragma once
// The hidden "[.schema-samples]" cases write records through the real
// writers into $RDMABENCH_SCHEMA_SAMPLES, for tests/schema/check_records.py
// to validate against docs/records.schema.json (ctest: unit.schema).
#include <cstdlib>
#include <fstream>
#include <string>

#include "catch2_compat.hpp"

namespace rdmabench::test {

inline std::ofstream schema_sample_file(const std::string& name) {
  const char* folder = std::getenv("RDMABENCH_SCHEMA_SAMPLES");
  if (!folder || !*folder) FAIL("RDMABENCH_SCHEMA_SAMPLES names no folder (ctest's unit.schema sets it)");
  std::ofstream out(std::string(folder) + "/" + name);
  if (!out) FAIL("cannot write " << folder << "/" << name);
  return out;
}

}  // namespace rdmabench::test
