#include "cli/onboarded_registry.hpp"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"

namespace algenta::host {
namespace fs = std::filesystem;

fs::path onboarded_registry_path(const fs::path& state_file) {
  return state_file.parent_path() / "onboarded-checkpoints.json";
}

nlohmann::json load_onboarded(const fs::path& registry) {
  std::optional<std::string> text;
  try {
    text = files::read_bounded_if_present(registry, files::kOnboardedRegistryCap);
  } catch (const files::FileReadError& error) {
    throw std::runtime_error(error.what());
  }
  if (!text) return nlohmann::json::object();
  try {
    nlohmann::json doc = nlohmann::json::parse(*text);
    if (!doc.is_object()) throw std::runtime_error("not a JSON object");
    return doc;
  } catch (const std::exception& e) {
    throw std::runtime_error(registry.string() + " is malformed (" + e.what() +
                             "); remove it to start a new record");
  }
}

void record_onboarded(const fs::path& registry, const std::string& checkpoint,
                      const nlohmann::json& entry) {
  nlohmann::json doc = load_onboarded(registry);
  doc[checkpoint] = entry;
  fs::create_directories(registry.parent_path());
  const fs::path temp = registry.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << doc.dump(2) << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + temp.string());
  }
  fs::rename(temp, registry);
}

}  // namespace algenta::host
