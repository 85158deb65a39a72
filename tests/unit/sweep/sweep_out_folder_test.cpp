// rdma_sweep --out: one sweep per folder; --resume continues one.

#include "catch2_compat.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rdmabench/verbs/error.hpp"
#include "sweep/out_folder.hpp"
#include "test_helpers.hpp"

using rdmabench::sweep_cli::refuse_mixing_sweeps;
using rdmabench::test::MessageContains;

namespace {

/// A scratch folder, removed with its contents.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "rdmabench-out-XXXXXX").string();
    path = ::mkdtemp(name.data());
  }
  ~ScratchFolder() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("rdma_sweep --out refuses a folder that holds a sweep and names --resume", "[sweep]") {
  ScratchFolder out;
  CHECK_NOTHROW(refuse_mixing_sweeps(out.path, false));  // empty: a fresh sweep
  std::ofstream(out.path / "results.jsonl").close();
  CHECK_NOTHROW(refuse_mixing_sweeps(out.path, false));  // an empty file holds no sweep
  std::ofstream(out.path / "results.jsonl") << "{\"test\":\"write_bw\"}\n";
  REQUIRE_THROWS_MATCHES(refuse_mixing_sweeps(out.path, false), rdmabench::Error,
                         MessageContains("already holds a sweep"));
  try {
    refuse_mixing_sweeps(out.path, false);
  } catch (const rdmabench::Error& e) {
    CHECK_THAT(e.hint(), Catch::Contains("--resume " + out.path.string()));
  }
  CHECK_NOTHROW(refuse_mixing_sweeps(out.path, true));  // --resume continues it
}
