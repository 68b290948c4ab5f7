// bench times only plugin builds that passed `verify` (DESIGN.md: "a build
// that fails a gate is not benchmarked"): the record of a passing run for
// the plugin's digest under the precision policy to be timed. The oracle,
// asked for by name with --allow-oracle, is the reference itself and needs
// no record.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "verify/verification_record.hpp"

namespace algenta::host::bench {

struct BuildVerification {
  std::optional<VerificationRecord> passing;  // the record that clears the build
  std::string refusal;                        // set when refused: what is missing, and the fix
};

// `verify_command` is the command line that would make the record.
BuildVerification check_verified_build(const std::filesystem::path& record_file,
                                       const std::string& plugin, const std::string& digest,
                                       const std::string& precision,
                                       const std::string& verify_command);

}  // namespace algenta::host::bench
