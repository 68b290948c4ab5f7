// Conformance of a checkpoint's facts to what one plugin declares through
// the ABI (families and fact ranges). Data in, typed refusals out: the
// ranges live in the plugins, never in a second copy here.
#pragma once

#include <string>
#include <vector>

#include "algenta/plugin_abi.h"
#include "facts/model_facts.hpp"

namespace algenta::facts {

struct Refusal {
  std::string fact;     // e.g. "head_dim", "family", "tensor model.norm.weight"
  std::string value;    // the checkpoint's value, as text
  std::string allowed;  // the supported range or set, as text
  std::string message;  // one line naming all three
};

// What one plugin declares, copied out of its descriptor.
struct DeclaredRange {
  std::string family;  // "*" = every family
  std::string fact;
  AlgentaFactKind kind = ALGENTA_FACT_INT_RANGE;
  std::int64_t min_value = 0;
  std::int64_t max_value = 0;
  std::vector<std::string> allowed;  // ALGENTA_FACT_ONE_OF
};

struct DeclaredSupport {
  std::string plugin;
  std::vector<std::string> families;
  std::vector<DeclaredRange> ranges;
};

DeclaredSupport declared_support(const AlgentaDescriptor& descriptor);

// The rows that apply to `family`: a family-specific row replaces the "*"
// row of the same fact.
std::vector<DeclaredRange> ranges_for_family(const DeclaredSupport& support,
                                             const std::string& family);

std::string describe_allowed(const DeclaredRange& range);

// Empty when the facts are inside every declared range.
std::vector<Refusal> check_facts(const ModelFacts& facts, const DeclaredSupport& support);

}  // namespace algenta::facts
