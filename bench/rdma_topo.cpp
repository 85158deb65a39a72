// rdma_topo: RDMA devices, GPUs and how each GPU reaches each NIC (nvidia-smi
// topo's PIX/PXB/PHB/NODE/SYS), from sysfs alone: no CUDA, no vendor tools.
#include <boost/program_options.hpp>
#include <iostream>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/topology/topology.hpp"
#include "rdmabench/version.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  bool json = false, help = false, version = false;
  std::string sysfs = "/sys";
  po::options_description options("Usage: rdma_topo [--json] [--sysfs DIR]\nOptions");
  options.add_options()
      ("json", po::bool_switch(&json), "print JSON (devices, GPUs, GPU x NIC matrix, legend)")
      ("sysfs", po::value(&sysfs), "read this sysfs tree instead of /sys (a recorded copy)")
      ("help,h", po::bool_switch(&help), "show this help")
      ("version", po::bool_switch(&version), "show the version and the rdma-core it was built against");
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "rdma_topo: error: " << e.what() << "\nTry 'rdma_topo --help'.\n";
    return 2;
  }
  if (help) {
    std::cout << options;
    return 0;
  }
  if (version) {
    rdmabench::print_version("rdma_topo");
    return 0;
  }
  try {
    const auto topology = rdmabench::scan_topology(sysfs);
    if (json) std::cout << rdmabench::to_json(topology).dump(1) << "\n";
    else rdmabench::print_topology(std::cout, topology);
    return 0;
  } catch (const rdmabench::Error& e) {  // not a sysfs tree: the --sysfs argument is wrong
    std::cerr << "rdma_topo: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rdma_topo: error reading " << sysfs << ": " << e.what() << "\n";
    return 1;
  }
}
