#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "openai/errors.hpp"
#include "serve/api_keys.hpp"
#include "serve/authorize.hpp"

using namespace algenta;
using serve::ApiKeys;
using serve::ApiKeyError;

namespace {

// A key file in a fresh directory with the given mode.
struct KeyFile {
  std::filesystem::path dir, path;
  KeyFile(const std::string& text, mode_t mode) {
    char pattern[] = "/tmp/algenta-keys-XXXXXX";
    dir = ::mkdtemp(pattern);
    path = dir / "keys";
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
  }
  ~KeyFile() { std::filesystem::remove_all(dir); }
};

const std::string kKeyA = "sk-aaaaaaaaaaaaaaaaaaaa";
const std::string kKeyB = "sk-bbbbbbbbbbbbbbbbbbbb";

ApiKeys load_file(const KeyFile& f, std::vector<std::string>& warnings) {
  return ApiKeys::load(f.path, std::nullopt, warnings);
}

}  // namespace

TEST_CASE("a key file: one key a line, blank lines and comments skipped") {
  const auto keys = serve::parse_key_file("# ops keys\n\n" + kKeyA + "\r\n  " + kKeyB + "  \n#x\n", "f");
  CHECK(keys == std::vector<std::string>{kKeyA, kKeyB});
  CHECK_THROWS_WITH(serve::parse_key_file("good-key\nbad key\n", "f"),
                    Catch::Contains("f line 2 holds a key with byte 0x20 at position 3"));
}

TEST_CASE("ALGENTA_API_KEYS: comma-separated, spaces trimmed, empties skipped") {
  CHECK(serve::parse_key_list(" a1, b2,,c3 ") == std::vector<std::string>{"a1", "b2", "c3"});
  CHECK(serve::parse_key_list(" , ").empty());
  std::vector<std::string> warnings;
  CHECK_THROWS_WITH(ApiKeys::load(std::nullopt, std::string(" , "), warnings),
                    Catch::Contains("ALGENTA_API_KEYS is set but holds no key"));
}

TEST_CASE("only the configured keys are accepted") {
  std::vector<std::string> warnings;
  KeyFile f(kKeyA + "\n", 0600);
  const ApiKeys keys = ApiKeys::load(f.path, kKeyB, warnings);
  CHECK(warnings.empty());
  CHECK(keys.size() == 2);
  CHECK(keys.accepts(kKeyA));
  CHECK(keys.accepts(kKeyB));
  CHECK_FALSE(keys.accepts(kKeyA + "x"));
  CHECK_FALSE(keys.accepts(kKeyA.substr(0, kKeyA.size() - 1)));
  CHECK_FALSE(keys.accepts(""));
  CHECK_FALSE(ApiKeys().enabled());
}

TEST_CASE("a key file others can read or change is refused; group-readable is warned about") {
  std::vector<std::string> warnings;
  KeyFile world(kKeyA + "\n", 0644);
  CHECK_THROWS_WITH(load_file(world, warnings),
                    Catch::Contains("has mode 0644: every user on this machine can read the keys") &&
                        Catch::Contains("chmod 600"));
  KeyFile group_write(kKeyA + "\n", 0620);
  CHECK_THROWS_WITH(load_file(group_write, warnings), Catch::Contains("its group can change"));
  KeyFile group_read(kKeyA + "\n", 0640);
  CHECK(load_file(group_read, warnings).size() == 1);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("mode 0640: members of its group can read"));
}

TEST_CASE("a key file with no key, too large, or missing is refused naming it") {
  std::vector<std::string> warnings;
  KeyFile empty("# nothing\n\n", 0600);
  CHECK_THROWS_WITH(load_file(empty, warnings), Catch::Contains("holds no key"));
  KeyFile big(std::string(serve::kMaxApiKeyFileBytes + 1, 'k'), 0600);
  CHECK_THROWS_WITH(load_file(big, warnings), Catch::Contains("over the cap of 1048576 bytes"));
  CHECK_THROWS_WITH(ApiKeys::load(std::filesystem::path("/nonexistent/keys"), std::nullopt, warnings),
                    Catch::Contains("/nonexistent/keys"));
  KeyFile short_key("abc\n", 0600);
  warnings.clear();
  load_file(short_key, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("key 1 is 3 bytes"));
}

TEST_CASE("the bearer check") {
  const ApiKeys keys = ApiKeys::from_keys({kKeyA});
  using openai::Route;
  CHECK_NOTHROW(serve::authorize(keys, Route::chat_completions, "Bearer " + kKeyA));
  CHECK_NOTHROW(serve::authorize(keys, Route::models, "bearer " + kKeyA));
  CHECK_NOTHROW(serve::authorize(keys, Route::health, ""));
  CHECK_NOTHROW(serve::authorize(keys, Route::ready, "Bearer wrong"));
  CHECK_NOTHROW(serve::authorize(ApiKeys(), Route::completions, ""));
  for (const std::string& header : std::vector<std::string>{"", "Bearer wrong", "Basic " + kKeyA, kKeyA, "Bearer "}) {
    for (Route route : {Route::chat_completions, Route::completions, Route::models, Route::unknown,
                        Route::embeddings}) {
      CAPTURE(header);
      try {
        serve::authorize(keys, route, header);
        FAIL("allowed");
      } catch (const openai::ApiError& e) {
        CHECK(e.kind == openai::ErrorKind::invalid_api_key);
        CHECK(openai::error_entry(e.kind).status == 401);
      }
    }
  }
  CHECK(serve::bearer_token("BEARER  tok ") == "tok");
  CHECK(serve::bearer_token("Bearer").empty());
}
