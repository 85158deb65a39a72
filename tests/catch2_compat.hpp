#pragma once
// Catch2 2 or 3, whichever the distribution ships: Debian 11 and 12 (and
// Ubuntu 22.04) have 2.13, Debian 13 has 3. The tests are written against
// 2's names; under 3 the few that moved are brought back here.
// RDMABENCH_CATCH2_MAJOR comes from tests/CMakeLists.txt.

#if RDMABENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>

#include <string>

namespace Catch {
// 2's Catch::Contains for text is 3's ContainsSubstring (3's Contains is the
// range matcher).
inline auto Contains(const std::string& text, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(text, sensitivity);
}
using Matchers::EndsWith;
using Matchers::MatcherBase;
using Matchers::Matches;
using Matchers::StartsWith;
}  // namespace Catch
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
