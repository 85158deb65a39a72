#include "rdmabench/verbs/error.hpp"

#include <cstring>

namespace rdmabench {

namespace {
std::string join(const std::string& message, const std::string& hint) {
  return hint.empty() ? message : message + " (" + hint + ")";
}
}  // namespace

Error::Error(std::string message, std::string hint)
    : std::runtime_error(join(message, hint)), hint_(std::move(hint)) {}

void throw_system_error(const std::string& call, int errno_value, const std::string& hint) {
  throw Error(call + " failed: " + std::strerror(errno_value), hint);
}

}  // namespace rdmabench
