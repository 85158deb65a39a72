// Linked into every executable and shared library of a RDMABENCH_SANITIZE
// build (cmake/Sanitize.cmake): the sanitizers' defaults, compiled in, so
// that they hold in every process however it was started: ctest, the lab
// tests' server/client pairs, the Python tools, and inside the qemu guest
// of tools/rdma-lab, which passes on only a few host variables. A report
// aborts the process (exit by SIGABRT, never a plain exit status a test
// could mistake for an expected failure). ASAN_OPTIONS, UBSAN_OPTIONS and
// LSAN_OPTIONS in the environment still override these, option by option.

extern "C" {

const char* __asan_default_options() {
  return "halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1";
}

const char* __ubsan_default_options() {
  return "halt_on_error=1:abort_on_error=1:print_stacktrace=1:report_error_type=1";
}

}  // extern "C"
