// Output files (bench/cli/output_file.cpp): one that holds something is
// never overwritten unless asked; --force starts it afresh, --append adds.

#include "cli/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch2_compat.hpp"
#include "cli/options.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/report/report.hpp"
#include "test_helpers.hpp"
#include "pair_kinds.hpp"

using rdmabench::cli::ExistingOutput;
using rdmabench::cli::open_output;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;
namespace fs = std::filesystem;

namespace {

struct ScratchFile {
  fs::path path = fs::temp_directory_path() / ("rdmabench-output-" + std::to_string(::getpid()) + ".json");
  explicit ScratchFile(const std::string& text) { std::ofstream(path) << text; }
  ~ScratchFile() { fs::remove(path); }
  std::string text() const {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

}  // namespace

TEST_CASE("output files: one that holds something is refused unless --force or --append", "[options]") {
  ScratchFile earlier("{\"earlier\":1}\n");
  REQUIRE_THROWS_MATCHES(open_output(earlier.path, "--json", ExistingOutput::refuse), UsageError,
                         MessageContains("the file exists and holds 14 bytes; give --force to overwrite it, "
                                         "--append to add to it, or another name"));
  CHECK(earlier.text() == "{\"earlier\":1}\n");  // untouched
  SECTION("--append adds to it") {
    auto out = open_output(earlier.path, "--json", ExistingOutput::append);
    CHECK(out.appended);
    *out.stream << "{\"now\":2}\n";
    out.stream.reset();
    CHECK(earlier.text() == "{\"earlier\":1}\n{\"now\":2}\n");
  }
  SECTION("--force starts it afresh") {
    auto out = open_output(earlier.path, "--json", ExistingOutput::overwrite);
    CHECK_FALSE(out.appended);
    *out.stream << "{\"now\":2}\n";
    out.stream.reset();
    CHECK(earlier.text() == "{\"now\":2}\n");
  }
}

TEST_CASE("output files: an empty file or a device is taken as it is", "[options]") {
  ScratchFile empty("");  // mktemp's, say
  CHECK_FALSE(open_output(empty.path, "--csv", ExistingOutput::refuse).appended);
  CHECK(open_output("/dev/null", "--csv", ExistingOutput::refuse).stream);
}

TEST_CASE("output files: --force and --append on the command line", "[options]") {
  const rdmabench::cli::BenchmarkKind& kind = rdmabench::test::kWriteBandwidth;
  CHECK(rdmabench::cli::parse_command_line(kind, {}).existing_output == ExistingOutput::refuse);
  CHECK(rdmabench::cli::parse_command_line(kind, {"--force"}).existing_output == ExistingOutput::overwrite);
  CHECK(rdmabench::cli::parse_command_line(kind, {"--append"}).existing_output == ExistingOutput::append);
  REQUIRE_THROWS_MATCHES(rdmabench::cli::parse_command_line(kind, {"--force", "--append"}), UsageError,
                         MessageContains("--force and --append conflict"));
}

TEST_CASE("output files: a CSV appended to keeps its one header", "[options]") {
  std::ostringstream fresh, appended;
  rdmabench::make_csv_reporter(fresh)->begin(rdmabench::RunContext{});
  rdmabench::make_csv_reporter(appended, /*header=*/false)->begin(rdmabench::RunContext{});
  CHECK_THAT(fresh.str(), Catch::StartsWith("schema_version,run_id,started_utc,host,test,role,device,"));
  CHECK(appended.str().empty());
}
