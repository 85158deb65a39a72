// Parsing --mem: pure text, no driver, so that a typo is refused at once and
// the same binaries parse "cuda:0" whether or not CUDA support is built in.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/memory/memory.hpp"

namespace rdmabench {

namespace {

constexpr const char* kValidForms = "valid: host, hugepage, cuda:N, cuda-host:N, rocm:N (N: GPU ordinal, 0 first)";

/// The N of "cuda:N" or "rocm:N"; `text` is the whole option for the message.
int parse_ordinal(const std::string& digits, const std::string& text) {
  const bool all_digits = !digits.empty() && digits.size() <= 4 &&
                          std::all_of(digits.begin(), digits.end(),
                                      [](unsigned char c) { return std::isdigit(c); });
  if (!all_digits)
    throw Error(fmt::format("invalid GPU ordinal '{}' in memory type '{}'; {}", digits, text, kValidForms));
  return std::stoi(digits);
}

}  // namespace

std::string to_string(RegistrationPath path) {
  switch (path) {
    case RegistrationPath::host: return "host";
    case RegistrationPath::dmabuf: return "dmabuf";
    case RegistrationPath::peermem: return "peermem";
  }
  return "?";
}

bool is_pci_bus_id(const std::string& text) {
  static const std::regex pci("^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
  return std::regex_match(text, pci);
}

std::string MemoryChoice::name() const {
  switch (kind) {
    case Kind::host: return "host";
    case Kind::hugepage: return "hugepage";
    case Kind::cuda:
    case Kind::cuda_host: {
      const char* prefix = kind == Kind::cuda ? "cuda" : "cuda-host";
      return cuda_bus_id.empty() ? fmt::format("{}:{}", prefix, gpu_device)
                                 : fmt::format("{}:{}", prefix, cuda_bus_id);
    }
    case Kind::rocm: return fmt::format("rocm:{}", gpu_device);
  }
  return "?";
}

MemoryChoice parse_memory_choice(const std::string& text) {
  MemoryChoice c;
  if (text == "host") return c;
  if (text == "hugepage") {
    c.kind = MemoryChoice::Kind::hugepage;
    return c;
  }
  for (auto [prefix, kind] : {std::pair{"cuda-host", MemoryChoice::Kind::cuda_host},
                              std::pair{"cuda", MemoryChoice::Kind::cuda}, std::pair{"rocm", MemoryChoice::Kind::rocm}}) {
    const std::string p = prefix;
    if (text == p) {
      c.kind = kind;
      return c;
    }
    if (text.starts_with(p + ":")) {
      c.kind = kind;
      c.gpu_device = parse_ordinal(text.substr(p.size() + 1), text);
      return c;
    }
  }
  throw Error(fmt::format("unknown memory type '{}'; {}", text, kValidForms));
}

}  // namespace rdmabench
