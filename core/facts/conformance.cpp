#include "facts/conformance.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "facts/fact_values.hpp"

namespace algenta::facts {
namespace {

std::vector<std::string> split_commas(const char* text) {
  std::vector<std::string> items;
  if (text == nullptr) return items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

Refusal refusal(const std::string& plugin, const std::string& fact, const std::string& value,
                const std::string& allowed) {
  return {fact, value, allowed,
          fact + " = " + value + " is not supported by " + plugin + " (supported: " + allowed + ")"};
}

bool inside(const DeclaredRange& range, const FactValue& value) {
  if (range.kind == ALGENTA_FACT_INT_RANGE) {
    const auto* number = std::get_if<std::int64_t>(&value);
    return number != nullptr && *number >= range.min_value && *number <= range.max_value;
  }
  const std::string text = fact_value_text(value);
  return std::find(range.allowed.begin(), range.allowed.end(), text) != range.allowed.end();
}

}  // namespace

DeclaredSupport declared_support(const AlgentaDescriptor& d) {
  DeclaredSupport support;
  support.plugin = d.name != nullptr ? d.name : "?";
  for (size_t i = 0; i < d.family_count; ++i) support.families.emplace_back(d.families[i]);
  for (size_t i = 0; i < d.fact_range_count; ++i) {
    const AlgentaFactRange& row = *ALGENTA_ELEMENT_AT(AlgentaFactRange, d.fact_ranges, d.fact_range_stride, i);
    DeclaredRange range;
    range.family = row.family != nullptr ? row.family : "*";
    range.fact = row.fact != nullptr ? row.fact : "";
    range.kind = row.kind;
    range.min_value = row.min_value;
    range.max_value = row.max_value;
    range.allowed = split_commas(row.allowed);
    support.ranges.push_back(std::move(range));
  }
  return support;
}

std::vector<DeclaredRange> ranges_for_family(const DeclaredSupport& support,
                                             const std::string& family) {
  std::map<std::string, DeclaredRange> by_fact;
  for (const DeclaredRange& range : support.ranges) {
    if (range.family == "*" && by_fact.count(range.fact) == 0) by_fact[range.fact] = range;
  }
  for (const DeclaredRange& range : support.ranges) {
    if (range.family == family) by_fact[range.fact] = range;
  }
  std::vector<DeclaredRange> out;
  for (auto& [fact, range] : by_fact) out.push_back(std::move(range));
  return out;
}

std::string describe_allowed(const DeclaredRange& range) {
  if (range.kind == ALGENTA_FACT_INT_RANGE) {
    return std::to_string(range.min_value) + ".." + std::to_string(range.max_value);
  }
  return "one of " + join(range.allowed);
}

std::vector<Refusal> check_facts(const ModelFacts& facts, const DeclaredSupport& support) {
  std::vector<Refusal> refusals;
  const std::string family(family_name(facts.family));
  const std::string family_text =
      facts.family == Family::unknown ? "unknown (model_type " + facts.model_type + ")" : family;
  if (std::find(support.families.begin(), support.families.end(), family) ==
      support.families.end()) {
    refusals.push_back(refusal(support.plugin, "family", family_text, join(support.families)));
    // The "*" rows still apply: they name what else stands in the way
    // (e.g. latent attention, experts) so one run tells the whole story.
  }
  const bool family_supported = refusals.empty();
  for (const DeclaredRange& range : ranges_for_family(support, family_supported ? family : "*")) {
    const std::optional<FactValue> value = fact_value(facts, range.fact);
    if (!value) {
      refusals.push_back({range.fact, "(unknown fact)", describe_allowed(range),
                          support.plugin + " declares a range for '" + range.fact +
                              "', a fact this host does not know; refusing to guess"});
      continue;
    }
    if (!inside(range, *value)) {
      refusals.push_back(
          refusal(support.plugin, range.fact, fact_value_text(*value), describe_allowed(range)));
    }
  }
  return refusals;
}

}  // namespace algenta::facts
