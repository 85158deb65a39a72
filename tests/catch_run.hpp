#pragma once
// The test binaries' main()s hand over to Catch here (tests/catch_impl.cpp):
// Catch::Session is declared only where its implementation is compiled.
int run_catch_session(int argc, char** argv);
