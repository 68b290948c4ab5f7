// The reference file of the transformers gate (--transformers-reference),
// made on a GPU machine by running the checkpoint in Hugging Face
// transformers:
//
//   {"checkpoint": str, "dtype": "bfloat16", "device": "cuda", "torch": str,
//    "transformers": str, "max_new_tokens": int,
//    "prompts": [{"name": str, "rendered": str or null, "ids": [int...],
//                 "greedy": [int...], "margins": [float...],
//                 "top_logits": [float...] (optional)}]}
//
// "greedy" is transformers' greedy continuation after "ids"; "margins" its
// top-1 minus top-2 logit at each generated step and "top_logits" the top-1
// logit itself (which sets the size of one rounding step of the reference's
// dtype there). Unknown fields are ignored so the script may add provenance.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace algenta::host {

// Unreadable or malformed file: what() names the file, the field and what
// is allowed.
struct ReferenceFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ReferencePrompt {
  std::string name;
  std::optional<std::string> rendered;  // the chat-rendered text, when there was one
  std::vector<std::int32_t> ids;
  std::vector<std::int32_t> greedy;
  std::vector<double> margins;     // one per greedy token
  std::vector<double> top_logits;  // one per greedy token, or empty when not given
};

struct TransformersReference {
  std::string checkpoint;
  std::string dtype;
  std::string device;
  std::string torch;
  std::string transformers;
  std::int64_t max_new_tokens = 0;
  std::vector<ReferencePrompt> prompts;
};

TransformersReference load_transformers_reference(const std::filesystem::path& file);

}  // namespace algenta::host
