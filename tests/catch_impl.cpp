// Catch's implementation, compiled once for both test binaries instead of
// once in each of their main()s. Catch2 2 is one header of 17,000 lines
// whose implementation this file instantiates; Catch2 3 is a library
// (Catch2::Catch2), and this file only starts its session.
#if RDMABENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "catch_run.hpp"

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
