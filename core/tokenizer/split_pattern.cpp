#include "tokenizer/split_pattern.hpp"

#include <algorithm>

namespace algenta::tokenizer {

SplitPattern SplitPattern::literal(std::string text) {
  SplitPattern pattern;
  pattern.literal_ = std::move(text);
  return pattern;
}

SplitPattern SplitPattern::regex(std::string_view pattern) {
  SplitPattern result;
  result.regex_ = std::make_shared<const OnigRegex>(pattern);
  return result;
}

std::string SplitPattern::describe() const {
  return regex_ ? "Regex " + regex_->pattern() : "String \"" + literal_ + "\"";
}

std::vector<Segment> SplitPattern::find_matches(std::string_view text) const {
  std::vector<Segment> segments;
  if (text.empty()) return {Segment{0, 0, false}};
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  if (regex_) {
    matches = regex_->find_all(text);
  } else if (!literal_.empty()) {
    for (std::size_t at = text.find(literal_); at != std::string_view::npos;
         at = text.find(literal_, at + literal_.size())) {
      matches.emplace_back(at, at + literal_.size());
    }
  }
  std::size_t previous = 0;
  for (const auto& [start, end] : matches) {
    if (previous != start) segments.push_back(Segment{previous, start, false});
    segments.push_back(Segment{start, end, true});
    previous = end;
  }
  if (previous != text.size()) segments.push_back(Segment{previous, text.size(), false});
  return segments;
}

std::vector<std::pair<std::size_t, std::size_t>> split_ranges(std::vector<Segment> segments,
                                                              SplitBehavior behavior, bool invert) {
  if (invert) {
    for (Segment& s : segments) s.is_match = !s.is_match;
  }
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::isolated:
      for (const Segment& s : segments) pieces.emplace_back(s.start, s.end);
      break;
    case SplitBehavior::removed:
      for (const Segment& s : segments) {
        if (!s.is_match) pieces.emplace_back(s.start, s.end);
      }
      break;
    case SplitBehavior::contiguous:
      for (const Segment& s : segments) {
        if (s.is_match == previous_match && !pieces.empty()) {
          pieces.back().second = s.end;
        } else {
          pieces.emplace_back(s.start, s.end);
        }
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::merged_with_previous:
      for (const Segment& s : segments) {
        if (s.is_match && !previous_match && !pieces.empty()) {
          pieces.back().second = s.end;
        } else {
          pieces.emplace_back(s.start, s.end);
        }
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::merged_with_next:
      for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        if (it->is_match && !previous_match && !pieces.empty()) {
          pieces.back().first = it->start;
        } else {
          pieces.emplace_back(it->start, it->end);
        }
        previous_match = it->is_match;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
  }
  return pieces;
}

std::string replace_all(const SplitPattern& pattern, std::string_view text, std::string_view content) {
  std::string out;
  for (const Segment& s : pattern.find_matches(text)) {
    if (s.is_match) {
      out.append(content);
    } else {
      out.append(text.substr(s.start, s.end - s.start));
    }
  }
  return out;
}

}  // namespace algenta::tokenizer
