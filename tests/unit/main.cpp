// The unit tier's runner: Catch's own, whose implementation is compiled
// once for both test binaries (tests/catch_impl.cpp).
#include "catch_run.hpp"

int main(int argc, char** argv) { return run_catch_session(argc, argv); }
