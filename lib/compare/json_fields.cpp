#include "json_fields.hpp"

#include <cmath>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare::detail {

const nlohmann::json* field_at(const nlohmann::json& object, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &object;
  for (const char* step : path) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(step);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

std::string dotted(std::initializer_list<const char*> path) {
  std::string name;
  for (const char* step : path) name += (name.empty() ? "" : ".") + std::string(step);
  return name;
}

std::optional<double> number_at(const nlohmann::json& object, std::initializer_list<const char*> path) {
  const nlohmann::json* value = field_at(object, path);
  if (!value) return std::nullopt;
  require(value->is_number(), "field '" + dotted(path) + "' is " + std::string(value->type_name()) + ", not a number",
          "the records are read as the pair binaries and rdma_sweep write them (docs/json-output.md)");
  const double number = value->get<double>();
  require(std::isfinite(number), "field '" + dotted(path) + "' is not a finite number");
  return number;
}

std::string text_at(const nlohmann::json& object, std::initializer_list<const char*> path) {
  const nlohmann::json* value = field_at(object, path);
  if (!value) return {};
  return value->is_string() ? value->get<std::string>() : value->dump();
}

}  // namespace rdmabench::compare::detail
