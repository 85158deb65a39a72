#pragma once
// Reading the fields of a record that came from a file: any field may be
// missing, null or of the wrong type, and each case is said by the field's
// dotted name ("latency.p99_us") rather than by a JSON library's message.

#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmabench::compare::detail {

/// The value at `path` inside `object`, or nullptr where any step is
/// missing, null or not an object.
const nlohmann::json* field_at(const nlohmann::json& object, std::initializer_list<const char*> path);

/// "latency.p99_us"
std::string dotted(std::initializer_list<const char*> path);

/// The number at `path`; nothing when absent or null. Throws
/// rdmabench::Error naming the field when it is there but no finite number.
std::optional<double> number_at(const nlohmann::json& object, std::initializer_list<const char*> path);

/// A context value as text: a string as it is, anything else as its JSON
/// text; "" when absent or null.
std::string text_at(const nlohmann::json& object, std::initializer_list<const char*> path);

}  // namespace rdmabench::compare::detail
