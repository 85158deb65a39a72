// Which records are repeats of which: equal keys. A test of one side with
// no equal key on the other is told with the nearest test of the other
// side (same test, size and role) and what differs from it, since "no
// match" alone leaves the user to diff two JSON files by eye.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "matching.hpp"

namespace rdmabench::compare::detail {

namespace {

using Groups = std::map<MatchKey, std::vector<const Measurement*>>;

Groups group(const RecordSet& side) {
  Groups groups;
  for (const Measurement& m : side.measurements) groups[m.key].push_back(&m);
  return groups;
}

/// What differs between two keys of one test, size and role: "iterations
/// 2000 here, 5000 there", "endpoints ...".
std::string differences(const MatchKey& here, const MatchKey& there) {
  std::vector<std::string> parts;
  if (here.endpoints != there.endpoints)
    parts.push_back(fmt::format("endpoints '{}' against '{}'", here.endpoints, there.endpoints));
  std::set<std::string> names;
  for (const auto& [name, value] : here.parameters) names.insert(name);
  for (const auto& [name, value] : there.parameters) names.insert(name);
  for (const std::string& name : names) {
    const auto a = here.parameters.find(name);
    const auto b = there.parameters.find(name);
    const std::string va = a == here.parameters.end() ? "(not set)" : a->second;
    const std::string vb = b == there.parameters.end() ? "(not set)" : b->second;
    if (va != vb) parts.push_back(fmt::format("{} {} against {}", name, va, vb));
  }
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

std::string no_match_text(const char* side, const char* other, const MatchKey& key, std::size_t records,
                          const Groups& other_groups) {
  std::string text = fmt::format("{}: {} ({} record{}) has no match in {}", side, key_label(key), records,
                                 records == 1 ? "" : "s", other);
  for (const auto& [candidate, repeats] : other_groups)
    if (candidate.test == key.test && candidate.bytes == key.bytes && candidate.role == key.role) {
      text += fmt::format(": the nearest differs in {} (--ignore-endpoints matches tests whatever their endpoints)",
                          differences(key, candidate));
      // The hint on endpoints helps only when they are what differs.
      if (candidate.endpoints == key.endpoints) text.erase(text.find(" (--ignore-endpoints"));
      return text;
    }
  const bool test_there = std::any_of(other_groups.begin(), other_groups.end(),
                                      [&](const auto& g) { return g.first.test == key.test; });
  return text + (test_there ? fmt::format(": {} holds {} at other sizes or roles only", other, key.test)
                            : fmt::format(": {} holds no {} record", other, key.test));
}

/// "1024", or "1024 / 4096" when the repeats of a side differ among themselves.
std::string values_text(const std::set<std::string>& values) {
  if (values.empty()) return "(not recorded)";
  std::string text;
  for (const std::string& v : values) text += (text.empty() ? "" : " / ") + v;
  return text;
}

std::set<std::string> values_of(const std::vector<const Measurement*>& repeats, const std::string& item) {
  std::set<std::string> values;
  for (const Measurement* m : repeats)
    if (const auto it = m->context.find(item); it != m->context.end()) values.insert(it->second);
  return values;
}

}  // namespace

Matching match_sides(const RecordSet& old_side, const RecordSet& new_side) {
  const Groups olds = group(old_side), news = group(new_side);
  Matching matching;
  for (const auto& [key, repeats] : olds) {
    const auto there = news.find(key);
    if (there == news.end()) {
      matching.unmatched.push_back(no_match_text("OLD", "NEW", key, repeats.size(), news));
      continue;
    }
    matching.matched.push_back({key, repeats, there->second});
  }
  for (const auto& [key, repeats] : news)
    if (!olds.count(key)) matching.unmatched.push_back(no_match_text("NEW", "OLD", key, repeats.size(), olds));
  return matching;
}

std::vector<ContextDrift> context_drift(const std::vector<MatchedTest>& matched) {
  std::vector<ContextDrift> drift;
  for (const MatchedTest& t : matched) {
    std::set<std::string> items;
    for (const auto* repeats : {&t.old_repeats, &t.new_repeats})
      for (const Measurement* m : *repeats)
        for (const auto& [item, value] : m->context) items.insert(item);
    for (const std::string& item : items) {
      const std::string old_values = values_text(values_of(t.old_repeats, item));
      const std::string new_values = values_text(values_of(t.new_repeats, item));
      if (old_values == new_values) continue;
      const auto same = std::find_if(drift.begin(), drift.end(), [&](const ContextDrift& d) {
        return d.item == item && d.old_values == old_values && d.new_values == new_values;
      });
      if (same != drift.end()) ++same->tests;
      else drift.push_back({item, old_values, new_values, 1, key_label(t.key)});
    }
  }
  return drift;
}

}  // namespace rdmabench::compare::detail
