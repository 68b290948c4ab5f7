#include "tokenizer/onig_regex.hpp"

#include "tokenizer/tokenizer_error.hpp"
#include "tokenizer/utf8.hpp"

#include <oniguruma.h>

#include <mutex>

namespace algenta::tokenizer {
namespace {

std::string onig_message(int code, OnigErrorInfo* info) {
  OnigUChar buffer[ONIG_MAX_ERROR_MESSAGE_LEN];
  if (info != nullptr) {
    onig_error_code_to_str(buffer, code, info);
  } else {
    onig_error_code_to_str(buffer, code);
  }
  return reinterpret_cast<const char*>(buffer);
}

void initialize_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

const OnigUChar* bytes(std::string_view text) {
  return reinterpret_cast<const OnigUChar*>(text.data());
}

}  // namespace

OnigRegex::OnigRegex(std::string_view pattern) : pattern_(pattern) {
  initialize_once();
  regex_t* compiled = nullptr;
  OnigErrorInfo info{};
  const int code = onig_new(&compiled, bytes(pattern_), bytes(pattern_) + pattern_.size(),
                            ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_ONIGURUMA, &info);
  if (code != ONIG_NORMAL) {
    throw TokenizerError("regex " + pattern_ + " does not compile: " + onig_message(code, &info));
  }
  regex_ = compiled;
}

OnigRegex::~OnigRegex() {
  if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
}

std::vector<std::pair<std::size_t, std::size_t>> OnigRegex::find_all(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  std::unique_ptr<OnigRegion, void (*)(OnigRegion*)> region(onig_region_new(),
                                                            [](OnigRegion* r) { onig_region_free(r, 1); });
  const OnigUChar* begin = bytes(text);
  const OnigUChar* end = begin + text.size();
  std::size_t search_from = 0;
  bool have_last = false;
  std::size_t last_match_end = 0;
  while (search_from <= text.size()) {
    onig_region_clear(region.get());
    const int found = onig_search(static_cast<regex_t*>(regex_), begin, end, begin + search_from, end,
                                  region.get(), ONIG_OPTION_NONE);
    if (found == ONIG_MISMATCH) break;
    if (found < 0) {
      throw TokenizerError("regex " + pattern_ + " failed on a text of " + std::to_string(text.size()) +
                           " bytes: " + onig_message(found, nullptr));
    }
    const auto start = static_cast<std::size_t>(region->beg[0]);
    const auto stop = static_cast<std::size_t>(region->end[0]);
    if (start == stop && have_last && last_match_end == stop) {
      search_from += search_from < text.size() ? utf8::char_length(static_cast<unsigned char>(text[search_from])) : 1;
      continue;
    }
    search_from = stop;
    have_last = true;
    last_match_end = stop;
    matches.emplace_back(start, stop);
  }
  return matches;
}

}  // namespace algenta::tokenizer
