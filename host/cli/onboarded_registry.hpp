// The checkpoints `conform` has judged, with their verdicts, so `conform
// --table` can list what has been onboarded on this host.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace algenta::host {

// Lives beside the manifest-version state file.
std::filesystem::path onboarded_registry_path(const std::filesystem::path& state_file);

// Records (replacing) the entry for `checkpoint`; written atomically.
void record_onboarded(const std::filesystem::path& registry, const std::string& checkpoint,
                      const nlohmann::json& entry);

// {} when absent; throws std::runtime_error naming the file when malformed.
nlohmann::json load_onboarded(const std::filesystem::path& registry);

}  // namespace algenta::host
