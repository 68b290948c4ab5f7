// The strict manifest parser. The manifest decides which code the host runs,
// so anything unexpected is refused, and every message names the field, the
// value (bounded, ASCII-escaped) and the form that is allowed.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "manifest/manifest.hpp"
#include "json/strict_json.hpp"

namespace algenta::manifest {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownChars = 80;  // room for a quoted SHA-256 digest
constexpr std::size_t kMaxNameChars = 64;
constexpr std::size_t kMaxFileNameChars = 255;
constexpr std::size_t kMaxDepth = kMaxManifestDepth;

constexpr const char* kHexDigest = "64 lowercase hex digits";
constexpr const char* kHexKeyId = "32 lowercase hex digits";
constexpr const char* kFileNameForm =
    "a plain file name (1-255 bytes, no '/' or '\\', no control characters, not \".\" or \"..\")";
constexpr const char* kNameForm = "1-64 characters from A-Z a-z 0-9 _ . -";

[[noreturn]] void fail(const std::string& message) { throw ManifestError(message); }

// A JSON value as it may appear in a message: ASCII-escaped and bounded.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > kMaxShownChars) text = text.substr(0, kMaxShownChars) + "...";
  return text;
}

// Offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or npos when the text is valid.
std::size_t invalid_utf8_offset(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char second_low = 0x80;
    unsigned char second_high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) second_low = 0xa0;
      if (lead == 0xed) second_high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) second_low = 0x90;
      if (lead == 0xf4) second_high = 0x8f;
    } else {
      return i;
    }
    if (text.size() - i < length) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      const unsigned char low = k == 1 ? second_low : 0x80;
      const unsigned char high = k == 1 ? second_high : 0xbf;
      if (byte < low || byte > high) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

json parse_json(std::string_view bytes) {
  if (bytes.size() > kMaxManifestBytes) {
    fail("manifest is " + std::to_string(bytes.size()) + " bytes, over the cap of " +
         std::to_string(kMaxManifestBytes) + " bytes");
  }
  if (const std::size_t offset = invalid_utf8_offset(bytes); offset != std::string_view::npos) {
    fail("manifest is not valid UTF-8 (bad byte at offset " + std::to_string(offset) + ")");
  }
  try {
    return strict_json::parse(bytes, kMaxDepth);
  } catch (const strict_json::StrictJsonError& error) {
    const std::string where = strict_json::dotted_path(error.path);
    const std::string at = where.empty() ? "the top level" : where;
    switch (error.kind) {
      case strict_json::StrictJsonError::Kind::duplicate_key:
        fail("duplicate key " + shown(json(error.key)) + " in " + at);
      case strict_json::StrictJsonError::Kind::too_deep:
        fail("manifest nests deeper than " + std::to_string(kMaxDepth) + " levels at " + at);
      case strict_json::StrictJsonError::Kind::syntax:
        break;
    }
    fail(std::string("manifest is not valid JSON: ") + error.what());
  }
}

bool is_lower_hex(std::string_view text, std::size_t length) {
  if (text.size() != length) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool is_name(std::string_view text) {
  if (text.empty() || text.size() > kMaxNameChars) return false;
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool is_file_name(std::string_view text) {
  if (text.empty() || text.size() > kMaxFileNameChars || text == "." || text == "..") {
    return false;
  }
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

// Reads the fields of one JSON object; `path` names it in messages.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) {
      fail(name_of("") + " is " + shown(object_) + ", expected a JSON object");
    }
  }

  // Typo safety: a misspelt optional field must not be silently ignored.
  void reject_unknown_fields(const std::vector<std::string>& known) const {
    for (const auto& item : object_.items()) {
      if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
        std::string allowed;
        for (const std::string& k : known) allowed += (allowed.empty() ? "" : ", ") + k;
        fail(name_of("") + " has unknown field " + shown(json(item.key())) + " (allowed: " +
             allowed + ")");
      }
    }
  }

  std::string name_of(const std::string& field) const {
    if (field.empty()) return path_.empty() ? "manifest" : path_;
    return path_.empty() ? field : path_ + "." + field;
  }

  const json& field(const std::string& field, const char* allowed) const {
    const auto found = object_.find(field);
    if (found == object_.end()) fail(name_of(field) + " is missing, expected " + allowed);
    return *found;
  }

  std::uint64_t unsigned_integer(const std::string& name, std::uint64_t low, std::uint64_t high,
                                 const char* allowed) const {
    const json& value = field(name, allowed);
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() < low ||
        value.get<std::uint64_t>() > high) {
      fail(name_of(name) + " is " + shown(value) + ", expected " + allowed);
    }
    return value.get<std::uint64_t>();
  }

  std::string string(const std::string& name, bool (*valid)(std::string_view),
                     const char* allowed) const {
    return checked_string(field(name, allowed), name_of(name), valid, allowed);
  }

  std::vector<std::string> string_list(const std::string& name, bool (*valid)(std::string_view),
                                       const char* allowed) const {
    const json& value = field(name, allowed);
    if (!value.is_array()) {
      fail(name_of(name) + " is " + shown(value) + ", expected a list of " + allowed);
    }
    std::vector<std::string> items;
    for (std::size_t i = 0; i < value.size(); ++i) {
      items.push_back(checked_string(value[i], name_of(name) + "[" + std::to_string(i) + "]",
                                     valid, allowed));
    }
    return items;
  }

 private:
  static std::string checked_string(const json& value, const std::string& path,
                                    bool (*valid)(std::string_view), const char* allowed) {
    if (!value.is_string() || !valid(value.get_ref<const std::string&>())) {
      fail(path + " is " + shown(value) + ", expected " + allowed);
    }
    return value.get<std::string>();
  }

  const json& object_;
  std::string path_;
};

bool is_any(std::string_view) { return true; }
bool is_schema(std::string_view text) { return text == kSchema; }
bool is_key_id(std::string_view text) { return is_lower_hex(text, 32); }
bool is_sha256(std::string_view text) { return is_lower_hex(text, 64); }
bool is_role(std::string_view text) { return text == "engine" || text == "oracle"; }

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

std::string timestamp(const ObjectReader& reader, const std::string& name,
                      std::int64_t* unix_seconds) {
  const std::string text = reader.string(name, is_any, "a UTC timestamp YYYY-MM-DDTHH:MM:SSZ");
  try {
    *unix_seconds = parse_utc_timestamp(text);
  } catch (const ManifestError& error) {
    fail(reader.name_of(name) + ": " + error.what());
  }
  return text;
}

PluginEntry read_plugin(const json& value, const std::string& path) {
  const ObjectReader reader(value, path);
  reader.reject_unknown_fields({"file", "sha256", "size", "name", "role", "target", "abi",
                                "families", "host_libraries", "min_driver"});
  PluginEntry entry;
  entry.file = reader.string("file", is_file_name, kFileNameForm);
  entry.sha256 = reader.string("sha256", is_sha256, kHexDigest);
  entry.size = reader.unsigned_integer("size", 0, kU64Max, "a non-negative integer byte count");
  entry.name = reader.string("name", is_name, kNameForm);
  entry.role = reader.string("role", is_role, "\"engine\" or \"oracle\"");
  entry.target = reader.string("target", is_name, kNameForm);
  const ObjectReader abi(reader.field("abi", "an object {\"major\": N, \"minor\": N}"),
                         reader.name_of("abi"));
  abi.reject_unknown_fields({"major", "minor"});
  entry.abi_major = static_cast<std::uint32_t>(
      abi.unsigned_integer("major", 1, kU32Max, "an integer from 1 to 4294967295"));
  entry.abi_minor = static_cast<std::uint32_t>(
      abi.unsigned_integer("minor", 0, kU32Max, "an integer from 0 to 4294967295"));
  entry.families = reader.string_list("families", is_name, kNameForm);
  entry.host_libraries = reader.string_list("host_libraries", is_file_name, kFileNameForm);
  entry.min_driver = static_cast<std::uint32_t>(reader.unsigned_integer(
      "min_driver", 0, kU32Max, "a driver major version as an integer, 0 for none"));
  return entry;
}

// Two entries for one name or one file would make selection ambiguous.
void require_unique(const std::vector<PluginEntry>& plugins,
                    const std::string PluginEntry::*field, const char* field_name) {
  std::map<std::string, std::size_t> first_index;
  for (std::size_t i = 0; i < plugins.size(); ++i) {
    const auto [it, inserted] = first_index.emplace(plugins[i].*field, i);
    if (!inserted) {
      fail("plugins[" + std::to_string(i) + "]." + field_name + " " +
           shown(json(plugins[i].*field)) + " repeats plugins[" + std::to_string(it->second) +
           "]." + field_name + "; each must be unique");
    }
  }
}

}  // namespace

Manifest parse_manifest(std::string_view bytes) {
  const json root = parse_json(bytes);
  if (!root.is_object()) fail("manifest top level is " + shown(root) + ", expected a JSON object");

  // The schema first: a manifest of another schema is reported as such, not
  // as a list of unknown fields.
  const ObjectReader reader(root, "");
  Manifest manifest;
  manifest.schema = reader.string("schema", is_schema, "\"algenta.plugin-manifest/1\"");
  reader.reject_unknown_fields({"schema", "version", "issued", "expires", "key_id", "plugins"});
  manifest.version = reader.unsigned_integer("version", 0, kU64Max, "a non-negative integer");
  std::int64_t issued = 0;
  std::int64_t expires = 0;
  manifest.issued = timestamp(reader, "issued", &issued);
  manifest.expires = timestamp(reader, "expires", &expires);
  if (expires <= issued) {
    fail("expires " + manifest.expires + " is not after issued " + manifest.issued);
  }
  manifest.key_id = reader.string("key_id", is_key_id, kHexKeyId);

  const json& plugins = reader.field("plugins", "a list of plugin entries");
  if (!plugins.is_array()) fail("plugins is " + shown(plugins) + ", expected a list");
  for (std::size_t i = 0; i < plugins.size(); ++i) {
    manifest.plugins.push_back(read_plugin(plugins[i], "plugins[" + std::to_string(i) + "]"));
  }
  require_unique(manifest.plugins, &PluginEntry::name, "name");
  require_unique(manifest.plugins, &PluginEntry::file, "file");
  return manifest;
}

}  // namespace algenta::manifest
