// Size caps of the small files the host and its tools read whole, one per
// kind, each far above any real file of that kind and far below what would
// hurt. Caps that belong to one format live beside its reader:
// facts::kMaxConfigBytes (config.json, 4 MiB), checkpoint::kMaxShardIndexBytes
// (model.safetensors.index.json), checkpoint::kMaxResidentManifestBytes,
// checkpoint::kMaxSafetensorsHeaderBytes, manifest::kMaxManifestBytes.
#pragma once

#include "files/bounded_read.hpp"

namespace algenta::files {

// An Ed25519 key in PEM is 113 (public) or 119 (private) bytes.
inline constexpr SizeCap kKeyFileCap{64u << 10, "a key file"};
// The manifest version state: one small entry per trusted signing key.
inline constexpr SizeCap kVersionStateCap{1u << 20, "a version state file"};
// The verification record: one small entry per verified plugin build.
inline constexpr SizeCap kVerificationRecordCap{1u << 20, "a verification record"};
// The onboarded-checkpoints registry: one small entry per checkpoint.
inline constexpr SizeCap kOnboardedRegistryCap{1u << 20, "an onboarded-checkpoints registry"};
// transformers reference.json: a few prompts with their greedy tokens.
inline constexpr SizeCap kTransformersReferenceCap{16u << 20, "a transformers reference file"};
// A child process's captured stdout/stderr (generate prints a line of ids).
inline constexpr SizeCap kChildOutputCap{16u << 20, "a child process output file"};
// The messages of `algenta-host template`: a chat request's messages (an
// OpenAI server takes request bodies of a few MiB).
inline constexpr SizeCap kMessagesFileCap{64u << 20, "a messages file"};
// A logits file written by generate --logits: rows x vocab fp32 (64 rows of
// a 262144-token vocabulary is 64 MiB).
inline constexpr SizeCap kLogitsFileCap{1u << 30, "a logits file"};

}  // namespace algenta::files
