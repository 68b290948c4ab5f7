// The engine as the serve loop drives it. Serve runs it over an
// EngineSession; the loop's tests run it over a fake, since an EngineSession
// needs a loaded, signed plugin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_session.hpp"

namespace algenta::serve {

class StepEngine {
 public:
  virtual ~StepEngine() = default;
  virtual std::uint32_t max_context() const = 0;
  virtual std::uint32_t vocab_size() const = 0;
  virtual std::string precision() const = 0;  // the policy it computes under
  // Set when the engine took the host's block tables: the scheduler then
  // owns the blocks and every chunk carries its table.
  virtual std::optional<host::HostBlockGeometry> host_block_geometry() const = 0;
  // True when the engine draws sampled tokens itself (ABI 1.2): chunks then
  // carry sampling parameters instead of asking for logits.
  virtual bool engine_samples() const { return false; }
  virtual host::MemoryReport memory_report() = 0;
  // One ragged batch; throws host::EngineError (the engine then holds what
  // it held before, unless it failed for good).
  virtual host::StepResult step(const std::vector<host::ChunkRequest>& chunks) = 0;
  virtual void free_sequences(const std::vector<std::uint64_t>& ids) = 0;
};

class SessionStepEngine final : public StepEngine {
 public:
  explicit SessionStepEngine(host::EngineSession& session) : session_(session) {}
  std::uint32_t max_context() const override { return session_.max_context(); }
  std::uint32_t vocab_size() const override { return session_.vocab_size(); }
  std::string precision() const override { return session_.precision(); }
  std::optional<host::HostBlockGeometry> host_block_geometry() const override {
    return session_.host_block_geometry();
  }
  bool engine_samples() const override { return session_.engine_samples(); }
  host::MemoryReport memory_report() override { return session_.memory_report(); }
  host::StepResult step(const std::vector<host::ChunkRequest>& chunks) override {
    return session_.step(chunks);
  }
  void free_sequences(const std::vector<std::uint64_t>& ids) override {
    session_.free_sequences(ids);
  }

 private:
  host::EngineSession& session_;
};

}  // namespace algenta::serve
