#include "memory/gpu/runtime_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::gpu {

namespace {

/// The stand-ins of the tests export this, so that every report says the
/// "GPU" was host memory.
using StandinName = const char* (*)();

}  // namespace

RuntimeLibrary::RuntimeLibrary(std::string kind, const std::vector<std::string>& candidates,
                               std::string update_hint)
    : kind_(std::move(kind)), update_hint_(std::move(update_hint)) {
  for (const auto& candidate : candidates) {
    handle_ = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = candidate;
      break;
    }
    const char* why = ::dlerror();
    all_absent_ = all_absent_ && why && std::strstr(why, "No such file or directory");
    failures_ += fmt::format("{}{}", failures_.empty() ? "" : "; ", why ? why : candidate + ": unknown reason");
    path_ += fmt::format("{}{}", path_.empty() ? "" : ", ", candidate);
  }
  if (!handle_) return;
  failures_.clear();
  if (auto name = reinterpret_cast<StandinName>(::dlsym(handle_, "rdmabench_gpu_standin"))) standin_ = name();
}

RuntimeLibrary::~RuntimeLibrary() {
  if (handle_) ::dlclose(handle_);
}

void* RuntimeLibrary::address_of(const char* symbol) const { return handle_ ? ::dlsym(handle_, symbol) : nullptr; }

void RuntimeLibrary::missing(const char* symbol) const {
  throw Error(fmt::format("the {} {} has no {}", kind_, path_, symbol), update_hint_);
}

}  // namespace rdmabench::gpu
