#pragma once
// A GPU vendor's user-space library (the CUDA driver, the HIP runtime),
// opened with dlopen at run time: nothing links against it, so the same
// binaries run on machines without it and only fail, clearly, when GPU
// memory is asked for.

#include <string>
#include <vector>

namespace rdmabench::gpu {

class RuntimeLibrary {
 public:
  /// Opens the first of `candidates` that dlopen loads. `kind` ("CUDA
  /// driver") and `update_hint` serve the message when a symbol is missing.
  RuntimeLibrary(std::string kind, const std::vector<std::string>& candidates, std::string update_hint);
  ~RuntimeLibrary();
  RuntimeLibrary(const RuntimeLibrary&) = delete;
  RuntimeLibrary& operator=(const RuntimeLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  /// The path loaded (or, when none was, the candidates tried).
  const std::string& path() const { return path_; }
  /// Why each candidate did not load: "libamdhip64.so: cannot open shared
  /// object file: No such file or directory".
  const std::string& failures() const { return failures_; }
  /// Not loaded because no candidate exists (rather than one failing to load).
  bool none_found() const { return !handle_ && all_absent_; }
  /// What a test stand-in says it is (tests/gpu_standin export
  /// rdmabench_gpu_standin()); empty for the vendor's library.
  const std::string& standin() const { return standin_; }

  /// Points `target` at `symbol`; throws Error "the CUDA driver X has no Y"
  /// when it is absent, unless `optional` (then `target` is null).
  template <typename Function>
  void resolve(Function& target, const char* symbol, bool optional = false) const {
    target = reinterpret_cast<Function>(address_of(symbol));
    if (!target && !optional) missing(symbol);
  }

 private:
  void* address_of(const char* symbol) const;
  [[noreturn]] void missing(const char* symbol) const;

  std::string kind_;
  std::string update_hint_;
  void* handle_ = nullptr;
  std::string path_;
  std::string failures_;
  bool all_absent_ = true;
  std::string standin_;
};

}  // namespace rdmabench::gpu
