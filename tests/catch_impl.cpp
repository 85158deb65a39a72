// Catch's implementation (its single header is 17,000 lines), compiled once
// for both test binaries instead of once in each of their main()s.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_run.hpp"

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
