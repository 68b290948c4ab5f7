#include "tokenizer/pre_tokenizer.hpp"

#include "tokenizer/byte_level_alphabet.hpp"
#include "tokenizer/json_fields.hpp"
#include "tokenizer/normalizer.hpp"
#include "tokenizer/utf8.hpp"

namespace algenta::tokenizer {

namespace jf = json_fields;

namespace {

// GPT-2's split, used by ByteLevel when use_regex is true.
constexpr std::string_view gpt2_pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

const SplitPattern& gpt2_split() {
  static const SplitPattern pattern = SplitPattern::regex(gpt2_pattern);
  return pattern;
}

SplitBehavior behavior_from(const std::string& name, const std::string& path) {
  if (name == "Removed") return SplitBehavior::removed;
  if (name == "Isolated") return SplitBehavior::isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (name == "Contiguous") return SplitBehavior::contiguous;
  jf::refuse(path, "split behavior \"" + name +
                       "\" is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

// Splits every piece by `pattern`; the first sub-piece keeps the text-start mark.
void split_pieces(std::vector<PrePiece>& pieces, const SplitPattern& pattern, SplitBehavior behavior,
                  bool invert) {
  std::vector<PrePiece> result;
  for (PrePiece& piece : pieces) {
    for (const auto& [start, end] : split_ranges(pattern.find_matches(piece.text), behavior, invert)) {
      if (start == end) continue;
      result.push_back(PrePiece{piece.text.substr(start, end - start), piece.at_text_start && start == 0});
    }
  }
  pieces = std::move(result);
}

}  // namespace

PreTokenizer PreTokenizer::from_json(const nlohmann::json& section, std::string_view path) {
  PreTokenizer pre_tokenizer;
  if (!section.is_null()) pre_tokenizer.add(section, std::string(path));
  return pre_tokenizer;
}

void PreTokenizer::add(const nlohmann::json& component, const std::string& path) {
  const std::string type = jf::type_of(component, path);
  Step step{};
  if (type == "Sequence") {
    const std::string list_path = jf::child_path(path, "pretokenizers");
    const nlohmann::json& list = jf::required(component, "pretokenizers", path);
    if (!list.is_array()) jf::refuse(list_path, "expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) add(list[i], jf::index_path(list_path, i));
    return;
  }
  if (type == "Split") {
    step.kind = Kind::split;
    step.pattern = pattern_from_json(jf::required(component, "pattern", path), jf::child_path(path, "pattern"));
    step.behavior = behavior_from(jf::required_string(component, "behavior", path), jf::child_path(path, "behavior"));
    step.invert = jf::bool_or(component, "invert", path, false);
  } else if (type == "ByteLevel") {
    step.kind = Kind::byte_level;
    step.add_prefix_space = jf::bool_or(component, "add_prefix_space", path, true);
    step.use_regex = jf::bool_or(component, "use_regex", path, true);
  } else if (type == "Metaspace") {
    step.kind = Kind::metaspace;
    step.replacement = utf8::encode(jf::char_field(component, "replacement", path));
    step.split = jf::bool_or(component, "split", path, true);
    if (const auto scheme = jf::optional_string(component, "prepend_scheme", path)) {
      if (*scheme == "always") {
        step.prepend = Prepend::always;
      } else if (*scheme == "first") {
        step.prepend = Prepend::first;
      } else if (*scheme == "never") {
        step.prepend = Prepend::never;
      } else {
        jf::refuse(jf::child_path(path, "prepend_scheme"), "\"" + *scheme + "\" is not one of always, first, never");
      }
    } else {
      // Files written before prepend_scheme existed say add_prefix_space.
      step.prepend = jf::bool_or(component, "add_prefix_space", path, true) ? Prepend::always : Prepend::never;
    }
  } else {
    jf::refuse(path, "pre_tokenizer type \"" + type + "\" is not supported (supported: ByteLevel, Metaspace, Split, Sequence)");
  }
  steps_.push_back(std::move(step));
}

void PreTokenizer::apply(const Step& step, std::vector<PrePiece>& pieces) {
  switch (step.kind) {
    case Kind::split:
      split_pieces(pieces, step.pattern, step.behavior, step.invert);
      return;
    case Kind::byte_level:
      if (step.add_prefix_space) {
        for (PrePiece& piece : pieces) {
          if (piece.text.empty() || piece.text.front() != ' ') piece.text.insert(0, " ");
        }
      }
      if (step.use_regex) split_pieces(pieces, gpt2_split(), SplitBehavior::isolated, false);
      for (PrePiece& piece : pieces) piece.text = byte_level::to_alphabet(piece.text);
      return;
    case Kind::metaspace: {
      const SplitPattern space = SplitPattern::literal(" ");
      for (PrePiece& piece : pieces) {
        piece.text = replace_all(space, piece.text, step.replacement);
        const bool starts_with_replacement = piece.text.starts_with(step.replacement);
        if (!starts_with_replacement &&
            (step.prepend == Prepend::always || (step.prepend == Prepend::first && piece.at_text_start))) {
          piece.text.insert(0, step.replacement);
        }
      }
      if (step.split) split_pieces(pieces, SplitPattern::literal(step.replacement), SplitBehavior::merged_with_next, false);
      return;
    }
  }
}

std::vector<std::string> PreTokenizer::words(PrePiece piece) const {
  std::vector<PrePiece> pieces;
  if (!piece.text.empty()) pieces.push_back(std::move(piece));
  for (const Step& step : steps_) {
    apply(step, pieces);
    std::erase_if(pieces, [](const PrePiece& p) { return p.text.empty(); });
  }
  std::vector<std::string> result;
  result.reserve(pieces.size());
  for (PrePiece& p : pieces) result.push_back(std::move(p.text));
  return result;
}

}  // namespace algenta::tokenizer
