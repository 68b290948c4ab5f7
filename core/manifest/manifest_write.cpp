// The canonical manifest form: fixed key order, 2-space indent, trailing
// newline. Signing covers these exact bytes, so the writer must be
// deterministic: the same Manifest always gives the same bytes.
#include <nlohmann/json.hpp>

#include "manifest/manifest.hpp"

namespace algenta::manifest {
namespace {

using nlohmann::ordered_json;

ordered_json plugin_json(const PluginEntry& entry) {
  ordered_json plugin;
  plugin["file"] = entry.file;
  plugin["sha256"] = entry.sha256;
  plugin["size"] = entry.size;
  plugin["name"] = entry.name;
  plugin["role"] = entry.role;
  plugin["target"] = entry.target;
  plugin["abi"]["major"] = entry.abi_major;
  plugin["abi"]["minor"] = entry.abi_minor;
  plugin["families"] = entry.families;
  plugin["host_libraries"] = entry.host_libraries;
  plugin["min_driver"] = entry.min_driver;
  return plugin;
}

}  // namespace

std::string serialize_manifest(const Manifest& manifest) {
  ordered_json root;
  root["schema"] = manifest.schema;
  root["version"] = manifest.version;
  root["issued"] = manifest.issued;
  root["expires"] = manifest.expires;
  root["key_id"] = manifest.key_id;
  root["plugins"] = ordered_json::array();
  for (const PluginEntry& entry : manifest.plugins) root["plugins"].push_back(plugin_json(entry));
  try {
    return root.dump(2) + "\n";
  } catch (const ordered_json::type_error& error) {
    // dump() refuses strings that are not UTF-8 rather than writing them.
    throw ManifestError(std::string("manifest cannot be serialised: ") + error.what());
  }
}

}  // namespace algenta::manifest
