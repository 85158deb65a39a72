#pragma once
/// @file
/// The one error type of rdmabench: what failed, why, and what the user can do.

#include <stdexcept>
#include <string>

namespace rdmabench {

/// Thrown by setup and control code. `what()` is a complete sentence for the
/// user: the failed call or check, the system's reason, and a hint.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, std::string hint = {});

  const std::string& hint() const noexcept { return hint_; }

 private:
  std::string hint_;
};

/// A verbs or socket call failed with `errno_value` (verbs calls that return
/// their error, like ibv_post_send, pass that value here instead of errno).
[[noreturn]] void throw_system_error(const std::string& call, int errno_value,
                                     const std::string& hint = {});

/// Throws `Error(message, hint)` unless `condition` holds. Never compiled out.
inline void require(bool condition, const std::string& message, const std::string& hint = {}) {
  if (!condition) throw Error(message, hint);
}

}  // namespace rdmabench
