// A loaded plugin's open engine, driven through the ABI with C++ types.
// Plugin errors become EngineError (code + message); the engine is closed
// when the session goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/verified_loader.hpp"

namespace algenta::host {

struct EngineError : std::runtime_error {
  EngineError(AlgentaStatusCode code, const std::string& message)
      : std::runtime_error(message), code(code) {}
  AlgentaStatusCode code;
};

struct ChunkRequest {
  std::uint64_t sequence_id = 0;
  std::vector<std::int32_t> tokens;
  std::uint32_t start_position = 0;
  AlgentaLogitsRequest logits = ALGENTA_LOGITS_NONE;
};

struct StepResult {
  std::vector<std::int32_t> next_tokens;  // one per chunk
  std::vector<float> logits;              // requested logits, in chunk order
};

class EngineSession {
 public:
  EngineSession(std::unique_ptr<loader::LoadedPlugin> plugin, const std::string& checkpoint_dir,
                std::uint32_t max_context);
  ~EngineSession();
  EngineSession(const EngineSession&) = delete;
  EngineSession& operator=(const EngineSession&) = delete;

  std::uint32_t vocab_size() const { return vocab_size_; }
  std::uint32_t max_context() const { return max_context_; }
  const loader::LoadedPlugin& plugin() const { return *plugin_; }

  StepResult step(const std::vector<ChunkRequest>& chunks);
  void free_sequences(const std::vector<std::uint64_t>& ids);

 private:
  void check(AlgentaError* error) const;

  std::unique_ptr<loader::LoadedPlugin> plugin_;
  AlgentaEngine* engine_ = nullptr;
  std::uint32_t vocab_size_ = 0;
  std::uint32_t max_context_ = 0;
};

// The exit code of a command whose engine raised `error`: 2 when the engine
// refused the checkpoint or the request, 3 when it failed.
int exit_code_for(const EngineError& error);

// Empty when `dir` holds a prepared checkpoint; otherwise the sentence that
// tells the user how to make one.
std::string unprepared_checkpoint(const std::string& dir);

}  // namespace algenta::host
