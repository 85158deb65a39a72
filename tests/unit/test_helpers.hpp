#pragma once
// Shared by the unit tests: a matcher that checks an exception's type (via
// REQUIRE_THROWS_MATCHES) and a substring of its what() in one assertion.

#include "catch2_compat.hpp"

#include <exception>
#include <string>
#include <utility>

namespace rdmabench::test {

class MessageContains : public Catch::MatcherBase<std::exception> {
 public:
  explicit MessageContains(std::string part) : part_(std::move(part)) {}
  bool match(const std::exception& e) const override {
    return std::string(e.what()).find(part_) != std::string::npos;
  }
  std::string describe() const override { return "has a message containing \"" + part_ + "\""; }

 private:
  std::string part_;
};

}  // namespace rdmabench::test
