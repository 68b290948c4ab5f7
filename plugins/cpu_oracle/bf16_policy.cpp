#include "bf16_policy.hpp"

#if ALGENTA_ORACLE_BF16_POLICY
#include <atomic>
#include <string>

#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

constexpr int kNoPolicyYet = -1;
std::atomic<int> process_policy{kNoPolicyYet};

const char* policy_name(int precision) {
  return precision == ALGENTA_PRECISION_BF16 ? "bf16" : "exact";
}

}  // namespace

void run_precision_policy(AlgentaPrecision precision, const char* plugin_name) {
  int expected = kNoPolicyYet;
  const int wanted = static_cast<int>(precision);
  if (process_policy.compare_exchange_strong(expected, wanted) || expected == wanted) return;
  throw plugin::StatusError{
      ALGENTA_STATUS_UNSUPPORTED,
      std::string(plugin_name) + " is a test build that computes one precision policy per " +
          "process; this process already opened it with " + policy_name(expected) +
          ", so it cannot open it with " + policy_name(wanted)};
}

bool bf16_policy_running() noexcept {
  return process_policy.load(std::memory_order_relaxed) == ALGENTA_PRECISION_BF16;
}

}  // namespace algenta::oracle
#endif
