// The lab tier needs real kernel RDMA devices. Without them every case
// reports SKIPPED to ctest (exit status 77) with the reason; the ctest case
// "lab: soft-RDMA guest" runs them inside tools/rdma-lab, where they exist.
#include <cstring>
#include <filesystem>
#include <iostream>

#include "catch_run.hpp"
#include "lab.hpp"

namespace {

bool device_present(const std::string& name) {
  return std::filesystem::exists("/sys/class/infiniband/" + name);
}

bool only_listing(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (!only_listing(argc, argv)) {
    const auto r = lab::roce(), w = lab::iwarp();
    if (!device_present(r.name) || !device_present(w.name)) {
      std::cout << "SKIPPED: the lab tier needs RDMA devices " << r.name << " and " << w.name
                << " (set RXE_DEV/RXE_IP, SIW_DEV/SIW_IP); this machine has neither pair. "
                << "They run inside the soft-RDMA lab through the ctest case "
                << "'lab.soft-RDMA-guest' (tools/rdma-lab).\n";
      return 77;
    }
  }
  return run_catch_session(argc, argv);
}
