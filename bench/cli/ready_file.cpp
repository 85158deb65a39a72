#include "cli/ready_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cli {

void write_ready_file(const std::string& path, std::uint16_t tcp_port) {
  const nlohmann::json line = {{"ready", true},
                               {"pid", static_cast<long>(::getpid())},
                               {"tcp_port", tcp_port},
                               {"rdma_cm_port", tcp_port + 1}};
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << line.dump() << '\n';
    if (!out.flush())
      throw Error(fmt::format("cannot write --ready-file '{}'", path),
                  "name a file in a directory this user can write");
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    throw_system_error(fmt::format("rename '{}' to '{}' (--ready-file)", partial, path), errno);
}

}  // namespace rdmabench::cli
