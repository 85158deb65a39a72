// rdma_sweep --out: one sweep per folder; --resume continues one.

#include "catch2_compat.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rdmabench/verbs/error.hpp"
#include "sweep/out_folder.hpp"
#include "sweep/results_file.hpp"
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

TEST_CASE("rdma_sweep results.jsonl: every line lands, and a full disk is an error naming the file", "[sweep]") {
  ScratchFolder out;
  const auto path = out.path / "results.jsonl";
  {
    rdmabench::sweep_cli::ResultsFile file(path);
    file.append({"{\"a\":1}", "{\"b\":2}"});
    file.append({"{\"c\":3}"});
  }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
  rdmabench::sweep_cli::ResultsFile full("/dev/full");  // every write: ENOSPC
  REQUIRE_THROWS_MATCHES(full.append({"{}"}), rdmabench::Error, MessageContains("writing /dev/full"));
  REQUIRE_THROWS_MATCHES(rdmabench::sweep_cli::ResultsFile(out.path / "no-such-folder" / "results.jsonl"),
                         rdmabench::Error, MessageContains("cannot write"));
}

TEST_CASE("rdma_sweep --resume cuts a torn last line, so the next record starts a line of its own",
          "[sweep]") {
  ScratchFolder out;
  const auto path = out.path / "results.jsonl";
  const auto text_of = [&] {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::ofstream(path) << "{\"a\":1}\n{\"b\":2}\n{\"c\":";  // a crash mid-append
  CHECK(rdmabench::sweep_cli::cut_last_line(path) == 5);
  CHECK(text_of() == "{\"a\":1}\n{\"b\":2}\n");
  rdmabench::sweep_cli::ResultsFile(path).append({"{\"c\":3}"});
  CHECK(text_of() == "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
  // A bad last line that did get its newline, blank lines after it, and a
  // file whose only line is torn.
  std::ofstream(path) << "{\"a\":1}\n{\"b\n\n \n";
  CHECK(rdmabench::sweep_cli::cut_last_line(path) == 7);
  CHECK(text_of() == "{\"a\":1}\n");
  std::ofstream(path) << "{\"a\"";
  CHECK(rdmabench::sweep_cli::cut_last_line(path) == 4);
  CHECK(text_of().empty());
}
