#include "catch2_compat.hpp"
#include <cstdlib>
#include <string>
#include <vector>

#include "../scoped_env.hpp"
#include "rdmabench/verbs/provider_environment.hpp"

using rdmabench::keep_receive_copies_off_the_cpu;
using rdmabench::test::ScopedEnv;

namespace {

std::string scatter_to_cqe() {
  const char* v = std::getenv("MLX5_SCATTER_TO_CQE");
  return v ? v : "(unset)";
}

}  // namespace

TEST_CASE("GPU memory turns mlx5's scatter-to-CQE off: host memory leaves it alone", "[provider]") {
  std::vector<std::string> notices;
  const auto notice = [&](const std::string& n) { notices.push_back(n); };
  SECTION("host memory") {
    ScopedEnv unset{"MLX5_SCATTER_TO_CQE", std::nullopt};
    keep_receive_copies_off_the_cpu(true, notice);
    CHECK(scatter_to_cqe() == "(unset)");
  }
  SECTION("GPU memory, nothing set") {
    ScopedEnv unset{"MLX5_SCATTER_TO_CQE", std::nullopt};
    keep_receive_copies_off_the_cpu(false, notice);
    CHECK(scatter_to_cqe() == "0");
    CHECK(notices.empty());
  }
  SECTION("GPU memory, the user asked for it on: overridden, and said so") {
    ScopedEnv on{"MLX5_SCATTER_TO_CQE", "1"};
    keep_receive_copies_off_the_cpu(false, notice);
    CHECK(scatter_to_cqe() == "0");
    REQUIRE(notices.size() == 1);
    CHECK_THAT(notices[0], Catch::Contains("MLX5_SCATTER_TO_CQE=1 overridden to 0"));
  }
}
