// How `algenta-host verify` shows its result: a table with one row per gate
// check, then which gates failed or did not run and the flag that would
// run them.
#pragma once

#include <ostream>

#include "verify/verify_result.hpp"

namespace algenta::host {

void print_verify_table(std::ostream& out, const VerifyRun& run);
void print_verify_summary(std::ostream& out, const VerifyRun& run);

}  // namespace algenta::host
