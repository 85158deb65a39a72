// rdma_compare: did anything change beyond noise? Two sets of results
// (pair records or rdma_sweep folders, one run or several repeats each),
// figure by figure, with bootstrap intervals and a verdict per figure; the
// exit status says whether anything regressed. The work is lib/compare's.
#include <iostream>
#include <string>
#include <vector>

#include "cli/compare_run.hpp"
#include "cli/options.hpp"
#include "rdmabench/version.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench::cli;
  CompareCommandLine cl;
  try {
    cl = parse_compare_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::cerr << "rdma_compare: error: " << e.what() << "\nTry 'rdma_compare --help'.\n";
    return kCompareError;
  }
  if (cl.show_help) {
    std::cout << cl.help_text;
    return 0;
  }
  if (cl.show_version) {
    rdmabench::print_version("rdma_compare");
    return 0;
  }
  return run_compare(cl, std::cout, std::cerr);
}
